"""Is the AI as good as the readers? Multi-reader multi-case (MRMC) reader studies.

This part answers the reader-study question: Obuchowski-Rockette and
Dorfman-Berbaum-Metz analyses of readers x cases x modalities, a standalone AI against a
panel of readers, and a truth that is itself a majority of readers (with its
uncertainty). It may import evaluation and everything below it, never the judge test
(``labelvar.judge``), planning, figures or the command line.
"""

from labelvar.readers._inputs import TruthPanel
from labelvar.readers._mrmc import DBM, MRMCResult
from labelvar.readers._sizing import MRMCPower, Sizing, StandalonePower
from labelvar.readers._standalone import StandaloneResult

# labelvar.mrmc and labelvar.standalone_vs_readers are top-level names (their one public path)
__all__ = ["DBM", "MRMCPower", "MRMCResult", "Sizing", "StandalonePower", "StandaloneResult", "TruthPanel"]
