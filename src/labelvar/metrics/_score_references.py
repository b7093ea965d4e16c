r"""What reference labellers score under the LeWiDi distances, per agreement bin and overall.

Each reference labeller gives one label (a one-hot distribution for the soft scores):

- ``uniform``: a label drawn uniformly from the scale;
- ``prevalence``: a label drawn from the shares of the labels among all votes;
- ``exchangeable``: another annotator of the item. Soft scores: a label drawn from the
  item's observed distribution (the target is the whole panel's distribution);
  perspectivist scores: for each annotator, one of the item's *other* annotators' labels;
- ``plurality``: the plurality label (soft: of the item's votes; perspectivist: of the
  item's other annotators), ties split evenly.

Every LeWiDi score is a mean over items of a per-item distance, so each expectation is
**exact**: :math:`\sum_v d_{iv}\, s(v, t_i)` summed over the reference's labels v with
their probabilities :math:`d_{iv}`. An annotator alone on an item has no other annotator
to follow: the item-aware references draw from the prevalence there.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd

from labelvar.metrics._lewidi import _binary, _scale, as_numbers
from labelvar.metrics._references import REFERENCES, follow
from labelvar.metrics._scores import manhattan

SOFT = ("manhattan_distance", "multilabel_manhattan_distance", "wasserstein_distance")
PERSPECTIVIST = ("error_rate", "multilabel_error_rate", "mean_absolute_distance")


def _soft_expected(counts, score, reference, prevalence):
    """Per item: E[s(one-hot v, t)] for v drawn from the reference's law."""
    counts = np.asarray(counts, dtype=float)
    t = counts / counts.sum(axis=1, keepdims=True)
    law = follow(counts, reference, prevalence)
    m = counts.shape[1]
    eye = np.eye(m)
    per_label = np.empty_like(t)
    for v in range(m):
        if score == "wasserstein_distance":
            per_label[:, v] = np.abs(np.cumsum(eye[v] - t, axis=1)[:, :-1]).sum(axis=1)
        else:
            per_label[:, v] = manhattan(eye[v], t)
    return (law * per_label).sum(axis=1)


def _perspectivist_expected(labels, values, reference, prevalence, scale):
    """Per item: the expected mean over its annotators of |t - v| / scale."""
    t = np.asarray(labels, dtype=float)
    given = ~np.isnan(t)
    codes = np.full(t.shape, -1)
    for j, x in enumerate(values):
        codes[given & (t == x)] = j
    if (given & (codes < 0)).any():
        raise ValueError(f"observed has labels outside labels {np.asarray(values).tolist()}: "
                         f"{np.unique(t[given & (codes < 0)])[:3].tolist()}")
    m = len(values)
    onehot = np.eye(m)[np.where(codes >= 0, codes, 0)] * given[..., None]
    total = onehot.sum(axis=1, keepdims=True)
    other = total - onehot  # (n, a, m): each annotator's others
    law = follow(other, reference, prevalence)
    alone = other.sum(axis=-1) == 0
    if reference in ("exchangeable", "plurality"):
        law = np.where(alone[..., None], prevalence, law)
    cost = np.abs(np.where(given, t, 0.0)[..., None] - np.asarray(values, float)) / scale
    per_annotator = np.where(given, (law * cost).sum(axis=-1), 0.0)
    return per_annotator.sum(axis=1) / given.sum(axis=1)


def _bins(counts):
    r = counts.sum(axis=1)
    return np.array([str(Fraction(int(x), int(n))) for x, n in zip(counts.max(axis=1), r)])


def score_references(observed, score: str, *, labels=None, scale: float | None = None,
                     by_agreement: bool = True) -> pd.DataFrame:
    """The expected LeWiDi score of each reference labeller on the same items.

    Parameters
    ----------
    observed : array_like
        Soft scores (``"manhattan_distance"``, ``"wasserstein_distance"``): vote counts
        (n_items, m); ``"multilabel_manhattan_distance"``: counts (n_items, n_labels, m).
        Perspectivist scores (``"error_rate"``, ``"mean_absolute_distance"``): each
        annotator's label (n_items, n_annotators), NaN where none;
        ``"multilabel_error_rate"``: (n_items, n_labels, n_annotators).
    score : str
        The name of one of the LeWiDi score functions of :mod:`labelvar.metrics`.
    labels : sequence of float, optional
        Perspectivist scores: the scale's values (the uniform labeller draws among them);
        default the values seen.
    scale : float, optional
        ``"mean_absolute_distance"``'s divisor (required there; see that function).
    by_agreement : bool
        Also one block per agreement bin (the modal share of an item's votes; for the
        multilabel scores, of each item-label pair).

    Returns
    -------
    DataFrame
        ``scope, n_items, reference, expected, se, method`` (always ``exact``, se 0).

    Examples
    --------
    >>> refs = score_references([[3, 0], [1, 2]], "manhattan_distance", by_agreement=False)
    >>> refs.set_index("reference")["expected"].round(4).to_dict()
    {'uniform': 1.0, 'prevalence': 0.8889, 'exchangeable': 0.4444, 'plurality': 0.3333}
    """
    known = SOFT + PERSPECTIVIST
    if score not in known:
        raise ValueError(f"score must be one of {', '.join(map(repr, known))}; got {score!r}")
    x = as_numbers("observed", observed)
    multi = score.startswith("multilabel")
    if x.ndim != (3 if multi else 2) or x.shape[0] == 0:
        raise ValueError(f"observed must have {3 if multi else 2} axes and items for {score!r}, "
                         f"got shape {x.shape}")
    if multi:
        x = x.reshape(-1, x.shape[-1])
    if score in SOFT:
        if labels is not None:
            raise ValueError(f"labels applies to the perspectivist scores "
                             f"({', '.join(map(repr, PERSPECTIVIST))}), not {score!r}: leave "
                             "it out (the soft scores' labels are observed's columns)")
        if scale is not None:
            raise ValueError(f"scale applies to 'mean_absolute_distance' only, not {score!r}: "
                             "leave it out")
        if (not np.all(np.isfinite(x)) or x.min() < 0 or (x != np.round(x)).any()
                or (x.sum(axis=1) <= 0).any()):
            raise ValueError(f"observed must hold vote counts for {score!r} (whole numbers >= 0, "
                             "every item with a vote; not shares)")
        counts = x
        prevalence = counts.sum(axis=0) / counts.sum()
        per_item = {r: _soft_expected(counts, score, r, prevalence) for r in REFERENCES}
    else:
        if score == "mean_absolute_distance":
            if scale is None:
                raise ValueError("scale must be a positive number for 'mean_absolute_distance', "
                                 "got None")
            _scale(scale)
        elif scale is not None:
            raise ValueError(f"scale applies to 'mean_absolute_distance' only, not {score!r}: "
                             "leave it out")
        if np.isinf(x).any():
            raise ValueError("observed must hold finite labels (NaN where an annotator did not "
                             "label)")
        given = ~np.isnan(x)
        if (given.sum(axis=1) == 0).any():
            raise ValueError("observed has an item without any annotator's label")
        if score != "mean_absolute_distance":
            _binary("observed", x[given])
        if labels is None:
            values = np.unique(x[given])
        else:
            if isinstance(labels, (str, bytes)):
                raise ValueError(f"labels must be a sequence of numbers, got {labels!r}")
            values = as_numbers("labels", list(labels))
            if values.ndim != 1 or not len(values) or not np.isfinite(values).all():
                raise ValueError(f"labels must be a non-empty sequence of finite numbers, got {labels!r}")
            if len(np.unique(values)) < len(values):
                raise ValueError(f"labels lists a value more than once: {list(labels)!r}")
            if score != "mean_absolute_distance":
                _binary("labels", values)
        counts = np.stack([(x == v).sum(axis=1) for v in values], axis=1).astype(float)
        prevalence = counts.sum(axis=0) / counts.sum()
        s = float(scale) if score == "mean_absolute_distance" else 1.0
        per_item = {r: _perspectivist_expected(x, values, r, prevalence, s) for r in REFERENCES}
    n = x.shape[0]
    scopes = [("all", np.ones(n, bool))]
    if by_agreement:
        bins = _bins(counts)
        scopes += [(f"agreement {b}", bins == b) for b in sorted(set(bins), key=Fraction)]
    rows = [{"scope": scope, "n_items": int(mask.sum()), "reference": r,
             "expected": float(per_item[r][mask].mean()), "se": 0.0, "method": "exact"}
            for scope, mask in scopes for r in REFERENCES]
    return pd.DataFrame(rows)
