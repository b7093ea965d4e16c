"""Power-curve figure of the study planner (:func:`labelvar.plan_study`)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from labelvar.plots._style import (
    LINESTYLES,
    MARKERS,
    PALETTE,
    checked_table,
    legend,
    new_figure,
    series_colors,
)
from labelvar.plots._style import title as set_title

__all__ = ["plot_power_curves", "plot_power_sawtooth"]


def _scenario_titles(scenario, subtitle):
    """``(title, subtitle)``: the given subtitle, else the planned study's own words.

    The scenario describes itself (:meth:`labelvar.design.Scenario.describe`), so the
    figures never import the planner.
    """
    if scenario is None:
        return None, subtitle
    head, _, sub = scenario.describe().partition("\n")
    return head, sub if subtitle is None else subtitle


def plot_power_curves(curves, evaluated=None, plans=None, *, target: float | None = None,
                      title: str | None = None, subtitle: str | None = None,
                      scenario=None) -> Figure:
    """Power against the number of items N, one curve per panel size K (study planner).

    With a ``cost`` column in ``curves`` a second panel shows power against total cost,
    where the panel sizes compete on price. Each K has its own color, line style and
    marker, so curves that coincide (e.g. K = 3 and K = 9 against N) stay visible.

    Parameters
    ----------
    curves : pandas.DataFrame
        Columns ``panel_size, n_items, power_analytic`` and optionally ``cost``
        (``DesignResult.curves``).
    evaluated : pandas.DataFrame, optional
        Simulated points: ``panel_size, n_items, power_simulated, power_se``; drawn
        with +/- 2 SE bars.
    plans : pandas.DataFrame, optional
        ``DesignResult.table``; the recommended plan is marked with a star.
    target : float, optional
        Target power (dashed line).
    title : str, optional
        Figure title; default: the scenario's question
        (:meth:`labelvar.design.Scenario.describe`).
    subtitle : str, optional
        Line under the title (e.g. the test, α, target power and θ).
    scenario : labelvar.design.Scenario, optional
        The planned study (``DesignResult.scenario``), instead of ``title`` and
        ``subtitle``: its :meth:`~labelvar.design.Scenario.describe` states the question,
        test, α, target power and θ. ``target`` defaults to its power.

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
    curves = checked_table(curves, ("panel_size", "n_items", "power_analytic"), name="curves",
                           what="a DesignResult.curves table")
    with_cost = "cost" in curves.columns
    head, sub = _scenario_titles(scenario, subtitle)
    if target is None and scenario is not None:
        target = float(scenario.power)
    fig, axes = new_figure(1, 2 if with_cost else 1, width=4.4, height=3.4, sharey=True)
    ks = sorted(curves["panel_size"].unique())
    colors = series_colors(len(ks))
    rec = None
    if plans is not None and "recommended" in plans and plans["recommended"].any():
        rec = plans[plans["recommended"]].iloc[0]
    shown = curves[curves["power_analytic"] >= 0.02]
    handles = []
    for j, xcol in enumerate(["n_items", "cost"] if with_cost else ["n_items"]):
        ax = axes[0, j]
        for i, k in enumerate(ks):
            style = dict(color=colors[i], ls=LINESTYLES[i % len(LINESTYLES)])
            c = curves[curves["panel_size"] == k].sort_values("n_items")
            every = max(1, len(c) // 8)
            line, = ax.plot(c[xcol], c["power_analytic"], lw=1.5, label=f"K = {k}",
                            marker=MARKERS[i % len(MARKERS)], ms=3.5,
                            markevery=(i * every // max(len(ks), 1), every), **style)
            if j == 0:
                handles.append(line)
            if evaluated is not None and len(evaluated):
                e = evaluated[evaluated["panel_size"] == k]
                x = e["n_items"] if xcol == "n_items" else np.interp(
                    e["n_items"], c["n_items"], c["cost"])
                ax.errorbar(x, e["power_simulated"], yerr=2 * e["power_se"], fmt="o", ms=3,
                            color=colors[i], mfc="white", elinewidth=0.8, capsize=1.5,
                            zorder=4)
        if rec is not None:
            y = rec["power_simulated"] if rec["power_simulated"] == rec["power_simulated"] \
                else rec["power_analytic"]
            star, = ax.plot([rec[xcol]], [y], marker="*", ms=13, color="black", ls="none",
                            mfc="none", mew=1.1, zorder=6,
                            label=f"recommended: K = {int(rec['panel_size'])}, "
                                  f"N = {int(rec['n_items'])}")
            if j == 0:
                handles.append(star)
        if target is not None:
            ax.axhline(target, color="grey", ls="--", lw=0.9)
        ax.set_xscale("log")
        if len(shown) and shown[xcol].min() > 0:
            ax.set_xlim(left=shown[xcol].min() * 0.8)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("items N (log scale)" if xcol == "n_items" else "total cost (log scale)")
        ax.set_title("power vs items" if xcol == "n_items" else "power vs cost")
    axes[0, 0].set_ylabel("power")
    if evaluated is not None and len(evaluated):
        handles.append(Line2D([], [], color="0.3", marker="o", mfc="white", ls="none", ms=3,
                              label="simulated ± 2 SE"))
    handles.append(Line2D([], [], color="0.3", lw=1.5, label="exact power (line)"))
    if target is not None:
        handles.append(Line2D([], [], color="grey", ls="--", lw=0.9,
                              label=f"target power {target:g}"))
    legend(fig, handles, ncol=4)
    set_title(fig, title or head or "Power of the planned study per panel size K", sub)
    return fig


def plot_power_sawtooth(curves, *, target: float, n_first: int | None = None,
                        n_stable: int | None = None, power: str = "power_analytic",
                        title: str | None = None, subtitle: str | None = None,
                        scenario=None) -> Figure:
    """Exact power at every N near the target: the sawtooth of a discrete test.

    Parameters
    ----------
    curves : pandas.DataFrame
        Consecutive N (``n_items``) and the exact power at each (column ``power``), e.g.
        ``DesignResult.curves`` of one panel size; a ``panel_size`` column with several
        values is refused (select one K).
    target : float
        Target power (dashed line); points below it are drawn hollow.
    n_first, n_stable : int, optional
        The first N reaching the target and the N from which it stays reached
        (``plans["n_items_first"]``, ``plans["n_items_stable"]``), marked by vertical lines.
    power : str
        The column of ``curves`` holding the power.
    title : str, optional
        Figure title.
    subtitle : str, optional
        Line under the title (e.g. the test, α, target power and θ).
    scenario : labelvar.design.Scenario, optional
        The planned study, instead of ``subtitle``: its test, α, target power and θ
        (:meth:`~labelvar.design.Scenario.describe`) become the subtitle.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> c = pd.DataFrame({"n_items": [10, 11, 12], "power_analytic": [0.81, 0.79, 0.82]})
    >>> fig = plot_power_sawtooth(c, target=0.8, n_first=10, n_stable=12)
    >>> [ln.get_label() for ln in fig.axes[0].lines][-2:]
    ['first crossing N = 10', 'stable from N = 12']
    """
    missing = [c for c in ("n_items", power) if c not in getattr(curves, "columns", ())]
    if missing:
        raise ValueError(f"curves: a table with columns n_items and {power!r} is needed "
                         f"(missing {', '.join(missing)})")
    if "panel_size" in curves.columns and curves["panel_size"].nunique() > 1:
        ks = ", ".join(str(k) for k in sorted(curves["panel_size"].unique()))
        raise ValueError(f"curves: one panel size per sawtooth, got K = {ks} "
                         "(select one: curves[curves.panel_size == K])")
    curves = curves.sort_values("n_items")
    n = curves["n_items"].to_numpy()
    pw = curves[power].to_numpy(float)
    fig, axes = new_figure(1, 1, width=6.4, height=3.4)
    ax = axes[0, 0]
    ax.plot(n, pw, color=PALETTE[0], lw=0.8, label="exact power")
    ok = pw >= target
    ax.plot(n[ok], pw[ok], "o", ms=2.8, color=PALETTE[0], label=f"power ≥ {target:g}")
    ax.plot(n[~ok], pw[~ok], "o", ms=2.8, mfc="white", color=PALETTE[0],
            label=f"power < {target:g}")
    ax.axhline(target, color="grey", ls="--", lw=0.9, label=f"target power {target:g}")
    if n_first is not None:
        ax.axvline(n_first, color=PALETTE[1], lw=1.1, label=f"first crossing N = {n_first}")
    if n_stable is not None:
        ax.axvline(n_stable, color=PALETTE[2], lw=1.1, ls="-.",
                   label=f"stable from N = {n_stable}")
    ax.set_xlabel("items N")
    ax.set_ylabel("power")
    legend(fig, ax.get_legend_handles_labels()[0], ncol=3)
    _, sub = _scenario_titles(scenario, subtitle)
    set_title(fig, title or "Exact power of a discrete test is a sawtooth in N", sub)
    return fig
