"""The sweep engine behind :mod:`labelvar.sweep`: chunk plan, one job, collect.

Re-exported by :mod:`labelvar.sweep` (whose docstring describes the layout of a job);
this module holds everything that runs a job from a typed
:class:`labelvar.sweep.SweepConfig`, never a ``DictConfig``.

The pieces: ``labelvar.sweep._chunks`` (the chunk plan, engine arguments and limits,
chunk keys), ``labelvar.sweep._figures`` (a job's figure plan and drawing) and
``labelvar.sweep._collect`` (:func:`collect`); this module runs one job
(:func:`run_job`, :class:`JobResult`, the parent watch, the metadata) and re-exports
the others' names.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import platform
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from labelvar._base._files import atomic_write, directory_lock, read_results, write_results
from labelvar._base._format import count, shown
from labelvar.sweep._chunks import (  # noqa: F401  (re-exported)
    _ENGINE_SOURCES,
    CELL_AXES,
    Chunk,
    _as_path,
    _axis_values,
    _chunk_complete,
    _in_grid_order,
    _json_default,
    _sha256,
    check_engine_limits,
    chunk_key,
    engine_kwargs,
    plan_chunks,
)
from labelvar.sweep._collect import collect  # noqa: F401  (re-exported)
from labelvar.sweep._config import (
    SweepConfig,
    validate,
)
from labelvar.sweep._figures import (
    _draw,
    _figure_plan,
    _files_written_before,
    _mark_running,
    _remove_stale_figures,
)

log = logging.getLogger("labelvar.sweep")

# --------------------------------------------------------------------------- one job
@shown
@dataclass(repr=False)
class JobResult:
    """What :func:`run_job` produced.

    Attributes
    ----------
    table : pandas.DataFrame
        The merged tidy table (as read back from the chunk files).
    out_dir : pathlib.Path
        The job's directory.
    results : pathlib.Path
        The results table file.
    figures : list of pathlib.Path
        Figure files written (when a figure failed, those drawn before it).
    computed, reused : int
        Chunks computed now and chunks reused from complete files.
    figure_error : str or None
        Why the figures failed (the table is complete all the same), or None.
    """

    table: pd.DataFrame
    out_dir: Path
    results: Path
    figures: list
    computed: int
    reused: int
    figure_error: str | None = None


def _default_engine() -> Callable[..., pd.DataFrame]:
    """:func:`labelvar.simulate`, returning its summary table."""
    from labelvar.engine._simulate import simulate

    def engine(**kwargs) -> pd.DataFrame:
        return simulate(**kwargs).summary

    return engine


class _NoProgress(contextlib.nullcontext):
    """The progress bar when none is shown (quiet, or stderr is not a terminal)."""

    disable = True  # as a disabled tqdm bar

    def __enter__(self):
        return self

    def update(self, n: int = 1) -> None:
        """Do nothing."""


def _progress(total: int, desc: str, quiet: bool):
    if quiet or not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
        return _NoProgress()  # (importing tqdm.auto imports asyncio: ~20 ms)
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="cell", delay=1.0, leave=False)


#: environment variable holding the pid of the `labelvar sweep` process (set by
#: :func:`labelvar.sweep.cli_main`): a launcher's worker that is its child stops when it dies
PARENT_ENV = "LABELVAR_SWEEP_PARENT"
#: held while a chunk file and its marker are written: a worker stopping because its
#: parent died waits for it, so every file it leaves is whole (and a rerun reuses it)
WRITING = threading.Lock()


def stop_with_parent(poll: float = 0.2) -> bool:
    """In a launcher's worker process (a child of `labelvar sweep`), exit when that parent dies.

    A multirun through joblib runs jobs in worker processes that would otherwise go on
    computing and writing after the `labelvar sweep` process was killed. A daemon thread
    checks every ``poll`` seconds whether this process was re-parented; then it waits for
    :data:`WRITING` (a chunk being written is finished) and exits with code 3. Jobs in the
    sweep process itself, and processes that are not its direct children (a cluster's
    jobs), are not watched. Returns whether a watcher was started (once per process).

    Examples
    --------
    >>> stop_with_parent()  # not a worker of a `labelvar sweep` process: nothing to watch
    False
    """
    parent = os.environ.get(PARENT_ENV, "")
    if not parent.isdigit() or int(parent) == os.getpid() or os.getppid() != int(parent):
        return False
    global _WATCHING
    if _WATCHING:
        return True
    _WATCHING = True

    def watch():
        while os.getppid() == int(parent):
            time.sleep(poll)
        with WRITING:
            logging.getLogger(__name__).error("the labelvar sweep process %s ended: this "
                                              "worker stops (its complete chunks are kept)",
                                              parent)
            os._exit(3)

    threading.Thread(target=watch, name="labelvar-parent-watch", daemon=True).start()
    return True


_WATCHING = False


def run_job(cfg: SweepConfig, out_dir: str | Path, *, engine: Callable | None = None,
            overrides: Sequence[str] = ()) -> JobResult:
    """Evaluate the grid of ``cfg`` chunk by chunk into ``out_dir``; return a :class:`JobResult`.

    Complete chunk files found in the chunk directory are reused (``cfg.resume``);
    the merged table is always assembled from the chunk files, in plan order, so
    a resumed job and an uninterrupted one give identical tables.

    Parameters
    ----------
    cfg : SweepConfig
        The validated configuration.
    out_dir : path
        The job's directory (Hydra's run directory).
    engine : callable, optional
        Replaces the engine (tests): keyword arguments of :func:`labelvar.simulate` in,
        a summary table out.
    overrides : sequence of str
        The command-line overrides, recorded in ``metadata.json``.

    Examples
    --------
    >>> import tempfile
    >>> from labelvar.sweep import SweepConfig
    >>> cfg = SweepConfig()
    >>> cfg.grid.p_d, cfg.grid.n_items, cfg.replicates = [0.6, 0.9], [50], 200
    >>> cfg.output.plots, cfg.quiet = [], True
    >>> res = run_job(cfg, tempfile.mkdtemp())
    >>> res.computed, res.reused, sorted(res.table["labeller"].unique())
    (1, 0, ['expert', 'random'])
    """
    t0 = time.perf_counter()
    out_dir = _as_path("out_dir", out_dir)
    cfg = validate(cfg)  # (a copy in plain types, as config.yaml and metadata.json need)
    check_engine_limits(cfg)
    with directory_lock(out_dir):  # one run at a time per job directory
        return _run_job(cfg, out_dir, engine or _default_engine(), overrides, t0)


def _run_job(cfg: SweepConfig, out_dir: Path, engine: Callable, overrides, t0: float
             ) -> JobResult:
    out_dir.mkdir(parents=True, exist_ok=True)
    chunk_dir = Path(cfg.chunk_dir) if cfg.chunk_dir else out_dir / "chunks"
    ext = "." + cfg.output.format
    chunks = plan_chunks(cfg)
    # until the job completes, its metadata says so (collect refuses a "running" job) and
    # lists every file this job or an earlier one in this directory may have left here
    earlier = _files_written_before(out_dir)
    _mark_running(cfg, out_dir, earlier + [f"results{ext}"])
    computed = reused = 0
    t_engine = 0.0
    files = []
    n_cells = sum(c.n_cells for c in chunks)
    with _progress(n_cells, cfg.name, cfg.quiet) as bar:
        for chunk in chunks:
            kwargs = engine_kwargs(cfg, chunk)
            key = chunk_key(kwargs, cfg.output.format)
            table_path = chunk_dir / f"{key}{ext}"
            marker_path = chunk_dir / f"{key}.json"
            if cfg.resume and _chunk_complete(table_path, marker_path, key):
                reused += 1
            else:
                t1 = time.perf_counter()
                table = engine(**kwargs, progress=False)
                seconds = time.perf_counter() - t1
                t_engine += seconds
                with WRITING:  # a chunk and its marker (a stopping worker waits for both)
                    write_results(table, table_path)
                    marker = {"key": key, "file": table_path.name, "rows": len(table),
                              "sha256": _sha256(table_path), "cells": chunk.n_cells,
                              "seconds": round(seconds, 4), "kwargs": kwargs}
                    atomic_write(marker_path,
                                 json.dumps(marker, indent=1, default=_json_default).encode())
                computed += 1
            files.append(table_path)
            bar.update(chunk.n_cells)
    table = _in_grid_order(pd.concat([read_results(p) for p in files], ignore_index=True),
                           _axis_values(cfg))
    results = write_results(table, out_dir / f"results{ext}")
    t1 = time.perf_counter()
    figures, figure_error = [], None
    may_exist = list(dict.fromkeys(earlier + [results.name]))
    try:
        plan = _figure_plan(table, cfg)
        planned = [f"{stem}.{fmt}" for _, stem, _ in plan for fmt in cfg.output.figure_formats]
        if set(planned) - set(may_exist):  # listed before they are drawn, for a run killed
            may_exist = list(dict.fromkeys(may_exist + planned))  # while drawing
            _mark_running(cfg, out_dir, may_exist)
        _draw(plan, cfg, out_dir, figures)
    except Exception as exc:  # the table is complete: keep it, say what failed
        figure_error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc) else ''}"
        log.error("%s: figures failed (%s); the table is complete: %s", cfg.name, figure_error,
                  results)
    t_figures = time.perf_counter() - t1
    written = [results.name] + [f.name for f in figures]
    _remove_stale_figures(out_dir, may_exist, keep=written)
    _write_config(cfg, out_dir)
    meta = _metadata(cfg, status="complete" if figure_error is None else "figures_failed",
                     figure_error=figure_error, chunks=len(chunks), computed=computed,
                     reused=reused,
                     seconds=time.perf_counter() - t0, engine_seconds=t_engine,
                     figure_seconds=t_figures, overrides=overrides,
                     results={"file": results.name, "rows": len(table),
                              "sha256": _sha256(results)},
                     files=written)
    atomic_write(out_dir / "metadata.json", json.dumps(meta, indent=1).encode())
    log.info("%s: %s in %s (%d computed, %d reused) -> %s",
             cfg.name, count(n_cells, "cell"), count(len(chunks), "chunk"), computed, reused, results)
    return JobResult(table, out_dir, results, figures, computed, reused, figure_error)


def _write_config(cfg: SweepConfig, out_dir: Path) -> None:
    from omegaconf import OmegaConf

    text = OmegaConf.to_yaml(OmegaConf.structured(cfg))
    atomic_write(out_dir / "config.yaml", text.encode())


def _versions() -> dict:
    from importlib import metadata

    from labelvar._base._provenance import version

    out = {"python": platform.python_version(), "labelvar": version()}
    for dist in ("numpy", "numba", "scipy", "pandas", "matplotlib", "hydra-core",
                 "omegaconf", "pyarrow", "hydra-joblib-launcher", "hydra-submitit-launcher"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def _git_revision() -> dict:
    """The git details of labelvar's own checkout, or Nones (an installed copy); no other repo's."""
    from labelvar._base._provenance import vcs_info

    return vcs_info()


def _metadata(cfg: SweepConfig, **extra) -> dict:
    return {
        "name": cfg.name,
        "seed": cfg.seed,
        "replicates": cfg.replicates,
        "mode": cfg.model.mode,
        "versions": _versions(),
        "git": _git_revision(),
        "numba_threads": os.environ.get("NUMBA_NUM_THREADS"),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        **{k: (list(v) if isinstance(v, (tuple, list)) else v) for k, v in extra.items()},
        "config": asdict(cfg),
    }
