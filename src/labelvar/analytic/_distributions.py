r"""Exact finite-sample distributions of accuracy, precision, recall and F1.

The implementation of :func:`labelvar.analytic.exact_binary_metrics`,
:func:`labelvar.analytic.exact_f1` and their result objects
(:class:`~labelvar.analytic.DiscreteDistribution`,
:class:`~labelvar.analytic.RatioDistribution`,
:class:`~labelvar.analytic.ExactBinaryMetrics`), documented in and re-exported by
:mod:`labelvar.analytic`. With :math:`TP \sim \mathrm{Bin}(n_{pos}, sens)` and
:math:`FP \sim \mathrm{Bin}(n_{neg}, 1 - spec)` independent, every metric is a function
of the pair; F1 and precision are ratios whose distributions are evaluated either over
the (TP, FP) outer product or, for large supports, in O(support) (:class:`RatioDistribution`).

The pieces live in private modules, one concept each: ``labelvar.analytic._dist_types`` (the
result types, the trimmed binomial support), ``labelvar.analytic._binomial_sum`` (sums of
independent binomials: :func:`binomial_sum_sf`, :func:`binomial_sum_distribution`),
``labelvar.analytic._dist_ratio`` (:class:`RatioDistribution`) and ``labelvar.analytic._dist_quadrature``
(:class:`QuadratureDistribution`); this module holds the metrics themselves
(:func:`exact_binary_metrics`, :func:`exact_f1`, the method choice) and re-exports the
rest under their old names.
"""

from __future__ import annotations

import math

import numpy as np

from labelvar._base import _validate as v
from labelvar._base._counts import n_positives
from labelvar.analytic._binomial_sum import binomial_sum_distribution, binomial_sum_sf  # noqa: F401
from labelvar.analytic._dist_quadrature import QuadratureDistribution, _Cdf  # noqa: F401
from labelvar.analytic._dist_ratio import RatioDistribution
from labelvar.analytic._dist_types import (  # noqa: F401  (_out: analytic imports it from here)
    _QUAD_MIN_SD,
    DiscreteDistribution,
    ExactBinaryMetrics,
    _binom_support,
    _correlate,
    _distribution,
    _out,
)

# Above this many (TP, FP) pairs, F1 and precision are evaluated without the outer product
# (:class:`RatioDistribution`: O(support) memory instead of O(support**2)).
_OUTER_MAX = 2_000_000

# method="auto": above this many binomial support points (TP's and FP's together, about
# 22 sd each) the exact evaluation would take more than about a second (10^9 items at
# m = 0.1 and p_d = 0.6: 0.35 s for F1 and its quantiles; 10^10: 3 s; 10^12: half a
# minute and 2.6 GB), so QuadratureDistribution is used
_EXACT_MAX_SUPPORT = 600_000
def exact_binary_metrics(n_pos, n_neg, sensitivity, specificity, zero_division=0.0,
                         method: str = "auto"):
    r"""Exact finite-sample distributions of accuracy, precision, recall and F1.

    Parameters
    ----------
    n_pos, n_neg : int
        Numbers of positive and negative items (by the majority label); ``n_pos + n_neg >= 1``.
    sensitivity : float
        Probability that a positive item is labelled positive, in [0, 1].
    specificity : float
        Probability that a negative item is labelled negative, in [0, 1].
    zero_division : float, optional
        Value of a score whose definition is 0/0 (precision with nothing predicted
        positive; recall with no positive items; F1 with neither): 0.0 by default,
        as in scikit-learn, or ``np.nan`` to leave such samples undefined (they
        are then excluded and the result is conditional on being defined; a score
        undefined on every sample, e.g. recall with ``n_pos = 0``, has an empty
        distribution whose mean, sd, quantiles and tails are NaN).
    method : {"auto", "exact", "quadrature"}
        ``"exact"``: every (TP, FP) pair counts (time grows with the square root of
        the sample size: about a second at 10⁹ items, half a minute at
        10¹²). ``"quadrature"``: :class:`QuadratureDistribution` (milliseconds
        at any size; the same as exact when both binomials have sd < 64).
        ``"auto"`` (default): exact while the two binomial supports hold at most
        600,000 points together (about 10⁹ items at sd 0.5; exact results
        below that are unchanged), quadrature beyond.

    Returns
    -------
    ExactBinaryMetrics
        ``accuracy, precision, recall, f1`` as :class:`DiscreteDistribution`
        (:class:`RatioDistribution` or :class:`QuadratureDistribution` for large
        samples), and ``method``, the method used.

    Notes
    -----
    :math:`TP \sim \mathrm{Bin}(n_{pos}, s)` and :math:`FP \sim \mathrm{Bin}(n_{neg}, 1 - t)`
    are independent; :math:`FN = n_{pos} - TP`, :math:`TN = n_{neg} - FP`, and

    .. math::
        A = \frac{TP + TN}{n},\quad P = \frac{TP}{TP + FP},\quad
        R = \frac{TP}{n_{pos}},\quad F_1 = \frac{2\,TP}{2\,TP + FP + FN}.

    The joint pmf is the outer product of the two binomial pmfs, each without the
    outer values whose pmf is below 1e-22 (so ``n`` of 10⁴ takes a
    fraction of a second). Above 2e6 (TP, FP) pairs (about 10⁵ items)
    that table is not built: precision and F1 are :class:`RatioDistribution`
    (exact moments by one correlation, exact tails by one pass over the TP
    support; time and memory grow with the square root of the sample size) and
    accuracy is one convolution of the two pmfs. Above 600,000 support points
    ``method="auto"`` switches to :class:`QuadratureDistribution` (its error
    bounds are in its docstring: moments to rounding, tails within 0.8 / sd of the
    other binomial, measured 2e-6 and quantiles within about 1e-5 sd near the
    switch).
    A p_d-following expert has ``sensitivity = specificity = p_d``;
    a labeller that says "positive" with probability ``r`` whatever the item has
    ``sensitivity = r``, ``specificity = 1 - r``.

    Examples
    --------
    >>> e = exact_binary_metrics(10, 90, 0.9, 0.9)
    >>> round(e.recall.mean, 6), round(e.accuracy.mean, 6), e.method
    (0.9, 0.9, 'exact')
    >>> round(e.precision.mean, 4)   # the ratio of expectations says 0.5
    0.5114
    >>> big = exact_binary_metrics(10**11, 9 * 10**11, 0.6, 0.6)   # milliseconds
    >>> big.method, round(big.f1.mean, 9), round(big.accuracy.mean, 12)
    ('quadrature', 0.230769231, 0.6)
    """
    npos, nneg, s, t, zd, how = _checked(n_pos, n_neg, sensitivity, specificity,
                                         zero_division, method)
    d = _metrics(npos, nneg, s, t, zd, how, ("accuracy", "precision", "recall", "f1"))
    return ExactBinaryMetrics(accuracy=d["accuracy"], precision=d["precision"],
                              recall=d["recall"], f1=d["f1"], n_pos=npos, n_neg=nneg,
                              method=how)


#: the methods of :func:`exact_binary_metrics` and :func:`exact_f1`
METHODS = ("auto", "exact", "quadrature")


def _checked(n_pos, n_neg, sensitivity, specificity, zero_division, method):
    """The checked arguments, ``method`` resolved to "exact" or "quadrature"."""
    npos = v.single("n_pos", v.integer("n_pos", n_pos, lo=0))
    nneg = v.single("n_neg", v.integer("n_neg", n_neg, lo=0))
    if npos + nneg < 1:
        raise ValueError("n_pos + n_neg must be >= 1 (no items)")
    s = v.single("sensitivity", v.probability("sensitivity", sensitivity))
    t = v.single("specificity", v.probability("specificity", specificity))
    try:
        zd = float(zero_division)
    except (TypeError, ValueError, OverflowError):
        zd = -1.0  # refused below
    if not (np.isnan(zd) or 0.0 <= zd <= 1.0):
        raise ValueError(f"zero_division must be in [0, 1] or NaN, got {v._short(zero_division)}")
    v.choice("method", method, METHODS)
    sds = [math.sqrt(n_k * q * (1 - q)) for n_k, q in ((npos, s), (nneg, 1.0 - t))]
    if max(sds) < _QUAD_MIN_SD:  # the quadrature would take every point: it is the exact method
        return npos, nneg, s, t, zd, "exact"
    if method == "auto":
        width = sum(min(n_k + 1, 22 * sd + 121) for n_k, sd in zip((npos, nneg), sds,
                                                                   strict=True))
        method = "quadrature" if width > _EXACT_MAX_SUPPORT else "exact"
    return npos, nneg, s, t, zd, method


def _metrics(npos, nneg, s, t, zd, method, names) -> dict:
    """The distributions ``names`` (of accuracy, precision, recall, f1) by ``method``."""
    if method == "quadrature":
        tp, fp = (npos, s), (nneg, 1.0 - t)
        out = {"accuracy": lambda: QuadratureDistribution("accuracy", tp, fp, n_neg=nneg),
               "precision": lambda: QuadratureDistribution("ratio", tp, fp, a=1.0, c=0.0),
               "recall": lambda: (QuadratureDistribution("recall", tp, fp) if npos > 0 else
                                  _distribution(np.array([zd]), np.array([1.0]))),
               "f1": lambda: QuadratureDistribution("ratio", tp, fp, a=2.0, c=float(npos))}
        return {name: out[name]() for name in names}
    width = [min(n_k + 1, 22 * math.sqrt(n_k * q * (1 - q)) + 121)
             for n_k, q in ((npos, s), (nneg, 1.0 - t))]
    if width[0] * width[1] > _OUTER_MAX:
        # O(support) memory and time: F1 and precision as RatioDistribution, accuracy by
        # one convolution of the two pmfs (no TP x FP table)
        v.memory(f"the exact distribution for n_pos={npos}, n_neg={nneg}",
                 8.0 * 12 * (width[0] + width[1]), "use fewer items")
        tp, p_tp = _binom_support(npos, s)
        fp, p_fp = _binom_support(nneg, 1.0 - t)
        if not (tp[0] == 0 and fp[0] == 0):  # (a 0/0 atom is left to the outer product)
            total = float(p_tp.sum() * p_fp.sum())
            n = npos + nneg

            def accuracy():
                p_diff = np.clip(_correlate(p_tp, p_fp, "full"), 0.0, None)
                diff = np.arange(tp[0] - fp[-1], tp[-1] - fp[0] + 1)
                keep = p_diff > 0
                return DiscreteDistribution((diff[keep] + nneg) / n, p_diff[keep])

            out = {"accuracy": accuracy,
                   "precision": lambda: RatioDistribution(tp, p_tp, fp, p_fp, 1.0, 0.0, total),
                   "recall": lambda: (DiscreteDistribution(tp / npos, p_tp) if npos > 0 else
                                      _distribution(np.full(tp.shape, zd), p_tp)),
                   "f1": lambda: RatioDistribution(tp, p_tp, fp, p_fp, 2.0, float(npos), total)}
            return {name: out[name]() for name in names}
    v.memory(f"the exact distribution for n_pos={npos}, n_neg={nneg}", 96.0 * width[0] * width[1],
             "use fewer items")
    tp, p_tp = _binom_support(npos, s)
    fp, p_fp = _binom_support(nneg, 1.0 - t)
    TP = tp[:, None].astype(float)
    FP = fp[None, :].astype(float)
    P = (p_tp[:, None] * p_fp[None, :]).ravel()
    TP, FP = np.broadcast_arrays(TP, FP)
    TP, FP = TP.ravel(), FP.ravel()
    n = npos + nneg

    def dist(num, den):
        val = np.full(num.shape, zd)
        np.divide(num, den, out=val, where=den != 0)
        return _distribution(val, P)

    out = {"accuracy": lambda: _distribution((TP + nneg - FP) / n, P),
           "precision": lambda: dist(TP, TP + FP),
           "recall": lambda: dist(TP, np.full_like(TP, float(npos))),
           "f1": lambda: dist(2 * TP, TP + FP + npos)}
    return {name: out[name]() for name in names}


def exact_f1(p_d, m, n_items, zero_division=0.0, method: str = "auto"):
    r"""Exact distribution of F1 of a ``p_d``-following labeller on ``n_items`` items.

    Parameters
    ----------
    p_d : float
        Probability of agreeing with the majority label, in [0, 1].
    m : float
        Positive ratio; the sample has ``round(m * n_items)`` positives (:func:`n_positives`).
    n_items : int
        Number of items (>= 1).
    zero_division : float, optional
        Value of F1 when it is 0/0 (no positive items and none predicted): 0.0
        (default) or ``np.nan``. See :func:`exact_binary_metrics`.
    method : {"auto", "exact", "quadrature"}
        As :func:`exact_binary_metrics`: ``"auto"`` is exact up to about 10⁹
        items (600,000 binomial support points) and :class:`QuadratureDistribution`
        beyond (milliseconds at any size; means and sds to rounding, quantiles within
        about 1e-5 sd of exact near the switch); ``"exact"`` at 10¹² items
        takes half a minute.

    Returns
    -------
    DiscreteDistribution, RatioDistribution or QuadratureDistribution
        With ``.mean``, ``.sd``, ``.quantile(q)``, ``.interval(confidence_level)``,
        ``.sf(x)`` and ``.method`` (``"exact"`` or ``"quadrature"``).

    Notes
    -----
    :math:`TP \sim \mathrm{Bin}(mn, p_d)`, :math:`FP \sim \mathrm{Bin}((1-m)n, 1-p_d)`,
    :math:`F_1 = 2TP / (TP + FP + mn)`. As :math:`n \to \infty` the mean tends to
    :func:`labelvar.analytic.expected_f1` (the paper's ratio of expectations); for small :math:`n`
    they differ, and the spread is wide. Only the F1 distribution is computed.

    Examples
    --------
    >>> from labelvar import expected_f1
    >>> d = exact_f1(0.6, 0.1, 100)
    >>> round(d.mean, 4), round(d.sd, 4), round(expected_f1(0.6, 0.1), 4)
    (0.231, 0.0575, 0.2308)
    >>> d.interval(0.9)
    (0.13333333333333333, 0.32558139534883723)
    >>> huge = exact_f1(0.6, 0.1, 10**12)   # milliseconds (exact: half a minute)
    >>> huge.method, round(huge.mean, 12), round(huge.sd * 1e6, 3)
    ('quadrature', 0.230769230769, 0.566)
    """
    p = v.single("p_d", v.probability("p_d", p_d))
    mm = v.single("m", v.probability("m", m))
    nn = v.single("n_items", v.integer("n_items", n_items, lo=1))
    npos = int(n_positives(mm, nn))
    npos, nneg, s, t, zd, how = _checked(npos, nn - npos, p, p, zero_division, method)
    return _metrics(npos, nneg, s, t, zd, how, ("f1",))["f1"]
