"""The result types of the exact metric distributions and the trimmed binomial support.

:class:`DiscreteDistribution`, :class:`ExactBinaryMetrics`, the pmf trim and the
quadrature thresholds shared by :mod:`labelvar.analytic._distributions` and its pieces.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from labelvar._base import _validate as v
from labelvar._base._binom import binom
from labelvar._base._defaults import CONFIDENCE_LEVEL

# Binomial pmf values below this are left out of the exact finite-sample
# distributions (the mass left out is far below double-precision resolution of 1).
_TRIM = 1e-22

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

    Attributes
    ----------
    values : ndarray
        The sorted distinct values of the score.
    probs : ndarray
        Their probabilities.
    method : str
        How the distribution was computed: ``"exact"`` (this class and
        :class:`RatioDistribution`) or ``"quadrature"`` (:class:`QuadratureDistribution`).
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

    def interval(self, confidence_level: float = CONFIDENCE_LEVEL):
        """Central interval ``(quantile((1-c)/2), quantile((1+c)/2))``, c the confidence level."""
        lvl = v.single("confidence_level", v.probability("confidence_level", confidence_level))
        return float(self.quantile((1 - lvl) / 2)), float(self.quantile((1 + lvl) / 2))

    def __repr__(self) -> str:
        lo, hi = self.interval()
        return (f"DiscreteDistribution(mean={self.mean:.6g}, sd={self.sd:.6g}, "
                f"{100 * CONFIDENCE_LEVEL:g}% interval=[{lo:.6g}, {hi:.6g}], support={self.values.size})")


@dataclass(frozen=True)
class ExactBinaryMetrics:
    """Exact finite-sample distributions of a binary labeller's scores.

    Attributes
    ----------
    accuracy, precision, recall, f1 : DiscreteDistribution
        The distribution of each score over samples of ``n_pos + n_neg`` items
        (:class:`RatioDistribution` or :class:`QuadratureDistribution` for large samples).
    n_pos, n_neg : int
        The numbers of positive and negative items (by the majority label).
    method : str
        ``"exact"`` or ``"quadrature"``, as chosen by ``method`` (``"auto"``: by size).
    """

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


def _correlate(a, b, mode):
    """``np.correlate(a, b, mode)`` ("full" or "valid"); by numpy's FFT for long inputs."""
    if a.size * b.size <= 4_000_000:
        return np.correlate(a, b, mode)
    n = a.size + b.size - 1
    nf = 1 << (n - 1).bit_length()
    full = np.fft.irfft(np.fft.rfft(a, nf) * np.fft.rfft(b[::-1], nf), nf)[:n]
    return full if mode == "full" else full[b.size - 1:a.size]
