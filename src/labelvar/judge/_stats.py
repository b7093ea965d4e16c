"""The alt-test's statistics from outcome counts: t-test, signed-rank test, BY step-up.

Every comparison of a human with the system on one item has one of three outcomes: a
tie (both indicators 1), the system strictly better (``W_sys = 1, W_h = 0``) or the
human strictly better (``W_h = 1, W_sys = 0``). A human's test depends on the item
indicators only through the three counts, so the mean and the standard deviation of
``d`` are computed from counts (exact zero variance, no floating-point sum of a vector).

Examples
--------
>>> import numpy as np
>>> p = t_test_pvalues(np.array([[0, 25, 5]]), epsilon=0.2)  # ties, system, human wins
>>> from scipy import stats
>>> d = np.r_[np.zeros(0), -np.ones(25), np.ones(5)]
>>> bool(np.isclose(p[0], stats.ttest_1samp(d, 0.2, alternative="less").pvalue, rtol=1e-12))
True
>>> by_rejections(np.array([0.001, 0.02, 0.5]), q=0.05).tolist()
[True, False, False]
"""

from __future__ import annotations

import numpy as np
from scipy import stats

#: the values of d for (tie, system strictly better, human strictly better) and H0's bound
ADDITIVE = "additive"
MULTIPLICATIVE = "multiplicative"
MARGINS = (ADDITIVE, MULTIPLICATIVE)
TESTS = ("t", "signed_rank")


def d_values(epsilon: float, margin: str) -> tuple[np.ndarray, float]:
    """The three values of d (tie, system wins, human wins) and the bound tested against.

    Additive (the paper): ``d = W_h - W_sys`` in ``(0, -1, 1)`` against ``epsilon``.
    Multiplicative: ``d = W_h - W_sys / (1 - epsilon)`` against 0.

    Examples
    --------
    >>> d_values(0.2, "additive")
    (array([ 0., -1.,  1.]), 0.2)
    >>> v, mu = d_values(0.5, "multiplicative"); v.tolist(), mu
    ([-1.0, -2.0, 1.0], 0.0)
    """
    if margin == ADDITIVE:
        return np.array([0.0, -1.0, 1.0]), float(epsilon)
    a = 1.0 / (1.0 - epsilon)
    return np.array([1.0 - a, -a, 1.0]), 0.0


def t_test_pvalues(counts: np.ndarray, *, epsilon: float, margin: str = ADDITIVE) -> np.ndarray:
    """One-sided one-sample t-test p-values of H0: E[d] >= bound, per row of ``counts``.

    ``counts`` is ``(m, 3)``: ties, system wins, human wins. On ``n - 1`` degrees of
    freedom; when d is constant (one outcome only) the p-value is 0 if that value is
    below the bound, 1 above, NaN (never rejected) when equal, as
    ``scipy.stats.ttest_1samp`` gives; a human with one item has p NaN.

    Examples
    --------
    >>> t_test_pvalues(np.array([[0, 30, 0], [0, 0, 30], [30, 0, 0], [0, 1, 0]]),
    ...                epsilon=0.0).tolist()
    [0.0, 1.0, nan, nan]
    """
    counts = np.asarray(counts, dtype=np.int64).reshape(-1, 3)
    values, bound = d_values(epsilon, margin)
    n = counts.sum(axis=1)
    p = np.full(len(counts), np.nan)
    nonzero = (counts > 0).sum(axis=1)
    const = (nonzero == 1) & (n > 1)  # one item: no variance estimate, p NaN (as scipy)
    if const.any():
        which = np.argmax(counts[const] > 0, axis=1)
        v = values[which]
        p[const] = np.where(v < bound, 0.0, np.where(v > bound, 1.0, np.nan))
    vary = (nonzero > 1) & (n > 1)
    if vary.any():
        c = counts[vary].astype(float)
        nv = n[vary].astype(float)
        mean = c @ values / nv
        ss = (c * (values[None, :] - mean[:, None]) ** 2).sum(axis=1)
        sd = np.sqrt(ss / (nv - 1.0))
        t = (mean - bound) / (sd / np.sqrt(nv))
        p[vary] = stats.t.cdf(t, nv - 1.0)
    return p


def signed_rank_pvalues(counts: np.ndarray, *, epsilon: float, margin: str = ADDITIVE) -> np.ndarray:
    """One-sided Wilcoxon signed-rank p-values of ``d - bound`` (median below 0), per row.

    Zero differences are dropped (``zero_method="wilcox"``); a row with no non-zero
    difference has p NaN (never rejected). For few items per human, where the t-test's
    normality is doubtful (the authors' FAQ).

    Examples
    --------
    >>> float(signed_rank_pvalues(np.array([[0, 10, 0]]), epsilon=0.2)[0])  # exact: 1 / 2**10
    0.0009765625
    """
    counts = np.asarray(counts, dtype=np.int64).reshape(-1, 3)
    values, bound = d_values(epsilon, margin)
    out = np.full(len(counts), np.nan)
    for r, row in enumerate(counts):
        x = np.repeat(values - bound, row)
        x = x[x != 0]
        if len(x):
            out[r] = stats.wilcoxon(x, alternative="less", zero_method="wilcox").pvalue
    return out


def by_thresholds(m: int, q: float) -> np.ndarray:
    """The Benjamini–Yekutieli thresholds ``j q / (m H_m)`` for ``j = 1..m``.

    Examples
    --------
    >>> by_thresholds(3, 0.05).round(6).tolist()  # H_3 = 11/6
    [0.009091, 0.018182, 0.027273]
    """
    j = np.arange(1, m + 1, dtype=float)
    h_m = (1.0 / j).sum()
    return j * q / (m * h_m)


def by_rejections(p_values: np.ndarray, *, q: float) -> np.ndarray:
    """Benjamini–Yekutieli step-up at level ``q``: a boolean per p-value (NaN never rejected).

    Rejects the ``k`` smallest p-values, ``k = max{j : p_(j) <= j q / (m H_m)}``.

    Examples
    --------
    >>> by_rejections(np.array([0.02, 0.001, 0.018, np.nan]), q=0.05).tolist()
    [False, True, False, False]
    """
    p = np.asarray(p_values, dtype=float)
    m = len(p)
    out = np.zeros(m, dtype=bool)
    if m == 0:
        return out
    order = np.argsort(np.where(np.isnan(p), np.inf, p), kind="stable")
    ps = p[order]
    ok = ps <= by_thresholds(m, q)  # NaN compares False
    if ok.any():
        k = int(np.nonzero(ok)[0].max()) + 1
        out[order[:k]] = True
    return out


def pvalues(counts: np.ndarray, *, epsilon: float, margin: str, test: str) -> np.ndarray:
    """The chosen test's p-values per row of outcome counts (ties, system wins, human wins)."""
    if test == "t":
        return t_test_pvalues(counts, epsilon=epsilon, margin=margin)
    return signed_rank_pvalues(counts, epsilon=epsilon, margin=margin)
