"""Codes and shapes every kernel shares.

The fields of the per-replicate output ``out[r, j, s, f]``, labeller and theta kinds,
tie-rule codes and the replicates per parallel work item.
"""

from __future__ import annotations

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
