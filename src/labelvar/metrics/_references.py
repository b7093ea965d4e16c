r"""What reference labellers would score on the same items: the coin beside each coefficient.

In every item, one vote (chosen uniformly at random among the item's votes) is replaced
by the label of a reference labeller who sees the item's *other* votes:

- ``uniform``: a label drawn uniformly from the q categories;
- ``prevalence``: a label drawn from the overall shares of the categories among all votes;
- ``exchangeable``: one of the item's other votes drawn at random (an annotator
  exchangeable with the panel);
- ``plurality``: the plurality label of the item's other votes (ties broken uniformly).

Items with a single vote keep it for the two item-aware references (there are no other
votes to follow); they count only in the prevalences. The ``exchangeable`` reference
copies a vote it is then compared with, so it agrees more than a *fresh* annotator
exchangeable with the panel, whose expected coefficient is the observed one itself; each
reference changes one vote in r, so with large panels all four lie within O(1/r) of the
observed coefficient. With two raters both item-aware
references copy the other rater, so their coefficient is 1: they say something from three
raters on.

The expected coefficient is **exact** where it is linear in the per-item outcome (percent
agreement, and Brennan-Prediger whose chance term is fixed): a sum over the replaced
vote and the reference's label. Otherwise (Cohen's κ, Scott's π, Fleiss' κ, AC1/AC2, whose
chance agreement moves with the replaced votes) it is a **Monte Carlo** mean over
``n_resamples`` seeded replicates, with its standard error.
"""

from __future__ import annotations

import numpy as np

from labelvar.metrics import _agreement as ag

#: the reference labellers, in the order tables list them
REFERENCES = ("uniform", "prevalence", "exchangeable", "plurality")
#: coefficients whose expectation is a sum over per-item outcomes
EXACT = ("percent_agreement", "brennan_prediger")
#: array elements one block of Monte Carlo replicates may hold (memory stays ~ 10^8 bytes)
BLOCK = 4_000_000


def follow(other, reference: str, prevalence, rng_free: bool = True):
    """The reference's label distribution (..., q) given the other votes' counts (..., q).

    Examples
    --------
    >>> follow(np.array([[2., 1, 0], [1, 1, 0]]), "plurality", np.ones(3) / 3).tolist()
    [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]]
    """
    other = np.asarray(other, dtype=float)
    q = other.shape[-1]
    if reference == "uniform":
        return np.broadcast_to(np.full(q, 1.0 / q), other.shape)
    if reference == "prevalence":
        return np.broadcast_to(np.asarray(prevalence, float), other.shape)
    total = other.sum(axis=-1, keepdims=True)
    if reference == "exchangeable":
        return other / np.where(total > 0, total, 1.0)
    top = (other == other.max(axis=-1, keepdims=True)) & (total > 0)
    return top / np.maximum(top.sum(axis=-1, keepdims=True), 1)


def _replacement_laws(counts, reference, prevalence):
    """For each removed category k: the reference's law D[k] (n, q) after removing one k vote."""
    counts = np.asarray(counts, dtype=float)
    q = counts.shape[1]
    laws = np.empty((q,) + counts.shape)
    for k in range(q):
        other = counts.copy()
        other[:, k] -= 1
        laws[k] = follow(np.maximum(other, 0), reference, prevalence)
    return laws


def _item_aware(reference: str) -> bool:
    return reference in ("exchangeable", "plurality")


def exact_counts(counts, coefficient: str, w, reference: str, prevalence) -> float:
    """E[γ] for a linear coefficient: the replaced vote and the reference's label summed out."""
    counts = np.asarray(counts, dtype=float)
    n, q = counts.shape
    r = counts.sum(axis=1)
    share = counts / r[:, None]
    keep = (r < 2) if _item_aware(reference) else np.zeros(n, bool)
    laws = _replacement_laws(counts, reference, prevalence)
    expected = np.zeros(n)
    eye = np.eye(q)
    for k in range(q):
        for v in range(q):
            new = counts - eye[k] + eye[v]
            _, pai, _ = ag._counts_parts(new, w)
            expected += share[:, k] * laws[k][:, v] * np.nan_to_num(pai)
    _, pai0, _ = ag._counts_parts(counts, w)
    expected = np.where(keep, np.nan_to_num(pai0), expected)
    two = r >= 2
    pa = expected[two].mean()
    pe, _ = ag._counts_chance(np.zeros(q), ag.CHANCE[coefficient], w)
    return float((pa - pe) / (1 - pe))


def _draw(cum_law, u):
    """Category index of uniforms u (...) under cumulative laws (..., q)."""
    return np.minimum((u[..., None] > cum_law).sum(axis=-1), cum_law.shape[-1] - 1)


def simulate_counts(counts, coefficient: str, w, reference: str, prevalence, rng,
                    n_resamples: int) -> np.ndarray:
    """γ of ``n_resamples`` count tables with one vote per item replaced by the reference."""
    counts = np.asarray(counts, dtype=float)
    n, q = counts.shape
    r = counts.sum(axis=1)
    keep = (r < 2) if _item_aware(reference) else np.zeros(n, bool)
    laws = np.cumsum(_replacement_laws(counts, reference, prevalence), axis=-1)  # (q, n, q)
    removed = _draw(np.cumsum(counts / r[:, None], axis=1), rng.random((n_resamples, n)))
    law = laws[removed, np.arange(n)]  # (R, n, q)
    added = _draw(law, rng.random((n_resamples, n)))
    eye = np.eye(q)
    new = counts + np.where(keep[:, None], 0.0, eye[added] - eye[removed])
    return ag.counts_coefficient(new, coefficient, w)[2]


def pairs_table(pairs, q: int) -> np.ndarray:
    """Contingency tables (..., q, q) of label pairs (..., n, 2)."""
    pairs = np.asarray(pairs, dtype=np.int64)
    lead = pairs.shape[:-2]
    m = int(np.prod(lead, dtype=np.int64)) if lead else 1
    flat = pairs.reshape(m, -1, 2)
    index = (np.arange(m)[:, None] * q * q + flat[..., 0] * q + flat[..., 1]).ravel()
    return np.bincount(index, minlength=m * q * q).reshape(lead + (q, q)).astype(float)


def simulate_pairs(pairs, coefficient: str, w, reference: str, prevalence, rng,
                   n_resamples: int) -> np.ndarray:
    """γ of tables of two raters with one rater's label per item replaced by the reference."""
    pairs = np.asarray(pairs, dtype=np.int64)
    n = pairs.shape[0]
    q = w.shape[0]
    slot = rng.integers(0, 2, size=(n_resamples, n))
    other = np.take_along_axis(np.broadcast_to(pairs, (n_resamples, n, 2)),
                               (1 - slot)[..., None], axis=-1)[..., 0]
    law = follow(np.eye(q)[other], reference, prevalence)
    added = _draw(np.cumsum(law, axis=-1), rng.random((n_resamples, n)))
    new = np.broadcast_to(pairs, (n_resamples, n, 2)).copy()
    np.put_along_axis(new, slot[..., None], added[..., None], axis=-1)
    return ag.table_coefficient(pairs_table(new, q), coefficient, w)[2]


def simulate_codes(codes, w, reference: str, prevalence, rng, n_resamples: int) -> np.ndarray:
    """Conger's κ of raw ratings (n, r) with one rated slot per item replaced by the reference."""
    codes = np.asarray(codes, dtype=np.int64)
    n, _ = codes.shape
    q = w.shape[0]
    rated = codes >= 0
    n_rated = rated.sum(axis=1)
    keep = (n_rated < 2) if _item_aware(reference) else np.zeros(n, bool)
    slot = _draw(np.cumsum(rated, axis=1) / n_rated[:, None], rng.random((n_resamples, n)))
    removed = codes[np.arange(n), slot]  # (R, n)
    eye = np.eye(q)
    other = ag.codes_counts(codes, q)[None] - eye[removed]
    law = follow(other, reference, prevalence)
    added = _draw(np.cumsum(law, axis=-1), rng.random((n_resamples, n)))
    new = np.broadcast_to(codes, (n_resamples,) + codes.shape).copy()
    put = np.where(keep[None, :], removed, added)
    np.put_along_axis(new, slot[..., None], put[..., None], axis=-1)
    return ag.conger_coefficient(new, w)[2]


def references(*, counts, pairs, coefficient: str, w, prevalence, rng, n_resamples: int,
               codes=None):
    """Rows (reference, expected, se, method) for one set of items.

    ``pairs`` (n, 2) is used for the table formulas of two raters (layout ``table``),
    ``codes`` (n, r) for Cohen's κ of raw ratings (Conger's), ``counts`` (n, q) otherwise.
    """
    rows = []
    n = len(counts) if codes is None else codes.shape[0]
    width = (codes.shape[1] if codes is not None else 1) * w.shape[0] + w.shape[0]
    block = max(1, min(n_resamples, BLOCK // max(1, n * width)))  # replicates per block
    for reference in REFERENCES:
        if coefficient in EXACT:
            value = exact_counts(counts, coefficient, w, reference, prevalence)
            rows.append({"reference": reference, "expected": value, "se": 0.0,
                         "method": "exact"})
            continue
        draws = []
        for start in range(0, n_resamples, block):
            size = min(block, n_resamples - start)
            if codes is not None:
                draws.append(simulate_codes(codes, w, reference, prevalence, rng, size))
            elif pairs is not None:
                draws.append(simulate_pairs(pairs, coefficient, w, reference, prevalence, rng,
                                            size))
            else:
                draws.append(simulate_counts(counts, coefficient, w, reference, prevalence, rng,
                                             size))
        draws = np.concatenate(draws)
        ok = draws[np.isfinite(draws)]
        se = float(ok.std(ddof=1) / np.sqrt(ok.size)) if ok.size > 1 else float("nan")
        rows.append({"reference": reference, "expected": float(ok.mean()) if ok.size else
                     float("nan"), "se": se, "method": "monte_carlo"})
    return rows
