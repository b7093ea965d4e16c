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


def exact_binary_metrics(n_pos, n_neg, sensitivity, specificity, zero_division=0.0):
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

    Returns
    -------
    ExactBinaryMetrics
        ``accuracy, precision, recall, f1`` as :class:`DiscreteDistribution`.

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
    accuracy is one convolution of the two pmfs.
    A p_d-following expert has ``sensitivity = specificity = p_d``;
    a labeller that says "positive" with probability ``r`` whatever the item has
    ``sensitivity = r``, ``specificity = 1 - r``.

    Examples
    --------
    >>> e = exact_binary_metrics(10, 90, 0.9, 0.9)
    >>> round(e.recall.mean, 6), round(e.accuracy.mean, 6)
    (0.9, 0.9)
    >>> round(e.precision.mean, 4)   # the ratio of expectations says 0.5
    0.5114
    """
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
            p_diff = np.clip(_correlate(p_tp, p_fp, "full"), 0.0, None)
            diff = np.arange(tp[0] - fp[-1], tp[-1] - fp[0] + 1)
            keep = p_diff > 0
            return ExactBinaryMetrics(
                accuracy=DiscreteDistribution((diff[keep] + nneg) / n, p_diff[keep]),
                precision=RatioDistribution(tp, p_tp, fp, p_fp, 1.0, 0.0, total),
                recall=(DiscreteDistribution(tp / npos, p_tp) if npos > 0 else
                        _distribution(np.full(tp.shape, zd), p_tp)),
                f1=RatioDistribution(tp, p_tp, fp, p_fp, 2.0, float(npos), total),
                n_pos=npos,
                n_neg=nneg,
            )
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

    return ExactBinaryMetrics(
        accuracy=_distribution((TP + nneg - FP) / n, P),
        precision=dist(TP, TP + FP),
        recall=dist(TP, np.full_like(TP, float(npos))),
        f1=dist(2 * TP, TP + FP + npos),
        n_pos=npos,
        n_neg=nneg,
    )


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


def exact_f1(p_d, m, n_items, zero_division=0.0):
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

    Returns
    -------
    DiscreteDistribution
        With ``.mean``, ``.sd``, ``.quantile(q)``, ``.interval(confidence_level)``, ``.sf(x)``.

    Notes
    -----
    :math:`TP \sim \mathrm{Bin}(mn, p_d)`, :math:`FP \sim \mathrm{Bin}((1-m)n, 1-p_d)`,
    :math:`F_1 = 2TP / (TP + FP + mn)`. As :math:`n \to \infty` the mean tends to
    :func:`labelvar.analytic.expected_f1` (the paper's ratio of expectations); for small :math:`n`
    they differ, and the spread is wide.

    Examples
    --------
    >>> from labelvar.analytic import expected_f1
    >>> d = exact_f1(0.6, 0.1, 100)
    >>> round(d.mean, 4), round(d.sd, 4), round(expected_f1(0.6, 0.1), 4)
    (0.231, 0.0575, 0.2308)
    >>> d.interval(0.9)
    (0.13333333333333333, 0.32558139534883723)
    """
    p = v.single("p_d", v.probability("p_d", p_d))
    mm = v.single("m", v.probability("m", m))
    nn = v.single("n_items", v.integer("n_items", n_items, lo=1))
    npos = int(n_positives(mm, nn))
    return exact_binary_metrics(npos, nn - npos, p, p, zero_division=zero_division).f1
