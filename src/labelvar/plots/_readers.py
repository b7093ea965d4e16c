"""The reader-study figure: each reader's figure of merit with its CI, the AI and the readers' mean."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from labelvar.plots._style import HUMAN_COLOR, PALETTE, legend, new_figure, series_style
from labelvar.plots._style import title as set_title

__all__ = ["plot_readers"]


def plot_readers(points, *, fom: str = "fom", title: str | None = None,
                 subtitle: str | None = None) -> Figure:
    """Per-reader FOM with CIs, one row per reader, one color per modality.

    Parameters
    ----------
    points : pandas.DataFrame
        Columns ``modality, reader, fom, ci_low, ci_high, role`` (``"reader"``, ``"AI"``,
        ``"readers' mean"``) and ``truth``: ``MRMCResult.points`` or
        ``StandaloneResult.points``.
    fom : str
        The x-axis label (the figure of merit).
    title, subtitle : str, optional
        Figure title; the subtitle defaults to the truth each reader met.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> pts = pd.DataFrame({"modality": "m", "reader": ["a", "b", "AI", "readers' mean"],
    ...                     "fom": [0.8, 0.85, 0.83, 0.825], "ci_low": [0.75, 0.8, 0.78, 0.79],
    ...                     "ci_high": [0.85, 0.9, 0.88, 0.86],
    ...                     "role": ["reader", "reader", "AI", "readers' mean"], "truth": "t"})
    >>> fig = plot_readers(pts, fom="AUC")
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['a', 'b', 'AI', "readers' mean"]
    """
    readers = list(dict.fromkeys(points["reader"]))
    mods = list(dict.fromkeys(points["modality"]))
    fig, axes = new_figure(width=5.0, height=max(2.4, 0.32 * len(readers) + 1.2))
    ax = axes[0, 0]
    y_of = {r: i for i, r in enumerate(readers)}
    offset = (np.arange(len(mods)) - (len(mods) - 1) / 2) * 0.18
    handles = []
    for m, mod in enumerate(mods):
        sub = points[points["modality"] == mod]
        style = series_style(m, len(mods))
        for row in sub.itertuples(index=False):
            y = y_of[row.reader] + offset[m]
            color = HUMAN_COLOR if row.role == "AI" else style["color"]
            marker = {"AI": "*", "readers' mean": "D"}.get(row.role, style["marker"])
            ax.errorbar(row.fom, y, xerr=[[row.fom - row.ci_low], [row.ci_high - row.fom]],
                        fmt=marker, color=color, ms=7 if row.role != "reader" else 5, capsize=2, lw=1)
        handles.append(Line2D([], [], ls="", label=str(mod), **style))
        ai = sub[sub["role"] == "AI"]
        if len(ai):
            ax.axvline(float(ai["fom"].iloc[0]), color=HUMAN_COLOR, ls="--", lw=0.8)
    if (points["role"] == "AI").any():
        handles.append(Line2D([], [], ls="--", marker="*", color=HUMAN_COLOR, label="AI"))
    if (points["role"] == "readers' mean").any():
        handles.append(Line2D([], [], ls="", marker="D", color=PALETTE[0], label="readers' mean"))
    ax.set_yticks(range(len(readers)), [str(r) for r in readers])
    ax.invert_yaxis()
    ax.set_xlabel(fom)
    truths = "; ".join(sorted(set(points["truth"].astype(str))))
    set_title(fig, title if title is not None else f"{fom} per reader, with confidence intervals",
              subtitle if subtitle is not None else f"truth: {truths}")
    legend(fig, handles)
    return fig
