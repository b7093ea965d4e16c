"""Labellers: the public path of :mod:`labelvar.votes.models`.

Importing ``labelvar.models`` gives the very module object ``labelvar.votes.models`` (same
functions, classes and private helpers), so code written for the flat layout keeps
working; the code lives in ``src/labelvar/votes/``.
"""

import sys as _sys

from labelvar.votes import models as _module
from labelvar.votes.models import *  # noqa: F401,F403 (what static tools see)

_sys.modules[__name__] = _module
