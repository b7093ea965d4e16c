"""The exact panel core (labelvar.votes._panel) against brute-force enumeration of all L**K votes."""

from __future__ import annotations

import itertools
import math
import warnings
from collections import defaultdict

import numpy as np
import pytest
from scipy import stats

from labelvar.design import _power
from labelvar.engine import _tables as S
from labelvar.votes import _panel as P

TIES = ("random", "drop", 0, 2)


def _probs_cases(L):
    """Symmetric θ = 1/L, 0.73, 1 and one non-symmetric vector (relative positions)."""
    raw = np.arange(1, L + 1, dtype=float)[::-1] ** 1.5
    return [P.symmetric_probs(t, L) for t in (1 / L, 0.73, 1.0)] + [raw / raw.sum()]


def _brute(K, L, vote_probs, tie_rule, modal):
    """Enumerate the L**K joint votes (relative positions; vote_probs (K, L) per annotator).

    Returns {composition: [P(composition), top, n_tied, truth (L,), dropped]}.
    """
    out = {}
    for votes in itertools.product(range(L), repeat=K):
        p = math.prod(vote_probs[k, v] for k, v in enumerate(votes))
        counts = tuple(int(np.sum(np.array(votes) == q)) for q in range(L))
        if counts not in out:
            top = max(counts)
            winners = [(modal + q) % L for q in range(L) if counts[q] == top]  # absolute labels
            truth, dropped = np.zeros(L), 0.0
            if len(winners) == 1:
                chosen = {winners[0]: 1.0}
            elif tie_rule == "drop":
                chosen, dropped = {}, 1.0
            elif tie_rule != "random" and tie_rule in winners:
                chosen = {tie_rule: 1.0}
            else:
                chosen = {w: 1.0 / len(winners) for w in winners}
            for lab, w in chosen.items():
                truth[(lab - modal) % L] = w
            out[counts] = [0.0, top, len(winners), truth, dropped]
        out[counts][0] += p
    return out


@pytest.mark.parametrize("K,L", [(1, 2), (1, 3), (1, 4), (2, 2), (3, 2), (4, 2), (6, 2), (2, 3),
                                 (4, 3), (6, 3), (3, 4), (5, 4)])
def test_panel_core_matches_brute_force_enumeration(K, L):
    comp = P.compositions(K, L)
    # one fixed order: stars and bars (L = 2: c_0 = 0..K), every composition once
    bars = itertools.combinations(range(K + L - 1), L - 1)
    order = [np.diff((-1,) + b + (K + L - 1,)) - 1 for b in bars]
    assert comp.dtype == np.int64 and comp.tolist() == np.array(order).tolist()
    assert len(comp) == P.n_compositions(K, L) == math.comb(K + L - 1, L - 1)
    keys = [tuple(row) for row in comp.tolist()]
    for probs in _probs_cases(L):
        brute = _brute(K, L, np.tile(probs, (K, 1)), "random", 0)
        _, got = P.composition_probs(K, L, probs)
        want = np.array([brute[k][0] for k in keys])
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
        assert set(brute) == set(keys)
        if np.ptp(probs[1:]) == 0:  # symmetric: the engine's grouped formula agrees
            _, sym = P.symmetric_composition_probs(K, L, [probs[0]])
            np.testing.assert_allclose(sym[0], want, rtol=1e-12, atol=1e-15)
    top, n_tied = P.plurality(comp)
    for tie_rule in TIES:
        for modal in range(L):
            if tie_rule == 2 and L == 2:
                continue
            brute = _brute(K, L, np.tile(_probs_cases(L)[1], (K, 1)), tie_rule, modal)
            truth, dropped = P.truth_weights(comp, tie_rule, modal=modal)
            for i, k in enumerate(keys):
                _, b_top, b_tied, b_truth, b_drop = brute[k]
                assert (top[i], n_tied[i]) == (b_top, b_tied)
                np.testing.assert_allclose(truth[i], b_truth, atol=1e-15)
                assert dropped[i] == b_drop
        # strata: the observed agreements top / K that occur (without a tie under "drop")
        labels, sot = P.strata(K, L, tie_rule)
        occurring = sorted({b[1] for b in brute.values() if tie_rule != "drop" or b[2] == 1})
        assert labels == list(dict.fromkeys(f"{t / K:.2f}" for t in occurring))
        assert [t for t in range(K + 1) if sot[t] > 0] == occurring
        assert all(labels[sot[t] - 1] == f"{t / K:.2f}" for t in occurring)
    # a heterogeneous panel: per-annotator matrices P(vote h | modal c)
    if L**K <= 1024:
        rng = np.random.default_rng(K * 10 + L)
        skills = rng.dirichlet(np.ones(L), size=(K, L))  # (K, c, h)
        got = P.skill_composition_probs(skills, K, L)
        for c in range(L):
            rel = np.stack([skills[:, c, (c + q) % L] for q in range(L)], axis=1)  # (K, position)
            brute = _brute(K, L, rel, "random", c)
            np.testing.assert_allclose(got[c], [brute[k][0] for k in keys], rtol=1e-12, atol=1e-15)


def test_log_multinomial_pmf_matches_scipy_with_varying_totals():
    counts = np.array([[3, 0, 1], [0, 0, 0], [5, 2, 2], [1, 1, 1]])
    probs = np.array([0.5, 0.3, 0.2])
    want = [stats.multinomial.logpmf(c, c.sum(), probs) for c in counts]
    np.testing.assert_allclose(P.log_multinomial_pmf(counts, probs), want, rtol=1e-12)
    # broadcasting: (items, 1, L) against (nodes, L)
    nodes = P.symmetric_probs([0.5, 0.9], 3)
    got = P.log_multinomial_pmf(counts[:, None, :], nodes[None])
    assert got.shape == (4, 2)
    assert got[2, 1] == pytest.approx(stats.multinomial.logpmf([5, 2, 2], 9, nodes[1]), rel=1e-12)


def test_zero_log_zero_gives_no_nan_and_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for L in (2, 3, 4):
            comp, p1 = P.composition_probs(5, L, P.symmetric_probs(1.0, L))
            assert p1.tolist() == [float(row[0] == 5) for row in comp]  # all votes modal
            _, s1 = P.symmetric_composition_probs(5, L, [1.0])
            assert s1[0].tolist() == p1.tolist()
            _, pu = P.composition_probs(5, L, P.symmetric_probs(1 / L, L))
            assert not np.isnan(pu).any() and pu.sum() == pytest.approx(1.0)
        lp = P.log_multinomial_pmf([[2, 0], [1, 1], [0, 2]], [1.0, 0.0])
        assert lp.tolist() == [0.0, -math.inf, -math.inf]
        ll = P.log_pattern_likelihood([[3, 0, 0], [2, 1, 0]], [1.0, 1 / 3], 3)
        assert ll[0, 0] == pytest.approx(math.log(1 / 3)) and ll[1, 0] == -math.inf
        assert np.isfinite(ll[:, 1]).all()


def test_enumeration_cap_is_one_line_naming_panel_size_and_n_labels():
    assert P.MAX_COMPOSITIONS == 200_000
    with pytest.raises(ValueError, match=r"^panel_size=101 with n_labels=5 has 4780230 vote "
                                         r"compositions; at most 200000 can be enumerated$"):
        P.compositions(101, 5)
    with pytest.raises(ValueError, match=r"panel_size=12 with n_labels=3 has 531441 joint votes"):
        P.skill_composition_probs(np.full((12, 3, 3), 1 / 3), 12, 3)
    assert P.n_compositions(101, 5) == 4780230
    P.compositions(40, 5)  # 135751 compositions: allowed


@pytest.mark.parametrize("K,L,tie_rule", [(5, 3, "random"), (4, 3, "drop"), (4, 3, 1), (6, 2, "random"),
                                          (3, 4, "drop")])
def test_engine_planner_and_pilot_agree_with_the_panel_core(K, L, tie_rule):
    """simulate's exact vote table, design's panel_probabilities and the pilot likelihood."""
    theta = np.array([1 / L, 0.73, 1.0])
    labels, sot = P.strata(K, L, tie_rule)
    table = S._vote_table(L, K, theta, tie_rule, sot, len(labels))  # (c, node, slot, truth)
    for n, t in enumerate(theta):
        probs = np.tile(P.symmetric_probs(t, L), (K, 1))
        for c in range(L):
            brute = _brute(K, L, probs, tie_rule, c)
            want = np.zeros((len(labels) + 2, L))
            for p, top, _, truth, dropped in brute.values():
                want[sot[top], (c + np.arange(L)) % L] += p * truth
                want[len(labels) + 1, 0] += p * dropped
            np.testing.assert_allclose(table[c, n], want, atol=1e-14)
    if not isinstance(tie_rule, str):
        return
    pp = _power.panel_probabilities(theta, K, L, tie_rule)
    for n, t in enumerate(theta):
        brute = _brute(K, L, np.tile(P.symmetric_probs(t, L), (K, 1)), tie_rule, 0)
        want = defaultdict(lambda: np.zeros(K + 1))
        for p, top, _, truth, _ in brute.values():
            want["top"][top] += p
            want["gt_modal"][top] += p * truth[0]
            want["gt_other"][top] += p * truth[1:].sum()
        for key in ("top", "gt_modal", "gt_other"):
            np.testing.assert_allclose(pp[key][n], want[key], atol=1e-14)
        # the engine's table and the planner's probabilities are the same numbers
        np.testing.assert_allclose(table[0, n, 1:-1, 0].sum(), pp["gt_modal"][n].sum(), atol=1e-14)
    # pilot likelihood: (1/L) sum_j Multinomial(c; theta on label j), unknown modal label
    counts = np.array([[K] + [0] * (L - 1), [K - 1, 1] + [0] * (L - 2), [1] * L])
    got = P.log_pattern_likelihood(counts, theta[:2], L)
    for i, cnt in enumerate(counts):
        for n, t in enumerate(theta[:2]):
            want = np.mean([stats.multinomial.pmf(cnt, cnt.sum(), np.roll(P.symmetric_probs(t, L), j))
                            for j in range(L)])
            assert math.exp(got[i, n]) == pytest.approx(want, rel=1e-12)


def test_log_multinomial_pmf_of_1e12_votes_needs_no_table():
    """Fuzz: log k! was tabulated up to the largest count (1e12 votes: out of memory)."""
    from scipy import stats

    from labelvar.votes._panel import log_multinomial_pmf

    for n in (99_995, 100_001, 10**7):
        c = [n - 5, 5]
        assert float(log_multinomial_pmf(c, [0.9, 0.1])) == pytest.approx(
            stats.multinomial.logpmf(c, n, [0.9, 0.1]), rel=1e-12)
    big = float(log_multinomial_pmf([10**12 - 5, 5], [0.9, 0.1]))
    assert big == pytest.approx(stats.binom.logpmf(5, 10**12, 0.1), rel=1e-12)
