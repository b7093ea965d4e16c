"""design/_raters.py: telling two raters apart, the plurality accuracy of rater panels."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from labelvar.design import _power as P
from labelvar.design import cheapest_panel, compare_raters, panel_accuracy
from labelvar.votes._raters import RaterModel


def _unpaired_brute(N, pa, pb, alpha):
    """Power of the pooled z-test with N items per rater, summed over both binomials (scipy)."""
    x = np.arange(N + 1)
    rej = P.unpaired_z(x[:, None], N, x[None, :], N) >= stats.norm.isf(alpha / 2)
    return float(stats.binom.pmf(x, N, pa) @ rej @ stats.binom.pmf(x, N, pb))


def test_unpaired_comparison_is_the_first_stable_n_of_the_brute_force_power():
    r = compare_raters(0.9, 0.8)
    assert r.test == "unpaired" and r.power_method == "exact"
    assert r.power == pytest.approx(_unpaired_brute(r.n_items, 0.9, 0.8, 0.05), abs=1e-12)
    assert r.power >= 0.8 > _unpaired_brute(r.n_items - 1, 0.9, 0.8, 0.05)
    # stable: at or above the target from n_items to twice it (spot checks)
    for n in (r.n_items + 1, r.n_items + 7, 2 * r.n_items):
        assert _unpaired_brute(n, 0.9, 0.8, 0.05) >= 0.8


def test_paired_comparison_is_exact_mcnemar():
    """Discordant pairs ~ Binomial(N, p10 + p01); scipy's binomtest decides each count."""
    qa, qb, rho = 0.9, 0.8, 0.3
    r = compare_raters(qa, qb, test="paired", error_correlation=rho)
    p11 = qa * qb + rho * np.sqrt(qa * (1 - qa) * qb * (1 - qb))
    p10, p01 = qa - p11, qb - p11
    N = r.n_items
    total = 0.0
    for d in range(N + 1):
        pd_ = stats.binom.pmf(d, N, p10 + p01)
        if pd_ < 1e-15:
            continue
        k = np.arange(d + 1)
        rej = np.array([stats.binomtest(int(j), d, 0.5).pvalue <= 0.05 for j in k]) if d else \
            np.zeros(1, bool)
        total += pd_ * float(stats.binom.pmf(k, d, p10 / (p10 + p01)) @ rej)
    assert r.power == pytest.approx(total, abs=1e-9)
    assert r.power >= 0.8


@pytest.mark.slow
def test_chexpert_radiologists_against_a_panel_member_in_the_3_of_4_bin():
    """Issue 21's example: agreement 0.765 vs 0.738 with the panel's majority."""
    r = compare_raters(0.765, 0.738)
    assert r.power == pytest.approx(_unpaired_brute(r.n_items, 0.765, 0.738, 0.05), abs=1e-12)
    assert _unpaired_brute(r.n_items - 1, 0.765, 0.738, 0.05) < 0.8 <= r.power


def test_comparison_refuses_equal_agreements_in_one_line():
    with pytest.raises(ValueError, match=r"^p_d_a and p_d_b must differ"):
        compare_raters(0.7, 0.7)
    with pytest.raises(ValueError, match=r"^p_d_a must be in \(0, 1\), got 1.0$"):
        compare_raters(1.0, 0.7)


def test_hopeless_comparison_is_refused_in_a_moment():
    """Issue 31: compare_raters(0.5001, 0.5) scanned 100,000 items exactly for 254 s to say
    that no N in range tells them apart; it is refused at once with the N it would need
    (normal approximation: (1.96 * sqrt(2 * 0.50005 * 0.49995) + 0.8416 * sqrt(...))^2 / 1e-8)."""
    import time

    from scipy.stats import norm

    t0 = time.process_time()
    with pytest.raises(ValueError, match=r"^n_max: telling p_d 0.5001 from 0.5 apart needs "
                       r"about 392,\d{3},\d{3} items per rater \(normal approximation\), more "
                       r"than n_max = 100,000; raise n_max or compare raters further apart$"):
        compare_raters(0.5001, 0.5)
    assert time.process_time() - t0 < 5
    pbar = 0.50005
    want = (norm.isf(0.025) * np.sqrt(2 * pbar * (1 - pbar))
            + norm.ppf(0.8) * np.sqrt(0.5001 * 0.4999 + 0.25)) ** 2 / 1e-8
    assert 392e6 < want < 393e6
    with pytest.raises(ValueError, match="^n_max: telling p_d 0.9 from 0.8 apart"):
        compare_raters(0.9, 0.8, n_max=100)  # about 194 needed
    r = compare_raters(0.9, 0.8)
    assert r.describe().startswith("196 items per rater tell p_d 0.9 from 0.8 at power 0.8019")
    assert r.table.loc[0, "n_items"] == 196 and r.p_d_a == 0.9


def _brute_panel(confs, prior, tie_rule="random"):
    """P(plurality = truth | kept), by enumerating every joint vote (independent oracle)."""
    L = len(prior)
    right = kept = 0.0
    for z in range(L):
        for votes in itertools.product(range(L), repeat=len(confs)):
            p = prior[z] * np.prod([c[z, v] for c, v in zip(confs, votes)])
            counts = np.bincount(votes, minlength=L)
            top = np.flatnonzero(counts == counts.max())
            if len(top) > 1 and tie_rule == "drop":
                continue
            kept += p
            right += p * (z in top) / len(top)
    return right / kept, kept


def test_panel_accuracy_matches_enumeration_of_joint_votes():
    rng = np.random.default_rng(5)
    confs = [rng.dirichlet([6, 1, 1], size=3)[[0, 1, 2]] for _ in range(4)]
    prior = np.array([0.5, 0.3, 0.2])
    m = RaterModel.from_skill(confs, labels=(0, 1, 2), prior=prior)
    for rule in ("random", "drop"):
        got = panel_accuracy(m, m.raters, tie_rule=rule)
        want, kept = _brute_panel(confs, prior, rule)
        assert got["accuracy"] == pytest.approx(want, abs=1e-12)
        assert got["p_kept"] == pytest.approx(kept, abs=1e-12)
    same = panel_accuracy(m, [m.raters[0]] * 5)  # identical raters: the composition path
    assert same["accuracy"] == pytest.approx(_brute_panel([confs[0]] * 5, prior)[0], abs=1e-12)


def test_cheapest_panel_binomial_tail_and_cost():
    """K raters of accuracy s, L = 2, odd K: the plurality is right w.p. P(Bin(K, s) > K/2)."""
    crowd = RaterModel.from_skill({"accuracy": 0.7})
    expert = RaterModel.from_skill({"accuracy": 0.9})
    c = cheapest_panel({"crowd": (crowd, "skill", 1.0), "expert": (expert, "skill", 5.0)},
                       target=0.95, sizes=range(1, 30, 2))
    t = c.table
    for _, row in t.iterrows():
        s = 0.7 if row["option"] == "crowd" else 0.9
        k = int(row["panel_size"])
        assert row["accuracy"] == pytest.approx(stats.binom.sf(k // 2, k, s), abs=1e-12)
    crowd_k = int(t[(t["option"] == "crowd") & t["meets_target"]]["panel_size"].min())
    assert crowd_k == min(k for k in range(1, 30, 2) if stats.binom.sf(k // 2, k, 0.7) >= 0.95)
    assert c.best["option"] == "expert" and int(c.best["panel_size"]) == 3
    cheap = cheapest_panel({"crowd": (crowd, "skill", 0.5), "expert": (expert, "skill", 20.0)},
                           target=0.95, sizes=range(1, 30, 2))
    assert cheap.best["option"] == "crowd" and cheap.best["cost_per_item"] == 0.5 * crowd_k


def test_panel_accuracy_refuses_a_string_of_raters():
    """Issue 31: panel_accuracy(model, 'skill') read the string as five raters s, k, i, l, l."""
    m = RaterModel.from_skill({"accuracy": 0.8})
    with pytest.raises(ValueError, match=r"^raters must be a list of rater ids, got the string "
                                         r"'skill'; for a panel of K raters of that skill give "
                                         r"\['skill'\] \* K$"):
        panel_accuracy(m, "skill")
    assert panel_accuracy(m, ["skill"])["accuracy"] == pytest.approx(0.8)
