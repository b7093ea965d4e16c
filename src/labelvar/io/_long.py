"""The long layout: one row per (item, rater, label), crowd-kit style."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from labelvar._base._docs import fill
from labelvar.io._common import (
    TaskData,
    _checked,
    _chosen,
    _evaluated,
    _no_blanks,
    _no_overlap,
    _no_repeated_columns,
    _roles,
    read_frame,
    select_columns,
)


@fill
def read_long(path_or_frame, *, panel, systems=(), humans=(), item: str = "item",
              rater: str = "rater", label: str = "label", task_column: str | None = None,
              task: str | None = None, sep: str | None = None, labels: Sequence | None = None,
              tasks=None) -> dict[str, TaskData]:
    """Load a long table: one row per (item, rater, label), crowd-kit style.

    Parameters
    ----------
    path_or_frame : str, Path or pandas.DataFrame
        CSV/TSV file or frame.
    panel, systems, humans : str or sequence of str
        Names or globs of the raters forming the panel / evaluated as systems / the
        independent human raters (the group H, named in :attr:`TaskData.humans`).
    item, rater, label : str
        Column names (defaults ``item``, ``rater``, ``label``; crowd-kit uses
        ``task``, ``worker``, ``label``).
    task_column : str, optional
        Column naming the task (several tasks in one file).
    task : str, optional
        Task name for a single-task file (default: the file stem or ``"task"``).
    {{sep}}
    labels : sequence, optional
        The declared label set (see :func:`read_wide`).
    {{tasks}}

    Returns
    -------
    {{tasks_returned}}

    Raises
    ------
    ValueError
        A missing column, one rater labelling one item twice, or labels
        :func:`read_wide` refuses.

    Examples
    --------
    >>> df = pd.DataFrame({"item": ["a", "a", "a", "b", "b", "b", "a", "b"],
    ...                    "rater": ["r1", "r2", "r3"] * 2 + ["sys", "sys"],
    ...                    "label": ["x", "x", "y", "y", "y", "y", "x", "y"]})
    >>> d = read_long(df, panel="r*", systems="sys", task="t")
    >>> d["t"].panel.loc["a"].tolist(), d["t"].predictions["sys"].tolist()
    (['x', 'x', 'y'], ['x', 'y'])
    """
    if isinstance(path_or_frame, pd.DataFrame):
        df, where = path_or_frame, "the table"
        default_task = task or "task"
        _no_repeated_columns(df, where)
    else:  # ids, raters and tasks as written
        df, where = read_frame(path_or_frame, sep, text=[item, rater]
                               + ([task_column] if task_column else [])), str(path_or_frame)
        default_task = task or Path(path_or_frame).stem
    need = [item, rater, label] + ([task_column] if task_column else [])
    for c in need:
        if c not in df.columns:
            raise ValueError(f"long format: column {c!r} not found in {where}; "
                             f"available: {', '.join(map(repr, list(df.columns)[:12]))}")
    _no_blanks(df, [item], "long format", where, "an item id")
    _no_blanks(df, [rater], "long format", where, "a rater")
    _no_blanks(df, need[3:], "task_column", where, "a task")
    df = df.copy()
    df[item] = df[item].astype(str)
    df[rater] = df[rater].astype(str)
    keys = [item, rater] + ([task_column] if task_column else [])
    dup = df[df.duplicated(keys, keep=False)]
    if len(dup):
        r = dup.iloc[0]
        raise ValueError(f"long format: duplicate rows for item {r[item]!r} and rater "
                         f"{r[rater]!r} in {where} ({len(dup)} rows); each rater labels an "
                         "item once")
    groups = {str(t): sub for t, sub in (df.groupby(task_column, sort=False) if task_column
                                         else [(default_task, df)])}
    groups = {t: groups[t] for t in _chosen(groups, tasks)}
    raters_all = list(dict.fromkeys(df[rater]))
    pnames = select_columns(raters_all, panel, "panel")
    snames, hum = _evaluated(raters_all, systems, humans)
    snames = _no_overlap(pnames, snames, hum)
    out = {}
    for t, sub in groups.items():
        wide = sub.pivot(index=item, columns=rater, values=label)
        order = list(dict.fromkeys(sub[item]))
        wide = wide.reindex(order)
        wide.index.name = "item"
        pan = wide.reindex(columns=pnames)
        pred = wide.reindex(columns=snames)
        out[t] = TaskData(pan, pred, humans=hum, **_roles(labels))
    return _checked(out, where, labels)
