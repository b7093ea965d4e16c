"""Foundations every part may use: argument checks, seeds, files, formatting, label values.

``_validate`` (argument checks with one-line errors), ``_seeding`` (seeds and generators),
``_files`` (atomic writes), ``_progress`` (progress bars on stderr), ``_format`` (numbers as
text, short reprs and notebook HTML of the result objects), ``_defaults`` (the confidence
level), ``_docs`` (shared docstring pieces), ``_provenance`` (version and source hashes),
``_warnings`` (the public warning classes), ``_binom`` and ``_counts`` (binomial
coefficients, item counts), ``_metrics`` (metric names and definitions), ``_panel`` (panel
majorities and vote counts), ``_labels`` (what a label value may be). Private: the parts
import these modules; users import the public names re-exported by :mod:`labelvar`.
Imports nothing from labelvar above it.
"""
