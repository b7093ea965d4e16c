"""simulate with a Panel: K annotators vote, the reference is their plurality."""

import numpy as np
import pandas as pd
import pytest
from conftest import row as _row
from scipy import integrate, stats

from labelvar.engine._items import Coin, Panel
from labelvar.engine._simulate import simulate
from labelvar.votes._models import CorrelatedModel, Model
from labelvar.votes._priors import BetaPrior, DiscretePrior


def _two_sample_z(a, b):
    return (a["mean"] - b["mean"]) / np.hypot(a["se"], b["se"])


@pytest.mark.parametrize("method", ["collapsed", "explicit"])
def test_large_panel_reproduces_coin_mode(method):
    kw = dict(n_items=300, replicates=3000, seed=17)
    panel = simulate(Panel(theta=0.7, m=0.3, panel_size=101), method=method, **kw).summary
    coin = simulate(Coin(p_d=0.7, m=0.3), **kw).summary
    for lab in ("expert", "random"):
        for metric in ("accuracy", "precision", "recall", "f1"):
            p = _row(panel, labeller=lab, stratum="all", metric=metric)
            c = _row(coin, labeller=lab, metric=metric)
            assert abs(_two_sample_z(p, c)) < 4, (lab, metric)
            if metric != "f1":
                # P(a 101-panel's plurality is not the modal label) ~ 2e-5 at theta = 0.7
                assert p["expected"] == pytest.approx(c["expected"], abs=1e-3)
                assert abs(p["z"]) < 4


def test_expert_accuracy_formula_small_panel():
    # binary, odd K: the truth is the modal label with probability P(Bin(K, theta) > K/2)
    theta, k = 0.65, 5
    df = simulate(Panel(theta=theta, panel_size=k, m=0.5), n_items=200, replicates=3000, seed=1).summary
    p_major = stats.binom.sf(k // 2, k, theta)
    want = p_major * theta + (1 - p_major) * (1 - theta)
    row = _row(df, labeller="expert", stratum="all", metric="accuracy")
    assert row["expected"] == pytest.approx(want, abs=1e-12)
    assert abs(row["z"]) < 4
    # per stratum: observed v/5 with v >= 3; P(correct | v) = (theta^(v+1)(1-theta)^(5-v) +
    # theta^(5-v)(1-theta)^(v+1)) / (theta^v (1-theta)^(5-v) + theta^(5-v) (1-theta)^v)
    for v in (3, 4, 5):
        num = theta ** (v + 1) * (1 - theta) ** (k - v) + (1 - theta) ** (v + 1) * theta ** (k - v)
        den = theta**v * (1 - theta) ** (k - v) + (1 - theta) ** v * theta ** (k - v)
        row = _row(df, labeller="expert", stratum=f"{v / k:.2f}", metric="accuracy")
        assert row["expected"] == pytest.approx(num / den, abs=1e-12)
        assert abs(row["z"]) < 4


def _beta_posterior_mean(prior, k):
    """E[theta | every one of k annotators agrees], by quadrature (independent of the engine)."""
    lo, hi = prior.support(2)
    dens = stats.beta(prior.a, prior.b, loc=lo, scale=hi - lo).pdf
    like = lambda t: t**k + (1 - t) ** k  # noqa: E731 - all k votes on one label
    num = integrate.quad(lambda t: t * like(t) * dens(t), lo, hi, epsabs=1e-13)[0]
    den = integrate.quad(lambda t: like(t) * dens(t), lo, hi, epsabs=1e-13)[0]
    return num / den


def test_observed_agreement_overstates_true_theta():
    """Items observed at 5/5 have E[theta] < 1: the Beta-binomial posterior mean."""
    prior = BetaPrior(2.0, 1.0)
    df = simulate(Panel(theta_prior=prior, panel_size=5, m=0.5), ["expert"], n_items=400,
                  replicates=1500, seed=3).summary
    row = _row(df, stratum="1.00", metric="theta")
    exact = _beta_posterior_mean(prior, 5)
    assert row["expected"] == pytest.approx(exact, abs=1e-10)
    assert exact < 0.9  # far below the observed 1.00
    assert abs(row["z"]) < 4
    # the expert's accuracy on unanimous items is likewise below 1 (about E[theta])
    acc = _row(df, stratum="1.00", metric="accuracy")
    assert acc["mean"] < 0.92 and abs(acc["z"]) < 4
    # items observed at 3/5 have a true theta above 0.6 on average
    low = _row(df, stratum="0.60", metric="theta")
    assert low["expected"] > 0.6 and abs(low["z"]) < 4


@pytest.mark.parametrize("kw", [
    dict(n_labels=2, tie_rule="random", panel_size=4),
    dict(n_labels=2, tie_rule="drop", panel_size=4),
    dict(n_labels=2, tie_rule=1, panel_size=4),
    dict(n_labels=3, tie_rule="random", panel_size=4),
    dict(n_labels=3, tie_rule=0, panel_size=3, positives="bernoulli"),
    dict(n_labels=2, tie_rule="random", panel_size=5, positives="bernoulli"),
])
def test_panel_expected_values_match(kw):
    df = simulate(Panel(theta=0.6, m=0.35, **kw),
                  ["expert", "random", "prior", "constant", Model(accuracy=0.75, name="A")],
                  n_items=120, replicates=2500, seed=21, method="explicit").summary
    checked = 0
    for _, row in df.iterrows():
        if np.isnan(row["expected"]) or row["sd"] <= 1e-9:  # no spread: z undefined
            # a value of probability p missing from R replicates has chance (1 - p)^R
            assert np.isnan(row["expected"]) or abs(row["mean"] - row["expected"]) <= (
                10 / row["replicates"])
            continue
        assert abs(row["z"]) < 4.5, (row["labeller"], row["stratum"], row["metric"], row["z"])
        checked += 1
    assert checked >= 40


def test_drop_rule_excludes_tied_items():
    raw = simulate(Panel(theta=0.7, panel_size=4, m=0.5, tie_rule="drop"), ["expert"], n_items=100,
                   replicates=200, seed=2, outputs=["raw"]).raw
    allrows = raw[raw.stratum == "all"]
    assert (allrows["n"] < 100).all()
    # observed 2/4 (a tie) never appears as a stratum
    assert set(raw.stratum) == {"all", "0.75", "1.00"}
    by_rep = raw[raw.stratum != "all"].groupby("replicate")["n"].sum()
    assert (by_rep.values == allrows.set_index("replicate")["n"].values).all()


def test_discrete_prior_theta_strata():
    prior = DiscretePrior((0.6, 0.95), (0.5, 0.5))
    df = simulate(Panel(theta_prior=prior, panel_size=3, m=0.5), ["expert"], n_items=200,
                  replicates=1500, seed=5).summary
    # exact: E[theta | 3/3] = sum t w (t^3 + (1-t)^3) / sum w (t^3 + (1-t)^3)
    t = np.array([0.6, 0.95])
    like = t**3 + (1 - t) ** 3
    row = _row(df, stratum="1.00", metric="theta")
    assert row["expected"] == pytest.approx((t * like).sum() / like.sum(), abs=1e-12)
    assert abs(row["z"]) < 4


def _chi2_same(a, b):
    """Chi-square test of homogeneity of two samples of integers (bins with few counts pooled)."""
    values = np.union1d(a, b)
    table = np.array([[np.sum(a == x) for x in values], [np.sum(b == x) for x in values]])
    keep = table.sum(axis=0) >= 10
    pooled = table[:, ~keep].sum(axis=1, keepdims=True)
    table = np.hstack([table[:, keep], pooled]) if pooled.sum() else table[:, keep]
    return stats.chi2_contingency(table).pvalue


@pytest.mark.parametrize("items", [Coin(p_d=0.7, m=0.3, n_labels=2),
                                   Panel(theta=0.7, m=0.3, n_labels=2, panel_size=5),
                                   Panel(theta=0.7, m=0.3, n_labels=3, panel_size=4)])
def test_collapsed_and_explicit_paths_agree_in_distribution(items):
    common = dict(n_items=150, replicates=4000, outputs=["raw"], expected=False)
    col = simulate(items, ["expert", "random"], method="collapsed", seed=1, **common).raw
    exp = simulate(items, ["expert", "random"], method="explicit", seed=2, **common).raw
    pvalues = {}
    for lab in ("expert", "random"):
        for stratum in sorted(set(col.stratum)):
            a = col[(col.labeller == lab) & (col.stratum == stratum)]
            b = exp[(exp.labeller == lab) & (exp.stratum == stratum)]
            for field in ("correct", "tp", "n"):
                if a[field].nunique() == 1 and b[field].nunique() == 1:
                    assert a[field].iloc[0] == b[field].iloc[0]
                    continue
                pvalues[lab, stratum, field] = _chi2_same(a[field].values, b[field].values)
            pvalues[lab, stratum, "f1"] = stats.ks_2samp(a["f1"].dropna(),
                                                         b["f1"].dropna()).pvalue
    # ~30 tests per case: Bonferroni for a family-wise false alarm rate of 1 %
    worst = min(pvalues, key=pvalues.get)
    assert pvalues[worst] > 0.01 / len(pvalues), (worst, pvalues[worst])


def test_panel_chunk_invariance():
    big = simulate(Panel(theta=[0.6, 0.8], panel_size=[3, 5], m=[0.2, 0.5]), n_items=60,
                   replicates=150, seed=9, method="explicit", expected=False).summary
    alone = simulate(Panel(theta=0.8, panel_size=5, m=0.2), n_items=60, replicates=150, seed=9,
                     method="explicit", expected=False).summary
    sub = big[(big.theta == 0.8) & (big.m == 0.2) & (big.panel_size == 5)].reset_index(drop=True)
    pd.testing.assert_frame_equal(sub, alone)


# --------------------------------------------------------------------------- heterogeneous panels
def test_equal_skills_equal_homogeneous_panel():
    kw = dict(n_items=150, replicates=2000, seed=1)
    homo = simulate(Panel(theta=0.7, m=0.3, panel_size=5), **kw).summary
    het = simulate(Panel(theta=0.7, m=0.3, panel_size=5, skills=[0.7] * 5), **kw).summary
    het = het[het.metric != "theta"]
    merged = homo.merge(het, on=["labeller", "stratum", "metric"], suffixes=("_h", "_s"))
    assert len(merged) == len(het)
    assert np.allclose(merged["expected_h"], merged["expected_s"], equal_nan=True, atol=1e-12)


@pytest.mark.parametrize("method", ["explicit", "collapsed"])
def test_one_coin_skills_match_exact_values(method):
    df = simulate(Panel(theta=0.7, panel_size=5, m=0.3, skills=[0.95, 0.8, 0.7, 0.6, 0.55]),
                  ["expert", "random", "prior"], n_items=150, replicates=3000, seed=2,
                  method=method).summary
    assert (df["method"] == method).all() and "theta" not in set(df["metric"])
    rows = df[df["expected"].notna() & (df["sd"] > 1e-9)]
    assert len(rows) >= 30
    assert (rows["z"].abs() < 4.5).all()


def test_two_coin_single_annotator_by_hand():
    # K = 1: the truth is that annotator's vote; P(truth = modal | modal 1) = sens,
    # P(truth = modal | modal 0) = spec; the expert agrees with the modal label w.p. p_d
    sens, spec, p_d, m, n = 0.9, 0.6, 0.8, 0.25, 200
    df = simulate(Panel(theta=p_d, panel_size=1, m=m, skills=[(sens, spec)]), ["expert"], n_items=n,
                  replicates=3000, seed=4, method="explicit").summary
    n_pos = 50
    agree = (n_pos * sens + (n - n_pos) * spec) / n
    want = agree * p_d + (1 - agree) * (1 - p_d)
    row = _row(df, stratum="all", metric="accuracy")
    assert row["expected"] == pytest.approx(want, abs=1e-12)
    assert abs(row["z"]) < 4


@pytest.mark.parametrize("kw,field", [
    (dict(skills=[0.9, 1.2, 0.7]), "Panel.skills"),
    (dict(skills=[0.9, 0.8]), "panel_size must equal"),
    (dict(skills=[(0.9, 0.8)] * 3, n_labels=3), "n_labels = 2"),
    (dict(skills=[0.9, 0.8, 0.7], theta=None, theta_prior="beta:2,1"), "Panel.skills applies"),
])
def test_bad_panel_skills(kw, field):
    kw = {"theta": 0.7, "panel_size": 3, **kw}
    with pytest.raises(ValueError, match=field):
        simulate(Panel(**kw), replicates=10)


def test_huge_vote_enumeration_falls_back_to_per_vote_draws():
    # L = 5, K = 101: 4.6 million vote compositions -> no exact table, per-vote kernel
    kw = dict(n_items=80, replicates=400, seed=3)
    panel = simulate(Panel(theta=0.6, m=0.2, n_labels=5, panel_size=101), **kw).summary
    coin = simulate(Coin(p_d=0.6, m=0.2, n_labels=5), **kw).summary
    assert (panel["method"] == "explicit").all() and panel["expected"].isna().all()
    for lab in ("expert", "random"):
        p = _row(panel, labeller=lab, stratum="all", metric="accuracy")
        c = _row(coin, labeller=lab, metric="accuracy")
        assert abs(_two_sample_z(p, c)) < 4


# --------------------------------------------------------------------------- correlated models
@pytest.mark.parametrize("method", ["explicit", "collapsed"])
def test_correlated_model_fixed_theta_accuracy(method):
    # fixed theta: a share rho answers like an annotator -> accuracy vs modal rho*theta+(1-rho)q
    df = simulate(Panel(theta=0.7, panel_size=5, m=0.4),
                  [CorrelatedModel(accuracy=0.9, correlation=0.5, name="C")], n_items=200,
                  replicates=2000, seed=6, method=method).summary
    row = _row(df, stratum="all", metric="accuracy")
    p_major = stats.binom.sf(2, 5, 0.7)
    q = 0.5 * 0.7 + 0.5 * 0.9  # agreement with the modal label
    assert row["expected"] == pytest.approx(p_major * q + (1 - p_major) * (1 - q), abs=1e-12)
    assert abs(row["z"]) < 4


def test_correlated_model_errors_follow_item_difficulty():
    prior = BetaPrior(1.0, 1.0)
    labs = [Model(accuracy=0.8, name="indep"),
            CorrelatedModel(accuracy=0.8, correlation=1.0, name="corr"),
            CorrelatedModel(sensitivity=0.9, specificity=0.7, correlation=0.4, name="half")]
    df = simulate(Panel(theta_prior=prior, panel_size=5, m=0.5), labs, n_items=300, replicates=1500,
                  seed=8).summary
    rows = df[df["expected"].notna() & (df["sd"] > 1e-9)]
    assert len(rows) >= 30 and (rows["z"].abs() < 4.5).all()
    # the independent model scores alike on every stratum; the correlated one much lower
    # on the items the panel split on (observed 3/5) than on unanimous ones
    ind = [_row(df, labeller="indep", stratum=st, metric="accuracy")["mean"]
           for st in ("0.60", "1.00")]
    cor = [_row(df, labeller="corr", stratum=st, metric="accuracy")["mean"]
           for st in ("0.60", "1.00")]
    assert abs(ind[1] - ind[0]) < 0.2 and cor[1] - cor[0] > 0.2
