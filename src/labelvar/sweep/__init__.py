"""Hydra sweeps: a config becomes a grid of engine calls, chunk files, one table and figures.

:func:`run_job` runs one job of a typed :class:`SweepConfig` (its fields:
:class:`GridConfig`, :class:`ModelConfig` with :class:`ThetaPriorConfig`,
:class:`LabellersConfig` with :class:`ModelLabellerConfig`, :class:`OutputConfig`) into a
directory and returns a :class:`JobResult`; :func:`collect` merges the jobs of a multirun
into one table. The command line (``labelvar sweep``, ``labelvar collect``; the Hydra app,
the checks of the overrides before Hydra runs, shell completion) lives in
``labelvar.cli``.

One job, one grid, few engine calls: a job evaluates the Cartesian grid ``n_items x
n_labels x panel_size x m x p_d`` (a panel: ``theta``), cut into chunks that are
themselves Cartesian sub-grids of about ``chunk_cells`` cells; each chunk is **one**
call of :func:`labelvar.simulate` and one file ``chunks/<key>.csv`` with a marker
``chunks/<key>.json``. The key is a content hash of the chunk's resolved engine
arguments (plus the engine's source), so a rerun of an interrupted job skips complete
chunks. The engine keys each cell's random stream by the cell's parameter values, so the
merged table does not depend on how the grid was chunked or resumed. Every file is
written to a temporary name and renamed.

Outputs of a job: ``results.csv`` (or ``.parquet``), ``config.yaml`` (resolved),
``metadata.json`` (seed, versions, labelvar's git revision when run from a checkout, chunk
accounting, timings, the ``files`` written), ``<plot>.png/.pdf`` and ``chunks/``; Hydra
adds ``.hydra/``.

The code lives in private modules: ``_config`` (the typed configs and their checks),
``_job`` (one job), ``_chunks`` (the chunk plan and its keys), ``_collect`` (merging jobs)
and ``_figures``. May import every lower part (the engine, the models of votes, figures);
never evaluation, planning, reports or the command line.
"""

from labelvar.sweep._collect import collect
from labelvar.sweep._config import (
    GridConfig,
    LabellersConfig,
    ModelConfig,
    ModelLabellerConfig,
    OutputConfig,
    SweepConfig,
    ThetaPriorConfig,
)
from labelvar.sweep._job import JobResult, run_job

__all__ = ["GridConfig", "JobResult", "LabellersConfig", "ModelConfig", "ModelLabellerConfig",
           "OutputConfig", "SweepConfig", "ThetaPriorConfig", "collect", "run_job"]
