"""Power-curve figure of the study planner (:func:`labelvar.plan_study`)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from labelvar.plots._style import PALETTE, new_figure

__all__ = ["plot_power_curves", "plot_power_sawtooth"]


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
        Power against N (and against cost when ``curves`` has a ``cost`` column).

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


def plot_power_sawtooth(n_items, power, *, target: float, n_first: int | None = None,
                        n_stable: int | None = None, title: str | None = None) -> Figure:
    """Exact power at every N near the target: the sawtooth of a discrete test.

    Parameters
    ----------
    n_items, power : array_like
        Consecutive N and the exact power at each (e.g. ``exact_power`` over a range).
    target : float
        Target power (dashed line); points below it are drawn hollow.
    n_first, n_stable : int, optional
        The first N reaching the target and the N from which it stays reached
        (``plans["n_items_first"]``, ``plans["n_items_stable"]``), marked by vertical lines.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = plot_power_sawtooth([10, 11, 12], [0.81, 0.79, 0.82], target=0.8, n_first=10,
    ...                           n_stable=12)
    >>> [ln.get_label() for ln in fig.axes[0].lines][-2:]
    ['first crossing N = 10', 'stable from N = 12']
    """
    n = np.asarray(n_items)
    pw = np.asarray(power, float)
    fig, axes = new_figure(1, 1, width=6.4, height=3.4)
    ax = axes[0, 0]
    ax.plot(n, pw, color=PALETTE[0], lw=0.8, label="exact power")
    ok = pw >= target
    ax.plot(n[ok], pw[ok], "o", ms=2.8, color=PALETTE[0], label=f"power >= {target:g}")
    ax.plot(n[~ok], pw[~ok], "o", ms=2.8, mfc="white", color=PALETTE[0],
            label=f"power < {target:g}")
    ax.axhline(target, color="grey", ls="--", lw=0.9)
    if n_first is not None:
        ax.axvline(n_first, color=PALETTE[1 % len(PALETTE)], lw=1.1,
                   label=f"first crossing N = {n_first}")
    if n_stable is not None:
        ax.axvline(n_stable, color=PALETTE[2 % len(PALETTE)], lw=1.1, ls="-.",
                   label=f"stable from N = {n_stable}")
    ax.set_xlabel("items N")
    ax.set_ylabel("power")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7.5, loc="lower right")
    fig.suptitle(title or "exact power of a discrete test is a sawtooth in N", fontsize=9)
    return fig
