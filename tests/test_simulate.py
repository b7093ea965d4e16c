"""labelvar.simulate: coin mode against the closed forms, input checks, reproducibility."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import row as _row
from scipy import stats

import labelvar
from labelvar import analytic
from labelvar.models import Model
from labelvar.simulate import SUMMARY_COLUMNS, simulate

REPO = Path(__file__).resolve().parents[1]




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
        df = simulate(p_d=p_d, m=m, n_items=n, replicates=4000, seed=5, thresholds=[0.7],
                      method=method)
        assert (df["method"] == method).all()
        n_pos = int(analytic.n_positives(m, n))
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
    df = simulate(p_d=0.9, n_items=10, replicates=20_000, seed=2, thresholds=[0.8],
                  labellers=["expert"])
    row = _row(df, metric="prob_accuracy_ge")
    assert row["expected"] == pytest.approx(analytic.prob_accuracy_at_least(0.9, 10, 0.8))
    assert abs(row["z"]) < 4


def test_multiclass_coin_mode():
    df = simulate(p_d=0.55, m=0.4, n_items=150, n_labels=[3, 4], replicates=3000, seed=9,
                  labellers=["expert", "random", "prior", Model(accuracy=0.7, name="A")])
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
    df = simulate(p_d=0.8, m=0.2, n_items=60, replicates=4000, seed=4, positives="bernoulli",
                  labellers=["expert", "constant"])
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
    df, raw = simulate(p_d=[0.6, 0.9], m=0.3, n_items=[50, 80], replicates=500, seed=0,
                       thresholds=[0.5, 0.8], return_raw=True)
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


def test_package_level_call_and_exports():
    df = labelvar.simulate(p_d=0.7, n_items=30, replicates=50, labellers=[
        labelvar.Model(accuracy=0.6, name="m1"), labelvar.Constant(label=0, name="zero")])
    assert sorted(df["labeller"].unique()) == ["m1", "zero"]


# --------------------------------------------------------------------------- reproducibility
def test_cell_is_identical_alone_or_in_a_grid():
    big = simulate(p_d=[0.6, 0.75, 0.9], m=[0.1, 0.5], n_items=[40, 90], replicates=300,
                   seed=123, expected=False)
    alone = simulate(p_d=0.75, m=0.5, n_items=90, replicates=300, seed=123, expected=False)
    sub = big[(big.p_d == 0.75) & (big.m == 0.5) & (big.n_items == 90)].reset_index(drop=True)
    pd.testing.assert_frame_equal(sub, alone)
    again = simulate(p_d=0.75, m=0.5, n_items=90, replicates=300, seed=123, expected=False)
    pd.testing.assert_frame_equal(again, alone)
    other = simulate(p_d=0.75, m=0.5, n_items=90, replicates=300, seed=124, expected=False)
    assert not np.allclose(other["mean"], alone["mean"])


@pytest.mark.parametrize("kw", [dict(mode="coin", method="collapsed"),
                                dict(mode="coin", method="explicit"),
                                dict(mode="panel", method="explicit", panel_size=4),
                                dict(mode="coin", n_labels=3, method="explicit")])
def test_serial_equals_parallel(kw):
    a = simulate(p_d=0.7, m=0.3, n_items=64, replicates=200, seed=8, expected=False,
                 parallel=True, **kw)
    b = simulate(p_d=0.7, m=0.3, n_items=64, replicates=200, seed=8, expected=False,
                 parallel=False, **kw)
    pd.testing.assert_frame_equal(a, b)


_SCRIPT = """
import sys
from labelvar.simulate import simulate
df = simulate(p_d=[0.6, 0.9], m=[0.2], n_items=[70], panel_size=[3, 5], mode="panel",
              replicates=257, seed=42, thresholds=[0.6], method="explicit", expected=False,
              parallel=True)
df2 = simulate(p_d=0.8, m=0.5, n_items=70, replicates=257, seed=42, expected=False,
               parallel=True)
df3 = simulate(p_d=0.7, m=0.4, n_items=90, n_labels=3, mode="panel", panel_size=4,
               theta_prior=None, replicates=131, seed=42, expected=False, parallel=True)
import pandas as pd
pd.concat([df, df2, df3]).to_pickle(sys.argv[1])
"""


def test_identical_under_one_and_two_threads(tmp_path):
    frames = []
    for threads in ("1", "2"):
        out = tmp_path / f"t{threads}.pkl"
        env = dict(os.environ, NUMBA_NUM_THREADS=threads)
        subprocess.run([sys.executable, "-c", _SCRIPT, str(out)], check=True, env=env,
                       cwd=REPO)
        frames.append(pd.read_pickle(out))
    pd.testing.assert_frame_equal(frames[0], frames[1])


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kw,field", [
    (dict(p_d=1.2), "p_d"),
    (dict(p_d=0.7, m=-0.1), "m"),
    (dict(p_d=0.7, n_items=0), "n_items"),
    (dict(p_d=0.7, n_labels=1), "n_labels"),
    (dict(p_d=0.7, mode="panel", panel_size=0), "panel_size"),
    (dict(p_d=0.7, replicates=0), "replicates"),
    (dict(p_d=0.7, labellers=["expert", "guru"]), "labellers"),
    (dict(p_d=0.7, mode="sideways"), "mode"),
    (dict(p_d=0.7, thresholds=[0.5, 1.5]), "thresholds"),
    (dict(p_d=0.4, mode="panel"), r"p_d \(the panel's agreement theta\)"),
    (dict(mode="panel", theta_prior=("beta", 2, 1, 0.2)), r"theta_prior must be in \[1/L, 1\] = \[0.5, 1\]"),
    (dict(mode="panel", theta_prior=("beta", 2, 1), p_d=0.7), "p_d must be None"),
    (dict(p_d=0.7, theta_prior=("beta", 2, 1)), "theta_prior applies"),
    (dict(), "p_d is required"),
    (dict(p_d=0.7, mode="panel", tie_rule="coin"), "tie_rule"),
    (dict(p_d=0.7, mode="panel", tie_rule=2), "tie_rule"),
    (dict(p_d=0.7, positives="some"), "positives"),
    (dict(p_d=0.7, method="fast"), "method"),
    (dict(p_d=0.7, seed=-1), "seed"),
    (dict(p_d=0.7, n_labels=3, class_prior=[0.5, 0.5]), "class_prior"),
    (dict(p_d=0.7, labellers=[Model(sensitivity=0.9, specificity=0.8)], n_labels=3), "n_labels"),
])
def test_bad_input_raises_value_error_naming_field(kw, field):
    kw = {"replicates": 10, **kw}
    with pytest.raises(ValueError, match=field):
        simulate(**kw)


def test_kernels_are_cached_on_disk():
    # cache=True: the compiled kernels have index files next to the module's __pycache__
    cache = REPO / "src" / "labelvar" / "__pycache__"
    names = {p.name.split(".")[1].split("-")[0] for p in cache.glob("_kernels.*.nbi")}
    assert {"explicit_binary", "explicit_generic", "collapsed"} <= names


def test_one_sided_tail_uses_binomial():
    # a direct scipy check of the expected tail for the random labeller (p = 1/2)
    df = simulate(p_d=0.6, m=0.5, n_items=100, replicates=3000, seed=3, thresholds=[0.55],
                  labellers=["random"])
    row = _row(df, metric="prob_accuracy_ge")
    assert row["expected"] == pytest.approx(stats.binom.sf(54, 100, 0.5))
    assert abs(row["z"]) < 4
