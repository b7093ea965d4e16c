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
    rows = table[(table["stratum"].astype(str) == stratum) & table["metric"].isin(metrics)]
    if labellers is not None:
        rows = rows[rows["labeller"].isin(labellers)]
    if rows.empty:
        raise ValueError(f"table has no rows with metric in {list(metrics)} and stratum {stratum!r}")
    for axis in ("m", "n_items", "n_labels", "panel_size", "mode"):
        if axis in rows.columns and axis not in vary and rows[axis].nunique() > 1:
            raise ValueError(f"table has several values of {axis} ({sorted(rows[axis].unique())}); "
                             f"select one before plotting")
    return rows


def _axis_value_label(axis: str, value) -> str:
    if isinstance(value, float) and float(value).is_integer() and axis != "m":
        value = int(value)
    return f"${_SYMBOLS.get(axis, axis)}$ = {value:g}" if isinstance(value, (int, float)) \
        else f"{axis} = {value}"


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
        for i, value in enumerate(colours):
            colour = PALETTE[i % len(PALETTE)]
            for lab in present:
                s = sub[(sub[colour_by] == value) & (sub["labeller"] == lab)].sort_values("p_d")
                if s.empty:
                    continue
                style, marker = _LABELLER_STYLE.get(lab, ("-", "o"))
                if {"q05", "q95"} <= set(s.columns):
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
    handles.append(Patch(color="0.3", alpha=0.18, label="5–95 % of replicates"))
    axes[0][-1].legend(handles=handles, fontsize=7, loc="upper left", framealpha=0.9)
    n = _single(rows, "n_items")
    fig.suptitle("Expert vs random labeller" + (f" (N = {n:g} items)" if n is not None else ""),
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

# --------------------------------------------------------------------------- design (issue 6)
