"""The exact distribution of a ratio metric (F1, precision) in O(support) memory.

:class:`RatioDistribution`, used by :mod:`labelvar.analytic._distributions` above its outer-product
size.
"""

from __future__ import annotations

import numpy as np

from labelvar._base import _validate as v
from labelvar._base._defaults import CONFIDENCE_LEVEL
from labelvar.analytic._dist_types import _correlate, _distribution, _out


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
    with their product: 10⁶ items take a few hundredths of a second,
    10⁹ well under a second. Same methods and conventions as
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

    def interval(self, confidence_level: float = CONFIDENCE_LEVEL):
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
        lo, hi = self.interval()
        return (f"RatioDistribution(mean={self.mean:.6g}, sd={self.sd:.6g}, "
                f"{100 * CONFIDENCE_LEVEL:g}% interval=[{lo:.6g}, {hi:.6g}], "
                f"pairs={self._tp.size * self._fp.size})")
