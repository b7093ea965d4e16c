"""The counter-based RNG primitives and kernels of labelvar._kernels."""

import numpy as np
import pytest
from numba import njit
from scipy import stats

from labelvar import _kernels as K
from labelvar._kernels.layout import Labellers, Strata, ThetaDraw
from labelvar._kernels.metrics import _finish_replicate


def _metrics_into(conf, theta_sum, res):
    """The engine's metrics of one confusion matrix ``conf[truth, pred]`` into ``res``."""
    _finish_replicate(conf.reshape((1, 1) + conf.shape), np.full(1, theta_sum),
                      res.reshape((1, 1, res.shape[0])))


@njit(cache=True)
def _binomials(n, p, key, reps):
    out = np.empty(reps, dtype=np.int64)
    ctr = 0
    for r in range(reps):
        x, ctr = K.binomial(n, p, key, ctr)
        out[r] = x
    return out


@njit(cache=True)
def _betas(a, b, key, reps):
    out = np.empty(reps)
    ctr = 0
    for r in range(reps):
        x, ctr = K.beta(a, b, key, ctr)
        out[r] = x
    return out


@njit(cache=True)
def _uniforms(key, reps):
    out = np.empty(reps)
    for r in range(reps):
        out[r] = K.uniform(key, r)
    return out


def _chi2_pvalue(draws, pmf_support, pmf):
    obs = np.array([(draws == k).sum() for k in pmf_support], dtype=float)
    exp = pmf * len(draws)
    big = exp >= 5
    obs_b = np.append(obs[big], len(draws) - obs[big].sum())
    exp_b = np.append(exp[big], len(draws) - exp[big].sum())
    keep = exp_b > 0
    return stats.chisquare(obs_b[keep], exp_b[keep]).pvalue


@pytest.mark.parametrize("n,p", [(7, 0.3), (40, 0.5), (1000, 0.02), (1000, 0.5), (200_000, 0.3),
                                 (100_000, 0.5),
                                 (60, 0.93), (5000, 0.999)])
def test_binomial_matches_scipy(n, p):
    _assert_binomial_draws(_binomials(n, p, np.uint64(2024), 100_000), n, p, z=5)


def _assert_binomial_draws(draws, n, p, z):
    """Draws of Binomial(n, p): in 0..n, chi-square against scipy's pmf, mean within z SEs."""
    assert draws.min() >= 0 and draws.max() <= n
    lo, hi = stats.binom.ppf([1e-7, 1 - 1e-7], n, p).astype(int)
    support = np.arange(lo, hi + 1)
    assert _chi2_pvalue(draws, support, stats.binom.pmf(support, n, p)) > 1e-3
    se = np.sqrt(n * p * (1 - p) / len(draws))
    assert abs(draws.mean() - n * p) < z * se


def test_binomial_edges():
    key = np.uint64(1)
    assert _binomials(0, 0.4, key, 5).tolist() == [0] * 5
    assert _binomials(9, 0.0, key, 5).tolist() == [0] * 5
    assert _binomials(9, 1.0, key, 5).tolist() == [9] * 5


@pytest.mark.parametrize("a,b", [(2.0, 1.0), (0.5, 0.7), (8.0, 3.0)])
def test_beta_matches_scipy(a, b):
    draws = _betas(a, b, np.uint64(7), 50_000)
    assert stats.kstest(draws, stats.beta(a, b).cdf).pvalue > 1e-3


def test_uniform_is_uniform_and_key_dependent():
    u = _uniforms(np.uint64(99), 100_000)
    assert u.min() >= 0.0 and u.max() < 1.0
    assert stats.kstest(u, "uniform").pvalue > 1e-3
    # 53-bit resolution: values are multiples of 2**-53
    assert np.all(u * 2.0**53 == np.floor(u * 2.0**53))
    assert not np.array_equal(u[:100], _uniforms(np.uint64(100), 100))
    assert np.array_equal(u[:100], _uniforms(np.uint64(99), 100))


def _coin_binary_args(parallel):
    kern = K.explicit_binary if parallel else K.explicit_binary_serial
    lab_kind = np.array([K.EXPERT, K.MATRIX], dtype=np.int64)
    lab_p1 = np.array([[0.0, 0.0], [0.5, 0.5]])
    out = np.empty((300, 2, 1, K.N_FIELDS))
    kern(np.uint64(5), 300, 250, (0,), False, 40, False, 0.16,
         ThetaDraw(K.THETA_FIXED, np.array([0.8]), np.ones(1)), np.zeros(1, dtype=np.uint64),
         K.TIE_RANDOM, Labellers(lab_kind, lab_p1, np.zeros(2)),
         Strata(np.zeros(1, dtype=np.int64), 1), out)
    return out


def test_serial_and_parallel_kernels_identical():
    a = _coin_binary_args(True)
    b = _coin_binary_args(False)
    assert np.array_equal(a, b, equal_nan=True)
    assert (a[:, :, 0, 0] == 250).all()          # n
    assert (a[:, :, 0, 2] + a[:, :, 0, 4] == 40).all()  # tp + fn = positives


def test_metrics_binary_and_macro():
    res = np.empty(K.N_FIELDS)
    conf = np.array([[50, 10], [5, 35]], dtype=np.int64)  # truth x pred
    _metrics_into(conf, 0.0, res)
    assert res[:6].tolist() == [100, 85, 35, 10, 5, 50]
    assert res[6] == pytest.approx(0.85)
    assert res[7] == pytest.approx(35 / 45) and res[8] == pytest.approx(35 / 40)
    assert res[9] == pytest.approx(70 / 85)
    conf3 = np.array([[5, 1, 0], [2, 6, 2], [0, 0, 0]], dtype=np.int64)
    _metrics_into(conf3, 0.0, res)
    # scikit-learn macro with zero_division=0 over labels 0, 1, 2
    prec = [5 / 7, 6 / 7, 0.0]
    rec = [5 / 6, 6 / 10, 0.0]
    f1 = [2 * 5 / 13, 2 * 6 / 17, 0.0]
    assert res[7] == pytest.approx(np.mean(prec))
    assert res[8] == pytest.approx(np.mean(rec))
    assert res[9] == pytest.approx(np.mean(f1))
    _metrics_into(np.zeros((2, 2), dtype=np.int64), 0.0, res)
    assert res[0] == 0 and np.isnan(res[6:]).all()


@njit(cache=True)
def _table_draws(n, step, plan, key, reps):
    out = np.empty(reps, dtype=np.int64)
    ctr = 0
    for r in range(reps):
        x, ctr = K.binomial_table(n, step, plan, key, ctr)
        out[r] = x
    return out


# full window (n < W), partial windows (one holding ~99.6 %: its tails drawn often
# enough to show), counts beyond the table (ratio of uniforms) and p = 1/2 (random bits)
@pytest.mark.parametrize("n,p", [(9, 0.3), (63, 0.93), (150, 0.4), (630, 0.36), (40, 0.05),
                                 (2000, 0.3), (301, 0.5)])
def test_binomial_table_matches_scipy(n, p):
    from labelvar.engine._tables import binomial_plan, window_probabilities

    prob, row0, n_lo, n_hi, win_lo, table, outside = plan = binomial_plan(
        [0.2, p], [1, n - 5], [50, n + 5])
    if n <= 1000 and p != 0.5:  # a window row serves this n: its alias table, decoded
        assert n_lo[1] <= n <= n_hi[1]
        row = row0[1] + n - n_lo[1]
        k = win_lo[row] + np.arange(K.BINOMIAL_WINDOW - 1)
        pmf = stats.binom.pmf(k, n, p)
        if n + 1 <= K.BINOMIAL_WINDOW - 1:
            pmf /= pmf.sum()
        decoded = window_probabilities(table[row:row + 1])[0]
        assert np.allclose(decoded[:-1], pmf, rtol=1e-11, atol=1e-15)
        assert decoded[-1] == pytest.approx(max(1 - pmf.sum(), 0.0), abs=1e-11)
        assert outside[row] == pytest.approx(decoded[-1], abs=1e-13)
    else:
        assert not n_lo[1] <= n <= n_hi[1]
    _assert_binomial_draws(_table_draws(n, 1, plan, np.uint64(n * 7 + 1), 200_000), n, p, z=4.5)


def test_binomial_plan_windows_hold_their_mass():
    from labelvar.engine._tables import _MIN_MASS, binomial_plan, window_probabilities

    prob = np.array([0.5 ** 20, 0.01, 0.3, 0.5, 0.77, 0.999])
    plan = binomial_plan(prob, np.ones(6), np.full(6, 1500))
    table, outside = plan[5], plan[6]
    decoded = window_probabilities(table)
    assert len(table) > 1000 and np.allclose(decoded.sum(axis=1), 1.0, atol=1e-12)
    assert (1 - outside).min() >= _MIN_MASS and outside.min() >= 0.0
    assert outside.max() > 0.001  # some rows do rely on the tails
    assert np.allclose(decoded[:, -1], outside, atol=1e-13)
    assert plan[3][3] < plan[2][3]  # p = 1/2 has no rows: a count of random bits


def test_binomial_alias_rows_reproduce_their_probabilities():
    """The packed alias tables give every outcome its probability to 2**-58 per cell."""
    from labelvar.engine._tables import window_probabilities

    rng = np.random.default_rng(5)
    p = rng.dirichlet(np.full(K.BINOMIAL_WINDOW, 0.3), size=50)
    p[:5, 10:] = 0.0  # outcomes of probability 0 are never drawn
    p[:5] /= p[:5].sum(axis=1, keepdims=True)
    table = np.empty(p.shape, dtype=np.uint64)
    K.binomial_alias_rows(p * K.BINOMIAL_WINDOW, table)
    decoded = window_probabilities(table)
    assert np.abs(decoded - p).max() < 1e-14
    assert (decoded[:5, 10:] == 0.0).all()


def _strata_of_top(kk):
    sot, labels = np.zeros(kk + 1, dtype=np.int64), []
    for top in range(-(-kk // 2), kk + 1):
        text = f"{top / kk:.2f}"
        if text not in labels:
            labels.append(text)
        sot[top] = labels.index(text) + 1
    return sot, 1 + len(labels)


@pytest.mark.parametrize("kk", [1, 4, 5, 7])
@pytest.mark.parametrize("tie", [K.TIE_RANDOM, K.TIE_DROP, 0])
def test_vectorised_binary_kernel_is_bit_identical_to_scalar(kk, tie):
    """The packed-counter L = 2 kernel draws and counts exactly like the scalar one."""
    reps, n_items, n_pos, theta = 60, 700, 210, 0.7
    sot, n_strata = _strata_of_top(kk)
    lab_kind = np.array([K.EXPERT, K.MATRIX, K.MATRIX], dtype=np.int64)
    lab_p1 = np.array([[0.0, 0.0], [0.5, 0.5], [0.2, 0.9]])  # P(predict 1 | modal c)
    scalar = np.empty((reps, 3, n_strata, K.N_FIELDS))
    vote_thr = K.vote_thresholds(theta, kk)
    K.explicit_binary(np.uint64(77), reps, n_items, tuple(range(kk)), True, n_pos, False, 0.3,
                      ThetaDraw(K.THETA_FIXED, np.array([theta]), np.ones(1)),
                      np.array(vote_thr, dtype=np.uint64), tie,
                      Labellers(lab_kind, lab_p1, np.zeros(3)), Strata(sot, n_strata), scalar)
    thr = np.array([[K.threshold53(theta), K.threshold53(0.5), K.threshold53(0.2)],
                    [K.threshold53(theta), K.threshold53(0.5), K.threshold53(0.9)]],
                   dtype=np.uint64)
    flip = np.array([[1, 0, 0], [0, 0, 0]], dtype=np.uint64)
    fast = np.empty_like(scalar)
    K.explicit_binary_fast(np.uint64(77), reps, n_items, vote_thr, n_pos, theta, tie, thr, flip,
                           sot, n_strata, fast)
    # counts and metrics identical; theta (a float sum) may differ in the last bits
    assert np.array_equal(scalar[..., :10], fast[..., :10], equal_nan=True)
    assert np.allclose(scalar[..., 10], fast[..., 10], equal_nan=True, rtol=1e-12)
    assert (scalar[:, :, 0, 0] > 0).all()


def test_threshold53_matches_float_comparison():
    for p in (0.0, 1e-300, 0.3, 0.5, 0.7, 1 - 1e-16, 1.0):
        t = K.threshold53(p)
        for bits in (0, 1, int(p * 2**53) - 1, int(p * 2**53), int(p * 2**53) + 1, 2**53 - 1):
            if 0 <= bits < 2**53:
                assert (bits * 2.0**-53 < p) == (bits < t), (p, bits)


def test_collapsed_joint_counts_are_the_drawn_counts():
    """The joint output holds the same draws as the confusion counts."""
    from labelvar.engine._items import Panel
    from labelvar.engine._spec import _Spec
    from labelvar.engine._tables import _Table, collapsed_inputs

    spec = _Spec.build(Panel(theta=0.7, m=0.4, n_labels=2, panel_size=4, tie_rule="drop"),
                       ("expert", "random"), 50, 40, 0, (), "collapsed")
    cell = spec.cells()[0]
    table = _Table(cell, spec)
    coll = collapsed_inputs(table, spec, cell, joint=True)
    assert coll.blocks[0].shape[0] == 0  # folded: the labellers are in the categories
    key, n_rep, n_strata = np.uint64(99), 40, 1 + len(table.labels)
    out = np.empty((n_rep, 2, n_strata, K.N_FIELDS))
    joint = np.zeros((n_rep, n_strata, len(coll.codes)), dtype=np.int64)
    K.collapsed_serial(key, n_rep, 50, coll.groups, coll.cats, coll.blocks, coll.plan, 2,
                       n_strata, out, joint)
    out0 = np.empty_like(out)
    K.collapsed(key, n_rep, 50, coll.groups, coll.cats, coll.blocks, coll.plan, 2, n_strata,
                out0, np.zeros((0, 0, 0), dtype=np.int64))
    assert np.array_equal(out, out0, equal_nan=True)
    assert (joint[:, 0].sum(axis=1) == out[:, 0, 0, 0]).all()  # stratum "all" = scored items
    assert (out[:, 0, 0, 0] < 50).any()  # some ties dropped
    assert (joint[:, 1:].sum(axis=1) == joint[:, 0]).all()
    truth, a, b = np.unravel_index(coll.codes, (2, 2, 2))
    for j, pred in enumerate((a, b)):  # correct = counts of the codes where labeller j is right
        assert (joint[:, 0, pred == truth].sum(axis=1) == out[:, j, 0, 1]).all()


def _summary_case():
    """A kernel output with every kind of series summary_stats meets."""
    rng = np.random.default_rng(5)
    n_rep, n_j, n_strata = 3001, 2, 4
    out = np.zeros((n_rep, n_j, n_strata, K.N_FIELDS))
    out[:, :, :, 0] = rng.integers(1, 50, size=(n_rep, n_j, n_strata))
    acc, prec, rec, f1, theta = (K.FIELDS.index(f) for f in
                                 ("accuracy", "precision", "recall", "f1", "theta"))
    out[..., acc] = rng.integers(0, 200, size=(n_rep, n_j, n_strata)) / 200  # ties
    out[..., prec] = rng.random((n_rep, n_j, n_strata))  # all distinct
    out[..., rec] = 0.75  # constant
    out[..., f1] = np.where(rng.random((n_rep, n_j, n_strata)) < 0.999, 0.5, 1e-9)  # lopsided
    out[..., theta] = rng.beta(0.5, 0.5, (n_rep, n_j, n_strata))
    out[rng.random(n_rep) < 0.3, 0, 1, 0] = 0  # stratum empty in some replicates
    out[:, 0, 2, 0] = 0  # ... and in all
    out[1:, 1, 2, 0] = 0  # ... and in all but one
    out[7, 1, 3, prec] = np.nan  # a NaN
    out[9, 1, 1, prec] = np.inf  # an infinite value
    fields = np.array([acc, prec, rec, f1, theta, acc, f1], dtype=np.int64)
    above = np.array([np.nan] * 5 + [0.5 - 1e-12, 0.5 - 1e-12])  # two indicator series
    return out, fields, above


def test_summary_stats_equal_numpy_and_the_serial_twin():
    out, fields, above = _summary_case()
    n_j, n_strata = out.shape[1:3]
    res = np.empty((n_j, n_strata, len(fields), 5))
    n_ok = np.empty((n_j, n_strata), dtype=np.int64)
    K.summary_stats_serial(out, fields, above, res, n_ok)
    for j in range(n_j):
        for s in range(n_strata):
            ok = out[:, j, s, 0] > 0
            assert n_ok[j, s] == ok.sum()
            for i, (f, t) in enumerate(zip(fields, above)):
                x = out[ok, j, s, f]
                if t == t:
                    x = (x >= t).astype(float)
                if len(x) == 0:
                    assert np.isnan(res[j, s, i]).all()
                    continue
                mean, sd, *q = res[j, s, i]
                with np.errstate(invalid="ignore"):
                    assert mean == pytest.approx(x.mean(), rel=1e-12, nan_ok=True)
                    if len(x) > 1:
                        assert sd == pytest.approx(x.std(ddof=1), rel=1e-10, nan_ok=True)
                    else:
                        assert np.isnan(sd)
                    # the quantiles are numpy's, to the last bit
                    assert np.array_equal(q, np.quantile(x, [0.05, 0.5, 0.95]), equal_nan=True)
    assert n_ok[0, 2] == 0 and n_ok[1, 2] == 1
    assert np.isnan(res[1, 3, 1, 2:]).all() and np.isinf(res[1, 1, 1, 0])
    for n_groups in (1, 2, 3, 20):
        par = np.empty_like(res)
        n_par = np.empty_like(n_ok)
        K.summary_stats(out, fields, above, par, n_par, n_groups)
        assert np.array_equal(par, res, equal_nan=True) and np.array_equal(n_par, n_ok)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 7, 11, 21])
def test_summary_stats_of_short_series(n):
    """Few replicates: the order statistics of the three quantiles overlap."""
    rng = np.random.default_rng(n)
    out = np.ones((n, 1, 3, K.N_FIELDS))
    out[..., K.FIELDS.index("accuracy")] = rng.random((n, 1, 3))
    out[:, 0, 1, K.FIELDS.index("accuracy")] = rng.integers(0, 3, n) / 2  # ties
    out[0, 0, 2, K.FIELDS.index("accuracy")] = np.inf  # no histogram: quickselect
    res = np.empty((1, 3, 1, 5))
    K.summary_stats_serial(out, np.array([K.FIELDS.index("accuracy")]), np.array([np.nan]),
                           res, np.empty((1, 3), dtype=np.int64))
    for s in range(3):
        x = out[:, 0, s, K.FIELDS.index("accuracy")]
        with np.errstate(invalid="ignore"):  # (inf: numpy interpolates to NaN too)
            want = np.quantile(x, [0.05, 0.5, 0.95])
        assert np.array_equal(res[0, s, 0, 2:], want, equal_nan=True), (s, x)
