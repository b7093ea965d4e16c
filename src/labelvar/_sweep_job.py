"""The sweep engine behind :mod:`labelvar.sweep`: chunk plan, one job, collect.

Re-exported by :mod:`labelvar.sweep` (whose docstring describes the layout of a job);
this module holds everything that runs a job from a typed
:class:`labelvar.config.SweepConfig`, never a ``DictConfig``.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import json
import logging
import os
import platform
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields, is_dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from labelvar._files import atomic_write, directory_lock, read_results, write_results
from labelvar.config import (
    FIGURE_FORMATS,
    PLOTS,
    SweepConfig,
    model_labellers,
    theta_prior_arg,
    validate,
)

log = logging.getLogger("labelvar.sweep")

#: grid axes, outermost first (the engine's Cartesian product; chunks split outer axes)
CELL_AXES = ("n_items", "n_labels", "panel_size", "m", "p_d")
_FLOAT_AXES = ("m", "p_d")
#: bump when the meaning of a chunk file changes (invalidates old chunk files)
_CHUNK_SCHEMA = 1
#: engine sources whose content enters every chunk key (edit the engine -> recompute; a
#: folder stands for its modules)
_ENGINE_SOURCES = ("engine/_simulate.py", "engine/_spec.py", "engine/_tables.py",
                   "engine/_collapsed_inputs.py", "engine/_expected.py", "models.py",
                   "priors.py", "_panel.py", "_metrics.py", "_kernels", "analytic.py")


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
    # The engine has no public check: `_Spec.build` is the validation `simulate` runs first.
    # A job is checked before Hydra (check_overrides) and again by run_job, usually in the
    # same process: a call the engine accepted (under the same memory limit) is not rebuilt.
    from labelvar._validate import MEMORY_ENV
    from labelvar.engine._spec import _Spec

    kwargs = engine_kwargs(cfg, Chunk(0, _axis_values(cfg)))
    key = (json.dumps(kwargs, sort_keys=True, default=_json_default), os.environ.get(MEMORY_ENV))
    if key in _ACCEPTED:
        return
    _Spec.build(class_prior=None, **kwargs)
    if len(_ACCEPTED) >= 256:  # (a long multirun: keep the memo small)
        _ACCEPTED.clear()
    _ACCEPTED.add(key)


#: engine calls (whole grids, as JSON, and the memory limit) the engine accepted in this process
_ACCEPTED: set[tuple[str, str | None]] = set()


_ENGINE_DIGEST: str | None = None


def _engine_digest() -> str:
    """Hash of the engine's source files (a changed engine never reuses old chunks)."""
    global _ENGINE_DIGEST
    if _ENGINE_DIGEST is None:
        h = hashlib.sha256()
        here = Path(__file__).resolve().parent
        for name in _ENGINE_SOURCES:
            path = here / name
            files = sorted(path.glob("*.py")) if path.is_dir() else [path]  # a package: its modules
            for f in files:
                h.update(str(f.relative_to(here)).encode())
                h.update(f.read_bytes() if f.is_file() else b"<missing>")
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
    log.info("%s: %d cells in %d chunks (%d computed, %d reused) -> %s",
             cfg.name, n_cells, len(chunks), computed, reused, results)
    return JobResult(table, out_dir, results, figures, computed, reused, figure_error)


def _files_written_before(out_dir: Path) -> list[str]:
    """The ``files`` an earlier run in ``out_dir`` listed in its ``metadata.json`` ([] if none).

    A complete run lists what it wrote; a running (or killed) one what it may have
    written. Only names of plain strings are kept; an unreadable file gives [].
    """
    try:
        listed = json.loads((out_dir / "metadata.json").read_text()).get("files", [])
    except (OSError, ValueError, AttributeError):  # absent, unreadable, not a JSON object
        return []
    return [name for name in listed if isinstance(name, str)] if isinstance(listed, list) else []


def _mark_running(cfg: SweepConfig, out_dir: Path, files: list[str]) -> None:
    """Write the ``running`` metadata, listing the files runs in this directory may have left."""
    atomic_write(out_dir / "metadata.json",
                 json.dumps({"name": cfg.name, "status": "running", "files": files}).encode())


def _is_figure_name(name: str) -> bool:
    """Whether ``name`` is a bare file name as :func:`_draw` writes them (``<plot>[_...].<fmt>``).

    Examples
    --------
    >>> [_is_figure_name(n) for n in ("figure1.png", "table1_m=0.1.pdf", "results.csv",
    ...                               "../figure1.png", "config.yaml", "figure1.png/x")]
    [True, True, False, False, False, False]
    """
    stem, dot, fmt = name.rpartition(".")
    return (bool(dot) and Path(name).name == name and fmt in FIGURE_FORMATS
            and any(stem == plot or stem.startswith(plot + "_") for plot in PLOTS))


def _remove_stale_figures(out_dir: Path, listed: list[str], keep: list[str]) -> None:
    """Delete the figures earlier runs listed as theirs that this run did not write.

    Only names :func:`_is_figure_name` accepts, directly in ``out_dir``, are touched:
    files a user put there are never listed, so never removed.
    """
    for name in sorted(set(listed) - set(keep)):
        path = out_dir / name
        if _is_figure_name(name) and not path.is_dir():
            path.unlink(missing_ok=True)


#: grid axes each figure draws itself (as colors or panels); other axes that vary in a
#: table get one figure per value combination
_FIGURE_AXES = {"figure1": {"m", "p_d"}, "multiclass": {"n_labels", "p_d"},
                "panel_bias": {"panel_size"}, "table1": {"n_items", "p_d"}}
_SPLIT_AXES = ("m", "n_items", "n_labels", "panel_size", "p_d")


def _figure_plan(table: pd.DataFrame, cfg: SweepConfig) -> list[tuple[str, str, pd.DataFrame]]:
    """The figures to draw as (plot, file stem, part of the table).

    One per value combination of the grid axes a plot does not show.

    Examples
    --------
    A grid over two N draws Figure 1 once per N (``figure1_n_items=100``, ...).

    >>> t = pd.DataFrame({"p_d": [0.6, 0.6], "m": [0.5, 0.5], "n_items": [100, 1000]})
    >>> from labelvar.config import SweepConfig
    >>> [stem for _, stem, _ in _figure_plan(t, SweepConfig())]
    ['figure1_n_items=100', 'figure1_n_items=1000']
    """
    plan = []
    for name in cfg.output.plots:
        split = [a for a in _SPLIT_AXES if a in table.columns and a not in _FIGURE_AXES[name]
                 and table[a].nunique() > 1]
        groups = table.groupby(split, sort=True) if split else [((), table)]
        for values, part in groups:
            values = values if isinstance(values, tuple) else (values,)
            plan.append((name, "_".join([name] + [f"{a}={v:g}" for a, v in zip(split, values)]),
                         part))
    return plan


def _draw(plan: list, cfg: SweepConfig, out_dir: Path, paths: list[Path]) -> None:
    """Draw the figures of :func:`_figure_plan`, appending the files of each one to ``paths``.

    When a figure fails, ``paths`` holds the figures drawn before it.
    """
    if not plan:
        return
    from labelvar import plots

    funcs = {
        "figure1": lambda t: plots.plot_figure1(t),
        "multiclass": lambda t: plots.plot_figure1(t, color_by="n_labels"),
        "panel_bias": lambda t: plots.plot_panel_bias(t),
        "table1": lambda t: plots.plot_table1_tails(t),
    }
    for name, stem, part in plan:
        paths += plots.save(funcs[name](part), out_dir / stem,
                            formats=tuple(cfg.output.figure_formats))


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
        if not record.get("sha256") and job_dir in job_dirs:  # a job's table, unverifiable
            raise ValueError(f"{rel}: its job's metadata.json (the table's row count and "
                             "checksum) is missing, so a truncated table cannot be told from a "
                             "whole one; rerun the job")
        if not record.get("sha256"):  # a bare table: refuse one cut mid-row
            _check_whole(found[job_dir], rel)
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


def _check_whole(path: Path, rel) -> None:
    """Refuse a CSV results table without a record that is cut (no final newline, short rows)."""
    if path.suffix != ".csv":
        return  # Parquet checks its own footer when read
    import csv

    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        raise ValueError(f"{rel} ends mid-row (no final newline): a truncated table; rerun the job")
    rows = csv.reader(io.StringIO(data.decode("utf-8", errors="replace")))
    width = None
    for line, row in enumerate(rows, start=1):
        width = len(row) if width is None else width
        if row and len(row) != width:
            raise ValueError(f"{rel} line {line} has {len(row)} fields, the header {width}: a "
                             "truncated or edited table; rerun the job")


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
