"""Monte Carlo engine: simulate experts, random and model labellers over parameter grids.

:func:`labelvar.simulate` validates its input, builds a stable 64-bit key per grid cell
(from the seed and the cell's parameter values, so a cell gives the same numbers
alone or inside any bigger grid), calls one compiled (numba) kernel per cell and
returns a :class:`labelvar.SimulationResult`: a tidy summary with the exact
expectation beside each Monte Carlo mean, and on request the per-replicate
tables.

What generates the items is an object (:mod:`labelvar.engine`):

:class:`Coin`
    The paper's coin model (section 3): N items with round(m N) positives
    (``positives="fixed"``) or Bernoulli(m) labels (``positives="bernoulli"``);
    for L > 2 class 1 has prior m and the other classes share 1 - m equally
    (or pass ``class_prior``). The reference is the item's class; the expert
    matches it with probability ``p_d``.
:class:`Panel`
    Each item has a modal label (drawn like the coin model's class) and a latent
    agreement ``theta`` (fixed, or drawn per item from ``theta_prior``; an item
    model draws a label distribution instead); K = ``panel_size`` annotators vote
    (modal label with probability theta, else a uniformly chosen other label); the
    reference is the panel's plurality (ties: ``tie_rule``); the observed agreement
    top votes / K defines the strata.
:class:`RaterPanel`
    A panel drawn from a fitted or stated rater model; its expert is scored against
    the plurality per agreement bin.

A field given as a list is a grid axis (the cells are the Cartesian product of the
axes); a list of item objects runs each and stacks their rows.

Two computational paths (``method``): ``"explicit"`` simulates every item;
``"collapsed"`` draws the counts of each outcome directly, by chains of conditional
binomials, at a cost independent of N. It applies to items that are exchangeable
within groups and have a finite outcome table (a coin model; a panel with a fixed
theta or, as i.i.d. items, with a theta prior integrated out exactly). With a fixed
theta and no ``joint`` output it splits each group's items over (stratum, truth)
and then each part by one labeller at a time (given the modal class a labeller's
answer is independent of the votes); otherwise it draws the joint outcome table.
``"auto"`` takes the collapsed path wherever a :class:`labelvar.ModelPair`
or ``joint=True`` needs it, and for exchangeable items picks the path with the
lower modelled cost per replicate (the collapsed path's expected number of draws
against N times the explicit kernel's cost per item; the constants, measured with
``scripts/bench.py``, are in ``_simulate.py``): panels go explicit below N ~ 150
(L = 2, K <= 7), ~ 400 (L = 3) or ~ 1000 (L = 4), coin mode only below a few dozen
items.

Layout
------
``_items.py``     the item objects :class:`Coin`, :class:`Panel`, :class:`RaterPanel`
``_simulate.py``  the public function, kernel dispatch (the named ``Kernels`` sets)
``_spec.py``      validated input, grid cells and their random-stream keys
``_tables.py``    exact per-item outcome tables and exact expectations
``_result.py``    :class:`SimulationResult`
``_rater_panels.py`` :class:`RaterPanel` runs: panels drawn from a rater model

Two systems on separate item sets (an unpaired comparison) need no engine
feature: simulate 2R replicates with the pair (or both models) and score A on
replicate r and B on replicate R + r; the replicates are independent.
"""

from labelvar.engine._simulate import RAW_FIELDS
from labelvar.engine._summary import PARAM_COLUMNS, SUMMARY_COLUMNS

# labelvar.simulate, SimulationResult, Coin, Panel and RaterPanel are top-level names (their one public path)
__all__ = ["PARAM_COLUMNS", "RAW_FIELDS", "SUMMARY_COLUMNS"]
