"""simulate: the coin model against the closed forms, input checks, reproducibility."""

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
from conftest import row as _row
from scipy import stats

from labelvar import analytic
from labelvar._base import _counts
from labelvar.engine._items import Coin, Panel
from labelvar.engine._simulate import simulate
from labelvar.engine._summary import SUMMARY_COLUMNS
from labelvar.votes._models import Constant, Model, ModelPair


# --------------------------------------------------------------------------- closed forms
def _random_grid(n_cells, seed):
    rng = np.random.default_rng(seed)
    return [(float(rng.uniform(0.5, 1.0)), float(rng.choice([0.05, 0.1, 0.3, 0.5])),
             int(rng.integers(20, 400))) for _ in range(n_cells)]


@pytest.mark.parametrize("method", ["collapsed", "explicit"])
def test_coin_mode_reproduces_closed_forms(method):
    """|z| < 4 for expert and random accuracy/precision/recall/exact F1 over a random grid."""
    cells = _random_grid(6 if method == "collapsed" else 3, seed=11)
    for p_d, m, n in cells:
        df = simulate(Coin(p_d=p_d, m=m), n_items=n, replicates=4000, seed=5, thresholds=[0.7],
                      method=method).summary
        assert (df["method"] == method).all()
        n_pos = int(_counts.n_positives(m, n))
        for lab, (sens, spec) in {"expert": (p_d, p_d), "random": (0.5, 0.5)}.items():
            exact = analytic.exact_binary_metrics(n_pos, n - n_pos, sens, spec)
            for metric in ("accuracy", "precision", "recall", "f1"):
                row = _row(df, labeller=lab, metric=metric)
                # the expected column is the exact finite-N mean from labelvar.analytic
                assert row["expected"] == pytest.approx(getattr(exact, metric).mean, abs=1e-9)
                assert abs(row["z"]) < 4, (p_d, m, n, lab, metric, row["z"])
                assert row["sd"] == pytest.approx(getattr(exact, metric).sd, rel=0.1, abs=1e-3)
            acc = _row(df, labeller=lab, metric="prob_accuracy_ge", threshold=0.7)
            assert acc["expected"] == pytest.approx(exact.accuracy.sf(0.7), abs=1e-9)
            f1 = _row(df, labeller=lab, metric="prob_f1_ge", threshold=0.7)
            assert f1["expected"] == pytest.approx(exact.f1.sf(0.7), abs=1e-9)
            for r in (acc, f1):
                assert np.isnan(r["z"]) or abs(r["z"]) < 4


def test_expert_accuracy_tail_matches_paper_table1():
    # P(accuracy >= 0.8) at p_d = 0.9, N = 10 is 0.93 (paper Table 1: 0.92 after rounding down)
    df = simulate(Coin(p_d=0.9), ["expert"], n_items=10, replicates=20_000, seed=2,
                  thresholds=[0.8]).summary
    row = _row(df, metric="prob_accuracy_ge")
    assert row["expected"] == pytest.approx(analytic.prob_accuracy_at_least(0.9, 10, 0.8))
    assert abs(row["z"]) < 4


def test_multiclass_coin_mode():
    df = simulate(Coin(p_d=0.55, m=0.4, n_labels=[3, 4]),
                  ["expert", "random", "prior", Model(accuracy=0.7, name="A")], n_items=150,
                  replicates=3000, seed=9).summary
    for (lab_n, lab), g in df.groupby(["n_labels", "labeller"]):
        for metric in ("accuracy", "precision", "recall", "f1"):
            row = _row(g, metric=metric)
            assert abs(row["z"]) < 4, (lab_n, lab, metric, row["z"])
        acc = _row(g, metric="accuracy")["expected"]
        want = {"expert": 0.55, "random": 1 / lab_n, "A": 0.7}
        if lab in want:
            assert acc == pytest.approx(want[lab])
    # the prior labeller: accuracy sum_c prior_c^2 (class 1 has prior m, others share 1 - m)
    g = df[(df["n_labels"] == 3) & (df["labeller"] == "prior")]
    counts = np.array([45, 60, 45])  # largest remainders of 150 * (0.3, 0.4, 0.3)
    assert _row(g, metric="accuracy")["expected"] == pytest.approx(
        counts @ np.array([0.3, 0.4, 0.3]) / 150)


def test_bernoulli_positives_and_constant_labeller():
    df = simulate(Coin(p_d=0.8, m=0.2, positives="bernoulli"), ["expert", "constant"], n_items=60,
                  replicates=4000, seed=4).summary
    for metric in ("accuracy", "precision", "recall"):
        for lab in ("expert", "constant"):
            row = _row(df, labeller=lab, metric=metric)
            if row["sd"] == 0:  # every replicate equal (recall 1): z undefined
                assert np.isnan(row["z"]) and row["mean"] == pytest.approx(row["expected"], abs=1e-5)
            else:
                assert abs(row["z"]) < 4, (lab, metric)
    # constant "1": recall 1 whenever there is a positive, precision = share of positives
    rec = _row(df, labeller="constant", metric="recall")["expected"]
    assert rec == pytest.approx(1 - 0.8**60)
    assert _row(df, labeller="constant", metric="accuracy")["expected"] == pytest.approx(0.2)


# --------------------------------------------------------------------------- table shape
def test_columns_rows_and_raw():
    res = simulate(Coin(p_d=[0.6, 0.9], m=0.3), n_items=[50, 80], replicates=500, seed=0,
                   thresholds=[0.5, 0.8], outputs=["raw"])
    df, raw = res.summary, res.raw
    assert res.joint is None and res.seed == 0
    for col in ("p_d", "m", "n_items", "n_labels", "panel_size", "mode", "labeller", "stratum",
                "metric", "threshold", "mean", "sd", "se", "q05", "q50", "q95", "expected", "z",
                "replicates", "seed"):
        assert col in df.columns
    assert list(df.columns) == list(SUMMARY_COLUMNS)
    # 4 cells x 2 labellers x (4 metrics + 2 x 2 thresholds)
    assert len(df) == 4 * 2 * 8
    assert df.loc[df["metric"] == "accuracy", "threshold"].isna().all()
    assert set(df.loc[df["metric"] == "prob_f1_ge", "threshold"]) == {0.5, 0.8}
    assert len(raw) == 4 * 2 * 500
    for col in ("replicate", "n", "correct", "tp", "fp", "fn", "tn", "accuracy", "precision",
                "recall", "f1"):
        assert col in raw.columns
    cell = raw[(raw.p_d == 0.6) & (raw.n_items == 80) & (raw.labeller == "expert")]
    summ = _row(df, p_d=0.6, n_items=80, labeller="expert", metric="f1")
    assert summ["mean"] == pytest.approx(cell["f1"].mean())
    assert summ["q50"] == pytest.approx(cell["f1"].quantile(0.5))
    assert ((cell.tp + cell.fn) == 24).all() and (cell.n == 80).all()
    assert (cell.correct == cell.tp + cell.tn).all()


def test_summary_is_numpy_on_the_raw_table():
    """Every summary row: mean, sd, se and the numpy quantiles of its raw-table series."""
    res = simulate(Panel(theta=[0.6, 0.8], panel_size=4, tie_rule="drop"), n_items=25,
                   replicates=700, seed=3, thresholds=[0.6], outputs=["raw"])
    raw = res.raw
    assert len(res.summary) == 2 * 2 * 3 * (5 + 2)  # cells x labellers x strata x metrics
    for _, r in res.summary.iterrows():
        sel = raw[(raw.theta == r.theta) & (raw.labeller == r.labeller) & (raw.stratum == r.stratum)
                  & (raw.n > 0)]
        if r.metric.startswith("prob_"):
            x = (sel[r.metric[5:-3]] >= r.threshold - 1e-12).to_numpy(float)
        else:
            x = sel["mean_theta" if r.metric == "theta" else r.metric].to_numpy()
        assert r.replicates == len(x) > 1
        assert r["mean"] == pytest.approx(x.mean(), rel=1e-12, abs=1e-15)
        assert r.sd == pytest.approx(x.std(ddof=1), rel=1e-9, abs=1e-13)  # (theta: 0 + noise)
        assert r.se == pytest.approx(r.sd / np.sqrt(len(x)), rel=1e-12)
        assert [r.q05, r.q50, r.q95] == np.quantile(x, [0.05, 0.5, 0.95]).tolist()


def test_labeller_objects_name_their_rows():
    df = simulate(Coin(p_d=0.7), [Model(accuracy=0.6, name="m1"), Constant(label=0, name="zero")],
                  n_items=30, replicates=50).summary
    assert sorted(df["labeller"].unique()) == ["m1", "zero"]


# --------------------------------------------------------------------------- reproducibility
def test_cell_is_identical_alone_or_in_a_grid():
    big = simulate(Coin(p_d=[0.6, 0.75, 0.9], m=[0.1, 0.5]), n_items=[40, 90], replicates=300,
                   seed=123, expected=False).summary
    alone = simulate(Coin(p_d=0.75, m=0.5), n_items=90, replicates=300, seed=123, expected=False).summary
    sub = big[(big.p_d == 0.75) & (big.m == 0.5) & (big.n_items == 90)].reset_index(drop=True)
    pd.testing.assert_frame_equal(sub, alone)
    again = simulate(Coin(p_d=0.75, m=0.5), n_items=90, replicates=300, seed=123, expected=False).summary
    pd.testing.assert_frame_equal(again, alone)
    other = simulate(Coin(p_d=0.75, m=0.5), n_items=90, replicates=300, seed=124, expected=False).summary
    assert not np.allclose(other["mean"], alone["mean"])


@pytest.mark.parametrize("items,method", [(Coin(p_d=0.7, m=0.3), "collapsed"),
                                          (Coin(p_d=0.7, m=0.3), "explicit"),
                                          (Panel(theta=0.7, m=0.3, panel_size=4), "explicit"),
                                          (Coin(p_d=0.7, m=0.3, n_labels=3), "explicit")])
def test_serial_equals_parallel(items, method):
    kw = dict(n_items=64, replicates=200, seed=8, expected=False, method=method)
    a = simulate(items, parallel=True, **kw).summary
    b = simulate(items, parallel=False, **kw).summary
    pd.testing.assert_frame_equal(a, b)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("items,kw,field", [
    (Coin(p_d=1.2), {}, "Coin.p_d"),
    (Coin(p_d=0.7, m=-0.1), {}, "Coin.m"),
    (Coin(p_d=0.7), dict(n_items=0), "n_items"),
    (Coin(p_d=0.7, n_labels=1), {}, "Coin.n_labels"),
    (Panel(theta=0.7, panel_size=0), {}, "Panel.panel_size"),
    (Coin(p_d=0.7), dict(replicates=0), "replicates"),
    (Coin(p_d=0.7), dict(labellers=["expert", "guru"]), "labellers"),
    ("coin", {}, "items must be a Coin, Panel or RaterPanel"),
    (Coin(p_d=0.7), dict(thresholds=[0.5, 1.5]), "thresholds"),
    (Coin(p_d=0.7), dict(thresholds=[0.5, 0.5]), r"thresholds must be distinct .*got \[0.5, 0.5\]"),
    (Panel(theta=0.4), {}, r"Panel.theta \(the latent item agreement\)"),
    (Panel(theta_prior=("beta", 2, 1, 0.2)), {},
     r"theta_prior must be in \[1/L, 1\] = \[0.5, 1\]"),
    (Panel(theta_prior=("beta", 2, 1), theta=0.7), {}, "Panel.theta must be None"),
    (Panel(), {}, "Panel.theta is required"),
    (Panel(theta=0.7, tie_rule="coin"), {}, "Panel.tie_rule"),
    (Panel(theta=0.7, tie_rule=2), {}, "Panel.tie_rule"),
    (Coin(p_d=0.7, positives="some"), {}, "Coin.positives"),
    (Coin(p_d=0.7), dict(method="fast"), "method"),
    (Coin(p_d=0.7), dict(seed=-1), "seed"),
    (Coin(p_d=0.7), dict(outputs=["raw", "everything"]), "outputs"),
    (Coin(p_d=0.7, n_labels=3, class_prior=[0.5, 0.5]), {}, "Coin.class_prior"),
    (Coin(p_d=0.7, n_labels=3), dict(labellers=[Model(sensitivity=0.9, specificity=0.8)]),
     "n_labels"),
])
def test_bad_input_raises_value_error_naming_field(items, kw, field):
    kw = {"replicates": 10, **kw}
    with pytest.raises(ValueError, match=field):
        simulate(items, **kw)


def test_old_keywords_are_gone():
    """The mode string and its keywords are not taken any more (the items object is)."""
    with pytest.raises(TypeError):
        simulate(p_d=0.7, mode="panel")


def test_one_sided_tail_uses_binomial():
    # a direct scipy check of the expected tail for the random labeller (p = 1/2)
    df = simulate(Coin(p_d=0.6, m=0.5), ["random"], n_items=100, replicates=3000, seed=3,
                  thresholds=[0.55]).summary
    row = _row(df, metric="prob_accuracy_ge")
    assert row["expected"] == pytest.approx(stats.binom.sf(54, 100, 0.5))
    assert abs(row["z"]) < 4


def test_accuracy_tail_is_exact_for_many_items_in_several_groups():
    """P(accuracy >= t) with 30,000 items in two panel groups (was NaN above 20,000 items)."""
    df = simulate(Panel(theta=0.7, panel_size=3, m=0.3), ["expert", "random"], n_items=30_000,
                  replicates=3000, seed=4, thresholds=[0.6145, 0.505]).summary
    checked = 0
    for _, row in df[(df.metric == "prob_accuracy_ge") & (df.stratum == "all")].iterrows():
        assert 0.0 <= row["expected"] <= 1.0
        if 0.01 < row["expected"] < 0.99:  # a moderate probability: the z-check has power
            assert abs(row["z"]) < 4, (row["labeller"], row["threshold"], row["z"])
            checked += 1
    assert checked == 2


# --------------------------------------------------------------------------- seeds
def test_seeds_above_2_53_are_distinct():
    # seeds used to pass through a float: 2**53 and 2**53 + 1 gave the same table
    kw = dict(n_items=50, replicates=50, expected=False)
    a = simulate(Coin(p_d=0.7), seed=2**53, **kw)
    b = simulate(Coin(p_d=0.7), seed=2**53 + 1, **kw)
    assert a.seed == 2**53 and b.seed == 2**53 + 1
    assert (a.summary["seed"] == 2**53).all()
    assert not np.allclose(a.summary["mean"], b.summary["mean"])
    top = simulate(Coin(p_d=0.7), seed=2**63 - 1, **kw)
    assert top.seed == 2**63 - 1
    with pytest.raises(ValueError, match="seed"):
        simulate(Coin(p_d=0.7), seed=2**63, **kw)


def test_generator_and_none_seeds_are_recorded():
    kw = dict(n_items=50, replicates=30, expected=False)
    res = simulate(Coin(p_d=0.7), seed=np.random.default_rng(5), **kw)
    again = simulate(Coin(p_d=0.7), seed=res.seed, **kw)
    pd.testing.assert_frame_equal(res.summary, again.summary)
    assert isinstance(simulate(Coin(p_d=0.7), seed=None, **kw).seed, int)


# --------------------------------------------------------------------------- ModelPair, joint counts
def _pair_run(rho, **panel):
    panel = {"theta_prior": ("beta", 3, 1), **panel}
    return simulate(Panel(m=0.3, panel_size=3, positives="bernoulli", **panel),
                    [ModelPair(0.85, 0.7, error_correlation=rho)], n_items=120, replicates=4000,
                    seed=7, outputs=["joint", "raw"])


def _ratio_z(x, n, p):
    """z of the pooled rate sum(x) / sum(n) against p (binomial items)."""
    x, n = np.sum(x), np.sum(n)
    return (x / n - p) / np.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("rho", [0.0, 0.4, -0.25])
def test_model_pair_rates_match_the_model(rho):
    """Discordant-pair rates and P(both correct) against the modal label, |z| < 4."""
    pair = ModelPair(0.85, 0.7, error_correlation=rho)
    res = _pair_run(rho, theta_prior=None, theta=1.0)  # unanimous panel: truth = modal label
    assert (res.summary["method"] == "collapsed").all()
    j = res.joint[res.joint["stratum"] == "all"]
    ok_a, ok_b = j["A"] == j["truth"], j["B"] == j["truth"]
    n = j.groupby("replicate")["count"].sum()
    p11 = pair.p_both_correct
    for sel, p in ((ok_a & ok_b, p11), (ok_a & ~ok_b, 0.85 - p11), (~ok_a & ok_b, 0.7 - p11)):
        x = j[sel].groupby("replicate")["count"].sum().reindex(n.index, fill_value=0)
        assert abs(_ratio_z(x, n, p)) < 4, (rho, p)


def test_model_pair_against_a_disagreeing_panel_matches_expected():
    res = _pair_run(0.4)
    summ = res.summary
    assert set(summ["labeller"]) == {"A", "B"} and (summ["method"] == "collapsed").all()
    checked = 0
    for _, row in summ.iterrows():
        if row["expected"] == row["expected"] and row["sd"] > 1e-9:
            assert abs(row["z"]) < 4, (row["labeller"], row["stratum"], row["metric"], row["z"])
            checked += 1
    assert checked == 24  # 2 labellers x 3 strata x accuracy, precision, recall, F1
    # each member alone: the same expectations as a lone Model
    lone = simulate(Panel(theta_prior=("beta", 3, 1), panel_size=3, m=0.3, positives="bernoulli"),
                    [Model(accuracy=0.85, name="A")], n_items=120, replicates=10, seed=7,
                    method="collapsed").summary
    mine = summ[summ["labeller"] == "A"].set_index(["stratum", "metric"])["expected"]
    theirs = lone.set_index(["stratum", "metric"])["expected"]
    pd.testing.assert_series_equal(mine.sort_index(), theirs.sort_index(), rtol=1e-12)


def test_joint_counts_sum_to_n_and_margins_are_the_raw_counts():
    res = simulate(Panel(theta_prior=("beta", 3, 1), m=0.3, panel_size=4, positives="bernoulli",
                         tie_rule="drop"),
                   ["expert", ModelPair(0.8, 0.75, 0.2, names=("X", "Y")), "random"],
                   n_items=120, replicates=300, seed=7, outputs=["joint", "raw"])
    raw, joint = res.raw, res.joint
    assert list(joint.columns[-8:]) == ["replicate", "truth", "expert", "X", "Y", "random",
                                        "count", "seed"]
    n = joint.groupby(["stratum", "replicate"])["count"].sum()
    for lab in ("expert", "X", "Y", "random"):
        r = raw[raw["labeller"] == lab].set_index(["stratum", "replicate"])
        assert (n.reindex(r.index, fill_value=0) == r["n"]).all()
        ok = joint[joint[lab] == joint["truth"]].groupby(["stratum", "replicate"])["count"].sum()
        assert (ok.reindex(r.index, fill_value=0) == r["correct"]).all()
        tp = joint[(joint[lab] == 1) & (joint["truth"] == 1)]
        tp = tp.groupby(["stratum", "replicate"])["count"].sum()
        assert (tp.reindex(r.index, fill_value=0) == r["tp"]).all()
    # dropped (tied) items are in no stratum: fewer than N items scored
    assert (n.loc["all"] < 120).any()


def test_joint_and_pair_paths():
    # joint=True takes the collapsed path under "auto", also with a theta prior
    kw = dict(n_items=40, replicates=20, seed=1, expected=False)
    items = Panel(theta_prior=("beta", 3, 1))
    assert (simulate(items, **kw).summary["method"] == "explicit").all()
    assert (simulate(items, outputs=["joint"], **kw).summary["method"] == "collapsed").all()
    # with joint=True the collapsed path draws the joint outcome table (every labeller
    # folded in) instead of one split per labeller: other draws, the same distribution
    a = simulate(Panel(theta=0.7), n_items=40, replicates=3000, seed=3, method="collapsed").summary
    b = simulate(Panel(theta=0.7), n_items=40, replicates=3000, seed=3, outputs=["joint"]).summary
    assert (a["method"] == "collapsed").all() and (b["method"] == "collapsed").all()
    assert not np.array_equal(a["mean"], b["mean"])
    z = (a["mean"] - b["mean"]) / np.hypot(a["se"], b["se"])
    assert (z[a["sd"] > 0].abs() < 4).all(), z.abs().max()
    with pytest.raises(ValueError, match="a ModelPair needs method='collapsed'"):
        simulate(Coin(p_d=0.7), [ModelPair(0.8, 0.7)], n_items=40, replicates=5, method="explicit")
    with pytest.raises(ValueError, match="joint=True needs method='collapsed'"):
        simulate(Coin(p_d=0.7), n_items=40, replicates=5, method="explicit", outputs=["joint"])
    with pytest.raises(ValueError, match="unique"):
        simulate(Coin(p_d=0.7), ["expert", ModelPair(0.8, 0.7, names=("expert", "B"))])


def test_joint_serial_equals_parallel():
    kw = dict(n_items=90, replicates=300, seed=2, outputs=["joint"])
    items, labs = Panel(theta=0.7, m=0.4, panel_size=5), [ModelPair(0.8, 0.7, 0.3), "random"]
    a = simulate(items, labs, parallel=True, **kw)
    b = simulate(items, labs, parallel=False, **kw)
    pd.testing.assert_frame_equal(a.joint, b.joint)
    pd.testing.assert_frame_equal(a.summary, b.summary)


# --------------------------------------------------------------------------- any L, fixed theta
@dataclass(frozen=True)
class _Confusion(Model):
    """A model with a fixed confusion matrix P(prediction h | modal label c) (test helper)."""

    rows: tuple = ()

    def own_matrix(self, n_labels, class_prior=None):
        return np.asarray(self.rows, dtype=float)


def _confusion(n_labels, seed):
    """An asymmetric confusion matrix with some zeros, as nested tuples."""
    rng = np.random.default_rng(seed)
    m = rng.dirichlet(np.ones(n_labels) * 0.7, size=n_labels) + 3 * np.eye(n_labels)
    m[rng.random(m.shape) < 0.2] = 0.0
    m[np.arange(n_labels), (np.arange(n_labels) + 1) % n_labels] += 0.1
    return tuple(map(tuple, m / m.sum(axis=1, keepdims=True)))


def _any_l_labellers(n_labels):
    # the kernel draws the first two with the truth in one table, the others one by one
    return (_Confusion(rows=_confusion(n_labels, 1), name="C1"), "expert",
            _Confusion(rows=_confusion(n_labels, 2), name="C2"), "random")


def _spy_run(kw, fast=True):
    """Run one cell through _run_cell; (its tables, the kernels it called)."""
    from labelvar.engine import _simulate as sim
    from labelvar.engine._spec import _Spec

    items = Panel(theta=kw["p_d"], m=kw["m"], n_labels=kw["n_labels"],
                  panel_size=kw["panel_size"], tie_rule=kw["tie_rule"])
    spec = _Spec.build(items, kw["labellers"], kw["n_items"], kw["replicates"], kw["seed"], (),
                       "explicit")
    cell = spec.cells()[0]
    used = set()
    kernels = sim.KERNELS[True]

    def spy(name):
        def call(*args):
            used.add(name)
            return getattr(kernels, name)(*args)
        return call

    names = [f for f in kernels._fields if f != "parallel"]
    spied = kernels._replace(**{name: spy(name) for name in names})
    tables = sim._run_cell(cell, spec, cell.key(spec), spied, False,
                           {"raw": True, "joint": False}, fast=fast)
    return tables, used


def test_any_l_kernel_is_the_explicit_path_and_thread_count_invariant():
    import numba

    kw = dict(p_d=0.6, m=0.3, n_items=150, n_labels=4, panel_size=5, replicates=300, seed=4,
              labellers=_any_l_labellers(4))
    _, used = _spy_run({**kw, "tie_rule": "random"})
    assert used == {"symmetric"}  # explicit_symmetric
    items = Panel(theta=0.6, m=0.3, n_labels=4, panel_size=5)
    run = dict(n_items=150, replicates=300, seed=4, outputs=["raw"], expected=False,
               method="explicit")
    serial = simulate(items, _any_l_labellers(4), parallel=False, **run).raw
    threads = numba.get_num_threads()
    try:
        for n in {1, min(2, numba.config.NUMBA_NUM_THREADS)}:
            numba.set_num_threads(n)
            pd.testing.assert_frame_equal(simulate(items, _any_l_labellers(4), parallel=True,
                                                   **run).raw, serial, check_exact=True)
    finally:
        numba.set_num_threads(threads)


@pytest.mark.parametrize("kw", [dict(n_labels=3, panel_size=4, tie_rule="random"),
                                dict(n_labels=3, panel_size=7, tie_rule="drop"),
                                dict(n_labels=3, panel_size=5, tie_rule=1),
                                dict(n_labels=4, panel_size=3, tie_rule=2),
                                dict(n_labels=4, panel_size=4, tie_rule="drop"),
                                dict(n_labels=10, panel_size=5, tie_rule="random"),
                                dict(n_labels=10, panel_size=7, tie_rule=0, theta=0.4)])
def test_any_l_kernel_matches_exact_expectations(kw):
    """Every labeller x stratum x metric within 4.5 SE of the engine's exact expectation."""
    kw = {"theta": 0.65, **kw}
    df = simulate(Panel(m=0.3, **kw), _any_l_labellers(kw["n_labels"]), n_items=90,
                  replicates=2000, seed=31, method="explicit").summary
    checked = 0
    rows = df[df["metric"] != "f1"]  # no exact F1 mean in panel mode
    for _, row in rows.iterrows():
        assert not np.isnan(row["expected"]), (row["labeller"], row["stratum"], row["metric"])
        if row["sd"] <= 1e-9:  # no spread (theta, or a stratum seen once): z undefined
            assert abs(row["mean"] - row["expected"]) <= 10 / row["replicates"] + 1e-9
            continue
        assert abs(row["z"]) < 4.5, (row["labeller"], row["stratum"], row["metric"], row["z"])
        checked += 1
    assert checked >= (rows["metric"] != "theta").sum() - 3  # some strata: all replicates alike


def test_any_l_kernel_agrees_with_the_generic_kernel_in_distribution():
    """Per labeller and stratum: mean n / correct / tp of both kernels within 4.5 SE."""
    kw = dict(p_d=0.6, m=0.3, n_items=120, n_labels=3, panel_size=4, tie_rule=1,
              labellers=_any_l_labellers(3), replicates=3000)
    new, used_new = _spy_run({**kw, "seed": 1})
    ref, used_ref = _spy_run({**kw, "seed": 2}, fast=False)
    assert used_new == {"symmetric"} and used_ref == {"generic"}
    a = new["raw"].groupby(["labeller", "stratum"])
    b = ref["raw"].groupby(["labeller", "stratum"])
    assert set(a.groups) == set(b.groups)
    for field in ("n", "correct", "tp"):
        ma, mb = a[field].mean(), b[field].mean()
        se = np.hypot(a[field].std() / np.sqrt(a[field].count()),
                      b[field].std() / np.sqrt(b[field].count()))
        z = ((ma - mb) / se)[se > 0]
        assert (z.abs() < 4.5).all(), (field, z[z.abs() >= 4.5])
        assert (ma[se == 0] == mb[se == 0]).all()
