"""design/_questions.py: one small class per planning question, the same plans as before."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from labelvar.design import Precision, Separability, TwoSystems
from labelvar.design._planner import plan_study
from labelvar.design._questions import question_from
from labelvar.design._scenario import Scenario


@pytest.mark.parametrize("question, scenario, costs", [
    (Separability(theta=0.7), Scenario("separability", theta=0.7), {}),
    (Separability(theta="beta:2,2", baseline="prior", m=0.3, accuracy=0.8),
     Scenario("separability", theta="beta:2,2", baseline="prior", m=0.3, accuracy_a=0.8), {}),
    (TwoSystems(theta=0.9, accuracy_b=0.8, delta=0.1, error_correlation=0.3),
     Scenario("two_systems", theta=0.9, accuracy_b=0.8, delta=0.1, error_correlation=0.3,
              cost_per_item=1.0, cost_per_annotation=0.5),
     {"cost_per_item": 1.0, "cost_per_annotation": 0.5}),
    (Precision(theta=0.9, half_width=0.1, confidence_level=0.9),
     Scenario("precision", theta=0.9, half_width=0.1, confidence_level=0.9), {}),
])
def test_a_question_plans_what_its_scenario_planned(question, scenario, costs):
    new = plan_study(question, panel_sizes=[1, 3], replicates=0, **costs)
    old = plan_study(scenario, panel_sizes=[1, 3], replicates=0)
    pd.testing.assert_frame_equal(new.table, old.table, check_exact=True)
    assert new.describe() == old.describe() and new.scenario.to_dict() == old.scenario.to_dict()


def test_each_question_holds_only_its_own_fields():
    fields = {cls: {f.name for f in dataclasses.fields(cls)}
              for cls in (Separability, TwoSystems, Precision)}
    assert all(len(f) <= 12 for f in fields.values())
    assert "half_width" not in fields[TwoSystems] and "delta" not in fields[Precision]
    assert "alpha" not in fields[Precision] and "confidence_level" not in fields[Separability]
    with pytest.raises(TypeError):
        TwoSystems(theta=0.9, accuracy_b=0.8, delta=0.1, half_width=0.1)  # by construction
    # checked on creation, with the planner's rules
    with pytest.raises(ValueError, match=r"^delta must be in \(0, 1 - accuracy_b\]"):
        TwoSystems(theta=0.9, accuracy_b=0.9, delta=0.2)
    with pytest.raises(ValueError, match="precision needs half_width"):
        Precision(theta=0.9)


def test_settings_map_onto_the_question_and_foreign_ones_are_refused():
    q = question_from({"question": "two_systems", "theta": 0.9, "accuracy_b": 0.8,
                       "delta": 0.1, "test": "unpaired"})
    assert q == TwoSystems(theta=0.9, accuracy_b=0.8, delta=0.1, test="unpaired")
    assert question_from({"accuracy_a": 0.8}) == Separability(accuracy=0.8)
    with pytest.raises(ValueError, match=r"^delta is not a setting of question separability; "
                                         r"its settings: theta, n_labels"):
        question_from({"question": "separability", "delta": 0.1})
    with pytest.raises(ValueError, match=r"^precision has no test, so no alpha"):
        question_from({"question": "precision", "half_width": 0.1, "alpha": 0.1})
    with pytest.raises(ValueError, match=r"^question must be one of"):
        question_from({"question": "power"})


def test_the_command_line_refuses_a_flag_of_another_question(capsys):
    from labelvar.cli import main

    code = main(["design", "--question", "separability", "--theta", "0.8", "--delta", "0.1",
                 "--replicates", "0", "--panel-sizes", "1"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("labelvar: error: --delta is not a setting of "
                                        "question separability")
