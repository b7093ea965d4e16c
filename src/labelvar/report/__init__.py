"""Report directories: the one place where report files are written.

A report directory holds the tables (CSV), their markdown, the figures (PNG and
PDF) and ``report.json`` (what was written, by which labelvar version). It is
built in a temporary sibling directory and renamed into place when complete: a
rerun into the same directory replaces the previous report as a whole, and an
interrupted run leaves the previous one in place. A directory holding files that are not part of a
labelvar report is refused rather than replaced.

- :func:`write_stratify_report`: a stratified evaluation (``labelvar stratify --out``);
- :func:`write_design_report`: a study plan (``labelvar design --out``);
- :func:`write_raters_report`: rater skills, model check, ceilings, κx (``labelvar raters --out``).

The code lives in ``_writers.py`` (the three writers) and ``_raters.py`` (the
``labelvar raters`` report's tables). Results are computed below and written here: it
may import every part except sweeps and the command line.
"""

from labelvar.report._writers import write_design_report, write_raters_report, write_stratify_report

__all__ = ["write_design_report", "write_raters_report", "write_stratify_report"]
