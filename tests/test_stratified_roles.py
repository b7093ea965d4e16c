"""The roles a loader was told travel with the data into stratify (io.TaskData's fields)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from tests.conftest import row

from labelvar import io, stratify
from labelvar.evaluation import Intervals, Labels, Truth
from labelvar.io import TaskData


def _task(n=60, seed=0):
    rng = np.random.default_rng(seed)
    truth = (rng.random(n) < 0.5).astype(int)
    idx = pd.Index([f"i{k}" for k in range(n)], name="item")
    panel = pd.DataFrame(np.where(rng.random((n, 3)) < 0.8, truth[:, None], 1 - truth[:, None]),
                         index=idx, columns=["g1", "g2", "g3"])
    preds = pd.DataFrame({"ai": np.where(rng.random(n) < 0.7, truth, 1 - truth),
                          "dr": np.where(rng.random(n) < 0.85, truth, 1 - truth)}, index=idx)
    return panel, preds


def test_humans_of_the_data_are_humans():
    panel, preds = _task()
    data = {"t": TaskData(panel, preds, humans=("dr",))}
    r = stratify(data, metrics=["accuracy"], intervals=Intervals(n_resamples=0))
    assert r.humans == ["dr"] and r.systems == ["ai"]
    # the same numbers as when told in the call
    told = stratify({"t": TaskData(panel, preds)}, humans=["dr"], metrics=["accuracy"],
                    intervals=Intervals(n_resamples=0))
    pd.testing.assert_frame_equal(r.table, told.table)
    assert row(r.table, role="H", stratum="all").score == pytest.approx(
        row(r.table, system="dr", stratum="all").score)
    # told again, the same: fine; told otherwise: refused in one line
    stratify(data, humans=["dr"], metrics=["accuracy"], intervals=Intervals(n_resamples=0))
    with pytest.raises(ValueError, match=r"humans: task 't' was loaded with humans dr, but "
                       r"humans= names ai; give the same or leave humans= out"):
        stratify(data, humans=["ai"], intervals=Intervals(n_resamples=0))


def test_counts_and_labels_of_the_data():
    counts = pd.DataFrame({"e": [3, 0, 2, 1], "n": [0, 3, 1, 2]}, index=list("abcd"))
    preds = pd.DataFrame({"m": ["e", "n", "e", "e"]}, index=counts.index)
    data = {"t": TaskData(counts, preds, counts=True, labels=("e", "n"))}
    r = stratify(data, metrics=["accuracy"], labels=Labels(pos_label="e"),
                 intervals=Intervals(n_resamples=0))
    assert row(r.table, system="m", stratum="all").score == 0.75
    assert r.inputs["t"]["raters"] is None  # count vectors
    # (counts are said by the data only: a contradicting panel_counts=False is no longer
    # possible to write)
    with pytest.raises(ValueError, match=r"labels: task 't' was loaded with labels \['e', 'n'\], "
                       r"but labels= gives \['n', 'e'\]"):
        stratify(data, labels=Labels(["n", "e"], pos_label="e"),
                 intervals=Intervals(n_resamples=0))


def test_list_positions_are_not_raters():
    panel, preds = _task()
    data = {"t": TaskData(panel, preds, raters_identified=False)}
    r = stratify(data, metrics=["accuracy"], intervals=Intervals(n_resamples=0))
    assert "unidentified raters, 3 votes per item" in r.describe()
    with pytest.raises(ValueError, match=r"aggregation: Dawid-Skene fits one confusion matrix "
                       r"per rater, and the votes of task 't' are lists whose positions are not "
                       r"raters"):
        stratify(data, truth=Truth(aggregation="dawid_skene"), intervals=Intervals(n_resamples=0))


def test_load_tasks_then_stratify(tmp_path):
    panel, preds = _task()
    path = tmp_path / "t.csv"
    panel.join(preds).reset_index().to_csv(path, index=False)
    data = io.load_tasks([path], columns=io.Columns(panel="g*", systems="ai", humans="dr", item="item"))
    (td,) = data.values()
    if not getattr(td, "humans", ()):
        pytest.skip("the loaders do not fill TaskData.humans yet (the inputs branch does)")
    r = stratify(data, metrics=["accuracy"], intervals=Intervals(n_resamples=0))
    assert r.humans == ["dr"] and r.systems == ["ai"]
    counts = pd.DataFrame({"item": ["a", "b", "c"], "e": [3, 0, 2], "n": [0, 3, 1],
                           "m": ["e", "n", "n"]})
    cpath = tmp_path / "c.csv"
    counts.to_csv(cpath, index=False)
    data = io.load_tasks([cpath], columns=io.Columns(panel="e,n", systems="m", item="item", counts=True))
    r = stratify(data, metrics=["accuracy"], labels=Labels(pos_label="e"),
                 intervals=Intervals(n_resamples=0))
    assert row(r.table, system="m", stratum="all").score == pytest.approx(2 / 3)
