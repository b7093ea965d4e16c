"""The alt-test's comparisons: one per (tested human, kept item) pair, as arrays.

For a pair the reference is the other humans' votes on the item. Under ``accuracy``
the score of a label x is (votes for x among the others) / (others), so comparing two
labels compares two counts. Under ``neg_rmse`` the score is
``-sqrt(SS(x) / n)``, ``SS(x) = sum over the others (x - y)^2``; and
``SS(x) - SS(z) = (x - z) (n (x + z) - 2 S)`` with ``S`` the others' sum, computed in
whole numbers when the labels are multiples of a common step (``_data._common_scale``).
No derived score is compared by floating-point equality.

An outcome code per comparison: 0 a tie (``W_sys = W_h = 1``), 1 the system (or the
reference labeller) strictly better, 2 the human strictly better.

Examples
--------
>>> import pandas as pd
>>> from labelvar.judge._data import prepare
>>> votes = pd.DataFrame({"item": [1, 1, 1], "rater": ["a", "b", "c"], "label": [0, 0, 1]})
>>> prep = prepare(votes, pd.Series({1: 0}), scoring="accuracy")
>>> pairs = make_pairs(prep, min_humans_per_item=2, min_items_per_human=1)
>>> outcome(prep, pairs, prep.system[pairs.item], "accuracy").tolist()  # c: 0 has 2 of (a, b)
[0, 0, 1]
"""

from __future__ import annotations

import dataclasses
import reprlib

import numpy as np


@dataclasses.dataclass(frozen=True)
class Pairs:
    """The comparisons (one per tested human and kept item) and the per-item sums."""

    item: np.ndarray     # item code per pair
    rater: np.ndarray    # rater code per pair
    code: np.ndarray     # the human's label code per pair
    counts: np.ndarray   # (n_items, n_labels) votes per label, all humans
    n_humans: np.ndarray  # humans per item
    kept: np.ndarray     # bool per item
    tested: np.ndarray   # bool per rater
    n_kept: np.ndarray   # kept items per rater


def make_pairs(prep, *, min_humans_per_item: int, min_items_per_human: int) -> Pairs:
    """Apply the two filters and list the comparisons."""
    n_items, n_raters, n_labels = len(prep.items), len(prep.raters), len(prep.labels)
    n_humans = np.bincount(prep.item, minlength=n_items)
    kept = (n_humans >= min_humans_per_item) & (prep.system >= 0)
    in_kept = kept[prep.item]
    n_kept = np.bincount(prep.rater[in_kept], minlength=n_raters)
    tested = n_kept >= min_items_per_human
    use = in_kept & tested[prep.rater]
    counts = np.bincount(prep.item * n_labels + prep.code,
                         minlength=n_items * n_labels).reshape(n_items, n_labels)
    return Pairs(item=prep.item[use], rater=prep.rater[use], code=prep.code[use], counts=counts,
                 n_humans=n_humans, kept=kept, tested=tested, n_kept=n_kept)


def _codes_outcome(sys_ge, h_ge) -> np.ndarray:
    return np.where(sys_ge & h_ge, 0, np.where(sys_ge, 1, 2)).astype(np.int8)


def outcome(prep, pairs: Pairs, x, scoring) -> np.ndarray:
    """Outcome codes of label codes ``x`` against the pairs' humans.

    ``x`` is one code per pair, or ``(n_pairs, k)`` codes (every column compared).
    """
    x = np.asarray(x, dtype=np.int64)
    i, c = pairs.item, pairs.code
    if x.ndim == 2:
        i, c = i[:, None], c[:, None]
    if scoring == "accuracy":
        cx = pairs.counts[i, x] - (c == x)
        ch = pairs.counts[i, c] - 1
        return _codes_outcome(cx >= ch, ch >= cx)
    if scoring == "neg_rmse":
        g = _ss_difference(prep, pairs, i, c, x)
        return _codes_outcome(g <= 0, g >= 0)
    return _callable_outcome(prep, pairs, x, scoring)


def _ss_difference(prep, pairs, i, c, x):
    """``SS(x) - SS(z)`` (z the human's label) over the other humans, exact when scaled."""
    if prep.scale is not None:
        v = np.round(prep.values * prep.scale).astype(np.int64)
    else:
        v = prep.values
    total = (pairs.counts * v[None, :]).sum(axis=1)  # (n_items,)
    n_rem = pairs.n_humans[i] - 1
    z = v[c]
    xv = v[x]
    s_rem = total[i] - z
    return (xv - z) * (n_rem * (xv + z) - 2 * s_rem)


def _call(scoring, label, others) -> float:
    """``scoring(label, others)`` as a finite float; its failure or a non-number is one line."""
    name = getattr(scoring, "__name__", type(scoring).__name__)
    try:
        v = scoring(label, others)
    except Exception as exc:  # the user's function: its failure, said as the scoring's
        raise ValueError(f"scoring: {name}({label!r}, {reprlib.repr(others)}) raised "
                         f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}; "
                         "a scoring callable takes (label, other_labels) and returns a number"
                         ) from None
    try:
        f = float(v)
    except (TypeError, ValueError):
        f = float("nan")
    if isinstance(v, (bool, np.bool_)) or not np.isfinite(f):
        raise ValueError(f"scoring: {name}({label!r}, {reprlib.repr(others)}) returned {v!r}; a scoring "
                         "callable returns a finite number (higher: closer to the others)")
    return f


def _callable_outcome(prep, pairs, x, scoring):
    """A user's ``scoring(label, other_labels) -> float``, one call per comparison (slow)."""
    order = np.argsort(pairs.item, kind="stable")
    labels = np.array(prep.labels, dtype=object)
    by_item: dict = {}
    for it, ra, co in zip(prep.item, prep.rater, prep.code):
        by_item.setdefault(int(it), []).append((int(ra), int(co)))
    xs = x if x.ndim == 2 else x[:, None]
    out = np.empty(xs.shape, dtype=np.int8)
    for p in order:
        it, ra, co = int(pairs.item[p]), int(pairs.rater[p]), int(pairs.code[p])
        others = [labels[k] for r, k in by_item[it] if r != ra]
        sh = _call(scoring, labels[co], others)
        for col in range(xs.shape[1]):
            sx = _call(scoring, labels[xs[p, col]], others)
            out[p, col] = 0 if sx == sh else (1 if sx > sh else 2)
    return out if x.ndim == 2 else out[:, 0]


def per_rater_counts(rater: np.ndarray, codes: np.ndarray, n_raters: int) -> np.ndarray:
    """(n_raters, 3) outcome counts: ties, system better, human better.

    Examples
    --------
    >>> per_rater_counts(np.array([0, 0, 1]), np.array([0, 2, 1]), 2).tolist()
    [[1, 0, 1], [0, 1, 0]]
    """
    return np.bincount(rater * 3 + codes, minlength=n_raters * 3).reshape(n_raters, 3)


def remaining_agreement(pairs: Pairs) -> np.ndarray:
    """The other humans' agreement per pair: their modal label's share of their votes.

    Examples
    --------
    >>> import pandas as pd
    >>> from labelvar.judge._data import prepare
    >>> votes = pd.DataFrame({"item": [1, 1, 1], "rater": list("abc"), "label": [0, 0, 1]})
    >>> prep = prepare(votes, pd.Series({1: 1}), scoring="accuracy")
    >>> remaining_agreement(make_pairs(prep, min_humans_per_item=2, min_items_per_human=1))
    array([0.5, 0.5, 1. ])
    """
    srt = np.sort(pairs.counts, axis=1)
    top1 = srt[:, -1]
    top2 = srt[:, -2] if srt.shape[1] > 1 else np.zeros_like(top1)
    own = pairs.counts[pairs.item, pairs.code]
    t1 = top1[pairs.item]
    best = np.where(own == t1, np.maximum(t1 - 1, top2[pairs.item]), t1)
    return best / (pairs.n_humans[pairs.item] - 1)
