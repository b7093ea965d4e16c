"""Figures: tables in, :class:`matplotlib.figure.Figure` out.

One module per domain, one naming scheme (``plot_*``):

- :mod:`labelvar.plots.sweeps`: :func:`plot_figure1`, :func:`plot_panel_bias`,
  :func:`plot_table1_tails` (simulation and sweep tables);
- :mod:`labelvar.plots.stratified`: :func:`plot_stratified_scores`,
  :func:`plot_delta_by_bin`, :func:`plot_gap_to_expected`, :func:`plot_system_vs_system`
  (stratified reports;
  the tests are computed by the caller and passed in);
- :mod:`labelvar.plots.design`: :func:`plot_power_curves` (study planner);
- :mod:`labelvar.plots.items`: :func:`plot_item_models` (item models against
  held-out votes).

Plot functions never call ``plt.show()``, never write files and compute no
statistics; :func:`save` writes a figure (PNG and PDF by default) atomically.
Figures are made without pyplot, so no backend is needed and importing this
package changes no global matplotlib state.
"""

from __future__ import annotations

from labelvar.plots._style import PALETTE, new_figure, save
from labelvar.plots.design import plot_power_curves
from labelvar.plots.items import plot_item_models
from labelvar.plots.stratified import (
    plot_delta_by_bin,
    plot_gap_to_expected,
    plot_stratified_scores,
    plot_system_vs_system,
)
from labelvar.plots.sweeps import plot_figure1, plot_panel_bias, plot_table1_tails

__all__ = [
    "PALETTE",
    "new_figure",
    "plot_delta_by_bin",
    "plot_figure1",
    "plot_gap_to_expected",
    "plot_item_models",
    "plot_panel_bias",
    "plot_power_curves",
    "plot_stratified_scores",
    "plot_system_vs_system",
    "plot_table1_tails",
    "save",
]
