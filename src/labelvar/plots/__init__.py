"""Figures: tables in, :class:`matplotlib.figure.Figure` out.

One module per domain, one naming scheme (``plot_*``):

- ``_sweeps.py``: :func:`plot_figure1`, :func:`plot_panel_bias`,
  :func:`plot_table1_tails` (simulation and sweep tables);
- ``_stratified.py``: :func:`plot_stratified_scores`,
  :func:`plot_delta_by_bin`, :func:`plot_gap_to_expected`, :func:`plot_system_vs_system`
  (stratified reports;
  the tests are computed by the caller and passed in);
- ``_design.py``: :func:`plot_power_curves`, :func:`plot_power_sawtooth` (study planner);
- ``_items.py``: :func:`plot_item_models` (item models against
  held-out votes).

Plot functions never call ``plt.show()``, never write files and compute no
statistics; :func:`save` writes a figure (PNG and PDF by default) atomically.
Figures are made without pyplot, so no backend is needed and importing this
package changes no global matplotlib state.
"""

from labelvar.plots._design import plot_power_curves, plot_power_sawtooth
from labelvar.plots._items import plot_item_models
from labelvar.plots._judge import plot_alt_test, plot_alt_test_power
from labelvar.plots._readers import plot_readers
from labelvar.plots._stratified import (
    plot_delta_by_bin,
    plot_gap_to_expected,
    plot_stratified_scores,
    plot_system_vs_system,
)
from labelvar.plots._style import PALETTE, new_figure, save
from labelvar.plots._sweeps import plot_figure1, plot_panel_bias, plot_table1_tails

__all__ = [
    "PALETTE",
    "new_figure",
    "plot_alt_test",
    "plot_alt_test_power",
    "plot_delta_by_bin",
    "plot_figure1",
    "plot_gap_to_expected",
    "plot_item_models",
    "plot_panel_bias",
    "plot_power_curves",
    "plot_power_sawtooth",
    "plot_readers",
    "plot_stratified_scores",
    "plot_system_vs_system",
    "plot_table1_tails",
    "save",
]
