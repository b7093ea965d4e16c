"""Where the running labelvar comes from: its version and, for a checkout, its git revision.

The version is written in one place, ``pyproject.toml``, and read back from the
installed distribution's metadata (:func:`importlib.metadata.version`).

Git details are recorded only when the imported package *is* a labelvar checkout:
``<root>/src/labelvar`` where ``<root>`` is the top level of a git work tree and
holds a ``pyproject.toml`` whose project is named ``labelvar`` (an editable install,
or ``PYTHONPATH=src``). A wheel installed into a virtualenv that happens to live in
some other repository gets no revision from that repository; a wheel installed with
``pip install git+URL@REV`` records the commit pip reports in ``direct_url.json``.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

__all__ = ["version", "checkout_root", "vcs_info"]

#: the imported package's folder (``.../labelvar``)
PACKAGE_DIR = Path(__file__).resolve().parents[1]


def _project_name(pyproject: Path) -> str | None:
    """The ``[project] name`` of a pyproject.toml, or None."""
    try:
        text = pyproject.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    try:
        import tomllib
    except ImportError:  # Python 3.10: the [project] table's name line
        section = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
        name = section and re.search(r"^name\s*=\s*[\"']([^\"']+)[\"']", section.group(1), re.M)
        return name.group(1) if name else None
    try:
        return tomllib.loads(text).get("project", {}).get("name")
    except tomllib.TOMLDecodeError:
        return None


def _git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                             timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def checkout_root(package_dir: Path | None = None) -> Path | None:
    """The labelvar checkout the package is imported from, or None (an installed copy).

    Parameters
    ----------
    package_dir : path, optional
        The ``labelvar`` package folder (default: the imported one).

    Examples
    --------
    >>> import tempfile
    >>> checkout_root(Path(tempfile.mkdtemp()) / "site-packages" / "labelvar") is None
    True
    """
    package_dir = Path(package_dir or PACKAGE_DIR).resolve()
    if package_dir.parent.name != "src":
        return None
    root = package_dir.parent.parent
    if _project_name(root / "pyproject.toml") != "labelvar":
        return None
    return root


def version() -> str:
    """Return labelvar's version: the installed metadata (single-sourced from pyproject.toml).

    Falls back to the checkout's ``pyproject.toml`` when labelvar is imported from a
    source tree that was never installed, and to ``0+unknown`` otherwise.

    Examples
    --------
    >>> version().split(".")[0].isdigit()
    True
    """
    from importlib import metadata

    try:
        return metadata.version("labelvar")
    except metadata.PackageNotFoundError:
        pass
    root = checkout_root()
    if root is not None:
        found = re.search(r"^version\s*=\s*[\"']([^\"']+)[\"']",
                          (root / "pyproject.toml").read_text(encoding="utf-8"), re.M)
        if found:
            return found.group(1)
    return "0+unknown"


def _direct_url_commit() -> str | None:
    """The commit of a ``pip install git+URL@REV`` install of this very package, or None."""
    from importlib import metadata

    try:
        dist = metadata.distribution("labelvar")
        installed = Path(str(dist.locate_file("labelvar/__init__.py"))).resolve()
        if installed != PACKAGE_DIR / "__init__.py":  # metadata of another copy
            return None
        info = json.loads(dist.read_text("direct_url.json") or "{}")
    except (metadata.PackageNotFoundError, OSError, ValueError):
        return None
    return (info.get("vcs_info") or {}).get("commit_id")


def vcs_info(package_dir: Path | None = None) -> dict:
    """Git revision of the labelvar checkout the package runs from; Nones for an installed copy.

    Returns
    -------
    dict
        ``source`` (the checkout's folder, or ``"installed"``), ``revision`` (the
        commit, or None) and ``dirty_src`` (uncommitted changes under ``src/``, or
        None when unknown).

    Examples
    --------
    >>> import tempfile
    >>> vcs_info(Path(tempfile.mkdtemp()) / "src" / "labelvar")
    {'source': 'installed', 'revision': None, 'dirty_src': None}
    """
    root = checkout_root(package_dir)
    if root is None:
        commit = _direct_url_commit() if package_dir is None else None
        return {"source": "installed", "revision": commit, "dirty_src": False if commit else None}
    top = _git(root, "rev-parse", "--show-toplevel")
    if top is None or Path(top).resolve() != root:  # not the top of labelvar's own work tree
        return {"source": str(root), "revision": None, "dirty_src": None}
    rev = _git(root, "rev-parse", "HEAD")
    status = _git(root, "status", "--porcelain", "--", "src")
    return {"source": str(root), "revision": rev,
            "dirty_src": None if status is None else status != ""}
