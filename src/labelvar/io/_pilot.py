"""Reading pilot votes into an (items x labels) count matrix (:func:`read_pilot_counts`).

The reading behind :func:`labelvar.votes._pilot.read_pilot` (the pilot's fit lives with the
models of votes). Three inputs:

- a CSV of per-label vote counts, one row per item, one column per label. An id
  column is never taken for a label: a column with no name (pandas' index, written by
  ``DataFrame.to_csv`` without ``index=False``), one named as an id (``item``, ``id``,
  ``index``, ``pairID``, ``doc_id`` ...) or a numeric one whose values are all distinct
  (row numbers) is refused, naming it and the fix (give the count columns), unless the
  count columns are given (``columns=``);
- JSON lines whose ``field`` is the list of an item's labels (SNLI's
  ``annotator_labels``): labels read as every reader reads them (``1`` and ``1.0`` one
  label, one kind per pilot, no NaN or Infinity), and a rare label that looks stray
  (one ``2`` among thousands of 0/1 votes) refused, as :func:`labelvar.io.read_votes` does;
- JSON lines whose ``field`` holds per-label counts (``counts=True``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from labelvar._base import _validate as V
from labelvar.io import _labels
from labelvar.io._common import read_frame
from labelvar.io._jsonl import read_jsonl
from labelvar.io._labels import JsonLabels, canon, kind
from labelvar.io._reading import read_jsonl_records

#: column names (case-insensitive) that name items, not labels
ID_NAMES = frozenset({"item", "items", "id", "ids", "index", "idx", "uid", "key", "row",
                      "item_id", "itemid", "example_id", "doc_id", "docid", "pairid"})
#: a numeric column of at least this many rows, all distinct, is row numbers or ids
_DISTINCT_ROWS = 10


def read_pilot_counts(path: str | Path, *, field: str = "annotator_labels",
                      columns: Sequence[str] | None = None, counts: bool = False,
                      labels: Sequence | None = None) -> np.ndarray:
    r"""Pilot votes as an (items x labels) int64 count matrix (see the module's notes).

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "votes.csv")
    >>> _ = open(p, "w").write("yes,no\n3,2\n5,0\n")
    >>> read_pilot_counts(p).tolist()
    [[3, 2], [5, 0]]
    >>> _ = open(p, "w").write(",yes,no\n0,3,2\n1,5,0\n")  # DataFrame.to_csv(p): its index
    >>> read_pilot_counts(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: pilot CSV ...: column 1 has no name (an index written by DataFrame.to_csv?)...
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"pilot file not found: {path}")
    json = path.suffix.lower() in (".jsonl", ".json")
    ignored = ([("columns", "CSV")] if json and columns is not None else []) + (
        [("field", "JSON")] if not json and field != "annotator_labels" else []) + (
        [("counts", "JSON")] if not json and counts else []) + (
        [("labels", "JSON count")] if labels is not None and not (json and counts)
        else [])
    if ignored and path.is_file():  # an option this pilot would ignore
        name, kind = ignored[0]
        if name == "labels" and json:
            raise ValueError("labels: names the positions of per-label counts; it applies only "
                             "to a pilot read as counts (Python: counts, command line: "
                             "--pilot-counts); leave it out")
        raise ValueError(f"{name}: applies to {kind} pilots only, and the pilot {path.name} is "
                         f"{'JSON' if json else 'CSV'}; leave it out")
    if path.suffix.lower() in (".jsonl", ".json") and counts:
        (task,) = read_jsonl(path, panel=field, counts=True, labels=labels).values()
        return V.integer("pilot vote counts", task.panel.to_numpy(), lo=0)
    if path.suffix.lower() in (".jsonl", ".json"):
        return _label_lists(path, field)
    return _count_columns(path, columns)


def _label_lists(path: Path, field: str) -> np.ndarray:
    """JSON lines of label lists, counted per label (labels sorted, numbers first)."""
    lines: list[int] = []
    records = read_jsonl_records(path, lines)
    seen = JsonLabels(path, declarable=False, whole="a pilot")
    rows = []
    for line, rec in zip(lines, records, strict=True):
        if not isinstance(rec, dict) or field not in rec:
            raise ValueError(f"pilot line {line} has no field {field!r}")
        votes = rec[field]
        if not isinstance(votes, list) or any(x is None or isinstance(x, (list, dict))
                                              for x in votes):
            raise ValueError(f"pilot line {line}: field {field!r} must be a list of labels "
                             f"(strings or numbers, no nulls; per-label counts: "
                             f"--pilot-counts), got {json.dumps(votes)[:60]}")
        seen.add(votes, "pilot", field, line)  # no NaN or Infinity
        # a number is one label however written (1 and 1.0), as every reader reads it
        rows.append([canon(x) if kind(x, typed=True) == "number" else x for x in votes])
    seen.check()  # one kind: "1" and 1, or true and 1, are not merged unseen
    flat = pd.Series([x for r in rows for x in r], dtype=object)
    tally = {k: int(v) for k, v in flat.value_counts(sort=False).items()}
    total = sum(tally.values())
    names = sorted(tally, key=_labels.sort_key)
    stray = _labels.stray_label(tally, total) if total else None
    if stray is not None:
        rest = [x for x in names if x != stray]
        raise ValueError(f"pilot {path}: label {stray!r} occurs in {tally[stray]:,} of "
                         f"{total:,} votes ({100 * tally[stray] / total:.2f} %), which looks "
                         f"like a stray value among {_labels.fmt_labels(rest)}; correct or "
                         "drop those votes: a stray label would be planned for as one more "
                         "label")
    index = {n: j for j, n in enumerate(names)}
    out = np.zeros((len(rows), max(2, len(names))), dtype=np.int64)
    for i, row in enumerate(rows):
        for x in row:
            out[i, index[x]] += 1
    return out


def _id_reason(name: str, col: pd.Series) -> str | None:
    """Why column ``name`` holds item ids rather than vote counts, or None."""
    if not name.strip() or re.fullmatch(r"Unnamed: \d+", name):
        return "has no name (an index written by DataFrame.to_csv?)"
    low = name.strip().lower()
    if low in ID_NAMES or low.endswith(("_id", " id", "-id")) or name.endswith(("ID", "Id")):
        return "is named as item ids"
    num = pd.to_numeric(col, errors="coerce")
    if (len(col) >= _DISTINCT_ROWS and num.notna().all() and num.is_unique):
        return f"holds {len(col):,} distinct numbers, one per row (row numbers or ids?)"
    return None


def _count_columns(path: Path, columns) -> np.ndarray:
    """A CSV of per-label counts; id columns refused unless the count columns are named."""
    df = read_frame(path)
    if columns is not None:
        if isinstance(columns, str):
            raise ValueError(f"pilot columns must be a list of column names, got the string "
                             f"{columns!r}")
        columns = list(columns)
        twice = [c for i, c in enumerate(columns) if c in columns[:i]]
        if twice:
            raise ValueError(f"pilot columns: {twice[0]!r} is given twice in {columns!r}; name "
                             "each label's count column once")
        missing = [c for c in columns if c not in df.columns]
        if missing:
            raise ValueError(f"pilot CSV {path} has no column(s) {', '.join(missing)}; "
                             f"columns: {', '.join(map(str, df.columns))}")
        df = df[list(columns)]
        if df.shape[1] != df.select_dtypes("number").shape[1]:
            raise ValueError(f"pilot columns must hold vote counts (numbers), got "
                             f"{dict(df.dtypes.astype(str))}")
    num = df.select_dtypes("number")
    for c in df.columns.difference(num.columns, sort=False):  # text: ids, or a broken count
        cells = df[c].dropna()
        is_num = pd.to_numeric(cells, errors="coerce").notna().to_numpy()
        if is_num.any() and not is_num.all():
            row = int(np.flatnonzero(~is_num)[0])
            raise ValueError(f"pilot CSV {path}: column {c!r} mixes numbers and text "
                             f"({cells.iloc[row]!r} in data row {cells.index[row] + 1}); a "
                             "vote count is a whole number >= 0 (give the count columns with "
                             "columns=... to leave a text column out)")
    if columns is None:
        for j, c in enumerate(df.columns):
            why = _id_reason(str(c), df[c]) if c in num.columns else None
            if why:
                rest = [str(x) for x in num.columns if x != c]
                name = f"column {j + 1}" if not str(c).strip() or str(c).startswith("Unnamed:") \
                    else f"column {str(c)!r}"
                raise ValueError(f"pilot CSV {path}: {name} {why}, not a label's vote counts; "
                                 f"give the count columns (columns={rest!r}; on the command "
                                 f"line --pilot-columns {','.join(rest)})")
    if num.shape[1] < 2:
        raise ValueError(f"pilot CSV {path} needs one numeric vote-count column per label "
                         f"(>= 2), found {num.shape[1]}")
    return V.integer("pilot vote counts", num.to_numpy(), lo=0)
