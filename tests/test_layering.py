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
    assert res.stdout.count("KEPT") == 6


def test_an_upward_import_breaks_the_contract(tmp_path):
    """A copy of the sources where the engine imports stratified fails with that import named."""
    import shutil

    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "labelvar", src / "labelvar",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    spec = src / "labelvar" / "engine" / "_spec.py"
    spec.write_text(spec.read_text() + "\n\ndef _wrong():\n    import labelvar.stratified  # noqa: F401\n")
    shutil.copy(PYPROJECT, tmp_path / "pyproject.toml")
    res = _lint(tmp_path / "pyproject.toml", src)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "the engine never imports evaluation or planning BROKEN" in res.stdout
    assert "labelvar.engine._spec -> labelvar.stratified" in res.stdout
