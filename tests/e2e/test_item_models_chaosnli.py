"""ChaosNLI validation of the item models (slow; skipped without ../shared/data)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "chaosnli" / "chaosNLI_v1.0"


def _script():
    spec = importlib.util.spec_from_file_location("validate_item_models",
                                                  ROOT / "scripts" / "validate_item_models.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.skipif(not DATA.is_dir(), reason=f"ChaosNLI not found at {DATA}")
@pytest.mark.parametrize("name", ["SNLI", "MNLI"])
def test_held_out_agreement_error(name):
    mod = _script()
    counts = mod.load(DATA / mod.DATASETS[name])
    for k in (3, 5, 10):
        t = mod.validate(counts, k, seed=0, name=name)
        err = t[t["bin"] == "weighted"].set_index("model")["error"]
        # printed by the script (seed 0): Dirichlet mixture (2) 0.006-0.013; p_d 0.05-0.18
        assert err["Dirichlet mixture (2)"] <= 0.02
        assert err["Dirichlet"] <= 0.025
        assert 0.04 <= err["E = p_d"] <= 0.19
        assert err["Dirichlet mixture (2)"] < err["theta ~ Beta (symmetric)"] < err["E = p_d"]
