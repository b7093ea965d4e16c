"""The package's face: top-level names loaded on first use from the stub, in any import order."""

from __future__ import annotations

import subprocess
import sys

import pytest

ORDERS = {
    "attribute first": """
import labelvar
labelvar.simulate(labelvar.Coin(p_d=[0.7]), n_items=20, replicates=20, expected=False)
import labelvar.engine._simulate as sim
assert labelvar.simulate is sim.simulate and not hasattr(labelvar.engine, "simulate")
""",
    "submodule first": """
import labelvar.engine._simulate as sim, labelvar.evaluation._stratified as st
import labelvar
assert labelvar.simulate is sim.simulate and labelvar.stratify is st.stratify
labelvar.simulate(labelvar.Coin(p_d=[0.7]), n_items=20, replicates=20, expected=False)
""",
    "from-import": """
from labelvar import Coin, simulate, stratify, SimulationResult
from labelvar.engine._simulate import simulate as fn
from labelvar.evaluation._stratified import stratify as st_fn
assert simulate is fn and stratify is st_fn
assert isinstance(simulate(Coin(p_d=0.7), n_items=20, replicates=5, expected=False), SimulationResult)
""",
    "star-import": """
from labelvar import *
assert callable(stratify) and callable(expected_f1) and "analytic" not in dir()
""",
    "lazy": """
import sys, labelvar
assert "numpy" not in sys.modules and "labelvar.engine" not in sys.modules
assert "scipy.stats" not in sys.modules
labelvar.analytic  # a part loads on first use too
assert "labelvar.analytic" in sys.modules and "labelvar.engine" not in sys.modules
""",
    "unknown name": """
import labelvar
try:
    labelvar.stratified
except AttributeError as exc:
    assert "has no attribute 'stratified'" in str(exc)
else:
    raise AssertionError("labelvar.stratified is gone")
""",
    "real signature": """
import importlib.util, inspect, labelvar
params = inspect.signature(labelvar.simulate).parameters
assert "seed" in params and "replicates" in params
assert importlib.util.find_spec("labelvar.simulate") is None
assert importlib.util.find_spec("labelvar.stratified") is None
""",
}


@pytest.mark.parametrize("name", list(ORDERS))
def test_the_top_level_names_work_in_any_import_order(name):
    proc = subprocess.run([sys.executable, "-c", ORDERS[name]], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_every_export_is_a_function_or_class_of_labelvar():
    """__all__ holds functions and classes only, each the object its stub line names."""
    import importlib
    import inspect
    import pickle
    from pathlib import Path

    import labelvar
    from labelvar._base._lazy import _stub_names

    homes, submodules = _stub_names(Path(labelvar.__file__).with_suffix(".pyi"), "labelvar")
    assert sorted(homes) == labelvar.__all__
    for name in labelvar.__all__:
        obj = getattr(labelvar, name)
        assert inspect.isfunction(obj) or inspect.isclass(obj), name
        assert getattr(importlib.import_module(homes[name]), name) is obj, name
        assert obj.__module__.startswith("labelvar."), name
        assert pickle.loads(pickle.dumps(obj)) is obj, name  # importable by its qualified name
        if inspect.isfunction(obj):
            params = inspect.signature(obj).parameters
            assert not any(p.kind is p.VAR_KEYWORD for p in params.values()), name
    for module in ("analytic", "design", "plots", "metrics", "io"):  # parts by attribute
        assert inspect.ismodule(getattr(labelvar, module)) and module not in labelvar.__all__
        assert module in submodules


def test_help_opens_with_the_map_of_every_public_name():
    """help(labelvar) starts with "which name answers which question", naming every export."""
    import importlib
    import re

    import labelvar

    doc = labelvar.__doc__
    assert doc.splitlines()[2].startswith("Which name answers which question")
    words = set(re.findall(r"[\w.]+", doc))
    missing = [n for n in labelvar.__all__ if n not in words]
    assert not missing, f"not in the package docstring's map: {missing}"
    named = sorted(w for w in re.findall(r"``(labelvar\.\w+)``", doc))
    assert len(set(named)) >= 9
    for dotted in named:  # every module the map points to exists and is public
        assert not dotted.split(".")[1].startswith("_"), dotted
        importlib.import_module(dotted)


def test_unknown_attribute_names_the_module():
    import labelvar

    with pytest.raises(AttributeError, match="module 'labelvar' has no attribute 'nope'"):
        labelvar.nope  # noqa: B018
