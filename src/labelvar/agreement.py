"""Agreement statistics: the public path of :mod:`labelvar.evaluation.agreement`.

Importing ``labelvar.agreement`` gives the very module object ``labelvar.evaluation.agreement`` (same
functions, classes and private helpers), so code written for the flat layout keeps
working; the code lives in ``src/labelvar/evaluation/``.
"""

import sys as _sys

from labelvar.evaluation import agreement as _module
from labelvar.evaluation.agreement import *  # noqa: F401,F403 (what static tools see)

_sys.modules[__name__] = _module
