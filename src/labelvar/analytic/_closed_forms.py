r"""Closed forms of the coin-toss paradigm (paper sections 2 and 2.1), and exact distributions.

An expert agrees with the majority ("ground-truth") label of an item with
probability :math:`p_d`, independently across items. With :math:`N` items of
which a fraction :math:`m` are positive, the number of items the expert gets
right is :math:`X \sim \mathrm{Binomial}(N, p_d)`, and for the positive class
:math:`TP \sim \mathrm{Bin}(mN, p_d)`, :math:`FP \sim \mathrm{Bin}((1-m)N, 1-p_d)`.

Every function broadcasts its array arguments against each other like
``scipy.stats``; upper tails use ``sf`` (never ``1 - cdf``) so that tiny
probabilities keep their digits. Bad input raises :class:`ValueError` with one
line naming the argument and the allowed range.

Beyond the paper: the paper's :math:`E(F_1)` is a ratio of expectations, not the
expectation of :math:`F_1` on a finite sample. :func:`exact_f1` and
:func:`exact_binary_metrics` give the exact finite-sample distributions (beyond
about 10⁹ items, where exact sums take seconds to minutes, a quadrature:
:class:`QuadratureDistribution`, moments to rounding, quantiles within about 1e-5 sd).
"""

# This folder is the part "closed forms and exact distributions": this module (the paper's
# expectations, tails and tables) and _distributions with _dist_types, _binomial_sum,
# _dist_ratio and _dist_quadrature (exact finite-sample distributions). It may import the
# foundations (labelvar._base) only.

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from labelvar._base import _validate as v
from labelvar._base._binom import binom
from labelvar._base._counts import ceil_count, floor_count, n_positives
from labelvar._base._defaults import CONFIDENCE_LEVEL
from labelvar._base._docs import fill
from labelvar.analytic._distributions import (
    DiscreteDistribution,
    ExactBinaryMetrics,
    QuadratureDistribution,
    RatioDistribution,
    _out,
    binomial_sum_sf,
    exact_binary_metrics,
    exact_f1,
)

__all__ = [
    "Confusion",
    "DiscreteDistribution",
    "ExactBinaryMetrics",
    "QuadratureDistribution",
    "RatioDistribution",
    "StratifiedExpectation",
    "accuracy_se",
    "ceil_count",
    "exact_binary_metrics",
    "exact_f1",
    "expectation_table",
    "expected_accuracy",
    "expected_confusion",
    "expected_f1",
    "expected_precision",
    "expected_recall",
    "floor_count",
    "n_positives",
    "paper_table1",
    "paper_table2",
    "prob_accuracy_at_least",
    "prob_accuracy_between",
    "prob_correct_at_least",
    "prob_correct_at_least_heterogeneous",
    "prob_random_accuracy_at_least",
    "random_accuracy",
    "stratified_expectation",
]

# --------------------------------------------------------------------------- accuracy
@fill
def expected_accuracy(p_d):
    r"""Expected accuracy of a labeller who agrees with the majority with probability ``p_d``.

    Parameters
    ----------
    {{p_d}}

    Returns
    -------
    float or ndarray
        :math:`E(\mathrm{Accuracy})`.

    Notes
    -----
    Paper eq. (2): :math:`E(\mathrm{Accuracy}) = p_d`.

    Examples
    --------
    >>> expected_accuracy(0.6)
    0.6
    """
    return _out(v.probability("p_d", p_d))


@fill
def accuracy_se(p_d, n_items):
    r"""Standard error of the observed accuracy on ``n_items`` items.

    Parameters
    ----------
    {{p_d}}
    {{n_items}}

    Returns
    -------
    float or ndarray

    Notes
    -----
    Paper eq. (3): :math:`SE = \sqrt{p_d (1 - p_d) / N}`.

    Examples
    --------
    >>> round(accuracy_se(0.6, 100), 6)
    0.04899
    """
    p = v.probability("p_d", p_d)
    nn = v.integer("n_items", n_items, lo=1)
    v.broadcast(p_d=p, n_items=nn)
    return _out(np.sqrt(p * (1.0 - p) / nn))


@fill
def prob_correct_at_least(p_d, n_items, k):
    r"""Probability of at least ``k`` correct of ``n_items`` items: :math:`P(X \ge k)`.

    Parameters
    ----------
    {{p_d}}
    {{n_items}}
    k : array_like
        Number of correct items :math:`r_c`, a whole number in [0, n].

    Returns
    -------
    float or ndarray
        :math:`P(X \ge k)` with :math:`X \sim \mathrm{Binomial}(n, p_d)`.

    Notes
    -----
    Paper eq. (4): :math:`P(\mathrm{Accuracy} \ge r_c) = 1 - \sum_{j=0}^{r_c - 1}
    \binom{N}{j} p_d^j (1 - p_d)^{N-j}`, evaluated as ``binom.sf(k - 1, n, p_d)``
    so that tiny upper tails are exact (no cancellation).

    Examples
    --------
    >>> round(prob_correct_at_least(0.6, 100, 50), 4)
    0.9832
    >>> float(f"{prob_correct_at_least(0.25, 100, 80):.3g}")
    1.27e-30
    """
    p = v.probability("p_d", p_d)
    nn = v.integer("n_items", n_items, lo=1)
    kk = v.integer("k", k, lo=0)
    v.broadcast(p_d=p, n_items=nn, k=kk)
    kk = v.integer("k", kk, hi=nn)
    return _out(binom.sf(kk - 1, nn, p))


@fill
def prob_accuracy_at_least(p_d, n_items, threshold):
    r"""Probability that the accuracy on ``n_items`` items is at least the fraction ``threshold``.

    Parameters
    ----------
    {{p_d}}
    {{n_items}}
    threshold : array_like
        Accuracy threshold in [0, 1].

    Returns
    -------
    float or ndarray
        :math:`P(X/N \ge t) = P(X \ge k)` with :math:`k = \lceil t N \rceil` (t the threshold).

    Notes
    -----
    :math:`k` is computed robustly (:func:`ceil_count`): ``0.8 * 100`` gives 80, not 81.

    Examples
    --------
    >>> round(prob_accuracy_at_least(0.9, 100, 0.8), 4)
    0.9992
    """
    p = v.probability("p_d", p_d)
    nn = v.integer("n_items", n_items, lo=1)
    aa = v.probability("threshold", threshold)
    v.broadcast(p_d=p, n_items=nn, threshold=aa)
    return _out(binom.sf(ceil_count(aa, nn) - 1, nn, p))


@fill
def prob_accuracy_between(p_d, n_items, lo, hi):
    r"""Probability that the accuracy on ``n_items`` items lies in ``[lo, hi]`` (inclusive).

    Parameters
    ----------
    {{p_d}}
    {{n_items}}
    lo, hi : array_like
        Accuracy bounds in [0, 1], ``lo <= hi``.

    Returns
    -------
    float or ndarray
        :math:`P(\lceil lo\,n \rceil \le X \le \lfloor hi\,n \rfloor)`.

    Notes
    -----
    Computed as ``sf(k_lo - 1) - sf(k_hi)`` when the interval lies above the mean
    and as ``cdf(k_hi) - cdf(k_lo - 1)`` otherwise, so that the two terms being
    subtracted are the small ones.

    Examples
    --------
    Section 5.2 of the paper: for :math:`p_d = 0.6` and 100 items,

    >>> round(prob_accuracy_between(0.6, 100, 0.5, 0.6), 2)
    0.52
    >>> round(prob_accuracy_between(0.6, 100, 0.5, 0.7), 2)
    0.97
    """
    p = v.probability("p_d", p_d)
    nn = v.integer("n_items", n_items, lo=1)
    lo_ = v.probability("lo", lo)
    hi_ = v.probability("hi", hi)
    v.broadcast(p_d=p, n_items=nn, lo=lo_, hi=hi_)
    lo_b, hi_b = np.broadcast_arrays(lo_, hi_)
    if np.any(lo_b > hi_b):
        bad = lo_b > hi_b
        raise ValueError(f"lo must be <= hi, got lo={v._show(lo_b[bad])}, hi={v._show(hi_b[bad])}")
    k_lo = ceil_count(lo_, nn)
    k_hi = floor_count(hi_, nn)
    upper = k_lo > nn * p
    via_sf = binom.sf(k_lo - 1, nn, p) - binom.sf(k_hi, nn, p)
    via_cdf = binom.cdf(k_hi, nn, p) - binom.cdf(k_lo - 1, nn, p)
    out = np.where(upper, via_sf, via_cdf)
    return _out(np.clip(np.where(k_lo > k_hi, 0.0, out), 0.0, 1.0))


def random_accuracy(n_labels):
    r"""Expected accuracy of a random labeller choosing uniformly among ``L`` labels: :math:`1/L`.

    Parameters
    ----------
    n_labels : array_like
        Number of labels :math:`L`, a whole number >= 2.

    Returns
    -------
    float or ndarray
        :math:`p_r = 1/L`.

    Notes
    -----
    Paper section 2: the random labeller is the coin model with :math:`p_d = p_r = 1/L`.

    Examples
    --------
    >>> random_accuracy(4)
    0.25
    """
    return _out(1.0 / v.n_labels(n_labels))


@fill
def prob_random_accuracy_at_least(n_labels, n_items, threshold):
    r"""Probability that a uniform random labeller over ``L`` labels scores accuracy >= ``threshold``.

    Parameters
    ----------
    n_labels : array_like
        Number of labels :math:`L` (>= 2).
    {{n_items}}
    threshold : array_like
        Accuracy threshold in [0, 1].

    Returns
    -------
    float or ndarray

    Notes
    -----
    :math:`P(X \ge \lceil t N \rceil)` with :math:`X \sim \mathrm{Bin}(N, 1/L)` (t the threshold).

    Examples
    --------
    Table 1: with 10 items a binary random labeller reaches 80 % with probability

    >>> round(prob_random_accuracy_at_least(2, 10, 0.8), 4)
    0.0547
    """
    p_r = random_accuracy(n_labels)
    v.broadcast(n_labels=p_r, n_items=v.integer("n_items", n_items, lo=1),
                threshold=v.probability("threshold", threshold))
    return prob_accuracy_at_least(p_r, n_items, threshold)


def prob_correct_at_least_heterogeneous(p, k):
    r"""Probability of at least ``k`` correct when item ``i`` is right with probability ``p[i]``.

    Parameters
    ----------
    p : array_like, 1-d
        Per-item probabilities of agreeing with the majority label, in [0, 1].
    k : int
        Number of correct items, a whole number in [0, len(p)].

    Returns
    -------
    float
        :math:`P(X \ge k)` for the Poisson-binomial :math:`X = \sum_i B_i`,
        :math:`B_i \sim \mathrm{Bernoulli}(p_i)`.

    Notes
    -----
    Items with equal ``p`` form one binomial; the tail of the sum of these binomials
    is computed exactly (the largest binomial through scipy's
    exact ``sf``, the others' pmfs multiplied as polynomials by a tree of direct
    convolutions: every entry is a sum of non-negative terms, so far tails keep
    their relative precision). ``scipy.stats.poisson_binom``'s ``sf`` returns 0 in
    far tails (e.g. 1.27e-30 for 100 items at 0.25, 80 correct), and its pmf takes
    minutes for 3e4 items. With equal ``p`` it equals :func:`prob_correct_at_least`.

    Examples
    --------
    >>> round(prob_correct_at_least_heterogeneous([0.6, 0.8, 1.0], 2), 4)
    0.92
    >>> float(f"{prob_correct_at_least_heterogeneous([0.25] * 100, 80):.3g}")
    1.27e-30
    """
    pp = v.probability("p", p)
    if pp.ndim != 1 or pp.size == 0:
        raise ValueError(f"p must be a non-empty 1-d sequence of probabilities, got shape {pp.shape}")
    k = v.single("k", v.integer("k", k, lo=0, hi=pp.size))
    values, counts = np.unique(pp, return_counts=True)
    return binomial_sum_sf(counts, values, k)


# --------------------------------------------------------------------------- precision / recall / F1
@dataclass(frozen=True)
class Confusion:
    """Expected (or observed) confusion counts for the positive class.

    Attributes
    ----------
    tp, fp, fn, tn : ndarray or float
        True positives, false positives, false negatives and true negatives, broadcast
        over the inputs.
    """

    tp: np.ndarray | float
    fp: np.ndarray | float
    fn: np.ndarray | float
    tn: np.ndarray | float


@fill
def expected_confusion(p_d, m, n_items):
    r"""Expected confusion counts of a ``p_d``-following labeller (paper eqs. 5–8).

    Parameters
    ----------
    {{p_d}}
    {{m}}
    {{n_items}}

    Returns
    -------
    Confusion
        ``tp, fp, fn, tn`` broadcast over the inputs.

    Notes
    -----
    :math:`E(TP) = m N p_d`, :math:`E(FN) = m N (1 - p_d)`,
    :math:`E(FP) = (1 - m) N (1 - p_d)`, :math:`E(TN) = (1 - m) N p_d`.

    Examples
    --------
    >>> c = expected_confusion(0.9, 0.2, 100)
    >>> round(c.tp, 6), round(c.fp, 6), round(c.fn, 6), round(c.tn, 6)
    (18.0, 8.0, 2.0, 72.0)
    """
    p = v.probability("p_d", p_d)
    mm = v.probability("m", m)
    nn = v.integer("n_items", n_items, lo=1)
    v.broadcast(p_d=p, m=mm, n_items=nn)
    return Confusion(
        tp=_out(mm * nn * p),
        fp=_out((1 - mm) * nn * (1 - p)),
        fn=_out(mm * nn * (1 - p)),
        tn=_out((1 - mm) * nn * p),
    )


def _ratio(num, den):
    """Num / den with 0/0 -> NaN and no warning."""
    num, den = np.broadcast_arrays(np.asarray(num, float), np.asarray(den, float))
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


@fill
def expected_precision(p_d, m):
    r"""Expected precision of a ``p_d``-following labeller with positive ratio ``m``.

    Parameters
    ----------
    {{p_d}}
    {{m}}

    Returns
    -------
    float or ndarray
        NaN where nothing is expected to be predicted positive (0/0).

    Notes
    -----
    Paper eq. (9): :math:`E(P) = \frac{E(TP)}{E(TP) + E(FP)}
    = \frac{m p_d}{m p_d + (1 - m)(1 - p_d)}` (a ratio of expectations).

    Examples
    --------
    >>> round(expected_precision(0.9, 0.01), 4)
    0.0833
    """
    p = v.probability("p_d", p_d)
    mm = v.probability("m", m)
    v.broadcast(p_d=p, m=mm)
    return _out(_ratio(mm * p, mm * p + (1 - mm) * (1 - p)))


@fill
def expected_recall(p_d, m):
    r"""Expected recall of a ``p_d``-following labeller; independent of ``m``.

    Parameters
    ----------
    {{p_d}}
    m : array_like
        Positive-class ratio, in [0, 1]; NaN is returned where ``m = 0`` (no positives).

    Returns
    -------
    float or ndarray

    Notes
    -----
    Paper eq. (10): :math:`E(R) = \frac{E(TP)}{E(TP) + E(FN)} = p_d`.

    Examples
    --------
    >>> expected_recall(0.6, 0.1)
    0.6
    """
    p = v.probability("p_d", p_d)
    mm = v.probability("m", m)
    v.broadcast(p_d=p, m=mm)
    return _out(np.where(mm > 0, p, np.nan))


@fill
def expected_f1(p_d, m):
    r"""Expected F1 (positive class) of a ``p_d``-following labeller with positive ratio ``m``.

    Parameters
    ----------
    {{p_d}}
    {{m}}

    Returns
    -------
    float or ndarray
        NaN where undefined (``m = 0`` and ``p_d = 1``).

    Notes
    -----
    Paper eq. (11), the harmonic mean of :math:`E(P)` and :math:`E(R)`:
    :math:`E(F_1) = \frac{2 m p_d}{2 m p_d + 1 - p_d}`. This is a ratio of
    expectations; the mean of F1 on a finite sample is :func:`exact_f1`.

    Examples
    --------
    >>> round(expected_f1(0.9, 0.1), 4), round(expected_f1(0.6, 0.5), 4)
    (0.6429, 0.6)
    """
    p = v.probability("p_d", p_d)
    mm = v.probability("m", m)
    v.broadcast(p_d=p, m=mm)
    return _out(_ratio(2 * mm * p, 2 * mm * p + (1 - p)))


@dataclass(frozen=True)
class StratifiedExpectation:
    """Expected scores over agreement bins (paper's stratified equations).

    Attributes
    ----------
    precision, recall, f1, accuracy : float
        The expected scores over all the bins' items.
    n_items : int
        Items over all bins.
    m : float
        Positive ratio over all bins.
    """

    precision: float
    recall: float
    f1: float
    accuracy: float
    n_items: int
    m: float


def stratified_expectation(p_d, m, n_items):
    r"""Expected precision, recall, F1 and accuracy over bins of differing agreement.

    Parameters
    ----------
    p_d : array_like, 1-d
        Agreement probability per bin :math:`p_k`, in [0, 1] (a single number: one bin).
    m : array_like, 1-d
        Positive ratio per bin :math:`m_k`, in [0, 1].
    n_items : array_like, 1-d
        Items per bin :math:`n_k` (whole numbers >= 1).

    Returns
    -------
    StratifiedExpectation
        ``precision, recall, f1, accuracy`` plus the total ``n_items`` and overall ``m``.

    Notes
    -----
    Paper, section 2.1:

    .. math::
        E(P) = \frac{\sum_k n_k m_k p_k}{\sum_k n_k (m_k p_k + (1 - p_k)(1 - m_k))},\quad
        E(R) = \frac{\sum_k n_k m_k p_k}{\sum_k n_k m_k},\quad
        E(A) = \frac{\sum_k n_k p_k}{\sum_k n_k},

    and :math:`E(F_1) = 2 E(P) E(R) / (E(P) + E(R))`, evaluated as
    :math:`\frac{2 E(TP)}{2 E(TP) + E(FP) + E(FN)}` (the same where P and R are
    positive, and like :func:`expected_f1` where one of them is 0 or undefined:
    0 without any expected true positive). Undefined ratios are NaN.

    Examples
    --------
    The "All" row of the paper's Table 3 for Cardiomegaly (the 1.0 bin taken as 0.97):

    >>> e = stratified_expectation([0.6, 0.8, 0.97], [0.507, 0.372, 0.037], [142, 196, 162])
    >>> round(e.f1, 2), round(e.accuracy, 2)
    (0.68, 0.8)
    """
    nk, mk, pk = (np.atleast_1d(np.asarray(x)) for x in (n_items, m, p_d))  # (a number: one bin)
    v.same_length(p_d=pk, m=mk, n_items=nk)
    nk = v.integer("n_items", nk, lo=0).astype(float)
    if np.any(nk == 0):
        raise ValueError(f"n_items must be >= 1 in every bin (empty bin at index {int(np.argmin(nk))})")
    mk = v.probability("m", mk)
    pk = v.probability("p_d", pk)
    tp = np.sum(nk * mk * pk)
    fp = np.sum(nk * (1 - mk) * (1 - pk))
    fn = np.sum(nk * mk * (1 - pk))
    pos = np.sum(nk * mk)
    precision = float(_ratio(tp, tp + fp))
    recall = float(_ratio(tp, pos))
    f1 = float(_ratio(2 * tp, 2 * tp + (fp + fn)))
    accuracy = float(np.sum(nk * pk) / np.sum(nk))
    return StratifiedExpectation(precision=precision, recall=recall, f1=f1, accuracy=accuracy,
                                 n_items=int(nk.sum()), m=float(pos / nk.sum()))


# --------------------------------------------------------------------------- tables for the CLI
#: most rows :func:`expectation_table` (``labelvar expect``) computes: refused beyond, before
#: any work (each row is an exact F1 distribution: a grid of millions ran for minutes)
MAX_EXPECTATION_ROWS = 10_000


def expectation_table(p_d, m=(0.5,), n_items=(100,), threshold=(0.8,), confidence_level=CONFIDENCE_LEVEL):
    """Closed forms for every combination of the given values, as a DataFrame.

    Parameters
    ----------
    p_d, m, n_items, threshold : sequence
        Values to combine (Cartesian product).
    confidence_level : float, optional
        Coverage of the exact finite-sample F1 interval (default 0.95).

    Returns
    -------
    pandas.DataFrame
        Columns ``p_d, m, n_items, threshold, E_accuracy, SE, P_acc_ge, E_precision,
        E_recall, E_F1, F1_exact_mean, F1_lo, F1_hi``.

    Examples
    --------
    >>> t = expectation_table([0.6], [0.1], [100], [0.8])
    >>> round(float(t.loc[0, "E_F1"]), 4), float(f"{t.loc[0, 'P_acc_ge']:.3g}")
    (0.2308, 1.64e-05)
    """
    import pandas as pd

    return pd.DataFrame(_expectation_rows(p_d, m, n_items, threshold, confidence_level))


def _expectation_rows(p_d, m, n_items, threshold, confidence_level):
    """The rows of :func:`expectation_table` as dicts (the command line prints them without pandas)."""
    lvl = v.single("confidence_level", v.probability("confidence_level", confidence_level,
                                                     open_lo=True, open_hi=True))
    axes = {"p_d": p_d, "m": m, "n_items": n_items, "threshold": threshold}
    sizes = {name: np.size(value) for name, value in axes.items()}
    empty = [name for name, size in sizes.items() if size == 0]
    if empty:
        raise ValueError(f"{empty[0]} must list at least one value, got {axes[empty[0]]!r}")
    n_rows = int(np.prod([float(x) for x in sizes.values()]))
    if n_rows > MAX_EXPECTATION_ROWS:
        raise ValueError(f"p_d, m, n_items and threshold give {n_rows:,} combinations "
                         f"({' x '.join(str(x) for x in sizes.values())}), more than "
                         f"{MAX_EXPECTATION_ROWS:,} rows (each an exact F1 distribution); "
                         f"give fewer values")
    rows = []
    for p, mm, nn, a in itertools.product(np.ravel(p_d), np.ravel(m), np.ravel(n_items),
                                          np.ravel(threshold)):
        f1 = exact_f1(p, mm, nn)
        lo, hi = f1.interval(lvl)
        rows.append({
            "p_d": float(p), "m": float(mm), "n_items": int(nn), "threshold": float(a),
            "E_accuracy": expected_accuracy(p), "SE": accuracy_se(p, nn),
            "P_acc_ge": prob_accuracy_at_least(p, nn, a),
            "E_precision": expected_precision(p, mm), "E_recall": expected_recall(p, mm),
            "E_F1": expected_f1(p, mm), "F1_exact_mean": f1.mean, "F1_lo": lo, "F1_hi": hi,
        })
    return rows


def paper_table1():
    """The paper's Table 1 as computed: P(correct >= r_c) for N = 100 and N = 10.

    Returns
    -------
    pandas.DataFrame
        Columns ``p_d, baseline, r_c_100, P_100, r_c_10, P_10``; exact values (the
        paper prints some entries truncated, e.g. 0.9992 as 0.99).

    Examples
    --------
    >>> t = paper_table1()
    >>> round(float(t.loc[(t.p_d == 0.6) & (t.r_c_100 == 80), "P_100"].iloc[0]), 7)
    1.64e-05
    """
    import pandas as pd

    return pd.DataFrame(_table1_rows())


def _table1_rows():
    rows = []
    for p, note in ((0.25, "random labeller, L=4"), (0.5, "random labeller, L=2"),
                    (0.6, ""), (0.9, "")):
        for frac in (0.5, 0.8):
            rows.append({
                "p_d": p, "baseline": note,
                "r_c_100": int(ceil_count(frac, 100)),
                "P_100": prob_accuracy_at_least(p, 100, frac),
                "r_c_10": int(ceil_count(frac, 10)),
                "P_10": prob_accuracy_at_least(p, 10, frac),
            })
    return rows


def paper_table2():
    """The paper's Table 2 as computed: expected precision and F1 for p_d and m.

    Returns
    -------
    pandas.DataFrame
        Columns ``p_d, m, E_recall, E_precision, E_F1``.

    Examples
    --------
    >>> t = paper_table2()
    >>> round(float(t.loc[(t.p_d == 0.9) & (t.m == 0.01), "E_precision"].iloc[0]), 2)
    0.08
    """
    import pandas as pd

    return pd.DataFrame(_table2_rows())


def _table2_rows():
    return [{"p_d": p, "m": mm, "E_recall": expected_recall(p, mm),
             "E_precision": expected_precision(p, mm), "E_F1": expected_f1(p, mm)}
            for p in (0.5, 0.6, 0.9) for mm in (0.01, 0.1, 0.5)]
