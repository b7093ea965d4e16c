"""Tests per bin: the public path of :mod:`labelvar.evaluation.inference`.

Importing ``labelvar.inference`` gives the very module object ``labelvar.evaluation.inference`` (same
functions, classes and private helpers), so code written for the flat layout keeps
working; the code lives in ``src/labelvar/evaluation/``.
"""

import sys as _sys

from labelvar.evaluation import inference as _module
from labelvar.evaluation.inference import *  # noqa: F401,F403 (what static tools see)

_sys.modules[__name__] = _module
