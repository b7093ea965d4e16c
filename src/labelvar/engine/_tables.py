"""Exact per-item outcome tables of one grid cell, and the exact expectations built on them.

:class:`_Table` gives P(stratum slot, truth, predictions | group) by enumerating
the panel's vote compositions (:mod:`labelvar._panel`) and integrating θ over
the prior's quadrature nodes; :func:`collapsed_inputs` turns it into the collapsed
kernel's chains of conditional binomials (with the binomial tables of
:func:`binomial_plan`), and :func:`_expected` turns the per-labeller marginals into
the ``expected`` column. :func:`_composition_tables` are the alias tables with which
the explicit kernel draws a whole vote composition; :func:`_symmetric_tables` those
with which the any-L fixed-theta kernel draws an item's (stratum, truth) and
predictions.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from labelvar import _panel
from labelvar._counts import ceil_count
from labelvar._kernels import BINOMIAL_WINDOW, binomial_alias_rows

_EPS = 1e-12            # metric >= t is evaluated as metric >= t - _EPS
_MAX_CELLS = 4096       # largest joint outcome table the collapsed path takes
_MAX_F1_PAIRS = 200_000  # larger (TP, FP) supports: exact_binary_metrics' O(sqrt N) F1 mean


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
                n_dep = sum(type(lb).__name__ == "Expert" or getattr(lb, "correlation", 0.0) > 0
                            for lb in spec.labellers)
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

    Enumerates every vote composition of the K annotators with :mod:`labelvar._panel`
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


# --------------------------------------------------------------------------- collapsed kernel inputs
_LF_SIZE = 1 << 14   # log-factorial table length (the tabulated trial counts stay below)
_SD_WINDOW = 5.2     # a window tabulates Binomial(n, p) while sd <= window / 5.2 (+-2.6 sd)
_MIN_MASS = 0.99     # ... so that it holds at least this much of the distribution (tested)
_MAX_ROWS = 4096     # tabulated (probability, n) rows per cell (BINOMIAL_WINDOW x 8 bytes each)
_RATIO_BLOCK = 1 << 21  # rows x groups x nodes per block of _ratio_means (16 MB arrays)
_SPREAD = 4.5        # trial counts tabulated: mean +- 4.5 sd of the count reaching a step


@dataclass(frozen=True)
class _Collapsed:
    """Inputs of :func:`labelvar._kernels.collapsed` for one cell (see its docstring).

    ``steps``: (probabilities, lowest and highest trial count) of the chain steps, from
    which :attr:`plan` builds the binomial tables (on first use: a cell that goes
    explicit never pays for them); ``codes``: the joint outcome codes of the ``joint``
    output (folded tables only); ``draws``: the expected number of binomial draws per
    replicate (the cost model of ``method="auto"``).
    """

    groups: tuple
    cats: tuple
    blocks: tuple
    steps: tuple
    codes: np.ndarray
    draws: float

    @functools.cached_property
    def plan(self) -> tuple:
        """The binomial plan of every chain step (:func:`binomial_plan`)."""
        return binomial_plan(*self.steps)


@functools.cache
def _log_factorials() -> np.ndarray:
    """``log(k!)`` for k < ``_LF_SIZE`` (math.lgamma, ~1 ulp)."""
    return np.array([math.lgamma(k + 1.0) for k in range(_LF_SIZE)])


def _chain(p):
    """Order, conditional probabilities and reach of a chain of conditional binomials.

    Outcomes of probability ``p`` (> 0 only) most probable first; outcome i is drawn as
    Binomial(left, p_i / sum_{k >= i} p_k). The chain ends at the first conditional
    probability that rounds to 1 (what follows has no mass in double precision).
    Returns (order, cond, mass): ``mass[i]`` = the share of the items still left at
    step i.
    """
    p = np.asarray(p, dtype=float)
    order = np.flatnonzero(p > 0)
    order = order[np.argsort(-p[order], kind="stable")]
    q = p[order]
    suffix = np.cumsum(q[::-1])[::-1]
    cond = np.minimum(q / suffix, 1.0)
    end = np.flatnonzero(cond >= 1.0)
    n = int(end[0]) + 1 if end.size else len(q)
    return order[:n], cond[:n], suffix[:n] / suffix[0] if n else suffix[:n]


class _PlanBuilder:
    """Collects the conditional probabilities of every chain, with the trial counts they meet.

    ``add(p, mean, var, p_some)`` registers one chain step (p the conditional
    probability) for parts whose item counts have these means and variances (arrays;
    the step is drawn when a count is non-zero, with probabilities ``p_some``) and
    returns its step id. Equal probabilities share one id and one table; their ranges
    of trial counts (mean +- ``_SPREAD`` sd) are merged.
    """

    def __init__(self, n_max):
        self.n_max = int(n_max)
        self.ids: dict[float, int] = {}
        self.lo: list[int] = []
        self.hi: list[int] = []
        self.draws = 0.0

    def add(self, p, mean, var, p_some):
        p = float(p)
        mean, sd = np.asarray(mean, dtype=float), np.sqrt(np.maximum(var, 0.0))
        self.draws += float(np.sum(p_some))
        if p not in self.ids:
            self.ids[p] = len(self.lo)
            self.lo.append(self.n_max + 1)
            self.hi.append(0)
        s = self.ids[p]
        if mean.size == 0:  # no part reaches this step (e.g. a class with no items)
            return s
        self.lo[s] = min(self.lo[s], max(1, int(np.min(mean - _SPREAD * sd)) - 2))
        self.hi[s] = max(self.hi[s], min(self.n_max, int(np.ceil(np.max(mean + _SPREAD * sd)))
                                         + 2))
        return s

    def steps(self):
        """(probabilities, lowest and highest trial count) of the registered steps."""
        return (np.array(list(self.ids), dtype=float), np.array(self.lo, dtype=np.int64),
                np.array(self.hi, dtype=np.int64))


def binomial_plan(prob, n_lo, n_hi):
    """Tables for :func:`labelvar._kernels.binomial_table`: one alias table per (step, n) row.

    For step s (probability ``prob[s]``) and ``n_lo[s] <= n <= n_hi[s]`` a row holds
    the packed alias table (:func:`labelvar._kernels.binomial_alias_rows`) of the
    ``V = BINOMIAL_WINDOW - 1`` values of Binomial(n, p) from ``win_lo`` (the window
    centred on the mode, inside 0..n) and of one more outcome, "outside the window",
    whose probability is ``outside`` (0 when the window covers the whole support;
    the window's probabilities are then normalised to sum to 1). Counts are
    tabulated while sd <= V / ``_SD_WINDOW`` (n p q up to ~145: the window holds at
    least ``_MIN_MASS`` of the distribution, the kernel draws the rest from the
    tails), below ``_LF_SIZE``, and not for p = 1/2 (a count of random bits is
    cheaper); at most ``_MAX_ROWS`` rows. pmf values are
    ``exp(log C(n, k) + k log p + (n - k) log q)`` from log-factorials (relative
    error ~1e-13). Other counts are drawn by :func:`labelvar._kernels.binomial`.

    Returns the plan tuple ``(prob, row0, n_lo, n_hi, win_lo, table, outside)``.

    Examples
    --------
    >>> prob, row0, n_lo, n_hi, win_lo, table, outside = binomial_plan([0.3], [10], [12])
    >>> table.shape, outside.tolist()  # n = 10..12: the whole support, nothing outside
    ((3, 64), [0.0, 0.0, 0.0])
    >>> round(float(window_probabilities(table)[0, :11].sum()), 12)
    1.0
    """
    lf = _log_factorials()
    width = BINOMIAL_WINDOW - 1  # window values; the last cell is "outside"
    prob = np.asarray(prob, dtype=float)
    n_lo = np.asarray(n_lo, dtype=np.int64).copy()
    n_hi = np.minimum(np.asarray(n_hi, dtype=np.int64), _LF_SIZE - 1)
    pq = prob * (1.0 - prob)
    cap = (width / _SD_WINDOW) ** 2 / np.maximum(pq, 1e-300)
    n_hi = np.where(pq > 0, np.minimum(n_hi, cap), n_hi).astype(np.int64)
    n_hi[prob == 0.5] = 0
    rows = np.maximum(n_hi - n_lo + 1, 0)
    while rows.sum() > _MAX_ROWS:  # halve the widest range until the table fits
        s = int(np.argmax(rows))
        n_hi[s] = n_lo[s] + rows[s] // 2 - 1
        rows = np.maximum(n_hi - n_lo + 1, 0)
    n_hi = np.where(rows > 0, n_hi, n_lo - 1)
    row0 = (np.cumsum(rows) - rows).astype(np.int64)  # first row of each step (none: empty)
    step = np.repeat(np.arange(len(prob)), rows)
    n = (np.arange(rows.sum()) - np.repeat(row0, rows) + np.repeat(n_lo, rows)).astype(np.int64)
    p = prob[step]
    mode = np.floor((n + 1) * p).astype(np.int64)
    win_lo = np.clip(mode - width // 2, 0, np.maximum(n + 1 - width, 0))
    k = win_lo[:, None] + np.arange(width)[None, :]
    inside = k <= n[:, None]
    k = np.where(inside, k, 0)
    nk = np.where(inside, n[:, None] - k, 0)
    with np.errstate(divide="ignore"):
        lp, lq = np.log(p)[:, None], np.log1p(-p)[:, None]
    logpmf = (lf[n][:, None] - lf[k] - lf[nk] + np.where(k > 0, k * lp, 0.0)
              + np.where(nk > 0, nk * lq, 0.0))
    pmf = np.where(inside, np.exp(logpmf), 0.0)
    mass = pmf.sum(axis=1)
    full = n + 1 <= width
    pmf[full] /= mass[full, None]
    outside = np.where(full, 0.0, np.maximum(1.0 - mass, 0.0))
    q = np.concatenate([pmf, outside[:, None]], axis=1)
    q *= BINOMIAL_WINDOW / q.sum(axis=1, keepdims=True)
    table = np.empty(q.shape, dtype=np.uint64)
    binomial_alias_rows(q, table)
    return prob, row0, n_lo, n_hi, win_lo.astype(np.int64), table, outside


def window_probabilities(table):
    """Outcome probabilities of packed alias tables (:func:`binomial_plan`): (rows, W).

    Column k < W - 1 is the window value ``win_lo + k``, column W - 1 "outside";
    the inverse of :func:`labelvar._kernels.binomial_alias_rows` (for tests).
    """
    table = np.asarray(table, dtype=np.uint64)
    w = table.shape[1]
    accept = (table >> np.uint64(6)).astype(float) / float(1 << 58)
    alias = (table & np.uint64(w - 1)).astype(np.int64)
    always = accept == 0.0
    accept = np.where(always & (alias == np.arange(w)), 1.0, accept)
    out = accept.copy()
    rows = np.repeat(np.arange(len(table)), w)
    np.add.at(out, (rows, alias.ravel()), (1.0 - accept).ravel())
    return out / w


def collapsed_inputs(table, spec, cell, joint=False) -> _Collapsed | None:
    """The collapsed kernel's inputs for one cell: folded or factorised (see the kernel).

    Factorised (one theta node, no ``joint`` output): per group (modal class) the items
    are split over (stratum slot, truth) by one chain of conditional binomials, then each
    part by every labeller block (a labeller, or a ModelPair's two columns) over its
    predictions: given the group a labeller's answer is independent of the votes (the
    outcome table of :meth:`_Table.cells` is that product), so the split is exact.
    A block whose P(prediction | group) is the same for every group (e.g. ``Random``)
    splits the parts pooled over groups. Folded (theta prior, or ``joint=True``): the
    joint outcome table of :meth:`_Table.cells`, one chain per group, no blocks; None when
    that table is too large.

    Every chain step is registered with the counts it will meet (mean +- 4.5 sd, for the
    tables of :func:`binomial_plan`) and the probability that it is drawn at all (a
    step is skipped once nothing is left), whose sum is ``draws``.
    """
    lab, n = cell.n_labels, int(cell.n_items)
    folded = joint or len(table.w) > 1
    builder = _PlanBuilder(n)
    n_j = len(spec.labellers)
    if folded:
        joint_table = table.cells(n_j)
        if joint_table is None:
            return None
        probs, stratum, truth, pred, theta, code = joint_table
        prior = None  # one mixed group with positives="bernoulli"
    else:
        probs = table.A[:, 0].reshape(lab, -1)  # (class, slot * L + truth)
        slot, truth = np.divmod(np.arange(probs.shape[1]), lab)
        stratum = np.where(slot == table.n_slots - 1, -1, slot)
        theta = np.full(probs.shape, float(table.theta[0]))
        pred = np.zeros((probs.shape[1], 0), dtype=np.int64)
        code = np.zeros(probs.shape[1], dtype=np.int64)
        prior = table.group_weights
    n_groups, n_cats = probs.shape
    # group g: trials[g] items that each belong to it with probability share[g]
    counts = np.asarray(table.groups if prior is None else np.zeros(n_groups), dtype=np.int64)
    g_order = np.zeros((1, n_groups), dtype=np.int64)
    g_step = np.zeros((1, n_groups), dtype=np.int64)
    g_len = np.zeros(1, dtype=np.int64)
    if prior is None:
        trials, share = counts.astype(float), np.ones(n_groups)
    else:  # group sizes drawn per replicate: Multinomial(N, class prior)
        trials, share = np.full(n_groups, float(n)), np.asarray(prior, dtype=float)
        order, cond, mass = _chain(prior)
        g_order[0, :len(order)] = order
        g_len[0] = len(order)
        for i in range(len(order) - 1):
            g_step[0, i] = builder.add(cond[i], n * mass[i], n * mass[i] * (1 - mass[i]),
                                       _p_some(n, mass[i]))
    mean_g, var_g = trials * share, trials * share * (1 - share)
    c_order = np.zeros((n_groups, n_cats), dtype=np.int64)
    c_step = np.zeros((n_groups, n_cats), dtype=np.int64)
    c_len = np.zeros(n_groups, dtype=np.int64)
    pc = np.zeros((n_groups, n_cats))  # P(category | group)
    for g in range(n_groups):
        if probs[g].sum() <= 0 or mean_g[g] <= 0:  # a group that never has an item: no chain
            continue
        pc[g] = probs[g] / probs[g].sum()
        order, cond, mass = _chain(pc[g])
        c_order[g, :len(order)] = order
        c_len[g] = len(order)
        for i in range(len(order) - 1):
            c_step[g, i] = builder.add(cond[i], mean_g[g] * mass[i],
                                       _thinned_var(mean_g[g], var_g[g], mass[i]),
                                       _p_some(trials[g], share[g] * mass[i]))
    scored = stratum >= 0
    blocks = _blocks(table, spec, folded, pc[:, scored], mean_g, var_g, trials, share,
                     builder)
    cats = (c_order, c_step, c_len, stratum.astype(np.int64), truth.astype(np.int64),
            np.ascontiguousarray(pred, dtype=np.int64), np.ascontiguousarray(theta),
            code.astype(np.int64))
    codes = np.unique(code[scored]) if folded else np.zeros(0, dtype=np.int64)
    if folded:  # number the scored outcome codes compactly for the joint output
        cats = cats[:7] + (np.minimum(np.searchsorted(codes, code),
                                      max(len(codes) - 1, 0)).astype(np.int64),)
    return _Collapsed((counts, g_order, g_step, g_len), cats, blocks, builder.steps(), codes,
                      builder.draws)


def _thinned_var(mean, var, keep):
    """Variance of Binomial(X, keep) for a count X with that mean and variance."""
    return var * keep ** 2 + mean * keep * (1 - keep)


def _p_some(trials, frac):
    """P(Binomial(trials, frac) > 0); arrays: P(any is > 0) over the last axis.

    Used for the chains' draw counts and for P(a stratum is non-empty) in the exact
    expectations.
    """
    frac = np.clip(np.asarray(frac, dtype=float), 0.0, 1.0)
    trials = np.asarray(trials, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):  # 0 trials: never drawn, even at frac 1
        terms = np.where(trials > 0, trials * np.log1p(-frac), 0.0)
    return -np.expm1(np.sum(terms, axis=-1))


def _blocks(table, spec, folded, pc, mean_g, var_g, trials, share, builder):
    """Labeller blocks: (labellers, predictions per outcome, chain order/steps/lengths, shared).

    ``pc[g, c]``: P(scored category c | group g); the parts a block splits are the
    category counts of one group (count ~ Binomial(trials[g], share[g] pc[g, c])), or
    their sums over the groups for a shared block.
    """
    lab = table.n_lab
    n_groups = pc.shape[0]
    units = []  # (labeller columns, P(outcome | group) (G, outcomes), predictions (outcomes, 2))
    j = 0
    while not folded and j < len(spec.labellers):
        if j in table.pair_at:  # a ModelPair: one block over its L x L joint answers
            p = np.asarray(table.pair_at[j])[:, 0].reshape(n_groups, lab * lab)
            a, b = np.divmod(np.arange(lab * lab), lab)
            units.append(((j, j + 1), p, np.stack([a, b], axis=1)))
            j += 2
        else:
            p = table.M[j][:, 0]
            units.append(((j, -1), p, np.stack([np.arange(lab), np.full(lab, -1)], axis=1)))
            j += 1
    n_out = max((u[1].shape[1] for u in units), default=1)
    n_blk = len(units)
    b_lab = np.full((n_blk, 2), -1, dtype=np.int64)
    b_pred = np.zeros((n_blk, n_out, 2), dtype=np.int64)
    b_order = np.zeros((n_blk, n_groups, n_out), dtype=np.int64)
    b_step = np.zeros((n_blk, n_groups, n_out), dtype=np.int64)
    b_len = np.zeros((n_blk, n_groups), dtype=np.int64)
    b_shared = np.zeros(n_blk, dtype=np.int64)
    part_mean = mean_g[:, None] * pc  # (G, C)
    part_var = var_g[:, None] * pc ** 2 + mean_g[:, None] * pc * (1 - pc)
    for b, (cols, p, pred) in enumerate(units):
        b_lab[b] = cols
        b_pred[b, :len(pred)] = pred
        shared = all(np.array_equal(p[0], p[g]) for g in range(n_groups))
        b_shared[b] = shared
        for g in range(1 if shared else n_groups):
            if not shared and mean_g[g] <= 0:  # no item ever in this group: no chain
                continue
            order, cond, mass = _chain(p[g])
            b_order[b, g, :len(order)] = order
            b_len[b, g] = len(order)
            gs = slice(None) if shared else slice(g, g + 1)
            mean, var = part_mean[gs].sum(axis=0), part_var[gs].sum(axis=0)
            some = mean > 0
            for i in range(len(order) - 1):
                # per part: P(its count thinned by mass[i] > 0), over the groups it pools
                p_some = _p_some(trials[gs, None].T,
                                 (share[gs, None] * pc[gs] * mass[i]).T)
                b_step[b, g, i] = builder.add(cond[i], mean[some] * mass[i],
                                              _thinned_var(mean[some], var[some], mass[i]),
                                              p_some[some])
    return b_lab, b_pred, b_order, b_step, b_len, b_shared


# --------------------------------------------------------------------------- expected values
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
    from labelvar._distributions import binomial_sum_sf

    return binomial_sum_sf(groups, q, ceil_count(t, n_items))  # robust ceil(t N)


@functools.lru_cache(maxsize=1024)
def _f1_mean(n_pos, n_neg, sens, spec):
    """E[F1] (0/0 = 0) of a binary labeller: one sum over the binomial supports of TP and FP.

    The mean of :func:`labelvar.analytic.exact_binary_metrics`'s F1 without building
    (and sorting) the whole distribution. Cached: a sweep repeats it (e.g. the random
    labeller's F1 is the same for every p_d).
    """
    from labelvar import _distributions, analytic

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
    from labelvar import analytic

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
