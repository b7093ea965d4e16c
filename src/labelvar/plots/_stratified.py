"""Figures of stratified reports (paper Figures 2-4) from :func:`labelvar.stratify` tables.

The functions draw the tables they are given. Statistical tests are computed by
the caller (:func:`labelvar.bin_tests`, :func:`labelvar.paired_test`)
and passed in as ``tests``; a figure only turns their p-values into stars.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from labelvar.plots._style import (
    HUMAN_COLOR,
    MARKERS,
    PALETTE,
    checked_table,
    legend,
    metric_label,
    new_figure,
    series_colors,
)
from labelvar.plots._style import title as set_title

__all__ = ["AGREEMENT", "plot_delta_by_bin", "plot_gap_to_expected", "plot_stratified_scores",
           "plot_system_vs_system"]

#: column of a stratified table holding a bin's observed agreement (orders the bins)
AGREEMENT = "agreement"

_XLABEL = "observed agreement (stratum)"


def _stars(p) -> str:
    """Significance stars of a p-value (the display rule of :mod:`labelvar.evaluation`)."""
    from labelvar.evaluation._inference import stars

    return stars(float(p))


def _rows(tests, columns=None) -> pd.DataFrame:
    """The table of a result object (``.table``) or the DataFrame itself.

    With ``columns`` (a figure's table): refused in one line unless it is a DataFrame
    with those columns and at least one row.
    """
    if columns is None:
        return getattr(tests, "table", tests)
    return checked_table(tests, columns, what="a labelvar.stratify table")


def _strata_order(table) -> list:
    """Bins in agreement order (the :data:`AGREEMENT` column, else the labels' values), ``all`` last."""
    from labelvar.evaluation._stratified import stratum_order

    strata = [s for s in stratum_order(table["stratum"]) if s != "all"]
    if AGREEMENT in table.columns:
        level = table[table["stratum"] != "all"].groupby("stratum", sort=False)[AGREEMENT].mean()
        strata = sorted(strata, key=lambda s: (level.get(s, np.inf), strata.index(s)))
    return strata + (["all"] if "all" in set(table["stratum"]) else [])


def _random_baseline(metric: str, n_labels, m) -> np.ndarray:
    """Expected score of the random labeller (coin model at p_d = 1/L, labelvar.analytic)."""
    from labelvar.analytic import _closed_forms as analytic

    n_labels = np.asarray(n_labels, float)
    p_r = analytic.random_accuracy(n_labels)
    if metric == "accuracy":
        return np.asarray(p_r, float)
    if metric == "f1":  # binary F1 of the positive class; not defined here for L > 2
        f1 = np.asarray(analytic.expected_f1(p_r, np.asarray(m, float)), float)
        return np.where(n_labels == 2, f1, np.nan)
    return np.full(n_labels.shape, np.nan)


def _is_interval(label) -> bool:
    return str(label)[:1] in "[("


def _bin_ticks(ax, x, order, counts=None) -> None:
    """Bin tick labels (``n = ...`` below when given); interval bins are rotated."""
    labels = [str(s) if counts is None else f"{s}\nn = {counts[i]}" for i, s in enumerate(order)]
    if any(_is_interval(s) for s in order) and counts is None:
        ax.set_xticks(x, labels, rotation=30, ha="right", rotation_mode="anchor")
    else:
        ax.set_xticks(x, labels)


def _bin_size_ticks(ax, x, first) -> None:
    """Bin tick labels with the bin's S (items) and, where defined, m (positive share).

    ``first``: one row per bin (columns ``S``, ``m``), in the order of ``x``. An interval
    bin's label is split over two lines so that the labels stay side by side unrotated.
    """
    labels = []
    for s, row in first.iterrows():
        text = str(s).replace(", ", ",\n") if _is_interval(s) else str(s)
        if "S" in first.columns and row["S"] == row["S"]:
            text += f"\nS = {int(row['S'])}"
        if "m" in first.columns and row["m"] == row["m"]:
            text += f"\nm = {float(row['m']):.3f}"
        labels.append(text)
    ax.set_xticks(x, labels)


#: the reference a system is compared with, in the order the table's ``delta_human`` uses
#: it: the human group, else the leave-one-out simulated human, else the self-inclusive one
REFERENCE_ROLES = ("H", "H'-loo", "H'")
#: how each reference is named in a figure (H' always says which H' it is)
REFERENCE_NAMES = {"H": "H", "H'-loo": "H′ (leave-one-out)", "H'": "H′ (self-incl.)"}


def _reference_role(roles) -> str | None:
    """The reference role among ``roles``: the one ``delta_human`` was computed against."""
    roles = set(roles)
    return next((r for r in REFERENCE_ROLES if r in roles), None)


def _human_text(g, ref_role) -> str:
    """Legend text of the human reference: what its error bar is."""
    if ref_role == "H":
        names = g.loc[g["role"] == "human", "system"].unique()
        k = f"{len(names)} " if len(names) else ""
        return f"H: mean of {k}humans, bar ± sd across them"
    return f"{REFERENCE_NAMES[ref_role]}: simulated human, bar ± sd over draws"


def plot_stratified_scores(table, metric: str = "f1", *, tasks=None, include_all: bool = False,
                           ncols: int = 4, connectors: bool = True,
                           title: str | None = None) -> Figure:
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
    connectors : bool
        Join each system's point to the human reference's in its bin by a thin vertical
        line (its length is the table's ``delta_human``, Δ = H − system), as the
        paper's Figure 2 does. Drawn only where the reference was computed.
    title : str, optional
        Figure title (default: the metric, per agreement bin).

    Returns
    -------
    matplotlib.figure.Figure
        Per panel: each system (its own color and marker, Okabe & Ito up to 7
        systems, Tol muted up to 9) with its confidence interval (the table's
        ``ci_low``, ``ci_high``) as error bars, the systems spread a little
        around each bin so that their bars stay apart; the human group H or H'
        (black squares, error bars ± its ``sd``: across the humans for H, over
        the simulated draws for H'); the expected score E (the table's
        ``expected``, dashed) and the random labeller's expected score (dotted;
        the table's ``chance``, or :func:`labelvar.analytic.random_accuracy` for
        accuracy and :func:`labelvar.analytic.expected_f1` at p_d = 1/L for
        binary F1). Points of small bins (the table's ``small_bin``) are drawn
        open: they enter no test. Each bin's tick gives its S (items) and m (share
        of positive majority labels, binary tasks only), the table's ``S`` and ``m``.
        The legend says what each bar, line and mark is.

    Examples
    --------
    >>> from labelvar import stratify
    >>> from labelvar.evaluation import Intervals
    >>> from labelvar.evaluation import Paper
    >>> t = stratify([[1, 1, 1], [1, 1, 0], [0, 0, 0], [0, 1, 0]], {"ai": [1, 0, 0, 1]},
    ...              intervals=Intervals(n_resamples=0), paper=Paper(replicates=2))
    >>> plot_stratified_scores(t, "accuracy").axes[0].get_xlabel()
    'observed agreement (stratum)'
    """
    table = _rows(table, ("task", "system", "role", "stratum", "metric", "score"))
    sub = table[table["metric"] == metric]
    if sub.empty:
        raise ValueError(f"metric {metric!r} not in the table")
    if not include_all:
        sub = sub[sub["stratum"] != "all"]
    task_list = list(dict.fromkeys(sub["task"])) if tasks is None else list(tasks)
    n = len(task_list)
    nc = min(ncols, n)
    nr = -(-n // nc)
    systems_all = list(dict.fromkeys(sub.loc[sub["role"] == "system", "system"]))
    colors = series_colors(len(systems_all))
    # one or two panels: wide enough for the legend below them and the title
    fig, axes = new_figure(nr, nc, width=max(3.6, 6.4 / nc), height=3.0, sharey=True)
    any_small = any_connector = False
    drawn: set = set()
    flat = axes.ravel()
    has_ci = {"ci_low", "ci_high"} <= set(sub.columns)
    any_ci = False
    ref_text, ref_word = None, "H"
    for ax, task in zip(flat, task_list, strict=False):
        g = sub[sub["task"] == task]
        order = _strata_order(g)
        x = np.arange(len(order))
        first = g.drop_duplicates("stratum").set_index("stratum").loc[order]
        # only what was computed is drawn and named (no E for ordinal or probability
        # metrics, no H' unless it was simulated)
        if np.isfinite(first["expected"].to_numpy(float)).any():
            ax.plot(x, first["expected"], "--", color=HUMAN_COLOR, lw=1.1, label="E (expected)")
            drawn.add("E")
        chance = first["chance"] if "chance" in first.columns else \
            _random_baseline(metric, first["n_labels"], first["m"])
        if np.isfinite(np.asarray(chance, float)).any():
            ax.plot(x, chance, ":", color="grey", lw=1.2, label="random labeller")
        # the reference the table's delta_human (and the Δ figure) use: H, else H'-loo
        ref_role = _reference_role(g["role"]) or "H"
        ref = g[g["role"] == ref_role].set_index("stratum").reindex(order)
        if not (g["role"] == ref_role).any():
            ref = ref.iloc[:0]
        systems = [s for s in systems_all if (g["system"] == s).any()]
        step = min(0.12, 0.5 / max(len(systems_all), 1))
        for s in systems:
            i = systems_all.index(s)
            off = (i - (len(systems_all) - 1) / 2) * step
            rows = g[g["system"] == s].set_index("stratum").reindex(order)
            if connectors and not ref.empty:  # Δ = H − system, the paper's vertical lines
                ok = np.isfinite(rows["score"].to_numpy(float)) & np.isfinite(
                    ref["score"].to_numpy(float))
                if ok.any():
                    any_connector = True
                    ax.vlines((x + off)[ok], ref["score"].to_numpy(float)[ok],
                              rows["score"].to_numpy(float)[ok], color=colors[i], lw=2.4,
                              alpha=0.4, zorder=1.5, gid=f"connector:{s}")
            err = None
            if has_ci and rows[["ci_low", "ci_high"]].notna().any().any():
                any_ci = True
                err = np.vstack([(rows["score"] - rows["ci_low"]).clip(lower=0),
                                 (rows["ci_high"] - rows["score"]).clip(lower=0)]).astype(float)
            ax.errorbar(x + off, rows["score"].to_numpy(float), yerr=err, color=colors[i],
                        marker=MARKERS[i % len(MARKERS)], ms=3.5, lw=1.0, elinewidth=0.6,
                        capsize=1.2, label=s, gid=f"system:{s}")
            any_small |= _open_small(ax, x + off, rows, colors[i], MARKERS[i % len(MARKERS)],
                                     3.5, 3, f"small:{s}")
        if not ref.empty:
            ref_word = REFERENCE_NAMES[ref_role]
            drawn.add("humans" if ref_role == "H" else "simulated human")
            ref_text = _human_text(g, ref_role)
            ax.errorbar(x, ref["score"].to_numpy(float),
                        yerr=ref["sd"].fillna(0).to_numpy(float), fmt="s-",
                        color=HUMAN_COLOR, ms=4, lw=1.5, capsize=2.5, label=ref_role,
                        zorder=5, gid=f"reference:{ref_role}")
            any_small |= _open_small(ax, x, ref, HUMAN_COLOR, "s", 4, 6, f"small:{ref_role}")
        _bin_size_ticks(ax, x, first)
        ax.set_title(str(task))
        ax.set_xlabel(_XLABEL)
        vals = g[["score"] + [c for c in ("ci_low", "ci_high") if c in g.columns]]
        vals = vals.to_numpy(float)
        if not vals.size or np.nanmin(vals, initial=0.0) >= 0 and np.nanmax(vals, initial=0.0) <= 1:
            ax.set_ylim(-0.02, 1.02)  # scores on [0, 1]; others (cross-entropy, MAE) scale
    for ax in flat[n:]:
        ax.set_visible(False)
    label = metric_label(metric, sub["n_labels"].unique() if "n_labels" in sub.columns else ())
    for row in axes:
        row[0].set_ylabel(label)
    handles, labels = flat[0].get_legend_handles_labels()
    for ax in flat[1:n]:  # systems missing from the first task
        for h, lbl in zip(*ax.get_legend_handles_labels(), strict=True):
            if lbl not in labels:
                handles.append(h)
                labels.append(lbl)
    labels = [ref_text if lbl in REFERENCE_ROLES and ref_text else lbl for lbl in labels]
    for h, lbl in zip(handles, labels, strict=True):
        h.set_label(lbl)
    if any_ci:
        handles.append(Line2D([], [], color="0.3", marker="|", ms=8, ls="none",
                              label="system bars: confidence interval (ci_low, ci_high)"))
    if any_connector:
        handles.append(Line2D([], [], color="0.3", lw=2.4, alpha=0.4,
                              label=f"vertical line: Δ = {ref_word} − system"))
    if any_small:
        handles.append(_small_handle("open marker"))
    handles.append(Line2D([], [], ls="none", label="under each bin: S items, m positive share"
                          if "m" in sub.columns and sub["m"].notna().any()
                          else "under each bin: S items"))
    if n < flat.size:  # a free panel holds the legend
        spare = flat[n]
        spare.set_visible(True)
        spare.axis("off")
        legend(fig, handles, ax=spare, loc="center")
    else:  # entries are up to ~3 inches wide: as many columns as the figure holds
        ncol = max(1, min(4, len(handles), int(fig.get_figwidth() // 3.2)))
        legend(fig, handles, ncol=ncol)
        # the legend below, the title and the S/m ticks take their own height, not the
        # panels' (a single task used to get a third of the figure for its axes)
        rows = -(-len(handles) // ncol)
        fig.set_figheight(fig.get_figheight() + 0.2 * rows + 0.9)
    if title:
        set_title(fig, title)
    else:
        who = (["systems"] if systems_all else []) + [
            w for w in ("humans", "simulated human") if w in drawn] + (
            ["the coin model"] if "E" in drawn else [])
        set_title(fig, f"{label} per agreement bin",
                  (", ".join(who[:-1]) + " and " + who[-1] if len(who) > 1 else who[0])
                  if who else None)
    return fig


def _open_small(ax, x, rows, color, marker, ms, zorder, gid) -> bool:
    """Draw open markers over the points of small bins (``small_bin``); return whether any."""
    if "small_bin" not in rows.columns:
        return False
    small = rows["small_bin"].fillna(False).astype(bool).to_numpy()
    if not small.any():
        return False
    ax.plot(np.asarray(x, float)[small], rows["score"].to_numpy(float)[small], ls="none",
            marker=marker, ms=ms + 1.5, mfc="white", mec=color, mew=1.0, zorder=zorder + 0.5,
            gid=gid)
    return True


def _small_handle(what: str) -> Line2D:
    """Legend entry of the small-bin marking."""
    return Line2D([], [], ls="none", marker="o", ms=5, mfc="white", mec="0.3",
                  label=f"{what}: small bin (no test)")


def _bracket(ax, x0, x1, y, tick, text, color="black", gid=None):
    """A bracket over bins ``x0..x1`` at height ``y`` (legs ``tick`` long) and its text."""
    ax.plot([x0, x0, x1, x1], [y - tick, y, y, y - tick], color=color, lw=0.8,
            gid=gid and f"bracket:{gid}")
    ax.text((x0 + x1) / 2, y + tick / 2, text, ha="center", va="bottom", fontsize=8,
            color=color, gid=gid and f"label:{gid}")


#: what the stars mean (:data:`labelvar.evaluation._inference.STAR_LEVELS`)
STARS_TEXT = "stars: * p ≤ 0.05, ** ≤ 0.01,\n*** ≤ 0.001, **** ≤ 0.0001; ns: p > 0.05"


def _box_handles(bp, points: str, color) -> list:
    """Legend handles of a box plot: the points, the mean marker, the median and the box."""
    mean = bp["means"][0] if bp["means"] else None
    median = bp["medians"][0] if bp["medians"] else None
    handles = [Line2D([], [], color=color, marker="o", ms=3, ls="none", alpha=0.6,
                      label=f"one {points}")]
    if mean is not None:
        handles.append(Line2D([], [], ls="none", marker=mean.get_marker(), ms=5,
                              color=mean.get_markerfacecolor(),
                              markeredgecolor=mean.get_markeredgecolor(), label="mean"))
    if median is not None:
        handles.append(Line2D([], [], color=median.get_color(), lw=1.5, label="median"))
    handles.append(Line2D([], [], color="black", lw=1,
                          label="box: quartiles; whiskers: 1.5 × IQR"))
    return handles


def _per_bin(rows: pd.DataFrame, value: str, order) -> tuple[list, list]:
    """Per bin of ``order``: the values of ``value`` and which of them are in small bins."""
    flags = (rows["small_bin"].fillna(False).astype(bool) if "small_bin" in rows.columns
             else pd.Series(False, index=rows.index))
    data = [rows.loc[rows["stratum"] == s, value].to_numpy(float) for s in order]
    small = [flags[rows["stratum"] == s].to_numpy() for s in order]
    return data, small


def _bin_axes(order, height: float):
    """One axes for box plots per bin, wide enough for the bins' labels."""
    wide = any(_is_interval(s) for s in order)
    fig, axes = new_figure(1, 1, width=max(5.6, 1.4 + (1.05 if wide else 0.85) * len(order)),
                           height=height)
    return fig, axes[0, 0]


def _boxes(ax, data, order, color, small=None):
    """Box plots at 1..len(order) with the points jittered over them (seeded jitter).

    ``small``: per box, which points come from a small bin (drawn open, gid ``small:``).
    """
    bp = ax.boxplot(data, showmeans=True, widths=0.5, showfliers=False,
                    medianprops=dict(color=PALETTE[1], lw=1.5),
                    meanprops=dict(marker="^", markerfacecolor=PALETTE[2],
                                   markeredgecolor="black", markersize=5))
    rng = np.random.default_rng(0)  # horizontal jitter of the points only
    for i, d in enumerate(data):
        x = i + 1 + rng.uniform(-0.12, 0.12, d.size)
        sm = np.zeros(d.size, bool) if small is None else np.asarray(small[i], bool)
        ax.plot(x[~sm], d[~sm], "o", color=color, ms=3, alpha=0.6, gid=f"points:{order[i]}")
        if sm.any():
            ax.plot(x[sm], d[sm], "o", mfc="white", mec=color, ms=3.5,
                    gid=f"small:{order[i]}")
    counts = [int(d.size) for d in data]
    _bin_ticks(ax, np.arange(1, len(order) + 1), order, counts)
    return bp


_VALUE_LABELS = {"delta_human": "Δ = {ref} − system", "delta_expected": "Δ = E − system",
                 "score": "score"}


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
                      tests=None, title: str | None = None) -> Figure:
    """Box plots of a gap over systems x tasks, per bin (Figure 3).

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`labelvar.stratify`.
    metric : str
        Metric to show.
    value : str
        Column plotted (``delta_human`` = H − M, ``delta_expected`` = E − M, ``score``).
    tests : pandas.DataFrame or result object, optional
        Bin tests computed by the caller (:func:`labelvar.bin_tests`: columns
        ``stratum_a, stratum_b, welch_p, levene_p``; rows for other metrics or
        values are ignored). Without them no bracket is drawn.
    title : str, optional
        Figure title (default: what is plotted).

    Returns
    -------
    matplotlib.figure.Figure
        One box per stratum (``all`` included) with the points (one per system x
        task) and ``n`` (the number of points) under each bin; with ``tests`` the
        two compared bins are joined by brackets giving Welch's t-test (black) and
        Levene's test (blue) as stars (``ns`` when p > 0.05, ``no test`` when the
        test has a NaN p-value, e.g. fewer than 3 values per bin). Points from
        small bins (``small_bin``, left out of the tests) are drawn open. The
        legend explains points, mean, median, box and stars.

    Examples
    --------
    >>> import pandas as pd
    >>> from labelvar import bin_tests
    >>> t = pd.DataFrame({"role": "system", "metric": "f1", "task": "t",
    ...                   "stratum": ["0.60"] * 4 + ["1.00"] * 4,
    ...                   "delta_human": [0.0, 0.02, -0.01, 0.01, 0.3, 0.1, 0.25, 0.4]})
    >>> fig = plot_delta_by_bin(t, tests=bin_tests(t))
    >>> sorted(x.get_text() for x in fig.axes[0].texts)
    ['Levene ns', 'Welch *']
    >>> fig.axes[0].get_ylabel()
    'Δ = H − system ($F_1$)'
    """
    table = _rows(table, ("role", "stratum", "metric", value))
    sub = table[(table["metric"] == metric) & (table["role"] == "system")]
    if sub.empty:
        raise ValueError(f"no system rows for metric {metric!r}")
    order = _strata_order(sub)
    data, small = _per_bin(sub[sub[value].notna()], value, order)
    fig, ax = _bin_axes(order, height=4.2)
    bp = _boxes(ax, data, order, PALETTE[0], small)
    handles = _box_handles(bp, "system × task", PALETTE[0])
    if any(m.any() for m in small):
        handles.append(_small_handle("open point"))
    if value != "score":  # a gap's zero line
        ax.axhline(0, color="grey", lw=0.8, ls=":")
    row = _select_test(tests, metric, value) if tests is not None else None
    if row is not None and row["stratum_a"] in order and row["stratum_b"] in order:
        x0, x1 = order.index(row["stratum_a"]) + 1, order.index(row["stratum_b"]) + 1
        allv = np.concatenate(data)
        top, bottom = float(np.nanmax(allv)), float(np.nanmin(allv))
        if value != "score":  # a gap: its zero line stays in view
            top, bottom = max(top, 0.0), min(bottom, 0.0)
        # the data fill the lower 68 % of the axes, each bracket and its text ~13 % above:
        # an 8-pt label is ~7 % of an axes 2.2 in high, so text and next bracket stay apart
        rng = max(top - bottom, 0.05) / 0.68
        for i, (name, p, color) in enumerate((("Welch", row["welch_p"], "black"),
                                              ("Levene", row["levene_p"], PALETTE[0]))):
            # no test (fewer than 3 values per bin, NaN p): said, never a star
            _bracket(ax, x0, x1, bottom + rng * (0.74 + 0.13 * i), 0.02 * rng,
                     f"{name} {_stars(p) or 'no test'}", color=color, gid=name.lower())
        ax.set_ylim(bottom - 0.03 * rng, bottom + rng)
        ticks = ax.get_yticks()  # no value ticks beside the brackets (e.g. accuracy 1.2)
        ax.set_yticks(ticks[(ticks >= bottom - 0.03 * rng) & (ticks <= top + 1e-9)])
        handles += [Line2D([], [], color="black", lw=0.8,
                           label="Welch's t-test: same mean?"),
                    Line2D([], [], color=PALETTE[0], lw=0.8,
                           label="Levene's test: same spread?"),
                    Line2D([], [], ls="none", label=STARS_TEXT)]
        if "not independent" in str(row.get("note", "")):  # systems share tasks
            handles.append(Line2D([], [], ls="none", label="the tests take the points as "
                                  "independent;\npoints of one task are not: p optimistic"))
    ref = "H"
    if value == "delta_human":
        roles = set(table.loc[table["metric"] == metric, "role"])
        ref = REFERENCE_NAMES[_reference_role(roles) or "H"]
    mlabel = metric_label(metric, sub["n_labels"].unique() if "n_labels" in sub.columns else ())
    vlabel = _VALUE_LABELS.get(value, value).format(ref=ref)
    ax.set_xlabel(_XLABEL)
    ax.set_ylabel(f"{vlabel} ({mlabel})")
    ax.grid(False, axis="x")
    legend(fig, handles, ncol=2)
    set_title(fig, title or f"{vlabel} per agreement bin ({mlabel})", _grid_text(sub))
    return fig


def _grid_text(sub) -> str | None:
    """``4 systems × 2 tasks``; ``6 of 4 systems × 2 tasks`` when not every system ran every task."""
    if not {"system", "task"} <= set(sub.columns):
        return None
    n_sys, n_task = sub["system"].nunique(), sub["task"].nunique()
    pairs = len(sub[["system", "task"]].drop_duplicates())
    grid = f"{_count(n_sys, 'system')} × {_count(n_task, 'task')}"
    return grid if pairs == n_sys * n_task else f"{pairs} (system, task) pairs of {grid}"


def plot_system_vs_system(table, system_a: str, system_b: str, metric: str = "f1", *,
                          tests=None, title: str | None = None) -> Figure:
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
    title : str, optional
        Figure title (default: ``a − b (metric)``).

    Returns
    -------
    matplotlib.figure.Figure
        One box of differences ``a - b`` per stratum with the points (one per
        task) and ``n`` under each bin, the tests' stars above it; points from
        small bins (left out of the tests) are open; the legend explains points,
        mean, median, box and stars.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"metric": "f1", "stratum": ["1.00"] * 6,
    ...                   "task": ["a", "b", "c"] * 2, "system": ["x"] * 3 + ["y"] * 3,
    ...                   "score": [0.9, 0.8, 0.85, 0.7, 0.75, 0.6]})
    >>> plot_system_vs_system(t, "x", "y").axes[0].get_title()
    'x − y ($F_1$)'
    """
    table = _rows(table, ("task", "system", "stratum", "metric", "score"))
    sub = table[(table["metric"] == metric) & table["system"].isin([system_a, system_b])]
    for s in (system_a, system_b):
        if s not in set(sub["system"]):
            raise ValueError(f"system {s!r} has no {metric!r} rows in the table")
    wide = sub.pivot_table(index=["task", "stratum"], columns="system", values="score",
                           aggfunc="first").dropna()
    wide["d"] = wide[system_a] - wide[system_b]
    if "small_bin" in sub.columns:
        flag = sub.assign(small_bin=sub["small_bin"].fillna(False).astype(bool)).groupby(
            ["task", "stratum"])["small_bin"].any()
        wide["small"] = flag.reindex(wide.index).fillna(False).astype(bool)
    else:
        wide["small"] = False
    order = _strata_order(sub[sub.set_index(["task", "stratum"]).index.isin(wide.index)])
    data = [wide.xs(s, level="stratum")["d"].to_numpy(float) for s in order]
    small = [wide.xs(s, level="stratum")["small"].to_numpy(bool) for s in order]
    wide_labels = any(_is_interval(s) for s in order)
    fig, axes = new_figure(1, 1, width=max(5.6, 1.4 + (1.05 if wide_labels else 0.85)
                                           * len(order)), height=3.8)
    ax = axes[0, 0]
    bp = _boxes(ax, data, order, PALETTE[1], small)
    handles = _box_handles(bp, "task", PALETTE[1])
    if any(m.any() for m in small):
        handles.append(_small_handle("open point"))
    allv = np.concatenate(data) if data else np.zeros(1)
    top = float(np.nanmax(allv))
    bottom = float(np.nanmin(allv))
    span = max(top - bottom, 0.05)
    ax.set_ylim(min(bottom, 0.0) - 0.05 * span, top + 0.15 * span)
    stars = {}
    if tests is not None:
        rows = _rows(tests)
        # no test (fewer than 3 pairs, NaN p): said, never a star
        stars = {s: _stars(p) or "no test"
                 for s, p in zip(rows["stratum"], rows["p"], strict=True)}
        handles.append(Line2D([], [], ls="none",
                              label=f"paired t-test across tasks,\n{STARS_TEXT}"))
    for i, s in enumerate(order):
        ax.text(i + 1, top + 0.05 * span, stars.get(s, "no test" if tests is not None else ""),
                ha="center", fontsize=8)
    ax.axhline(0, color="grey", lw=0.8, ls=":")
    mlabel = metric_label(metric, sub["n_labels"].unique() if "n_labels" in sub.columns else ())
    # the names go in the panel title (wrapped), the y label stays short: a rotated
    # label longer than the axes runs up into the titles
    ax.set_title(textwrap.fill(f"{system_a} − {system_b} ({mlabel})",
                               max(30, int(fig.get_figwidth() * 11))))
    ax.set_xlabel(_XLABEL)
    ax.set_ylabel(f"Δ, as titled ({mlabel})" if len(system_a) + len(system_b) > 24
                  else f"Δ = {system_a} − {system_b} ({mlabel})")
    ax.grid(False, axis="x")
    legend(fig, handles, ncol=2)
    n_tasks = wide.index.get_level_values("task").nunique()
    set_title(fig, title or f"Paired differences across {n_tasks} tasks "
              "(both systems scored on the same items)")
    return fig


def plot_gap_to_expected(table, metric: str = "accuracy", *, tests=None,
                         title: str | None = None) -> Figure:
    r"""Box plots of :math:`\Delta_{E-M}` = E − score over systems x tasks, per bin (Figure 8).

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`labelvar.stratify` (rows of role ``system`` with an
        ``expected`` score are drawn).
    metric : str
        Metric to show.
    tests : pandas.DataFrame or result object, optional
        The paired tests of E against the scores computed by the caller
        (:func:`labelvar.evaluation.expected_gap_test`: columns ``stratum, p``); their
        stars are written above each bin.
    title : str, optional
        Figure title (default: what is plotted).

    Returns
    -------
    matplotlib.figure.Figure
        One box per bin (``all`` last) with its points (one per system x task) and
        ``n`` under it; a dotted line at 0 (a system scoring what the coin model
        expects); with ``tests`` the paired t-test's stars above each bin (``no
        test`` for fewer than 3 pairs). Points of small bins are open.

    Examples
    --------
    >>> import pandas as pd
    >>> from labelvar.evaluation import expected_gap_test
    >>> t = pd.DataFrame({"role": "system", "system": "m", "metric": "accuracy",
    ...                   "task": list("abcd") * 2, "stratum": ["0.60"] * 4 + ["1.00"] * 4,
    ...                   "expected": [0.6] * 4 + [1.0] * 4,
    ...                   "score": [0.55, 0.62, 0.58, 0.6, 0.7, 0.8, 0.75, 0.85]})
    >>> t["delta_expected"] = t["expected"] - t["score"]
    >>> fig = plot_gap_to_expected(t, tests=expected_gap_test(t))
    >>> sorted(x.get_text() for x in fig.axes[0].texts)
    ['**', 'ns']
    """
    table = _rows(table, ("task", "role", "stratum", "metric", "delta_expected"))
    sub = table[(table["metric"] == metric) & (table["role"] == "system")]
    sub = sub[sub["delta_expected"].notna()] if "delta_expected" in sub.columns else sub.iloc[:0]
    if sub.empty:
        raise ValueError(f"no system rows with an expected score for metric {metric!r}")
    order = _strata_order(sub)
    data, small = _per_bin(sub, "delta_expected", order)
    fig, ax = _bin_axes(order, height=3.8)
    bp = _boxes(ax, data, order, PALETTE[2], small)
    n_tasks = sub["task"].nunique() if "task" in sub.columns else 1
    handles = _box_handles(bp, "system × task" if n_tasks > 1 else "system", PALETTE[2])
    if any(m.any() for m in small):
        handles.append(_small_handle("open point"))
    allv = np.concatenate(data)
    top, bottom = float(np.nanmax(allv)), float(np.nanmin(allv))
    span = max(top - bottom, 0.05)
    ax.set_ylim(min(bottom, 0.0) - 0.05 * span, max(top, 0.0) + 0.18 * span)
    if tests is not None:
        rows = _rows(tests)
        stars = {s: _stars(p) or "no test" for s, p in zip(rows["stratum"], rows["p"], strict=True)}
        for i, s in enumerate(order):
            ax.text(i + 1, max(top, 0.0) + 0.06 * span, stars.get(s, "no test"), ha="center",
                    fontsize=8)
        handles.append(Line2D([], [], ls="none",
                              label=f"paired t-test E vs score per bin,\n{STARS_TEXT}"))
    ax.axhline(0, color="grey", lw=0.8, ls=":")
    mlabel = metric_label(metric, sub["n_labels"].unique() if "n_labels" in sub.columns else ())
    ax.set_xlabel(_XLABEL)
    ax.set_ylabel(f"Δ = E − system ({mlabel})")
    ax.grid(False, axis="x")
    legend(fig, handles, ncol=2)
    set_title(fig, title or f"Expected minus actual {mlabel} per agreement bin",
              (_count(sub["system"].nunique(), "system") + " × " if "system" in sub.columns
               else "") + _count(n_tasks, "task") + "; E: the coin model at the bin's agreement")
    return fig


def _count(n: int, what: str) -> str:
    """``1 system``, ``4 systems``."""
    return f"{n} {what}" + ("" if n == 1 else "s")
