"""Loaders for the layouts multi-annotator results come in.

Every loader returns ``{task: TaskData(panel, predictions)}``: ``panel`` is an
items x annotators :class:`pandas.DataFrame` (missing votes are NaN/None, so
panels may differ in size per item) and ``predictions`` an items x systems
DataFrame on the same index (the item ids). :func:`labelvar.stratify` accepts
that mapping directly.

Layouts
-------
wide      one row per item; panel and system columns chosen by name or glob
          (:func:`read_wide`); several tasks via a task column or one column
          group per task (``Cardiomegaly/bc1`` with ``group_sep="/"``)
raters    one file per annotator or system, one column per task, joined on an
          item key (:func:`read_rater_files`; the CheXpert layout)
long      one row per (item, rater, label), crowd-kit style, optional task column
          (:func:`read_long`)
jsonl     one object per item with a list of panel labels, e.g. SNLI's
          ``annotator_labels``; a list of dicts gives one task per key
          (DialSummEval's ``annotations``) (:func:`read_jsonl`)

Predictions kept in their own files (one row per item: id and label) are joined
with :func:`attach_predictions`, probability outputs with
:func:`attach_probabilities`. :func:`load_tasks` picks the layout from the
files and does all of this in one call (the ``labelvar stratify`` input).

What a loader was told travels with the data, in :class:`TaskData`'s role fields:
the humans (:func:`load_tasks`), count panels, the declared label set, and whether the
panel's columns are raters (not for a JSON list of votes or count vectors).

Item ids are text exactly as written (``0001``, ``01`` and ``1.0`` are three ids), in
every layout and in the files joined to them. Every problem (a pattern that matches no
column or is given twice, two columns of one name, a row with fewer cells than the
header, a duplicated item id, a prediction file without an id the panel needs, label
values of mixed kinds) raises :class:`ValueError` with one line naming it. What a
label value may be is defined once, in :mod:`labelvar._labels` (which
:func:`labelvar.stratify` applies to the tables it is given, read here or not).
"""

from __future__ import annotations

import fnmatch
import functools
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from labelvar import _csv, _labels
from labelvar._docs import fill
from labelvar._labels import JsonLabels, json_token, plain
from labelvar._reading import check_file, read_jsonl_records

__all__ = [
    "LAYOUTS",
    "TaskData",
    "attach_predictions",
    "attach_probabilities",
    "load_tasks",
    "read_jsonl",
    "read_long",
    "read_rater_files",
    "read_frame",
    "read_wide",
    "select_columns",
    "synthetic_panel",
]


class TaskData(NamedTuple):
    """Panel votes, system predictions and probability outputs of one task, on the item index.

    ``probabilities`` maps a system to its probability outputs: a DataFrame with one
    column per label, or a Series of the positive class's probability (binary
    tasks); None when there are none.

    The roles a loader was told travel with the data, so that
    :func:`labelvar.stratify` given this object needs no second telling:

    - ``humans``: the columns of ``predictions`` that are the independent human
      group H (the rest are systems);
    - ``counts``: ``panel`` holds per-label vote counts (one column per label), not
      one column per annotator;
    - ``labels``: the declared label set, in order (None: inferred from the votes);
    - ``samples``: systems that gave several sampled answers per item, each an
      items x samples DataFrame on the panel's index (NaN where an item has fewer);
    - ``raters_identified``: the panel's columns are the same rater on every item
      (False for a list of votes per item, whose positions are not raters).
    """

    panel: pd.DataFrame
    predictions: pd.DataFrame
    probabilities: dict | None = None
    humans: tuple = ()
    counts: bool = False
    labels: tuple | None = None
    samples: dict | None = None
    raters_identified: bool = True


# --------------------------------------------------------------------------- helpers
def _patterns(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [p.strip() for p in value.split(",") if p.strip()]
    return [str(p) for p in value]


def select_columns(columns: Iterable[str], patterns, field: str, what: str = "column") -> list[str]:
    """Return the columns matching ``patterns`` (names or shell globs), in column order.

    Parameters
    ----------
    columns : iterable of str
        Available column names.
    patterns : str or sequence of str
        Names or globs (``bc*``); a string may hold several separated by commas.
    field : str
        Name used in the error message (e.g. ``"panel"``).
    what : str
        What the names are, in the error message (``"column"``, ``"task"``).

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        If a pattern matches no column, or one is given twice.

    Examples
    --------
    >>> select_columns(["id", "r1", "r2", "gpt"], "r*", "panel")
    ['r1', 'r2']
    >>> select_columns(["id", "r1"], ["r9"], "panel")
    Traceback (most recent call last):
    ...
    ValueError: panel: 'r9' matches no column; available: 'id', 'r1'
    >>> select_columns(["e", "n", "c"], "e,n,e", "panel")
    Traceback (most recent call last):
    ...
    ValueError: panel: 'e' is given twice in e,n,e; name each column once
    """
    cols = [str(c) for c in columns]
    chosen: list[str] = []
    pats = _patterns(patterns)
    twice = next((p for i, p in enumerate(pats) if p in pats[:i]), None)
    if twice is not None:  # (a typo: e,n,e for e,n,c would lose the votes of c)
        raise ValueError(f"{field}: {twice!r} is given twice in {','.join(pats)}; name each "
                         f"{what} once")
    for pat in pats:
        hits = [c for c in cols if c == pat] or fnmatch.filter(cols, pat)
        if not hits:
            avail = ", ".join(repr(c) for c in cols[:12]) + (", ..." if len(cols) > 12 else "")
            raise ValueError(f"{field}: {pat!r} matches no {what}; available: {avail}")
        chosen.extend(h for h in hits if h not in chosen)
    return chosen


@fill
def read_frame(path, sep: str | None = None, text: Sequence[str] = ()) -> pd.DataFrame:
    r"""Read a CSV/TSV file as strings-or-numbers, keeping empty cells as missing.

    Two columns of one name, and a row with fewer cells than the header (a file cut
    mid-row), are refused naming the file (and the columns or the line).

    Parameters
    ----------
    path : str or Path
        ``.tsv``/``.tab`` files are tab separated, anything else comma separated
        unless ``sep`` is given.
    {{sep}}
    text : sequence of str
        Columns read as text, exactly as written (item ids: ``0001``, ``01`` and
        ``1.0`` are three ids).

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "x.tsv")
    >>> _ = open(p, "w").write("item\tr1\n a\t1\n")
    >>> read_frame(p).columns.tolist()
    ['item', 'r1']
    >>> _ = open(p, "w").write("item\tr1\n0001\t1\n01\t0\n")
    >>> read_frame(p, text=["item"])["item"].tolist()
    ['0001', '01']
    """
    path = Path(path)
    check_file(path)
    return _csv.read_table(path, _csv.separator(path, sep), text)


def _wide_columns(header: list[str], *, panel, systems, item, task_column,
                  group_sep) -> tuple[list[str], list[str]]:
    """The columns :func:`read_wide` uses, in file order, and those of them holding ids or tasks.

    Raises ValueError when the selection fails (the caller then reads the whole
    file, so the problem is reported as from the whole table).
    """
    plain = _patterns(item) + ([task_column] if task_column is not None else [])
    if any(c not in header for c in plain):
        raise ValueError("an item or task column is missing")
    rest = [c for c in header if c not in plain]
    if group_sep is None:
        chosen = select_columns(rest, panel, "panel") + select_columns(rest, systems, "systems")
    else:
        groups: dict[str, dict[str, str]] = {}
        for c in rest:
            if group_sep in c:
                t, r = c.split(group_sep, 1)
                groups.setdefault(t, {})[r] = c
        chosen = [raters[r] for raters in groups.values()
                  for r in select_columns(raters, panel, "panel")
                  + select_columns(raters, systems, "systems")]
    used = set(plain) | set(chosen)
    return [c for c in header if c in used], plain


def _no_blanks(df: pd.DataFrame, columns, field: str, where: str, what: str) -> None:
    """Refuse empty cells in id-like ``columns``: such a row names no item, rater or task.

    Without this an empty id would become the item ``'nan'`` (and turn integer ids
    into ``'1.0'``), and an empty task or rater would drop its rows unseen.
    """
    for c in columns:
        blank = df[c].isna().to_numpy()
        if blank.any():
            first = int(np.flatnonzero(blank)[0]) + 1
            raise ValueError(f"{field}: column {c!r} is empty or NA in {int(blank.sum())} row(s) of "
                             f"{where} (first: data row {first}); every row needs {what}")


def _index(df: pd.DataFrame, item, where: str) -> pd.DataFrame:
    """Set the item id column (or composite of columns) as the index; refuse duplicates."""
    keys = _patterns(item)
    if not keys:
        out = df.copy(deep=False)  # the caller's columns, not copies
        out.index = pd.RangeIndex(len(df), name="item")
        return out
    missing = [k for k in keys if k not in df.columns]
    if missing:
        raise ValueError(f"item: column {missing[0]!r} not found in {where}; "
                         f"available: {', '.join(map(repr, list(df.columns)[:12]))}")
    _no_blanks(df, keys, "item", where, "an item id")
    if len(keys) == 1:
        col = df[keys[0]]
        idx = _csv.as_text(col)
        # integers are distinct exactly when their texts are: check the integers (faster)
        ids = col if pd.api.types.is_integer_dtype(col.dtype) else idx
    else:
        idx = ids = df[keys].astype(str).agg("|".join, axis=1)
    dup = idx[ids.duplicated()] if _csv.has_repeats(ids) else idx.iloc[:0]
    if len(dup):
        raise ValueError(f"item: duplicate item id {dup.iloc[0]!r} in {where} "
                         f"({len(dup)} duplicated rows); ids must be unique")
    out = df.drop(columns=keys)
    out.index = pd.Index(idx, name="item")
    return out


def _no_overlap(panel_names, system_names) -> list:
    """Refuse a rater that is both in the panel and evaluated; return the system names."""
    both = [s for s in system_names if s in set(panel_names)]
    if both:
        raise ValueError(f"systems: {both[0]!r} is also a panel rater: it would be scored "
                         "against a majority it voted in; take it out of the panel or out of "
                         "the systems/humans")
    return list(system_names)


def _task_data(df: pd.DataFrame, panel_cols, system_cols, **roles) -> TaskData:
    _no_overlap(panel_cols, system_cols)
    # new frames, shared index
    return TaskData(df[list(panel_cols)], df[list(system_cols)], **roles)


def _roles(labels, counts: bool = False, listed: bool = False) -> dict:
    """The role fields of :class:`TaskData` a reader was told: label set, counts, rater ids.

    ``listed``: the panel is a list of votes per item (JSON), whose positions are no
    raters; count panels name no rater either.
    """
    return dict(counts=bool(counts), labels=None if labels is None else tuple(labels),
                raters_identified=not (counts or listed))


def _no_repeated_columns(df: pd.DataFrame, where: str) -> None:
    """Refuse a frame with two columns of one name (a name would pick one of them)."""
    dup = df.columns[df.columns.duplicated()]
    if len(dup):
        raise ValueError(f"{where}: two columns are named {plain(dup[0])!r}; give every "
                         "column its own name")


def _chosen(names, tasks) -> list[str]:
    """The task names ``tasks`` (names or globs; None: all) picks, in the order of ``names``."""
    names = [str(n) for n in names]
    return names if tasks is None else select_columns(names, tasks, "tasks", "task")


# --------------------------------------------------------------------------- label values
# What a label may be (its kind, mixed kinds, inf) is defined once, in labelvar._labels,
# and checked again by labelvar.stratify; the readers check each task as it is read, so
# that the message names the file.
def _checked(data: dict, where: str, labels, counts: bool = False) -> dict:
    """``data`` after :func:`labelvar._labels.check_table` of each task (systems only for counts)."""
    for t, td in data.items():
        _labels.check_table(t, None if counts else td.panel, td.predictions, labels=labels,
                            where=where, row_numbers=isinstance(td.panel.index, pd.RangeIndex))
    return data


# --------------------------------------------------------------------------- wide
@fill
def read_wide(path_or_frame, *, panel, systems=(), item=None, task_column=None,
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
        Names or globs of the columns to evaluate (AI systems and the independent
        humans alike; :func:`labelvar.stratify` is told which are humans).
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
            _wide_columns, panel=panel, systems=systems, item=item, task_column=task_column,
            group_sep=group_sep))
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
            out[name] = _task_data(sub, select_columns(cols, panel, "panel"),
                                   select_columns(cols, systems, "systems"), **roles)
        return _checked(out, where, labels, counts)
    df = _index(df, item, where)
    if group_sep is None:
        _chosen([default_task], tasks)
        cols = list(df.columns)
        pcols = select_columns(cols, panel, "panel")
        scols = select_columns(cols, systems, "systems")
        return _checked({default_task: _task_data(df, pcols, scols, **roles)}, where, labels,
                        counts)
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
        sr = select_columns(raters, systems, f"systems (task {t!r})")
        sub = df[[raters[r] for r in pr + sr]].copy()
        sub.columns = pr + sr
        out[t] = _task_data(sub, pr, sr, **roles)
    return _checked(out, where, labels, counts)


# --------------------------------------------------------------------------- one file per rater
@fill
def read_rater_files(files: Mapping[str, str | Path] | Sequence[str | Path], *, panel,
                     systems=(), item: str, tasks=None, sep: str | None = None,
                     labels: Sequence | None = None) -> dict[str, TaskData]:
    r"""Load one file per annotator/system (rows = items, columns = tasks), joined on ``item``.

    This is the CheXpert layout: ``bc1_gt.csv`` ... each with a ``Study`` column
    and one column per finding. Column order may differ between files; columns
    are matched by name. A system file may cover only some tasks (e.g. models
    that predict 5 of 14 findings): it is used for the tasks it has.

    Parameters
    ----------
    files : mapping of name to path, or sequence of paths
        Rater name -> file; a sequence uses each file's stem as the name.
    panel, systems : str or sequence of str
        Names or globs of the raters (file names) forming the panel / evaluated.
    item : str
        Item id column present in every file.
    tasks : str or sequence of str, optional
        Names or globs of the task columns (default: every column of the first
        panel file except ``item``); a name matching none is refused.
    {{sep}}
    labels : sequence, optional
        The declared label set (see :func:`read_wide`).

    Returns
    -------
    {{tasks_returned}}

    Raises
    ------
    ValueError
        If the files do not hold the same set of item ids (the message counts the ids
        a file lacks and those it adds, naming a few), or ids repeat; labels as
        :func:`read_wide` refuses them.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> for name, rows in {"r1": "a,1,0\nb,0,0", "r2": "b,1,0\na,1,1", "r3": "a,1,0\nb,0,1",
    ...                    "m": "a,0\nb,1"}.items():
    ...     cols = "id,Cardio,Edema" if name != "m" else "id,Cardio"
    ...     _ = open(os.path.join(d, name + ".csv"), "w").write(cols + "\n" + rows + "\n")
    >>> data = read_rater_files([os.path.join(d, n + ".csv") for n in ("r1", "r2", "r3", "m")],
    ...                         panel="r*", systems="m", item="id")
    >>> sorted(data), data["Cardio"].panel.loc["b"].tolist(), data["Edema"].predictions.shape
    (['Cardio', 'Edema'], [0, 1, 0], (2, 0))
    """
    if isinstance(files, Mapping):
        named = {str(k): Path(v) for k, v in files.items()}
    else:
        named = {}
        for f in files:
            p = Path(f)
            if p.stem in named:
                raise ValueError(f"files: two files named {p.stem!r} (a rater is named by its "
                                 "file's stem); rename one, or pass a mapping name -> path")
            named[p.stem] = p
    names = list(named)
    pnames = select_columns(names, panel, "panel")
    snames = _no_overlap(pnames, select_columns(names, systems, "systems"))
    frames = {n: _index(read_frame(named[n], sep, text=[item]), item, str(named[n]))
              for n in pnames + snames}
    ref = frames[pnames[0]]
    task_names = _chosen(ref.columns, tasks)
    order = ref.index
    for n, f in frames.items():
        if not f.index.equals(order) and set(f.index) != set(order):
            _same_ids(f.index, order, named[n], named[pnames[0]])
    out = {}
    for t in task_names:
        for n in pnames:
            if t not in frames[n].columns:
                raise ValueError(
                    f"tasks: column {t!r} missing from panel file {named[n]}" if tasks is not None
                    else f"files: panel file {named[n]} has no column {t!r}, which "
                    f"{named[pnames[0]]} has; give every panel file the same task columns, "
                    "or choose the tasks (tasks=...)")
        pan = pd.DataFrame({n: frames[n].loc[order, t].to_numpy() for n in pnames}, index=order)
        pred = pd.DataFrame({n: frames[n].loc[order, t].to_numpy() for n in snames
                             if t in frames[n].columns}, index=order)
        out[t] = TaskData(pan, pred, **_roles(labels))
    return _checked(out, "the rater files", labels)


def _same_ids(ids: pd.Index, ref: pd.Index, path, ref_path) -> None:
    """Refuse a rater file whose item ids differ from the first panel file's, naming some."""
    missing = ref[~ref.isin(ids)]
    extra = ids[~ids.isin(ref)]

    def some(x: pd.Index) -> str:
        return ", ".join(map(repr, x[:3].tolist())) + (", ..." if len(x) > 3 else "")

    parts = ([f"lacks {len(missing):,} of its {len(ref):,} ids ({some(missing)})"] if len(missing)
             else []) + ([f"has {len(extra):,} it lacks ({some(extra)})"] if len(extra) else [])
    raise ValueError(f"files: {path} does not hold the same item ids as {ref_path}: it "
                     f"{' and '.join(parts)}; every rater file covers the same items")


# --------------------------------------------------------------------------- long
@fill
def read_long(path_or_frame, *, panel, systems=(), item: str = "item", rater: str = "rater",
              label: str = "label", task_column: str | None = None, task: str | None = None,
              sep: str | None = None, labels: Sequence | None = None,
              tasks=None) -> dict[str, TaskData]:
    """Load a long table: one row per (item, rater, label), crowd-kit style.

    Parameters
    ----------
    path_or_frame : str, Path or pandas.DataFrame
        CSV/TSV file or frame.
    panel, systems : str or sequence of str
        Names or globs of the raters forming the panel / evaluated.
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
    snames = _no_overlap(pnames, select_columns(raters_all, systems, "systems"))
    out = {}
    for t, sub in groups.items():
        wide = sub.pivot(index=item, columns=rater, values=label)
        order = list(dict.fromkeys(sub[item]))
        wide = wide.reindex(order)
        wide.index.name = "item"
        pan = wide.reindex(columns=pnames)
        pred = wide.reindex(columns=snames)
        out[t] = TaskData(pan, pred, **_roles(labels))
    return _checked(out, where, labels)


# --------------------------------------------------------------------------- jsonl
@fill
def read_jsonl(path, *, panel: str, systems=(), item=None, task: str | None = None,
               counts: bool = False, labels: Sequence | None = None,
               tasks=None, humans=()) -> dict[str, TaskData]:
    r"""Load JSON lines with a list of panel labels (or per-label vote counts) per item.

    Parameters
    ----------
    path : str or Path
        One JSON object per line.
    panel : str
        Field holding the list of panel labels (``annotator_labels`` in SNLI). If
        its elements are objects (``{"coherence": 4, "fluency": 5}``), each key is
        one task (DialSummEval's ``annotations``).
    systems : str or sequence of str
        Fields holding one label per item (a system's prediction); for multi-task
        panels a system field may be an object keyed by task.
    item : str or sequence of str, optional
        Item id field(s), joined with ``|`` when several (default: line number).
    task : str, optional
        Task name for a single-task file (default: the file's stem).
    humans : str or sequence of str
        Fields of the independent human raters (the group H). A field holding a list
        per item (SummEval's ``turker_annotations``: a list of objects, one task per
        key; or a list of labels) gives one human per list position, ``<field>_1``,
        ``<field>_2``, ... (positions, not identified raters); a field holding one label
        (or an object keyed by task) is one human. They are loaded with the systems
        and named in :attr:`TaskData.humans`.
    counts : bool
        ``panel`` holds per-label vote counts instead of votes: a list in label
        order (ChaosNLI's ``label_count``, ``[12, 68, 20]``) or an object label ->
        count (``label_counter``). The panel then has one column per label
        holding the counts (pass it to :func:`labelvar.stratify` with
        ``panel_counts=True``); any number of votes per item.
    labels : sequence, optional
        With ``counts``: the label of each list position (default 0, 1, ...; for
        objects, the keys in order of appearance). Without: the declared label set (as
        :func:`labelvar.stratify`'s ``labels``), which lets strings and numbers mix.
    {{tasks}}

    Returns
    -------
    {{tasks_returned}}

    Raises
    ------
    ValueError
        One line naming the file, line and field: a missing field, a repeated or null
        id, a panel that is not a list; a label that is NaN or Infinity (not JSON:
        write null for a missing label), an array or object; the labels of a task
        (votes and system fields together) of more than one kind (strings, numbers,
        booleans) however rare, unless ``labels`` is declared (strings and numbers
        then; booleans never mix); counts that are not whole numbers >= 0.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "c.jsonl")
    >>> _ = open(p, "w").write('{"id": "a", "n": [12, 68, 20]}\n{"id": "b", "n": [0, 1, 99]}\n')
    >>> read_jsonl(p, panel="n", item="id", counts=True, labels=["e", "n", "c"])["c"].panel.loc["a"]
    e    12
    n    68
    c    20
    Name: a, dtype: int64
    >>> p = os.path.join(tempfile.mkdtemp(), "nli.jsonl")
    >>> _ = open(p, "w").write('{"id": "a", "votes": ["e", "e", "n"]}\n'
    ...                        '{"id": "b", "votes": ["c", "c", "c", "n"]}\n')
    >>> d = read_jsonl(p, panel="votes", item="id")
    >>> d["nli"].panel.shape, d["nli"].panel.loc["b"].tolist()
    ((2, 4), ['c', 'c', 'c', 'n'])
    """
    lines: list[int] = []
    rows = read_jsonl_records(path, lines)
    if not rows:
        raise ValueError(f"{path}: no records")
    keys = _patterns(item)
    sysf = _patterns(systems)
    humf = [h for h in _patterns(humans) if h not in sysf]
    ids = []
    for i, r in enumerate(rows):
        for k in [panel, *keys]:
            if k not in r:
                raise ValueError(f"{path}: record {i + 1} has no field {k!r}; "
                                 f"fields: {', '.join(map(repr, list(r)[:12]))}")
        if any(r[k] is None for k in keys):
            raise ValueError(f"item: record {i + 1} of {path} has a null id "
                             f"({next(k for k in keys if r[k] is None)!r}); every record "
                             "needs an item id")
        ids.append("|".join(str(r[k]) for k in keys) if keys else str(i))
    s = pd.Series(ids)
    if s.duplicated().any():
        raise ValueError(f"item: duplicate item id {s[s.duplicated()].iloc[0]!r} in {path}; "
                         "ids must be unique (give several fields to item for a composite id)")
    for f in sysf + humf:
        if f not in rows[0]:
            raise ValueError(f"{'systems' if f in sysf else 'humans'}: field {f!r} not found "
                             f"in {path}; fields: {', '.join(map(repr, list(rows[0])[:12]))}")
    index = pd.Index(ids, name="item")
    for f in humf:
        _check_human_lists(path, rows, lines, f)

    def evaluated(t=None) -> tuple[pd.DataFrame, tuple]:
        """The systems' and humans' columns of task ``t`` (None: a single-task file)."""
        cols = {f: [r[f].get(t) if t is not None and isinstance(r.get(f), dict) else r.get(f)
                    for r in rows] for f in sysf}
        hum = {}
        for f in humf:
            hum.update(_human_columns(rows, f, t))
        return pd.DataFrame({**cols, **hum}, index=index), tuple(hum)

    def seen_humans(seen, t=None) -> None:
        for line, r in zip(lines, rows, strict=True):
            for f in humf:
                x = r.get(f)
                vals = x if isinstance(x, list) else [x]
                if t is not None:
                    vals = [v.get(t) if isinstance(v, dict) else v for v in vals]
                seen.add(vals, "humans", f if t is None else f"{f}.{t}", line)
    name = task or Path(path).stem  # of a single-task file
    if counts:
        _chosen([name], tasks)
        pan = _count_panel(path, rows, panel, labels, index, lines)
        pred, hum = evaluated()
        seen = JsonLabels(path, whole=f"task {name!r}")
        for line, r in zip(lines, rows, strict=True):
            for f in sysf:
                seen.add([r.get(f)], "systems", f, line)
        seen_humans(seen)
        seen.check()
        return {name: TaskData(pan, pred, humans=hum, **_roles(list(pan.columns), counts=True))}
    for i, r in enumerate(rows):
        if not isinstance(r[panel], list):
            raise ValueError(f"panel: field {panel!r} must hold a list of labels per item; "
                             f"record {i + 1} of {path} has {type(r[panel]).__name__}")
    first = rows[0][panel]
    if not isinstance(first, list):
        raise ValueError(f"panel: field {panel!r} must hold a list of labels per item, "
                         f"got {type(first).__name__}")
    multi = any(isinstance(x, dict) for x in first)
    width = max(len(r[panel]) for r in rows)
    if not multi:
        _chosen([name], tasks)
        seen = JsonLabels(path, allow_text_and_numbers=labels is not None, whole=f"task {name!r}")
        for line, r in zip(lines, rows, strict=True):
            seen.add(r[panel], "panel", panel, line)
            for f in sysf:
                seen.add([r.get(f)], "systems", f, line)
        seen_humans(seen)
        seen.check()
        votes = [list(r[panel]) + [None] * (width - len(r[panel])) for r in rows]
        pan = pd.DataFrame(votes, index=index, columns=[f"{panel}_{j + 1}" for j in range(width)])
        pred, hum = evaluated()
        return {name: TaskData(pan, pred, humans=hum, **_roles(labels, listed=True))}
    for line, r in zip(lines, rows, strict=True):
        odd = next((a for a in r[panel] if not isinstance(a, dict)), None)
        if odd is not None:
            raise ValueError(f"panel: {path}:{line}: field {panel!r} holds {json.dumps(odd)[:40]} "
                             "among objects; a multi-task panel is a list of objects task -> "
                             "label (one per annotator), on every line")
    task_names = _chosen(dict.fromkeys(k for r in rows for a in r[panel] for k in a), tasks)
    for t in task_names:
        seen = JsonLabels(path, allow_text_and_numbers=labels is not None, whole=f"task {t!r}")
        for line, r in zip(lines, rows, strict=True):
            seen.add([a.get(t) for a in r[panel]], "panel", f"{panel}.{t}", line)
            for f in sysf:
                x = r.get(f)
                seen.add([x.get(t) if isinstance(x, dict) else x], "systems",
                         f"{f}.{t}" if isinstance(x, dict) else f, line)
        seen_humans(seen, t)
        seen.check()
    out = {}
    for t in task_names:
        votes = [[a.get(t) for a in r[panel]] + [None] * (width - len(r[panel])) for r in rows]
        pan = pd.DataFrame(votes, index=index, columns=[f"{panel}_{j + 1}" for j in range(width)])
        pred, hum = evaluated(t)
        out[t] = TaskData(pan, pred, humans=hum, **_roles(labels, listed=True))
    return out


def _check_human_lists(path, rows, lines, field) -> None:
    """A humans field holds a list on every record or on none (null: no human there)."""
    if not any(isinstance(r.get(field), list) for r in rows):
        return
    for line, r in zip(lines, rows, strict=True):
        x = r.get(field)
        if x is not None and not isinstance(x, list):
            raise ValueError(f"humans: {path}:{line}: field {field!r} holds {json.dumps(x)[:40]} "
                             "where the other records hold a list (one entry per human)")


def _human_columns(rows, field, t=None) -> dict:
    """One column per list position of a humans field (``<field>_1`` ...), or the field itself."""
    vals = [r.get(field) for r in rows]

    def of_task(x):
        return x.get(t) if t is not None and isinstance(x, dict) else x

    if not any(isinstance(v, list) for v in vals):
        return {field: [of_task(v) for v in vals]}
    width = max(len(v) for v in vals if isinstance(v, list))
    return {f"{field}_{j + 1}": [of_task(v[j]) if isinstance(v, list) and j < len(v) else None
                                 for v in vals] for j in range(width)}


def _count_panel(path, rows, field, labels, index, lines) -> pd.DataFrame:
    """Per-label vote counts from a JSONL field (lists in label order, or label -> count)."""
    vals = [r[field] for r in rows]
    for line, x in zip(lines, vals, strict=True):
        cells = x.values() if isinstance(x, dict) else x if isinstance(x, list) else ()
        bad = next((c for c in cells if type(c) not in (int, float)
                    or not (math.isfinite(c) and c >= 0 and c == int(c))), _OK)
        if bad is not _OK:
            shown = json_token(bad) if type(bad) is float and not math.isfinite(bad) \
                else json.dumps(bad)[:40]
            raise ValueError(f"panel counts: {path}:{line}: field {field!r} holds {shown}; "
                             "a count is a whole number >= 0 (0 for a label nobody chose)")
    if all(isinstance(x, dict) for x in vals):
        keys = list(dict.fromkeys(k for x in vals for k in x))
        names = keys if labels is None else _count_labels(labels)
        if not set(map(str, keys)) <= set(map(str, names)):
            raise ValueError(f"panel counts: {path} has labels {keys!r} in {field!r}, "
                             f"not among labels {names!r}")
        by_text = {str(k): k for k in keys}
        table = [[x.get(by_text.get(str(n), n), 0) for n in names] for x in vals]
    else:
        bad = next((i for i, x in enumerate(vals) if not isinstance(x, list)), None)
        if bad is not None:
            raise ValueError(f"panel counts: field {field!r} must hold a list of counts (or "
                             f"an object label -> count); record {bad + 1} of {path} has "
                             f"{type(vals[bad]).__name__}")
        width = {len(x) for x in vals}
        if len(width) != 1:
            raise ValueError(f"panel counts: lists in {field!r} of {path} differ in length "
                             f"({min(width)} to {max(width)}); one count per label, always")
        n = width.pop()
        names = list(range(n)) if labels is None else _count_labels(labels)
        if len(names) != n:
            raise ValueError(f"labels: {len(names)} labels for {n} counts per item in "
                             f"{field!r}; name every count, in order")
        table = vals
    return pd.DataFrame(table, index=index, columns=names)


_OK = object()  # (no bad count found)


def _count_labels(labels) -> list:
    """The labels of count positions as given, each once (a repeat loses a label's counts)."""
    _labels.distinct(labels, "labels")
    return list(labels)


# --------------------------------------------------------------------------- predictions files
def attach_predictions(data: Mapping[str, TaskData], name: str, paths, *, item,
                       label, classes: Sequence | None = None,
                       task: str | None = None, samples: bool = False, parse: str = "none",
                       task_field: str | None = None) -> dict[str, TaskData]:
    r"""Add a system whose predictions live in separate files (one row per item, or per answer).

    A system that gave several sampled answers per item (an LLM judge asked n times)
    is read into :attr:`TaskData.samples` (:mod:`labelvar._samples`: stratify scores its
    modal answer, its sample shares and its self-agreement) when its file has

    - a list of answers per item in the ``label`` field (G-Eval's ``all_responses``),
    - several ``label`` fields/columns, one per sample (``label="s1,s2,s3"`` or a glob), or
    - several rows per item, with ``samples=True`` (without it a repeated id is refused).

    Parameters
    ----------
    data : mapping of str to TaskData
        As returned by the loaders.
    name : str
        System name.
    paths : path or sequence of paths
        CSV/TSV, JSON lines or one JSON array of objects (``.json``/``.jsonl``), concatenated
        (e.g. a model's predictions on the dev and test halves of a split).
    item : str or sequence of str
        Item id column(s)/field(s) in the prediction files, joined with ``|`` when several
        (G-Eval: ``"doc_id,system_id"``), matched to the panel's ids (a composite panel id,
        ``item="id,model_id"`` in :func:`read_jsonl`, is joined the same way: give the
        fields in the same order).
    label : str or sequence of str
        Column/field holding the predicted label (or list of sampled answers); several
        names or a glob: one column per sample.
    classes : sequence, optional
        If the prediction is a class index, the label of each index (e.g. ChaosNLI's
        predictions use the order entailment, contradiction, neutral).
    task : str, optional
        Task to attach to (default: every task in ``data``).
    samples : bool
        Several rows per item are sampled answers, in file order.
    parse : {"none", "number"}
        ``"number"``: each answer is the number it starts with
        (:func:`labelvar._samples.parse_answer`: G-Eval's ``" 4"`` is 4); an answer that
        starts with no number is missing, and a note says how many.
    task_field : str, optional
        Column/field naming each row's task: one file holding several tasks' answers
        (rows of tasks not in ``data`` are left out; none matching is refused).

    Returns
    -------
    dict of str to TaskData
        A new mapping; ids the prediction files lack become missing predictions
        (which :func:`labelvar.stratify` reports unless those items are excluded).

    Raises
    ------
    ValueError
        A missing field, an id repeated across the files (without ``samples``), no id in
        common with the panel (the composite key's fields in another order?), an index
        outside ``classes``; in JSON files a label that is NaN or Infinity, an object, or
        labels of more than one kind (as :func:`read_jsonl`). Without ``task`` or
        ``task_field``, several tasks on the same items: the one ``label`` field would be
        every task's answer.

    Warns
    -----
    labelvar.stratified.DataNoteWarning
        With ``parse="number"``, answers that start with no number (counted).

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "pred.jsonl")
    >>> _ = open(p, "w").write('{"uid": "a", "pred": 0}\n{"uid": "b", "pred": 2}\n')
    >>> base = {"t": TaskData(pd.DataFrame({"r1": ["e", "n"], "r2": ["e", "c"]},
    ...                                    index=pd.Index(["a", "b"], name="item")),
    ...                       pd.DataFrame(index=pd.Index(["a", "b"], name="item")))}
    >>> d = attach_predictions(base, "bert", p, item="uid", label="pred", classes=["e", "c", "n"])
    >>> d["t"].predictions["bert"].tolist()
    ['e', 'n']

    Sampled answers, G-Eval style (one JSON array, a composite key, text answers):

    >>> q = os.path.join(tempfile.mkdtemp(), "geval.json")
    >>> _ = open(q, "w").write('[{"doc_id": "d1", "system_id": "M1", "all_responses": [" 4", " 3", " 4"]},'
    ...                        ' {"doc_id": "d1", "system_id": "M2", "all_responses": ["2", "2", "x"]}]')
    >>> panel = pd.DataFrame({"e1": [4, 2], "e2": [5, 2]}, index=pd.Index(["d1|M1", "d1|M2"], name="item"))
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     d = attach_predictions({"coh": TaskData(panel, pd.DataFrame(index=panel.index))},
    ...                            "geval", q, item="doc_id,system_id", label="all_responses",
    ...                            parse="number")
    >>> d["coh"].samples["geval"].to_numpy().tolist()
    [[4, 3, 4], [2, 2, None]]
    """
    return _attach_predictions(data, name, paths, item=item, label=label, classes=classes,
                               task=task, one_task="task", samples=samples, parse=parse,
                               task_field=task_field)


def _prediction_frame(p: Path, name: str, keys: list, label, task_field, parse) -> tuple:
    """One predictions file, read.

    Returns (id and task columns, answers per row, label fields, the JSON labels seen,
    whether a label field holds lists, the answers before parsing).
    """
    from labelvar._samples import parse_answer

    need = keys + ([task_field] if task_field else [])
    if p.suffix.lower() in (".json", ".jsonl"):
        lines: list[int] = []
        recs = read_jsonl_records(p, lines)
        fields = list(dict.fromkeys(k for r in recs[:1000] for k in r))
        for c in need:
            if not any(c in r for r in recs):
                raise ValueError(f"predictions {name!r}: field {c!r} not found in {p}")
        lab_fields = select_columns(fields, label, f"predictions {name!r} (fields of {p})") \
            if any(ch in str(label) for ch in "*?[,") or not isinstance(label, str) else [label]
        if not any(lab_fields[0] in r for r in recs):
            raise ValueError(f"predictions {name!r}: field {lab_fields[0]!r} not found in {p}")
        seen = JsonLabels(p, declarable=False, whole="a prediction file")
        answers, raw = [], 0
        for line, r in zip(lines, recs, strict=True):
            row = []
            for f in lab_fields:
                x = r.get(f)
                row.extend(x if isinstance(x, list) else [x])
            raw += sum(x is not None for x in row)
            if parse != "none":
                row = [parse_answer(x, parse) for x in row]
            seen.add(row, f"predictions {name!r}", lab_fields[0] if len(lab_fields) == 1
                     else ",".join(lab_fields), line)
            answers.append(row)
        seen.check()
        df = pd.DataFrame({c: [r.get(c) for r in recs] for c in need})
        listed = any(isinstance(r.get(f), list) for r in recs for f in lab_fields)
        return df, answers, lab_fields, seen, listed, raw
    df = read_frame(p, text=need)  # ids as written
    for c in need:
        if c not in df.columns:
            raise ValueError(f"predictions {name!r}: field {c!r} not found in {p}")
    lab_fields = select_columns([c for c in df.columns if c not in need], label,
                                f"predictions {name!r} (columns of {p})")
    rows = df[lab_fields].to_numpy(dtype=object).tolist()
    raw = int(df[lab_fields].notna().to_numpy().sum())
    if parse != "none":
        rows = [[parse_answer(x, parse) for x in r] for r in rows]
    return df[need], rows, lab_fields, None, False, raw


def _attach_predictions(data, name, paths, *, item, label, classes, task, one_task,
                        samples=False, parse="none", task_field=None):
    """:func:`attach_predictions`; ``one_task``: the caller's parameter choosing one task."""
    from labelvar._samples import PARSERS

    if parse not in PARSERS:
        raise ValueError(f"parse must be one of {', '.join(PARSERS)}; got {parse!r}")
    keys = _patterns(item)
    if not keys:
        raise ValueError(f"predictions {name!r}: no item id field given")
    plist = [paths] if isinstance(paths, (str, Path)) else list(paths)
    ids, tasks_of, answers, fields = [], [], [], None
    listed, raw = False, 0
    for p in map(Path, plist):
        df, rows, lab_fields, seen, is_listed, n_raw = _prediction_frame(p, name, keys, label,
                                                                         task_field, parse)
        raw += n_raw
        listed |= is_listed or len(lab_fields) > 1
        fields = fields or lab_fields
        if seen is not None and classes is not None and set(seen.count) - {"number"}:
            role, field, line, x = seen.first[next(iter(set(seen.count) - {"number"}))]
            raise ValueError(f"{role}: {p}:{line}: field {field!r} holds {json.dumps(x)}; "
                             f"with classes it must be a class index (a whole number)")
        for k in keys:
            blank = df[k].isna().to_numpy()
            if blank.any():
                raise ValueError(f"predictions {name!r}: {p} has no {k!r} (an item id) in "
                                 f"{int(blank.sum())} row(s), first data row "
                                 f"{int(np.flatnonzero(blank)[0]) + 1}")
        ids.append(df[keys].astype(str).agg("|".join, axis=1) if len(keys) > 1
                   else df[keys[0]].astype(str))
        tasks_of.append(df[task_field].astype(str) if task_field else None)
        answers.extend(rows)
    ids = pd.concat(ids, ignore_index=True)
    tasks = pd.concat(tasks_of, ignore_index=True) if task_field else None
    key = ids if tasks is None else tasks + "\x00" + ids
    repeated = key.duplicated()
    if repeated.any() and not samples:
        raise ValueError(f"predictions {name!r}: item id {ids[repeated].iloc[0]!r} appears more "
                         "than once" + ("" if tasks is None else " in one task")
                         + "; several sampled answers per item? say so (samples=True)")
    sampled = listed or bool(samples)
    n_answers = sum(sum(x is not None for x in r) for r in answers)
    if parse != "none":
        from labelvar._warnings import DataNoteWarning

        lost = raw - n_answers
        if n_answers == 0:
            raise ValueError(f"predictions {name!r}: no answer in {fields[0]!r} starts with a "
                             f"number ({raw:,} answers); parse={parse!r} reads the leading "
                             "number of each")
        if lost:
            import warnings

            warnings.warn(f"predictions {name!r}: {lost:,} of {raw:,} answers start with no "
                          "number and are missing", DataNoteWarning, stacklevel=3)
    if classes is not None:
        classes = _labels.distinct(classes, "pred_classes" if one_task == "tasks" else "classes")
        flat = [x for r in answers for x in r if x is not None]
        idx = pd.to_numeric(pd.Series(flat, dtype=object), errors="coerce")
        bad = idx.isna() | (idx < 0) | (idx >= len(classes)) | (idx != np.round(idx))
        if bad.any():
            raise ValueError(f"predictions {name!r}: {fields[0]} must be a class index in "
                             f"0..{len(classes) - 1}, got {plain(flat[int(np.flatnonzero(bad)[0])])!r}")
        answers = [[None if x is None else classes[int(x)] for x in r] for r in answers]
    if task is not None and task not in data:
        raise ValueError(f"task: {task!r} not found; tasks: {', '.join(map(repr, data))}")
    if tasks is not None:
        unknown = set(tasks) - set(map(str, data))
        if len(unknown) == tasks.nunique():
            raise ValueError(f"task_field: no task named in {task_field!r} ("
                             f"{', '.join(map(repr, sorted(unknown)[:3]))}) is a task of the "
                             f"panel ({', '.join(map(repr, data))})")
    panel_ids = set()
    for td in data.values():
        panel_ids |= set(td.panel.index.astype(str))
    if not ids.isin(panel_ids).any():
        some = next(iter(data.values())).panel.index
        raise ValueError(f"predictions {name!r}: none of its {ids.nunique():,} item ids (e.g. "
                         f"{ids.iloc[0]!r}) is a panel item id (e.g. "
                         f"{str(some[0]) if len(some) else '?'!r}); check the id fields "
                         f"({','.join(keys)}) and, for a composite id, their order")
    out = {}
    for t, td in data.items():
        if task is not None and t != task:
            out[t] = td
            continue
        mine = np.ones(len(ids), bool) if tasks is None else (tasks == str(t)).to_numpy()
        if tasks is not None and not mine.any():
            out[t] = td
            continue
        where = td.panel.index.astype(str)
        sel = np.flatnonzero(mine)
        if not sampled:
            series = pd.Series([answers[i][0] if answers[i] else None for i in sel],
                               index=ids.to_numpy()[sel], dtype=object)
            pred = td.predictions.copy()
            pred[name] = series.reindex(where).to_numpy()
            out[t] = td._replace(predictions=pred)
            continue
        per_item: dict = {}
        for i in sel:
            per_item.setdefault(ids.iat[i], []).extend(answers[i])
        width = max((len(v) for v in per_item.values()), default=0)
        table = pd.DataFrame([v + [None] * (width - len(v)) for v in per_item.values()],
                             index=list(per_item), columns=range(1, width + 1), dtype=object)
        table = table.reindex(where)
        table.index = td.panel.index
        out[t] = td._replace(samples={**(td.samples or {}), name: table})
    if task is None and tasks is None:
        _one_task_per_field(out, name, "samples" if sampled else "predictions", fields[0],
                            one_task)
    return out


def _one_task_per_field(data: Mapping[str, TaskData], name: str, kind: str, field: str,
                       one_task: str = "tasks") -> None:
    """Refuse one field of a predictions or probabilities file as several tasks' answers.

    Such a file has one field (a label, or probabilities) for every task, so with
    several tasks on the same items each would get the same answers (CheXpert: Edema
    scored with the Cardiomegaly column). Tasks with their own item ids (a long file
    with task-specific ids) each take their own. Used by :func:`attach_predictions`,
    :func:`attach_probabilities` and :func:`load_tasks` (so by ``labelvar stratify``).

    Parameters
    ----------
    data : mapping of str to TaskData
        With system ``name`` attached.
    name : str
        The system.
    kind : {"predictions", "samples", "probabilities"}
        Where its answers are.
    field : str
        The file's field, for the message.
    one_task : str
        The caller's parameter choosing one task, for the message.

    Raises
    ------
    ValueError
        When two tasks hold answers of ``name`` for one item id.

    Examples
    --------
    >>> idx = pd.Index(["a", "b"], name="item")
    >>> td = TaskData(pd.DataFrame({"r1": [1, 0]}, index=idx), pd.DataFrame({"m": [1, 1]}, index=idx))
    >>> _one_task_per_field({"Cardio": td, "Edema": td}, "m", "predictions", "Cardio")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: predictions 'm': its one field 'Cardio' would be every task's answer: ...
    """
    ids, owner = [], []
    for t, td in data.items():
        col = (td.predictions.get(name) if kind == "predictions"
               else (td.samples or {}).get(name) if kind == "samples"
               else (td.probabilities or {}).get(name))
        if col is None:
            continue
        has = col.notna().to_numpy()
        if has.ndim > 1:
            has = has.any(axis=1)
        ids.append(td.panel.index.astype(str).to_numpy()[has])
        owner += [t] * int(has.sum())
    if len(ids) < 2:
        return
    index = pd.Index(np.concatenate(ids))
    dup = np.flatnonzero(index.duplicated(keep=False))
    if dup.size:
        item = index[dup[0]]
        tasks = list(dict.fromkeys(owner[i] for i in dup if index[i] == item))
        raise ValueError(f"{kind} {name!r}: its one field {field!r} would be every task's "
                         f"answer: tasks {', '.join(map(repr, tasks))} share items (e.g. "
                         f"{item!r}); choose one task ({one_task}=...), or give each task's "
                         "answers in a file of its own")


def _read_records(p: Path, item: str) -> pd.DataFrame:
    if p.suffix.lower() in (".json", ".jsonl"):
        return pd.DataFrame.from_records(read_jsonl_records(p))
    return read_frame(p, text=[item])  # ids as written


def attach_probabilities(data: Mapping[str, TaskData], name: str, paths, *, item: str,
                         field: str | None = None, classes: Sequence | None = None,
                         task: str | None = None) -> dict[str, TaskData]:
    r"""Add a system's probability outputs from separate files (one row per item).

    Two layouts:

    - ``field`` names a column/field holding, per item, a list of probabilities in
      ``classes`` order (ChaosNLI's ``probs``) or one number (the positive class's
      probability of a binary task); it is attached to every task (or ``task``);
    - no ``field``: one column per task holding the positive class's probability
      (the CheXpert layout: ``Study, Cardiomegaly, Edema, ...``); tasks without a
      column get none.

    Parameters
    ----------
    data : mapping of str to TaskData
    name : str
        System name (may also have labels from :func:`attach_predictions`).
    paths : path or sequence of paths
        CSV/TSV or JSONL files, concatenated.
    item : str
        Item id column/field (joined with the panel's ids; absent ids are missing).
    field : str, optional
        See above.
    classes : sequence, optional
        The label of each list position (default: 0, 1, ...).
    task : str, optional
        Attach to this task only. Without it, a ``field`` joined to several tasks'
        items is refused (it would be every task's answer).

    Returns
    -------
    dict of str to TaskData

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "probs.jsonl")
    >>> _ = open(p, "w").write('{"uid": "a", "probs": [0.7, 0.1, 0.2]}\n'
    ...                        '{"uid": "b", "probs": [0.2, 0.2, 0.6]}\n')
    >>> base = {"t": TaskData(pd.DataFrame({"r1": ["e", "n"], "r2": ["e", "c"]},
    ...                                    index=pd.Index(["a", "b"], name="item")),
    ...                       pd.DataFrame(index=pd.Index(["a", "b"], name="item")))}
    >>> d = attach_probabilities(base, "bert", p, item="uid", field="probs",
    ...                          classes=["e", "c", "n"])
    >>> d["t"].probabilities["bert"].round(1).to_numpy().tolist()
    [[0.7, 0.1, 0.2], [0.2, 0.2, 0.6]]
    """
    return _attach_probabilities(data, name, paths, item=item, field=field, classes=classes,
                                 task=task, one_task="task")


def _attach_probabilities(data, name, paths, *, item, field, classes, task, one_task,
                          field_param="field"):
    """:func:`attach_probabilities`; ``one_task``, ``field_param``: the caller's parameters.

    (choosing one task, and the field: named in messages)
    """
    plist = [paths] if isinstance(paths, (str, Path)) else list(paths)
    frames = []
    for p in map(Path, plist):
        df = _read_records(p, item)
        need = [item] + ([field] if field else [])
        for c in need:
            if c not in df.columns:
                raise ValueError(f"probabilities {name!r}: field {c!r} not found in {p}")
        frames.append(df)
    df = pd.concat(frames, ignore_index=True)
    df[item] = df[item].astype(str)
    if df[item].duplicated().any():
        dup = df.loc[df[item].duplicated(), item].iloc[0]
        raise ValueError(f"probabilities {name!r}: item id {dup!r} appears more than once")
    df = df.set_index(item)
    if field is not None:
        vals = df[field]
        if len(vals) and isinstance(vals.iloc[0], list):
            width = {len(x) for x in vals if isinstance(x, list)}
            if len(width) != 1:
                raise ValueError(f"probabilities {name!r}: lists in {field!r} differ in length")
            n = width.pop()
            cols = (_labels.distinct(classes, "pred_classes" if one_task == "tasks" else "classes")
                    if classes is not None else list(range(n)))
            if len(cols) != n:
                raise ValueError(f"probabilities {name!r}: {len(cols)} classes for {n} "
                                 f"probabilities per item in {field!r}")
            table = pd.DataFrame([x if isinstance(x, list) else [np.nan] * n for x in vals],
                                 index=vals.index, columns=cols)
            for c in table.columns:  # (text in a list: refused, not read as missing)
                table[c] = _labels.probability_column(table[c], f"probabilities {name!r}: "
                                                                f"field {field!r}")
        else:
            table = pd.Series(_labels.probability_column(vals, f"probabilities {name!r}: "
                                                              f"field {field!r}"),
                              index=vals.index)
        per_task = {t: table for t in data}
    else:
        per_task = {t: pd.Series(_labels.probability_column(
            df[t], f"probabilities {name!r}: column {t!r}"), index=df.index)
            for t in data if t in df.columns}
        if not per_task:
            raise ValueError(f"probabilities {name!r}: no column of {plist[0]} names a task "
                             f"({', '.join(map(repr, list(data)[:5]))}); give the field "
                             f"holding them ({field_param}=...)")
    if task is not None and task not in data:
        raise ValueError(f"task: {task!r} not found; tasks: {', '.join(map(repr, data))}")
    out = {}
    for t, td in data.items():
        probs = dict(td.probabilities or {})
        if t in per_task and (task is None or t == task):
            probs[name] = per_task[t].reindex(td.panel.index.astype(str))
            probs[name].index = td.panel.index
        out[t] = td._replace(probabilities=probs or None)
    if task is None and field is not None:  # (without a field: one column per task)
        _one_task_per_field(out, name, "probabilities", field, one_task)
    return out


# --------------------------------------------------------------------------- any layout
#: input layouts of :func:`load_tasks`
LAYOUTS = ("auto", "wide", "long", "jsonl", "raters")


@fill
def load_tasks(files, *, panel, layout: str = "auto", systems=(), humans=(), item=None,
               task_column: str | None = None, group_sep: str | None = None, tasks=None,
               rater: str = "rater", label: str = "label", predictions=None,
               pred_item: str | None = None, pred_label: str = "pred",
               pred_classes: Sequence | None = None, panel_counts: bool = False,
               labels: Sequence | None = None, probabilities=None,
               prob_field: str | None = None, pred_samples: bool = False,
               pred_parse: str = "none", pred_task: str | None = None) -> dict[str, TaskData]:
    r"""Load panel votes and predictions from files in any supported layout.

    Parameters
    ----------
    files : path or sequence of paths
        One file (wide, long or JSONL) or one file per rater.
    panel : str or sequence of str
        Panel columns/raters (names or globs); for JSONL the field with the labels.
    layout : {"auto", "wide", "long", "jsonl", "raters"}
        ``"auto"``: ``raters`` for several files, ``jsonl`` for ``.json``/``.jsonl``,
        else ``wide``.
    systems, humans : str or sequence of str
        Columns/raters/fields evaluated; the humans are loaded like the systems
        (a pattern matching nothing is reported under ``humans``), and each task's
        are its :attr:`TaskData.humans`.
    item : str, optional
        Item id column/field (required with several files).
    task_column, group_sep : str, optional
        Wide/long: column naming each row's task; wide: ``<task><sep><rater>`` groups.
    {{tasks}}
    rater, label : str
        Long layout: the rater and label columns.
    predictions : mapping of str to path or paths, optional
        Systems whose predictions are in separate files (:func:`attach_predictions`);
        their one ``pred_label`` field is refused when it would be the answer of
        several tasks on the same items (keep one task: ``tasks``).
    pred_item, pred_label : str
        Id and label fields of those files (``pred_item`` defaults to ``item``).
    pred_classes : sequence, optional
        Labels of class indices in those files, in index order.
    panel_counts : bool
        ``panel`` names per-label vote counts: a JSONL field (:func:`read_jsonl`
        with ``counts=True``) or wide count columns, one per label (their names
        are the labels unless ``labels`` is given). Wide and JSONL layouts only.
    labels : sequence, optional
        With ``panel_counts``: the label of each count, in order. Without: the declared
        label set, passed to the readers (strings and numbers may then mix; see
        :func:`read_wide`); give it to :func:`labelvar.stratify` too.
    probabilities : mapping of str to path or paths, optional
        Systems' probability outputs in separate files (:func:`attach_probabilities`,
        joined on ``pred_item``; list positions named by ``pred_classes``).
    prob_field : str, optional
        Their field/column (default: one column per task); refused, as ``pred_label``,
        when it would be several tasks' answer on the same items.
    pred_samples, pred_parse, pred_task
        :func:`attach_predictions`' ``samples`` (several rows per item are sampled
        answers), ``parse`` (``"number"``: an answer's leading number) and
        ``task_field`` (the field naming each row's task). ``pred_item`` and
        ``pred_label`` may name several fields: a composite id (``doc_id,system_id``),
        one field per sample; a ``pred_label`` holding a list per item is a system's
        sampled answers.

    Returns
    -------
    {{tasks_returned}}

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "w.csv")
    >>> _ = open(p, "w").write("id,r1,r2,bot\na,1,1,0\nb,0,1,0\n")
    >>> d = load_tasks(p, panel="r*", systems="bot", item="id")
    >>> d["w"].predictions.columns.tolist()
    ['bot']
    >>> load_tasks([p, p], panel="r*")
    Traceback (most recent call last):
    ...
    ValueError: item is required with several files (the id column they share)
    """
    files = [Path(files)] if isinstance(files, (str, Path)) else [Path(f) for f in files]
    if not files:
        raise ValueError("files: no input file given")
    for f in files:
        if f.is_dir():
            raise ValueError(f"files: {f} is a directory; give the data file(s) inside it")
        if not f.is_file():
            raise ValueError(f"files: no such file: {f}")
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}; got {layout!r}")
    if layout == "auto":
        if len(files) > 1:
            layout = "raters"
        elif files[0].suffix.lower() in (".json", ".jsonl"):
            layout = "jsonl"
        else:
            layout = "wide"
    if layout != "raters" and len(files) > 1:
        raise ValueError(f"layout {layout} takes one file, got {len(files)}")
    if panel_counts and layout not in ("wide", "jsonl"):
        raise ValueError(f"panel_counts: count vectors are read from wide or JSONL files, "
                         f"not the {layout} layout")
    human_patterns = _patterns(humans)
    both = [h for h in human_patterns if h in _patterns(systems)]
    if both:
        raise ValueError(f"humans: {both[0]!r} is also given as a system; a rater is evaluated "
                         "as a system or as a human, not both")
    evaluated = _patterns(systems) + human_patterns
    try:
        if layout == "wide":
            data = read_wide(files[0], panel=panel, systems=evaluated, item=item,
                             task_column=task_column, group_sep=group_sep, labels=labels,
                             counts=panel_counts, tasks=tasks)
        elif layout == "long":
            data = read_long(files[0], panel=panel, systems=evaluated, item=item or "item",
                             rater=rater, label=label, task_column=task_column, labels=labels,
                             tasks=tasks)
        elif layout == "jsonl":
            data = read_jsonl(files[0], panel=panel, systems=_patterns(systems), item=item,
                              counts=panel_counts, labels=labels, tasks=tasks,
                              humans=human_patterns)
        else:
            if not item:
                raise ValueError("item is required with several files (the id column they "
                                 "share)")
            data = read_rater_files(files, panel=panel, systems=evaluated, item=item,
                                    tasks=tasks, labels=labels)
    except ValueError as exc:
        msg = str(exc)
        for h in human_patterns:  # humans are loaded with the systems: name the right field
            if msg.startswith(f"systems: {h!r} ") or (msg.startswith("systems (task")
                                                      and f"): {h!r} " in msg):
                raise ValueError("humans" + msg[len("systems"):]) from None
        raise
    for name, paths in (predictions or {}).items():
        if not (pred_item or item):
            raise ValueError("pred_item is required with predictions (the id field of "
                             "those files)")
        data = _attach_predictions(data, name, paths, item=pred_item or item, label=pred_label,
                                   classes=pred_classes, task=None, one_task="tasks",
                                   samples=pred_samples, parse=pred_parse, task_field=pred_task)
    for name, paths in (probabilities or {}).items():
        if not (pred_item or item):
            raise ValueError("pred_item is required with probabilities (the id field of "
                             "those files)")
        data = _attach_probabilities(data, name, paths, item=pred_item or item,
                                     field=prob_field, classes=pred_classes, task=None,
                                     one_task="tasks", field_param="prob_field")
    # (a reader that expanded a humans field itself, e.g. a JSON list of objects, named them)
    return {t: td._replace(humans=td.humans or tuple(
                c for c in map(str, td.predictions.columns)
                if any(fnmatch.fnmatchcase(c, h) for h in human_patterns)))
            for t, td in data.items()}


# --------------------------------------------------------------------------- synthetic example
def synthetic_panel(n_items: int = 400, n_panel: int = 5, seed: int = 0) -> pd.DataFrame:
    """Generate a small synthetic binary dataset in wide layout, deterministically.

    Each item has a latent answer (positive with probability 0.3) and a
    difficulty: its annotators follow the latent answer with probability
    ``q`` drawn from {0.6, 0.8, 0.97} (30/30/40 %). The panel (``gt1`` ...)
    and two independent humans (``human1``, ``human2``) vote that way. Three
    systems: ``strong`` (follows the latent answer with probability 0.9 on every
    item), ``weak`` (0.7) and ``coin`` (a fair coin).

    Parameters
    ----------
    n_items : int
        Number of items (rows).
    n_panel : int
        Panel size (odd sizes avoid ties), >= 2.
    seed : int
        Seed of :func:`numpy.random.default_rng`; the same seed gives the same table.

    Returns
    -------
    pandas.DataFrame
        Columns ``item, gt1..gtK, human1, human2, strong, weak, coin``; labels 0/1.

    Examples
    --------
    >>> df = synthetic_panel(10, seed=1)
    >>> df.columns.tolist()[:3], df.shape
    (['item', 'gt1', 'gt2'], (10, 11))
    >>> bool((synthetic_panel(10, seed=1) == df).all().all())
    True
    """
    from labelvar import _validate as v

    n = v.single("n_items", v.integer("n_items", n_items, lo=1))
    k = v.single("n_panel", v.integer("n_panel", n_panel, lo=2))
    from labelvar._seeding import as_seed

    rng = np.random.default_rng(as_seed(seed))
    truth = (rng.random(n) < 0.3).astype(int)
    q = rng.choice([0.6, 0.8, 0.97], size=n, p=[0.3, 0.3, 0.4])

    def follow(p):
        agree = rng.random(n) < p
        return np.where(agree, truth, 1 - truth)

    cols = {"item": [f"item{i + 1:04d}" for i in range(n)]}
    for j in range(k):
        cols[f"gt{j + 1}"] = follow(q)
    cols["human1"] = follow(q)
    cols["human2"] = follow(q)
    cols["strong"] = follow(0.9)
    cols["weak"] = follow(0.7)
    cols["coin"] = (rng.random(n) < 0.5).astype(int)
    return pd.DataFrame(cols)
