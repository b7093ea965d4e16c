"""The collapsed kernel's inputs: chains of conditional binomials and their binomial tables.

:func:`collapsed_inputs` turns a :class:`labelvar.engine._tables._Table` into the collapsed
kernel's chains, with the windowed binomial tables of :func:`binomial_plan`.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from labelvar._kernels import BINOMIAL_WINDOW, binomial_alias_rows
from labelvar._kernels.collapsed import BinomialPlan, Blocks, Categories, Groups

_LF_SIZE = 1 << 14   # log-factorial table length (the tabulated trial counts stay below)
_SD_WINDOW = 5.2     # a window tabulates Binomial(n, p) while sd <= window / 5.2 (+-2.6 sd)
_MIN_MASS = 0.99     # ... so that it holds at least this much of the distribution (tested)
_MAX_ROWS = 4096     # tabulated (probability, n) rows per cell (BINOMIAL_WINDOW x 8 bytes each)
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

    groups: Groups
    cats: Categories
    blocks: Blocks
    steps: tuple
    codes: np.ndarray
    draws: float

    @functools.cached_property
    def plan(self) -> BinomialPlan:
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

    Returns a :class:`labelvar._kernels.collapsed.BinomialPlan`
    ``(prob, row0, n_lo, n_hi, win_lo, table, outside)``.

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
    return BinomialPlan(prob, row0, n_lo, n_hi, win_lo.astype(np.int64), table, outside)


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
    cats = Categories(c_order, c_step, c_len, stratum.astype(np.int64), truth.astype(np.int64),
                      np.ascontiguousarray(pred, dtype=np.int64), np.ascontiguousarray(theta),
                      code.astype(np.int64))
    codes = np.unique(code[scored]) if folded else np.zeros(0, dtype=np.int64)
    if folded:  # number the scored outcome codes compactly for the joint output
        cats = cats._replace(code=np.minimum(np.searchsorted(codes, code),
                                             max(len(codes) - 1, 0)).astype(np.int64))
    return _Collapsed(Groups(counts, g_order, g_step, g_len), cats, blocks, builder.steps(),
                      codes, builder.draws)


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
    return Blocks(b_lab, b_pred, b_order, b_step, b_len, b_shared)
