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
    assert res.stdout.count("KEPT") == 10


@pytest.mark.parametrize(("target", "broken"), [
    ("labelvar.evaluation.stratified", "the engine never imports evaluation or planning BROKEN"),
    ("labelvar.stratified", "no part imports the public-path modules (they exist for users) BROKEN"),
])
def test_an_upward_import_breaks_the_contract(tmp_path, target, broken):
    """A copy of the sources where the engine imports stratify fails with that import named."""
    import shutil

    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "labelvar", src / "labelvar",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    spec = src / "labelvar" / "engine" / "_spec.py"
    spec.write_text(spec.read_text() + f"\n\ndef _wrong():\n    import {target}  # noqa: F401\n")
    shutil.copy(PYPROJECT, tmp_path / "pyproject.toml")
    res = _lint(tmp_path / "pyproject.toml", src)
    assert res.returncode == 1, res.stdout + res.stderr
    assert broken in res.stdout
    assert f"labelvar.engine._spec -> {target}" in res.stdout


#: the public paths kept as modules at the top of the package, and the module each one is
PUBLIC_PATHS = {"priors": "votes.priors", "models": "votes.models", "raters": "votes.raters",
                "ceilings": "votes.ceilings", "pilot": "votes.pilot",
                "stratified": "evaluation.stratified", "inference": "evaluation.inference",
                "agreement": "evaluation.agreement", "config": "sweep.config"}


def test_the_top_of_the_package_is_its_parts():
    """``src/labelvar`` holds the part folders, ``__init__.py`` and the public-path modules only."""
    top = ROOT / "src" / "labelvar"
    files = sorted(p.stem for p in top.glob("*.py") if p.name != "__init__.py")
    assert files == sorted(PUBLIC_PATHS)
    parts = sorted(p.name for p in top.iterdir() if (p / "__init__.py").is_file())
    assert parts == ["_base", "_kernels", "analytic", "cli", "design", "engine", "evaluation", "io",
                     "judge", "metrics", "plots", "readers", "report", "sweep", "votes"]
    for part in parts:  # each part says what it answers
        import importlib

        doc = importlib.import_module(f"labelvar.{part}").__doc__ or ""
        assert len(doc.split()) >= 15, part


@pytest.mark.parametrize("name", sorted(PUBLIC_PATHS))
def test_a_public_path_is_the_module_in_its_folder(name):
    """``labelvar.stratified`` *is* ``labelvar.evaluation.stratified`` (same object, private names too)."""
    import importlib

    public = importlib.import_module(f"labelvar.{name}")
    real = importlib.import_module(f"labelvar.{PUBLIC_PATHS[name]}")
    assert public is real
    assert getattr(__import__("labelvar"), name) is real
    names = getattr(real, "__all__", None)
    assert names, name
    for n in names:
        assert getattr(public, n) is getattr(real, n)
