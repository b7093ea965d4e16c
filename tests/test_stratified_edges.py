"""stratify() at the edges of its inputs: messages, blank cells and dtypes as a user sees them."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from labelvar.evaluation import Intervals, Labels, Paper, Truth
from labelvar.evaluation._stratified import stratify

PANEL = [[1, 1, 0], [0, 0, 0], [1, 0, 0], [1, 1, 1], [0, 1, 1]]
PRED = {"s": [1, 0, 1, 0, 1]}


@pytest.mark.parametrize("bins, shown", [([0.5], "[0.5]"), ([1, 0.5], "[1, 0.5]"),
                                         ([0.5, 0.5, 1], "[0.5, 0.5, 1]")])
def test_bad_bins_message_shows_the_edges_as_typed(bins, shown):
    with pytest.raises(ValueError) as info:
        stratify(PANEL, PRED, bins=bins, intervals=Intervals(n_resamples=0))
    msg = str(info.value)
    assert msg == f"bins must be at least 2 increasing edges in [0, 1], got {shown}"
    assert "np.float64" not in msg


def test_paper_table_without_humans_leaves_the_human_gap_blank():
    # no humans, no H': H, Delta(H-AI) and Delta(E-H) are all blank in print, never "NaN"
    r = stratify(PANEL, PRED, metrics=["accuracy"], intervals=Intervals(n_resamples=0))
    numbers = r.paper_table("s")
    assert numbers[["accuracy H", "accuracy Δ(H−AI)", "accuracy Δ(E−H)"]].isna().all().all()
    pt = r.paper_table("s", digits=2)
    assert pt["accuracy H"].tolist() == ["", "", ""]
    assert pt["accuracy Δ(H−AI)"].tolist() == ["", "", ""]
    assert pt["accuracy Δ(E−H)"].tolist() == ["", "", ""]
    # accuracy of s: bin 0.67 (rows 1, 3, 5): 2/3; unanimous (rows 2, 4): 1/2
    assert pt["accuracy AI"].tolist() == ["0.67", "0.50", "0.60"]
    assert pt["accuracy Δ(E−AI)"].tolist() == ["0.00", "0.50", "0.20"]
    # with H' the gap is there
    pt = stratify(PANEL, PRED, metrics=["accuracy"], intervals=Intervals(n_resamples=0),
                  paper=Paper(replicates=2)).paper_table("s", digits=2)
    assert all(re.fullmatch(r"-?\d\.\d\d", x) for x in pt["accuracy Δ(H'-loo−AI)"])


def test_a_task_without_raters_keeps_the_table_numeric():
    r = stratify({"a": (PANEL, PRED), "b": (PANEL, None)}, metrics=["accuracy"],
                 intervals=Intervals(n_resamples=0))
    t = r.table
    assert set(t.task) == {"a"}
    for c in ("score", "expected", "delta_expected", "m", "agreement", "p_random"):
        assert t[c].dtype == float, c
    assert t.S.dtype.kind == "i" and t.small_bin.dtype == bool
    assert t.score.tolist() == pytest.approx([2 / 3, 1 / 2, 3 / 5])
    assert r.inputs["b"]["systems"] == [] and r.excluded["b"]["no_votes"] == 0


def test_one_metric_or_one_human_given_as_a_string():
    pred = {**PRED, "dr1": [1, 0, 0, 1, 1]}
    r = stratify(PANEL, pred, humans="dr1", metrics="accuracy", intervals=Intervals(n_resamples=0))
    assert set(r.table.metric) == {"accuracy"}
    assert r.humans == ["dr1"] and r.systems == ["s"]
    h = r.table[(r.table.role == "H") & (r.table.stratum == "all")]
    assert h.score.tolist() == [1.0]  # dr1 is the majority on every item


def test_a_system_named_a1_beside_an_unnamed_array_panel():
    # an array's annotators have no names: a system called 'a1' is no panel rater
    r = stratify(PANEL, {"a1": PRED["s"]}, metrics=["accuracy"],
                 intervals=Intervals(n_resamples=0))
    assert r.systems == ["a1"]
    assert r.table.score.tolist() == pytest.approx([2 / 3, 1 / 2, 3 / 5])
    # a DataFrame's column a1 is a named rater: refused as before
    with pytest.raises(ValueError, match="'a1' is both a panel rater and an evaluated rater"):
        stratify(pd.DataFrame(PANEL, columns=["a1", "a2", "a3"]), {"a1": PRED["s"]},
                 intervals=Intervals(n_resamples=0))


@pytest.mark.parametrize("option, name", [(Intervals, "confidence_level"), (Paper, "p_d_one"),
                                          (Intervals, "n_resamples"),
                                          (Intervals, "min_bin_size")])
def test_number_arguments_given_as_lists_are_refused_by_name(option, name):
    """One number each: a list is a one-line ValueError naming it (was numpy's TypeError)."""
    with pytest.raises(ValueError, match=rf"^{name} must be a single number, got \["):
        option(**{name: [0.9, 0.95] if name in ("confidence_level", "p_d_one") else [1, 2]})


def test_ordinal_labels_out_of_order_are_refused():
    """Declared ratings out of order: the quadratic-weighted kappa weighs by position,
    so labels=[1, 3, 2, 4, 5] gave 0.62 where the ratings' own order gives 0.77."""
    import numpy as np

    rng = np.random.default_rng(0)
    truth = rng.integers(1, 6, 200)
    panel = np.clip(truth[:, None] + rng.integers(-1, 2, (200, 3)), 1, 5)
    pred = {"j": np.clip(truth + rng.integers(-1, 2, 200), 1, 5)}
    with pytest.raises(ValueError) as info:
        stratify(panel, pred, labels=Labels([1, 3, 2, 4, 5], ordinal=True),
                 intervals=Intervals(n_resamples=0))
    assert str(info.value) == ("labels: ordinal ratings must be declared in order, got "
                               "[1, 3, 2, 4, 5] (quadratic-weighted kappa weighs by position)")
    from labelvar.evaluation._stratified import ExcludedItemsWarning

    with pytest.warns(ExcludedItemsWarning):  # tied items dropped: no tie break by order
        up = stratify(panel, pred, metrics=["qwk"], labels=Labels([1, 2, 3, 4, 5], ordinal=True),
                      truth=Truth(tie_rule="drop"), intervals=Intervals(n_resamples=0)).table
        down = stratify(panel, pred, metrics=["qwk"],
                        labels=Labels([5, 4, 3, 2, 1], ordinal=True),
                        truth=Truth(tie_rule="drop"), intervals=Intervals(n_resamples=0)).table
    assert up.score.tolist() == pytest.approx(down.score.tolist())
