"""Labellers and theta priors of labelvar.models."""

import numpy as np
import pytest
from scipy import integrate, stats

from labelvar.models import (
    BetaPrior,
    Constant,
    DiscretePrior,
    Expert,
    Model,
    Prior,
    Random,
    as_labellers,
    as_prior,
    check_prior,
)


@pytest.mark.parametrize("lab", [Expert(), Random(), Prior(), Constant(), Model(),
                                 Model(accuracy=0.3, name="A")])
@pytest.mark.parametrize("n_labels", [2, 3, 5])
def test_matrices_are_row_stochastic(lab, n_labels):
    prior = np.arange(1, n_labels + 1) / np.arange(1, n_labels + 1).sum()
    mat = lab.matrix(n_labels, prior, np.array([0.5, 0.9]))
    assert mat.shape == (2, n_labels, n_labels)
    assert np.allclose(mat.sum(axis=-1), 1.0)
    assert (mat >= 0).all()


def test_labeller_semantics():
    e = Expert().matrix(3, [1 / 3] * 3, 0.7)
    assert e[0].tolist() == pytest.approx([0.7, 0.15, 0.15])
    assert Prior().matrix(3, [0.2, 0.3, 0.5], 0.7)[2].tolist() == [0.2, 0.3, 0.5]
    ss = Model(sensitivity=0.9, specificity=0.6).matrix(2, [0.5, 0.5], 0.7)
    assert ss[1, 1] == pytest.approx(0.9) and ss[0, 0] == pytest.approx(0.6)
    assert Model().accuracy == 0.8


@pytest.mark.parametrize("make,field", [
    (lambda: Model(accuracy=1.2), "Model.accuracy"),
    (lambda: Model(sensitivity=0.9), "sensitivity and specificity"),
    (lambda: Model(accuracy=0.5, sensitivity=0.9, specificity=0.9), "not both"),
    (lambda: Constant(label=-1), "Constant.label"),
    (lambda: Expert(name=""), "name"),
    (lambda: BetaPrior(0, 1), "BetaPrior.a"),
    (lambda: BetaPrior(1, 1, lo=0.9, hi=0.8), "BetaPrior.lo"),
    (lambda: DiscretePrior((0.6, 1.2)), "DiscretePrior.values"),
    (lambda: DiscretePrior((0.6, 0.8), (1.0, -1.0)), "DiscretePrior.weights"),
    (lambda: DiscretePrior((0.6, 0.8), (1, 2)), "sum to 1"),
    (lambda: as_labellers(("expert", "oracle")), "labellers"),
    (lambda: as_labellers(("expert", Expert())), "unique"),
    (lambda: Constant(label=2).matrix(2, [0.5, 0.5], 0.5), "Constant.label"),
    (lambda: Model(sensitivity=0.9, specificity=0.9).matrix(3, [1 / 3] * 3, 0.5), "n_labels"),
    (lambda: as_prior(("gamma", 1, 2)), "theta_prior"),
    (lambda: check_prior(BetaPrior(1, 1, lo=0.2), 2), "theta_prior support"),
    (lambda: check_prior(DiscretePrior((0.3, 0.9)), 2), "theta_prior support"),
])
def test_bad_input_names_the_field(make, field):
    with pytest.raises(ValueError, match=field):
        make()


@pytest.mark.parametrize("a,b,lo", [(2.0, 1.0, None), (0.7, 3.0, 0.6), (5.0, 5.0, None)])
def test_beta_nodes_integrate_polynomials_exactly(a, b, lo):
    prior = BetaPrior(a, b, lo=lo)
    theta, w = prior.nodes(2, 12)
    lo_, hi_ = prior.support(2)
    dist = stats.beta(a, b, loc=lo_, scale=hi_ - lo_)
    for k in range(13):
        exact = integrate.quad(lambda t, k=k: t**k * dist.pdf(t), lo_, hi_)[0]
        assert np.dot(w, theta**k) == pytest.approx(exact, rel=1e-9)
    assert prior.mean(2) == pytest.approx(dist.mean())


def test_discrete_prior_and_support_check():
    p = DiscretePrior((0.5, 0.75, 1.0), (0.25, 0.5, 0.25))
    assert p.mean(2) == pytest.approx(0.75)
    check_prior(p, 2)  # inside [1/2, 1]: no error
    with pytest.raises(ValueError, match=r"\[0.5, 1\]"):
        check_prior(DiscretePrior((0.4, 1.0)), 2)
    check_prior(DiscretePrior((0.4, 1.0)), 3)  # 0.4 >= 1/3
