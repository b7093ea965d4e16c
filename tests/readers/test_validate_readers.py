"""scripts/validate_readers.py at a small size (slow): the table and its rates."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from scipy import stats

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "validate_readers.py"


@pytest.mark.slow
def test_validate_readers_small(capsys):
    spec = importlib.util.spec_from_file_location("validate_readers", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    n = 150
    res = mod.run_design(5, 5, 150, n, seed=1, n_imputations=10)
    out = mod.table(res)
    # a type-I error of 0.05 over n studies stays under the binomial 0.999 quantile
    top = stats.binom.ppf(0.999, n, 0.05) / n
    for col in ("type1_posterior", "type1_fixed", "type1_latent"):
        assert 0 <= out[col].iloc[0] <= top, (col, out[col].iloc[0])
    # against the latent truth, the weaker AI is found more often than the equal one
    assert out["power_latent"].iloc[0] > out["type1_latent"].iloc[0]
    assert mod.main(["--studies", "20", "--designs", "3,4,100", "--imputations", "5"]) == 0
    assert "type1_posterior" in capsys.readouterr().out
