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
from fractions import Fraction

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


#: above this many trials Boost's binomial tails are NaN (and counts are not exact doubles)
HUGE_N = 2**53


def _apply(which: int, k, n, p, below: float, above: float, last: float):
    """A ufunc on the support 0..n; ``below``/``above`` outside, ``last`` at k = n.

    The tails (cdf, sf) of more than :data:`HUGE_N` trials come from
    :func:`_edgeworth_sf` (Boost returns NaN there).
    """
    k, n, p = np.broadcast_arrays(np.asarray(k), np.asarray(n), np.asarray(p, dtype=float))
    out = np.where(k < 0, below, np.where(k > n, above, last)).astype(float)
    inside = (k >= 0) & (k < n) if which else (k >= 0) & (k <= n)
    huge = inside & (n > HUGE_N) if which else np.zeros_like(inside)
    inside &= ~huge
    if inside.any():
        out[inside] = _ufuncs()[which](k[inside], n[inside], p[inside])
    if huge.any():
        sf = _edgeworth_sf(k[huge], n[huge], p[huge])
        out[huge] = sf if which == 2 else 1.0 - sf
    return out[()] if out.ndim == 0 else out


def _edgeworth_sf(k, n, p):
    r"""P(X > k) for X ~ Binomial(n, p) with n beyond 2**53 trials.

    The normal approximation with continuity correction and the first Edgeworth term,
    :math:`Q(z) + \phi(z) \gamma (z^2 - 1) / 6` with :math:`z = (k + 1/2 - n p) / \sigma`,
    :math:`\sigma^2 = n p q` and skewness :math:`\gamma = (q - p) / \sigma`: its error
    is O(1 / n), below 1e-15 here (a count itself is only known to a few units then).
    p = 0 or 1 (no spread) is exact.
    """
    # k + 1/2 - n p exactly (k and n are whole numbers beyond 2**53, not exact doubles:
    # in floats the 1/2 and the last units of k and n p are lost), then rounded once
    centred = np.array([float(Fraction(int(kk)) + Fraction(1, 2) - int(nn) * Fraction(float(pp)))
                        for kk, nn, pp in zip(np.ravel(k), np.ravel(n), np.ravel(p))]
                       ).reshape(np.shape(k))
    k, n, p = (np.asarray(x, dtype=float) for x in (k, n, p))
    sd = np.sqrt(n * p * (1.0 - p))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = centred / sd
        gamma = (1.0 - 2.0 * p) / sd
        out = special.ndtr(-z) + np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi) * gamma * (z * z - 1) / 6
    point = sd == 0  # all mass at n p
    out = np.where(point, (n * p > k).astype(float), out)
    return np.clip(out, 0.0, 1.0)


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
