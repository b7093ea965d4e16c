"""The package's public names: lazy exports, simulate and stratify as functions."""

from __future__ import annotations

import subprocess
import sys

import pytest

ORDERS = {
    "attribute first": """
import labelvar
labelvar.simulate(labelvar.Coin(p_d=[0.7]), n_items=20, replicates=20, expected=False)
import labelvar.engine as eng
assert labelvar.simulate is eng.simulate and hasattr(eng, "SUMMARY_COLUMNS")
""",
    "submodule first": """
import labelvar.engine as eng, labelvar.stratified as st
import labelvar
assert labelvar.simulate is eng.simulate and labelvar.stratify is st.stratify
labelvar.simulate(labelvar.Coin(p_d=[0.7]), n_items=20, replicates=20, expected=False)
""",
    "from-import": """
from labelvar import simulate, stratify, SimulationResult, Coin
from labelvar.engine import simulate as fn
from labelvar.stratified import stratify as st_fn
assert simulate is fn and stratify is st_fn
assert isinstance(simulate(Coin(p_d=0.7), n_items=20, replicates=5, expected=False), SimulationResult)
""",
    "lazy": """
import sys, labelvar
assert "labelvar.engine" not in sys.modules and "scipy.stats" not in sys.modules
""",
    "real signature": """
import importlib.util, inspect, labelvar
params = inspect.signature(labelvar.simulate).parameters
assert "items" in params and "outputs" in params and "mode" not in params and len(params) <= 12
assert importlib.util.find_spec("labelvar.simulate") is None
""",
}


@pytest.mark.parametrize("name", list(ORDERS))
def test_simulate_and_stratify_work_in_any_import_order(name):
    proc = subprocess.run([sys.executable, "-c", ORDERS[name]], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_every_export_is_a_function_or_class_of_labelvar():
    """__all__ holds functions and classes only, each the object its module defines."""
    import importlib
    import inspect
    import pickle

    import labelvar

    for name in labelvar.__all__:
        if name == "__version__":
            continue
        obj = getattr(labelvar, name)
        assert inspect.isfunction(obj) or inspect.isclass(obj), name
        home = importlib.import_module(labelvar._EXPORTS[name])
        assert getattr(home, name) is obj, name
        assert obj.__module__.startswith("labelvar."), name
        assert pickle.loads(pickle.dumps(obj)) is obj, name  # importable by its qualified name
        if inspect.isfunction(obj):
            params = inspect.signature(obj).parameters
            assert not any(p.kind is p.VAR_KEYWORD for p in params.values()), name
    assert not inspect.ismodule(labelvar.simulate) and not inspect.ismodule(labelvar.stratify)
    for module in ("analytic", "design", "plots", "priors"):  # topic modules by attribute
        assert inspect.ismodule(getattr(labelvar, module)) and module not in labelvar.__all__


def test_help_opens_with_the_map_of_every_public_name():
    """help(labelvar) starts with "which function answers which question", naming every export."""
    import re

    import labelvar

    doc = labelvar.__doc__
    assert doc.splitlines()[2].startswith("Which function answers which question")
    words = set(re.findall(r"[\w.]+", doc))
    missing = [n for n in labelvar.__all__ if n != "__version__" and n not in words]
    assert not missing, f"not in the package docstring's map: {missing}"
    for dotted in sorted(w for w in words if re.fullmatch(r"(io|plots|report)\.\w+", w)):
        module, name = dotted.split(".")
        assert hasattr(getattr(labelvar, module), name), dotted  # the map names real functions
