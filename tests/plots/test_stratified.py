"""Figure 2/3/4-style plots of stratified tables: pure functions that draw the table's
numbers; the tests shown as stars are computed by the caller and passed in."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from labelvar import bin_tests, paired_test, plots, stratify
from labelvar.evaluation import Intervals, Paper
from labelvar.evaluation._inference import stars as to_stars
from labelvar.io import TaskData, synthetic_panel
from labelvar.plots._stratified import AGREEMENT

from .conftest import legend_texts


@pytest.fixture(scope="module")
def table():
    tasks = {}
    for k, seed in enumerate((0, 1, 2)):
        df = synthetic_panel(150, seed=seed).set_index("item")
        tasks[f"task{k}"] = (df.filter(like="gt"), df[["strong", "weak", "coin", "human1",
                                                      "human2"]])
    return stratify(tasks, humans=["human1", "human2"], intervals=Intervals(n_resamples=0)).table


def test_stratified_scores_draws_table_values(table, drawn):
    fig = drawn(plots.plot_stratified_scores(table, "accuracy"))
    ax = fig.axes[0]
    assert ax.get_xlabel() == "observed agreement (stratum)" and ax.get_ylabel() == "accuracy"
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    by_gid = {f"system:{c.get_label()}": c for c in ax.containers}  # systems: error bars (CIs)
    sub = table[(table.task == "task0") & (table.metric == "accuracy")]
    weak_rows = sub[(sub.system == "weak") & (sub.stratum != "all")]
    weak = weak_rows.score.to_numpy()
    np.testing.assert_allclose(by_gid["system:weak"].lines[0].get_ydata(), weak)
    segs = by_gid["system:weak"].lines[2][0].get_segments()  # the CI bars: ci_low..ci_high
    np.testing.assert_allclose([sg[:, 1] for sg in segs],
                               weak_rows[["ci_low", "ci_high"]].to_numpy(float))
    e = sub[(sub.system == "weak") & (sub.stratum != "all")].expected.to_numpy()
    np.testing.assert_allclose(lines["E (expected)"].get_ydata(), e)
    np.testing.assert_allclose(lines["random labeller"].get_ydata(), 0.5)
    assert len([a for a in fig.axes if a.get_visible()]) == 3
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert {"E (expected)", "random labeller", "strong", "weak", "coin"} <= set(legend)
    assert "H: mean of 2 humans, bar ± sd across them" in legend
    assert "system bars: confidence interval (ci_low, ci_high)" in legend


def test_stratified_scores_f1_random_baseline(table, drawn):
    fig = drawn(plots.plot_stratified_scores(table, "f1", tasks=["task1"]))
    lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
    m = table[(table.task == "task1") & (table.metric == "f1") & (table.system == "coin")
              & (table.stratum != "all")].m.to_numpy()
    np.testing.assert_allclose(lines["random labeller"].get_ydata(), 2 * m / (2 * m + 1))
    with pytest.raises(ValueError, match="metric 'auc' not in the table"):
        plots.plot_stratified_scores(table, "auc")


def test_legend_in_a_free_panel(table, drawn):
    fig = drawn(plots.plot_stratified_scores(table, "f1", ncols=2))  # 2 x 2 grid, 3 tasks
    assert fig.axes[3].get_visible() and fig.axes[3].get_legend() is not None


def test_bins_ordered_by_agreement_column(table):
    """Bins are ordered by the agreement column, not by the order rows come in."""
    shuffled = table.iloc[::-1]
    ax = plots.plot_stratified_scores(shuffled, "accuracy", include_all=True).axes[0]
    assert [t.get_text().split("\n")[0] for t in ax.get_xticklabels()] == ["0.60", "0.80", "1.00",
                                                                         "all"]
    assert AGREEMENT in table.columns


def test_delta_by_bin_boxes_hold_the_deltas_and_draw_given_tests(table, drawn):
    tests = bin_tests(table, metric="f1", value="delta_human")
    fig = drawn(plots.plot_delta_by_bin(table, "f1", tests=tests))
    ax = fig.axes[0]
    texts = sorted(t.get_text() for t in ax.texts)
    assert ax.get_ylabel() == "Δ = H − system ($F_1$)"
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "0.60\nn = 9", "0.80\nn = 9", "1.00\nn = 9", "all\nn = 9"]
    r = tests.table.iloc[0]
    assert texts == sorted([f"Welch {to_stars(r.welch_p)}", f"Levene {to_stars(r.levene_p)}"])
    pts = {ln.get_gid(): ln for ln in ax.get_lines() if ln.get_gid()}
    sub = table[(table.metric == "f1") & (table.role == "system") & (table.stratum == "0.60")]
    assert len(sub) == 9  # 3 systems x 3 tasks
    np.testing.assert_allclose(np.sort(pts["points:0.60"].get_ydata()),
                               np.sort(sub.delta_human))


def test_delta_by_bin_runs_no_test(table, monkeypatch):
    """Without tests no bracket is drawn, and the figure never calls a test itself."""
    import labelvar.evaluation._inference as st

    def boom(*a, **k):
        raise AssertionError("a plot function ran a statistical test")

    monkeypatch.setattr(st, "bin_tests", boom)
    monkeypatch.setattr(st, "paired_test", boom)
    assert list(plots.plot_delta_by_bin(table, "f1").axes[0].texts) == []
    ax = plots.plot_system_vs_system(table, "strong", "weak", "f1").axes[0]
    assert {t.get_text() for t in ax.texts} == {""}


def test_delta_by_bin_shows_the_p_values_it_is_given(table):
    """Stars come from the given p-values, whatever they are."""
    t = bin_tests(table, metric="f1").table.assign(welch_p=0.5, levene_p=1e-5)
    texts = sorted(x.get_text() for x in plots.plot_delta_by_bin(table, "f1", tests=t).axes[0].texts)
    assert texts == ["Levene ****", "Welch ns"]
    other = t.assign(metric="accuracy")  # tests of another metric are not drawn
    assert list(plots.plot_delta_by_bin(table, "f1", tests=other).axes[0].texts) == []


def test_system_vs_system(table, drawn):
    res = paired_test(table, "strong", "weak", metric="accuracy")
    fig = drawn(plots.plot_system_vs_system(table, "strong", "weak", "accuracy", tests=res))
    ax = fig.axes[0]
    assert ax.get_title() == "strong − weak (accuracy)"
    assert ax.get_ylabel() == "Δ = strong − weak (accuracy)"
    pts = {ln.get_gid(): ln for ln in ax.get_lines() if ln.get_gid()}
    a = table[(table.metric == "accuracy") & (table.stratum == "1.00")]
    d = (a[a.system == "strong"].set_index("task").score
         - a[a.system == "weak"].set_index("task").score)
    np.testing.assert_allclose(np.sort(pts["points:1.00"].get_ydata()), np.sort(d.to_numpy()))
    stars = dict(zip(res.table.stratum, res.table.p.map(to_stars), strict=True))
    assert [t.get_text() for t in ax.texts] == [stars[s] for s in ("0.60", "0.80", "1.00", "all")]
    with pytest.raises(ValueError, match="system 'nope' has no"):
        plots.plot_system_vs_system(table, "strong", "nope", "accuracy")


def test_plots_save(tmp_path, table):
    paths = plots.save(plots.plot_delta_by_bin(table, "accuracy"), tmp_path / "d")
    assert [p.suffix for p in paths] == [".png", ".pdf"] and all(p.stat().st_size for p in paths)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.pdf", "d.png"]  # no temporaries


def test_delta_by_bin_without_systems():
    t = pd.DataFrame({"role": ["H"], "metric": ["f1"], "stratum": ["0.60"], "delta_human": [0]})
    with pytest.raises(ValueError, match="no system rows"):
        plots.plot_delta_by_bin(t, "f1")


def _inside(fig) -> list[str]:
    """Legend entries and title lines drawn (partly) outside the figure (rendered)."""
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    out = []
    texts = [t for lg in fig.legends for t in lg.get_texts()] + [fig._suptitle]
    for t in texts:
        e = t.get_window_extent(renderer)
        if e.x0 < box.x0 - 0.5 or e.x1 > box.x1 + 0.5 or e.y0 < box.y0 - 0.5 \
                or e.y1 > box.y1 + 0.5:
            out.append(t.get_text())
    return out


@pytest.fixture(scope="module")
def snli_like():
    """One task, L = 3, two systems, H', and a small bin of two 4-vote items (0.75)."""
    rng = np.random.default_rng(5)
    n = 120
    truth = rng.integers(0, 3, n)
    panel = np.where(rng.random((n, 5)) < 0.75, truth[:, None], (truth[:, None] + 1) % 3)
    panel = panel.astype(object)
    panel[:2] = [[0, 0, 0, 1, None], [2, 2, 2, 0, None]]
    preds = {s: np.where(rng.random(n) < q, truth, (truth + 2) % 3)
             for s, q in (("roberta", 0.9), ("bert", 0.85))}
    return stratify({"snli": TaskData(panel, preds)}, intervals=Intervals(n_resamples=50),
                    paper=Paper(replicates=3)).table


def test_one_task_scores_figure_keeps_legend_and_title_inside(snli_like, drawn):
    """A single-panel figure (one task, e.g. SNLI) had a 4-column legend and a one-line
    title wider than its 3.6 inches: most entries and the title were cut off."""
    fig = drawn(plots.plot_stratified_scores(snli_like, "f1"))
    assert _inside(fig) == []
    assert {"roberta", "bert"} <= set(legend_texts(fig))
    # macro-F1 (L = 3) has no expected score: the legend does not announce one
    assert "E (expected)" not in set(legend_texts(fig))
    fig = drawn(plots.plot_stratified_scores(snli_like, "accuracy"))
    assert _inside(fig) == []
    assert {"roberta", "bert", "E (expected)"} <= set(legend_texts(fig))


def test_small_bins_are_drawn_open_and_said_to_enter_no_test(snli_like, drawn):
    """Small bins enter no test; the figures used to draw them like any other bin."""
    t = snli_like
    assert t.loc[t.stratum == "0.75", "small_bin"].all()
    fig = drawn(plots.plot_stratified_scores(t, "accuracy"))
    ax = fig.axes[0]
    marks = {ln.get_gid(): ln for ln in ax.get_lines() if str(ln.get_gid()).startswith("small:")}
    assert set(marks) == {"small:roberta", "small:bert", "small:H'-loo"}
    order = [x.get_text().split("\n")[0] for x in ax.get_xticklabels()]
    for name, ln in marks.items():
        row = t[(t.system == name[6:]) & (t.stratum == "0.75") & (t.metric == "accuracy")]
        assert ln.get_ydata().tolist() == pytest.approx(row.score.tolist())
        assert np.round(ln.get_xdata()).tolist() == [order.index("0.75")]
        assert ln.get_markerfacecolor() == "white"
    assert "open marker: small bin (no test)" in legend_texts(fig)
    assert _inside(fig) == []
    fig = drawn(plots.plot_delta_by_bin(t, "accuracy", tests=bin_tests(t, metric="accuracy")))
    pts = {ln.get_gid(): ln for ln in fig.axes[0].get_lines() if ln.get_gid()}
    sub = t[(t.metric == "accuracy") & (t.role == "system") & (t.stratum == "0.75")]
    np.testing.assert_allclose(np.sort(pts["small:0.75"].get_ydata()), np.sort(sub.delta_human))
    assert pts["points:0.75"].get_ydata().size == 0
    assert "open point: small bin (no test)" in legend_texts(fig)
    assert _inside(fig) == []


def test_system_vs_system_says_no_test_where_there_is_none(snli_like, drawn):
    """One task gives one pair per bin: paired_test has no test (NaN p); the figure said
    nothing there, where the delta figure and the README say "no test"."""
    res = paired_test(snli_like, "roberta", "bert", metric="accuracy")
    assert res.table.set_index("stratum").p.drop("pooled").isna().all()  # 1 pair per bin
    fig = drawn(plots.plot_system_vs_system(snli_like, "roberta", "bert", "accuracy",
                                            tests=res))
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts and set(texts) == {"no test"}


def test_delta_figure_says_when_its_tests_assume_too_much(table, drawn):
    """3 systems x 3 tasks per bin: the 9 values are clustered by task, Welch and Levene
    take them as independent (the paper's Figure 3 does the same). bin_tests notes it and
    the figure's legend repeats it under the stars."""
    tests = bin_tests(table, metric="f1")
    assert tests.table.note.iloc[0].startswith("not independent: 9 and 9 values from 3 and 3 "
                                               "tasks")
    fig = drawn(plots.plot_delta_by_bin(table, "f1", tests=tests))
    assert any(t.startswith("the tests take the points as independent")
               for t in legend_texts(fig))
    assert _inside(fig) == []
    one = table[table.system == "strong"]  # one value per task: nothing to say
    assert "not independent" not in bin_tests(one, metric="f1").table.note.iloc[0]


def test_simulated_human_reference_is_the_leave_one_out_one_everywhere(drawn):
    """Issue 31: the score figure drew the self-inclusive H' while the table's delta_human
    and the delta figure used H'-loo, all labelled "H'". The reference is one thing (the
    one delta_human uses) and its label says which."""
    df = synthetic_panel(150, seed=0).set_index("item")
    t = stratify(df.filter(like="gt"), df[["strong"]], intervals=Intervals(n_resamples=0),
                 paper=Paper(replicates=5)).table
    sub = t[(t.metric == "accuracy") & (t.stratum != "all")]
    loo = sub[sub.role == "H'-loo"].score.to_numpy()
    self_incl = sub[sub.role == "H'"].score.to_numpy()
    assert not np.allclose(loo, self_incl)  # the two differ here
    strong = sub[sub.system == "strong"]
    np.testing.assert_allclose(strong.delta_human, loo - strong.score.to_numpy())
    fig = drawn(plots.plot_stratified_scores(t, "accuracy"))
    ax = fig.axes[0]
    (ref,) = [c for c in ax.containers if c.get_label().startswith("H′")]
    np.testing.assert_allclose(ref.lines[0].get_ydata(), loo)
    assert ref.get_label().startswith("H′ (leave-one-out): simulated human")
    texts = legend_texts(fig)
    assert "vertical line: Δ = H′ (leave-one-out) − system" in texts
    delta = drawn(plots.plot_delta_by_bin(t, "accuracy"))
    assert delta.axes[0].get_ylabel().startswith("Δ = H′ (leave-one-out) − system")
    # the self-inclusive H' alone (Paper(leave_one_out=False)) is named as such
    t2 = stratify(df.filter(like="gt"), df[["strong"]], intervals=Intervals(n_resamples=0),
                  paper=Paper(replicates=5, leave_one_out=False)).table
    fig2 = drawn(plots.plot_stratified_scores(t2, "accuracy"))
    assert any(c.get_label().startswith("H′ (self-incl.)") for c in fig2.axes[0].containers)


def test_single_task_score_figure_gives_its_axes_the_room(drawn):
    """Issue 31: one task's score figure squeezed its axes into a third of its height (the
    legend, title and S/m ticks took the rest); the figure now grows for them."""
    df = synthetic_panel(150, seed=0).set_index("item")
    t = stratify(df.filter(like="gt"), df[["strong", "weak", "human1"]], humans=["human1"],
                 intervals=Intervals(n_resamples=0)).table
    fig = drawn(plots.plot_stratified_scores(t, "accuracy"))
    box = fig.axes[0].get_position()
    assert box.height >= 0.45 and box.height * fig.get_figheight() >= 2.0
