"""The documentation site builds with warnings as errors (slow; needs labelvar[docs]).

``mkdocs build --strict`` fails on any warning: a broken link or anchor, a missing
cross-reference (the generated public-API table references every name in
``labelvar.__all__``, so an undocumented public name fails), a docstring mkdocstrings
cannot parse. Skipped, naming the extra, when mkdocs is not installed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def _inventory(path: Path) -> set[str]:
    """Object names in a Sphinx inventory (objects.inv, version 2) written by mkdocstrings."""
    raw = path.read_bytes()
    body = raw.split(b"\n", 4)[4]  # four header lines, then zlib
    return {line.split(" ", 1)[0] for line in zlib.decompress(body).decode().splitlines()}


def test_docs_build_strict_and_document_every_public_name(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs build needs `pip install labelvar[docs]`")
    pytest.importorskip("mkdocstrings_handlers.python",
                        reason="the docs build needs `pip install labelvar[docs]`")
    site = tmp_path / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / "src"),
                                                        os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "--site-dir", str(site)], cwd=REPO, env=env, text=True,
                          capture_output=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-6000:]
    assert not re.search(r"^WARNING", proc.stderr, re.MULTILINE), proc.stderr[-6000:]
    import labelvar

    names = _inventory(site / "objects.inv")
    missing = [n for n in labelvar.__all__ if n != "__version__"
               and f"{labelvar._EXPORTS[n]}.{n}" not in names]
    assert not missing, f"public names without an API entry: {missing}"
    for module in ("analytic", "priors", "models", "io", "agreement", "plots", "design", "pilot"):
        assert f"labelvar.{module}" in names
    for page in ("readme", "glossary", "api", "guides/planning", "tutorials/chexpert"):
        assert (site / page / "index.html").is_file(), page
    # the README page is the README, with its figures found
    readme = (site / "readme" / "index.html").read_text(encoding="utf-8")
    assert 'src="../figure1.png"' in readme and (site / "figure1.png").is_file()
