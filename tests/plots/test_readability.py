"""Figure readability: each known complaint checked on a rendered figure (Agg canvas)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.colors import to_rgb

import labelvar
from labelvar import bin_tests, plots, stratify
from labelvar.design._scenario import Scenario
from labelvar.evaluation._stratified import Intervals
from labelvar.io import synthetic_panel
from labelvar.plots._style import series_colors
from labelvar.plots._sweeps import prior_text

from .conftest import legend_texts, overlapping_ticks


@pytest.fixture(scope="module")
def eight():
    """Two tasks, 8 systems, 3 humans, interval bins."""
    tasks = {}
    for k in range(2):
        df = synthetic_panel(120, n_panel=6, seed=k).set_index("item")
        rng = np.random.default_rng(k)
        preds = df[["strong", "weak", "coin", "human1", "human2"]].copy()
        preds["human3"] = df["gt6"]
        for j in range(5):
            preds[f"s{j}"] = np.where(rng.random(len(df)) < 0.05 * (j + 1), 1 - df["strong"],
                                      df["strong"])
        tasks[f"t{k}"] = (df[[f"gt{i}" for i in range(1, 6)]], preds)
    return stratify(tasks, humans=["human1", "human2", "human3"], bins=[0.5, 0.7, 0.9, 1.0],
                    intervals=Intervals(n_resamples=0)).table


def test_palette_is_distinct_for_eight_series():
    cols = np.array([to_rgb(c) for c in series_colors(8)])
    dist = np.sqrt(((cols[:, None] - cols[None]) ** 2).sum(-1))
    assert dist[np.triu_indices(8, 1)].min() > 0.2  # no two near-identical colors


def test_stratified_scores_eight_systems(eight, drawn):
    fig = drawn(plots.plot_stratified_scores(eight, "accuracy", ncols=2))
    ax = fig.axes[0]
    systems = {c.get_label(): c for c in ax.containers if not c.get_label().startswith("H")}
    assert len(systems) == 8
    colors = {c.lines[0].get_color() for c in systems.values()}
    markers = {c.lines[0].get_marker() for c in systems.values()}
    assert len(colors) == 8 and len(markers) == 8
    assert all(c.has_yerr for c in systems.values())  # the table's CIs are drawn
    legend = legend_texts(fig)
    assert "H: mean of 3 humans, bar ± sd across them" in legend
    assert "system bars: confidence interval (ci_low, ci_high)" in legend
    assert not overlapping_ticks(ax)  # interval bins are rotated


def test_delta_figure_labels_counts_and_star_legend(eight, drawn):
    tests = bin_tests(eight, metric="f1")
    fig = drawn(plots.plot_delta_by_bin(eight, "f1", tests=tests))
    ax = fig.axes[0]
    assert ax.get_ylabel() == "Δ = H − system ($F_1$)"
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks[0].startswith("[0.50, 0.70)") and all("\nn = " in t for t in ticks)
    legend = legend_texts(fig)
    assert {"mean", "median", "Welch's t-test: same mean?", "Levene's test: same spread?"} \
        <= set(legend)
    assert any(t.startswith("stars: * p ≤ 0.05") for t in legend)
    e = drawn(plots.plot_delta_by_bin(eight, "f1", value="delta_expected"))
    assert e.axes[0].get_ylabel() == "Δ = E − system ($F_1$)"


def test_power_figure_states_its_scenario_and_separates_k(drawn):
    sc = Scenario("two_systems", theta="beta:8,2", n_labels=3, accuracy_b=0.85, delta=0.05,
                    error_correlation=0.3, min_agreement=0.8, cost_per_annotation=0.5)
    res = labelvar.plan_study(sc, panel_sizes=[3, 5, 7, 9], replicates=0)
    fig = drawn(plots.plot_power_curves(res.curves, res.evaluated, res.table,
                                        scenario=res.scenario))
    title = fig.get_suptitle()
    assert title.startswith("Two systems: detect an accuracy gain of 0.05")
    assert "exact McNemar" in title and "Beta(8, 2) on [1/3, 1]" in title
    lines = {ln.get_label(): ln for ln in fig.axes[0].lines if ln.get_label().startswith("K =")}
    assert len({ln.get_linestyle() for ln in lines.values()}) == 4
    assert len({ln.get_marker() for ln in lines.values()}) == 4
    assert "target power 0.8" in legend_texts(fig)


@pytest.mark.parametrize("value, text", [
    ("beta(a=2.0,b=1.0,lo=None,hi=1.0)", "Beta(2, 1) on [1/2, 1]"),
    ("fixed(value=0.8)", "theta = 0.8"),
    ("beta:4,1", "Beta(4, 1) on [1/2, 1]"),
    ("dirichlet(concentration=(2.0, 1.0, 0.5))", "Dirichlet(2, 1, 0.5)"),
])
def test_prior_text(value, text):
    assert prior_text(value, 2) == text
