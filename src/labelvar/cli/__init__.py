"""The ``labelvar`` command line: the only place where flags become calls.

One console script with subcommands (``labelvar --help``): ``expect`` (closed-form
expectations and tails), ``tables`` (the paper's Tables 1 and 2), ``sweep`` / ``collect``
(Hydra sweeps over simulation grids and merging them), ``stratify`` (real results per
agreement bin), ``design`` (study size), ``raters`` (rater skills, the model check,
ceilings per bin and kappa_x). Every subcommand validates its input through the same
functions as the Python API; a bad value ends the program with one line on stderr
(``labelvar: error: ...``) and exit code 2, never a traceback.

One private module per subcommand family (``_tables``, ``_sweeps``, ``_stratify``,
``_design``, ``_raters``), the parser and the error boundary in ``_main``.
:func:`main` runs it from Python (``main(["tables"])``) and returns the exit code.
"""

from labelvar.cli._main import main

__all__ = ["main"]
