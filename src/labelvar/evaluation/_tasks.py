"""Reading one task's panel and predictions into label codes (used by :func:`labelvar.stratify`).

Label values are checked as every input's are (:func:`labelvar.io._labels.check_table`:
one kind per task, no ``inf``, unless a label set is declared), canonicalised once per
distinct value (:func:`labelvar.io._labels.canon`) and factorised into small integer codes;
the declared or inferred label set is checked (stray values, integer lists that look
like counts: :mod:`labelvar.io._labels`), count vectors are whole numbers (an empty count
is refused, not read as 0); the majority label and its tie rule, the observed agreement
and the items left out are computed once, into a :class:`_Task`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from labelvar.io import _labels, _scales
from labelvar.io._labels import canon, declared, match_label, plain, sort_key
from labelvar.votes import _panel


def _small_int(n_values: int):
    """The smallest signed integer dtype holding codes -1 .. n_values - 1."""
    for dt in (np.int8, np.int16, np.int32):
        if n_values <= np.iinfo(dt).max:
            return dt
    return np.int64


#: at most this many labels per task (a confusion matrix is L x L per rater and bin)
MAX_LABELS = 2000
#: items handled at a time by the per-item steps (bounded temporaries on large panels)
BLOCK = 1 << 18


def _blocks(n: int) -> list[slice]:
    """Slices of :data:`BLOCK` items covering ``n`` items."""
    return [slice(s, s + BLOCK) for s in range(0, n, BLOCK)]


def _lookup(table: np.ndarray, codes: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``table[codes]`` (into ``out``), a block of items at a time: -1 picks the last slot."""
    out = np.empty(codes.shape, dtype=table.dtype) if out is None else out
    for b in _blocks(codes.shape[0]):
        out[b] = table[codes[b]]
    return out


def _tally(codes: np.ndarray, n_values: int) -> np.ndarray:
    """How often each code 0 .. n_values - 1 occurs in 1-d ``codes`` (-1 not counted)."""
    out = np.zeros(n_values + 1, dtype=np.int64)
    for b in _blocks(codes.shape[0]):
        out += np.bincount(codes[b].astype(np.intp) + 1, minlength=n_values + 1)
    return out[1:]


def _canonical_codes(raw: np.ndarray, uniq) -> tuple[np.ndarray, list]:
    """Codes of ``raw`` (codes into ``uniq``, -1 missing) into the canonical labels of ``uniq``.

    Distinct values that canonicalise to one label (``"1"`` and ``1``) get one code.
    """
    found = [canon(x) for x in np.asarray(uniq, dtype=object)]
    index: dict = {}
    remap = np.full(len(found) + 1, -1, dtype=_small_int(len(found)))  # last slot: NA
    for i, c in enumerate(found):
        if c is not None:
            remap[i] = index.setdefault(c, len(index))
    return _lookup(remap, raw), list(index)


def _categorical_codes(column) -> tuple[np.ndarray, pd.Index]:
    """``pd.factorize`` of a categorical: its stored codes renumbered by first appearance.

    The values that occur, in order of appearance, found a block of items at a time
    (no int64 code per item).
    """
    cat = column.array if isinstance(column, pd.Series) else column
    codes, n = np.asarray(cat.codes), len(cat)
    first = np.full(len(cat.categories), n, dtype=np.int64)
    for b in _blocks(n):
        seen, at = np.unique(codes[b], return_index=True)
        ok = seen >= 0
        first[seen[ok]] = np.minimum(first[seen[ok]], at[ok] + b.start)
    order = np.argsort(first, kind="stable")[:int((first < n).sum())]
    rank = np.full(len(first) + 1, -1, dtype=_small_int(len(first)))  # last slot: NA
    rank[order] = np.arange(order.size)
    return _lookup(rank, codes), cat.categories[order]


def _factorize(column) -> tuple[np.ndarray, list]:
    """Codes (-1: missing) and canonical labels of a 1-d column, canonicalising each distinct value once.

    Equal to :func:`~labelvar.io._labels.canon` cell by cell (distinct raw values that
    canonicalise to one label, ``"1"`` and ``1``, get one code); pandas' missing values
    (NaN, None, NA) are missing; labels in order of appearance. Unhashable cells fall
    back to :func:`~labelvar.io._labels.canon` per cell. The codes come in the smallest
    integer dtype that holds them.
    """
    if isinstance(getattr(column, "dtype", None), pd.CategoricalDtype):
        return _canonical_codes(*_categorical_codes(column))
    try:
        raw, uniq = pd.factorize(column, use_na_sentinel=True)
    except TypeError:  # unhashable cells (lists, ...): one by one
        raw, uniq = pd.factorize(np.array([canon(x) for x in np.asarray(column, dtype=object)
                                           .ravel()], dtype=object), use_na_sentinel=True)
    return _canonical_codes(raw, uniq)


def _factorize_table(pdf: pd.DataFrame) -> tuple[np.ndarray, list, np.ndarray]:
    """Codes (items x columns, -1 missing) into one list of canonical labels, and each label's votes.

    Column by column, into one array of the smallest integer dtype (widened when a
    column brings more labels): the table is held once, as small codes.
    """
    n_items, n_cols = pdf.shape
    index: dict = {}
    votes = np.zeros(0, dtype=np.int64)
    codes = np.empty((n_items, n_cols), dtype=np.int8)
    for j in range(n_cols):
        raw, found = _factorize(pdf.iloc[:, j])
        to_global = [index.setdefault(c, len(index)) for c in found]
        dt = _small_int(len(index))
        if np.dtype(dt).itemsize > codes.dtype.itemsize:
            codes = codes.astype(dt)
        _lookup(np.array(to_global + [-1], dtype=dt), raw, out=codes[:, j])
        votes = np.concatenate([votes, np.zeros(len(index) - votes.size, dtype=np.int64)])
        np.add.at(votes, to_global, _tally(raw, len(found)))
    return codes, list(index), votes


@dataclass
class _Task:
    name: str
    labels: list
    codes: np.ndarray | None  # items x panel, -1 missing (None: nothing draws from them)
    counts: np.ndarray        # items x L
    k: np.ndarray             # votes per item
    majority: np.ndarray      # code per item
    top: np.ndarray           # votes for the majority label per item
    preds: dict               # name -> codes per item (kept items)
    pos_label: int | None     # code of the positive label (binary F1), None -> macro-F1
    excluded: dict
    inputs: dict              # what was read: items, raters, votes per item, labels, systems
    probs: dict = field(default_factory=dict)  # name -> items x L probabilities (kept items)
    values: np.ndarray | None = None           # numeric value of each label (ordinal), else None
    posterior: np.ndarray | None = None        # Dawid-Skene: posterior of the label per item
    tied: np.ndarray | None = None             # items whose majority the tie rule chose
    tie_rule: str = "random"
    humans: tuple = ()                         # the evaluated raters forming H
    raters: tuple = ()                         # the panel's raters (columns), () for counts
    raters_identified: bool = True             # panel columns are the same rater on every item

    def agreement(self, idx=slice(None)) -> np.ndarray:
        """Observed agreement of the items ``idx``: top count / K (Dawid-Skene: the posterior).

        Computed when asked (a float per item costs 8 bytes; the counts 1-2).
        """
        if self.posterior is not None:
            return self.posterior[idx]
        return self.top[idx] / self.k[idx]


@dataclass(frozen=True)
class _Roles:
    humans: tuple
    counts: bool
    labels: tuple | None
    raters_identified: bool


def task_roles(task: str, td, *, humans, panel_counts, labels) -> _Roles:
    """The roles of one task: what its data says and what the call says.

    The data's are a :class:`labelvar.io.TaskData`'s ``humans``, ``counts``, ``labels``
    and ``raters_identified``. An argument left at its default takes the data's value;
    one that contradicts it is refused in one line (``humans`` naming, among this task's
    raters, others than the data's; ``panel_counts=False`` for data of counts; ``labels``
    other than the data's).
    """
    d_humans = tuple(map(str, getattr(td, "humans", ()) or ()))
    d_counts = getattr(td, "counts", None)
    d_labels = getattr(td, "labels", None)
    preds, probs = td[1], (td[2] if len(td) > 2 else None)
    named = [str(c) for c in (preds.columns if isinstance(preds, pd.DataFrame) else
                              (preds or {}))] + [str(c) for c in (probs or {})]
    if humans and d_humans:
        given = [h for h in humans if h in named]
        if set(given) != set(d_humans):
            raise ValueError(f"humans: task {task!r} was loaded with humans "
                             f"{', '.join(d_humans)}, but humans= names "
                             f"{', '.join(given) or 'none of its raters'}; give the same or "
                             "leave humans= out (the data's roles are used)")
    out_humans = tuple(humans) if humans else d_humans
    # TaskData.counts defaults to False, which cannot tell "votes" from "not said": only a
    # data saying counts contradicts an explicit panel_counts=False
    if d_counts and panel_counts is not None and not panel_counts:
        raise ValueError(f"panel_counts: task {task!r} was loaded with per-label vote counts, "
                         "but panel_counts=False; leave panel_counts out (the data's roles "
                         "are used)")
    counts = bool(d_counts) if panel_counts is None else bool(panel_counts)
    if labels is not None and d_labels is not None and [canon(x) for x in declared(labels)] \
            != [canon(x) for x in declared(d_labels)]:
        raise ValueError(f"labels: task {task!r} was loaded with labels "
                         f"{[plain(x) for x in d_labels]!r}, but labels= gives "
                         f"{[plain(x) for x in declared(labels)]!r}; give the same or leave "
                         "labels out")
    out_labels = labels if labels is not None else d_labels
    return _Roles(out_humans, counts, None if out_labels is None else tuple(out_labels),
                  bool(getattr(td, "raters_identified", True)))


def first_vote(votes: np.ndarray, is_top: np.ndarray) -> np.ndarray:
    """Per item, the first vote (in column order) for one of its top labels.

    ``votes``: items x votes label codes (-1 missing), in the panel's rater order;
    ``is_top``: items x L, the labels sharing the top count. This is the paper's code's
    rule (``Counter(votes).most_common(1)``: among tied labels the one first seen).
    """
    ok = votes >= 0
    hit = ok & np.take_along_axis(is_top, np.where(ok, votes, 0).astype(np.intp), axis=1)
    at = hit.argmax(axis=1)
    return votes[np.arange(votes.shape[0]), at]


def _as_panel(panel) -> pd.DataFrame:
    if isinstance(panel, pd.DataFrame):
        dup = panel.columns[panel.columns.duplicated()]
        if len(dup):
            raise ValueError(f"panel: column {plain(dup[0])!r} occurs more than once; give each "
                             "rater (or label count) one column")
        dup = panel.index[panel.index.duplicated()]
        if len(dup):
            raise ValueError(f"panel: item id {plain(dup[0])!r} occurs more than once in the "
                             f"index ({len(dup)} repeated); give each item one row")
        return panel
    arr = np.asarray(panel, dtype=object)
    if arr.ndim != 2:
        raise ValueError(f"panel must be a 2-d table (items x annotators), got shape {arr.shape}")
    return pd.DataFrame(arr, columns=[f"a{j + 1}" for j in range(arr.shape[1])])


def _ids(values, n: int = 3) -> str:
    """A few ids, quoted, for a message."""
    vals = list(values)
    text = ", ".join(repr(plain(x)) for x in vals[:n])
    return text + (", ..." if len(vals) > n else "")


def _align(obj, items: pd.Index, what: str):
    """A pandas input put on the panel's items by its index (ids); others as they are.

    A Series or DataFrame is matched to ``items`` by id: its index must hold each
    panel item exactly once (duplicates, ids the panel lacks and panel items it lacks
    are refused, naming a few); a list or array is positional (panel order).
    """
    if not isinstance(obj, (pd.Series, pd.DataFrame)) or obj.index.equals(items):
        return obj
    index = obj.index
    if not index.is_unique:
        dup = index[index.duplicated()].unique()
        raise ValueError(f"{what}: its index does not match the panel's item ids: "
                         f"{len(dup):,} id(s) occur more than once ({_ids(dup)}); give one "
                         "value per item")
    if not items.is_unique:
        raise ValueError(f"{what}: cannot be matched by id, the panel's item ids are not "
                         "unique; give a list or array in panel order")
    at = index.get_indexer(items)
    lacking = at < 0
    extra = len(index) - int((~lacking).sum())
    if lacking.any() or extra:
        parts = []
        if lacking.any():
            parts.append(f"{int(lacking.sum()):,} panel item(s) it has no entry for "
                         f"({_ids(items[lacking])})")
        if extra:
            parts.append(f"{extra:,} id(s) the panel does not have "
                         f"({_ids(index.difference(items, sort=False))})")
        raise ValueError(f"{what}: its index does not match the panel's item ids: "
                         + "; ".join(parts) + " (a Series/DataFrame is matched by its "
                         "index; give one entry per panel item, NaN where there is none, "
                         "or a list/array in panel order)")
    return obj.iloc[at]


def _as_predictions(predictions, items: pd.Index, task: str) -> dict:
    """Predictions per rater on the panel's items: pandas by index, arrays in panel order."""
    n_items = len(items)
    if predictions is None:
        return {}
    if isinstance(predictions, pd.DataFrame):
        predictions = _align(predictions, items, f"predictions of task {task!r}")
        items_ = {str(c): predictions[c] for c in predictions.columns}
    elif isinstance(predictions, Mapping):
        items_ = {str(k): _align(val, items, f"predictions[{str(k)!r}] (task {task!r})")
                  for k, val in predictions.items()}
    else:
        raise ValueError("predictions must be a mapping system -> labels or a DataFrame, "
                         f"got {type(predictions).__name__}")
    out = {}
    for name, vals in items_.items():
        if isinstance(vals, pd.DataFrame):
            if vals.shape[1] != 1:
                raise ValueError(f"predictions[{name!r}] (task {task!r}) is a table of "
                                 f"{vals.shape[1]} columns; give one label per item")
            vals = vals.iloc[:, 0]
        if isinstance(vals, np.ndarray):
            arr = vals.ravel()
        elif isinstance(vals, (pd.Series, pd.Index, pd.api.extensions.ExtensionArray)):
            arr = vals  # as stored (e.g. label codes of a categorical), not as objects
        else:  # a list: one Python object per label, whatever their kinds
            arr = np.asarray(vals, dtype=object).ravel()
        if arr.shape[0] != n_items:
            raise ValueError(f"predictions[{name!r}] has {arr.shape[0]} labels but the panel "
                             f"has {n_items} items; give one label per item, in panel order")
        out[name] = arr
    return out


def _vote_counts(task: str, pdf: pd.DataFrame, labels, notes: list):
    """Votes (items x raters) -> (label set, codes, counts, labels seen with their votes)."""
    n_items, n_cols = pdf.shape
    if n_cols < 2:
        raise ValueError(f"panel of task {task!r} must have at least 2 annotators "
                         f"(agreement is undefined for a single vote), got {n_cols} column")
    codes, found, seen_n = _factorize_table(pdf)  # codes into ``found``, -1 missing
    if not found:
        raise ValueError(f"panel of task {task!r} has no votes (every cell is missing)")
    seen: dict = {x: int(c) for x, c in zip(found, seen_n, strict=True)}
    total = sum(seen.values())
    _labels.check_spellings(task, seen, None if labels is None else declared(labels))
    if labels is not None:  # rare values outside the declared set: missing, with a note
        lab = declared(labels)
        _labels.check_declared(task, seen, total, lab, notes)
    else:
        _labels.check_inferred(task, seen, total)
        lab = [0, 1] if set(seen) <= {0, 1} else sorted(seen, key=sort_key)
    index = {x: i for i, x in enumerate(lab)}
    dt = _small_int(len(lab))
    if np.dtype(dt).itemsize > codes.dtype.itemsize:
        codes = codes.astype(dt)
    to_code = np.array([index.get(x, -1) for x in found] + [-1], dtype=codes.dtype)
    if not np.array_equal(to_code[:-1], np.arange(len(found))):
        for j in range(n_cols):  # in place, a column at a time
            _lookup(to_code, codes[:, j], out=codes[:, j])
    if codes.dtype.itemsize > np.dtype(dt).itemsize:
        codes = codes.astype(dt)
    return lab, codes, _code_counts(codes, len(lab)), n_cols


def _code_counts(codes: np.ndarray, n_labels: int) -> np.ndarray:
    """Votes per item and label (items x L) of items x raters codes (-1 missing).

    In the smallest integer dtype holding the number of raters.
    """
    n_items, n_raters = codes.shape
    counts = np.zeros((n_items, n_labels), dtype=_small_int(n_raters))
    if n_labels <= 16:
        for b in _blocks(n_items):
            for c in range(n_labels):
                counts[b, c] = (codes[b] == c).sum(axis=1, dtype=counts.dtype)
        return counts
    for j in range(n_raters):
        ok = codes[:, j] >= 0
        np.add.at(counts, (np.flatnonzero(ok), codes[ok, j].astype(np.int64)), 1)
    return counts


def _count_matrix(task: str, pdf: pd.DataFrame, labels):
    """Per-label vote counts (items x L, columns in label order) -> (labels, codes, counts)."""
    n_items, n_cols = pdf.shape
    lab = declared(labels if labels is not None else
                    (list(pdf.columns) if not isinstance(pdf.columns, pd.RangeIndex)
                     else range(n_cols)))
    if len(lab) != n_cols:
        raise ValueError(f"panel counts of task {task!r} have {n_cols} columns but labels "
                         f"names {len(lab)}: give one label per count, in count order")
    vals = pdf.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    # an empty or NaN count is refused, not read as 0 (is it 0, or was the item not done?)
    bad = ~np.isfinite(vals) | (vals < 0) | (vals != np.round(vals))
    if bad.any():
        i, j = np.argwhere(bad)[0]
        cell = pdf.iat[i, j]
        if canon(cell) is None:  # empty, NaN, None, "NA", ...
            raise ValueError(f"panel counts of task {task!r}: item {plain(pdf.index[i])!r} has "
                             f"no count for label {lab[j]!r} (an empty or NaN cell; "
                             f"{int(bad.sum()):,} bad cell(s) in all); counts are whole numbers "
                             ">= 0: write 0 for a label nobody chose, and leave out the items "
                             "nobody labelled")
        raise ValueError(f"panel counts of task {task!r}: item {plain(pdf.index[i])!r} has "
                         f"{plain(cell)!r} for label {lab[j]!r}; counts are whole numbers >= 0")
    counts = vals.astype(np.int64)
    k = counts.sum(axis=1)
    # the votes, label by label (what H' and the rater bootstrap draw from)
    kmax = int(k.max()) if k.size else 0
    if n_items * kmax > 50_000_000:
        raise ValueError(f"panel counts of task {task!r}: {kmax:,} votes per item x "
                         f"{n_items:,} items is too many to draw from (limit 5e7)")
    codes = np.full((n_items, kmax), -1, dtype=_small_int(len(lab)))
    for i in range(n_items):
        codes[i, :k[i]] = np.repeat(np.arange(len(lab)), counts[i])
    return lab, codes, counts


#: a row of probabilities summing to within this of 1 is used as given (float rounding)
SUM_EXACT = 1e-6
#: ... within this of 1 it is normalised, with a note (probabilities rounded to 2-3 decimals)
SUM_ROUNDED = 0.01


def _as_probabilities(task: str, probabilities, lab: list, pos_code, items: pd.Index,
                      notes: list) -> dict:
    """Probability outputs as items x L arrays in label-code order (NaN rows: missing).

    A Series or DataFrame is matched to the panel's items by its index (:func:`_align`),
    arrays and lists are in panel order. Every probability is finite and in [0, 1]; a
    row of L probabilities sums to 1 (within :data:`SUM_EXACT`; within
    :data:`SUM_ROUNDED` it is normalised, with a note; further off it is refused).
    """
    n_items = len(items)
    out = {}
    for name, val in (probabilities or {}).items():
        where = f"probabilities[{name!r}] (task {task!r})"
        val = _align(val, items, where)
        if isinstance(val, pd.DataFrame) and val.shape[1] == 1:
            val = val.iloc[:, 0]
        if isinstance(val, pd.DataFrame):
            cols = [match_label(c, lab, f"{where} column") for c in val.columns]
            arr = np.full((len(val), len(lab)), np.nan)
            for j, c in enumerate(cols):
                arr[:, lab.index(c)] = _labels.probability_column(val.iloc[:, j], where)
        else:
            raw = val.to_numpy() if isinstance(val, pd.Series) else val
            if len(raw) and isinstance(raw[0], (list, tuple, np.ndarray)):
                raw = [r if isinstance(r, (list, tuple, np.ndarray)) else [np.nan] * len(lab)
                       for r in raw]
            arr = np.asarray(raw, dtype=float)
        single = arr.ndim == 1
        if single and (pos_code is None or len(lab) != 2):
            raise ValueError(f"{where}: one probability per item is the positive class's "
                             "of a binary task; give one column per label")
        if arr.ndim not in (1, 2) or len(arr) != n_items:
            raise ValueError(f"{where} has shape {arr.shape}; expected ({n_items}, {len(lab)}): "
                             "one row per panel item, one column per label")
        flat = arr.reshape(len(arr), -1)
        bad = np.isinf(flat) | (flat < -1e-12) | (flat > 1 + 1e-12)  # NaN: missing
        if bad.any():
            i, j = np.argwhere(bad)[0]
            lab_j = lab[pos_code] if single else lab[min(j, len(lab) - 1)]
            raise ValueError(f"{where}: item {plain(items[i])!r} has {float(flat[i, j])!r} for "
                             f"label {plain(lab_j)!r} ({int(bad.any(axis=1).sum()):,} item(s) "
                             "with such values); probabilities are finite numbers in [0, 1]")
        if single:
            p1 = arr
            arr = np.empty((arr.size, 2))
            arr[:, pos_code], arr[:, 1 - pos_code] = p1, 1 - p1
        if arr.shape != (n_items, len(lab)):
            raise ValueError(f"{where} has shape {arr.shape}; expected ({n_items}, {len(lab)}): "
                             "one row per panel item, one column per label")
        if not single:
            total = arr.sum(axis=1)
            off = np.abs(total - 1)  # NaN rows (missing) compare False
            far = off > SUM_ROUNDED
            if far.any():
                i = int(np.flatnonzero(far)[0])
                raise ValueError(f"{where}: the probabilities of item {plain(items[i])!r} sum "
                                 f"to {total[i]:.6g}, not 1 ({int(far.sum()):,} item(s)); give "
                                 "one probability per label, each row summing to 1")
            near = off > SUM_EXACT
            if near.any():
                arr[near] /= total[near, None]
                notes.append(f"{where}: {int(near.sum()):,} item(s) whose probabilities sum "
                             f"to within {SUM_ROUNDED:g} of 1, not exactly (rounded?), were "
                             "normalised to sum to 1")
        out[str(name)] = arr
    return out


def _prepare(task: str, panel, predictions, *, labels, pos_label, tie_rule, missing,
             rng, panel_counts: bool = False, notes: list | None = None, probabilities=None,
             aggregation: str = "majority", ordinal: bool = False, recode=None,
             raters_identified: bool = True) -> _Task:
    notes = [] if notes is None else notes
    if tie_rule == "first_vote" and panel_counts:
        raise ValueError(f"tie_rule: 'first_vote' takes the tied label voted first, and the "
                         f"per-label counts of task {task!r} have no vote order; use 'random', "
                         "'lowest' or 'drop' with panel_counts")
    pdf = _as_panel(panel)
    n_items, n_cols = pdf.shape
    if n_items == 0:
        raise ValueError(f"panel of task {task!r} has no items")
    preds = _as_predictions(predictions, pdf.index, task)
    if not panel_counts:
        # only a DataFrame names its raters (an array's columns are called a1, a2, ... here)
        both = [c for c in map(str, pdf.columns) if c in preds] \
            if isinstance(panel, pd.DataFrame) else []
        if both:
            raise ValueError(f"{both[0]!r} is both a panel rater and an evaluated rater of task "
                             f"{task!r}: it would be scored against a majority it voted in; "
                             "take it out of the panel or out of the systems/humans")
    # recode maps (another spelling or scale onto the panel's labels), before any check
    pdf, preds = _scales.recoded(task, pdf, preds, recode, counts=panel_counts)
    # what a label may be, as for every input (one kind per task, no inf; a declared set
    # lets text and numbers mix): refused here too, for tables not read from files
    _labels.check_table(task, None if panel_counts else pdf, preds, labels=labels,
                        roles=("panel", "predictions"), items=pdf.index)
    if not panel_counts:
        lab, codes, counts, n_raters = _vote_counts(task, pdf, labels, notes)
    else:
        lab, codes, counts = _count_matrix(task, pdf, labels)
        n_raters = None
    if len(lab) < 2:
        raise ValueError(f"task {task!r}: need at least 2 labels, the panel only uses "
                         f"{lab!r}; give the label set (labels=...)")
    if len(lab) > MAX_LABELS:  # before any L x L confusion matrix is made
        raise ValueError(f"labels: task {task!r} has {len(lab):,} distinct labels, more than "
                         f"the {MAX_LABELS:,} stratify scores (its confusion matrices grow as "
                         "L x L): item ids read as labels? check the label column, or recode "
                         "the labels onto fewer classes")
    index = {x: i for i, x in enumerate(lab)}
    L = len(lab)
    k = counts.sum(axis=1, dtype=counts.dtype if not panel_counts else np.int64)
    dt = _small_int(L)
    pcodes = {}
    for name, arr in preds.items():
        raw, found = _factorize(arr)
        uniq = [x for x in found if x not in index]
        if uniq:  # (the message names the fix: a recode map)
            raise _scales.outside_error(task, name, uniq, lab, labels is not None)
        _scales.check_scale(task, name, found, lab, counts.sum(axis=0), name in (recode or {}))
        pcodes[name] = np.array([index[x] for x in found] + [-1], dtype=dt)[raw]

    # positive label
    pos_code = None
    if pos_label is not None:
        p = match_label(pos_label, lab, "pos_label")
        pos_code = index[p]
        used = (counts[:, pos_code].sum() > 0) or any((c == pos_code).any()
                                                      for c in pcodes.values())
        if not used:
            raise ValueError(f"positive label {p!r} never occurs in task {task!r} "
                             "(neither in the panel nor in the predictions)")
    elif L == 2:
        if lab == [0, 1]:
            pos_code = 1
        else:
            raise ValueError(f"task {task!r} is binary with labels {lab!r}: say which is the "
                             "positive class (pos_label=...)")

    # majority with ties, a block of items at a time
    top = np.empty(n_items, dtype=counts.dtype)
    tied = np.empty(n_items, dtype=bool)
    majority = np.empty(n_items, dtype=dt)
    for b in _blocks(n_items):
        top[b], n_top = _panel.plurality(counts[b])
        tied[b] = (n_top > 1) & (k[b] > 0)
        majority[b] = np.argmax(counts[b] == top[b, None], axis=1)  # lowest (label order)
    if tie_rule == "random" and tied.any():
        u = rng.random(n_items)
        rows = np.flatnonzero(tied)
        is_top = counts[rows] == top[rows, None]
        pick = np.floor(u[rows] * is_top.sum(axis=1)).astype(np.int64)
        majority[rows] = np.argmax(np.cumsum(is_top, axis=1) > pick[:, None], axis=1)
        del u
    elif tie_rule == "first_vote":
        rows = np.flatnonzero(tied)
        for b in _blocks(rows.size):
            majority[rows[b]] = first_vote(codes[rows[b]], counts[rows[b]] == top[rows[b], None])
    probs = _as_probabilities(task, probabilities, lab, pos_code, pdf.index, notes)
    posterior = changed = None
    if aggregation == "dawid_skene":
        if not raters_identified and not panel_counts:
            raise ValueError(f"aggregation: Dawid-Skene fits one confusion matrix per rater, and "
                             f"the votes of task {task!r} are lists whose positions are not "
                             "raters (the same position is a different person on each item); "
                             "use aggregation='majority', or give identified raters")
        if panel_counts:
            raise ValueError("aggregation: Dawid-Skene needs each rater's votes (a panel with "
                             "one column per rater), not per-label counts")
        from labelvar.evaluation._agreement import dawid_skene

        post, _ = dawid_skene(codes, L)
        ds = post.argmax(axis=1).astype(dt)
        changed = ds != majority
        majority, posterior = ds, post.max(axis=1)
    keep = k >= 2
    excluded = {"no_votes": int((k == 0).sum()), "one_vote": int((k == 1).sum()), "tied": 0}
    if tie_rule == "drop":
        excluded["tied"] = int((tied & keep).sum())
        keep &= ~tied
    excluded["no_prediction"] = 0
    lack = [c < 0 for c in pcodes.values()] + [np.isnan(a).any(axis=1) for a in probs.values()]
    if missing == "drop" and lack:
        lacking = keep & np.any(np.stack(lack), axis=0)
        excluded["no_prediction"] = int(lacking.sum())
        keep &= ~lacking
    for name, c in pcodes.items():
        miss = int((c[keep] < 0).sum())
        if miss:
            first = pdf.index[np.flatnonzero(keep & (c < 0))[0]]
            raise ValueError(f"predictions[{name!r}] (task {task!r}) is missing for {miss} "
                             f"item(s), e.g. item {first!r}; every evaluated item needs a "
                             "label (or exclude them: missing='drop')")
    for name, a in probs.items():
        miss = int(np.isnan(a[keep]).any(axis=1).sum())
        if miss:
            first = pdf.index[np.flatnonzero(keep & np.isnan(a).any(axis=1))[0]]
            raise ValueError(f"probabilities[{name!r}] (task {task!r}) are missing for {miss} "
                             f"item(s), e.g. item {first!r} (or exclude them: missing='drop')")
    if not keep.any():
        raise ValueError(f"task {task!r}: no item left to evaluate (excluded: {excluded})")
    values = None
    if ordinal:
        if not all(isinstance(x, (int, float)) for x in lab):
            raise ValueError(f"ordinal: the labels of task {task!r} must be numbers (ratings), "
                             f"got {lab!r}")
        values = np.array(lab, dtype=float)
    inputs = dict(items=n_items, raters=n_raters if raters_identified else None,
                  votes_min=int(k.min()),
                  votes_max=int(k.max()),
                  labels={x: int(counts[:, i].sum()) for i, x in enumerate(lab)},
                  systems=list(dict.fromkeys(list(pcodes) + list(probs))),
                  tie_rule=tie_rule, tied=int((tied & (k >= 2)).sum()), counts=panel_counts)
    if changed is not None:
        inputs["changed_vs_majority"] = int(changed[keep].sum())
        inputs["evaluated"] = int(keep.sum())
    if keep.all():  # nothing excluded: the arrays themselves, not copies
        keep = slice(None)
    return _Task(
        name=task, labels=lab, codes=codes[keep], counts=counts[keep], k=k[keep],
        majority=majority[keep], top=top[keep],
        preds={n: c[keep] for n, c in pcodes.items()}, pos_label=pos_code, excluded=excluded,
        inputs=inputs, probs={n: a[keep] for n, a in probs.items()}, values=values,
        posterior=None if posterior is None else posterior[keep],
        tied=None if tie_rule == "drop" or posterior is not None else tied[keep],
        tie_rule=tie_rule, raters_identified=raters_identified and not panel_counts,
        raters=() if panel_counts else tuple(map(str, pdf.columns)),
    )
