"""What a score is: chance-corrected agreement and the LeWiDi distribution scores.

(The ``surface`` engineer is moving ``_base/_metrics.py`` here at the same time; the lead
merges the two faces.)
"""

from labelvar.metrics._agreement import COEFFICIENTS
from labelvar.metrics._coefficient import AgreementResult, agreement_coefficient

__all__ = ["COEFFICIENTS", "AgreementResult", "agreement_coefficient"]
