r"""Sizing an agreement study: items for Cohen's κ of two raters and a binary label (Cantor 1996).

Under κ with both raters' positive rates given (:math:`p_1`, :math:`p_2`), the cells of
the 2 × 2 table are the independence cells plus or minus
:math:`\delta = \kappa(1 - p_e)/2`, :math:`p_e = p_1p_2 + (1-p_1)(1-p_2)`. The large-sample
variance of :math:`\hat\kappa` is :math:`Q(\kappa)/n` with Fleiss, Cohen and Everitt's

.. math::

   Q = \frac{\sum_i p_{ii}\,[(1-p_e) - (p_{i+}+p_{+i})(1-p_o)]^2
       + (1-p_o)^2 \sum_{i\ne j} p_{ij}\,(p_{+i}+p_{j+})^2
       - (p_o p_e - 2p_e + p_o)^2}{(1-p_e)^4},

and the items needed to tell κ1 from the null κ0 with a one-sided level-α test of power
``power`` are :math:`n = \lceil [(z_{1-\alpha}\sqrt{Q(\kappa_0)} +
z_{power}\sqrt{Q(\kappa_1)}) / (\kappa_1 - \kappa_0)]^2 \rceil` (Cantor 1996, as irr's
``N.cohen.kappa``).
"""

from __future__ import annotations

import numpy as np

from labelvar._base import _validate as v


def _cells(kappa: float, p1: float, p2: float) -> np.ndarray:
    pe = p1 * p2 + (1 - p1) * (1 - p2)
    d = kappa * (1 - pe) / 2
    return np.array([[p1 * p2 + d, p1 * (1 - p2) - d], [(1 - p1) * p2 - d, (1 - p1) * (1 - p2) + d]])


def kappa_variance_factor(kappa: float, p1: float, p2: float) -> float:
    """Q(κ): n times the large-sample variance of Cohen's κ of a 2 × 2 table.

    Examples
    --------
    >>> round(kappa_variance_factor(0.0, 0.5, 0.5), 6)  # 1 / n at independence
    1.0
    """
    cells = _cells(kappa, p1, p2)
    rows, cols = cells.sum(axis=1), cells.sum(axis=0)
    po = np.trace(cells)
    pe = float(rows @ cols)
    total = sum(cells[i, i] * ((1 - pe) - (rows[i] + cols[i]) * (1 - po)) ** 2 for i in range(2))
    total += (1 - po) ** 2 * (cells[0, 1] * (cols[0] + rows[1]) ** 2
                              + cells[1, 0] * (cols[1] + rows[0]) ** 2)
    total -= (po * pe - 2 * pe + po) ** 2
    return float(total / (1 - pe) ** 4)


def kappa_sample_size(kappa0: float, kappa1: float, p, *, alpha: float = 0.05,
                      power: float = 0.8) -> int:
    """Items needed to show Cohen's κ = ``kappa1`` against the null ``kappa0`` (two raters, binary).

    Parameters
    ----------
    kappa0 : float
        κ under the null hypothesis, in (-1, 1).
    kappa1 : float
        κ under the alternative, in (-1, 1), different from ``kappa0``.
    p : float or pair of floats
        The positive rate of both raters, or of rater 1 and rater 2, in (0, 1).
    alpha : float
        One-sided significance level (for a two-sided test pass alpha / 2).
    power : float
        Target power.

    Returns
    -------
    int
        The smallest number of items (Cantor 1996; the module notes give the formula).

    Examples
    --------
    >>> kappa_sample_size(0.85, 0.7, 0.5)  # irr: N.cohen.kappa(0.5, 0.5, 0.7, 0.85)
    96
    """
    from scipy.stats import norm

    k0 = float(v.probability("kappa0", kappa0, lo=-1, hi=1, open_lo=True, open_hi=True))
    k1 = float(v.probability("kappa1", kappa1, lo=-1, hi=1, open_lo=True, open_hi=True))
    if k0 == k1:
        raise ValueError(f"kappa1 must differ from kappa0, both are {k0}")
    rates = np.atleast_1d(v.probability("p", p, open_lo=True, open_hi=True)).astype(float)
    if rates.size not in (1, 2):
        raise ValueError(f"p must be one rate or a pair of rates (rater 1, rater 2), got {rates.size}")
    p1, p2 = (rates[0], rates[0]) if rates.size == 1 else rates
    alpha = float(v.probability("alpha", alpha, open_lo=True, open_hi=True))
    power = float(v.probability("power", power, open_lo=True, open_hi=True))
    for name, k in (("kappa0", k0), ("kappa1", k1)):
        cells = _cells(k, p1, p2)
        if cells.min() < 0:
            raise ValueError(f"{name} = {k} is impossible with rates {p1:g} and {p2:g} "
                             "(a cell probability would be negative)")
    q0 = kappa_variance_factor(k0, p1, p2)
    q1 = kappa_variance_factor(k1, p1, p2)
    n = ((norm.isf(alpha) * np.sqrt(q0) + norm.ppf(power) * np.sqrt(q1)) / (k1 - k0)) ** 2
    return int(np.ceil(n - 1e-9))
