"""A sweep job's figures: which figures its table gives, drawing them, stale ones removed.

Used by :func:`labelvar.sweep._job.run_job`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from labelvar._base._files import atomic_write
from labelvar.sweep._config import (
    FIGURE_FORMATS,
    PLOTS,
    SweepConfig,
)


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


#: grid axes each figure draws itself (as colors or panels; x = p_d, or a panel's theta);
#: other axes that vary in a table get one figure per value combination
_FIGURE_AXES = {"figure1": {"m", "p_d", "theta"}, "multiclass": {"n_labels", "p_d", "theta"},
                "panel_bias": {"panel_size"}, "table1": {"n_items", "p_d", "theta"}}
_SPLIT_AXES = ("m", "n_items", "n_labels", "panel_size", "p_d", "theta")


def _figure_plan(table: pd.DataFrame, cfg: SweepConfig) -> list[tuple[str, str, pd.DataFrame]]:
    """The figures to draw as (plot, file stem, part of the table).

    One per value combination of the grid axes a plot does not show.

    Examples
    --------
    A grid over two N draws Figure 1 once per N (``figure1_n_items=100``, ...).

    >>> t = pd.DataFrame({"p_d": [0.6, 0.6], "m": [0.5, 0.5], "n_items": [100, 1000]})
    >>> from labelvar.sweep import SweepConfig
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
        if name != "panel_bias" and part["p_d"].isna().all() and "theta" in part:
            part = part.assign(p_d=part["theta"])  # a panel's x axis: its theta
        paths += plots.save(funcs[name](part), out_dir / stem,
                            formats=tuple(cfg.output.figure_formats))
