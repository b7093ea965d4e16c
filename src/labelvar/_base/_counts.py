"""Whole numbers of items from fractions, robust to floating point (numpy only).

Kept apart from :mod:`labelvar.analytic` (which imports scipy.stats) so the
simulation engine can use the same definitions without paying for scipy at start-up;
:mod:`labelvar.analytic` re-exports them.
"""

from __future__ import annotations

import numpy as np

# A fraction times a count is "whole" when it is this close to an integer
# (0.07 * 100 = 7.000000000000001 must count as 7, not 8): 1e-9, or 16 units in the
# last place of the product when that is more (products near 1e9 and beyond: a
# tolerance relative to the product, as before, reached a whole item there).
_WHOLE_TOL = 1e-9
_WHOLE_ULPS = 16 * np.finfo(float).eps


def _tolerance(x):
    """How far the product ``x`` may be from a whole number and still count as it."""
    return np.maximum(_WHOLE_TOL, _WHOLE_ULPS * np.abs(x))


def ceil_count(a, n):
    """Smallest whole number of items ``k`` with ``k / n >= a``, robust to rounding.

    Parameters
    ----------
    a : array_like
        Fraction in [0, 1].
    n : array_like
        Number of items (whole number >= 1).

    Returns
    -------
    ndarray of int64
        ``ceil(a * n)``, where a product within 1e-9 (or 16 units in its last
        place, if more) of a whole number counts as that whole number.

    Examples
    --------
    >>> int(ceil_count(0.8, 100)), int(ceil_count(0.57, 100)), int(ceil_count(0.801, 100))
    (80, 57, 81)
    """
    x = np.asarray(a, dtype=float) * np.asarray(n, dtype=float)
    r = np.round(x)
    return np.where(np.abs(x - r) <= _tolerance(x), r, np.ceil(x)).astype(np.int64)


def floor_count(a, n):
    """Largest whole number of items ``k`` with ``k / n <= a``, robust to rounding.

    Examples
    --------
    >>> int(floor_count(0.7, 100)), int(floor_count(0.699, 100))
    (70, 69)
    """
    x = np.asarray(a, dtype=float) * np.asarray(n, dtype=float)
    r = np.round(x)
    return np.where(np.abs(x - r) <= _tolerance(x), r, np.floor(x)).astype(np.int64)


def n_positives(m, n):
    """Number of positive items for a positive ratio ``m`` of ``n`` items: ``round(m * n)``.

    Halves round up (``m * n = 2.5`` gives 3), unlike Python's ``round``.

    Examples
    --------
    >>> int(n_positives(0.1, 100)), int(n_positives(0.5, 5)), int(n_positives(0.507, 142))
    (10, 3, 72)
    """
    x = np.asarray(m, dtype=float) * np.asarray(n, dtype=float)
    return np.floor(x + 0.5 + _tolerance(x)).astype(np.int64)
