"""Explicit per-item simulation.

Any L and K (:func:`explicit_generic`), and L = 2 with K fixed at compile time
(:func:`explicit_binary`, :func:`explicit_binary_fast`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from labelvar._kernels.layout import _CHUNK, EXPERT, THETA_BETA, THETA_FIXED, TIE_DROP
from labelvar._kernels.metrics import _finish_replicate
from labelvar._kernels.rng import (
    _M1,
    _M2,
    _S11,
    GOLDEN,
    beta,
    categorical,
    replicate_key,
    splitmix64,
    uniform,
)


# --------------------------------------------------------------------------- explicit, any L
@njit(cache=True, inline="always")
def _draw_theta(theta_kind, theta_par, theta_cum, key, ctr):
    """Per-item agreement level theta (panel mode); returns (theta, next ctr)."""
    if theta_kind == THETA_FIXED:
        return theta_par[0], ctr
    if theta_kind == THETA_BETA:
        b, ctr = beta(theta_par[0], theta_par[1], key, ctr)
        return theta_par[2] + (theta_par[3] - theta_par[2]) * b, ctr
    i = categorical(theta_cum, uniform(key, ctr))
    return theta_par[i], ctr + 1


@njit(cache=True, inline="always")
def _annotator_share(u, rho, expert):
    """Does a labeller answer this item like an annotator? (yes/no, ``u`` rescaled).

    An expert always does; a :class:`labelvar.Model` with correlation ``rho``
    does when ``u < rho`` (``u / rho`` is then a fresh uniform for the annotator-like
    answer), otherwise it answers from its matrix with ``(u - rho) / (1 - rho)``.
    """
    if expert:
        return True, u
    if rho > 0.0 and u < rho:
        return True, u / rho
    if rho > 0.0:
        return False, (u - rho) / (1.0 - rho)
    return False, u


@njit(cache=True, inline="always")
def _matrix_label(lab_cum, j, c, u, n_lab):
    """Labeller ``j``'s prediction for an item of (modal) label ``c`` from one uniform."""
    for a in range(n_lab - 1):
        if u < lab_cum[j, c, a]:
            return a
    return n_lab - 1


@njit(cache=True, inline="always")
def _count(conf, j, s, g, h):
    """Count (truth g, prediction h) for labeller j in stratum "all" and in stratum s."""
    conf[j, 0, g, h] += 1
    if s > 0:
        conf[j, s, g, h] += 1


@njit(cache=True, inline="always")
def _plurality(votes, n_lab, tie_rule, rkey, ctr):
    """Ground truth of one vote count vector: (label, top count); label -1 = dropped tie.

    The plurality label; ties go to a random tied label (one uniform at ``ctr``), to
    ``tie_rule`` when it is a tied label, or the item is dropped (``TIE_DROP``).
    """
    top = -1
    n_top = 0
    g = 0
    for a in range(n_lab):
        va = votes[a]
        if va > top:
            top = va
            n_top = 1
            g = a
        elif va == top:
            n_top += 1
    if n_top > 1:
        if tie_rule == TIE_DROP:
            return -1, top
        if tie_rule >= 0 and votes[tie_rule] == top:
            return tie_rule, top
        pick = int(uniform(rkey, ctr) * n_top)
        if pick >= n_top:
            pick = n_top - 1
        for a in range(n_lab):
            if votes[a] == top:
                if pick == 0:
                    g = a
                pick -= 1
    return g, top


@njit(cache=True)
def _explicit_generic_rep(rkey, n_items, n_lab, panel_k, panel, class_cum, class_counts,
                          bernoulli, theta_kind, theta_par, theta_cum, comp_prob, comp_alias,
                          comp_rel, comp_info, hetero, vote_cum, tie_rule, lab_kind, lab_cum,
                          lab_rho, stratum_of_top, n_strata, out_r):
    """One replicate of the per-item simulation (any L, K); fills ``out_r``.

    With a fixed theta and a composition table (``comp_rel[i, p]`` = votes for
    label (modal + p) mod L in composition i; ``comp_prob``/``comp_alias`` its
    multinomial probabilities as a Walker alias table; ``comp_info[i]`` = (top
    count, number of labels at the top, first position at the top)) the whole
    vote composition is drawn from one uniform: the votes of a homogeneous
    panel are exchangeable, so the composition carries all the information.
    Otherwise (a theta prior, per-annotator skills, or empty tables) each vote
    is drawn. ``hetero``: annotator k votes h with
    probability given by its own cumulative matrix ``vote_cum[k, modal, :]``
    (Dawid-Skene skills; theta is then only the expert's agreement).
    """
    n_j = lab_kind.shape[0]
    comp_n = comp_prob.shape[0]
    conf = np.zeros((n_j, n_strata, n_lab, n_lab), dtype=np.int64)
    theta_sum = np.zeros(n_strata)
    votes = np.zeros(n_lab, dtype=np.int64)
    # draws per item: class, K votes, tie-break, labellers (theta from a Beta needs a
    # variable number of draws: it has its own sub-stream per item). A vote or an
    # expert uses one uniform u: the modal label if u < theta, else other label
    # number floor((u - theta) / (1 - theta) * (L - 1)) (u given u >= theta is uniform).
    stride = np.uint64(panel_k + n_j + 3)
    theta = theta_par[0]
    n_other = n_lab - 1
    # a non-modal draw u >= theta picks other label number floor((u - theta) * scale)
    scale = n_other / (1.0 - theta) if theta < 1.0 else 0.0
    c = 0
    c_end = class_counts[0]
    for i in range(n_items):
        base = np.uint64(i) * stride
        # modal (coin mode: true) label
        if bernoulli:
            c = categorical(class_cum, uniform(rkey, base))
        else:
            while i >= c_end:  # items are laid out class by class
                c += 1
                c_end += class_counts[c]
        g = c
        if panel and comp_n > 0:
            # the whole vote composition from one uniform (alias method), then its
            # precomputed top count / number of tied labels / winner position
            x = uniform(rkey, base + np.uint64(1)) * comp_n
            idx = int(x)
            if idx >= comp_n:
                idx = comp_n - 1
            if x - idx >= comp_prob[idx]:
                idx = comp_alias[idx]
            top = comp_info[idx, 0]
            if comp_info[idx, 1] == 1:
                p = comp_info[idx, 2]
            else:
                if tie_rule == TIE_DROP:
                    continue
                p = -1
                if tie_rule >= 0:
                    rel = tie_rule - c
                    if rel < 0:
                        rel += n_lab
                    if comp_rel[idx, rel] == top:
                        p = rel
                if p < 0:
                    n_top = comp_info[idx, 1]
                    pick = int(uniform(rkey, base + np.uint64(panel_k + 2)) * n_top)
                    if pick >= n_top:
                        pick = n_top - 1
                    for q in range(n_lab):
                        if comp_rel[idx, q] == top:
                            if pick == 0:
                                p = q
                                break
                            pick -= 1
            g = c + p
            if g >= n_lab:
                g -= n_lab
            s = stratum_of_top[top]
        elif panel:
            if theta_kind != THETA_FIXED:
                theta, _ = _draw_theta(theta_kind, theta_par, theta_cum,
                                       splitmix64(rkey ^ (np.uint64(i) * _M1 + _M2)), 0)
                scale = n_other / (1.0 - theta) if theta < 1.0 else 0.0
            for a in range(n_lab):
                votes[a] = 0
            if hetero:
                for k in range(panel_k):
                    u = uniform(rkey, base + np.uint64(1 + k))
                    o = n_lab - 1
                    for a in range(n_lab - 1):
                        if u < vote_cum[k, c, a]:
                            o = a
                            break
                    votes[o] += 1
            else:
                for k in range(panel_k):
                    u = uniform(rkey, base + np.uint64(1 + k))
                    if u < theta:
                        votes[c] += 1
                    else:
                        o = int((u - theta) * scale)
                        if o >= n_other:
                            o = n_other - 1
                        o += c + 1
                        if o >= n_lab:
                            o -= n_lab
                        votes[o] += 1
            g, top = _plurality(votes, n_lab, tie_rule, rkey, base + np.uint64(panel_k + 2))
            if g < 0:
                continue  # a tie, dropped
            s = stratum_of_top[top]
        else:
            s = 0
        theta_sum[0] += theta
        if s > 0:
            theta_sum[s] += theta
        lbase = base + np.uint64(panel_k + 3)
        for j in range(n_j):
            like, u = _annotator_share(uniform(rkey, lbase + np.uint64(j)), lab_rho[j],
                                       lab_kind[j] == EXPERT)
            if like:
                if u < theta:
                    h = c
                else:
                    h = int((u - theta) * scale)
                    if h >= n_other:
                        h = n_other - 1
                    h += c + 1
                    if h >= n_lab:
                        h -= n_lab
            else:
                h = _matrix_label(lab_cum, j, c, u, n_lab)
            _count(conf, j, s, g, h)
    _finish_replicate(conf, theta_sum, out_r)


@njit(cache=True, parallel=True)
def explicit_generic(cell_key, n_rep, n_items, n_lab, panel_k, panel, class_cum, class_counts,
                     bernoulli, theta, comp, hetero, vote_cum, tie_rule, labellers, strata, out):
    """Per-item simulation of ``n_rep`` replicates of one grid cell (any L, K).

    Coin mode (``panel=False``): item i's true label is its class; labellers
    predict from it. Panel mode: item i has a modal label and an agreement
    level theta; K annotators vote (modal label with probability theta, else a
    uniform other label); the truth is the plurality with ``tie_rule``
    (TIE_RANDOM, TIE_DROP, or a label that wins the ties it takes part in);
    the stratum is ``strata.of_top[top votes]``. ``theta``: a :class:`ThetaDraw`;
    ``comp``: the alias tables of a whole vote composition (prob, alias, rel, info;
    empty arrays: per-vote draws). Labellers (:class:`Labellers`): EXPERT (modal
    label with probability theta, else a uniform other label) or MATRIX
    (``rows[j, modal]`` is the cumulative prediction distribution; with
    ``rho[j] > 0`` the labeller answers like the expert on that share of the
    items, see :class:`labelvar.votes.Model`). ``hetero``/``vote_cum``:
    per-annotator vote matrices (see :func:`_explicit_generic_rep`). Writes
    ``out[r, j, s, :]`` (fields
    :data:`FIELDS`). Replicates run in parallel (``prange``);
    :func:`explicit_generic_serial` is the serial twin.
    """
    theta_kind, theta_par, theta_cum = theta
    comp_prob, comp_alias, comp_rel, comp_info = comp
    lab_kind, lab_cum, lab_rho = labellers
    stratum_of_top, n_strata = strata
    for r in prange(n_rep):
        _explicit_generic_rep(replicate_key(cell_key, r), n_items, n_lab, panel_k, panel,
                              class_cum, class_counts, bernoulli, theta_kind, theta_par,
                              theta_cum, comp_prob, comp_alias, comp_rel, comp_info, hetero,
                              vote_cum, tie_rule, lab_kind, lab_cum, lab_rho, stratum_of_top,
                              n_strata, out[r])


@njit(cache=True)
def explicit_generic_serial(cell_key, n_rep, n_items, n_lab, panel_k, panel, class_cum,
                            class_counts, bernoulli, theta, comp, hetero, vote_cum, tie_rule,
                            labellers, strata, out):
    """Serial twin of :func:`explicit_generic` (bit-identical results)."""
    theta_kind, theta_par, theta_cum = theta
    comp_prob, comp_alias, comp_rel, comp_info = comp
    lab_kind, lab_cum, lab_rho = labellers
    stratum_of_top, n_strata = strata
    for r in range(n_rep):
        _explicit_generic_rep(replicate_key(cell_key, r), n_items, n_lab, panel_k, panel,
                              class_cum, class_counts, bernoulli, theta_kind, theta_par,
                              theta_cum, comp_prob, comp_alias, comp_rel, comp_info, hetero,
                              vote_cum, tie_rule, lab_kind, lab_cum, lab_rho, stratum_of_top,
                              n_strata, out[r])


# --------------------------------------------------------------------------- explicit, L = 2
@njit(cache=True)
def _explicit_binary_rep(rkey, n_items, ktuple, panel, n_pos, bernoulli, m, theta_kind,
                         theta_par, theta_cum, vote_thr, tie_rule, lab_kind, lab_p1, lab_rho,
                         stratum_of_top, n_strata, out_r):
    """One replicate, L = 2, K = len(ktuple) known at compile time.

    With a fixed theta the number of modal votes is drawn by inversion from one
    uniform (``vote_thr[t] = threshold53(P(Bin(K, theta) <= t))``): the votes of
    a homogeneous binary panel are exchangeable, so their count carries all the
    information. With a theta prior each vote is drawn.
    """
    n_j = lab_kind.shape[0]
    panel_k = len(ktuple)
    conf = np.zeros((n_j, n_strata, 2, 2), dtype=np.int64)
    theta_sum = np.zeros(n_strata)
    stride = np.uint64(panel_k + n_j + 2)
    for i in range(n_items):
        base = np.uint64(i) * stride
        if bernoulli:
            c = 1 if uniform(rkey, base) < m else 0
        else:
            c = 1 if i < n_pos else 0
        if panel:
            if theta_kind == THETA_FIXED:
                theta = theta_par[0]
            else:
                theta, _ = _draw_theta(theta_kind, theta_par, theta_cum,
                                       splitmix64(rkey ^ (np.uint64(i) * _M1 + _M2)), 0)
            v = 0
            if theta_kind == THETA_FIXED:
                bits = splitmix64(rkey + (base + np.uint64(1)) * GOLDEN) >> _S11
                for t in range(panel_k):
                    v += np.int64(bits >= vote_thr[t])
            else:
                for k in ktuple:  # unrolled: K is part of the type
                    v += np.int64(uniform(rkey, base + np.uint64(k + 1)) < theta)
            w = panel_k - v
            if 2 * v > panel_k:
                g = c
            elif 2 * v < panel_k:
                g = 1 - c
            else:
                if tie_rule == TIE_DROP:
                    continue
                if tie_rule >= 0:
                    g = tie_rule
                else:
                    g = 1 if uniform(rkey, base + np.uint64(panel_k + 1)) < 0.5 else 0
            s = stratum_of_top[v if v > w else w]
        else:
            theta = theta_par[0]
            g = c
            s = 0
        theta_sum[0] += theta
        if s > 0:
            theta_sum[s] += theta
        lbase = base + np.uint64(panel_k + 2)
        for j in range(n_j):
            like, u = _annotator_share(uniform(rkey, lbase + np.uint64(j)), lab_rho[j],
                                       lab_kind[j] == EXPERT)
            if like:
                h = c if u < theta else 1 - c
            else:
                h = 1 if u < lab_p1[j, c] else 0
            _count(conf, j, s, g, h)
    _finish_replicate(conf, theta_sum, out_r)


@njit(cache=True, parallel=True)
def explicit_binary(cell_key, n_rep, n_items, ktuple, panel, n_pos, bernoulli, m, theta,
                    vote_thr, tie_rule, labellers, strata, out):
    """Per-item simulation for L = 2 with K = len(ktuple) fixed at compile time.

    ``ktuple`` is ``tuple(range(K))``: its length specialises (and caches) one
    compiled version per K so the vote loop unrolls. ``vote_thr`` (uint64,
    length K): thresholds of the Bin(K, theta) CDF for fixed theta (see
    :func:`vote_thresholds`). ``labellers.rows[j, c]`` is
    P(prediction = 1 | modal label = c) for MATRIX labellers. Same model and
    output as :func:`explicit_generic`; :func:`explicit_binary_serial` is the
    serial twin.
    """
    theta_kind, theta_par, theta_cum = theta
    lab_kind, lab_p1, lab_rho = labellers
    stratum_of_top, n_strata = strata
    for r in prange(n_rep):
        _explicit_binary_rep(replicate_key(cell_key, r), n_items, ktuple, panel, n_pos,
                             bernoulli, m, theta_kind, theta_par, theta_cum, vote_thr, tie_rule,
                             lab_kind, lab_p1, lab_rho, stratum_of_top, n_strata, out[r])


@njit(cache=True)
def explicit_binary_serial(cell_key, n_rep, n_items, ktuple, panel, n_pos, bernoulli, m, theta,
                           vote_thr, tie_rule, labellers, strata, out):
    """Serial twin of :func:`explicit_binary` (bit-identical results)."""
    theta_kind, theta_par, theta_cum = theta
    lab_kind, lab_p1, lab_rho = labellers
    stratum_of_top, n_strata = strata
    for r in range(n_rep):
        _explicit_binary_rep(replicate_key(cell_key, r), n_items, ktuple, panel, n_pos,
                             bernoulli, m, theta_kind, theta_par, theta_cum, vote_thr, tie_rule,
                             lab_kind, lab_p1, lab_rho, stratum_of_top, n_strata, out[r])


# --------------------------------------------------------------------------- explicit, L = 2, fast
_BLOCK = 255  # items per packed-counter block (8-bit lanes)
_HALF53 = np.uint64(1) << np.uint64(52)


@njit(cache=True)
def threshold53(p):
    """Integer threshold T with ``uniform(key, ctr) < p``  <=>  ``bits53 < T``.

    ``bits53 = splitmix64(...) >> 11``; comparing integers skips the float
    conversion and vectorises.
    """
    if p <= 0.0:
        return np.uint64(0)
    if p >= 1.0:
        return np.uint64(1) << np.uint64(53)
    return np.uint64(math.ceil(p * 9007199254740992.0))


def vote_thresholds(theta, panel_k):
    """Thresholds ``threshold53(P(V <= t))``, t = 0..K-1, for V ~ Bin(K, theta) modal votes.

    ``V = sum_t (bits53 >= T_t)`` then draws V by inversion from one uniform.
    Plain Python (called once per grid cell).

    Examples
    --------
    >>> [int(t) for t in vote_thresholds(0.5, 2)] == [2**51, 3 * 2**51]
    True
    """
    out, cdf = [], 0.0
    for t in range(panel_k):
        cdf += math.comb(panel_k, t) * theta**t * (1.0 - theta) ** (panel_k - t)
        out.append(np.uint64(threshold53(min(cdf, 1.0))))
    return tuple(out)


@njit(cache=True)
def _explicit_binary_fast_rep(rkey, n_items, vote_thr, n_pos, theta, tie_rule, lab_thr,
                              lab_flip, stratum_of_top, n_strata, conf, theta_sum, cnt, ties,
                              pos, tie_pos, shift, tbit, out_r):
    """One replicate, L = 2, fixed theta, fixed class counts, K = len(vote_thr) <= 7.

    Same draws and the same counts as :func:`_explicit_binary_rep` (bit-identical;
    the modal vote count is drawn by inversion from one uniform), but items are
    processed in blocks whose per-item outcome is accumulated into 8-bit lanes
    of 64-bit counters (lane v = number of modal votes), so every inner loop is
    branch-free and vectorises. The first two labellers are drawn in the same
    pass as the votes, further ones in a pass each. The arrays after
    ``n_strata`` are scratch space (see :func:`_explicit_binary_fast_chunk`).
    """
    panel_k = len(vote_thr)
    even = panel_k % 2 == 0
    n_j = lab_thr.shape[1]
    stride_g = np.uint64(panel_k + n_j + 2) * GOLDEN
    conf[...] = 0
    theta_sum[:] = 0.0
    one = np.uint64(1)
    off0 = np.uint64(panel_k + 2) * GOLDEN
    off1 = np.uint64(panel_k + 3) * GOLDEN
    has1 = n_j > 1
    for c in range(2):
        lo = n_pos if c == 0 else 0
        hi = n_items if c == 0 else n_pos
        cnt[:] = 0
        ties[:] = 0
        pos[:, :] = 0
        tie_pos[:, :] = 0
        for b0 in range(lo, hi, _BLOCK):
            b1 = min(b0 + _BLOCK, hi)
            acc = np.uint64(0)
            acct = np.uint64(0)
            thr0, flip0 = lab_thr[c, 0], lab_flip[c, 0]
            thr1 = lab_thr[c, 1] if has1 else np.uint64(0)
            flip1 = lab_flip[c, 1] if has1 else np.uint64(0)
            accp0 = np.uint64(0)
            acctp0 = np.uint64(0)
            accp1 = np.uint64(0)
            acctp1 = np.uint64(0)
            for i in range(b0, b1):
                x = rkey + np.uint64(i) * stride_g
                bits = splitmix64(x + GOLDEN) >> _S11  # draw 1: the modal vote count
                v = np.uint64(0)
                for t in vote_thr:  # a tuple: unrolled, thresholds in registers
                    v += np.uint64(bits >= t)
                s = v * np.uint64(8)
                shift[i - b0] = s
                acc += one << s
                bit0 = np.uint64((splitmix64(x + off0) >> _S11) < thr0) ^ flip0
                accp0 += bit0 << s
                if has1:
                    bit1 = np.uint64((splitmix64(x + off1) >> _S11) < thr1) ^ flip1
                    accp1 += bit1 << s
                if even:
                    t = np.uint64((splitmix64(x + np.uint64(panel_k + 1) * GOLDEN) >> _S11)
                                  < _HALF53)
                    tbit[i - b0] = t
                    acct += t << s
                    acctp0 += (bit0 & t) << s
                    if has1:
                        acctp1 += (bit1 & t) << s
            for v in range(panel_k + 1):
                sh = np.uint64(8 * v)
                cnt[v] += np.int64((acc >> sh) & np.uint64(255))
                ties[v] += np.int64((acct >> sh) & np.uint64(255))
                pos[0, v] += np.int64((accp0 >> sh) & np.uint64(255))
                tie_pos[0, v] += np.int64((acctp0 >> sh) & np.uint64(255))
                if has1:
                    pos[1, v] += np.int64((accp1 >> sh) & np.uint64(255))
                    tie_pos[1, v] += np.int64((acctp1 >> sh) & np.uint64(255))
            for j in range(2, n_j):
                thr = lab_thr[c, j]
                flip = lab_flip[c, j]
                accp = np.uint64(0)
                acctp = np.uint64(0)
                off = np.uint64(panel_k + 2 + j) * GOLDEN
                for i in range(b0, b1):
                    x = rkey + np.uint64(i) * stride_g
                    bit = np.uint64((splitmix64(x + off) >> _S11) < thr) ^ flip
                    accp += bit << shift[i - b0]
                    if even:
                        acctp += (bit & tbit[i - b0]) << shift[i - b0]
                for v in range(panel_k + 1):
                    pos[j, v] += np.int64((accp >> np.uint64(8 * v)) & np.uint64(255))
                    tie_pos[j, v] += np.int64((acctp >> np.uint64(8 * v)) & np.uint64(255))
        # counts by modal votes v -> confusion counts by (stratum, truth, prediction)
        for v in range(panel_k + 1):
            n = cnt[v]
            if n == 0:
                continue
            if 2 * v == panel_k and tie_rule == TIE_DROP:
                continue
            top = v if 2 * v >= panel_k else panel_k - v
            s = stratum_of_top[top]
            theta_sum[0] += theta * n
            if s > 0:
                theta_sum[s] += theta * n
            for j in range(n_j):
                p1 = pos[j, v]
                if 2 * v != panel_k:
                    g = c if 2 * v > panel_k else 1 - c
                    conf[j, 0, g, 1] += p1
                    conf[j, 0, g, 0] += n - p1
                    if s > 0:
                        conf[j, s, g, 1] += p1
                        conf[j, s, g, 0] += n - p1
                elif tie_rule >= 0:
                    g = tie_rule
                    conf[j, 0, g, 1] += p1
                    conf[j, 0, g, 0] += n - p1
                    if s > 0:
                        conf[j, s, g, 1] += p1
                        conf[j, s, g, 0] += n - p1
                else:  # random tie-break: truth 1 for the items with tie bit set
                    t1 = ties[v]
                    tp1 = tie_pos[j, v]
                    for ss in range(2):
                        st = 0 if ss == 0 else s
                        if ss == 1 and s == 0:
                            break
                        conf[j, st, 1, 1] += tp1
                        conf[j, st, 1, 0] += t1 - tp1
                        conf[j, st, 0, 1] += p1 - tp1
                        conf[j, st, 0, 0] += (n - t1) - (p1 - tp1)
    _finish_replicate(conf, theta_sum, out_r)


@njit(cache=True)
def _explicit_binary_fast_chunk(cell_key, r0, r1, n_items, vote_thr, n_pos, theta, tie_rule,
                                lab_thr, lab_flip, stratum_of_top, n_strata, out):
    """Replicates r0 <= r < r1 of the vectorised kernel, sharing scratch arrays."""
    panel_k = len(vote_thr)
    n_j = lab_thr.shape[1]
    conf = np.zeros((n_j, n_strata, 2, 2), dtype=np.int64)
    theta_sum = np.zeros(n_strata)
    cnt = np.zeros(panel_k + 1, dtype=np.int64)
    ties = np.zeros(panel_k + 1, dtype=np.int64)
    pos = np.zeros((n_j, panel_k + 1), dtype=np.int64)
    tie_pos = np.zeros((n_j, panel_k + 1), dtype=np.int64)
    shift = np.empty(_BLOCK, dtype=np.uint64)
    tbit = np.zeros(_BLOCK, dtype=np.uint64)
    for r in range(r0, r1):
        _explicit_binary_fast_rep(replicate_key(cell_key, r), n_items, vote_thr, n_pos, theta,
                                  tie_rule, lab_thr, lab_flip, stratum_of_top, n_strata, conf,
                                  theta_sum, cnt, ties, pos, tie_pos, shift, tbit, out[r])


@njit(cache=True, parallel=True)
def explicit_binary_fast(cell_key, n_rep, n_items, vote_thr, n_pos, theta, tie_rule, lab_thr,
                         lab_flip, stratum_of_top, n_strata, out):
    """Vectorised per-item simulation: L = 2, fixed theta and class counts, K <= 7.

    Bit-identical to :func:`explicit_binary` with the same arguments (same
    draws); ``vote_thr`` is :func:`vote_thresholds` as a tuple of uint64 (its
    length K specialises the compiled code), ``lab_thr[c, j]`` the
    threshold of P(draw says "yes") for labeller j on class c and
    ``lab_flip[c, j]`` 1 where "yes" means predicting 0 (an expert on a
    negative item: it agrees, predicting 0). :func:`explicit_binary_fast_serial`
    is the serial twin.
    """
    n_chunks = (n_rep + _CHUNK - 1) // _CHUNK
    for ch in prange(n_chunks):
        _explicit_binary_fast_chunk(cell_key, ch * _CHUNK, min(n_rep, (ch + 1) * _CHUNK),
                                    n_items, vote_thr, n_pos, theta, tie_rule, lab_thr, lab_flip,
                                    stratum_of_top, n_strata, out)


@njit(cache=True)
def explicit_binary_fast_serial(cell_key, n_rep, n_items, vote_thr, n_pos, theta, tie_rule,
                                lab_thr, lab_flip, stratum_of_top, n_strata, out):
    """Serial twin of :func:`explicit_binary_fast` (bit-identical results)."""
    _explicit_binary_fast_chunk(cell_key, 0, n_rep, n_items, vote_thr, n_pos, theta, tie_rule,
                                lab_thr, lab_flip, stratum_of_top, n_strata, out)
