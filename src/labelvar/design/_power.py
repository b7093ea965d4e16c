"""Exact power under the panel model: per-item cell probabilities, critical values, F1 variance.

Every per-item probability comes from the one vote enumeration
(:mod:`labelvar.votes._panel`) integrated over the θ prior with its own quadrature
(:meth:`labelvar.votes.ThetaPrior.nodes`, exact for these polynomials in θ). Because
items are independent and identically distributed, the number of scored items is
Binomial(N, π) and, given it, every correctness count is binomial (or multinomial), so
the power of each exact test is a finite sum (:func:`exact_power`).
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from labelvar._base import _validate as V
from labelvar._base._defaults import CONFIDENCE_LEVEL
from labelvar.design._binom import binom, norm, smallest_true
from labelvar.design._scenario import TIE_RULES, Scenario
from labelvar.votes import _panel
from labelvar.votes._priors import ItemModel


def panel_probabilities(theta, panel_size: int, n_labels: int = 2,
                        tie_rule: str = "random") -> dict[str, np.ndarray]:
    """Exact per-item probabilities of a K-annotator panel, by enumerating its votes.

    Parameters
    ----------
    theta : float or array
        Agreement level(s) θ (probability that an annotator picks the modal label).
    panel_size : int
        K, annotators per item.
    n_labels : int
        L.
    tie_rule : {"random", "drop"}
        How ties in the plurality are resolved.

    Returns
    -------
    dict of str to ndarray
        Arrays of shape ``theta.shape + (K + 1,)`` indexed by the top vote count t:
        ``"top"`` P(top votes = t); ``"gt_modal"`` P(top = t, item kept, GT = modal label);
        ``"gt_other"`` P(top = t, item kept, GT = another label).

    Examples
    --------
    Three annotators, two labels: the majority is the modal label with probability
    θ³ + 3θ²(1 - θ).

    >>> p = panel_probabilities(0.7, 3)
    >>> round(float(p["gt_modal"].sum()), 6), round(0.7**3 + 3 * 0.7**2 * 0.3, 6)
    (0.784, 0.784)
    """
    K = int(V.integer("panel_size", panel_size, lo=1))
    L = int(V.n_labels(n_labels))
    V.choice("tie_rule", tie_rule, TIE_RULES)
    th = V.probability("theta", theta)
    comp, prob = _panel.composition_probs(K, L, _panel.symmetric_probs(th, L))  # (..., n_comp)
    top, _ = _panel.plurality(comp)
    truth, dropped = _panel.truth_weights(comp, tie_rule)
    w_modal = truth[:, 0]
    w_other = 1.0 - w_modal - dropped
    V.memory(f"the vote enumeration of panel_size={K}, n_labels={L}",
             8.0 * 6 * max(1, prob.size), "use smaller panels")

    def by_top(p):  # sum over the compositions with each top count t = 0..K
        flat = p.reshape(-1, comp.shape[0])
        out = np.zeros((flat.shape[0], K + 1))
        for i, row in enumerate(flat):
            out[i] = np.bincount(top, weights=row, minlength=K + 1)
        return out.reshape(p.shape[:-1] + (K + 1,))

    return {
        "top": by_top(prob),
        "gt_modal": by_top(prob * w_modal),
        "gt_other": by_top(prob * w_other),
    }


@dataclasses.dataclass(frozen=True)
class Cell:
    """Per-item probabilities for one panel size K (averaged over the θ prior)."""

    panel_size: int
    p_top: np.ndarray  # P(top votes = t), t = 0..K
    p_eval: float  # P(item is scored: kept and in the stratum)
    p_gt_error: float  # P(GT != modal label | kept)
    p_gt_error_scored: float  # P(GT != modal label | scored)
    p_tie: float  # P(the plurality is tied)
    p_a: float  # P(labeller A correct | scored)
    p_baseline: float  # P(baseline correct | scored)
    p_b: float  # two_systems: P(B correct | scored)
    joint: tuple  # two_systems: (p11, p10, p01, p00) correctness vs GT given scored
    f1_cells: np.ndarray | None = None  # two_systems, L = 2: P(GT=g, A=a, B=b | scored)


def cell_probabilities(sc: Scenario, K: int) -> Cell:
    L = sc.n_labels
    item = isinstance(sc.theta, ItemModel)  # a label distribution per item: one exact "node"
    if item:
        pp = {k: x[None] for k, x in sc.theta.panel_probabilities(K, sc.tie_rule).items()}
        th, w = np.full(1, np.nan), np.ones(1)
    else:
        th, w = sc.theta.nodes(L, 2 * K + 2)  # exact: polynomials of degree K + 1
        pp = panel_probabilities(th, K, L, sc.tie_rule)
    t = np.arange(K + 1)
    in_s = (t >= 1) & (t / K >= sc.min_agreement - 1e-12)
    a_g = pp["gt_modal"][:, in_s].sum(axis=1)  # per node: scored & GT = modal
    b_g = pp["gt_other"][:, in_s].sum(axis=1)  # per node: scored & GT = other
    pm, po = float(w @ a_g), float(w @ b_g)
    p_eval = pm + po
    kept_modal = float(w @ pp["gt_modal"].sum(axis=1))
    kept = kept_modal + float(w @ pp["gt_other"].sum(axis=1))
    p_top = w @ pp["top"]
    u = 1.0 / (L - 1)

    def acc(q):
        """P(correct and scored) for a labeller with modal-label accuracy q (None = expert)."""
        if q is None:
            if item:
                return float(pp["expert"][0, in_s].sum())
            return float(w @ (a_g * th + b_g * (1 - th) * u))
        return pm * q + po * (1 - q) * u

    qa, qb = sc.accuracies
    if sc.baseline == "random":
        base = p_eval / L
    else:
        mm = sc.m
        base = pm * float(mm @ mm) + po * float(mm @ (1 - mm)) * u
        if item:  # predicts label h with the model's P(modal label = h)
            base = float(pp["gt_label"][0, in_s].sum(axis=0) @ sc.theta.modal_probs())
    joint = (np.nan,) * 4
    p_b = np.nan
    if sc.question == "two_systems":
        s = math.sqrt(qa * (1 - qa) * qb * (1 - qb))
        p11 = qa * qb + sc.error_correlation * s
        m11, m10, m01, m00 = p11, qa - p11, qb - p11, 1 - qa - qb + p11
        o11 = m00 * u * u
        o10 = m01 * u + m00 * u * (1 - u)
        o01 = m10 * u + m00 * (1 - u) * u
        j = np.array([pm * m11 + po * o11, pm * m10 + po * o10, pm * m01 + po * o01])
        j = np.append(j, p_eval - j.sum())
        joint = tuple((j / p_eval).tolist()) if p_eval > 0 else joint
        p_b = acc(qb) / p_eval if p_eval > 0 else np.nan
    div = p_eval if p_eval > 0 else np.nan
    pd_ = ({k: x[None] for k, x in sc.theta.panel_probabilities(K, "drop").items()} if item
           else panel_probabilities(th, K, L, "drop"))
    p_tie = float(w @ (1 - pd_["gt_modal"].sum(axis=1) - pd_["gt_other"].sum(axis=1)))
    return Cell(
        panel_size=K, p_top=p_top, p_eval=p_eval,
        p_gt_error=1 - kept_modal / kept if kept > 0 else np.nan, p_tie=p_tie,
        p_gt_error_scored=po / p_eval if p_eval > 0 else np.nan,
        p_a=acc(qa) / div, p_baseline=base / div, p_b=p_b, joint=joint,
        f1_cells=f1_cells(sc, po / p_eval) if (sc.question == "two_systems" and L == 2
                                                 and p_eval > 0) else None,
    )


def f1_cells(sc: Scenario, p_err: float) -> np.ndarray:
    """P(GT = g, A = a, B = b | scored) for L = 2, as a (2, 2, 2) array.

    The modal label is class 1 with probability m; the GT is the other class with
    probability ``p_err`` (independently of the class, by symmetry of the vote model);
    A and B return the modal label with their accuracies, with correlated errors.
    """
    qa, qb = sc.accuracies
    p11 = qa * qb + sc.error_correlation * math.sqrt(qa * (1 - qa) * qb * (1 - qb))
    states = {(1, 1): p11, (1, 0): qa - p11, (0, 1): qb - p11, (0, 0): 1 - qa - qb + p11}
    out = np.zeros((2, 2, 2))
    for c, pc in ((1, float(sc.m[1])), (0, float(sc.m[0]))):
        for (ca, cb), pab in states.items():
            a, b = (c if ca else 1 - c), (c if cb else 1 - c)
            out[c, a, b] += pc * (1 - p_err) * pab
            out[1 - c, a, b] += pc * p_err * pab
    return out


def f1_and_gradient(p_ga) -> tuple[np.ndarray, np.ndarray]:
    """F1 (positive class 1, :mod:`labelvar.metrics`) and its gradient w.r.t. the (g, a) cells.

    ``p_ga`` has shape (..., 2, 2) [g, a]; TP = p[1, 1], FP = p[0, 1], FN = p[1, 0].
    """
    from labelvar.metrics._scores import scores

    f1 = scores(p_ga, pos_label=1)["f1"]  # the one F1 definition (0/0 = 0)
    tp, fp, fn = p_ga[..., 1, 1], p_ga[..., 0, 1], p_ga[..., 1, 0]
    den = 2 * tp + fp + fn
    with np.errstate(divide="ignore", invalid="ignore"):
        d_tp = np.where(den > 0, 2 * (fp + fn) / den**2, 0.0)
        d_fx = np.where(den > 0, -2 * tp / den**2, 0.0)
    grad = np.zeros(p_ga.shape)
    grad[..., 1, 1] = d_tp
    grad[..., 0, 1] = d_fx
    grad[..., 1, 0] = d_fx
    return f1, grad


def f1_difference_variance(cells, paired: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """F1_A - F1_B and its per-item delta-method variance from label-cell probabilities.

    Parameters
    ----------
    cells : array (..., 2, 2, 2)
        Probabilities (or proportions) of (GT = g, A = a, B = b); label 1 is positive.
    paired : bool
        True: A and B label the same items, Var(D) ~ v / n with v = g'(diag(p) - pp')g.
        False: separate item sets of n each, v = v_A + v_B.

    Returns
    -------
    (d, v) : tuple of ndarray
        The difference and v such that Var(estimated difference) ~ v / n.

    Examples
    --------
    >>> cells = np.zeros((2, 2, 2)); cells[1, 1, 1] = cells[0, 0, 0] = 0.4
    >>> cells[1, 1, 0] = cells[0, 0, 1] = 0.1
    >>> d, v = f1_difference_variance(cells)  # A is always right: F1 1.0; B: 0.8
    >>> round(float(d), 4)
    0.2
    """
    p = np.asarray(cells, float)
    pa, pb = p.sum(axis=-1), p.sum(axis=-2)  # (g, a) and (g, b)
    fa, ga = f1_and_gradient(pa)
    fb, gb = f1_and_gradient(pb)
    if paired:
        g = ga[..., :, :, None] - gb[..., :, None, :]  # gradient over the (g, a, b) cells
        m1 = (p * g).sum(axis=(-3, -2, -1))
        v = (p * g * g).sum(axis=(-3, -2, -1)) - m1**2
    else:
        va = (pa * ga * ga).sum(axis=(-2, -1)) - (pa * ga).sum(axis=(-2, -1)) ** 2
        vb = (pb * gb * gb).sum(axis=(-2, -1)) - (pb * gb).sum(axis=(-2, -1)) ** 2
        v = va + vb
    return fa - fb, np.maximum(v, 0.0)


def separability_critical(n, baseline: float, alpha: float) -> np.ndarray:
    """Smallest number correct r_c with P(Binomial(n, baseline) >= r_c) <= alpha.

    Parameters
    ----------
    n : int or array
        Number of scored items.
    baseline : float
        Accuracy of the weak labeller (1/L for a random one).
    alpha : float
        Significance level.

    Returns
    -------
    ndarray
        r_c (n + 1 where even n correct answers are not significant).

    Examples
    --------
    Paper Table 1: at N = 10 a random binary labeller reaches 8/10 with probability
    0.055, so 9/10 is needed at alpha = 0.05.

    >>> int(separability_critical(10, 0.5, 0.05))
    9
    """
    n = np.asarray(n, dtype=np.int64)

    def pred(c, n=n):  # P(X >= c) = sf(c - 1) falls with c; c = n + 1 always qualifies
        return binom.sf(c - 1, n, baseline) <= alpha

    # bisect inside the normal approximation's bracket (+/- 6 sd), the whole range where
    # the bracket does not hold the answer (pred(lo) False, pred(hi) True): the same r_c
    sd = np.sqrt(n * baseline * (1 - baseline))
    mid = n * baseline + norm.isf(alpha) * sd
    lo = np.clip(np.floor(mid - 6 * sd - 5), 0, n + 1).astype(np.int64)
    hi = np.clip(np.ceil(mid + 6 * sd + 5), 0, n + 1).astype(np.int64)
    ok = pred(hi) & ((lo == 0) | ~pred(lo))
    out = smallest_true(pred, np.where(ok, lo, 0), np.where(ok, hi, n + 1))
    return out


def mcnemar_lower_critical(d, alpha: float) -> np.ndarray:
    """Largest j with two-sided exact binomial p-value (p = 1/2, j of d) <= alpha; -1 if none.

    The exact McNemar test rejects when the discordant count of one kind is <= j or
    >= d - j (scipy's ``binomtest(k, d, 0.5).pvalue <= alpha``).

    Examples
    --------
    >>> int(mcnemar_lower_critical(10, 0.05)), int(mcnemar_lower_critical(5, 0.05))
    (1, -1)
    """
    d = np.asarray(d, dtype=np.int64)
    limit = alpha * (1 + 1e-7)  # scipy's binomtest compares p-values with this tolerance
    j = smallest_true(lambda j: 2 * binom.cdf(j, d, 0.5) > limit, -1, d) - 1
    return np.where(2 * j >= d, -1, j)


def wilson_half_width(x, n, confidence_level: float = CONFIDENCE_LEVEL) -> np.ndarray:
    """Half-width of the Wilson score interval (``confidence_level``) for x of n.

    Examples
    --------
    >>> from scipy.stats import binomtest
    >>> ci = binomtest(40, 50).proportion_ci(0.95, method="wilson")
    >>> bool(np.isclose(wilson_half_width(40, 50, 0.95), (ci.high - ci.low) / 2))
    True
    """
    x = np.asarray(x, float)
    n = np.asarray(n, float)
    z = norm.isf((1 - confidence_level) / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = x / n
        hw = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return np.where(n > 0, hw, np.inf)


def wilson_acceptance(n: np.ndarray, h: float, confidence_level: float) -> tuple[np.ndarray, np.ndarray]:
    """x_lo, x_hi with Wilson half-width(x, n) <= h  iff  x <= x_lo or x >= x_hi.

    The half-width grows with p(1 - p), so hw <= h iff p(1 - p) <= Q(n) with
    Q = n (h (1 + z^2/n) / z)^2 - z^2 / (4 n); boundary points are re-checked directly.
    """
    z = norm.isf((1 - confidence_level) / 2)
    nf = np.maximum(n, 1).astype(float)
    q = nf * (h * (1 + z * z / nf) / z) ** 2 - z * z / (4 * nf)
    disc = np.sqrt(np.clip(1 - 4 * q, 0, 1))
    x_lo = np.floor(nf * (1 - disc) / 2).astype(np.int64)
    x_hi = np.ceil(nf * (1 + disc) / 2).astype(np.int64)
    x_lo = np.where(q < 0, -1, x_lo)
    x_hi = np.where(q < 0, n + 1, x_hi)
    for _ in range(2):  # floating-point guard on the boundary points
        x_lo = np.where((x_lo >= 0) & (wilson_half_width(x_lo, nf, confidence_level) > h), x_lo - 1, x_lo)
        x_lo = np.where((x_lo + 1 <= n) & (wilson_half_width(x_lo + 1, nf, confidence_level) <= h)
                        & (x_lo + 1 < nf / 2), x_lo + 1, x_lo)
        x_hi = np.where((x_hi <= n) & (wilson_half_width(x_hi, nf, confidence_level) > h), x_hi + 1, x_hi)
        x_hi = np.where((x_hi - 1 >= 0) & (wilson_half_width(x_hi - 1, nf, confidence_level) <= h)
                        & (x_hi - 1 > nf / 2), x_hi - 1, x_hi)
    return x_lo, x_hi


def mix_over_binomial(f: np.ndarray, n_grid: np.ndarray, pi: float) -> np.ndarray:
    """Return sum_n Binomial(n; N, pi) f(n) for every N in n_grid (f indexed by n).

    Vectorised in blocks of N; terms outside N pi +/- 12 sd (+ 2) are left out (their
    total mass is below 1e-30).
    """
    n_grid = np.asarray(n_grid, dtype=np.int64)
    if pi >= 1 - 1e-15:
        return f[n_grid]
    out = np.empty(len(n_grid))
    for b0 in range(0, len(n_grid), 128):
        ns = n_grid[b0:b0 + 128]
        sd = np.sqrt(ns * pi * (1 - pi))
        lo = int(max(0, np.floor((ns * pi - 12 * sd - 2).min())))
        hi = int(min(ns.max(), np.ceil((ns * pi + 12 * sd + 2).max())))
        k = np.arange(lo, hi + 1)
        out[b0:b0 + 128] = binom.pmf(k[None, :], ns[:, None], pi) @ f[k]
    return out


def unpaired_z(xa, na, xb, nb) -> np.ndarray:
    """|z| of the pooled two-proportion z-test (0 where it is undefined), broadcasting.

    The one definition: the simulated study (:mod:`labelvar.design._simulated`) and the
    exact power apply it to the same counts.
    """
    xa, na, xb, nb = (np.asarray(v, float) for v in (xa, na, xb, nb))
    with np.errstate(divide="ignore", invalid="ignore"):
        pool = (xa + xb) / (na + nb)
        se = np.sqrt(pool * (1 - pool) * (1 / na + 1 / nb))
        z = np.abs(xa / na - xb / nb) / se
    return np.where((na > 0) & (nb > 0) & (se > 0), np.nan_to_num(z, nan=0.0, posinf=0.0), 0.0)


def unpaired_rejection(xa, na, nb, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """(y_lo, y_hi): the pooled z-test rejects at (xa of na, xb of nb) iff xb <= y_lo or xb >= y_hi.

    Notes
    -----
    z >= z_c is (xa nb - y na)^2 (na + nb) >= z_c^2 na nb (xa + y)(na + nb - xa - y), a
    quadratic in y with a positive leading coefficient, so the rejection region is the
    outside of its two roots; boundary points are re-checked with :func:`unpaired_z`
    (and y_lo = -1 / y_hi = nb + 1 when a side is empty).
    """
    z2 = norm.isf(alpha / 2) ** 2
    xa, na, nb = np.broadcast_arrays(*(np.asarray(v, float) for v in (xa, na, nb)))
    s = na + nb
    # (na^2 s + z2 na nb) y^2 + (-2 xa nb na s - z2 na nb (s - 2 xa)) y + (xa^2 nb^2 s
    #   - z2 na nb xa (s - xa)) >= 0
    a = na * na * s + z2 * na * nb
    b = -2 * xa * nb * na * s - z2 * na * nb * (s - 2 * xa)
    c = xa * xa * nb * nb * s - z2 * na * nb * xa * (s - xa)
    with np.errstate(divide="ignore", invalid="ignore"):
        disc = np.sqrt(np.maximum(b * b - 4 * a * c, 0.0))
        r1 = (-b - disc) / (2 * a)
        r2 = (-b + disc) / (2 * a)
    y_lo = np.clip(np.floor(np.nan_to_num(r1, nan=-1.0)), -1, nb).astype(np.int64)
    y_hi = np.clip(np.ceil(np.nan_to_num(r2, nan=nb + 1)), 0, nb + 1).astype(np.int64)
    zc = math.sqrt(z2)
    for _ in range(3):  # floating-point guard on the boundary points (until nothing moves)
        was = (y_lo, y_hi)
        y_lo = np.where((y_lo >= 0) & (unpaired_z(xa, na, y_lo, nb) < zc), y_lo - 1, y_lo)
        y_lo = np.where((y_lo + 1 <= nb) & (y_lo + 1 < y_hi)
                        & (unpaired_z(xa, na, y_lo + 1, nb) >= zc), y_lo + 1, y_lo)
        y_hi = np.where((y_hi <= nb) & (unpaired_z(xa, na, y_hi, nb) < zc), y_hi + 1, y_hi)
        y_hi = np.where((y_hi - 1 >= 0) & (y_hi - 1 > y_lo)
                        & (unpaired_z(xa, na, y_hi - 1, nb) >= zc), y_hi - 1, y_hi)
        if np.array_equal(was[0], y_lo) and np.array_equal(was[1], y_hi):
            break
    return y_lo, y_hi


#: The unpaired test's exact power sums over the scored counts of both systems and A's
#: correct count: about w_A w_B x_A terms per N (w: the +/- 9 sd windows of the scored
#: counts, w = 1 when every item is scored, pi = 1; x_A: the +/- 9 sd window of A's
#: correct count). Above this many terms per N the normal approximation is used instead
#: (``power_method`` says which).
UNPAIRED_EXACT_MAX_TERMS = 2_000_000
_SD_WINDOW = 9.0  # binomial mass beyond 9 sd (+ 2) is below 1e-18


def _window(n: int, p: float) -> tuple[int, int]:
    """[lo, hi] of Binomial(n, p) within +/- 9 sd (+ 2): the mass outside is below 1e-18."""
    sd = math.sqrt(n * p * (1 - p))
    return (max(0, int(n * p - _SD_WINDOW * sd - 2)),
            min(n, int(math.ceil(n * p + _SD_WINDOW * sd + 2))))


@functools.lru_cache(maxsize=8192)
def _cdf_window(n: int, p: float) -> tuple[int, np.ndarray]:
    """(k0, c): c[i] = P(X <= k0 + i - 1) for X ~ Binomial(n, p) on its window (c[0] = 0)."""
    k0, k1 = _window(n, p)
    pmf = binom.pmf(np.arange(k0, k1 + 1), n, p)
    return k0, np.concatenate([[0.0], np.cumsum(pmf)])


def _unpaired_window(N: int, pi: float) -> np.ndarray:
    if pi >= 1 - 1e-15:
        return np.array([N])
    lo, hi = _window(int(N), pi)
    return np.arange(lo, hi + 1)


def unpaired_terms(N: int, pi: float, pa: float = 0.5) -> int:
    """Number of terms of the exact unpaired power at N (see :data:`UNPAIRED_EXACT_MAX_TERMS`)."""
    w = len(_unpaired_window(int(N), pi))
    lo, hi = _window(int(round(N * min(pi, 1.0))), pa)
    return w * w * (hi - lo + 1)


class _CdfRows:
    """P(X_n <= k) of Binomial(n, p) for the rows n in ``ns``, as one flat table (vectorised)."""

    def __init__(self, ns, p: float):
        # the rows of :func:`_cdf_window`, computed in one vectorised pmf call per block
        # (the same values: one ufunc on the same arguments, summed in the same order)
        ns = np.asarray(ns, dtype=np.int64).ravel()
        p = float(p)
        win = np.array([_window(int(n), p) for n in ns.tolist()], dtype=np.int64).reshape(-1, 2)
        k0, size = win[:, 0], win[:, 1] - win[:, 0] + 2  # (+ 1: the leading 0 of the cdf)
        self.k0, self.size = k0[:, None], size[:, None]
        self.offset = np.concatenate([[0], np.cumsum(size)[:-1]])[:, None]
        flat = np.empty(int(size.sum()))
        width = int(size.max()) - 1 if len(ns) else 0
        step = max(1, 4_000_000 // max(width, 1))
        for b0 in range(0, len(ns), step):
            k = k0[b0:b0 + step, None] + np.arange(width)[None, :]
            inside = k <= win[b0:b0 + step, 1:2]
            pmf = np.where(inside, binom.pmf(k, ns[b0:b0 + step, None], p), 0.0)
            c = np.cumsum(pmf, axis=1)
            for i in range(c.shape[0]):
                j = b0 + i
                o = int(self.offset[j, 0])
                flat[o] = 0.0
                flat[o + 1:o + size[j]] = c[i, : size[j] - 1]
        self.flat = flat

    def __call__(self, k) -> np.ndarray:
        """P(X_n <= k[i, j]) for row i (k of shape (rows, ...))."""
        return self.flat[self.offset + np.clip(k - self.k0 + 1, 0, self.size - 1)]


class _RejectionTable:
    """g(na, nb) = P(the z-test rejects | scored counts na, nb), computed once per pair.

    g sums A's correct count (its window) against B's binomial tails; it does not depend on
    N or pi, so a scan over N computes each pair once (NaN = not yet computed).
    """

    def __init__(self, pa: float, pb: float, alpha: float):
        self.pa, self.pb, self.alpha = pa, pb, alpha
        self.g = np.full((0, 0), np.nan)

    def __call__(self, ns: np.ndarray) -> np.ndarray:
        """The table on the grid ns x ns, shape (len(ns), len(ns))."""
        top = int(ns.max()) + 1
        if top > len(self.g):
            size = max(top, 2 * len(self.g))
            V.memory(f"the unpaired test's exact power up to {size} scored items",
                     8.0 * size * size, "use the normal approximation (fewer items)")
            grown = np.full((size, size), np.nan)
            grown[: len(self.g), : len(self.g)] = self.g
            self.g = grown
        sub = self.g[np.ix_(ns, ns)]
        rows, cols = np.nonzero(np.isnan(sub))
        na, nb = ns[rows], ns[cols]
        step = 4096
        for b0 in range(0, len(na), step):  # the missing pairs, vectorised over A's window
            self.g[na[b0:b0 + step], nb[b0:b0 + step]] = self._compute(na[b0:b0 + step],
                                                                     nb[b0:b0 + step])
        return self.g[np.ix_(ns, ns)]

    def _compute(self, na: np.ndarray, nb: np.ndarray) -> np.ndarray:
        """The rejection probabilities of the pairs (na[i], nb[i])."""
        cdf_a, cdf_b = _CdfRows(na, self.pa), _CdfRows(nb, self.pb)
        width = int(cdf_a.size.max())  # A's window (+ 1): P(xa) = 0 beyond it
        xa = cdf_a.k0 + np.arange(width)[None, :]
        pxa = cdf_a(xa) - cdf_a(xa - 1)
        lo, hi = unpaired_rejection(xa, na[:, None], nb[:, None], self.alpha)
        return ((cdf_b(lo) + 1.0 - cdf_b(hi - 1)) * pxa).sum(axis=1)


@functools.lru_cache(maxsize=8)
def _rejection_table(pa: float, pb: float, alpha: float) -> _RejectionTable:
    return _RejectionTable(pa, pb, alpha)


def unpaired_power_exact(N: int, pi: float, pa: float, pb: float, alpha: float) -> float:
    """Exact power of the pooled two-proportion z-test, N items per system.

    Each system's scored count is Binomial(N, pi) and its correct count Binomial(n, p);
    the power sums P(reject) over both systems' scored and correct counts (B's correct
    count through its binomial tails beyond :func:`unpaired_rejection`), each count over
    its +/- 9 sd window (the mass left out is below 1e-18 per count). P(reject | both
    scored counts) is computed once per pair (:class:`_RejectionTable`), so a scan over
    N costs about one new row and column of pairs per N.
    """
    ns = _unpaired_window(int(N), pi)
    w = binom.pmf(ns, N, pi) if len(ns) > 1 else np.ones(1)
    keep = ns > 0
    nbs, wb = ns[keep], w[keep]
    if not len(nbs):
        return 0.0
    return float(wb @ _rejection_table(float(pa), float(pb), float(alpha))(nbs) @ wb)


def _unpaired_normal(n: np.ndarray, pa: float, pb: float, alpha: float) -> np.ndarray:
    pbar = (pa + pb) / 2
    z = norm.isf(alpha / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        s0 = np.sqrt(2 * pbar * (1 - pbar) / n)
        s1 = np.sqrt((pa * (1 - pa) + pb * (1 - pb)) / n)
        d = abs(pa - pb)
        pw = norm.sf((z * s0 - d) / s1) + norm.cdf((-z * s0 - d) / s1)
    return np.where(s1 > 0, pw, float(d > 0))


def power_method(sc: Scenario, cell: Cell, N: int) -> str:
    """``"exact"`` or ``"normal"``: how :func:`exact_power` computes the power at N."""
    if sc.question == "two_systems" and sc.metric == "f1":
        return "normal"
    if sc.question == "two_systems" and sc.test == "unpaired" and \
            unpaired_terms(N, cell.p_eval, cell.p_a) > UNPAIRED_EXACT_MAX_TERMS:
        return "normal"
    return "exact"


def exact_power(sc: Scenario, cell: Cell, n_grid: np.ndarray) -> np.ndarray:
    """Power at every N in n_grid: exact wherever :func:`power_method` says so.

    The F1 comparison uses the Wald z-test with the delta-method variance
    (:func:`f1_difference_variance`), so its power is a normal approximation. The
    unpaired test is exact (a sum over both systems' binomials) up to
    :data:`UNPAIRED_EXACT_MAX_TERMS` terms per N, normal beyond (with every item scored
    it is exact at every N: one window of A's correct count); the paired test is exact.
    """
    n_grid = np.asarray(n_grid, dtype=np.int64)
    n_max = int(n_grid.max())
    nn = np.arange(n_max + 1)
    if cell.p_eval <= 0:
        return np.zeros(len(n_grid))
    if sc.question in ("separability", "precision"):
        # f(n) is read from the lowest scored count of the smallest N on (mix_over_binomial's
        # window): a scan's later blocks do not recompute the counts below
        pi = cell.p_eval
        n0 = int(n_grid.min())
        lo0, hi0 = n0, n_max
        if pi < 1 - 1e-15:  # (the window of mix_over_binomial's blocks)
            lo0 = int(max(0, np.floor(n0 * pi - 12 * math.sqrt(n0 * pi * (1 - pi)) - 2)))
            hi0 = int(min(n_max, np.ceil(n_max * pi + 12 * math.sqrt(n_max * pi * (1 - pi))
                                         + 2)))
        if len(n_grid) == 1 and pi >= 1 - 1e-15:
            lo0 = hi0 = n_max
        part = nn[lo0:hi0 + 1]
        f = np.zeros(n_max + 1)
        if sc.question == "separability":
            c = separability_critical(part, cell.p_baseline, sc.alpha)
            f[lo0:hi0 + 1] = np.where(c <= part, binom.sf(c - 1, part, cell.p_a), 0.0)
        else:
            x_lo, x_hi = wilson_acceptance(part, sc.half_width, sc.confidence_level)
            g = binom.cdf(x_lo, part, cell.p_a) + binom.sf(x_hi - 1, part, cell.p_a)
            f[lo0:hi0 + 1] = np.where(x_lo >= x_hi, 1.0, g)  # tails overlap: every x accepted
            f[0] = 0.0
        return mix_over_binomial(f, n_grid, pi)
    if sc.metric == "f1":
        d, v = f1_difference_variance(cell.f1_cells, paired=sc.test == "paired")
        n = n_grid * cell.p_eval
        se = np.sqrt(v / n)
        z = norm.isf(sc.alpha / 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            pw = norm.sf(z - d / se)  # rejections with F1_A > F1_B only (see Scenario.metric)
        return np.where(se > 0, pw, float(d > 0))
    p11, p10, p01, p00 = cell.joint
    if sc.test == "paired":
        pd_ = p10 + p01
        if pd_ <= 0:
            return np.zeros(len(n_grid))
        r = p10 / pd_
        j = mcnemar_lower_critical(nn, sc.alpha)
        h = np.where(j >= 0, binom.cdf(j, nn, r) + binom.sf(nn - j - 1, nn, r), 0.0)
        # D ~ Binomial(N, p_eval * (p10 + p01)): binomial thinning of the scored items
        return mix_over_binomial(h, n_grid, cell.p_eval * pd_)
    pa, pb, pi = cell.p_a, cell.p_b, cell.p_eval
    if pi >= 1 - 1e-15:  # every item scored: sum over A's correct count, B's by its tails
        return _unpaired_full(n_grid, pa, pb, sc.alpha)
    out = _unpaired_normal(n_grid * pi, pa, pb, sc.alpha)
    for i, N in enumerate(n_grid):
        if unpaired_terms(int(N), pi, pa) <= UNPAIRED_EXACT_MAX_TERMS:
            out[i] = unpaired_power_exact(int(N), pi, pa, pb, sc.alpha)
    return out


def _unpaired_full(n_grid: np.ndarray, pa: float, pb: float, alpha: float) -> np.ndarray:
    """Exact unpaired power when every item is scored (n_A = n_B = N): g(N, N) per N in n_grid."""
    n = np.asarray(n_grid, dtype=np.int64)
    table = _rejection_table(float(pa), float(pb), float(alpha))
    return np.concatenate([table._compute(n[b0:b0 + 1024], n[b0:b0 + 1024])
                           for b0 in range(0, len(n), 1024)]) if len(n) else np.zeros(0)


class PowerScan:
    """Power P(N) for N = 1..n_max (:func:`exact_power`), computed in growing blocks on demand.

    Indexing ``scan[i]`` returns P(i + 1) (arrays allowed).
    """

    def __init__(self, sc: Scenario, cell: Cell, n_max: int):
        self.sc, self.cell, self.n_max = sc, cell, n_max
        self.values = np.empty(0)

    def upto(self, n: int) -> np.ndarray:
        """P(1), ..., P(n) (n capped at n_max), computing missing values."""
        n = min(int(n), self.n_max)
        if len(self.values) < n:
            start = len(self.values) + 1
            block = exact_power(self.sc, self.cell, np.arange(start, n + 1))
            self.values = np.concatenate([self.values, block])
        return self.values[:n]

    def first_crossing(self) -> int | None:
        """The first N with P(N) >= target, or None up to n_max."""
        size = 256
        while True:
            done = len(self.values)
            v = self.upto(done + size)
            hit = np.flatnonzero(v[done:] >= self.sc.power)
            if hit.size:
                return int(done + hit[0] + 1)
            if len(v) >= self.n_max:
                return None
            size *= 2

    def stable_crossing(self, n_first: int) -> tuple[int | None, int]:
        """(smallest N with P(n) >= target for every n in [N, horizon], the horizon).

        The horizon is min(n_max, 2 n_first), doubled (up to n_max) while P(horizon) is
        below the target; None when even n_max is below it.
        """
        horizon = min(self.n_max, 2 * n_first)
        while True:
            v = self.upto(horizon)
            below = np.flatnonzero(v < self.sc.power)
            last = int(below[-1]) + 1 if below.size else 0  # the last N below the target
            if last < horizon:
                return last + 1, horizon
            if horizon >= self.n_max:
                return None, horizon
            horizon = min(self.n_max, 2 * horizon)

    def argmax_n(self) -> int:
        return int(np.argmax(self.upto(self.n_max))) + 1

    def __getitem__(self, i):
        i = np.asarray(i)
        flat = np.atleast_1d(i).ravel()
        if flat.size and int(flat.max()) >= len(self.values):
            self.upto(int(flat.max()) + 1)
        out = self.values[flat]
        return out.reshape(i.shape) if i.ndim else out[0]


def p_beats(cell: Cell, N: int) -> float:
    """P(labeller's correct count > random labeller's) on the same N items (exact)."""
    n = np.arange(N + 1)
    pn = binom.pmf(n, N, cell.p_eval) if cell.p_eval < 1 else (n == N).astype(float)
    total = 0.0
    for nn in n[pn > 1e-14]:
        k = np.arange(nn + 1)
        total += pn[nn] * float(binom.pmf(k, nn, cell.p_baseline) @ binom.sf(k, nn, cell.p_a))
    return total
