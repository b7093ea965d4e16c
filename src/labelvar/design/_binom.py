"""The planner's monotone search helper (binomial/normal tails are in :mod:`labelvar._base._binom`)."""

from __future__ import annotations

import numpy as np

from labelvar._base._binom import binom, norm

__all__ = ["binom", "norm", "smallest_true"]


def smallest_true(pred, lo, hi) -> np.ndarray:
    """Smallest integer x in [lo, hi] with pred(x) True, for a predicate monotone in x.

    ``pred(hi)`` must be True; ``lo`` and ``hi`` broadcast; vectorised bisection.

    Examples
    --------
    >>> smallest_true(lambda x: x * x >= 10, 0, [5, 100]).tolist()
    [4, 4]
    """
    lo, hi = np.broadcast_arrays(np.asarray(lo, np.int64), np.asarray(hi, np.int64))
    lo, hi = lo.copy(), hi.copy()
    done = pred(lo)
    hi = np.where(done, lo, hi)
    while True:  # invariant where not done: pred(lo) False, pred(hi) True
        gap = ~done & (hi - lo > 1)
        if not gap.any():
            return hi
        mid = (lo + hi) // 2
        pm = pred(mid)
        hi = np.where(gap & pm, mid, hi)
        lo = np.where(gap & ~pm, mid, lo)
