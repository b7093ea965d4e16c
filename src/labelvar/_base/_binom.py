"""Binomial and normal tails without importing :mod:`scipy.stats` (the one definition).

``binom.pmf/cdf/sf`` call the Boost ufuncs that ``scipy.stats.binom`` itself calls, so
the numbers are scipy.stats' to the last digit; ``norm`` uses :mod:`scipy.special`.
Importing :mod:`scipy.stats` costs about half a second per process, more than a whole
``labelvar expect`` or a planner run, so the closed forms and the planner use these.

Examples
--------
>>> from scipy import stats
>>> k = np.arange(-1, 12)
>>> bool(np.array_equal(binom.sf(k, 10, 0.3), stats.binom.sf(k, 10, 0.3)))
True
>>> bool(np.array_equal(binom.pmf(k, 10, 0.3), stats.binom.pmf(k, 10, 0.3)))
True
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import special


@functools.cache
def _ufuncs():
    """The Boost binomial ufuncs behind ``scipy.stats.binom``: (pmf, cdf, sf)."""
    try:
        from scipy.special import _ufuncs as u

        return u._binom_pmf, u._binom_cdf, u._binom_sf
    except (ImportError, AttributeError):  # pragma: no cover - another scipy layout
        from scipy import stats

        return stats.binom.pmf, stats.binom.cdf, stats.binom.sf


def _apply(which: int, k, n, p, below: float, above: float, last: float):
    """A ufunc on the support 0..n; ``below``/``above`` outside, ``last`` at k = n."""
    k, n, p = np.broadcast_arrays(np.asarray(k), np.asarray(n), np.asarray(p, dtype=float))
    out = np.where(k < 0, below, np.where(k > n, above, last)).astype(float)
    inside = (k >= 0) & (k < n) if which else (k >= 0) & (k <= n)
    if inside.any():
        out[inside] = _ufuncs()[which](k[inside], n[inside], p[inside])
    return out[()] if out.ndim == 0 else out


class binom:  # noqa: N801 - scipy.stats' spelling, so the formulas read the same
    """P(X = k), P(X <= k), P(X > k) of X ~ Binomial(n, p) for whole k, broadcasting."""

    @staticmethod
    def pmf(k, n, p):
        """P(X = k) (0 outside 0..n)."""
        return _apply(0, k, n, p, 0.0, 0.0, 0.0)

    @staticmethod
    def cdf(k, n, p):
        """P(X <= k) (0 below the support, 1 from n on)."""
        return _apply(1, k, n, p, 0.0, 1.0, 1.0)

    @staticmethod
    def sf(k, n, p):
        """P(X > k) (1 below the support, 0 from n on)."""
        return _apply(2, k, n, p, 1.0, 0.0, 0.0)


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
