"""Figures of the alternative annotator test: tables in, a Figure out."""

from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D

from labelvar.plots._style import HUMAN_COLOR, LINESTYLES, legend, new_figure, series_style
from labelvar.plots._style import title as set_title

__all__ = ["plot_alt_test", "plot_alt_test_power"]


def plot_alt_test(humans, references, by_bin, *, title: str | None = None,
                  subtitle: str | None = None):
    """Per-human rho_system against rho_human, with the references; rho per agreement bin.

    Parameters
    ----------
    humans : pandas.DataFrame
        The per-human table (``rater``, ``rho_system``, ``rho_human``, ``rejected``).
    references : pandas.DataFrame
        ``reference`` and ``advantage_probability`` per row (the system first).
    by_bin : pandas.DataFrame
        ``bin``, ``n_comparisons`` and one column of rho per reference.
    title, subtitle : str or None

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> h = pd.DataFrame({"rater": ["a", "b"], "rho_system": [0.8, 0.7],
    ...                   "rho_human": [0.9, 0.85], "rejected": [True, False]})
    >>> r = pd.DataFrame({"reference": ["system", "uniform"],
    ...                   "advantage_probability": [0.75, 0.5]})
    >>> b = pd.DataFrame({"bin": ["[0, 0.5]", "(0.5, 1]"], "n_comparisons": [3, 9],
    ...                   "system": [0.5, 0.8], "uniform": [0.6, 0.5]})
    >>> fig = plot_alt_test(h, r, b, title="alt-test")
    >>> len(fig.axes)
    2
    """
    fig, axes = new_figure(1, 2, width=4.2, height=3.6)
    ax, bx = axes[0]
    names = list(references["reference"])
    n = len(names)
    rej = humans["rejected"].to_numpy(bool)
    ax.scatter(humans["rho_human"][rej], humans["rho_system"][rej], marker="o",
               color=HUMAN_COLOR, label="human (system wins)", zorder=3)
    ax.scatter(humans["rho_human"][~rej], humans["rho_system"][~rej], marker="o",
               facecolors="none", edgecolors=HUMAN_COLOR, label="human (not rejected)", zorder=3)
    for x, y, r in zip(humans["rho_human"], humans["rho_system"], humans["rater"]):
        ax.annotate(str(r), (x, y), fontsize=6, xytext=(3, 2), textcoords="offset points")
    ax.plot([0, 1], [0, 1], color="grey", lw=0.6, ls=":")
    handles = [Line2D([], [], marker="o", ls="", color=HUMAN_COLOR, label="human: system wins"),
               Line2D([], [], marker="o", ls="", mfc="none", color=HUMAN_COLOR,
                      label="human: not rejected")]
    for i, (name, rho) in enumerate(zip(names, references["advantage_probability"])):
        st = series_style(i, n)
        ls = LINESTYLES[i % len(LINESTYLES)]
        ax.axhline(rho, color=st["color"], ls=ls, lw=1.2)
        handles.append(Line2D([], [], color=st["color"], marker=st["marker"], ls=ls,
                              label=f"{name} (rho {rho:.2f})"))
    ax.set_xlabel("rho_human (human at least as good)")
    ax.set_ylabel("rho_system (system at least as good)")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_title("per human, references as lines", fontsize=9)
    x = np.arange(len(by_bin))
    for i, name in enumerate(names):
        if name not in by_bin.columns:
            continue
        st = series_style(i, n)
        bx.plot(x, by_bin[name].to_numpy(float), color=st["color"], marker=st["marker"],
                ls=LINESTYLES[i % len(LINESTYLES)], ms=4)
    bx.set_xticks(x, [f"{b}\nn={c}" for b, c in zip(by_bin["bin"], by_bin["n_comparisons"])],
                  fontsize=6)
    bx.set_ylim(0, 1.02)
    bx.set_xlabel("agreement of the remaining humans")
    bx.set_ylabel("rho (share with W_sys = 1)")
    bx.set_title("rho per agreement bin", fontsize=9)
    legend(fig, handles, ncol=3)
    if title:
        set_title(fig, title, subtitle)
    return fig


def plot_alt_test_power(curves, plans=None, *, target: float | None = None,
                        title: str | None = None, subtitle: str | None = None):
    """The alt-test's exact power against items per human, one curve per humans per item.

    Parameters
    ----------
    curves : pandas.DataFrame
        ``n_humans``, ``n_items``, ``power`` (``AltTestPower.curves``).
    plans : pandas.DataFrame or None
        ``n_humans``, ``n_items`` (``AltTestPower.plan``): the smallest N, marked.
    target : float or None
        The target power, a horizontal line.
    title, subtitle : str or None

    Examples
    --------
    >>> import pandas as pd
    >>> c = pd.DataFrame({"n_humans": [3, 3, 3], "n_items": [30, 31, 32],
    ...                   "power": [0.7, 0.68, 0.81]})
    >>> fig = plot_alt_test_power(c, pd.DataFrame({"n_humans": [3], "n_items": [32]}),
    ...                           target=0.8)
    >>> len(fig.axes)
    1
    """
    fig, axes = new_figure(1, 1, width=6.0, height=3.6)
    ax = axes[0, 0]
    ks = list(dict.fromkeys(curves["n_humans"]))
    handles = []
    for i, k in enumerate(ks):
        st = series_style(i, len(ks))
        g = curves[curves["n_humans"] == k]
        ls = LINESTYLES[i % len(LINESTYLES)]
        ax.plot(g["n_items"], g["power"], color=st["color"], ls=ls, lw=1.0)
        handles.append(Line2D([], [], color=st["color"], ls=ls, marker=st["marker"],
                              label=f"K = {k} humans per item"))
        if plans is not None:
            p = plans[plans["n_humans"] == k].dropna(subset=["n_items"])
            for n in p["n_items"]:
                y = g.loc[g["n_items"] == n, "power"]
                if len(y):
                    ax.plot([n], [y.iloc[0]], marker=st["marker"], color=st["color"], ms=6)
    if target is not None:
        ax.axhline(target, color=HUMAN_COLOR, lw=0.8, ls=":")
    ax.set_xlabel("items per human (N)")
    ax.set_ylabel("P(alt-test passes)")
    ax.set_ylim(0, 1.02)
    legend(fig, handles, ncol=min(len(handles), 3))
    if title:
        set_title(fig, title, subtitle)
    return fig
