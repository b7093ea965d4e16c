"""Pilot fits and agreement predictions: the public path of :mod:`labelvar.votes.pilot`.

Importing ``labelvar.pilot`` gives the very module object ``labelvar.votes.pilot`` (same
functions, classes and private helpers), so code written for the flat layout keeps
working; the code lives in ``src/labelvar/votes/``.
"""

import sys as _sys

from labelvar.votes import pilot as _module
from labelvar.votes.pilot import *  # noqa: F401,F403 (what static tools see)

_sys.modules[__name__] = _module
