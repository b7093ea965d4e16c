"""Study design: how many items N and annotators per item K a new evaluation needs.

A :class:`Scenario` says what the study looks like (the distribution of item
agreement θ, the number of labels L, the tie rule, the stratum that is scored)
and what it must show (one *question*, a significance level α and a target
power). :func:`plan_study` searches panel sizes K and item counts N, and for
every K reports the smallest N that meets the target, priced, with the power
from an exact calculation under the model *and* from a per-item simulation with
its Monte Carlo standard error.

The model (the engine's *panel* mode)
-------------------------------------
Each item has a modal label and an agreement level θ, drawn independently per
item from the prior (a fixed value, a Beta(a, b) on [1/L, 1] or a discrete
mixture). Each of the K panel annotators votes for the modal label with
probability θ and otherwise for one of the other L - 1 labels uniformly. The
ground truth (GT) is the plurality of the panel; ties are broken uniformly at
random (``tie_rule="random"``) or the item is dropped (``"drop"``). The
observed agreement of an item is (top votes) / K; ``min_agreement`` restricts
scoring to items whose observed agreement is at least that value (the
top-certainty bin(s)). Labellers scored against the GT:

- *expert*: one more annotator drawn like the panel;
- *model* with accuracy q: picks the modal label with probability q, else a
  uniformly chosen other label (two models A and B have correlated errors:
  the phi coefficient of their modal-label correctness is ``error_correlation``;
  when both are wrong they pick their wrong labels independently);
- *random*: uniform over the L labels; *prior*: predicts class c with the class
  prior m_c (the modal label's class is drawn from m).

Because the items are independent and identically distributed, the number of
scored items is Binomial(N, π) and, given it, every correctness count is
binomial (or multinomial) with probabilities obtained by enumerating all K-vote
count vectors and integrating over θ with Gauss-Jacobi quadrature (exact for
these polynomials in θ). The powers are therefore exact under the model, except
for the unpaired two-system test, which uses the normal approximation.

Questions
---------
``separability``
    One-sided exact binomial test of H0: the labeller's accuracy equals the
    baseline's (1/L for the random labeller, sum_c m_c P(GT = c) for the
    prior-matched one). The critical number correct r_c(n) is the smallest k with
    P(Binomial(n, baseline) >= k) <= α, i.e. the paper's Table 1 tail: the baseline
    reaches r_c with probability at most α. Power = P(labeller's correct >= r_c).
``two_systems``
    Systems A (accuracy ``accuracy_b + delta``) and B (``accuracy_b``) against the
    modal label. ``test="paired"``: both score the same items; two-sided exact
    McNemar test (binomial test of the discordant pairs, p = 1/2, scipy's
    ``binomtest``). ``test="unpaired"``: each system scores its own N items;
    two-sided pooled two-proportion z-test.
``precision``
    The Wilson interval (confidence 1 - α) of the labeller's accuracy in the
    stratum has half-width at most ``half_width``; "power" is the probability
    (assurance) that it does.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from labelvar import _panel
from labelvar import _validate as V
from labelvar.models import correlation_bounds as _correlation_bounds
from labelvar.priors import BetaPrior, DiscretePrior, FixedTheta, ThetaPrior, as_theta_prior, class_prior

QUESTIONS = ("separability", "two_systems", "precision")
TIE_RULES = ("random", "drop")
BASELINES = ("random", "prior")
TESTS = ("paired", "unpaired")



def _g(x: float) -> str:
    return f"{float(x):.4g}"


# =========================================================================== scenario
@dataclasses.dataclass(frozen=True)
class Scenario:
    """What the planned study looks like and what it must show (validated on creation).

    Parameters
    ----------
    question : {"separability", "two_systems", "precision"}
        See the module docstring.
    theta : float, str, tuple, dict or prior object
        Item-agreement distribution, any spelling of
        :func:`labelvar.priors.as_theta_prior` (e.g. ``0.8``, ``"beta:2,5"``,
        ``("mixture", [0.6, 1], [0.3, 0.7])``, the ``prior`` of a :class:`PilotFit`);
        stored as the prior object (:class:`labelvar.priors.FixedTheta` when fixed).
    n_labels : int
        Number of labels L (>= 2).
    m : float, sequence of float or None
        Class prior of the modal label (:func:`labelvar.priors.class_prior`): the share
        of label 1 (L > 2: the other labels share the rest equally) or a vector of L
        probabilities; None = uniform. Only the ``prior`` baseline depends on it.
    tie_rule : {"random", "drop"}
        Ties in the panel's plurality: broken uniformly at random, or the item is dropped.
    min_agreement : float
        Score only items whose observed agreement (top votes / K) is at least this
        (0 = all items).
    alpha : float
        Significance level in (0, 1) (for ``precision``: 1 - confidence of the interval).
    power : float
        Target power (assurance for ``precision``) in (0, 1).
    baseline : {"random", "prior"}
        ``separability``: the weak labeller to tell apart.
    accuracy_a : float or None
        ``separability`` / ``precision``: accuracy against the modal label of the system
        under study; None = an expert drawn like the panel.
    accuracy_b, delta : float
        ``two_systems``: accuracies of B and of A = B + delta against the modal label.
    error_correlation : float
        ``two_systems``: phi coefficient between A's and B's modal-label correctness.
    test : {"paired", "unpaired"}
        ``two_systems``: exact McNemar on the same items, or two-proportion z-test on
        separate item sets of N each.
    metric : {"accuracy", "f1"}
        ``two_systems``: the score whose difference is tested. ``"f1"`` (L = 2, positive
        class = label 1, class prior ``m``): Wald z-test of F1_A - F1_B with a
        delta-method standard error from the (GT, A, B) label counts (paired) or from
        each system's own counts (unpaired); power by the normal approximation.
    half_width : float
        ``precision``: target Wilson-interval half-width.
    cost_per_item, cost_per_annotation : float
        Cost of one item (e.g. curation) and of one annotation.

    Examples
    --------
    >>> s = Scenario("separability", theta=0.7, n_labels=2)
    >>> s.theta.describe()
    'theta = 0.7'
    >>> Scenario("two_systems", theta=0.9, accuracy_b=0.9, delta=0.2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: delta must be in (0, 1 - accuracy_b] = (0, 0.1] (...), got 0.2
    """

    question: str = "separability"
    theta: object = 0.8
    n_labels: int = 2
    m: object = None
    tie_rule: str = "random"
    min_agreement: float = 0.0
    alpha: float = 0.05
    power: float = 0.8
    baseline: str = "random"
    accuracy_a: float | None = None
    accuracy_b: float | None = None
    delta: float | None = None
    error_correlation: float = 0.0
    test: str = "paired"
    metric: str = "accuracy"
    half_width: float | None = None
    cost_per_item: float = 0.0
    cost_per_annotation: float = 1.0

    def __post_init__(self):
        V.choice("question", self.question, QUESTIONS)
        L = int(V.n_labels(self.n_labels))
        object.__setattr__(self, "n_labels", L)
        V.choice("tie_rule", self.tie_rule, TIE_RULES)
        V.choice("baseline", self.baseline, BASELINES)
        V.choice("test", self.test, TESTS)
        V.choice("metric", self.metric, ("accuracy", "f1"))
        if self.metric == "f1" and (self.question != "two_systems" or L != 2):
            raise ValueError(f"metric='f1' needs question='two_systems' and n_labels=2, got "
                             f"question={self.question!r}, n_labels={L}")
        V.probability("alpha", self.alpha, open_lo=True, open_hi=True)
        V.probability("power", self.power, open_lo=True, open_hi=True)
        V.probability("min_agreement", self.min_agreement)
        object.__setattr__(self, "theta", as_theta_prior(self.theta, L))
        object.__setattr__(self, "m", class_prior(self.m, L))
        for name in ("cost_per_item", "cost_per_annotation"):
            val = float(V.as_float_array(name, getattr(self, name)))
            if val < 0 or not math.isfinite(val):
                raise ValueError(f"{name} must be a finite number >= 0, got {val}")
        if self.accuracy_a is not None:
            V.probability("accuracy_a", self.accuracy_a)
        if self.question == "two_systems":
            if self.accuracy_b is None or self.delta is None:
                raise ValueError("two_systems needs accuracy_b and delta "
                                 "(accuracies against the modal label: B and A = B + delta)")
            qb = float(V.probability("accuracy_b", self.accuracy_b))
            d = float(V.as_float_array("delta", self.delta))
            if not 0 < d <= 1 - qb + 1e-12:
                raise ValueError(
                    f"delta must be in (0, 1 - accuracy_b] = (0, {_g(1 - qb)}] (system A's "
                    f"accuracy accuracy_b + delta cannot exceed 1), got {_g(d)}")
            if self.accuracy_a is not None and abs(self.accuracy_a - (qb + d)) > 1e-9:
                raise ValueError(f"accuracy_a must equal accuracy_b + delta = {_g(qb + d)} "
                                 f"(or be left out), got {_g(self.accuracy_a)}")
            lo, hi = _correlation_bounds(qb + d, qb)
            r = float(V.as_float_array("error_correlation", self.error_correlation))
            if not lo - 1e-12 <= r <= hi + 1e-12:
                raise ValueError(
                    f"error_correlation must be in [{lo:.4g}, {hi:.4g}] for accuracies "
                    f"{_g(qb + d)} and {_g(qb)} (Frechet bounds), got {_g(r)}")
        if self.question == "precision":
            if self.half_width is None:
                raise ValueError("precision needs half_width (target CI half-width, in (0, 0.5])")
            V.probability("half_width", self.half_width, open_lo=True, hi=0.5)

    @property
    def prior(self) -> ThetaPrior:
        """The θ prior (the same object as ``theta``)."""
        return self.theta

    @property
    def accuracies(self) -> tuple[float | None, float | None]:
        """Accuracies of systems A and B against the modal label (None = expert / unused)."""
        if self.question == "two_systems":
            return float(self.accuracy_b + self.delta), float(self.accuracy_b)
        return self.accuracy_a, None

    def to_dict(self) -> dict:
        """Return the scenario as plain data (θ prior as a string)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["theta"] = _prior_spec_string(self.theta)
        out["m"] = self.m.tolist() if self.n_labels > 2 else float(self.m[1])
        return out


def _prior_spec_string(p: ThetaPrior) -> str:
    if isinstance(p, FixedTheta):
        return _g(p.value)
    if isinstance(p, BetaPrior):
        if p.lo is not None or p.hi != 1.0:
            return f"BetaPrior(a={p.a!r}, b={p.b!r}, lo={p.lo!r}, hi={p.hi!r})"
        return f"beta:{p.a:.6g},{p.b:.6g}"
    return "mixture:" + ",".join(f"{v:.6g}={w:.6g}" for v, w in zip(p.values, p.weights))


# =========================================================================== panel enumeration
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
    onehot = np.zeros((comp.shape[0], K + 1))
    onehot[np.arange(comp.shape[0]), top] = 1.0
    return {
        "top": prob @ onehot,
        "gt_modal": (prob * w_modal) @ onehot,
        "gt_other": (prob * w_other) @ onehot,
    }


@dataclasses.dataclass(frozen=True)
class _Cell:
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


def _cell(sc: Scenario, K: int) -> _Cell:
    L = sc.n_labels
    th, w = sc.theta.nodes(L, 2 * K + 2)  # exact: the integrands are polynomials of degree K + 1
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
            return float(w @ (a_g * th + b_g * (1 - th) * u))
        return pm * q + po * (1 - q) * u

    qa, qb = sc.accuracies
    if sc.baseline == "random":
        base = p_eval / L
    else:
        mm = sc.m
        base = pm * float(mm @ mm) + po * float(mm @ (1 - mm)) * u
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
    pd_ = panel_probabilities(th, K, L, "drop")
    p_tie = float(w @ (1 - pd_["gt_modal"].sum(axis=1) - pd_["gt_other"].sum(axis=1)))
    return _Cell(
        panel_size=K, p_top=p_top, p_eval=p_eval,
        p_gt_error=1 - kept_modal / kept if kept > 0 else np.nan, p_tie=p_tie,
        p_gt_error_scored=po / p_eval if p_eval > 0 else np.nan,
        p_a=acc(qa) / div, p_baseline=base / div, p_b=p_b, joint=joint,
        f1_cells=_f1_cells(sc, po / p_eval) if (sc.question == "two_systems" and L == 2
                                                 and p_eval > 0) else None,
    )


def _f1_cells(sc: Scenario, p_err: float) -> np.ndarray:
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


def _f1_and_gradient(p_ga) -> tuple[np.ndarray, np.ndarray]:
    """F1 (positive class 1) and its gradient w.r.t. the (g, a) cell probabilities.

    ``p_ga`` has shape (..., 2, 2) [g, a]; TP = p[1, 1], FP = p[0, 1], FN = p[1, 0].
    """
    tp, fp, fn = p_ga[..., 1, 1], p_ga[..., 0, 1], p_ga[..., 1, 0]
    den = 2 * tp + fp + fn
    with np.errstate(divide="ignore", invalid="ignore"):
        f1 = np.where(den > 0, 2 * tp / den, 0.0)
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
    fa, ga = _f1_and_gradient(pa)
    fb, gb = _f1_and_gradient(pb)
    if paired:
        g = ga[..., :, :, None] - gb[..., :, None, :]  # gradient over the (g, a, b) cells
        m1 = (p * g).sum(axis=(-3, -2, -1))
        v = (p * g * g).sum(axis=(-3, -2, -1)) - m1**2
    else:
        va = (pa * ga * ga).sum(axis=(-2, -1)) - (pa * ga).sum(axis=(-2, -1)) ** 2
        vb = (pb * gb * gb).sum(axis=(-2, -1)) - (pb * gb).sum(axis=(-2, -1)) ** 2
        v = va + vb
    return fa - fb, np.maximum(v, 0.0)


# =========================================================================== tests and power
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
    from scipy.stats import binom

    n = np.asarray(n, dtype=np.int64)
    c = np.asarray(binom.isf(alpha, n, baseline), dtype=float)
    c = np.where(np.isnan(c), n, c).astype(np.int64) + 1
    for _ in range(3):  # guard against floating-point off-by-one in isf
        c = np.where((c > 0) & (binom.sf(c - 2, n, baseline) <= alpha), c - 1, c)
        c = np.where((c <= n) & (binom.sf(c - 1, n, baseline) > alpha), c + 1, c)
    return np.minimum(c, n + 1)


def mcnemar_lower_critical(d, alpha: float) -> np.ndarray:
    """Largest j with two-sided exact binomial p-value (p = 1/2, j of d) <= alpha; -1 if none.

    The exact McNemar test rejects when the discordant count of one kind is <= j or
    >= d - j (scipy's ``binomtest(k, d, 0.5).pvalue <= alpha``).

    Examples
    --------
    >>> int(mcnemar_lower_critical(10, 0.05)), int(mcnemar_lower_critical(5, 0.05))
    (1, -1)
    """
    from scipy.stats import binom

    d = np.asarray(d, dtype=np.int64)
    j = np.asarray(binom.ppf(alpha / 2, d, 0.5), dtype=float)
    j = np.where(np.isnan(j), 0, j).astype(np.int64)
    for _ in range(3):
        j = np.where((j >= 0) & (2 * binom.cdf(j, d, 0.5) > alpha * (1 + 1e-7)), j - 1, j)
        j = np.where(2 * binom.cdf(j + 1, d, 0.5) <= alpha * (1 + 1e-7), j + 1, j)
    return np.where(2 * j >= d, -1, j)


def wilson_half_width(x, n, alpha: float) -> np.ndarray:
    """Half-width of the Wilson score interval (confidence 1 - alpha) for x of n.

    Examples
    --------
    >>> from scipy.stats import binomtest
    >>> ci = binomtest(40, 50).proportion_ci(0.95, method="wilson")
    >>> bool(np.isclose(wilson_half_width(40, 50, 0.05), (ci.high - ci.low) / 2))
    True
    """
    from scipy.stats import norm

    x = np.asarray(x, float)
    n = np.asarray(n, float)
    z = norm.isf(alpha / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = x / n
        hw = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return np.where(n > 0, hw, np.inf)


def _wilson_acceptance(n: np.ndarray, h: float, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """x_lo, x_hi with Wilson half-width(x, n) <= h  iff  x <= x_lo or x >= x_hi.

    The half-width grows with p(1 - p), so hw <= h iff p(1 - p) <= Q(n) with
    Q = n (h (1 + z^2/n) / z)^2 - z^2 / (4 n); boundary points are re-checked directly.
    """
    from scipy.stats import norm

    z = norm.isf(alpha / 2)
    nf = np.maximum(n, 1).astype(float)
    q = nf * (h * (1 + z * z / nf) / z) ** 2 - z * z / (4 * nf)
    disc = np.sqrt(np.clip(1 - 4 * q, 0, 1))
    x_lo = np.floor(nf * (1 - disc) / 2).astype(np.int64)
    x_hi = np.ceil(nf * (1 + disc) / 2).astype(np.int64)
    x_lo = np.where(q < 0, -1, x_lo)
    x_hi = np.where(q < 0, n + 1, x_hi)
    for _ in range(2):  # floating-point guard on the boundary points
        x_lo = np.where((x_lo >= 0) & (wilson_half_width(x_lo, nf, alpha) > h), x_lo - 1, x_lo)
        x_lo = np.where((x_lo + 1 <= n) & (wilson_half_width(x_lo + 1, nf, alpha) <= h)
                        & (x_lo + 1 < nf / 2), x_lo + 1, x_lo)
        x_hi = np.where((x_hi <= n) & (wilson_half_width(x_hi, nf, alpha) > h), x_hi + 1, x_hi)
        x_hi = np.where((x_hi - 1 >= 0) & (wilson_half_width(x_hi - 1, nf, alpha) <= h)
                        & (x_hi - 1 > nf / 2), x_hi - 1, x_hi)
    return x_lo, x_hi


def _mix_over_binomial(f: np.ndarray, n_grid: np.ndarray, pi: float) -> np.ndarray:
    """Return sum_n Binomial(n; N, pi) f(n) for every N in n_grid (f indexed by n)."""
    from scipy.stats import binom

    if pi >= 1 - 1e-15:
        return f[n_grid]
    out = np.empty(len(n_grid))
    for i, N in enumerate(n_grid):
        sd = math.sqrt(N * pi * (1 - pi))
        lo = max(0, int(N * pi - 12 * sd - 2))
        hi = min(int(N), int(N * pi + 12 * sd + 2))
        k = np.arange(lo, hi + 1)
        out[i] = binom.pmf(k, N, pi) @ f[k]
    return out


def _analytic_power(sc: Scenario, cell: _Cell, n_grid: np.ndarray) -> np.ndarray:
    """Power at every N in n_grid (exact, except the unpaired test: normal approximation)."""
    from scipy.stats import binom, norm

    n_max = int(n_grid.max())
    nn = np.arange(n_max + 1)
    if cell.p_eval <= 0:
        return np.zeros(len(n_grid))
    if sc.question == "separability":
        c = separability_critical(nn, cell.p_baseline, sc.alpha)
        f = np.where(c <= nn, binom.sf(c - 1, nn, cell.p_a), 0.0)
        return _mix_over_binomial(f, n_grid, cell.p_eval)
    if sc.question == "precision":
        x_lo, x_hi = _wilson_acceptance(nn, sc.half_width, sc.alpha)
        f = binom.cdf(x_lo, nn, cell.p_a) + binom.sf(x_hi - 1, nn, cell.p_a)
        f = np.where(x_lo >= x_hi, 1.0, f)  # the two tails overlap: every x is accepted
        f[0] = 0.0
        return _mix_over_binomial(f, n_grid, cell.p_eval)
    if sc.metric == "f1":
        d, v = f1_difference_variance(cell.f1_cells, paired=sc.test == "paired")
        n = n_grid * cell.p_eval
        se = np.sqrt(v / n)
        z = norm.isf(sc.alpha / 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            pw = norm.sf(z - abs(d) / se) + norm.cdf(-z - abs(d) / se)
        return np.where(se > 0, pw, float(d != 0))
    p11, p10, p01, p00 = cell.joint
    if sc.test == "paired":
        pd_ = p10 + p01
        if pd_ <= 0:
            return np.zeros(len(n_grid))
        r = p10 / pd_
        j = mcnemar_lower_critical(nn, sc.alpha)
        h = np.where(j >= 0, binom.cdf(j, nn, r) + binom.sf(nn - j - 1, nn, r), 0.0)
        # D ~ Binomial(N, p_eval * (p10 + p01)): binomial thinning of the scored items
        return _mix_over_binomial(h, n_grid, cell.p_eval * pd_)
    pa, pb = cell.p_a, cell.p_b
    n = n_grid * cell.p_eval
    pbar = (pa + pb) / 2
    z = norm.isf(sc.alpha / 2)
    s0 = np.sqrt(2 * pbar * (1 - pbar) / n)
    s1 = np.sqrt((pa * (1 - pa) + pb * (1 - pb)) / n)
    d = abs(pa - pb)
    with np.errstate(divide="ignore", invalid="ignore"):
        pw = norm.sf((z * s0 - d) / s1) + norm.cdf((-z * s0 - d) / s1)
    return np.where(s1 > 0, pw, float(d > 0))


# =========================================================================== simulation
def _simulate_power(sc: Scenario, K: int, N: int, replicates: int, seed: int,
                    cell: _Cell) -> dict:
    """Simulate the study item by item (seeded numpy) and apply the same test.

    Each replicate draws θ for every item, the K panel votes (modal-label count
    Binomial(K, θ), the rest multinomial over the other labels), the plurality GT with
    the tie rule, and every labeller's label; then counts and tests exactly as a real
    study would. The stream depends only on (seed, question, K, N).
    """
    L = sc.n_labels
    q_code = QUESTIONS.index(sc.question)
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 6, q_code, int(K), int(N)]))
    n_sets = 2 if (sc.question == "two_systems" and sc.test == "unpaired") else 1
    items = N * n_sets
    chunk = max(1, 2_000_000 // max(1, items * max(K, L)))
    reject = np.empty(replicates, dtype=bool)
    beats = np.empty(replicates, dtype=bool)
    n_scored = np.empty(replicates, dtype=np.int64)
    qa, qb = sc.accuracies
    for start in range(0, replicates, chunk):
        r = min(chunk, replicates - start)
        shape = (r, items)
        th = sc.theta.sample(rng, L, shape)
        v0 = rng.binomial(K, th)
        if L == 2:
            counts = np.stack([v0, K - v0], axis=-1)
        else:
            rest = rng.multinomial(K - v0, np.full(L - 1, 1.0 / (L - 1)))
            counts = np.concatenate([v0[..., None], rest], axis=-1)
        top = counts.max(axis=-1)
        tied = counts == top[..., None]
        if sc.tie_rule == "random":
            gt = np.argmax(np.where(tied, rng.random(counts.shape), -1.0), axis=-1)
            scored = np.ones(shape, dtype=bool)
        else:
            gt = np.argmax(counts, axis=-1)
            scored = tied.sum(axis=-1) == 1
        scored &= top / K >= sc.min_agreement - 1e-12

        def label(modal_correct, shape=shape):
            other = rng.integers(1, L, size=shape) if L > 2 else np.ones(shape, np.int64)
            return np.where(modal_correct, 0, other)

        if sc.question == "two_systems":
            s = math.sqrt(qa * (1 - qa) * qb * (1 - qb))
            p11 = qa * qb + sc.error_correlation * s
            u = rng.random(shape)
            ca = u < qa
            cb = (u < p11) | ((u >= qa) & (u < qa + qb - p11))
            la, lb = label(ca), label(cb)
            ok_a = (la == gt) & scored
            ok_b = (lb == gt) & scored
            if sc.metric == "f1":
                from scipy.stats import norm

                c1 = rng.random(shape) < sc.m[1]  # the modal label's class
                g_cls = np.where(gt == 0, c1, ~c1)
                a_cls = np.where(la == 0, c1, ~c1)
                b_cls = np.where(lb == 0, c1, ~c1)
                code = 4 * g_cls + 2 * a_cls + b_cls
                if sc.test == "paired":
                    cnt = np.stack([((code == k) & scored).sum(axis=1) for k in range(8)], -1)
                    n_s = cnt.sum(axis=1)
                    nn = n_s
                else:  # A scores the first N items, B the second N
                    code_a = 4 * g_cls[:, :N] + 2 * a_cls[:, :N]  # b bit 0: A's own cells
                    code_b = 4 * g_cls[:, N:] + b_cls[:, N:]
                    ca_cnt = np.stack([((code_a == k) & scored[:, :N]).sum(axis=1)
                                       for k in (0, 2, 4, 6)], -1).reshape(-1, 2, 2)
                    cb_cnt = np.stack([((code_b == k) & scored[:, N:]).sum(axis=1)
                                       for k in (0, 1, 4, 5)], -1).reshape(-1, 2, 2)
                    n_s = ca_cnt.sum(axis=(1, 2))
                    nb_ = cb_cnt.sum(axis=(1, 2))
                    nn = np.minimum(n_s, nb_)
                with np.errstate(divide="ignore", invalid="ignore"):
                    if sc.test == "paired":
                        d, v = f1_difference_variance(cnt.reshape(-1, 2, 2, 2)
                                                      / n_s[:, None, None, None])
                        se = np.sqrt(v / n_s)
                    else:
                        pa_ = ca_cnt / n_s[:, None, None]
                        pb_ = cb_cnt / nb_[:, None, None]
                        fa, ga = _f1_and_gradient(pa_)
                        fb, gb = _f1_and_gradient(pb_)
                        va = (pa_ * ga * ga).sum(axis=(1, 2)) - (pa_ * ga).sum(axis=(1, 2)) ** 2
                        vb = (pb_ * gb * gb).sum(axis=(1, 2)) - (pb_ * gb).sum(axis=(1, 2)) ** 2
                        d, se = fa - fb, np.sqrt(va / n_s + vb / nb_)
                    zz = np.abs(d) / se
                rej = (nn > 0) & (se > 0) & (np.nan_to_num(zz, nan=0.0) >= norm.isf(sc.alpha / 2))
                reject[start:start + r] = rej
                beats[start:start + r] = False
                n_scored[start:start + r] = n_s
                continue
            if sc.test == "paired":
                n10 = (ok_a & ~ok_b).sum(axis=1)
                n01 = (~ok_a & ok_b).sum(axis=1)
                d = n10 + n01
                j = mcnemar_lower_critical(d, sc.alpha)
                rej = (j >= 0) & ((n10 <= j) | (n10 >= d - j))
                n_s = scored.sum(axis=1)
            else:
                from scipy.stats import norm

                na, nb = scored[:, :N].sum(axis=1), scored[:, N:].sum(axis=1)
                xa, xb = ok_a[:, :N].sum(axis=1), ok_b[:, N:].sum(axis=1)
                with np.errstate(divide="ignore", invalid="ignore"):
                    pp = (xa + xb) / (na + nb)
                    se = np.sqrt(pp * (1 - pp) * (1 / na + 1 / nb))
                    zz = (xa / na - xb / nb) / se
                rej = np.nan_to_num(np.abs(zz), nan=0.0) >= norm.isf(sc.alpha / 2)
                rej &= (na > 0) & (nb > 0) & (se > 0)
                n_s = na
            reject[start:start + r] = rej
            beats[start:start + r] = False
            n_scored[start:start + r] = n_s
            continue
        modal_ok = rng.random(shape) < (th if qa is None else qa)
        ok = (label(modal_ok) == gt) & scored
        n_s = scored.sum(axis=1)
        x = ok.sum(axis=1)
        if sc.baseline == "random":
            base_ok = (rng.integers(0, L, size=shape) == gt) & scored
        else:
            modal_class = rng.choice(L, size=shape, p=sc.m)
            gt_class = (modal_class + gt) % L
            base_ok = (rng.choice(L, size=shape, p=sc.m) == gt_class) & scored
        xb = base_ok.sum(axis=1)
        if sc.question == "separability":
            c = separability_critical(n_s, cell.p_baseline, sc.alpha)
            reject[start:start + r] = (n_s > 0) & (x >= c)
        else:
            reject[start:start + r] = wilson_half_width(x, n_s, sc.alpha) <= sc.half_width
        beats[start:start + r] = x > xb
        n_scored[start:start + r] = n_s
    p = float(reject.mean())
    return {
        "power_simulated": p,
        "power_se": math.sqrt(max(p * (1 - p), 1e-300) / replicates),
        "p_beats_baseline_simulated": float(beats.mean())
        if sc.question != "two_systems" else np.nan,
        "scored_items_simulated": float(n_scored.mean()),
    }


def _simulate_power_engine(sc: Scenario, K: int, N: int, replicates: int, seed: int,
                           cell: _Cell) -> dict:
    """Simulated power from the engine (:func:`labelvar.simulate`, panel mode, raw output).

    Separability and precision only: the engine labels the same simulated items with the
    system (expert, or a ``Model`` with ``accuracy_a``) and the baseline (``Random`` or
    ``Prior``); per replicate the scored strata (observed p_d >= min_agreement) are summed
    and the same test as the exact calculation is applied.
    """
    from labelvar.engine import simulate
    from labelvar.models import Expert, Model, Prior, Random

    qa, _ = sc.accuracies
    system = Expert(name="system") if qa is None else Model(accuracy=qa, name="system")
    base = Random(name="base") if sc.baseline == "random" else Prior(name="base")
    L = sc.n_labels
    eseed = int(np.random.SeedSequence([int(seed), 6, QUESTIONS.index(sc.question), int(K),
                                        int(N)]).generate_state(1)[0])
    raw = simulate(m=[float(sc.m[1])] if L == 2 else 0.5,
                   class_prior=None if L == 2 else sc.m.tolist(), n_items=[N],
                   n_labels=[L], panel_size=[K], labellers=(system, base),
                   mode="panel", replicates=replicates, seed=eseed,
                   theta_prior=sc.theta, tie_rule=sc.tie_rule,
                   positives="bernoulli", raw=True, expected=False).raw
    if sc.min_agreement > 0:
        strata = raw[raw["stratum"] != "all"]
        t = np.round(strata["stratum"].astype(float).to_numpy() * K)
        raw = strata[t / K >= sc.min_agreement - 1e-12]
    else:
        raw = raw[raw["stratum"] == "all"]
    tot = raw.groupby(["labeller", "replicate"])[["n", "correct"]].sum()
    idx = pd.MultiIndex.from_product([["system", "base"], range(replicates)],
                                     names=["labeller", "replicate"])
    tot = tot.reindex(idx, fill_value=0)
    n_s = tot.loc["system", "n"].to_numpy()
    x = tot.loc["system", "correct"].to_numpy()
    xb = tot.loc["base", "correct"].to_numpy()
    if sc.question == "separability":
        c = separability_critical(n_s, cell.p_baseline, sc.alpha)
        reject = (n_s > 0) & (x >= c)
    else:
        reject = wilson_half_width(x, n_s, sc.alpha) <= sc.half_width
    p = float(reject.mean())
    return {"power_simulated": p,
            "power_se": math.sqrt(max(p * (1 - p), 1e-300) / replicates),
            "p_beats_baseline_simulated": float((x > xb).mean()),
            "scored_items_simulated": float(n_s.mean())}


# =========================================================================== planner
@dataclasses.dataclass
class DesignResult:
    """Output of :func:`plan_study`.

    Attributes
    ----------
    scenario : Scenario
    plans : pandas.DataFrame
        One row per panel size K: the smallest N meeting the target (see :func:`plan_study`).
    bins : pandas.DataFrame
        Expected items per observed-agreement bin (top votes / K) at each plan.
    curves : pandas.DataFrame
        Analytic power for a grid of N per K (for the power-curve figure).
    evaluated : pandas.DataFrame
        Every (K, N) simulated during the search, with its power and Monte Carlo SE.
    message : str
        One-line conclusion (the recommended plan, or that none meets the target).
    """

    scenario: Scenario
    plans: pd.DataFrame
    bins: pd.DataFrame
    curves: pd.DataFrame
    evaluated: pd.DataFrame
    message: str

    @property
    def found(self) -> bool:
        """Whether some plan meets the target."""
        return bool(self.plans["meets_target"].any())

    @property
    def recommended(self) -> pd.Series | None:
        """The recommended plan (cheapest meeting the target), or None."""
        rows = self.plans[self.plans["recommended"]]
        return None if rows.empty else rows.iloc[0]

    def to_markdown(self) -> str:
        """Plans as a markdown table plus the conclusion line."""
        cols = ["panel_size", "n_items", "annotations", "cost", "power_analytic",
                "power_simulated", "power_se", "meets_target", "recommended",
                "p_gt_error", "items_per_bin"]
        return _markdown(self.plans[[c for c in cols if c in self.plans]]) + "\n\n" + self.message

    def write(self, out_dir: str | Path, figure: bool = True) -> list[Path]:
        """Write the tables, the scenario and the power figure under ``out_dir``.

        Files: ``design.csv``, ``design_bins.csv``, ``design_evaluated.csv``,
        ``design_curves.csv``, ``scenario.json`` and ``power.png``/``power.pdf``, each
        written atomically (temporary file + rename).
        """
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = []
        for name, df in (("design", self.plans), ("design_bins", self.bins),
                         ("design_evaluated", self.evaluated), ("design_curves", self.curves)):
            paths.append(_atomic_write(out / f"{name}.csv", df.to_csv(index=False)))
        paths.append(_atomic_write(out / "scenario.json",
                                   json.dumps(self.scenario.to_dict(), indent=2, default=str)))
        if figure:
            from labelvar import plots

            fig = plots.plot_power_curves(self.curves, self.evaluated, self.plans,
                                          target=self.scenario.power)
            paths += plots.save(fig, out / "power")
        return paths


def _atomic_write(path: Path, text: str) -> Path:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    os.replace(tmp, path)
    return path


def _markdown(df: pd.DataFrame) -> str:
    def cell(v):
        if isinstance(v, (bool, np.bool_)):
            return "yes" if v else "no"
        if isinstance(v, (float, np.floating)):
            if v != v:
                return ""
            if float(v).is_integer() and abs(v) < 1e9:
                return str(int(v))
            if abs(v) >= 100:
                return f"{v:.6g}"
            return f"{v:.3g}" if abs(v) < 1e-3 else f"{v:.4f}"
        return str(v)

    cols = [str(c) for c in df.columns]
    rows = [[cell(v) for v in r] for r in df.itertuples(index=False)]
    wd = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(cols)]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(cols, wd)) + " |",
             "|" + "|".join("-" * (w + 2) for w in wd) + "|"]
    lines += ["| " + " | ".join(v.rjust(w) for v, w in zip(r, wd)) + " |" for r in rows]
    return "\n".join(lines)


def plan_study(scenario: Scenario, panel_sizes: Sequence[int] | None = None, *,
               n_max: int = 10_000, n_step: int | None = None, replicates: int = 1000,
               seed: int = 0, max_steps: int = 30, simulator: str = "auto") -> DesignResult:
    """Find, for every panel size K, the smallest number of items N that meets the target.

    For each K the exact power P(N) (normal approximation for the unpaired test) is
    computed for every N = 1..n_max and N_analytic is the first N with P(N) >= power.
    With ``replicates > 0`` the study is then simulated item by item at N_analytic and
    at neighbours on the grid N_analytic + j * n_step: downwards while the simulated
    power still meets the target, upwards until it does. The reported N is the
    smallest grid point whose *simulated* power meets the target, directly above
    one that does not (``n_items_below`` / ``power_simulated_below``). The
    recommended plan is the cheapest K meeting the target (in simulation when
    ``replicates > 0``).

    Parameters
    ----------
    scenario : Scenario
        The study.
    panel_sizes : sequence of int or None
        Panel sizes K to consider; default odd K (no ties for L = 2): 1, 3, 5, 7, 9, or
        3, 5, 7, 9 when ``min_agreement > 0`` (one vote gives no observed agreement).
    n_max : int
        Largest number of items searched.
    n_step : int or None
        Search step of the simulated refinement. None = the smallest step over which the
        exact power near N_analytic changes by 2 Monte Carlo SEs, so the simulation can
        resolve one step (and MC noise cannot pick a plan whose power is clearly short).
    replicates : int
        Simulated studies per evaluated (K, N); 0 = analytic only.
    seed : int
        Seed of the simulation (each (K, N) has its own stream).
    max_steps : int
        Most grid steps simulated per K.
    simulator : {"auto", "engine", "numpy"}
        ``"engine"``: :func:`labelvar.simulate` in panel mode (separability and
        precision); ``"numpy"``: this module's seeded per-item simulation of the same
        model (all questions; the only one for ``two_systems``, which needs correlated
        A/B errors and discordant pairs); ``"auto"``: the engine where it applies.

    Returns
    -------
    DesignResult
        Tables ``plans``, ``bins``, ``curves``, ``evaluated`` and a one-line ``message``.

    Notes
    -----
    Columns of ``plans`` (one row per K): ``n_items`` (per system for the unpaired test,
    whose ``annotations`` and ``cost`` count both item sets), ``annotations`` = N K,
    ``cost`` = N cost_per_item + N K cost_per_annotation, ``power_analytic`` (exact,
    normal approximation for the unpaired test), ``power_simulated`` +/- ``power_se``,
    ``meets_target`` (in simulation when ``replicates > 0``), ``recommended``,
    ``n_items_analytic`` (first N with exact power >= target), ``n_step``,
    ``n_items_below`` / ``power_simulated_below`` (the grid point one step smaller),
    ``expected_scored_items``, ``p_gt_error`` (P(GT != modal label) over kept items),
    ``p_gt_error_scored`` (same over scored items), ``p_tie`` (P(the plurality is tied)),
    ``accuracy_a_vs_gt`` (the system's or expert's accuracy against the GT on scored
    items), ``items_per_bin`` (expected items per observed-agreement bin t/K; full table
    in ``bins``) and per question: separability ``baseline_accuracy``,
    ``threshold_accuracy`` and ``p_baseline_at_least_threshold`` (r_c / n and the
    baseline's tail at the expected number n of scored items), ``p_beats_baseline``
    (P(system's correct count > random labeller's), exact; NaN for the prior baseline)
    and ``p_beats_baseline_simulated``; two_systems ``accuracy_b_vs_gt``,
    ``delta_observed`` (attenuated by GT errors), ``p_discordant``, ``test``; precision
    ``expected_half_width`` (Wilson half-width at the expected counts).

    Examples
    --------
    How many items must an expert (θ = 0.7 for every item, one annotator as
    ground truth) label to be told apart from a coin flip at α = 0.05 with power 0.8?

    >>> res = plan_study(Scenario("separability", theta=0.7), panel_sizes=[1, 3],
    ...                  replicates=0)
    >>> res.plans[["panel_size", "n_items", "power_analytic"]].round(3)
       panel_size  n_items  power_analytic
    0           1      245           0.804
    1           3      119           0.803
    """
    sc = scenario
    if not isinstance(sc, Scenario):
        raise ValueError(f"scenario must be a Scenario, got {type(sc).__name__}")
    if panel_sizes is None:
        panel_sizes = (1, 3, 5, 7, 9) if sc.min_agreement == 0 else (3, 5, 7, 9)
    ks = V.integer("panel_sizes", np.atleast_1d(panel_sizes), lo=1)
    if ks.size == 0:
        raise ValueError("panel_sizes must list at least one panel size")
    if sc.min_agreement > 0 and (ks < 2).any():
        raise ValueError(f"panel_sizes must be >= 2 when min_agreement > 0 (one vote per item "
                         f"gives no observed agreement to stratify by), got {ks.tolist()}")
    n_max = int(V.integer("n_max", n_max, lo=2))
    replicates = int(V.integer("replicates", replicates, lo=0))
    max_steps = int(V.integer("max_steps", max_steps, lo=1))
    if n_step is not None:
        n_step = int(V.integer("n_step", n_step, lo=1))
    V.choice("simulator", simulator, ("auto", "engine", "numpy"))
    if simulator == "engine" and sc.question == "two_systems":
        raise ValueError("simulator='engine' cannot simulate two_systems (needs correlated A/B "
                         "errors and discordant pairs); use 'numpy' or 'auto'")
    if simulator == "auto":
        simulator = "numpy" if sc.question == "two_systems" else "engine"
    rows, bins, curves, evaluated = [], [], [], []
    for K in (int(k) for k in ks):
        cell = _cell(sc, K)
        pw = _PowerScan(sc, cell, n_max)
        n_a = pw.first_crossing()
        curve_max = min(n_max, max(20, int(2 * n_a) if n_a else n_max))
        idx = np.unique(np.round(np.geomspace(1, curve_max, 200)).astype(int))
        sets = 2 if (sc.question == "two_systems" and sc.test == "unpaired") else 1
        curves.append(pd.DataFrame({
            "panel_size": K, "n_items": idx, "power_analytic": pw[idx - 1],
            "cost": sets * idx * (sc.cost_per_item + K * sc.cost_per_annotation)}))
        row = {"panel_size": K, "n_items_analytic": n_a}
        if n_a is None:
            N = pw.argmax_n()
            row.update(n_items=N, meets_analytic=False)
        else:
            N = n_a
            row.update(meets_analytic=True)
        step = n_step or _auto_step(pw, n_a, replicates, sc.power)
        search = _SimSearch(sc, K, cell, pw, replicates, seed, evaluated, simulator)
        below = None
        if replicates > 0 and n_a is not None:
            N, below = search.run(n_a, step, n_max, max_steps)
            row["meets_target"] = search.meets(N)
        elif replicates > 0:  # no analytic plan: simulate the best point so the user sees it
            row["meets_target"] = search.meets(N)
        else:
            row["meets_target"] = n_a is not None
        sims = search.sims
        s = sims.get(N, {})
        exp_bins = N * cell.p_top
        t = np.arange(K + 1)
        bins.append(pd.DataFrame({"panel_size": K, "n_items": N, "observed_p_d": t[1:] / K,
                                  "probability": cell.p_top[1:],
                                  "expected_items": exp_bins[1:],
                                  "scored": (t[1:] / K >= sc.min_agreement - 1e-12)}))
        row.update(
            n_items=N, annotations=N * K,
            cost=N * sc.cost_per_item + N * K * sc.cost_per_annotation,
            power_analytic=float(pw[N - 1]),
            power_simulated=s.get("power_simulated", np.nan),
            power_se=s.get("power_se", np.nan),
            n_step=step if replicates > 0 else np.nan,
            n_items_below=below if below is not None else np.nan,
            power_simulated_below=sims[below]["power_simulated"] if below in sims else np.nan,
            expected_scored_items=N * cell.p_eval,
            p_gt_error=cell.p_gt_error, p_gt_error_scored=cell.p_gt_error_scored,
            p_tie=cell.p_tie,
            accuracy_a_vs_gt=cell.p_a,
            items_per_bin=", ".join(f"{tt}/{K}:{e:.4g}" for tt, e in zip(t[1:], exp_bins[1:])
                                    if e >= 0.05 * N / (K + 1) or tt == K),
        )
        row.update(_question_columns(sc, cell, N, s))
        rows.append(row)
    plans = pd.DataFrame(rows)
    if sc.question == "two_systems" and sc.test == "unpaired":
        plans["n_items_total"] = 2 * plans["n_items"]
        plans["annotations"] *= 2
        plans["cost"] *= 2
    plans["recommended"] = False
    ok = plans[plans["meets_target"]]
    if len(ok):
        best = ok.sort_values(["cost", "annotations", "n_items"]).index[0]
        plans.loc[best, "recommended"] = True
        r = plans.loc[best]
        src = "in simulation" if replicates > 0 else "analytically"
        msg = (f"recommended: K = {int(r['panel_size'])} annotators per item, N = "
               f"{int(r['n_items'])} items, {int(r['annotations'])} annotations, cost "
               f"{r['cost']:.6g}; power {_power_text(r)} meets the target {sc.power:g} {src}")
    else:
        b = plans.loc[plans["power_analytic"].idxmax()]
        sim = (f", simulated {b['power_simulated']:.3f} +/- {b['power_se']:.3f}"
               if b["power_simulated"] == b["power_simulated"] else "")
        msg = (f"no plan with K in {{{', '.join(str(int(k)) for k in ks)}}} and N <= {n_max} "
               f"reaches power {sc.power:g}; best power reached {b['power_analytic']:.4f} "
               f"(exact{sim}; K = {int(b['panel_size'])}, N = {int(b['n_items'])})")
    front = ["panel_size", "n_items", "annotations", "cost", "power_analytic",
             "power_simulated", "power_se", "meets_target", "recommended"]
    plans = plans[front + [c for c in plans.columns if c not in front]]
    plans["simulator"] = simulator if replicates > 0 else ""
    ev = pd.DataFrame(evaluated, columns=["panel_size", "n_items", "simulator", "power_analytic",
                                          "power_simulated", "power_se",
                                          "p_beats_baseline_simulated",
                                          "scored_items_simulated"])
    return DesignResult(sc, plans, pd.concat(bins, ignore_index=True),
                        pd.concat(curves, ignore_index=True),
                        ev.sort_values(["panel_size", "n_items"], ignore_index=True), msg)


def _auto_step(pw: _PowerScan, n_a: int | None, replicates: int, target: float) -> int:
    """Smallest step s with P(N_a) - P(N_a - s) >= 2 Monte Carlo SEs (at least 1).

    A finer grid than the simulation can resolve would let Monte Carlo noise pick the
    plan; with this step the plan one step smaller has exact power at least 2 SEs lower.
    """
    if n_a is None or n_a <= 1 or replicates <= 0:
        return max(1, (n_a or 50) // 50)
    se = math.sqrt(target * (1 - target) / replicates)
    below = pw[np.arange(n_a - 1)]  # P(1) .. P(N_a - 1)
    ok = np.flatnonzero(below <= pw[n_a - 1] - 2 * se)
    return int(n_a - (ok[-1] + 1)) if ok.size else max(1, n_a // 2)


class _SimSearch:
    """Simulated power at (K, N), memoised, and the step search around N_analytic."""

    def __init__(self, sc, K, cell, pw, replicates, seed, evaluated, simulator):
        self.sc, self.K, self.cell, self.pw, self.simulator = sc, K, cell, pw, simulator
        self.replicates, self.seed, self.evaluated = replicates, seed, evaluated
        self.sims: dict[int, dict] = {}

    def meets(self, n: int) -> bool:
        if n not in self.sims:
            fn = _simulate_power_engine if self.simulator == "engine" else _simulate_power
            self.sims[n] = fn(self.sc, self.K, n, self.replicates, self.seed, self.cell)
            self.evaluated.append({"panel_size": self.K, "n_items": n,
                                   "simulator": self.simulator,
                                   "power_analytic": float(self.pw[n - 1]), **self.sims[n]})
        return bool(self.sims[n]["power_simulated"] >= self.sc.power)

    def run(self, n: int, step: int, n_max: int, max_steps: int) -> tuple[int, int | None]:
        """Return (smallest grid N meeting the target in simulation, the failing N below)."""
        steps = 0
        if self.meets(n):
            while n - step >= 1 and steps < max_steps and self.meets(n - step):
                n -= step
                steps += 1
            return n, (n - step if (n - step) in self.sims else None)
        while n + step <= n_max and steps < max_steps and not self.meets(n + step):
            n += step
            steps += 1
        if n + step <= n_max and steps < max_steps:
            return n + step, n
        return n, None


class _PowerScan:
    """Exact power P(N) for N = 1..n_max, computed in growing blocks up to the first crossing.

    Indexing ``scan[i]`` returns P(i + 1) (arrays allowed), computing missing values on demand.
    """

    def __init__(self, sc: Scenario, cell: _Cell, n_max: int):
        self.sc, self.cell, self.n_max = sc, cell, n_max
        self.values = np.empty(0)
        self.extra: dict[int, float] = {}

    def first_crossing(self) -> int | None:
        size = 256
        while len(self.values) < self.n_max:
            start = len(self.values) + 1
            end = min(self.n_max, start + size - 1)
            block = _analytic_power(self.sc, self.cell, np.arange(start, end + 1))
            self.values = np.concatenate([self.values, block])
            hit = np.flatnonzero(block >= self.sc.power)
            if hit.size:
                return int(start + hit[0])
            size *= 2
        return None

    def argmax_n(self) -> int:
        return int(np.argmax(self.values)) + 1

    def __getitem__(self, i):
        i = np.asarray(i)
        flat = np.atleast_1d(i).ravel()
        missing = sorted({int(j) + 1 for j in flat if j >= len(self.values)} - set(self.extra))
        if missing:
            self.extra.update(zip(missing, _analytic_power(self.sc, self.cell,
                                                           np.array(missing))))
        out = np.array([self.values[j] if j < len(self.values) else self.extra[int(j) + 1]
                        for j in flat])
        return out.reshape(i.shape) if i.ndim else out[0]


def _power_text(r) -> str:
    if r["power_simulated"] == r["power_simulated"]:
        return f"{r['power_simulated']:.3f} +/- {r['power_se']:.3f} (analytic {r['power_analytic']:.3f})"
    return f"{r['power_analytic']:.3f}"


def _question_columns(sc: Scenario, cell: _Cell, N: int, sim: dict) -> dict:
    """Extra, question-specific columns of a plan row."""
    from scipy.stats import binom

    n_exp = max(1, int(round(N * cell.p_eval)))
    if sc.question == "separability":
        c = int(separability_critical(n_exp, cell.p_baseline, sc.alpha))
        out = {"baseline_accuracy": cell.p_baseline,
               "threshold_accuracy": c / n_exp,
               "p_baseline_at_least_threshold": float(binom.sf(c - 1, n_exp, cell.p_baseline)),
               "p_beats_baseline": _p_beats(cell, N) if sc.baseline == "random" else np.nan,
               "p_beats_baseline_simulated": sim.get("p_beats_baseline_simulated", np.nan)}
        return out
    if sc.question == "two_systems":
        p11, p10, p01, p00 = cell.joint
        out = {"accuracy_b_vs_gt": cell.p_b, "delta_observed": cell.p_a - cell.p_b,
               "p_discordant": p10 + p01, "test": sc.test, "metric": sc.metric}
        if sc.metric == "f1":
            d, v = f1_difference_variance(cell.f1_cells, paired=sc.test == "paired")
            fa, _ = _f1_and_gradient(cell.f1_cells.sum(axis=-1))
            out.update(f1_a_vs_gt=float(fa), f1_b_vs_gt=float(fa - d), delta_observed=float(d),
                       se_delta_at_plan=float(np.sqrt(v / max(N * cell.p_eval, 1e-300))))
        return out
    return {"expected_half_width": float(wilson_half_width(round(n_exp * cell.p_a), n_exp,
                                                           sc.alpha))}


def _p_beats(cell: _Cell, N: int) -> float:
    """P(labeller's correct count > random labeller's) on the same N items (exact)."""
    from scipy.stats import binom

    n = np.arange(N + 1)
    pn = binom.pmf(n, N, cell.p_eval) if cell.p_eval < 1 else (n == N).astype(float)
    total = 0.0
    for nn in n[pn > 1e-14]:
        k = np.arange(nn + 1)
        total += pn[nn] * float(binom.pmf(k, nn, cell.p_baseline) @ binom.sf(k, nn, cell.p_a))
    return total


# =========================================================================== pilot fitting
@dataclasses.dataclass
class PilotFit:
    """A θ prior fitted to pilot vote counts.

    Attributes
    ----------
    prior : BetaPrior or DiscretePrior
        The fitted prior (:mod:`labelvar.priors`; pass it as ``Scenario(theta=fit.prior)``).
    method : str
        ``"beta"`` or ``"mixture"``.
    n_items, n_labels : int
    loglik : float
        Maximised log-likelihood of the vote patterns.
    n_params : int
    aic : float
    class_prior : ndarray
        Frequency of each label as the plurality label (ties split).
    table : pandas.DataFrame
        Observed vs expected number of items per (votes per item, sorted vote pattern).
    chi2, dof, p_value : float
        Pearson goodness of fit over the patterns (expected counts >= 5 pooled).
    """

    prior: object
    method: str
    n_items: int
    n_labels: int
    loglik: float
    n_params: int
    aic: float
    class_prior: np.ndarray
    table: pd.DataFrame
    chi2: float
    dof: int
    p_value: float

    def summary(self) -> str:
        """One line: the fitted prior and its fit."""
        L = self.n_labels
        return (f"pilot: {self.n_items} items, L = {L}; fitted {self.prior.describe(L)}"
                f" (mean theta {self.prior.mean(L):.3f}); log-lik {self.loglik:.2f}, AIC "
                f"{self.aic:.2f}; Pearson chi2 {self.chi2:.2f} on {self.dof} df, p = "
                f"{self.p_value:.3g}")


def read_pilot(path: str | Path, field: str = "annotator_labels",
               columns: Sequence[str] | None = None) -> np.ndarray:
    r"""Read pilot votes into an (items x labels) count matrix.

    Parameters
    ----------
    path : str or Path
        ``.csv``: one row per item, one numeric column per label holding vote counts.
        ``.jsonl`` / ``.json``: one object per line whose ``field`` is the list of the
        item's annotator labels (e.g. SNLI's ``annotator_labels``).
    field : str
        JSON field with the labels.
    columns : sequence of str, optional
        CSV: the vote-count columns (default: every numeric column, so give this when
        the file also has a numeric id column).

    Returns
    -------
    ndarray of int
        Vote counts, shape (items, L); labels in sorted order for JSON input.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "votes.csv")
    >>> _ = open(p, "w").write("yes,no\n3,2\n5,0\n")
    >>> read_pilot(p).tolist()
    [[3, 2], [5, 0]]
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"pilot file not found: {path}")
    if path.suffix.lower() in (".jsonl", ".json"):
        labels = []
        with path.open() as fh:
            for i, line in enumerate(fh):
                if not line.strip():
                    continue
                rec = json.loads(line)
                if field not in rec:
                    raise ValueError(f"pilot line {i + 1} has no field {field!r}")
                labels.append([str(x) for x in rec[field]])
        names = sorted({x for row in labels for x in row})
        index = {n: j for j, n in enumerate(names)}
        out = np.zeros((len(labels), max(2, len(names))), dtype=np.int64)
        for i, row in enumerate(labels):
            for x in row:
                out[i, index[x]] += 1
        return out
    df = pd.read_csv(path)
    if columns is not None:
        missing = [c for c in columns if c not in df.columns]
        if missing:
            raise ValueError(f"pilot CSV {path} has no column(s) {', '.join(missing)}; "
                             f"columns: {', '.join(map(str, df.columns))}")
        df = df[list(columns)]
        if df.shape[1] != df.select_dtypes("number").shape[1]:
            raise ValueError(f"pilot columns must hold vote counts (numbers), got "
                             f"{dict(df.dtypes.astype(str))}")
    num = df.select_dtypes("number")
    if num.shape[1] < 2:
        raise ValueError(f"pilot CSV {path} needs one numeric vote-count column per label "
                         f"(>= 2), found {num.shape[1]}")
    return V.integer("pilot vote counts", num.to_numpy(), lo=0)


def fit_pilot(counts, method: str = "beta", n_labels: int | None = None,
              grid_size: int = 60) -> PilotFit:
    """Fit the item-agreement prior to pilot vote counts by maximum likelihood.

    Each item i has K_i >= 2 votes c_i (counts per label). Under the panel model the
    likelihood of an item is (1/L) sum_j E_θ[Multinomial(c_i; θ on label j, (1 - θ)/(L - 1)
    elsewhere)], the sum running over which label is modal (unobserved).

    Parameters
    ----------
    counts : array (items, L)
        Votes per label for every item (see :func:`read_pilot`).
    method : {"beta", "mixture"}
        ``"beta"``: Beta(a, b) on [1/L, 1], maximised over log a, log b (scipy.optimize,
        Gauss-Jacobi quadrature of degree 2 max(K_i) + 2, exact for these polynomials). ``"mixture"``:
        nonparametric maximum likelihood over a grid of θ in [1/L, 1] (EM), support
        points with weight < 1e-4 dropped and the rest renormalised.
    n_labels : int or None
        L; defaults to the number of columns.
    grid_size : int
        Grid points for ``"mixture"``.

    Returns
    -------
    PilotFit

    Examples
    --------
    >>> votes = [[5, 0], [4, 1], [3, 2], [5, 0], [4, 1], [5, 0]]
    >>> fit = fit_pilot(votes)
    >>> fit.method, fit.n_items, round(fit.prior.mean(2), 2)
    ('beta', 6, 0.86)
    """
    from scipy.optimize import minimize
    from scipy.special import logsumexp
    from scipy.stats import chi2 as chi2_dist

    V.choice("method", method, ("beta", "mixture"))
    c = V.integer("pilot vote counts", counts, lo=0)
    if c.ndim != 2 or c.shape[0] == 0:
        raise ValueError(f"pilot vote counts must be a non-empty (items, labels) matrix, "
                         f"got shape {c.shape}")
    L = int(V.n_labels(c.shape[1] if n_labels is None else n_labels))
    if c.shape[1] > L:
        raise ValueError(f"pilot has {c.shape[1]} label columns but n_labels={L}")
    if c.shape[1] < L:
        c = np.pad(c, ((0, 0), (0, L - c.shape[1])))
    k = c.sum(axis=1)
    if (k < 2).any():
        bad = np.flatnonzero(k < 2)
        raise ValueError(f"pilot items need at least 2 votes each; {bad.size} item(s) have fewer "
                         f"(first: item {bad[0]} with {k[bad[0]]})")
    pats, inverse, mult = np.unique(-np.sort(-c, axis=1), axis=0, return_inverse=True,
                                    return_counts=True)
    lo = 1.0 / L
    degree = 2 * int(k.max()) + 2

    if method == "beta":
        def nll(x):
            th, w = BetaPrior(math.exp(x[0]), math.exp(x[1])).nodes(L, degree)
            ll = logsumexp(_panel.log_pattern_likelihood(pats, np.clip(th, lo, 1 - 1e-15), L)
                           + np.log(w)[None, :], axis=1)
            return -float(mult @ ll)

        best = None
        for x0 in ([0.0, 0.0], [1.0, 0.0], [0.0, 1.0]):
            r = minimize(nll, x0, method="Nelder-Mead",
                         options={"xatol": 1e-6, "fatol": 1e-9, "maxiter": 2000})
            if best is None or r.fun < best.fun:
                best = r
        prior = BetaPrior(float(math.exp(best.x[0])), float(math.exp(best.x[1])))
        loglik, n_params = -float(best.fun), 2
    else:
        grid = np.linspace(lo, 1.0, grid_size)
        lp = _panel.log_pattern_likelihood(pats, np.clip(grid, lo, 1 - 1e-15), L)
        lp[:, -1] = _panel.log_pattern_likelihood(pats, np.array([1.0]), L)[:, 0]
        w = np.full(grid_size, 1.0 / grid_size)
        for _ in range(5000):
            lj = lp + np.log(np.maximum(w, 1e-300))[None, :]
            post = np.exp(lj - logsumexp(lj, axis=1, keepdims=True))
            w_new = mult @ post / mult.sum()
            if np.abs(w_new - w).max() < 1e-10:
                w = w_new
                break
            w = w_new
        keep = w >= 1e-4
        w = w[keep] / w[keep].sum()
        prior = DiscretePrior(tuple(grid[keep].tolist()), tuple(w.tolist()))
        th, ww = prior.nodes(L, degree)
        loglik = float(mult @ logsumexp(_panel.log_pattern_likelihood(pats, np.clip(th, lo, 1.0), L)
                                        + np.log(ww)[None, :], axis=1))
        n_params = 2 * int(keep.sum()) - 1
    # goodness of fit: observed vs expected items per pattern, within each K
    th, w = prior.nodes(L, degree)
    pp = np.exp(_panel.log_pattern_likelihood(pats, np.clip(th, lo, 1.0), L)) @ w
    # multiplicity of each sorted pattern among labelled patterns (label permutations)
    perms = np.array([math.factorial(L) / math.prod(math.factorial(int(v))
                                                      for v in np.unique(p, return_counts=True)[1])
                      for p in pats])
    kpat = pats.sum(axis=1)
    n_k = {kk: int(mult[kpat == kk].sum()) for kk in np.unique(kpat)}
    expected = np.array([n_k[kk] for kk in kpat]) * pp * perms
    table = pd.DataFrame({"votes": kpat, "pattern": ["-".join(map(str, p)) for p in pats],
                          "observed": mult, "expected": expected})
    chi2, dof = _pooled_chi2(table, n_params)
    top = np.where(c == c.max(axis=1, keepdims=True), 1.0, 0.0)
    class_prior = (top / top.sum(axis=1, keepdims=True)).mean(axis=0)
    return PilotFit(prior=prior, method=method, n_items=int(c.shape[0]), n_labels=L,
                    loglik=loglik, n_params=n_params, aic=2 * n_params - 2 * loglik,
                    class_prior=class_prior, table=table, chi2=chi2, dof=dof,
                    p_value=float(chi2_dist.sf(chi2, dof)) if dof > 0 else np.nan)


def _pooled_chi2(table: pd.DataFrame, n_params: int) -> tuple[float, int]:
    """Pearson chi-square over patterns; patterns with expected < 5 are pooled per K.

    Patterns never observed are not listed, so their expected mass joins the pooled cell.
    """
    chi2, cells = 0.0, 0
    for _, g in table.groupby("votes"):
        n = g["observed"].sum()
        big = g["expected"] >= 5
        chi2 += float((((g["observed"] - g["expected"]) ** 2) / g["expected"])[big].sum())
        cells += int(big.sum())
        rest_o = n - g.loc[big, "observed"].sum()
        rest_e = n - g.loc[big, "expected"].sum()
        if rest_e > 1e-9:
            chi2 += (rest_o - rest_e) ** 2 / rest_e
            cells += 1
        cells -= 1  # the total per K is fixed
    return chi2, max(cells - n_params, 0)
