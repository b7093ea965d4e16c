"""Numba kernel of the alt-test's reference labellers (:mod:`labelvar.judge`).

Monte Carlo runs of a reference labeller that labels items (one draw per item, shared
by every human who annotated it): for each comparison (tested human, item) the
reference's label is drawn by inverse CDF from its law (row ``row_of[p]`` of ``cum``,
the cumulative probabilities) with the item's uniform ``uniform(key + run, item)``
(the counter-based generator of :mod:`labelvar._kernels.rng`: every comparison of one
item in one run sees the same uniform), and the comparison's outcome (0 tie,
1 reference better, 2 human better) is looked up in ``grid``. Pure and serial: a run's
counts depend on (key, run) only.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from labelvar._kernels.rng import splitmix64, uniform


@njit(cache=True)
def reference_runs(cum, row_of, item_ptr, order, grid, rater, n_raters, key, n_runs):
    """(n_runs, n_raters, 3) outcome counts: ties, reference better, human better.

    ``order`` lists the comparisons item by item, ``item_ptr`` (n_items + 1) where each
    item's comparisons start; ``row_of`` is the law's row per item.
    """
    counts = np.zeros((n_runs, n_raters, 3), dtype=np.int64)
    n_labels = cum.shape[1]
    for r in range(n_runs):
        k = splitmix64(np.uint64(key) + np.uint64(r))
        for i in range(len(item_ptr) - 1):
            if item_ptr[i] == item_ptr[i + 1]:
                continue
            u = uniform(k, np.uint64(i))
            row = row_of[i]
            lab = 0
            while lab < n_labels - 1 and u >= cum[row, lab]:
                lab += 1
            for j in range(item_ptr[i], item_ptr[i + 1]):
                p = order[j]
                counts[r, rater[p], grid[p, lab]] += 1
    return counts
