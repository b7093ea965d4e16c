"""Sums of independent binomials: the exact survival function and distribution.

:func:`binomial_sum_sf` and :func:`binomial_sum_distribution` (re-exported by
:mod:`labelvar.analytic._distributions`).
"""

from __future__ import annotations

import numpy as np

from labelvar._base._binom import binom
from labelvar.analytic._dist_types import DiscreteDistribution, _binom_support, _correlate

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
