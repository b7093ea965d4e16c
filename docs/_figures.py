"""MkDocs hook: the site's figures are drawn by the build (``hooks:`` in mkdocs.yml).

Every figure of ``scripts/render_figures.py`` (its ``FIGURES``: Figure 1 and the sweep
and planner figures from seeded simulations; the paper's Figures 2, 3, 4 on CheXpert,
7 on ChaosNLI, 8 on DialSummEval and the item-model check on ChaosNLI, from
``../shared/data``) becomes the site file ``<name>.png``, replacing a committed
``docs/<name>.png`` of that name, so a page always shows what the current code draws.
A figure whose data is absent is a placeholder naming the missing folder, with a
warning (the strict build then fails: CI has the data). The build logs each figure's
time and the total. Within one process (``mkdocs serve``) a figure is drawn again only
when a source file under ``src/`` or ``scripts/`` or its data changed since it was drawn.
"""

from __future__ import annotations

import importlib.util
import io
import logging
import sys
import time
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]
log = logging.getLogger("mkdocs.plugins.labelvar.figures")
#: name -> (fingerprint, png bytes, missing folders), for rebuilds in one process
_DRAWN: dict = {}


def _fingerprint(rf, name: str) -> tuple:
    """What a figure depends on: the newest source file's mtime and its data folders'."""
    sources = max(f.stat().st_mtime_ns for d in ("src", "scripts")
                  for f in (ROOT / d).rglob("*.py"))
    data = tuple((rf.DATA / d).stat().st_mtime_ns if (rf.DATA / d).is_dir() else None
                 for d in rf.NEEDS.get(name, ()))
    return sources, data, str(rf.DATA)


def _png(rf, name: str):
    """``(png bytes, missing folders, drawn now)`` of figure ``name``."""
    key = _fingerprint(rf, name)
    if name in _DRAWN and _DRAWN[name][0] == key:
        return _DRAWN[name][1], _DRAWN[name][2], False
    fig, missing = rf.draw(name)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=rf.DPI)
    _DRAWN[name] = (key, buf.getvalue(), missing)
    return buf.getvalue(), missing, True


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
    log.info(f"{len(rf.FIGURES)} figures in {time.perf_counter() - start:.1f} s")
    return files
