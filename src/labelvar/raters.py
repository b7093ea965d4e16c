"""Rater models: the public path of :mod:`labelvar.votes.raters`.

Importing ``labelvar.raters`` gives the very module object ``labelvar.votes.raters`` (same
functions, classes and private helpers), so code written for the flat layout keeps
working; the code lives in ``src/labelvar/votes/``.
"""

import sys as _sys

from labelvar.votes import raters as _module
from labelvar.votes.raters import *  # noqa: F401,F403 (what static tools see)

_sys.modules[__name__] = _module
