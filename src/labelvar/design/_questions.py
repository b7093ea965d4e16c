"""The planner's questions, one class each: :class:`Separability`, :class:`TwoSystems`, :class:`Precision`.

Each holds only its own fields (statsmodels' power classes do the same, one per test),
so a field that means nothing for a question cannot be written at all. All share the
study's items and panel: ``theta`` (the item-agreement distribution), ``n_labels``,
``m`` (class prior), ``tie_rule``, ``min_agreement`` and the target ``power``. Each is
checked on creation (through the planner's internal ``Scenario``, so every rule the
planner had still holds) and is handed to :func:`labelvar.design.plan_study`.
"""

from __future__ import annotations

import dataclasses

from labelvar._base._defaults import CONFIDENCE_LEVEL
from labelvar.design._scenario import Scenario

#: the fields every question shares
COMMON = ("theta", "n_labels", "m", "tie_rule", "min_agreement", "power")


@dataclasses.dataclass(frozen=True)
class _Question:
    """What the three questions share: the fields of :data:`COMMON`, the scenario, the text."""

    question = ""
    theta: object = 0.8
    n_labels: int = 2
    m: object = None
    tie_rule: str = "random"
    min_agreement: float = 0.0
    power: float = 0.8

    def __post_init__(self):
        # checked on creation, with the planner's own rules (and its messages)
        object.__setattr__(self, "_checked", self.scenario())

    def scenario(self, *, cost_per_item: float = 0.0, cost_per_annotation: float = 1.0) -> Scenario:
        """The planner's internal scenario of this question, with the plan's costs."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        if "accuracy" in fields:
            fields["accuracy_a"] = fields.pop("accuracy")
        return Scenario(self.question, **fields, cost_per_item=cost_per_item,
                        cost_per_annotation=cost_per_annotation)

    def describe(self) -> str:
        """Two lines: the question, then its test, level, target and θ."""
        return self._checked.describe()

    def to_dict(self) -> dict:
        """The question as plain data (``question`` names its class; θ as its text spec)."""
        d = self._checked.to_dict()
        return {"question": self.question,
                **{f.name: d["accuracy_a" if f.name == "accuracy" else f.name]
                   for f in dataclasses.fields(self)}}


@dataclasses.dataclass(frozen=True)
class Separability(_Question):
    """Tell a labeller from a weak one: a one-sided exact binomial test.

    Parameters
    ----------
    theta : float, str, tuple, dict or prior object
        Item-agreement distribution (:func:`labelvar.votes.as_theta_prior`).
    n_labels : int
        Number of labels L (>= 2).
    m : float, sequence of float or None
        Class prior (only the ``prior`` baseline depends on it); None = uniform.
    tie_rule : {"random", "drop"}
        Ties in the panel's plurality: broken at random, or the item is dropped.
    min_agreement : float
        Score only items whose observed agreement is at least this (0 = all).
    power : float
        Target power.
    alpha : float
        Significance level of the test.
    baseline : {"random", "prior"}
        The weak labeller: uniform guessing, or guessing with the class prior.
    accuracy : float, optional
        The system's accuracy against the modal label; None = an expert drawn like the
        panel.

    Examples
    --------
    >>> Separability(theta=0.7).describe().splitlines()[0]
    'Separability: tell the expert from a random labeller'
    """

    question = "separability"
    alpha: float = 0.05
    baseline: str = "random"
    accuracy: float | None = None


@dataclasses.dataclass(frozen=True)
class TwoSystems(_Question):
    """Tell system A (accuracy ``accuracy_b + delta``) from system B (``accuracy_b``).

    Parameters
    ----------
    theta, n_labels, m, tie_rule, min_agreement, power
        As for :class:`Separability`.
    alpha : float
        Two-sided significance level.
    accuracy_b, delta : float
        B's accuracy against the modal label, and A's lead over it (required).
    error_correlation : float
        Phi coefficient of A's and B's modal-label correctness.
    test : {"paired", "unpaired"}
        Exact McNemar on the same items, or the pooled two-proportion z-test on separate
        item sets of N each.
    metric : {"accuracy", "f1"}
        The score whose difference is tested (F1: L = 2, a Wald z-test).

    Examples
    --------
    >>> TwoSystems(theta=0.9, accuracy_b=0.8, delta=0.1).describe().splitlines()[0]
    'Two systems: detect an accuracy gain of 0.1 (0.9 vs 0.8, error correlation 0)'
    """

    question = "two_systems"
    alpha: float = 0.05
    accuracy_b: float | None = None
    delta: float | None = None
    error_correlation: float = 0.0
    test: str = "paired"
    metric: str = "accuracy"


@dataclasses.dataclass(frozen=True)
class Precision(_Question):
    """Pin a labeller's accuracy down: a Wilson interval no wider than ``half_width``.

    Parameters
    ----------
    theta, n_labels, m, tie_rule, min_agreement
        As for :class:`Separability`.
    power : float
        Target assurance: the probability that the interval is narrow enough.
    half_width : float
        Target half-width of the interval, in (0, 0.5] (required).
    confidence_level : float
        Of the Wilson interval.
    accuracy : float, optional
        The system's accuracy against the modal label; None = an expert drawn like the
        panel.

    Examples
    --------
    >>> Precision(theta=0.9, half_width=0.05).describe().splitlines()[0]
    'Precision: Wilson interval of the score within ±0.05'
    """

    question = "precision"
    half_width: float | None = None
    confidence_level: float = CONFIDENCE_LEVEL
    accuracy: float | None = None


#: question name -> its class (the command line's ``--question``, a config's ``question:``)
QUESTIONS = {"separability": Separability, "two_systems": TwoSystems, "precision": Precision}


def question_from(settings: dict):
    """The question object of plain settings (a config block, flags): ``question`` picks the class.

    A setting the question does not take is refused naming it and the question.

    Examples
    --------
    >>> question_from({"question": "precision", "theta": 0.9, "half_width": 0.05})
    Precision(theta=0.9, n_labels=2, m=None, tie_rule='random', min_agreement=0.0, \
power=0.8, half_width=0.05, confidence_level=0.95, accuracy=None)
    >>> question_from({"question": "separability", "delta": 0.1})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: delta is not a setting of question separability; its settings: theta, ...
    """
    settings = dict(settings)
    name = settings.pop("question", "separability")
    if name not in QUESTIONS:
        raise ValueError(f"question must be one of {', '.join(map(repr, QUESTIONS))}; "
                         f"got {name!r}")
    cls = QUESTIONS[name]
    if "accuracy_a" in settings:  # the command line's --accuracy-a
        settings["accuracy"] = settings.pop("accuracy_a")
    names = [f.name for f in dataclasses.fields(cls)]
    extra = [key for key in settings if key not in names]
    if extra:
        # the planner's own message where it has one (precision has no alpha, ...)
        plain = {("accuracy_a" if k == "accuracy" else k): v for k, v in settings.items()}
        Scenario(name, **plain)
        shown = "accuracy_a" if extra[0] == "accuracy" else extra[0]
        raise ValueError(f"{shown} is not a setting of question {name}; its settings: "
                         f"{', '.join(names)}")
    return cls(**settings)
