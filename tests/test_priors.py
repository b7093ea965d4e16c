"""The one theta-prior API (labelvar.votes._priors) and the callers that accept it."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, special, stats

from labelvar import plan_study
from labelvar.design._scenario import Scenario
from labelvar.engine._items import Coin, Panel
from labelvar.engine._simulate import simulate
from labelvar.votes._priors import (
    SUM_TOL,
    BetaPrior,
    DiscretePrior,
    FixedTheta,
    ThetaPrior,
    as_theta_prior,
    class_prior,
    n_nodes,
)


# --------------------------------------------------------------------------- parsing
@pytest.mark.parametrize("want,spellings", [
    (FixedTheta(0.8), [0.8, np.float64(0.8), "0.8", " 0.8 ", "fixed:0.8", ("fixed", 0.8),
                       {"fixed": 0.8}, FixedTheta(0.8)]),
    (BetaPrior(2.0, 1.0), ["beta:2,1", "BETA: 2, 1", ("beta", 2, 1), ["beta", 2.0, 1.0],
                           {"beta": [2, 1]}, {"beta": {"a": 2, "b": 1}}, BetaPrior(2, 1)]),
    (BetaPrior(2.0, 1.0, 0.5, 0.95), ["beta:2,1,0.5,0.95", ("beta", 2, 1, 0.5, 0.95),
                                      {"beta": [2, 1, 0.5, 0.95]},
                                      {"beta": {"a": 2, "b": 1, "lo": 0.5, "hi": 0.95}}]),
    (DiscretePrior((0.6, 1.0), (0.3, 0.7)),
     ["mixture:0.6=0.3,1=0.7", "discrete:0.6=0.3, 1=0.7", ("mixture", [0.6, 1], [0.3, 0.7]),
      ("discrete", (0.6, 1.0), (0.3, 0.7)), {"mixture": {"theta": [0.6, 1], "weight": [0.3, 0.7]}},
      {"discrete": {"values": [0.6, 1], "weights": [0.3, 0.7]}},
      DiscretePrior([0.6, 1.0], np.array([0.3, 0.7]))]),
    (DiscretePrior((0.6, 1.0), (0.5, 0.5)), ["mixture:0.6,1", ("mixture", [0.6, 1]),
                                             {"mixture": [0.6, 1.0]}, DiscretePrior((0.6, 1.0))]),
])
def test_every_spelling_parses_to_the_same_object(want, spellings):
    for spec in spellings:
        got = as_theta_prior(spec, n_labels=2)
        assert got == want and type(got) is type(want) and isinstance(got, ThetaPrior), spec
        assert got.key() == want.key() and hash(got) == hash(want)
    assert as_theta_prior(None) is None
    assert as_theta_prior(want) is want


def test_keys_and_descriptions():
    # keys are random-stream keys of the engine: these exact strings must not change
    assert BetaPrior(2, 1).key() == "beta(a=2.0,b=1.0,lo=None,hi=1.0)"
    assert BetaPrior(2, 1, 0.6).key() == "beta(a=2.0,b=1.0,lo=0.6,hi=1.0)"
    assert DiscretePrior((0.6, 1.0), (0.3, 0.7)).key() == \
        "discrete(values=(0.6, 1.0),weights=(0.3, 0.7))"
    assert DiscretePrior((0.5, 0.9)).key() == "discrete(values=(0.5, 0.9),weights=(0.5, 0.5))"
    assert FixedTheta(0.8).key() == "fixed(value=0.8)"
    assert BetaPrior(2, 1).describe(2) == "Beta(2, 1) on [1/2, 1]"
    assert BetaPrior(2, 5).describe(3) == "Beta(2, 5) on [1/3, 1]"
    assert BetaPrior(2.5, 1, 0.6, 0.95).describe(2) == "Beta(2.5, 1) on [0.6, 0.95]"
    assert BetaPrior(2, 1).describe() == "Beta(2, 1) on [1/L, 1]"
    assert FixedTheta(0.8).describe(2) == "theta = 0.8"
    assert DiscretePrior((0.6, 1.0), (0.3, 0.7)).describe(2) == "mixture 0.6:0.3, 1:0.7"


@pytest.mark.parametrize("spec", ["gamma:1,2", ("gamma", 1, 2), "banana", "beta:2", "beta:a,b",
                                  ("beta", 2), {"beta": [2, 1], "fixed": 0.8}, {"normal": 1},
                                  True, [0.6, 0.9], "mixture:0.6=0.3,1", object()])
def test_bad_spellings_name_theta_and_list_the_forms(spec):
    with pytest.raises(ValueError) as err:
        as_theta_prior(spec)
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith("theta must be a number, 'beta:A,B' (or 'beta:A,B,LO,HI'), "
                          "'mixture:T1=W1,T2=W2,...'")
    assert "('mixture', values[, weights])" in msg and "{'fixed': θ}" in msg
    with pytest.raises(ValueError, match="^theta_prior must be a number"):
        as_theta_prior(spec, name="theta_prior")


@pytest.mark.parametrize("make,match", [
    (lambda: BetaPrior(0, 1), r"BetaPrior.a must be a number > 0"),
    (lambda: BetaPrior(1, math.inf), r"BetaPrior.b must be a number > 0"),
    (lambda: BetaPrior(1, 1, lo=0.9, hi=0.8), r"BetaPrior.lo must be < hi"),
    (lambda: BetaPrior(1, 1, hi=1.2), r"BetaPrior.hi must be in \[0, 1\]"),
    (lambda: FixedTheta(1.5), r"FixedTheta.value must be in \[0, 1\]"),
    (lambda: FixedTheta([0.5, 0.6]), r"FixedTheta.value must be a single number"),
    (lambda: DiscretePrior((0.6, 1.2)), r"DiscretePrior.values must be in \[0, 1\]"),
    (lambda: DiscretePrior(()), r"DiscretePrior.values must be a non-empty"),
    (lambda: DiscretePrior((0.6, 0.8), (1.0, -1.0)), r"DiscretePrior.weights must be >= 0"),
    (lambda: DiscretePrior((0.6, 0.8), (1, 2)), r"DiscretePrior.weights .* sum to 1"),
    (lambda: DiscretePrior((0.6, 0.8), (0.3, 0.7 + 1e-8)), r"sum to 1"),
    (lambda: DiscretePrior((0.6, 0.8), (1.0,)), r"one per value"),
])
def test_bad_fields_are_named(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_weights_within_the_tolerance_are_accepted_not_rescaled_beyond_rounding():
    assert SUM_TOL == 1e-9
    p = DiscretePrior((0.6, 0.8), (0.3, 0.7 + 1e-10))
    assert sum(p.weights) == pytest.approx(1.0, abs=1e-15)
    assert p.weights[0] == pytest.approx(0.3, abs=1e-10)


# --------------------------------------------------------------------------- support checks
@pytest.mark.parametrize("prior,L,got", [
    (FixedTheta(0.4), 2, "got 0.4"),
    (BetaPrior(1, 1, lo=0.2), 2, r"got support \[0.2, 1\]"),
    (BetaPrior(1, 1, hi=0.4), 2, r"got support \[0.5, 0.4\]"),
    (DiscretePrior((0.3, 0.9)), 2, r"got support \[0.3, 0.9\]"),
    (DiscretePrior((0.2, 0.9)), 4, r"got support \[0.2, 0.9\]"),
])
def test_support_outside_one_over_L_to_one_is_refused(prior, L, got):
    lo = f"{1 / L:.4g}"
    with pytest.raises(ValueError, match=rf"^theta must be in \[1/L, 1\] = \[{lo}, 1\] for "
                                         rf"n_labels={L} \(the modal label gets at least 1/L of "
                                         rf"the votes\), {got}$"):
        prior.check(L)
    with pytest.raises(ValueError, match=r"^theta_prior must be in"):
        as_theta_prior(prior, n_labels=L, name="theta_prior")


def test_support_inside_is_accepted():
    assert DiscretePrior((0.4, 1.0)).check(3) == DiscretePrior((0.4, 1.0))  # 0.4 >= 1/3
    FixedTheta(1 / 3).check(3)
    FixedTheta(0.3333333333333333).check(3)
    DiscretePrior((0.2, 0.9), (0.0, 1.0)).check(2)  # a zero-weight value is not support
    assert DiscretePrior((0.2, 0.9), (0.0, 1.0)).support(2) == (0.9, 0.9)
    assert BetaPrior(2, 2).support(4) == (0.25, 1.0)


# --------------------------------------------------------------------------- nodes and samples
@pytest.mark.parametrize("a,b,lo,hi,L", [(2.0, 1.0, None, 1.0, 2), (0.7, 3.0, 0.6, 1.0, 2),
                                         (5.0, 5.0, None, 0.9, 3), (0.5, 0.5, None, 1.0, 4)])
@pytest.mark.parametrize("degree", [0, 3, 8, 13])
def test_beta_nodes_integrate_polynomials_exactly(a, b, lo, hi, L, degree):
    prior = BetaPrior(a, b, lo=lo, hi=hi)
    theta, w = prior.nodes(L, degree)
    assert len(theta) == n_nodes(degree) == degree // 2 + 2
    assert w.sum() == pytest.approx(1.0, abs=1e-14) and (w > 0).all()
    lo_, hi_ = prior.support(L)
    assert ((theta > lo_) & (theta < hi_)).all()
    dist = stats.beta(a, b, loc=lo_, scale=hi_ - lo_)
    norm = special.beta(a, b) * (hi_ - lo_) ** (a + b - 1)
    for k in range(degree + 1):
        if a >= 1 and b >= 1:  # E[theta^k] against the scipy.stats density
            exact = integrate.quad(lambda t, k=k: t**k * dist.pdf(t), lo_, hi_, limit=200)[0]
        else:  # the density is singular at an end: let quad handle (t - lo)^(a-1) (hi - t)^(b-1)
            exact = integrate.quad(lambda t, k=k: t**k, lo_, hi_, weight="alg",
                                   wvar=(a - 1, b - 1))[0] / norm
        assert np.dot(w, theta**k) == pytest.approx(exact, rel=1e-9)
        assert exact == pytest.approx(dist.moment(k) if k else 1.0, rel=1e-8)
    assert prior.mean(L) == pytest.approx(dist.mean(), rel=1e-12)


def test_discrete_and_fixed_nodes_and_label_nodes():
    p = DiscretePrior((0.5, 0.75, 1.0), (0.25, 0.5, 0.25))
    th, w = p.nodes(2, 7)
    assert th.tolist() == [0.5, 0.75, 1.0] and w.tolist() == [0.25, 0.5, 0.25]
    assert p.mean(2) == 0.75
    assert FixedTheta(0.7).nodes(3, 9)[0].tolist() == [0.7]
    for prior in (p, BetaPrior(2, 3), FixedTheta(0.7)):
        pi, wl = prior.label_nodes(4, 6)
        th, w = prior.nodes(4, 6)
        assert pi.shape == (len(th), 4) and wl.tolist() == w.tolist()
        np.testing.assert_allclose(pi[:, 0], th)
        np.testing.assert_allclose(pi[:, 1:], np.repeat((1 - th)[:, None] / 3, 3, axis=1))
        np.testing.assert_allclose(pi.sum(axis=1), 1.0)


# --------------------------------------------------------------------------- class prior
def test_class_prior_cases():
    assert class_prior(0.3, 2).tolist() == [0.7, 0.3]
    assert class_prior(0.2, 3).tolist() == [0.4, 0.2, 0.4]
    assert class_prior(0.4, 4).tolist() == pytest.approx([0.2, 0.4, 0.2, 0.2])
    assert class_prior(None, 3).tolist() == pytest.approx([1 / 3] * 3)
    assert class_prior([0.1, 0.2, 0.7], 3).tolist() == [0.1, 0.2, 0.7]
    assert class_prior(1.0, 3).tolist() == [0.0, 1.0, 0.0]
    with pytest.raises(ValueError, match=r"^m must be in \[0, 1\], got 1.2$"):
        class_prior(1.2, 2)
    with pytest.raises(ValueError, match=r"^m must be one number or n_labels=3 class probabilities, "
                                         r"got 2 values$"):
        class_prior([0.5, 0.5], 3)
    with pytest.raises(ValueError, match=r"^class_prior must sum to 1 \(within 1e-09\), got 0.9$"):
        class_prior([0.2, 0.3, 0.4], 3, name="class_prior")
    with pytest.raises(ValueError, match=r"m must be in \[0, 1\]"):
        class_prior([-0.1, 0.6, 0.5], 3)


# --------------------------------------------------------------------------- the callers agree
def test_scenario_accepts_discrete_tuples_and_a_scalar_m_for_three_labels():
    sc = Scenario("separability", theta=("discrete", [0.6, 1.0], [0.5, 0.5]), n_labels=3, m=0.2,
                  baseline="prior")
    assert sc.theta == DiscretePrior((0.6, 1.0), (0.5, 0.5)) and sc.prior is sc.theta
    assert sc.m.tolist() == [0.4, 0.2, 0.4]
    assert sc.to_dict()["m"] == [0.4, 0.2, 0.4]
    assert Scenario(theta=0.8).theta == FixedTheta(0.8)
    assert Scenario(theta={"beta": {"a": 2, "b": 5}}, n_labels=3).theta == BetaPrior(2, 5)
    # the prior baseline uses the class prior: accuracy sum_c m_c P(GT = c) = m.m when the GT
    # is always the modal label (theta = 1)
    res = plan_study(Scenario("separability", theta=1.0, n_labels=3, m=0.2, baseline="prior"),
                     panel_sizes=[3], n_max=50, replicates=0)
    assert res.table["baseline_accuracy"].iloc[0] == pytest.approx(0.16 + 0.04 + 0.16, abs=1e-12)


_PANEL = dict(m=0.3, panel_size=[3, 4])
_SIM = dict(n_items=30, replicates=60, seed=4, labellers=("expert", "random", "prior"))


@pytest.mark.parametrize("spellings", [
    ["beta:2,1", BetaPrior(2, 1), ("beta", 2, 1), {"beta": [2, 1]}],
    [("mixture", [0.6, 1], [0.3, 0.7]), "mixture:0.6=0.3,1=0.7", ("discrete", (0.6, 1.0), (0.3, 0.7)),
     DiscretePrior((0.6, 1.0), (0.3, 0.7)), {"mixture": {"theta": [0.6, 1], "weight": [0.3, 0.7]}}],
])
def test_simulate_gives_identical_tables_for_equivalent_spellings(spellings):
    tables = [simulate(Panel(theta_prior=spec, **_PANEL), **_SIM).summary for spec in spellings]
    assert tables[0]["theta_prior"].iloc[0] == as_theta_prior(spellings[0]).key()
    assert tables[0]["expected"].notna().any()
    for t in tables[1:]:
        pd.testing.assert_frame_equal(tables[0], t)


def test_simulate_fixed_theta_prior_is_p_d():
    ref = simulate(Panel(theta=0.7, **_PANEL), **_SIM).summary
    for spec in (FixedTheta(0.7), 0.7, "0.7", {"fixed": 0.7}):
        pd.testing.assert_frame_equal(simulate(Panel(theta_prior=spec, **_PANEL), **_SIM).summary,
                                      ref)
    with pytest.raises(ValueError, match="Panel.theta must be None when Panel.theta_prior is"):
        simulate(Panel(theta=0.7, theta_prior=FixedTheta(0.7), **_PANEL), **_SIM)
    with pytest.raises(TypeError):  # a coin model has no theta prior
        Coin(p_d=0.7, theta_prior=0.7)
    with pytest.raises(ValueError, match=r"^Panel.theta_prior must be in \[1/L, 1\] = \[0.3333, 1\] "
                                         r"for n_labels=3 .* got 0.3$"):
        simulate(Panel(theta_prior=0.3, n_labels=[3, 4], **_PANEL), **_SIM)
    with pytest.raises(ValueError, match=r"^Panel.theta_prior must be a number, 'beta:A,B'"):
        simulate(Panel(theta_prior="gamma:1,2", **_PANEL), **_SIM)


@pytest.mark.parametrize("prior", [FixedTheta(0.8), FixedTheta(1 / 3), BetaPrior(7.963, 2.008),
                                   BetaPrior(1 / 3, 2.5, lo=0.6, hi=0.95),
                                   DiscretePrior((0.6, 1.0), (0.3, 0.7)),
                                   DiscretePrior((0.34, 0.7, 1.0), (0.2, 0.3, 0.5))])
def test_spec_parses_back_to_an_equal_prior(prior):
    assert as_theta_prior(prior.spec()) == prior


def test_spec_of_beta_with_default_lo_and_hi_below_one_needs_n_labels():
    p = BetaPrior(2, 2, hi=0.9)
    with pytest.raises(ValueError, match="its text form needs n_labels"):
        p.spec()
    back = as_theta_prior(p.spec(3))
    assert back.support(3) == p.support(3) and back.nodes(3, 5)[0].tolist() == p.nodes(3, 5)[0].tolist()


@pytest.mark.parametrize("kw", [{"hi": [0.5, 0.9]}, {"lo": np.array([0.3, 0.4])}])
def test_beta_prior_support_ends_are_single_numbers(kw):
    name = next(iter(kw))
    with pytest.raises(ValueError, match=rf"^BetaPrior.{name} must be a single number"):
        BetaPrior(2, 2, **kw)
