"""Result objects show themselves: short reprs, notebook HTML, describe() as text."""

from __future__ import annotations

import dataclasses
import html
import inspect
import re

import numpy as np
import pandas as pd
import pytest
from conftest import shared_data

import labelvar
from labelvar.design._scenario import Scenario as _Scenario
from labelvar.evaluation._stratified import Intervals
from labelvar.io import synthetic_panel


@pytest.fixture(scope="module")
def synthetic():
    df = synthetic_panel(300, seed=0).set_index("item")
    return df.filter(like="gt"), df[["strong", "weak", "coin", "human1", "human2"]]


@pytest.fixture(scope="module")
def stratified(synthetic):
    panel, preds = synthetic
    return labelvar.stratify(panel, preds, humans=["human1", "human2"], seed=0,
                             intervals=Intervals(n_resamples=0))


def _cells(page: str) -> list[str]:
    return [html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", page)]


def test_every_public_result_with_a_table_has_a_notebook_view():
    """Each exported dataclass/NamedTuple holding a DataFrame defines _repr_html_ and a repr of its own."""
    import importlib

    checked = []
    faces = ("analytic", "design", "engine", "evaluation", "io", "metrics", "sweep", "votes")
    names = [*labelvar.__all__, *(f"{m}.{n}" for m in faces
                                  for n in importlib.import_module(f"labelvar.{m}").__all__)]
    for name in names:
        module, _, short = name.rpartition(".")
        obj = getattr(importlib.import_module(f"labelvar.{module}" if module else "labelvar"), short)
        if not inspect.isclass(obj):
            continue
        hints = {f.name: f.type for f in dataclasses.fields(obj)} if dataclasses.is_dataclass(obj) \
            else getattr(obj, "__annotations__", {}) if hasattr(obj, "_fields") else {}
        if any("DataFrame" in str(t) for t in hints.values()):
            checked.append(name)
            assert hasattr(obj, "_repr_html_"), name
            assert "__create_fn__" not in getattr(obj.__repr__, "__qualname__", ""), name
    assert {"StratifiedResult", "SimulationResult", "DesignResult", "Ceilings", "BinTestResult",
            "PairedTestResult", "CrossReplication", "design.PanelChoice", "PilotFit",
            "io.TaskData"} <= set(checked)


def test_task_data_repr_gives_sizes_and_roles_not_frames(synthetic):
    panel, preds = synthetic
    task = labelvar.io.TaskData(panel, preds, humans=("human1", "human2"))
    assert repr(task) == ("TaskData(items=300, panel=5 raters ['gt1', 'gt2', 'gt3', 'gt4', 'gt5'], "
                          "systems=['strong', 'weak', 'coin'], humans=['human1', 'human2'])")
    counts = labelvar.io.TaskData(pd.DataFrame({"a": [2, 0], "b": [1, 3]}), pd.DataFrame(index=[0, 1]),
                                  counts=True, labels=("a", "b"))
    assert repr(counts) == ("TaskData(items=2, panel=2 labels (vote counts) ['a', 'b'], systems=[], "
                            "humans=[], labels=['a', 'b'])")
    page = task._repr_html_()
    assert "<th>gt1</th>" in page and "<th>strong</th>" in page and "300 rows" in page
    # the first panel row as read
    first = [str(v) for v in panel.iloc[0]]
    cells = _cells(page)
    i = cells.index(str(panel.index[0]))
    assert cells[i + 1:i + 6] == first


def test_chexpert_tasks_repr_is_short():
    d = shared_data("chexpert_test")
    panel, humans = ["bc1", "bc2", "bc3", "bc5", "bc7"], ["bc4", "bc6", "bc8"]
    files = {n: d / "radiologists" / "groundtruth" / f"{n}_gt.csv" for n in panel}
    files.update({n: d / "radiologists" / "benchmark_radiologists" / f"{n}.csv" for n in humans})
    data = labelvar.io.read_rater_files(files, panel=panel, systems=humans, item="Study")
    assert len(data) == 14 and len(repr(data)) < 2_500  # was 25,807 characters
    assert repr(data["Cardiomegaly"]).startswith("TaskData(items=500, panel=5 raters ['bc1'")


def test_stratified_result_shows_the_paper_table_and_describes_itself_as_text(stratified):
    r = stratified
    text = r.describe()
    assert isinstance(text, str) and text.startswith("task: 300 items, 5 raters, 5 votes per item")
    assert repr(r) == ("StratifiedResult(tasks=['task'], systems=['strong', 'weak', 'coin'], "
                       "metrics=['accuracy', 'f1'], rows=48, seed=0)")
    page = r._repr_html_()
    assert html.escape(text) in page
    for system in r.systems:
        assert f"paper_table(&#x27;{system}&#x27;)" in page
    # the coin's accuracy in the unanimous bin, as the tidy table has it (3 decimals)
    t = r.table
    coin = t[(t.system == "coin") & (t.stratum == "1.00") & (t.metric == "accuracy")].score.item()
    assert f"{coin:.3f}" in _cells(page)


def test_short_reprs_and_html_of_the_other_results(stratified):
    from labelvar import Coin, simulate

    sim = simulate(Coin(p_d=0.8), n_items=50, replicates=20, seed=3, expected=False)
    page = sim._repr_html_()
    assert "summary" in page and "8 rows" in page and f"{sim.summary['mean'].iloc[0]:.4f}" in _cells(page)

    bt = labelvar.bin_tests(stratified, metric="accuracy")
    assert repr(bt) == (f"BinTestResult(metric='accuracy', value='delta_human', stratum_a='0.60', "
                        f"stratum_b='1.00', welch_p={bt.welch_p:.4g}, levene_p={bt.levene_p:.4g})")

    ceil = labelvar.panel_ceilings(labelvar.votes.coin_model(0.8), raters=5, n_items=50)
    assert repr(ceil) == ("Ceilings(ceilings=['exchangeable', 'oracle', 'rater'], K=[5], "
                          "strata=['0.60', '0.80', '1.00', 'all'], table=DataFrame(12 rows x 17 columns))")
    assert "<th>expected</th>" in ceil._repr_html_()

    res = labelvar.plan_study(_Scenario("separability", theta=0.8), replicates=0)
    rec = res.recommended
    assert repr(res) == (f"DesignResult(question='separability', panel_size={int(rec.panel_size)}, "
                         f"n_items={int(rec.n_items)}, table=DataFrame({len(res.table)} rows x "
                         f"{res.table.shape[1]} columns), found=True, seed=0)")
    page = res._repr_html_()
    assert html.escape(res.describe()) in page and "Separability" in page

    rng = np.random.default_rng(0)
    truth = rng.integers(0, 2, 200)
    votes = pd.DataFrame([(i, f"r{j}", int(truth[i] if rng.random() < 0.8 else 1 - truth[i]))
                          for i in range(200) for j in range(4)], columns=["item", "rater", "label"])
    fit = labelvar.fit_raters(votes, model="dawid_skene", n_resamples=0)
    assert repr(fit).startswith("RaterFit(kind='dawid_skene', raters=('r0', 'r1', 'r2', 'r3'), "
                                "labels=(0, 1), items=200, ")
    assert len(repr(fit)) < 250 and len(repr(fit.model)) < 120
    cells = _cells(fit._repr_html_())
    assert f"{fit.skills.accuracy.iloc[0]:.4f}" in cells


def test_shared_helpers():
    from labelvar._base._format import brief, count, short_repr

    assert [count(n, "chunk") for n in (0, 1, 2)] == ["0 chunks", "1 chunk", "2 chunks"]
    assert brief(np.zeros((3, 4))) == "array(shape (3, 4))" and brief(np.array([0.5, 1.0])) == "[0.5, 1]"
    assert brief(pd.Series(range(3))) == "Series(3 rows)"
    assert brief(tuple("abcdefgh")) == "('a', 'b', 'c', ... (8))"
    assert short_repr("X", {"d": {i: i for i in range(9)}}) == "X(d=dict(9 entries))"


def test_scenario_and_priors_describe_as_text():
    sc = _Scenario("two_systems", theta="beta:8,2", n_labels=3, accuracy_b=0.85, delta=0.05)
    head, sub = sc.describe().split("\n")
    assert head.startswith("Two systems: detect an accuracy gain of 0.05")
    assert sub.startswith("exact McNemar, α = 0.05, target power 0.8")
    assert labelvar.BetaPrior(2, 1).describe() == "Beta(2, 1) on [1/L, 1]"
