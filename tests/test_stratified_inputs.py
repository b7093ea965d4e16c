"""stratify() inputs on the Python side: understood, not guessed; bins and tests honest."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from labelvar import bin_tests, paired_test, paper_table, stratify
from labelvar.evaluation import DataNoteWarning, Intervals, Labels, Paper, Truth
from labelvar.io import TaskData
from labelvar.plots import plot_delta_by_bin, plot_stratified_scores


def binary_panel(n=400, k=5, seed=0):
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < 0.3
    votes = np.where(rng.random((n, k)) < 0.8, truth[:, None], ~truth[:, None]).astype(int)
    return pd.DataFrame(votes, columns=[f"r{j + 1}" for j in range(k)])


# --------------------------------------------------------------------------- panel only
def test_panel_only_reports_h_prime_e_and_chance():
    r = stratify(binary_panel(), intervals=Intervals(n_resamples=0))  # no systems, no humans: H' with 5 draws
    t = r.table
    assert set(t.role) == {"H'", "H'-loo"}  # leave-one-out by default, self-inclusive beside
    assert t.expected.notna().all() and t.chance.notna().all()
    acc = t[t.metric == "accuracy"]
    assert (acc.chance == 0.5).all()
    p = r.paper_table()
    assert {"f1 H'-loo", "f1 H' (self-incl.)", "f1 E", "f1 chance",
            "accuracy chance"} <= set(p.columns)
    loo = t[(t.role == "H'-loo") & (t.stratum == "all") & (t.metric == "f1")].iloc[0]
    assert p.loc[p.agreement == "all", "f1 H'-loo sd"].item() == loo.sd  # over the draws
    text = r.paper_table(digits=2)
    assert text.loc[text.agreement == "all", "f1 H'-loo"].item() == f"{loo.score:.2f}±{loo.sd:.2f}"
    r = stratify(binary_panel(), intervals=Intervals(n_resamples=0),
                 paper=Paper(leave_one_out=False))  # the paper's Table 4
    assert set(r.table.role) == {"H'"}
    assert {"f1 H'", "f1 E"} <= set(r.paper_table().columns)
    with pytest.raises(ValueError, match="nothing to score"):
        stratify(binary_panel(), intervals=Intervals(n_resamples=0), paper=Paper(replicates=0))


def test_with_raters_no_h_prime_by_default():
    panel = binary_panel()
    r = stratify(panel, {"ai": panel.r1.to_numpy()[::-1]}, intervals=Intervals(n_resamples=0))
    assert "H'" not in set(r.table.role)


# --------------------------------------------------------------------------- partial coverage
def test_paper_table_only_tasks_the_system_covers():
    a, b = binary_panel(seed=1), binary_panel(seed=2)
    data = {"A": (a, {"ai": a.r1.to_numpy()[::-1], "dr": a.r2.to_numpy()[::-1]}),
            "B": (b, {"dr": b.r3.to_numpy()[::-1]})}
    r = stratify(data, humans=["dr"], intervals=Intervals(n_resamples=0))
    p = r.paper_table("ai")
    assert set(p.task) == {"A"}
    assert set(r.paper_table().task) == {"A", "B"}


# --------------------------------------------------------------------------- stray labels
def stray_panel(stray):
    panel = binary_panel(n=400, k=5).astype(object)  # 2,000 votes
    panel.iat[7, 2] = stray
    return panel


def test_one_stray_label_among_2000_binary_votes_is_refused():
    with pytest.raises(ValueError, match=r"occurs in 1 of 2,000 votes .*looks like a stray "
                                         r"value; pass labels=\[0, 1\] to drop it"):
        stratify(stray_panel(2), intervals=Intervals(n_resamples=0))


# --------------------------------------------------------------------------- label values
# Tables given to stratify directly are refused as the same table in a file is
# (labelvar.io._labels): one kind per task, no inf, booleans apart, however frequent.
def odd_panel(value, every):
    """binary_panel's 2,000 votes as objects, ``value`` in column r3 of every ``every``-th item."""
    panel = binary_panel(n=400, k=5).astype(object)
    panel.iloc[7::every, 2] = value
    return panel


@pytest.mark.parametrize("every", [3, 10**6])  # 131 votes, or the one of item 7
@pytest.mark.parametrize("value", ["yes", "maybe "])
def test_text_among_numbers_refused_in_a_frame_however_frequent(value, every):
    # before: 131 votes "yes" became a third label (one "yes": the stray message)
    n = len(range(7, 400, every))
    msg = (rf"^panel: the labels of task 'task' mix numbers and text: column 'r3' holds "
           rf"'{value}' \(item 7; {n} of 2,000 votes\), column 'r1' holds \d \(item 0\); they "
           r"must be all numbers, all text or all booleans \(empty and NaN cells: missing\): "
           r"correct them, or declare the label set \(labels=\.\.\.\)")
    with pytest.raises(ValueError, match=msg):
        stratify(odd_panel(value, every), intervals=Intervals(n_resamples=0))
    with pytest.raises(ValueError, match=msg.replace("task 'task'", "task 't'")):
        stratify({"t": (odd_panel(value, every), None)},  # a mapping of tasks
                 intervals=Intervals(n_resamples=0))
    # declared: values outside the set go through the stray handling, as documented
    if every == 3:
        with pytest.raises(ValueError, match=rf"labels outside the label set \{{0, 1\}}: "
                                             rf"'{value.strip()}' \({n} of 2,000 votes\)"):
            stratify(odd_panel(value, every), labels=[0, 1], intervals=Intervals(n_resamples=0))
    else:
        with pytest.warns(DataNoteWarning, match=r"1 of 2,000 votes outside the label set"):
            r = stratify(odd_panel(value, every), labels=[0, 1],
                         intervals=Intervals(n_resamples=0))
        assert sum(r.inputs["task"]["labels"].values()) == 1999
        kept = stratify(odd_panel(value, every), labels=[0, 1, value.strip()],
                        intervals=Intervals(n_resamples=0))
        assert list(kept.inputs["task"]["labels"]) == [0, 1, value.strip()]


@pytest.mark.parametrize("value, shown", [(np.inf, "inf"), (-np.inf, "-inf"), ("inf", "'inf'"),
                                          ("-Infinity", "'-Infinity'")])
def test_inf_refused_in_a_frame_however_frequent(value, shown):
    # before: a frequent inf became a label (only a rare one was refused, as a stray)
    msg = (rf"^panel: column 'r3' of task 'task' holds {shown} \(item 7; 131 of 2,000 votes\): "
           r"a label is text or a finite number \(empty and NaN cells are missing\); correct "
           r"them, or declare the label set \(labels=\.\.\.\) to treat it as a stray value$")
    with pytest.raises(ValueError, match=msg):
        stratify(odd_panel(value, 3), intervals=Intervals(n_resamples=0))
    floats = binary_panel(n=400, k=5).astype(float)  # a float column, not objects
    floats.iloc[7::3, 2] = np.inf
    with pytest.raises(ValueError, match=r"^panel: column 'r3' of task 'task' holds inf "
                                         r"\(item 7; 131 of 2,000 votes\)"):
        stratify(floats, intervals=Intervals(n_resamples=0))
    with pytest.warns(DataNoteWarning, match=r"1 of 2,000 votes outside the label set"):
        stratify(odd_panel(value, 10**6), labels=[0, 1], intervals=Intervals(n_resamples=0))


def test_booleans_with_numbers_refused_in_a_frame_even_with_labels():
    # before: True was the label 1 (merged unseen), in the panel and in the predictions
    panel = odd_panel(True, 3)
    msg = (r"^panel: the labels of task 'task' mix numbers and booleans: column 'r3' holds True "
           r"\(item 7; 131 of 2,000 votes\), column 'r1' holds \d \(item 0\); .*: booleans do "
           r"not mix with other labels$")
    for labels in (None, [0, 1]):
        with pytest.raises(ValueError, match=msg):
            stratify(panel, labels=labels, intervals=Intervals(n_resamples=0))
    numbers = binary_panel(n=40, k=3)
    ai = (numbers.r1.to_numpy() == 1).tolist()  # booleans
    with pytest.raises(ValueError, match=r"^predictions: the labels of task 'task' mix numbers "
                                         r"and booleans: column 'ai' holds (True|False) \(item 0; "
                                         r"40 of 160 labels\), column 'r1' holds \d \(item 0\)"):
        stratify(numbers, {"ai": ai}, intervals=Intervals(n_resamples=0))
    with pytest.raises(ValueError, match=r"^predictions: the labels of task 'task' mix booleans "
                                         r"and numbers: column 'b' holds 1 \(item 0; 2 of 4 "):
        stratify(TaskData(pd.DataFrame({0: [3, 1], 1: [0, 4]}), {"a": [True, False], "b": [1, 0]},
                          counts=True),
                 intervals=Intervals(n_resamples=0))  # count panels: the systems among themselves
    # an array (no column names, no item ids): rows and a1, a2, ... named
    with pytest.raises(ValueError, match=r"column 'a2' holds True \(item 1; "):
        stratify(np.array([[1, 0, 1], [1, True, 0], [0, 0, 1]], dtype=object),
                 intervals=Intervals(n_resamples=0))


def test_valid_frames_read_as_before():
    ints = binary_panel(n=60, k=3)
    pred = {"ai": ints.r1.to_numpy()[::-1]}
    base = stratify(ints, pred, intervals=Intervals(n_resamples=0)).table
    # numbers as text ("1", "1.0"), booleans with booleans, half-point ratings, text labels
    as_text = pd.DataFrame(np.where(np.arange(60)[:, None] % 2, ints.astype(str),
                                    ints.astype(float).astype(str)), columns=ints.columns)
    assert as_text.iat[0, 0] in ("0.0", "1.0") and as_text.iat[1, 0] in ("0", "1")
    pd.testing.assert_frame_equal(stratify(as_text, pred, intervals=Intervals(n_resamples=0)).table, base)
    bools = ints.astype(bool)
    pd.testing.assert_frame_equal(
        stratify(bools, {"ai": pred["ai"].astype(bool)}, intervals=Intervals(n_resamples=0)).table, base)
    halves = pd.DataFrame({"r1": [1, 1.5, 2, 2.5] * 10, "r2": [1, 1.5, 2, 2] * 10,
                           "r3": [1.5, 1.5, 2, 2.5] * 10})
    r = stratify(halves, {"ai": [1.5] * 40}, metrics=["accuracy"],
                 intervals=Intervals(n_resamples=0))
    assert list(r.inputs["task"]["labels"]) == [1, 1.5, 2, 2.5]
    words = pd.DataFrame({"r1": ["yes", "no", None] * 10, "r2": ["yes", "no", "no"] * 10,
                          "r3": ["no", "no", "yes"] * 10})
    r = stratify(words, {"ai": ["yes"] * 30}, labels=Labels(pos_label="yes"),
                 intervals=Intervals(n_resamples=0))
    assert r.inputs["task"]["labels"] == {"no": 50, "yes": 30}


def test_stray_label_dropped_with_a_note_or_kept():
    with pytest.warns(DataNoteWarning, match=r"1 of 2,000 votes outside the label set \(2: 1\)"):
        r = stratify(stray_panel(2), labels=[0, 1], intervals=Intervals(n_resamples=0))
    t = r.table
    assert (t.n_labels == 2).all() and t.m.notna().all() and t.expected.notna().all()
    assert r.inputs["task"]["votes_min"] == 4 and r.inputs["task"]["labels"] == {
        0: int((binary_panel() == 0).sum().sum()) - (binary_panel().iat[7, 2] == 0), 1: int(
            (binary_panel() == 1).sum().sum()) - (binary_panel().iat[7, 2] == 1)}
    kept = stratify(stray_panel(2), labels=[0, 1, 2], intervals=Intervals(n_resamples=0)).table
    assert (kept.n_labels == 3).all()


def test_common_labels_outside_the_declared_set_are_refused():
    with pytest.raises(ValueError, match=r"labels outside the label set \{0, 2\}: 1 \("):
        stratify(binary_panel(), labels=[0, 2], intervals=Intervals(n_resamples=0))


def test_a_rare_rating_next_to_the_others_is_kept():
    rng = np.random.default_rng(3)
    votes = rng.integers(2, 6, size=(1400, 3)).astype(object)
    votes[:5, 0] = 1  # 5 of 4,200 votes rate 1 (DialSummEval's fluency has 16)
    r = stratify(votes, metrics=["accuracy"], intervals=Intervals(n_resamples=0))
    assert r.table.n_labels.iloc[0] == 5


def test_integer_list_panel_of_more_than_20_labels_is_refused():
    rng = np.random.default_rng(0)
    counts = rng.multinomial(100, [0.2, 0.5, 0.3], size=50)  # read as votes: 0..100
    with pytest.raises(ValueError, match="look like per-label vote counts read as votes; give "
                                         "count vectors as panel_counts"):
        stratify(counts, intervals=Intervals(n_resamples=0))


# --------------------------------------------------------------------------- counts
def test_counts_panel_hand_computed():
    counts = pd.DataFrame([[12, 68, 20], [30, 70, 0], [50, 50, 0], [1, 1, 98], [0, 0, 100],
                           [60, 30, 10]], columns=["e", "n", "c"])
    r = stratify(TaskData(counts, None, counts=True), metrics=["accuracy"], seed=3,
                 truth=Truth(tie_rule="lowest"), intervals=Intervals(n_resamples=0),
                 paper=Paper(replicates=4))
    t = r.table
    s = t.drop_duplicates("stratum").set_index("stratum").S
    assert s.to_dict() == {"0.50": 1, "0.60": 1, "0.68": 1, "0.70": 1, "0.98": 1, "1.00": 1,
                           "all": 6}
    assert r.inputs["task"]["votes_min"] == 100 and r.inputs["task"]["raters"] is None
    # H' by hand: a vote drawn uniformly from the item's 100, in label order
    from labelvar._base import _seeding

    rng = _seeding.generator(3, "simulated_human", "task")
    c = counts.to_numpy()
    majority = np.argmax(c, axis=1)  # tie_rule lowest: 'e' for the 50/50 item
    hits = []
    for _ in range(4):
        j = np.floor(rng.random(6) * 100).astype(int)
        vote = np.array([np.searchsorted(np.cumsum(row), jj, side="right") for row, jj in
                         zip(c, j, strict=True)])
        hits.append(vote == majority)
    hits = np.array(hits, dtype=float)
    h = t[t.role == "H'"].set_index("stratum").score
    assert h["all"] == pytest.approx(hits.mean())
    assert h["0.68"] == pytest.approx(hits[:, 0].mean())
    # majority and agreement: 'n' with 68 of 100
    assert r.table[r.table.stratum == "0.68"].agreement.iloc[0] == pytest.approx(0.68)


def test_counts_match_the_same_votes_given_one_by_one():
    counts = np.array([[3, 2, 0], [0, 5, 0], [1, 1, 3], [4, 0, 1]])
    votes = [sum(([lab] * n for lab, n in enumerate(row)), []) for row in counts]
    pred = {"ai": [0, 1, 2, 1]}
    a = stratify(TaskData(pd.DataFrame(counts, columns=[0, 1, 2]), pred, counts=True),
                 intervals=Intervals(n_resamples=0))
    b = stratify(votes, pred, labels=[0, 1, 2], intervals=Intervals(n_resamples=0))
    cols = ["stratum", "S", "score", "expected", "chance"]
    pd.testing.assert_frame_equal(a.table[cols], b.table[cols])


def test_bad_counts_refused():
    with pytest.raises(ValueError, match=r"item 0 has 1.5 for label 0; counts are whole numbers "
                                         r">= 0$"):
        stratify(TaskData(pd.DataFrame([[1.5, 2], [1, 1]]), None, counts=True),
                 intervals=Intervals(n_resamples=0))
    with pytest.raises(ValueError, match="have 3 columns but labels names 2"):
        stratify(TaskData(np.ones((3, 3), int), None, counts=True), labels=[0, 1],
                 intervals=Intervals(n_resamples=0))


@pytest.mark.parametrize("empty", [np.nan, None, "", "NA"])
def test_empty_count_cells_are_refused_not_counted_as_zero(empty):
    # before: an empty count was 0 votes, unseen (item b: 3 votes e, agreement 1.0)
    counts = pd.DataFrame({"e": [3, 3, 1, 0], "n": [1, empty, 3, 4]}, index=list("abcd"),
                          dtype=object)
    with pytest.raises(ValueError, match=r"^panel counts of task 'task': item 'b' has no count "
                                         r"for label 'n' \(an empty or NaN cell; 1 bad cell\(s\) "
                                         r"in all\); counts are whole numbers >= 0: write 0 for a "
                                         r"label nobody chose, and leave out the items nobody "
                                         r"labelled$"):
        stratify(TaskData(counts, None, counts=True), intervals=Intervals(n_resamples=0))
    counts.loc["b", "n"] = 0  # said so: read as written
    r = stratify(TaskData(counts, None, counts=True), labels=Labels(pos_label="n"),
                 intervals=Intervals(n_resamples=0))
    assert r.inputs["task"]["labels"] == {"e": 7, "n": 8}


# --------------------------------------------------------------------------- rater and system
def test_a_rater_that_is_also_a_system_is_refused():
    panel = binary_panel()
    with pytest.raises(ValueError, match="'r1' is both a panel rater and an evaluated rater "
                                         ".*scored against a majority it voted in"):
        stratify(panel, panel[["r1"]], intervals=Intervals(n_resamples=0))


# --------------------------------------------------------------------------- bins and tests
def gap_table(order=("0.67", "1.00", "0.33"), n=6, agreement=True):
    rng = np.random.default_rng(0)
    means = {"0.33": 0.0, "0.67": 0.1, "1.00": 0.3}
    rows = [dict(task=f"t{i}", system="ai", role="system", metric="f1", stratum=s,
                 delta_human=means[s] + rng.normal(0, 0.05), score=0.5, S=50)
            for s in order for i in range(n)]
    t = pd.DataFrame(rows)
    if agreement:
        t["agreement"] = t.stratum.astype(float)
    return t


@pytest.mark.parametrize("agreement", [True, False])
def test_string_order_bins_compared_numerically(agreement):
    t = gap_table(agreement=agreement)
    r = bin_tests(t)
    assert (r.stratum_a, r.stratum_b) == ("0.33", "1.00")
    xa = t[t.stratum == "0.33"].delta_human
    xb = t[t.stratum == "1.00"].delta_human
    assert r.welch_p == pytest.approx(stats.ttest_ind(xa, xb, equal_var=False).pvalue)
    assert r.levene_p == pytest.approx(stats.levene(xa, xb, center="trimmed").pvalue)
    ax = plot_delta_by_bin(t, tests=r).axes[0]
    ticks = [x.get_text().split("\n")[0] for x in ax.get_xticklabels()]  # line 2: n
    assert ticks == ["0.33", "0.67", "1.00"]


def test_two_per_bin_no_test_no_star():
    t = gap_table(n=2)
    r = bin_tests(t)
    assert np.isnan(r.welch_p) and np.isnan(r.levene_p)
    assert "fewer than 3 values per bin (2 and 2)" in r.table.note.iloc[0]
    texts = [x.get_text() for x in plot_delta_by_bin(t, tests=r).axes[0].texts]
    assert sorted(texts) == ["Levene no test", "Welch no test"]
    assert not any("*" in x for x in texts)


def test_paired_test_needs_three_pairs():
    t = gap_table(n=2).assign(system="x")
    t = pd.concat([t, t.assign(system="y", score=0.4)])
    res = paired_test(t, "x", "y").table.set_index("stratum")
    assert res.p.isna().all() and (res.loc["0.33", "note"] == "no test: fewer than 3 pairs")


def test_small_bins_flagged_and_left_out_of_the_tests():
    panel = binary_panel(n=300, k=4, seed=5)
    preds = {f"s{i}": np.roll(panel.r1.to_numpy(), i + 1) for i in range(4)}
    r = stratify(panel, preds, metrics=["accuracy"],
                 intervals=Intervals(n_resamples=0, min_bin_size=80))
    t = r.table
    sizes = t.drop_duplicates("stratum").set_index("stratum").S
    small = {s for s, n in sizes.items() if s != "all" and n < 80}
    assert small and set(t[t.small_bin].stratum) == small
    assert r.inputs["task"]["small_bins"] == {s: int(sizes[s]) for s in small}
    res = bin_tests(t, metric="accuracy")
    assert res.stratum_a not in small and res.stratum_b not in small
    p = paper_table(t, "s0")
    assert p.set_index("agreement").note.to_dict() == {
        s: ("small bin: no test" if s in small else "") for s in [*sizes.index[:-1], "all"]}
    with pytest.raises(ValueError, match="min_bin_size must be"):
        stratify(panel, preds, intervals=Intervals(min_bin_size=0))


def test_scores_figure_draws_chance_from_the_table():
    t = stratify(binary_panel(), intervals=Intervals(n_resamples=0)).table
    ax = plot_stratified_scores(t, "accuracy").axes[0]
    chance = [ln for ln in ax.get_lines() if ln.get_label() == "random labeller"][0]
    assert np.allclose(chance.get_ydata(), 0.5)


def test_clean_input_gives_no_note():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stratify(binary_panel(), {"ai": binary_panel(seed=9).r1.to_numpy()},
                 intervals=Intervals(n_resamples=0))
