"""Tests of the study planner (issue 6): exact calculations, simulation, bad input."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from labelvar import design as D
from labelvar.design import Scenario, plan_study
from labelvar.priors import as_theta_prior


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
        got = D.panel_probabilities(theta, K, L, tie_rule)
        want = _brute_panel(theta, K, L, tie_rule)
        for key in want:
            np.testing.assert_allclose(got[key], want[key], atol=1e-14)


def test_beta_quadrature_matches_scipy_integration():
    K = 7
    th, w = as_theta_prior("beta:2.5,0.7", n_labels=3).nodes(3, 2 * K + 2)
    f = lambda t: D.panel_probabilities(t, K, 3)["gt_modal"].sum() * t  # noqa: E731
    got = sum(wi * f(ti) for ti, wi in zip(th, w))
    dens = stats.beta(2.5, 0.7, loc=1 / 3, scale=2 / 3).pdf
    want = __import__("scipy.integrate").integrate.quad(lambda t: f(t) * dens(t), 1 / 3, 1)[0]
    assert got == pytest.approx(want, rel=1e-9)


# --------------------------------------------------------------------------- test helpers vs scipy
def test_critical_values_match_scipy():
    for n in range(1, 60):
        for b in (0.5, 1 / 3):
            c = int(D.separability_critical(n, b, 0.05))
            assert stats.binom.sf(c - 1, n, b) <= 0.05
            if c <= n:
                assert stats.binom.sf(c - 2, n, b) > 0.05
        j = int(D.mcnemar_lower_critical(n, 0.05))
        rejected = [k for k in range(n + 1) if stats.binomtest(k, n, 0.5).pvalue <= 0.05]
        want = [k for k in range(n + 1) if k <= j or k >= n - j] if j >= 0 else []
        assert rejected == want


def test_wilson_half_width_and_acceptance_region():
    for n in (1, 7, 50, 333):
        x = np.arange(n + 1)
        for k in x[:: max(1, n // 10)]:
            ci = stats.binomtest(int(k), n).proportion_ci(0.9, method="wilson")
            assert D.wilson_half_width(k, n, 0.1) == pytest.approx((ci.high - ci.low) / 2)
        for h in (0.02, 0.08, 0.2, 0.45):
            lo, hi = D._wilson_acceptance(np.array([n]), h, 0.1)
            ok = D.wilson_half_width(x, n, 0.1) <= h
            want = (x <= lo[0]) | (x >= hi[0])
            np.testing.assert_array_equal(ok, want)


# --------------------------------------------------------------------------- done-when: K = 1 exact
def _first_n(power_fn, target, n_max=2000):
    for n in range(1, n_max + 1):
        if power_fn(n) >= target:
            return n
    return None


@pytest.mark.parametrize("theta,L", [(0.75, 2), (0.6, 3)])
def test_separability_k1_matches_exact_binomial(theta, L):
    alpha, target = 0.05, 0.8
    p = theta**2 + (1 - theta) ** 2 / (L - 1)  # expert agrees with the single annotator

    def power(n):
        c = next(k for k in range(n + 2) if k > n or stats.binom.sf(k - 1, n, 1 / L) <= alpha)
        return stats.binom.sf(c - 1, n, p) if c <= n else 0.0

    want = _first_n(power, target)
    res = plan_study(Scenario("separability", theta=theta, n_labels=L, alpha=alpha, power=target),
                     panel_sizes=[1], replicates=0)
    assert int(res.plans["n_items"][0]) == want
    assert res.plans["power_analytic"][0] == pytest.approx(power(want))


def test_two_systems_k1_matches_exact_mcnemar():
    theta, qa, qb, rho, alpha, target = 0.9, 0.85, 0.7, 0.2, 0.05, 0.8
    # joint correctness against the modal label
    p11 = qa * qb + rho * math.sqrt(qa * (1 - qa) * qb * (1 - qb))
    m10, m01 = qa - p11, qb - p11
    # K = 1, L = 2: the GT is the single annotator's vote; it is the modal label w.p. theta,
    # otherwise a system is right against the GT exactly when it is wrong against the modal label
    p10 = theta * m10 + (1 - theta) * m01
    p01 = theta * m01 + (1 - theta) * m10
    pd, r = p10 + p01, p10 / (p10 + p01)
    reject_cache = {}

    def rejection(d):
        if d not in reject_cache:
            ks = [k for k in range(d + 1) if stats.binomtest(k, d, 0.5).pvalue <= alpha]
            reject_cache[d] = sum(stats.binom.pmf(k, d, r) for k in ks)
        return reject_cache[d]

    def power(n):
        ds = np.arange(n + 1)
        pm = stats.binom.pmf(ds, n, pd)
        return sum(pm[d] * rejection(d) for d in ds if pm[d] > 1e-12)

    # power is not monotone in N (discreteness); scan from a little below the crossing
    lo = 100
    assert power(lo) < target
    want = next(n for n in range(lo, 1000) if power(n) >= target)
    res = plan_study(Scenario("two_systems", theta=theta, accuracy_b=qb, delta=qa - qb,
                              error_correlation=rho, alpha=alpha, power=target),
                     panel_sizes=[1], replicates=0)
    assert int(res.plans["n_items"][0]) == want
    assert res.plans["p_discordant"][0] == pytest.approx(pd)
    assert res.plans["delta_observed"][0] == pytest.approx(p10 - p01)


# --------------------------------------------------------------------------- simulation vs exact
SIM_CASES = [
    Scenario("separability", theta="beta:2,2"),
    Scenario("separability", theta="mixture:0.34=0.2,0.7=0.3,1=0.5", n_labels=3, tie_rule="drop",
             min_agreement=0.6, baseline="prior", m=[0.2, 0.3, 0.5]),
    Scenario("two_systems", theta="beta:3,1", n_labels=3, accuracy_b=0.7, delta=0.1,
             error_correlation=0.4, min_agreement=0.5),
    Scenario("two_systems", theta="beta:3,1", accuracy_b=0.8, delta=0.1, test="unpaired"),
    Scenario("precision", theta="beta:3,1", n_labels=3, half_width=0.08, min_agreement=0.8,
             accuracy_a=0.9),
    Scenario("two_systems", theta="beta:3,1", accuracy_b=0.8, delta=0.08, error_correlation=0.3,
             metric="f1", m=0.2, min_agreement=0.5),
    Scenario("two_systems", theta="beta:3,1", accuracy_b=0.8, delta=0.08, metric="f1",
             test="unpaired"),
]


SIM_CASES_ENGINE = [(sc, "engine") for sc in SIM_CASES if sc.question != "two_systems"]


@pytest.mark.parametrize("sc,simulator", [(sc, "numpy") for sc in SIM_CASES] + SIM_CASES_ENGINE,
                         ids=lambda x: x if isinstance(x, str) else
                         f"{x.question}-{x.metric}-{x.test}-{x.n_labels}-{x.tie_rule}")
def test_simulated_power_matches_exact(sc, simulator):
    """Per-item simulation (numpy or the engine) and the exact power agree within MC error."""
    fn = D._simulate_power if simulator == "numpy" else D._simulate_power_engine
    zs = []
    half = dataclasses.replace(sc, power=0.5)
    for K in (1, 4, 5):
        cell = D._cell(sc, K)
        # the N where the exact power first reaches 1/2: the most informative point
        N = D._PowerScan(half, cell, 5000).first_crossing()
        exact = D._analytic_power(sc, cell, np.array([N]))[0]
        assert 0.45 < exact < 0.7
        sim = fn(sc, K, N, 2000, 11, cell)
        se = math.sqrt(max(exact * (1 - exact), 1e-4) / 2000)
        zs.append((sim["power_simulated"] - exact) / se)
        expected_scored = N * cell.p_eval * (2 if sc.test == "unpaired" and
                                             sc.question == "two_systems" else 1) / (
            2 if sc.test == "unpaired" and sc.question == "two_systems" else 1)
        assert sim["scored_items_simulated"] == pytest.approx(expected_scored,
                                                              abs=5 * math.sqrt(N) / math.sqrt(2000))
    normal = sc.question == "two_systems" and (sc.test == "unpaired" or sc.metric == "f1")
    tol = 5 if normal else 4  # the normal approximation adds its own small error
    assert max(abs(z) for z in zs) < tol, zs


@pytest.mark.parametrize("sc", [
    Scenario("separability", theta="beta:3,2", n_labels=3),
    Scenario("two_systems", theta="beta:4,1", accuracy_b=0.75, delta=0.1, error_correlation=0.3),
], ids=["separability", "two_systems"])
def test_beta_prior_plan_is_smallest_meeting_target(sc):
    """Done-when: recommended plan's simulated power >= target, one step smaller is below it.

    Checked twice: by the planner's own simulation (by construction) and against the exact
    power, which is independent of the planner's Monte Carlo draws, within 3 MC SEs.
    """
    res = plan_study(sc, panel_sizes=[1, 3, 5], replicates=600, seed=3, n_step=None)
    assert res.found
    for _, row in res.plans.iterrows():
        assert row["meets_target"]
        assert row["power_simulated"] >= sc.power
        assert row["power_simulated_below"] < sc.power
        assert row["n_items"] - row["n_items_below"] == row["n_step"]
        cell = D._cell(sc, int(row["panel_size"]))
        exact = D._analytic_power(sc, cell, np.array([int(row["n_items"]),
                                                      int(row["n_items_below"])]))
        se = math.sqrt(sc.power * (1 - sc.power) / 600)
        assert exact[0] >= sc.power - 3 * se
        assert exact[1] <= sc.power + 3 * se
    rec = res.recommended
    assert rec["cost"] == res.plans.loc[res.plans["meets_target"], "cost"].min()
    ev = res.evaluated
    z = (ev["power_simulated"] - ev["power_analytic"]) / np.sqrt(
        ev["power_analytic"] * (1 - ev["power_analytic"]) / 600)
    assert (z.abs() < 4).all(), z.tolist()


def test_more_annotators_reduce_gt_error_and_items():
    res = plan_study(Scenario("two_systems", theta="beta:2,1", accuracy_b=0.7, delta=0.1),
                     panel_sizes=[1, 3, 5, 7], replicates=0)
    p = res.plans
    assert p["p_gt_error"].is_monotonic_decreasing
    assert p["n_items"].is_monotonic_decreasing
    assert (p["delta_observed"] < 0.1).all() and p["delta_observed"].is_monotonic_increasing
    # expected items per bin add up to N
    b = res.bins.groupby("panel_size")["expected_items"].sum()
    np.testing.assert_allclose(b.to_numpy(), p["n_items"].to_numpy())


def test_costs_choose_cheapest_plan():
    sc = Scenario("separability", theta="beta:2,2", cost_per_item=10.0, cost_per_annotation=1.0)
    res = plan_study(sc, panel_sizes=[1, 3, 5], replicates=0)
    p = res.plans
    np.testing.assert_allclose(p["cost"], 10 * p["n_items"] + p["n_items"] * p["panel_size"])
    assert p.loc[p["recommended"], "cost"].item() == p["cost"].min()
    assert "recommended: K = " in res.message


def test_separability_columns_reproduce_table1_message():
    # Paper Table 1: a random binary labeller reaches 8/10 with probability 0.055
    sc = Scenario("separability", theta=1.0, alpha=0.06, power=0.5)
    res = plan_study(sc, panel_sizes=[1], replicates=0, n_max=50)
    row = res.plans.iloc[0]
    n = int(row["n_items"])
    assert row["p_baseline_at_least_threshold"] == pytest.approx(
        stats.binom.sf(round(row["threshold_accuracy"] * n) - 1, n, 0.5))
    assert int(D.separability_critical(10, 0.5, 0.06)) == 8
    assert stats.binom.sf(7, 10, 0.5) == pytest.approx(0.0547, abs=1e-4)


def test_p_beats_baseline_matches_direct_sum():
    sc = Scenario("separability", theta=0.8)
    res = plan_study(sc, panel_sizes=[3], replicates=0)
    row = res.plans.iloc[0]
    n, p = int(row["n_items"]), row["accuracy_a_vs_gt"]
    k = np.arange(n + 1)
    want = float(stats.binom.pmf(k, n, 0.5) @ stats.binom.sf(k, n, p))
    assert row["p_beats_baseline"] == pytest.approx(want)


# --------------------------------------------------------------------------- F1 (two systems)
def test_f1_without_gt_noise_is_the_papers_expected_f1():
    """theta = 1: the GT is the modal label, so F1 = 2 m q / (2 m q + 1 - q) (paper, eq. F1)."""
    for m, qa, qb in ((0.5, 0.9, 0.8), (0.1, 0.9, 0.85), (0.3, 0.75, 0.7)):
        sc = Scenario("two_systems", theta=1.0, accuracy_b=qb, delta=qa - qb, metric="f1", m=m,
                      error_correlation=0.2)
        row = plan_study(sc, panel_sizes=[3], replicates=0, n_max=200_000).plans.iloc[0]
        assert row["f1_a_vs_gt"] == pytest.approx(2 * m * qa / (2 * m * qa + 1 - qa))
        assert row["f1_b_vs_gt"] == pytest.approx(2 * m * qb / (2 * m * qb + 1 - qb))


@pytest.mark.parametrize("paired", [True, False])
def test_f1_delta_method_variance_matches_monte_carlo(paired):
    sc = Scenario("two_systems", theta="beta:2,1", accuracy_b=0.75, delta=0.1, m=0.3,
                  error_correlation=0.4, metric="f1")
    cells = D._cell(sc, 3).f1_cells
    d, v = D.f1_difference_variance(cells, paired=paired)
    rng = np.random.default_rng(0)
    n, reps = 4000, 4000
    if paired:
        draws = rng.multinomial(n, cells.ravel(), size=reps).reshape(-1, 2, 2, 2) / n
        fa = D._f1_and_gradient(draws.sum(-1))[0]
        fb = D._f1_and_gradient(draws.sum(-2))[0]
    else:
        fa = D._f1_and_gradient(rng.multinomial(n, cells.sum(-1).ravel(), size=reps)
                                .reshape(-1, 2, 2) / n)[0]
        fb = D._f1_and_gradient(rng.multinomial(n, cells.sum(-2).ravel(), size=reps)
                                .reshape(-1, 2, 2) / n)[0]
    diff = fa - fb
    assert diff.mean() == pytest.approx(d, abs=4 * diff.std() / math.sqrt(reps))
    # sample variance of a near-normal statistic has relative SE sqrt(2 / reps) ~ 2.2 %
    assert diff.var() * n == pytest.approx(v, rel=0.1)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs,match", [
    (dict(question="two_systems", accuracy_b=0.9, delta=0.2), r"delta must be in \(0, 1 - accuracy_b\]"),
    (dict(question="two_systems", accuracy_b=0.9, delta=-0.05), r"delta must be in"),
    (dict(question="two_systems", accuracy_b=0.9), r"two_systems needs accuracy_b and delta"),
    (dict(power=1.0), r"power must be in \(0, 1\), got 1.0"),
    (dict(alpha=0.0), r"alpha must be in \(0, 1\)"),
    (dict(alpha=1.5), r"alpha must be in \(0, 1\)"),
    (dict(theta=0.3), r"theta must be in \[1/L, 1\] = \[0.5, 1\]"),
    (dict(theta=0.3, n_labels=3), r"theta must be in \[1/L, 1\] = \[0.3333, 1\]"),
    (dict(theta="mixture:0.2=0.5,0.9=0.5"), r"theta must be in \[1/L, 1\] = \[0.5, 1\] .* got "
                                            r"support \[0.2, 0.9\]"),
    (dict(theta="mixture:0.6=0.5,0.9=0.4"), r"DiscretePrior.weights must be >= 0, one per value, "
                                            r"and sum to 1"),
    (dict(theta="beta:0,2"), r"BetaPrior.a must be a number > 0"),
    (dict(theta="banana"), r"theta must be a number, 'beta:A,B'"),
    (dict(question="precision"), r"precision needs half_width"),
    (dict(question="precision", half_width=0.7), r"half_width must be in \(0, 0.5\]"),
    (dict(question="two_systems", accuracy_b=0.9, delta=0.05, error_correlation=0.9),
     r"error_correlation must be in \[.*\] for accuracies 0.95 and 0.9"),
    (dict(tie_rule="first"), r"tie_rule must be one of"),
    (dict(m=[0.5, 0.5], n_labels=3), r"m must be one number or n_labels=3 class probabilities"),
    (dict(metric="f1"), r"metric='f1' needs question='two_systems' and n_labels=2"),
    (dict(question="two_systems", accuracy_b=0.5, delta=0.1, n_labels=3, metric="f1"),
     r"metric='f1' needs question='two_systems' and n_labels=2, got question='two_systems', "
     r"n_labels=3"),
])
def test_bad_scenarios_raise_one_line(kwargs, match):
    with pytest.raises(ValueError, match=match) as err:
        Scenario(**kwargs)
    assert "\n" not in str(err.value)


def test_no_plan_in_range_reports_best_power():
    sc = Scenario("two_systems", theta="beta:1,1", accuracy_b=0.6, delta=0.02)
    res = plan_study(sc, panel_sizes=[1, 3], n_max=300, replicates=200)
    assert not res.found and res.recommended is None
    best = res.plans.loc[res.plans["power_analytic"].idxmax()]
    assert f"best power reached {best['power_analytic']:.4f} (exact, simulated " \
           f"{best['power_simulated']:.3f} +/- {best['power_se']:.3f}; K = " \
           f"{int(best['panel_size'])}, N = {int(best['n_items'])})" in res.message
    # the best exact power is reached at the largest N searched
    assert (res.plans["n_items"] == 300).all()
    assert "no plan with K in {1, 3} and N <= 300 reaches power 0.8" in res.message


def test_expert_no_better_than_random_has_no_plan():
    res = plan_study(Scenario("separability", theta=0.5), panel_sizes=[1, 3], n_max=200,
                     replicates=0)
    assert not res.found
    assert res.plans["power_analytic"].max() <= 0.05


def test_engine_prior_objects_accepted_and_checked():
    from labelvar.priors import BetaPrior, DiscretePrior

    sc = Scenario("separability", theta=BetaPrior(2, 2, lo=0.6, hi=0.95))
    assert sc.theta == BetaPrior(2, 2, lo=0.6, hi=0.95) and sc.prior is sc.theta
    assert sc.theta.mean(2) == pytest.approx(0.775)
    assert Scenario(theta="mixture:0.6=0.5,1=0.5").theta == DiscretePrior((0.6, 1.0), (0.5, 0.5))
    with pytest.raises(ValueError, match=r"theta must be in \[1/L, 1\] .* got support \[0.3, 1\]"):
        Scenario(theta=BetaPrior(2, 2, lo=0.3))
    with pytest.raises(ValueError, match=r"theta must be in \[1/L, 1\] .* got support \[0.3, 0.9\]"):
        Scenario(theta=DiscretePrior((0.3, 0.9)))


def test_plan_arguments_validated():
    sc = Scenario()
    with pytest.raises(ValueError, match="simulator='engine' cannot simulate two_systems"):
        plan_study(Scenario("two_systems", accuracy_b=0.7, delta=0.1), simulator="engine")
    with pytest.raises(ValueError, match="panel_sizes must be >= 2 when min_agreement > 0"):
        plan_study(Scenario(min_agreement=0.6), panel_sizes=[1, 3])
    with pytest.raises(ValueError, match="panel_sizes must be >= 1"):
        plan_study(sc, panel_sizes=[0, 3])
    with pytest.raises(ValueError, match="replicates must be >= 0"):
        plan_study(sc, replicates=-1)


def test_seeded_simulation_is_reproducible():
    sc = Scenario("separability", theta="beta:2,2")
    a = plan_study(sc, panel_sizes=[3], replicates=200, seed=5)
    b = plan_study(sc, panel_sizes=[3], replicates=200, seed=5)
    __import__("pandas").testing.assert_frame_equal(a.evaluated, b.evaluated)


# --------------------------------------------------------------------------- properties


@settings(max_examples=40, deadline=None)
@given(theta=st.floats(0.0, 1.0), K=st.integers(1, 9), L=st.integers(2, 5),
       tie_rule=st.sampled_from(["random", "drop"]))
def test_panel_probabilities_are_a_distribution(theta, K, L, tie_rule):
    theta = max(theta, 1 / L)
    p = D.panel_probabilities(theta, K, L, tie_rule)
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
    acc = [D.panel_probabilities(theta, K, 2)["gt_modal"].sum() for K in (1, 3, 5, 7, 9)]
    assert all(b > a for a, b in zip(acc, acc[1:]))
    assert acc[0] == pytest.approx(theta)
