"""The tutorials, the guides and the README run end to end and print what the pages show.

Each page is executed as a reader would: its fenced blocks in order, in a fresh temporary
directory that has ``../shared/data`` beside it (a link to the real data), so the commands
read exactly as typed from a checkout. For the README and the guides (``docs/guides/*.md``)
the directory also holds links to the checkout's ``examples/`` and ``scripts/``, as a
reader's clone does.

- ```` ```python ```` blocks run in one namespace per page;
- ```` ```console ```` blocks run each ``$ ...`` line (``\\`` continues it) with bash, where
  ``labelvar`` is this interpreter's ``python -m labelvar.cli`` and ``python`` this
  interpreter; a command must exit 0, or the exit code a line ``<!-- exit: N -->`` right
  before the block names (for commands that show a refusal). A plain ``labelvar ARGS``
  line (no shell syntax; not ``sweep``, whose Hydra keeps global state and logging) runs
  instead in the test's own process, as ``labelvar.cli.main(ARGS)`` with stdout and stderr
  captured and Python's default warning filters (:func:`run_in_process`): one process per
  page, so the imports and the compiled kernels are paid once, not once per command.
  ``LABELVAR_DOCS_SUBPROCESS=1`` runs every line with bash, as a reader's shell does;
- a ```` ```text ```` block right after a code block is that block's output: every one of
  its non-blank lines must appear, in order, among the lines printed (stderr, then stdout;
  trailing blanks and Hydra's time stamps ignored; a line ``...`` stands for lines left
  out). These are the pages' assertions: the numbers on the page are the numbers the code
  prints;
- a block right after a line ``<!-- not run: why -->`` is shown only, and the test prints
  why. On the README and the guides every other block must be run or be an output
  (:func:`unmarked` is checked in the default suite, without running anything); on the
  tutorials other fences (```` ```bash ````, ```` ```yaml ````) are shown only.

A page starting with ``<!-- requires: a, b -->`` needs ``../shared/data/a`` and ``.../b``
and is skipped, naming the missing path, without them; ``<!-- needs: module -->`` skips
when a Python module (e.g. a Hydra launcher plugin) is not installed. Pages with data
are ``slow``; the synthetic tutorial runs in the default suite. With the plain lines run
in process, every page takes under 6 s on this 2-core machine (load 2-3, numba's cache
filled by the default suite) but the sweeps guide, whose Hydra sweeps run as commands
(25 s; before: the README 41 s, the sweeps guide 70 s, planning 58 s, stratified 43 s).

**Re-syncing the outputs** after a change that alters what the code prints (a repr, a
table's columns, a seeded number): run the pages with ``LABELVAR_RESYNC_DOCS=1``, e.g.
``LABELVAR_RESYNC_DOCS=1 pytest tests/e2e/test_tutorials.py -m slow -k "readme or guides"``.
Each output block that no longer matches is rewritten in the page (:func:`resync`: a
block without ``...`` becomes the printed output; in a block with ``...`` each stale line
is replaced by a later printed line of the same shape, numbers aside, the one whose
numbers differ least; a line with no such match is left to you) and the test
fails saying which blocks it rewrote: review ``git diff``, mend the prose that quotes the
numbers, and run again without the variable.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import re
import shlex
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from conftest import SHARED_DATA

REPO = Path(__file__).resolve().parents[2]
TUTORIALS = sorted(p for p in (REPO / "docs" / "tutorials").glob("*.md") if p.name != "index.md")
#: pages where every block is run or marked: the front page and the guides
STRICT = [REPO / "README.md",
          *sorted(p for p in (REPO / "docs" / "guides").glob("*.md") if p.name != "index.md")]
PAGES = TUTORIALS + STRICT
FAST = {"synthetic.md"}
#: what a checkout gives the README's and the guides' commands (linked into their directory)
CHECKOUT = ("examples", "scripts")
#: the time stamp that starts Hydra's log lines, not shown on the pages
STAMP = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+\]")
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
NOT_RUN = re.compile(r"<!-- not run: ([^>]*?) -->\s*$")
EXIT = re.compile(r"<!-- exit: (\d+) -->\s*$")
RUN = ("python", "console")
#: a quoted word in which a shell expands nothing
QUOTED = re.compile(r"'[^']*'|\"[^\"$`\\!]*\"")
#: a character a shell would expand or act on outside quotes
SHELL = re.compile(r"[|&;<>$`*?(){}\[\]~!#'\"]")
#: Python's own warning filters (``python -W`` unset): what a fresh ``labelvar`` process has
DEFAULT_FILTERS = [("ignore", ResourceWarning), ("ignore", ImportWarning),
                   ("ignore", PendingDeprecationWarning), ("ignore", DeprecationWarning)]


class Block:
    """One fenced block of a page: its language, code, where it is, and what precedes it."""

    def __init__(self, match: re.Match, before: str):
        self.lang, self.code = match.group(1), match.group(2)
        self.span = match.span(2)
        self.why_not = (m.group(1) if (m := NOT_RUN.search(before)) else None)
        self.exit = int(m.group(1)) if (m := EXIT.search(before)) else 0


def fences(text: str) -> list[Block]:
    """Every fenced block of a page, in order."""
    out, prev = [], 0
    for m in FENCE.finditer(text):
        out.append(Block(m, text[prev:m.start()]))
        prev = m.end()
    return out


def blocks(text: str) -> list[tuple[Block, Block | None]]:
    """(block, its output block or None) for each executed block of a page."""
    fs = fences(text)
    out = []
    for i, b in enumerate(fs):
        if b.lang in RUN and b.why_not is None:
            nxt = fs[i + 1] if i + 1 < len(fs) and fs[i + 1].lang == "text" else None
            out.append((b, nxt))
    return out


def unmarked(text: str) -> list[str]:
    """The blocks of a strict page that are neither run, nor an output, nor marked not run."""
    fs, bad = fences(text), []
    for i, b in enumerate(fs):
        is_output = b.lang == "text" and i > 0 and (fs[i - 1].lang in RUN or fs[i - 1].why_not)
        if b.why_not is None and b.lang not in RUN and not is_output:
            bad.append(f"block {i + 1} (```{b.lang}): {b.code.splitlines()[0][:60] if b.code else ''}")
    return bad


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


def in_process(cmd: str) -> bool:
    """Is ``cmd`` a plain ``labelvar ARGS`` line (nothing for a shell to do, not a sweep)?"""
    bare = QUOTED.sub("w", cmd)
    return (re.match(r"labelvar\s", bare) is not None and not SHELL.search(bare)
            and re.match(r"labelvar\s+(sweep|-sc|--shell-completion)\b", bare) is None)


def run_in_process(cmd: str) -> tuple[int, str]:
    """``(exit code, stderr + stdout)`` of a plain ``labelvar ...`` line, run in this process.

    As the command line runs it (``sys.exit(main())``): SystemExit (argparse's usage
    errors and ``--help``) gives the exit code, a string code is printed on stderr;
    warnings are shown on stderr under Python's default filters (pytest's, and those of
    earlier tests, set aside); the figures the command left open are closed.
    """
    from labelvar.cli import main

    argv = shlex.split(cmd.replace("\\\n", " "))[1:]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            warnings.catch_warnings():
        warnings.resetwarnings()
        for action, category in DEFAULT_FILTERS:
            warnings.simplefilter(action, category)
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
            if isinstance(code, str):
                print(code, file=sys.stderr)
                code = 1
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")
    return int(code or 0), err.getvalue() + out.getvalue()


def _lines(printed: str) -> list[str]:
    return [STAMP.sub("", ln).rstrip() for ln in printed.splitlines()]


def check_output(expected: str, printed: str, where: str) -> None:
    """Every non-blank expected line appears in ``printed``, in order (``...`` skips)."""
    lines = _lines(printed)
    pos = 0
    for want in (ln.rstrip() for ln in expected.splitlines()):
        if not want.strip() or want.strip() == "...":
            continue
        try:
            pos = lines.index(want, pos) + 1
        except ValueError:
            raise AssertionError(f"{where}: the page shows\n  {want}\nbut the code printed:\n"
                                 + printed[-6000:]) from None


#: a number as printed (signs, decimals, exponents, thousands separators)
NUMBER = re.compile(r"[-+−]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?|[-+−]?\.\d+|nan|inf", re.IGNORECASE)


def shape(line: str) -> str:
    """A line with its numbers and runs of spaces or dashes collapsed: what a re-sync keeps."""
    return re.sub(r"[ \t]+|-{2,}", " ", NUMBER.sub("#", line)).strip()


def resync(expected: str, printed: str) -> str:
    """``expected`` brought up to date with ``printed`` (see the module docstring).

    Raises AssertionError when a stale line has no printed line of its shape left.
    """
    lines = [ln for ln in _lines(printed)]
    if not any(ln.strip() == "..." for ln in expected.splitlines()):
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
        return "\n".join(lines) + "\n"
    out, pos = [], 0
    for want in expected.splitlines():
        w = want.rstrip()
        if not w.strip() or w.strip() == "...":
            out.append(want)
            continue
        if w in lines[pos:]:
            pos = lines.index(w, pos) + 1
            out.append(w)
            continue
        same = [i for i in range(pos, len(lines)) if shape(lines[i]) == shape(w)]
        if not same:
            raise AssertionError(f"no printed line has the shape of\n  {w}")
        # of the lines of that shape, the one whose numbers differ least (rows of a table
        # share a shape; the stale row is the one that kept its other numbers)
        old = NUMBER.findall(w)
        best = min(same, key=lambda i: sum(a != b for a, b in zip(NUMBER.findall(lines[i]), old)))
        pos = best + 1
        out.append(lines[best])
    return "\n".join(out) + "\n"


def label(page: Path) -> str:
    return str(page.relative_to(REPO))


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
    for name, exe in (("labelvar", f'"{sys.executable}" -m labelvar.cli'), ("python", f'"{sys.executable}"')):
        shim = bindir / name
        shim.write_text(f'#!/bin/sh\nexec {exe} "$@"\n')
        shim.chmod(0o755)
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / "src"),
                                                        os.environ.get("PYTHONPATH")])),
               MPLBACKEND="Agg", COLUMNS="200")
    return work, env


def _params():
    for page in PAGES:
        marks = [] if page.name in FAST else [pytest.mark.slow]
        pid = page.stem if page in TUTORIALS else label(page).removesuffix(".md").lower()
        yield pytest.param(page, id=pid, marks=marks)


@pytest.mark.parametrize("page", list(_params()))
def test_page_runs_and_prints_what_the_page_shows(page, reader_dir, monkeypatch):
    text = page.read_text(encoding="utf-8")
    for m in re.finditer(r"<!-- requires: ([^>]*) -->", text):
        for rel in (r.strip() for r in m.group(1).split(",")):
            if not (SHARED_DATA / rel).exists():
                pytest.skip(f"{label(page)} needs the real data at {SHARED_DATA / rel} "
                            "(see ../shared/data/README.md)")
    for m in re.finditer(r"<!-- needs: ([\w.]+) -->", text):
        if importlib.util.find_spec(m.group(1)) is None:
            pytest.skip(f"{label(page)} needs the Python module {m.group(1)} "
                        "(pip install labelvar[cluster])")
    work, env = reader_dir
    if page in STRICT:
        for name in CHECKOUT:
            (work / name).symlink_to(REPO / name)
    monkeypatch.chdir(work)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("COLUMNS", env["COLUMNS"])
    in_process_ok = os.environ.get("LABELVAR_DOCS_SUBPROCESS") != "1"
    namespace: dict = {"__name__": "__tutorial__"}
    start = time.perf_counter()
    executed, stale = 0, []
    resyncing = os.environ.get("LABELVAR_RESYNC_DOCS") == "1"
    for n, (block, output) in enumerate(blocks(text), 1):
        where = f"{label(page)}, block {n} ({block.lang})"
        if block.lang == "python":
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                exec(compile(block.code, f"<{page.name} block {n}>", "exec"), namespace)
            printed = buf.getvalue()
        else:
            printed = ""
            for cmd in commands(block.code):
                if in_process_ok and in_process(cmd):
                    code, text_ = run_in_process(cmd)
                else:
                    proc = subprocess.run(["bash", "-c", cmd], cwd=work, env=env, text=True,
                                          capture_output=True, timeout=600)
                    code, text_ = proc.returncode, proc.stderr + proc.stdout
                assert code == block.exit, \
                    f"{where}: `{cmd}` exited {code}, not {block.exit}:\n{text_[-4000:]}"
                printed += text_  # notes on stderr come first
        if output is not None:
            try:
                check_output(output.code, printed, where)
            except AssertionError:
                if not resyncing:
                    raise
                stale.append((output, resync(output.code, printed), where))
        executed += 1
    shown = [b.why_not for b in fences(text) if b.why_not]
    assert executed or shown, f"{label(page)} has no executable block"
    if stale:
        assert page.read_text(encoding="utf-8") == text, \
            f"{label(page)} changed while it ran: not re-synced, run again"
        for output, new, _ in sorted(stale, key=lambda s: -s[0].span[0]):
            text = text[:output.span[0]] + new + text[output.span[1]:]
        page.write_text(text, encoding="utf-8")
        pytest.fail(f"re-synced {len(stale)} output blocks of {label(page)} ("
                    + "; ".join(w for _, _, w in stale) + "): review `git diff`, mend the prose")
    print(f"{label(page)}: {executed} blocks in {time.perf_counter() - start:.1f} s"
          + (f"; shown only: {'; '.join(shown)}" if shown else ""))


@pytest.mark.parametrize("page", STRICT, ids=lambda p: label(p))
def test_every_block_of_the_readme_and_guides_is_run_or_says_why_not(page):
    bad = unmarked(page.read_text(encoding="utf-8"))
    assert not bad, (f"{label(page)}: blocks neither run (```python, ```console) nor an output "
                     "nor marked <!-- not run: why -->:\n  " + "\n  ".join(bad))


def test_block_parser():
    page = ("x\n```python\nprint(1)\n```\n```text\n1\n```\n```bash\nnot run\n```\n"
            "```console\n$ labelvar a \\\n    b\n$ echo c\n```\n"
            "<!-- not run: a cluster -->\n```console\n$ sbatch x\n```\n```text\nshown\n```\n"
            "<!-- exit: 2 -->\n```console\n$ false\n```\n")
    got = blocks(page)
    assert [(b.lang, o.code if o else None) for b, o in got] == \
        [("python", "1\n"), ("console", None), ("console", None)]
    assert [b.exit for b, _ in got] == [0, 0, 2]
    assert commands(got[1][0].code) == ["labelvar a \\\n    b", "echo c"]
    assert unmarked(page) == ["block 3 (```bash): not run"]
    check_output("a\n...\nc\n", "a\nb\nc\n", "here")
    with pytest.raises(AssertionError):
        check_output("c\na\n", "a\nb\nc\n", "here")


def test_resync_rewrites_stale_numbers_and_keeps_what_was_left_out():
    printed = "title\n| x | 0.51 |\n| y | -0.20 |\nnoise\n| z | 1.00 |\n"
    assert resync("| x | 0.50 |\n...\n| z | 1.00 |\n", printed) == "| x | 0.51 |\n...\n| z | 1.00 |\n"
    assert resync("old\n", "\nnew 1\nnew 2\n\n") == "new 1\nnew 2\n"
    rows = "| 0.60 | 89 | 0.52 |\n| 0.80 | 112 | 0.65 |\n| 1.00 | 199 | 0.67 |\n"
    assert resync("| 0.60 | 89 | 0.52 |\n...\n| 1.00 | 199 | 0.70 |\n", rows) == \
        "| 0.60 | 89 | 0.52 |\n...\n| 1.00 | 199 | 0.67 |\n"
    with pytest.raises(AssertionError, match="shape"):
        resync("| w | 0.5 |\n...\n", printed)


def test_readme_is_a_front_page():
    """At most 250 lines, starting with the two set-up commands, linking every guide."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    first = fences(text)[0].code.splitlines()
    assert [ln.split("#")[0].strip() for ln in first] == ["scripts/reproduce.sh", "scripts/test.sh"]
    unlinked = [label(p) for p in STRICT[1:] if f"]({label(p)})" not in text]
    assert not unlinked, f"README.md does not link {unlinked}"
