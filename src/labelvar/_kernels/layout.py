"""Codes and shapes every kernel shares.

The fields of the per-replicate output ``out[r, j, s, f]``, labeller and theta kinds,
tie-rule codes and the replicates per parallel work item.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: fields of the per-replicate output array, in order
FIELDS = ("n", "correct", "tp", "fp", "fn", "tn", "accuracy", "precision", "recall", "f1",
          "theta")
N_FIELDS = len(FIELDS)

# labeller kinds
EXPERT = 0   # one more annotator: modal label with probability theta, else another label
MATRIX = 1   # fixed prediction matrix P(pred = h | modal label = c)

# theta kinds (panel mode)
THETA_FIXED = 0
THETA_BETA = 1
THETA_DISCRETE = 2

# tie rules
TIE_RANDOM = -1
TIE_DROP = -2

_CHUNK = 64  # replicates per parallel work item (scratch arrays are allocated per chunk)


# --------------------------------------------------------------------------- input bundles
class ThetaDraw(NamedTuple):
    """How an item's agreement theta is drawn.

    ``kind`` (THETA_*), parameters and cumulative weights (a fixed theta: ``par[0]``).
    """

    kind: int
    par: np.ndarray
    cum: np.ndarray


class Labellers(NamedTuple):
    """The labellers, one row each.

    ``kind`` (EXPERT or MATRIX), ``rows`` (the cumulative prediction rows ``[j, c, :]``,
    or for L = 2 P(prediction = 1 | modal c) ``[j, c]``) and ``rho`` (the share of items
    answered like one more annotator).
    """

    kind: np.ndarray
    rows: np.ndarray
    rho: np.ndarray


class Strata(NamedTuple):
    """The strata of the output.

    ``of_top[t]``: the stratum of an item whose top label has t votes; ``n``: the number
    of strata (1 + the agreement bins).
    """

    of_top: np.ndarray
    n: int
