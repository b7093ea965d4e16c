"""Collection rules for the whole repository (pytest reads this before collecting).

The modules at the top of ``src/labelvar`` (``priors.py``, ``stratified.py``, ...) only keep
public paths: each replaces itself by the module of the same name in a part folder, whose
doctests are collected there. Collecting them again would import one module under two
file names, so they are skipped here.
"""

from pathlib import Path

collect_ignore = [str(p) for p in sorted((Path(__file__).parent / "src" / "labelvar").glob("*.py"))
                  if p.name != "__init__.py"]
