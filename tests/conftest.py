"""Shared test helpers: where the real multi-annotator data lives.

Property tests (hypothesis) use the profile ``fixed`` (the same examples every run);
``--hypothesis-profile=explore`` draws new ones.

The data in ``../shared/data`` (beside the repository) may not be redistributed, so
it is never copied here; tests that need it call :func:`shared_data`, which skips
with the path it looked at when the folder is absent. The environment variable
``LABELVAR_SHARED_DATA`` overrides the location.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests draw the same examples on every run (CI included), as every other test
# here uses a fixed seed; `pytest --hypothesis-profile=explore` draws fresh ones.
settings.register_profile("fixed", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("fixed")

REPO = Path(__file__).resolve().parents[1]
#: ``../shared/data`` beside the repository; ``LABELVAR_SHARED_DATA`` points elsewhere
#: (e.g. from a git worktree, whose parent folder has no ``shared``)
SHARED_DATA = Path(os.environ.get("LABELVAR_SHARED_DATA") or REPO.parent / "shared" / "data")


def shared_data(relpath: str = "") -> Path:
    """Return ``../shared/data/<relpath>``, or skip the test if it is not there."""
    path = SHARED_DATA / relpath
    if not path.exists():
        pytest.skip(f"shared real data not found at {path} (see ../shared/data/README.md)")
    return path


def row(df, **sel):
    """The single row of ``df`` whose columns equal ``sel`` (asserts there is exactly one)."""
    q = df
    for k, val in sel.items():
        q = q[q[k] == val]
    assert len(q) == 1, sel
    return q.iloc[0]
