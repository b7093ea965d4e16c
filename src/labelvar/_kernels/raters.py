"""Numba kernels of the rater models (:mod:`labelvar.votes`).

Votes are held as compressed sparse rows by item (``item_ptr``, the votes' rater and
label codes in item order). Every parallel loop runs over fixed blocks (or a fixed
number of ranges) of items and writes only its own rows or its own partial sums,
added afterwards in block order, so results are bit-identical on any number of
threads.

Kernel layout of the log confusion: ``lc[j, l, g, z]`` = log P(rater j says l |
truth z, difficulty node g), the said label first so that one vote adds a
contiguous (G, L) slab. Row ``J`` (the last) is the population rater.

Kernels
-------
``csr``             counting sort of codes into rows (serial, O(n))
``first_duplicate`` the first item with two votes from one rater, or -1
``e_step``          per item the posterior over (difficulty node, truth); log evidence
``em_pass``         the E-step and the M-step's statistics (per rater posterior-weighted
                    counts S[j, l, g, z]) in one pass over fixed ranges of items
``count_hist``      expected (exact Poisson-binomial) and observed histograms of one
                    label's votes per item, by vote count
``plurality_hist``  Monte Carlo expected and observed histograms of the plurality count
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from labelvar._kernels.rng import uniform

#: items per block of the parallel item loops (fixed: results do not depend on threads)
BLOCK = 4096


@njit(cache=True)
def csr(keys, n_rows):
    """Row pointers and the stable order of ``keys`` (codes in [0, n_rows))."""
    ptr = np.zeros(n_rows + 1, dtype=np.int64)
    for k in keys:
        ptr[k + 1] += 1
    for r in range(n_rows):
        ptr[r + 1] += ptr[r]
    fill = ptr[:-1].copy()
    order = np.empty(keys.size, dtype=np.int64)
    for v in range(keys.size):
        k = keys[v]
        order[fill[k]] = v
        fill[k] += 1
    return ptr, order


@njit(cache=True, parallel=True)
def first_duplicate(item_ptr, rater, n_raters):
    """The first item (in item order) holding two votes of one rater, else -1."""
    n = item_ptr.size - 1
    nb = (n + BLOCK - 1) // BLOCK
    found = np.full(nb, -1, dtype=np.int64)
    for b in prange(nb):
        mark = np.full(n_raters, -1, dtype=np.int64)
        for i in range(b * BLOCK, min(n, (b + 1) * BLOCK)):
            for v in range(item_ptr[i], item_ptr[i + 1]):
                j = rater[v]
                if mark[j] == i:
                    found[b] = i
                    break
                mark[j] = i
            if found[b] >= 0:
                break
    for b in range(nb):
        if found[b] >= 0:
            return found[b]
    return -1


@njit(cache=True, inline="always")
def _item_log_joint(t, i, item_ptr, rater, label, lcf, log_prior, log_weights, fixed, G, L):
    """t[g * L + z] = log P(node g, truth z, votes of item i); returns its log-sum-exp."""
    GL = G * L
    for g in range(G):
        for z in range(L):
            t[g * L + z] = log_weights[g] + log_prior[z]
    for v in range(item_ptr[i], item_ptr[i + 1]):
        base = (rater[v] * L + label[v]) * GL
        for k in range(GL):
            t[k] += lcf[base + k]
    f = fixed[i]
    if f >= 0:
        for k in range(GL):
            if k % L != f:
                t[k] = -np.inf
    m = -np.inf
    for k in range(GL):
        if t[k] > m:
            m = t[k]
    tot = 0.0
    for k in range(GL):
        e = math.exp(t[k] - m)
        t[k] = e
        tot += e
    for k in range(GL):
        t[k] /= tot
    return m + math.log(tot)


@njit(cache=True, parallel=True, error_model="numpy")
def e_step(item_ptr, rater, label, lc, log_prior, log_weights, fixed, weights, post):
    """Posterior ``post[i, g, z]`` of each item; returns sum_i weights[i] log P(votes_i).

    ``lc`` is (J + 1, L, G, L) ``[j, said, g, truth]``; ``fixed[i] >= 0`` pins item i's
    truth (a gold item). Items without votes get the prior x the difficulty weights.
    """
    n = item_ptr.size - 1
    G = log_weights.size
    L = log_prior.size
    lcf = lc.ravel()
    flat = post.reshape(n, G * L)
    nb = (n + BLOCK - 1) // BLOCK
    part = np.zeros(nb)
    for b in prange(nb):
        t = np.empty(G * L)
        s = 0.0
        for i in range(b * BLOCK, min(n, (b + 1) * BLOCK)):
            s += weights[i] * _item_log_joint(t, i, item_ptr, rater, label, lcf, log_prior,
                                              log_weights, fixed, G, L)
            flat[i] = t
        part[b] = s
    out = 0.0
    for b in range(nb):
        out += part[b]
    return out


@njit(cache=True, parallel=True, error_model="numpy")
def em_pass(item_ptr, rater, label, lc, log_prior, log_weights, fixed, weights, n_raters,
            n_chunks, post):
    """One E-step with the M-step's statistics, in one pass over the items.

    The items are cut into ``n_chunks`` fixed ranges (a number that does not depend on
    the threads); each range adds its items' posteriors into its own per-rater array,
    the ranges' arrays are then summed in range order.

    Returns
    -------
    log_lik : float
        sum_i weights[i] log P(votes_i).
    S : ndarray (n_raters, L, G, L)
        sum over rater j's votes with label l of weight x P(node g, truth z | item).
    T : ndarray (G, L)
        sum over items with votes of weight x posterior.
    Tk : ndarray (G, L)
        the same, each item also weighted by its number of votes.
    H : float
        sum over items with votes of weight x sum_gz q log q, q = max(post, 1e-10)
        (crowd-kit's lower bound).
    ``post`` (n, G, L) receives the posteriors when it has n rows (else 0 rows).
    """
    n = item_ptr.size - 1
    G = log_weights.size
    L = log_prior.size
    GL = G * L
    lcf = lc.ravel()
    keep = post.shape[0] == n
    flat = post.reshape(post.shape[0], GL)
    acc = np.zeros((n_chunks, n_raters * L * GL))
    tpart = np.zeros((n_chunks, GL))
    kpart = np.zeros((n_chunks, GL))
    lpart = np.zeros(n_chunks)
    hpart = np.zeros(n_chunks)
    for c in prange(n_chunks):
        t = np.empty(GL)
        a = acc[c]
        lo = c * n // n_chunks
        hi = (c + 1) * n // n_chunks
        for i in range(lo, hi):
            w = weights[i]
            lpart[c] += w * _item_log_joint(t, i, item_ptr, rater, label, lcf, log_prior,
                                            log_weights, fixed, G, L)
            if keep:
                flat[i] = t
            k = item_ptr[i + 1] - item_ptr[i]
            if k == 0 or w == 0.0:
                continue
            h = 0.0
            for q in range(GL):
                tpart[c, q] += w * t[q]
                kpart[c, q] += w * k * t[q]
                x = max(t[q], 1e-10)
                h += x * math.log(x)
                t[q] *= w
            hpart[c] += w * h
            for v in range(item_ptr[i], item_ptr[i + 1]):
                base = (rater[v] * L + label[v]) * GL
                for q in range(GL):
                    a[base + q] += t[q]
    S = np.zeros(n_raters * L * GL)
    T = np.zeros(GL)
    Tk = np.zeros(GL)
    ll = 0.0
    H = 0.0
    for c in range(n_chunks):
        S += acc[c]
        T += tpart[c]
        Tk += kpart[c]
        ll += lpart[c]
        H += hpart[c]
    return ll, S.reshape(n_raters, L, G, L), T.reshape(G, L), Tk.reshape(G, L), H


@njit(cache=True, parallel=True)
def count_hist(item_ptr, rater, label, lc, log_prior, log_weights, target, n_max):
    """Per vote count n and k: expected and observed numbers of items with k votes = target.

    Expected: each item's exact marginal predictive of its count, a mixture over
    (node g, truth z) of Poisson-binomial distributions of its raters' probabilities
    of saying ``target`` (recursion over the votes).
    """
    n = item_ptr.size - 1
    G = log_weights.size
    L = log_prior.size
    nb = (n + BLOCK - 1) // BLOCK
    exp_part = np.zeros((nb, n_max + 1, n_max + 1))
    obs_part = np.zeros((nb, n_max + 1, n_max + 1))
    for b in prange(nb):
        pb = np.empty(n_max + 1)
        mix = np.empty(n_max + 1)
        for i in range(b * BLOCK, min(n, (b + 1) * BLOCK)):
            k = item_ptr[i + 1] - item_ptr[i]
            hit = 0
            for v in range(item_ptr[i], item_ptr[i + 1]):
                if label[v] == target:
                    hit += 1
            obs_part[b, k, hit] += 1.0
            for c in range(k + 1):
                mix[c] = 0.0
            for g in range(G):
                for z in range(L):
                    w = math.exp(log_weights[g] + log_prior[z])
                    pb[0] = 1.0
                    for c in range(1, k + 1):
                        pb[c] = 0.0
                    m = 0
                    for v in range(item_ptr[i], item_ptr[i + 1]):
                        p = math.exp(lc[rater[v], target, g, z])
                        m += 1
                        for c in range(m, 0, -1):
                            pb[c] = pb[c] * (1.0 - p) + pb[c - 1] * p
                        pb[0] *= 1.0 - p
                    for c in range(k + 1):
                        mix[c] += w * pb[c]
            for c in range(k + 1):
                exp_part[b, k, c] += mix[c]
    ex = np.zeros((n_max + 1, n_max + 1))
    ob = np.zeros((n_max + 1, n_max + 1))
    for b in range(nb):
        ex += exp_part[b]
        ob += obs_part[b]
    return ex, ob


@njit(cache=True, parallel=True)
def plurality_hist(item_ptr, rater, label, lc, log_prior, log_weights, n_max, n_draws, key):
    """Per vote count n and plurality count t: Monte Carlo expected and observed items.

    Each item's votes are drawn ``n_draws`` times from the fitted model (node and
    truth from the prior, then each of its raters' labels); uniforms are
    ``uniform(key, counter)`` with counter ``(item * n_draws + draw) * (n + 2) + d``.
    """
    n = item_ptr.size - 1
    G = log_weights.size
    L = log_prior.size
    nb = (n + BLOCK - 1) // BLOCK
    exp_part = np.zeros((nb, n_max + 1, n_max + 1))
    obs_part = np.zeros((nb, n_max + 1, n_max + 1))
    cum_gz = np.empty(G * L)
    acc = 0.0
    for g in range(G):
        for z in range(L):
            acc += math.exp(log_weights[g] + log_prior[z])
            cum_gz[g * L + z] = acc
    for b in prange(nb):
        cnt = np.zeros(L, dtype=np.int64)
        for i in range(b * BLOCK, min(n, (b + 1) * BLOCK)):
            k = item_ptr[i + 1] - item_ptr[i]
            for c in range(L):
                cnt[c] = 0
            for v in range(item_ptr[i], item_ptr[i + 1]):
                cnt[label[v]] += 1
            obs_part[b, k, cnt.max()] += 1.0
            for d in range(n_draws):
                base = (np.uint64(i) * np.uint64(n_draws) + np.uint64(d)) * np.uint64(k + 2)
                u = uniform(key, base) * acc
                gz = 0
                while gz < G * L - 1 and cum_gz[gz] < u:
                    gz += 1
                g = gz // L
                z = gz - g * L
                for c in range(L):
                    cnt[c] = 0
                for v in range(item_ptr[i], item_ptr[i + 1]):
                    u = uniform(key, base + np.uint64(1 + v - item_ptr[i]))
                    j = rater[v]
                    s = 0.0
                    said = L - 1
                    for c in range(L):
                        s += math.exp(lc[j, c, g, z])
                        if u < s:
                            said = c
                            break
                    cnt[said] += 1
                exp_part[b, k, cnt.max()] += 1.0 / n_draws
    ex = np.zeros((n_max + 1, n_max + 1))
    ob = np.zeros((n_max + 1, n_max + 1))
    for b in range(nb):
        ex += exp_part[b]
        ob += obs_part[b]
    return ex, ob


@njit(cache=True)
def int_codes(values, lo, span, sort):
    """pandas.factorize of whole numbers in [lo, lo + span): (codes, uniques).

    Uniques in order of first appearance, or increasing with ``sort`` (serial, O(n + span)).
    """
    table = np.full(span, -1, dtype=np.int64)
    n = values.size
    codes = np.empty(n, dtype=np.int64)
    c = 0
    if sort:
        for i in range(n):
            table[values[i] - lo] = 0
        for t in range(span):
            if table[t] == 0:
                table[t] = c
                c += 1
        for i in range(n):
            codes[i] = table[values[i] - lo]
        uniq = np.empty(c, dtype=np.int64)
        for t in range(span):
            if table[t] >= 0:
                uniq[table[t]] = t + lo
        return codes, uniq
    uniq = np.empty(min(n, span), dtype=np.int64)
    for i in range(n):
        t = values[i] - lo
        if table[t] < 0:
            table[t] = c
            uniq[c] = values[i]
            c += 1
        codes[i] = table[t]
    return codes, uniq[:c]


@njit(cache=True)
def share_stats(item_ptr, rater, label, fixed, weights, n_raters, n_labels):
    """The vote-share start (gold items at their truth): S (J, L, L) and T (L,).

    S[j, l, z] = sum over rater j's votes with label l of weight x the share of label z
    among the item's votes; T[z] the same summed per item.
    """
    n = item_ptr.size - 1
    L = n_labels
    S = np.zeros((n_raters, L, L))
    T = np.zeros(L)
    share = np.empty(L)
    for i in range(n):
        k = item_ptr[i + 1] - item_ptr[i]
        if k == 0:
            continue
        for z in range(L):
            share[z] = 0.0
        if fixed[i] >= 0:
            share[fixed[i]] = weights[i]
        else:
            for v in range(item_ptr[i], item_ptr[i + 1]):
                share[label[v]] += weights[i] / k
        for z in range(L):
            T[z] += share[z]
        for v in range(item_ptr[i], item_ptr[i + 1]):
            for z in range(L):
                S[rater[v], label[v], z] += share[z]
    return S, T
