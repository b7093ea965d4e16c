"""Rater models as objects: the protocol, the registry, one Dawid-Skene, one default."""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest

from labelvar.evaluation._agreement import bootstrap_agreement, cross_replication, dawid_skene
from labelvar.votes import _raters as vr
from labelvar.votes._ceilings import coin_model, panel_ceilings
from labelvar.votes._raters import (
    RATER_MODELS,
    DawidSkene,
    DawidSkeneDifficulty,
    RaterModel,
    RaterModelSpec,
    fit_raters,
    register_rater_model,
)


class FixedAccuracy(RaterModelSpec):
    """A toy rater model: every rater right with one stated probability, a uniform prior."""

    name = "fixed_accuracy_for_test"

    def __init__(self, *, accuracy: float = 0.8):
        super().__init__()
        self.accuracy = accuracy

    def m_step(self, d, S, T, p):
        L = d.n_labels
        conf = np.full((d.n_raters, L, L), (1 - self.accuracy) / (L - 1))
        conf[:, np.arange(L), np.arange(L)] = self.accuracy
        return self.with_confusion(p, d, conf, np.full(L, 1.0 / L))

    def n_parameters(self, n_raters: int, n_labels: int) -> int:
        return 0


@pytest.fixture
def toy_registered():
    register_rater_model(FixedAccuracy)
    try:
        yield
    finally:
        RATER_MODELS.pop(FixedAccuracy.name)


def test_a_toy_model_registered_from_a_test_module_fits(toy_registered):
    votes = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2, 3, 3, 3], "rater": list("abc") * 3,
                          "label": [1, 1, 0, 1, 1, 1, 0, 0, 1]})
    fit = fit_raters(votes, model="fixed_accuracy_for_test", n_resamples=0)
    assert fit.kind == "fixed_accuracy_for_test"
    # P(truth 1 | votes 1, 1, 0) = .8 .8 .2 / (.8 .8 .2 + .2 .2 .8) = 0.8;
    # P(truth 1 | 1, 1, 1) = .512 / (.512 + .008)
    np.testing.assert_allclose(fit.truth[1].to_numpy(), [0.8, 0.512 / 0.52, 0.2], rtol=1e-12)
    np.testing.assert_allclose(fit.skills["accuracy"], 0.8, rtol=1e-12)
    # the object, with its own option, works without the registry as well
    fit7 = fit_raters(votes, model=FixedAccuracy(accuracy=0.7), n_resamples=0)
    np.testing.assert_allclose(fit7.truth.loc["1", 1], 0.49 * 0.3 / (0.49 * 0.3 + 0.09 * 0.7),
                               rtol=1e-12)


def test_registry_refuses_a_taken_name_and_non_models():
    class Other(RaterModelSpec):
        name = "dawid_skene"

    with pytest.raises(ValueError, match="the name 'dawid_skene' is taken by DawidSkene"):
        register_rater_model(Other)
    with pytest.raises(ValueError, match="subclass of RaterModelSpec"):
        register_rater_model(dict)
    with pytest.raises(ValueError, match=r"give a model object \(DawidSkene\(\)\)"):
        fit_raters(pd.DataFrame({"item": [1], "rater": ["a"], "label": [1]}), model=DawidSkene)
    assert sorted(RATER_MODELS) == ["dawid_skene", "dawid_skene_difficulty", "one_coin"]


def _votes(rng, n=300, acc=(0.9, 0.8, 0.7, 0.6)):
    z = rng.integers(0, 2, n)
    said = np.where(rng.random((n, len(acc))) < np.asarray(acc), z[:, None], 1 - z[:, None])
    return pd.DataFrame({"item": np.repeat(np.arange(n), len(acc)),
                         "rater": np.tile([f"r{j}" for j in range(len(acc))], n),
                         "label": said.ravel()}), said


def test_one_dawid_skene_and_one_default():
    votes, said = _votes(np.random.default_rng(3))
    # agreement.dawid_skene (stratify's aggregation) is fit_raters' Dawid-Skene
    post, _ = dawid_skene(said, 2)
    fit = fit_raters(votes, model="dawid_skene", n_resamples=0)
    np.testing.assert_allclose(fit.truth.to_numpy(), post, atol=1e-12)
    from labelvar.io import read_votes  # votes already read are taken as they are

    again = fit_raters(read_votes(votes), model="dawid_skene", n_resamples=0)
    assert again.truth.equals(fit.truth)
    ml, _ = dawid_skene(said, 2, prior_strength=0)
    fit_ml = fit_raters(votes, model=DawidSkene(prior_strength=0), n_resamples=0)
    np.testing.assert_allclose(fit_ml.truth.to_numpy(), ml, atol=1e-12)
    # one default in Python and on the command line: Dawid-Skene with item difficulty
    assert inspect.signature(fit_raters).parameters["model"].default == "dawid_skene_difficulty"
    assert fit_raters(votes, n_resamples=0).kind == "dawid_skene_difficulty"
    nine = fit_raters(votes, model=DawidSkeneDifficulty(n_nodes=9), n_resamples=0)
    assert nine.model.nodes.size == 9
    assert f"{nine.skills.accuracy.iloc[0]:.4f}" in nine.model._repr_html_()


def test_public_callables_have_at_most_12_parameters():
    from labelvar.votes._pilot import ItemModelFit, PilotFit

    owned = [fit_raters, RaterModel.from_skill, RaterModel.predict_agreement, vr.RaterFit.check,
             panel_ceilings, coin_model, cross_replication, bootstrap_agreement, dawid_skene,
             vr.RaterFit, RaterModel, PilotFit, ItemModelFit, DawidSkeneDifficulty]
    for f in owned:
        assert len(inspect.signature(f).parameters) <= 12, f.__qualname__
    names = set(inspect.signature(fit_raters).parameters)
    assert {"n_resamples", "max_iter", "confidence_level"} <= names
    assert not {"n_boot", "n_iter", "prior_strength"} & names


def test_integer_rater_ids_are_found_by_their_text():
    # votes are read with ids as text: a fitted rater 3 is "3", and rater=3 still finds it
    votes, _ = _votes(np.random.default_rng(4), acc=(0.95, 0.9, 0.6, 0.55))
    votes["rater"] = votes["rater"].str[1:].astype(int)
    fit = fit_raters(votes, model="dawid_skene", n_resamples=0)
    assert fit.raters == ("0", "1", "2", "3")
    panel = votes[votes.rater != 0]
    by_int = fit.predict_agreement(panel, 0).items["predicted"]
    by_text = fit.predict_agreement(panel, "0").items["predicted"]
    population = fit.predict_agreement(panel, "nobody").items["predicted"]
    assert by_int.equals(by_text) and by_int.mean() > population.mean() + 0.01
