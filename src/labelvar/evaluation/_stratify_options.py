"""What :func:`labelvar.stratify` is asked, as small objects instead of flags.

- :class:`Labels`: the label set and how it is read (its positive class, ordinal or not);
- :class:`Truth`: the ground truth (the panel's plurality or the Dawid-Skene mode) and
  its tie rule;
- :class:`Intervals`: how the intervals and tests are made (bootstrap resamples,
  confidence level, whether the raters are resampled too, the smallest tested bin);
- :class:`Paper`: the paper's reproduction knobs (the simulated human H', p_d at
  unanimity, rounding the humans' scores).

Each is frozen and checked on creation, so a bad value is refused before any work.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from labelvar._base import _validate as v
from labelvar._base._defaults import CONFIDENCE_LEVEL
from labelvar.evaluation._tables import MIN_BIN_SIZE

#: tie rules of :func:`stratify` (the one set: ``random``, ``lowest``, ``first_vote``, ``drop``)
TIE_RULES = ("random", "lowest", "first_vote", "drop")
#: ground truth: the panel's plurality or the Dawid-Skene posterior mode
AGGREGATIONS = ("majority", "dawid_skene")
#: most bootstrap resamples (``n_resamples``): the percentile interval's Monte Carlo
#: error at 1e6 is far below any bin's sampling error; more only costs time
MAX_RESAMPLES = 1_000_000
#: most H' draws (``Paper.replicates``; the paper uses 5)
MAX_DRAWS = 10_000


@dataclass(frozen=True)
class Labels:
    """The declared label set, its positive class and whether it is an ordinal scale.

    Parameters
    ----------
    values : sequence, optional
        The labels in order (default: inferred from the panel); see
        :func:`labelvar.stratify`'s ``labels``.
    pos_label : label, optional
        Positive class for F1 (binary; for more labels, F1 of that class one-vs-rest).
        Default: 1 for 0/1 labels; macro-F1 over the labels for more than 2.
    ordinal : bool
        The labels are ordered numeric ratings (e.g. 1-5): adds the ordinal metrics and
        ordinal and interval Krippendorff alpha; ``values`` must then be in order.

    Examples
    --------
    >>> Labels([1, 2, 3, 4, 5], ordinal=True)
    Labels(values=(1, 2, 3, 4, 5), pos_label=None, ordinal=True)
    """

    values: Sequence | None = None
    pos_label: object = None
    ordinal: bool = False

    def __post_init__(self):
        if self.values is not None and not isinstance(self.values, str):
            if isinstance(self.values, (int, float, bool, dict)) or not hasattr(self.values,
                                                                                 "__iter__"):
                hint = " (a map old -> new is recode=...)" if isinstance(self.values, dict) else ""
                raise ValueError(f"labels: give a list of labels, e.g. labels=[0, 1], got "
                                 f"{type(self.values).__name__} {self.values!r}{hint}")
            object.__setattr__(self, "values", tuple(self.values))
            odd = next((x for x in self.values if isinstance(x, (list, tuple, dict, set))), None)
            if odd is not None:
                raise ValueError(f"labels: {odd!r} is no label; a label is text, a number or a "
                                 "boolean")
        if self.values is not None and not (
                [x for x in self.values.split(",") if x.strip()]
                if isinstance(self.values, str) else self.values):
            raise ValueError("labels: the declared label set is empty; name at least one label "
                             "(or leave labels out to infer them from the votes)")
        if not isinstance(self.ordinal, bool):
            raise ValueError(f"ordinal must be True or False, got {self.ordinal!r}")


@dataclass(frozen=True)
class Truth:
    """The ground truth each rater is scored against.

    Parameters
    ----------
    aggregation : {"majority", "dawid_skene"}
        The panel's plurality label (default), or the mode of the Dawid-Skene posterior
        (:func:`labelvar.evaluation._agreement.dawid_skene`; needs one column per rater;
        items are then binned by the posterior probability of their label).
    tie_rule : {"random", "lowest", "first_vote", "drop"}
        Majority label when several labels share the top count: one at random (seeded;
        default), the lowest in label order, the tied label voted first in rater order
        (the paper's code), or drop the item (the paper's Table 5).

    Examples
    --------
    >>> Truth(tie_rule="drop")
    Truth(aggregation='majority', tie_rule='drop')
    >>> Truth(tie_rule="first")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: tie_rule: 'first' is ambiguous; say 'lowest' (...) or 'first_vote' (...)
    """

    aggregation: str = "majority"
    tie_rule: str = "random"

    def __post_init__(self):
        if self.tie_rule == "first":
            raise ValueError("tie_rule: 'first' is ambiguous; say 'lowest' (the lowest label "
                             "code, what 'first' meant before) or 'first_vote' (the tied label "
                             "voted first in rater order, the paper's rule)")
        v.choice("tie_rule", self.tie_rule, TIE_RULES)
        v.choice("aggregation", self.aggregation, AGGREGATIONS)
        if self.aggregation == "dawid_skene" and self.tie_rule in ("lowest", "first_vote"):
            raise ValueError(f"tie_rule={self.tie_rule!r} has no effect with "
                             "aggregation='dawid_skene' (its posterior mode breaks no tie; "
                             "only tie_rule='drop' acts: it drops the panel's tied items); "
                             "use 'random' (the default) or 'drop'")


@dataclass(frozen=True)
class Intervals:
    """How the intervals and tests of :func:`labelvar.stratify` are made.

    Parameters
    ----------
    n_resamples : int
        Bootstrap resamples (0: no bootstrap, so no F1 intervals and no bootstrap
        p-values), at most :data:`MAX_RESAMPLES`. Accuracy gets a Wilson interval
        unless ``resample_raters``.
    confidence_level : float
        Of every interval, in (0, 1).
    resample_raters : bool
        Bootstrap over raters too: every interval becomes a percentile bootstrap whose
        replicates resample the bin's items and redraw each item's panel votes from its
        own votes, recomputing the majority (the ground truth's own uncertainty).
    min_bin_size : int
        Bins with fewer items are flagged ``small_bin`` and enter no test.

    Examples
    --------
    >>> Intervals(n_resamples=0)
    Intervals(n_resamples=0, confidence_level=0.95, resample_raters=False, min_bin_size=10)
    """

    n_resamples: int = 1000
    confidence_level: float = CONFIDENCE_LEVEL
    resample_raters: bool = False
    min_bin_size: int = MIN_BIN_SIZE

    def __post_init__(self):
        object.__setattr__(self, "n_resamples", int(v.single("n_resamples", v.integer(
            "n_resamples", self.n_resamples, lo=0, hi=MAX_RESAMPLES))))
        object.__setattr__(self, "confidence_level", float(v.single(
            "confidence_level", v.probability("confidence_level", self.confidence_level,
                                              open_lo=True, open_hi=True))))
        object.__setattr__(self, "min_bin_size", int(v.single("min_bin_size", v.integer(
            "min_bin_size", self.min_bin_size, lo=1))))
        if not isinstance(self.resample_raters, bool):
            raise ValueError(f"resample_raters must be True or False, got "
                             f"{self.resample_raters!r}")
        if self.resample_raters and self.n_resamples == 0:
            raise ValueError("resample_raters needs bootstrap resamples (n_resamples >= 1); "
                             "with n_resamples=0 there is no bootstrap to resample raters in")


@dataclass(frozen=True)
class Paper:
    """The paper's reproduction knobs: the simulated human H', p_d at unanimity, rounding.

    Parameters
    ----------
    replicates : int, optional
        H' draws (the paper uses 5): for every item one of the panel's own votes is
        drawn and compared with the panel's majority, averaged over the draws (``sd``
        over draws); 0 for none, at most :data:`MAX_DRAWS`. Default None: 5 when there
        is nothing else to score (no systems, no humans), else 0.
    leave_one_out : bool
        With H' drawn, also ``H'-loo`` (the drawn vote removed from the majority it is
        compared with), the reference of ``delta_human`` without humans (default
        True); False: the self-inclusive ``H'`` alone, as in the paper's Table 4.
    p_d_one : float, optional
        Coin-model :math:`p_d` used for ``expected`` where the observed agreement is 1
        (the paper's Table 3 uses 0.97). Default None: 1.
    human_round : int, optional
        Round each human's score to this many decimals before the H mean and sd (the
        paper's Table 3: 2). Default None: exact scores.

    Examples
    --------
    >>> Paper(p_d_one=0.97, human_round=2)
    Paper(replicates=None, leave_one_out=True, p_d_one=0.97, human_round=2)
    """

    replicates: int | None = None
    leave_one_out: bool = True
    p_d_one: float | None = None
    human_round: int | None = None

    def __post_init__(self):
        if self.replicates is not None:
            object.__setattr__(self, "replicates", int(v.single("replicates", v.integer(
                "replicates", self.replicates, lo=0, hi=MAX_DRAWS))))
        if self.p_d_one is not None:
            object.__setattr__(self, "p_d_one", float(v.single(
                "p_d_one", v.probability("p_d_one", self.p_d_one))))
        if self.human_round is not None:
            object.__setattr__(self, "human_round", int(v.single("human_round", v.integer(
                "human_round", self.human_round, lo=0))))
        if not isinstance(self.leave_one_out, bool):
            raise ValueError(f"leave_one_out must be True or False, got {self.leave_one_out!r}")


def as_option(value, cls, name: str):
    """``value`` as a ``cls`` (None: the defaults); anything else refused naming ``name``."""
    if value is None:
        return cls()
    if not isinstance(value, cls):
        raise ValueError(f"{name} must be a labelvar.evaluation.{cls.__name__}(...) or None, "
                         f"got {type(value).__name__}")
    return value
