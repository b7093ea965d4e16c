"""labelvar.evaluation._stratified (stratify, its result, paper_table) on small hand-checked data.

Checked against scipy, exact enumeration, the one metrics definition and its numba twin.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import labelvar
from labelvar import _kernels, analytic
from labelvar._kernels.metrics import _finish_replicate
from labelvar.evaluation import Intervals, Labels, Paper, Truth
from labelvar.evaluation._stratified import (
    COLUMNS,
    ExcludedItemsWarning,
    StratifiedResult,
    paper_table,
    stratify,
    stratum_order,
)

# 8 items, 5 votes each: observed agreement 0.6, 0.6, 0.8, 0.8, 0.8, 1, 1, 1
PANEL = np.array([
    [1, 1, 1, 0, 0],   # maj 1, 0.6
    [0, 0, 0, 1, 1],   # maj 0, 0.6
    [1, 1, 1, 1, 0],   # maj 1, 0.8
    [0, 0, 0, 0, 1],   # maj 0, 0.8
    [0, 1, 0, 0, 0],   # maj 0, 0.8
    [1, 1, 1, 1, 1],   # maj 1, 1.0
    [0, 0, 0, 0, 0],   # maj 0, 1.0
    [1, 1, 1, 1, 1],   # maj 1, 1.0
])
MAJ = np.array([1, 0, 1, 0, 0, 1, 0, 1])
PRED = {
    "sys": [1, 1, 1, 0, 1, 1, 0, 0],
    "dr1": [1, 0, 1, 0, 0, 1, 0, 1],
    "dr2": [0, 0, 1, 1, 0, 1, 0, 1],
}


def _metrics_into(conf, theta_sum, res):
    """The engine's metrics of one confusion matrix ``conf[truth, pred]`` into ``res``."""
    _finish_replicate(conf.reshape((1, 1) + conf.shape), np.full(1, theta_sum),
                      res.reshape((1, 1, res.shape[0])))


def _row(t, system, stratum, metric):
    r = t[(t.system == system) & (t.stratum == stratum) & (t.metric == metric)]
    assert len(r) == 1, (system, stratum, metric)
    return r.iloc[0]


def _f1(truth, pred, pos=1):
    truth, pred = np.asarray(truth), np.asarray(pred)
    tp = np.sum((truth == pos) & (pred == pos))
    fp = np.sum((truth != pos) & (pred == pos))
    fn = np.sum((truth == pos) & (pred != pos))
    return 0.0 if 2 * tp + fp + fn == 0 else 2 * tp / (2 * tp + fp + fn)


def tab(*args, **kwargs) -> pd.DataFrame:
    """The tidy table of ``stratify(*args, **kwargs)``."""
    return stratify(*args, **kwargs).table


@pytest.fixture(scope="module")
def result():
    return stratify(PANEL, PRED, humans=["dr1", "dr2"], seed=1,
                    intervals=Intervals(n_resamples=300))


@pytest.fixture(scope="module")
def table(result):
    return result.table


def test_columns_and_strata(table):
    assert list(table.columns) == list(COLUMNS)
    assert list(dict.fromkeys(table.stratum)) == ["0.60", "0.80", "1.00", "all"]
    s = table.drop_duplicates("stratum").set_index("stratum")
    assert s.S.tolist() == [2, 3, 3, 8]
    np.testing.assert_allclose(s.m, [0.5, 1 / 3, 2 / 3, 0.5])
    np.testing.assert_allclose(s.agreement.iloc[:3], [0.6, 0.8, 1.0])
    assert np.isnan(s.agreement.loc["all"])
    assert set(table.role) == {"system", "human", "H"}


def test_scores_by_hand(table):
    groups = {"0.60": [0, 1], "0.80": [2, 3, 4], "1.00": [5, 6, 7], "all": list(range(8))}
    for stratum, idx in groups.items():
        for name, pred in PRED.items():
            p = np.asarray(pred)[idx]
            assert _row(table, name, stratum, "accuracy").score == pytest.approx(
                np.mean(p == MAJ[idx]))
            assert _row(table, name, stratum, "f1").score == pytest.approx(_f1(MAJ[idx], p))


def test_human_group_mean_sd_and_gaps(table):
    for stratum in ("0.60", "0.80", "1.00", "all"):
        for metric in ("accuracy", "f1"):
            hs = [_row(table, h, stratum, metric).score for h in ("dr1", "dr2")]
            h = _row(table, "H", stratum, metric)
            assert h.score == pytest.approx(np.mean(hs))
            assert h.sd == pytest.approx(np.std(hs, ddof=1))
            s = _row(table, "sys", stratum, metric)
            assert s.delta_human == pytest.approx(h.score - s.score)
            assert s.delta_expected == pytest.approx(s.expected - s.score)
            assert h.delta_expected == pytest.approx(h.expected - h.score)


def test_expected_per_bin_and_all(table):
    # per bin: the closed forms at (p_d, m)
    assert _row(table, "sys", "0.80", "accuracy").expected == pytest.approx(0.8)
    assert _row(table, "sys", "0.80", "f1").expected == pytest.approx(
        2 * (1 / 3) * 0.8 / (2 * (1 / 3) * 0.8 + 0.2))
    # all: the paper's stratified equations, written out
    n, m, p = np.array([2, 3, 3]), np.array([0.5, 1 / 3, 2 / 3]), np.array([0.6, 0.8, 1.0])
    prec = np.sum(n * m * p) / np.sum(n * (m * p + (1 - p) * (1 - m)))
    rec = np.sum(n * m * p) / np.sum(n * m)
    assert _row(table, "sys", "all", "f1").expected == pytest.approx(2 * prec * rec / (prec + rec))
    assert _row(table, "sys", "all", "accuracy").expected == pytest.approx(np.sum(n * p) / 8)


def test_p_d_one_replaces_unanimous_bins_only():
    t = tab(PANEL, PRED, humans=["dr1", "dr2"], intervals=Intervals(n_resamples=0),
            paper=Paper(p_d_one=0.97))
    assert _row(t, "sys", "1.00", "accuracy").expected == pytest.approx(0.97)
    assert _row(t, "sys", "1.00", "accuracy").agreement == 1.0  # the bin keeps its observed value
    assert _row(t, "sys", "0.80", "accuracy").expected == pytest.approx(0.8)
    e = analytic.stratified_expectation([0.6, 0.8, 0.97], [0.5, 1 / 3, 2 / 3], [2, 3, 3])
    assert _row(t, "sys", "all", "f1").expected == pytest.approx(e.f1)
    assert _row(t, "sys", "all", "accuracy").expected == pytest.approx(e.accuracy)


def test_human_round():
    t = tab(PANEL, PRED, humans=["dr1", "dr2"], intervals=Intervals(n_resamples=0),
            paper=Paper(human_round=1))
    hs = [round(_row(t, h, "0.80", "f1").score, 1) for h in ("dr1", "dr2")]
    assert _row(t, "H", "0.80", "f1").score == pytest.approx(np.mean(hs))


def test_wilson_interval_matches_formula(table):
    r = _row(table, "sys", "all", "accuracy")
    k, n, z = 5, 8, stats.norm.ppf(0.975)
    centre = (k + z**2 / 2) / (n + z**2)
    half = z / (n + z**2) * np.sqrt(k * (n - k) / n + z**2 / 4)
    assert r.ci_low == pytest.approx(centre - half, rel=1e-9)
    assert r.ci_high == pytest.approx(centre + half, rel=1e-9)


def test_bootstrap_f1_interval_against_independent_bootstrap():
    rng = np.random.default_rng(5)
    truth = (rng.random(200) < 0.4).astype(int)
    pred = np.where(rng.random(200) < 0.8, truth, 1 - truth)
    panel = np.column_stack([truth] * 3)
    t = tab(panel, {"s": pred}, metrics=["f1"], seed=3, intervals=Intervals(n_resamples=4000))
    r = _row(t, "s", "all", "f1")
    # independent percentile bootstrap (python loop, other seed)
    g = np.random.default_rng(99)
    vals = []
    for _ in range(4000):
        i = g.integers(0, 200, 200)
        vals.append(_f1(truth[i], pred[i]))
    lo, hi = np.quantile(vals, [0.025, 0.975])
    assert r.ci_low < r.score < r.ci_high
    assert r.ci_low == pytest.approx(lo, abs=0.01)
    assert r.ci_high == pytest.approx(hi, abs=0.01)


def test_p_random_accuracy_is_binomial_and_poisson_binomial(table):
    r = _row(table, "sys", "all", "accuracy")  # 5 of 8 correct
    assert r.p_random == pytest.approx(stats.binom.sf(4, 8, 0.5))
    # prior-matched: P(correct on item i) = frequency of its majority label (0.5 each here)
    assert r.p_random_prior == pytest.approx(stats.binom.sf(4, 8, 0.5))
    r = _row(table, "sys", "0.80", "accuracy")  # bin labels 1,0,0: prior (2/3, 1/3)
    probs = np.array([1 / 3, 2 / 3, 2 / 3])
    k = round(r.score * 3)
    pmf = np.array([1.0])
    for q in probs:
        pmf = np.convolve(pmf, [1 - q, q])
    assert r.p_random_prior == pytest.approx(pmf[k:].sum())


def test_p_random_f1_by_enumeration():
    # a labeller saying "positive" with probability r: enumerate all 2^n prediction vectors
    truth = np.array([1, 1, 0, 0, 0, 1, 0])
    panel = np.column_stack([truth] * 3)
    pred = np.array([1, 0, 0, 1, 0, 1, 0])
    t = tab(panel, {"s": pred}, metrics=["f1"], intervals=Intervals(n_resamples=0))
    r = _row(t, "s", "all", "f1")
    obs = _f1(truth, pred)
    for r_pos, got in ((0.5, r.p_random), (3 / 7, r.p_random_prior)):
        tot = 0.0
        for bits in itertools.product([0, 1], repeat=truth.size):
            b = np.array(bits)
            if _f1(truth, b) >= obs - 1e-12:
                tot += np.prod(np.where(b == 1, r_pos, 1 - r_pos))
        assert got == pytest.approx(tot, rel=1e-9)


def test_simulated_human_matches_p_d_within_standard_errors():
    rng = np.random.default_rng(0)
    n = 600
    top = rng.choice([3, 4, 5], size=n)
    panel = np.array([[1] * k + [0] * (5 - k) for k in top])
    panel = np.array([rng.permutation(row) for row in panel])
    draws = 40
    t = tab(panel, None, metrics=["accuracy"], seed=2, intervals=Intervals(n_resamples=0),
            paper=Paper(replicates=draws, leave_one_out=True))
    for stratum, p, p_loo in (("0.60", 0.6, 0.3), ("0.80", 0.8, 0.8), ("1.00", 1.0, 1.0)):
        h = _row(t, "H'", stratum, "accuracy")
        loo = _row(t, "H'-loo", stratum, "accuracy")
        se = np.sqrt(p * (1 - p) / (h.S * draws))
        se_loo = np.sqrt(p_loo * (1 - p_loo) / (h.S * draws))
        assert abs(h.score - p) <= 4 * se + 1e-12
        assert abs(loo.score - p_loo) <= 4 * se_loo + 1e-12
        assert h.expected == pytest.approx(p)


def test_ties_random_first_drop():
    panel = np.array([["a", "b", "c"], ["a", "a", "b"]] * 200, dtype=object)
    pred = {"s": ["a", "a"] * 200}
    t = tab(panel, pred, metrics=["accuracy"], truth=Truth(tie_rule="lowest"),
            intervals=Intervals(n_resamples=0))
    assert _row(t, "s", "0.33", "accuracy").score == 1.0  # the first label, "a"
    t = tab(panel, pred, metrics=["accuracy"], seed=4, truth=Truth(tie_rule="random"),
            intervals=Intervals(n_resamples=0))
    sc = _row(t, "s", "0.33", "accuracy").score  # "a" chosen about 1/3 of the time
    assert abs(sc - 1 / 3) <= 4 * np.sqrt(2 / 9 / 200)
    assert sc not in (0.0, 1.0)  # really random, not the first or the last label
    t2 = tab(panel, pred, metrics=["accuracy"], seed=4, truth=Truth(tie_rule="random"),
             intervals=Intervals(n_resamples=0))
    pd.testing.assert_frame_equal(t, t2)
    with pytest.warns(ExcludedItemsWarning, match="200 tied"):
        r = stratify(panel, pred, metrics=["accuracy"], truth=Truth(tie_rule="drop"),
                     intervals=Intervals(n_resamples=0))
    assert set(r.table.stratum) == {"0.67", "all"}
    assert r.excluded["task"]["tied"] == 200
    assert not r.table.attrs  # no side channel


def test_user_bins():
    t = tab(PANEL, PRED, bins=[0.5, 0.7, 1.0], metrics=["accuracy"],
            intervals=Intervals(n_resamples=0))
    s = t.drop_duplicates("stratum").set_index("stratum")
    assert s.index.tolist() == ["[0.50, 0.70)", "[0.70, 1.00]", "all"]
    assert s.S.tolist() == [2, 6, 8]
    assert s.agreement.iloc[1] == pytest.approx(0.9)  # mean observed agreement of the bin
    with pytest.raises(ValueError, match="do not cover"):
        stratify(PANEL, PRED, bins=[0.7, 1.0], intervals=Intervals(n_resamples=0))
    with pytest.raises(ValueError, match="increasing"):
        stratify(PANEL, PRED, bins=[0.7, 0.5, 1.0], intervals=Intervals(n_resamples=0))


def test_multiclass_macro_f1_and_one_vs_rest():
    panel = np.array([["e", "e", "n"], ["c", "c", "c"], ["n", "n", "e"], ["e", "e", "e"]] * 5,
                     dtype=object)
    maj = np.array(["e", "c", "n", "e"] * 5)
    pred = np.array(["e", "c", "e", "n"] * 5)
    t = tab(panel, {"m": pred}, intervals=Intervals(n_resamples=0))
    r = _row(t, "m", "all", "f1")
    macro = np.mean([_f1(maj, pred, c) for c in ("c", "e", "n")])
    assert r.score == pytest.approx(macro)
    assert np.isnan(r.expected) and np.isnan(r.m)  # no closed form for macro-F1
    assert _row(t, "m", "all", "accuracy").n_labels == 3
    assert _row(t, "m", "all", "accuracy").p_random == pytest.approx(
        stats.binom.sf(round(0.5 * 20) - 1, 20, 1 / 3))
    t = tab(panel, {"m": pred}, labels=Labels(pos_label="e"), intervals=Intervals(n_resamples=0))
    r = _row(t, "m", "all", "f1")
    assert r.score == pytest.approx(_f1(maj, pred, "e"))
    assert r.m == pytest.approx(0.5)


def test_ordinal_three_raters_bins():
    panel = np.array([[1, 2, 3], [4, 4, 5], [5, 5, 5], [2, 2, 1]])
    t = tab(panel, {"m": [2, 4, 4, 2]}, metrics=["accuracy"], truth=Truth(tie_rule="lowest"),
            intervals=Intervals(n_resamples=0))
    assert list(dict.fromkeys(t.stratum)) == ["0.33", "0.67", "1.00", "all"]
    assert _row(t, "m", "0.67", "accuracy").score == 1.0
    assert _row(t, "m", "0.33", "accuracy").expected == pytest.approx(1 / 3)


def test_missing_votes_and_panel_sizes():
    panel = np.array([[1, 1, None, 0], [0, 0, 0, None], [1, None, None, None],
                      [None, None, None, None], [1, 1, 0, 0]], dtype=object)
    with pytest.warns(ExcludedItemsWarning, match="1 with no votes, 1 with one vote"):
        r = stratify(panel, {"s": [1, 0, 1, 0, 1]}, metrics=["accuracy"],
                     truth=Truth(tie_rule="lowest"), intervals=Intervals(n_resamples=0))
    assert r.excluded["task"] == {"no_votes": 1, "one_vote": 1, "tied": 0,
                                  "no_prediction": 0}
    s = r.table.drop_duplicates("stratum").set_index("stratum")
    assert s.index.tolist() == ["0.50", "0.67", "1.00", "all"] and s.S.loc["all"] == 3


@pytest.mark.parametrize("kwargs, match", [
    (dict(predictions={"s": [1, 0]}), r"has 2 labels but the panel has 8 items"),
    (dict(predictions={"s": [1, 0, 2, 0, 0, 1, 0, 1]}), r"labels outside the label set.*2"),
    (dict(labels=[0, 2]), r"panel of task 'task' has labels outside the label set"),
    (dict(labels=Labels(pos_label=3)), r"pos_label: 3 is not in the label set"),
    (dict(humans=["drX"]), r"humans: 'drX' is not among the predictions"),
    (lambda: dict(truth=Truth(tie_rule="coin")), r"tie_rule must be one of"),
    (lambda: dict(intervals=Intervals(confidence_level=1.0)), r"confidence_level must be in \(0, 1\)"),
    (dict(seed=-1), r"seed must be an int in \[0, 2\*\*63 - 1\]"),
    (dict(metrics=["auc"]), r"metrics must be one of"),
    (lambda: dict(paper=Paper(p_d_one=1.5)), r"p_d_one must be in \[0, 1\]"),
    (dict(predictions={"s": [1, None, 1, 0, 0, 1, 0, 1]}), r"missing for 1 item"),
])
def test_bad_input(kwargs, match):
    kw = dict(predictions=PRED, intervals=Intervals(n_resamples=0))
    with pytest.raises(ValueError, match=match):  # (an option object checks on creation)
        kw.update(kwargs() if callable(kwargs) else kwargs)
        pred = kw.pop("predictions")
        stratify(PANEL, pred, **kw)


def test_bad_input_panel_shapes_and_positive():
    with pytest.raises(ValueError, match="at least 2 annotators"):
        stratify(np.array([[1], [0]]), {"s": [1, 0]})
    with pytest.raises(ValueError, match="never occurs"):
        stratify([["a", "a"], ["b", "a"]], {"s": ["a", "a"]},
                 labels=Labels(["a", "b", "z"], pos_label="z"))
    with pytest.raises(ValueError, match="say which is the positive class"):
        stratify([["yes", "no"], ["no", "no"]], {"s": ["no", "no"]})
    with pytest.raises(ValueError, match="no item left"):
        stratify(np.array([[1, None], [None, 0]], dtype=object), {"s": [1, 0]})


def test_missing_drop_counts():
    pred = dict(PRED, sys=[1, None, 1, 0, 1, 1, 0, 0])
    with pytest.warns(ExcludedItemsWarning, match="1 without a prediction"):
        r = stratify(PANEL, pred, missing="drop", intervals=Intervals(n_resamples=0))
    assert _row(r.table, "dr1", "all", "accuracy").S == 7
    assert r.excluded["task"]["no_prediction"] == 1


def test_missing_drop_applies_to_every_task():
    # regression: a reused variable turned missing="drop" into "error" after the first task
    lacking = dict(PRED, sys=[1, None, 1, 0, 1, 1, 0, 0])
    data = {"A": (PANEL, PRED), "B": (PANEL, lacking)}
    with pytest.warns(ExcludedItemsWarning, match="B: 0 with no votes, 0 with one vote, "
                                                  "1 without a prediction"):
        r = stratify(data, humans=["dr1"], missing="drop", intervals=Intervals(n_resamples=0))
    assert r.excluded["A"]["no_prediction"] == 0 and r.excluded["B"]["no_prediction"] == 1
    s = r.table[r.table.stratum == "all"].groupby("task").S.first()
    assert s.to_dict() == {"A": 8, "B": 7}
    with pytest.raises(ValueError, match=r"predictions\['sys'\] \(task 'B'\) is missing"):
        stratify(data, humans=["dr1"], intervals=Intervals(n_resamples=0))


def test_binary_string_labels_with_positive_given_as_text():
    panel = [["pos", "pos", "neg"], ["neg", "neg", "neg"], ["pos", "pos", "pos"]]
    t = tab(panel, {"s": ["pos", "neg", "neg"]}, labels=Labels(pos_label="pos"),
            intervals=Intervals(n_resamples=0))
    assert _row(t, "s", "all", "f1").score == pytest.approx(2 / 3)
    # the CLI passes text
    t = tab(PANEL, PRED, labels=Labels(pos_label="1"), intervals=Intervals(n_resamples=0))
    assert _row(t, "sys", "all", "f1").m == 0.5


def test_dataframe_inputs_and_seed_reproducible():
    panel = pd.DataFrame(PANEL, columns=list("abcde"))
    preds = pd.DataFrame(PRED)
    t1 = tab(panel, preds, humans=["dr1"], seed=7, intervals=Intervals(n_resamples=50),
             paper=Paper(replicates=3))
    t2 = tab(panel, preds, humans=["dr1"], seed=7, intervals=Intervals(n_resamples=50),
             paper=Paper(replicates=3))
    pd.testing.assert_frame_equal(t1, t2)
    t3 = tab(panel, preds, humans=["dr1"], seed=8, intervals=Intervals(n_resamples=50),
             paper=Paper(replicates=3))
    assert not t1.equals(t3)


def test_multi_task_mapping_and_package_attribute():
    data = {"A": (PANEL, PRED), "B": (PANEL[::-1], {k: v[::-1] for k, v in PRED.items()})}
    assert labelvar.stratify is stratify
    t = labelvar.stratify(data, humans=["dr1", "dr2"], intervals=Intervals(n_resamples=0)).table
    assert list(dict.fromkeys(t.task)) == ["A", "B"]
    a, b = t[t.task == "A"].reset_index(drop=True), t[t.task == "B"].reset_index(drop=True)
    np.testing.assert_allclose(a.score, b.score)
    with pytest.raises(ValueError, match="predictions must be None"):
        stratify(data, PRED)


def test_paper_table_layout(table):
    p = paper_table(table, "sys", digits=2)
    assert p.columns.tolist()[:5] == ["task", "agreement", "S", "m", "f1 AI"]
    assert "f1 Δ(H−AI)" in p.columns and "accuracy Δ(E−AI)" in p.columns
    assert "f1 H sd" not in p.columns  # folded into "mean±sd"
    row = p[p.agreement == "0.80"].iloc[0]
    h = _row(table, "H", "0.80", "f1")
    assert row["f1 H"] == f"{h.score:.2f}±{h.sd:.2f}"
    assert p.agreement.tolist() == ["0.60", "0.80", "1.00", "all"]


def test_paper_table_numbers_are_the_tidy_tables_values(table):
    """Without digits every cell is the number of the tidy table (not its text)."""
    p = paper_table(table, "sys")
    assert p.agreement.tolist() == ["0.60", "0.80", "1.00", "all"]
    assert p["S"].dtype.kind == "i" and p["f1 AI"].dtype.kind == "f"
    for stratum, agreement in (("0.80", "0.80"), ("all", "all")):
        row = p[p.agreement == agreement].iloc[0]
        h, ai = _row(table, "H", stratum, "f1"), _row(table, "sys", stratum, "f1")
        assert row["S"] == h.S and row["m"] == h.m
        assert row["f1 H"] == h.score and row["f1 H sd"] == h.sd and row["f1 E"] == h.expected
        assert row["f1 AI"] == ai.score and row["f1 Δ(H−AI)"] == ai.delta_human
        assert row["f1 Δ(E−AI)"] == pytest.approx(h.expected - ai.score)
    text = paper_table(table, "sys", digits=3)  # the same numbers, printed
    assert text["f1 AI"].tolist() == [f"{x:.3f}" for x in p["f1 AI"]]
    assert text["m"].tolist() == [f"{x:.4f}" for x in p["m"]]
    with pytest.raises(ValueError, match=r"digits must be None \(numbers\) or a whole number"):
        paper_table(table, "sys", digits=2.5)


def test_no_warnings_on_clean_input():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stratify(PANEL, PRED, humans=["dr1", "dr2"], intervals=Intervals(n_resamples=20),
                 paper=Paper(replicates=2))


def test_numeric_text_labels_are_one_label():
    t = tab([["1", "1", "0"], [0, 0, "0"]], {"s": [1.0, "0"]}, labels=["0", "1"],
            intervals=Intervals(n_resamples=0))
    assert _row(t, "s", "all", "accuracy").score == 1.0


def test_one_vs_rest_multiclass_has_no_closed_form_expectation():
    panel = np.array([["e", "e", "n"], ["c", "c", "c"], ["n", "n", "e"]] * 4, dtype=object)
    t = tab(panel, {"m": ["e", "c", "e"] * 4}, labels=Labels(pos_label="e"),
            intervals=Intervals(n_resamples=0))
    r = _row(t, "m", "all", "f1")
    assert np.isnan(r.expected)
    # random labeller saying "e" with probability 1/3, by enumeration over 12 items
    truth = np.array(["e", "c", "n"] * 4)
    pred = np.array(["e", "c", "e"] * 4)
    obs = _f1(truth, pred, "e")
    tot = 0.0
    for bits in itertools.product([0, 1], repeat=12):
        b = np.array(bits)
        if _f1(truth == "e", b == 1, True) >= obs - 1e-12:
            tot += np.prod(np.where(b == 1, 1 / 3, 2 / 3))
    assert r.p_random == pytest.approx(tot, rel=1e-9)


def test_dataframe_predictions_aligned_by_item_id():
    panel = pd.DataFrame(PANEL, index=[f"i{k}" for k in range(8)])
    preds = pd.DataFrame(PRED, index=panel.index)
    t1 = tab(panel, preds, intervals=Intervals(n_resamples=0))
    t2 = tab(panel, preds.iloc[::-1], intervals=Intervals(n_resamples=0))
    pd.testing.assert_frame_equal(t1, t2)
    bad = preds.set_axis([f"j{k}" for k in range(8)])
    with pytest.raises(ValueError, match="index does not match the panel's item ids"):
        stratify(panel, bad, intervals=Intervals(n_resamples=0))


def test_bootstrap_over_raters_against_independent_loop():
    rng = np.random.default_rng(11)
    n = 60
    truth = (rng.random(n) < 0.5).astype(int)
    panel = np.where(rng.random((n, 5)) < 0.7, truth[:, None], 1 - truth[:, None])
    pred = np.where(rng.random(n) < 0.8, truth, 1 - truth)
    t = tab(panel, {"s": pred}, metrics=["accuracy"], seed=5,
            intervals=Intervals(n_resamples=4000, resample_raters=True))
    r = _row(t, "s", "all", "accuracy")
    # independent implementation: resample items, redraw each item's 5 votes, majority
    g = np.random.default_rng(123)
    vals = []
    for _ in range(4000):
        items = g.integers(0, n, n)
        votes = panel[items][np.arange(n)[:, None], g.integers(0, 5, (n, 5))]
        maj = (votes.sum(axis=1) >= 3).astype(int)
        vals.append(np.mean(maj == pred[items]))
    lo, hi = np.quantile(vals, [0.025, 0.975])
    assert r.ci_low == pytest.approx(lo, abs=0.02)
    assert r.ci_high == pytest.approx(hi, abs=0.02)


def test_bootstrap_over_raters_on_unanimous_panel_is_the_item_bootstrap():
    truth = np.array([1, 0] * 30)
    panel = np.column_stack([truth] * 3)
    pred = np.where(np.arange(60) % 4 == 0, 1 - truth, truth)  # 45/60 correct
    t = tab(panel, {"s": pred}, metrics=["f1"], seed=2,
            intervals=Intervals(n_resamples=4000, resample_raters=True))
    u = tab(panel, {"s": pred}, metrics=["f1"], seed=2, intervals=Intervals(n_resamples=4000))
    a, b = _row(t, "s", "all", "f1"), _row(u, "s", "all", "f1")
    assert a.ci_low == pytest.approx(b.ci_low, abs=0.02)
    assert a.ci_high == pytest.approx(b.ci_high, abs=0.02)





# --------------------------------------------------------------------------- result object
def test_result_object(result, table):
    assert isinstance(result, StratifiedResult)
    assert result.tasks == ["task"] and result.systems == ["sys"]
    assert result.humans == ["dr1", "dr2"] and result.metrics == ["accuracy", "f1"]
    assert result.seed == 1
    assert result.excluded == {"task": {"no_votes": 0, "one_vote": 0, "tied": 0,
                                        "no_prediction": 0}}
    assert not table.attrs
    with pytest.raises(AttributeError):
        result.seed = 2  # frozen
    # paper_table: method, function on the result, function on the table: one layout
    pd.testing.assert_frame_equal(result.paper_table("sys"), paper_table(table, "sys"))
    pd.testing.assert_frame_equal(paper_table(result, "sys", digits=3),
                                  paper_table(table, "sys", digits=3))
    with pytest.raises(TypeError, match="StratifiedResult or its table"):
        paper_table([1, 2], "sys")


# --------------------------------------------------------------------------- one metrics definition
def _from_confusion(conf):
    """Truth and prediction codes with confusion matrix ``conf[truth, pred]``."""
    pairs = [(a, b) for a in range(conf.shape[0]) for b in range(conf.shape[1])
             for _ in range(conf[a, b])]
    truth, pred = (np.array(x) for x in zip(*pairs, strict=True))
    return truth, pred


@pytest.mark.parametrize("conf", [
    np.array([[5, 1, 0], [2, 6, 0], [0, 0, 0]]),   # label 2 declared, never used
    np.array([[5, 1, 0], [2, 6, 2], [0, 0, 0]]),   # label 2 predicted, never true
    np.array([[4, 1, 1, 0], [0, 3, 0, 2], [1, 0, 5, 0], [0, 0, 0, 0]]),
])
def test_macro_f1_equals_the_engines_on_the_same_confusion_matrix(conf):
    """stratify and the engine's kernel (labelvar._kernels.metrics._finish_replicate) agree."""
    n_labels = conf.shape[0]
    truth, pred = _from_confusion(conf)
    panel = np.column_stack([truth] * 3)  # unanimous: the majority is ``truth``
    t = tab(panel, {"s": pred}, labels=list(range(n_labels)), intervals=Intervals(n_resamples=0))
    res = np.zeros(_kernels.N_FIELDS)
    _metrics_into(conf.astype(np.int64), 0.0, res)
    fields = list(_kernels.FIELDS)
    r = _row(t, "s", "all", "f1")
    assert r.score == pytest.approx(res[fields.index("f1")], rel=1e-12)
    assert _row(t, "s", "all", "accuracy").score == pytest.approx(res[fields.index("accuracy")])
    # the declared label set counts: an unused label scores 0, it is not left out
    per_label = [_f1(truth, pred, c) for c in range(n_labels)]
    assert r.score == pytest.approx(np.mean(per_label))
    if not conf[:, -1].any() and not conf[-1].any():
        assert r.score == pytest.approx(np.mean(per_label[:-1]) * (n_labels - 1) / n_labels)


def test_binary_f1_equals_the_engines_on_the_same_confusion_matrix():
    conf = np.array([[50, 10], [5, 35]])
    truth, pred = _from_confusion(conf)
    t = tab(np.column_stack([truth] * 3), {"s": pred}, metrics=["f1"],
            intervals=Intervals(n_resamples=0))
    res = np.zeros(_kernels.N_FIELDS)
    _metrics_into(conf.astype(np.int64), 0.0, res)
    assert _row(t, "s", "all", "f1").score == pytest.approx(res[list(_kernels.FIELDS).index("f1")])
    assert _row(t, "s", "all", "f1").score == pytest.approx(70 / 85)


def test_macro_f1_per_bin_counts_labels_absent_from_the_bin():
    # bin 1.00 holds only label "c", all right: F1 1 for "c", 0 (0/0) for "e" and "n"
    panel = np.array([["c", "c", "c"], ["e", "e", "n"], ["n", "n", "e"]] * 3, dtype=object)
    pred = np.array(["c", "e", "n"] * 3)
    t = tab(panel, {"m": pred}, metrics=["f1"], intervals=Intervals(n_resamples=0))
    assert _row(t, "m", "1.00", "f1").score == pytest.approx(1 / 3)
    assert _row(t, "m", "0.67", "f1").score == pytest.approx(2 / 3)
    assert _row(t, "m", "all", "f1").score == pytest.approx(1.0)


def test_bootstrap_f1_interval_uses_the_declared_labels():
    # every resample has F1 1/3 over 3 declared labels (only "c" occurs, predicted right)
    panel = np.array([["c"] * 3] * 20, dtype=object)
    t = tab(panel, {"m": ["c"] * 20}, labels=["c", "e", "n"], metrics=["f1"],
            intervals=Intervals(n_resamples=50))
    r = _row(t, "m", "all", "f1")
    assert r.score == r.ci_low == r.ci_high == pytest.approx(1 / 3)


# --------------------------------------------------------------------------- seeds
RANDOM_PARTS = dict(humans=["dr1"], intervals=Intervals(n_resamples=200),
                    paper=Paper(replicates=3, leave_one_out=True))


def test_seed_none_is_drawn_recorded_and_repeatable():
    r = stratify(PANEL, PRED, seed=None, **RANDOM_PARTS)
    assert isinstance(r.seed, int) and 0 <= r.seed <= 2**63 - 1
    again = stratify(PANEL, PRED, seed=r.seed, **RANDOM_PARTS)
    pd.testing.assert_frame_equal(r.table, again.table)


def test_large_seeds_are_exact():
    big = [stratify(PANEL, PRED, seed=s, **RANDOM_PARTS) for s in (2**53, 2**53 + 1, 2**63 - 1)]
    assert [r.seed for r in big] == [2**53, 2**53 + 1, 2**63 - 1]
    assert not big[0].table.equals(big[1].table)  # through a float they would collide
    g = stratify(PANEL, PRED, seed=np.random.default_rng(3), **RANDOM_PARTS)
    assert g.seed == stratify(PANEL, PRED, seed=np.random.default_rng(3), **RANDOM_PARTS).seed


def test_a_task_gets_the_same_numbers_alone_or_with_others():
    ties = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 1, 1, 0]] * 5)  # 2-2 ties: random majority
    other = (ties, {"sys": [1, 0, 1] * 5, "dr1": [0, 0, 1] * 5})
    kw = dict(RANDOM_PARTS, seed=11)
    alone = stratify({"B": (PANEL, PRED)}, **kw).table
    both = stratify({"A": other, "B": (PANEL, PRED)}, **kw).table
    pd.testing.assert_frame_equal(alone, both[both.task == "B"].reset_index(drop=True))
    # and a rater's interval does not depend on the other raters evaluated
    fewer = stratify({"B": (PANEL, {"sys": PRED["sys"], "dr1": PRED["dr1"]})}, **kw).table
    for stratum in ("0.60", "all"):
        a, b = _row(alone, "sys", stratum, "f1"), _row(fewer, "sys", stratum, "f1")
        assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)


# --------------------------------------------------------------------------- strata order
def test_stratum_order_is_numeric():
    assert stratum_order(["all", "1.00", "0.60", "0.33", "0.60"]) == ["0.33", "0.60", "1.00", "all"]
    assert stratum_order(["pooled", "[0.70, 1.00]", "all", "[0.05, 0.70)"]) == [
        "[0.05, 0.70)", "[0.70, 1.00]", "all", "pooled"]
    # as text "1.0" < "10" < "9"; as numbers 1 < 9 < 10 (e.g. bins labelled in percent)
    assert stratum_order(["10", "9", "1.0"]) == ["1.0", "9", "10"]


def test_paper_table_orders_bins_numerically_per_task(table):
    shuffled = table.sample(frac=1.0, random_state=0)
    p = paper_table(shuffled, "sys")
    assert p.agreement.tolist() == ["0.60", "0.80", "1.00", "all"]
    pd.testing.assert_frame_equal(p, paper_table(table, "sys"))


# --------------------------------------------------------------------------- progress and large inputs
def test_progress_bar_only_when_asked_or_on_a_terminal(capsys):
    panel = [[1, 1, 0], [0, 0, 0], [1, 1, 1], [0, 1, 1]] * 5
    pred = {"ai": [1, 0, 0, 1] * 5}
    a = stratify(panel, pred, intervals=Intervals(n_resamples=50, min_bin_size=1))
    assert capsys.readouterr().err == ""  # pytest's stderr is no terminal
    b = stratify(panel, pred, intervals=Intervals(n_resamples=50, min_bin_size=1))
    pd.testing.assert_frame_equal(a.table, b.table)
    capsys.readouterr()  # the forced bar (shown after its delay, if at all)
    stratify(panel, pred, intervals=Intervals(n_resamples=50, min_bin_size=1))
    assert capsys.readouterr().err == ""


def test_multinomial_item_bootstrap_matches_index_resampling():
    """The confusion of an item resample is multinomial: same percentile interval."""
    rng = np.random.default_rng(3)
    n = 400
    panel = (rng.random((n, 5)) < 0.7).astype(int)
    pred = (rng.random(n) < 0.6).astype(int)
    r = stratify(panel, {"ai": pred}, metrics=["f1"], truth=Truth(tie_rule="lowest"),
                 intervals=Intervals(n_resamples=4000))
    row = r.table[(r.table.stratum == "all")].iloc[0]
    truth = (panel.sum(axis=1) >= 3).astype(int)
    idx = rng.integers(0, n, size=(4000, n))
    from labelvar.metrics import _scores as _metrics

    vals = _metrics.score("f1", truth[idx], pred[idx], 2, pos_label=1)
    lo, hi = np.quantile(vals, [0.025, 0.975])
    assert abs(row.ci_low - lo) < 0.01 and abs(row.ci_high - hi) < 0.01


def test_panel_labels_canonicalised_once_per_distinct_value():
    """Mixed spellings of one label ('1', 1, 1.0, ' 1 ') are one label; 'nan'/'' missing."""
    panel = pd.DataFrame({"a": ["1", " 0", "nan", 1], "b": [1.0, 0, 0, "1"],
                          "c": [1, "", 0.0, 1]}, dtype=object)
    r = stratify(panel, {"ai": ["1", 0, 0.0, 1]},
                 intervals=Intervals(n_resamples=0, min_bin_size=1))
    assert r.inputs["task"]["labels"] == {0: 4, 1: 6}
    assert r.table.loc[r.table.stratum == "all", "score"].iloc[0] == 1.0


def _coin_mixture(levels):
    """The paper's stratified E (section 2.1) over (items, m, p_d) levels, written out."""
    n, m, p = (np.array(x, float) for x in zip(*levels, strict=True))
    tp, fp, fn = np.sum(n * m * p), np.sum(n * (1 - m) * (1 - p)), np.sum(n * m * (1 - p))
    return {"accuracy": np.sum(n * p) / n.sum(), "precision": tp / (tp + fp),
            "recall": tp / (tp + fn), "f1": 2 * tp / (2 * tp + fp + fn)}


def test_user_bin_spanning_agreement_levels_gets_the_mixture_expectation():
    # bin [0.70, 1.00] holds 3 items at 0.8 (majority 1, 0, 0: m = 1/3) and 3 unanimous
    # ones (1, 0, 1: m = 2/3). E there is the coin model over both levels, each at its
    # own p_d (p_d_one = 0.97 for the unanimous ones), not the closed form at the bin's
    # mean agreement 0.9 (which also ignored p_d_one: the mean is not 1).
    metrics = ["accuracy", "precision", "recall", "f1"]
    t = tab(PANEL, PRED, bins=[0.5, 0.7, 1.0], metrics=metrics,
            intervals=Intervals(n_resamples=0), paper=Paper(p_d_one=0.97))
    want = _coin_mixture([(3, 1 / 3, 0.8), (3, 2 / 3, 0.97)])
    want_all = _coin_mixture([(2, 0.5, 0.6), (3, 1 / 3, 0.8), (3, 2 / 3, 0.97)])
    for metric in metrics:
        assert _row(t, "sys", "[0.70, 1.00]", metric).expected == pytest.approx(want[metric])
        assert _row(t, "sys", "all", metric).expected == pytest.approx(want_all[metric])
    assert want["accuracy"] == pytest.approx((3 * 0.8 + 3 * 0.97) / 6)
    assert _row(t, "sys", "[0.70, 1.00]", "accuracy").agreement == pytest.approx(0.9)
    # a bin of one level is unchanged: the closed form at its agreement
    assert _row(t, "sys", "[0.50, 0.70)", "f1").expected == pytest.approx(
        _coin_mixture([(2, 0.5, 0.6)])["f1"])


def test_agreement_of_a_bin_is_its_exact_level_and_no_minus_zero(tmp_path):
    """Issue 31: ten items at 3 of 5 votes gave agreement 0.5999999999999999 in the tidy
    CSV (a float mean of ten 0.6); the paper layout printed "-0.00" for a gap that rounds
    to 0; and the stratum "all" was "All" in one table and "all" in the other."""
    panel = [[1, 1, 1, 0, 0]] * 10 + [[1, 1, 1, 1, 1]] * 10
    r = stratify(panel, {"s": [1] * 20}, metrics=["accuracy"],
                 intervals=Intervals(n_resamples=0))
    assert r.table.loc[r.table.stratum == "0.60", "agreement"].iloc[0] == 0.6
    from labelvar._base._files import write_results

    write_results(r.table, tmp_path / "t.csv")
    assert "0.5999999999999999" not in (tmp_path / "t.csv").read_text()
    assert r.paper_table("s", digits=2).agreement.tolist() == ["0.60", "1.00", "all"]
    from labelvar.evaluation._paper_layout import _fixed

    assert (_fixed(-0.004, 2), _fixed(-0.0, 2), _fixed(-0.005001, 2)) == ("0.00", "0.00", "-0.01")
    # a gap of -0.001 is printed 0.00 in the paper layout
    n = pd.DataFrame({"task": ["t"], "agreement": ["all"], "S": [5], "m": [0.5],
                      "accuracy AI": [0.501], "accuracy E": [0.5],
                      "accuracy Δ(E−AI)": [-0.001]})
    from labelvar.evaluation._paper_layout import _as_text

    assert _as_text(n, ["accuracy"], "H", False, 2)["accuracy Δ(E−AI)"].tolist() == ["0.00"]


def test_figure_captions_of_the_guides_print_their_stars_as_written():
    """Issue 31: the Figure 7 caption's raw asterisks ("Welch ****") inside an italic
    caption were read as emphasis, changing the significance it reports; stars are code."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    for page in [root / "docs" / "guides" / "stratified.md", *sorted(
            (root / "docs" / "tutorials").glob("*.md"))]:
        text = page.read_text()
        for caption in re.findall(r"^\*Figure.*?\*$", text, flags=re.M | re.S):
            outside_code = re.sub(r"`[^`]*`", "", caption[1:-1])
            assert "*" not in outside_code, f"{page.name}: raw asterisks in {caption[:60]!r}"
