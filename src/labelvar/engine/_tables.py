"""Exact per-item outcome tables of one grid cell, and the exact expectations built on them.

:class:`_Table` gives P(stratum slot, truth, predictions | group) by enumerating
the panel's vote compositions (:mod:`labelvar.votes._panel`) and integrating θ over
the prior's quadrature nodes; :func:`collapsed_inputs` turns it into the collapsed
kernel's chains of conditional binomials (with the binomial tables of
:func:`binomial_plan`), and :func:`_expected` turns the per-labeller marginals into
the ``expected`` column. :func:`_composition_tables` are the alias tables with which
the explicit kernel draws a whole vote composition; :func:`_symmetric_tables` those
with which the any-L fixed-theta kernel draws an item's (stratum, truth) and
predictions.

The collapsed kernel's inputs live in ``labelvar.engine._collapsed_inputs`` and the
expectations in ``labelvar.engine._expected``; this module keeps the item tables and the
any-L alias tables and re-exports the others' names the engine and tests import.
"""

from __future__ import annotations

import numpy as np

from labelvar.engine._collapsed_inputs import (  # noqa: F401  (re-exported)
    _MIN_MASS,
    _Collapsed,
    binomial_plan,
    collapsed_inputs,
    window_probabilities,
)
from labelvar.engine._expected import _EPS, _expected, _ratio_means  # noqa: F401  (re-exported)
from labelvar.votes import _panel

_MAX_CELLS = 4096       # largest joint outcome table the collapsed path takes


# --------------------------------------------------------------------------- item tables
class _Table:
    """Exact per-item outcome probabilities of one cell.

    ``groups``: fixed item counts per group (classes / modal labels; or one
    group of N items with ``positives="bernoulli"``). ``A[g, node, s, t]`` is
    P(stratum slot s, truth t | group g, theta node) with slots 0 = no bins
    (coin), 1..S = observed-p_d bins, S + 1 = dropped. ``M[j][g, node, h]`` is
    P(labeller j predicts h | group g, theta node); ``w`` and ``theta`` are the
    nodes' weights and values.
    """

    def __init__(self, cell, spec):
        lab = cell.n_labels
        self.n_lab = lab
        prior = cell.class_prior(spec)
        self.prior = prior
        if spec.mode == "coin":
            self.labels = []
            self.stratum_of_top = np.zeros(1, dtype=np.int64)
            theta = np.array([float(cell.p_d)])
            w = np.ones(1)
            a_mod = np.zeros((lab, 1, 2, lab))
            for c in range(lab):
                a_mod[c, 0, 0, c] = 1.0
        else:
            kk = cell.panel_size
            labels, self.stratum_of_top = _panel.strata(kk, lab, spec.tie_rule)
            self.labels = labels
            if spec.theta_prior is None:
                theta, w = np.array([float(cell.p_d)]), np.ones(1)
            else:
                # a joint outcome is a polynomial in theta of degree K + (labellers whose
                # answers depend on theta): exact nodes for it (K + 2 covers up to two)
                n_dep = sum(lb.annotator or lb.correlation > 0 for lb in spec.labellers)
                theta, w = spec.theta_prior.nodes(lab, kk + max(2, n_dep))
            a_mod = _vote_table(lab, kk, theta, spec.tie_rule, self.stratum_of_top,
                                len(labels), skills=spec.skill_matrices(lab))
        self.n_slots = a_mod.shape[2]
        self.theta, self.w = theta, w
        mats = [np.asarray(lb.matrix(lab, prior, theta)) for lb in spec.labellers]  # (node, c, h)
        # a ModelPair's two columns are drawn jointly: P(a, b | modal c) as (c, node, a, b)
        self.pair_at = {ja: np.broadcast_to(pair.joint_matrix(lab)[:, None],
                                            (lab, len(theta), lab, lab))
                        for ja, _, pair in spec.pairs}
        if spec.positives == "fixed":
            self.groups = cell.class_counts(spec)
            self.A = a_mod
            self.M = [np.transpose(mt, (1, 0, 2)) for mt in mats]  # (g, node, h)
            self.group_weights = None
        else:
            # one group; the modal class is part of the outcome, mixed in with its prior
            self.groups = np.array([cell.n_items], dtype=np.int64)
            self.A = a_mod
            self.M = [np.transpose(mt, (1, 0, 2)) for mt in mats]
            self.group_weights = prior

    def labeller_margins(self, j, slots) -> tuple:
        """P(slot in ``slots``, truth t), P(..., labeller j predicts h), P(..., t = h = c).

        Three (G, L) arrays per group (:func:`_expected`'s counts of recall and
        precision): ``sum_h P(s, t, h)``, ``sum_t P(s, t, h)`` and ``P(s, c, c)`` with
        the slot summed over ``slots``. Straight from the vote table and the labeller's
        matrix, O(G x nodes x L) — never the (G, slots, L, L) joint (24 GB at L = 1000).
        """
        a = self.A[:, :, slots].sum(axis=2)  # (c, node, t)
        m = self.M[j]  # (c, node, h)
        true = np.einsum("n,cnt,cn->ct", self.w, a, m.sum(axis=2))
        pred = np.einsum("n,cn,cnh->ch", self.w, a.sum(axis=2), m)
        hit = np.einsum("n,cnt,cnt->ct", self.w, a, m)
        return self._mix(true), self._mix(pred), self._mix(hit)

    def theta_joint(self) -> np.ndarray:
        """E[theta 1{slot s}] per group: (G, S+2)."""
        joint = np.einsum("n,n,cnst->cs", self.w, self.theta, self.A)
        return self._mix(joint)

    def _mix(self, joint):
        if self.group_weights is None:
            return joint
        return np.tensordot(self.group_weights, joint, axes=1)[None]

    def cells(self, n_labellers):
        """Joint outcome table for the collapsed kernel, or None if too large.

        Returns (probs (G, cells), stratum, truth, predictions (cells, J), E[theta | cell]
        (G, cells), code): ``code`` numbers the (truth, prediction of each labeller)
        outcome as ``np.ravel_multi_index((truth, *preds), (L,) * (1 + J))``.
        """
        lab, slots = self.n_lab, self.n_slots
        n_cells = slots * lab ** (1 + n_labellers)
        if n_cells > _MAX_CELLS:
            return None
        x = np.einsum("n,cnst->cnst", self.w, self.A)  # (c, node, s, t)
        y = np.einsum("n,n,cnst->cnst", self.w, self.theta, self.A)
        j = 0
        while j < len(self.M):  # one or (a ModelPair) two prediction axes per step
            mt = self.pair_at.get(j, self.M[j])
            width = mt.ndim - 2
            x = x[(...,) + (None,) * width] * mt.reshape(mt.shape[:2] + (1,) * (x.ndim - 2)
                                                         + mt.shape[2:])
            y = y[(...,) + (None,) * width] * mt.reshape(mt.shape[:2] + (1,) * (y.ndim - 2)
                                                         + mt.shape[2:])
            j += width
        x = x.sum(axis=1).reshape(len(self.A), -1)  # (c, cells)
        y = y.sum(axis=1).reshape(len(self.A), -1)
        if self.group_weights is not None:
            x = (self.group_weights @ x)[None]
            y = (self.group_weights @ y)[None]
        with np.errstate(invalid="ignore", divide="ignore"):
            theta = np.where(x > 0, y / np.where(x > 0, x, 1.0), 0.0)
        idx = np.unravel_index(np.arange(x.shape[1]), (slots, lab) + (lab,) * n_labellers)
        stratum = idx[0].astype(np.int64)
        stratum[stratum == slots - 1] = -1  # dropped
        truth = idx[1].astype(np.int64)
        pred = np.ascontiguousarray(np.stack(idx[2:], axis=1).astype(np.int64))
        code = np.arange(x.shape[1], dtype=np.int64) % lab ** (1 + n_labellers)
        keep = x.sum(axis=0) > 0  # impossible outcomes cost a loop step per replicate
        return (np.ascontiguousarray(x[:, keep]), stratum[keep], truth[keep],
                np.ascontiguousarray(pred[keep]), np.ascontiguousarray(theta[:, keep]),
                code[keep])


def _alias_table(p):
    """Walker/Vose alias table of probabilities ``p``: (acceptance, alias)."""
    from labelvar import _kernels as K

    n = len(p)
    q = np.asarray(p, dtype=float) * n / np.sum(p)
    prob, alias = np.empty(n), np.empty(n, dtype=np.int64)
    K.alias_fill(q, prob, alias)
    return prob, alias


def _composition_tables(lab, kk, theta):
    """Tables for drawing a homogeneous panel's vote composition in one step.

    Returns (acceptance, alias, comp, info) with info[i] = (top count, number
    of labels at the top, first relative position at the top), or None if
    there are more than ``_panel.MAX_COMPOSITIONS`` compositions.
    """
    if _panel.n_compositions(kk, lab) > _panel.MAX_COMPOSITIONS:
        return None
    comp, prob = _panel.symmetric_composition_probs(kk, lab, [theta])
    prob, alias = _alias_table(prob[0])
    top, n_tied = _panel.plurality(comp)
    info = np.stack([top, n_tied, np.argmax(comp == top[:, None], axis=1)],
                    axis=1).astype(np.int64)
    return prob, alias, np.ascontiguousarray(comp, dtype=np.int64), info


def _vote_table(lab, kk, theta, tie_rule, stratum_of_top, n_bins, skills=None):
    """P(slot, truth | modal label c, theta node): shape (L, nodes, n_bins + 2, L).

    Enumerates every vote composition of the K annotators with :mod:`labelvar.votes._panel`
    (position 0 = modal label, position p >= 1 = label (c + p) mod L, as in the
    kernels). With ``skills`` (K x L x L, P(vote h | modal c) per annotator) the
    composition probabilities come from enumerating all L**K joint votes, one node.
    """
    try:
        _panel.check_enumerable(kk, lab, joint=skills is not None)
    except ValueError:
        raise _Infeasible from None
    comp, prob = _panel.symmetric_composition_probs(kk, lab, theta)
    n_nodes = prob.shape[0]
    if skills is not None:
        prob_c = _panel.skill_composition_probs(skills, kk, lab, comp)[:, None, :]  # (c, 1, comp)
    top, _ = _panel.plurality(comp)
    slot = stratum_of_top[top]
    out = np.zeros((lab, n_nodes, n_bins + 2, lab))
    for c in range(lab):
        if skills is not None:
            prob = prob_c[c]
        truth, drop = _panel.truth_weights(comp, tie_rule, modal=c)  # over relative positions
        absolute = (c + np.arange(lab)) % lab
        for s in range(1, n_bins + 1):
            sel = slot == s
            out[c, :, s, absolute] = (prob[:, sel] @ truth[sel]).T
        out[c, :, n_bins + 1, 0] = prob @ drop  # dropped mass, truth slot unused
    return out


class _Infeasible(Exception):
    """The vote enumeration is too large."""

# --------------------------------------------------------------------------- any-L kernel tables
def _alias_outcomes(prob, outcomes, bits):
    """Alias table rows (threshold, outcome, alias outcome) as the any-L kernel reads them.

    ``outcomes[i]`` has probability ``prob[i]``; a draw takes the top ``bits`` bits
    b of a hash: cell ``i = floor(b n / 2**bits)``, accepted when
    ``b n mod 2**bits`` is below the threshold ``ceil(acceptance 2**bits)``.
    """
    acc, alias = _alias_table(prob)
    tab = np.empty((len(prob), 3), dtype=np.uint64)
    tab[:, 0] = np.ceil(np.clip(acc, 0.0, 1.0) * 2.0**bits)
    tab[:, 1] = outcomes
    tab[:, 2] = outcomes[alias]
    return tab


def _symmetric_tables(vote_table, mats):
    """Inputs of :func:`labelvar._kernels.explicit_symmetric` after ``class_counts``.

    Parameters
    ----------
    vote_table : ndarray, shape (L, S + 2, L)
        P(slot, truth | modal label c) at the cell's theta (:func:`_vote_table`, its
        node axis taken): slots 1..S are the strata, S + 1 is dropped.
    mats : sequence of ndarray, shape (L, L)
        Each labeller's P(prediction = h | modal label c).

    Returns
    -------
    tuple or None
        (joint_n, joint_tab, n_joint, sep_tab, bits), see the kernel; None when a
        table would exceed ``_SYM_MAX_CELLS`` cells or a histogram index 21 bits.

    Notes
    -----
    Given the modal label c, an item's (slot, truth) and each labeller's
    prediction are independent, so their joint distribution is the product of
    P(slot, truth | c) (the enumeration) and the labellers' rows. The first
    labellers (up to ``_SYM_MAX_JOINT``, while the product has at most
    ``_SYM_MAX_CELLS`` cells) are drawn together with (slot, truth) from one alias
    table of the product, the others from one table each; outcomes of probability
    0 are left out. ``bits`` = 64 - ceil(log2(cells of the largest table)), at most
    53, so that ``b n`` fits 64 bits: drawn from b uniform on 0..2**bits - 1, each
    cell of an alias table of n cells has probability within 2**-bits of 1 / n and
    is accepted with probability within 2**-bits of its acceptance (so every
    outcome probability is exact to about n 2**-bits <= 2**-38).
    """
    from labelvar import _kernels as K

    lab, n_slots = vote_table.shape[:2]
    n_strata = n_slots - 1  # "all" + S strata; histogram slot 0 holds the dropped items
    per_j = n_strata * lab * lab
    if lab > K._SYM_MAX_CELLS or len(mats) * per_j >= 1 << 21:
        return None
    truth_p, truth_row = [], []
    for c in range(lab):
        p = vote_table[c].copy()
        p[0] = 0.0
        p[0, c] = vote_table[c, -1].sum()  # dropped: slot 0
        flat = p[:-1].ravel()  # index slot L + truth
        keep = np.flatnonzero(flat > 0)
        truth_p.append(flat[keep])
        truth_row.append(keep.astype(np.uint64) * np.uint64(lab))
    rows = [[np.asarray(mt[c], dtype=float) for c in range(lab)] for mt in mats]
    size = np.array([len(p) for p in truth_p])
    joint = []
    for j in range(len(mats)):
        grown = size * np.array([np.count_nonzero(r) for r in rows[j]])
        if len(joint) == K._SYM_MAX_JOINT or grown.max() > K._SYM_MAX_CELLS:
            break
        joint.append(j)
        size = grown
    if size.max() > K._SYM_MAX_CELLS:
        return None
    n_max = max(int(size.max()), lab if len(joint) < len(mats) else 1)
    bits = min(53, 64 - (n_max - 1).bit_length())
    probs, outcomes = [], []
    for c in range(lab):
        p, truth, packed = truth_p[c], truth_row[c], truth_row[c] << np.uint64(42)
        for q, j in enumerate(joint):
            h = np.flatnonzero(rows[j][c] > 0).astype(np.uint64)
            p = (p[:, None] * rows[j][c][h]).ravel()
            code = (truth[:, None] + h + np.uint64(j * per_j)) << np.uint64(21 * q)
            packed = (packed[:, None] | code).ravel()
            truth = np.repeat(truth, len(h))
        probs.append(p)
        outcomes.append(packed)
    joint_n = np.array([len(p) for p in probs], dtype=np.int64)
    joint_tab = np.zeros((lab, joint_n.max(), 3), dtype=np.uint64)
    for c in range(lab):
        joint_tab[c, :joint_n[c]] = _alias_outcomes(probs[c], outcomes[c], bits)
    sep = range(len(joint), len(mats))
    sep_tab = np.zeros((len(sep), lab, lab, 3), dtype=np.uint64)
    for s, j in enumerate(sep):
        h = np.arange(lab, dtype=np.uint64) + np.uint64(j * per_j)
        for c in range(lab):
            sep_tab[s, c] = _alias_outcomes(rows[j][c], h, bits)
    return joint_n, joint_tab, len(joint), sep_tab, bits
