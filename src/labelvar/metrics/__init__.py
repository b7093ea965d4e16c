"""What a score is: chance-corrected agreement and the LeWiDi 2025 distribution scores.

(The ``surface`` engineer is moving ``_base/_metrics.py`` here at the same time; the lead
merges the two faces.)
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

__all__ = ["COEFFICIENTS", "AgreementResult", "agreement_coefficient", "agreement_table",
           "error_rate", "manhattan_distance", "mean_absolute_distance", "multilabel_error_rate",
           "multilabel_manhattan_distance", "score_references", "wasserstein_distance"]
