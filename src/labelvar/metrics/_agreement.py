r"""Chance-corrected agreement: the coefficients and their analytic variances (Gwet 2014).

Every coefficient has the form :math:`\gamma = (p_a - p_e) / (1 - p_e)`: the observed
agreement :math:`p_a` corrected by an agreement expected by chance :math:`p_e`, which is
what distinguishes the coefficients. Weights :math:`w_{kl}` (agreement weights, 1 on the
diagonal; the identity when unweighted) give the weighted versions (weighted κ, AC2).

Two raters, a contingency table (proportions :math:`p_{kl}`, n items, q categories;
margins :math:`p_{k+}`, :math:`p_{+l}`, :math:`\pi_k = (p_{k+} + p_{+k}) / 2`,
:math:`T_w = \sum_{kl} w_{kl}`):

- :math:`p_a = \sum_{kl} w_{kl} p_{kl}`;
- Cohen's κ: :math:`p_e = \sum_{kl} w_{kl} p_{k+} p_{+l}`;
- Scott's π (and Fleiss' κ, its many-rater form): :math:`p_e = \sum_{kl} w_{kl}\pi_k\pi_l`;
- Gwet's AC1/AC2: :math:`p_e = T_w / (q(q-1)) \sum_k \pi_k(1-\pi_k)`;
- Brennan-Prediger: :math:`p_e = T_w / q^2`; percent agreement: :math:`p_e = 0`.

Their variance is the linearised (delta-method) variance under multinomial sampling of
items, :math:`v = (1-f)\,[\sum_{kl} p_{kl} d_{kl}^2 - (\sum_{kl} p_{kl} d_{kl})^2] / n`
with :math:`d_{kl} = \partial\gamma/\partial p_{kl}
= [w_{kl} - (1-\gamma)\,\partial p_e/\partial p_{kl}] / (1 - p_e)`: for Cohen's κ this is
the Fleiss-Cohen-Everitt large-sample variance; the printed standard errors of irrCAC's
``*.table`` functions (Gwet's handbook, chapter on two raters) are reproduced to all
their digits (``tests/metrics/test_agreement_published.py``).

Many raters, counts :math:`r_{ik}` (raters who put item i in category k,
:math:`r_i = \sum_k r_{ik}` of them, missing ratings allowed): with
:math:`r^\star_{ik} = \sum_l w_{kl} r_{il}`, the n' items rated at least twice give
:math:`p_{a|i} = \sum_k r_{ik}(r^\star_{ik} - 1) / (r_i(r_i - 1))` and
:math:`p_a = \frac{1}{n'}\sum_i p_{a|i}`; the n items rated at least once give
:math:`\pi_k = \frac1n \sum_i r_{ik}/r_i`; :math:`p_e` as above from :math:`\pi`
(Fleiss' κ, AC1/AC2, Brennan-Prediger, percent agreement). The variance is Gwet's
subject-sampling variance, conditional on the raters:
:math:`v = \frac{1-f}{n}\frac{1}{n-1}\sum_i(\gamma_i - \gamma)^2` with
:math:`\gamma_i = \frac{n}{n'}\frac{p_{a|i} - p_e}{1 - p_e}
- 2(1-\gamma)\frac{p_{e|i} - p_e}{1 - p_e}` (0 for the first term when
:math:`r_i < 2`), :math:`p_{e|i}` item i's part of :math:`p_e`
(:math:`\frac12\sum_k (r_{ik}/r_i)\,\partial p_e / \partial\pi_k` for Fleiss,
:math:`T_w/(q(q-1))\sum_k (r_{ik}/r_i)(1-\pi_k)` for AC1/AC2, :math:`p_e` itself for
Brennan-Prediger and percent agreement). It reproduces irrCAC's ``*.dist`` and ``*.raw``
printouts (coefficients, standard errors, intervals and p-values).

In both, :math:`f = n / N` is the sampling fraction of a finite population of N items
(``population_size``); by default N is infinite and f = 0, as irrCAC prints. The interval
is :math:`\gamma \pm t_{n-1}\,se` (Student's t on n − 1 degrees of freedom) clipped to
[-1, 1], and the p-value the two-sided t test of :math:`\gamma = 0`, as irrCAC prints.
"""

from __future__ import annotations

import numpy as np

#: the coefficients, by the name the public function takes
COEFFICIENTS = ("cohen_kappa", "scott_pi", "gwet_ac1", "brennan_prediger", "fleiss_kappa",
                "percent_agreement")
#: how each is printed
TITLES = {"cohen_kappa": "Cohen's kappa", "scott_pi": "Scott's pi", "gwet_ac1": "Gwet's AC1",
          "brennan_prediger": "Brennan-Prediger", "fleiss_kappa": "Fleiss' kappa",
          "percent_agreement": "percent agreement"}
#: the chance agreement each uses: Scott's pi and Fleiss' kappa share one
CHANCE = {"cohen_kappa": "cohen", "scott_pi": "scott", "fleiss_kappa": "scott",
          "gwet_ac1": "gwet", "brennan_prediger": "uniform", "percent_agreement": "none"}


def agreement_weights(weights, n_categories: int) -> tuple[np.ndarray, str]:
    """The q × q agreement weights and their name.

    ``None``: the identity (unweighted); ``"linear"``: :math:`1 - |k-l|/(q-1)`;
    ``"quadratic"``: :math:`1 - (k-l)^2/(q-1)^2` (Gwet's ordinal weights, on the
    categories' positions 0..q-1 in their declared order); or a q × q array of
    agreement weights in [0, 1], symmetric with ones on the diagonal.

    Examples
    --------
    >>> agreement_weights("quadratic", 3)[0].tolist()
    [[1.0, 0.75, 0.0], [0.75, 1.0, 0.75], [0.0, 0.75, 1.0]]
    """
    q = int(n_categories)
    k, l_ = np.indices((q, q))
    if weights is None:
        return np.eye(q), "unweighted"
    if isinstance(weights, str):
        if weights == "linear":
            return 1.0 - np.abs(k - l_) / (q - 1), "linear"
        if weights == "quadratic":
            return 1.0 - (k - l_) ** 2 / (q - 1) ** 2, "quadratic"
        raise ValueError(f"weights must be None, 'linear', 'quadratic' or a {q} x {q} array; "
                         f"got {weights!r}")
    try:
        w = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"weights must be None, 'linear', 'quadratic' or a {q} x {q} array of "
                         f"numbers; got {type(weights).__name__}") from None
    if w.shape != (q, q):
        raise ValueError(f"weights must be a {q} x {q} array (one row and column per category), "
                         f"got shape {w.shape}")
    if not np.all(np.isfinite(w)) or w.min() < 0 or w.max() > 1:
        raise ValueError("weights must be agreement weights in [0, 1]")
    if not np.allclose(np.diag(w), 1.0) or not np.allclose(w, w.T):
        raise ValueError("weights must be symmetric with ones on the diagonal (agreement weights)")
    return w, "custom"


# --------------------------------------------------------------------------- two raters: a table
def _table_chance(pr, pc, chance: str, w):
    """p_e of tables with margins pr, pc (..., q) and its gradient d p_e / d p_kl (..., q, q)."""
    q = w.shape[0]
    if chance == "cohen":
        pe = np.einsum("...k,kl,...l->...", pr, w, pc)
        grad = (pc @ w.T)[..., :, None] + (pr @ w)[..., None, :]
    elif chance == "scott":
        pi = (pr + pc) / 2
        pe = np.einsum("...k,kl,...l->...", pi, w, pi)
        g = pi @ (w + w.T)  # d pe / d pi_k
        grad = (g[..., :, None] + g[..., None, :]) / 2
    elif chance == "gwet":
        pi = (pr + pc) / 2
        c = w.sum() / (q * (q - 1))
        pe = c * (pi * (1 - pi)).sum(axis=-1)
        g = c * (1 - 2 * pi)
        grad = (g[..., :, None] + g[..., None, :]) / 2
    else:
        pe = np.full(pr.shape[:-1], w.sum() / q ** 2 if chance == "uniform" else 0.0)
        grad = np.zeros(pr.shape[:-1] + (q, q))
    return pe, grad


def table_coefficient(table, coefficient: str, w) -> tuple:
    """(p_a, p_e, γ) of tables (..., q, q) of counts (vectorised over the leading axes)."""
    t = np.asarray(table, dtype=float)
    n = t.sum(axis=(-2, -1))
    p = t / np.where(n > 0, n, 1.0)[..., None, None]
    pa = (w * p).sum(axis=(-2, -1))
    pe, _ = _table_chance(p.sum(axis=-1), p.sum(axis=-2), CHANCE[coefficient], w)
    with np.errstate(divide="ignore", invalid="ignore"):
        gamma = np.where(pe < 1, (pa - pe) / (1 - pe), np.nan)
    return pa, pe, gamma


def table_variance(table, coefficient: str, w, *, fraction: float = 0.0) -> float:
    """The delta-method variance of γ for one table of counts (see the module notes)."""
    t = np.asarray(table, dtype=float)
    n = t.sum()
    p = t / n
    pa, pe, gamma = table_coefficient(t, coefficient, w)
    if not pe < 1:
        return float("nan")
    _, grad = _table_chance(p.sum(axis=1), p.sum(axis=0), CHANCE[coefficient], w)
    d = (w - (1 - gamma) * grad) / (1 - pe)
    return float((1 - fraction) * ((p * d * d).sum() - (p * d).sum() ** 2) / n)


# --------------------------------------------------------------------------- many raters: counts
def _counts_parts(counts, w):
    """Per item: r_i, p_a|i (NaN below 2 ratings) and the category shares r_ik / r_i."""
    c = np.asarray(counts, dtype=float)
    r = c.sum(axis=-1)
    star = c @ w.T
    two = r >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        pai = np.where(two, (c * (star - 1)).sum(axis=-1) / (r * (r - 1)), np.nan)
        share = np.where((r >= 1)[..., None], c / r[..., None], 0.0)
    return r, pai, share


def _counts_chance(pi, chance: str, w):
    """p_e of prevalences pi (..., q) and d p_e / d pi (..., q)."""
    q = w.shape[0]
    if chance == "scott":
        return np.einsum("...k,kl,...l->...", pi, w, pi), pi @ (w + w.T)
    if chance == "gwet":
        c = w.sum() / (q * (q - 1))
        return c * (pi * (1 - pi)).sum(axis=-1), c * (1 - 2 * pi)
    pe = np.full(pi.shape[:-1], w.sum() / q ** 2 if chance == "uniform" else 0.0)
    return pe, np.zeros_like(pi)


def counts_coefficient(counts, coefficient: str, w) -> tuple:
    """(p_a, p_e, γ) of count tables (..., n, q), items with no rating left out by the caller."""
    r, pai, share = _counts_parts(counts, w)
    rated = (r >= 1).sum(axis=-1)
    pa = np.nanmean(pai, axis=-1) if np.isfinite(pai).any() else np.full(r.shape[:-1], np.nan)
    pi = share.sum(axis=-2) / np.maximum(rated, 1)[..., None]
    pe, _ = _counts_chance(pi, CHANCE[coefficient], w)
    with np.errstate(divide="ignore", invalid="ignore"):
        gamma = np.where(pe < 1, (pa - pe) / (1 - pe), np.nan)
    return pa, pe, gamma


def counts_variance(counts, coefficient: str, w, *, fraction: float = 0.0) -> float:
    """Gwet's subject-sampling variance of γ for one count table (n, q) (module notes)."""
    c = np.asarray(counts, dtype=float)
    n = c.shape[0]
    r, pai, share = _counts_parts(c, w)
    two = r >= 2
    n2 = int(two.sum())
    pi = share.sum(axis=0) / n
    chance = CHANCE[coefficient]
    pe, grad = _counts_chance(pi, chance, w)
    pa = float(np.nanmean(pai))
    if n < 2 or not pe < 1:
        return float("nan")
    gamma = (pa - pe) / (1 - pe)
    if chance == "scott":
        pei = share @ grad / 2
    elif chance == "gwet":
        q = w.shape[0]
        pei = w.sum() / (q * (q - 1)) * (share @ (1 - pi))
    else:
        pei = np.full(n, pe)
    gi = np.where(two, (n / n2) * (np.nan_to_num(pai) - pe) / (1 - pe), 0.0)
    gi = gi - 2 * (1 - gamma) * (pei - pe) / (1 - pe)
    return float((1 - fraction) * ((gi - gamma) ** 2).sum() / (n * (n - 1)))


def interval(gamma: float, se: float, n: int, confidence_level: float) -> tuple:
    """(ci_low, ci_high, p_value): γ ± t_{n-1} se clipped to [-1, 1]; two-sided t test of 0.

    Examples
    --------
    >>> [round(x, 3) for x in interval(0.4448007, 0.08418757, 15, 0.95)[:2]]
    [0.264, 0.625]
    """
    from scipy import stats

    if not (np.isfinite(gamma) and np.isfinite(se)) or n < 2:
        return float("nan"), float("nan"), float("nan")
    half = float(stats.t.ppf(0.5 + confidence_level / 2, n - 1)) * se
    if se > 0:
        p = float(2 * stats.t.sf(abs(gamma) / se, n - 1))
    else:  # no sampling error (all votes agree, or the whole population): t = ±inf, or 0 / 0
        p = 0.0 if gamma != 0 else float("nan")
    return max(-1.0, gamma - half), min(1.0, gamma + half), p


# --------------------------------------------------------------------------- many raters: Conger
# Cohen's κ of many raters (Conger 1980), from raw ratings: the raters' own margins
# P_gk = (items rater g put in k) / (items rater g rated) give the chance agreement
# p_e = Σ_kl w_kl [p̄_k p̄_l − s_kl / r] (p̄ the raters' mean margins, s_kl their covariance
# with divisor r − 1), i.e. the mean over ordered pairs of distinct raters of Cohen's
# chance agreement Σ_kl w_kl P_gk P_hl. p_a is the many-rater p_a above. The variance is
# the subject-sampling variance with item i's linearised part of p_e,
# Σ_gk (∂p_e/∂P_gk)(n/n_g)[i rated by g](x_igk − P_gk): it reproduces irrCAC's
# conger.kappa.raw printout with missing ratings (coefficient, se and p-value).
def rater_margins(codes, q: int):
    """P (..., r, q): each rater's category shares among the items it rated; and n_g (..., r)."""
    codes = np.asarray(codes)
    lead = codes.shape[:-2]
    r = codes.shape[-1]
    m = int(np.prod(lead, dtype=np.int64)) if lead else 1
    flat = codes.reshape(m, -1, r)
    ok = flat >= 0
    index = (np.arange(m)[:, None, None] * (r * q) + np.arange(r)[None, None, :] * q
             + np.where(ok, flat, 0))[ok]
    counts = np.bincount(index, minlength=m * r * q).reshape(lead + (r, q)).astype(float)
    n_g = counts.sum(axis=-1)
    return counts / np.maximum(n_g, 1)[..., None], n_g


def _conger_chance(P, w):
    r = P.shape[-2]
    total = P.sum(axis=-2)  # r p̄
    pairs = np.einsum("...k,kl,...l->...", total, w, total) - np.einsum("...gk,kl,...gl->...", P,
                                                                        w, P)
    pe = pairs / (r * (r - 1))
    grad = ((total[..., None, :] - P) @ (w + w.T)) / (r * (r - 1))
    return pe, grad


def codes_counts(codes, q: int) -> np.ndarray:
    """Counts (..., n, q) of codes (..., n, r) (-1: no rating)."""
    codes = np.asarray(codes)
    return (codes[..., None] == np.arange(q)).sum(axis=-2).astype(float)


def conger_coefficient(codes, w) -> tuple:
    """(p_a, p_e, γ) of Conger's κ for codes (..., n, r), vectorised over the leading axes."""
    q = w.shape[0]
    _, pai, _ = _counts_parts(codes_counts(codes, q), w)
    pa = np.nanmean(pai, axis=-1)
    pe, _ = _conger_chance(rater_margins(codes, q)[0], w)
    with np.errstate(divide="ignore", invalid="ignore"):
        gamma = np.where(pe < 1, (pa - pe) / (1 - pe), np.nan)
    return pa, pe, gamma


def conger_variance(codes, w, *, fraction: float = 0.0) -> float:
    """Subject-sampling variance of Conger's κ for one set of codes (n, r)."""
    codes = np.asarray(codes)
    n, r = codes.shape
    q = w.shape[0]
    _, pai, _ = _counts_parts(codes_counts(codes, q), w)
    two = np.isfinite(pai)
    P, n_g = rater_margins(codes, q)
    pe, grad = _conger_chance(P, w)
    pa = float(np.nanmean(pai))
    if n < 2 or not pe < 1 or (n_g == 0).any():
        return float("nan")
    gamma = (pa - pe) / (1 - pe)
    x = codes[..., None] == np.arange(q)  # (n, r, q)
    rated = (codes >= 0)[..., None]
    infl = np.einsum("gk,igk->i", grad * (n / n_g)[:, None], np.where(rated, x - P, 0.0))
    gi = np.where(two, (n / two.sum()) * (np.nan_to_num(pai) - pe) / (1 - pe), 0.0)
    gi = gi - (1 - gamma) * infl / (1 - pe)
    return float((1 - fraction) * ((gi - gamma) ** 2).sum() / (n * (n - 1)))
