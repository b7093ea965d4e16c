"""stratify's sizes refused before allocating, bootstraps in bounded memory, the
comparison report with probabilities, paper_table on a foreign table, ASCII terminals."""

from __future__ import annotations

import io as _io
from contextlib import redirect_stderr

import numpy as np
import pandas as pd
import pytest
from tests.test_stratify_cli import EXAMPLE, run

from labelvar.cli import main
from labelvar.evaluation import Intervals, Paper, _bins
from labelvar.evaluation import _inference as inference
from labelvar.evaluation._stratified import MAX_DRAW_CELLS, paper_table, stratify
from labelvar.report import _writers as report


@pytest.mark.parametrize("kw, message", [
    (lambda: dict(intervals=Intervals(n_resamples=10**10)),
     r"n_resamples must be <= 1000000, got 10000000000"),
    (lambda: dict(intervals=Intervals(n_resamples=10**9)), r"n_resamples must be <= 1000000"),
    (lambda: dict(paper=Paper(replicates=10**8)), r"replicates must be <= 10000, got 100000000"),
])
def test_limits_refused_before_allocating(kw, message):
    with pytest.raises(ValueError, match=message):  # (the option object checks on creation)
        stratify([[0, 1], [1, 1], [0, 0]], {"m": [0, 1, 0]}, **kw())


def test_draws_times_items_refused():
    n = MAX_DRAW_CELLS // 5000 + 1
    panel = np.zeros((n, 2), dtype=np.int8)
    panel[::2, 1] = 1
    with pytest.raises(ValueError, match=r"replicates: 5,000 draws x 40,001 items of task "
                       r"'task' is more than 2e\+08 draws x items; ask for at most 4,999 draws"):
        stratify(panel, intervals=Intervals(n_resamples=0), paper=Paper(replicates=5000))


@pytest.mark.parametrize("flag, value, message", [
    ("--n-resamples", "1000000000", "labelvar: error: --n-resamples must be <= 1000000, got 1000000000"),
    ("--simulated-human", "100000000",
     "labelvar: error: --simulated-human must be <= 10000, got 100000000"),
])
def test_cli_limits(flag, value, message):
    code, out, err = run("stratify", EXAMPLE, "--panel", "gt*", "--systems", "strong",
                         "--item", "item", flag, value)
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [message]


def test_chunked_bootstrap_draws_the_same_resamples(monkeypatch):
    rng = np.random.default_rng(4)
    a = rng.random(501) < 0.7
    b = rng.random(501) < 0.6

    def diff(d):
        return a[d].mean(axis=-1) - b[d].mean(axis=-1)

    whole = inference.paired_bootstrap(diff, 501, 300, np.random.default_rng(9), stacked=True)
    # an independent loop over one (n_boot, n) draw: the oracle of the blocks
    draws = np.random.default_rng(9).integers(0, 501, size=(300, 501))
    d = diff(draws)
    assert whole.ci_low == pytest.approx(np.quantile(d, 0.025), abs=1e-15)
    assert whole.ci_high == pytest.approx(np.quantile(d, 0.975), abs=1e-15)
    monkeypatch.setattr(_bins, "BOOT_CELLS", 1000)  # 1 resample per block
    assert len(_bins.boot_chunks(300, 501, _bins.BOOT_CELLS)) == 300
    small = inference.paired_bootstrap(diff, 501, 300, np.random.default_rng(9), stacked=True)
    assert small == whole
    # and stratify's comparison (McNemar + paired bootstrap of F1) is the same in blocks
    panel = np.where(rng.random((501, 3)) < 0.8, a[:, None], ~a[:, None]).astype(int)
    kw = dict(seed=3, intervals=Intervals(n_resamples=200))
    preds = {"x": a.astype(int), "y": b.astype(int)}
    blocked = stratify(panel, preds, **kw).compare("x", "y").table
    monkeypatch.setattr(_bins, "BOOT_CELLS", 1 << 22)
    pd.testing.assert_frame_equal(blocked, stratify(panel, preds, **kw).compare("x", "y").table)


def test_compare_across_tasks_with_probabilities(tmp_path):
    rng = np.random.default_rng(1)
    data = {}
    for task in ("t1", "t2", "t3"):
        truth = (rng.random(80) < 0.5).astype(int)
        panel = pd.DataFrame(np.where(rng.random((80, 3)) < 0.8, truth[:, None],
                                      1 - truth[:, None]), columns=["g1", "g2", "g3"])
        preds = pd.DataFrame({"a": np.where(rng.random(80) < 0.8, truth, 1 - truth),
                              "b": np.where(rng.random(80) < 0.7, truth, 1 - truth)})
        probs = {"a": pd.Series(np.clip(truth * 0.5 + rng.random(80) * 0.5, 0, 1))}
        data[task] = (panel, preds, probs)
    r = stratify(data, intervals=Intervals(n_resamples=50))
    paired = report.paired_tests(r, ("a", "b"))
    assert set(paired) == {"accuracy", "f1"}  # auroc: only a has probabilities
    files = report.write_stratify_report(r, tmp_path / "out", compare=("a", "b"), paired=paired,
                                         comparisons=r.compare("a", "b"), figures=False)
    assert {"paired_accuracy.csv", "paired_f1.csv", "comparisons.csv"} <= {p.name for p in files}
    # the t-test on the table's own scores (scipy) is what was written
    from scipy import stats

    t = r.table[(r.table.metric == "accuracy") & (r.table.stratum == "all")]
    sa = t[t.system == "a"].set_index("task").score
    sb = t[t.system == "b"].set_index("task").score
    row = paired["accuracy"].table.set_index("stratum").loc["all"]
    assert row.p == pytest.approx(stats.ttest_rel(sa, sb.loc[sa.index]).pvalue)


def test_paper_table_on_a_foreign_table():
    with pytest.raises(ValueError, match=r"paper_table: the table has no column 'task', "
                       r"'system'.*; give the result of stratify \(or its table\)"):
        paper_table(pd.DataFrame({"a": [1], "b": [2]}))


def test_ascii_terminal_gets_ascii_headers(monkeypatch):
    raw = _io.BytesIO()
    stream = _io.TextIOWrapper(raw, encoding="ascii")
    monkeypatch.setattr("sys.stdout", stream)
    err = _io.StringIO()
    with redirect_stderr(err):
        code = main(["stratify", str(EXAMPLE), "--panel", "gt*", "--systems", "strong",
                     "--humans", "human*", "--item", "item", "--n-resamples", "0"])
    stream.flush()
    out = raw.getvalue().decode("ascii")
    assert code == 0, err.getvalue()
    assert "f1 D(H-AI)" in out and "f1 D(E-AI)" in out and "+/-" in out
    # a UTF-8 stream keeps the symbols
    code, out, _ = run("stratify", EXAMPLE, "--panel", "gt*", "--systems", "strong",
                       "--humans", "human*", "--item", "item", "--n-resamples", "0")
    assert "f1 Δ(H−AI)" in out
