"""MkDocs hook: the site's figures are drawn by the build (``hooks:`` in mkdocs.yml).

Every figure of ``scripts/render_figures.py`` (its ``FIGURES``: Figure 1 and the sweep
and planner figures from seeded simulations; the paper's Figures 2, 3, 4 on CheXpert,
7 on ChaosNLI, 8 on DialSummEval and the item-model check on ChaosNLI, from
``../shared/data``) becomes the site file ``<name>.png``, replacing a committed
``docs/<name>.png`` of that name, so a page always shows what the current code draws.
A figure whose data is absent is a placeholder naming the missing folder, with a
warning (the strict build then fails: CI has the data). The build logs each figure's
time and the total.

A figure is drawn again only when what it is drawn from changed: its key (:func:`_fingerprint`)
hashes the text of every ``.py`` file under ``src/`` and ``scripts/``, the names, sizes and
times of the files of its data folders, the resolution and the versions of Python and the
numerical libraries; the PNG is kept under that key in memory (``mkdocs serve``) and on disk,
in ``$LABELVAR_FIGURE_CACHE`` (default ``~/.cache/labelvar/docs-figures``; ``off`` keeps
nothing on disk), one file per figure, so a build after a change to the pages or to
nothing only reads the figures back. Placeholders are never kept.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import logging
import os
import sys
import time
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]
log = logging.getLogger("mkdocs.plugins.labelvar.figures")
#: name -> (fingerprint, png bytes, missing folders), for rebuilds in one process
_DRAWN: dict = {}


def _fingerprint(rf, name: str) -> str:
    """What figure ``name`` is drawn from, hashed: code, data files, resolution, libraries."""
    h = hashlib.sha256(f"{name}\0{rf.DPI}\0{rf.DATA}\0{sys.version}".encode())
    for lib in ("numpy", "scipy", "pandas", "matplotlib", "numba"):
        module = sys.modules.get(lib) or importlib.import_module(lib)
        h.update(f"{lib} {module.__version__}\0".encode())
    for folder in ("src", "scripts"):
        for f in sorted((ROOT / folder).rglob("*.py")):
            h.update(f"{f.relative_to(ROOT)}\0".encode() + f.read_bytes() + b"\0")
    for d in rf.NEEDS.get(name, ()):
        top = rf.DATA / d
        for f in sorted(top.rglob("*")) if top.is_dir() else ():
            if f.is_file():
                st = f.stat()
                h.update(f"{f.relative_to(top)}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()


def _cache_dir() -> Path | None:
    where = os.environ.get("LABELVAR_FIGURE_CACHE")
    if where == "off":
        return None
    return Path(where) if where else Path.home() / ".cache" / "labelvar" / "docs-figures"


def _png(rf, name: str):
    """``(png bytes, missing folders, drawn now)`` of figure ``name``."""
    key = _fingerprint(rf, name)
    if name in _DRAWN and _DRAWN[name][0] == key:
        return _DRAWN[name][1], _DRAWN[name][2], False
    folder = _cache_dir()
    digest = hashlib.sha256(repr(key).encode()).hexdigest()[:24]
    kept = folder / f"{name}-{digest}.png" if folder else None
    if kept is not None and kept.is_file() and not rf.missing_data(name):
        png = kept.read_bytes()
        _DRAWN[name] = (key, png, [])
        return png, [], False
    fig, missing = rf.draw(name)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=rf.DPI)
    png = buf.getvalue()
    _DRAWN[name] = (key, png, missing)
    if kept is not None and not missing:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            tmp = folder / f".{kept.name}.{os.getpid()}"
            tmp.write_bytes(png)
            os.replace(tmp, kept)  # whole or absent, also with two builds at once
            for old in folder.glob(f"{name}-*.png"):
                if old != kept:
                    old.unlink(missing_ok=True)
        except OSError as exc:  # a read-only home: draw every time
            log.info(f"figure {name}.png not kept in {folder}: {exc}")
    return png, missing, True


def _render_figures():
    """``scripts/render_figures.py`` as a module (the one definition of every figure)."""
    if str(ROOT / "src") not in sys.path:
        sys.path.insert(0, str(ROOT / "src"))
    spec = importlib.util.spec_from_file_location("render_figures",
                                                  ROOT / "scripts" / "render_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def on_files(files, config):
    """Add the drawn figures to the site's files (and keep this module out of it)."""
    own = files.get_file_from_path(Path(__file__).name)
    if own is not None:
        files.remove(own)
    rf = _render_figures()
    start = time.perf_counter()
    for name in rf.FIGURES:
        t0 = time.perf_counter()
        png, missing, fresh = _png(rf, name)
        uri = f"{name}.png"
        old = files.get_file_from_path(uri)
        if old is not None:
            files.remove(old)
        files.append(File.generated(config, uri, content=png))
        if missing:
            log.warning(f"figure {uri}: its data is missing ({', '.join(map(str, missing))}); "
                        "the site shows a placeholder (see ../shared/data/README.md)")
        elif fresh:
            log.info(f"figure {uri} drawn in {time.perf_counter() - t0:.1f} s")
        else:
            log.info(f"figure {uri}: unchanged, not drawn again")
    log.info(f"{len(rf.FIGURES)} figures in {time.perf_counter() - start:.1f} s")
    return files
