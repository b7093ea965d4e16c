"""Typed sweep configs: the public path of :mod:`labelvar.sweep.config`.

Importing ``labelvar.config`` gives the very module object ``labelvar.sweep.config`` (same
functions, classes and private helpers), so code written for the flat layout keeps
working; the code lives in ``src/labelvar/sweep/``.
"""

import sys as _sys

from labelvar.sweep import config as _module
from labelvar.sweep.config import *  # noqa: F401,F403 (what static tools see)

_sys.modules[__name__] = _module
