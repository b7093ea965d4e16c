"""standalone_vs_readers: the single-treatment OR analysis by hand, the t test, imputation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import shared_data
from scipy import stats

from labelvar import mrmc, standalone_vs_readers
from labelvar.readers._standalone import rubin


def _modality1():
    d = pd.read_csv(shared_data("mrmc/vandyke.csv"))
    return d[d.modality == 1].drop(columns="modality")


def test_1t_rrfc_is_the_one_sample_t_test():
    d = _modality1()
    res = standalone_vs_readers(d, "5", truth="truth", analysis="1T-RRFC")
    psi = res.readers_fom["psi"].to_numpy()
    t = stats.ttest_1samp(psi, 0.0)
    assert res.statistic == pytest.approx(t.statistic) and res.p == pytest.approx(t.pvalue)
    assert res.df == 3 and res.difference == pytest.approx(psi.mean())
    lo, hi = t.confidence_interval(0.95)
    assert (res.ci_low, res.ci_high) == (pytest.approx(lo), pytest.approx(hi))


def test_1t_rrrc_by_hand_from_the_mrmc_covariance():
    """psi_j = theta_j - theta_AI: Cov(psi_j, psi_k) = C_jk - C_jA - C_kA + C_AA."""
    d = _modality1()
    full = mrmc(d, truth="truth")
    cov = full.covariance.to_numpy()
    theta = full.fom["fom"].to_numpy()
    a, rd = 4, [0, 1, 2, 3]
    psi = theta[rd] - theta[a]
    cp = cov[np.ix_(rd, rd)] - cov[rd, a][:, None] - cov[rd, a][None, :] + cov[a, a]
    r = 4
    ms_r = psi.var(ddof=1)
    cov2 = cp[~np.eye(r, dtype=bool)].mean()
    err = ms_r + r * max(cov2, 0)
    se, df = np.sqrt(err / r), err ** 2 / (ms_r ** 2 / (r - 1))
    res = standalone_vs_readers(d, "5", truth="truth")
    assert res.se == pytest.approx(se, rel=1e-12) and res.df == pytest.approx(df, rel=1e-12)
    assert res.statistic == pytest.approx(psi.mean() / se)
    assert res.p == pytest.approx(2 * stats.t.sf(abs(psi.mean() / se), df))
    assert res.ai_fom == pytest.approx(theta[a]) and res.components["cov2"] == pytest.approx(cov2)


def test_ai_as_a_series_equals_ai_as_a_reader():
    d = _modality1()
    ai = d[d.reader == 5].set_index("case")["rating"]
    a = standalone_vs_readers(d[d.reader != 5], ai, truth="truth")
    b = standalone_vs_readers(d, "5", truth="truth")
    assert (a.difference, a.se, a.df) == (pytest.approx(b.difference), pytest.approx(b.se),
                                          pytest.approx(b.df))
    with pytest.raises(ValueError, match="ai: no reader named 'robot'"):
        standalone_vs_readers(d, "robot", truth="truth")
    with pytest.raises(ValueError, match="analysis must be"):
        standalone_vs_readers(d, "5", truth="truth", analysis="RRRC")


def test_certain_posterior_reproduces_the_fixed_truth():
    d = _modality1()
    post = d.groupby("case").truth.first().astype(float)
    res = standalone_vs_readers(d, "5", truth="truth", truth_model=post)
    fixed = standalone_vs_readers(d, "5", truth="truth")
    assert res.difference == pytest.approx(fixed.difference) and res.se == pytest.approx(fixed.se)
    assert res.df == pytest.approx(fixed.df)
    assert list(res.table["truth"]) == ["fixed majority", "posterior (50 draws)"]


def test_posterior_integration_by_hand():
    """psi averaged over the draws; covariance of the draw-averaged influences."""
    from labelvar.readers import _fom
    from labelvar.readers._standalone import imputed_draws, single_treatment

    rng = np.random.default_rng(4)
    c = 60
    y = rng.random(c) < 0.4
    scores = (y[None, None, :] * np.array([1.0, 1.2, 0.8, 1.0])[None, :, None]
              + rng.normal(size=(1, 4, c)))
    post = np.clip(y + rng.normal(0, 0.2, c), 0.05, 0.95)
    (d, se, df), _ = imputed_draws(scores, post, "auc", "jackknife", "1T-RRRC",
                                   np.random.default_rng(9), 7)
    draws = np.random.default_rng(9).random((7, c)) < post
    psis, us = [], []
    for m in range(7):
        theta, u, _ = _fom.auc_influence(scores, np.broadcast_to(draws[m], (4, c)), "jackknife")
        psis.append(theta[0, :3] - theta[0, 3])
        us.append(u[0, :3] - u[0, 3])
    ubar = np.mean(us, axis=0)
    want = single_treatment(np.mean(psis, axis=0), ubar @ ubar.T, "1T-RRRC")
    assert (d, se, df) == tuple(pytest.approx(float(w), rel=1e-12) for w in want)


def test_rubin_by_hand():
    est, var = np.array([0.1, 0.2, 0.3]), np.array([0.01, 0.02, 0.03])
    q, se, df = rubin(est, var, np.full(3, 20.0))
    b, w = 0.01, 0.02
    total = w + (4 / 3) * b
    lam = (4 / 3) * b / total
    nu_obs = 21 / 23 * 20 * (1 - lam)
    assert q == pytest.approx(0.2) and se == pytest.approx(np.sqrt(total))
    assert df == pytest.approx(1 / (lam ** 2 / 2 + 1 / nu_obs))
