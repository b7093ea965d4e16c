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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from labelvar import _validate as v
from labelvar._binom import binom
from labelvar._counts import n_positives

# Above this many (TP, FP) pairs, F1 and precision are evaluated without the outer product
# (:class:`RatioDistribution`: O(support) memory instead of O(support**2)).
_OUTER_MAX = 2_000_000

# Binomial pmf values below this are left out of the exact finite-sample
# distributions (the mass left out is far below double-precision resolution of 1).
_TRIM = 1e-22

# method="auto": above this many binomial support points (TP's and FP's together, about
# 22 sd each) the exact evaluation would take more than about a second (10^9 items at
# m = 0.1 and p_d = 0.6: 0.35 s for F1 and its quantiles; 10^10: 3 s; 10^12: half a
# minute and 2.6 GB), so QuadratureDistribution is used
_EXACT_MAX_SUPPORT = 600_000
# QuadratureDistribution: nodes per sd of a binomial; below _QUAD_MIN_SD every point is one
_NODES_PER_SD = 16
_QUAD_MIN_SD = 1024.0


def _out(x):
    """Return a Python float for 0-d results, else the array (like scipy.stats)."""
    x = np.asarray(x, dtype=float)
    return float(x) if x.ndim == 0 else x


@dataclass(frozen=True, repr=False)
class DiscreteDistribution:
    """A finite discrete distribution: sorted ``values`` with probabilities ``probs``.

    ``probs`` sum to 1 up to the trimmed binomial tails (pmf values below 1e-22);
    ``mean``, ``sd``, :meth:`quantile` and :meth:`sf` normalise by their sum. A score
    that is undefined on every sample (``zero_division=np.nan`` and always 0/0) has an
    empty distribution: its mean, sd, quantiles and tails are NaN.
    """

    values: np.ndarray
    probs: np.ndarray
    method = "exact"  # (not a field: how the distribution was computed)

    @property
    def total(self) -> float:
        """Probability mass represented (1 up to the trimmed tails)."""
        return float(self.probs.sum())

    @property
    def mean(self) -> float:
        """Expectation."""
        if not self.total > 0:
            return float("nan")
        return float(np.dot(self.values, self.probs) / self.total)

    @property
    def sd(self) -> float:
        """Standard deviation."""
        if not self.total > 0:
            return float("nan")
        var = np.dot((self.values - self.mean) ** 2, self.probs) / self.total
        return float(np.sqrt(max(var, 0.0)))

    def quantile(self, q):
        """Smallest value ``x`` with ``P(X <= x) >= q`` (the discrete ppf), for ``q`` in [0, 1]."""
        qq = v.probability("q", q)
        if not self.total > 0:
            return _out(np.full(qq.shape, np.nan))
        cum = np.cumsum(self.probs) / self.total
        idx = np.searchsorted(cum, qq - 1e-12, side="left")
        return _out(self.values[np.minimum(idx, self.values.size - 1)])

    def sf(self, x):
        """``P(X >= x)``; values within 1e-12 of ``x`` count as equal."""
        xx = v.as_float_array("x", x)
        if not self.total > 0:
            return _out(np.full(xx.shape, np.nan))
        i = np.searchsorted(self.values, xx - 1e-12, side="left")
        tail = np.concatenate([np.cumsum(self.probs[::-1])[::-1], [0.0]]) / self.total
        return _out(np.minimum(tail[i], 1.0))

    def interval(self, confidence_level: float = 0.9):
        """Central interval ``(quantile((1-c)/2), quantile((1+c)/2))``, c the confidence level."""
        lvl = v.single("confidence_level", v.probability("confidence_level", confidence_level))
        return float(self.quantile((1 - lvl) / 2)), float(self.quantile((1 + lvl) / 2))

    def __repr__(self) -> str:
        lo, hi = self.interval(0.9)
        return (f"DiscreteDistribution(mean={self.mean:.6g}, sd={self.sd:.6g}, "
                f"90% interval=[{lo:.6g}, {hi:.6g}], support={self.values.size})")


@dataclass(frozen=True)
class ExactBinaryMetrics:
    """Exact finite-sample distributions of a binary labeller's scores."""

    accuracy: DiscreteDistribution
    precision: DiscreteDistribution
    recall: DiscreteDistribution
    f1: DiscreteDistribution
    n_pos: int
    n_neg: int
    method: str = "exact"


def _binom_support(n: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """Support and pmf of Bin(n, p), without the end points whose pmf is below 1e-22.

    The pmf is unimodal, so the mass left out is below ``n * 1e-22`` (1e-16 even for
    a million items). ``binom.ppf``/``isf`` are not used: at such tiny tail
    probabilities they return the end of the support.
    """
    if p < 1e-250 or n == 0:  # (Boost's pmf overflows for subnormal p; the mass at k >= 1 is nil)
        return np.array([0]), np.array([1.0])
    if p >= 1.0:
        return np.array([n]), np.array([1.0])
    # pmf >= 1e-22 lies within 11 sd of the mean (Chernoff), plus a margin for small n:
    # only that window is evaluated, so the cost grows with sd, not with n
    half = 11.0 * math.sqrt(n * p * (1.0 - p)) + 60.0
    k = np.arange(max(0, math.floor(n * p - half)), min(n, math.ceil(n * p + half)) + 1)
    pmf = binom.pmf(k, n, p)
    keep = np.flatnonzero(pmf >= _TRIM)
    lo, hi = keep[0], keep[-1]
    return k[lo:hi + 1], pmf[lo:hi + 1]


#: a binomial of up to this many trials enters :func:`binomial_sum_sf` with its whole pmf
#: (far tails keep their relative precision); larger ones with :func:`_binom_support`
_FULL_PMF_MAX = 100_000
#: ... and its polynomial products are direct up to this many multiplications, FFT beyond
_DIRECT_MAX = 200_000_000


def binomial_sum_sf(counts, probs, k) -> float:
    r"""P(X >= k) for X a sum of independent Bin(``counts[c]``, ``probs[c]``).

    The number right out of items in groups of equal probability (a Poisson-binomial
    with few distinct probabilities: a labeller's correct answers over classes or
    panel groups). The largest binomial enters through scipy's exact ``sf``; the
    others' pmfs are multiplied as polynomials, a tree of direct convolutions (every
    entry a sum of non-negative terms, so far tails keep their relative precision;
    numpy's FFT, absolute error ~1e-16, once a product of lengths passes 2e8), and
    :math:`P = \sum_j P(\text{rest} = j)\, P(\text{largest} \ge k - j)`. A
    binomial of more than 100,000 trials enters with its pmf >= 1e-22 only
    (:func:`_binom_support`; the mass left out is below ``n * 1e-22``), so the cost
    grows with the square root of the group sizes.

    Parameters
    ----------
    counts : array_like of int
        Trials per group (groups of 0 trials are ignored).
    probs : array_like of float
        Success probability per group, in [0, 1].
    k : int
        The threshold.

    Returns
    -------
    float

    Examples
    --------
    >>> round(binomial_sum_sf([2, 1], [0.7, 1.0], 3), 4)   # both of two at 0.7, and the sure one
    0.49
    >>> float(f"{binomial_sum_sf([100], [0.25], 80):.3g}")   # far tail, relative precision
    1.27e-30
    """
    counts = np.asarray(counts, dtype=np.int64).ravel()
    probs = np.asarray(probs, dtype=float).ravel()
    used = counts > 0
    counts, probs = counts[used], probs[used]
    k = int(k)
    if k <= 0:
        return 1.0
    if k > counts.sum():
        return 0.0
    big = int(np.argmax(counts))
    lo, pmf = _product_pmf(np.delete(counts, big), np.delete(probs, big))
    j = lo + np.arange(pmf.size)
    tail = binom.sf(k - j - 1, int(counts[big]), float(probs[big]))
    return float(min(1.0, np.dot(pmf, tail)))


def _product_pmf(counts, probs) -> tuple[int, np.ndarray]:
    """(first value, pmf) of a sum of independent Bin(counts[c], probs[c]) (a tree of products).

    Every binomial of up to :data:`_FULL_PMF_MAX` trials enters with its whole pmf, a
    larger one with its pmf >= 1e-22 (:func:`_binom_support`); the polynomials are
    multiplied by direct convolutions (relative precision in far tails) unless that
    takes seconds (FFT beyond :data:`_DIRECT_MAX` multiplications).
    """
    parts = []  # (first value, pmf) of every group
    for c, q in zip(np.asarray(counts).tolist(), np.asarray(probs).tolist()):
        if c <= 0:
            continue
        if c + 1 <= _FULL_PMF_MAX:
            parts.append((0, binom.pmf(np.arange(c + 1), c, q)))
        else:
            vals, pmf = _binom_support(c, q)
            parts.append((int(vals[0]), pmf))

    def product(a, b):  # direct (relative precision) unless that takes seconds
        if a.size * b.size <= _DIRECT_MAX:
            return np.convolve(a, b)
        return np.clip(_correlate(a, b[::-1], "full"), 0.0, None)

    while len(parts) > 1:  # a tree of pairwise products: short polynomials first
        parts = [(a0 + b0, product(a, b)) for (a0, a), (b0, b) in zip(parts[::2], parts[1::2])
                 ] + parts[len(parts) // 2 * 2:]
    return parts[0] if parts else (0, np.ones(1))


def binomial_sum_distribution(counts, probs) -> DiscreteDistribution:
    r"""The distribution of the share right, :math:`X / n`, for X a sum of Bin(``counts[c]``, ``probs[c]``).

    :math:`n = \sum_c` ``counts[c]``; the pmf is :func:`_product_pmf`'s (direct
    convolutions: far tails keep their relative precision), so :meth:`DiscreteDistribution.sf`
    agrees with :func:`binomial_sum_sf`.

    Parameters
    ----------
    counts : array_like of int
        Trials per group (>= 0, at least one > 0).
    probs : array_like of float
        Success probability per group, in [0, 1].

    Returns
    -------
    DiscreteDistribution

    Examples
    --------
    >>> d = binomial_sum_distribution([2, 1], [0.7, 1.0])
    >>> d.values.round(4).tolist(), d.probs.round(4).tolist()
    ([0.3333, 0.6667, 1.0], [0.09, 0.42, 0.49])
    """
    counts = np.asarray(counts, dtype=np.int64).ravel()
    probs = np.asarray(probs, dtype=float).ravel()
    n = int(counts[counts > 0].sum())
    if n == 0:
        raise ValueError("counts must hold at least one trial")
    lo, pmf = _product_pmf(counts, probs)
    k = lo + np.arange(pmf.size)
    keep = pmf > 0
    return DiscreteDistribution(values=k[keep] / n, probs=pmf[keep])


def _distribution(values: np.ndarray, probs: np.ndarray) -> DiscreteDistribution:
    """Leave out undefined (NaN) values, merge equal ones (within 1e-12) and sort."""
    keep = ~np.isnan(values)
    values, probs = values[keep], probs[keep]
    if values.size == 0:
        return DiscreteDistribution(values=np.empty(0), probs=np.empty(0))
    order = np.argsort(values, kind="stable")
    vals, prs = values[order], probs[order]
    new = np.concatenate([[True], np.diff(vals) > 1e-12])
    groups = np.cumsum(new) - 1
    merged = np.bincount(groups, weights=prs)
    return DiscreteDistribution(values=vals[new], probs=merged)


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
        the sample size: about a second at 10\ :sup:`9` items, half a minute at
        10\ :sup:`12`). ``"quadrature"``: :class:`QuadratureDistribution` (milliseconds
        at any size; the same as exact when both binomials have sd < 64).
        ``"auto"`` (default): exact while the two binomial supports hold at most
        600,000 points together (about 10\ :sup:`9` items at sd 0.5; exact results
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
    outer values whose pmf is below 1e-22 (so ``n`` of 10\ :sup:`4` takes a
    fraction of a second). Above 2e6 (TP, FP) pairs (about 10\ :sup:`5` items)
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


def _correlate(a, b, mode):
    """``np.correlate(a, b, mode)`` ("full" or "valid"); by numpy's FFT for long inputs."""
    if a.size * b.size <= 4_000_000:
        return np.correlate(a, b, mode)
    n = a.size + b.size - 1
    nf = 1 << (n - 1).bit_length()
    full = np.fft.irfft(np.fft.rfft(a, nf) * np.fft.rfft(b[::-1], nf), nf)[:n]
    return full if mode == "full" else full[b.size - 1:a.size]


class RatioDistribution:
    r"""Exact distribution of :math:`R = a\,TP / (TP + FP + c)` for independent binomials.

    The F1 (a = 2, c = n_pos) and precision (a = 1, c = 0) distributions of
    :func:`exact_binary_metrics` for large samples. Nothing of size
    (TP support) x (FP support) is built: with
    :math:`h_k(x) = \sum_{fp} P(FP = fp) / (x + fp)^k`,

    .. math::
        E[R^k] = \sum_{tp} P(TP = tp)\,(a\,tp)^k\,h_k(tp + c),

    where :math:`h_k` over the contiguous TP support is one correlation of the FP
    pmf with :math:`1/s^k` (direct, or by FFT for long supports: exact up to
    rounding), and

    .. math::
        P(R \ge x) = \sum_{tp} P(TP = tp)\,P(FP \le a\,tp / x - tp - c),

    one pass over the TP support with the cumulative FP pmf; a quantile bisects on
    x and returns the smallest attained value. Time and memory grow with the
    supports (about 22 sd each, so with the square root of the sample size), not
    with their product: 10\ :sup:`6` items take a few hundredths of a second,
    10\ :sup:`9` well under a second. Same methods and conventions as
    :class:`DiscreteDistribution` (values within 1e-12 count as equal);
    ``values``/``probs`` are built on request (the outer product, refused above the
    memory limit).
    """

    method = "exact"

    def __init__(self, tp, p_tp, fp, p_fp, a, c, total):
        self._tp, self._p_tp = tp.astype(float), p_tp
        self._fp, self._p_fp = fp, p_fp
        self._a, self._c = float(a), float(c)
        self.total = total
        self._cum_fp = np.cumsum(p_fp)  # P(FP <= fp), index fp - fp[0]
        s = np.arange(tp[0] + fp[0], tp[-1] + fp[-1] + 1) + self._c
        inv = np.divide(1.0, s, out=np.zeros(s.shape), where=s != 0)
        w = self._p_tp * self._a * self._tp
        m1 = float(w @ _correlate(inv, p_fp, "valid"))
        m2 = float((w * self._a * self._tp) @ _correlate(inv * inv, p_fp, "valid"))
        self.mean = m1 / total
        self.sd = float(np.sqrt(max(m2 / total - self.mean**2, 0.0)))

    def _ge(self, x):
        """P(R >= x), not normalised."""
        if x <= 0.0:
            return self.total
        with np.errstate(over="ignore"):
            fp_max = np.floor(self._a * self._tp / x - self._tp - self._c) - self._fp[0]
        idx = np.clip(fp_max, -1, self._fp.size - 1).astype(np.int64)
        cum = np.where(idx >= 0, self._cum_fp[np.maximum(idx, 0)], 0.0)
        return float(self._p_tp @ cum)

    def _values_above(self, lo):
        """Smallest attained value > lo."""
        if lo < 0.0 and self._tp[0] == 0:
            return 0.0
        tp = self._tp[self._tp > 0]
        with np.errstate(over="ignore"):
            fp_max = (np.ceil(self._a * tp / lo - tp - self._c) - 1 if lo > 0
                      else np.full(tp.shape, float(self._fp[-1])))
        fp_max = np.minimum(fp_max, self._fp[-1])
        ok = fp_max >= self._fp[0]
        vals = self._a * tp[ok] / (tp[ok] + fp_max[ok] + self._c)
        vals = vals[vals > lo]
        return float(vals.min()) if vals.size else self._max

    @property
    def _max(self):
        tp = self._tp[-1]
        return self._a * tp / (tp + self._fp[0] + self._c)

    def _quantile1(self, q):
        target = (q - 1e-12) * self.total  # smallest attained v with P(R <= v) >= target
        eps = 1e-13  # P(R <= x) is taken as P(R < x + eps): robust to rounding of a tp / x
        if target <= 0.0:
            return self._values_above(-1.0)
        lo, hi = -1.0, self._max
        while hi - lo > 2e-14:
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi:
                break
            if self.total - self._ge(mid + eps) >= target:
                hi = mid
            else:
                lo = mid
        return self._values_above(lo + 0.5 * eps)

    def quantile(self, q):
        """Smallest value ``x`` with ``P(X <= x) >= q`` (the discrete ppf), for ``q`` in [0, 1]."""
        qq = v.probability("q", q)
        out = np.array([self._quantile1(float(x)) for x in qq.ravel()]).reshape(qq.shape)
        return _out(out)

    def sf(self, x):
        """``P(X >= x)``; values within 1e-12 of ``x`` count as equal."""
        xx = v.as_float_array("x", x)
        out = np.array([min(self._ge(float(y) - 1e-12) / self.total, 1.0) for y in xx.ravel()])
        return _out(out.reshape(xx.shape))

    def interval(self, confidence_level: float = 0.9):
        """Central interval ``(quantile((1-c)/2), quantile((1+c)/2))``, c the confidence level."""
        lvl = v.single("confidence_level", v.probability("confidence_level", confidence_level))
        return float(self.quantile((1 - lvl) / 2)), float(self.quantile((1 + lvl) / 2))

    def _outer(self):
        n_pairs = self._tp.size * self._fp.size
        v.memory(f"the {n_pairs} values of the distribution", 96.0 * n_pairs,
                 "use mean, sd, quantile and sf instead")
        den = self._tp[:, None] + self._fp[None, :] + self._c
        return _distribution((self._a * self._tp[:, None] / den).ravel(),
                             (self._p_tp[:, None] * self._p_fp[None, :]).ravel())

    @property
    def values(self) -> np.ndarray:
        """Sorted distinct values (built on request: memory grows with the sample size)."""
        return self._outer().values

    @property
    def probs(self) -> np.ndarray:
        """Their probabilities (built on request, like ``values``)."""
        return self._outer().probs

    def __repr__(self) -> str:
        lo, hi = self.interval(0.9)
        return (f"RatioDistribution(mean={self.mean:.6g}, sd={self.sd:.6g}, "
                f"90% interval=[{lo:.6g}, {hi:.6g}], pairs={self._tp.size * self._fp.size})")


def _binom_nodes(n: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """Quadrature nodes and weights of Bin(n, p): its pmf every ``h`` points, times ``h``.

    ``h`` is the largest prime <= sd / 16: 16 nodes or more per standard deviation
    over the support of :func:`_binom_support` (pmf >= 1e-22). The trapezoid rule with
    this step sums a function smooth on the scale of ``sd`` against the pmf to
    rounding: the pmf extends to an entire function of ``k`` decaying like a Gaussian,
    so the error falls like exp(-2 pi^2 (sd / h)^2) < 1e-2000. (A prime step shares no
    factor with the period of a lattice of the scores, e.g. F1 = 3/13.) Below sd 1024
    every point is a node (weight = pmf: the exact sum).
    """
    sd = math.sqrt(n * p * (1.0 - p))
    if sd < _QUAD_MIN_SD:
        return _binom_support(n, p)
    h = _prime_at_most(max(2, int(sd // _NODES_PER_SD)))
    half = 11.0 * sd + 60.0
    lo, hi = max(0, math.floor(n * p - half)), min(n, math.ceil(n * p + half))
    k = lo + h * np.arange((hi - lo) // h + 1, dtype=np.int64)
    pmf = binom.pmf(k, n, p)
    keep = np.flatnonzero(pmf >= _TRIM)
    return k[keep[0]:keep[-1] + 1], h * pmf[keep[0]:keep[-1] + 1]


class _Cdf:
    """P(X <= k) and P(X > k) of X ~ Bin(n, p) at whole ``k``, fast near the mean too.

    Boost's binomial cdf (scipy's) takes time near the mean of a huge binomial: 0.3 ms
    per value at n = 10^12 (3 ms at 10^15, against 1 us in the tails). Within 2 sd of
    the mean the cdf of a binomial with sd >= 1024 comes from a Chebyshev interpolant
    of the incomplete beta function I_p(k + 1, n - k) (smooth in k, equal to the cdf at
    whole k), fitted once at 48 points; it agrees with Boost's values to their own
    precision (2e-12 at n = 10^9, 5e-11 at 10^12).
    """

    def __init__(self, n: int, p: float):
        self.n, self.p = n, p
        self.mu, self.sd = n * p, math.sqrt(n * p * (1.0 - p))
        self._coef = None
        if self.sd >= _QUAD_MIN_SD:
            from numpy.polynomial import chebyshev
            from scipy import special

            z = 2.0 * np.cos(np.pi * (np.arange(48) + 0.5) / 48)
            k = self.mu + self.sd * z
            self._coef = chebyshev.chebfit((k - self.mu) / (2.0 * self.sd),
                                           1.0 - special.betainc(k + 1.0, n - k, p), 47)

    def _tail(self, k, upper: bool):
        """P(X > k) if ``upper`` else P(X <= k): the interpolant within 2 sd, Boost beyond."""
        from numpy.polynomial import chebyshev

        k = np.asarray(k, dtype=float)
        boost = binom.sf if upper else binom.cdf
        if self._coef is None:
            return boost(k, self.n, self.p)
        z = (k - self.mu) / (2.0 * self.sd)
        inside = np.abs(z) <= 1.0
        val = chebyshev.chebval(z[inside], self._coef)
        out = np.empty(k.shape)
        out[inside] = 1.0 - val if upper else val  # (0.02 to 0.98 there: no digits lost)
        out[~inside] = boost(k[~inside], self.n, self.p)
        return out

    def cdf(self, k):
        """P(X <= k) for whole ``k`` (an array)."""
        return self._tail(k, upper=False)

    def sf(self, k):
        """P(X > k) for whole ``k`` (an array)."""
        return self._tail(k, upper=True)


def _prime_at_most(h: int) -> int:
    """The largest prime <= h (h >= 2): a step sharing no factor with the staircase's period."""
    while h > 2 and any(h % d == 0 for d in range(2, math.isqrt(h) + 1)):
        h -= 1
    return h


class QuadratureDistribution:
    r"""A score of (TP, FP) for samples too large to enumerate, by quadrature over the binomials.

    Used by :func:`exact_binary_metrics` and :func:`exact_f1` with
    ``method="quadrature"``, and with ``method="auto"`` above 600,000 binomial support
    points (about 10\ :sup:`9` items), for F1 and precision (``kind="ratio"``,
    :math:`R = a\,TP / (TP + FP + c)`), accuracy (:math:`(TP - FP + n_{neg}) / n`) and
    recall (:math:`TP / n_{pos}`). Time and memory do not grow with the sample size:
    F1's mean, sd and three quantiles take about 0.03 s at 10\ :sup:`10` items and at
    10\ :sup:`15` (the exact method: 2.4 s at 10\ :sup:`10`, 32 s and 2.6 GB at
    10\ :sup:`12`).

    Method. Each binomial is represented by nodes: every point of its support when
    its sd is below 1024, else its pmf every ``h`` points weighted by ``h`` (the
    trapezoid rule, ``h`` the largest prime <= sd / 16). Moments are the double sum
    over both node sets. A tail is a single sum, over the nodes of the binomial that
    is narrower than the other's cdf step seen through the score's level line (a
    binomial summed point by point is always chosen), with the other binomial's exact
    cdf (scipy's Boost, from a Chebyshev interpolant within 2 sd of its mean, where
    Boost is slow for huge n):

    .. math::
        P(R \ge x) = \sum_j w_j\,P(FP \le \lfloor a t_j / x - t_j - c \rfloor)
        \quad\text{or}\quad \sum_i w_i\,P(TP \ge \lceil x (f_i + c) / (a - x) \rceil).

    A quantile bisects :meth:`sf` to 2e-14 and moves to the smallest attained value
    above (searched among 65,536 TP or FP values around the level line); accuracy
    and recall have closed-form moments, recall's tails and quantiles are the exact
    binomial ones.

    Accuracy (against the exact method where both run: 10\ :sup:`5` to
    10\ :sup:`8` items in the tests, 10\ :sup:`9` to 10\ :sup:`10` once by hand):
    means and sds to rounding (1e-14 relative; the exact method's sd, computed as
    E[R^2] - E[R]^2, is the less precise of the two, by up to 1e-6 at 10\ :sup:`10`
    items); with a binomial of sd < 1024 the result is exact (tails and quantiles to
    1e-13). Otherwise the tails sum a staircase (a cdf at whole arguments) every
    ``h`` points: their error is at most twice the largest pmf of the binomial
    entering by its cdf (0.8 / sd, below 8e-4); measured, at most 6e-6 with quantiles
    within 1e-4 sd at 10\ :sup:`7` to 10\ :sup:`8` items (sd 1,000 to 5,000), and
    2e-6 with quantiles within 1.1e-5 sd at 10\ :sup:`9` to 10\ :sup:`10` (where
    ``"auto"`` switches), falling like 1 / sd. Boost's binomial cdf itself is good to about 1e-12 at
    10\ :sup:`9` items and 1e-10 at 10\ :sup:`12`. The 0/0 case (TP = FP = 0 with
    c = 0) has probability below 1e-22 here and is left out.

    Counts are floats here: beyond 2**53 (9e15 items) they are rounded (relative 1e-16).
    Same methods and conventions as :class:`DiscreteDistribution` (values within
    1e-12 count as equal); ``values``/``probs`` are not available.
    """

    method = "quadrature"

    def __init__(self, kind: str, tp: tuple, fp: tuple, a: float = 1.0, c: float = 0.0,
                 n_neg: int = 0):
        self._kind = kind
        self._a, self._c = float(a), float(c)
        (self._nt, self._st), (self._nf, self._sf) = tp, fp  # (n, success probability)
        self._n_neg, self._n = n_neg, tp[0] + fp[0]
        self._cdf_t, self._cdf_f = _Cdf(*tp), _Cdf(*fp)
        self.total = 1.0
        if kind == "recall":
            n, p = tp
            self.mean, self.sd = p, math.sqrt(p * (1.0 - p) / n)
            return
        t, wt = _binom_nodes(*tp)
        f, wf = _binom_nodes(*fp)
        self._t, self._wt = t.astype(float), wt / wt.sum()
        self._f, self._wf = f.astype(float), wf / wf.sum()
        self._sd_t = math.sqrt(tp[0] * tp[1] * (1 - tp[1]))
        self._sd_f = math.sqrt(fp[0] * fp[1] * (1 - fp[1]))
        if kind == "accuracy":
            var = (tp[0] * tp[1] * (1 - tp[1]) + fp[0] * fp[1] * (1 - fp[1])) / self._n ** 2
            self.mean = (tp[0] * tp[1] - fp[0] * fp[1] + n_neg) / self._n
            self.sd = math.sqrt(var)
            return
        r = self._value(self._t[:, None], self._f[None, :])
        self.mean = float(self._wt @ r @ self._wf)
        self.sd = float(np.sqrt(self._wt @ (r - self.mean) ** 2 @ self._wf))

    def _outer_tp(self, slope: float) -> bool:
        """Whether P(R >= x) sums over TP (with FP's cdf) rather than over FP (with TP's tail).

        A binomial with every point a node (sd < 64) is summed: the result is then
        exact. Otherwise the one narrower than the other's cdf step seen through
        ``FP = slope * TP - c`` is summed, so that the nodes resolve that step.
        """
        if self._sd_t < _QUAD_MIN_SD or self._sd_f < _QUAD_MIN_SD:
            return self._sd_t < _QUAD_MIN_SD
        return self._sd_t * abs(slope) <= self._sd_f

    def _value(self, t, f):
        if self._kind == "accuracy":
            return (t - f + self._n_neg) / self._n
        den = t + f + self._c
        return self._a * t / np.where(den > 0, den, np.inf)

    def _ge(self, x: float) -> float:
        """P(R >= x)."""
        if self._kind == "recall":  # R >= x  <=>  TP >= x n_pos
            return float(self._cdf_t.sf(math.ceil(x * self._nt) - 1))
        if self._kind == "accuracy":  # TP - FP >= d
            d = x * self._n - self._n_neg
            if self._outer_tp(1.0):
                return float(self._wt @ self._cdf_f.cdf(np.floor(self._t - d)))
            return float(self._wf @ self._cdf_t.sf(np.ceil(self._f + d) - 1))
        if x <= 0.0:
            return 1.0
        a, c = self._a, self._c
        if self._outer_tp(a / x - 1.0):  # FP <= a TP / x - TP - c
            with np.errstate(over="ignore"):
                lim = np.floor(a * self._t / x - self._t - c)
            return float(self._wt @ self._cdf_f.cdf(np.minimum(lim, self._nf)))
        if x > a:
            return 0.0
        s = self._f + c  # TP (a - x) >= x (FP + c)
        with np.errstate(divide="ignore", invalid="ignore"):
            need = np.where(s > 0, np.ceil(x * s / (a - x)), 1.0)  # (FP + c = 0: R = a if TP > 0)
        need = np.minimum(need, self._nt + 1.0)
        return float(self._wf @ self._cdf_t.sf(need - 1))

    def sf(self, x):
        """``P(X >= x)``; values within 1e-12 of ``x`` count as equal."""
        xx = v.as_float_array("x", x)
        out = np.array([min(self._ge(float(y) - 1e-12), 1.0) for y in xx.ravel()])
        return _out(out.reshape(xx.shape))

    def _bounds(self) -> tuple[float, float]:
        """The smallest and the largest value."""
        if self._kind == "recall":
            return 0.0, 1.0
        t0, t1, f0, f1 = self._t[0], self._t[-1], self._f[0], self._f[-1]
        return float(self._value(t0, f1)), float(self._value(t1, f0))

    def _quantile1(self, q: float) -> float:
        if self._kind == "recall":  # the binomial quantile, exactly: bisection on the cdf
            lo, hi = -1, self._nt  # cdf(lo) < q <= cdf(hi)
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if float(self._cdf_t.cdf(mid)) >= q - 1e-12:
                    hi = mid
                else:
                    lo = mid
            return hi / self._nt
        eps = 1e-13  # as RatioDistribution: P(R <= x) is taken as P(R < x + eps)
        lo, hi = self._bounds()
        if q - 1e-12 <= 0.0:
            return lo
        lo -= 1e-9
        while hi - lo > 2e-14:
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi:
                break
            if 1.0 - self._ge(mid + eps) >= q - 1e-12:
                hi = mid
            else:
                lo = mid
        return self._values_above(lo + 0.5 * eps, hi)

    def _values_above(self, lo: float, fallback: float) -> float:
        """The smallest attained value above ``lo`` (``fallback`` if none is found)."""
        t0, t1, f0, f1 = self._t[0], self._t[-1], self._f[0], self._f[-1]
        if self._kind == "accuracy":  # the lattice (d + n_neg) / n, d = TP - FP
            d = min(max(math.floor(lo * self._n - self._n_neg) + 1, t0 - f1), t1 - f0)
            while (d + self._n_neg) / self._n <= lo and d < t1 - f0:
                d += 1
            return (d + self._n_neg) / self._n
        a, c, block = self._a, self._c, 1 << 16
        if lo < 0.0 and t0 == 0:
            return 0.0
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if lo <= 0 or self._outer_tp(a / lo - 1.0):
                # each TP with the largest FP that keeps R above lo
                centre = lo * (self._nf * self._sf + c) / (a - lo) if lo > 0 else t1
                ts = _window(t0, t1, centre, block)
                ts = ts[ts > 0]
                fs = (np.ceil(a * ts / lo - ts - c) - 1 if lo > 0 else np.full(ts.shape, f1))
                fs = np.minimum(fs, f1)
            else:  # each FP with the smallest TP that keeps R above lo
                centre = (self._nt * self._st * (a - lo) / lo - c) if lo > 0 else f0
                fs = _window(f0, f1, centre, block)
                ts = (np.floor(lo * (fs + c) / (a - lo)) + 1 if lo > 0 else np.ones(fs.shape))
                ts = np.maximum(ts, max(t0, 1.0))
            ok = (fs >= f0) & (fs <= f1) & (ts >= t0) & (ts <= t1)
            vals = self._value(ts[ok], fs[ok])
        vals = vals[vals > lo]
        return float(vals.min()) if vals.size else fallback

    def quantile(self, q):
        """Smallest value ``x`` with ``P(X <= x) >= q`` (the discrete ppf), for ``q`` in [0, 1]."""
        qq = v.probability("q", q)
        out = np.array([self._quantile1(float(x)) for x in qq.ravel()]).reshape(qq.shape)
        return _out(out)

    def interval(self, confidence_level: float = 0.9):
        """Central interval ``(quantile((1-c)/2), quantile((1+c)/2))``, c the confidence level."""
        lvl = v.single("confidence_level", v.probability("confidence_level", confidence_level))
        return float(self.quantile((1 - lvl) / 2)), float(self.quantile((1 + lvl) / 2))

    @property
    def values(self):
        """Not available: the support is too large to list (use mean, sd, quantile and sf)."""
        raise ValueError("values: a QuadratureDistribution is not enumerated (the sample is too "
                         "large); use mean, sd, quantile and sf, or method='exact'")

    @property
    def probs(self):
        """Not available (see ``values``)."""
        return self.values

    def __repr__(self) -> str:
        lo, hi = self.interval(0.9)
        return (f"QuadratureDistribution({self._kind}, mean={self.mean:.6g}, sd={self.sd:.6g}, "
                f"90% interval=[{lo:.6g}, {hi:.6g}])")


def _window(lo: float, hi: float, centre: float, size: int) -> np.ndarray:
    """Up to ``size`` whole numbers in [lo, hi], around ``centre``, as floats."""
    if hi - lo < size:
        return np.arange(lo, hi + 1.0)
    start = min(max(math.floor(centre) - size // 2, lo), hi - size + 1)
    return start + np.arange(float(size))


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
        As :func:`exact_binary_metrics`: ``"auto"`` is exact up to about 10\ :sup:`9`
        items (600,000 binomial support points) and :class:`QuadratureDistribution`
        beyond (milliseconds at any size; means and sds to rounding, quantiles within
        about 1e-5 sd of exact near the switch); ``"exact"`` at 10\ :sup:`12` items
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
    >>> from labelvar.analytic import expected_f1
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
