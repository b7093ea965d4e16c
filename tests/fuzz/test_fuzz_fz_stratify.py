"""Fuzz cases on stratify's surface (issue 31): its inputs, option objects and command line.

Each case is a right number (by hand) or a one-line refusal naming the field or flag
and what is allowed. Tiny data, in-process (the CLI through ``labelvar.cli.main``).
"""

from __future__ import annotations

import io as _io
import re
import warnings
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest

from labelvar import stratify
from labelvar.cli import main
from labelvar.evaluation import DataNoteWarning, Intervals, Truth
from labelvar.io import Columns, Predictions, load_tasks, read_votes

# 6 items x 3 raters; majority 1,1,0,0,1,0; agreement 1, 2/3, 1, 2/3, 1, 2/3
PANEL = np.array([[1, 1, 1], [1, 1, 0], [0, 0, 0], [0, 1, 0], [1, 1, 1], [0, 0, 1]])
PRED = [1, 1, 0, 1, 0, 0]  # right on items 1, 2, 3, 6: accuracy 4/6
N0 = Intervals(n_resamples=0)
WIDE = ("item,g1,g2,g3,sys,h1\n0001,1,1,1,1,1\n0002,1,1,0,1,0\n0003,0,0,0,0,0\n"
        "0004,0,1,0,1,0\n0005,1,1,1,0,1\n0006,0,0,1,0,0\n")


def score(res, system="s", stratum="all", metric="accuracy"):
    t = res.table
    return float(t[(t.system == system) & (t.stratum == stratum) & (t.metric == metric)]
                 .score.iloc[0])


def cli(*argv):
    out, err = _io.StringIO(), _io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse's own refusals
            code = exc.code
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def wide(tmp_path):
    p = tmp_path / "w.csv"
    p.write_text(WIDE)
    return p


# --------------------------------------------------------------------------- right numbers
@pytest.mark.parametrize("panel, pred", [
    (PANEL.astype(str), PRED),                                   # "1"/"0" votes
    (PANEL.astype(float), [str(x) for x in PRED]),               # 1.0 votes, "1" predictions
    (np.array([[f" {x}" for x in r] for r in PANEL], dtype=object), PRED),  # " 1"
    (PANEL.astype(bool), np.array(PRED, bool)),                  # booleans both sides
    (PANEL, [f"{x}.0" for x in PRED]),                           # "1.0" predictions
], ids=["str", "float-str", "space", "bool", "str-float"])
def test_labels_canonicalised_once(panel, pred):
    assert score(stratify(panel, {"s": pred}, intervals=N0)) == pytest.approx(4 / 6)


def test_declared_unused_label_keeps_accuracy():
    assert score(stratify(PANEL, {"s": PRED}, labels=[0, 1, 2], intervals=N0)) == \
        pytest.approx(4 / 6)


def test_missing_drop_and_tie_drop_by_hand():
    # item 3 without a prediction dropped: right on 1, 2, 6 of 1, 2, 4, 5, 6 -> 3/5
    r = stratify(PANEL, {"s": [1, 1, np.nan, 1, 0, 0]}, missing="drop", intervals=N0)
    assert score(r) == pytest.approx(3 / 5)
    # two tied items dropped; of the two left (1,1) and (0,0) the system is right on one
    r = stratify(np.array([[1, 0], [1, 1], [0, 0], [0, 1]]), {"s": [1, 1, 1, 1]},
                 truth=Truth(tie_rule="drop"), intervals=N0)
    assert score(r) == 0.5


def test_one_label_f1_by_hand():
    # every vote 1; the system says 0 once: precision 1, recall 5/6, F1 = 10/11
    r = stratify(np.ones((6, 3), int), {"s": [1, 1, 1, 0, 1, 1]}, intervals=N0)
    assert score(r, metric="f1") == pytest.approx(10 / 11)


def test_ids_as_written():
    v = read_votes(pd.DataFrame({"item": ["0001", "0001", "1"], "rater": ["a", "b", "a"],
                                 "label": [1, 0, 0]}))
    assert list(v.items) == ["0001", "1"] and v.counts.tolist() == [[1, 1], [1, 0]]


def test_single_stray_vote_declared_set_drops_it():
    p = PANEL.copy()
    p[0, 0] = 2  # item 1: 2,1,1 -> 1,1 once the stray vote is dropped
    with pytest.warns(DataNoteWarning, match="treated as missing"):
        r = stratify(p, {"s": PRED}, labels=[0, 1], intervals=N0)
    assert score(r) == pytest.approx(4 / 6)


# --------------------------------------------------------------------------- refusals (Python)
@pytest.mark.parametrize("value, fix", [(0.5, "labels=[0, 0.5, 1]"), (2, "labels=[0, 1, 2]")])
def test_single_stray_vote_among_few_refused(value, fix):
    p = PANEL.astype(float)
    p[0, 0] = value  # one vote of 18: no third class, silently
    with pytest.raises(ValueError, match=rf"label {value} occurs in 1 of 18 votes.*labels=\[0, 1\]"):
        stratify(p, {"s": PRED}, intervals=N0)
    d = pd.DataFrame({"item": np.repeat(np.arange(6), 3), "rater": ["a", "b", "c"] * 6,
                      "label": p.ravel()})
    with pytest.raises(ValueError, match=rf"label {value} occurs in 1 of 18 votes.*" +
                       fix.replace("[", r"\[").replace("]", r"\]")):
        read_votes(d)


def test_three_single_votes_are_no_stray():
    v = read_votes(pd.DataFrame({"item": ["1", "1", "1"], "rater": ["a", "b", "c"],
                                 "label": [0, 1, 2]}))
    assert v.labels == (0, 1, 2)


@pytest.mark.parametrize("kwargs, match", [
    (dict(metrics=["accuracy", "accuracy"]), r"metrics: 'accuracy' is given twice"),
    (dict(metrics=[1]), r"metrics must be a metric or a list of metrics"),
    (dict(humans=3), r"humans must be a name or a list of names, got int 3"),
    (dict(humans=["s", "s"]), r"humans: 's' is given twice"),
], ids=["metrics-twice", "metrics-int", "humans-int", "humans-twice"])
def test_names_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        stratify(PANEL, {"s": PRED}, intervals=N0, **kwargs)


@pytest.mark.parametrize("make, match", [
    (lambda: Intervals(n_resamples=0, resample_raters=True), r"resample_raters needs .*n_resamples"),
    (lambda: Truth("dawid_skene", tie_rule="first_vote"), r"tie_rule='first_vote' has no effect"),
    (lambda: Truth("dawid_skene", tie_rule="lowest"), r"tie_rule='lowest' has no effect"),
    (lambda: Columns(panel=3), r"columns.panel must be a column name or a list of names.*int 3"),
    (lambda: Columns(panel="g*", rater=["a"]), r"columns.rater must be a column name"),
    (lambda: Columns(panel="g*", counts="yes"), r"columns.counts must be True or False"),
    (lambda: Predictions({"m": "x.csv"}, label=5), r"predictions.label must be a column name"),
    (lambda: Predictions({"m": "x.csv"}, samples=1), r"predictions.samples must be True or False"),
], ids=["resample-raters-0", "ds-first-vote", "ds-lowest", "columns-int", "rater-list",
        "counts-str", "pred-label-int", "samples-int"])
def test_option_fields_refused(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_human_round_without_humans_refused():
    from labelvar.evaluation import Paper

    with pytest.raises(ValueError, match=r"human_round .* there are no humans"):
        stratify(PANEL, {"s": PRED}, paper=Paper(human_round=2), intervals=N0)


@pytest.mark.parametrize("content, match", [
    (b"", r"the file is empty \(no header row\)"),
    (bytes(range(256)) * 4, r"it holds binary data, not CSV/TSV text"),
    (b"PK\x03\x04\x14\x00" + b"\x81" * 50, r"it is a zip archive \(an Excel workbook\?\)"),
    ("item,rater,label\n1,a,\u00e9\n".encode("latin-1"), r"not UTF-8 text"),
    ("item,rater,label\n1,a,1\n".encode("utf-16"), r"it is UTF-16 text; save it as UTF-8"),
    (b"\x1f\x8b\x08\x00\x00\x00\x00\x00", r"it is gzip-compressed; name it .gz"),
    (b"item;rater;label\n1;a;1\n", r"its header 'item;rater;label' is one column, its names "
                                     r"separated by semicolons"),
], ids=["empty", "binary", "zip", "latin1", "utf16", "gzip", "semicolons"])
def test_unreadable_tables_one_line(tmp_path, content, match):
    p = tmp_path / "v.csv"
    p.write_bytes(content)
    with pytest.raises(ValueError, match=match):
        read_votes(p)
    code, _, err = cli("stratify", p, "--panel", "g*")
    assert code == 2 and re.search(match, err) and len(err.splitlines()) == 1


def test_bad_parquet_is_a_value_error(tmp_path):
    p = tmp_path / "v.parquet"
    p.write_text("not parquet")
    with pytest.raises(ValueError, match=r"^data: cannot read .*v.parquet as parquet") as e:
        read_votes(p)
    assert type(e.value) is ValueError


# --------------------------------------------------------------------------- command line
B = ("--panel", "g*", "--systems", "sys", "--item", "item", "--n-resamples", "0")


@pytest.mark.parametrize("extra, match", [
    (("--metrics", "accuracy,accuracy"), "--metrics: 'accuracy' is given twice"),
    (("--human-round", "2"), "--human-round rounds each human's score"),
    (("--leave-one-out",), "--leave-one-out acts on the simulated human H'"),
    (("--no-leave-one-out",), "--no-leave-one-out acts on the simulated human H'"),
    (("--pred-item", "item"), "--pred-item describes --predictions/--probabilities files"),
    (("--pred-samples",), "--pred-samples describes --predictions"),
    (("--pred-parse", "number"), "--pred-parse describes --predictions"),
    (("--resample-raters",), "--resample-raters needs bootstrap resamples"),
    (("--aggregation", "dawid_skene", "--tie-rule", "first_vote"),
     "--tie-rule first_vote has no effect with --aggregation dawid_skene"),
    (("--n-resamples", "1e9"), "--n-resamples must be <= 1000000, got 1000000000"),
    (("--simulated-human", "1e9"), "--simulated-human must be <= 10000"),
    (("--seed", "1.5"), "argument --seed: expected a whole number, got '1.5'"),
    (("--n-resamples", "abc"), "argument --n-resamples: expected a whole number, got 'abc'"),
], ids=lambda x: x if isinstance(x, str) and x.startswith("--") else None)
def test_cli_refusals(wide, extra, match):
    code, out, err = cli("stratify", wide, *B, *extra)
    assert code == 2 and out == ""
    assert match in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_cli_whole_numbers_in_e_notation(wide):
    code, out, err = cli("stratify", wide, *B, "--simulated-human", "1e1", "--leave-one-out",
                         "--metrics", "accuracy", "--format", "csv")
    assert code == 0, err
    t = pd.read_csv(_io.StringIO(out))
    assert {"H'", "H'-loo"} <= set(t.role)
    s = t[(t.system == "sys") & (t.stratum == "all")].score.iloc[0]
    assert s == pytest.approx(4 / 6)  # the same system numbers as without H'


def test_cli_humans_and_human_round_still_run(wide):
    code, out, err = cli("stratify", wide, *B, "--humans", "h1", "--human-round", "1",
                         "--metrics", "accuracy", "--format", "csv")
    assert code == 0, err
    t = pd.read_csv(_io.StringIO(out))
    h = t[(t.role == "H") & (t.stratum == "all")].score.iloc[0]
    assert h == pytest.approx(round(5 / 6, 1))  # h1 right on 5 of 6 items, rounded to 0.8


def test_cli_stray_vote_small_file(tmp_path):
    p = tmp_path / "s.csv"
    p.write_text(WIDE.replace("0001,1,1,1", "0001,2,1,1"))
    code, _, err = cli("stratify", p, *B)
    assert code == 2 and "label 2 occurs in 1 of 18 votes" in err and "--labels 0,1" in err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code, out, err = cli("stratify", p, *B, "--labels", "0,1", "--metrics", "accuracy",
                             "--format", "csv")
    assert code == 0, err
    t = pd.read_csv(_io.StringIO(out))
    assert t[(t.system == "sys") & (t.stratum == "all")].score.iloc[0] == pytest.approx(4 / 6)
    assert "treated as missing" in err


def test_load_tasks_columns_checked(wide):
    with pytest.raises(ValueError, match=r"columns.systems must be a column name"):
        load_tasks(wide, columns=Columns(panel="g*", systems=["sys", 1], item="item"))


# --------------------------------------------------------------------------- result tables
def _result():
    return stratify(PANEL, {"s": PRED, "t": [1, 1, 0, 0, 1, 0], "h": [1, 0, 0, 0, 1, 1]},
                    humans=["h"], intervals=N0)


def test_paper_table_metrics_checked():
    from labelvar import paper_table

    r = _result()
    t = paper_table(r.table, "s", metrics="accuracy")  # a string is one metric
    assert t["accuracy AI"].tolist() == pytest.approx([2 / 3, 2 / 3, 4 / 6])
    with pytest.raises(ValueError, match=r"metrics: 'auc' is not in the table; its metrics "
                                         r"are 'accuracy', 'f1'"):
        paper_table(r.table, "s", metrics=["auc"])


@pytest.mark.parametrize("kwargs, match", [
    (dict(proportiontocut=0.6), r"proportiontocut must be a number in \[0, 0.5\)"),
    (dict(proportiontocut=float("nan")), r"proportiontocut must be a number in \[0, 0.5\)"),
    (dict(role="bogus"), r"role must be one of the table's roles \('system', 'human', 'H'\)"),
])
def test_bin_tests_arguments_checked(kwargs, match):
    from labelvar import bin_tests

    with pytest.raises(ValueError, match=match):
        bin_tests(_result().table, **kwargs)


def test_paired_test_same_system_refused():
    from labelvar import paired_test

    with pytest.raises(ValueError, match=r"two different systems; got 's' twice"):
        paired_test(_result().table, "s", "s")


@pytest.mark.parametrize("frame, match", [
    (pd.DataFrame(PANEL, index=list("aabcde")), r"panel: item id 'a' occurs more than once"),
    (pd.DataFrame(PANEL, columns=["a", "a", "b"]), r"panel: column 'a' occurs more than once"),
])
def test_panel_frame_repeats_refused(frame, match):
    with pytest.raises(ValueError, match=match):
        stratify(frame, {"s": PRED}, intervals=N0)


# --------------------------------------------------------------------------- sizes
def test_many_labels_refused_up_front():
    n = 2001  # item ids read as labels: one label per item
    p = np.array([[f"x{i}"] * 3 for i in range(n)], dtype=object)
    with pytest.raises(ValueError, match=r"labels: task 'task' has 2,001 distinct labels, more "
                                         r"than the 2,000"):
        stratify(p, {"s": [f"x{i}" for i in range(n)]}, intervals=N0)


def test_stray_check_is_linear_in_labels():
    from labelvar.io._labels import stray_label

    # 20,000 rare text labels: was 4e8 steps (minutes), now one pass
    assert stray_label({f"x{i}": 3 for i in range(20_000)}, 60_000) is None
    assert stray_label({1: 900, 2: 900, 3: 900, 9: 1}, 2701) == 9  # far from 1-3
    assert stray_label({1: 900, 2: 900, 3: 900, 4: 1}, 2701) is None  # next to them


@pytest.mark.parametrize("labels, match", [
    ([], r"labels: the declared label set is empty"),
    (",", r"labels: the declared label set is empty"),
    (3, r"labels: give a list of labels, e.g. labels=\[0, 1\], got int 3"),
    ({0: "a", 1: "b"}, r"labels: give a list of labels.*got dict .*recode="),
    ([[0], [1]], r"labels: \[0\] is no label; a label is text, a number or a boolean"),
])
def test_declared_label_set_checked(labels, match):
    with pytest.raises(ValueError, match=match):
        stratify(PANEL, {"s": PRED}, labels=labels, intervals=N0)


def test_cli_empty_label_set(wide):
    code, _, err = cli("stratify", wide, *B, "--labels", ",")
    assert code == 2 and "--labels: the declared label set is empty" in err


def test_collect_out_a_directory(tmp_path):
    job = tmp_path / "run" / "0_a"
    job.mkdir(parents=True)
    (job / "results.csv").write_text("mean\n0.5\n")
    code, _, err = cli("collect", tmp_path / "run", "--out", tmp_path)
    assert code == 2 and f"got the directory {tmp_path}" in err and ".csv or .parquet" in err
    code, out, err = cli("collect", tmp_path / "run", "--out", tmp_path / "c.csv")
    assert code == 0, err
    assert pd.read_csv(tmp_path / "c.csv").to_dict("list") == {
        "experiment": ["0_a"], "job": ["0_a"], "mean": [0.5]}
    code, _, err = cli("collect", tmp_path / "c.csv")
    assert code == 2 and "got the file" in err


@pytest.mark.parametrize("layout, file, extra, flag", [
    ("wide", None, ("--panel", "g*", "--systems", "sys", "--humans", "g2"), "--humans: 'g2'"),
    ("wide", None, ("--panel", "g*", "--systems", "g2", "--humans", "h1"), "--systems: 'g2'"),
    ("long", "item,rater,label\n1,a,1\n1,b,0\n1,c,1\n1,s,1\n",
     ("--panel", "a,b,c", "--systems", "s", "--humans", "b"), "--humans: 'b'"),
])
def test_panel_rater_evaluated_names_its_flag(wide, tmp_path, layout, file, extra, flag):
    path = wide
    if file is not None:
        path = tmp_path / "l.csv"
        path.write_text(file)
    code, _, err = cli("stratify", path, "--layout", layout, "--item", "item", *extra)
    assert code == 2 and f"{flag} is also a panel rater" in err


def test_bootstrap_sizes_refused_before_work():
    from labelvar.evaluation import Labels

    rng = np.random.default_rng(0)
    p, s = rng.integers(1, 6, (60, 3)), rng.integers(1, 6, 60)
    # 1e6 replicates of spearman/kendall, one at a time: hours; refused naming the flag
    with pytest.raises(ValueError, match=r"^n_resamples: 1,000,000 resamples of the ordinal or "
                                         r"probability scores .* at most [\d,]+ resamples"):
        stratify(p, {"s": s}, labels=Labels([1, 2, 3, 4, 5], ordinal=True),
                 intervals=Intervals(n_resamples=1_000_000))
    # the rater bootstrap redraws every vote of every replicate: 1e6 x 1e4 items x 3 x 2
    q = rng.integers(0, 2, (10_000, 3))
    with pytest.raises(ValueError, match=r"^n_resamples: 1,000,000 resamples of the rater "
                                         r"bootstrap \(resample_raters\)"):
        stratify(q, {"s": q[:, 0]}, metrics=["f1"],
                 intervals=Intervals(n_resamples=1_000_000, resample_raters=True))


def test_ordinal_bootstrap_one_metric_a_replicate_same_numbers():
    # mae/within1/qwk of one replicate as ordinal_scores gives them (by hand: 3 items)
    from labelvar.evaluation._bins import _item_score
    from labelvar.evaluation._tasks import _prepare
    from labelvar.metrics._scores import ordinal_scores

    t = _prepare("t", pd.DataFrame([[1, 2, 2], [5, 5, 4], [3, 3, 3]]),
                 {"s": [2, 5, 1]}, labels=[1, 2, 3, 4, 5], pos_label=None, tie_rule="lowest",
                 missing="error", rng=np.random.default_rng(0), ordinal=True)
    idx = np.array([0, 1, 2, 2])
    mean = (t.counts[idx] @ t.values) / t.k[idx]
    ref = ordinal_scores(t.values[t.preds["s"][idx]], mean, t.majority[idx], t.preds["s"][idx], 5)
    for m in ("mae", "within1", "qwk"):
        assert _item_score(m, t, "s", idx) == float(ref[m])
    # mae by hand: |2-5/3| + |5-14/3| + 2 * |1-3| = 1/3 + 1/3 + 4 -> 14/3 / 4
    assert _item_score("mae", t, "s", idx) == pytest.approx(14 / 12)


def test_parquet_given_to_a_text_layout(tmp_path):
    p = tmp_path / "w.parquet"
    pd.read_csv(_io.StringIO(WIDE), dtype=str).to_parquet(p)
    code, _, err = cli("stratify", p, *B)
    assert code == 2 and "it is a parquet file, and this reader reads CSV/TSV text" in err


def test_read_votes_declared_mapping_refused():
    with pytest.raises(ValueError, match=r"labels: give a list of labels.*a mapping"):
        read_votes(pd.DataFrame({"item": ["1"], "rater": ["a"], "label": [0]}), labels={0: 1})


@pytest.mark.parametrize("files, kwargs, match", [
    (None, {}, r"files: give a path, a list of paths or \(one file per rater\) a mapping"),
    (123, {}, r"files: give a path, a list of paths .* got int"),
    ("WIDE", {"tasks": 3}, r"tasks: give task names or globs \(a string or a list of strings\)"),
], ids=["none", "int", "tasks-int"])
def test_load_tasks_arguments_checked(wide, files, kwargs, match):
    with pytest.raises(ValueError, match=match):
        load_tasks(wide if files == "WIDE" else files,
                   columns=Columns(panel="g*", systems="sys", item="item"), **kwargs)


def test_load_tasks_labels_string_and_rater_mapping(wide, tmp_path):
    cols = Columns(panel="g*", systems="sys", item="item")
    assert load_tasks(wide, columns=cols, labels="0,1,2")["w"].labels == ("0", "1", "2")
    files = {}
    for r, col in zip(["a", "b", "c", "s"], list(PANEL.T) + [np.array(PRED)], strict=True):
        files[r] = tmp_path / f"file_{r}.csv"  # named by the mapping, not by the stem
        files[r].write_text("item,t1\n" + "".join(f"{i},{v}\n" for i, v in enumerate(col, 1)))
    data = load_tasks(files, columns=Columns(panel="a,b,c", systems="s", item="item"))
    assert score(stratify(data, intervals=N0)) == pytest.approx(4 / 6)


@pytest.mark.parametrize("name, sep", [("v.csv.gz", ","), ("v.tsv.gz", "\t")])
def test_compressed_tables_read(tmp_path, name, sep):
    import gzip

    p = tmp_path / name
    text = "item,rater,label\n0001,a,1\n0001,b,0\n1,a,0\n".replace(",", sep)
    p.write_bytes(gzip.compress(text.encode()))
    v = read_votes(p)
    assert list(v.items) == ["0001", "1"] and v.counts.tolist() == [[1, 1], [1, 0]]
    w = tmp_path / ("w" + name[1:])
    w.write_bytes(gzip.compress(WIDE.replace(",", sep).encode()))
    code, out, err = cli("stratify", w, *B, "--metrics", "accuracy", "--format", "csv")
    assert code == 0, err
    t = pd.read_csv(_io.StringIO(out))
    assert t[(t.system == "sys") & (t.stratum == "all")].score.iloc[0] == pytest.approx(4 / 6)
