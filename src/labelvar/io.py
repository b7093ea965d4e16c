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

Every problem (a pattern that matches no column, a duplicated item id, a
prediction file without an id the panel needs) raises :class:`ValueError` with
one line naming it.
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

from labelvar import _csv
from labelvar._docs import fill
from labelvar._tasks import _canon

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
    """

    panel: pd.DataFrame
    predictions: pd.DataFrame
    probabilities: dict | None = None


# --------------------------------------------------------------------------- helpers
def _check_file(path: Path) -> None:
    """A readable regular file, or one line saying what it is instead."""
    if path.is_dir():
        raise ValueError(f"{path} is a directory; give the data file(s) inside it")
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")


def _plain(x):
    """Numpy scalars as Python scalars (for readable messages)."""
    return x.item() if isinstance(x, np.generic) else x


def _patterns(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [p.strip() for p in value.split(",") if p.strip()]
    return [str(p) for p in value]


def select_columns(columns: Iterable[str], patterns, field: str) -> list[str]:
    """Return the columns matching ``patterns`` (names or shell globs), in column order.

    Parameters
    ----------
    columns : iterable of str
        Available column names.
    patterns : str or sequence of str
        Names or globs (``bc*``); a string may hold several separated by commas.
    field : str
        Name used in the error message (e.g. ``"panel"``).

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        If a pattern matches no column.

    Examples
    --------
    >>> select_columns(["id", "r1", "r2", "gpt"], "r*", "panel")
    ['r1', 'r2']
    >>> select_columns(["id", "r1"], ["r9"], "panel")
    Traceback (most recent call last):
    ...
    ValueError: panel: 'r9' matches no column; available: 'id', 'r1'
    """
    cols = [str(c) for c in columns]
    chosen: list[str] = []
    for pat in _patterns(patterns):
        hits = [c for c in cols if c == pat] or fnmatch.filter(cols, pat)
        if not hits:
            avail = ", ".join(repr(c) for c in cols[:12]) + (", ..." if len(cols) > 12 else "")
            raise ValueError(f"{field}: {pat!r} matches no column; available: {avail}")
        chosen.extend(h for h in hits if h not in chosen)
    return chosen


@fill
def read_frame(path, sep: str | None = None) -> pd.DataFrame:
    r"""Read a CSV/TSV file as strings-or-numbers, keeping empty cells as missing.

    Parameters
    ----------
    path : str or Path
        ``.tsv``/``.tab`` files are tab separated, anything else comma separated
        unless ``sep`` is given.
    {{sep}}

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
    """
    path = Path(path)
    _check_file(path)
    return _csv.read_table(path, _csv.separator(path, sep))


def _wide_columns(header: list[str], *, panel, systems, item, task_column,
                  group_sep) -> tuple[list[str], list[str]]:
    """The columns :func:`read_wide` uses, in file order, and those of them holding ids or tasks.

    Raises ValueError when the selection fails (the caller then reads the whole
    file, so the problem is reported as from the whole table).
    """
    if len(set(header)) != len(header):
        raise ValueError("two columns share a name")
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


def _task_data(df: pd.DataFrame, panel_cols, system_cols) -> TaskData:
    _no_overlap(panel_cols, system_cols)
    return TaskData(df[list(panel_cols)], df[list(system_cols)])  # new frames, shared index


# --------------------------------------------------------------------------- label values
# What a label may be. JSON says its kind: a string, a number or a boolean (null is a
# missing vote); every label of a task is of one kind, else "1" and 1, or true and 1,
# would be merged into one label unseen, and "yes" among numbers taken for a label
# whatever its frequency. NaN and Infinity are not JSON (Python's json reads them) and
# no label. In a CSV file every cell is text: a cell that reads as a number is a number
# ("1" and 1.0 are the label 1, as :func:`labelvar.stratify` reads them), anything else
# is text; "inf" is no label, and a column typed boolean by pandas holds booleans.
_JSON_KINDS = {str: "string", int: "number", float: "number", bool: "boolean"}


def _json_token(x) -> str:
    """How a non-finite float is spelled in the file (json's tokens)."""
    return "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")


class _JsonLabels:
    """The JSON labels of one task, checked as they are read (:func:`read_jsonl`, the pilot).

    :meth:`add` refuses, with the file, line and field, a label that is an array or
    object, NaN or Infinity; :meth:`check` refuses labels of more than one kind
    (strings, numbers, booleans), unless ``allow_text_and_numbers`` (a declared label
    set decides which strings and numbers are labels); booleans never mix.
    ``declarable``: the caller takes a label set (the message then says so); ``whole``:
    what the labels are of, in the message.
    """

    def __init__(self, path, allow_text_and_numbers: bool = False, declarable: bool = True,
                 whole: str = "a task"):
        self.path = path
        self.whole = whole
        self.allow = allow_text_and_numbers
        self.declarable = declarable
        self.first: dict = {}  # kind -> (role, field, line, value) of its first label
        self.count: dict = {}  # kind -> number of labels

    def add(self, values, role: str, field: str, line: int) -> None:
        """Check the labels ``values`` of field ``field`` on line ``line``; null is missing."""
        for x in values:
            if x is None:
                continue
            kind = _JSON_KINDS.get(type(x))
            if kind is None:
                raise ValueError(f"{role}: {self.path}:{line}: field {field!r} holds "
                                 f"{json.dumps(x)[:40]} where a label goes; a label is a "
                                 "string, a number or a boolean (null: missing)")
            if kind == "number" and type(x) is float and not math.isfinite(x):
                raise ValueError(f"{role}: {self.path}:{line}: field {field!r} holds "
                                 f"{_json_token(x)}, which is not JSON and no label; write "
                                 "null for a missing label")
            if kind in self.count:
                self.count[kind] += 1
            else:
                self.count[kind] = 1
                self.first[kind] = (role, field, line, x)

    def check(self) -> None:
        """Refuse labels of more than one kind (see the class)."""
        kinds = sorted(self.count, key=lambda k: (-self.count[k], self.first[k][2]))
        if len(kinds) < 2 or (self.allow and "boolean" not in kinds):
            return
        total = sum(self.count.values())
        odd = kinds[-1]  # the rarest kind, then the one seen last
        role, field, line, x = self.first[odd]
        _, field0, line0, x0 = self.first[kinds[0]]
        hint = ("; booleans do not mix with other labels" if "boolean" in (odd, kinds[0])
                else "; or declare the label set (labels=...): values outside it are then "
                     "treated as stray (rare ones dropped as missing, with a note)"
                if self.declarable else "")
        raise ValueError(f"{role}: {self.path}:{line}: field {field!r} holds {json.dumps(x)} "
                         f"(a {odd}; {self.count[odd]:,} of {total:,} labels), but line "
                         f"{line0} ({field0!r}) holds {json.dumps(x0)} (a {kinds[0]}): the "
                         f"labels of {self.whole} are all strings, all numbers or all booleans "
                         f"(null: missing){hint}")


def _cell_kind(x) -> str | None:
    """Kind of one table cell as a label: number, text, boolean or non-finite; None: missing."""
    if isinstance(x, (bool, np.bool_)):
        return "boolean"
    c = _canon(x)  # the label labelvar.stratify makes of it
    if c is None:
        return None
    if isinstance(c, str):  # text, or the text of a non-finite number ("inf")
        try:
            float(c)
        except ValueError:
            return "text"
        return "non-finite"
    return "number" if math.isfinite(c) else "non-finite"


def _column_kinds(col) -> dict:
    """Per kind (:func:`_cell_kind`) one value of that kind in ``col`` and its number of cells."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        codes = np.asarray(col.cat.codes)
        n = np.bincount(codes[codes >= 0].astype(np.intp), minlength=len(col.cat.categories))
        values = [(v, int(k)) for v, k in zip(col.cat.categories, n, strict=True) if k]
    elif isinstance(col.dtype, np.dtype) and col.dtype.kind in "biuf":
        arr = col.to_numpy()
        if arr.dtype.kind == "b":
            return {"boolean": (bool(arr[0]), arr.size)} if arr.size else {}
        if arr.dtype.kind == "f":
            bad = np.isinf(arr)
            finite = int((~bad & ~np.isnan(arr)).sum())
            out = {"number": (float(arr[~bad & ~np.isnan(arr)][0]), finite)} if finite else {}
            if bad.any():
                out["non-finite"] = (float(arr[bad][0]), int(bad.sum()))
            return out
        return {"number": (_plain(arr[0]), arr.size)} if arr.size else {}
    else:  # objects (pivoted long tables, frames given by the caller) or text
        arr = col.to_numpy(dtype=object)
        values = []
        if pd.api.types.infer_dtype(arr, skipna=True) in ("string", "empty"):
            is_bool = np.zeros(arr.size, dtype=bool)  # (a scan in C: no Python call per cell)
        else:
            is_bool = np.fromiter((isinstance(x, (bool, np.bool_)) for x in arr), bool, arr.size)
        if is_bool.any():  # (hashing would make True and 1 one value)
            values.append((bool(arr[is_bool][0]), int(is_bool.sum())))
            arr = arr[~is_bool]
        codes, uniq = pd.factorize(arr, use_na_sentinel=True)
        n = np.bincount(codes[codes >= 0], minlength=len(uniq))
        values += [(v, int(k)) for v, k in zip(uniq, n, strict=True)]
    out: dict = {}
    for v, k in values:
        kind = _cell_kind(v)
        if kind is not None:
            first, total = out.get(kind, (v, 0))
            out[kind] = (first, total + k)
    return out


def _check_labels(td: TaskData, task: str, where: str, labels) -> None:
    """Refuse what no label set can hold: mixed kinds, a non-finite number, in one task.

    The votes of a table are all numbers, all text or all booleans (a column typed so
    by pandas), and no ``inf``; the systems' labels are booleans only with boolean
    votes (:func:`labelvar.stratify` would take ``True`` for 1), and any other label of
    theirs outside the panel's set is refused by :func:`labelvar.stratify`. With a
    declared label set (``labels``) text and numbers may mix and ``inf`` may occur:
    values outside the set are then :func:`labelvar.stratify`'s stray values (rare
    ones missing, with a note).
    """
    found: dict = {}  # kind -> [(role, column, value, cells)]
    for role, frame in (("panel", td.panel), ("systems", td.predictions)):
        for c in frame.columns:
            for kind, (v, k) in _column_kinds(frame[c]).items():
                if role == "panel" or kind == "boolean" or "boolean" in found:
                    found.setdefault(kind, []).append((role, c, v, k))
    if len(found) < 2 and "non-finite" not in found:
        return
    if labels is not None and "boolean" not in found:
        return
    total = sum(k for hits in found.values() for *_, k in hits)
    counts = {kind: sum(k for *_, k in hits) for kind, hits in found.items()}
    what = "labels" if any(r == "systems" for hits in found.values() for r, *_ in hits) \
        else "votes"
    if "non-finite" in found:
        odd, other = "non-finite", None
    else:
        ranked = sorted(found, key=lambda kind: -counts[kind])
        odd, other = ranked[-1], ranked[0]
    role, col, _, _ = found[odd][0]
    v, at = _first_of_kind(td.panel if role == "panel" else td.predictions, col, odd)
    if other is None:
        raise ValueError(f"{role}: column {col!r} of task {task!r} holds {_plain(v)!r} "
                         f"({at} of {where}; {counts[odd]:,} of {total:,} {what}): a label is "
                         "text or a finite number (empty and NaN cells are missing); correct "
                         "the file, or declare the label set (labels=...) to treat it as a "
                         "stray value")
    role0, col0, _, _ = found[other][0]
    v0, _ = _first_of_kind(td.panel if role0 == "panel" else td.predictions, col0, other)
    hint = ("booleans do not mix with other labels" if "boolean" in (odd, other) else
            "correct the file, or declare the label set (labels=...): values outside it "
            "are then treated as stray (rare ones dropped as missing, with a note)")
    plural = {"number": "numbers", "text": "text", "boolean": "booleans"}
    raise ValueError(f"{role}: the labels of task {task!r} mix {plural[other]} and "
                     f"{plural[odd]}: column "
                     f"{col!r} holds {_plain(v)!r} ({at} of {where}; {counts[odd]:,} of "
                     f"{total:,} {what}), column {col0!r} holds {_plain(v0)!r}; a task's labels "
                     f"are all numbers, all text or all booleans: {hint}")


def _checked(data: dict, where: str, labels, counts: bool = False) -> dict:
    """``data`` after :func:`_check_labels` of each task (its systems only for count panels)."""
    for t, td in data.items():
        _check_labels(td._replace(panel=td.panel.iloc[:, :0]) if counts else td, t, where,
                      labels)
    return data


def _first_of_kind(frame: pd.DataFrame, col, kind: str) -> tuple[object, str]:
    """The first cell of ``frame[col]`` of this kind (:func:`_cell_kind`), and where it is.

    Where: ``item 'x'``, or ``data row n`` when the items are numbered.
    """
    s = frame[col]
    if isinstance(s.dtype, pd.CategoricalDtype):
        of_kind = np.array([_cell_kind(c) == kind for c in s.cat.categories] + [False])
        hit = of_kind[np.asarray(s.cat.codes)]  # (code -1, missing, picks the last slot)
    else:
        hit = np.fromiter((_cell_kind(x) == kind for x in s.to_numpy(dtype=object)), bool,
                          len(s))
    i = int(np.flatnonzero(hit)[0])
    at = f"data row {i + 1}" if isinstance(frame.index, pd.RangeIndex) \
        else f"item {_plain(frame.index[i])!r}"
    return _plain(s.iloc[i]), at


# --------------------------------------------------------------------------- wide
@fill
def read_wide(path_or_frame, *, panel, systems=(), item=None, task_column=None,
              group_sep: str | None = None, task: str | None = None,
              sep: str | None = None, labels: Sequence | None = None,
              counts: bool = False) -> dict[str, TaskData]:
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
    else:
        path = Path(path_or_frame)
        _check_file(path)
        df = _csv.read_columns(path, _csv.separator(path, sep), functools.partial(
            _wide_columns, panel=panel, systems=systems, item=item, task_column=task_column,
            group_sep=group_sep))
        where, default_task = str(path_or_frame), task or Path(path_or_frame).stem
    if not _patterns(panel):
        raise ValueError("panel: no panel columns given (names or globs of the annotator columns)")
    if task_column is not None and group_sep is not None:
        raise ValueError("task_column and group_sep cannot both be given")
    if task_column is not None:
        if task_column not in df.columns:
            raise ValueError(f"task_column: column {task_column!r} not found in {where}")
        _no_blanks(df, [task_column], "task_column", where, "a task")
        _no_blanks(df, [k for k in _patterns(item) if k in df.columns], "item", where,
                   "an item id")  # here, so that rows are counted in the whole table
        out = {}
        for name, sub in df.groupby(task_column, sort=False):
            sub = _index(sub.drop(columns=[task_column]), item, f"{where} (task {name!r})")
            cols = [c for c in sub.columns]
            out[str(name)] = _task_data(sub, select_columns(cols, panel, "panel"),
                                        select_columns(cols, systems, "systems"))
        return _checked(out, where, labels, counts)
    df = _index(df, item, where)
    if group_sep is None:
        cols = list(df.columns)
        pcols = select_columns(cols, panel, "panel")
        scols = select_columns(cols, systems, "systems")
        return _checked({default_task: _task_data(df, pcols, scols)}, where, labels, counts)
    groups: dict[str, dict[str, str]] = {}
    for c in df.columns:
        if group_sep in c:
            t, r = c.split(group_sep, 1)
            groups.setdefault(t, {})[r] = c
    if not groups:
        raise ValueError(f"group_sep: no column name contains {group_sep!r} "
                         "(expected <task>{sep}<rater>)")
    out = {}
    for t, raters in groups.items():
        pr = select_columns(raters, panel, f"panel (task {t!r})")
        sr = select_columns(raters, systems, f"systems (task {t!r})")
        sub = df[[raters[r] for r in pr + sr]].copy()
        sub.columns = pr + sr
        out[t] = _task_data(sub, pr, sr)
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
        panel file except ``item``).
    {{sep}}
    labels : sequence, optional
        The declared label set (see :func:`read_wide`).

    Returns
    -------
    {{tasks_returned}}

    Raises
    ------
    ValueError
        If the files do not hold the same set of item ids, or ids repeat; labels as
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
    frames = {n: _index(read_frame(named[n], sep), item, str(named[n])) for n in pnames + snames}
    ref = frames[pnames[0]]
    task_names = select_columns(list(ref.columns), tasks if tasks is not None else "*", "tasks")
    order = ref.index
    for n, f in frames.items():
        if set(f.index) != set(order):
            extra = sorted(set(f.index) ^ set(order))[:1]
            raise ValueError(f"files: {named[n]} does not hold the same item ids as "
                             f"{named[pnames[0]]} (first difference: {extra[0]!r})")
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
        out[t] = TaskData(pan, pred)
    return _checked(out, "the rater files", labels)


# --------------------------------------------------------------------------- long
@fill
def read_long(path_or_frame, *, panel, systems=(), item: str = "item", rater: str = "rater",
              label: str = "label", task_column: str | None = None, task: str | None = None,
              sep: str | None = None, labels: Sequence | None = None) -> dict[str, TaskData]:
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
    else:
        df, where = read_frame(path_or_frame, sep), str(path_or_frame)
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
    groups = df.groupby(task_column, sort=False) if task_column else [(default_task, df)]
    raters_all = list(dict.fromkeys(df[rater]))
    pnames = select_columns(raters_all, panel, "panel")
    snames = _no_overlap(pnames, select_columns(raters_all, systems, "systems"))
    out = {}
    for t, sub in groups:
        wide = sub.pivot(index=item, columns=rater, values=label)
        order = list(dict.fromkeys(sub[item]))
        wide = wide.reindex(order)
        wide.index.name = "item"
        pan = wide.reindex(columns=pnames)
        pred = wide.reindex(columns=snames)
        out[str(t)] = TaskData(pan, pred)
    return _checked(out, where, labels)


# --------------------------------------------------------------------------- jsonl
def _lines(fh, path):
    """The lines of a text file, a decoding error named with the file and line."""
    lineno = 0
    try:
        for lineno, line in enumerate(fh, 1):  # noqa: B007 - lineno is used below
            yield line
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}:{lineno + 1}: not UTF-8 text ({exc.reason}); "
                         "save the file as UTF-8") from None


def _read_jsonl_records(path, lines: list | None = None) -> list[dict]:
    """The objects of a JSON-lines file (blank lines skipped); their line numbers into ``lines``."""
    path = Path(path)
    _check_file(path)
    rows = []
    # utf-8-sig: a byte order mark (Windows editors) is read past, as read_csv does
    with path.open(encoding="utf-8-sig", errors="strict") as fh:
        for lineno, line in enumerate(_lines(fh, path), 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
            if not isinstance(obj, dict):
                raise ValueError(f"{path}:{lineno}: expected a JSON object per line")
            rows.append(obj)
            if lines is not None:
                lines.append(lineno)
    return rows


@fill
def read_jsonl(path, *, panel: str, systems=(), item=None, task: str | None = None,
               counts: bool = False, labels: Sequence | None = None) -> dict[str, TaskData]:
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
    rows = _read_jsonl_records(path, lines)
    if not rows:
        raise ValueError(f"{path}: no records")
    keys = _patterns(item)
    sysf = _patterns(systems)
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
    for f in sysf:
        if f not in rows[0]:
            raise ValueError(f"systems: field {f!r} not found in {path}; "
                             f"fields: {', '.join(map(repr, list(rows[0])[:12]))}")
    index = pd.Index(ids, name="item")
    if counts:
        pan = _count_panel(path, rows, panel, labels, index, lines)
        pred = pd.DataFrame({f: [r.get(f) for r in rows] for f in sysf}, index=index)
        seen = _JsonLabels(path)
        for line, r in zip(lines, rows, strict=True):
            for f in sysf:
                seen.add([r.get(f)], "systems", f, line)
        seen.check()
        return {task or Path(path).stem: TaskData(pan, pred)}
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
        seen = _JsonLabels(path, allow_text_and_numbers=labels is not None)
        for line, r in zip(lines, rows, strict=True):
            seen.add(r[panel], "panel", panel, line)
            for f in sysf:
                seen.add([r.get(f)], "systems", f, line)
        seen.check()
        votes = [list(r[panel]) + [None] * (width - len(r[panel])) for r in rows]
        pan = pd.DataFrame(votes, index=index, columns=[f"{panel}_{j + 1}" for j in range(width)])
        pred = pd.DataFrame({f: [r.get(f) for r in rows] for f in sysf}, index=index)
        return {task or Path(path).stem: TaskData(pan, pred)}
    for line, r in zip(lines, rows, strict=True):
        odd = next((a for a in r[panel] if not isinstance(a, dict)), None)
        if odd is not None:
            raise ValueError(f"panel: {path}:{line}: field {panel!r} holds {json.dumps(odd)[:40]} "
                             "among objects; a multi-task panel is a list of objects task -> "
                             "label (one per annotator), on every line")
    task_names = list(dict.fromkeys(k for r in rows for a in r[panel] for k in a))
    for t in task_names:
        seen = _JsonLabels(path, allow_text_and_numbers=labels is not None)
        for line, r in zip(lines, rows, strict=True):
            seen.add([a.get(t) for a in r[panel]], "panel", f"{panel}.{t}", line)
            for f in sysf:
                x = r.get(f)
                seen.add([x.get(t) if isinstance(x, dict) else x], "systems",
                         f"{f}.{t}" if isinstance(x, dict) else f, line)
        seen.check()
    out = {}
    for t in task_names:
        votes = [[a.get(t) for a in r[panel]] + [None] * (width - len(r[panel])) for r in rows]
        pan = pd.DataFrame(votes, index=index, columns=[f"{panel}_{j + 1}" for j in range(width)])
        pred = pd.DataFrame({f: [r[f].get(t) if isinstance(r.get(f), dict) else r.get(f)
                                 for r in rows] for f in sysf}, index=index)
        out[t] = TaskData(pan, pred)
    return out


def _count_panel(path, rows, field, labels, index, lines) -> pd.DataFrame:
    """Per-label vote counts from a JSONL field (lists in label order, or label -> count)."""
    vals = [r[field] for r in rows]
    for line, x in zip(lines, vals, strict=True):
        cells = x.values() if isinstance(x, dict) else x if isinstance(x, list) else ()
        bad = next((c for c in cells if type(c) not in (int, float)
                    or not (math.isfinite(c) and c >= 0 and c == int(c))), _OK)
        if bad is not _OK:
            shown = _json_token(bad) if type(bad) is float and not math.isfinite(bad) \
                else json.dumps(bad)[:40]
            raise ValueError(f"panel counts: {path}:{line}: field {field!r} holds {shown}; "
                             "a count is a whole number >= 0 (0 for a label nobody chose)")
    if all(isinstance(x, dict) for x in vals):
        keys = list(dict.fromkeys(k for x in vals for k in x))
        names = keys if labels is None else list(labels)
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
        names = list(range(n)) if labels is None else list(labels)
        if len(names) != n:
            raise ValueError(f"labels: {len(names)} labels for {n} counts per item in "
                             f"{field!r}; name every count, in order")
        table = vals
    return pd.DataFrame(table, index=index, columns=names)


_OK = object()  # (no bad count found)


# --------------------------------------------------------------------------- predictions files
def attach_predictions(data: Mapping[str, TaskData], name: str, paths, *, item: str,
                       label: str, classes: Sequence | None = None,
                       task: str | None = None) -> dict[str, TaskData]:
    r"""Add a system whose predictions live in separate files (one row per item).

    Parameters
    ----------
    data : mapping of str to TaskData
        As returned by the loaders.
    name : str
        System name.
    paths : path or sequence of paths
        CSV/TSV or JSONL (``.json``/``.jsonl``) files, concatenated (e.g. a model's
        predictions on the dev and test halves of a split).
    item : str
        Item id column/field in the prediction files (joined with the panel's ids).
    label : str
        Column/field holding the predicted label.
    classes : sequence, optional
        If the prediction is a class index, the label of each index (e.g. ChaosNLI's
        predictions use the order entailment, contradiction, neutral).
    task : str, optional
        Task to attach to (default: every task in ``data``).

    Returns
    -------
    dict of str to TaskData
        A new mapping; ids the prediction files lack become missing predictions
        (which :func:`labelvar.stratify` reports unless those items are excluded).

    Raises
    ------
    ValueError
        A missing field, an id repeated across the files, an index outside ``classes``;
        in JSON files a label that is NaN or Infinity, an array or object, or labels of
        more than one kind (as :func:`read_jsonl`).

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
    """
    plist = [paths] if isinstance(paths, (str, Path)) else list(paths)
    frames = []
    for p in plist:
        p = Path(p)
        if p.suffix.lower() in (".json", ".jsonl"):
            lines: list[int] = []
            recs = _read_jsonl_records(p, lines)
            seen = _JsonLabels(p, declarable=False, whole="a prediction file")
            for line, r in zip(lines, recs, strict=True):
                seen.add([r.get(label)], f"predictions {name!r}", label, line)
            seen.check()
            if classes is not None and set(seen.count) - {"number"}:
                role, field, line, x = seen.first[next(iter(set(seen.count) - {"number"}))]
                raise ValueError(f"{role}: {p}:{line}: field {field!r} holds {json.dumps(x)}; "
                                 f"with classes it must be a class index (a whole number)")
            df = pd.DataFrame.from_records(recs)
        else:
            df = read_frame(p)
        for c in (item, label):
            if c not in df.columns:
                raise ValueError(f"predictions {name!r}: field {c!r} not found in {p}")
        frames.append(df[[item, label]])
    df = pd.concat(frames, ignore_index=True)
    df[item] = df[item].astype(str)
    if df[item].duplicated().any():
        dup = df.loc[df[item].duplicated(), item].iloc[0]
        raise ValueError(f"predictions {name!r}: item id {dup!r} appears more than once")
    labels = df[label]
    if classes is not None:
        classes = list(classes)
        idx = pd.to_numeric(labels, errors="coerce")
        bad = idx.isna() | (idx < 0) | (idx >= len(classes)) | (idx != np.round(idx))
        if bad.any():
            raise ValueError(f"predictions {name!r}: {label} must be a class index in "
                             f"0..{len(classes) - 1}, got {_plain(labels[bad].iloc[0])!r}")
        labels = pd.Series([classes[int(i)] for i in idx], index=df.index)
    series = pd.Series(labels.to_numpy(), index=df[item].to_numpy())
    out = {}
    for t, td in data.items():
        if task is not None and t != task:
            out[t] = td
            continue
        pred = td.predictions.copy()
        pred[name] = series.reindex(td.panel.index.astype(str)).to_numpy()
        out[t] = TaskData(td.panel, pred, td.probabilities)
    if task is not None and task not in data:
        raise ValueError(f"task: {task!r} not found; tasks: {', '.join(map(repr, data))}")
    return out


def _read_records(p: Path) -> pd.DataFrame:
    if p.suffix.lower() in (".json", ".jsonl"):
        return pd.DataFrame.from_records(_read_jsonl_records(p))
    return read_frame(p)


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
        Attach to this task only.

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
    plist = [paths] if isinstance(paths, (str, Path)) else list(paths)
    frames = []
    for p in map(Path, plist):
        df = _read_records(p)
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
            cols = list(classes) if classes is not None else list(range(n))
            if len(cols) != n:
                raise ValueError(f"probabilities {name!r}: {len(cols)} classes for {n} "
                                 f"probabilities per item in {field!r}")
            table = pd.DataFrame([x if isinstance(x, list) else [np.nan] * n for x in vals],
                                 index=vals.index, columns=cols)
        else:
            table = pd.to_numeric(vals, errors="coerce")
        per_task = {t: table for t in data}
    else:
        per_task = {t: pd.to_numeric(df[t], errors="coerce") for t in data if t in df.columns}
        if not per_task:
            raise ValueError(f"probabilities {name!r}: no column of {plist[0]} names a task "
                             f"({', '.join(map(repr, list(data)[:5]))}); give --prob-field")
    if task is not None and task not in data:
        raise ValueError(f"task: {task!r} not found; tasks: {', '.join(map(repr, data))}")
    out = {}
    for t, td in data.items():
        probs = dict(td.probabilities or {})
        if t in per_task and (task is None or t == task):
            probs[name] = per_task[t].reindex(td.panel.index.astype(str))
            probs[name].index = td.panel.index
        out[t] = TaskData(td.panel, td.predictions, probs or None)
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
               prob_field: str | None = None) -> dict[str, TaskData]:
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
        (a pattern matching nothing is reported under ``humans``).
    item : str, optional
        Item id column/field (required with several files).
    task_column, group_sep : str, optional
        Wide/long: column naming each row's task; wide: ``<task><sep><rater>`` groups.
    tasks : str or sequence of str, optional
        Raters layout: the task columns (default all).
    rater, label : str
        Long layout: the rater and label columns.
    predictions : mapping of str to path or paths, optional
        Systems whose predictions are in separate files (:func:`attach_predictions`).
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
        Their field/column (default: one column per task).

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
    evaluated = _patterns(systems) + human_patterns
    try:
        if layout == "wide":
            data = read_wide(files[0], panel=panel, systems=evaluated, item=item,
                             task_column=task_column, group_sep=group_sep, labels=labels,
                             counts=panel_counts)
        elif layout == "long":
            data = read_long(files[0], panel=panel, systems=evaluated, item=item or "item",
                             rater=rater, label=label, task_column=task_column, labels=labels)
        elif layout == "jsonl":
            data = read_jsonl(files[0], panel=panel, systems=evaluated, item=item,
                              counts=panel_counts, labels=labels)
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
        data = attach_predictions(data, name, paths, item=pred_item or item, label=pred_label,
                                  classes=pred_classes)
    for name, paths in (probabilities or {}).items():
        if not (pred_item or item):
            raise ValueError("pred_item is required with probabilities (the id field of "
                             "those files)")
        data = attach_probabilities(data, name, paths, item=pred_item or item, field=prob_field,
                                    classes=pred_classes)
    return data


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
