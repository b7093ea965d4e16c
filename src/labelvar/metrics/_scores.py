r"""The one definition of the label metrics: accuracy, precision, recall, F1, macro-F1, and more.

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

Beyond those (numpy only; nothing jitted uses them, so no numba twin is needed
until the engine simulates them): Cohen's and the quadratic-weighted kappa of a
confusion matrix (:func:`kappa`), ordinal scores against the panel mean
(:func:`ordinal_scores`) and scores of probability outputs against soft labels
(:func:`probability_scores`, :func:`auroc`, :func:`auprc`).

The numba kernels use a twin, ``labelvar._kernels.metrics`` (tested equal):
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

from labelvar._base import _validate as v

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
    if truth.dtype.kind not in "iub" or pred.dtype.kind not in "iub":  # (0.5 is no label code)
        truth = v.integer("truth", truth) if truth.dtype.kind not in "iub" else truth
        pred = v.integer("pred", pred) if pred.dtype.kind not in "iub" else pred
    if truth.shape != pred.shape:
        raise ValueError(f"truth and pred must have the same shape, got {truth.shape} and "
                         f"{pred.shape}")
    n_labels = int(v.single("n_labels", v.integer("n_labels", n_labels, lo=1)))
    lead = truth.shape[:-1] if truth.ndim else ()
    n_mat = int(np.prod(lead, dtype=np.int64)) if lead else 1
    flat_t = truth.reshape(n_mat, -1).astype(np.int64)
    flat_p = pred.reshape(n_mat, -1).astype(np.int64)
    if flat_t.size and (flat_t.min() < 0 or flat_t.max() >= n_labels
                        or flat_p.min() < 0 or flat_p.max() >= n_labels):
        raise ValueError(f"label codes must be in [0, {n_labels - 1}]")
    offset = np.arange(n_mat, dtype=np.int64)[:, None] * (n_labels * n_labels)
    index = (offset + flat_t * n_labels + flat_p).ravel()
    w = None
    if weights is not None:
        w = v.as_float_array("weights", weights)
        if not np.isfinite(w).all() or (w < 0).any():
            raise ValueError("weights must be finite per-item weights >= 0")
        try:
            w = np.broadcast_to(w, truth.shape).ravel()
        except ValueError:
            raise ValueError(f"weights must have the shape of truth {truth.shape}, got "
                             f"{w.shape}") from None
    counts = np.bincount(index, weights=w, minlength=n_mat * n_labels * n_labels)
    return counts.reshape(lead + (n_labels, n_labels))


def _div(num, den, zero_division):
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    safe = np.where(den > 0, den, 1.0)
    return np.where(den > 0, num / safe, zero_division)


def _macro(per_label):
    """Mean over the last (label) axis of the defined (non-NaN) scores; NaN if none is."""
    defined = ~np.isnan(per_label)
    count = defined.sum(axis=-1)
    total = np.where(defined, per_label, 0.0).sum(axis=-1)
    return np.where(count > 0, total / np.maximum(count, 1), np.nan)


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
        Value of a 0/0 precision, recall or F1 (scikit-learn's ``zero_division``);
        with ``np.nan`` the macro average leaves those labels out (NaN when every
        label is 0/0), as scikit-learn does.

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
        precision = _macro(_div(tp, predicted, zero_division))
        recall = _macro(_div(tp, true, zero_division))
        f1 = _macro(_div(2 * tp, predicted + true, zero_division))
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
    >>> float(score("kappa", [0, 1, 1], [0, 1, 0], 2))
    0.4
    """
    known = METRICS + KAPPA_METRICS
    if metric not in known:
        raise ValueError(f"metric must be one of {', '.join(map(repr, known))}; got {metric!r}")
    conf = confusion(truth, pred, n_labels)
    if metric in KAPPA_METRICS:
        return kappa(conf, None if metric == "kappa" else "quadratic")
    return scores(conf, pos_label=pos_label, zero_division=zero_division)[metric]


# --------------------------------------------------------------------------- beyond the confusion counts
#: metrics of a confusion matrix defined here beyond :data:`METRICS`
KAPPA_METRICS = ("kappa", "qwk")
#: metrics of ordinal ratings against the panel (see :func:`ordinal_scores`)
ORDINAL_METRICS = ("mae", "within1", "qwk", "spearman", "kendall")
#: metrics of probability outputs (see :func:`probability_scores`)
PROBABILITY_METRICS = ("cross_entropy", "total_variation", "auroc", "auprc")


def kappa(conf, weights: str | None = None) -> np.ndarray:
    r"""Cohen's kappa of confusion matrices ``conf[..., truth, pred]``, optionally weighted.

    :math:`\kappa = 1 - \sum w_{ij} o_{ij} / \sum w_{ij} e_{ij}` with observed
    proportions :math:`o` and the product of the margins :math:`e`; ``weights``:
    None (:math:`w_{ij} = [i \ne j]`, Cohen's kappa), ``"linear"``
    (:math:`|i-j|`) or ``"quadratic"`` (:math:`(i-j)^2`, the quadratic-weighted
    kappa of ordinal ratings; label codes are the ranks). As
    ``sklearn.metrics.cohen_kappa_score(y, p, labels=range(L), weights=...)``; NaN
    for an empty matrix or when chance disagreement is 0 (one label only).

    Examples
    --------
    >>> conf = np.array([[20, 5], [10, 15]])
    >>> round(float(kappa(conf)), 4)
    0.4
    >>> round(float(kappa(confusion([1, 2, 3, 3], [1, 3, 3, 2], 4), "quadratic")), 4)
    0.6364
    """
    conf = np.asarray(conf, dtype=float)
    n_lab = conf.shape[-1]
    i, j = np.indices((n_lab, n_lab))
    if weights is None:
        w = (i != j).astype(float)
    elif weights == "linear":
        w = np.abs(i - j).astype(float)
    elif weights == "quadratic":
        w = ((i - j) ** 2).astype(float)
    else:
        raise ValueError(f"weights must be None, 'linear' or 'quadratic'; got {weights!r}")
    n = conf.sum(axis=(-2, -1))
    safe = np.where(n > 0, n, 1.0)[..., None, None]
    obs = conf / safe
    exp = obs.sum(axis=-1)[..., :, None] * obs.sum(axis=-2)[..., None, :]
    num = (w * obs).sum(axis=(-2, -1))
    den = (w * exp).sum(axis=(-2, -1))
    ok = (n > 0) & (den > 0)
    return np.where(ok, 1.0 - num / np.where(ok, den, 1.0), np.nan)


def ordinal_scores(pred_values, panel_mean, truth, pred, n_labels: int) -> dict:
    """Ordinal metrics of predicted ratings against the panel.

    Parameters
    ----------
    pred_values : array_like, shape (..., n)
        The predicted ratings as numbers (e.g. 1-5).
    panel_mean : array_like, shape (..., n)
        Each item's mean panel rating (same scale).
    truth, pred : array_like of int, shape (..., n)
        Label codes (ranks) of the panel's majority and of the prediction, for
        the quadratic-weighted kappa.
    n_labels : int
        Number of declared ratings L.

    Returns
    -------
    dict of str to ndarray
        ``mae`` (mean absolute difference from the panel mean), ``within1``
        (share of items with ``|pred - panel mean| <= 1``), ``qwk``
        (quadratic-weighted kappa against the majority, :func:`kappa`),
        ``spearman`` and ``kendall`` (rank correlation with the panel mean,
        ``scipy.stats.spearmanr`` / ``kendalltau`` (tau-b); 1-d input only, NaN
        for constant input).

    Examples
    --------
    >>> s = ordinal_scores([1, 2, 5], [1.0, 2.5, 4.0], [0, 1, 3], [0, 1, 4], 5)
    >>> {k: round(float(x), 4) for k, x in s.items()}
    {'mae': 0.5, 'within1': 1.0, 'qwk': 0.9268, 'spearman': 1.0, 'kendall': 1.0}
    """
    from scipy import stats

    pv = np.asarray(pred_values, dtype=float)
    pm = np.asarray(panel_mean, dtype=float)
    diff = np.abs(pv - pm)
    n = diff.shape[-1]  # no items: NaN, like every metric of an empty confusion matrix
    out = {"mae": _div(diff.sum(axis=-1), n, np.nan),
           "within1": _div((diff <= 1 + 1e-12).sum(axis=-1), n, np.nan),
           "qwk": kappa(confusion(truth, pred, n_labels), "quadratic")}
    nan = np.full(pv.shape[:-1], np.nan)
    if pv.ndim == 1 and pv.size > 1 and np.ptp(pv) > 0 and np.ptp(pm) > 0:
        out["spearman"] = np.asarray(stats.spearmanr(pv, pm).statistic)
        out["kendall"] = np.asarray(stats.kendalltau(pv, pm).statistic)
    else:
        out["spearman"] = out["kendall"] = nan
    return out


def _ranks_desc(scores_: np.ndarray):
    """Distinct thresholds (descending) and, per item, the index of its threshold."""
    thr, inv = np.unique(-scores_, return_inverse=True)
    return -thr, inv


def _ranked(y, score):
    """``y`` as booleans and ``score`` as floats, checked: 0/1 labels, one finite score each."""
    s = v.as_float_array("score", score)
    yy = np.asarray(y)
    if yy.dtype.kind != "b":
        yf = v.as_float_array("y", yy)
        if not np.isin(yf, (0.0, 1.0)).all():
            bad = np.unique(yf[~np.isin(yf, (0.0, 1.0))])[:3].tolist()
            raise ValueError(f"y must hold 0/1 labels, got {bad}")
        yy = yf == 1.0
    if yy.ndim != 1 or s.shape != yy.shape:
        raise ValueError(f"y and score must be 1-d of the same length, got shapes {yy.shape} "
                         f"and {s.shape}")
    if not np.isfinite(s).all():
        raise ValueError("score must hold finite numbers (one per item)")
    return yy, s


def auroc(y, score) -> float:
    """Area under the ROC curve of binary ``y`` (0/1) ranked by ``score``.

    The Mann-Whitney statistic with ties counted one half: equal to
    ``sklearn.metrics.roc_auc_score``. NaN when ``y`` holds one class only.

    Examples
    --------
    >>> auroc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    from scipy import stats

    y, s = _ranked(y, score)
    n1 = int(y.sum())
    n0 = y.size - n1
    if n1 == 0 or n0 == 0:
        return float("nan")
    r = stats.rankdata(s)
    return float((r[y].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def auprc(y, score) -> float:
    r"""Area under the precision-recall curve as average precision (step-wise).

    :math:`\mathrm{AP} = \sum_t (R_t - R_{t-1}) P_t` over the distinct score
    thresholds in decreasing order: equal to
    ``sklearn.metrics.average_precision_score``. NaN without positives.

    Examples
    --------
    >>> round(auprc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), 4)
    0.8333
    """
    y, s = _ranked(y, score)
    n1 = int(y.sum())
    if n1 == 0:
        return float("nan")
    thr, inv = _ranks_desc(s)
    tp = np.cumsum(np.bincount(inv, weights=y, minlength=thr.size))
    seen = np.cumsum(np.bincount(inv, minlength=thr.size))
    recall = tp / n1
    precision = tp / seen
    return float(np.sum(np.diff(np.concatenate([[0.0], recall])) * precision))


def manhattan(probs, reference) -> np.ndarray:
    r"""Per-item Manhattan (L1) distance :math:`\sum_c |p_{ic} - r_{ic}|` over the last axis.

    The one definition behind the total variation (half of it) and LeWiDi's Manhattan
    scores (:func:`labelvar.metrics.manhattan_distance`).

    Examples
    --------
    >>> manhattan([[0.8, 0.2], [0.3, 0.7]], [[1.0, 0.0], [0.4, 0.6]]).round(6).tolist()
    [0.4, 0.2]
    """
    return np.abs(np.asarray(probs, dtype=float) - np.asarray(reference, dtype=float)).sum(axis=-1)


def probability_scores(probs, reference, truth, *, pos_label: int | None = None,
                       eps: float = 1e-15) -> dict:
    r"""Scores of probability outputs against soft labels and against the majority.

    Parameters
    ----------
    probs : array_like, shape (n, L)
        Each item's predicted distribution over the L declared labels.
    reference : array_like, shape (n, L)
        Each item's label distribution from the panel (vote counts / K): the soft label.
    truth : array_like of int, shape (n,)
        The majority label codes (for AUROC and AUPRC).
    pos_label : int or None
        Binary: AUROC/AUPRC of ``probs[:, pos_label]`` for ``truth == pos_label``;
        None: the macro average over the labels present in ``truth`` (one against
        the rest).
    eps : float
        Probabilities are clipped to [eps, 1] in the cross-entropy.

    Returns
    -------
    dict of str to float
        ``cross_entropy`` :math:`-\frac1n\sum_i\sum_c r_{ic}\ln p_{ic}` (nats),
        ``total_variation`` :math:`\frac1n\sum_i\frac12\sum_c|p_{ic}-r_{ic}|`,
        ``auroc``, ``auprc``. The first two are NaN when some ``probs`` are not a
        distribution (outside [0, 1] or rows not summing to 1 within 1e-6): rank
        scores (AUROC, AUPRC) are still given.

    Examples
    --------
    >>> p = [[0.8, 0.2], [0.3, 0.7], [0.5, 0.5]]
    >>> r = [[1.0, 0.0], [0.4, 0.6], [0.6, 0.4]]
    >>> s = probability_scores(p, r, [0, 1, 0], pos_label=1)
    >>> {k: round(v, 4) for k, v in s.items()}
    {'cross_entropy': 0.5373, 'total_variation': 0.1333, 'auroc': 1.0, 'auprc': 1.0}
    """
    p = np.asarray(probs, dtype=float)
    r = np.asarray(reference, dtype=float)
    truth = np.asarray(truth)
    valid = bool(np.all((p >= 0) & (p <= 1)) and np.allclose(p.sum(axis=1), 1.0, atol=1e-6))
    out = {"cross_entropy": float("nan"), "total_variation": float("nan")}
    if valid and p.shape[0]:
        out["cross_entropy"] = float(-(r * np.log(np.clip(p, eps, 1.0))).sum(axis=1).mean())
        out["total_variation"] = float(0.5 * manhattan(p, r).mean())
    if pos_label is not None:
        labels = [int(pos_label)]
    else:
        labels = [c for c in range(p.shape[1]) if (truth == c).any() and (truth != c).any()]
    if not labels:
        out["auroc"] = out["auprc"] = float("nan")
    else:
        out["auroc"] = float(np.mean([auroc(truth == c, p[:, c]) for c in labels]))
        out["auprc"] = float(np.mean([auprc(truth == c, p[:, c]) for c in labels]))
    return out
