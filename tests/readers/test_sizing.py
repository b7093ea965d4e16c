"""Sizing: the power formula against a simulation of the same variance structure (seeded)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from labelvar.readers._sizing import MRMCPower, StandalonePower

#: Van Dyke's OR components (the published printout) as the pilot
PILOT = MRMCPower(var_tr=0.00020040, var_error=0.00080229, cov1=0.00034661, cov2=0.00034407,
                  cov3=0.00023903, n_cases=114)
VAR_R = 0.00153500
N_SIM = 2000


def _structure(t, r, var, cov1, cov2, cov3):
    same_i = np.kron(np.eye(t), np.ones((r, r))).astype(bool)
    same_j = np.kron(np.ones((t, t)), np.eye(r)).astype(bool)
    return np.select([same_i & same_j, same_j, same_i], [var, cov1, cov2], cov3)


def _simulate_or(r, c, effect, rng, alpha=0.05):
    """Studies from theta_ij = mu_i + R_j + TR_ij + mean of c case effects; the case
    effects' covariance is the pilot's times n_cases (so the mean's is pilot * n_cases / c),
    estimated in each study from its cases (the jackknife of a mean = S / c)."""
    t = 2
    p = PILOT
    sigma = p.n_cases * _structure(t, r, p.var_error, p.cov1, p.cov2, p.cov3)
    chol = np.linalg.cholesky(sigma)
    z = rng.standard_normal((N_SIM, c, t * r)) @ chol.T
    zbar = z.mean(1)
    zc = z - zbar[:, None, :]
    cov = np.einsum("nka,nkb->nab", zc, zc) / (c - 1) / c
    mu = np.array([effect, 0.0])
    theta = (mu[None, :, None] + rng.normal(0, np.sqrt(VAR_R), (N_SIM, 1, r))
             + rng.normal(0, np.sqrt(p.var_tr), (N_SIM, t, r)) + zbar.reshape(N_SIM, t, r))
    g = theta.mean((1, 2), keepdims=True)
    mi, mj = theta.mean(2, keepdims=True), theta.mean(1, keepdims=True)
    ms_t = r * ((mi - g) ** 2).sum((1, 2))
    ms_tr = ((theta - mi - mj + g) ** 2).sum((1, 2)) / (r - 1)
    same_i = np.kron(np.eye(t), np.ones((r, r))).astype(bool)
    same_j = np.kron(np.ones((t, t)), np.eye(r)).astype(bool)
    cov2 = cov[:, same_i & ~same_j].mean(1)
    cov3 = cov[:, ~same_i & ~same_j].mean(1)
    den = ms_tr + r * np.maximum(cov2 - cov3, 0)
    ddf = den ** 2 / (ms_tr ** 2 / (r - 1))
    return (stats.f.sf(ms_t / den, 1, ddf) < alpha).mean()


@pytest.mark.parametrize("r,c", [(4, 100), (6, 200), (10, 114), (5, 400)])
def test_or_power_within_three_se_of_simulation(r, c):
    rng = np.random.default_rng([30, r, c])
    effect = 0.04
    want = float(PILOT.power(r, c, effect=effect))
    got = _simulate_or(r, c, effect, rng)
    se = np.sqrt(want * (1 - want) / N_SIM)
    assert abs(got - want) <= 3 * se, (r, c, got, want)


def _simulate_standalone(pilot, r, c, effect, rng, alpha=0.05):
    off = ~np.eye(r, dtype=bool)
    sigma = pilot.n_cases * np.where(off, pilot.cov2, pilot.var_error)
    z = rng.standard_normal((N_SIM, c, r)) @ np.linalg.cholesky(sigma).T
    zbar = z.mean(1)
    zc = z - zbar[:, None, :]
    cov = np.einsum("nka,nkb->nab", zc, zc) / (c - 1) / c
    psi = effect + rng.normal(0, np.sqrt(pilot.var_r), (N_SIM, r)) + zbar
    ms_r = psi.var(1, ddof=1)
    den = ms_r + r * np.maximum(cov[:, off].mean(1), 0)
    ddf = den ** 2 / (ms_r ** 2 / (r - 1))
    tstat = psi.mean(1) / np.sqrt(den / r)
    return (2 * stats.t.sf(np.abs(tstat), ddf) < alpha).mean()


@pytest.mark.parametrize("r,c", [(4, 150), (8, 300), (5, 100), (10, 500)])
def test_standalone_power_within_three_se_of_simulation(r, c):
    pilot = StandalonePower(var_r=0.0008, var_error=0.0015, cov2=0.0006, n_cases=100)
    rng = np.random.default_rng([31, r, c])
    want = float(pilot.power(r, c, effect=0.04))
    got = _simulate_standalone(pilot, r, c, 0.04, rng)
    se = np.sqrt(want * (1 - want) / N_SIM)
    assert abs(got - want) <= 3 * se, (r, c, got, want)


def test_sizes_are_the_fewest_cases():
    s = PILOT.sizes(effect=0.05, readers=[4, 8], target=0.8)
    for r, c in zip(s.table["readers"], s.table["cases"]):
        assert PILOT.power(r, c, effect=0.05) >= 0.8 > PILOT.power(r, c - 1, effect=0.05)
    assert np.isnan(PILOT.sizes(effect=0.001, readers=[3], max_cases=1000).table["cases"][0])
