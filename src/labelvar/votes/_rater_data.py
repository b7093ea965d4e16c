"""Long-format votes (item, rater, label) read into the sparse layout of the rater kernels.

:func:`encode` checks a votes DataFrame (one line per refusal, before allocating) and
returns :class:`Votes`: integer codes of items (in order of first appearance), raters
and labels, and the votes as compressed sparse rows by item; :meth:`Votes.by_rater`
adds the rows by rater (the M-step's order).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from labelvar._base import _validate as V
from labelvar._kernels import raters as rk
from labelvar.io import _labels

#: bytes per vote of the fit (codes, two sparse orders, the DataFrame's factorisation)
BYTES_PER_VOTE = 72


@dataclasses.dataclass(frozen=True)
class Votes:
    """Votes as codes. ``rater`` codes index ``raters``; ``len(raters)`` = a rater not known."""

    items: pd.Index
    raters: tuple
    labels: tuple
    item_ptr: np.ndarray  # (n_items + 1,)
    rater: np.ndarray  # per vote, in item order
    label: np.ndarray  # per vote, in item order

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def n_votes(self) -> int:
        return int(self.rater.size)


def _column(votes: pd.DataFrame, name, role: str, what: str) -> pd.Series:
    if name not in votes.columns:
        raise ValueError(f"{what}: no column {name!r} for the {role} ({role}={name!r}); "
                         f"columns are {list(votes.columns)[:8]}")
    col = votes[name]
    if col.isna().any():
        row = int(np.flatnonzero(col.isna().to_numpy())[0])
        raise ValueError(f"{what}: column {name!r} ({role}) has {int(col.isna().sum())} missing "
                         f"values (first at row {row}); every vote needs an item, a rater and a label")
    return col


def _factorize(col: pd.Series, sort: bool = False):
    """pandas.factorize (no missing values); whole numbers of a compact range in O(n)."""
    if col.dtype.kind in "iu" and len(col):
        values = col.to_numpy()
        lo, hi = int(values.min()), int(values.max())
        if hi - lo < 4 * len(values) + 1024:
            codes, uniq = rk.int_codes(values.astype(np.int64), lo, hi - lo + 1, sort)
            return codes, pd.Index(uniq.astype(values.dtype))
    codes, uniques = pd.factorize(col, sort=sort)
    return codes.astype(np.int64), uniques


def _label_codes(col: pd.Series, labels, what: str, name) -> tuple[np.ndarray, tuple]:
    codes, uniques = _factorize(col)
    canon = [_labels.canon(x) for x in uniques]
    if any(c is None for c in canon):
        bad = next(u for u, c in zip(uniques, canon, strict=True) if c is None)
        raise ValueError(f"{what}: column {name!r} (label) has missing values such as {bad!r}; "
                         "drop those rows (a missing label is not a vote)")
    if labels is None:
        lab = sorted(set(canon), key=_labels.sort_key)
        if len(lab) < 2:
            raise ValueError(f"{what}: the votes use one label only ({lab!r}); declare the label "
                             "set with labels=[...] (at least 2 labels)")
    else:
        lab = list(labels)
    pos = {x: k for k, x in enumerate(lab)}
    table = np.empty(len(uniques), dtype=np.int64)
    for k, c in enumerate(canon):
        if c not in pos:
            c = _labels.match_label(uniques[k], lab, f"{what}: column {name!r} (label)")
        table[k] = pos[c]
    return table[codes], tuple(lab)


def _rater_codes(col: pd.Series) -> tuple[np.ndarray, tuple]:
    try:
        codes, uniques = _factorize(col, sort=True)
    except TypeError:  # raters of mixed types: order of first appearance
        codes, uniques = _factorize(col)
    return codes, tuple(uniques.tolist())


def encode(votes, *, item="item", rater="rater", label="label", labels=None, raters=None,
           what: str = "votes", extra_bytes_per_item: int = 0) -> Votes:
    """Check and encode long-format votes.

    Parameters
    ----------
    votes : pandas.DataFrame
        One row per vote.
    item, rater, label : column names
    labels : sequence or None
        The declared label set (canonical, see :func:`labelvar.io._labels.declared`); None:
        the labels seen, sorted (numbers first).
    raters : sequence or None
        Known raters (a fitted model's): others get the code ``len(raters)``.
    what : str
        The argument's name in messages.
    extra_bytes_per_item : int
        Memory the caller will need per item (posteriors), for the size check.

    Returns
    -------
    Votes
    """
    if not isinstance(votes, pd.DataFrame):
        raise ValueError(f"{what} must be a pandas DataFrame with one row per vote (columns item, "
                         f"rater, label), got {type(votes).__name__}")
    if len(votes) == 0:
        raise ValueError(f"{what} has no rows; give at least one vote")
    n_votes = len(votes)
    V.memory(f"rater models of {n_votes} votes", n_votes * BYTES_PER_VOTE
             + n_votes * extra_bytes_per_item, "fit a sample of the items")
    icol = _column(votes, item, "item", what)
    rcol = _column(votes, rater, "rater", what)
    lcol = _column(votes, label, "label", what)
    lab_codes, lab = _label_codes(lcol, labels, what, label)
    icodes, items = _factorize(icol)
    rcodes, rat = _rater_codes(rcol)
    ptr, order = rk.csr(icodes.astype(np.int64), len(items))
    by_r, by_l = rcodes[order], lab_codes[order]
    dup = rk.first_duplicate(ptr, by_r, len(rat))
    if dup >= 0:
        raise ValueError(f"{what}: item {items[dup]!r} has two votes from one rater; give one vote "
                         "per (item, rater) (a rater who labelled an item twice: keep one vote, or "
                         "give the repeat another rater id)")
    if raters is not None:  # the known raters' codes; every other rater: len(raters)
        known = pd.Index(list(raters)).get_indexer(pd.Index(list(rat), dtype=object))
        by_r = np.where(known < 0, len(raters), known)[by_r].astype(np.int64)
        rat = tuple(raters)
    return Votes(items=pd.Index(items), raters=rat, labels=lab, item_ptr=ptr, rater=by_r,
                 label=by_l)
