"""What generates the items of :func:`labelvar.engine.simulate`: one small object per model.

- :class:`Coin` -- the paper's coin model (section 3): the reference is each item's
  class; an annotator (the expert) matches it with probability ``p_d``.
- :class:`Panel` -- a voting panel: each item has a modal label and a latent agreement
  ``theta`` (fixed, or drawn per item from ``theta_prior``, which may also be an item
  model drawing a label distribution per item); ``panel_size`` annotators vote, the
  reference is their plurality (``tie_rule``), the observed agreement (top votes / K)
  makes the strata.
- :class:`RaterPanel` -- a panel drawn from a fitted or stated rater model
  (:class:`labelvar.votes._raters.RaterModel`): its raters vote, an expert is scored
  against their plurality per agreement bin.

The grid rule (one for every field): a field given as a list is an axis; the cells are
the Cartesian product of the axes in the order ``p_d`` / ``theta``, ``m``, ``n_items``,
``n_labels``, ``panel_size`` (``n_items`` is :func:`simulate`'s); a list of such
objects runs each in turn and stacks their rows.

Examples
--------
>>> Coin(p_d=[0.6, 0.9], m=0.1)
Coin(p_d=[0.6, 0.9], m=0.1, n_labels=2, class_prior=None, positives='fixed')
>>> Coin(p_d=0.9).m is None  # (0.5 unless class_prior is given)
True
>>> Panel(theta=0.8, panel_size=[3, 5]).mode
'panel'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def _plain(value):
    """A tuple or array field as a list (hashable reprs stay readable)."""
    if isinstance(value, tuple):
        return list(value)
    if hasattr(value, "tolist") and getattr(value, "ndim", 0) > 0:
        return value.tolist()
    return value


@dataclass(frozen=True)
class Coin:
    """The paper's coin model: the reference is each item's class.

    N items (:func:`labelvar.engine.simulate`'s ``n_items``) with round(m N) positives
    (``positives="fixed"``) or Bernoulli(m) classes (``"bernoulli"``); for L > 2 class 1
    has prior m and the others share 1 - m (or give ``class_prior``). The expert
    labeller matches the reference with probability ``p_d``, else answers a uniformly
    chosen other label.

    Parameters
    ----------
    p_d : float or list of float
        Probability that the expert matches the reference, in [0, 1].
    m : float or list of float, optional
        Prior of the positive class (label 1), in [0, 1] (default 0.5).
    n_labels : int or list of int
        Number of labels L (>= 2).
    class_prior : sequence of float, optional
        L > 2: the class prior, instead of ``m`` (every ``n_labels`` must equal its length;
        ``m`` is then left unset, and the tables' ``m`` column is its label-1 share).
    positives : {"fixed", "bernoulli"}
        Class counts fixed at the rounded expected counts, or drawn per item.

    Examples
    --------
    >>> Coin(p_d=0.9).mode
    'coin'
    """

    p_d: Any
    m: Any = None
    n_labels: Any = 2
    class_prior: Any = None
    positives: str = "fixed"

    mode = "coin"

    def __post_init__(self):
        for f in ("p_d", "m", "n_labels", "class_prior"):
            object.__setattr__(self, f, _plain(getattr(self, f)))


@dataclass(frozen=True)
class Panel:
    """A voting panel: its plurality is the reference, its agreement the stratum.

    Each item has a modal label (drawn like the coin model's class) and a latent
    agreement θ: ``theta`` for every item, or drawn per item from ``theta_prior``.
    K = ``panel_size`` annotators vote (the modal label with probability θ, else a
    uniformly chosen other label); the reference is their plurality (``tie_rule``)
    and the observed agreement (top votes / K) defines the strata. The expert
    labeller is one more such annotator.

    Parameters
    ----------
    theta : float or list of float, optional
        The latent agreement of every item, in [1/L, 1] (with ``skills``: the expert's
        only). Leave None when ``theta_prior`` is given.
    theta_prior : prior, item model or spelling, optional
        θ drawn per item: any spelling of :func:`labelvar.votes.as_theta_prior`
        (``"beta:4,1"``, ``("mixture", [0.6, 1], [0.3, 0.7])``, a ``BetaPrior`` ...).
        An item model (``"dirichlet:2,1,0.5"``, a ``fit_pilot(...).prior``) draws a label
        distribution π per item instead (votes ~ Multinomial(K, π), the expert one more
        draw, models against argmax π); π then defines the classes, so ``m``,
        ``class_prior`` and ``positives`` must be left unset (refused otherwise).
    panel_size : int or list of int
        Annotators per item K (>= 1).
    n_labels : int or list of int
        Number of labels L (>= 2).
    m : float or list of float, optional
        Prior of the modal label 1 (default 0.5).
    class_prior : sequence of float, optional
        L > 2: the modal-label prior instead of ``m`` (``m`` is then left unset, and the
        tables' ``m`` column is its label-1 share).
    tie_rule : {"random", "drop"} or int
        A tied plurality goes to a random tied label, drops the item, or goes to the
        given label when it is among the tied ones.
    positives : {"fixed", "bernoulli"}, optional
        Modal-label counts fixed at the rounded expected counts (default), or drawn
        per item.
    skills : sequence, optional
        A heterogeneous panel (Dawid-Skene skills), one entry per annotator
        (``panel_size`` must equal its length): an accuracy q_k, or for L = 2 a pair
        (sensitivity_k, specificity_k) against the modal label. No ``theta`` rows then.

    Examples
    --------
    >>> Panel(theta_prior="beta:2,1", panel_size=5).theta is None
    True
    """

    theta: Any = None
    theta_prior: Any = None
    panel_size: Any = 5
    n_labels: Any = 2
    m: Any = None
    class_prior: Any = None
    tie_rule: Any = "random"
    positives: str | None = None
    skills: Any = None

    mode = "panel"

    def __post_init__(self):
        for f in ("theta", "panel_size", "n_labels", "m", "class_prior", "skills"):
            object.__setattr__(self, f, _plain(getattr(self, f)))


@dataclass(frozen=True)
class RaterPanel:
    """A panel drawn from a rater model; an expert scored against its plurality.

    Per item: truth z ~ the model's class prior, a difficulty node g ~ its weights, each
    panel rater's vote from its confusion matrix at (g, z) (a rater not in the model: the
    population rater), the expert's label the same way. The panel's plurality
    (``tie_rule``) is the reference, its agreement (top votes / K) the stratum; the
    ``expected`` column is :func:`labelvar.votes._ceilings.panel_ceilings`' exact rater
    ceiling.

    Parameters
    ----------
    model : RaterModel or RaterFit
        Fitted (:func:`labelvar.fit_raters`) or stated
        (:meth:`RaterModel.from_skill <labelvar.RaterModel.from_skill>`).
    raters : sequence of rater ids, or int K, optional
        The panel (ids not in the model are population raters); an int is K population
        raters. Default: every fitted rater but the expert.
    expert : rater id, optional
        The expert: a fitted rater not in the panel, or any other id (a population
        rater). Default: the population rater.
    skill : dict or array, optional
        A stated expert instead of ``expert``: ``{"sensitivity": s, "specificity": t}``,
        ``{"accuracy": a}`` or an L x L confusion matrix (rows: truth).
    tie_rule : {"random", "drop"}
        A tied plurality goes to a random tied label, or the item is left out.

    Examples
    --------
    >>> RaterPanel(model=None, raters=3).mode
    'raters'
    """

    model: Any
    raters: Any = None
    expert: Any = None
    skill: Any = None
    tie_rule: str = "random"

    mode = "raters"


#: the item generators :func:`labelvar.engine.simulate` takes
ITEMS = (Coin, Panel, RaterPanel)


def as_items(items) -> list:
    """``items`` as a non-empty list of item generators (one object or a list of them).

    Examples
    --------
    >>> [type(x).__name__ for x in as_items([Coin(0.9), Panel(theta=0.8)])]
    ['Coin', 'Panel']
    >>> as_items("coin")
    Traceback (most recent call last):
    ...
    ValueError: items must be a Coin, Panel or RaterPanel (or a list of them), got 'coin'
    """
    objs = list(items) if isinstance(items, (list, tuple)) else [items]
    bad = [x for x in objs if not isinstance(x, ITEMS)]
    if bad or not objs:
        shown = repr(bad[0]) if bad else "an empty list"
        raise ValueError(f"items must be a Coin, Panel or RaterPanel (or a list of them), "
                         f"got {shown[:80]}")
    return objs
