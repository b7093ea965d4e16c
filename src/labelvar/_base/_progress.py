"""Progress bars on stderr (tqdm), the one definition for every long call."""

from __future__ import annotations

import sys


def progress_bar(progress: bool | None, *, desc: str, unit: str, total: int = 0,
                 delay: float = 0.5):
    """A tqdm bar on stderr: shown when ``progress`` is True, or None and stderr is a terminal.

    ``delay`` seconds pass before it shows, so quick calls print nothing.

    Examples
    --------
    >>> bar = progress_bar(False, desc="stratify", unit="bin", total=3)
    >>> bar.disable, bar.total
    (True, 3)
    """
    show = (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()) if progress is None \
        else bool(progress)
    if show:  # tqdm.auto only for a bar: in a notebook without ipywidgets it warns on import
        from tqdm.auto import tqdm
    else:
        from tqdm import tqdm
    return tqdm(total=total, desc=desc, unit=unit, disable=not show, delay=delay, leave=False,
                file=sys.stderr)
