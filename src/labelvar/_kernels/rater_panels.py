"""Panels drawn from a rater model (skills and item difficulty): one expert against the plurality.

Per item (counter-based: every uniform is ``uniform(replicate key, item * (K + 4) + slot)``):
truth z from the prior, difficulty node g from its weights, each panel rater k's vote from
its confusion row ``panel_cum[k, g, z]``, the plurality of the votes (tie rule), then the
expert's label from ``expert_cum[g, z]``. The expert is counted against the plurality in
stratum "all" and in the stratum of the panel's top count.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from labelvar._kernels.explicit import _count, _plurality
from labelvar._kernels.metrics import _finish_replicate
from labelvar._kernels.rng import categorical, replicate_key, uniform


@njit(cache=True)
def _rater_panel_rep(rkey, n_items, prior_cum, weight_cum, panel_cum, expert_cum, tie_rule,
                     stratum_of_top, n_strata, out_r):
    """One replicate: ``n_items`` items; fills ``out_r`` (1, n_strata, N_FIELDS)."""
    n_k = panel_cum.shape[0]
    n_lab = prior_cum.shape[0]
    conf = np.zeros((1, n_strata, n_lab, n_lab), dtype=np.int64)
    theta_sum = np.zeros(n_strata)  # no theta in this model (left 0; not summarised)
    votes = np.zeros(n_lab, dtype=np.int64)
    stride = np.uint64(n_k + 4)
    for i in range(n_items):
        base = np.uint64(i) * stride
        z = categorical(prior_cum, uniform(rkey, base))
        g = categorical(weight_cum, uniform(rkey, base + np.uint64(1)))
        for a in range(n_lab):
            votes[a] = 0
        for k in range(n_k):
            votes[categorical(panel_cum[k, g, z], uniform(rkey, base + np.uint64(2 + k)))] += 1
        t, top = _plurality(votes, n_lab, tie_rule, rkey, base + np.uint64(n_k + 2))
        if t < 0:
            continue  # a tie, dropped
        h = categorical(expert_cum[g, z], uniform(rkey, base + np.uint64(n_k + 3)))
        _count(conf, 0, stratum_of_top[top], t, h)
    _finish_replicate(conf, theta_sum, out_r)


@njit(cache=True, parallel=True)
def rater_panels(cell_key, n_rep, n_items, prior_cum, weight_cum, panel_cum, expert_cum,
                 tie_rule, stratum_of_top, n_strata, out):
    """Replicates of :func:`_rater_panel_rep` in parallel (``out``: (n_rep, 1, n_strata, N_FIELDS)).

    Parameters
    ----------
    cell_key : uint64
        The run's key (replicate r uses ``replicate_key(cell_key, r)``).
    n_rep, n_items : int
    prior_cum : (L,) cumulative P(truth)
    weight_cum : (G,) cumulative difficulty-node weights
    panel_cum : (K, G, L, L) cumulative confusion rows of the panel raters ``[k, g, z, :]``
    expert_cum : (G, L, L) the expert's
    tie_rule : int
        ``TIE_RANDOM``, ``TIE_DROP`` or a label code.
    stratum_of_top : (K + 1,) int64, stratum of each top count
    n_strata : int
        1 + the number of agreement bins.
    out : ndarray, filled
    """
    for r in prange(n_rep):
        _rater_panel_rep(replicate_key(cell_key, r), n_items, prior_cum, weight_cum, panel_cum,
                         expert_cum, tie_rule, stratum_of_top, n_strata, out[r])


@njit(cache=True)
def rater_panels_serial(cell_key, n_rep, n_items, prior_cum, weight_cum, panel_cum, expert_cum,
                        tie_rule, stratum_of_top, n_strata, out):
    """Serial twin of :func:`rater_panels` (bit-identical results)."""
    for r in range(n_rep):
        _rater_panel_rep(replicate_key(cell_key, r), n_items, prior_cum, weight_cum, panel_cum,
                         expert_cum, tie_rule, stratum_of_top, n_strata, out[r])
