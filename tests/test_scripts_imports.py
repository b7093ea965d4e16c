"""Every ``from labelvar... import ...`` written in the scripts (their own imports and the
code they run in child processes) names something the package has: a moved name broke
``scripts/bench.py``'s child processes once, unseen until someone ran the benchmark."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

SCRIPTS = sorted((Path(__file__).resolve().parents[1] / "scripts").glob("*.py"))
IMPORT = re.compile(r"from (labelvar[\w.]*) import ((?:[A-Za-z_]\w*(?: as \w+)?(?:, )?)+)")


def _imports():
    for path in SCRIPTS:
        for mod, names in IMPORT.findall(path.read_text()):
            for name in (n.split(" as ")[0].strip() for n in names.split(",")):
                if name:
                    yield pytest.param(mod, name, id=f"{path.name}:{mod}.{name}")


@pytest.mark.parametrize(("module", "name"), list(_imports()))
def test_script_import_resolves(module, name):
    mod = importlib.import_module(module)
    if not hasattr(mod, name):
        importlib.import_module(f"{module}.{name}")  # a submodule


def test_the_scan_sees_the_child_code():
    found = {(m, n) for p in _imports() for m, n in [p.values]}
    assert ("labelvar", "Coin") in found and ("labelvar.io", "read_votes") in found
