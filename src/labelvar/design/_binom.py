"""Binomial and normal tails for the planner, from :mod:`scipy.special` (not scipy.stats).

``binom.pmf/cdf/sf`` and ``norm.sf/cdf/isf`` follow scipy.stats' signatures and values
(tests compare them); importing :mod:`scipy.stats` costs about half a second per process,
more than a whole plan, so the planner's command line avoids it.

Examples
--------
>>> from scipy import stats
>>> bool(np.allclose(binom.sf(np.arange(-1, 12), 10, 0.3), stats.binom.sf(np.arange(-1, 12), 10, 0.3)))
True
"""

from __future__ import annotations

import numpy as np
from scipy import special


class binom:  # noqa: N801 - scipy.stats' spelling, so the formulas read the same
    """P(X = k), P(X <= k), P(X > k) of X ~ Binomial(n, p), broadcasting; 0 / 1 outside 0..n."""

    @staticmethod
    def pmf(k, n, p):
        """P(X = k)."""
        k, n, p = np.broadcast_arrays(np.asarray(k), np.asarray(n), np.asarray(p, float))
        inside = (k >= 0) & (k <= n)
        kk = np.where(inside, k, 0).astype(float)
        nn = n.astype(float)
        logp = (special.gammaln(nn + 1) - special.gammaln(kk + 1) - special.gammaln(nn - kk + 1)
                + special.xlogy(kk, p) + special.xlog1py(nn - kk, -p))
        return np.where(inside, np.exp(logp), 0.0)

    @staticmethod
    def cdf(k, n, p):
        """P(X <= k)."""
        k, n, p = np.broadcast_arrays(np.asarray(k), np.asarray(n), np.asarray(p, float))
        kk = np.clip(k, 0, np.maximum(n, 0)).astype(np.int64)
        out = special.bdtr(kk, n.astype(np.int64), p)
        return np.where(k < 0, 0.0, np.where(k >= n, 1.0, out))

    @staticmethod
    def sf(k, n, p):
        """P(X > k)."""
        k, n, p = np.broadcast_arrays(np.asarray(k), np.asarray(n), np.asarray(p, float))
        kk = np.clip(k, 0, np.maximum(n, 0)).astype(np.int64)
        out = special.bdtrc(kk, n.astype(np.int64), p)
        return np.where(k < 0, 1.0, np.where(k >= n, 0.0, out))


class norm:  # noqa: N801
    """Standard normal tails."""

    @staticmethod
    def sf(x):
        """P(Z > x)."""
        return special.ndtr(-np.asarray(x, float))

    @staticmethod
    def cdf(x):
        """P(Z <= x)."""
        return special.ndtr(np.asarray(x, float))

    @staticmethod
    def isf(q):
        """X with P(Z > x) = q."""
        return -special.ndtri(np.asarray(q, float))


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
