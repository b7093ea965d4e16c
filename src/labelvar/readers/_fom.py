"""Figures of merit of a reader study and their covariance over cases.

Everything here works on arrays: ``scores`` of shape ``(t, r, c)`` (modalities x readers x
cases) and ``truth`` a boolean array of shape ``(r, c)`` (the truth each reader is scored
against; the rows are equal unless a reader met a leave-reader-out truth).

For every figure of merit (FOM) the functions return the FOMs ``theta`` ``(t, r)`` and a
per-case *influence* array ``u`` ``(t, r, c)`` such that the covariance matrix of the
``t * r`` FOMs over cases is ``u_flat @ u_flat.T``:

- jackknife: ``u[a, k] = sqrt((c_a - 1) / c_a) * (theta_a(-k) - mean_k theta_a(-k))`` for
  the ``c_a`` cases that enter FOM ``a`` (positives only for sensitivity, negatives only
  for specificity, all cases for AUC and accuracy) and 0 for the others, so that
  ``sum_k u_ak u_bk = (c - 1) / c * sum_k d_ak d_bk`` (the usual jackknife covariance);
- DeLong (AUC only): ``u[a, k] = (V10_ak - AUC_a) / sqrt(m (m - 1))`` on positives and
  ``(V01_ak - AUC_a) / sqrt(n (n - 1))`` on negatives, so that ``u u' = S10 / m + S01 / n``
  (DeLong, DeLong & Clarke-Pearson 1988, with ddof 1).

The Wilcoxon AUC and its leave-one-out values come from midranks (placement values,
one sort per reader and modality): ``V10`` of a positive is its midrank among all cases
minus its midrank among the positives, divided by the number of negatives.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import rankdata

#: the figures of merit known by name; which cases each one's jackknife deletes
FOMS = {"auc": "all", "sensitivity": "positives", "specificity": "negatives", "accuracy": "all"}


def placements(scores: np.ndarray, truth: np.ndarray):
    """Placement values: ``V10`` on positives and ``V01`` on negatives (NaN elsewhere).

    ``V10_k`` is the share of negatives rated below positive ``k`` (ties count half);
    ``V01_k`` the share of positives rated above negative ``k``.

    Examples
    --------
    >>> v10, v01 = placements(np.array([[[1., 2., 3., 3.]]]), np.array([[False, True, False, True]]))
    >>> v10[0, 0, [1, 3]].tolist(), v01[0, 0, [0, 2]].tolist()
    ([0.5, 0.75], [1.0, 0.25])
    """
    pos = np.broadcast_to(truth, scores.shape)
    m = pos.sum(-1, keepdims=True)
    n = pos.shape[-1] - m
    rank_all = rankdata(scores, axis=-1)
    rank_pos = rankdata(np.where(pos, scores, np.inf), axis=-1)
    rank_neg = rankdata(np.where(pos, np.inf, scores), axis=-1)
    v10 = np.where(pos, (rank_all - rank_pos) / n, np.nan)
    v01 = np.where(pos, np.nan, 1.0 - (rank_all - rank_neg) / m)
    return v10, v01


def auc_influence(scores: np.ndarray, truth: np.ndarray, covariance: str):
    """Wilcoxon AUC ``(t, r)``, influence ``(t, r, c)`` and the leave-one-out AUCs."""
    pos = np.broadcast_to(truth, scores.shape)
    m = pos.sum(-1, keepdims=True).astype(float)
    n = pos.shape[-1] - m
    v10, v01 = placements(scores, truth)
    auc = np.nansum(v10, axis=-1, keepdims=True) / m
    if covariance == "delong":
        u = np.where(pos, (v10 - auc) / np.sqrt(m * (m - 1)), (v01 - auc) / np.sqrt(n * (n - 1)))
        return auc[..., 0], u, None
    loo = np.where(pos, (m * auc - v10) / (m - 1), (n * auc - v01) / (n - 1))
    return auc[..., 0], _jackknife_u(loo, np.ones_like(pos)), loo


def binary_influence(decisions: np.ndarray, truth: np.ndarray, fom: str):
    """Sensitivity, specificity or accuracy ``(t, r)``, influence and leave-one-out values.

    ``decisions`` are 0/1 (the decision "positive"); the jackknife deletes the cases that
    enter the FOM: the positives for sensitivity, the negatives for specificity, all cases
    for accuracy.
    """
    pos = np.broadcast_to(np.asarray(truth).astype(bool), decisions.shape)
    if fom == "sensitivity":
        enter, hit = pos, decisions
    elif fom == "specificity":
        enter, hit = ~pos, 1.0 - decisions
    else:
        enter, hit = np.ones_like(pos), np.where(pos, decisions, 1.0 - decisions)
    c = enter.sum(-1, keepdims=True).astype(float)
    total = np.where(enter, hit, 0.0).sum(-1, keepdims=True)
    theta = total / c
    loo = np.where(enter, (total - hit) / (c - 1), np.nan)
    return theta[..., 0], _jackknife_u(loo, enter), loo


def callable_influence(scores: np.ndarray, truth: np.ndarray, fom):
    """A user's FOM ``fom(ratings, truth) -> float``: jackknife over all cases (a loop)."""
    t, r, c = scores.shape
    truth = np.broadcast_to(truth, (r, c))
    theta = np.empty((t, r))
    loo = np.empty((t, r, c))
    keep = ~np.eye(c, dtype=bool)
    for i in range(t):
        for j in range(r):
            x, y = scores[i, j], truth[j].astype(int)
            theta[i, j] = float(fom(x, y))
            for k in range(c):
                loo[i, j, k] = float(fom(x[keep[k]], y[keep[k]]))
    if not (np.isfinite(theta).all() and np.isfinite(loo).all()):
        raise ValueError("fom: the callable returned a non-finite value "
                         "(on all cases or with one case left out)")
    return theta, _jackknife_u(loo, np.ones((t, r, c), dtype=bool)), loo


def _jackknife_u(loo: np.ndarray, enter: np.ndarray) -> np.ndarray:
    enter = np.broadcast_to(enter, loo.shape)
    c = enter.sum(-1, keepdims=True).astype(float)
    mean = np.where(enter, loo, 0.0).sum(-1, keepdims=True) / c
    return np.where(enter, np.sqrt((c - 1) / c) * (loo - mean), 0.0)


def covariance_matrix(u: np.ndarray) -> np.ndarray:
    """The ``(t r) x (t r)`` covariance of the FOMs, index ``i * r + j``.

    Examples
    --------
    >>> covariance_matrix(np.ones((1, 2, 3))).tolist()
    [[3.0, 3.0], [3.0, 3.0]]
    """
    flat = u.reshape(-1, u.shape[-1])
    return flat @ flat.T


def fom_influence(scores: np.ndarray, truth: np.ndarray, fom, covariance: str):
    """Dispatch: ``(theta, u, loo)`` for a named FOM or a callable (``loo`` None for DeLong)."""
    truth = np.asarray(truth).astype(bool)
    if callable(fom):
        return callable_influence(scores, truth, fom)
    if fom == "auc":
        return auc_influence(scores, truth, covariance)
    return binary_influence(scores, truth, fom)
