"""Sweep figures: they draw exactly the table's numbers, label axes, refuse ambiguous tables."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom

import labelvar
from labelvar import plots

COLS = ["p_d", "m", "n_items", "n_labels", "panel_size", "mode", "labeller", "stratum", "metric",
        "threshold", "mean", "sd", "se", "q05", "q50", "q95", "expected", "z", "replicates", "seed"]


def coin_table(p_ds=(0.5, 0.7, 0.9, 1.0), ms=(0.1, 0.5), n=200, thresholds=(), ns=None):
    """A table in the engine's schema with closed-form values and a made-up spread."""
    rows = []
    for p, m, nn, lab in itertools.product(p_ds, ms, ns or (n,), ("expert", "random")):
        q = p if lab == "expert" else 0.5
        vals = {"accuracy": q, "f1": float(labelvar.expected_f1(q, m))}
        for metric, v in vals.items():
            sd = 0.01 + 0.02 * (1 - q)
            rows.append(dict(p_d=p, m=m, n_items=nn, n_labels=2, panel_size=5, mode="coin",
                             labeller=lab, stratum="all", metric=metric, threshold=np.nan,
                             mean=v + 0.001, sd=sd, se=sd / 100, q05=v - 1.6 * sd, q50=v,
                             q95=v + 1.6 * sd, expected=v, z=1.0, replicates=10_000, seed=0))
        for a in thresholds:
            e = float(binom.sf(np.ceil(a * nn) - 1, nn, q))
            rows.append(dict(p_d=p, m=m, n_items=nn, n_labels=2, panel_size=5, mode="coin",
                             labeller=lab, stratum="all", metric="prob_accuracy_ge", threshold=a,
                             mean=e, sd=0.0, se=0.002, q05=0.0, q50=0.0, q95=1.0, expected=e,
                             z=0.0, replicates=10_000, seed=0))
    return pd.DataFrame(rows, columns=COLS)


def lines_with(ax, x, y):
    return [ln for ln in ax.get_lines()
            if len(ln.get_xdata()) == len(x) and np.allclose(ln.get_xdata(), x)
            and np.allclose(ln.get_ydata(), y)]


def test_figure1_draws_the_table(tmp_path, drawn):
    t = coin_table()
    fig = drawn(plots.plot_figure1(t))
    acc_ax, f1_ax = fig.axes[:2]
    assert acc_ax.get_ylabel() == "accuracy" and f1_ax.get_ylabel() == "$F_1$"
    assert "p_d" in acc_ax.get_xlabel()
    for (_m, lab), s in t[t["metric"] == "f1"].groupby(["m", "labeller"]):
        s = s.sort_values("p_d")
        mean = lines_with(f1_ax, s["p_d"], s["mean"])
        closed = lines_with(f1_ax, s["p_d"], s["expected"])
        assert len(mean) == 1 and len(closed) == 1
        assert closed[0].get_linestyle() == "--"
        assert mean[0].get_linestyle() == ("-" if lab == "expert" else ":")
        assert mean[0].get_color() == closed[0].get_color()  # one color per m
    # F1: one 5-95 % band per (m, labeller); accuracy has the same closed form for every m,
    # so one grey envelope band per labeller and the closed form drawn once, black, on top
    assert len(f1_ax.collections) == 4
    assert len(acc_ax.collections) == 2
    for lab in ("expert", "random"):
        acc = t[(t.metric == "accuracy") & (t.labeller == lab) & (t.m == 0.1)].sort_values("p_d")
        closed = lines_with(acc_ax, acc["p_d"], acc["expected"])
        assert [ln.get_gid() for ln in closed] == [f"closed form:{lab}"]
        assert closed[0].get_color() == "#000000" and closed[0].get_linestyle() == "--"
        assert closed[0].get_zorder() > max(ln.get_zorder() for ln in acc_ax.get_lines()
                                            if not ln.get_gid())  # above the MC means
    assert "closed form drawn once" in " ".join(x.get_text() for x in acc_ax.texts)
    band = acc_ax.collections[0].get_paths()[0].vertices
    expert = t[(t["metric"] == "accuracy") & (t["labeller"] == "expert")]
    assert band[:, 1].min() == pytest.approx(expert["q05"].min())
    assert band[:, 1].max() == pytest.approx(expert["q95"].max())
    legend = [x.get_text() for x in fig.legends[0].get_texts()]
    assert legend[:2] == ["$m$ = 0.1", "$m$ = 0.5"]
    assert "closed form (black: same for every $m$)" in legend
    assert fig.get_suptitle().startswith("Expert vs random labeller by positive-class ratio")
    paths = plots.save(fig, tmp_path / "fig1")
    assert [p.suffix for p in paths] == [".png", ".pdf"] and all(p.stat().st_size > 0 for p in paths)


def test_save_lays_out_once_and_keeps_the_layout_engine(tmp_path, monkeypatch):
    fig = plots.plot_figure1(coin_table())
    engine = fig.get_layout_engine()
    calls = []
    execute = type(engine).execute
    monkeypatch.setattr(type(engine), "execute", lambda self, f: calls.append(1) or execute(self, f))
    png, pdf, svg = plots.save(fig, tmp_path / "f", formats=("png", "pdf", "svg"))
    assert len(calls) == 1  # the PNG's layout, reused by the PDF and the SVG
    assert png.read_bytes().startswith(b"\x89PNG") and pdf.read_bytes().startswith(b"%PDF")
    assert b"<svg" in svg.read_bytes()
    assert fig.get_layout_engine() is engine
    # the figure laid out by save is laid out as savefig alone would (same PNG)
    fresh = plots.plot_figure1(coin_table())
    (alone,) = plots.save(fresh, tmp_path / "g", formats=("png",))
    assert alone.read_bytes() == png.read_bytes()


def test_figure1_color_by_n_labels_and_refusals(drawn):
    t = coin_table(ms=(0.5,))
    t2 = pd.concat([t, t.assign(n_labels=3)], ignore_index=True)
    fig = drawn(plots.plot_figure1(t2, color_by="n_labels"))
    assert [x.get_text() for x in fig.legends[0].get_texts()][:2] == ["$L$ = 2", "$L$ = 3"]
    # its own title (not Figure 1's), and F1 is macro-F1 for L > 2
    assert fig.get_suptitle().startswith("Expert vs random labeller with $L$ labels")
    assert fig.axes[1].get_ylabel() == "$F_1$ (macro-$F_1$ for $L$ > 2)"
    only3 = drawn(plots.plot_figure1(t.assign(n_labels=3), color_by="n_labels"))
    assert only3.axes[1].get_ylabel() == "macro-$F_1$"
    with pytest.raises(ValueError, match=r"several values of n_labels \(\[2, 3\]\); select one"):
        plots.plot_figure1(t2)  # color_by m: n_labels is ambiguous
    with pytest.raises(ValueError, match="no rows with metric"):
        plots.plot_figure1(t, metrics=("precision",))
    with pytest.raises(ValueError, match="lacks the columns"):
        plots.plot_figure1(t.drop(columns=["expected"]))


def test_table1_tails_plot_draws_exact_tails(drawn):
    t = coin_table(p_ds=(0.25, 0.5, 0.6, 0.9), ms=(0.5,), ns=(10, 100), thresholds=(0.5, 0.8))
    fig = drawn(plots.plot_table1_tails(t))
    assert fig.axes[0].get_ylabel() == r"$P(\mathrm{accuracy} \geq a)$"
    assert [ax.get_title() for ax in fig.axes[:2]] == ["N = 10", "N = 100"]
    ax100 = fig.axes[1]
    x = np.array([0.25, 0.5, 0.6, 0.9])
    exact = binom.sf(79, 100, x)  # P(accuracy >= 0.8), N = 100
    curves = lines_with(ax100, x, exact)  # MC markers (mean = exact here) and the dashed curve
    assert [ln.get_linestyle() for ln in curves] == ["None", "--"]
    # the paper's Table 1 value at p_d = 0.6, N = 100, r_c = 80: 1.6e-5
    assert exact[2] == pytest.approx(1.6e-5, rel=0.05)


def test_panel_bias_plot_uses_strata(drawn):
    rows = []
    for k in (3, 5):
        for j in range(k // 2 + 1, k + 1):
            obs = j / k
            for metric, v in (("theta", 0.75 + 0.1 * obs), ("accuracy", 0.7 + 0.1 * obs)):
                rows.append(dict(p_d=np.nan, panel_size=k, labeller="expert",
                                 stratum=f"{obs:.2f}", metric=metric, mean=v, expected=v,
                                 q05=v - 0.05, q95=v + 0.05))
        rows.append(dict(p_d=np.nan, panel_size=k, labeller="expert", stratum="all",
                         metric="theta", mean=0.8, expected=0.8, q05=0.7, q95=0.9))
    t = pd.DataFrame(rows)
    fig = drawn(plots.plot_panel_bias(t.assign(theta_prior="beta(a=2.0,b=1.0,lo=None,hi=1.0)",
                                               n_labels=2)))
    assert "K$ = 3" in fig.legends[0].get_texts()[0].get_text()
    assert "Beta(2, 1) on [1/2, 1]" in fig.get_suptitle()
    assert "beta(a=" not in fig.get_suptitle()
    ax = fig.axes[0]
    k5 = t[(t["panel_size"] == 5) & (t["metric"] == "theta") & (t["stratum"] != "all")]
    assert len(lines_with(ax, k5["stratum"].astype(float), k5["mean"])) >= 1
    assert "observed $p_d$" in ax.get_xlabel()
    with pytest.raises(ValueError, match="several values of p_d"):
        plots.plot_panel_bias(t.assign(p_d=np.where(t.index % 2, 0.6, 0.8)))
    with pytest.raises(ValueError, match="no observed-p_d strata"):
        plots.plot_panel_bias(t[t["stratum"] == "all"])


@pytest.mark.parametrize("call, message", [
    (lambda t: plots.plot_figure1(None), "table must be a pandas DataFrame (a labelvar.simulate "
                                         "or sweep table), got NoneType"),
    (lambda t: plots.plot_table1_tails(t.to_dict("list")), "table must be a pandas DataFrame"),
    (lambda t: plots.plot_figure1(t, color_by="K"), "color_by must be a column of the table, "
                                                    "got 'K'"),
    (lambda t: plots.plot_figure1(t, labellers=["zz"]),
     "table has no rows with metric in ['accuracy', 'f1'] and stratum 'all' and labeller in "
     "['zz']"),
    (lambda t: plots.save(None, "x"), "fig must be a matplotlib Figure, got NoneType"),
])
def test_sweep_figures_refuse_bad_arguments_in_one_line(call, message):
    with pytest.raises(ValueError) as info:
        call(coin_table())
    assert str(info.value).startswith(message)


def test_a_single_name_is_a_sequence_of_one(tmp_path, drawn):
    one = drawn(plots.plot_figure1(coin_table(), metrics="accuracy", labellers="expert"))
    both = drawn(plots.plot_figure1(coin_table(), metrics=["accuracy"], labellers=["expert"]))
    assert [ax.get_title() for ax in one.axes] == [ax.get_title() for ax in both.axes] == [
        "(a) accuracy"]
    assert [len(ax.get_lines()) for ax in one.axes] == [len(ax.get_lines()) for ax in both.axes]
    paths = plots.save(one, tmp_path / "f", formats="svg")  # not 's', 'v', 'g'
    assert [p.name for p in paths] == ["f.svg"]
