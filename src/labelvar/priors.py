"""Item models (θ priors): the public path of :mod:`labelvar.votes.priors`.

Importing ``labelvar.priors`` gives the very module object ``labelvar.votes.priors`` (same
functions, classes and private helpers), so code written for the flat layout keeps
working; the code lives in ``src/labelvar/votes/``.
"""

import sys as _sys

from labelvar.votes import priors as _module
from labelvar.votes.priors import *  # noqa: F401,F403 (what static tools see)

_sys.modules[__name__] = _module
