"""Items drawn from an item model.

Dirichlet mixtures and empirical label distributions (:func:`item_model`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from labelvar._kernels.explicit import _annotator_share, _count, _matrix_label, _plurality
from labelvar._kernels.layout import EXPERT
from labelvar._kernels.metrics import _finish_replicate
from labelvar._kernels.rng import _M1, _M2, categorical, gamma, replicate_key, splitmix64, uniform

# --------------------------------------------------------------------------- item models
ITEM_DIRICHLET = 0  # rows of item_par: Dirichlet α of mixture components
ITEM_NODES = 1      # rows of item_par: label distributions π (empirical)


@njit(cache=True)
def _item_model_rep(rkey, n_items, n_lab, panel_k, item_kind, item_par, item_cum, tie_rule,
                    lab_kind, lab_cum, lab_rho, stratum_of_top, n_strata, out_r):
    """One replicate of the per-item simulation under an item model; fills ``out_r``.

    Per item (absolute labels): π from the item model (a component / row by its
    cumulative weight, then, for Dirichlet rows, independent Gamma(α_p) normalised), on
    its own sub-stream; modal label = argmax π (ties at random); K votes, each one
    categorical draw from π; the truth = plurality with ``tie_rule``; the stratum =
    ``stratum_of_top[top votes]``; EXPERT = one more draw from π, MATRIX =
    ``lab_cum[j, modal]`` (with ``lab_rho[j]`` the share answered like an annotator).
    ``theta`` = π of the modal label.
    """
    n_j = lab_kind.shape[0]
    conf = np.zeros((n_j, n_strata, n_lab, n_lab), dtype=np.int64)
    theta_sum = np.zeros(n_strata)
    votes = np.zeros(n_lab, dtype=np.int64)
    pi = np.zeros(n_lab)
    cum = np.zeros(n_lab)
    stride = np.uint64(panel_k + n_j + 3)
    for i in range(n_items):
        base = np.uint64(i) * stride
        sub = splitmix64(rkey ^ (np.uint64(i) * _M1 + _M2))
        row = categorical(item_cum, uniform(sub, 0))
        ctr = 1
        total = 0.0
        for a in range(n_lab):
            if item_kind == ITEM_DIRICHLET:
                x, ctr = gamma(item_par[row, a], sub, ctr)
            else:
                x = item_par[row, a]
            pi[a] = x
            total += x
        if total <= 0.0:  # every Gamma underflowed (tiny α): one label takes all
            pick = int(uniform(sub, ctr) * n_lab)
            ctr += 1
            for a in range(n_lab):
                pi[a] = 1.0 if a == min(pick, n_lab - 1) else 0.0
            total = 1.0
        acc = 0.0
        best = -1.0
        n_best = 0
        for a in range(n_lab):
            pi[a] /= total
            acc += pi[a]
            cum[a] = acc
            if pi[a] > best:
                best = pi[a]
                n_best = 1
            elif pi[a] == best:
                n_best += 1
        cum[n_lab - 1] = 1.0
        # modal label: argmax π, ties uniformly at random
        pick = 0
        if n_best > 1:
            pick = int(uniform(sub, ctr) * n_best)
            if pick >= n_best:
                pick = n_best - 1
        c = 0
        for a in range(n_lab):
            if pi[a] == best:
                if pick == 0:
                    c = a
                    break
                pick -= 1
        for a in range(n_lab):
            votes[a] = 0
        for k in range(panel_k):
            votes[categorical(cum, uniform(rkey, base + np.uint64(1 + k)))] += 1
        g, top = _plurality(votes, n_lab, tie_rule, rkey, base + np.uint64(panel_k + 2))
        if g < 0:
            continue  # a tie, dropped
        s = stratum_of_top[top]
        theta_sum[0] += best
        if s > 0:
            theta_sum[s] += best
        lbase = base + np.uint64(panel_k + 3)
        for j in range(n_j):
            like, u = _annotator_share(uniform(rkey, lbase + np.uint64(j)), lab_rho[j],
                                       lab_kind[j] == EXPERT)
            h = categorical(cum, u) if like else _matrix_label(lab_cum, j, c, u, n_lab)
            _count(conf, j, s, g, h)
    _finish_replicate(conf, theta_sum, out_r)


@njit(cache=True, parallel=True)
def item_model(cell_key, n_rep, n_items, n_lab, panel_k, item_kind, item_par, item_cum,
               tie_rule, labellers, strata, out):
    """Panel mode under an item model (see :func:`_item_model_rep`), replicates in parallel.

    ``labellers`` and ``strata``: the bundles of :mod:`labelvar._kernels.layout`.
    """
    lab_kind, lab_cum, lab_rho = labellers
    stratum_of_top, n_strata = strata
    for r in prange(n_rep):
        _item_model_rep(replicate_key(cell_key, r), n_items, n_lab, panel_k, item_kind,
                        item_par, item_cum, tie_rule, lab_kind, lab_cum, lab_rho,
                        stratum_of_top, n_strata, out[r])


@njit(cache=True)
def item_model_serial(cell_key, n_rep, n_items, n_lab, panel_k, item_kind, item_par, item_cum,
                      tie_rule, labellers, strata, out):
    """Serial twin of :func:`item_model` (bit-identical results)."""
    lab_kind, lab_cum, lab_rho = labellers
    stratum_of_top, n_strata = strata
    for r in range(n_rep):
        _item_model_rep(replicate_key(cell_key, r), n_items, n_lab, panel_k, item_kind,
                        item_par, item_cum, tie_rule, lab_kind, lab_cum, lab_rho,
                        stratum_of_top, n_strata, out[r])
