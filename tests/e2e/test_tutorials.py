"""The tutorials (docs/tutorials/*.md) run end to end and print what the pages show.

Each page is executed as a reader would: its fenced blocks in order, in a fresh temporary
directory that has ``../shared/data`` beside it (a link to the real data), so the commands
read exactly as typed from a checkout.

- ```` ```python ```` blocks run in one namespace per page;
- ```` ```console ```` blocks run each ``$ ...`` line (``\\`` continues it) with bash, where
  ``labelvar`` is this interpreter's ``python -m labelvar.cli``; a command must exit 0;
- a ```` ```text ```` block right after a code block is that block's output: every one of
  its non-blank lines must appear, in order, among the lines printed (stderr, then stdout;
  trailing blanks and Hydra's time stamps ignored; a line ``...`` stands for lines left
  out). These are the
  tutorials' assertions: the numbers on the page are the numbers the code prints;
- other fences (```` ```bash ````, ```` ```yaml ````) are shown only, never run.

A page starting with ``<!-- requires: a, b -->`` needs ``../shared/data/a`` and ``.../b``
and is skipped, naming the missing path, without them; ``<!-- needs: module -->`` skips
when a Python module (e.g. a Hydra launcher plugin) is not installed. Pages with data
are ``slow``; the synthetic one runs in the default suite.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import SHARED_DATA

REPO = Path(__file__).resolve().parents[2]
PAGES = sorted(p for p in (REPO / "docs" / "tutorials").glob("*.md") if p.name != "index.md")
FAST = {"synthetic.md"}
#: the time stamp that starts Hydra's log lines, not shown on the pages
STAMP = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+\]")
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def blocks(text: str) -> list[tuple[str, str, str | None]]:
    """(language, code, expected output or None) for each executed block of a page."""
    fences = [(m.group(1), m.group(2)) for m in FENCE.finditer(text)]
    out = []
    for i, (lang, code) in enumerate(fences):
        if lang not in ("python", "console"):
            continue
        expected = fences[i + 1][1] if i + 1 < len(fences) and fences[i + 1][0] == "text" else None
        out.append((lang, code, expected))
    return out


def commands(console: str) -> list[str]:
    """The ``$ ...`` lines of a console block, continuation lines joined."""
    cmds, cur = [], None
    for line in console.splitlines():
        if cur is not None:
            cur += "\n" + line
        elif line.startswith("$ "):
            cur = line[2:]
        else:
            continue
        if not cur.endswith("\\"):
            cmds.append(cur)
            cur = None
    assert cur is None, f"unterminated command: {cur}"
    return cmds


def check_output(expected: str, printed: str, where: str) -> None:
    """Every non-blank expected line appears in ``printed``, in order (``...`` skips)."""
    lines = [STAMP.sub("", ln).rstrip() for ln in printed.splitlines()]
    pos = 0
    for want in (ln.rstrip() for ln in expected.splitlines()):
        if not want.strip() or want.strip() == "...":
            continue
        try:
            pos = lines.index(want, pos) + 1
        except ValueError:
            raise AssertionError(f"{where}: the page shows\n  {want}\nbut the code printed:\n"
                                 + printed[-6000:]) from None


@pytest.fixture
def reader_dir(tmp_path):
    """A fresh working directory with ``../shared/data`` beside it, and ``labelvar`` on PATH."""
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "shared").mkdir()
    if SHARED_DATA.exists():
        (tmp_path / "shared" / "data").symlink_to(SHARED_DATA.resolve())
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "labelvar"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m labelvar.cli "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / "src"),
                                                        os.environ.get("PYTHONPATH")])),
               MPLBACKEND="Agg", COLUMNS="200")
    return work, env


def _params():
    for page in PAGES:
        marks = [] if page.name in FAST else [pytest.mark.slow]
        yield pytest.param(page, id=page.stem, marks=marks)


@pytest.mark.parametrize("page", list(_params()))
def test_tutorial_runs_and_prints_what_the_page_shows(page, reader_dir, monkeypatch):
    text = page.read_text(encoding="utf-8")
    for m in re.finditer(r"<!-- requires: ([^>]*) -->", text):
        for rel in (r.strip() for r in m.group(1).split(",")):
            if not (SHARED_DATA / rel).exists():
                pytest.skip(f"tutorial {page.name} needs the real data at {SHARED_DATA / rel} "
                            "(see ../shared/data/README.md)")
    for m in re.finditer(r"<!-- needs: ([\w.]+) -->", text):
        if importlib.util.find_spec(m.group(1)) is None:
            pytest.skip(f"tutorial {page.name} needs the Python module {m.group(1)} "
                        "(pip install labelvar[cluster])")
    work, env = reader_dir
    monkeypatch.chdir(work)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace: dict = {"__name__": "__tutorial__"}
    start = time.perf_counter()
    executed = 0
    for n, (lang, code, expected) in enumerate(blocks(text), 1):
        where = f"{page.name}, block {n} ({lang})"
        if lang == "python":
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                exec(compile(code, f"<{page.name} block {n}>", "exec"), namespace)
            printed = buf.getvalue()
        else:
            printed = ""
            for cmd in commands(code):
                proc = subprocess.run(["bash", "-c", cmd], cwd=work, env=env, text=True,
                                      capture_output=True, timeout=600)
                assert proc.returncode == 0, f"{where}: `{cmd}` exited {proc.returncode}:\n" \
                                             f"{proc.stderr[-4000:]}"
                printed += proc.stderr + proc.stdout  # notes on stderr come first
        if expected is not None:
            check_output(expected, printed, where)
        executed += 1
    assert executed, f"{page.name} has no executable block"
    print(f"{page.name}: {executed} blocks in {time.perf_counter() - start:.1f} s")


def test_block_parser():
    page = ("x\n```python\nprint(1)\n```\n```text\n1\n```\n```bash\nnot run\n```\n"
            "```console\n$ labelvar a \\\n    b\n$ echo c\n```\n")
    got = blocks(page)
    assert [(lang, exp) for lang, _, exp in got] == [("python", "1\n"), ("console", None)]
    assert commands(got[1][1]) == ["labelvar a \\\n    b", "echo c"]
    check_output("a\n...\nc\n", "a\nb\nc\n", "here")
    with pytest.raises(AssertionError):
        check_output("c\na\n", "a\nb\nc\n", "here")
