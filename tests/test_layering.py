"""The import layering of pyproject.toml ([tool.importlinter]) holds, and breaking it is caught."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
pytest.importorskip("importlinter", reason="import-linter is not installed (pip install 'labelvar[test]')")


def _lint(config: Path, src: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` on ``config`` with ``src`` first on the path (no cache written)."""
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(src)!r})
        from importlinter.cli import lint_imports_command
        sys.argv = ["lint-imports", "--config", {str(config)!r}, "--no-cache"]
        lint_imports_command()
    """)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=src.parent,
                          timeout=300)


def test_contracts_kept():
    res = _lint(PYPROJECT, ROOT / "src")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "0 broken" in res.stdout and " broken." in res.stdout
    assert res.stdout.count("KEPT") == 9


@pytest.mark.parametrize(("source", "target", "broken"), [
    ("engine/_spec.py", "labelvar.evaluation._stratified",
     "the engine never imports evaluation or planning BROKEN"),
    ("metrics/_scores.py", "labelvar.votes._panel",
     "labelvar parts: foundations up to the command line BROKEN"),
])
def test_an_upward_import_breaks_the_contract(tmp_path, source, target, broken):
    """A copy of the sources with one upward import fails with that import named."""
    import shutil

    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "labelvar", src / "labelvar",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    module = src / "labelvar" / source
    module.write_text(module.read_text() + f"\n\ndef _wrong():\n    import {target}  # noqa: F401\n")
    shutil.copy(PYPROJECT, tmp_path / "pyproject.toml")
    res = _lint(tmp_path / "pyproject.toml", src)
    assert res.returncode == 1, res.stdout + res.stderr
    assert broken in res.stdout
    importer = "labelvar." + source.removesuffix(".py").replace("/", ".")
    assert f"{importer} -> {target}" in res.stdout


def test_the_top_of_the_package_is_its_parts():
    """``src/labelvar`` holds the part folders and the face (``__init__.py`` with its stub) only."""
    import importlib

    top = ROOT / "src" / "labelvar"
    assert sorted(p.name for p in top.glob("*.py*")) == ["__init__.py", "__init__.pyi"]
    parts = sorted(p.name for p in top.iterdir() if (p / "__init__.py").is_file())
    assert parts == ["_base", "_kernels", "analytic", "cli", "design", "engine", "evaluation", "io",
                     "judge", "metrics", "plots", "readers", "report", "sweep", "votes"]
    for part in parts:  # each part says what it answers
        doc = importlib.import_module(f"labelvar.{part}").__doc__ or ""
        assert len(doc.split()) >= 15, part
