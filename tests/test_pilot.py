"""pilot.py: fitting the theta prior to pilot votes, incl. the SNLI votes in ../shared/data."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import shared_data
from scipy import integrate, stats

from labelvar._panel import log_pattern_likelihood
from labelvar.design import Scenario, plan_study
from labelvar.pilot import fit_pilot, read_pilot
from labelvar.priors import BetaPrior, DiscretePrior

SNLI = "snli_dev_subset/snli_1.0_dev_first1288.jsonl"


def _simulate_pilot(a, b, L, ks, seed):
    rng = np.random.default_rng(seed)
    th = 1 / L + (1 - 1 / L) * rng.beta(a, b, size=len(ks))
    out = np.zeros((len(ks), L), dtype=int)
    for i, (t, k) in enumerate(zip(th, ks)):
        modal = rng.integers(L)
        p = np.full(L, (1 - t) / (L - 1))
        p[modal] = t
        out[i] = rng.multinomial(k, p)
    return out


def _loglik(counts, a, b, L):
    """Independent marginal log-likelihood by numerical integration (scipy.integrate.quad)."""
    dens = stats.beta(a, b, loc=1 / L, scale=1 - 1 / L).pdf
    total = 0.0
    for c in counts:
        k = c.sum()

        def f(t, c=c, k=k):
            return np.mean([stats.multinomial.pmf(c, k, np.where(np.arange(L) == j, t,
                                                                 (1 - t) / (L - 1)))
                            for j in range(L)]) * dens(t)

        total += math.log(integrate.quad(f, 1 / L, 1, limit=200)[0])
    return total


def test_pattern_likelihood_matches_quad():
    counts = np.array([[3, 2, 0], [5, 0, 0], [2, 2, 1], [1, 1, 2]])
    a, b = 3.0, 1.7
    fit_ll = 0.0
    th, w = BetaPrior(a, b).nodes(3, 2 * 5 + 2)
    for c in counts:
        fit_ll += math.log(np.exp(log_pattern_likelihood(c[None, :], th, 3))[0] @ w)
    assert fit_ll == pytest.approx(_loglik(counts, a, b, 3), rel=1e-8)


def test_beta_fit_recovers_simulated_prior():
    ks = np.r_[np.full(2500, 5), np.full(500, 3)]
    counts = _simulate_pilot(4.0, 1.5, 3, ks, seed=7)
    fit = fit_pilot(counts, method="beta")
    true = BetaPrior(4.0, 1.5)
    # the MLE is at least as likely as the truth, and close to it
    th, w = true.nodes(3, 12)
    pats = counts
    ll_true = float(np.sum(np.log(np.exp(log_pattern_likelihood(pats, th, 3)) @ w)))
    assert fit.loglik >= ll_true - 1e-6
    assert fit.prior.mean(3) == pytest.approx(true.mean(3), abs=0.015)
    assert fit.p_value > 0.001  # the model is true: the goodness-of-fit test does not reject
    assert fit.table["observed"].sum() == len(ks)
    for k in (3, 5):
        sub = fit.table[fit.table["votes"] == k]
        assert sub["expected"].sum() <= (ks == k).sum() + 1e-6


def test_mixture_fit_is_at_least_as_likely_on_a_finite_mixture():
    rng = np.random.default_rng(3)
    th = rng.choice([0.55, 0.95], size=1500, p=[0.4, 0.6])
    votes = rng.binomial(5, th)
    counts = np.c_[votes, 5 - votes]
    beta = fit_pilot(counts, method="beta")
    mix = fit_pilot(counts, method="mixture")
    assert mix.loglik >= beta.loglik - 0.5
    assert mix.prior.mean(2) == pytest.approx(0.4 * 0.55 + 0.6 * 0.95, abs=0.02)
    sc = Scenario("separability", theta=mix.prior)
    assert isinstance(sc.theta, DiscretePrior) and sc.theta is mix.prior


def test_pilot_with_fewer_than_two_votes_is_refused():
    with pytest.raises(ValueError, match=r"pilot items need at least 2 votes each; 1 item\(s\) "
                                         r"have fewer \(first: item 1 with 1\)"):
        fit_pilot([[3, 2], [1, 0], [4, 1]])


def test_read_pilot_csv_and_jsonl(tmp_path):
    p = tmp_path / "votes.csv"
    p.write_text("item,a,b,c\nx,3,1,1\ny,0,5,0\n")
    # the non-numeric id column is ignored; every numeric column is a label
    np.testing.assert_array_equal(read_pilot(p), [[3, 1, 1], [0, 5, 0]])
    q = tmp_path / "ids.csv"
    q.write_text("id,yes,no\n101,3,2\n102,4,1\n")
    np.testing.assert_array_equal(read_pilot(q, columns=["yes", "no"]), [[3, 2], [4, 1]])
    with pytest.raises(ValueError, match="pilot CSV .* has no column\\(s\\) maybe"):
        read_pilot(q, columns=["yes", "maybe"])
    j = tmp_path / "votes.jsonl"
    j.write_text('{"annotator_labels": ["b", "a", "b"]}\n{"annotator_labels": ["a", "a"]}\n')
    np.testing.assert_array_equal(read_pilot(j), [[1, 2], [2, 0]])
    with pytest.raises(ValueError, match="pilot line 1 has no field 'labels'"):
        read_pilot(j, field="labels")
    with pytest.raises(FileNotFoundError, match="pilot file not found"):
        read_pilot(tmp_path / "missing.csv")


def _snli():
    return read_pilot(shared_data(SNLI))


def test_snli_pilot_gives_a_plan():
    counts = _snli()
    assert counts.shape == (1289, 3)
    assert set(counts.sum(axis=1)) == {4, 5}
    fit = fit_pilot(counts)
    # 684 of 1289 items are unanimous (5/5): the fitted prior puts most mass near theta = 1
    assert (counts.max(axis=1) == 5).sum() == 684
    assert type(fit.prior).__name__ == "BetaPrior"
    assert 0.8 < fit.prior.mean(3) < 0.95
    row = fit.table.set_index("pattern").loc["5-0-0"]
    assert row["expected"] == pytest.approx(row["observed"], rel=0.05)
    sc = Scenario("separability", theta=fit.prior, n_labels=3, min_agreement=0.8)
    res = plan_study(sc, panel_sizes=[3, 5], replicates=300, seed=1)
    assert res.found
    rec = res.recommended
    assert rec["power_simulated"] >= 0.8
    assert "recommended: K = " in res.message


def test_snli_two_systems_plan_brackets_target():
    fit = fit_pilot(_snli())
    sc = Scenario("two_systems", theta=fit.prior, n_labels=3, accuracy_b=0.85, delta=0.05,
                  error_correlation=0.3, min_agreement=0.8)
    res = plan_study(sc, panel_sizes=[3, 5, 7], replicates=2000, seed=2)
    for _, row in res.plans.iterrows():
        assert row["power_simulated"] >= 0.8 > row["power_simulated_below"]
    ev = res.evaluated
    z = (ev["power_simulated"] - ev["power_analytic"]) / ev["power_se"]
    assert (z.abs() < 4).all()
