"""The planned study: :class:`Scenario`, validated on creation, written back as plain data."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from labelvar._base import _validate as V
from labelvar._base._defaults import CONFIDENCE_LEVEL
from labelvar._base._format import short_float as _g
from labelvar.votes._priors import ItemModel, ThetaPrior, as_theta_prior, class_prior

QUESTIONS = ("separability", "two_systems", "precision")
TIE_RULES = ("random", "drop")
BASELINES = ("random", "prior")
TESTS = ("paired", "unpaired")
METRICS = ("accuracy", "f1")
#: defaults resolved in ``Scenario.__post_init__`` (alpha for the tests, the confidence
#: level for the ``precision`` question's interval)
DEFAULT_ALPHA = 0.05
DEFAULT_CONFIDENCE_LEVEL = CONFIDENCE_LEVEL


@dataclasses.dataclass(frozen=True)
class Scenario:
    """What the planned study looks like and what it must show (validated on creation).

    Parameters
    ----------
    question : {"separability", "two_systems", "precision"}
        See :mod:`labelvar.design`.
    theta : float, str, tuple, dict or prior object
        Item-agreement distribution, any spelling of
        :func:`labelvar.votes.as_theta_prior` (e.g. ``0.8``, ``"beta:2,5"``,
        ``("mixture", [0.6, 1], [0.3, 0.7])``, the ``prior`` of a :class:`PilotFit`);
        stored as the prior object (:class:`labelvar.FixedTheta` when fixed).
    n_labels : int
        Number of labels L (>= 2).
    m : float, sequence of float or None
        Class prior of the modal label: the share
        of label 1 (L > 2: the other labels share the rest equally) or a vector of L
        probabilities; None = uniform. Only the ``prior`` baseline depends on it.
    tie_rule : {"random", "drop"}
        Ties in the panel's plurality: broken uniformly at random, or the item is dropped.
    min_agreement : float
        Score only items whose observed agreement (top votes / K) is at least this
        (0 = all items).
    alpha : float or None
        Significance level of the test in (0, 1) (``separability``, ``two_systems``);
        None = 0.05. ``precision`` has no test: give ``confidence_level`` instead.
    confidence_level : float or None
        ``precision``: confidence level of the Wilson interval in (0, 1); None = 0.95.
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
        each system's own counts (unpaired); power by the normal approximation, counting
        only rejections with F1_A > F1_B: with a rare positive class GT errors can make
        the more accurate A's observed F1 *lower* than B's (``delta_observed`` < 0), and
        a two-sided test finding that is no power to show A better.
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
    alpha: float | None = None
    confidence_level: float | None = None
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
        if self.question == "precision":
            if self.alpha is not None:
                raise ValueError("precision has no test, so no alpha: give confidence_level "
                                 f"(of the Wilson interval), got alpha={self.alpha!r}")
            level = DEFAULT_CONFIDENCE_LEVEL if self.confidence_level is None \
                else self.confidence_level
            object.__setattr__(self, "confidence_level", float(
                V.probability("confidence_level", level, open_lo=True, open_hi=True)))
        else:
            if self.confidence_level is not None:
                raise ValueError(f"confidence_level is the precision question's; "
                                 f"{self.question} tests at alpha, got "
                                 f"confidence_level={self.confidence_level!r}")
            alpha = DEFAULT_ALPHA if self.alpha is None else self.alpha
            object.__setattr__(self, "alpha", float(
                V.probability("alpha", alpha, open_lo=True, open_hi=True)))
        V.probability("power", self.power, open_lo=True, open_hi=True)
        V.probability("min_agreement", self.min_agreement)
        object.__setattr__(self, "theta", as_theta_prior(self.theta, L))
        object.__setattr__(self, "m", class_prior(self.m, L))
        if not np.allclose(self.m, 1.0 / L):  # a class prior that nothing would read
            if isinstance(self.theta, ItemModel):
                raise ValueError(f"m is the class prior of a theta prior; the item model "
                                 f"{self.theta.spec()} sets its own modal-label distribution: "
                                 "leave m out (or change the item model's concentrations)")
            prior_base = self.question == "separability" and self.baseline == "prior"
            if not prior_base and self.metric != "f1":
                mode = (f"baseline={self.baseline!r}" if self.question == "separability"
                        else f"metric={self.metric!r}" if self.question == "two_systems"
                        else "its interval")
                raise ValueError("m (the class prior) is used only by the prior baseline "
                                 "(baseline='prior') and the F1 comparison (metric='f1'); "
                                 f"question {self.question} with {mode} would ignore it: "
                                 "leave m out")
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
            lo, hi = correlation_bounds(qb + d, qb)
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

    def describe(self) -> str:
        """Two lines of text: the question, then the test, α, target power and θ.

        The figures take the first line as their title and the second as the subtitle.

        Examples
        --------
        >>> print(Scenario("separability", theta=0.7).describe())
        Separability: tell the expert from a random labeller
        one-sided exact binomial test, α = 0.05, target power 0.8; θ = 0.7, L = 2
        """
        return "\n".join(scenario_text(self))

    def to_dict(self) -> dict:
        """Return the scenario as plain data; ``Scenario(**d)`` rebuilds an equal scenario.

        The θ prior is written as its text spec (:meth:`labelvar.votes.ThetaPrior.spec`),
        the class prior ``m`` as the share of label 1 (L = 2) or the L shares.

        Examples
        --------
        >>> d = Scenario("separability", theta="beta:2,5").to_dict()
        >>> d["theta"], d["alpha"], d["confidence_level"]
        ('beta:2,5', 0.05, None)
        >>> Scenario(**d).to_dict() == d
        True
        """
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["theta"] = self.theta.spec(self.n_labels)
        out["m"] = self.m.tolist() if self.n_labels > 2 else float(self.m[1])
        return out


def correlation_bounds(qa: float, qb: float) -> tuple[float, float]:
    s = math.sqrt(qa * (1 - qa) * qb * (1 - qb))
    if s == 0:
        return 0.0, 0.0
    return (max(0.0, qa + qb - 1) - qa * qb) / s, (min(qa, qb) - qa * qb) / s


def scenario_text(scenario) -> tuple[str, str]:
    """``(title, subtitle)`` of a planned study: the question, then the test and theta.

    The figures of :mod:`labelvar.plots._design` read it through
    :meth:`Scenario.describe` (they never import the planner).

    Parameters
    ----------
    scenario : labelvar.design.Scenario or dict
        The scenario (or its :meth:`~labelvar.design.Scenario.to_dict`).

    Examples
    --------
    >>> from labelvar.design._scenario import Scenario
    >>> scenario_text(Scenario("separability", theta=0.7))[0]
    'Separability: tell the expert from a random labeller'
    >>> scenario_text(Scenario("two_systems", theta="beta:8,2", n_labels=3, accuracy_b=0.85,
    ...                        delta=0.05, error_correlation=0.3, min_agreement=0.8))[1].split("; ")
    ['exact McNemar, α = 0.05, target power 0.8', 'θ ~ Beta(8, 2) on [1/3, 1], L = 3', \
'scored where observed agreement ≥ 0.8']
    """
    if isinstance(scenario, dict):
        scenario = Scenario(**scenario)
    sc = scenario
    q = sc.question
    if q == "separability":
        who = "the system" if sc.accuracy_a is not None else "the expert"
        head = f"Separability: tell {who} from a {sc.baseline} labeller"
        if sc.accuracy_a is not None:
            head += f" (accuracy {_g(sc.accuracy_a)})"
    elif q == "two_systems":
        qa, qb = sc.accuracies
        metric = "F1" if sc.metric == "f1" else "accuracy"
        article = "an" if metric[0] in "aeiou" else "a"
        head = (f"Two systems: detect {article} {metric} gain of {_g(sc.delta)} "
                f"({_g(qa)} vs {_g(qb)}, error correlation {_g(sc.error_correlation)})")
    else:
        head = f"Precision: Wilson interval of the score within ±{_g(sc.half_width)}"
    if q == "two_systems":
        test = ("exact McNemar" if sc.test == "paired" else "two-proportion z-test") \
            if sc.metric == "accuracy" else "Wald z-test of the F1 difference"
        level = f"{test}, α = {_g(sc.alpha)}, target power {_g(sc.power)}"
    elif q == "separability":
        level = f"one-sided exact binomial test, α = {_g(sc.alpha)}, target power {_g(sc.power)}"
    else:
        level = (f"{_g(100 * sc.confidence_level)} % interval, "
                 f"target assurance {_g(sc.power)}")
    theta = as_theta_prior(sc.theta)
    desc = theta.describe(sc.n_labels)
    desc = desc.replace("theta", "θ") if desc.startswith("theta") else f"θ ~ {desc}"
    parts = [level, f"{desc}, L = {sc.n_labels}"]
    if sc.min_agreement > 0:
        parts.append(f"scored where observed agreement ≥ {_g(sc.min_agreement)}")
    return head, "; ".join(parts)
