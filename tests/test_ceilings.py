"""Three ceilings per agreement bin (labelvar.panel_ceilings): exact enumeration, Monte Carlo, closed form."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from conftest import row

from labelvar import analytic
from labelvar.votes._ceilings import _patterns, coin_model, panel_ceilings
from labelvar.votes._raters import RaterModel


def _random_model(seed=0, J=4, G=3, L=3):
    rng = np.random.default_rng(seed)
    conf = rng.dirichlet(np.ones(L), size=(J, G, L)) * 0.5 + 0.5 * np.eye(L)  # rows sum to 1
    pop = conf.mean(axis=0)
    prior = rng.dirichlet(np.ones(L) * 3)
    w = rng.dirichlet(np.ones(G) * 2)
    return RaterModel(tuple(range(L)), tuple(f"r{j}" for j in range(J)), np.log(prior),
                      np.linspace(-1, 1, G), np.log(w), np.log(conf), np.log(pop))


def _brute(model, panel, target, tie_rule):
    """Per stratum: P(bin) and the three ceilings' expected accuracy, by plain loops."""
    L = len(model.labels)
    prior, w = np.exp(model.log_prior), np.exp(model.log_weights)
    conf = {r: np.exp(model.log_conf[model.raters.index(r)]) for r in model.raters}
    pop = np.exp(model.population_log_conf)
    tconf = conf[target]
    acc = {}
    for votes in itertools.product(range(L), repeat=len(panel)):
        counts = np.bincount(votes, minlength=L)
        top = counts.max()
        tied = np.flatnonzero(counts == top)
        if len(tied) > 1 and tie_rule == "drop":
            continue
        gt = np.zeros(L)
        if isinstance(tie_rule, int) and tie_rule in tied:
            gt[tie_rule] = 1
        else:
            gt[tied] = 1 / len(tied)
        s = f"{top / len(panel):.2f}"
        for g in range(len(w)):
            for z in range(L):
                p = prior[z] * w[g] * np.prod([conf[r][g, z, v] for r, v in zip(panel, votes)])
                best = np.flatnonzero(pop[g, z] >= pop[g, z].max() - 1e-12)
                q = [sum(counts[h] / len(panel) * gt[h] for h in range(L)),
                     sum(gt[h] for h in best) / len(best),
                     sum(tconf[g, z, h] * gt[h] for h in range(L))]
                a = acc.setdefault(s, np.zeros(4))
                a += p * np.array([1.0, *q])
    return {s: (a[0], a[1:] / a[0]) for s, a in acc.items()}


def test_coin_model_hand_values():
    # K = 3, theta = 0.7: P(2-1) = 0.441 + 0.189, P(modal has the 2 | 2-1) = 0.7; P(3-0) = 0.343 + 0.027
    t = panel_ceilings(coin_model(0.7), raters=3).table
    assert row(t, ceiling="oracle", stratum="0.67").expected == pytest.approx(0.7, abs=1e-12)
    assert row(t, ceiling="oracle", stratum="1.00").expected == pytest.approx(0.343 / 0.37, abs=1e-12)
    assert row(t, ceiling="oracle", stratum="0.67").p_bin == pytest.approx(0.63, abs=1e-12)
    # a fresh coin rater: right w.p. 0.7 where the plurality is the modal label
    assert row(t, ceiling="rater", stratum="0.67").expected == pytest.approx(0.7 * 0.7 + 0.3 * 0.3)
    p = 0.343 / 0.37
    assert row(t, ceiling="rater", stratum="1.00").expected == pytest.approx(p * 0.7 + (1 - p) * 0.3)
    assert row(t, ceiling="exchangeable", stratum="all").expected == pytest.approx(
        0.63 * 2 / 3 + 0.37, abs=1e-12)


@pytest.mark.parametrize("tie_rule", ["random", "drop", 1])
def test_exact_enumeration_heterogeneous_with_difficulty(tie_rule):
    m = _random_model()
    panel, target = ["r0", "r1", "r2"], "r3"
    want = _brute(m, panel, target, tie_rule)
    t = panel_ceilings(m, panel, target=target, tie_rule=tie_rule).table
    for s, (p, q) in want.items():
        for k, c in enumerate(("exchangeable", "oracle", "rater")):
            r = row(t, ceiling=c, stratum=s)
            assert r.expected == pytest.approx(q[k], abs=1e-12)
            assert r.p_bin == pytest.approx(p, abs=1e-12)  # of all items, dropped ones too
    assert set(t.stratum) == set(want) | {"all"}


def test_compositions_equal_joint_votes_for_one_skill():
    m = RaterModel.from_skill([{"accuracy": 0.75}] * 4, labels=("a", "b", "c"),
                              raters=["p", "q", "r", "s"], prior=[0.5, 0.3, 0.2])
    ids = ["p", "q", "r"]
    v1, lp1 = _patterns(m, ids, True)
    v2, lp2 = _patterns(m, ids, False)
    assert np.exp(lp1).sum() == pytest.approx(1.0, abs=1e-12)
    assert np.exp(lp2).sum() == pytest.approx(1.0, abs=1e-12)
    a = panel_ceilings(m, ids, target="s").table
    b = panel_ceilings(m, 3, skill={"accuracy": 0.75}).table  # three population raters, the same skill
    for c in ("exchangeable", "oracle", "rater"):
        for s in set(a.stratum):
            assert row(a, ceiling=c, stratum=s).expected == pytest.approx(
                row(b, ceiling=c, stratum=s).expected, abs=1e-12)


@pytest.mark.parametrize("tie_rule", ["random", "drop", 0])
def test_exchangeable_is_p_d_and_the_paper_binomial(tie_rule):
    m = _random_model(seed=4, J=5, G=2, L=2)
    c = panel_ceilings(m, ["r0", "r1", "r2", "r3"], target="r4", tie_rule=tie_rule, n_items=37)
    t = c.table
    ex = t[(t.ceiling == "exchangeable") & (t.stratum != "all")]
    assert np.allclose(ex.expected, ex.stratum.astype(float), atol=1e-12)
    for r in ex.itertuples():
        d = c.distribution("exchangeable", r.stratum)
        for k in (0, 15, 30, 37):
            assert float(d.sf(k / 37)) == pytest.approx(
                analytic.prob_correct_at_least(r.p_d, 37, k), rel=1e-9, abs=1e-300)


def test_oracle_beats_p_d_above_one_half():
    t = panel_ceilings(coin_model(0.8), raters=5).table
    for s in ("0.60", "0.80", "1.00"):
        assert row(t, ceiling="oracle", stratum=s).expected > float(s) - (s == "1.00")


def _simulate(m, panel, target, n, rng, tie_rule="random"):
    """Monte Carlo of items drawn from the model: per stratum, the three labellers' hits."""
    L, G = len(m.labels), m.nodes.size
    z = rng.choice(L, size=n, p=np.exp(m.log_prior))
    g = rng.choice(G, size=n, p=np.exp(m.log_weights))

    def draw(conf):
        p = conf[g, z]  # (n, L)
        return (rng.random(n)[:, None] > np.cumsum(p, axis=1)).sum(axis=1).clip(0, L - 1)

    votes = np.stack([draw(np.exp(m.log_conf[m.raters.index(r)])) for r in panel], axis=1)
    said = draw(np.exp(m.log_conf[m.raters.index(target)]))
    counts = np.stack([(votes == lab).sum(axis=1) for lab in range(L)], axis=1)
    top = counts.max(axis=1)
    tied = counts == top[:, None]
    pick = rng.random((n, L)) * tied
    gt = pick.argmax(axis=1)  # uniform among the tied labels
    keep = tied.sum(axis=1) == 1 if tie_rule == "drop" else np.ones(n, bool)
    pop = np.exp(m.population_log_conf)[g, z]
    oracle = (rng.random((n, L)) * (pop >= pop.max(axis=1, keepdims=True) - 1e-12)).argmax(axis=1)
    exch = votes[np.arange(n), rng.integers(0, len(panel), n)]
    hits = np.stack([exch == gt, oracle == gt, said == gt], axis=1)
    strata = np.array([f"{x:.2f}" for x in top / len(panel)])
    return strata[keep], hits[keep]


@pytest.mark.parametrize("tie_rule", ["random", "drop"])
def test_monte_carlo_z(tie_rule):
    m = _random_model(seed=7, J=5, G=3, L=2)
    panel = ["r0", "r1", "r2", "r3"]
    t = panel_ceilings(m, panel, target="r4", tie_rule=tie_rule).table
    strata, hits = _simulate(m, panel, "r4", 200_000, np.random.default_rng(11), tie_rule)
    for s in set(strata):
        sel = strata == s
        for k, c in enumerate(("exchangeable", "oracle", "rater")):
            e = row(t, ceiling=c, stratum=s).expected
            if e in (0.0, 1.0):  # a sure hit (the exchangeable vote of a unanimous panel)
                assert hits[sel, k].mean() == e
                continue
            z = (hits[sel, k].mean() - e) / np.sqrt(e * (1 - e) / sel.sum())
            assert abs(z) < 4, (s, c, z)
        assert row(t, ceiling="rater", stratum=s).p_bin == pytest.approx(sel.sum() / 200_000, abs=5e-3)


def test_finite_sample_distribution_is_binomial_of_the_bin():
    c = panel_ceilings(coin_model(0.75), raters=5, n_items={"0.60": 20, "1.00": 50})
    d = c.distribution("oracle", "0.60")
    e = row(c.table, ceiling="oracle", stratum="0.60").expected
    assert d.mean == pytest.approx(e, abs=1e-12)
    assert d.sd == pytest.approx(np.sqrt(e * (1 - e) / 20), abs=1e-12)
    a = row(c.table, ceiling="oracle", stratum="all")
    assert a.n_items == 70
    assert c.distribution("oracle", "all").mean == pytest.approx(a.expected_S, abs=1e-12)
    with pytest.raises(ValueError, match="no distribution"):
        c.distribution("oracle", "0.80")


def _votes_frame(m, panel, n, seed):
    rng = np.random.default_rng(seed)
    L, G = len(m.labels), m.nodes.size
    z = rng.choice(L, size=n, p=np.exp(m.log_prior))
    g = rng.choice(G, size=n, p=np.exp(m.log_weights))
    rows = []
    for r in panel:
        p = np.exp(m.log_conf[m.raters.index(r)])[g, z]
        said = (rng.random(n)[:, None] > np.cumsum(p, axis=1)).sum(axis=1).clip(0, L - 1)
        rows.append(pd.DataFrame({"item": np.arange(n), "rater": r, "label": said}))
    return pd.concat(rows, ignore_index=True)


@pytest.mark.parametrize("tie_rule", ["random", "drop"])
def test_observed_votes_match_the_rater_model_prediction(tie_rule):
    m = _random_model(seed=2, J=5, G=3, L=2)
    panel = ["r0", "r1", "r2", "r3"]
    votes = _votes_frame(m, panel, 300, seed=3)
    votes = votes.drop(index=votes.index[::17])  # sparse: some votes missing
    c = panel_ceilings(m, panel, target="r4", panel=votes, tie_rule=tie_rule)
    with pytest.warns() if tie_rule == "drop" else _nothing():
        pred = m.predict_agreement(votes, "r4", tie_rule=tie_rule)
    items = pred.items
    for s, g in items.groupby("bin"):
        r = row(c.table, ceiling="rater", stratum=s)
        assert r.expected == pytest.approx(g.predicted.mean(), abs=1e-12)
        assert r.n_items == len(g)
        ex = row(c.table, ceiling="exchangeable", stratum=s)
        assert ex.expected == pytest.approx(g.agreement.mean(), abs=1e-12)
        d = c.distribution("exchangeable", s)
        k = int(np.ceil(0.8 * len(g)))
        assert float(d.sf(k / len(g))) == pytest.approx(
            analytic.prob_correct_at_least_heterogeneous(g.agreement.to_numpy(), k), rel=1e-9)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_stated_skill_and_population_target():
    m = RaterModel.from_skill([{"sensitivity": 0.9, "specificity": 0.8}] * 3, raters=list("abc"))
    a = panel_ceilings(m, ["a", "b"], skill={"sensitivity": 0.9, "specificity": 0.8}).table
    b = panel_ceilings(m, ["a", "b"], target="c").table
    assert np.allclose(a.expected, b.expected, atol=1e-12)
    assert set(a.target) == {"skill"} and set(b.target) == {"c"}


def test_bad_inputs_one_line():
    m = RaterModel.from_skill([{"accuracy": 0.8}] * 3, raters=["a", "b", "c"])
    cases = [
        (dict(raters=["a", "b"], target="a"), "target 'a' is in the panel"),
        (dict(raters=["a", "b"], target="c", skill={"accuracy": 0.7}), "not both"),
        (dict(raters=[]), "at least one rater"),
        (dict(raters=["a", "a"]), "twice"),
        (dict(raters=["a", "b"], tie_rule="first"), "tie_rule"),
        (dict(raters=["a", "b"], n_items={"0.30": 10}), "n_items names strata"),
        (dict(raters=["a", "b"], n_items=0), "n_items"),
        (dict(raters=2, panel=pd.DataFrame({"item": [1], "rater": ["a"], "label": [1]})),
         "raters must name"),
        (dict(raters=["a", "b"], panel=pd.DataFrame({"item": [1], "rater": ["a"],
                                                          "label": [1]})), "have no votes"),
        (dict(raters=["a", "b"], confidence_level=1.0), "confidence_level"),
    ]
    for kw, msg in cases:
        with pytest.raises(ValueError, match=msg) as e:
            panel_ceilings(m, **kw)
        assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="theta must be >= 1/L"):
        coin_model(0.2, 3)
    with pytest.raises(ValueError, match="model must be"):
        panel_ceilings(object(), raters=2)


def test_observed_score_of_the_target():
    m = _random_model(seed=5, J=4, G=2, L=2)
    votes = _votes_frame(m, ["r0", "r1", "r2", "r3"], 400, seed=8)
    t = panel_ceilings(m, ["r0", "r1", "r2"], target="r3", panel=votes,
                       tie_rule="random").table
    wide = votes.pivot(index="item", columns="rater", values="label")
    share = wide[["r0", "r1", "r2"]].mean(axis=1)
    maj = (share > 0.5).astype(int)
    hit = (wide["r3"] == maj)
    top = np.maximum(share, 1 - share).round(2).map(lambda x: f"{x:.2f}")
    for s, h in hit.groupby(top):
        r = row(t, ceiling="rater", stratum=s)
        assert r.observed == pytest.approx(h.mean(), abs=1e-12) and r.n_observed == len(h)
    assert row(t, ceiling="oracle", stratum="all").n_items == 400
