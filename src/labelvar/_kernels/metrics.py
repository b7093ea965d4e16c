"""Per-replicate metrics from confusion counts.

The numba twin of :mod:`labelvar.metrics` (:func:`_finish_replicate`, tested equal).
"""

from __future__ import annotations

import numpy as np
from numba import njit


# --------------------------------------------------------------------------- metrics
@njit(cache=True, inline="always")
def _count_fields(out_r, j, s, n, correct, tp, fp, fn):
    """The count fields n, correct, tp, fp, fn, tn of ``out_r[j, s]`` (label 1 vs the rest)."""
    out_r[j, s, 0] = n
    out_r[j, s, 1] = correct
    out_r[j, s, 2] = tp
    out_r[j, s, 3] = fp
    out_r[j, s, 4] = fn
    out_r[j, s, 5] = n - tp - fn - fp


@njit(cache=True, error_model="numpy")
def _finish_replicate(conf, theta_sum, out_r):
    """Metrics of every labeller x stratum of one replicate into ``out_r[j, s, :]``.

    From the L x L confusion counts ``conf[j, s, truth, pred]``: n, correct and
    tp/fp/fn/tn of label 1 against the rest, then accuracy, precision, recall, F1
    and theta (= ``theta_sum[s] / n``). Binary (L = 2): precision, recall and F1 of
    the positive class (label 1); L > 2: macro averages over all L classes
    (:func:`_macro_metrics`). 0/0 counts as 0 (scikit-learn's
    ``zero_division=0``); F1 = 2 TP / (2 TP + FP + FN); an empty stratum (n = 0)
    gives NaN metrics.

    The binary case is one branch-free loop (guarded denominators, then selects),
    which the compiler keeps in registers; every division is guarded, so numpy's
    error model (no zero checks) gives the same numbers faster.
    """
    if conf.shape[2] != 2:
        for j in range(conf.shape[0]):
            for s in range(conf.shape[1]):
                _macro_metrics(conf, j, s, theta_sum[s], out_r)
        return
    for j in range(conf.shape[0]):
        for s in range(conf.shape[1]):
            tp = conf[j, s, 1, 1]
            fn = conf[j, s, 1, 0]
            fp = conf[j, s, 0, 1]
            correct = conf[j, s, 0, 0] + tp
            n = correct + fn + fp
            _count_fields(out_r, j, s, n, correct, tp, fp, fn)
            some = n > 0
            nn = n if some else 1
            accuracy = correct / nn
            precision = tp / (tp + fp if tp + fp > 0 else 1)
            recall = tp / (tp + fn if tp + fn > 0 else 1)
            f1 = 2.0 * tp / (2.0 * tp + fp + fn if tp + fp + fn > 0 else 1.0)
            theta = theta_sum[s] / nn
            out_r[j, s, 6] = accuracy if some else np.nan
            out_r[j, s, 7] = precision if some else np.nan
            out_r[j, s, 8] = recall if some else np.nan
            out_r[j, s, 9] = f1 if some else np.nan
            out_r[j, s, 10] = theta if some else np.nan


@njit(cache=True, error_model="numpy", inline="always")
def _macro_metrics(conf, j, s, theta_sum, out_r):
    """:func:`_finish_replicate` for L > 2 and one (labeller j, stratum s).

    Inlined: a call that takes arrays costs atomic reference-count updates per array,
    more than these few sums (one pass over the L x L counts per class).
    """
    n_lab = conf.shape[2]
    n = 0
    correct = 0
    sp = 0.0
    sr = 0.0
    sf = 0.0
    row1 = 0
    col1 = 0
    for c in range(n_lab):
        tpc = conf[j, s, c, c]
        predc = 0
        truec = 0
        for a in range(n_lab):
            predc += conf[j, s, a, c]
            truec += conf[j, s, c, a]
        n += truec
        correct += tpc
        if c == 1:
            row1 = truec
            col1 = predc
        sp += tpc / (predc if predc > 0 else 1)
        sr += tpc / (truec if truec > 0 else 1)
        sf += 2.0 * tpc / (predc + truec if predc + truec > 0 else 1)
    tp = conf[j, s, 1, 1]
    _count_fields(out_r, j, s, n, correct, tp, col1 - tp, row1 - tp)
    some = n > 0
    nn = n if some else 1
    out_r[j, s, 6] = correct / nn if some else np.nan
    out_r[j, s, 7] = sp / n_lab if some else np.nan
    out_r[j, s, 8] = sr / n_lab if some else np.nan
    out_r[j, s, 9] = sf / n_lab if some else np.nan
    out_r[j, s, 10] = theta_sum / nn if some else np.nan
