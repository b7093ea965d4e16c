"""Rater models: exact enumeration, recovery of simulated parameters, the model check."""

import itertools
import warnings

import numba
import numpy as np
import pandas as pd
import pytest
from conftest import shared_data
from scipy.special import expit

import labelvar
from labelvar._base._warnings import DataNoteWarning
from labelvar._kernels import raters as rk
from labelvar.evaluation._stratified import ExcludedItemsWarning
from labelvar.votes import _rater_data as rd
from labelvar.votes import _rater_em as em
from labelvar.votes._raters import RaterModel, fit_raters


def _long(said, raters=None):
    """Items x raters label array (-1: no vote) -> long votes."""
    said = np.asarray(said)
    n, R = said.shape
    raters = [f"r{j}" for j in range(R)] if raters is None else raters
    ii, jj = np.nonzero(said >= 0)
    return pd.DataFrame({"item": ii, "rater": [raters[j] for j in jj], "label": said[ii, jj]})


def _random_model(rng, J=3, G=3, L=2):
    conf = rng.dirichlet(np.ones(L) * 2, size=(J, G, L))
    pop = rng.dirichlet(np.ones(L) * 2, size=(G, L))
    return RaterModel(tuple(range(L)), tuple(f"r{j}" for j in range(J)),
                      np.log(rng.dirichlet(np.ones(L))), np.linspace(-1, 1, G),
                      np.log(rng.dirichlet(np.ones(G))), np.log(conf), np.log(pop))


def _brute_posterior(m, votes):
    """P(g, z | votes) by products over the votes (votes: list of (rater index, label))."""
    G, L = m.nodes.size, len(m.labels)
    p = np.zeros((G, L))
    for g, z in itertools.product(range(G), range(L)):
        p[g, z] = np.exp(m.log_weights[g] + m.log_prior[z])
        for j, lab in votes:
            c = m.log_conf[j] if j < len(m.raters) else m.population_log_conf
            p[g, z] *= np.exp(c[g, z, lab])
    return p / p.sum()


def test_posterior_and_prediction_equal_exact_enumeration():
    rng = np.random.default_rng(0)
    m = _random_model(rng, J=3, G=3, L=3)
    votes = pd.DataFrame({"item": ["a", "a", "a", "b", "b", "c", "c"],
                          "rater": ["r0", "r1", "new", "r2", "r0", "r1", "r2"],
                          "label": [0, 2, 2, 1, 1, 0, 2]})
    items, post = m.posterior(votes)
    assert list(items) == ["a", "b", "c"]
    code = {"r0": 0, "r1": 1, "r2": 2}
    for k, it in enumerate(items):
        sub = votes[votes.item == it]
        brute = _brute_posterior(m, [(code.get(r, 3), lab) for r, lab in zip(sub.rater, sub.label)])
        np.testing.assert_allclose(post[k], brute, rtol=1e-12)
    # R = r0 against the panel of the others (items without r0's votes)
    panel = votes[votes.rater != "r0"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExcludedItemsWarning)
        pred = m.predict_agreement(panel, "r0", tie_rule="random")
    conf = np.exp(m.log_conf[0])
    for _, row in pred.items.iterrows():
        sub = panel[panel.item == row["item"]]
        p = _brute_posterior(m, [(code.get(r, 3), lab) for r, lab in zip(sub.rater, sub.label)])
        counts = np.bincount(sub.label, minlength=3)
        tops = np.flatnonzero(counts == counts.max())
        want = np.mean([(p * conf[:, :, t]).sum() for t in tops])
        assert row["predicted"] == pytest.approx(want, rel=1e-12)
        assert row["n_tied"] == len(tops) and row["agreement"] == counts.max() / counts.sum()


def test_tie_rules_and_bins_in_order():
    m = RaterModel.from_skill([{"accuracy": 0.8}] * 4, raters=list("abcd"))
    panel = pd.DataFrame({"item": [1, 1, 2, 2, 2, 3, 3, 3], "rater": list("ab") + list("abc") * 2,
                          "label": [0, 1, 1, 1, 1, 0, 0, 1]})
    with pytest.warns(ExcludedItemsWarning, match="1 of 3 items have a tied"):
        drop = m.predict_agreement(panel, "d")
    assert drop.items["item"].tolist() == ["2", "3"]  # ids as text, as read
    assert drop.bins["bin"].tolist() == ["0.67", "1.00"]
    rand = m.predict_agreement(panel, "d", tie_rule="random")
    # tied item with one vote each: by symmetry P(d says 0) = P(d says 1) = 1/2 on average
    assert rand.items.loc[rand.items["item"] == "1", "predicted"].item() == pytest.approx(0.5)
    assert rand.bins["bin"].tolist() == ["0.50", "0.67", "1.00"]


def _simulate_ds(rng, n, conf, prior, p_vote=1.0):
    J, L, _ = conf.shape
    z = rng.choice(L, size=n, p=prior)
    cum = conf[:, z, :].cumsum(axis=2)  # (J, n, L)
    said = (rng.random((J, n, 1)) > cum).sum(axis=2).T
    said[rng.random(said.shape) > p_vote] = -1
    return z, said


def test_dawid_skene_recovers_confusions():
    rng = np.random.default_rng(11)
    L, J, n = 3, 6, 4000
    conf = np.stack([np.eye(L) * (0.9 - 0.08 * j) + (1 - np.eye(L)) * (0.1 + 0.08 * j) / 2
                     for j in range(J)])
    prior = np.array([0.5, 0.3, 0.2])
    z, said = _simulate_ds(rng, n, conf, prior, p_vote=0.7)
    fit = fit_raters(_long(said), model="dawid_skene", n_resamples=0)
    est = np.exp(fit.model.log_conf[:, 0])
    n_z = np.array([[((said[:, j] >= 0) & (z == c)).sum() for c in range(L)] for j in range(J)])
    se = np.sqrt(conf * (1 - conf) / n_z[:, :, None])
    zs = (est - conf) / se
    assert np.abs(zs).max() < 4.5, zs.round(1)
    np.testing.assert_allclose(np.exp(fit.model.log_prior), prior, atol=4 * np.sqrt(0.25 / n))


def test_difficulty_model_recovers_carpenter_parameters():
    rng = np.random.default_rng(3)
    n, J, sigma = 6000, 6, 1.2
    alpha = np.linspace(1.0, 2.5, J)  # sensitivity logits
    gamma = np.linspace(2.5, 1.5, J)  # specificity logits
    z = rng.random(n) < 0.3
    beta = rng.normal(0, sigma, n)
    right = rng.random((n, J)) < expit(np.where(z[:, None], alpha, gamma) - beta[:, None])
    said = np.where(right, z[:, None], ~z[:, None]).astype(int)
    fit = fit_raters(_long(said), model="dawid_skene_difficulty", n_resamples=0)
    assert fit.sigma == pytest.approx(sigma, abs=0.25)
    # the marginal rates (over the difficulty distribution) against the simulated ones
    xs, ws = np.polynomial.hermite_e.hermegauss(60)
    ws = ws / ws.sum()
    sens = expit(alpha[:, None] - sigma * xs) @ ws
    spec = expit(gamma[:, None] - sigma * xs) @ ws
    sk = fit.skills
    se_sens = np.sqrt(sens * (1 - sens) / z.sum())
    se_spec = np.sqrt(spec * (1 - spec) / (~z).sum())
    assert np.abs((sk["sensitivity"] - sens) / se_sens).max() < 4.5
    assert np.abs((sk["specificity"] - spec) / se_spec).max() < 4.5
    # the check accepts the true model's family and rejects plain DS on the same votes
    assert fit.check().p > 0.001
    assert fit_raters(_long(said), model="dawid_skene", n_resamples=0).check().p < 1e-4


def test_one_coin_is_dawid_skene_constrained():
    rng = np.random.default_rng(5)
    L, J, n = 3, 5, 1500
    acc = np.array([0.9, 0.8, 0.7, 0.6, 0.5])
    conf = np.stack([np.eye(L) * a + (1 - np.eye(L)) * (1 - a) / (L - 1) for a in acc])
    z, said = _simulate_ds(rng, n, conf, np.full(L, 1 / L))
    votes = _long(said)
    one = fit_raters(votes, model="one_coin", n_resamples=0, tol=1e-13)
    ds = fit_raters(votes, model="dawid_skene", n_resamples=0)
    c = np.exp(one.model.log_conf[:, 0])
    off = c[:, ~np.eye(L, dtype=bool)]
    np.testing.assert_allclose(off, off[:, :1].repeat(off.shape[1], axis=1), rtol=1e-12)
    # the one-coin fixed point: a_j = (expected correct + s * pooled) / (votes + s)
    T = one.truth.to_numpy()
    correct = np.array([T[said[:, j] >= 0, said[said[:, j] >= 0, j]].sum() for j in range(J)])
    pooled = (correct.sum() + 1) / (n * J + 2)
    np.testing.assert_allclose(np.diagonal(c, axis1=1, axis2=2)[:, 0],
                               (correct + 2 * pooled) / (n + 2), atol=2e-4)
    assert ds.log_lik >= one.log_lik  # DS nests one-coin
    empirical = (said == z[:, None]).mean(axis=0)  # (0.884, 0.793, 0.701, 0.549, 0.485)
    assert np.abs(one.skills["accuracy"] - empirical).max() < 2 * np.sqrt(0.25 / n)


def test_gold_items_fix_the_truth_and_unseen_raters_get_the_population():
    rng = np.random.default_rng(8)
    conf = np.stack([np.array([[0.9, 0.1], [0.2, 0.8]])] * 4)
    z, said = _simulate_ds(rng, 300, conf, np.array([0.6, 0.4]))
    votes = _long(said)
    gold = {0: 1 - z[0], 1: z[1]}  # one gold label that contradicts the simulation
    fit = fit_raters(votes, gold=gold, n_resamples=0)
    assert fit.truth.loc["0", 1 - z[0]] == pytest.approx(1.0, abs=1e-12)  # ids as text
    assert fit.truth.loc["1", z[1]] == pytest.approx(1.0, abs=1e-12)
    m = fit.model
    w = fit.skills["n_items"].to_numpy() / fit.skills["n_items"].sum()
    np.testing.assert_allclose(np.exp(m.population_log_conf),
                               np.tensordot(w, np.exp(m.log_conf), axes=1), rtol=1e-12)
    panel = pd.DataFrame({"item": [7, 7], "rater": ["stranger", "r0"], "label": [1, 1]})
    items, post = m.posterior(panel)
    brute = _brute_posterior(m, [(len(m.raters), 1), (0, 1)])
    np.testing.assert_allclose(post[0], brute, rtol=1e-12)
    p_new = m.predict_agreement(panel, "nobody").items["predicted"].item()
    assert p_new == pytest.approx((brute * np.exp(m.population_log_conf)[:, :, 1]).sum())


def test_stated_skill_in_a_difficulty_model_has_the_stated_marginal_rates():
    rng = np.random.default_rng(1)
    m = _random_model(rng, J=2, G=5, L=2)
    lc = m.rater_log_conf(skill={"sensitivity": 0.9, "specificity": 0.7})
    marg = np.einsum("g,gzl->zl", np.exp(m.log_weights), np.exp(lc))
    np.testing.assert_allclose(marg, [[0.7, 0.3], [0.1, 0.9]], atol=1e-9)
    flat = RaterModel.from_skill([[0.7, 0.3], [0.1, 0.9]])
    np.testing.assert_allclose(np.exp(flat.log_conf[0, 0]), [[0.7, 0.3], [0.1, 0.9]])


def _kernel_case(rng, n=9000, J=40, G=5, L=3):
    k = rng.integers(1, 6, n)
    ptr = np.concatenate([[0], np.cumsum(k)]).astype(np.int64)
    rater = np.concatenate([rng.choice(J, size=x, replace=False) for x in k]).astype(np.int64)
    label = rng.integers(0, L, ptr[-1]).astype(np.int64)
    lc = np.log(rng.dirichlet(np.ones(L), size=(J + 1, G, L))).transpose(0, 3, 1, 2).copy()
    lp = np.log(rng.dirichlet(np.ones(L)))
    lw = np.log(rng.dirichlet(np.ones(G)))
    fixed = np.where(rng.random(n) < 0.05, rng.integers(0, L, n), -1).astype(np.int64)
    return ptr, rater, label, lc, lp, lw, fixed, rng.integers(0, 3, n).astype(float), J


def test_kernels_are_bit_identical_on_one_and_two_threads():
    ptr, rater, label, lc, lp, lw, fixed, w, J = _kernel_case(np.random.default_rng(2))
    out = []
    before = numba.get_num_threads()
    try:
        for threads in (1, 2):
            numba.set_num_threads(threads)
            post = np.empty((ptr.size - 1, lw.size, lp.size))
            res = rk.em_pass(ptr, rater, label, lc, lp, lw, fixed, w, J, 16, post)
            ll = rk.e_step(ptr, rater, label, lc, lp, lw, fixed, w, post.copy())
            hist = rk.plurality_hist(ptr, rater, label, lc, lp, lw, 5, 7, np.uint64(9))
            out.append((res, ll, post, hist, rk.first_duplicate(ptr, rater, J)))
    finally:
        numba.set_num_threads(before)
    (r1, l1, p1, h1, d1), (r2, l2, p2, h2, d2) = out
    assert r1[0] == r2[0] and l1 == l2 and d1 == d2 == -1
    for a, b in zip(r1[1:] + (p1,) + h1, r2[1:] + (p2,) + h2):
        assert np.array_equal(a, b)


def test_em_pass_statistics_equal_a_direct_sum():
    ptr, rater, label, lc, lp, lw, fixed, w, J = _kernel_case(np.random.default_rng(4), n=500)
    post = np.empty((ptr.size - 1, lw.size, lp.size))
    ll, S, T, Tk, H = rk.em_pass(ptr, rater, label, lc, lp, lw, fixed, w, J, 3, post)
    item_of = np.repeat(np.arange(ptr.size - 1), np.diff(ptr))
    want = np.zeros_like(S)
    np.add.at(want, (rater, label), w[item_of, None, None] * post[item_of])
    np.testing.assert_allclose(S, want, rtol=1e-12, atol=1e-12)
    has = np.diff(ptr) > 0
    np.testing.assert_allclose(T, (w[has, None, None] * post[has]).sum(axis=0), rtol=1e-12)


def test_check_expectation_equals_enumeration_binary():
    rng = np.random.default_rng(6)
    m = _random_model(rng, J=3, G=2, L=2)
    ptr = np.array([0, 3, 6, 8], dtype=np.int64)
    rater = np.array([0, 1, 2, 0, 1, 2, 1, 2], dtype=np.int64)
    label = np.array([1, 1, 0, 0, 0, 0, 1, 1], dtype=np.int64)
    ex, ob = rk.count_hist(ptr, rater, label, m.kernel_log_conf, m.log_prior, m.log_weights, 1, 3)
    conf = np.exp(m.log_conf)
    want = np.zeros((4, 4))
    for raters in ([0, 1, 2], [0, 1, 2], [1, 2]):
        for said in itertools.product((0, 1), repeat=len(raters)):
            p = sum(np.exp(m.log_weights[g] + m.log_prior[z])
                    * np.prod([conf[j, g, z, s] for j, s in zip(raters, said)])
                    for g in range(2) for z in range(2))
            want[len(raters), sum(said)] += p
    np.testing.assert_allclose(ex, want, rtol=1e-12)
    assert ob[3].tolist() == [1, 0, 1, 0] and ob[2].tolist() == [0, 0, 1, 0]


def test_plurality_check_expectation_is_within_monte_carlo_error():
    rng = np.random.default_rng(7)
    m = _random_model(rng, J=3, G=2, L=3)
    n = 400
    ptr = np.arange(0, 3 * n + 1, 3, dtype=np.int64)
    rater = np.tile(np.arange(3, dtype=np.int64), n)
    label = np.zeros(3 * n, dtype=np.int64)
    draws = 50
    ex, _ = rk.plurality_hist(ptr, rater, label, m.kernel_log_conf, m.log_prior, m.log_weights, 3,
                              draws, np.uint64(3))
    conf = np.exp(m.log_conf)
    exact = np.zeros(4)
    for said in itertools.product(range(3), repeat=3):
        p = sum(np.exp(m.log_weights[g] + m.log_prior[z])
                * np.prod([conf[j, g, z, s] for j, s in enumerate(said)])
                for g in range(2) for z in range(3))
        exact[np.bincount(said, minlength=3).max()] += p
    share = ex[3] / n
    se = np.sqrt(exact * (1 - exact) / (n * draws))
    assert np.all(np.abs(share - exact) <= 4.5 * se + 1e-12), (share, exact)


@pytest.mark.parametrize("change, msg", [
    (lambda v: v.drop(columns="rater"), "no column 'rater'"),
    (lambda v: v.assign(label=v.label.where(v.index != 2)),
     "1 of 9 rows of the table have no label \\(column 'label'"),
    (lambda v: pd.concat([v, v.iloc[:1]]), "the vote of rater 'r0' on item '0' \\(0\\) is given 2 times"),
    (lambda v: v.assign(label=1), "one label only"),
])
def test_bad_votes_are_refused_in_one_line(change, msg):
    votes = _long(np.array([[0, 1, 1], [1, 1, 0], [0, 0, 0]]))
    with pytest.raises(ValueError, match=msg) as e:
        fit_raters(change(votes))
    assert "\n" not in str(e.value)


def test_bad_arguments_are_refused():
    votes = _long(np.array([[0, 1, 1], [1, 1, 0], [0, 0, 0]]))
    with pytest.raises(ValueError, match="model must be one of"):
        fit_raters(votes, model="glad")
    fit = fit_raters(votes, n_resamples=0)
    with pytest.raises(ValueError, match="must not contain the target rater"):
        fit.predict_agreement(votes, "r0")
    with pytest.raises(ValueError, match="skill must be"):
        fit.predict_agreement(votes, skill={"sens": 0.9})
    with pytest.raises(ValueError,
                       match="^panel: the votes use 7 .* outside the model's labels \\[0, 1\\]"):
        fit.predict_agreement(votes.assign(label=7), "x")
    with pytest.raises(ValueError, match="gold: item 99 has no votes"):
        fit_raters(votes, gold={99: 1})


def test_skill_intervals_and_declared_labels():
    rng = np.random.default_rng(9)
    conf = np.stack([np.array([[0.85, 0.15], [0.25, 0.75]])] * 3)
    _, said = _simulate_ds(rng, 400, conf, np.array([0.5, 0.5]))
    votes = _long(said).assign(label=lambda v: np.where(v.label == 1, "yes", "no"))
    with pytest.warns(DataNoteWarning, match=r"the label\(s\) 'maybe' are not identified"):
        fit = fit_raters(votes, labels=["no", "yes", "maybe"], n_resamples=40, seed=1)
    assert fit.model.labels == ("no", "yes", "maybe") and fit.unidentified == ("maybe",)
    sk = fit.skills
    assert "sensitivity" not in sk and {"accuracy_low", "accuracy_high"} <= set(sk)
    assert (sk["accuracy_low"] <= sk["accuracy"]).all() and (sk["accuracy"] <= sk["accuracy_high"]).all()
    assert (sk["accuracy_high"] - sk["accuracy_low"]).between(0.02, 0.2).all()


def test_flat_exports():
    assert labelvar.fit_raters is fit_raters and labelvar.RaterModel is RaterModel
    assert labelvar.votes._raters.RaterFit is labelvar.RaterFit


def test_caries_check_rejects_dawid_skene_and_accepts_difficulty():
    path = shared_data("raters/caries/caries_votes_long.csv")
    votes = pd.read_csv(path)
    ds = fit_raters(votes, model="dawid_skene", n_resamples=0).check()
    diff = fit_raters(votes, model="dawid_skene_difficulty", n_resamples=0).check()
    assert ds.table["observed"].tolist() == [1880, 1065, 404, 247, 173, 100]
    assert ds.df == 5 and ds.p < 1e-6 and 60 < ds.chi2 < 100  # Carpenter: ~79
    assert diff.p > 0.05 and diff.chi2 < 3  # Carpenter: 0.1-1.4


def test_encode_maps_unknown_raters_and_keeps_item_order():
    votes = pd.DataFrame({"item": ["b", "b", "a"], "rater": ["x", "y", "x"], "label": [1, 0, 1]})
    d = rd.encode(votes, raters=("y",), labels=[0, 1])
    assert list(d.items) == ["b", "a"] and d.rater.tolist() == [1, 0, 1]
    data = em.Data(d.item_ptr, d.rater, d.label, len(d.raters), len(d.labels), np.full(2, -1))
    assert em.n_chunks(data, 1) == 2
