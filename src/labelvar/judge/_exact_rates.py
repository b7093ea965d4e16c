"""The exact law of a reference labeller's winning rate, where the humans' tests are independent.

A reference drawn once per comparison (the exchangeable annotator, the plurality
follower's ties) makes each comparison's outcome an independent trinomial, and each
comparison belongs to one human: the humans' outcome counts are independent. (So are
a per-item reference's when one human is tested.) Then, exactly:

1. per human, the law of (system-better, human-better) counts: the comparisons
   grouped by their trinomial law, each group a multinomial, the groups convolved;
2. per human, P(p <= c_k) at each Benjamini–Yekutieli threshold c_k;
3. the number of BY rejections: a dynamic programme over the humans whose state is how
   many p-values fell in each interval between thresholds (``max{k : #(p <= c_k) >= k}``
   is read off the final state).

Sizes: up to :data:`MAX_ITEMS` items per human and :data:`MAX_HUMANS` humans; beyond,
the caller falls back to Monte Carlo.
"""

from __future__ import annotations

import numpy as np
from scipy import signal, special

from labelvar.judge import _stats

MAX_ITEMS = 300
MAX_HUMANS = 8


def _multinomial_grid(n: int, law) -> np.ndarray:
    """(n+1, n+1) pmf of (system better, human better) counts of n comparisons."""
    a, b = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    t = n - a - b
    ok = t >= 0
    logp = np.full(a.shape, -np.inf)
    tt, aa, bb = t[ok], a[ok], b[ok]
    logp[ok] = (special.gammaln(n + 1) - special.gammaln(tt + 1) - special.gammaln(aa + 1)
                - special.gammaln(bb + 1) + special.xlogy(tt, law[0]) + special.xlogy(aa, law[1])
                + special.xlogy(bb, law[2]))
    return np.exp(logp)


def human_cdf(groups, thresholds, *, epsilon, margin, test) -> np.ndarray:
    """P(p <= c) at each threshold for one human; ``groups``: [(n_g, trinomial law)]."""
    pmf = np.ones((1, 1))
    for n_g, law in groups:
        pmf = signal.fftconvolve(pmf, _multinomial_grid(int(n_g), np.asarray(law, float)))
    pmf = np.clip(pmf, 0.0, None)
    n = pmf.shape[0] - 1
    a, b = np.nonzero(np.add.outer(np.arange(n + 1), np.arange(n + 1)) <= n)
    prob = pmf[a, b]
    counts = np.stack([n - a - b, a, b], axis=1)
    p = _stats.pvalues(counts, epsilon=epsilon, margin=margin, test=test)
    p = np.where(np.isnan(p), np.inf, p)
    total = prob.sum()
    return np.array([prob[p <= c].sum() / total for c in thresholds])


def rejections_law(cdfs) -> np.ndarray:
    """Law of the number of BY rejections of independent humans (``cdfs``: (m, m)).

    ``cdfs[h, k-1] = P(p_h <= c_k)``.

    Examples
    --------
    >>> rejections_law(np.array([[0.5, 0.5]] * 2)).round(4).tolist()  # P(p<=c1)=P(p<=c2)=.5
    [0.25, 0.5, 0.25]
    """
    cdfs = np.asarray(cdfs, float)
    m = cdfs.shape[0]
    states = {(0,) * (m + 1): 1.0}  # p-values per interval: (<= c1], (c1, c2], ..., above
    for h in range(m):
        f = np.concatenate([[0.0], cdfs[h], [1.0]])
        cell = np.clip(np.diff(f), 0.0, None)
        new: dict = {}
        for st, pr in states.items():
            for j, pj in enumerate(cell):
                if pj > 0.0:
                    key = st[:j] + (st[j] + 1,) + st[j + 1:]
                    new[key] = new.get(key, 0.0) + pr * pj
        states = new
    out = np.zeros(m + 1)
    for st, pr in states.items():
        below = np.cumsum(st[:m])  # N_k = #(p <= c_k)
        ks = np.nonzero(below >= np.arange(1, m + 1))[0]
        out[ks.max() + 1 if len(ks) else 0] += pr
    return out


def exact_rates(tri, rater, tested, *, q, epsilon, margin, test):
    """(mean, sd, P(pass)) of the winning rate, or None when out of reach.

    ``tri``: per comparison its (tie, reference better, human better) law; ``rater``:
    the comparison's human; ``tested``: bool per rater.
    """
    humans = np.nonzero(tested)[0]
    m = len(humans)
    if m > MAX_HUMANS or np.bincount(rater)[humans].max() > MAX_ITEMS:
        return None
    thresholds = _stats.by_thresholds(m, q)
    cdfs = []
    for h in humans:
        mine = tri[rater == h]
        law, n_g = np.unique(np.round(mine, 15), axis=0, return_counts=True)
        cdfs.append(human_cdf(zip(n_g, law), thresholds, epsilon=epsilon, margin=margin,
                              test=test))
    dist = rejections_law(np.array(cdfs))
    wr = np.arange(m + 1) / m
    mean = float(dist @ wr)
    sd = float(np.sqrt(max(dist @ (wr - mean) ** 2, 0.0)))
    return mean, sd, float(dist[wr >= 0.5].sum())
