"""Stratified evaluation of real results: the public path of :mod:`labelvar.evaluation.stratified`.

Importing ``labelvar.stratified`` gives the very module object ``labelvar.evaluation.stratified`` (same
functions, classes and private helpers), so code written for the flat layout keeps
working; the code lives in ``src/labelvar/evaluation/``.
"""

import sys as _sys

from labelvar.evaluation import stratified as _module
from labelvar.evaluation.stratified import *  # noqa: F401,F403 (what static tools see)

_sys.modules[__name__] = _module
