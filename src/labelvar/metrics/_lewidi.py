r"""The LeWiDi 2025 scores: soft (distribution) and perspectivist (per-annotator) distances.

As the official evaluation notebook of the third Learning-with-Disagreements shared task
(``Evaluation_LeWiDi_2025_Metrics.ipynb``) defines them; every score is a distance (lower
is better) averaged over items:

- :func:`manhattan_distance` (MultiPico's soft score): :math:`\frac1N\sum_i\sum_k
  |p_{ik} - t_{ik}|` (twice the total variation of :mod:`labelvar.metrics._scores`, whose
  per-item distance is the one definition used here);
- :func:`multilabel_manhattan_distance` (VariErrNLI's): per item, the mean over its L
  labels of the Manhattan distance between each label's predicted and target
  distributions, then the mean over items;
- :func:`wasserstein_distance` (Paraphrase and CSC's): the earth mover's distance with
  cost :math:`|h - k|` between the scale's points h and k, i.e. for ordered points
  :math:`\sum_h |P_{ih} - T_{ih}|` over the cumulative distributions;
- :func:`error_rate` (MultiPico's perspectivist score, and :func:`multilabel_error_rate`
  VariErrNLI's): per item :math:`1 - (a - \sum_k |t_{ik} - p_{ik}|) / a` over its a
  annotators — the share of annotators whose label is missed for 0/1 labels;
- :func:`mean_absolute_distance` (Paraphrase and CSC's): per item
  :math:`\frac1a\sum_k |t_{ik} - p_{ik}| / s` with s the ``scale`` the notebook passes
  (11 for Paraphrase's -5..5, 6 for CSC's 1..6: the number of points on the scale).
  **No ×100**: the notebook's formula shows ·100 but its code leaves it out (commented),
  and the leaderboard follows the code.

Conventions kept from the notebook: items weigh equally whatever their number of
annotators; annotators an item does not have are left out of its a (here: NaN in
``observed``). Not kept: the notebook rounds each item's distance and the mean to 5
decimals; these functions do not round (they differ from it by at most 5e-6).
"""

from __future__ import annotations

import numpy as np

from labelvar.metrics._scores import manhattan


def as_numbers(name: str, value) -> np.ndarray:
    """``value`` as a float array, or one line naming ``name`` (text, ragged rows, None)."""
    try:
        if value is None or isinstance(value, (str, bytes)):
            raise TypeError
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        text = " ".join(repr(value).split())
        raise ValueError(f"{name} must be an array of numbers with rows of equal length, got "
                         f"{text if len(text) <= 60 else text[:57] + '...'}") from None


def _scale(scale) -> float:
    try:
        if isinstance(scale, (bool, np.bool_, str, bytes)) or np.ndim(scale) != 0:
            raise TypeError
        s = float(scale)
    except (TypeError, ValueError):
        s = float("nan")
    if not np.isfinite(s) or s <= 0:
        raise ValueError(f"scale must be a positive number, got {scale!r}")
    return s


def _binary(name: str, x: np.ndarray) -> None:
    if not np.isin(x, (0.0, 1.0)).all():
        bad = np.unique(x[~np.isin(x, (0.0, 1.0))])[:3].tolist()
        raise ValueError(f"{name} must hold 0/1 labels for an error rate (the share of "
                         f"annotators' labels missed), got {bad}")


def _pair(predicted, observed, ndim: int, axes: str):
    """``predicted`` and ``observed`` as arrays of one shape with ``ndim`` axes and items."""
    p = as_numbers("predicted", predicted)
    t = as_numbers("observed", observed)
    if p.shape != t.shape or p.ndim != ndim:
        raise ValueError(f"predicted must have the shape of observed ({ndim} axes{axes}), got "
                         f"{p.shape} and {t.shape}")
    if t.shape[0] == 0:
        raise ValueError("observed has no items")
    return p, t


def _distributions(predicted, observed, *, ndim: int):
    p, t = _pair(predicted, observed, ndim, ": items, ... , scale points")
    for name, x in (("predicted", p), ("observed", t)):
        if not np.all(np.isfinite(x)) or x.min() < 0:
            raise ValueError(f"{name} must hold probabilities (finite, >= 0)")
        if not np.allclose(x.sum(axis=-1), 1.0, atol=1e-6):
            raise ValueError(f"{name} must hold distributions: each row must sum to 1")
    return p, t


def manhattan_distance(predicted, observed) -> float:
    r"""Average Manhattan distance between predicted and observed label distributions.

    Parameters
    ----------
    predicted, observed : array_like, shape (n_items, L)
        Each item's predicted distribution and its observed one (the annotators' label
        shares), over the same L labels in the same order.

    Returns
    -------
    float
        :math:`\frac1N\sum_i\sum_k |p_{ik} - t_{ik}|` in [0, 2] (LeWiDi 2025's average MD).

    Examples
    --------
    >>> round(manhattan_distance([[0.8, 0.2], [0.5, 0.5]], [[1.0, 0.0], [0.4, 0.6]]), 6)
    0.3
    """
    p, t = _distributions(predicted, observed, ndim=2)
    return float(manhattan(p, t).mean())


def multilabel_manhattan_distance(predicted, observed) -> float:
    r"""LeWiDi 2025's multilabel soft score: per item the mean Manhattan distance over labels.

    Parameters
    ----------
    predicted, observed : array_like, shape (n_items, n_labels, m)
        For each item and label, a distribution over m values (m = 2: the label's
        absence and presence, as in VariErrNLI).

    Returns
    -------
    float
        :math:`\frac1N\sum_i\frac1L\sum_j\sum_k |p_{ijk} - t_{ijk}|`.

    Examples
    --------
    >>> p = [[[0.5, 0.5], [1.0, 0.0]]]
    >>> t = [[[0.0, 1.0], [1.0, 0.0]]]
    >>> multilabel_manhattan_distance(p, t)
    0.5
    """
    p, t = _distributions(predicted, observed, ndim=3)
    return float(manhattan(p, t).mean(axis=1).mean())


def wasserstein_distance(predicted, observed) -> float:
    r"""Average Wasserstein (earth mover's) distance on an ordinal scale, cost |h - k|.

    Parameters
    ----------
    predicted, observed : array_like, shape (n_items, m)
        Distributions over the m ordered points of the scale (equally spaced, one unit
        apart, as the notebook's cost matrix ``|h - k|`` of the points' positions).

    Returns
    -------
    float
        :math:`\frac1N\sum_i \min_\gamma \sum_{hk}\gamma_{hk}|h-k|`, computed as the
        L1 distance between the cumulative distributions (equal for one-dimensional
        transport).

    Examples
    --------
    >>> wasserstein_distance([[1.0, 0.0, 0.0]], [[0.0, 0.0, 1.0]])  # all mass moved 2 points
    2.0
    """
    p, t = _distributions(predicted, observed, ndim=2)
    return float(np.abs(np.cumsum(p - t, axis=1)[:, :-1]).sum(axis=1).mean())


def _per_annotator(predicted, observed, *, ndim: int, binary: bool = False):
    p, t = _pair(predicted, observed, ndim, ", annotators last")
    given = ~np.isnan(t)
    if np.isinf(t).any():
        raise ValueError("observed must hold finite labels (NaN where an annotator did not label)")
    if not np.all(np.isfinite(p[given])):
        raise ValueError("predicted must hold a finite label for every annotator observed has")
    n_ann = given.sum(axis=-1)
    if (n_ann == 0).any():
        raise ValueError("observed has an item without any annotator's label")
    if binary:
        _binary("observed", t[given])
        _binary("predicted", p[given])
    diff = np.where(given, np.abs(np.where(given, t, 0.0) - np.where(given, p, 0.0)), 0.0)
    return diff.sum(axis=-1), n_ann


def error_rate(predicted, observed) -> float:
    r"""LeWiDi 2025's perspectivist error rate: per item the share of annotators' labels missed.

    Parameters
    ----------
    predicted, observed : array_like, shape (n_items, n_annotators)
        Each annotator's predicted and actual 0/1 label (other values are refused); NaN
        in ``observed`` where the annotator did not label the item (left out of its a).

    Returns
    -------
    float
        :math:`\frac1N\sum_i [1 - (a_i - \sum_k |t_{ik} - p_{ik}|) / a_i]`.

    Examples
    --------
    >>> round(error_rate([[1, 0, 1], [0, 0, 0]], [[1, 1, 1], [0, 1, float("nan")]]), 6)
    0.416667
    """
    diff, n_ann = _per_annotator(predicted, observed, ndim=2, binary=True)
    return float(np.mean(1 - (n_ann - diff) / n_ann))


def multilabel_error_rate(predicted, observed) -> float:
    """LeWiDi 2025's multilabel error rate: per item the mean error rate over its labels.

    Parameters
    ----------
    predicted, observed : array_like, shape (n_items, n_labels, n_annotators)
        For each item and label, each annotator's 0/1 (NaN: no label from that annotator).

    Returns
    -------
    float
        The mean over items of the mean over labels of :func:`error_rate`'s per-item term.

    Examples
    --------
    >>> multilabel_error_rate([[[1, 0], [0, 0]]], [[[1, 1], [0, 0]]])
    0.25
    """
    diff, n_ann = _per_annotator(predicted, observed, ndim=3, binary=True)
    return float(np.mean(np.mean(1 - (n_ann - diff) / n_ann, axis=1)))


def mean_absolute_distance(predicted, observed, *, scale: float) -> float:
    r"""LeWiDi 2025's normalised mean absolute distance of per-annotator ratings.

    Parameters
    ----------
    predicted, observed : array_like, shape (n_items, n_annotators)
        Each annotator's predicted and actual rating (NaN in ``observed``: no rating).
    scale : float
        The divisor: the notebook passes the number of points on the scale (11 for
        Paraphrase's -5..5, 6 for CSC's 1..6).

    Returns
    -------
    float
        :math:`\frac1N\sum_i\frac1{a_i}\sum_k |t_{ik} - p_{ik}| / s` (no ×100, as the
        notebook's code).

    Examples
    --------
    >>> round(mean_absolute_distance([[1, 2], [3, 3]], [[2, 2], [5, 3]], scale=5), 6)
    0.15
    """
    s = _scale(scale)
    diff, n_ann = _per_annotator(predicted, observed, ndim=2)
    return float(np.mean(diff / n_ann / s))
