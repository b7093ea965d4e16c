"""The sweep's chunk plan: grid axes, chunks, engine arguments and limits, chunk keys.

A chunk's key hashes its engine arguments and the engine sources (:data:`_ENGINE_SOURCES`),
so an edited engine recomputes. Used by :mod:`labelvar.sweep._job`.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from labelvar.engine._items import Coin, Panel
from labelvar.sweep._config import (
    SweepConfig,
    model_labellers,
    theta_prior_arg,
    validate,
)
from labelvar.votes._priors import ItemModel

#: grid axes, outermost first (the engine's Cartesian product; chunks split outer axes);
#: ``p_d`` is the coin model's axis, ``theta`` the panel's (the other one is ``(None,)``)
CELL_AXES = ("n_items", "n_labels", "panel_size", "m", "p_d", "theta")
_FLOAT_AXES = ("m", "p_d", "theta")
#: bump when the meaning of a chunk file changes (invalidates old chunk files)
_CHUNK_SCHEMA = 2  # 2: engine arguments are an items object (Coin / Panel), p_d and theta
#: engine sources whose content enters every chunk key (edit the engine -> recompute; a
#: folder stands for its modules). Every entry must exist: a moved file is an error here,
#: never a silently unhashed source (the list once named two files that had moved, so an
#: edit of the panel maths or the metrics reused old chunks)
_ENGINE_SOURCES = ("engine", "votes", "votes/_rater_models", "metrics/_scores.py", "_kernels",
                   "analytic", "_base/_binom.py", "_base/_seeding.py")


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
    panel = cfg.model.mode == "panel"
    if not panel:  # a coin model: no panel (its rows say panel_size 0), no theta
        out["panel_size"], out["theta"] = (0,), (None,)
    else:
        out["p_d"] = (None,)
    if cfg.model.theta_prior is not None:  # theta is drawn from the prior: no theta axis
        out["theta"] = (None,)
    return out


def plan_chunks(cfg: SweepConfig) -> list[Chunk]:
    """Cut the grid into Cartesian chunks of at most ``cfg.chunk_cells`` cells (when possible).

    Inner axes (``p_d`` first, then ``m``, ...) are kept whole while the chunk
    stays within ``chunk_cells``; the next axis is split into pieces; the axes
    outside it take one value per chunk. A single axis longer than
    ``chunk_cells`` is split too, so a chunk never exceeds ``chunk_cells`` cells.

    Examples
    --------
    >>> from labelvar.sweep import SweepConfig
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
    ...         "p_d": (0.6, 0.9), "theta": (None,)}
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
    >>> from labelvar.sweep import SweepConfig
    >>> cfg = SweepConfig()
    >>> kw = engine_kwargs(cfg, plan_chunks(cfg)[0])
    >>> kw["items"].mode, kw["items"].m, kw["labellers"], kw["replicates"]
    ('coin', [0.5], ['expert', 'random'], 10000)
    >>> from labelvar.sweep import ModelLabellerConfig
    >>> cfg.labellers.models = [ModelLabellerConfig(name="A", accuracy=0.7)]
    >>> engine_kwargs(cfg, plan_chunks(cfg)[0])["labellers"][2].name
    'A'
    """
    axes = {name: (None if chunk.axes[name] == (None,) else list(chunk.axes[name]))
            for name in CELL_AXES}
    prior = theta_prior_arg(cfg)
    if cfg.model.mode == "panel":
        item_model = isinstance(prior, ItemModel)  # its label distributions are the classes
        items = Panel(theta=axes["theta"], theta_prior=prior, panel_size=axes["panel_size"],
                      n_labels=axes["n_labels"], m=None if item_model else axes["m"],
                      tie_rule=cfg.model.tie_rule,
                      positives=None if item_model else cfg.model.positives)
    else:
        items = Coin(p_d=axes["p_d"], m=axes["m"], n_labels=axes["n_labels"],
                     positives=cfg.model.positives)
    return dict(items=items, labellers=list(cfg.labellers.names) + model_labellers(cfg),
                n_items=axes["n_items"], replicates=int(cfg.replicates), seed=int(cfg.seed),
                thresholds=[float(t) for t in cfg.thresholds], method=cfg.model.method)


def check_engine_limits(cfg: SweepConfig) -> None:
    """Let the engine check the whole grid's call without simulating (ValueError if refused).

    Builds the engine's validated parameters (:func:`labelvar.simulate` does the same
    first) for every cell at once, so its limits -- memory per cell (replicates x
    labellers x strata), labeller tables for large L -- stop a job before anything
    runs instead of after some chunks.

    Examples
    --------
    >>> from labelvar.sweep import SweepConfig
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
    from labelvar._base._validate import MEMORY_ENV
    from labelvar.engine._spec import _Spec

    kwargs = engine_kwargs(cfg, Chunk(0, _axis_values(cfg)))
    key = (json.dumps(kwargs, sort_keys=True, default=_json_default), os.environ.get(MEMORY_ENV))
    if key in _ACCEPTED:
        return
    _Spec.build(kwargs["items"], kwargs["labellers"], kwargs["n_items"], kwargs["replicates"],
                kwargs["seed"], kwargs["thresholds"], kwargs["method"])
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
        here = Path(__file__).resolve().parents[1]  # the package root
        for name in _ENGINE_SOURCES:
            path = here / name
            if not path.exists():
                raise RuntimeError(f"sweep chunk keys: engine source {name!r} is missing (moved? "
                                   "update labelvar.sweep._chunks._ENGINE_SOURCES)")
            files = sorted(path.glob("*.py")) if path.is_dir() else [path]  # a package: its modules
            for f in files:
                h.update(str(f.relative_to(here)).encode())
                h.update(f.read_bytes())
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


def _as_path(name: str, value) -> Path:
    """``value`` as a Path; anything but a str or path-like is a ValueError naming ``name``."""
    if not isinstance(value, (str, os.PathLike)) or not str(value):
        raise ValueError(f"{name} must be a path (str or os.PathLike), got {value!r}")
    return Path(value)
