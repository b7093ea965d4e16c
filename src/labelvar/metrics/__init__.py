"""What a score is: the one definition of every metric labelvar reports.

Label metrics from a confusion matrix ``conf[truth, pred]`` over the declared labels
(scikit-learn's conventions: ``labels=`` given, ``zero_division=0``): :func:`confusion`,
:func:`scores` (accuracy, precision, recall, F1; ``pos_label=None`` is the macro average
over all declared labels), :func:`score` (one metric from labels), :func:`kappa` (Cohen's
and the quadratic-weighted kappa); ordinal scores against the panel mean
(:func:`ordinal_scores`); probability outputs against soft labels
(:func:`probability_scores`, :func:`auroc`, :func:`auprc`). The metric names each family
reports: :data:`METRICS`, :data:`KAPPA_METRICS`, :data:`ORDINAL_METRICS`,
:data:`PROBABILITY_METRICS`.

The code lives in ``_scores.py``; the numba kernels use a twin tested equal to it. This
part sits directly above :mod:`labelvar.io` (it may import ``io`` and below) and below
the models of votes.

>>> from labelvar import metrics
>>> conf = metrics.confusion([0, 1, 1, 0], [0, 1, 0, 0], n_labels=2)
>>> round(float(metrics.scores(conf, pos_label=1)["f1"]), 4)
0.6667
"""

from labelvar.metrics._agreement import COEFFICIENTS
from labelvar.metrics._coefficient import AgreementResult, agreement_coefficient, agreement_table
from labelvar.metrics._lewidi import (
    error_rate,
    manhattan_distance,
    mean_absolute_distance,
    multilabel_error_rate,
    multilabel_manhattan_distance,
    wasserstein_distance,
)
from labelvar.metrics._score_references import score_references
from labelvar.metrics._scores import (
    KAPPA_METRICS,
    METRICS,
    ORDINAL_METRICS,
    PROBABILITY_METRICS,
    auprc,
    auroc,
    confusion,
    kappa,
    ordinal_scores,
    probability_scores,
    score,
    scores,
)

__all__ = ["COEFFICIENTS", "AgreementResult", "agreement_coefficient", "agreement_table",
           "error_rate", "manhattan_distance", "mean_absolute_distance", "multilabel_error_rate",
           "multilabel_manhattan_distance", "score_references", "wasserstein_distance",
           "KAPPA_METRICS", "METRICS", "ORDINAL_METRICS", "PROBABILITY_METRICS", "auprc", "auroc",
           "confusion", "kappa", "ordinal_scores", "probability_scores", "score", "scores"]
