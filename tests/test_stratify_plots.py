"""Figure 2/3/4-style plots of stratified tables: pure functions, data drawn is the table's."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from labelvar import plots
from labelvar.io import synthetic_panel
from labelvar.stratified import stratify


@pytest.fixture(scope="module")
def table():
    tasks = {}
    for k, seed in enumerate((0, 1, 2)):
        df = synthetic_panel(150, seed=seed).set_index("item")
        tasks[f"task{k}"] = (df.filter(like="gt"), df[["strong", "weak", "coin", "human1",
                                                      "human2"]])
    return stratify(tasks, humans=["human1", "human2"], n_boot=0).table


def test_stratified_scores_draws_table_values(table):
    fig = plots.stratified_scores(table, "accuracy")
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    sub = table[(table.task == "task0") & (table.metric == "accuracy")]
    weak = sub[(sub.system == "weak") & (sub.stratum != "all")].score.to_numpy()
    np.testing.assert_allclose(lines["weak"].get_ydata(), weak)
    e = sub[(sub.system == "weak") & (sub.stratum != "all")].expected.to_numpy()
    np.testing.assert_allclose(lines["E (expected)"].get_ydata(), e)
    np.testing.assert_allclose(lines["random labeller"].get_ydata(), 0.5)
    assert len([a for a in fig.axes if a.get_visible()]) == 3


def test_stratified_scores_f1_random_baseline(table):
    fig = plots.stratified_scores(table, "f1", tasks=["task1"])
    lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
    m = table[(table.task == "task1") & (table.metric == "f1") & (table.system == "coin")
              & (table.stratum != "all")].m.to_numpy()
    np.testing.assert_allclose(lines["random labeller"].get_ydata(), 2 * m / (2 * m + 1))
    with pytest.raises(ValueError, match="metric 'auc' not in the table"):
        plots.stratified_scores(table, "auc")


def test_delta_by_bin_boxes_hold_the_deltas(table):
    fig = plots.delta_by_bin(table, "f1")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.60", "0.80", "1.00", "all"]
    texts = [t.get_text() for t in ax.texts]
    assert any(t.startswith("Welch ") for t in texts) and any(t.startswith("Levene ") for t in texts)
    pts = {ln.get_gid(): ln for ln in ax.get_lines() if ln.get_gid()}
    sub = table[(table.metric == "f1") & (table.role == "system") & (table.stratum == "0.60")]
    assert len(sub) == 9  # 3 systems x 3 tasks
    np.testing.assert_allclose(np.sort(pts["points:0.60"].get_ydata()),
                               np.sort(sub.delta_human))


def test_system_vs_system(table):
    fig = plots.system_vs_system(table, "strong", "weak", "accuracy")
    ax = fig.axes[0]
    assert ax.get_title() == "strong − weak (accuracy)"
    pts = {ln.get_gid(): ln for ln in ax.get_lines() if ln.get_gid()}
    a = table[(table.metric == "accuracy") & (table.stratum == "1.00")]
    d = (a[a.system == "strong"].set_index("task").score
         - a[a.system == "weak"].set_index("task").score)
    np.testing.assert_allclose(np.sort(pts["points:1.00"].get_ydata()), np.sort(d.to_numpy()))


def test_plots_save(tmp_path, table):
    paths = plots.save(plots.delta_by_bin(table, "accuracy"), tmp_path / "d")
    assert [p.suffix for p in paths] == [".png", ".pdf"] and all(p.stat().st_size for p in paths)


def test_delta_by_bin_without_systems():
    t = pd.DataFrame({"role": ["H"], "metric": ["f1"], "stratum": ["0.60"], "delta_human": [0]})
    with pytest.raises(ValueError, match="no system rows"):
        plots.delta_by_bin(t, "f1")
