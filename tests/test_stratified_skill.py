"""Each human's skill-based expectation beside E (stratify(skill_model=...), labelvar.votes._raters)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from tests.conftest import row

from labelvar.evaluation import Intervals
from labelvar.evaluation._stratified import stratify


@pytest.mark.slow
def test_expected_skill_tracks_each_humans_accuracy():
    rng = np.random.default_rng(12)
    n = 3000
    truth = (rng.random(n) < 0.4).astype(int)

    def rater(acc):
        return np.where(rng.random(n) < acc, truth, 1 - truth)

    panel = pd.DataFrame({f"p{j}": rater(0.8) for j in range(4)})
    preds = {"good": rater(0.95), "poor": rater(0.65)}
    r = stratify(panel, preds, humans=["good", "poor"], metrics=["accuracy"],
                 intervals=Intervals(n_resamples=0)).expected_skill("dawid_skene")
    t = r.table
    for h in ("good", "poor"):
        for stratum in ("0.50", "0.75", "1.00", "all"):
            got = row(t, system=h, stratum=stratum, metric="accuracy")
            se = np.sqrt(got.score * (1 - got.score) / got.S)
            # the model's expectation for this human, against its observed accuracy
            assert abs(got.expected_skill - got.score) < 4 * se + 0.01, (h, stratum)
    good = row(t, system="good", stratum="0.75", metric="accuracy")
    poor = row(t, system="poor", stratum="0.75", metric="accuracy")
    # E = p_d is the same for both; the skill-based expectation tells them apart
    assert good.expected == poor.expected == 0.75
    assert good.expected_skill > poor.expected_skill + 0.1
    # a 2-2 split: a random tie break, 0.5 for anyone
    assert row(t, system="good", stratum="0.50", metric="accuracy").expected_skill == 0.5


def test_skill_model_needs_humans_and_identified_raters():
    with pytest.raises(ValueError, match="expected_skill: each human's skill-based expectation "
                       "needs humans and identified panel raters"):
        stratify([[0, 1, 1], [1, 1, 1]], {"m": [1, 1]},
                 intervals=Intervals(n_resamples=0)).expected_skill("dawid_skene")
    with pytest.raises(ValueError, match="model must be one of"):
        stratify([[0, 1, 1], [1, 1, 1]], {"m": [1, 1]}, humans="m",
                 intervals=Intervals(n_resamples=0)).expected_skill("ds")
