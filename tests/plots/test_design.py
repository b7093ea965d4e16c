"""The planner's power-curve figure: one curve per K, the recommended plan starred."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import labelvar
from labelvar import plots
from labelvar.design._scenario import Scenario


def test_power_figure_has_one_curve_per_k_and_the_star(drawn):
    res = labelvar.plan_study(Scenario("separability", theta="beta:2,2"), panel_sizes=[1, 3, 5],
                       replicates=100)
    fig = drawn(plots.plot_power_curves(res.curves, res.evaluated, res.table, target=0.8))
    ax_n, ax_cost = fig.axes
    assert ax_n.get_ylabel() == "power" and ax_n.get_xlabel().startswith("items N")
    labels = [ln.get_label() for ln in ax_n.lines if not ln.get_label().startswith("_")]
    assert labels[:3] == ["K = 1", "K = 3", "K = 5"]
    assert any(lbl.startswith("recommended: K = ") for lbl in labels)
    assert ax_n.get_xscale() == "log" and ax_cost.get_xlabel().startswith("total cost")
    k3 = res.curves[res.curves.panel_size == 3].sort_values("n_items")
    line = next(ln for ln in ax_n.lines if ln.get_label() == "K = 3")
    np.testing.assert_allclose(line.get_ydata(), k3.power_analytic)  # the table's numbers


def test_power_figure_without_cost(drawn):
    c = pd.DataFrame({"panel_size": [1, 1, 3, 3], "n_items": [10, 100, 10, 100],
                      "power_analytic": [0.2, 0.9, 0.3, 0.95]})
    fig = drawn(plots.plot_power_curves(c, target=0.8))
    assert len(fig.axes) == 1


def test_sawtooth_figure_marks_both_crossings(drawn):
    from labelvar.design import _power as P
    from labelvar.plots._design import plot_power_sawtooth

    sc = Scenario("separability", theta=0.7)
    row = labelvar.plan_study(sc, panel_sizes=[1], replicates=0).table.iloc[0]
    n = np.arange(200, 301)
    pw = P.exact_power(sc, P.cell_probabilities(sc, 1), n)
    curve = pd.DataFrame({"n_items": n[::-1], "power_analytic": pw[::-1]})  # any row order
    fig = drawn(plot_power_sawtooth(curve, target=0.8, n_first=int(row["n_items_first"]),
                                    n_stable=int(row["n_items_stable"])))
    labels = [ln.get_label() for ln in fig.axes[0].lines]
    assert "first crossing N = 245" in labels and "stable from N = 258" in labels
    hollow = next(ln for ln in fig.axes[0].lines if ln.get_label() == "power < 0.8")
    assert 246 in hollow.get_xdata() and 245 not in hollow.get_xdata()
    line = next(ln for ln in fig.axes[0].lines if ln.get_label() == "exact power")
    np.testing.assert_array_equal(line.get_xdata(), n)  # the table's numbers, in N order
    np.testing.assert_allclose(line.get_ydata(), pw)
    two = pd.concat([curve.assign(panel_size=1), curve.assign(panel_size=3)])
    with pytest.raises(ValueError, match="one panel size per sawtooth, got K = 1, 3"):
        plot_power_sawtooth(two, target=0.8)
    with pytest.raises(ValueError, match="curves: a table with columns n_items"):
        plot_power_sawtooth(curve.drop(columns="power_analytic"), target=0.8)


def test_titles_from_text_equal_titles_from_the_scenario():
    """Figures take text: title/subtitle from Scenario.describe() draw the same suptitle."""
    from labelvar.plots._design import plot_power_sawtooth

    sc = Scenario("two_systems", theta="beta:8,2", n_labels=3, accuracy_b=0.85, delta=0.05,
                  error_correlation=0.3, min_agreement=0.8)
    head, sub = sc.describe().split("\n")
    assert head.startswith("Two systems: detect an accuracy gain of 0.05")
    assert sub.split("; ")[0] == "exact McNemar, α = 0.05, target power 0.8"
    curves = pd.DataFrame({"panel_size": [1, 1], "n_items": [10, 100], "power_analytic": [0.2, 0.9]})
    by_text = plots.plot_power_curves(curves, target=sc.power, title=head, subtitle=sub).get_suptitle()
    by_scenario = plots.plot_power_curves(curves, scenario=sc).get_suptitle()
    assert by_text == by_scenario and by_text.splitlines()[0] == head
    c = pd.DataFrame({"n_items": [10, 11], "power_analytic": [0.81, 0.79]})
    saw = plot_power_sawtooth(c, target=0.8, subtitle=sub).get_suptitle()
    assert saw == plot_power_sawtooth(c, target=0.8, scenario=sc).get_suptitle()
