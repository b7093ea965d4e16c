"""Hydra sweeps: the config becomes engine calls, chunk files, one table and figures.

Where the config becomes a call
-------------------------------
``labelvar sweep [hydra args and overrides]`` (see :func:`cli_main`) checks the
overrides, then hands them to the Hydra app (:func:`hydra_app`). Its task
function converts the composed ``DictConfig`` into a typed
:class:`labelvar.config.SweepConfig` (``OmegaConf.to_object``) and calls
:func:`run_job`; nothing below the entry point sees a ``DictConfig``.

One job, one grid, few engine calls
-----------------------------------
A job evaluates the Cartesian grid ``n_items x n_labels x panel_size x m x p_d``.
:func:`plan_chunks` cuts it into chunks that are themselves Cartesian sub-grids
of about ``chunk_cells`` cells (inner axes whole, one axis split, outer axes one
value at a time); each chunk is **one** call of :func:`labelvar.simulate`
and one file ``chunks/<key>.csv`` with a marker ``chunks/<key>.json``. The key is
a content hash of the chunk's resolved engine arguments (plus the engine's source),
so a rerun of an interrupted job skips complete chunks and recomputes only the
missing ones. The engine keys each cell's random stream by the cell's parameter
values, so the merged table does not depend on how the grid was chunked or
resumed. Every file is written to a temporary name and renamed.

Outputs of a job (under Hydra's run directory)
----------------------------------------------
``results.csv`` (or ``.parquet``), ``config.yaml`` (resolved), ``metadata.json``
(seed, versions, labelvar's git revision when run from a checkout, chunk
accounting, timings), ``<plot>.png/.pdf``
and ``chunks/``; Hydra adds ``.hydra/``. :func:`collect` merges the jobs of a
multirun into one table.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import gc
import hashlib
import itertools
import json
import logging
import os
import platform
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields, is_dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from labelvar._files import atomic_write, directory_lock, read_results, write_results
from labelvar.config import (
    SweepConfig,
    config_dir,
    model_labellers,
    register_configs,
    schema_keys,
    theta_prior_arg,
    validate,
)

__all__ = [
    "CELL_AXES",
    "Chunk",
    "JobResult",
    "plan_chunks",
    "engine_kwargs",
    "check_engine_limits",
    "run_job",
    "collect",
    "check_overrides",
    "hydra_app",
    "cli_main",
    "shell_completion",
]

log = logging.getLogger("labelvar.sweep")

#: grid axes, outermost first (the engine's Cartesian product; chunks split outer axes)
CELL_AXES = ("n_items", "n_labels", "panel_size", "m", "p_d")
_FLOAT_AXES = ("m", "p_d")
#: bump when the meaning of a chunk file changes (invalidates old chunk files)
_CHUNK_SCHEMA = 1
#: engine sources whose content enters every chunk key (edit the engine -> recompute)
_ENGINE_SOURCES = ("engine/_simulate.py", "engine/_spec.py", "engine/_tables.py", "models.py",
                   "priors.py", "_panel.py", "_metrics.py", "_kernels.py", "analytic.py")


# --------------------------------------------------------------------------- chunk plan
@dataclass(frozen=True)
class Chunk:
    """A Cartesian sub-grid evaluated by one engine call and stored in one file.

    Attributes
    ----------
    index : int
        Position in the plan (the merged table is ordered by it).
    axes : dict
        Axis name -> tuple of values, for every axis in :data:`CELL_AXES`.
    """

    index: int
    axes: dict

    @property
    def n_cells(self) -> int:
        """Number of grid cells in the chunk."""
        n = 1
        for values in self.axes.values():
            n *= len(values)
        return n


def _axis_values(cfg: SweepConfig) -> dict[str, tuple]:
    g = cfg.grid
    out = {}
    for name in CELL_AXES:
        cast = float if name in _FLOAT_AXES else int
        out[name] = tuple(cast(v) for v in getattr(g, name))
    if cfg.model.theta_prior is not None:  # theta is drawn from the prior: no p_d axis
        out["p_d"] = (None,)
    return out


def plan_chunks(cfg: SweepConfig) -> list[Chunk]:
    """Cut the grid into Cartesian chunks of at most ``cfg.chunk_cells`` cells (when possible).

    Inner axes (``p_d`` first, then ``m``, ...) are kept whole while the chunk
    stays within ``chunk_cells``; the next axis is split into pieces; the axes
    outside it take one value per chunk. A single axis longer than
    ``chunk_cells`` is split too, so a chunk never exceeds ``chunk_cells`` cells.

    Examples
    --------
    >>> from labelvar.config import SweepConfig
    >>> cfg = SweepConfig()
    >>> cfg.grid.m = [0.1, 0.5]
    >>> cfg.chunk_cells = 16
    >>> [(c.axes["m"], len(c.axes["p_d"])) for c in plan_chunks(cfg)]
    [((0.1,), 11), ((0.5,), 11)]
    >>> cfg.chunk_cells = 4
    >>> [len(c.axes["p_d"]) for c in plan_chunks(cfg)]
    [4, 4, 3, 4, 4, 3]
    """
    axes = _axis_values(validate(cfg))
    names = list(CELL_AXES)
    target = int(cfg.chunk_cells)
    inner = 1
    split = None
    for i in range(len(names) - 1, -1, -1):
        n = len(axes[names[i]])
        if inner * n <= target:
            inner *= n
            continue
        split = i
        break
    if split is None:
        return [Chunk(0, dict(axes))]
    piece = max(1, target // inner)
    split_values = axes[names[split]]
    pieces = [split_values[j:j + piece] for j in range(0, len(split_values), piece)]
    outer = [[(v,) for v in axes[name]] for name in names[:split]]
    chunks = []
    for combo in itertools.product(*outer, pieces):
        sub = {name: combo[k] for k, name in enumerate(names[:split + 1])}
        sub.update({name: axes[name] for name in names[split + 1:]})
        chunks.append(Chunk(len(chunks), {name: sub[name] for name in names}))
    return chunks


def _in_grid_order(table: pd.DataFrame, axes: dict[str, tuple]) -> pd.DataFrame:
    """The rows of ``table`` in grid order, whatever the chunks were.

    Cells follow :data:`CELL_AXES` (``n_items`` outermost, ``p_d`` innermost), each
    axis in its configured order; a cell's own rows keep the engine's order. The
    engine orders the cells of one call differently (``p_d`` outermost), so without
    this the merged table's row order would depend on ``chunk_cells``.

    Examples
    --------
    >>> t = pd.DataFrame({"p_d": [0.6, 0.6, 0.9, 0.9], "m": [0.1, 0.5, 0.1, 0.5]})
    >>> axes = {"n_items": (20,), "n_labels": (2,), "panel_size": (5,), "m": (0.1, 0.5),
    ...         "p_d": (0.6, 0.9)}
    >>> _in_grid_order(t, axes).values.tolist()
    [[0.6, 0.1], [0.9, 0.1], [0.6, 0.5], [0.9, 0.5]]
    """
    position = np.zeros(len(table), dtype=np.int64)
    for name in CELL_AXES:
        values = axes[name]
        if values == (None,) or name not in table.columns:  # no such axis (theta is drawn)
            continue
        index = table[name].map({v: i for i, v in enumerate(values)})
        if index.isna().any():
            raise RuntimeError(f"the engine returned {name} values outside the grid: "
                               f"{sorted(set(table.loc[index.isna(), name]))[:3]}")
        position = position * len(values) + index.to_numpy(dtype=np.int64)
    return table.iloc[np.argsort(position, kind="stable")].reset_index(drop=True)


def engine_kwargs(cfg: SweepConfig, chunk: Chunk) -> dict:
    """Return the keyword arguments of the one engine call that evaluates ``chunk``.

    Examples
    --------
    >>> from labelvar.config import SweepConfig
    >>> cfg = SweepConfig()
    >>> kw = engine_kwargs(cfg, plan_chunks(cfg)[0])
    >>> kw["mode"], kw["m"], kw["labellers"], kw["replicates"]
    ('coin', [0.5], ['expert', 'random'], 10000)
    >>> from labelvar.config import ModelLabellerConfig
    >>> cfg.labellers.models = [ModelLabellerConfig(name="A", accuracy=0.7)]
    >>> engine_kwargs(cfg, plan_chunks(cfg)[0])["labellers"][2].name
    'A'
    """
    kw = {name: list(chunk.axes[name]) for name in CELL_AXES}
    if kw["p_d"] == [None]:
        kw["p_d"] = None
    kw.update(
        labellers=list(cfg.labellers.names) + model_labellers(cfg),
        mode=cfg.model.mode,
        replicates=int(cfg.replicates),
        seed=int(cfg.seed),
        thresholds=[float(t) for t in cfg.thresholds],
        theta_prior=theta_prior_arg(cfg),
        tie_rule=cfg.model.tie_rule,
        positives=cfg.model.positives,
        method=cfg.model.method,
    )
    return kw


def check_engine_limits(cfg: SweepConfig) -> None:
    """Let the engine check the whole grid's call without simulating (ValueError if refused).

    Builds the engine's validated parameters (:func:`labelvar.simulate` does the same
    first) for every cell at once, so its limits -- memory per cell (replicates x
    labellers x strata), labeller tables for large L -- stop a job before anything
    runs instead of after some chunks.

    Examples
    --------
    >>> from labelvar.config import SweepConfig
    >>> cfg = SweepConfig()
    >>> cfg.replicates = 10**12
    >>> check_engine_limits(cfg)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: replicates=1000000000000 x 2 labellers x 2 strata needs about ... use fewer replicates ...
    """
    from labelvar.engine._spec import _Spec

    _Spec.build(class_prior=None, **engine_kwargs(cfg, Chunk(0, _axis_values(cfg))))


_ENGINE_DIGEST: str | None = None


def _engine_digest() -> str:
    """Hash of the engine's source files (a changed engine never reuses old chunks)."""
    global _ENGINE_DIGEST
    if _ENGINE_DIGEST is None:
        h = hashlib.sha256()
        here = Path(__file__).resolve().parent
        for name in _ENGINE_SOURCES:
            path = here / name
            h.update(name.encode())
            h.update(path.read_bytes() if path.is_file() else b"<missing>")
        _ENGINE_DIGEST = h.hexdigest()
    return _ENGINE_DIGEST


def chunk_key(kwargs: dict, fmt: str) -> str:
    """Content hash naming a chunk's files: engine arguments, file format, engine source.

    Examples
    --------
    >>> a = chunk_key({"p_d": [0.5], "seed": 0}, "csv")
    >>> a == chunk_key({"seed": 0, "p_d": [0.5]}, "csv"), a == chunk_key({"p_d": [0.5], "seed": 1}, "csv")
    (True, False)
    """
    from labelvar import __version__

    payload = json.dumps(
        {"kwargs": kwargs, "format": fmt, "schema": _CHUNK_SCHEMA, "labelvar": __version__,
         "engine": _engine_digest()},
        sort_keys=True, default=_json_default,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:20]


def _json_default(obj):
    """JSON form of labeller objects in engine arguments: their class and fields."""
    if is_dataclass(obj) and not isinstance(obj, type):
        return {"type": type(obj).__name__,
                **{f.name: getattr(obj, f.name) for f in fields(obj) if f.init}}
    raise TypeError(f"not JSON serialisable: {obj!r}")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _chunk_complete(table_path: Path, marker_path: Path, key: str) -> bool:
    """A chunk is complete when its marker exists and names this file's exact content."""
    if not (table_path.is_file() and marker_path.is_file()):
        return False
    try:
        marker = json.loads(marker_path.read_text())
    except (OSError, ValueError):
        return False
    return (isinstance(marker, dict) and marker.get("key") == key
            and marker.get("sha256") == _sha256(table_path))


# --------------------------------------------------------------------------- one job
@dataclass
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
        Figure files written.
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
    from labelvar.engine import simulate

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
    >>> from labelvar.config import SweepConfig
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


def _as_path(name: str, value) -> Path:
    """``value`` as a Path; anything but a str or path-like is a ValueError naming ``name``."""
    if not isinstance(value, (str, os.PathLike)) or not str(value):
        raise ValueError(f"{name} must be a path (str or os.PathLike), got {value!r}")
    return Path(value)


def _run_job(cfg: SweepConfig, out_dir: Path, engine: Callable, overrides, t0: float
             ) -> JobResult:
    out_dir.mkdir(parents=True, exist_ok=True)
    chunk_dir = Path(cfg.chunk_dir) if cfg.chunk_dir else out_dir / "chunks"
    ext = "." + cfg.output.format
    chunks = plan_chunks(cfg)
    # until the job completes, its metadata says so (collect refuses a "running" job)
    atomic_write(out_dir / "metadata.json",
                  json.dumps({"name": cfg.name, "status": "running"}).encode())
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
    try:
        figures = _draw(table, cfg, out_dir)
    except Exception as exc:  # the table is complete: keep it, say what failed
        figure_error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc) else ''}"
        log.error("%s: figures failed (%s); the table is complete: %s", cfg.name, figure_error,
                  results)
    t_figures = time.perf_counter() - t1
    _write_config(cfg, out_dir)
    meta = _metadata(cfg, status="complete" if figure_error is None else "figures_failed",
                     figure_error=figure_error, chunks=len(chunks), computed=computed,
                     reused=reused,
                     seconds=time.perf_counter() - t0, engine_seconds=t_engine,
                     figure_seconds=t_figures, overrides=overrides,
                     results={"file": results.name, "rows": len(table),
                              "sha256": _sha256(results)},
                     files=[results.name] + [f.name for f in figures])
    atomic_write(out_dir / "metadata.json", json.dumps(meta, indent=1).encode())
    log.info("%s: %d cells in %d chunks (%d computed, %d reused) -> %s",
             cfg.name, n_cells, len(chunks), computed, reused, results)
    return JobResult(table, out_dir, results, figures, computed, reused, figure_error)


#: grid axes each figure draws itself (as colors or panels); other axes that vary in a
#: table get one figure per value combination
_FIGURE_AXES = {"figure1": {"m", "p_d"}, "multiclass": {"n_labels", "p_d"},
                "panel_bias": {"panel_size"}, "table1": {"n_items", "p_d"}}
_SPLIT_AXES = ("m", "n_items", "n_labels", "panel_size", "p_d")


def _draw(table: pd.DataFrame, cfg: SweepConfig, out_dir: Path) -> list[Path]:
    """Draw the configured figures: one per value combination of the axes a figure does not show.

    Examples
    --------
    A grid over two N draws Figure 1 once per N (``figure1_n_items=100``, ...).
    """
    if not cfg.output.plots:
        return []
    from labelvar import plots

    funcs = {
        "figure1": lambda t: plots.plot_figure1(t),
        "multiclass": lambda t: plots.plot_figure1(t, color_by="n_labels"),
        "panel_bias": lambda t: plots.plot_panel_bias(t),
        "table1": lambda t: plots.plot_table1_tails(t),
    }
    paths = []
    for name in cfg.output.plots:
        split = [a for a in _SPLIT_AXES if a in table.columns and a not in _FIGURE_AXES[name]
                 and table[a].nunique() > 1]
        groups = table.groupby(split, sort=True) if split else [((), table)]
        for values, part in groups:
            values = values if isinstance(values, tuple) else (values,)
            stem = "_".join([name] + [f"{a}={v:g}" for a, v in zip(split, values)])
            fig = funcs[name](part)
            paths += plots.save(fig, out_dir / stem, formats=tuple(cfg.output.figure_formats))
    return paths


def _write_config(cfg: SweepConfig, out_dir: Path) -> None:
    from omegaconf import OmegaConf

    text = OmegaConf.to_yaml(OmegaConf.structured(cfg))
    atomic_write(out_dir / "config.yaml", text.encode())


def _versions() -> dict:
    from importlib import metadata

    from labelvar._provenance import version

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
    from labelvar._provenance import vcs_info

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


# --------------------------------------------------------------------------- collect
def _job_sort_key(path: Path):
    """Job order: by folder (several multiruns under one directory), then job number."""
    head = path.name.split("_", 1)[0]
    return (str(path.parent),) + ((0, int(head), path.name) if head.isdigit()
                                  else (1, 0, path.name))


def collect(sweep_dir: str | Path, *, out: str | Path | None = None,
            allow_missing: bool = False) -> tuple[pd.DataFrame, Path]:
    """Merge the results tables of every job under ``sweep_dir`` into one table.

    Adds the columns ``experiment`` (the job's ``name``) and ``job`` (its directory
    relative to ``sweep_dir``) in front, in job order, and writes the merged table
    atomically to ``out`` (default ``<sweep_dir>/collected.csv``).

    Parameters
    ----------
    sweep_dir : path
        A multirun directory (or a single job's directory).
    out : path, optional
        Output file (``.csv`` or ``.parquet``).
    allow_missing : bool
        Merge even if some job directories (with a ``.hydra/`` folder) have no
        results, or a job is still marked ``running`` in its ``metadata.json``;
        by default that is an error, so nothing is dropped silently. A results
        table whose row count or SHA-256 differs from the one its job recorded in
        ``metadata.json`` (truncated, edited) is always an error.

    Returns
    -------
    (pandas.DataFrame, pathlib.Path)
        The merged table and where it was written.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = write_results(pd.DataFrame({"mean": [0.5]}), d / "0_a" / "results.csv")
    >>> _ = write_results(pd.DataFrame({"mean": [0.7]}), d / "1_b" / "results.csv")
    >>> table, path = collect(d)
    >>> table.to_dict("list"), path.name
    ({'experiment': ['0_a', '1_b'], 'job': ['0_a', '1_b'], 'mean': [0.5, 0.7]}, 'collected.csv')
    """
    sweep_dir = _as_path("sweep_dir", sweep_dir)
    if not sweep_dir.is_dir():
        raise FileNotFoundError(f"sweep directory not found: {sweep_dir}")
    tables = [p for pattern in ("results.csv", "results.parquet")
              for p in sweep_dir.rglob(pattern)
              if "chunks" not in p.relative_to(sweep_dir).parts]
    found = {}
    for p in tables:
        found.setdefault(p.parent, p)
    job_dirs = {p.parent for p in sweep_dir.rglob(".hydra") if p.is_dir()}
    path = _as_path("out", out) if out is not None else sweep_dir / "collected.csv"
    if path.resolve() in {p.resolve() for p in tables}:
        raise ValueError(f"out must not be a job's results table (it would be overwritten), "
                         f"got {path}")
    infos = {job_dir: _job_metadata(job_dir, sweep_dir) for job_dir in found}
    for job_dir, info in infos.items():  # the table the job says it wrote (csv or parquet)
        named = info.get("results", {}).get("file") if isinstance(info.get("results"),
                                                                   dict) else None
        if isinstance(named, str) and (job_dir / named).is_file():
            found[job_dir] = job_dir / named
    for job_dir in list(found):  # a job rerun and killed: old table, status "running"
        if infos[job_dir].get("status") == "running":
            del found[job_dir]
            job_dirs.add(job_dir)
    missing = sorted((d for d in job_dirs if d not in found), key=_job_sort_key)
    if missing and not allow_missing:
        names = ", ".join(str(d.relative_to(sweep_dir)) or "." for d in missing[:5])
        raise ValueError(f"{len(missing)} job(s) under {sweep_dir} have no complete results "
                         f"table ({names}); rerun them or pass --allow-missing")
    if not found:
        raise FileNotFoundError(f"no results.csv or results.parquet under {sweep_dir}")
    frames = []
    for job_dir in sorted(found, key=_job_sort_key):
        info = infos[job_dir]
        name = info.get("name", job_dir.name)
        record = info.get("results") if isinstance(info.get("results"), dict) else {}
        rel = found[job_dir].relative_to(sweep_dir)
        if record.get("sha256") and record["sha256"] != _sha256(found[job_dir]):
            raise ValueError(f"{rel} is not the table its job wrote (checksum differs from "
                             f"metadata.json: truncated or edited); rerun the job")
        try:
            table = read_results(found[job_dir])
        except (ValueError, OSError, ImportError) as exc:  # pandas' parser errors are ValueErrors
            detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ValueError(f"{rel} is not a readable results table ({detail}); rerun the "
                             "job") from None
        if "rows" in record and len(table) != record["rows"]:
            raise ValueError(f"{found[job_dir].relative_to(sweep_dir)} has {len(table)} rows, "
                             f"its job wrote {record['rows']}; rerun the job")
        rel = job_dir.relative_to(sweep_dir).as_posix() or "."
        frames.append(table.assign(experiment=name, job=rel))
    merged = pd.concat(frames, ignore_index=True)
    front = ["experiment", "job"]
    merged = merged[front + [c for c in merged.columns if c not in front]]
    for c in front:
        merged[c] = merged[c].astype(str)
    write_results(merged, path)
    return merged, path


def _job_metadata(job_dir: Path, sweep_dir: Path) -> dict:
    """A job's ``metadata.json`` as a dict ({} when absent); unreadable is a ValueError naming it."""
    path = job_dir / "metadata.json"
    if not path.is_file():
        return {}
    try:
        info = json.loads(path.read_text())
    except (OSError, ValueError) as exc:  # (UnicodeDecodeError, JSONDecodeError)
        info = exc
    if not isinstance(info, dict):
        raise ValueError(f"{path.relative_to(sweep_dir)} is not a job's metadata (unreadable or "
                         "not a JSON object); rerun the job")
    return info


# --------------------------------------------------------------------------- Hydra entry
def _unknown_keys(node, prefix: str = "") -> list[str]:
    """Keys of a composed config that the schema does not have (``+key=...`` additions)."""
    from omegaconf import DictConfig

    allowed = schema_keys(prefix)
    out = []
    for key in node.keys():
        path = f"{prefix}.{key}" if prefix else str(key)
        if allowed is not None and key not in allowed:
            out.append(path)
        elif isinstance(node[key], DictConfig) and schema_keys(path) is not None:
            out += _unknown_keys(node[key], path)
    return out


def _to_config(dcfg) -> SweepConfig:
    """Convert the composed config to :class:`SweepConfig`, refusing keys outside the schema."""
    from omegaconf import OmegaConf

    unknown = _unknown_keys(dcfg)
    if unknown:
        parent = unknown[0].rsplit(".", 1)[0] if "." in unknown[0] else ""
        allowed = ", ".join(schema_keys(parent) or [])
        raise ValueError(f"unknown config key {unknown[0]!r} "
                         f"(allowed keys{' in ' + parent if parent else ''}: {allowed})")
    return OmegaConf.to_object(dcfg)


def _task(dcfg) -> str:
    """Hydra task function: DictConfig -> SweepConfig -> :func:`run_job`."""
    from hydra.core.hydra_config import HydraConfig

    cfg = _to_config(dcfg)
    try:
        validate(cfg)
    except ValueError as exc:
        print(f"labelvar: error: {exc}", file=sys.stderr)
        sys.exit(2)
    hc = HydraConfig.get()
    try:
        res = run_job(cfg, hc.runtime.output_dir, overrides=list(hc.overrides.task))
    except OSError as exc:  # an output or chunk directory that cannot be written; the lock
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"labelvar: error: {cfg.name}: {where}{exc.strerror or exc}", file=sys.stderr)
        sys.exit(2)
    except ValueError as exc:  # the engine refused a cell (checked per cell, at run time)
        print(f"labelvar: error: {cfg.name}: {exc}", file=sys.stderr)
        sys.exit(2)
    print(f"{cfg.name}: table {res.results}", file=sys.stdout)
    if res.figure_error:
        print(f"labelvar: error: {cfg.name}: figures failed ({res.figure_error}); the table "
              f"is complete: {res.results}", file=sys.stderr)
    for f in res.figures:
        if f.suffix == ".png":
            print(f"{cfg.name}: figure {f}", file=sys.stdout)
    return str(res.results)


def hydra_app():
    """Return the ``@hydra.main``-decorated entry point (config dir from :func:`config_dir`)."""
    import hydra

    register_configs()
    return hydra.main(version_base="1.3", config_path=str(config_dir()),
                      config_name="config")(_task)


# --------------------------------------------------------------------------- checks before Hydra
#: flags that print a config instead of running it: only the composition is checked
_PRINT_FLAGS = {"-c", "--cfg", "-i", "--info"}
_NO_CHECK_FLAGS = {"-h", "--help", "--hydra-help", "--version", "-c", "--cfg", "-i", "--info",
                   "-sc", "--shell-completion", "-cp", "--config-path", "-cn", "--config-name",
                   "-cd", "--config-dir", "--experimental-rerun"}


def _one_line_error(exc: BaseException, overrides: Sequence[str]) -> str:
    """Condense a Hydra/OmegaConf composition error into one line naming the key."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    cause = exc.__cause__
    cause_lines = [ln.strip() for ln in str(cause).splitlines() if ln.strip()] if cause else []
    full_key = next((ln.split(":", 1)[1].strip() for ln in lines + cause_lines
                     if ln.startswith("full_key:")), None)
    first = lines[0] if lines else type(exc).__name__
    if "Could not find" in first or "Could not load" in first:
        options = []
        if any(ln.startswith("Available options") for ln in lines):
            start = next(i for i, ln in enumerate(lines) if ln.startswith("Available options"))
            for ln in lines[start + 1:]:
                if ln.startswith("Config search path"):
                    break
                options.append(ln)
        return first + (f"; available: {', '.join(options)}" if options else "")
    detail = next((ln for ln in lines[1:] + cause_lines
                   if not ln.startswith(("full_key", "object_type", "reference_type",
                                         "To append", "Set the environment"))), "")
    msg = first.rstrip(".") + (f": {detail}" if detail and detail not in first else "")
    msg = re.sub(r"\w+ raised while composing config:+\s*", "", msg)
    if full_key and re.sub(r"\[\d+\]$", "", full_key) not in msg:  # e.g. a bad interpolation
        msg = f"{full_key}: {msg}"
    if full_key and ("not in struct" in msg or "not in '" in msg):
        parent = full_key.rsplit(".", 1)[0] if "." in full_key else ""
        allowed = schema_keys(parent)
        schema = re.search(r"not in '(\w+)'", msg)
        if schema:  # the schema class the message names (e.g. a list item's class)
            from labelvar import config as config_module

            cls = getattr(config_module, schema.group(1), None)
            if cls is not None and is_dataclass(cls):
                named = [f.name for f in fields(cls)]
                if allowed != named:
                    allowed, parent = named, schema.group(1)
        if allowed:
            msg += f" (allowed keys{' in ' + parent if parent else ''}: {', '.join(allowed)})"
    return msg


def _config_groups() -> set[str]:
    """Config group names (folders under the config directory, e.g. ``model``)."""
    root = config_dir()
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_dir()}


def _expand(overrides: Sequence[str]) -> tuple[list[list], list[list]]:
    """Split overrides into group choices and value settings, each expanded over its sweep.

    Returns ``(groups, values)``: per override, its alternatives; a group alternative is
    override text (composed by Hydra), a value alternative a parsed single-value
    override (applied to the composed config directly, which is fast).
    """
    from hydra.core.override_parser.overrides_parser import OverridesParser

    parser = OverridesParser.create()
    parsed = parser.parse_overrides(list(overrides))
    group_names = _config_groups()
    sweeper = any(o.key_or_group == "hydra/sweeper" for o in parsed)
    groups, values = [], []
    for o, text in zip(parsed, overrides):
        if o.is_sweep_override():
            try:
                alts = [f"{o.get_key_element()}={v}" for v in o.sweep_string_iterator()]
            except Exception:  # interval sweeps etc.: only a chosen sweeper plugin takes them
                if not sweeper:
                    raise ValueError(f"{text}: Hydra's basic sweeper takes values (a,b,c or "
                                     "range(start,stop,step)), not an interval") from None
                continue
        else:
            alts = [text]
        name = o.key_or_group
        if (name in group_names or name.split(".")[0] == "hydra" or o.is_add()
                or o.is_delete() or o.is_force_add()):
            groups.append(alts)
        else:
            values.append(parser.parse_overrides(alts))
    return groups, values


def _parse(overrides: Sequence[str]) -> list:
    """Hydra's parsed form of each override."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    return OverridesParser.create().parse_overrides(list(overrides))


def _apply(dcfg, values):
    """A copy of the composed config with single-value overrides applied (as Hydra does)."""
    from omegaconf import OmegaConf

    cfg = dcfg.copy()
    for o in values:
        OmegaConf.update(cfg, o.key_or_group, o.value(), merge=True)
    return cfg


def _compose_job(compose, combo: list[str]) -> SweepConfig:
    """Compose one job's config with Hydra; errors become one line naming the key."""
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    try:
        return _to_config(compose("config", overrides=combo))
    except (HydraException, OmegaConfBaseException) as exc:
        raise ValueError(_one_line_error(exc, combo)) from None
    except ValueError:
        raise
    except Exception as exc:  # e.g. OmegaConf asserts on a key below a null node
        detail = _one_line_error(exc, combo)
        if "NoneType" in detail:
            detail = ("a key below a node that is null in this config (e.g. "
                      "model.theta_prior.* needs model=panel_beta)")
        raise ValueError(f"could not apply the overrides {' '.join(combo)}: {detail}") from None


def _check_output_dir(path: str, key: str) -> None:
    """Refuse an output directory that cannot be created: a file on its way, no write access.

    Hydra creates the run (or sweep) directory before the job starts and reports a
    failure there with a traceback; this says it in one line first.
    """
    target = Path(path).absolute()
    existing = next(p for p in (target, *target.parents) if p.exists() or p == p.parent)
    why = ("is a file" if not existing.is_dir() else
           "is not writable" if not os.access(existing, os.W_OK | os.X_OK) else None)
    if why:
        raise ValueError(f"{key} cannot be created: {existing} {why}"
                         + (f" (got {path})" if existing != target else ""))


def check_overrides(overrides: Sequence[str], *, multirun: bool | None = None,
                    check_values: bool = True) -> int:
    """Compose and validate every job a command line would launch; return how many.

    Every combination of a ``-m`` sweep is checked before anything runs, however many:
    Hydra composes each combination of config-group choices once, and the plain value
    overrides are applied to that composed config. Raises ValueError with one line
    (naming the key and the job's overrides) for an unknown key, a wrong type, an
    unknown config group option or an out-of-range value. With ``multirun`` True
    (False), the first job's ``hydra.sweep.dir`` (``hydra.run.dir``) must be a directory
    that can be created. With ``check_values`` False only the composition is checked
    (unknown keys, types, config group options), as for ``--cfg``, which prints a
    config without running it.

    Examples
    --------
    >>> check_overrides(["experiment=figure1,table1", "replicates=100"])
    2
    >>> check_overrides(["grid.pd=[0.5]"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: Could not override 'grid.pd': Key 'pd' not in ... (allowed keys in grid: p_d, m, ...)
    >>> check_overrides(["grid.m=[1.5]"])
    Traceback (most recent call last):
    ...
    ValueError: grid.m must be in [0, 1], got 1.5
    """
    import yaml
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.errors import HydraException
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    register_configs()
    if isinstance(overrides, str) or not all(isinstance(o, str) for o in overrides):
        raise ValueError(f"overrides must be a list of 'key=value' strings, got {overrides!r}")
    try:
        groups, values = _expand(overrides)
    except (HydraException, OmegaConfBaseException) as exc:
        raise ValueError(_one_line_error(exc, overrides)) from None
    if multirun is False:
        swept = [text for text, alts in zip(overrides, _parse(overrides))
                 if alts.is_sweep_override()]
        if swept:
            raise ValueError(f"{swept[0]} gives several values: add -m to run a job for each "
                             "(labelvar sweep -m ...), or write a list as key=[a,b]")
    n_jobs = 0
    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(version_base="1.3", config_dir=str(config_dir()),
                                   job_name="labelvar_check"):
            for group_combo in itertools.product(*groups):
                try:
                    base = compose("config", overrides=list(group_combo))
                except (HydraException, OmegaConfBaseException) as exc:
                    raise ValueError(_one_line_error(exc, group_combo)) from None
                if multirun is not None and check_values and not n_jobs:
                    key = "hydra.sweep.dir" if multirun else "hydra.run.dir"
                    hcfg = compose("config", overrides=list(group_combo),
                                   return_hydra_config=True)
                    _check_output_dir(str(OmegaConf.select(hcfg, key)), key)
                    subdir = str(OmegaConf.to_container(hcfg.hydra.sweep)["subdir"])
                for value_combo in itertools.product(*values):
                    combo = list(group_combo) + [o.input_line for o in value_combo]
                    try:
                        cfg = _to_config(_apply(base, value_combo))
                    except (HydraException, OmegaConfBaseException):  # (some are ValueErrors)
                        cfg = _compose_job(compose, combo)  # Hydra's message names the key
                    except ValueError:
                        raise
                    except Exception:
                        cfg = _compose_job(compose, combo)
                    try:
                        if check_values:
                            validate(cfg)
                            check_engine_limits(cfg)
                    except ValueError as exc:
                        if len(combo) > len(overrides) or n_jobs:  # a sweep: name the job
                            raise ValueError(f"{exc} (in the job {' '.join(combo)})") from None
                        raise
                    n_jobs += 1
        if multirun and check_values and n_jobs > 1 and "${" not in subdir:
            raise ValueError(f"hydra.sweep.subdir must differ between the jobs of a multirun "
                             f"(e.g. ${{hydra.job.num}}_${{name}}), got {subdir!r}: the "
                             f"{n_jobs} jobs would write over each other's results")
    except yaml.YAMLError as exc:  # a config file of LABELVAR_CONFIG_DIR that is not YAML
        mark = getattr(exc, "problem_mark", None)
        where = f" in {mark.name}, line {mark.line + 1}" if mark is not None else ""
        what = "; ".join(x for x in (getattr(exc, "problem", None), getattr(exc, "context", None))
                         if x) or str(exc).splitlines()[0]
        raise ValueError(f"invalid YAML{where}: {what}") from None
    finally:
        GlobalHydra.instance().clear()
    return n_jobs


@contextlib.contextmanager
def _fewer_collections(threshold: int = 10_000):
    """Run the garbage collector's youngest generation every ``threshold`` allocations.

    A sweep imports pandas, Hydra, numba and matplotlib: ~250,000 objects that live
    until the process ends. With the default threshold (700) the collector walks all
    of them about five times during a Figure 1 run (~0.3 s); with 10,000 about once.
    The old thresholds are restored afterwards.
    """
    old = gc.get_threshold()
    gc.set_threshold(max(threshold, old[0]), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


@functools.cache  # once per process
def _exit_without_collecting() -> None:
    """At exit, leave the objects alive then out of the interpreter's final collections.

    ``gc.freeze()`` as an exit handler: the interpreter's shutdown otherwise walks the
    ~250,000 objects of a sweep's imports again (~0.4 s after the work is done). The
    other exit handlers (logging's flush, temporary directories) still run; only
    reference cycles still alive at exit are no longer collected (the sweep writes
    and closes its files before it returns).
    """
    atexit.register(gc.freeze)


@_fewer_collections()
def cli_main(args: Sequence[str]) -> int:
    """``labelvar sweep ARGS``: check the overrides, then run the Hydra app with ARGS.

    ``--quiet`` becomes the override ``quiet=true``; every other argument (``-m``,
    ``hydra/launcher=joblib``, ``--cfg job``, ...) goes to Hydra unchanged.
    """
    from hydra.core.global_hydra import GlobalHydra
    from hydra.core.override_parser.overrides_parser import OverridesParser  # noqa: F401
    from hydra.main import get_args_parser

    args = list(args)
    _exit_without_collecting()
    if "--version" in args:  # labelvar's version, not Hydra's
        from labelvar._provenance import version

        print(f"labelvar {version()}")
        return 0
    if "--quiet" in args:
        args = [a for a in args if a != "--quiet"] + ["quiet=true"]
    multirun = [a for a in args if a in ("-m", "--multirun")]
    if multirun:  # Hydra reads options before the overrides only: `sweep a=1,2 -m` works too
        args = multirun[:1] + [a for a in args if a not in multirun]
    parser = get_args_parser()

    def one_line_error(message: str):  # argparse would print its usage and exit
        raise ValueError(f"{message} (labelvar sweep [-m] [--cfg job] [key=value ...]: "
                         "options go before the overrides)")

    parser.error = one_line_error
    parsed = parser.parse_args(args)
    if not (set(args) & _NO_CHECK_FLAGS):
        check_overrides(parsed.overrides, multirun=parsed.multirun)
    elif not (set(args) & (_NO_CHECK_FLAGS - _PRINT_FLAGS)):  # --cfg job: prints, runs nothing
        check_overrides(parsed.overrides, multirun=parsed.multirun, check_values=False)
    saved_line = os.environ.get("COMP_LINE")
    if _is_query(args) and saved_line is not None:
        os.environ["COMP_LINE"] = _hydra_completion_line(saved_line)
    saved = sys.argv
    # Hydra names the program after argv[0] (shell completion, --hydra-help): the console
    # script is `labelvar`, and `labelvar -sc ...` reaches this app (see shell_completion)
    sys.argv = ["labelvar", *args]
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    GlobalHydra.instance().clear()
    try:
        hydra_app()()
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except BrokenPipeError:  # e.g. `labelvar sweep --help | head`
        sys.stdout = open(os.devnull, "w")  # silence the flush at exit
        return 0
    finally:
        sys.argv = saved
        if saved_line is not None:
            os.environ["COMP_LINE"] = saved_line
        GlobalHydra.instance().clear()
        for handler in [h for h in root.handlers if h not in saved_handlers]:
            root.removeHandler(handler)  # Hydra's job logging (console + <run dir>/sweep.log)
            handler.close()
        root.setLevel(saved_level)
    return 0


#: the subcommands of `labelvar`, offered when completing the word after it
_COMMANDS = ("expect", "tables", "sweep", "collect", "stratify", "design")


def shell_completion(args: Sequence[str]) -> int:
    """``labelvar -sc install=bash|query=bash|...``: Hydra's shell completion, for ``labelvar sweep``.

    ``eval "$(labelvar -sc install=bash)"`` installs Hydra's completion function for
    the ``labelvar`` command; on each TAB it runs ``labelvar -sc query=bash`` with the
    line in ``COMP_LINE``. A line ``labelvar sweep ...`` is completed by Hydra (config
    groups and keys) as if the app were called without the word ``sweep``; the word after
    ``labelvar`` completes to a subcommand; other subcommands get the shell's default
    (file names).

    Examples
    --------
    >>> import os
    >>> os.environ["COMP_LINE"] = "labelvar sw"
    >>> shell_completion(["-sc", "query=bash"])
    sweep
    0
    >>> del os.environ["COMP_LINE"]
    """
    args = list(args)
    words = os.environ.get("COMP_LINE", "").split() if _is_query(args) else ["", "sweep"]
    if len(words) >= 2 and words[1] == "sweep":
        return cli_main(args)
    line = os.environ.get("COMP_LINE", "")
    if len(words) <= 1 or (len(words) == 2 and not line.endswith(" ")):
        current = words[1] if len(words) == 2 else ""
        print(" ".join(c for c in _COMMANDS if c.startswith(current)))
    else:
        print("")
    return 0


def _is_query(args: Sequence[str]) -> bool:
    return any(a.startswith("query=") for a in args) and bool({"-sc", "--shell-completion"}
                                                               & set(args))


def _hydra_completion_line(line: str) -> str:
    """``labelvar sweep REST`` -> ``labelvar REST``: Hydra strips one word, the app's name."""
    head, sep, rest = line.partition(" sweep")
    if sep and " " not in head.strip() and (not rest or rest[0].isspace()):
        return head + rest
    return line


if __name__ == "__main__":  # pragma: no cover - `python -m labelvar.sweep ...`
    sys.exit(cli_main(sys.argv[1:]))
