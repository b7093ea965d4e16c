"""End to end (slow): the README's planning example prints what the command prints today."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import shared_data

from labelvar.cli import main

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def run(capsys, *argv):
    code = main(["design", *argv])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_readme_worked_example_output_is_current(capsys, monkeypatch):
    """The README's 'Planning a study' output is what the command prints today."""
    shared_data("snli_dev_subset")
    monkeypatch.chdir(REPO)
    code, out, err = run(capsys, "--config", "snli")
    assert code == 0
    readme = (REPO / "README.md").read_text()
    block = readme.split("$ labelvar design --config snli")[1]
    block = block.split("```")[0].split("\n", 1)[1]
    assert block.strip() == (err.splitlines()[0] + "\n" + out).strip()
