r"""Agreement among the panel's annotators, and ground truth by aggregation.

- :func:`fleiss_kappa`: Fleiss' kappa of per-item vote counts (equal number of votes
  per item), the formula of ``statsmodels.stats.inter_rater.fleiss_kappa`` (tested
  equal), written with item weights so that a bootstrap is one matrix product;
- :func:`krippendorff_alpha`: Krippendorff's alpha (nominal, ordinal, interval),
  any number of votes per item (missing ratings allowed), from the coincidence
  matrix; pinned to Krippendorff's published worked examples;
- :func:`bootstrap_agreement`: percentile intervals of both over items;
- :func:`cross_replication`: cross-replication reliability κx of two rater groups
  (Wong, Paritosh & Aroyo 2021), normalised by the groups' own agreement, per agreement
  bin, with bootstrap intervals and the value conditional independence predicts
  (:func:`independent_normalized_kappa`);
- :func:`dawid_skene`: the Dawid-Skene (1979) EM estimate of each item's label
  posterior from an items x raters code matrix, a wrapper over
  :mod:`labelvar.votes` in crowd-kit's ``DawidSkene`` setting (majority-vote
  initialisation, the same M-step, E-step and stopping rule; tested against values
  crowd-kit 1.4.2 gives).

Cohen's kappa of a rater against the panel's majority is a confusion-matrix
metric: ``metric="kappa"`` in :func:`labelvar.stratify`.

Why not a library: the PyPI ``krippendorff`` package is GPL-3.0, statsmodels 0.15.0
has no alpha (``statsmodels.stats.inter_rater.krippendorff_alpha`` appears in its
development documentation, version 0.15.1: once released, :func:`krippendorff_alpha`
can call it, keeping these tests); crowd-kit (Apache-2.0) requires ``transformers``,
``nltk`` and ``pyarrow`` at install time for its text aggregators, far more than
the 60 lines of EM used here.

Examples
--------
>>> counts = [[3, 0], [2, 1], [0, 3], [1, 2]]
>>> round(fleiss_kappa(counts), 4), round(krippendorff_alpha(counts), 4)
(0.3333, 0.3889)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from labelvar._base import _validate as v
from labelvar._base._defaults import CONFIDENCE_LEVEL
from labelvar._base._format import result_html

__all__ = ["LEVELS", "CrossReplication", "bootstrap_agreement", "cross_replication", "dawid_skene",
           "fleiss_kappa", "independent_normalized_kappa", "krippendorff_alpha"]

#: levels of measurement of :func:`krippendorff_alpha`
LEVELS = ("nominal", "ordinal", "interval")
#: items keyed at a time by :func:`_patterns`
_BLOCK = 1 << 18
#: most bootstrap resamples (``n_resamples``) of :func:`bootstrap_agreement` and
#: :func:`cross_replication` (their percentile's Monte Carlo error is far below the
#: interval's width long before)
MAX_RESAMPLES = 1_000_000
#: bytes the resample weights of :func:`cross_replication` may take at once
_WEIGHT_BYTES = 256 * 2 ** 20


def _counts(counts, name: str = "counts") -> np.ndarray:
    """Items x values counts, checked: whole numbers >= 0 (integer arrays as given)."""
    c = np.asarray(counts)
    if c.dtype == object or c.dtype.kind in "USb":
        try:
            c = c.astype(float)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be numbers (votes per item and label)") from None
    if not np.issubdtype(c.dtype, np.integer):
        c = c.astype(float)
    if c.ndim != 2 or c.shape[1] < 2:
        raise ValueError(f"{name} must be items x labels (at least 2 labels), got shape {c.shape}")
    if c.dtype.kind == "f" and c.size:
        bad = ~np.isfinite(c) | (c != np.floor(c))
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise ValueError(f"{name} must be whole numbers of votes, got {c[i, j]:g} (item {i}, "
                             f"column {j})")
    if c.size and c.min() < 0:
        raise ValueError(f"{name} must be >= 0")
    return c


def _fleiss(counts: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Fleiss' kappa with item weights ``w`` (shape (B, n)); counts with equal row sums."""
    k = counts.sum(axis=1)
    kk = k[0]
    p_item = ((counts ** 2).sum(axis=1) - kk) / (kk * (kk - 1))
    tot = w.sum(axis=1)
    p_bar = w @ p_item / tot
    p_cat = (w @ counts) / (kk * tot[:, None])
    p_e = (p_cat ** 2).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (p_bar - p_e) / (1 - p_e)
    return np.where(1 - p_e > 1e-15, out, np.nan)


def fleiss_kappa(counts) -> float:
    r"""Fleiss' kappa of items x labels vote counts (the same number K of votes per item).

    :math:`\kappa = (\bar P - P_e) / (1 - P_e)` with
    :math:`P_i = (\sum_c n_{ic}^2 - K) / (K (K - 1))`, :math:`\bar P` their mean and
    :math:`P_e = \sum_c p_c^2`, :math:`p_c` the share of votes for label c: as
    ``statsmodels.stats.inter_rater.fleiss_kappa(counts)`` (``method="fleiss"``).
    NaN when every vote is for one label.

    Examples
    --------
    >>> round(fleiss_kappa([[5, 0], [0, 5], [4, 1], [1, 4]]), 4)
    0.6
    """
    c = _counts(counts)
    uniq, freq = _patterns(c)  # items with equal counts contribute equally
    k = uniq.sum(axis=1)
    if c.shape[0] == 0 or np.any(k != k[0]) or k[0] < 2:
        raise ValueError("fleiss_kappa needs the same number (>= 2) of votes for every item; "
                         "use krippendorff_alpha for missing votes")
    return float(_fleiss(uniq, freq[None, :])[0])


def _patterns(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of items x labels counts (sorted) and how many items have each.

    Statistics that sum per-item terms (Fleiss' kappa, Krippendorff's alpha) need
    only these; an item resample is a multinomial draw of the row frequencies. The
    rows come as floats. Integer counts are keyed :data:`_BLOCK` items at a time
    and the keys counted (no copy of every item's counts).
    """
    c = np.asarray(counts)
    if c.shape[0] == 0:
        return c.astype(float), np.zeros(0)
    if np.issubdtype(c.dtype, np.integer):
        top = int(c.max()) + 1
        if c.shape[1] * np.log2(max(top, 2)) < 62:
            return _integer_patterns(c, top)
    ci = c.astype(np.int64)
    top = int(ci.max()) + 1 if ci.size else 1
    if np.array_equal(ci, c) and ci.min() >= 0 and c.shape[1] * np.log2(max(top, 2)) < 62:
        key = ci @ (top ** np.arange(c.shape[1], dtype=np.int64))
        ukey, first, freq = np.unique(key, return_index=True, return_counts=True)
        return c[first], freq.astype(float)
    uniq, freq = np.unique(c, axis=0, return_counts=True)
    return uniq.astype(float), freq.astype(float)


def _integer_patterns(c: np.ndarray, top: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_patterns` of counts in [0, top): each row keyed as a number in base ``top``."""
    n, n_values = c.shape
    powers = top ** np.arange(n_values, dtype=np.int64)
    blocks = range(0, n, _BLOCK)
    if top ** n_values <= _BLOCK:  # few possible rows: count every key
        hits = np.zeros(top ** n_values, dtype=np.int64)
        for s in blocks:
            hits += np.bincount(c[s:s + _BLOCK].astype(np.int64) @ powers,
                                minlength=hits.size)
        ukey = np.flatnonzero(hits)
        freq = hits[ukey]
    else:
        key = np.empty(n, dtype=np.int64)
        for s in blocks:
            key[s:s + _BLOCK] = c[s:s + _BLOCK].astype(np.int64) @ powers
        ukey, freq = np.unique(key, return_counts=True)
    return ((ukey[:, None] // powers) % top).astype(float), freq.astype(float)


def _coincidence_parts(counts: np.ndarray) -> np.ndarray:
    """Per item, its contribution to the coincidence matrix (n x V x V); unpairable: 0."""
    m = counts.sum(axis=1)
    pairable = m >= 2
    denom = np.where(pairable, m - 1, 1.0)
    outer = counts[:, :, None] * counts[:, None, :]
    idx = np.arange(counts.shape[1])
    outer[:, idx, idx] -= counts
    return np.where(pairable[:, None, None], outer / denom[:, None, None], 0.0)


def _delta(level: str, n_c: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Squared differences delta^2_ck (leading axes of ``n_c`` kept)."""
    V = values.size
    if level == "nominal":
        return np.broadcast_to(1.0 - np.eye(V), n_c.shape[:-1] + (V, V))
    if level == "interval":
        d = (values[:, None] - values[None, :]) ** 2
        return np.broadcast_to(d, n_c.shape[:-1] + (V, V))
    # ordinal: (sum_{g=c}^{k} n_g - (n_c + n_k) / 2)^2, by rank
    cum = np.cumsum(n_c, axis=-1)
    lo = np.minimum.outer(np.arange(V), np.arange(V))
    hi = np.maximum.outer(np.arange(V), np.arange(V))
    cum0 = np.concatenate([np.zeros(n_c.shape[:-1] + (1,)), cum], axis=-1)
    between = cum0[..., hi + 1] - cum0[..., lo]
    return (between - (n_c[..., :, None] + n_c[..., None, :]) / 2) ** 2


def _alpha(parts: np.ndarray, w: np.ndarray, level: str, values: np.ndarray) -> np.ndarray:
    V = values.size
    o = (w @ parts.reshape(parts.shape[0], V * V)).reshape(-1, V, V)
    n_c = o.sum(axis=2)
    n = n_c.sum(axis=1)
    d = _delta(level, n_c, values)
    d_o = (o * d).sum(axis=(1, 2))
    d_e = (n_c[:, :, None] * n_c[:, None, :] * d).sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 1.0 - (n - 1) * d_o / d_e
    return np.where(d_e > 0, out, np.nan)


def _in_value_order(c: np.ndarray, values):
    """Counts and column values with the columns in increasing value (ordinal ranks them)."""
    vals = np.arange(c.shape[1], dtype=float) if values is None else np.asarray(values, float)
    if vals.shape != (c.shape[1],):
        raise ValueError(f"values must give one number per column ({c.shape[1]}), "
                         f"got {vals.shape}")
    if not np.all(np.isfinite(vals)):
        raise ValueError(f"values must be finite numbers, got {vals.tolist()}")
    if np.any(np.diff(vals) < 0):
        order = np.argsort(vals, kind="stable")
        c, vals = c[:, order], vals[order]
    return c, vals


def krippendorff_alpha(counts, level: str = "nominal", values=None) -> float:
    r"""Krippendorff's alpha of items x values vote counts (any votes per item).

    From the coincidence matrix :math:`o_{ck} = \sum_u (n_{uc} n_{uk} - [c = k]\,
    n_{uc}) / (m_u - 1)` over the items with :math:`m_u \ge 2` votes,
    :math:`\alpha = 1 - (n - 1) \sum o_{ck} \delta^2_{ck} / \sum n_c n_k \delta^2_{ck}`
    (Krippendorff, "Computing Krippendorff's Alpha-Reliability", 2011).
    :math:`\delta^2` is nominal :math:`[c \ne k]`, ordinal
    :math:`(\sum_{g=c}^{k} n_g - (n_c + n_k)/2)^2` (by rank) or interval
    :math:`(v_c - v_k)^2`.

    Parameters
    ----------
    counts : array_like, shape (n_items, V)
        Votes per item and value (missing votes are simply not counted).
    level : {"nominal", "ordinal", "interval"}
    values : array_like of float, optional
        The numeric value of each column (interval level; the ordinal level ranks
        the columns by it, in any column order); default 0, 1, ...

    Returns
    -------
    float
        NaN when no item has two votes or every pairable vote is for one value.

    Examples
    --------
    Krippendorff's (2011) example: 4 observers, 12 units, values 1-5, missing data.

    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    ...         [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]]
    >>> counts = [[sum(r[u] == x for r in data) for x in range(1, 6)] for u in range(12)]
    >>> [round(krippendorff_alpha(counts, lv, values=[1, 2, 3, 4, 5]), 3) for lv in LEVELS]
    [0.743, 0.815, 0.849]
    """
    v.choice("level", level, LEVELS)
    c = _counts(counts)
    c, vals = _in_value_order(c, values)
    uniq, freq = _patterns(c)  # items with equal counts contribute equally
    return float(_alpha(_coincidence_parts(uniq), freq[None, :], level, vals)[0])


def bootstrap_agreement(counts, statistic: str, n_resamples: int, rng, *,
                        confidence_level: float = CONFIDENCE_LEVEL, values=None) -> tuple[float, float]:
    """Percentile interval of ``statistic`` over items resampled with replacement.

    A resample is drawn as how often each distinct count row occurs (a multinomial
    over the rows' frequencies: the distribution of resampling items, at a cost that
    does not grow with the number of items).

    Parameters
    ----------
    counts : array_like, shape (n_items, V)
    statistic : {"fleiss_kappa", "alpha_nominal", "alpha_ordinal", "alpha_interval"}
    n_resamples : int
        Resamples (0: NaN interval).
    rng : numpy.random.Generator
        A seeded generator (``numpy.random.default_rng(seed)``).
    confidence_level : float
    values : array_like, optional
        Column values (interval alpha; the ordinal level ranks the columns by them).

    Returns
    -------
    (float, float)
        NaN-free replicates only (a resample with one label only has no kappa).

    Examples
    --------
    >>> lo, hi = bootstrap_agreement([[3, 0], [2, 1], [0, 3], [1, 2]] * 5, "alpha_nominal",
    ...                              200, np.random.default_rng(0))
    >>> bool(lo < 0.4 < hi)
    True
    """
    c = _counts(counts)
    n = c.shape[0]
    n_resamples = int(v.single("n_resamples", v.integer("n_resamples", n_resamples, lo=0,
                                                        hi=MAX_RESAMPLES)))
    if n_resamples <= 0 or n == 0:
        return np.nan, np.nan
    c, vals = _in_value_order(c, values)
    c, freq = _patterns(c)  # a resample is a multinomial draw of how often each row occurs
    if statistic == "fleiss_kappa":
        parts = None
    elif statistic.startswith("alpha_"):
        parts = _coincidence_parts(c)
    else:
        raise ValueError(f"statistic must be fleiss_kappa or alpha_<level>, got {statistic!r}")
    out = np.empty(n_resamples)
    shares = freq / n
    chunk = max(1, 5_000_000 // max(c.shape[0] * max(c.shape[1] ** 2, 1), 1))
    for start in range(0, n_resamples, chunk):
        b = min(n_resamples, start + chunk) - start
        w = rng.multinomial(n, shares, size=b).astype(float)
        out[start:start + b] = (_fleiss(c, w) if parts is None
                                else _alpha(parts, w, statistic[len("alpha_"):], vals))
    out = out[np.isfinite(out)]
    if out.size == 0:
        return np.nan, np.nan
    q = (1 - confidence_level) / 2
    return float(np.quantile(out, q)), float(np.quantile(out, 1 - q))


def dawid_skene(codes, n_labels: int, *, prior_strength: float = 2.0, max_iter: int = 1000,
                tol: float = 1e-7):
    r"""Dawid-Skene EM: each item's label posterior from rater-identified votes.

    Parameters
    ----------
    codes : array_like of int, shape (n_items, n_raters)
        Label code of each rater's vote, -1 where a rater did not vote (whole numbers;
        others are refused).
    n_labels : int
        Number of declared labels L.
    prior_strength : float
        Pseudo-votes pulling each rater's confusion rows to the pooled raters' (the MAP
        of :class:`labelvar.votes.DawidSkene`); 0: maximum likelihood.
    max_iter : int
        Largest number of EM passes.
    tol : float
        Stop when the log posterior per vote improves by less.

    Returns
    -------
    posterior : ndarray, shape (n_items, L)
        Items without votes get the prior.
    iterations : int
        EM passes.

    Notes
    -----
    The one Dawid-Skene estimator of labelvar, :class:`labelvar.votes.DawidSkene`
    (the EM of :func:`labelvar.fit_raters` with ``model="dawid_skene"``), on a code
    matrix. Start: the vote shares; M-step: class priors and each rater's confusion
    rows :math:`\pi_r[c, l] \propto \sum_i T_{ic} [\text{rater } r \text{ said } l]`,
    pulled to the pooled rows by ``prior_strength`` pseudo-votes (MAP; with 0 the
    maximum-likelihood rates, floored at 1e-10, the estimate crowd-kit's
    ``DawidSkene`` converges to); E-step: :math:`T_{ic} \propto p_c \prod_r
    \pi_r[c, l_{ir}]`. MAP by default: the maximum-likelihood rates of a rater who saw
    few items, or never said a label, are 0 or 1, and one such vote then decides an
    item.

    Examples
    --------
    >>> post, _ = dawid_skene([[0, 0, 1], [1, 1, 1], [0, 0, 0], [1, 0, 1]], 2)
    >>> post.argmax(axis=1).tolist()
    [0, 1, 0, 1]
    """
    from labelvar.votes._raters import dawid_skene_codes

    return dawid_skene_codes(codes, n_labels, prior_strength=prior_strength, max_iter=max_iter,
                             tol=tol)


# --------------------------------------------------------------------------- cross-replication
@dataclass(frozen=True)
class CrossReplication:
    """Cross-replication reliability of two rater groups (:func:`cross_replication`).

    ``table`` has one row per stratum (``"all"`` first, then the agreement bins of
    group X), with ``n_items``, ``kappa_x``, ``kappa_X``, ``kappa_Y``, ``normalized``
    (each with ``*_low``/``*_high`` bootstrap limits), ``p_X``, ``p_Y`` (the groups'
    share of the last value: the positive rate for binary labels) and
    ``independent`` (the normalised κx conditional independence predicts; binary only).
    """

    table: pd.DataFrame
    level: str
    n_resamples: int
    confidence_level: float
    seed: int

    def __repr__(self) -> str:
        r = self.table.iloc[0]
        return (f"CrossReplication(kappa_x={r.kappa_x:.4f}, kappa_X={r.kappa_X:.4f}, "
                f"kappa_Y={r.kappa_Y:.4f}, normalized={r.normalized:.4f}, "
                f"n_items={int(r.n_items)})")

    def _repr_html_(self) -> str:
        return result_html("CrossReplication", {"level": self.level, "n_resamples": self.n_resamples,
                                                "confidence_level": self.confidence_level,
                                                "seed": self.seed}, {"table": self.table},
                           [repr(self)])


def _cross_parts(cx: np.ndarray, cy: np.ndarray):
    """Per item: the cross-pair, within-X and within-Y pair shares (n x V x V each).

    Cross: ``cx ⊗ cy / (n_x n_y)``; within a group: ``(c ⊗ c - diag c) / (n (n - 1))``
    (ordered pairs of distinct raters), zero for an item with fewer than 2 votes there.
    """
    nx, ny = cx.sum(axis=1), cy.sum(axis=1)
    cross = cx[:, :, None] * cy[:, None, :] / (nx * ny)[:, None, None]

    def within(c, n):
        outer = c[:, :, None] * c[:, None, :]
        idx = np.arange(c.shape[1])
        outer[:, idx, idx] -= c
        ok = n >= 2
        return np.where(ok[:, None, None], outer / np.where(ok, n * (n - 1), 1.0)[:, None, None],
                        0.0), ok.astype(float)

    wx, okx = within(cx, nx)
    wy, oky = within(cy, ny)
    return cross, wx, okx, wy, oky


def _cross_stats(parts, cx, cy, w, level, values) -> np.ndarray:
    """κx, κ_X, κ_Y and normalised κx for item weights ``w`` (B x n) -> (B, 4)."""
    cross, wx, okx, wy, oky = parts
    V = cx.shape[1]
    px, py = w @ cx, w @ cy  # (B, V) pooled ratings
    d_all = _delta(level, px + py, values)  # (B, V, V); ordinal ranks by the pooled ratings
    dx, dy = _delta(level, px, values), _delta(level, py, values)
    with np.errstate(divide="ignore", invalid="ignore"):
        shx = px / px.sum(axis=1, keepdims=True)
        shy = py / py.sum(axis=1, keepdims=True)

        def kappa(parts_, ok, d, a, b):
            o = (w @ parts_.reshape(parts_.shape[0], V * V)).reshape(-1, V, V)
            d_o = (o * d).sum(axis=(1, 2)) / (w @ ok)
            d_e = np.einsum("bc,bck,bk->b", a, d, b)
            return np.where(d_e > 1e-15, 1.0 - d_o / d_e, np.nan)

        kx = kappa(cross, np.ones(cx.shape[0]), d_all, shx, shy)
        k_x = kappa(wx, okx, dx, shx, shx)
        k_y = kappa(wy, oky, dy, shy, shy)
        norm = np.where((k_x > 0) & (k_y > 0), kx / np.sqrt(np.abs(k_x * k_y)), np.nan)
    return np.stack([kx, k_x, k_y, norm], axis=1)


def independent_normalized_kappa(p_x, p_y):
    r"""Normalised κx of two binary rater groups whose raters err independently given the truth.

    Parameters
    ----------
    p_x, p_y : array_like
        The groups' positive rates, in (0, 1).

    Returns
    -------
    float or ndarray

    Notes
    -----
    With one binary truth and raters independent given it (exchangeable within each
    group), every covariance between two votes on an item is
    :math:`\pi(1-\pi) a_r a_s` (:math:`a` = sensitivity + specificity - 1), so the
    skills cancel in :math:`\kappa_x / \sqrt{\kappa_X \kappa_Y}` and

    .. math:: \frac{2 \sqrt{p_X (1 - p_X)\, p_Y (1 - p_Y)}}{p_X (1 - p_Y) + p_Y (1 - p_X)} \le 1,

    with equality iff :math:`p_X = p_Y`. A value above it points at shared item
    difficulty, below it at groups applying different standards.

    Examples
    --------
    >>> independent_normalized_kappa(0.3, 0.3)
    1.0
    >>> round(independent_normalized_kappa(0.2, 0.4), 4)
    0.8907
    """
    px = v.probability("p_x", p_x, open_lo=True, open_hi=True)
    py = v.probability("p_y", p_y, open_lo=True, open_hi=True)
    v.broadcast(p_x=px, p_y=py)
    out = 2 * np.sqrt(px * (1 - px) * py * (1 - py)) / (px * (1 - py) + py * (1 - px))
    return float(out) if np.ndim(out) == 0 else out


def cross_replication(counts_x, counts_y, *, level: str = "nominal", values=None,
                      n_resamples: int = 1000, confidence_level: float = CONFIDENCE_LEVEL,
                      seed=0, bins: bool = True) -> CrossReplication:
    r"""Cross-replication reliability κx of two rater groups on the same items (Wong et al. 2021).

    Parameters
    ----------
    counts_x, counts_y : array_like, shape (n_items, V)
        Votes per item and value of group X (e.g. the panel) and group Y, row ``i`` of
        both the same item. Items without a vote in both groups are left out.
    level : {"nominal", "ordinal", "interval"}
        The disagreement δ² of :func:`krippendorff_alpha` (ordinal ranks by all
        ratings of the pairs compared).
    values : array_like of float, optional
        The numeric value of each column (interval; ordinal ranks by it); default 0, 1, ...
    n_resamples : int
        Bootstrap resamples of the items (0: no intervals; at most
        :data:`MAX_RESAMPLES`). Drawn in blocks of bounded memory.
    confidence_level : float
    seed : int, Generator or None
        Of the bootstrap (an int or None, the seed of its own random stream, or a
        Generator).
    bins : bool
        Also one row per agreement bin of group X (its top vote share on the item, at
        two decimals). Within a bin the groups' agreement is conditioned on X's
        votes: κ_X there is not a reliability, κx compares Y with X on those items.

    Returns
    -------
    CrossReplication

    Notes
    -----
    :math:`\kappa_x = 1 - d_o / d_e` with :math:`d_o` the mean over items of the mean
    δ² over the item's (X rater, Y rater) pairs and :math:`d_e = \sum_{c,k}
    p_X(c)\, p_Y(k)\, \delta^2_{ck}` (every cross pair of ratings, any items; p the
    groups' pooled rating shares). κ_X and κ_Y are the same statistic within a group
    (pairs of distinct raters on an item; with every rater on every item, nominal,
    it is Fleiss' kappa), and the normalised value is
    :math:`\kappa_x / \sqrt{\kappa_X \kappa_Y}` (NaN when a within-group κ is not
    positive). ``independent`` is :func:`independent_normalized_kappa` of the groups'
    positive rates (binary labels only). Intervals: percentiles over item resamples,
    drawn as multinomial counts of the distinct (X counts, Y counts) rows, as
    :func:`bootstrap_agreement` does.

    Examples
    --------
    >>> x = [[3, 0], [2, 1], [0, 3], [1, 2], [3, 0], [0, 3]]
    >>> y = [[2, 0], [1, 1], [0, 2], [0, 2], [2, 0], [1, 1]]
    >>> r = cross_replication(x, y, n_resamples=0, bins=False)
    >>> round(float(r.table.kappa_x[0]), 4), round(float(r.table.kappa_X[0]), 4)
    (0.5556, 0.5556)
    """
    from labelvar._base._seeding import as_seed, generator

    v.choice("level", level, LEVELS)
    cx, cy = _counts(counts_x, "counts_x"), _counts(counts_y, "counts_y")
    if cx.shape != cy.shape:
        raise ValueError(f"counts_x and counts_y must have the same shape (items x values), got "
                         f"{cx.shape} and {cy.shape}")
    n_resamples = int(v.single("n_resamples", v.integer("n_resamples", n_resamples, lo=0,
                                                        hi=MAX_RESAMPLES)))
    lvl = v.single("confidence_level", v.probability("confidence_level", confidence_level,
                                                     open_lo=True, open_hi=True))
    both = (cx.sum(axis=1) > 0) & (cy.sum(axis=1) > 0)
    if not both.any():  # nothing to compare: every statistic would be NaN
        raise ValueError(f"counts_x and counts_y: no item has votes in both groups (of "
                         f"{cx.shape[0]} items); give items rated by both")
    cx, cy = cx[both].astype(float), cy[both].astype(float)
    V = cx.shape[1]
    cx, vals = _in_value_order(cx, values)
    cy, _ = _in_value_order(cy, values)
    seed_int = as_seed(seed)
    rows = []
    strata = [("all", np.ones(cx.shape[0], bool))]
    if bins and cx.shape[0]:
        share = cx.max(axis=1) / cx.sum(axis=1)
        labels = np.array([f"{s:.2f}" for s in share])
        strata += [(s, labels == s) for s in sorted(set(labels.tolist()), key=float)]
    q = (1 - lvl) / 2
    for stratum, sel in strata:
        row = {"stratum": stratum, "n_items": int(sel.sum()), "level": level}
        uniq, freq = _patterns(np.concatenate([cx[sel], cy[sel]], axis=1))
        ux, uy = uniq[:, :V], uniq[:, V:]
        parts = _cross_parts(ux, uy)
        est = (_cross_stats(parts, ux, uy, freq[None, :], level, vals)[0] if len(freq)
               else np.full(4, np.nan))
        boot = np.full((0, 4), np.nan)
        if n_resamples and len(freq):
            rng = generator(seed_int, "cross_replication", stratum)
            n = int(freq.sum())
            # blocks of resamples: the weights (and the V x V statistics) of a block in
            # bounded memory; the draws are those of one (n_resamples, patterns) draw
            block = max(1, int(_WEIGHT_BYTES // (8 * len(freq) * max(V * V, 4))))
            boot = np.concatenate([
                _cross_stats(parts, ux, uy, rng.multinomial(n, freq / n, size=min(
                    block, n_resamples - s)).astype(float), level, vals)
                for s in range(0, n_resamples, block)])
        for j, name in enumerate(("kappa_x", "kappa_X", "kappa_Y", "normalized")):
            row[name] = float(est[j])
            b = boot[:, j][np.isfinite(boot[:, j])]
            row[f"{name}_low"], row[f"{name}_high"] = ((float(np.quantile(b, q)),
                                                        float(np.quantile(b, 1 - q)))
                                                       if b.size else (np.nan, np.nan))
        sx, sy = cx[sel].sum(axis=0), cy[sel].sum(axis=0)
        row["p_X"] = float(sx[-1] / sx.sum()) if sx.sum() else np.nan
        row["p_Y"] = float(sy[-1] / sy.sum()) if sy.sum() else np.nan
        row["independent"] = (independent_normalized_kappa(row["p_X"], row["p_Y"])
                              if V == 2 and 0 < row["p_X"] < 1 and 0 < row["p_Y"] < 1
                              else np.nan)
        rows.append(row)
    return CrossReplication(table=pd.DataFrame(rows), level=level, n_resamples=n_resamples,
                            confidence_level=lvl, seed=seed_int)
