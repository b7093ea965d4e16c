"""Figures of stratified reports (paper Figures 2-4) from :func:`labelvar.stratify` tables.

The functions draw the tables they are given. Statistical tests are computed by
the caller (:func:`labelvar.bin_tests`, :func:`labelvar.paired_test`)
and passed in as ``tests``; a figure only turns their p-values into stars.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from labelvar.plots._style import PALETTE, new_figure

__all__ = ["AGREEMENT", "plot_delta_by_bin", "plot_stratified_scores", "plot_system_vs_system"]

#: column of a stratified table holding a bin's observed agreement (orders the bins)
AGREEMENT = "agreement"

_XLABEL = "observed agreement (stratum)"


def _stars(p) -> str:
    """Significance stars of a p-value (the display rule of :mod:`labelvar.inference`)."""
    from labelvar.inference import stars

    return stars(float(p))


def _rows(tests) -> pd.DataFrame:
    """The table of a result object (``.table``) or the DataFrame itself."""
    return getattr(tests, "table", tests)


def _strata_order(table) -> list:
    """Bins in agreement order (the :data:`AGREEMENT` column, else the labels' values), ``all`` last."""
    from labelvar.stratified import stratum_order

    strata = [s for s in stratum_order(table["stratum"]) if s != "all"]
    if AGREEMENT in table.columns:
        level = table[table["stratum"] != "all"].groupby("stratum", sort=False)[AGREEMENT].mean()
        strata = sorted(strata, key=lambda s: (level.get(s, np.inf), strata.index(s)))
    return strata + (["all"] if "all" in set(table["stratum"]) else [])


def _random_baseline(metric: str, n_labels, m) -> np.ndarray:
    """Expected score of the random labeller (coin model at p_d = 1/L, labelvar.analytic)."""
    from labelvar import analytic

    n_labels = np.asarray(n_labels, float)
    p_r = analytic.random_accuracy(n_labels)
    if metric == "accuracy":
        return np.asarray(p_r, float)
    if metric == "f1":  # binary F1 of the positive class; not defined here for L > 2
        f1 = np.asarray(analytic.expected_f1(p_r, np.asarray(m, float)), float)
        return np.where(n_labels == 2, f1, np.nan)
    return np.full(n_labels.shape, np.nan)


def plot_stratified_scores(table, metric: str = "f1", *, tasks=None, include_all: bool = False,
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
        expected score E (the table's ``expected``, dashed) and the random
        labeller's expected score (dotted; :func:`labelvar.analytic.random_accuracy`
        for accuracy, :func:`labelvar.analytic.expected_f1` at p_d = 1/L for binary F1).

    Examples
    --------
    >>> from labelvar import stratify
    >>> t = stratify([[1, 1, 1], [1, 1, 0], [0, 0, 0], [0, 1, 0]], {"ai": [1, 0, 0, 1]},
    ...              n_boot=0, simulated_human=2)
    >>> plot_stratified_scores(t, "accuracy").axes[0].get_xlabel()
    'observed agreement (stratum)'
    """
    table = _rows(table)
    sub = table[table["metric"] == metric]
    if sub.empty:
        raise ValueError(f"metric {metric!r} not in the table")
    if not include_all:
        sub = sub[sub["stratum"] != "all"]
    task_list = list(dict.fromkeys(sub["task"])) if tasks is None else list(tasks)
    n = len(task_list)
    nc = min(ncols, n)
    nr = -(-n // nc)
    fig, axes = new_figure(nr, nc, width=3.6, height=3.0, sharey=True)
    flat = axes.ravel()
    for ax, task in zip(flat, task_list, strict=False):
        g = sub[sub["task"] == task]
        order = _strata_order(g)
        x = np.arange(len(order))
        first = g.drop_duplicates("stratum").set_index("stratum").loc[order]
        ax.plot(x, first["expected"], "k--", lw=1.2, label="E (expected)")
        chance = first["chance"] if "chance" in first.columns else \
            _random_baseline(metric, first["n_labels"], first["m"])
        ax.plot(x, chance, ":", color="grey", lw=1.2, label="random labeller")
        ref_role = "H" if (g["role"] == "H").any() else "H'"
        ref = g[g["role"] == ref_role].set_index("stratum").reindex(order)
        systems = list(dict.fromkeys(g.loc[g["role"] == "system", "system"]))
        colors = PALETTE[:-1]  # black is the human reference
        for i, s in enumerate(systems):
            sc = g[g["system"] == s].set_index("stratum").reindex(order)["score"]
            style = ("o-", "v--", "D-.")[(i // len(colors)) % 3]
            ax.plot(x, sc, style, color=colors[i % len(colors)], ms=4, lw=1.2, label=s)
            if not ref.empty:
                ax.vlines(x, sc, ref["score"], color=colors[i % len(colors)], lw=0.6,
                          alpha=0.6)
        if not ref.empty:
            ax.errorbar(x, ref["score"], yerr=ref["sd"].fillna(0), fmt="s-", color="black",
                        ms=4, lw=1.5, capsize=2, label=ref_role)
        ax.set_xticks(x, order)
        ax.set_title(str(task), fontsize=9)
        ax.set_xlabel(_XLABEL)
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


def _box_legend(ax, bp, points: str, color) -> None:
    """Legend of a box plot: the points, the mean marker and the box."""
    mean = bp["means"][0] if bp["means"] else None
    handles = [Line2D([], [], color=color, marker="o", ms=3, ls="none", alpha=0.6, label=points)]
    if mean is not None:
        handles.append(Line2D([], [], ls="none", marker=mean.get_marker(),
                              color=mean.get_markerfacecolor(), label="mean"))
    handles.append(Line2D([], [], color="black", lw=1, label="median, quartiles"))
    ax.legend(handles=handles, fontsize=7, loc="lower left", frameon=False)


def _select_test(tests, metric: str, value: str):
    """The one bin-test row for (metric, value), or None."""
    rows = _rows(tests)
    if rows is None or len(rows) == 0:
        return None
    for col, want in (("metric", metric), ("value", value)):
        if col in rows.columns:
            rows = rows[rows[col] == want]
    return None if rows.empty else rows.iloc[0]


def plot_delta_by_bin(table, metric: str = "f1", *, value: str = "delta_human",
                      tests=None) -> Figure:
    """Box plots of a gap over systems x tasks, per bin (Figure 3).

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`labelvar.stratify`.
    metric : str
        Metric to show.
    value : str
        Column plotted (``delta_human`` = H − M, ``delta_expected``, ``score``).
    tests : pandas.DataFrame or result object, optional
        Bin tests computed by the caller (:func:`labelvar.bin_tests`: columns
        ``stratum_a, stratum_b, welch_p, levene_p``; rows for other metrics or
        values are ignored). Without them no bracket is drawn.

    Returns
    -------
    matplotlib.figure.Figure
        One box per stratum (``all`` included) with the points; with ``tests`` the
        two compared bins are joined by brackets giving Welch's t-test (black) and
        Levene's test (blue) as stars (``ns`` when p > 0.05, ``no test`` when the
        test has a NaN p-value, e.g. fewer than 3 values per bin).

    Examples
    --------
    >>> import pandas as pd
    >>> from labelvar import bin_tests
    >>> t = pd.DataFrame({"role": "system", "metric": "f1", "task": "t",
    ...                   "stratum": ["0.60"] * 4 + ["1.00"] * 4,
    ...                   "delta_human": [0.0, 0.02, -0.01, 0.01, 0.3, 0.1, 0.25, 0.4]})
    >>> ax = plot_delta_by_bin(t, tests=bin_tests(t)).axes[0]
    >>> sorted(x.get_text() for x in ax.texts)
    ['Levene ns', 'Welch *']
    """
    table = _rows(table)
    sub = table[(table["metric"] == metric) & (table["role"] == "system")]
    if sub.empty:
        raise ValueError(f"no system rows for metric {metric!r}")
    order = _strata_order(sub)
    data = [sub.loc[sub["stratum"] == s, value].dropna().to_numpy(float) for s in order]
    fig, axes = new_figure(1, 1, width=1.0 + 0.9 * len(order), height=3.4)
    ax = axes[0, 0]
    bp = ax.boxplot(data, tick_labels=order, showmeans=True, widths=0.5, showfliers=False)
    _box_legend(ax, bp, "system × task", PALETTE[0])
    rng = np.random.default_rng(0)  # horizontal jitter of the points only
    for i, d in enumerate(data):
        ax.plot(i + 1 + rng.uniform(-0.12, 0.12, d.size), d, "o", color=PALETTE[0], ms=3,
                alpha=0.6, gid=f"points:{order[i]}")
    ax.axhline(0, color="grey", lw=0.8, ls=":")
    row = _select_test(tests, metric, value) if tests is not None else None
    if row is not None and row["stratum_a"] in order and row["stratum_b"] in order:
        x0, x1 = order.index(row["stratum_a"]) + 1, order.index(row["stratum_b"]) + 1
        top = max(float(np.nanmax(np.concatenate(data))), 0.0) + 0.03
        for i, (name, p, color) in enumerate((("Welch", row["welch_p"], "black"),
                                              ("Levene", row["levene_p"], PALETTE[0]))):
            # no test (fewer than 3 values per bin, NaN p): said, never a star
            _bracket(ax, x0, x1, top + 0.08 * i, f"{name} {_stars(p) or 'no test'}",
                     color=color)
        ax.set_ylim(top=top + 0.16)
    ax.set_xlabel(_XLABEL)
    ax.set_ylabel(f"{value} ({metric})")
    ax.grid(alpha=0.3, axis="y")
    return fig


def plot_system_vs_system(table, system_a: str, system_b: str, metric: str = "f1", *,
                          tests=None) -> Figure:
    """Paired differences ``a - b`` across tasks, per bin (Figure 4).

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`labelvar.stratify`.
    system_a, system_b : str
        Systems compared.
    metric : str
        Metric to show.
    tests : pandas.DataFrame or result object, optional
        The paired t-tests computed by the caller (:func:`labelvar.paired_test`:
        columns ``stratum, p``); their stars are written above each bin.

    Returns
    -------
    matplotlib.figure.Figure
        One box of differences ``a - b`` per stratum, the tests' stars above it.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"metric": "f1", "stratum": ["1.00"] * 6,
    ...                   "task": ["a", "b", "c"] * 2, "system": ["x"] * 3 + ["y"] * 3,
    ...                   "score": [0.9, 0.8, 0.85, 0.7, 0.75, 0.6]})
    >>> plot_system_vs_system(t, "x", "y").axes[0].get_title()
    'x − y (f1)'
    """
    table = _rows(table)
    sub = table[(table["metric"] == metric) & table["system"].isin([system_a, system_b])]
    for s in (system_a, system_b):
        if s not in set(sub["system"]):
            raise ValueError(f"system {s!r} has no {metric!r} rows in the table")
    wide = sub.pivot_table(index=["task", "stratum"], columns="system", values="score",
                           aggfunc="first").dropna()
    wide["d"] = wide[system_a] - wide[system_b]
    order = _strata_order(sub[sub.set_index(["task", "stratum"]).index.isin(wide.index)])
    data = [wide.xs(s, level="stratum")["d"].to_numpy(float) for s in order]
    fig, axes = new_figure(1, 1, width=1.0 + 0.9 * len(order), height=3.4)
    ax = axes[0, 0]
    bp = ax.boxplot(data, tick_labels=order, showmeans=True, widths=0.5, showfliers=False)
    _box_legend(ax, bp, "task", PALETTE[1])
    rng = np.random.default_rng(0)  # horizontal jitter of the points only
    allv = np.concatenate(data) if data else np.zeros(1)
    top = float(np.nanmax(allv))
    bottom = float(np.nanmin(allv))
    span = max(top - bottom, 0.05)
    ax.set_ylim(min(bottom, 0.0) - 0.05 * span, top + 0.15 * span)
    stars = {}
    if tests is not None:
        rows = _rows(tests)
        stars = {s: _stars(p) for s, p in zip(rows["stratum"], rows["p"], strict=True)}
    for i, (s, d) in enumerate(zip(order, data, strict=True)):
        ax.plot(i + 1 + rng.uniform(-0.12, 0.12, d.size), d, "o", color=PALETTE[1], ms=3,
                alpha=0.6, gid=f"points:{s}")
        ax.text(i + 1, top + 0.05 * span, stars.get(s, ""), ha="center", fontsize=8)
    ax.axhline(0, color="grey", lw=0.8, ls=":")
    ax.set_title(f"{system_a} − {system_b} ({metric})")
    ax.set_xlabel(_XLABEL)
    ax.set_ylabel(f"Δ {metric}" + (" (paired t-test)" if tests is not None else ""))
    ax.grid(alpha=0.3, axis="y")
    return fig
