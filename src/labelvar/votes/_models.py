"""Labellers for :func:`labelvar.simulate`, as small frozen dataclasses.

Every object is validated on creation (``ValueError`` naming the field).

Labellers (each has a ``name``, the value of the ``labeller`` column; names
must be unique within one call):

- :class:`Expert` -- one more annotator drawn like the panel: coin mode, the
  true label with probability p_d, else a uniformly chosen other label; panel
  mode, the item's modal label with probability theta (the item's agreement
  level), else a uniformly chosen other label.
- :class:`Random` -- uniform over the L labels.
- :class:`Prior` -- predicts class c with its prior frequency (independently of
  the item).
- :class:`Constant` -- always the same label.
- :class:`Model` -- a model with accuracy q against the modal label (wrong
  answers uniform over the other labels), or, for L = 2, a given sensitivity and
  specificity against the modal label; :class:`CorrelatedModel` adds errors
  that follow the items' difficulty.
- :class:`ModelPair` -- two models (two labeller columns) whose modal-label
  correctness indicators have a given phi coefficient (correlated errors),
  e.g. two systems compared on the same items; :func:`correlation_bounds` is
  the feasible range of that coefficient.

The per-item agreement priors (panel mode) live in :mod:`labelvar.votes`.

Examples
--------
>>> from labelvar import Model, Constant
>>> Model(accuracy=0.8, name="A").matrix(2, [0.5, 0.5], 0.9).round(2).tolist()
[[0.8, 0.2], [0.2, 0.8]]
>>> Constant(label=1).matrix(3, [0.2, 0.4, 0.4], 0.9).tolist()[0]
[0.0, 1.0, 0.0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from labelvar._base import _validate as v

__all__ = ["LABELLERS", "Constant", "CorrelatedModel", "Expert", "Labeller", "Model", "ModelPair",
           "Prior", "Random", "as_labellers", "correlation_bounds", "labeller_columns"]


def _check_name(name) -> None:
    if not isinstance(name, str) or not name:
        raise ValueError(f"labeller name must be a non-empty string, got {v._short(name)}")


def _symmetric(n_labels: int, q) -> np.ndarray:
    """P(pred = h | modal = c): q on the diagonal, (1 - q) / (L - 1) elsewhere.

    ``q`` may be an array (e.g. theta nodes); the result then has shape q.shape + (L, L).
    """
    q = np.asarray(q, dtype=float)[..., None, None]
    eye = np.eye(n_labels)
    return eye * q + (1.0 - eye) * (1.0 - q) / (n_labels - 1)


class Labeller:
    """The extension point of the labellers: subclass it, give a ``name`` and a ``matrix``.

    The engine asks a labeller only for what is here, never for its class:

    - ``matrix(n_labels, class_prior, theta)``: P(prediction = h | modal label = c,
      the item's agreement θ) as an (..., L, L) array (``theta`` may be an array of
      nodes; the result then has shape ``theta.shape + (L, L)``); under a coin model the
      modal label is the item's class and θ is ``p_d``;
    - ``own_matrix(n_labels, class_prior)``: its answers on the items it does not answer
      like an annotator, (L, L) (default: ``matrix`` at θ = 0.5, for labellers whose
      answers do not depend on θ);
    - ``annotator`` (class attribute, default False): True when it is one more annotator
      of each item (the engine draws it per item with that item's θ, or from the item's
      label distribution π under an item model), as :class:`Expert`;
    - ``correlation`` (default 0): the share of items it answers like one more
      annotator and otherwise with ``own_matrix`` (:class:`CorrelatedModel`);
    - ``uses_class_prior`` (default False): its answers depend on ``class_prior``
      (:class:`Prior`), which an item model then computes exactly.

    Examples
    --------
    A labeller that answers label 1 with probability 0.3 whatever the item:

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Lean(Labeller):
    ...     name: str = "lean"
    ...     def matrix(self, n_labels, class_prior, theta):
    ...         return np.broadcast_to([0.7, 0.3], np.shape(theta) + (2, 2)).copy()
    >>> Lean().own_matrix(2, [0.5, 0.5]).tolist()
    [[0.7, 0.3], [0.7, 0.3]]
    """

    name: str
    annotator = False
    correlation = 0.0
    uses_class_prior = False

    def matrix(self, n_labels, class_prior, theta):  # pragma: no cover - the protocol
        """P(prediction = h | modal label = c, theta) as an (..., L, L) array."""
        raise NotImplementedError(f"{type(self).__name__} must define matrix()")

    def own_matrix(self, n_labels, class_prior=None):
        """P(prediction = h | modal label = c) on the items not answered as an annotator."""
        if class_prior is None:
            class_prior = np.full(n_labels, 1.0 / n_labels)
        return np.asarray(self.matrix(n_labels, class_prior, 0.5))


@dataclass(frozen=True)
class Expert(Labeller):
    """One more annotator drawn like the panel (coin mode: agrees with the truth w.p. p_d).

    Parameters
    ----------
    name : str
        The labeller's name in the results (default ``"expert"``).

    Examples
    --------
    >>> Expert().matrix(2, [0.5, 0.5], 0.7).tolist()
    [[0.7, 0.30000000000000004], [0.30000000000000004, 0.7]]
    """

    name: str = "expert"
    annotator = True

    def __post_init__(self):
        _check_name(self.name)

    def matrix(self, n_labels, class_prior, theta):
        """P(prediction = h | modal label = c, theta) as an (..., L, L) array."""
        return _symmetric(n_labels, theta)


@dataclass(frozen=True)
class Random(Labeller):
    """Uniform over the L labels.

    Parameters
    ----------
    name : str
        The labeller's name in the results (default ``"random"``).

    Examples
    --------
    >>> Random().matrix(4, [0.25] * 4, 0.9)[0].tolist()
    [0.25, 0.25, 0.25, 0.25]
    """

    name: str = "random"

    def __post_init__(self):
        _check_name(self.name)

    def matrix(self, n_labels, class_prior, theta):
        """P(prediction = h | modal label = c) as an (..., L, L) array."""
        shape = np.shape(theta) + (n_labels, n_labels)
        return np.full(shape, 1.0 / n_labels)


@dataclass(frozen=True)
class Prior(Labeller):
    """Predicts each class with its prior frequency, independently of the item.

    Parameters
    ----------
    name : str
        The labeller's name in the results (default ``"prior"``).

    Examples
    --------
    >>> Prior().matrix(2, [0.9, 0.1], 0.9)[1].tolist()
    [0.9, 0.1]
    """

    name: str = "prior"
    uses_class_prior = True

    def __post_init__(self):
        _check_name(self.name)

    def matrix(self, n_labels, class_prior, theta):
        """P(prediction = h | modal label = c) as an (..., L, L) array."""
        prior = np.asarray(class_prior, dtype=float)
        shape = np.shape(theta) + (n_labels, n_labels)
        return np.broadcast_to(prior, shape).copy()


@dataclass(frozen=True)
class Constant(Labeller):
    """Always predicts ``label`` (default 1, the positive class).

    Parameters
    ----------
    label : int
        The label it always predicts, in [0, L - 1] (default 1).
    name : str
        The labeller's name in the results (default ``"constant"``).

    Examples
    --------
    >>> Constant(label=0, name="always0").matrix(2, [0.5, 0.5], 0.9)[1].tolist()
    [1.0, 0.0]
    """

    label: int = 1
    name: str = "constant"

    def __post_init__(self):
        _check_name(self.name)
        label = v.single("Constant.label", v.integer("Constant.label", self.label, lo=0))
        object.__setattr__(self, "label", label)

    def matrix(self, n_labels, class_prior, theta):
        """P(prediction = h | modal label = c) as an (..., L, L) array."""
        if self.label >= n_labels:
            raise ValueError(f"Constant.label must be in [0, n_labels - 1] = [0, {n_labels - 1}]"
                             f", got {self.label}")
        shape = np.shape(theta) + (n_labels, n_labels)
        out = np.zeros(shape)
        out[..., self.label] = 1.0
        return out


@dataclass(frozen=True)
class Model(Labeller):
    """A model scored against the modal label.

    Give either ``accuracy`` (probability of returning the modal label; wrong
    answers uniform over the other labels; any L), or ``sensitivity`` and
    ``specificity`` (L = 2 only: P(predict 1 | modal 1) and P(predict 0 | modal 0)).
    With neither, ``accuracy=0.8`` (what the plain string ``"model"`` means).
    Errors are independent of the panel and of the other labellers given the
    item's modal label (see :class:`CorrelatedModel` for errors that follow
    the items' difficulty).

    Parameters
    ----------
    accuracy : float or None
        P(the model returns the modal label), in [0, 1]; its wrong answers are uniform over
        the other labels.
    sensitivity, specificity : float or None
        P(predict 1 | modal 1) and P(predict 0 | modal 0), in [0, 1] (L = 2; both or neither,
        not with ``accuracy``).
    name : str
        The labeller's name in the results (default ``"model"``).

    Examples
    --------
    >>> Model(sensitivity=0.9, specificity=0.7, name="B").matrix(2, [0.5, 0.5], 1.0).tolist()
    [[0.7, 0.30000000000000004], [0.09999999999999998, 0.9]]
    """

    accuracy: float | None = None
    sensitivity: float | None = None
    specificity: float | None = None
    name: str = "model"

    def __post_init__(self):
        _check_name(self.name)
        two_coin = (self.sensitivity is not None, self.specificity is not None)
        if any(two_coin) and not all(two_coin):
            raise ValueError("Model needs both sensitivity and specificity, or neither")
        if all(two_coin) and self.accuracy is not None:
            raise ValueError("Model takes accuracy or (sensitivity, specificity), not both")
        if self.accuracy is None and not any(two_coin):
            object.__setattr__(self, "accuracy", 0.8)
        for fld in ("accuracy", "sensitivity", "specificity"):
            value = getattr(self, fld)
            if value is not None:
                value = v.single(f"Model.{fld}", v.probability(f"Model.{fld}", value))
                object.__setattr__(self, fld, value)

    def own_matrix(self, n_labels, class_prior=None):
        """P(prediction = h | modal label = c) of the model's own answers, (L, L)."""
        if self.accuracy is not None:
            return _symmetric(n_labels, self.accuracy)
        if n_labels != 2:
            raise ValueError(f"Model {self.name!r} with sensitivity/specificity needs "
                             f"n_labels = 2, got {n_labels}")
        return np.array([[self.specificity, 1.0 - self.specificity],
                         [1.0 - self.sensitivity, self.sensitivity]])

    def matrix(self, n_labels, class_prior, theta):
        """P(prediction = h | modal label = c, theta) as an (..., L, L) array."""
        shape = np.shape(theta) + (n_labels, n_labels)
        own = np.broadcast_to(self.own_matrix(n_labels), shape)
        rho = self.correlation
        if rho == 0.0:
            return own.copy()
        return rho * _symmetric(n_labels, theta) + (1.0 - rho) * own


@dataclass(frozen=True)
class CorrelatedModel(Model):
    """A :class:`Model` whose errors follow the items' difficulty.

    ``correlation`` (rho in [0, 1]): on a random share rho of the items the
    model answers like one more annotator of that item (the modal label with
    probability theta_item, as the expert does), on the others with its own
    accuracy (or sensitivity/specificity). With theta drawn per item
    (``theta_prior``) its errors then concentrate on the items the panel
    disagrees on; with a fixed theta this only makes its agreement with the
    modal label rho theta + (1 - rho) q. rho = 0 is a plain :class:`Model`.

    Parameters
    ----------
    accuracy, sensitivity, specificity, name
        As for :class:`Model`.
    correlation : float
        rho in [0, 1], the share of items on which it answers like one more annotator
        (default 0: a plain :class:`Model`).

    Examples
    --------
    >>> m = CorrelatedModel(accuracy=0.9, correlation=0.5, name="C")
    >>> m.matrix(2, [0.5, 0.5], 0.6)[0].round(2).tolist()
    [0.75, 0.25]
    """

    correlation: float = 0.0

    def __post_init__(self):
        super().__post_init__()
        rho = v.probability("CorrelatedModel.correlation", self.correlation)
        object.__setattr__(self, "correlation", v.single("CorrelatedModel.correlation", rho))


def correlation_bounds(accuracy_a: float, accuracy_b: float) -> tuple[float, float]:
    """Feasible range of the phi coefficient of two correctness indicators (Frechet bounds).

    With P(A correct) = qa and P(B correct) = qb, P(both correct) = p11 lies in
    [max(0, qa + qb - 1), min(qa, qb)], and phi = (p11 - qa qb) / sqrt(qa (1 - qa)
    qb (1 - qb)); (0, 0) when either accuracy is 0 or 1.

    Examples
    --------
    >>> [round(x, 4) for x in correlation_bounds(0.8, 0.7)]
    [-0.3273, 0.7638]
    """
    qa = v.single("accuracy_a", v.probability("accuracy_a", accuracy_a))
    qb = v.single("accuracy_b", v.probability("accuracy_b", accuracy_b))
    s = math.sqrt(qa * (1 - qa) * qb * (1 - qb))
    if s == 0:
        return 0.0, 0.0
    return (max(0.0, qa + qb - 1) - qa * qb) / s, (min(qa, qb) - qa * qb) / s


@dataclass(frozen=True)
class ModelPair:
    """Two models with correlated errors: two labeller columns named by ``names``.

    Each picks the item's modal label with its accuracy (``accuracy_a``,
    ``accuracy_b``); the phi coefficient of the two correctness indicators is
    ``error_correlation``, i.e. P(both pick the modal label) =
    qa qb + phi sqrt(qa (1 - qa) qb (1 - qb)), within :func:`correlation_bounds`;
    a model that is wrong picks a uniformly chosen other label, independently of
    the other model. Each member alone is ``Model(accuracy=q)`` (:attr:`members`).
    :func:`labelvar.simulate` draws a pair on the collapsed path (the explicit
    path refuses it).

    Examples
    --------
    >>> pair = ModelPair(0.8, 0.7, error_correlation=0.3)
    >>> round(pair.p_both_correct, 4)
    0.615
    >>> pair.joint_matrix(2)[0].round(4).tolist()  # P(A, B | modal label 0)
    [[0.615, 0.185], [0.085, 0.115]]
    >>> [m.name for m in pair.members]
    ['A', 'B']
    """

    accuracy_a: float
    accuracy_b: float
    error_correlation: float = 0.0
    names: tuple = ("A", "B")

    def __post_init__(self):
        for fld in ("accuracy_a", "accuracy_b"):
            value = v.probability(f"ModelPair.{fld}", getattr(self, fld))
            object.__setattr__(self, fld, v.single(f"ModelPair.{fld}", value))
        names = tuple(self.names) if isinstance(self.names, (tuple, list)) else (self.names,)
        if len(names) != 2 or names[0] == names[1]:
            raise ValueError(f"ModelPair.names must be two different names, got "
                             f"{v._short(self.names)}")
        for name in names:
            _check_name(name)
        object.__setattr__(self, "names", names)
        rho = v.single("ModelPair.error_correlation",
                       v.as_float_array("ModelPair.error_correlation", self.error_correlation))
        lo, hi = correlation_bounds(self.accuracy_a, self.accuracy_b)
        if not lo - 1e-12 <= rho <= hi + 1e-12:
            raise ValueError(f"ModelPair.error_correlation must be in [{lo:.4g}, {hi:.4g}] for "
                             f"accuracies {self.accuracy_a:g} and {self.accuracy_b:g} (Frechet "
                             f"bounds), got {rho:g}")
        object.__setattr__(self, "error_correlation", rho)

    @property
    def members(self) -> tuple:
        """The two marginal models, ``Model(accuracy=q, name=...)``."""
        return (Model(accuracy=self.accuracy_a, name=self.names[0]),
                Model(accuracy=self.accuracy_b, name=self.names[1]))

    @property
    def p_both_correct(self) -> float:
        """P(both pick the modal label) = qa qb + phi sqrt(qa (1 - qa) qb (1 - qb))."""
        qa, qb = self.accuracy_a, self.accuracy_b
        p11 = qa * qb + self.error_correlation * math.sqrt(qa * (1 - qa) * qb * (1 - qb))
        return min(max(p11, max(0.0, qa + qb - 1.0)), min(qa, qb))  # rounding only

    def joint_matrix(self, n_labels) -> np.ndarray:
        """P(A predicts a, B predicts b | modal label c) as an (L, L, L) array [c, a, b]."""
        lab = int(n_labels)
        qa, qb, p11 = self.accuracy_a, self.accuracy_b, self.p_both_correct
        k = lab - 1
        out = np.empty((lab, lab, lab))
        for c in range(lab):
            right_a = np.arange(lab) == c
            both = np.outer(right_a, right_a)
            only_a = np.outer(right_a, ~right_a)
            only_b = np.outer(~right_a, right_a)
            out[c] = (both * p11 + only_a * (qa - p11) / k + only_b * (qb - p11) / k
                      + np.outer(~right_a, ~right_a) * (1.0 - qa - qb + p11) / (k * k))
        return np.clip(out, 0.0, 1.0)


LABELLERS = {"expert": Expert, "random": Random, "prior": Prior, "constant": Constant,
             "model": Model}


def as_labellers(labellers) -> tuple:
    """Turn strings / labeller objects into a tuple of labeller objects with unique names.

    A :class:`ModelPair` stays one object here (two names); :func:`labeller_columns`
    expands it into its two columns.

    Examples
    --------
    >>> [lab.name for lab in as_labellers(("expert", Model(accuracy=0.7, name="A")))]
    ['expert', 'A']
    """
    if (isinstance(labellers, str) or not hasattr(labellers, "__iter__")
            or (isinstance(labellers, np.ndarray) and labellers.ndim == 0)):
        labellers = (labellers,)
    out = []
    for lab in labellers:
        if isinstance(lab, str):
            if lab not in LABELLERS:
                raise ValueError(f"labellers must be one of {', '.join(map(repr, LABELLERS))} "
                                 f"or labeller objects (labelvar.votes); got "
                                 f"{v._short(lab)}")
            lab = LABELLERS[lab]()
        elif not isinstance(lab, (Labeller, ModelPair)):
            raise ValueError(f"labellers must be strings or labeller objects (subclasses of "
                             f"labelvar.votes.Labeller, or a ModelPair); got "
                             f"{v._short(lab)}")
        out.append(lab)
    if not out:
        raise ValueError("labellers must name at least one labeller")
    names = [lab.name for lab in labeller_columns(out)[0]]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"labellers must have unique names; repeated: {', '.join(dup)}")
    return tuple(out)


def labeller_columns(labellers) -> tuple[tuple, tuple]:
    """One labeller per output column, and where the pairs are.

    Returns ``(columns, pairs)``: ``columns`` has a :class:`ModelPair` replaced by
    its two :attr:`ModelPair.members` (adjacent columns), ``pairs`` one
    ``(j_a, j_b, pair)`` per pair (column indices).

    Examples
    --------
    >>> cols, pairs = labeller_columns((Expert(), ModelPair(0.8, 0.7, names=("X", "Y"))))
    >>> [c.name for c in cols], [(a, b) for a, b, _ in pairs]
    (['expert', 'X', 'Y'], [(1, 2)])
    """
    cols, pairs = [], []
    for lab in labellers:
        if isinstance(lab, ModelPair):
            pairs.append((len(cols), len(cols) + 1, lab))
            cols.extend(lab.members)
        else:
            cols.append(lab)
    return tuple(cols), tuple(pairs)
