"""design/_scenario.py: Scenario validation and its plain-data form."""

from __future__ import annotations

import pytest

from labelvar.design._scenario import Scenario
from labelvar.votes._priors import BetaPrior


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
    (dict(theta="mixture:0.6=0.5,0.9=0.4"), r"theta .*: mixture weights must be >= 0, one per value, "
                                            r"and sum to 1"),
    (dict(theta="beta:0,2"), r"theta .beta:0,2.: beta a must be a number > 0, got 0.0"),
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



def test_engine_prior_objects_accepted_and_checked():
    from labelvar.votes._priors import BetaPrior, DiscretePrior

    sc = Scenario("separability", theta=BetaPrior(2, 2, lo=0.6, hi=0.95))
    assert sc.theta == BetaPrior(2, 2, lo=0.6, hi=0.95) and sc.prior is sc.theta
    assert sc.theta.mean(2) == pytest.approx(0.775)
    assert Scenario(theta="mixture:0.6=0.5,1=0.5").theta == DiscretePrior((0.6, 1.0), (0.5, 0.5))
    with pytest.raises(ValueError, match=r"theta must be in \[1/L, 1\] .* got support \[0.3, 1\]"):
        Scenario(theta=BetaPrior(2, 2, lo=0.3))
    with pytest.raises(ValueError, match=r"theta must be in \[1/L, 1\] .* got support \[0.3, 0.9\]"):
        Scenario(theta=DiscretePrior((0.3, 0.9)))




@pytest.mark.parametrize("kwargs", [
    dict(question="separability", theta="beta:2,5"),
    dict(question="separability", theta=BetaPrior(1 / 3, 2.5, lo=0.6, hi=0.95), n_labels=3,
         m=[0.2, 0.3, 0.5], baseline="prior", tie_rule="drop", min_agreement=0.6),
    dict(question="two_systems", theta="mixture:0.6=0.3,1=0.7", accuracy_b=0.8, delta=0.1,
         error_correlation=0.2, test="unpaired", alpha=0.01),
    dict(question="precision", theta=0.85, half_width=0.05, confidence_level=0.9),
    dict(question="separability", theta=BetaPrior(2, 2, hi=0.9), n_labels=3),
])
def test_to_dict_round_trips(kwargs):
    """to_dict is plain data (theta as text the one parser reads) and rebuilds the scenario."""
    sc = Scenario(**kwargs)
    d = sc.to_dict()
    assert isinstance(d["theta"], str) and isinstance(d["m"], (float, list))
    back = Scenario(**d)
    assert back.theta.support(sc.n_labels) == sc.theta.support(sc.n_labels)
    assert back.theta.mean(sc.n_labels) == sc.theta.mean(sc.n_labels)
    assert back.to_dict() == d


def test_alpha_for_tests_confidence_level_for_precision():
    assert Scenario().alpha == 0.05 and Scenario().confidence_level is None
    sc = Scenario("precision", half_width=0.05)
    assert sc.confidence_level == 0.95 and sc.alpha is None
    with pytest.raises(ValueError, match="precision has no test, so no alpha: give "
                                         "confidence_level"):
        Scenario("precision", half_width=0.05, alpha=0.1)
    with pytest.raises(ValueError, match="confidence_level is the precision question's; "
                                         "separability tests at alpha"):
        Scenario(confidence_level=0.9)
    with pytest.raises(ValueError, match=r"confidence_level must be in \(0, 1\)"):
        Scenario("precision", half_width=0.05, confidence_level=1.0)
