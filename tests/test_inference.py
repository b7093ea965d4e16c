"""labelvar.evaluation._inference: tests between bins and between systems, against scipy and by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from labelvar.evaluation import Intervals, Paper
from labelvar.evaluation._inference import BinTestResult, PairedTestResult, bin_tests, paired_test, stars
from labelvar.evaluation._stratified import stratify


def test_stars_levels():
    ps = [0.0, 1e-4, 1.01e-4, 1e-3, 0.0099, 0.01, 0.05, 0.0501, 1.0, float("nan")]
    assert [stars(p) for p in ps] == ["****", "****", "***", "***", "**", "**", "*", "ns", "ns",
                                      ""]


def test_stars_refuse_what_is_not_a_p_value():
    assert stars(1.0 + 2e-16) == "ns"  # rounding above 1 is still a p-value
    for bad in (-1.0, -0.01, 1.5):
        with pytest.raises(ValueError, match=r"^p must be a p-value in \[0, 1\], got"):
            stars(bad)


def test_bin_tests_against_scipy_and_formula():
    rng = np.random.default_rng(0)
    rows = []
    for task in range(6):
        for sysname in ("x", "y"):
            for stratum, mu, sd in (("0.60", 0.0, 0.02), ("1.00", 0.2, 0.1)):
                rows.append(dict(task=str(task), system=sysname, role="system", metric="f1",
                                 stratum=stratum, delta_human=rng.normal(mu, sd)))
    t = pd.DataFrame(rows)
    r = bin_tests(t)
    assert isinstance(r, BinTestResult)
    a = t[t.stratum == "0.60"].delta_human.to_numpy()
    b = t[t.stratum == "1.00"].delta_human.to_numpy()
    welch = (a.mean() - b.mean()) / np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    assert r.welch_t == pytest.approx(welch)
    assert r.welch_p == pytest.approx(stats.ttest_ind(a, b, equal_var=False).pvalue)
    lev = stats.levene(a, b, center="trimmed", proportiontocut=0.1)
    assert r.levene_stat == pytest.approx(lev.statistic)
    assert r.levene_p == pytest.approx(lev.pvalue)
    row = r.table.iloc[0]
    assert row.n_a == 12 and row.n_b == 12 and row.welch_p == r.welch_p
    assert stars(r.welch_p) == "****"
    # statistics only: no display columns baked in
    assert r.table.columns.tolist() == [
        "metric", "value", "stratum_a", "stratum_b", "n_a", "n_b", "mean_a", "mean_b", "sd_a",
        "sd_b", "welch_t", "welch_p", "levene_stat", "levene_p", "note"]


def test_bin_tests_default_bins_are_the_lowest_and_highest_agreement_over_tasks():
    # task a has bins 0.60 and 1.00, task b only 0.80: in order of appearance 0.80 comes
    # last; the comparison must still be 0.60 vs 1.00
    rows = [dict(task="a", stratum=s, delta_human=d) for s, d in
            (("0.60", 0.0), ("1.00", 0.3), ("all", 0.1))] * 3
    rows += [dict(task="b", stratum=s, delta_human=d) for s, d in
             (("0.80", 0.2), ("all", 0.2))] * 3
    t = pd.DataFrame(rows).assign(role="system", metric="f1")
    t["delta_human"] += np.arange(len(t)) * 1e-3
    r = bin_tests(t)
    assert (r.stratum_a, r.stratum_b) == ("0.60", "1.00")
    r = bin_tests(t, a="0.80", b="0.60")
    assert (r.stratum_a, r.stratum_b) == ("0.80", "0.60")
    with pytest.raises(ValueError, match="stratum '0.70' not in the table"):
        bin_tests(t, a="0.70")
    with pytest.raises(ValueError, match="value must be a column"):
        bin_tests(t, value="nope")


def test_paired_test_against_scipy():
    rows = []
    rng = np.random.default_rng(1)
    for task in "abcde":
        for stratum in ("1.00", "all", "0.60"):  # order of appearance is not the order
            base = rng.random()
            rows.append(dict(task=task, stratum=stratum, metric="f1", system="x", score=base))
            rows.append(dict(task=task, stratum=stratum, metric="f1", system="y",
                             score=base - 0.05 + rng.normal(0, 0.02)))
    t = pd.DataFrame(rows)
    r = paired_test(t, "x", "y")
    assert isinstance(r, PairedTestResult)
    assert (r.system_a, r.system_b, r.metric) == ("x", "y", "f1")
    assert r.table.columns.tolist() == ["stratum", "n", "mean_diff", "sd_diff", "t", "p", "note"]
    res = r.table.set_index("stratum")
    assert res.index.tolist() == ["0.60", "1.00", "all", "pooled"]
    x = t[(t.system == "x") & (t.stratum != "all")].sort_values(["task", "stratum"]).score
    y = t[(t.system == "y") & (t.stratum != "all")].sort_values(["task", "stratum"]).score
    assert res.loc["pooled", "p"] == pytest.approx(stats.ttest_rel(x, y).pvalue)
    assert res.loc["pooled", "n"] == 10
    xs = t[(t.system == "x") & (t.stratum == "0.60")].sort_values("task").score
    ys = t[(t.system == "y") & (t.stratum == "0.60")].sort_values("task").score
    assert res.loc["0.60", "t"] == pytest.approx(stats.ttest_rel(xs, ys).statistic)
    assert res.loc["0.60", "mean_diff"] == pytest.approx(np.mean(xs.to_numpy() - ys.to_numpy()))
    with pytest.raises(ValueError, match="system 'z' not in the table"):
        paired_test(t, "x", "z")


def test_tests_accept_the_result_or_its_table():
    rng = np.random.default_rng(2)
    data = {}
    for k in range(4):
        truth = (rng.random(60) < 0.4).astype(int)
        panel = np.where(rng.random((60, 5)) < 0.8, truth[:, None], 1 - truth[:, None])
        data[f"t{k}"] = (panel, {"a": np.where(rng.random(60) < 0.85, truth, 1 - truth),
                                 "b": np.where(rng.random(60) < 0.7, truth, 1 - truth)})
    result = stratify(data, intervals=Intervals(n_resamples=0), paper=Paper(replicates=2))
    for fn, args in ((bin_tests, ()), (paired_test, ("a", "b"))):
        pd.testing.assert_frame_equal(fn(result, *args).table, fn(result.table, *args).table)
    with pytest.raises(TypeError, match="StratifiedResult or its table"):
        bin_tests({"role": []})


def test_a_metric_the_table_lacks_or_only_small_bins_are_named_as_such():
    # used to say "system 'x' not in the table; systems: " (empty) and "got []"
    t = pd.DataFrame([dict(task=k, stratum=s, metric="accuracy", system=n, role="system",
                           score=0.5, delta_human=0.1, small_bin=s != "all")
                      for k in "abc" for s in ("0.60", "1.00", "all") for n in "xy"])
    with pytest.raises(ValueError, match=r"^metric 'f1' not in the table; metrics: accuracy$"):
        paired_test(t, "x", "y")
    with pytest.raises(ValueError, match=r"^metric 'f1' not in the table; metrics: accuracy$"):
        bin_tests(t)
    with pytest.raises(ValueError, match=r"^need at least 2 bins to compare, got \[\] \(small "
                                         r"bins enter no test: 0\.60, 1\.00\)$"):
        bin_tests(t, metric="accuracy")
    # the pooled pairs leave small bins out: only 'all' is tested, 3 tasks, no difference
    r = paired_test(t, "x", "y", metric="accuracy").table.set_index("stratum")
    assert r.index.tolist() == ["all", "pooled"] and r.loc["all", "n"] == 3
    assert r.loc["pooled", "n"] == 0 and r.loc["all", "mean_diff"] == 0.0


def test_test_results_describe_themselves_from_their_table():
    """Every result has describe() -> str: the tests' one line, from their own table."""
    from labelvar.evaluation import Intervals
    from labelvar.evaluation._inference import bin_tests, paired_test
    from labelvar.evaluation._stratified import stratify
    from labelvar.io import synthetic_panel

    tasks = {}
    for k in range(3):
        df = synthetic_panel(150, seed=k).set_index("item")
        tasks[f"t{k}"] = (df.filter(like="gt"), df[["strong", "weak", "human1", "human2"]])
    r = stratify(tasks, humans=["human1", "human2"], intervals=Intervals(n_resamples=0))
    bt = bin_tests(r, metric="accuracy")
    assert bt.describe().startswith(f"delta_human (accuracy), bin 0.60 against 1.00: Welch "
                                    f"p = {bt.welch_p:.4g}, Levene p = {bt.levene_p:.4g}")
    pt = paired_test(r, "strong", "weak", metric="accuracy")
    pooled = pt.table.set_index("stratum").loc["pooled"]
    assert pt.describe() == (f"strong − weak (accuracy), pooled over tasks x bins: mean "
                             f"difference {pooled.mean_diff:.4g}, p = {pooled.p:.4g}")
