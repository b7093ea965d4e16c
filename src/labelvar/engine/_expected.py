"""Exact expectations of one grid cell from its outcome tables: the ``expected`` column.

:func:`_expected` turns the per-labeller marginals of a :class:`labelvar.engine._tables._Table`
into each metric's exact expected value (ratio means by Gauss-Legendre quadrature, F1 by
:mod:`labelvar.analytic._distributions`).
"""
from __future__ import annotations

import functools

import numpy as np

from labelvar._base._counts import ceil_count
from labelvar.engine._collapsed_inputs import _p_some

_EPS = 1e-12            # metric >= t is evaluated as metric >= t - _EPS
_MAX_F1_PAIRS = 200_000  # larger (TP, FP) supports: exact_binary_metrics' O(sqrt N) F1 mean
_RATIO_BLOCK = 1 << 21  # rows x groups x nodes per block of _ratio_means (16 MB arrays)


@functools.cache
def _gauss_legendre():
    """200 Gauss-Legendre nodes and weights on [-1, 1] (computed once, when first needed)."""
    return np.polynomial.legendre.leggauss(200)


def _ratio_means(n, a, ab, a2=None, ab2=None):
    """E[sum_i N_i / sum_i D_i; sum D > 0] for independent items in groups, row by row.

    ``n[g]`` items in group g; item i has a denominator term D_i in {0, 1, 2} and a
    numerator N_i (0 when D_i = 0). Row k gives, per group, P(D = 1) = ``a[k, g]``,
    E[N; D = 1] = ``ab[k, g]`` and (optional, default 0) P(D = 2) = ``a2[k, g]``,
    E[N; D = 2] = ``ab2[k, g]``. A count ratio sum A B / sum A (accuracy, precision,
    recall) has D = A and N = A B; F1 of a class, 2 TP / (2 TP + FP + FN), has D = 2
    for a true positive (N = 2) and D = 1 for a false positive or negative (N = 0).
    From ``1 / D = integral_0^1 t^(D - 1) dt``, one mean per row is::

        sum_g n_g integral_lo^1 (ab_g + ab2_g t) prod_d phi_d(t)^(n_d - [d = g]) dt,
        phi_d(t) = 1 - a_d (1 - t) - a2_d (1 - t^2)

    (the product is below exp(-80) under ``lo``), by 200-node Gauss-Legendre
    quadrature, a block of rows at a time (groups without items left out).
    """
    n = np.asarray(n, dtype=float)
    used = n > 0
    n = n[used]
    a = np.clip(np.asarray(a, dtype=float), 0.0, 1.0)[:, used]
    ab = np.asarray(ab, dtype=float)[:, used]
    a2 = np.zeros(a.shape) if a2 is None else np.clip(np.asarray(a2, dtype=float),
                                                      0.0, 1.0)[:, used]
    ab2 = np.zeros(a.shape) if ab2 is None else np.asarray(ab2, dtype=float)[:, used]
    x, w0 = _gauss_legendre()
    total = np.zeros(len(a))
    step = max(1, _RATIO_BLOCK // max(1, len(n) * len(x)))
    for r0 in range(0, len(a), step):
        rows = slice(r0, r0 + step)
        total[rows] = _ratio_block(n, a[rows], ab[rows], a2[rows], ab2[rows], x, w0)
    return total


def _ratio_block(n, a, ab, a2, ab2, x, w0):
    """:func:`_ratio_means` for a block of rows (groups all with items)."""
    keep = (a > 0) | (a2 > 0)  # groups that count, per row
    a = np.where(keep, a, 0.0)
    a2 = np.where(keep, a2, 0.0)
    nk = np.where(keep, n, 0.0)
    # phi_d(t) <= exp(-(1 - t)(a_d + a2_d)): the product is below exp(-80) under lo
    mu = np.maximum((nk * (a + a2)).sum(axis=1), 1e-300)
    lo = np.maximum(0.0, 1.0 - 80.0 / mu)[:, None]
    t = lo + (1.0 - lo) * (x + 1.0) / 2.0  # (rows, nodes)
    w = w0 * (1.0 - lo) / 2.0
    # 1 - t from the nodes directly (not from t): log1p keeps phi's log accurate near t = 1,
    # where it is multiplied by up to N items
    u = ((1.0 - lo) * (1.0 - x) / 2.0)[:, None, :]
    with np.errstate(divide="ignore"):
        logb = np.log1p(-(a[:, :, None] * u + a2[:, :, None] * u * (2.0 - u)))  # (r, g, k)
    full = (nk[:, :, None] * logb).sum(axis=1)  # log prod_d phi_d^n_d
    rest = np.exp(full[:, None, :] - logb)
    per_group = ab * np.einsum("rgk,rk->rg", rest, w)
    two = np.flatnonzero(np.any(ab2 != 0, axis=1))  # rows with D = 2 terms (F1)
    if two.size:
        per_group[two] += ab2[two] * np.einsum("rgk,rk->rg", rest[two], (w * t)[two])
    return np.where(keep, n[None, :] * per_group, 0.0).sum(axis=1)


def _expected(table, cell, spec, labels):
    """Exact expectations keyed by (labeller index, stratum index, metric, threshold)."""
    lab = cell.n_labels
    n_bins = len(labels)
    groups = table.groups
    res = {}
    # slot sets for output strata: 0 = all (every slot but "dropped"), s = bin s
    slot_sets = [list(range(0, n_bins + 1))] + [[s] for s in range(1, n_bins + 1)]
    theta_j = table.theta_joint()  # (G, slots)
    classes = [1] if lab == 2 else list(range(lab))
    # ((labeller, stratum, metric), then per group P(D = 1), E[N; D = 1], P(D = 2),
    # E[N; D = 2] of :func:`_ratio_means`)
    ratios = []
    zero = np.zeros(len(groups))
    nonempty = {}
    for j in range(len(spec.labellers)):
        for s, slots in enumerate(slot_sets):
            true, pred, hit = table.labeller_margins(j, slots)  # (G, L) each
            p_in = true.sum(axis=1)
            nonempty[j, s] = float(_p_some(groups, p_in))
            if nonempty[j, s] <= 0:
                continue
            diag = hit.sum(axis=1)
            ratios.append(((j, s, "accuracy"), p_in, diag, zero, zero))
            if spec.mode == "panel" and spec.skills is None:
                ratios.append(((j, s, "theta"), p_in, theta_j[:, slots].sum(axis=1), zero,
                               zero))
            for c in classes:
                ratios.append(((j, s, "recall"), true[:, c], hit[:, c], zero, zero))
                ratios.append(((j, s, "precision"), pred[:, c], hit[:, c], zero, zero))
                # F1 of class c: D = 2 on a true positive, 1 on a false positive or negative
                ratios.append(((j, s, "f1"), true[:, c] + pred[:, c] - 2.0 * hit[:, c], zero,
                               hit[:, c], 2.0 * hit[:, c]))
            if s == 0 and not (spec.mode == "panel" and spec.tie_rule == "drop"):
                for t in spec.thresholds:
                    res[(j, s, "prob_accuracy_ge", t)] = _prob_correct_ge(groups, diag, t,
                                                                          cell.n_items)
        if spec.mode == "coin" and spec.positives == "fixed":
            _coin_f1(res, j, table, groups, spec)
    if ratios:
        means = _ratio_means(groups, *(np.array([r[i] for r in ratios]) for i in range(1, 5)))
        per_class: dict[tuple, list] = {}
        for (key, *_), value in zip(ratios, means.tolist()):
            per_class.setdefault(key, []).append(value)
        for (j, s, metric), values in per_class.items():  # recall, precision, F1: class means
            # coin mode's F1 from the exact distribution (_coin_f1) stays: the same mean
            res.setdefault((j, s, metric, None), float(np.mean(values)) / nonempty[j, s])
    return {k: float(x) for k, x in res.items()}


def _prob_correct_ge(groups, q, t, n_items):
    """P(sum_g Binomial(n_g, q_g) >= smallest k with k / N >= t) (exact, any N)."""
    from labelvar.analytic._distributions import binomial_sum_sf

    return binomial_sum_sf(groups, q, ceil_count(t, n_items))  # robust ceil(t N)


@functools.lru_cache(maxsize=1024)
def _f1_mean(n_pos, n_neg, sens, spec):
    """E[F1] (0/0 = 0) of a binary labeller: one sum over the binomial supports of TP and FP.

    The mean of :func:`labelvar.analytic.exact_binary_metrics`'s F1 without building
    (and sorting) the whole distribution. Cached: a sweep repeats it (e.g. the random
    labeller's F1 is the same for every p_d).
    """
    from labelvar.analytic import _closed_forms as analytic
    from labelvar.analytic import _distributions

    k1, p1 = _distributions._binom_support(n_pos, sens)
    k2, p2 = _distributions._binom_support(n_neg, 1.0 - spec)
    if k1.size * k2.size > _MAX_F1_PAIRS:  # large N: the O(sqrt N) method of analytic
        return analytic.exact_binary_metrics(n_pos, n_neg, sens, spec).f1.mean
    tp = k1[:, None].astype(float)
    den = tp + n_pos + k2[None, :]  # 2 TP + FP + FN
    f1 = np.divide(2.0 * tp, den, out=np.zeros(den.shape), where=den > 0)
    return float(p1 @ f1 @ p2 / (p1.sum() * p2.sum()))


def _coin_f1(res, j, table, groups, spec):
    """Exact F1 (and P(F1 >= t)) in coin mode with fixed class counts."""
    from labelvar.analytic import _closed_forms as analytic

    lab = table.n_lab
    mat = table.M[j][:, 0, :]  # (c, h): P(pred h | true c)
    n = int(groups.sum())
    classes = [1] if lab == 2 else range(lab)
    means, dists = [], []
    for c in classes:
        others = [d for d in range(lab) if d != c]
        fp_rate = mat[others, c]
        if np.ptp(fp_rate) > 1e-12:  # not a single binomial: leave it
            return
        n_c, sens, spec_c = int(groups[c]), float(mat[c, c]), 1.0 - float(fp_rate[0])
        if lab == 2 and spec.thresholds:  # P(F1 >= t) needs the whole distribution
            dist = analytic.exact_binary_metrics(n_c, n - n_c, sens, spec_c)
            means.append(dist.f1.mean)
            dists.append(dist)
        else:
            means.append(_f1_mean(n_c, n - n_c, sens, spec_c))
    res[(j, 0, "f1", None)] = float(np.mean(means))
    if dists:
        for t in spec.thresholds:
            res[(j, 0, "prob_f1_ge", t)] = float(dists[0].f1.sf(t - _EPS))
