"""Exchangeable items: confusion counts drawn per replicate.

Chains of conditional binomials from per-cell tables (:func:`collapsed`): the cost is
independent of the number of items.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from labelvar._kernels.layout import _CHUNK
from labelvar._kernels.metrics import _finish_replicate
from labelvar._kernels.rng import binomial_table, replicate_key


# --------------------------------------------------------------------------- inputs
class Groups(NamedTuple):
    """Group sizes: fixed ``counts`` (G,), or (``length[0] > 0``) the chain that draws them."""

    counts: np.ndarray  # (G,) int64
    order: np.ndarray  # (1, G) int64
    step: np.ndarray  # (1, G) int64: binomial plan step of each link
    length: np.ndarray  # (1,) int64


class Categories(NamedTuple):
    """Per group the chain over categories; per category what it fixes."""

    order: np.ndarray  # (G, C) int64
    step: np.ndarray  # (G, C) int64
    length: np.ndarray  # (G,) int64
    stratum: np.ndarray  # (C,) int64, -1 = dropped
    truth: np.ndarray  # (C,) int64
    pred: np.ndarray  # (C, J_folded) int64: predictions of the folded labellers
    theta: np.ndarray  # (G, C) float: E[theta | group, category]
    code: np.ndarray  # (C,) int64: joint output code


class Blocks(NamedTuple):
    """Labeller blocks: each splits a category's count over its answers by one more chain."""

    labellers: np.ndarray  # (B, 2) int64 output columns (-1 = none)
    pred: np.ndarray  # (B, O, 2) int64 predictions of each answer
    order: np.ndarray  # (B, G, O) int64
    step: np.ndarray  # (B, G, O) int64
    length: np.ndarray  # (B, G) int64
    shared: np.ndarray  # (B,) int64: 1 = pooled over the groups


class BinomialPlan(NamedTuple):
    """Windowed alias tables of every chain step (``engine._collapsed_inputs.binomial_plan``)."""

    prob: np.ndarray  # (S,) the step's probability
    row0: np.ndarray  # (S,) first table row of the step
    n_lo: np.ndarray  # (S,) lowest tabulated trial count
    n_hi: np.ndarray  # (S,) highest
    win_lo: np.ndarray  # (rows,) first value of each row's window
    table: np.ndarray  # (rows, BINOMIAL_WINDOW) uint64 packed alias tables
    outside: np.ndarray  # (rows,) P(outside the window)


# --------------------------------------------------------------------------- collapsed
@njit(cache=True)
def _collapsed_chunk(cell_key, r0, r1, n_items, groups, cats, blocks, plan, n_lab, n_strata,
                     out, joint):
    """Replicates r0 <= r < r1 of the collapsed path (each keyed by its own index).

    A replicate is one loop body: no helper that takes arrays is called per draw (each
    such call costs atomic reference-count updates per array); a zero count is added
    rather than skipped (cheaper than a mispredicted branch).
    """
    g_counts, g_order, g_step, g_len = groups
    c_order, c_step, c_len, c_stratum, c_truth, c_pred, c_theta, c_code = cats
    b_lab, b_pred, b_order, b_step, b_len, b_shared = blocks
    n_groups, n_cats = c_order.shape
    n_fold = c_pred.shape[1]
    n_blk = b_lab.shape[0]
    conf = np.zeros((out.shape[1], n_strata, n_lab, n_lab), dtype=np.int64)
    theta_sum = np.zeros(n_strata)
    sizes = np.zeros(n_groups, dtype=np.int64)
    counts = np.zeros((n_groups + 1, n_cats), dtype=np.int64)  # row n_groups: pooled
    for r in range(r0, r1):
        key = replicate_key(cell_key, r)
        want_joint = joint.shape[0] > 0
        conf[...] = 0
        theta_sum[:] = 0.0
        counts[...] = 0
        if want_joint:
            joint[r] = 0
        ctr = 0
        sizes[:] = g_counts
        if g_len[0] > 0:  # group sizes drawn: Multinomial(n_items, group prior)
            sizes[:] = 0
            left = n_items
            for i in range(g_len[0]):
                if i == g_len[0] - 1:
                    x = left
                else:
                    x, ctr = binomial_table(left, g_step[0, i], plan, key, ctr)
                sizes[g_order[0, i]] = x
                left -= x
                if left == 0:
                    break
        # (a) per group: items over categories (stratum slot, truth, folded predictions)
        for g in range(n_groups):
            left = sizes[g]
            n_c = c_len[g]
            for i in range(n_c):
                if left == 0:
                    break
                if i == n_c - 1:
                    x = left
                else:
                    x, ctr = binomial_table(left, c_step[g, i], plan, key, ctr)
                left -= x
                c = c_order[g, i]
                s = c_stratum[c]
                if s < 0:  # dropped (tied, tie rule "drop")
                    continue
                t = c_truth[c]
                counts[g, c] = x
                counts[n_groups, c] += x
                th = x * c_theta[g, c]
                theta_sum[0] += th
                if s > 0:
                    theta_sum[s] += th
                if want_joint:
                    joint[r, 0, c_code[c]] += x
                    if s > 0:
                        joint[r, s, c_code[c]] += x
                for j in range(n_fold):
                    h = c_pred[c, j]
                    conf[j, 0, t, h] += x
                    if s > 0:
                        conf[j, s, t, h] += x
        # (b) per labeller block: each category's count over the block's answers, per
        # group (chain row g) or pooled over the groups (shared blocks: chain row 0)
        for b in range(n_blk):
            shared = b_shared[b] != 0
            for g in range(1 if shared else n_groups):
                row = n_groups if shared else g
                n_out = b_len[b, g]
                for c in range(n_cats):
                    left = counts[row, c]
                    if left == 0:
                        continue
                    s = c_stratum[c]
                    t = c_truth[c]
                    for i in range(n_out):
                        if i == n_out - 1:
                            y = left
                        else:
                            y, ctr = binomial_table(left, b_step[b, g, i], plan, key, ctr)
                        left -= y
                        o = b_order[b, g, i]
                        for w in range(2):
                            j = b_lab[b, w]
                            if j >= 0:
                                h = b_pred[b, o, w]
                                conf[j, 0, t, h] += y
                                if s > 0:
                                    conf[j, s, t, h] += y
                        if left == 0:
                            break
        _finish_replicate(conf, theta_sum, out[r])


@njit(cache=True, parallel=True)
def collapsed(cell_key, n_rep, n_items, groups, cats, blocks, plan, n_lab, n_strata, out,
              joint):
    """Collapsed simulation of exchangeable items: cost independent of N.

    Items fall in groups g (modal classes, or one mixed group) of fixed sizes, or of
    sizes drawn per replicate as Multinomial(n_items, class prior). Per replicate and
    group the items are split over categories by a *chain of conditional binomials*
    (most probable category first: Binomial(left, P(c | not an earlier one)), the last
    takes the rest, the chain stops once nothing is left). A category fixes the stratum
    (-1 = dropped), the truth and the predictions of the "folded" labellers; then each
    labeller *block* splits every category's count over its answers by one more chain
    (per group, or pooled over groups when its answer probabilities do not depend on
    the group). Every binomial comes from :func:`binomial_table`.

    Parameters
    ----------
    cell_key : uint64
    n_rep, n_items : int
    groups : Groups
        Fixed group sizes, or (``length[0] > 0``) the chain that draws them.
    cats : Categories
        Per group the chain over categories, per category its stratum, truth, folded
        predictions, E[theta | group, category] (the theta field) and joint output code.
    blocks : Blocks
        The labeller blocks.
    plan : BinomialPlan
        The binomial plan of every chain step (:func:`binomial_table`).
    n_lab, n_strata : int
    out : ndarray
        ``(n_rep, J, n_strata, N_FIELDS)``, as :func:`explicit_generic`.
    joint : ndarray of int64
        ``(n_rep, n_strata, n_codes)`` (folded tables only) or ``(0, 0, 0)``: the drawn
        category counts per stratum and code, the same draws that make ``out``.

    Notes
    -----
    Two uses of the same kernel (``labelvar.engine._tables.collapsed_inputs``):
    *folded*, every labeller inside the categories (the joint outcome table; needed
    for ``joint`` and with a theta prior, where answers and votes share the item's
    theta), and *factorised*, categories = (stratum slot, truth) and one block per
    labeller (or ModelPair): given the group, a labeller's answer is independent of
    the votes, so the split is exact and needs far fewer draws. :func:`collapsed_serial`
    is the serial twin.
    """
    n_chunks = (n_rep + _CHUNK - 1) // _CHUNK
    for ch in prange(n_chunks):
        _collapsed_chunk(cell_key, ch * _CHUNK, min(n_rep, (ch + 1) * _CHUNK), n_items, groups,
                         cats, blocks, plan, n_lab, n_strata, out, joint)


@njit(cache=True)
def collapsed_serial(cell_key, n_rep, n_items, groups, cats, blocks, plan, n_lab, n_strata, out,
                     joint):
    """Serial twin of :func:`collapsed` (bit-identical results)."""
    _collapsed_chunk(cell_key, 0, n_rep, n_items, groups, cats, blocks, plan, n_lab, n_strata,
                     out, joint)
