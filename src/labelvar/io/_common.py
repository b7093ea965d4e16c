"""Shared pieces of the readers: :class:`TaskData`, column selection, tables, checks."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from labelvar._base._docs import fill
from labelvar._base._format import Text, brief, count, result_html, short_repr
from labelvar.io import _csv, _labels
from labelvar.io._labels import plain
from labelvar.io._reading import check_file


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

    Its repr gives the sizes and the roles, not the tables; in a notebook it shows the
    first rows of ``panel`` and ``predictions`` too.

    Examples
    --------
    >>> import pandas as pd
    >>> TaskData(pd.DataFrame({"r1": [1, 0], "r2": [1, 1], "r3": [0, 0]}),
    ...          pd.DataFrame({"ai": [1, 0], "dr": [1, 1]}), humans=("dr",))
    TaskData(items=2, panel=3 raters ['r1', 'r2', 'r3'], systems=['ai'], humans=['dr'])
    """

    panel: pd.DataFrame
    predictions: pd.DataFrame
    probabilities: dict | None = None
    humans: tuple = ()
    counts: bool = False
    labels: tuple | None = None
    samples: dict | None = None
    raters_identified: bool = True

    def _shown(self) -> dict:
        """The repr's fields: sizes and roles (defaults left out)."""
        cols = [str(c) for c in self.panel.columns]
        panel = (count(len(cols), "label") + " (vote counts)" if self.counts else
                 count(len(cols), "rater" if self.raters_identified else "vote position"))
        humans = [str(h) for h in self.humans]
        shown = {"items": len(self.panel), "panel": Text(f"{panel} {brief(cols)}"),
                 "systems": [str(c) for c in self.predictions.columns if str(c) not in humans],
                 "humans": humans}
        if self.labels is not None:
            shown["labels"] = list(self.labels)
        if self.probabilities:
            shown["probabilities"] = list(self.probabilities)
        if self.samples:
            shown["samples"] = list(self.samples)
        return shown

    def __repr__(self) -> str:
        return short_repr("TaskData", self._shown())

    def _repr_html_(self) -> str:
        tables = {"panel": self.panel.reset_index()}
        if len(self.predictions.columns):
            tables["predictions"] = self.predictions.reset_index()
        return result_html("TaskData", self._shown(), tables)


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


def _no_overlap(panel_names, system_names, humans=()) -> list:
    """Refuse a rater that is both in the panel and evaluated; return the system names.

    The message names the role the rater was given: ``humans`` when it is one of them.
    """
    both = [s for s in system_names if s in set(panel_names)]
    if both:
        role = "humans" if both[0] in set(humans) else "systems"
        raise ValueError(f"{role}: {both[0]!r} is also a panel rater: it would be scored "
                         "against a majority it voted in; take it out of the panel or out of "
                         "the systems/humans")
    return list(system_names)


def _evaluated(cols, systems, humans, of: str = "") -> tuple[list, tuple]:
    """The evaluated columns (systems, then humans) among ``cols``, and the humans.

    ``systems`` and ``humans`` are names or globs, each refused under its own name when
    it matches nothing (``of``: `` (task 't')`` in the message); a column matched by both
    is refused (it would be scored as a system and taken as a human).
    """
    scols = select_columns(cols, systems, f"systems{of}")
    hcols = select_columns(cols, humans, f"humans{of}") if _patterns(humans) else []
    both = [c for c in hcols if c in scols]
    if both:
        raise ValueError(f"humans{of}: {both[0]!r} is also among the systems; a rater is "
                         "evaluated as a system or as a human, not both")
    return scols + hcols, tuple(hcols)


def _task_data(df: pd.DataFrame, panel_cols, system_cols, **roles) -> TaskData:
    _no_overlap(panel_cols, system_cols, roles.get("humans", ()))
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
# What a label may be (its kind, mixed kinds, inf) is defined once, in labelvar.io._labels,
# and checked again by labelvar.stratify; the readers check each task as it is read, so
# that the message names the file.
def _checked(data: dict, where: str, labels, counts: bool = False) -> dict:
    """``data`` after :func:`labelvar.io._labels.check_table` of each task (systems only for counts)."""
    for t, td in data.items():
        _labels.check_table(t, None if counts else td.panel, td.predictions, labels=labels,
                            where=where, row_numbers=isinstance(td.panel.index, pd.RangeIndex))
    return data



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


_OK = object()  # (no bad count found)


def _count_labels(labels) -> list:
    """The labels of count positions as given, each once (a repeat loses a label's counts)."""
    _labels.distinct(labels, "labels")
    return list(labels)
