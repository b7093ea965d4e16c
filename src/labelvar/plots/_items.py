"""Figures of item models checked on held-out votes (predicted vs observed agreement)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from labelvar.plots._style import (
    HUMAN_COLOR,
    LINESTYLES,
    checked_table,
    legend,
    new_figure,
    series_style,
)
from labelvar.plots._style import title as set_title

__all__ = ["plot_item_models"]

#: columns :func:`plot_item_models` reads
COLUMNS = ("data", "K", "model", "bin", "agreement", "predicted", "held_out", "error")


def plot_item_models(table, *, title: str | None = None) -> Figure:
    """Predicted against held-out agreement per observed-agreement bin, one panel per (data, K).

    Parameters
    ----------
    table : pandas.DataFrame
        One row per (``data``, ``K``, ``model``, ``bin``): the bin's observed agreement
        of the K pilot votes (``agreement``, top / K), the model's mean predicted
        probability that one more annotator agrees with the K-vote plurality
        (``predicted``) and the share of held-out votes that do (``held_out``); rows
        with ``bin == "weighted"`` carry each model's item-weighted mean absolute
        error (``error``). ``scripts/validate_item_models.py`` writes this table.
        Models whose name starts with ``AIC-selected`` repeat another model's rows
        and are not drawn again.
    title : str, optional
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
        Rows: data sets; columns: K. Per panel the held-out votes (black dots) and
        each model's predictions (its own color, marker and line style, the same in
        every panel); the panel's corner names the model of least error and gives
        its error beside the paper's rule's (``E = p_d``, when present). One legend
        below the panels.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [dict(data="d", K=3, model=m, bin=b, agreement=a, predicted=p, held_out=h,
    ...              error=e)
    ...         for m, off in (("E = p_d", 0.0), ("fit", -0.1))
    ...         for b, a, p, h, e in (("0.67", 2 / 3, 2 / 3 + off, 0.6, np.nan),
    ...                               ("1.00", 1.0, 1.0 + off, 0.85, np.nan),
    ...                               ("weighted", np.nan, np.nan, np.nan, 0.1 + off / 2))]
    >>> fig = plot_item_models(pd.DataFrame(rows))
    >>> fig.axes[0].get_title(), len(fig.legends[0].get_texts())
    ('d, K = 3', 3)
    """
    missing = [c for c in COLUMNS if c not in getattr(table, "columns", COLUMNS)]
    if missing:
        raise ValueError(f"table: missing column(s) {', '.join(missing)} "
                         f"(expected {', '.join(COLUMNS)})")
    table = checked_table(table, COLUMNS, what="an item-model check table")
    table = table[~table["model"].astype(str).str.startswith("AIC-selected")]
    datasets = list(dict.fromkeys(table["data"]))
    ks = list(dict.fromkeys(table["K"]))
    models = list(dict.fromkeys(table["model"]))
    fig, axes = new_figure(len(datasets), len(ks), width=3.3, height=2.9, sharey=True)
    bins = table[table["bin"] != "weighted"]
    weighted = table[table["bin"] == "weighted"].set_index(["data", "K", "model"])["error"]
    for r, data in enumerate(datasets):
        for c, k in enumerate(ks):
            ax = axes[r, c]
            t = bins[(bins["data"] == data) & (bins["K"] == k)]
            obs = t.drop_duplicates("bin").sort_values("agreement")
            for i, model in enumerate(models):
                g = t[t["model"] == model].sort_values("agreement")
                if g.empty:
                    continue
                ax.plot(g["agreement"], g["predicted"], lw=1.1, ms=3.5,
                        ls=LINESTYLES[i % len(LINESTYLES)], gid=f"model:{model}",
                        **series_style(i, len(models)))
            ax.plot(obs["agreement"], obs["held_out"], "o", color=HUMAN_COLOR, ms=5.5,
                    zorder=5, gid="held_out")
            errs = {m: float(weighted.get((data, k, m), np.nan)) for m in models}
            errs = {m: e for m, e in errs.items() if e == e}
            if errs:
                best = min(errs, key=errs.get)
                lines = [f"least error: {best}", f"|error| {errs[best]:.3f}"]
                if "E = p_d" in errs and best != "E = p_d":
                    lines[-1] += f" (E = p_d: {errs['E = p_d']:.3f})"
                ax.text(0.98, 0.03, "\n".join(lines), transform=ax.transAxes, ha="right",
                        va="bottom", fontsize=7, gid="errors")
            ax.set_title(f"{data}, K = {k}")
            ax.set_xlabel("agreement of the K votes (top / K)")
            if c == 0:
                ax.set_ylabel("P(next annotator agrees)")
    handles = [Line2D([], [], ls="none", marker="o", color=HUMAN_COLOR, ms=5.5,
                      label="held-out votes (share agreeing)")]
    handles += [Line2D([], [], lw=1.1, ms=3.5, ls=LINESTYLES[i % len(LINESTYLES)],
                       label=m, **series_style(i, len(models))) for i, m in enumerate(models)]
    legend(fig, handles, ncol=min(4, len(handles)))
    set_title(fig, title or "Agreement of one more annotator with the K-vote plurality",
              "predicted by each item model vs the held-out votes; per panel the least "
              "item-weighted mean |error| over bins")
    return fig
