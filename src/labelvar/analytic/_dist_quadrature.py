"""Quadrature distributions of the metrics for very large binomial supports.

:class:`QuadratureDistribution` and its binomial node set and CDF (``_Cdf``), used by
:mod:`labelvar.analytic._distributions` when the exact support is too wide.
"""

from __future__ import annotations

import math

import numpy as np

from labelvar._base import _validate as v
from labelvar._base._binom import binom
from labelvar._base._defaults import CONFIDENCE_LEVEL
from labelvar.analytic._dist_types import _NODES_PER_SD, _QUAD_MIN_SD, _TRIM, _binom_support, _out


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
    points (about 10⁹ items), for F1 and precision (``kind="ratio"``,
    :math:`R = a\,TP / (TP + FP + c)`), accuracy (:math:`(TP - FP + n_{neg}) / n`) and
    recall (:math:`TP / n_{pos}`). Time and memory do not grow with the sample size:
    F1's mean, sd and three quantiles take about 0.03 s at 10¹⁰ items and at
    10¹⁵ (the exact method: 2.4 s at 10¹⁰, 32 s and 2.6 GB at
    10¹²).

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

    Accuracy (against the exact method where both run: 10⁵ to
    10⁸ items in the tests, 10⁹ to 10¹⁰ once by hand):
    means and sds to rounding (1e-14 relative; the exact method's sd, computed as
    E[R^2] - E[R]^2, is the less precise of the two, by up to 1e-6 at 10¹⁰
    items); with a binomial of sd < 1024 the result is exact (tails and quantiles to
    1e-13). Otherwise the tails sum a staircase (a cdf at whole arguments) every
    ``h`` points: their error is at most twice the largest pmf of the binomial
    entering by its cdf (0.8 / sd, below 8e-4); measured, at most 6e-6 with quantiles
    within 1e-4 sd at 10⁷ to 10⁸ items (sd 1,000 to 5,000), and
    2e-6 with quantiles within 1.1e-5 sd at 10⁹ to 10¹⁰ (where
    ``"auto"`` switches), falling like 1 / sd. Boost's binomial cdf itself is good to about 1e-12 at
    10⁹ items and 1e-10 at 10¹². The 0/0 case (TP = FP = 0 with
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

    def interval(self, confidence_level: float = CONFIDENCE_LEVEL):
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
        lo, hi = self.interval()
        return (f"QuadratureDistribution({self._kind}, mean={self.mean:.6g}, sd={self.sd:.6g}, "
                f"{100 * CONFIDENCE_LEVEL:g}% interval=[{lo:.6g}, {hi:.6g}])")


def _window(lo: float, hi: float, centre: float, size: int) -> np.ndarray:
    """Up to ``size`` whole numbers in [lo, hi], around ``centre``, as floats."""
    if hi - lo < size:
        return np.arange(lo, hi + 1.0)
    start = min(max(math.floor(centre) - size // 2, lo), hi - size + 1)
    return start + np.arange(float(size))
