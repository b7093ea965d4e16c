"""Monte Carlo of the alt-test's power model: draws votes, runs the test, counts passes.

Written independently of the exact computation (votes drawn label by label, outcomes
from vote counts, the test's own p-values and BY), so that it checks it.
"""

from __future__ import annotations

import math

import numpy as np

from labelvar._base._seeding import generator
from labelvar.judge import _stats


def _labels(rng, p_modal, n_labels, size):
    """Label 0 (the modal one) with probability p_modal, else one of 1..L-1 uniformly."""
    modal = rng.random(size) < p_modal
    other = rng.integers(1, n_labels, size=size)
    return np.where(modal, 0, other)


def _outcomes(votes, system, n_labels):
    """(R, K, N) outcome codes of each human against the system on each item.

    ``votes`` (R, N, K) labels, ``system`` (R, N).
    """
    onehot = votes[..., None] == np.arange(n_labels)  # R, N, K, L
    counts = onehot.sum(axis=2)  # R, N, L
    own = np.take_along_axis(counts, votes, axis=2) - 1  # R, N, K: others with h's label
    sys_lab = np.broadcast_to(system[..., None], votes.shape)
    sysc = np.take_along_axis(counts, sys_lab, axis=2) - (votes == sys_lab)
    sys_ge, h_ge = sysc >= own, own >= sysc
    codes = np.where(sys_ge & h_ge, 0, np.where(sys_ge, 1, 2))
    return codes.transpose(0, 2, 1)


def simulate_power(design, *, n_items, n_humans, n_resamples, seed, shared):
    """(power, standard error) by Monte Carlo; see ``AltTestPower.simulate``."""
    rng = generator(seed, "alt-test power")
    K, N, L = int(n_humans), int(n_items), design.n_labels
    theta = np.asarray(design.theta)
    skill = np.asarray(design.skill)
    w = np.asarray(design.weights)
    need = math.ceil(K / 2)
    passes = 0
    chunk = max(1, min(n_resamples, 2_000_000 // max(1, N * K * K)))
    done = 0
    while done < n_resamples:
        R = min(chunk, n_resamples - done)
        if shared:
            b = rng.choice(len(w), p=w, size=(R, N))
            votes = _labels(rng, theta[b][..., None], L, (R, N, K))
            system = _labels(rng, skill[b], L, (R, N))
            codes = _outcomes(votes, system, L)  # R, K, N
        else:
            # each human on its own items: K independent item sets of N items
            b = rng.choice(len(w), p=w, size=(R * K, N))
            votes = _labels(rng, theta[b][..., None], L, (R * K, N, K))
            system = _labels(rng, skill[b], L, (R * K, N))
            codes = _outcomes(votes, system, L)[:, 0, :].reshape(R, K, N)  # human 0 of each
        counts = np.stack([(codes == c).sum(axis=2) for c in range(3)], axis=2)  # R, K, 3
        for r in range(R):
            p = _stats.pvalues(counts[r], epsilon=design.epsilon, margin="additive", test="t")
            passes += int(_stats.by_rejections(p, q=design.q).sum() >= need)
        done += R
    est = passes / n_resamples
    return est, math.sqrt(max(est * (1 - est), 1e-12) / n_resamples)
