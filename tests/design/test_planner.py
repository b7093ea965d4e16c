"""design/_planner.py: plan_study against exact calculations, simulation, costs, bad input."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

from labelvar import plan_study
from labelvar.design import _power
from labelvar.design import _power as P
from labelvar.design import _simulated as S
from labelvar.design._scenario import Scenario


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
                     panel_sizes=[1], replicates=0, n_rule="first")
    assert int(res.table["n_items"][0]) == want == int(res.table["n_items_first"][0])
    assert res.table["power_analytic"][0] == pytest.approx(power(want))


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
                     panel_sizes=[1], replicates=0, n_rule="first")
    assert int(res.table["n_items"][0]) == want
    assert res.table["p_discordant"][0] == pytest.approx(pd)
    assert res.table["delta_observed"][0] == pytest.approx(p10 - p01)


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


@pytest.mark.parametrize("sc", SIM_CASES, ids=lambda x: f"{x.question}-{x.metric}-{x.test}-"
                                                     f"{x.n_labels}-{x.tie_rule}")
def test_simulated_power_matches_exact(sc):
    """The engine's simulated study and the exact power agree within Monte Carlo error."""
    zs = []
    half = dataclasses.replace(sc, power=0.5)
    for K in (1, 4, 5):
        cell = P.cell_probabilities(sc, K)
        # the N where the exact power first reaches 1/2: the most informative point
        N = P.PowerScan(half, cell, 5000).first_crossing()
        exact = P.exact_power(sc, cell, np.array([N]))[0]
        assert 0.45 < exact < 0.7
        sim = S.simulated_power(sc, K, N, 2000, 11, cell)
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


# --------------------------------------------------------------------------- done-when: exact N
def _brute_power(sc, cell, N):
    """Power at N by direct scipy sums (independent of _power's critical values and mixing)."""
    alpha, pe = sc.alpha, min(cell.p_eval, 1.0)
    ns = np.arange(N + 1)
    wn = stats.binom.pmf(ns, N, pe)
    if sc.question == "precision":
        z = stats.norm.isf((1 - sc.confidence_level) / 2)
        total = 0.0
        for n, w in zip(ns[1:], wn[1:]):
            if w < 1e-13:
                continue
            x = np.arange(n + 1)
            p = x / n
            hw = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
            total += w * stats.binom.pmf(x, n, cell.p_a)[hw <= sc.half_width].sum()
        return total
    if sc.question == "separability":
        total = 0.0
        for n, w in zip(ns[1:], wn[1:]):
            if w < 1e-13:
                continue
            x = np.arange(n + 1)
            ok = stats.binom.sf(x - 1, n, cell.p_baseline) <= alpha  # P(baseline >= x) <= alpha
            total += w * stats.binom.pmf(x, n, cell.p_a)[ok].sum()
        return total
    p11, p10, p01, p00 = cell.joint
    if sc.test == "paired":  # McNemar by scipy's binomtest p-values, over the discordant count
        pd_, r = pe * (p10 + p01), p10 / (p10 + p01)
        total = 0.0
        for d in range(N + 1):
            w = stats.binom.pmf(d, N, pd_)
            if w < 1e-13:
                continue
            k = np.arange(d + 1)
            pv = np.minimum(1, 2 * np.minimum(stats.binom.cdf(k, d, 0.5), stats.binom.sf(k - 1, d, 0.5)))
            total += w * stats.binom.pmf(k, d, r)[pv <= alpha * (1 + 1e-7)].sum()
        return total
    assert pe >= 1 - 1e-12  # unpaired, every item scored: both binomials, the pooled z-test written out
    x = np.arange(N + 1)
    pa, pb = x[:, None] / N, x[None, :] / N
    pool = (pa + pb) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.abs(pa - pb) / np.sqrt(pool * (1 - pool) * 2 / N)
    rej = np.nan_to_num(z, nan=0.0, posinf=0.0) >= stats.norm.isf(alpha / 2)
    return float(stats.binom.pmf(x, N, cell.p_a) @ rej @ stats.binom.pmf(x, N, cell.p_b))


EXACT_CASES = [
    ("separability", dict(theta=0.75)),
    ("paired", dict(question="two_systems", theta=0.9, accuracy_b=0.6, delta=0.25,
                    error_correlation=0.2)),
    ("unpaired", dict(question="two_systems", theta=0.9, accuracy_b=0.55, delta=0.35,
                      test="unpaired")),
    ("precision", dict(question="precision", theta=0.8, half_width=0.12, accuracy_a=0.8)),
]


@pytest.mark.parametrize("L", [2, 3])
@pytest.mark.parametrize("name,kw", EXACT_CASES, ids=[c[0] for c in EXACT_CASES])
def test_plans_are_the_exact_first_or_stable_crossing(name, kw, L):
    """Done-when: at K = 1, 3, 5 and L = 2, 3 a plan meeting the target has brute-force power
    >= target, and n_items is the brute-force first / stable crossing (up to the horizon)."""
    kw = dict(kw)
    if L == 3 and kw.get("theta") == 0.75:
        kw["theta"] = 0.7
    sc = Scenario(n_labels=L, **kw)
    res = {rule: plan_study(sc, panel_sizes=[1, 3, 5], replicates=0, n_rule=rule)
           for rule in ("stable", "first")}
    for i, row in res["stable"].table.iterrows():
        K = int(row["panel_size"])
        cell = P.cell_probabilities(sc, K)
        horizon = int(row["stable_horizon"])
        first, stable = int(row["n_items_first"]), int(row["n_items_stable"])
        assert horizon == min(10_000, 2 * first)
        # brute force near the crossings: below `first` nothing reaches the target (checked
        # from 60 % of it), between `stable` and the horizon everything does (every N)
        brute = {n: _brute_power(sc, cell, n) for n in range(int(0.6 * first), horizon + 1)}
        assert brute[first] >= sc.power
        assert all(brute[n] < sc.power for n in range(int(0.6 * first), first))
        assert all(brute[n] >= sc.power for n in range(stable, horizon + 1))
        assert stable == first or brute[stable - 1] < sc.power
        assert row["meets_target"] and row["n_items"] == stable
        assert row["power_analytic"] == pytest.approx(brute[stable], abs=1e-9)
        r1 = res["first"].table.iloc[i]
        assert r1["n_items"] == first and r1["meets_target"]
        assert r1["power_analytic"] == pytest.approx(brute[first], abs=1e-9)


def test_sawtooth_separability_theta07_k1_is_pinned():
    """The planning guide's sawtooth: 0.8038 at N = 245, 0.7880 at 246, >= 0.8 only from 258."""
    sc = Scenario("separability", theta=0.7)
    cell = P.cell_probabilities(sc, 1)
    pw = P.exact_power(sc, cell, np.arange(240, 260))
    assert round(pw[245 - 240], 4) == 0.8038 and round(pw[246 - 240], 4) == 0.7880
    assert pw[257 - 240] < 0.8 <= pw[258 - 240]
    assert _brute_power(sc, cell, 245) == pytest.approx(pw[5], abs=1e-12)
    row = plan_study(sc, panel_sizes=[1], replicates=0).table.iloc[0]
    assert (row["n_items_first"], row["n_items_stable"], row["n_items"]) == (245, 258, 258)
    assert row["stable_horizon"] == 490
    first = plan_study(sc, panel_sizes=[1], replicates=0, n_rule="first")
    assert first.table["n_items"][0] == 245
    assert "it stays >= 0.8 only from N = 258" in first.describe()


UNPAIRED = Scenario("two_systems", theta=0.9, n_labels=2, accuracy_b=0.7, delta=0.1,
                    test="unpaired")


def test_unpaired_example_is_exact_for_every_seed():
    """Done-when: the issue's unpaired example gives K = 5: N = 306 (first = stable) for seeds 0-9."""
    cell = P.cell_probabilities(UNPAIRED, 5)
    assert _brute_power(UNPAIRED, cell, 305) < 0.8 <= _brute_power(UNPAIRED, cell, 306)
    for seed in range(10):
        p = plan_study(UNPAIRED, panel_sizes=[1, 3, 5], replicates=40, seed=seed).table
        assert p["n_items"].tolist() == [513, 340, 306]
        assert p["meets_target"].all() and p["power_method"].eq("exact").all()
        assert p["recommended"].tolist() == [True, False, False]


SEED_CASES = [
    Scenario("separability", theta="beta:2,2"),
    Scenario("two_systems", theta="beta:3,1", n_labels=3, accuracy_b=0.7, delta=0.1,
             error_correlation=0.4, min_agreement=0.5),
    Scenario("precision", theta="beta:3,1", n_labels=3, half_width=0.08, min_agreement=0.8,
             accuracy_a=0.9),
    Scenario("two_systems", theta="beta:3,1", accuracy_b=0.8, delta=0.08, metric="f1", m=0.3),
]


@pytest.mark.parametrize("sc", SEED_CASES, ids=["separability", "paired", "precision", "f1"])
def test_the_plan_does_not_depend_on_the_seed(sc):
    """Simulation verifies only: N, meets_target and the recommendation are the same for seeds 0-9."""
    ks = [1, 3, 5] if sc.min_agreement == 0 else [3, 5]
    cols = ["panel_size", "n_items", "meets_target", "recommended", "power_analytic",
            "n_items_first", "n_items_stable"]
    want = plan_study(sc, panel_sizes=ks, replicates=0).table[cols]
    for seed in range(10):
        res = plan_study(sc, panel_sizes=ks, replicates=30, seed=seed)
        __import__("pandas").testing.assert_frame_equal(res.table[cols], want)
        assert res.evaluated["n_items"].tolist() == want["n_items"].tolist()


def test_simulation_is_reported_beside_the_plan_with_se_and_z():
    sc = Scenario("separability", theta="beta:2,2")
    res = plan_study(sc, panel_sizes=[1, 3], replicates=400, seed=3)
    p, ev = res.table, res.evaluated
    se0 = np.sqrt(p["power_analytic"] * (1 - p["power_analytic"]) / 400)
    np.testing.assert_allclose(p["power_z"], (p["power_simulated"] - p["power_analytic"]) / se0)
    assert (p["power_z"].abs() < 4).all()
    np.testing.assert_allclose(ev["power_simulated"], p["power_simulated"])
    assert "simulated" in res.describe() and "z = " in res.describe()


def test_simulated_power_se_is_the_binomial_se_also_at_0_and_1():
    # every simulated study of an always-right expert rejects: power 1, SE exactly 0
    # (before: sqrt(1e-300 / replicates), shown as power_se 1e-150 in the table)
    res = plan_study(Scenario("separability", theta=1.0), panel_sizes=[1, 3], replicates=20)
    p = res.table
    assert (p["power_simulated"] == 1.0).all() and (p["power_se"] == 0.0).all()
    assert "simulated 1.000 +/- 0.000" in res.describe()


def test_unpaired_exact_and_normal_agree_where_both_run():
    """The normal approximation (used beyond UNPAIRED_EXACT_MAX_TERMS) is within 0.005 of exact."""
    sc = Scenario("two_systems", theta="beta:3,1", n_labels=3, accuracy_b=0.7, delta=0.1,
                  test="unpaired", min_agreement=0.6)
    cell = P.cell_probabilities(sc, 5)
    assert cell.p_eval < 1
    for N in (30, 60):
        exact = P.unpaired_power_exact(N, cell.p_eval, cell.p_a, cell.p_b, sc.alpha)
        assert P.exact_power(sc, cell, np.array([N]))[0] == exact
        assert P.power_method(sc, cell, N) == "exact"
        # brute force: both scored counts and both correct counts
        ns = np.arange(N + 1)
        wn = stats.binom.pmf(ns, N, cell.p_eval)
        total = 0.0
        for na in ns[1:]:
            for nb in ns[1:]:
                if wn[na] * wn[nb] < 1e-14:
                    continue
                xa, xb = np.arange(na + 1)[:, None], np.arange(nb + 1)[None, :]
                rej = P.unpaired_z(xa, na, xb, nb) >= stats.norm.isf(sc.alpha / 2)
                total += wn[na] * wn[nb] * float(
                    stats.binom.pmf(xa[:, 0], na, cell.p_a) @ rej @ stats.binom.pmf(xb[0], nb, cell.p_b))
        assert exact == pytest.approx(total, abs=1e-9)
    big = 2000
    assert P.power_method(sc, cell, big) == "normal"
    exact = P.unpaired_power_exact(300, cell.p_eval, cell.p_a, cell.p_b, sc.alpha)
    normal = P._unpaired_normal(np.array([300 * cell.p_eval]), cell.p_a, cell.p_b, sc.alpha)[0]
    assert abs(exact - normal) < 0.005
    full = P.cell_probabilities(UNPAIRED, 5)
    n = np.arange(100, 400, 50)
    np.testing.assert_allclose(P.exact_power(UNPAIRED, full, n),
                               P._unpaired_normal(n, full.p_a, full.p_b, 0.05), atol=0.005)


def test_more_annotators_reduce_gt_error_and_items():
    res = plan_study(Scenario("two_systems", theta="beta:2,1", accuracy_b=0.7, delta=0.1),
                     panel_sizes=[1, 3, 5, 7], replicates=0)
    p = res.table
    assert p["p_gt_error"].is_monotonic_decreasing
    assert p["n_items"].is_monotonic_decreasing
    assert (p["delta_observed"] < 0.1).all() and p["delta_observed"].is_monotonic_increasing
    # expected items per bin of observed agreement (top votes / K) add up to N
    assert list(res.bins.columns[:3]) == ["panel_size", "n_items", "agreement"]
    assert res.bins.loc[res.bins["panel_size"] == 3, "agreement"].round(4).tolist() == [
        0.3333, 0.6667, 1.0]
    b = res.bins.groupby("panel_size")["expected_items"].sum()
    np.testing.assert_allclose(b.to_numpy(), p["n_items"].to_numpy())


def test_costs_choose_cheapest_plan():
    sc = Scenario("separability", theta="beta:2,2", cost_per_item=10.0, cost_per_annotation=1.0)
    res = plan_study(sc, panel_sizes=[1, 3, 5], replicates=0)
    p = res.table
    np.testing.assert_allclose(p["cost"], 10 * p["n_items"] + p["n_items"] * p["panel_size"])
    assert p.loc[p["recommended"], "cost"].item() == p["cost"].min()
    assert "recommended: K = " in res.describe()


def test_separability_columns_reproduce_table1_message():
    # Paper Table 1: a random binary labeller reaches 8/10 with probability 0.055
    sc = Scenario("separability", theta=1.0, alpha=0.06, power=0.5)
    res = plan_study(sc, panel_sizes=[1], replicates=0, n_max=50)
    row = res.table.iloc[0]
    n = int(row["n_items"])
    assert row["p_baseline_at_least_threshold"] == pytest.approx(
        stats.binom.sf(round(row["threshold_accuracy"] * n) - 1, n, 0.5))
    assert int(_power.separability_critical(10, 0.5, 0.06)) == 8
    assert stats.binom.sf(7, 10, 0.5) == pytest.approx(0.0547, abs=1e-4)


def test_p_beats_baseline_matches_direct_sum():
    sc = Scenario("separability", theta=0.8)
    res = plan_study(sc, panel_sizes=[3], replicates=0)
    row = res.table.iloc[0]
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
        row = plan_study(sc, panel_sizes=[3], replicates=0, n_max=200_000).table.iloc[0]
        assert row["f1_a_vs_gt"] == pytest.approx(2 * m * qa / (2 * m * qa + 1 - qa))
        assert row["f1_b_vs_gt"] == pytest.approx(2 * m * qb / (2 * m * qb + 1 - qb))



def test_f1_power_counts_only_a_better_than_b():
    # m = 0.02, K = 1: GT errors make the more accurate A's F1 lower than B's (0.207 vs
    # 0.245). Before, the two-sided power |d| planned K = 1, N = 6994 "power 0.80": a
    # study that would show A *worse*. The power is P(z >= z_{alpha/2}) with z = d / se.
    sc = Scenario("two_systems", accuracy_b=0.8, delta=0.1, metric="f1", m=0.02)
    res = plan_study(sc, panel_sizes=[1, 3], replicates=0)
    for _, row in res.table.iterrows():
        cell = P.cell_probabilities(sc, int(row["panel_size"]))
        d, v = P.f1_difference_variance(cell.f1_cells)
        se = math.sqrt(v / (row["n_items"] * cell.p_eval))
        assert row["delta_observed"] == pytest.approx(d)
        assert row["power_analytic"] == pytest.approx(stats.norm.sf(stats.norm.isf(0.025) - d / se))
    k1, k3 = res.table.iloc[0], res.table.iloc[1]
    assert k1["delta_observed"] < 0 and k1["power_analytic"] < 0.025 and not k1["meets_target"]
    assert k3["delta_observed"] > 0 and not k1["recommended"]
    sim = S.simulated_power(sc, 1, 6994, 200, 0, P.cell_probabilities(sc, 1))
    assert sim["power_simulated"] < 0.05  # the simulation counts the same side


def test_no_plan_in_range_reports_best_power():
    sc = Scenario("two_systems", theta="beta:1,1", accuracy_b=0.6, delta=0.02)
    res = plan_study(sc, panel_sizes=[1, 3], n_max=300, replicates=200)
    assert not res.found and res.recommended is None
    best = res.table.loc[res.table["power_analytic"].idxmax()]
    assert f"best power reached {best['power_analytic']:.4f} (exact, simulated " \
           f"{best['power_simulated']:.3f} +/- {best['power_se']:.3f}; K = " \
           f"{int(best['panel_size'])}, N = {int(best['n_items'])})" in res.describe()
    # the best exact power is reached at the largest N searched
    assert (res.table["n_items"] == 300).all()
    assert "no plan with K in {1, 3} and N <= 300 reaches power 0.8" in res.describe()


def test_expert_no_better_than_random_has_no_plan():
    res = plan_study(Scenario("separability", theta=0.5), panel_sizes=[1, 3], n_max=200,
                     replicates=0)
    assert not res.found
    assert res.table["power_analytic"].max() <= 0.05



def test_plan_arguments_validated():
    sc = Scenario()
    with pytest.raises(ValueError, match="panel_sizes must be >= 2 when min_agreement > 0"):
        plan_study(Scenario(min_agreement=0.6), panel_sizes=[1, 3])
    with pytest.raises(ValueError, match="panel_sizes must be >= 1"):
        plan_study(sc, panel_sizes=[0, 3])
    with pytest.raises(ValueError, match="replicates must be >= 0"):
        plan_study(sc, replicates=-1)
    # a repeated K gave two identical rows, one "recommended" and one not
    with pytest.raises(ValueError, match=r"panel_sizes must list each panel size once, got "
                                         r"\[3, 5, 3\]"):
        plan_study(sc, panel_sizes=[3, 5, 3], replicates=0)


def test_n_rule_is_validated():
    with pytest.raises(ValueError, match="n_rule must be one of"):
        plan_study(Scenario(), n_rule="last")


def test_seeded_simulation_is_reproducible():
    sc = Scenario("separability", theta="beta:2,2")
    a = plan_study(sc, panel_sizes=[3], replicates=200, seed=5)
    b = plan_study(sc, panel_sizes=[3], replicates=200, seed=5)
    __import__("pandas").testing.assert_frame_equal(a.evaluated, b.evaluated)




def test_a_points_stream_does_not_depend_on_the_search():
    """(K, N) has its own stream: the planner's evaluated row equals a direct call."""
    sc = Scenario("two_systems", theta="beta:3,1", accuracy_b=0.8, delta=0.1, error_correlation=0.2)
    res = plan_study(sc, panel_sizes=[3], replicates=300, seed=9)
    row = res.evaluated.iloc[-1]
    cell = P.cell_probabilities(sc, 3)
    direct = S.simulated_power(sc, 3, int(row["n_items"]), 300, 9, cell)
    assert direct["power_simulated"] == row["power_simulated"]
    assert res.seed == 9
    assert plan_study(sc, panel_sizes=[3], replicates=50, seed=None).seed >= 0


def test_unpaired_scan_computes_each_pair_of_scored_counts_once():
    """Fuzz: an unpaired Dirichlet design with min_agreement hung (P(reject | n_A, n_B) was
    recomputed for every N: w^2 pairs per N). The table of pairs is filled once per pair,
    and the cached power equals the brute-force sum at N = 40 (scipy's binomials)."""
    sc = Scenario("two_systems", theta="dirichlet:2,1", accuracy_b=0.7, delta=0.1,
                  test="unpaired", min_agreement=0.8)
    cell = P.cell_probabilities(sc, 5)
    assert 0 < cell.p_eval < 1
    P._rejection_table.cache_clear()
    n = np.arange(1, 301)
    pw = P.exact_power(sc, cell, n)
    table = P._rejection_table(float(cell.p_a), float(cell.p_b), float(sc.alpha))
    computed = int(np.isfinite(table.g).sum())
    windows = [len(P._unpaired_window(int(N), cell.p_eval)) for N in n]
    assert computed < 0.2 * sum(w * w for w in windows)  # not w^2 per N: about one band
    N = 40
    ns = np.arange(N + 1)
    wn = stats.binom.pmf(ns, N, cell.p_eval)
    total = 0.0
    for na in ns[1:]:
        for nb in ns[1:]:
            xa, xb = np.arange(na + 1)[:, None], np.arange(nb + 1)[None, :]
            rej = P.unpaired_z(xa, na, xb, nb) >= stats.norm.isf(sc.alpha / 2)
            total += wn[na] * wn[nb] * float(stats.binom.pmf(xa[:, 0], na, cell.p_a) @ rej
                                             @ stats.binom.pmf(xb[0], nb, cell.p_b))
    assert pw[N - 1] == pytest.approx(total, abs=1e-12)
