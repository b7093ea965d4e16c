r"""Closed forms of the coin-toss paradigm and exact distributions (paper sections 2 and 2.1).

An expert agrees with the majority ("ground-truth") label of an item with probability
:math:`p_d`, independently across items. With :math:`N` items of which a fraction
:math:`m` are positive, the number of items the expert gets right is
:math:`X \sim \mathrm{Binomial}(N, p_d)`, and for the positive class
:math:`TP \sim \mathrm{Bin}(mN, p_d)`, :math:`FP \sim \mathrm{Bin}((1-m)N, 1-p_d)`. Every
function broadcasts its array arguments like ``scipy.stats``; upper tails use ``sf``.

The four expectations of an expert who matches the reference with probability p_d
(``expected_accuracy``, ``expected_precision``, ``expected_recall``, ``expected_f1``)
are top-level names of :mod:`labelvar`; this module holds the rest:

- tails on N items: :func:`prob_correct_at_least`, :func:`prob_accuracy_at_least`,
  :func:`prob_accuracy_between`, :func:`prob_correct_at_least_heterogeneous`,
  :func:`accuracy_se`; the random labeller: :func:`random_accuracy`,
  :func:`prob_random_accuracy_at_least`;
- expected counts and expectations per stratum: :func:`expected_confusion` ->
  :class:`Confusion`, :func:`stratified_expectation` -> :class:`StratifiedExpectation`,
  :func:`expectation_table`; the paper's tables: :func:`paper_table1`, :func:`paper_table2`;
- exact finite-sample distributions: :func:`exact_f1`, :func:`exact_binary_metrics` ->
  :class:`ExactBinaryMetrics` of :class:`DiscreteDistribution`,
  :class:`RatioDistribution` or :class:`QuadratureDistribution`.

The code lives in ``_closed_forms.py`` (expectations, tails, tables) and
``_distributions.py`` with its pieces. May import the foundations only.

>>> from labelvar import analytic
>>> round(float(analytic.prob_accuracy_at_least(0.9, 100, 0.95)), 4)
0.0576
"""

from labelvar.analytic._closed_forms import (
    Confusion,
    StratifiedExpectation,
    accuracy_se,
    expectation_table,
    expected_confusion,
    paper_table1,
    paper_table2,
    prob_accuracy_at_least,
    prob_accuracy_between,
    prob_correct_at_least,
    prob_correct_at_least_heterogeneous,
    prob_random_accuracy_at_least,
    random_accuracy,
    stratified_expectation,
)
from labelvar.analytic._distributions import (
    DiscreteDistribution,
    ExactBinaryMetrics,
    QuadratureDistribution,
    RatioDistribution,
    exact_binary_metrics,
    exact_f1,
)

__all__ = [
    "Confusion", "DiscreteDistribution", "ExactBinaryMetrics", "QuadratureDistribution",
    "RatioDistribution", "StratifiedExpectation", "accuracy_se", "exact_binary_metrics", "exact_f1",
    "expectation_table", "expected_confusion", "paper_table1", "paper_table2",
    "prob_accuracy_at_least", "prob_accuracy_between", "prob_correct_at_least",
    "prob_correct_at_least_heterogeneous", "prob_random_accuracy_at_least", "random_accuracy",
    "stratified_expectation",
]
