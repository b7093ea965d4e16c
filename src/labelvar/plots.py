"""Figures. Every function takes a tidy table and returns a ``matplotlib.figure.Figure``.

Plot functions never call ``plt.show()`` and never write files; :func:`save`
writes a figure as PNG and PDF. Tests use the Agg backend.

Sections: shared style (here), Figure 1 / panel bias / Table 1 tails (sweeps),
stratified reports (stratify), power curves (design).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg", force=False)  # headless unless the user chose a backend  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

#: one colour per series, colour-blind safe (Okabe & Ito), used consistently across figures
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")


def new_figure(ncols: int = 1, nrows: int = 1, *, width: float = 4.2, height: float = 3.4,
               sharey: bool = False) -> tuple[Figure, object]:
    """Create a figure without pyplot's global state; return ``(fig, axes)``."""
    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, sharey=sharey, squeeze=False)
    return fig, axes


def save(fig: Figure, stem: str | Path, formats: tuple[str, ...] = ("png", "pdf"),
         dpi: int = 150) -> list[Path]:
    """Write ``fig`` as ``stem.png`` and ``stem.pdf`` (atomically); return the paths."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        path = stem.with_suffix("." + fmt)
        tmp = path.with_name(f".{path.name}.tmp")
        fig.savefig(tmp, format=fmt, dpi=dpi)
        tmp.replace(path)
        paths.append(path)
    return paths


# --------------------------------------------------------------------------- sweeps (issue 4)
_SYMBOLS = {"m": "m", "n_labels": "L", "panel_size": "K", "n_items": "N", "p_d": "p_d"}
_METRIC_LABELS = {"accuracy": "accuracy", "precision": "precision", "recall": "recall",
                  "f1": "$F_1$"}
_LABELLER_STYLE = {"expert": ("-", "o"), "random": (":", "^"), "prior": ("-.", "s"),
                   "constant": ("-.", "D"), "model": ("-", "v")}


def _sweep_rows(table, *, metrics, labellers=None, stratum="all", vary=()):
    """Select plotted rows; refuse tables where an axis not plotted has several values."""
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
        raise ValueError(f"table has no rows with metric in {list(metrics)} and stratum {stratum!r}")
    for axis in ("m", "n_items", "n_labels", "panel_size", "mode"):
        if axis in rows.columns and axis not in vary and rows[axis].nunique() > 1:
            raise ValueError(f"table has several values of {axis} "
                             f"({sorted(rows[axis].unique().tolist())}); "
                             f"select one before plotting")
    return rows


def _axis_value_label(axis: str, value) -> str:
    import numbers

    if isinstance(value, numbers.Number):
        return f"${_SYMBOLS.get(axis, axis)}$ = {float(value):g}"
    return f"{axis} = {value}"


def plot_figure1(table, *, colour_by: str = "m", metrics=("accuracy", "f1"),
                 labellers=("expert", "random")) -> Figure:
    """Paper Figure 1: accuracy and F1 against p_d, expert vs random labeller.

    One panel per metric; x = p_d; one colour per value of ``colour_by`` (``m``
    for Figure 1, ``n_labels`` for the multi-class sweep); the Monte Carlo mean as
    a line (expert solid, random dotted) with its 5-95 % band (q05-q95), and the
    closed form (the table's ``expected`` column) dashed.

    Parameters
    ----------
    table : pandas.DataFrame
        A :func:`labelvar.simulate` table (stratum ``"all"`` rows are used).
    colour_by : str
        The grid axis drawn as colours.
    metrics : sequence of str
        One panel per metric.
    labellers : sequence of str
        Labellers drawn (those present in the table).

    Returns
    -------
    matplotlib.figure.Figure

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
    rows = _sweep_rows(table, metrics=metrics, labellers=labellers, vary=(colour_by,))
    if colour_by not in rows.columns:
        raise ValueError(f"colour_by must be a column of the table, got {colour_by!r}")
    present = [lab for lab in labellers if lab in set(rows["labeller"])]
    colours = sorted(rows[colour_by].unique())
    fig, axes = new_figure(len(metrics), 1, width=4.6, height=3.8)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    for k, metric in enumerate(metrics):
        ax = axes[0][k]
        sub = rows[rows["metric"] == metric]
        has_band = {"q05", "q95"} <= set(sub.columns)
        for lab in present:  # a labeller whose closed form is the same for every colour
            s = sub[sub["labeller"] == lab]
            shared = len(colours) > 1 and s.groupby("p_d")["expected"].agg(
                lambda e: bool(e.notna().all() and e.max() - e.min() < 1e-9)).all()
            if has_band and shared:  # one grey band (envelope) instead of stacked colours
                env = s.groupby("p_d").agg(lo=("q05", "min"), hi=("q95", "max"))
                ax.fill_between(env.index, env["lo"], env["hi"], color="0.5",
                                alpha=0.2 if lab == "expert" else 0.12, linewidth=0)
            for i, value in enumerate(colours):
                colour = PALETTE[i % len(PALETTE)]
                s = sub[(sub[colour_by] == value) & (sub["labeller"] == lab)].sort_values("p_d")
                if s.empty:
                    continue
                style, marker = _LABELLER_STYLE.get(lab, ("-", "o"))
                if has_band and not shared:
                    ax.fill_between(s["p_d"], s["q05"], s["q95"], color=colour,
                                    alpha=0.18 if lab == "expert" else 0.09, linewidth=0)
                ax.plot(s["p_d"], s["mean"], linestyle=style, marker=marker, markersize=3.5,
                        color=colour, linewidth=1.4)
                if s["expected"].notna().any():
                    ax.plot(s["p_d"], s["expected"], linestyle="--", color=colour,
                            linewidth=0.9, alpha=0.9)
        ax.set_xlabel("agreement with the majority label $p_d$")
        ax.set_ylabel(_METRIC_LABELS.get(metric, metric))
        ax.set_title(f"({chr(97 + k)}) {_METRIC_LABELS.get(metric, metric)}")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3, linewidth=0.5)
    handles = [Patch(color=PALETTE[i % len(PALETTE)], label=_axis_value_label(colour_by, v))
               for i, v in enumerate(colours)]
    for lab in present:
        style, marker = _LABELLER_STYLE.get(lab, ("-", "o"))
        handles.append(Line2D([], [], color="0.3", linestyle=style, marker=marker,
                              markersize=3.5, label=f"{lab} (MC mean)"))
    handles.append(Line2D([], [], color="0.3", linestyle="--", linewidth=0.9,
                          label="closed form"))
    handles.append(Patch(color="0.3", alpha=0.18,
                         label=f"5–95 % of replicates (grey: same for every "
                               f"{_SYMBOLS.get(colour_by, colour_by)})"))
    fig.legend(handles=handles, fontsize=7.5, loc="outside lower center",
               ncol=min(len(handles), 4), frameon=False)
    n = _single(rows, "n_items")
    fig.suptitle("Expert vs random labeller" + (f" (N = {n:g} items)" if n is not None else ""),
                 fontsize=10)
    return fig


def plot_panel_bias(table, *, labeller: str = "expert") -> Figure:
    """Observed vs true p_d for panels of K annotators (panel mode, per-stratum rows).

    Panel (a): the mean true agreement theta of the items in each observed-p_d
    stratum (observed p_d = top votes / K); points below the diagonal mean the
    panel overstates agreement (e.g. items seen at K/K have theta < 1). Panel
    (b): the labeller's accuracy per stratum against the observed p_d that the
    paper's rule E[accuracy] = p_d would predict. One colour per K; Monte Carlo
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
        raise ValueError("table has no observed-p_d strata (run with mode='panel')")
    rows["observed"] = rows["stratum"].astype(float)
    ks = sorted(rows["panel_size"].unique())
    fig, axes = new_figure(2, 1, width=4.4, height=3.8)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    titles = {"theta": "(a) true vs observed agreement", "accuracy": f"(b) {labeller} accuracy"}
    ylabels = {"theta": "mean true agreement $\\theta$ in the stratum",
               "accuracy": f"accuracy of {labeller}"}
    lo = float(rows["observed"].min())
    for k, metric in enumerate(("theta", "accuracy")):
        ax = axes[0][k]
        ax.plot([lo, 1], [lo, 1], ":", color="black", linewidth=0.9)
        sub = rows[rows["metric"] == metric]
        for i, kk in enumerate(ks):
            colour = PALETTE[i % len(PALETTE)]
            s = sub[sub["panel_size"] == kk].sort_values("observed")
            if {"q05", "q95"} <= set(s.columns):
                ax.fill_between(s["observed"], s["q05"], s["q95"], color=colour, alpha=0.15,
                                linewidth=0)
            ax.plot(s["observed"], s["mean"], "-o", color=colour, markersize=3.5, linewidth=1.3)
            if s["expected"].notna().any():
                ax.plot(s["observed"], s["expected"], "--", color=colour, linewidth=0.9)
        ax.set_xlabel("observed $p_d$ = top votes / $K$")
        ax.set_ylabel(ylabels[metric])
        ax.set_title(titles[metric])
        ax.grid(alpha=0.3, linewidth=0.5)
    handles = [Patch(color=PALETTE[i % len(PALETTE)], label=f"$K$ = {kk:g}")
               for i, kk in enumerate(ks)]
    handles += [Line2D([], [], color="0.3", marker="o", markersize=3.5, label="MC mean"),
                Line2D([], [], color="0.3", linestyle="--", label="exact expectation"),
                Patch(color="0.3", alpha=0.15, label="5–95 % of replicates"),
                Line2D([], [], color="black", linestyle=":", label="equal to observed $p_d$")]
    axes[0][0].legend(handles=handles, fontsize=7, loc="upper left")
    prior = _single(table, "theta_prior") if "theta_prior" in table.columns else None
    fig.suptitle("Panel bias: observed $p_d$ vs true agreement"
                 + (f" ($\\theta$ ~ {prior})" if isinstance(prior, str) and prior else ""),
                 fontsize=10)
    return fig


def _single(rows, column):
    if column in rows.columns and rows[column].nunique() == 1:
        return rows[column].iloc[0]
    return None


def plot_table1_tails(table, *, labeller: str = "expert") -> Figure:
    """Paper Table 1 as curves: P(accuracy >= a) against p_d, one panel per N.

    Colours are thresholds ``a``; Monte Carlo estimates are markers with 95 %
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
    ns = sorted(rows["n_items"].unique())
    thresholds = sorted(rows["threshold"].unique())
    fig, axes = new_figure(len(ns), 1, width=4.2, height=3.6, sharey=True)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    for k, n in enumerate(ns):
        ax = axes[0][k]
        for i, a in enumerate(thresholds):
            colour = PALETTE[i % len(PALETTE)]
            s = rows[(rows["n_items"] == n) & (rows["threshold"] == a)].sort_values("p_d")
            err = 1.96 * s["se"] if "se" in s.columns else None
            ax.errorbar(s["p_d"], s["mean"], yerr=err, fmt="o", markersize=3.5, color=colour,
                        elinewidth=0.8, capsize=1.5)
            ax.plot(s["p_d"], s["expected"], "--", color=colour, linewidth=1.0)
        ax.set_title(f"N = {n:g}")
        ax.set_xlabel("agreement with the majority label $p_d$")
        ax.grid(alpha=0.3, linewidth=0.5)
        ax.set_ylim(-0.02, 1.02)
    axes[0][0].set_ylabel(r"$P(\mathrm{accuracy} \geq a)$")
    handles = [Patch(color=PALETTE[i % len(PALETTE)], label=f"$a$ = {a:g}")
               for i, a in enumerate(thresholds)]
    handles += [Line2D([], [], color="0.3", marker="o", linestyle="none", markersize=3.5,
                       label="Monte Carlo (95 % CI)"),
                Line2D([], [], color="0.3", linestyle="--", label="exact binomial tail")]
    axes[0][0].legend(handles=handles, fontsize=7, loc="upper left")
    fig.suptitle(f"Chance that the {labeller} scores at least $a$ (paper Table 1)", fontsize=10)
    return fig


# --------------------------------------------------------------------------- stratify (issue 5)
def _strata_order(table):
    """Bins in agreement order (numeric; the ``all`` row last)."""
    from labelvar.stratified import stratum_order

    return stratum_order(table["stratum"])


def stratified_scores(table, metric: str = "f1", *, tasks=None, include_all: bool = False,
                      ncols: int = 4) -> Figure:
    """Score against agreement bin per task, with the expected curve (Figure 2 style).

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`labelvar.stratify`.
    metric : str
        ``"f1"`` or ``"accuracy"``.
    tasks : sequence of str, optional
        Tasks to draw (default: all), one panel each.
    include_all : bool
        Also draw the ``all`` stratum at the right end of each panel.
    ncols : int
        Panels per row.

    Returns
    -------
    matplotlib.figure.Figure
        Per panel: each system (solid), the human group H or H' (black, with sd
        error bars) joined to each system by a thin vertical line (Δ = H − M), the
        expected score E (dashed) and the random labeller's expected score
        (dotted: 1/L for accuracy, the coin's F1 ``2m/(2m+1)`` for binary F1).

    Examples
    --------
    >>> from labelvar.stratified import stratify
    >>> t = stratify([[1, 1, 1], [1, 1, 0], [0, 0, 0], [0, 1, 0]], {"ai": [1, 0, 0, 1]},
    ...              n_boot=0, simulated_human=2).table
    >>> stratified_scores(t, "accuracy").axes[0].get_xlabel()
    'agreement bin p_d'
    """
    import numpy as np

    sub = table[table["metric"] == metric]
    if sub.empty:
        raise ValueError(f"metric {metric!r} not in the table")
    if not include_all:
        sub = sub[sub["stratum"] != "all"]
    task_list = list(dict.fromkeys(sub["task"])) if tasks is None else list(tasks)
    n = len(task_list)
    nc = min(ncols, n)
    nr = -(-n // nc)
    fig, axes = new_figure(nc, nr, width=3.6, height=3.0, sharey=True)
    flat = axes.ravel()
    for ax, task in zip(flat, task_list, strict=False):
        g = sub[sub["task"] == task]
        order = _strata_order(g)
        x = np.arange(len(order))
        first = g.drop_duplicates("stratum").set_index("stratum").loc[order]
        ax.plot(x, first["expected"], "k--", lw=1.2, label="E (expected)")
        if metric == "accuracy":
            rnd = 1.0 / first["n_labels"].to_numpy(float)
        else:
            m = first["m"].to_numpy(float)
            rnd = 2 * m * 0.5 / (2 * m * 0.5 + 0.5)
        ax.plot(x, rnd, ":", color="grey", lw=1.2, label="random labeller")
        ref_role = "H" if (g["role"] == "H").any() else "H'"
        ref = g[g["role"] == ref_role].set_index("stratum").reindex(order)
        systems = list(dict.fromkeys(g.loc[g["role"] == "system", "system"]))
        colours = PALETTE[:-1]  # black is the human reference
        for i, s in enumerate(systems):
            sc = g[g["system"] == s].set_index("stratum").reindex(order)["score"]
            style = ("o-", "v--", "D-.")[(i // len(colours)) % 3]
            ax.plot(x, sc, style, color=colours[i % len(colours)], ms=4, lw=1.2, label=s)
            if not ref.empty:
                ax.vlines(x, sc, ref["score"], color=colours[i % len(colours)], lw=0.6,
                          alpha=0.6)
        if not ref.empty:
            ax.errorbar(x, ref["score"], yerr=ref["sd"].fillna(0), fmt="s-", color="black",
                        ms=4, lw=1.5, capsize=2, label=ref_role)
        ax.set_xticks(x, order)
        ax.set_title(str(task), fontsize=9)
        ax.set_xlabel("agreement bin p_d")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    for ax in flat[n:]:
        ax.set_visible(False)
    flat[0].set_ylabel(metric)
    handles, labels = flat[0].get_legend_handles_labels()
    if n < flat.size:  # a free panel holds the legend
        spare = flat[n]
        spare.set_visible(True)
        spare.axis("off")
        spare.legend(handles, labels, fontsize=7, loc="center")
    else:
        fig.legend(handles, labels, fontsize=7, loc="outside right upper")
    return fig


def _bracket(ax, x0, x1, y, text, color="black"):
    ax.plot([x0, x0, x1, x1], [y, y + 0.02, y + 0.02, y], color=color, lw=0.8)
    ax.text((x0 + x1) / 2, y + 0.025, text, ha="center", va="bottom", fontsize=8, color=color)


def delta_by_bin(table, metric: str = "f1", *, value: str = "delta_human",
                 proportiontocut: float = 0.1) -> Figure:
    """Box plots of a gap over systems x tasks, per bin, with Welch and Levene tests (Figure 3).

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`labelvar.stratify`.
    metric : str
        Metric to show.
    value : str
        Column plotted (``delta_human`` = H − M, ``delta_expected``, ``score``).
    proportiontocut : float
        Trimming of Levene's test.

    Returns
    -------
    matplotlib.figure.Figure
        One box per stratum (``all`` included) with the points; the lowest and
        highest agreement bins are joined by a bracket giving Welch's t-test
        (black) and Levene's test (blue) as stars (``ns`` when p > 0.05).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"role": "system", "metric": "f1", "task": "t",
    ...                   "stratum": ["0.60"] * 4 + ["1.00"] * 4,
    ...                   "delta_human": [0.0, 0.02, -0.01, 0.01, 0.3, 0.1, 0.25, 0.4]})
    >>> len(delta_by_bin(t).axes)
    1
    """
    import numpy as np

    from labelvar.inference import bin_tests, stars

    sub = table[(table["metric"] == metric) & (table["role"] == "system")]
    if sub.empty:
        raise ValueError(f"no system rows for metric {metric!r}")
    order = _strata_order(sub)
    data = [sub.loc[sub["stratum"] == s, value].dropna().to_numpy(float) for s in order]
    fig, axes = new_figure(1, 1, width=1.0 + 0.9 * len(order), height=3.4)
    ax = axes[0, 0]
    ax.boxplot(data, tick_labels=order, showmeans=True, widths=0.5, showfliers=False)
    rng = np.random.default_rng(0)
    for i, d in enumerate(data):
        ax.plot(i + 1 + rng.uniform(-0.12, 0.12, d.size), d, "o", color=PALETTE[0], ms=3,
                alpha=0.6, gid=f"points:{order[i]}")
    ax.axhline(0, color="grey", lw=0.8, ls=":")
    bins_only = [s for s in order if s != "all"]
    if len(bins_only) >= 2:
        try:
            r = bin_tests(table, metric=metric, value=value, a=bins_only[0], b=bins_only[-1],
                          proportiontocut=proportiontocut)
            top = max(float(np.nanmax(np.concatenate(data))), 0.0) + 0.03
            _bracket(ax, 1, len(bins_only), top, f"Welch {stars(r.welch_p)}")
            _bracket(ax, 1, len(bins_only), top + 0.08, f"Levene {stars(r.levene_p)}",
                     color=PALETTE[0])
            ax.set_ylim(top=top + 0.16)
        except ValueError:
            pass  # fewer than 2 values per bin: no test to show
    ax.set_xlabel("agreement bin p_d")
    ax.set_ylabel(f"{value} ({metric})")
    ax.grid(alpha=0.3, axis="y")
    return fig


def system_vs_system(table, system_a: str, system_b: str, metric: str = "f1") -> Figure:
    """Paired differences ``a - b`` across tasks, per bin, with paired t-tests (Figure 4).

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`labelvar.stratify`.
    system_a, system_b : str
        Systems compared.
    metric : str
        Metric to show.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"metric": "f1", "stratum": ["1.00"] * 6,
    ...                   "task": ["a", "b", "c"] * 2, "system": ["x"] * 3 + ["y"] * 3,
    ...                   "score": [0.9, 0.8, 0.85, 0.7, 0.75, 0.6]})
    >>> system_vs_system(t, "x", "y").axes[0].get_title()
    'x − y (f1)'
    """
    import numpy as np

    from labelvar.inference import paired_test, stars

    res = paired_test(table, system_a, system_b, metric=metric).table
    sub = table[(table["metric"] == metric) & table["system"].isin([system_a, system_b])]
    wide = sub.pivot_table(index=["task", "stratum"], columns="system", values="score",
                           aggfunc="first").dropna()
    wide["d"] = wide[system_a] - wide[system_b]
    order = _strata_order(wide.reset_index())
    data = [wide.xs(s, level="stratum")["d"].to_numpy(float) for s in order]
    fig, axes = new_figure(1, 1, width=1.0 + 0.9 * len(order), height=3.4)
    ax = axes[0, 0]
    ax.boxplot(data, tick_labels=order, showmeans=True, widths=0.5, showfliers=False)
    rng = np.random.default_rng(0)
    allv = np.concatenate(data) if data else np.zeros(1)
    top = float(np.nanmax(allv))
    bottom = float(np.nanmin(allv))
    span = max(top - bottom, 0.05)
    ax.set_ylim(min(bottom, 0.0) - 0.05 * span, top + 0.15 * span)
    star_text = dict(zip(res["stratum"], res["p"].map(stars), strict=True))
    for i, (s, d) in enumerate(zip(order, data, strict=True)):
        ax.plot(i + 1 + rng.uniform(-0.12, 0.12, d.size), d, "o", color=PALETTE[1], ms=3,
                alpha=0.6, gid=f"points:{s}")
        ax.text(i + 1, top + 0.05 * span, star_text.get(s, ""), ha="center", fontsize=8)
    ax.axhline(0, color="grey", lw=0.8, ls=":")
    ax.set_title(f"{system_a} − {system_b} ({metric})")
    ax.set_xlabel("agreement bin p_d")
    ax.set_ylabel(f"Δ {metric} (paired t-test)")
    ax.grid(alpha=0.3, axis="y")
    return fig


# --------------------------------------------------------------------------- design (issue 6)
def plot_power_curves(curves, evaluated=None, plans=None, *, target: float | None = None,
                      title: str | None = None) -> Figure:
    """Power against the number of items N, one curve per panel size K (study planner).

    With a ``cost`` column in ``curves`` a second panel shows power against total cost,
    where the panel sizes compete on price.

    Parameters
    ----------
    curves : pandas.DataFrame
        Columns ``panel_size, n_items, power_analytic`` and optionally ``cost``
        (``DesignResult.curves``).
    evaluated : pandas.DataFrame, optional
        Simulated points: ``panel_size, n_items, power_simulated, power_se``; drawn
        with +/- 2 SE bars.
    plans : pandas.DataFrame, optional
        ``DesignResult.plans``; the recommended plan is marked with a star.
    target : float, optional
        Target power (dashed line).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> c = pd.DataFrame({"panel_size": [1, 1, 3, 3], "n_items": [10, 100, 10, 100],
    ...                   "power_analytic": [0.2, 0.9, 0.3, 0.95]})
    >>> fig = plot_power_curves(c, target=0.8)
    >>> len(fig.axes), len(fig.axes[0].lines)
    (1, 3)
    """
    import numpy as np

    with_cost = "cost" in curves.columns
    fig, axes = new_figure(ncols=2 if with_cost else 1, width=4.6, height=3.6, sharey=True)
    ks = sorted(curves["panel_size"].unique())
    rec = None
    if plans is not None and "recommended" in plans and plans["recommended"].any():
        rec = plans[plans["recommended"]].iloc[0]
    shown = curves[curves["power_analytic"] >= 0.02]
    for j, xcol in enumerate(["n_items", "cost"] if with_cost else ["n_items"]):
        ax = axes[0, j]
        for i, k in enumerate(ks):
            color = PALETTE[i % len(PALETTE)]
            c = curves[curves["panel_size"] == k].sort_values("n_items")
            ax.plot(c[xcol], c["power_analytic"], color=color, lw=1.4, label=f"K = {k}")
            if evaluated is not None and len(evaluated):
                e = evaluated[evaluated["panel_size"] == k]
                x = e["n_items"] if xcol == "n_items" else np.interp(
                    e["n_items"], c["n_items"], c["cost"])
                ax.errorbar(x, e["power_simulated"], yerr=2 * e["power_se"], fmt="o", ms=3,
                            color=color, elinewidth=0.8, capsize=1.5)
        if rec is not None:
            y = rec["power_simulated"] if rec["power_simulated"] == rec["power_simulated"] \
                else rec["power_analytic"]
            ax.plot([rec[xcol]], [y], marker="*", ms=13, color="black", ls="none",
                    label=f"recommended: K = {int(rec['panel_size'])}, N = {int(rec['n_items'])}")
        if target is not None:
            ax.axhline(target, color="grey", ls="--", lw=0.9)
        ax.set_xscale("log")
        if len(shown) and shown[xcol].min() > 0:
            ax.set_xlim(left=shown[xcol].min() * 0.8)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("items N (log scale)" if xcol == "n_items" else "total cost (log scale)")
        ax.grid(alpha=0.3)
    axes[0, 0].set_ylabel("power")
    axes[0, 0].legend(fontsize=7.5, loc="upper left")
    fig.suptitle(title or "power (lines: exact; points: simulated ±2 SE)", fontsize=9)
    return fig
