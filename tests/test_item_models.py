"""Item label-distribution models: exact probabilities, fitting, prediction, engine, planner."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

from labelvar import fit_pilot, plan_study
from labelvar.design._power import cell_probabilities
from labelvar.design._scenario import Scenario
from labelvar.engine._items import Panel
from labelvar.engine._simulate import simulate
from labelvar.votes._models import CorrelatedModel, Model
from labelvar.votes._panel import compositions, dirichlet_argmax_probs, log_dirichlet_multinomial_pmf
from labelvar.votes._pilot import predict_agreement, predictive
from labelvar.votes._priors import DirichletItems, DirichletMixture, EmpiricalItems, ItemModel, as_theta_prior


def test_dirichlet_multinomial_pmf_matches_numerical_integral():
    # L = 2: Beta-binomial, P(c) = C(K, c0) ∫ p^c0 (1-p)^c1 Beta(p; a0, a1) dp
    from scipy import integrate, stats

    a = np.array([0.7, 2.5])
    for c0 in range(6):
        c = np.array([c0, 5 - c0])
        val, _ = integrate.quad(lambda p, c0=c0: math.comb(5, c0) * p**c0 * (1 - p) ** (5 - c0)
                                * stats.beta.pdf(p, *a), 0, 1, epsabs=1e-13)
        assert np.exp(log_dirichlet_multinomial_pmf(c, a)) == pytest.approx(val, rel=1e-8)
    # L = 3: sums to 1 over all compositions; equals scipy's dirichlet_multinomial
    a3 = np.array([2.0, 1.0, 0.5])
    comp = compositions(6, 3)
    p = np.exp(log_dirichlet_multinomial_pmf(comp, a3))
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    ref = stats.dirichlet_multinomial.pmf(comp, a3, 6)
    np.testing.assert_allclose(p, ref, rtol=1e-10)


def test_modal_composition_probs_match_monte_carlo():
    model = DirichletItems((2.0, 1.0, 0.5))
    comp, prob = model.modal_composition_probs(3)
    rng = np.random.default_rng(0)
    n = 400_000
    pi = rng.dirichlet(model.concentration, n)
    votes = np.stack([rng.multinomial(3, p) for p in pi[:50_000]])
    modal = pi[:50_000].argmax(axis=1)
    index = {tuple(r): i for i, r in enumerate(comp.tolist())}
    counts = np.zeros(prob.shape)
    for v_, m in zip(votes, modal):
        counts[index[tuple(v_)], m] += 1
    freq = counts / len(votes)
    se = np.sqrt(prob * (1 - prob) / len(votes))
    assert np.all(np.abs(freq - prob) < 4 * se + 1e-12)
    # argmax probabilities by Monte Carlo
    mc = np.bincount(pi.argmax(axis=1), minlength=3) / n
    np.testing.assert_allclose(dirichlet_argmax_probs(model.concentration), mc, atol=4 * 0.5 / n**0.5)


def test_parser_round_trips_and_refuses():
    for text in ("dirichlet:2,1,0.5", "dirichlet_mixture:0.7=5,1,1;0.3=1,1,5",
                 "empirical:0.3,0.7,0;0.03,0.94,0.03"):
        m = as_theta_prior(text, n_labels=3)
        assert isinstance(m, ItemModel) and as_theta_prior(m.spec()) == m
    assert as_theta_prior({"dirichlet": [1, 2]}) == DirichletItems((1, 2))
    assert as_theta_prior(("dirichlet_mixture", [[1, 2], [3, 1]], [0.5, 0.5])) == \
        DirichletMixture(((1, 2), (3, 1)))
    with pytest.raises(ValueError, match="distribution over 3 labels, but n_labels=2"):
        as_theta_prior("dirichlet:1,1,1", n_labels=2)
    with pytest.raises(TypeError, match="item model"):
        DirichletItems((1, 1)).nodes(2, 3)


def test_fit_recovers_known_alpha():
    alpha = np.array([0.8, 1.6, 0.4])
    rng = np.random.default_rng(5)
    pi = rng.dirichlet(alpha, 4000)
    counts = np.stack([rng.multinomial(n, p) for n, p in zip(rng.integers(3, 11, 4000), pi)])
    fit = fit_pilot(counts, "dirichlet")
    est = np.array(fit.model.concentration)
    # standard errors from the observed information (numerical Hessian of log-lik in log α)
    from scipy.optimize import approx_fprime

    def grad(x):
        return approx_fprime(x, lambda y: log_dirichlet_multinomial_pmf(counts, np.exp(y)).sum(),
                             1e-6)
    x = np.log(est)
    hess = np.stack([(grad(x + e) - grad(x - e)) / 2e-4 for e in np.eye(3) * 1e-4])
    se = np.sqrt(np.diag(np.linalg.inv(-hess))) * est
    assert np.all(np.abs(est - alpha) < 4 * se), (est, se)
    assert fit.n_params == 3 and fit.aic == pytest.approx(6 - 2 * fit.loglik)
    assert fit.table["observed"].sum() == 4000 and fit.dof > 0 and 0 <= fit.p_value <= 1


def test_dirichlet_fit_refuses_one_vote_per_item_and_all_unanimous():
    # with one vote per item P(c) = α_h / α_0 for every α_0: the fit returned its start
    # (Dirichlet(1, 1) here, mean agreement 0.75, an arbitrary spread between items)
    votes = [[1, 0], [0, 1], [1, 0]]
    a = np.array([2.0, 1.0])
    for scale in (0.1, 1.0, 100.0):
        ll = log_dirichlet_multinomial_pmf(np.array(votes), a * scale).sum()
        assert ll == pytest.approx(math.log(2 / 3 * 1 / 3 * 2 / 3))
    for method in ("dirichlet", "dirichlet_mixture"):
        with pytest.raises(ValueError, match="every one of the 3 items has 1 vote; .*need "
                                             "items with >= 2 votes"):
            fit_pilot(votes, method)
    # every item unanimous: the fit put each item's π on one label (Dirichlet(6.354e+04,
    # 3.472e-05) for [[5, 0], [5, 0]], mean agreement 1.000), as theta = 1 for "beta"
    for method in ("dirichlet", "dirichlet_mixture"):
        with pytest.raises(ValueError, match="every one of the 3 items is unanimous; .*theta=1"):
            fit_pilot([[5, 0], [5, 0], [0, 3]], method)
    with pytest.raises(ValueError, match="every one of the 3 items is unanimous"):
        fit_pilot([[5, 0], [5, 0], [0, 3]], "beta")
    fit = fit_pilot(votes, "empirical")  # the shares themselves: documented, kept
    assert fit.model.label_distributions == ((1.0, 0.0), (0.0, 1.0), (1.0, 0.0))
    assert fit_pilot(votes + [[1, 1]], "dirichlet").n_items == 4


def test_mixture_fit_is_seeded_and_beats_single_dirichlet():
    rng = np.random.default_rng(1)
    a = np.where(rng.random(1500)[:, None] < 0.6, [8.0, 1.0, 1.0], [0.5, 0.5, 4.0])
    counts = np.stack([rng.multinomial(5, rng.dirichlet(r)) for r in a])
    f1 = fit_pilot(counts, "dirichlet_mixture", seed=3)
    f2 = fit_pilot(counts, "dirichlet_mixture", seed=3)
    assert f1.model == f2.model
    assert f1.loglik > fit_pilot(counts, "dirichlet").loglik + 20
    assert f1.model.weights[0] == pytest.approx(0.6, abs=0.06)


def test_predict_agreement_by_hand():
    pred = predict_agreement("dirichlet:1,2,0.5", [[3, 1, 0], [2, 2, 0], [0, 0, 1]])
    # (3 + 1) / (4 + 3.5); tie: mean of (2 + 1) / 7.5 and (2 + 2) / 7.5; (1 + .5) / (1 + 3.5)
    np.testing.assert_allclose(pred.items["predicted"], [4 / 7.5, 3.5 / 7.5, 1.5 / 4.5])
    assert pred.bins["bin"].tolist() == ["0.50", "0.75", "1.00"]  # numeric order
    cmp = pred.compare([[6, 4, 0], [1, 3, 6], [0, 0, 10]])
    np.testing.assert_allclose(cmp["held_out"][:3], [0.2, 0.6, 1.0])
    assert cmp["error"].iloc[-1] == pytest.approx(np.mean(np.abs(
        np.array([4 / 7.5, 3.5 / 7.5, 1.5 / 4.5]) - [0.6, 0.2, 1.0])))
    # mixture predictive = posterior-weighted component predictives
    mix = DirichletMixture(((1, 1), (4, 1)), (0.5, 0.5))
    c = np.array([[2, 0]])
    lw = np.array([log_dirichlet_multinomial_pmf(c[0], a) for a in mix.concentrations])
    post = np.exp(lw) / np.exp(lw).sum()
    expect = post[0] * 3 / 4 + post[1] * 6 / 7
    assert predictive(mix, c)[0, 0] == pytest.approx(expect)


@pytest.mark.parametrize("spec,labels,k,tie", [
    ("dirichlet:2,1,0.5", 3, 5, "random"),
    ("dirichlet_mixture:0.7=5,1,1;0.3=0.5,0.5,3", 3, 4, "drop"),
    ("empirical:0.3,0.7;0.5,0.5;0.9,0.1", 2, 3, "random"),
    ("dirichlet:0.4,1.5", 2, 6, 1),
])
def test_simulate_matches_exact_expectation_per_stratum(spec, labels, k, tie):
    res = simulate(Panel(theta_prior=spec, panel_size=k, n_labels=labels, tie_rule=tie),
                   ["expert", "random", "prior", Model(0.7, name="A"),
                    CorrelatedModel(accuracy=0.9, correlation=0.5, name="C")],
                   n_items=120, replicates=2000, seed=11)
    s = res.summary
    checked = s[s["expected"].notna()]
    assert set(checked["stratum"]) == set(s["stratum"])  # every stratum has expectations
    assert len(checked) > 40
    assert checked["z"].abs().max() < 4, checked.loc[checked["z"].abs().idxmax()]
    assert (s["method"] == "explicit").all()


def test_simulate_item_model_serial_equals_parallel_and_refusals():
    panel = dict(theta_prior="dirichlet:1,2,1", n_labels=3, panel_size=3)
    kw = dict(n_items=50, replicates=30, seed=4, expected=False)
    a = simulate(Panel(**panel), parallel=False, **kw).summary
    b = simulate(Panel(**panel), parallel=True, **kw).summary
    assert a["mean"].equals(b["mean"])
    with pytest.raises(ValueError, match="collapsed"):
        simulate(Panel(**panel), method="collapsed", **kw)
    with pytest.raises(ValueError, match="Panel.theta must be None"):
        simulate(Panel(theta=0.8, **panel), **kw)


@pytest.mark.parametrize("given", [dict(m=0.3), dict(class_prior=[0.2, 0.3, 0.5]),
                                   dict(positives="bernoulli")])
def test_an_item_model_refuses_what_it_would_ignore(given):
    """Issue 31: m and class_prior were silently ignored under an item model (its label
    distributions define the classes); now refused, naming the field, before any work."""
    name = next(iter(given))
    with pytest.raises(ValueError, match=rf"^Panel\.{name} does not apply under an item model"):
        simulate(Panel(theta_prior="dirichlet:1,2,1", n_labels=3, panel_size=3, **given),
                 n_items=50, replicates=30)


def test_planner_from_dirichlet_pilot_fit():
    rng = np.random.default_rng(2)
    counts = np.stack([rng.multinomial(5, rng.dirichlet([0.4, 1.2, 0.6])) for _ in range(300)])
    fit = fit_pilot(counts, "dirichlet")
    sc = Scenario("separability", theta=fit.prior, n_labels=3, baseline="prior")
    assert Scenario(**sc.to_dict()).to_dict() == sc.to_dict()
    res = plan_study(sc, panel_sizes=[1, 3, 5], replicates=0)
    assert res.recommended is not None and "recommended" in res.describe()
    # the planner's per-item probabilities are the engine's exact expectations
    cell = cell_probabilities(sc, 4)
    s = simulate(Panel(theta_prior=fit.prior, panel_size=4, n_labels=3), ["expert", "prior"],
                 n_items=50, replicates=20, seed=0).summary
    acc = s.query("stratum == 'all' and metric == 'accuracy'").set_index("labeller")["expected"]
    assert cell.p_a == pytest.approx(acc["expert"], abs=1e-9)
    assert cell.p_baseline == pytest.approx(acc["prior"], abs=1e-9)


def test_empirical_item_model_from_counts():
    e = EmpiricalItems.from_counts([[30, 70, 0], [3, 94, 3], [50, 50, 0]])
    assert e.modal_probs().tolist() == pytest.approx([1 / 6, 5 / 6, 0.0])
    comp, p = e.composition_probs(2)
    assert p.sum() == pytest.approx(1.0)
    brute = np.zeros(len(comp))
    idx = {tuple(r): i for i, r in enumerate(comp.tolist())}
    for pi in e.label_distributions:
        for a, b in itertools.product(range(3), repeat=2):
            v_ = np.bincount([a, b], minlength=3)
            brute[idx[tuple(v_)]] += pi[a] * pi[b] / 3
    np.testing.assert_allclose(p, brute)


def test_modal_table_integrates_each_alpha_multiset_once():
    # P(modal = j | votes) is permutation-equivariant in c + α: each distinct sorted row is
    # integrated once (a symmetric Dirichlet over L = 10 labels planned K = 5 hung for
    # minutes: 2002 + 5005 rows of 10 integrands; now 7 + 11 rows)
    rng = np.random.default_rng(3)
    beta = rng.choice([0.5, 1.0, 2.5], size=(40, 4))  # repeated and permuted rows
    one_by_one = np.stack([dirichlet_argmax_probs(row) for row in beta])
    np.testing.assert_allclose(dirichlet_argmax_probs(beta), one_by_one, atol=1e-12)
    d = DirichletItems((0.5,) * 10)
    comp, p = d.modal_composition_probs(6)
    assert len(comp) == math.comb(15, 9) and p.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(d.modal_probs(), np.full(10, 0.1), atol=1e-12)
    # six votes for label 0: P = prod_i (0.5 + i) / (5 + i), i < 6 (Polya urn),
    # its modal label the voted one with the probability of a direct integral
    row = np.flatnonzero(comp[:, 0] == 6)[0]
    urn = math.prod((0.5 + i) / (5 + i) for i in range(6))
    assert p[row].sum() == pytest.approx(urn, rel=1e-10)
    assert p[row, 0] / p[row].sum() == pytest.approx(
        float(dirichlet_argmax_probs(np.r_[6.5, [0.5] * 9])[0]), rel=1e-10)


def test_item_model_panel_size_is_a_single_number():
    model = DirichletItems((1, 1))
    with pytest.raises(ValueError, match=r"^panel_size must be a single number"):
        model.panel_probabilities([1, 2])
    with pytest.raises(ValueError, match=r"^panel_size must be a single number"):
        model.modal_composition_probs(np.array([2, 3]))


def test_dirichlet_argmax_matches_the_quantile_substitution():
    """P(π_j largest) equals the one-integral-per-label form ∫_0^1 prod F_k(F_j^{-1}(u)) du.

    The kernel integrates over x with shared nodes (L CDFs per node, not L²): an L = 10
    Dirichlet over K = 5 votes took over a minute in ``labelvar design``.
    """
    from scipy.integrate import quad_vec
    from scipy.special import gammainc, gammaincinv

    rng = np.random.default_rng(7)
    for lab in (3, 5, 8):
        a = np.exp(rng.uniform(np.log(0.005), np.log(1000.0), size=(6, lab)))

        def integrand(u, a=a, lab=lab):
            x = gammaincinv(a, u)
            out = np.ones(a.shape)
            for j in range(lab):
                for k in range(lab):
                    if k != j:
                        out[:, j] *= gammainc(a[:, k], x[:, j])
            return out.ravel()

        ref, _ = quad_vec(integrand, 0.0, 1.0, epsabs=1e-12, epsrel=1e-11, limit=2000)
        ref = ref.reshape(a.shape)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no RuntimeWarning (0 * inf, log 0, ...)
            got = dirichlet_argmax_probs(a)
        np.testing.assert_allclose(got, ref / ref.sum(axis=1, keepdims=True), atol=1e-11)


def test_concentration_is_the_one_name_alpha_refused():
    d = DirichletItems(concentration=(2, 1, 0.5))
    assert repr(d) == "DirichletItems(concentration=(2.0, 1.0, 0.5))"
    assert d.key() == "dirichlet(concentration=(2.0, 1.0, 0.5))"
    mix = DirichletMixture(concentrations=((5, 1), (1, 5)), weights=(0.7, 0.3))
    assert mix.concentrations == ((5.0, 1.0), (1.0, 5.0))
    assert as_theta_prior({"dirichlet": {"concentration": [2, 1]}}) == DirichletItems((2, 1))
    with pytest.raises(TypeError):
        DirichletItems(alpha=(2, 1))
    with pytest.raises(ValueError, match=r"^theta \{'dirichlet': \{'alpha': \[2, 1\]\}\}: "
                                         r"'alpha' is now 'concentration'"):
        as_theta_prior({"dirichlet": {"alpha": [2, 1]}})
    with pytest.raises(ValueError, match="'alphas' is now 'concentrations'"):
        as_theta_prior({"dirichlet_mixture": {"alphas": [[2, 1]]}})
