"""Sweep figures: paper Figure 1, panel bias, paper Table 1 as curves.

Each function takes a :func:`labelvar.simulate` (or sweep) table and returns a
:class:`matplotlib.figure.Figure`; it draws the table's numbers and computes none.
"""

from __future__ import annotations

import ast
import numbers

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from labelvar.plots._style import (
    HUMAN_COLOR,
    MARKERS,
    legend,
    metric_label,
    new_figure,
    series_colors,
)
from labelvar.plots._style import title as set_title

__all__ = ["plot_figure1", "plot_panel_bias", "plot_table1_tails"]

_SYMBOLS = {"m": "m", "n_labels": "L", "panel_size": "K", "n_items": "N", "p_d": "p_d"}
_LABELLER_STYLE = {"expert": ("-", "o"), "random": (":", "^"), "prior": ("-.", "s"),
                   "constant": ("-.", "D"), "model": ("-", "v")}


def _names(name: str, value) -> tuple:
    """A name or a sequence of names as a tuple (``"expert"`` means ``("expert",)``)."""
    if isinstance(value, str):
        return (value,)
    try:
        return tuple(value)
    except TypeError:
        raise ValueError(f"{name} must be a name or a sequence of names, got {value!r}") from None


def _check_table(table) -> None:
    import pandas as pd

    if not isinstance(table, pd.DataFrame):
        raise ValueError(f"table must be a pandas DataFrame (a labelvar.simulate or sweep "
                         f"table), got {type(table).__name__}")


def _sweep_rows(table, *, metrics, labellers=None, stratum="all", vary=()):
    """Select plotted rows; refuse tables where an axis not plotted has several values."""
    _check_table(table)
    metrics = _names("metrics", metrics)
    labellers = None if labellers is None else _names("labellers", labellers)
    need = {"p_d", "labeller", "stratum", "metric", "mean", "expected"}
    missing = need - set(table.columns)
    if missing:
        raise ValueError(f"table lacks the columns {sorted(missing)} of a labelvar.simulate table")
    rows = table[table["metric"].isin(metrics)]
    if stratum is not None:
        rows = rows[rows["stratum"].astype(str) == stratum]
    if labellers is not None:
        rows = rows[rows["labeller"].isin(labellers)]
    if rows.empty:
        which = f" and labeller in {list(labellers)}" if labellers is not None else ""
        raise ValueError(f"table has no rows with metric in {list(metrics)} and stratum "
                         f"{stratum!r}{which}")
    for axis in ("m", "n_items", "n_labels", "panel_size", "mode"):
        if axis in rows.columns and axis not in vary and rows[axis].nunique() > 1:
            raise ValueError(f"table has several values of {axis} "
                             f"({sorted(rows[axis].unique().tolist())}); "
                             f"select one before plotting")
    finite = [c for c in ("mean", "expected")
              if np.isfinite(rows[c].to_numpy(float, na_value=np.nan)).any()]
    if not finite:
        raise ValueError(f"table has no finite mean or expected value in its rows with metric "
                         f"in {list(metrics)}: nothing to draw")
    return rows


def _p_d_axis(rows, figure: str):
    """Rows whose x axis ``p_d`` is drawn: a panel's ``theta`` where ``p_d`` is NaN (as sweeps do)."""
    x = rows["p_d"].to_numpy(float, na_value=np.nan)
    if np.isfinite(x).any():
        return rows
    if "theta" in rows.columns and np.isfinite(rows["theta"].to_numpy(float, na_value=np.nan)).any():
        return rows.assign(p_d=rows["theta"])
    raise ValueError(f"table has no p_d (or a panel's fixed theta) to draw {figure} against: "
                     f"p_d is NaN in every row (a theta prior or a RaterPanel table)")


def _axis_value_label(axis: str, value) -> str:
    if isinstance(value, numbers.Number):
        return f"${_SYMBOLS.get(axis, axis)}$ = {float(value):g}"
    return f"{axis} = {value}"


_PRIOR_KEYS = {"fixed": lambda kw: {"fixed": kw["value"]},
               "beta": lambda kw: {"beta": dict(kw)},
               "discrete": lambda kw: ("mixture", list(kw["values"]), list(kw["weights"])),
               "dirichlet": lambda kw: ("dirichlet", list(kw["concentration"])),
               "dirichlet_mixture": lambda kw: ("dirichlet_mixture",
                                                [list(a) for a in kw["concentrations"]],
                                                list(kw["weights"]))}


def prior_text(value, n_labels=None) -> str:
    """Readable text of a ``theta_prior`` cell: its prior's ``describe()``.

    The cell holds the prior's ``key()`` (``beta(a=2.0,b=1.0,lo=None,hi=1.0)``), a
    spec (``beta:2,1``) or a prior object; anything
    :func:`labelvar.votes.as_theta_prior` cannot rebuild is returned as text.

    Examples
    --------
    >>> prior_text("beta(a=2.0,b=1.0,lo=None,hi=1.0)", 2)
    'Beta(2, 1) on [1/2, 1]'
    >>> prior_text("discrete(values=(0.6, 1.0),weights=(0.3, 0.7))")
    'mixture 0.6:0.3, 1:0.7'
    >>> prior_text("beta:2,5", 3), prior_text("empirical(n=3,L=3,digest=ab)")
    ('Beta(2, 5) on [1/3, 1]', 'empirical(n=3,L=3,digest=ab)')
    """
    from labelvar.votes._priors import as_theta_prior

    n = int(n_labels) if n_labels is not None and n_labels == n_labels else None
    try:
        return as_theta_prior(value).describe(n)
    except (TypeError, ValueError):
        pass
    try:  # a key: name(field=literal,...)
        call = ast.parse(str(value), mode="eval").body
        kw = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
        return as_theta_prior(_PRIOR_KEYS[call.func.id](kw)).describe(n)
    except (SyntaxError, ValueError, TypeError, KeyError, AttributeError):
        return str(value)


def plot_figure1(table, *, color_by: str = "m", metrics=("accuracy", "f1"),
                 labellers=("expert", "random"), title: str | None = None) -> Figure:
    """Paper Figure 1: accuracy and F1 against p_d, expert vs random labeller.

    One panel per metric; x = p_d; one color per value of ``color_by`` (``m``
    for Figure 1, ``n_labels`` for the multi-class sweep); the Monte Carlo mean as
    a line (expert solid, random dotted) with its 5-95 % band (q05-q95), and the
    closed form (the table's ``expected`` column) dashed. Where a labeller's closed
    form is the same for every ``color_by`` value (accuracy does not depend on m),
    it is drawn once, black, on top of thin colored MC means, with one grey band
    (the envelope of the replicates' 5-95 % ranges), and the legend says so.
    F1 is labelled macro-F1 for L > 2 labels. The expert follows the majority
    label, whose share p_d is at least 1/L: its rows with p_d < 1/L (a grid shared
    by several L) are not drawn, and the legend says so.

    Parameters
    ----------
    table : pandas.DataFrame
        A :func:`labelvar.simulate` table (stratum ``"all"`` rows are used).
    color_by : str
        The grid axis drawn as colors.
    metrics : sequence of str
        One panel per metric.
    labellers : sequence of str
        Labellers drawn (those present in the table).
    title : str, optional
        Figure title; default: paper Figure 1's (``color_by="m"``) or the
        multi-class sweep's (``color_by="n_labels"``), with the fixed grid values.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per metric, x = p_d, a line per labeller and ``color_by`` value.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [dict(p_d=p, m=m, labeller=lab, stratum="all", metric=met, mean=v, expected=v,
    ...              q05=v - 0.02, q95=v + 0.02)
    ...         for p in (0.5, 0.75, 1.0) for m in (0.1, 0.5) for lab in ("expert", "random")
    ...         for met in ("accuracy", "f1")
    ...         for v in [p if lab == "expert" else 0.5]]
    >>> fig = plot_figure1(pd.DataFrame(rows))
    >>> [ax.get_xlabel() for ax in fig.axes]
    ['agreement with the majority label $p_d$', 'agreement with the majority label $p_d$']
    """
    _check_table(table)
    if not isinstance(color_by, str) or color_by not in table.columns:
        raise ValueError(f"color_by must be a column of the table, got {color_by!r}")
    metrics, labellers = _names("metrics", metrics), _names("labellers", labellers)
    rows = _p_d_axis(_sweep_rows(table, metrics=metrics, labellers=labellers,
                                 vary=(color_by,)), "plot_figure1")
    below = np.zeros(len(rows), bool)
    if "n_labels" in rows.columns:  # no label is the majority below p_d = 1/L
        below = ((rows["labeller"] == "expert")
                 & (rows["p_d"].to_numpy(float) < 1 / rows["n_labels"].to_numpy(float) - 1e-9))
        rows = rows[~below]
    present = [lab for lab in labellers if lab in set(rows["labeller"])]
    color_values = sorted(rows[color_by].unique())
    colors = series_colors(len(color_values))
    n_labels = rows["n_labels"].unique() if "n_labels" in rows.columns else ()
    sym = _SYMBOLS.get(color_by, color_by)
    fig, axes = new_figure(1, len(metrics), width=4.6, height=3.6)
    any_shared = False
    for k, metric in enumerate(metrics):
        ax = axes[0][k]
        sub = rows[rows["metric"] == metric]
        has_band = {"q05", "q95"} <= set(sub.columns)
        shared_labs = []
        for lab in present:  # a labeller whose closed form is the same for every color
            slab = sub[sub["labeller"] == lab]
            shared = len(color_values) > 1 and not slab.empty and slab.groupby("p_d")[
                "expected"].agg(lambda e: bool(e.notna().all() and e.max() - e.min() < 1e-9)).all()
            style, marker = _LABELLER_STYLE.get(lab, ("-", "o"))
            if shared:
                shared_labs.append(lab)
                if has_band:  # one grey band (envelope) instead of stacked colors
                    env = slab.groupby("p_d").agg(lo=("q05", "min"), hi=("q95", "max"))
                    ax.fill_between(env.index, env["lo"], env["hi"], color="0.5",
                                    alpha=0.2 if lab == "expert" else 0.12, linewidth=0)
            for i, value in enumerate(color_values):
                s = sub[(sub[color_by] == value) & (sub["labeller"] == lab)].sort_values("p_d")
                if s.empty:
                    continue
                if has_band and not shared:
                    ax.fill_between(s["p_d"], s["q05"], s["q95"], color=colors[i],
                                    alpha=0.18 if lab == "expert" else 0.09, linewidth=0)
                ax.plot(s["p_d"], s["mean"], linestyle=style, marker=marker,
                        markersize=2.5 if shared else 3.5, color=colors[i],
                        linewidth=0.9 if shared else 1.4, alpha=0.8 if shared else 1.0)
                if not shared and s["expected"].notna().any():
                    ax.plot(s["p_d"], s["expected"], linestyle="--", color=colors[i],
                            linewidth=0.9, alpha=0.9)
            if shared and slab["expected"].notna().any():  # once, black, above the MC lines
                # over every p_d drawn (the colors' grids may differ, e.g. p_d >= 1/L)
                one = slab.groupby("p_d", as_index=False)["expected"].first()
                ax.plot(one["p_d"], one["expected"], linestyle="--", color=HUMAN_COLOR,
                        linewidth=1.3, zorder=5, gid=f"closed form:{lab}")
        if shared_labs:
            any_shared = True
            ax.text(0.98, 0.02, f"same for every ${sym}$: closed form drawn once (black)",
                    transform=ax.transAxes, ha="right", va="bottom", fontsize=7, color="0.25")
        label = metric_label(metric, n_labels)
        ax.set_xlabel("agreement with the majority label $p_d$")
        ax.set_ylabel(label)
        ax.set_title(f"({chr(97 + k)}) {label}")
        ax.set_ylim(-0.02, 1.02)
    handles = [Patch(color=colors[i], label=_axis_value_label(color_by, v))
               for i, v in enumerate(color_values)]
    for lab in present:
        style, marker = _LABELLER_STYLE.get(lab, ("-", "o"))
        handles.append(Line2D([], [], color="0.3", linestyle=style, marker=marker,
                              markersize=3.5, label=f"{lab} (MC mean)"))
    handles.append(Line2D([], [], color="0.3", linestyle="--", linewidth=0.9,
                          label="closed form" + (f" (black: same for every ${sym}$)"
                                                 if any_shared else "")))
    handles.append(Patch(color="0.3", alpha=0.18,
                         label="5–95 % of replicates" + (f" (grey: envelope over ${sym}$)"
                                                         if any_shared else "")))
    if below.any():
        handles.append(Line2D([], [], ls="none", label="expert drawn from $p_d$ = 1/$L$ "
                              "(below it no label is the majority)"))
    legend(fig, handles, ncol=4)
    if title is None:
        fixed = [f"{name} = {v:g}" for name, col in (("$N$", "n_items"), ("$m$", "m"),
                                                     ("$L$", "n_labels"))
                 if col != color_by and (v := _single(rows, col)) is not None]
        what = {"m": "Expert vs random labeller by positive-class ratio $m$",
                "n_labels": "Expert vs random labeller with $L$ labels"}.get(
            color_by, f"Expert vs random labeller by ${sym}$")
        title = what + (f" ({', '.join(fixed)})" if fixed else "")
    set_title(fig, title)
    return fig


def plot_panel_bias(table, *, labeller: str = "expert") -> Figure:
    """Observed vs true p_d for panels of K annotators (panel mode, per-stratum rows).

    Panel (a): the mean true agreement theta of the items in each observed-p_d
    stratum (observed p_d = top votes / K); points below the diagonal mean the
    panel overstates agreement (e.g. items seen at K/K have theta < 1). Panel
    (b): the labeller's accuracy per stratum against the observed p_d that the
    paper's rule E[accuracy] = p_d would predict. One color per K; Monte Carlo
    means with their 5-95 % band; the exact expectation (``expected``) dashed.

    Parameters
    ----------
    table : pandas.DataFrame
        A panel-mode :func:`labelvar.simulate` table (``theta`` and
        ``accuracy`` rows per stratum), one value of p_d (or a theta prior).
    labeller : str
        The labeller scored in panel (b).

    Returns
    -------
    matplotlib.figure.Figure
        Panel (a) true vs observed agreement, panel (b) the labeller's accuracy.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [dict(p_d=float("nan"), panel_size=k, labeller="expert", stratum=s,
    ...              metric=met, mean=v, expected=v, q05=v - 0.05, q95=v + 0.05)
    ...         for k in (3, 5) for s in ["all"] + [f"{j / k:.2f}" for j in range(2, k + 1)]
    ...         if not (k == 3 and s == "0.40")
    ...         for met in ("theta", "accuracy") for v in [0.8]]
    >>> fig = plot_panel_bias(pd.DataFrame(rows))
    >>> [ax.get_title() for ax in fig.axes]
    ['(a) true vs observed agreement', '(b) expert accuracy']
    """
    rows = _sweep_rows(table, metrics=("theta", "accuracy"), labellers=(labeller,),
                       stratum=None, vary=("panel_size",))
    if rows["p_d"].nunique() > 1:
        raise ValueError(f"table has several values of p_d "
                         f"({sorted(rows['p_d'].unique().tolist())}); "
                         "select one before plotting")
    rows = rows[rows["stratum"].astype(str) != "all"].copy()
    if rows.empty:
        raise ValueError("table has no observed-p_d strata (simulate a Panel)")
    rows["observed"] = rows["stratum"].astype(float)
    ks = sorted(rows["panel_size"].unique())
    colors = series_colors(len(ks))
    fig, axes = new_figure(1, 2, width=4.4, height=3.6)
    titles = {"theta": "(a) true vs observed agreement", "accuracy": f"(b) {labeller} accuracy"}
    ylabels = {"theta": "mean true agreement $\\theta$ in the stratum",
               "accuracy": f"accuracy of {labeller}"}
    lo = float(rows["observed"].min())
    for k, metric in enumerate(("theta", "accuracy")):
        ax = axes[0][k]
        ax.plot([lo, 1], [lo, 1], ":", color="black", linewidth=0.9)
        sub = rows[rows["metric"] == metric]
        for i, kk in enumerate(ks):
            color = colors[i]
            s = sub[sub["panel_size"] == kk].sort_values("observed")
            if {"q05", "q95"} <= set(s.columns):
                ax.fill_between(s["observed"], s["q05"], s["q95"], color=color, alpha=0.15,
                                linewidth=0)
            ax.plot(s["observed"], s["mean"], "-", marker=MARKERS[i % len(MARKERS)],
                    color=color, markersize=3.5, linewidth=1.3)
            if s["expected"].notna().any():
                ax.plot(s["observed"], s["expected"], "--", color=color, linewidth=0.9)
        ax.set_xlabel("observed $p_d$ = top votes / $K$")
        ax.set_ylabel(ylabels[metric])
        ax.set_title(titles[metric])
    handles = [Line2D([], [], color=colors[i], marker=MARKERS[i % len(MARKERS)],
                      markersize=3.5, label=f"$K$ = {kk:g}") for i, kk in enumerate(ks)]
    handles += [Line2D([], [], color="0.3", marker="o", markersize=3.5, label="MC mean"),
                Line2D([], [], color="0.3", linestyle="--", label="exact expectation"),
                Patch(color="0.3", alpha=0.15, label="5–95 % of replicates"),
                Line2D([], [], color="black", linestyle=":", label="equal to observed $p_d$")]
    legend(fig, handles, ncol=4)
    prior = _single(rows, "theta_prior")
    if prior is not None and prior == prior and str(prior):
        about = f"$\\theta$ ~ {prior_text(prior, _single(rows, 'n_labels'))}"
    else:
        p_d = _single(rows, "p_d")
        about = f"$\\theta$ = {p_d:g}" if p_d is not None and p_d == p_d else None
    n = _single(rows, "n_items")
    if n is not None:
        about = ", ".join(x for x in (about, f"$N$ = {n:g} items") if x)
    set_title(fig, "Panel bias: observed agreement vs true agreement", about)
    return fig


def _single(rows, column):
    if column in rows.columns and rows[column].nunique() == 1:
        return rows[column].iloc[0]
    return None


def plot_table1_tails(table, *, labeller: str = "expert") -> Figure:
    """Paper Table 1 as curves: P(accuracy >= a) against p_d, one panel per N.

    Colors are thresholds ``a``; Monte Carlo estimates are markers with 95 %
    error bars (mean +- 1.96 se), the exact binomial tail (``expected``) dashed.

    Parameters
    ----------
    table : pandas.DataFrame
        A :func:`labelvar.simulate` table with ``prob_accuracy_ge`` rows.
    labeller : str
        The labeller drawn.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per number of items N, a curve per threshold.

    Examples
    --------
    >>> import pandas as pd
    >>> from scipy.stats import binom
    >>> rows = [dict(p_d=p, n_items=n, labeller="expert", stratum="all",
    ...              metric="prob_accuracy_ge", threshold=a, mean=e, expected=e, se=0.0)
    ...         for p in (0.5, 0.6, 0.9) for n in (10, 100) for a in (0.5, 0.8)
    ...         for e in [binom.sf(round(a * n) - 1, n, p)]]
    >>> fig = plot_table1_tails(pd.DataFrame(rows))
    >>> [ax.get_title() for ax in fig.axes]
    ['N = 10', 'N = 100']
    """
    rows = _sweep_rows(table, metrics=("prob_accuracy_ge",), labellers=(labeller,),
                       vary=("n_items",))
    if "threshold" not in rows.columns or "n_items" not in rows.columns:
        raise ValueError("table lacks the threshold and n_items columns")
    rows = _p_d_axis(rows, "plot_table1_tails")
    ns = sorted(rows["n_items"].unique())
    thresholds = sorted(rows["threshold"].unique())
    colors = series_colors(len(thresholds))
    fig, axes = new_figure(1, len(ns), width=4.2, height=3.4, sharey=True)
    for k, n in enumerate(ns):
        ax = axes[0][k]
        for i, a in enumerate(thresholds):
            s = rows[(rows["n_items"] == n) & (rows["threshold"] == a)].sort_values("p_d")
            err = 1.96 * s["se"] if "se" in s.columns else None
            ax.errorbar(s["p_d"], s["mean"], yerr=err, fmt=MARKERS[i % len(MARKERS)],
                        markersize=3.5, color=colors[i], elinewidth=0.8, capsize=1.5)
            ax.plot(s["p_d"], s["expected"], "--", color=colors[i], linewidth=1.0)
        ax.set_title(f"N = {n:g}")
        ax.set_xlabel("agreement with the majority label $p_d$")
        ax.set_ylim(-0.02, 1.02)
    axes[0][0].set_ylabel(r"$P(\mathrm{accuracy} \geq a)$")
    handles = [Line2D([], [], color=colors[i], marker=MARKERS[i % len(MARKERS)], markersize=3.5,
                      linestyle="--", label=f"$a$ = {a:g}") for i, a in enumerate(thresholds)]
    handles += [Line2D([], [], color="0.3", marker="o", linestyle="none", markersize=3.5,
                       label="Monte Carlo (95 % CI)"),
                Line2D([], [], color="0.3", linestyle="--", label="exact binomial tail")]
    legend(fig, handles, ncol=min(len(handles), 4))
    mode, m = _single(rows, "mode"), _single(rows, "m")
    about = [f"{mode} model" if mode else None, f"$m$ = {m:g}" if m is not None else None]
    set_title(fig, f"Chance that the {labeller} scores at least $a$ on $N$ items (paper Table 1)",
              ", ".join(x for x in about if x) or None)
    return fig
