"""The ``labelvar`` command line.

One console script with subcommands. Every subcommand validates its input
through the same functions as the Python API; a bad value ends the program
with one line on stderr (``labelvar: error: ...``) and exit code 2, never a
traceback.

Subcommands
-----------
expect    closed-form expectations and tails for given p_d, m, n
tables    the paper's Tables 1 and 2 as computed by labelvar
sweep     Hydra sweeps over simulation grids
collect   merge a multirun directory into one table
stratify  agreement-stratified report of real results
design    study sizing: items and annotators per item
raters    rater skills, the model check, ceilings per bin and kappa_x from long votes

This package parses, calls and prints (one module per subcommand family): tables are printed by
:func:`labelvar._base._format.render_table`, inputs loaded by :mod:`labelvar.io`, report
directories written by :mod:`labelvar.report`.
"""

from __future__ import annotations

from labelvar.cli._common import UsageError
from labelvar.cli._main import build_parser, main

__all__ = ["UsageError", "build_parser", "main"]
