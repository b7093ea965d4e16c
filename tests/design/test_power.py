"""design/_power.py: vote enumeration, quadrature, critical values, Wilson interval, F1 variance."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from labelvar.design import _power
from labelvar.design import _power as P
from labelvar.design._scenario import Scenario
from labelvar.votes._priors import as_theta_prior


# --------------------------------------------------------------------------- enumeration
def _brute_panel(theta, K, L, tie_rule):
    """Enumerate all L**K ordered vote sequences (label 0 = modal)."""
    out = {k: np.zeros(K + 1) for k in ("top", "gt_modal", "gt_other")}
    for votes in itertools.product(range(L), repeat=K):
        p = math.prod(theta if v == 0 else (1 - theta) / (L - 1) for v in votes)
        counts = np.bincount(votes, minlength=L)
        top = counts.max()
        winners = np.flatnonzero(counts == top)
        out["top"][top] += p
        if tie_rule == "random":
            out["gt_modal"][top] += p * (0 in winners) / len(winners)
            out["gt_other"][top] += p * (1 - (0 in winners) / len(winners))
        elif len(winners) == 1:
            out["gt_modal" if winners[0] == 0 else "gt_other"][top] += p
    return out


@pytest.mark.parametrize("K,L,tie_rule", [(3, 2, "random"), (4, 2, "random"), (4, 3, "random"),
                                          (4, 3, "drop"), (5, 4, "drop"), (2, 2, "drop")])
def test_panel_probabilities_match_brute_force(K, L, tie_rule):
    for theta in (1 / L, 0.55, 0.8, 1.0):
        got = _power.panel_probabilities(theta, K, L, tie_rule)
        want = _brute_panel(theta, K, L, tie_rule)
        for key in want:
            np.testing.assert_allclose(got[key], want[key], atol=1e-14)


def test_beta_quadrature_matches_scipy_integration():
    K = 7
    th, w = as_theta_prior("beta:2.5,0.7", n_labels=3).nodes(3, 2 * K + 2)
    f = lambda t: _power.panel_probabilities(t, K, 3)["gt_modal"].sum() * t  # noqa: E731
    got = sum(wi * f(ti) for ti, wi in zip(th, w))
    dens = stats.beta(2.5, 0.7, loc=1 / 3, scale=2 / 3).pdf
    want = __import__("scipy.integrate").integrate.quad(lambda t: f(t) * dens(t), 1 / 3, 1)[0]
    assert got == pytest.approx(want, rel=1e-9)


# --------------------------------------------------------------------------- test helpers vs scipy
def test_critical_values_match_scipy():
    for n in range(1, 60):
        for b in (0.5, 1 / 3):
            c = int(_power.separability_critical(n, b, 0.05))
            assert stats.binom.sf(c - 1, n, b) <= 0.05
            if c <= n:
                assert stats.binom.sf(c - 2, n, b) > 0.05
        j = int(_power.mcnemar_lower_critical(n, 0.05))
        rejected = [k for k in range(n + 1) if stats.binomtest(k, n, 0.5).pvalue <= 0.05]
        want = [k for k in range(n + 1) if k <= j or k >= n - j] if j >= 0 else []
        assert rejected == want


def test_wilson_half_width_and_acceptance_region():
    for n in (1, 7, 50, 333):
        x = np.arange(n + 1)
        for k in x[:: max(1, n // 10)]:
            ci = stats.binomtest(int(k), n).proportion_ci(0.9, method="wilson")
            assert _power.wilson_half_width(k, n, 0.9) == pytest.approx((ci.high - ci.low) / 2)
        for h in (0.02, 0.08, 0.2, 0.45):
            lo, hi = P.wilson_acceptance(np.array([n]), h, 0.9)
            ok = _power.wilson_half_width(x, n, 0.9) <= h
            want = (x <= lo[0]) | (x >= hi[0])
            np.testing.assert_array_equal(ok, want)


@pytest.mark.parametrize("paired", [True, False])
def test_f1_delta_method_variance_matches_monte_carlo(paired):
    sc = Scenario("two_systems", theta="beta:2,1", accuracy_b=0.75, delta=0.1, m=0.3,
                  error_correlation=0.4, metric="f1")
    cells = P.cell_probabilities(sc, 3).f1_cells
    d, v = _power.f1_difference_variance(cells, paired=paired)
    rng = np.random.default_rng(0)
    n, reps = 4000, 4000
    if paired:
        draws = rng.multinomial(n, cells.ravel(), size=reps).reshape(-1, 2, 2, 2) / n
        fa = P.f1_and_gradient(draws.sum(-1))[0]
        fb = P.f1_and_gradient(draws.sum(-2))[0]
    else:
        fa = P.f1_and_gradient(rng.multinomial(n, cells.sum(-1).ravel(), size=reps)
                                .reshape(-1, 2, 2) / n)[0]
        fb = P.f1_and_gradient(rng.multinomial(n, cells.sum(-2).ravel(), size=reps)
                                .reshape(-1, 2, 2) / n)[0]
    diff = fa - fb
    assert diff.mean() == pytest.approx(d, abs=4 * diff.std() / math.sqrt(reps))
    # sample variance of a near-normal statistic has relative SE sqrt(2 / reps) ~ 2.2 %
    assert diff.var() * n == pytest.approx(v, rel=0.1)



# --------------------------------------------------------------------------- properties


@settings(max_examples=40, deadline=None)
@given(theta=st.floats(0.0, 1.0), K=st.integers(1, 9), L=st.integers(2, 5),
       tie_rule=st.sampled_from(["random", "drop"]))
def test_panel_probabilities_are_a_distribution(theta, K, L, tie_rule):
    theta = max(theta, 1 / L)
    p = _power.panel_probabilities(theta, K, L, tie_rule)
    assert p["top"].sum() == pytest.approx(1.0)
    kept = p["gt_modal"] + p["gt_other"]
    assert (kept <= p["top"] + 1e-12).all()
    if tie_rule == "random":
        np.testing.assert_allclose(kept, p["top"], atol=1e-12)
    assert p["top"][: -(-K // L)].sum() == pytest.approx(0.0, abs=1e-12)  # top >= ceil(K/L)


@settings(max_examples=30, deadline=None)
@given(theta=st.floats(0.51, 0.99))
def test_condorcet_majority_improves_with_odd_panels(theta):
    """Condorcet's jury theorem: for theta > 1/2 the majority of more voters is right more often."""
    acc = [_power.panel_probabilities(theta, K, 2)["gt_modal"].sum() for K in (1, 3, 5, 7, 9)]
    assert all(b > a for a, b in zip(acc, acc[1:]))
    assert acc[0] == pytest.approx(theta)
