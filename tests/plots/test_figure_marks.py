"""What the stratified and item-model figures mark: the numbers they draw are the table's,
and their labels do not collide (text boxes compared on the rendered Agg canvas)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from labelvar import bin_tests, paired_test, plots, stratify
from labelvar.evaluation import Intervals
from labelvar.io import synthetic_panel
from labelvar.plots._style import FONT

from .conftest import legend_texts


@pytest.fixture(scope="module")
def table():
    tasks = {}
    for k in range(3):
        df = synthetic_panel(150, seed=k).set_index("item")
        tasks[f"task{k}"] = (df.filter(like="gt"), df[["strong", "weak", "coin", "human1",
                                                      "human2"]])
    return stratify(tasks, humans=["human1", "human2"], intervals=Intervals(n_resamples=0)).table


def _render(fig):
    FigureCanvasAgg(fig)
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def test_scores_ticks_give_each_bins_S_and_m(table):
    fig = plots.plot_stratified_scores(table, "f1")
    _render(fig)
    for ax, task in zip(fig.axes, ["task0", "task1", "task2"], strict=False):
        rows = table[(table.task == task) & (table.metric == "f1") & (table.role == "H")
                     & (table.stratum != "all")].sort_values("agreement")
        texts = [t.get_text().split("\n") for t in ax.get_xticklabels()]
        assert [t[0] for t in texts] == rows.stratum.tolist()
        assert [int(t[1].removeprefix("S = ")) for t in texts] == rows.S.astype(int).tolist()
        np.testing.assert_allclose([float(t[2].removeprefix("m = ")) for t in texts],
                                   rows.m.to_numpy(float), atol=5e-4)
    assert "under each bin: S items, m positive share" in legend_texts(fig)


def test_scores_connectors_span_H_to_each_system(table):
    fig = plots.plot_stratified_scores(table, "f1", tasks=["task1"])
    ax = fig.axes[0]
    sub = table[(table.task == "task1") & (table.metric == "f1") & (table.stratum != "all")]
    h = sub[sub.role == "H"].sort_values("agreement")
    for system in ("strong", "weak", "coin"):
        (coll,) = [c for c in ax.collections if c.get_gid() == f"connector:{system}"]
        s = sub[sub.system == system].set_index("stratum").loc[h.stratum]
        segs = np.array([seg[:, 1] for seg in coll.get_segments()])
        np.testing.assert_allclose(segs[:, 0], h.score.to_numpy(float))
        np.testing.assert_allclose(segs[:, 1], s.score.to_numpy(float))
        # the line's length is the table's delta_human = H - system
        np.testing.assert_allclose(segs[:, 0] - segs[:, 1], s.delta_human.to_numpy(float))
    assert "vertical line: Δ = H − system" in legend_texts(fig)
    off = plots.plot_stratified_scores(table, "f1", tasks=["task1"], connectors=False)
    assert not [c for c in off.axes[0].collections if str(c.get_gid()).startswith("connector")]


@pytest.mark.parametrize("value", ["delta_human", "score"])
def test_delta_brackets_and_labels_do_not_touch(table, value):
    tests = bin_tests(table, metric="f1", value=value)
    fig = plots.plot_delta_by_bin(table, "f1", value=value, tests=tests)
    renderer = _render(fig)
    ax = fig.axes[0]
    art = {a.get_gid(): a.get_window_extent(renderer) for a in ax.lines + ax.texts
           if str(a.get_gid()).startswith(("bracket:", "label:"))}
    assert set(art) == {"bracket:welch", "label:welch", "bracket:levene", "label:levene"}
    assert not art["label:welch"].overlaps(art["bracket:levene"])
    assert not art["label:welch"].overlaps(art["label:levene"])
    assert art["label:welch"].y1 < art["bracket:levene"].y0  # the label sits below
    box = ax.get_window_extent(renderer)
    assert all(box.y0 <= b.y0 and b.y1 <= box.y1 for b in art.values())  # inside the axes
    data = np.concatenate([ln.get_ydata() for ln in ax.lines
                           if str(ln.get_gid()).startswith("points:")])
    assert ax.get_ylim()[0] <= data.min() and data.max() < ax.get_ylim()[1]
    shown = [t for t in ax.get_yticks() if ax.get_ylim()[0] <= t <= ax.get_ylim()[1]]
    assert max(shown) <= data.max() + 1e-9  # no value ticks beside the brackets


def test_paired_figure_long_names_keep_the_y_label_off_the_titles(table):
    long_a, long_b = "a-very-long-system-name-v2", "another-long-baseline-name"
    t = table.replace({"system": {"strong": long_a, "weak": long_b}})
    fig = plots.plot_system_vs_system(t, long_a, long_b, "f1",
                                      tests=paired_test(t, long_a, long_b, metric="f1"))
    renderer = _render(fig)
    ax = fig.axes[0]
    ylabel = ax.yaxis.label.get_window_extent(renderer)
    for other in (ax.title, fig._suptitle):
        assert not ylabel.overlaps(other.get_window_extent(renderer))
    assert ylabel.y1 <= ax.get_window_extent(renderer).y1 + 1  # no taller than the axes
    assert long_a in ax.get_title() and long_b in ax.get_title()
    # short names stay in the label
    short = plots.plot_system_vs_system(table, "strong", "weak", "f1")
    assert short.axes[0].get_ylabel() == "Δ = strong − weak ($F_1$)"


def _validation_table():
    rows = []
    for data, k, models in (("SNLI", 3, ("E = p_d", "Dirichlet", "mixture")),
                            ("SNLI", 5, ("E = p_d", "Dirichlet", "mixture")),
                            ("MNLI", 3, ("E = p_d", "Dirichlet", "mixture")),
                            ("MNLI", 5, ("E = p_d", "Dirichlet", "mixture"))):
        agreement = np.arange(1, k + 1) / k
        held = 0.3 + 0.5 * agreement
        for j, model in enumerate(models):
            pred = agreement if model == "E = p_d" else held + 0.02 * j * (k - 2)
            err = float(np.mean(np.abs(pred - held)))
            rows += [dict(data=data, K=k, model=model, bin=f"{a:.2f}", agreement=a,
                          predicted=p, held_out=h, error=p - h)
                     for a, p, h in zip(agreement, pred, held, strict=True)]
            rows.append(dict(data=data, K=k, model=model, bin="weighted", agreement=np.nan,
                             predicted=np.nan, held_out=np.nan, error=err))
    t = pd.DataFrame(rows)
    best = t[(t.model == "mixture")].assign(model="AIC-selected: mixture")
    return pd.concat([t, best], ignore_index=True)


def test_item_models_one_legend_house_style_and_the_tables_points(drawn):
    t = _validation_table()
    fig = drawn(plots.plot_item_models(t))
    assert len(fig.legends) == 1 and not [ax for ax in fig.axes if ax.get_legend()]
    assert legend_texts(fig) == ["held-out votes (share agreeing)", "E = p_d", "Dirichlet",
                                 "mixture"]  # AIC-selected repeats a model: not drawn twice
    assert fig.legends[0].get_texts()[0].get_fontsize() == FONT["legend"]
    axes = np.array(fig.axes).reshape(2, 2)
    assert [ax.get_title() for ax in axes.ravel()] == ["SNLI, K = 3", "SNLI, K = 5",
                                                      "MNLI, K = 3", "MNLI, K = 5"]
    ax = axes[0, 1]  # SNLI, K = 5
    assert ax.xaxis.label.get_size() == FONT["label"] and not ax.spines["top"].get_visible()
    sub = t[(t.data == "SNLI") & (t.K == 5) & (t.bin != "weighted")]
    lines = {ln.get_gid(): ln for ln in ax.get_lines()}
    for model in ("E = p_d", "Dirichlet", "mixture"):
        g = sub[sub.model == model].sort_values("agreement")
        np.testing.assert_allclose(lines[f"model:{model}"].get_ydata(), g.predicted)
    np.testing.assert_allclose(lines["held_out"].get_ydata(),
                               sub[sub.model == "E = p_d"].sort_values("agreement").held_out)
    (note,) = [x for x in ax.texts if x.get_gid() == "errors"]
    w = t[(t.data == "SNLI") & (t.K == 5) & (t.bin == "weighted")].set_index("model").error
    assert note.get_text() == (f"least error: Dirichlet\n|error| {w['Dirichlet']:.3f} "
                               f"(E = p_d: {w['E = p_d']:.3f})")
    with pytest.raises(ValueError, match="table: missing column"):
        plots.plot_item_models(t.drop(columns="held_out"))


def test_figure1_shared_closed_form_covers_every_colors_grid():
    """Each L from p_d = 1/L: the black closed form spans the union of the grids."""
    rows = []
    for n_labels in (2, 4):
        for p in [1 / n_labels] + [v for v in (0.4, 0.6, 1.0) if v > 1 / n_labels]:
            for lab, exp in (("expert", p), ("random", 1 / n_labels)):
                rows.append(dict(p_d=p, n_labels=n_labels, labeller=lab, metric="accuracy",
                                 mean=exp, expected=exp, m=0.5, n_items=100, stratum="all"))
    fig = plots.plot_figure1(pd.DataFrame(rows), color_by="n_labels", metrics=("accuracy",))
    (line,) = [ln for ln in fig.axes[0].get_lines() if ln.get_gid() == "closed form:expert"]
    np.testing.assert_allclose(line.get_xdata(), [0.25, 0.4, 0.5, 0.6, 1.0])
    np.testing.assert_allclose(line.get_ydata(), [0.25, 0.4, 0.5, 0.6, 1.0])


def test_figure1_does_not_draw_an_expert_below_one_over_L():
    """A grid shared by several L (the multiclass sweep preset): the expert only from 1/L."""
    grid = (0.2, 0.3, 0.5, 0.8, 1.0)
    rows = [dict(p_d=p, n_labels=n_labels, labeller=lab, metric="accuracy", stratum="all",
                 mean=p if lab == "expert" else 1 / n_labels, m=0.5, n_items=100,
                 expected=p if lab == "expert" else 1 / n_labels)
            for n_labels in (2, 4) for p in grid for lab in ("expert", "random")]
    fig = plots.plot_figure1(pd.DataFrame(rows), color_by="n_labels", metrics=("accuracy",))
    ax = fig.axes[0]
    xs = sorted(set(np.round(np.concatenate([ln.get_xdata() for ln in ax.get_lines()
                                             if ln.get_linestyle() == "-"]), 6)))
    assert xs == [0.3, 0.5, 0.8, 1.0]  # expert (solid): 0.2 < 1/4 is drawn for no L
    (closed,) = [ln for ln in ax.get_lines() if ln.get_gid() == "closed form:expert"]
    assert min(closed.get_xdata()) == 0.3
    random_x = {float(v) for ln in ax.get_lines() if ln.get_linestyle() == ":"
                for v in ln.get_xdata()}
    assert 0.2 in random_x  # the random labeller is drawn everywhere
    assert ("expert drawn from $p_d$ = 1/$L$ (below it no label is the majority)"
            in legend_texts(fig))
