"""Power-curve figure of the study planner (:func:`labelvar.plan_study`)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from labelvar.plots._style import PALETTE, new_figure

__all__ = ["plot_power_curves"]


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
    with_cost = "cost" in curves.columns
    fig, axes = new_figure(1, 2 if with_cost else 1, width=4.6, height=3.6, sharey=True)
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
