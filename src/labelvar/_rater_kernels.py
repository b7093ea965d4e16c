"""Numba kernels of the rater models (:mod:`labelvar.raters`).

Votes are held twice, as compressed sparse rows: by item (``item_ptr``, the votes'
rater and label codes in item order) for the E-step, and by rater (``rater_ptr``,
the votes' item and label codes in rater order) for the M-step statistics. Every
parallel loop runs over fixed blocks of items, or over raters, and writes only its
own rows (per-block partial sums are added afterwards in block order), so results
are bit-identical on any number of threads.

Kernel layout of the log confusion: ``lc[j, l, g, z]`` = log P(rater j says l |
truth z, difficulty node g), the said label first so that one vote adds a
contiguous (G, L) slab. Row ``J`` (the last) is the population rater.

Kernels
-------
``csr``             counting sort of codes into rows (serial, O(n))
``first_duplicate`` the first item with two votes from one rater, or -1
``e_step``          per item the posterior over (difficulty node, truth); log evidence
``rater_stats``     per rater the posterior-weighted counts S[j, l, g, z]
``item_sums``       sum over items of weight x posterior, (G, L)
``count_hist``      expected (exact Poisson-binomial) and observed histograms of one
                    label's votes per item, by vote count
``plurality_hist``  Monte Carlo expected and observed histograms of the plurality count
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from labelvar._kernels import uniform

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


@njit(cache=True, parallel=True, error_model="numpy")
def e_step(item_ptr, rater, label, lc, log_prior, log_weights, fixed, weights, post):
    """Posterior ``post[i, g, z]`` of each item; returns sum_i weights[i] log P(votes_i).

    ``fixed[i] >= 0`` pins item i's truth (a gold item). Items without votes get the
    prior x the difficulty weights.
    """
    n = item_ptr.size - 1
    G = log_weights.size
    L = log_prior.size
    nb = (n + BLOCK - 1) // BLOCK
    part = np.zeros(nb)
    for b in prange(nb):
        t = np.empty((G, L))
        s = 0.0
        for i in range(b * BLOCK, min(n, (b + 1) * BLOCK)):
            for g in range(G):
                for z in range(L):
                    t[g, z] = log_weights[g] + log_prior[z]
            for v in range(item_ptr[i], item_ptr[i + 1]):
                slab = lc[rater[v], label[v]]
                for g in range(G):
                    for z in range(L):
                        t[g, z] += slab[g, z]
            f = fixed[i]
            if f >= 0:
                for g in range(G):
                    for z in range(L):
                        if z != f:
                            t[g, z] = -np.inf
            m = -np.inf
            for g in range(G):
                for z in range(L):
                    if t[g, z] > m:
                        m = t[g, z]
            tot = 0.0
            for g in range(G):
                for z in range(L):
                    e = math.exp(t[g, z] - m)
                    post[i, g, z] = e
                    tot += e
            for g in range(G):
                for z in range(L):
                    post[i, g, z] /= tot
            s += weights[i] * (m + math.log(tot))
        part[b] = s
    out = 0.0
    for b in range(nb):
        out += part[b]
    return out


@njit(cache=True, parallel=True)
def rater_stats(rater_ptr, item, label, post, weights, n_labels):
    """S[j, l, g, z] = sum over rater j's votes with label l of weight x post[item, g, z]."""
    J = rater_ptr.size - 1
    G = post.shape[1]
    L = post.shape[2]
    out = np.zeros((J, n_labels, G, L))
    for j in prange(J):
        for v in range(rater_ptr[j], rater_ptr[j + 1]):
            i = item[v]
            w = weights[i]
            o = out[j, label[v]]
            for g in range(G):
                for z in range(L):
                    o[g, z] += w * post[i, g, z]
    return out


@njit(cache=True, parallel=True)
def item_sums(post, weights):
    """sum_i weights[i] post[i] (G, L), by fixed blocks."""
    n, G, L = post.shape
    nb = (n + BLOCK - 1) // BLOCK
    part = np.zeros((nb, G, L))
    for b in prange(nb):
        for i in range(b * BLOCK, min(n, (b + 1) * BLOCK)):
            w = weights[i]
            for g in range(G):
                for z in range(L):
                    part[b, g, z] += w * post[i, g, z]
    out = np.zeros((G, L))
    for b in range(nb):
        out += part[b]
    return out


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
