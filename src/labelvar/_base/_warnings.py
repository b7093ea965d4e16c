"""The warnings labelvar raises about its input (one definition, imported by every layer).

They live at the foundation so that readers (:mod:`labelvar.io`), the rater models and
:mod:`labelvar.evaluation` can all raise them without importing each other;
:mod:`labelvar.evaluation` re-exports them under their public names.
"""

from __future__ import annotations


class DataNoteWarning(UserWarning):
    """Something about the input worth one line (a small bin, votes dropped, items excluded)."""


class ExcludedItemsWarning(DataNoteWarning):
    """Items were excluded (< 2 panel votes, ties with ``tie_rule='drop'``, no prediction)."""
