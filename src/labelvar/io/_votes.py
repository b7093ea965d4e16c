"""The one votes reader: long votes (item, rater, label) checked once, as codes.

Every entry point that takes votes reads them here (:func:`read_votes`), so one set of
rules holds everywhere:

- **labels** are canonicalised once (:func:`labelvar.io._labels.canon`): ``1``,
  ``1.0`` and ``"1"`` are the label 1, booleans are 0/1, text is a label as written
  (stripped); two text labels differing only in case or spacing (``Yes``, ``yes``) are
  refused unless both are declared. Every label is of one kind: numbers and text mixed
  are refused unless ``labels=`` is declared, booleans never mix, and a label that is no
  finite number (``inf``) is refused. A missing label (empty, NaN, ``NA``) is no vote and
  refused.
- **a declared label set** (``labels=``): a vote outside it is refused, naming the label,
  its count and the fix; a declared label no vote uses is kept (zero counts).
- **an inferred label set** (no ``labels=``): a rare label that looks stray (``2`` among
  2,000 votes 0/1, ``0.5`` among integers) is refused, naming it, its count and the
  fix; more than 20 distinct integers (per-label counts read as votes?) too.
- **ids** (items and raters) are text exactly as written: ``0001`` stays ``0001``, and a
  file's id columns are read as text. Items keep the order in which they first occur;
  raters are sorted (by number when every id spells one, else as text).
- **one vote per (item, rater)**: two rows with different labels are refused naming the
  item and the rater; an exact repeat of a row (same item, rater and label) is refused
  as well (a copied row is not a second vote, and dropping it unseen could hide a
  concatenation error): drop repeats with ``DataFrame.drop_duplicates()`` first.
- empty input, missing columns (all of them named), a missing item or rater id: refused.

The work is vectorised (one factorisation per column; labels canonicalised per distinct
value, not per vote), so a million votes are read in a fraction of a second.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from labelvar._base import _validate as V
from labelvar._base._format import brief, result_html, short_repr
from labelvar.io import _csv, _labels
from labelvar.io._common import _no_repeated_columns, read_frame
from labelvar.io._labels import plain
from labelvar.io._reading import check_file, read_jsonl_records

#: file suffixes read as CSV/TSV, parquet and JSON (lines or one array of objects)
_TABLE, _PARQUET, _JSON = (".csv", ".tsv", ".tab", ".txt"), (".parquet", ".pq"), \
    (".jsonl", ".ndjson", ".json")


@dataclasses.dataclass(frozen=True, repr=False, eq=False)
class Votes:
    """Votes read by :func:`read_votes`: ids as text, labels canonical, each vote as codes.

    Attributes
    ----------
    items : pandas.Index
        Item ids as text, exactly as written, in order of first occurrence.
    raters : pandas.Index
        Rater ids as text, exactly as written, sorted (by number when every id spells one).
    labels : tuple
        The labels in canonical order: the declared ``labels=`` (unused ones kept), else
        the labels seen, numbers first in order, then text.
    item_code, rater_code, label_code : numpy.ndarray
        Per vote (the input's row order), int64 indices into ``items``, ``raters`` and
        ``labels``.
    codes : numpy.ndarray
        int64 (n_items, n_raters): index into ``labels``, -1 where the rater gave no vote.
    counts : numpy.ndarray
        int64 (n_items, len(labels)): votes per label.
    frame : pandas.DataFrame
        One row per vote: ``item``, ``rater`` (text) and ``label`` (canonical values).
    numeric : bool
        Every label is a finite number (scores on the labels' values are defined).
    values : numpy.ndarray
        float64, the labels' numeric values (NaN where a label is text).

    Examples
    --------
    >>> v = read_votes(pd.DataFrame({"item": ["0001", "0001", "0002"],
    ...                              "rater": ["a", "b", "a"], "label": ["1", 0.0, 1]}))
    >>> v
    Votes(items=2, raters=['a', 'b'], labels=(0, 1), votes=3)
    >>> v.codes.tolist(), v.counts.tolist()
    ([[1, 0], [1, -1]], [[1, 1], [0, 1]])
    """

    items: pd.Index
    raters: pd.Index
    labels: tuple
    item_code: np.ndarray
    rater_code: np.ndarray
    label_code: np.ndarray

    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.items)

    @property
    def n_votes(self) -> int:
        """Number of votes."""
        return int(self.label_code.size)

    @property
    def numeric(self) -> bool:
        """Every label is a finite number."""
        return all(_labels.kind(x) == "number" for x in self.labels)

    @property
    def values(self) -> np.ndarray:
        """The labels' numeric values (NaN where a label is text)."""
        return np.array([float(x) if _labels.kind(x) == "number" else np.nan
                         for x in self.labels], dtype=float)

    @functools.cached_property
    def codes(self) -> np.ndarray:
        """(n_items, n_raters) label codes, -1 where no vote (size checked first)."""
        n_i, n_r = len(self.items), len(self.raters)
        V.memory(f"the votes matrix of {n_i:,} items x {n_r:,} raters", 8.0 * n_i * n_r,
                 "use the per-vote codes (item_code, rater_code, label_code) instead")
        out = np.full((n_i, n_r), -1, dtype=np.int64)
        out[self.item_code, self.rater_code] = self.label_code
        return out

    @functools.cached_property
    def counts(self) -> np.ndarray:
        """(n_items, n_labels) votes per label."""
        n_l = len(self.labels)
        flat = np.bincount(self.item_code * n_l + self.label_code,
                           minlength=len(self.items) * n_l)
        return flat.astype(np.int64).reshape(len(self.items), n_l)

    @functools.cached_property
    def frame(self) -> pd.DataFrame:
        """One row per vote: item, rater, label (canonical)."""
        whole = all(isinstance(x, int) for x in self.labels)  # (else 1 would show as 1.0)
        lab = pd.Index(list(self.labels), dtype=np.int64 if whole else object)
        return pd.DataFrame({"item": self.items.take(self.item_code),
                             "rater": self.raters.take(self.rater_code),
                             "label": lab.take(self.label_code)})

    def align(self, x, *, field: str):
        """``x`` (keyed by item id) on :attr:`items`, matched by id text; NaN where absent.

        ``x`` is a Series or DataFrame indexed by item, or a mapping item -> value. Ids
        are compared as text exactly as written (``'0001'`` is not ``'1'``), never by
        position; an id given twice, or one that is not among the votes' items, is
        refused naming ``field``.

        Examples
        --------
        >>> v = read_votes(pd.DataFrame({"item": ["b", "a"], "rater": ["r", "r"],
        ...                              "label": [0, 1]}))
        >>> v.align({"a": 1, "b": 0}, field="gold").tolist()
        [0, 1]
        >>> v.align({"c": 1}, field="gold")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: gold: item id 'c' is not among the votes' 2 items (1 such id); ...
        """
        if isinstance(x, Mapping) and not isinstance(x, (pd.Series, pd.DataFrame)):
            x = pd.Series(dict(x), dtype=object if not len(x) else None)
        if not isinstance(x, (pd.Series, pd.DataFrame)):
            raise ValueError(f"{field}: give a pandas Series, DataFrame or mapping keyed by "
                             f"item id, got {type(x).__name__}")
        keys = pd.Index(_id_text(pd.Series(x.index, dtype=x.index.dtype), field, "item id"))
        dup = keys[keys.duplicated()]
        if len(dup):
            raise ValueError(f"{field}: item id {dup[0]!r} is given {int((keys == dup[0]).sum())} "
                             f"times; give each item once ({len(dup)} repeated ids)")
        unknown = keys[~keys.isin(self.items)]
        if len(unknown):
            raise ValueError(f"{field}: item id {unknown[0]!r} is not among the votes' "
                             f"{len(self.items):,} items ({len(unknown):,} such id"
                             f"{'s' if len(unknown) > 1 else ''}); ids are matched as text, "
                             "exactly as written ('0001' is not '1')")
        out = x.copy()
        out.index = keys
        return out.reindex(self.items)

    def _shown(self) -> dict:
        return {"items": len(self.items), "raters": list(self.raters), "labels": self.labels,
                "votes": self.n_votes}

    def __repr__(self) -> str:
        return short_repr("Votes", self._shown())

    def _repr_html_(self) -> str:
        return result_html("Votes", self._shown(), {"votes": self.frame})

    def describe(self) -> str:
        """One line: how many votes, items, raters and which labels."""
        return (f"{self.n_votes:,} votes by {len(self.raters):,} raters on "
                f"{len(self.items):,} items; labels {brief(list(self.labels))}")


def read_votes(data, *, item: str = "item", rater: str = "rater", label: str = "label",
               labels: Sequence | None = None) -> Votes:
    """Read long votes (one row per vote) and check them: the one way in for votes.

    Parameters
    ----------
    data : pandas.DataFrame, str or Path
        One row per vote; or a file: ``.csv``/``.tsv`` (``.tab``, ``.txt``),
        ``.parquet``, ``.jsonl`` (one object per vote) or ``.json`` (one array of
        objects). A :class:`Votes` is returned as it is (re-checked when ``labels`` is
        given).
    item, rater, label : str
        The column names (crowd-kit's are ``task``, ``worker``, ``label``).
    labels : sequence, optional
        The declared label set, in order (a string: comma separated). Votes outside it
        are refused; labels no vote uses are kept, with zero counts. Default: the
        labels seen, numbers first in order, then text.

    Returns
    -------
    Votes

    Raises
    ------
    ValueError
        One line naming the problem: no rows; missing columns (all named); a missing
        item, rater or label; labels of mixed kinds or no finite number; a label outside
        ``labels`` or, without it, one that looks stray; an (item, rater) pair voted
        twice (naming the item and the rater, with different labels or the same).

    Examples
    --------
    >>> df = pd.DataFrame({"item": ["1", "1", "2", "2"], "rater": ["a", "b"] * 2,
    ...                    "label": ["yes", "no", "yes", "yes"]})
    >>> v = read_votes(df, labels=["no", "yes", "unsure"])
    >>> v.labels, v.counts.tolist()
    (('no', 'yes', 'unsure'), [[1, 1, 0], [0, 2, 0]])
    >>> read_votes(df, labels=["no", "maybe"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: labels: the votes use 'yes' (3 of 4 votes), outside the declared labels ...
    """
    if isinstance(data, Votes):
        if labels is None:
            return data
        data, item, rater, label = data.frame, "item", "rater", "label"
    df, where = _table(data, item, rater)
    names = [item, rater, label]
    if len(set(names)) < 3:
        raise ValueError(f"item={item!r}, rater={rater!r} and label={label!r} must name three "
                         "different columns")
    missing = [f"{c!r} ({role}=)" for c, role in zip(names, ("item", "rater", "label"),
                                                      strict=True) if c not in df.columns]
    if missing:
        raise ValueError(f"data: no column {', '.join(missing)} in {where}; its columns are "
                         f"{brief([plain(c) for c in df.columns])}")
    if len(df) == 0:
        raise ValueError(f"data: {where} has no rows; give at least one vote")
    lab = None if labels is None else _declared(labels)
    icode, item_ids = _id_codes(df[item], "data", f"an item id (column {item!r})", where)
    rcode, rater_ids = _sorted_codes(*_id_codes(df[rater], "data",
                                                f"a rater id (column {rater!r})", where))
    lcode, lab = _label_codes(df[label], lab, label, where)
    _one_vote(icode, rcode, lcode, item_ids, rater_ids, lab, where)
    return Votes(items=pd.Index(item_ids, name="item"), raters=pd.Index(rater_ids, name="rater"),
                 labels=tuple(lab), item_code=icode, rater_code=rcode, label_code=lcode)


# --------------------------------------------------------------------------- input
def _table(data, item: str, rater: str) -> tuple[pd.DataFrame, str]:
    """The votes as a DataFrame, and how to name it in messages."""
    if isinstance(data, pd.DataFrame):
        _no_repeated_columns(data, "data")
        return data, "the table"
    if not isinstance(data, (str, os.PathLike)):
        raise ValueError("data: give a pandas DataFrame with one row per vote or the path of a "
                         f"votes file (.csv, .tsv, .parquet, .jsonl, .json), got "
                         f"{type(data).__name__}")
    path = Path(data)
    suffix = path.suffix.lower()
    if suffix in _csv._COMPRESSED and len(path.suffixes) > 1 \
            and path.suffixes[-2].lower() in _TABLE:  # votes.csv.gz: pandas decompresses
        suffix = path.suffixes[-2].lower()
    if suffix in _TABLE:
        return read_frame(path, text=[item, rater]), str(path)
    check_file(path)
    if suffix in _PARQUET:
        try:
            df = pd.read_parquet(path)
        except (OSError, ValueError) as exc:  # (pyarrow's ArrowInvalid is a ValueError)
            raise ValueError(f"data: cannot read {path} as parquet "
                             f"({' '.join(str(exc).split())[:160]})") from None
        _no_repeated_columns(df, str(path))
        return df, str(path)
    if suffix in _JSON:
        lines: list = []
        records = read_jsonl_records(path, lines)
        bad = next((k for k, r in enumerate(records) if not isinstance(r, dict)), None)
        if bad is not None:
            raise ValueError(f"data: {path}:{lines[bad]}: expected one JSON object per vote "
                             f"({item}, {rater}, label), got {type(records[bad]).__name__}")
        df = pd.DataFrame.from_records(records) if records else pd.DataFrame()
        return df.astype(object), str(path)
    raise ValueError(f"data: cannot tell the format of {path} from its suffix; use .csv, .tsv, "
                     ".parquet, .jsonl or .json (or read it into a DataFrame)")


def _id_text(col: pd.Series, field: str, what: str, where: str = "the ids") -> pd.Series:
    """Ids as text exactly as written; a missing id refused."""
    _no_missing_id(col, field, what, where)
    return _csv.as_text(col.reset_index(drop=True))


def _id_codes(col: pd.Series, field: str, what: str, where: str) -> tuple[np.ndarray, pd.Index]:
    """Per row a code into the distinct ids, and those ids as text (as :func:`_id_text`).

    The values are factorised first and only the distinct ones turned into text (two
    values of one text, ``1`` and ``"1"`` in one column, are then one id).
    """
    _no_missing_id(col, field, what, where)
    codes, uniq = pd.factorize(col.reset_index(drop=True))
    text = _csv.as_text(pd.Series(uniq))
    again, ids = pd.factorize(text)
    if len(ids) < len(text):
        codes = again[codes]
    return codes.astype(np.int64), pd.Index(ids)


def _no_missing_id(col: pd.Series, field: str, what: str, where: str) -> None:
    blank = col.isna().to_numpy()
    if blank.any():
        first = int(np.flatnonzero(blank)[0]) + 1
        raise ValueError(f"{field}: {int(blank.sum()):,} row(s) of {where} have no {what} "
                         f"(first: data row {first}); every vote needs one")


def _sorted_codes(codes: np.ndarray, uniques) -> tuple[np.ndarray, pd.Index]:
    """Factorisation codes re-numbered so that ids are sorted (by number when all spell one)."""
    ids = pd.Index(uniques)
    num = pd.to_numeric(pd.Series(ids, dtype=object), errors="coerce").to_numpy(dtype=float)
    text = [str(x) for x in ids]
    if np.isfinite(num).all():
        order = sorted(range(len(ids)), key=lambda k: (num[k], text[k]))
    else:
        order = sorted(range(len(ids)), key=text.__getitem__)
    rank = np.empty(len(ids), dtype=np.int64)
    rank[order] = np.arange(len(ids))
    return rank[codes], ids.take(order)


# --------------------------------------------------------------------------- labels
def _declared(labels) -> list:
    """The declared label set, canonical; each label once, finite, one kind unless mixed."""
    if isinstance(labels, str):
        labels = [x for x in labels.split(",") if x.strip()]
    if isinstance(labels, Mapping):
        raise ValueError("labels: give a list of labels, e.g. labels=[0, 1], got a mapping "
                         "(a map old -> new is a recode)")
    try:
        labels = list(labels)
    except TypeError:
        raise ValueError(f"labels: give a list of labels, e.g. labels=[0, 1], got "
                         f"{type(labels).__name__}") from None
    if not labels:
        raise ValueError("labels: the declared label set is empty; name at least one label")
    lab = _labels.declared(labels)
    bad = [x for x in labels if _labels.kind(x) == "non-finite"]
    if bad:
        raise ValueError(f"labels: {plain(bad[0])!r} is no label (a label is text or a finite "
                         "number)")
    return lab


def _distinct_values(col: pd.Series) -> tuple[np.ndarray, list]:
    """Per vote a code into the distinct values (-1: missing), and those values.

    Booleans are kept apart from numbers (hashing would make ``True`` and ``1`` one value).
    """
    if isinstance(col.dtype, pd.CategoricalDtype):
        return col.array.codes.astype(np.int64), list(col.cat.categories)
    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "iu" and len(col):
        values = col.to_numpy()  # whole numbers of a small range: counted, not hashed
        lo, hi = int(values.min()), int(values.max())
        if hi - lo <= 4 * len(values) + 1024:
            at = (values - lo).astype(np.intp)
            present = np.bincount(at, minlength=hi - lo + 1) > 0
            codes = (np.cumsum(present) - 1)[at]
            return codes.astype(np.int64), (lo + np.flatnonzero(present)).tolist()
    arr = col.to_numpy(dtype=object) if col.dtype == object else col
    is_bool = None
    if col.dtype == object:
        inferred = pd.api.types.infer_dtype(arr, skipna=True)
        if inferred in ("mixed", "mixed-integer", "unknown-array"):
            is_bool = np.fromiter((isinstance(x, (bool, np.bool_)) for x in arr), bool, arr.size)
            if not is_bool.any():
                is_bool = None
    try:
        if is_bool is None:
            codes, uniq = pd.factorize(arr, use_na_sentinel=True)
            return codes.astype(np.int64), list(uniq)
        codes, uniq = pd.factorize(np.where(is_bool, None, arr), use_na_sentinel=True)
        bcodes, buniq = pd.factorize(arr[is_bool])
        codes = codes.astype(np.int64)
        codes[is_bool] = bcodes + len(uniq)
        return codes, list(uniq) + [bool(x) for x in buniq]
    except TypeError:  # unhashable cells (lists, dicts)
        k = next(i for i, x in enumerate(col.to_numpy(dtype=object))
                 if isinstance(x, (list, dict, set)))
        raise ValueError(f"data: the label in data row {k + 1} is a {type(col.iloc[k]).__name__}, "
                         "not a label; a label is text, a number or a boolean") from None


def _label_codes(col: pd.Series, lab: list | None, name: str, where: str):
    """Per vote the index of its canonical label, and the label set (checked)."""
    codes, uniq = _distinct_values(col.reset_index(drop=True))
    canon = [_labels.canon(u) for u in uniq]
    kinds = [_labels.kind(u) for u in uniq]
    n = np.bincount(codes[codes >= 0], minlength=len(uniq)) if len(uniq) else np.zeros(0, int)
    total = codes.size

    def first_row(ks) -> int:
        return int(np.flatnonzero(np.isin(codes, ks))[0]) + 1

    gone = [k for k, c in enumerate(canon) if c is None]
    n_missing = int((codes < 0).sum()) + int(n[gone].sum())
    if n_missing:
        raise ValueError(f"data: {n_missing:,} of {total:,} rows of {where} have no label "
                         f"(column {name!r}, first: data row {first_row(gone + [-1])}); a "
                         "missing label is no vote: drop those rows")
    by_kind: dict = {}
    for k, kd in enumerate(kinds):
        by_kind.setdefault(kd, []).append(k)
    if "non-finite" in by_kind:
        ks = by_kind["non-finite"]
        raise ValueError(f"data: label {plain(uniq[ks[0]])!r} in {int(n[ks].sum()):,} of "
                         f"{total:,} votes of {where} (first: data row {first_row(ks)}) is no "
                         "finite number; a label is text or a finite number: correct or drop "
                         "those votes (or recode them)")
    mixed = len(by_kind) > 1 and ("boolean" in by_kind or lab is None)
    if mixed:
        ranked = sorted(by_kind, key=lambda kd: -int(n[by_kind[kd]].sum()))
        odd, common = by_kind[ranked[-1]], by_kind[ranked[0]]
        hint = ("booleans do not mix with other labels" if "boolean" in by_kind else
                "correct them, or declare the label set (labels=[...]) if both are labels")
        raise ValueError(f"data: the labels of {where} mix {ranked[0]} ({plain(uniq[common[0]])!r}"
                         f", ...) and {ranked[-1]}: {plain(uniq[odd[0]])!r} in "
                         f"{int(n[odd].sum()):,} of {total:,} votes (first: data row "
                         f"{first_row(odd)}); {hint}")
    seen: dict = {}
    for c, k in zip(canon, n.tolist(), strict=True):
        seen[c] = seen.get(c, 0) + k
    _one_spelling(seen, lab or (), where)
    if lab is None:
        lab = sorted(seen, key=_labels.sort_key)
        if _labels.looks_like_counts(lab):
            raise ValueError(f"data: the votes of {where} hold {len(lab)} distinct integers "
                             f"({lab[0]} to {lab[-1]}): these look like per-label counts, not "
                             "votes; give one row per vote, or declare the label set "
                             "(labels=[...])")
        x = _labels.stray_label(seen, total)
        if x is not None:
            rest = [y for y in lab if y != x]
            raise ValueError(f"data: label {x!r} occurs in {seen[x]:,} of {total:,} votes of "
                             f"{where} ({100 * seen[x] / total:.2f} %), which looks like a "
                             f"stray value among {_labels.fmt_labels(rest)}; correct or drop "
                             f"those votes (or recode them), or declare labels="
                             f"{_labels.fmt_labels(lab)} if it is a label")
    else:
        out = sorted((x for x in seen if x not in lab), key=_labels.sort_key)
        if out:
            n_out = sum(seen[x] for x in out)
            some = ", ".join(f"{x!r} ({seen[x]:,} of {total:,} votes)" for x in out[:5])
            raise ValueError(f"labels: the votes use {some}{', ...' if len(out) > 5 else ''}, "
                             f"outside the declared labels {_labels.fmt_labels(lab)} "
                             f"({n_out:,} vote{'s' if n_out > 1 else ''} in all); add "
                             f"{'them' if len(out) > 1 else 'it'}"
                             " to labels=[...], or correct, drop or recode those votes")
    pos = {x: k for k, x in enumerate(lab)}
    table = np.array([pos[c] for c in canon], dtype=np.int64)
    return table[codes], lab


def _one_spelling(seen: dict, declared, where: str) -> None:
    """Refuse two text labels differing only in case or spacing, unless both are declared."""
    first: dict = {}
    for x in sorted(seen, key=lambda y: -seen[y]):
        if not isinstance(x, str):
            continue
        y = first.setdefault("".join(x.split()).casefold(), x)
        if y != x and not (x in declared and y in declared):
            raise ValueError(f"data: labels {y!r} and {x!r} of {where} differ only in case or "
                             f"spacing ({seen[y]:,} and {seen[x]:,} votes): one label spelt two "
                             f"ways? correct or recode the {seen[x]:,} (or declare both, "
                             f"labels=[...], if they are two labels)")


# --------------------------------------------------------------------------- one vote each
def _one_vote(icode, rcode, lcode, items, raters, labels, where: str) -> None:
    """Refuse an (item, rater) pair voted twice: different labels, or one row repeated."""
    key = icode * len(raters) + rcode
    ordered = np.sort(key)
    if not (ordered[1:] == ordered[:-1]).any():  # (the common case, by sorting: no hash table)
        return
    dup = pd.Series(key).duplicated(keep=False).to_numpy()
    rows = np.flatnonzero(dup)
    pairs = pd.DataFrame({"key": key[rows], "label": lcode[rows], "row": rows})
    distinct = pairs.drop_duplicates(["key", "label"])
    conflict = distinct[distinct["key"].duplicated(keep=False)]
    if len(conflict):
        k = conflict["key"].iloc[np.argmin(conflict["row"].to_numpy())]
        labs = conflict.loc[conflict["key"] == k].sort_values("row")["label"].tolist()
        n_pairs = conflict["key"].nunique()
        raise ValueError(f"data: item {items[k // len(raters)]!r} has votes from rater "
                         f"{raters[k % len(raters)]!r} with different labels "
                         f"({', '.join(repr(labels[x]) for x in labs)}) in {where} "
                         f"({n_pairs:,} such (item, rater) pair{'s' if n_pairs > 1 else ''}); "
                         "give one vote per item and rater (a repeat by the same rater: keep "
                         "one, or give it its own rater id)")
    k = key[rows[0]]
    times = int((key[rows] == k).sum())
    n_extra = len(rows) - pairs["key"].nunique()
    raise ValueError(f"data: the vote of rater {raters[k % len(raters)]!r} on item "
                     f"{items[k // len(raters)]!r} ({labels[lcode[rows[0]]]!r}) is given "
                     f"{times} times in {where} ({n_extra:,} repeated row"
                     f"{'s' if n_extra > 1 else ''} in all); a copied row is not a second vote: "
                     "drop the repeats (DataFrame.drop_duplicates()) if they are copies")
