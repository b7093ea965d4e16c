"""The wide layout: one row per item, panel and system columns chosen by name or glob."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from labelvar._base._docs import fill
from labelvar.io import _csv
from labelvar.io._common import (
    TaskData,
    _checked,
    _chosen,
    _evaluated,
    _index,
    _no_blanks,
    _no_repeated_columns,
    _patterns,
    _roles,
    _task_data,
    _wide_columns,
    select_columns,
)
from labelvar.io._reading import check_file


@fill
def read_wide(path_or_frame, *, panel, systems=(), humans=(), item=None, task_column=None,
              group_sep: str | None = None, task: str | None = None,
              sep: str | None = None, labels: Sequence | None = None,
              counts: bool = False, tasks=None) -> dict[str, TaskData]:
    """Load a wide table: one row per item, one column per annotator or system.

    A file is read a block of rows at a time and only the columns used are kept,
    the panel and system columns as categoricals (a small integer code per row, so
    millions of items fit in about the file's size); a frame's columns are used as
    they are, not copied.

    Parameters
    ----------
    path_or_frame : str, Path or pandas.DataFrame
        CSV/TSV file (see :func:`read_frame`) or an already loaded frame.
    panel : str or sequence of str
        Names or globs of the ground-truth annotator columns.
    systems : str or sequence of str
        Names or globs of the columns to evaluate as systems.
    humans : str or sequence of str
        Names or globs of the independent human raters' columns (the group H), loaded
        with the systems and named in :attr:`TaskData.humans`.
    item : str or sequence of str, optional
        Item id column(s); default: row number.
    task_column : str, optional
        Column naming the task of each row (several tasks in one file, long in tasks).
    group_sep : str, optional
        Columns are ``<task><group_sep><rater>`` (one column group per task);
        ``panel``/``systems`` patterns then match the rater part.
    task : str, optional
        Task name of a single-task file (default: the file's stem, or ``"task"``).
    {{sep}}
    labels : sequence, optional
        The declared label set (as :func:`labelvar.stratify`'s ``labels``).
    counts : bool
        The panel columns hold per-label vote counts, not votes (checked by
        :func:`labelvar.stratify` with ``panel_counts=True``, not as labels here).
    {{tasks}}

    Returns
    -------
    {{tasks_returned}}

    Raises
    ------
    ValueError
        Besides a missing or ambiguous column: a task whose votes and system labels
        mix numbers and text (``"yes"`` among 0/1, however often), booleans and other
        labels, or hold ``inf``; one line naming the column and item. With ``labels``
        numbers, text and ``inf`` may mix: what is outside the set is then a stray value
        for :func:`labelvar.stratify` (rare: missing, with a note; common: refused).

    Examples
    --------
    >>> df = pd.DataFrame({"id": ["a", "b"], "r1": [1, 0], "r2": [1, 1], "r3": [1, 0],
    ...                    "gpt": [0, 0]})
    >>> d = read_wide(df, panel="r*", systems="gpt", item="id", task="demo")
    >>> d["demo"].panel.shape, d["demo"].predictions.columns.tolist()
    ((2, 3), ['gpt'])
    """
    if isinstance(path_or_frame, pd.DataFrame):
        df, where = path_or_frame, "the table"
        default_task = task or "task"
        _no_repeated_columns(df, where)
    else:
        path = Path(path_or_frame)
        check_file(path)
        df = _csv.read_columns(path, _csv.separator(path, sep), functools.partial(
            _wide_columns, panel=panel, systems=_patterns(systems) + _patterns(humans),
            item=item, task_column=task_column, group_sep=group_sep))
        where, default_task = str(path_or_frame), task or Path(path_or_frame).stem
    if not _patterns(panel):
        raise ValueError("panel: no panel columns given (names or globs of the annotator columns)")
    if task_column is not None and group_sep is not None:
        raise ValueError("task_column and group_sep cannot both be given")
    roles = _roles(labels, counts)
    if task_column is not None:
        if task_column not in df.columns:
            raise ValueError(f"task_column: column {task_column!r} not found in {where}")
        _no_blanks(df, [task_column], "task_column", where, "a task")
        _no_blanks(df, [k for k in _patterns(item) if k in df.columns], "item", where,
                   "an item id")  # here, so that rows are counted in the whole table
        by_task = {str(name): sub for name, sub in df.groupby(task_column, sort=False)}
        out = {}
        for name in _chosen(by_task, tasks):
            sub = _index(by_task[name].drop(columns=[task_column]), item,
                         f"{where} (task {name!r})")
            cols = [c for c in sub.columns]
            ecols, hum = _evaluated(cols, systems, humans)
            out[name] = _task_data(sub, select_columns(cols, panel, "panel"), ecols,
                                   humans=hum, **roles)
        return _checked(out, where, labels, counts)
    df = _index(df, item, where)
    if group_sep is None:
        _chosen([default_task], tasks)
        cols = list(df.columns)
        pcols = select_columns(cols, panel, "panel")
        scols, hum = _evaluated(cols, systems, humans)
        return _checked({default_task: _task_data(df, pcols, scols, humans=hum, **roles)},
                        where, labels, counts)
    groups: dict[str, dict[str, str]] = {}
    for c in df.columns:
        if group_sep in c:
            t, r = c.split(group_sep, 1)
            groups.setdefault(t, {})[r] = c
    if not groups:
        raise ValueError(f"group_sep: no column name contains {group_sep!r} "
                         "(expected <task>{sep}<rater>)")
    out = {}
    for t in _chosen(groups, tasks):
        raters = groups[t]
        pr = select_columns(raters, panel, f"panel (task {t!r})")
        sr, hum = _evaluated(raters, systems, humans, f" (task {t!r})")
        sub = df[[raters[r] for r in pr + sr]].copy()
        sub.columns = pr + sr
        out[t] = _task_data(sub, pr, sr, humans=hum, **roles)
    return _checked(out, where, labels, counts)
