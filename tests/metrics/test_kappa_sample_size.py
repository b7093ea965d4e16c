"""``design.kappa_sample_size``: irr's documented value, simulation, refusals."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from labelvar.design import kappa_sample_size
from labelvar.design._kappa import _cells, kappa_variance_factor
from labelvar.metrics._agreement import table_coefficient


def test_irr_documented_example():
    # irr's documentation: N.cohen.kappa(0.5, 0.5, 0.7, 0.85) = 96 (rates, k1, k0)
    assert kappa_sample_size(0.85, 0.7, 0.5) == 96
    assert kappa_sample_size(0.85, 0.7, [0.5, 0.5]) == 96


def test_variance_factor_matches_the_simulated_variance_of_kappa():
    rng = np.random.default_rng(3)
    n, reps = 400, 4000
    cells = _cells(0.6, 0.3, 0.4)
    tables = rng.multinomial(n, cells.ravel(), size=reps).reshape(reps, 2, 2)
    kappas = table_coefficient(tables, "cohen_kappa", np.eye(2))[2]
    var = kappas.var(ddof=1)
    se_var = var * np.sqrt(2 / (reps - 1))
    assert abs(var * n - kappa_variance_factor(0.6, 0.3, 0.4)) < 3 * se_var * n + 0.02 * var * n


def test_power_at_the_returned_size_is_the_target_by_simulation():
    """Studies of n items with κ = κ1: the one-sided Wald test of κ0 rejects with ~80 %."""
    k0, k1, p = 0.85, 0.7, 0.5
    n = kappa_sample_size(k0, k1, p)
    rng = np.random.default_rng(7)
    reps = 20000
    tables = rng.multinomial(n, _cells(k1, p, p).ravel(), size=reps).reshape(reps, 2, 2)
    kappas = table_coefficient(tables, "cohen_kappa", np.eye(2))[2]
    z = (kappas - k0) / np.sqrt(kappa_variance_factor(k0, p, p) / n)
    power = float(np.mean(z < -norm.isf(0.05)))
    se = np.sqrt(power * (1 - power) / reps)
    # Cantor's n is a large-sample size: the simulated power is the target within
    # 3 Monte Carlo standard errors plus 0.03 of normal-approximation error
    assert abs(power - 0.8) < 3 * se + 0.03
    # and one item fewer per ten does worse
    smaller = rng.multinomial(int(0.8 * n), _cells(k1, p, p).ravel(), size=reps).reshape(reps, 2, 2)
    k_small = table_coefficient(smaller, "cohen_kappa", np.eye(2))[2]
    z_small = (k_small - k0) / np.sqrt(kappa_variance_factor(k0, p, p) / int(0.8 * n))
    assert np.mean(z_small < -norm.isf(0.05)) < power


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"kappa0": 1.0, "kappa1": 0.5, "p": 0.5}, "kappa0"),
    ({"kappa0": 0.5, "kappa1": -1.2, "p": 0.5}, "kappa1"),
    ({"kappa0": 0.5, "kappa1": 0.5, "p": 0.5}, "kappa1"),
    ({"kappa0": 0.5, "kappa1": 0.7, "p": 1.0}, "p"),
    ({"kappa0": 0.5, "kappa1": 0.7, "p": [0.2, 0.3, 0.4]}, "p"),
    ({"kappa0": 0.5, "kappa1": 0.7, "p": 0.5, "power": 1.0}, "power"),
    ({"kappa0": -0.9, "kappa1": 0.7, "p": 0.1}, "kappa0"),
])
def test_bad_input_names_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=rf"^{name}\b") as err:
        kappa_sample_size(kwargs.pop("kappa0"), kwargs.pop("kappa1"), kwargs.pop("p"), **kwargs)
    assert "\n" not in str(err.value)
