"""Cross-replication reliability κx (Wong, Paritosh & Aroyo 2021): labelvar.cross_replication."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import shared_data

from labelvar.evaluation._agreement import (
    cross_replication,
    fleiss_kappa,
    independent_normalized_kappa,
    krippendorff_alpha,
)

X = [[3, 0], [2, 1], [0, 3], [1, 2], [3, 0], [0, 3]]
Y = [[2, 0], [1, 1], [0, 2], [0, 2], [2, 0], [1, 1]]


def _binary(positives, k):
    """Items x [negatives, positives] counts."""
    return np.stack([k - positives, positives], axis=1)


def test_hand_computed_example():
    # cross pairs disagreeing per item: 0, 3/6, 0, 2/6, 0, 3/6 -> d_o = 2/9; p_X = p_Y = 1/2 -> d_e = 1/2
    # within X: 0, 4/6, 0, 4/6, 0, 0 -> d_o = 2/9; within Y (pairs of 2): 0, 1, 0, 0, 0, 1 -> 1/3
    r = cross_replication(X, Y, n_resamples=0, bins=False).table.iloc[0]
    assert r.kappa_x == pytest.approx(1 - (2 / 9) / 0.5, abs=1e-12)
    assert r.kappa_X == pytest.approx(1 - (2 / 9) / 0.5, abs=1e-12)
    assert r.kappa_Y == pytest.approx(1 - (1 / 3) / 0.5, abs=1e-12)
    assert r.normalized == pytest.approx(r.kappa_x / np.sqrt(r.kappa_X * r.kappa_Y), abs=1e-12)
    assert (r.p_X, r.p_Y, r.independent) == (0.5, 0.5, 1.0)


def test_within_group_is_fleiss_and_levels_agree_on_binary():
    rng = np.random.default_rng(3)
    q = rng.beta(0.5, 0.5, size=200)  # items that both groups see alike
    x, y = _binary(rng.binomial(5, q), 5), _binary(rng.binomial(3, q), 3)
    r = {lv: cross_replication(x, y, level=lv, n_resamples=0, bins=False).table.iloc[0]
         for lv in ("nominal", "ordinal", "interval")}
    assert r["nominal"].kappa_X == pytest.approx(fleiss_kappa(x), abs=1e-12)
    assert r["nominal"].kappa_Y == pytest.approx(fleiss_kappa(y), abs=1e-12)
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    assert r["nominal"].kappa_X == pytest.approx(sm_fleiss(x), abs=1e-12)
    # binary: every level's delta is a constant multiple of the nominal one
    for lv in ("ordinal", "interval"):
        for col in ("kappa_x", "kappa_X", "kappa_Y", "normalized"):
            assert r[lv][col] == pytest.approx(r["nominal"][col], abs=1e-12)


def test_interval_level_against_direct_pairs():
    rng = np.random.default_rng(5)
    vals = np.array([1.0, 2.0, 4.0])
    x = rng.multinomial(4, [0.5, 0.3, 0.2], size=50)
    y = rng.multinomial(2, [0.2, 0.3, 0.5], size=50)
    got = cross_replication(x, y, level="interval", values=vals, n_resamples=0, bins=False).table.iloc[0]
    # direct: expand the ratings and average squared differences over pairs
    rx = [np.repeat(vals, c) for c in x]
    ry = [np.repeat(vals, c) for c in y]
    d_o = np.mean([np.mean((a[:, None] - b[None, :]) ** 2) for a, b in zip(rx, ry)])
    ax, ay = np.concatenate(rx), np.concatenate(ry)
    d_e = np.mean((ax[:, None] - ay[None, :]) ** 2)
    assert got.kappa_x == pytest.approx(1 - d_o / d_e, abs=1e-12)
    w_o = np.mean([((a[:, None] - a[None, :]) ** 2).sum() / (len(a) * (len(a) - 1)) for a in rx])
    assert got.kappa_X == pytest.approx(1 - w_o / np.mean((ax[:, None] - ax[None, :]) ** 2), abs=1e-12)


def test_bins_bootstrap_and_seed():
    rng = np.random.default_rng(0)
    q = rng.beta(0.5, 0.5, size=300)
    x, y = _binary(rng.binomial(5, q), 5), _binary(rng.binomial(3, q), 3)
    a = cross_replication(x, y, n_resamples=300, seed=1)
    b = cross_replication(x, y, n_resamples=300, seed=1)
    pd.testing.assert_frame_equal(a.table, b.table)
    t = a.table
    assert t.stratum.tolist() == ["all", "0.60", "0.80", "1.00"]
    assert t.n_items.iloc[1:].sum() == t.n_items.iloc[0] == 300
    r = t.iloc[0]
    assert r.kappa_x_low <= r.kappa_x <= r.kappa_x_high
    # a bin's kappa_x is the statistic on that bin's items alone
    sel = x.max(axis=1) == 4
    assert t.iloc[2].kappa_x == pytest.approx(
        cross_replication(x[sel], y[sel], n_resamples=0, bins=False).table.kappa_x[0], abs=1e-12)


def test_conditional_independence_value_by_simulation():
    # raters independent given a binary truth, different skills within and across groups:
    # the normalised kappa_x is the formula of the groups' positive rates, whatever the skills
    rng = np.random.default_rng(2021)
    reps, n = 40, 4000
    diff = []
    for _ in range(reps):
        z = rng.random(n) < 0.3
        def votes(sens, spec, z=z):
            p1 = np.where(z[:, None], sens, 1 - np.asarray(spec))
            v = rng.random((n, len(sens))) < p1
            return np.stack([(~v).sum(1), v.sum(1)], axis=1)
        x = votes([0.8, 0.8, 0.8, 0.8, 0.8], [0.9] * 5)
        y = votes([0.6, 0.6, 0.6], [0.95] * 3)
        r = cross_replication(x, y, n_resamples=0, bins=False).table.iloc[0]
        diff.append(r.normalized - r.independent)
    diff = np.asarray(diff)
    se = diff.std(ddof=1) / np.sqrt(reps)
    assert abs(diff.mean()) / se < 4
    assert abs(diff.mean()) < 0.01


def test_independent_formula():
    assert independent_normalized_kappa(0.2, 0.2) == 1.0
    p, q = 0.1, 0.25
    want = 2 * np.sqrt(p * (1 - p) * q * (1 - q)) / (p * (1 - q) + q * (1 - p))
    assert independent_normalized_kappa(p, q) == pytest.approx(want, abs=1e-15)
    with pytest.raises(ValueError, match="p_x"):
        independent_normalized_kappa(0.0, 0.5)


def test_bad_inputs_one_line():
    with pytest.raises(ValueError, match="same shape") as e:
        cross_replication(X, Y[:-1])
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="level"):
        cross_replication(X, Y, level="ratio")
    with pytest.raises(ValueError, match="n_resamples"):
        cross_replication(X, Y, n_resamples=-1)


def _chexpert_counts():
    root = shared_data("chexpert_test/radiologists")
    panel, bench = ["bc1", "bc2", "bc3", "bc5", "bc7"], ["bc4", "bc6", "bc8"]
    files = {n: root / "groundtruth" / f"{n}_gt.csv" for n in panel}
    files.update({n: root / "benchmark_radiologists" / f"{n}.csv" for n in bench})
    frames = {n: pd.read_csv(p).set_index("Study") for n, p in files.items()}
    idx = frames["bc1"].index
    for t in frames["bc1"].columns:
        def counts(names, t=t):
            v = np.stack([frames[n].loc[idx, t].to_numpy() for n in names], axis=1)
            return np.stack([(v == 0).sum(1), (v == 1).sum(1)], axis=1)
        yield t, counts(panel), counts(bench)


def test_chexpert_pinned():
    # RATERS.md: kappa within the 5 panel radiologists 0.375, within the 3 benchmark ones 0.420,
    # kappa_x 0.405, normalised 1.045 (means over the 14 findings)
    rows = [cross_replication(x, y, n_resamples=0, bins=False).table.iloc[0]
            for _, x, y in _chexpert_counts()]
    t = pd.DataFrame(rows)
    assert len(t) == 14
    assert round(t.kappa_X.mean(), 3) == 0.375
    assert round(t.kappa_Y.mean(), 3) == 0.420
    assert round(t.kappa_x.mean(), 3) == 0.405
    assert round(t.normalized.mean(), 3) == 1.045
    x, y = next((x, y) for t_, x, y in _chexpert_counts() if t_ == "Cardiomegaly")
    assert cross_replication(x, y, n_resamples=0, bins=False).table.kappa_X[0] == pytest.approx(
        fleiss_kappa(x), abs=1e-12)


def test_hs_brexit_different_standard():
    d = pd.read_csv(shared_data("raters/hs_brexit/HS-Brexit_votes_long.csv"))
    c = d.pivot_table(index="item", columns=["annotator_group", "hate_speech"], values="annotator",
                      aggfunc="count", fill_value=0)
    r = cross_replication(c["group1"].to_numpy(), c["group2"].to_numpy(), n_resamples=400,
                          seed=0).table.iloc[0]
    # the target group and the controls apply different standards: the normalised kappa_x
    # lies far below what independent errors would give at their positive rates
    assert r.normalized_high < r.independent
    assert round(r.normalized, 3) == 0.474 and round(r.independent, 3) == 0.770
    assert krippendorff_alpha(c["group1"].to_numpy()) > 0.4  # each group agrees with itself
