"""The three ceilings: the public path of :mod:`labelvar.votes.ceilings`.

Importing ``labelvar.ceilings`` gives the very module object ``labelvar.votes.ceilings`` (same
functions, classes and private helpers), so code written for the flat layout keeps
working; the code lives in ``src/labelvar/votes/``.
"""

import sys as _sys

from labelvar.votes import ceilings as _module
from labelvar.votes.ceilings import *  # noqa: F401,F403 (what static tools see)

_sys.modules[__name__] = _module
