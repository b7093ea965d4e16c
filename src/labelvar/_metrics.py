r"""The one definition of the label metrics: accuracy, precision, recall, F1, macro-F1.

Everything labelvar scores goes through a confusion matrix ``conf[truth, pred]``
over a *declared* label set of L labels (codes 0..L-1), with scikit-learn's
conventions (``labels=`` given, ``zero_division=0``):

- ``pos_label=c``: precision, recall and F1 of label c against the rest
  (binary evaluation uses ``pos_label=1``);
- ``pos_label=None``: macro averages over **all** L declared labels, including
  labels that occur in neither the truth nor the predictions (their 0/0 scores
  count as ``zero_division``), like
  ``sklearn.metrics.f1_score(y, p, labels=range(L), average="macro", zero_division=0)``;
- ``F1 = 2 TP / (2 TP + FP + FN)``; every 0/0 is ``zero_division`` (default 0);
- an empty confusion matrix (n = 0) gives NaN for every metric.

The numba kernels use the twin :func:`labelvar._kernels.metrics_into` (tested equal):
``pos_label=1`` for L = 2 and macro over all L labels for L > 2.

Examples
--------
>>> conf = confusion([0, 1, 1, 2], [0, 1, 2, 2], n_labels=3)
>>> conf.tolist()
[[1, 0, 0], [0, 1, 1], [0, 0, 1]]
>>> s = scores(conf)  # macro over the 3 labels
>>> round(float(s["f1"]), 4), float(s["accuracy"])
(0.7778, 0.75)
>>> round(float(scores(conf, pos_label=1)["recall"]), 2)
0.5
"""

from __future__ import annotations

import numpy as np

#: the metrics defined here, in the order tables list them
METRICS = ("accuracy", "precision", "recall", "f1")


def confusion(truth, pred, n_labels: int, *, weights=None) -> np.ndarray:
    """Count ``conf[..., t, p]``: items with truth t and prediction p.

    Parameters
    ----------
    truth, pred : array_like of int, shape (..., n)
        Label codes in [0, n_labels); leading axes (e.g. bootstrap resamples)
        give one matrix each.
    n_labels : int
        Size L of the declared label set.
    weights : array_like, optional
        Per-item weights (same shape as ``truth``); counts by default.

    Returns
    -------
    ndarray, shape (..., L, L)
        int64 counts (float with ``weights``).

    Examples
    --------
    >>> confusion([[0, 1], [1, 1]], [[0, 0], [1, 1]], 2).tolist()
    [[[1, 0], [1, 0]], [[0, 0], [0, 2]]]
    """
    truth = np.asarray(truth)
    pred = np.asarray(pred)
    if truth.shape != pred.shape:
        raise ValueError(f"truth and pred must have the same shape, got {truth.shape} and "
                         f"{pred.shape}")
    n_labels = int(n_labels)
    lead = truth.shape[:-1] if truth.ndim else ()
    n_mat = int(np.prod(lead, dtype=np.int64)) if lead else 1
    flat_t = truth.reshape(n_mat, -1).astype(np.int64)
    flat_p = pred.reshape(n_mat, -1).astype(np.int64)
    if flat_t.size and (flat_t.min() < 0 or flat_t.max() >= n_labels
                        or flat_p.min() < 0 or flat_p.max() >= n_labels):
        raise ValueError(f"label codes must be in [0, {n_labels - 1}]")
    offset = np.arange(n_mat, dtype=np.int64)[:, None] * (n_labels * n_labels)
    index = (offset + flat_t * n_labels + flat_p).ravel()
    w = None if weights is None else np.broadcast_to(np.asarray(weights, float),
                                                     truth.shape).ravel()
    counts = np.bincount(index, weights=w, minlength=n_mat * n_labels * n_labels)
    return counts.reshape(lead + (n_labels, n_labels))


def _div(num, den, zero_division):
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    safe = np.where(den > 0, den, 1.0)
    return np.where(den > 0, num / safe, zero_division)


def scores(conf, *, pos_label: int | None = None, zero_division: float = 0.0) -> dict:
    """Accuracy, precision, recall and F1 of confusion matrices ``conf[..., truth, pred]``.

    Parameters
    ----------
    conf : array_like, shape (..., L, L)
        Counts (or probabilities) with the truth on the first of the two last axes.
    pos_label : int or None
        Score label ``pos_label`` against the rest; None: macro average over all L
        labels (the declared label set).
    zero_division : float
        Value of a 0/0 precision, recall or F1 (scikit-learn's ``zero_division``).

    Returns
    -------
    dict of str to ndarray
        ``accuracy``, ``precision``, ``recall``, ``f1`` (and ``n``), each of shape
        ``conf.shape[:-2]``; NaN where n = 0.

    Examples
    --------
    >>> conf = np.array([[5, 1], [2, 2]])
    >>> {k: round(float(v), 4) for k, v in scores(conf, pos_label=1).items()}
    {'n': 10.0, 'accuracy': 0.7, 'precision': 0.6667, 'recall': 0.5, 'f1': 0.5714}
    """
    conf = np.asarray(conf, dtype=float)
    if conf.ndim < 2 or conf.shape[-1] != conf.shape[-2] or conf.shape[-1] < 2:
        raise ValueError(f"conf must have shape (..., L, L) with L >= 2, got {conf.shape}")
    n_lab = conf.shape[-1]
    n = conf.sum(axis=(-2, -1))
    tp = np.diagonal(conf, axis1=-2, axis2=-1)  # (..., L)
    predicted = conf.sum(axis=-2)
    true = conf.sum(axis=-1)
    if pos_label is not None:
        c = int(pos_label)
        if not 0 <= c < n_lab:
            raise ValueError(f"pos_label must be a label code in [0, {n_lab - 1}], got {pos_label}")
        tp, predicted, true = tp[..., c], predicted[..., c], true[..., c]
        precision = _div(tp, predicted, zero_division)
        recall = _div(tp, true, zero_division)
        f1 = _div(2 * tp, predicted + true, zero_division)
    else:
        precision = _div(tp, predicted, zero_division).mean(axis=-1)
        recall = _div(tp, true, zero_division).mean(axis=-1)
        f1 = _div(2 * tp, predicted + true, zero_division).mean(axis=-1)
        tp = tp.sum(axis=-1)
    empty = n == 0
    out = {"n": n, "accuracy": _div(np.diagonal(conf, axis1=-2, axis2=-1).sum(axis=-1), n, 0.0)}
    for name, value in (("precision", precision), ("recall", recall), ("f1", f1)):
        out[name] = value
    for name in METRICS:
        out[name] = np.where(empty, np.nan, out[name])
    return out


def score(metric: str, truth, pred, n_labels: int, *, pos_label: int | None = None,
          zero_division: float = 0.0):
    """One metric of label codes ``truth`` and ``pred`` (shape (..., n)).

    Examples
    --------
    >>> float(score("accuracy", [0, 1, 1], [0, 1, 0], 2))
    0.6666666666666666
    >>> float(score("f1", [0, 1, 1], [0, 1, 0], 2, pos_label=1))
    0.6666666666666666
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(map(repr, METRICS))}; got {metric!r}")
    conf = confusion(truth, pred, n_labels)
    return scores(conf, pos_label=pos_label, zero_division=zero_division)[metric]
