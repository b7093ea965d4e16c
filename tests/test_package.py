"""The package's public names: lazy exports, the callable simulate module, stratify a function."""

from __future__ import annotations

import subprocess
import sys

import pytest

ORDERS = {
    "attribute first": """
import labelvar
labelvar.simulate(p_d=[0.7], n_items=20, replicates=20, expected=False)
import labelvar.simulate as sim
assert hasattr(sim, "SUMMARY_COLUMNS") and callable(sim)
""",
    "submodule first": """
import labelvar.simulate as sim, labelvar.stratified as st
import labelvar
assert callable(labelvar.simulate) and labelvar.stratify is st.stratify
labelvar.simulate(p_d=[0.7], n_items=20, replicates=20, expected=False)
""",
    "from-import": """
from labelvar import simulate, stratify
from labelvar.simulate import simulate as fn
from labelvar.stratified import stratify as st_fn
assert callable(simulate) and stratify is st_fn and callable(fn)
""",
    "lazy": """
import sys, labelvar
assert "labelvar.simulate" not in sys.modules and "scipy.stats" not in sys.modules
""",
}


@pytest.mark.parametrize("name", list(ORDERS))
def test_simulate_and_stratify_work_in_any_import_order(name):
    proc = subprocess.run([sys.executable, "-c", ORDERS[name]], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_every_export_resolves():
    import labelvar

    for name in labelvar.__all__:
        assert getattr(labelvar, name) is not None, name
