"""labelvar.io: every input layout, and every bad input, on small files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from labelvar import io
from labelvar.evaluation import Intervals, Labels
from labelvar.evaluation._stratified import stratify

REPO = Path(__file__).resolve().parents[1]


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_wide_csv_and_tsv_globs(tmp_path):
    text = "id,r1,r2,r3,gpt,dr\na,1,1,0,1,1\nb,0,0,0,1,0\nc,1,1,1,1,1\n"
    for name, sep in (("x.csv", ","), ("x.tsv", "\t")):
        p = _write(tmp_path / name, text.replace(",", sep))
        d = io.read_wide(p, panel="r*", systems="gpt,dr", item="id")
        assert list(d) == ["x"]
        td = d["x"]
        assert td.panel.columns.tolist() == ["r1", "r2", "r3"]
        assert td.panel.index.tolist() == ["a", "b", "c"]
        assert td.predictions["gpt"].tolist() == [1, 1, 1]


def test_wide_task_column_and_column_groups():
    df = pd.DataFrame({"task": ["A", "A", "B", "B"], "id": ["1", "2", "1", "2"],
                       "r1": [1, 0, 1, 1], "r2": [1, 0, 0, 1], "m": [1, 1, 0, 1]})
    d = io.read_wide(df, panel="r1,r2", systems="m", item="id", task_column="task")
    assert list(d) == ["A", "B"] and d["B"].panel.loc["1"].tolist() == [1, 0]
    g = pd.DataFrame({"Cardio/r1": [1, 0], "Cardio/r2": [1, 1], "Cardio/m": [0, 0],
                      "Edema/r1": [0, 0], "Edema/r2": [1, 0], "Edema/m": [1, 1]})
    d = io.read_wide(g, panel="r*", systems="m", group_sep="/")
    assert list(d) == ["Cardio", "Edema"]
    assert d["Edema"].panel.columns.tolist() == ["r1", "r2"]
    assert d["Edema"].predictions["m"].tolist() == [1, 1]


def test_rater_files_join_by_header_name(tmp_path):
    # column order differs between files (as in CheXpert): matched by name
    _write(tmp_path / "r1.csv", "Study,A,B\ns1,1,0\ns2,0,1\n")
    _write(tmp_path / "r2.csv", "Study,B,A\ns2,1,1\ns1,0,1\n")
    _write(tmp_path / "r3.csv", "Study,A,B\ns1,0,0\ns2,0,1\n")
    _write(tmp_path / "m.csv", "Study,A\ns1,1\ns2,0\n")
    files = sorted(tmp_path.glob("*.csv"))
    d = io.read_rater_files(files, panel="r*", systems="m", item="Study")
    assert d["A"].panel.loc["s2"].tolist() == [0, 1, 0]
    assert d["B"].panel.loc["s2"].tolist() == [1, 1, 1]
    assert d["A"].predictions.columns.tolist() == ["m"]
    assert d["B"].predictions.shape == (2, 0)  # m does not predict B
    _write(tmp_path / "r3.csv", "Study,A,B\ns1,0,0\ns9,0,1\n")
    with pytest.raises(ValueError, match="does not hold the same item ids"):
        io.read_rater_files(files, panel="r*", item="Study")


def test_long_layout_and_duplicates(tmp_path):
    rows = ["item,rater,label,task"]
    for task in ("t1", "t2"):
        for item, votes in (("a", "xxy"), ("b", "yyy")):
            for r, lab in zip(("r1", "r2", "r3"), votes, strict=True):
                rows.append(f"{item},{r},{lab},{task}")
            rows.append(f"{item},bot,x,{task}")
    p = _write(tmp_path / "long.csv", "\n".join(rows) + "\n")
    d = io.read_long(p, panel="r*", systems="bot", task_column="task")
    assert list(d) == ["t1", "t2"]
    assert d["t1"].panel.loc["a"].tolist() == ["x", "x", "y"]
    assert d["t2"].predictions["bot"].tolist() == ["x", "x"]
    t = stratify(d, labels=Labels(pos_label="x"), intervals=Intervals(n_resamples=0)).table
    assert set(t.task) == {"t1", "t2"}
    _write(p, "\n".join(rows + ["a,r1,y,t1"]) + "\n")
    with pytest.raises(ValueError, match="duplicate rows for item 'a' and rater 'r1'"):
        io.read_long(p, panel="r*", task_column="task")
    with pytest.raises(ValueError, match="column 'worker' not found"):
        io.read_long(p, panel="r*", rater="worker")


def test_long_missing_votes_give_ragged_panels():
    df = pd.DataFrame({"item": ["a", "a", "a", "b", "b"], "rater": ["r1", "r2", "r3", "r1", "r2"],
                       "label": [1, 1, 0, 0, 0]})
    d = io.read_long(df, panel="r*", task="t")
    assert d["t"].panel.loc["b"].isna().tolist() == [False, False, True]


def test_jsonl_single_and_multi_task(tmp_path):
    p = _write(tmp_path / "nli.jsonl",
               json.dumps({"pairID": "p1", "annotator_labels": ["e", "e", "n", "e", "e"],
                           "model": "e"}) + "\n"
               + json.dumps({"pairID": "p2", "annotator_labels": ["c", "c", "c", "n"],
                             "model": "n"}) + "\n")
    d = io.read_jsonl(p, panel="annotator_labels", systems="model", item="pairID")
    td = d["nli"]
    assert td.panel.shape == (2, 5) and pd.isna(td.panel.loc["p2"].tolist()[-1])
    assert td.predictions["model"].tolist() == ["e", "n"]
    q = _write(tmp_path / "summ.jsonl", "\n".join(json.dumps(
        {"id": "1", "model_id": m, "annotations": [{"coh": 4, "flu": 5}, {"coh": 4, "flu": 3},
                                                    {"coh": 2, "flu": 5}]}) for m in "AB") + "\n")
    d = io.read_jsonl(q, panel="annotations", item="id,model_id")
    assert list(d) == ["coh", "flu"]
    assert d["coh"].panel.index.tolist() == ["1|A", "1|B"]
    assert d["flu"].panel.loc["1|A"].tolist() == [5, 3, 5]


def test_jsonl_bad_input(tmp_path):
    p = _write(tmp_path / "x.jsonl", '{"id": "a", "v": [1, 1]}\n{"id": "a", "v": [0, 1]}\n')
    with pytest.raises(ValueError, match="duplicate item id 'a'"):
        io.read_jsonl(p, panel="v", item="id")
    with pytest.raises(ValueError, match="has no field 'votes'"):
        io.read_jsonl(p, panel="votes")
    with pytest.raises(ValueError, match="systems: field 'gpt' not found"):
        io.read_jsonl(p, panel="v", systems="gpt")
    bad = _write(tmp_path / "bad.jsonl", '{"id": "a"\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:1: not valid JSON"):
        io.read_jsonl(bad, panel="v")
    scalar = _write(tmp_path / "s.jsonl", '{"id": "a", "v": 1}\n')
    with pytest.raises(ValueError, match="must hold a list of labels"):
        io.read_jsonl(scalar, panel="v")


def test_attach_predictions_class_order(tmp_path):
    panel = pd.DataFrame({"r1": ["entailment", "neutral", "contradiction"],
                          "r2": ["entailment", "neutral", "contradiction"]},
                         index=pd.Index(["u1", "u2", "u3"], name="item"))
    data = {"t": io.TaskData(panel, pd.DataFrame(index=panel.index))}
    p1 = _write(tmp_path / "dev.json", '{"uid": "u1", "pred": 0}\n{"uid": "u2", "pred": 2}\n')
    p2 = _write(tmp_path / "test.json", '{"uid": "u3", "pred": 1}\n{"uid": "zz", "pred": 1}\n')
    d = io.attach_predictions(data, "roberta", [p1, p2], item="uid", label="pred",
                              classes=["entailment", "contradiction", "neutral"])
    assert d["t"].predictions["roberta"].tolist() == ["entailment", "neutral", "contradiction"]
    _write(p2, '{"uid": "u3", "pred": 3}\n')
    with pytest.raises(ValueError, match=r"class index in 0..2, got 3"):
        io.attach_predictions(data, "r", [p1, p2], item="uid", label="pred",
                              classes=["entailment", "contradiction", "neutral"])
    _write(p2, '{"uid": "u1", "pred": 1}\n')
    with pytest.raises(ValueError, match="'u1' appears more than once"):
        io.attach_predictions(data, "r", [p1, p2], item="uid", label="pred")
    with pytest.raises(ValueError, match="field 'label' not found"):
        io.attach_predictions(data, "r", p1, item="uid", label="label")


@pytest.mark.parametrize("kwargs, match", [
    (dict(panel="q*", item="id"), r"panel: 'q\*' matches no column; available: 'r1', 'r2', 'gpt'"),
    (dict(panel="r*", systems="gtp"), r"systems: 'gtp' matches no column"),
    (dict(panel="r*", item="key"), r"item: column 'key' not found"),
    (dict(panel=""), r"panel: no panel columns given"),
    (dict(panel="r*", task_column="task"), r"task_column: column 'task' not found"),
])
def test_wide_bad_columns(tmp_path, kwargs, match):
    p = _write(tmp_path / "w.csv", "id,r1,r2,gpt\na,1,1,0\nb,0,1,1\n")
    with pytest.raises(ValueError, match=match):
        io.read_wide(p, **kwargs)


def test_wide_duplicate_ids(tmp_path):
    p = _write(tmp_path / "w.csv", "id,r1,r2\na,1,1\na,0,1\n")
    with pytest.raises(ValueError, match="duplicate item id 'a'"):
        io.read_wide(p, panel="r*", item="id")


def test_missing_file():
    with pytest.raises(FileNotFoundError):
        io.read_frame("/nonexistent/x.csv")


def test_synthetic_panel_deterministic_and_shipped_file_matches():
    a = io.synthetic_panel(50, seed=3)
    b = io.synthetic_panel(50, seed=3)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(io.synthetic_panel(50, seed=4))
    shipped = pd.read_csv(REPO / "examples" / "synthetic_panel.csv")
    pd.testing.assert_frame_equal(shipped, io.synthetic_panel(400, seed=0))


def test_synthetic_panel_humans_follow_their_difficulty():
    # the humans follow the latent answer with q in {0.6, 0.8, 0.97}: mean agreement
    # with it is 0.3*0.6 + 0.3*0.8 + 0.4*0.97 = 0.808 (checked within 4 standard errors)
    df = io.synthetic_panel(20000, seed=1)
    latent_proxy = (df[[f"gt{j}" for j in range(1, 6)]].sum(axis=1) >= 3).astype(int)
    assert set(np.unique(df.iloc[:, 1:].to_numpy())) == {0, 1}
    agree = (df["coin"] == latent_proxy).mean()
    assert abs(agree - 0.5) < 4 * np.sqrt(0.25 / 20000)


@pytest.mark.parametrize("reader, text, args, match", [
    # an empty id used to become the item 'nan' and turn ids 1, 3 into '1.0', '3.0'
    (io.read_wide, "id,r1,r2\n1,1,1\n,0,0\n3,1,0\n", dict(item="id"),
     r"item: column 'id' is empty or NA in 1 row\(s\) of .*x\.csv \(first: data row 2\)"),
    (io.read_wide, "id,r1,r2\n1,1,1\nNA,0,0\n,1,0\n", dict(item="id"),
     r"item: column 'id' is empty or NA in 2 row\(s\) .*data row 2\)"),
    # an empty task used to drop its rows unseen (groupby leaves NaN keys out)
    (io.read_wide, "id,t,r1,r2\na,x,1,1\nb,,0,0\nc,y,1,0\n", dict(item="id", task_column="t"),
     r"task_column: column 't' is empty or NA in 1 row\(s\) .*data row 2\); every row needs a task"),
    (io.read_wide, "id,t,r1,r2\na,x,1,1\nb,y,0,0\n,y,1,0\n", dict(item="id", task_column="t"),
     r"item: column 'id' is empty or NA in 1 row\(s\) .*data row 3\)"),
    (io.read_long, "item,rater,label\na,r1,1\na,,0\na,r3,1\n", {},
     r"long format: column 'rater' is empty or NA in 1 row\(s\) .*data row 2\); every row needs a rater"),
    (io.read_long, "item,rater,label\na,r1,1\n,r2,0\na,r3,1\n", {},
     r"long format: column 'item' is empty or NA in 1 row\(s\) .*data row 2\)"),
    (io.read_long, "item,rater,label,t\na,r1,1,x\na,r2,0,\na,r3,1,x\n", dict(task_column="t"),
     r"task_column: column 't' is empty or NA in 1 row\(s\) .*data row 2\)"),
])
def test_blank_ids_raters_and_tasks_are_refused(tmp_path, reader, text, args, match):
    p = _write(tmp_path / "x.csv", text)
    with pytest.raises(ValueError, match=match):
        reader(p, panel="r*", **args)


def test_ids_tasks_and_raters_all_given_are_read_as_before(tmp_path):
    p = _write(tmp_path / "x.csv", "id,t,r1,r2\n1,x,1,1\n2,x,0,0\n3,y,1,0\n")
    d = io.read_wide(p, panel="r*", item="id", task_column="t")
    assert {t: td.panel.index.tolist() for t, td in d.items()} == {"x": ["1", "2"], "y": ["3"]}
    p = _write(tmp_path / "l.csv", "item,rater,label\n1,r1,1\n1,r2,0\n2,r1,0\n2,r2,0\n")
    assert io.read_long(p, panel="r*")["l"].panel.to_numpy().tolist() == [[1, 0], [0, 0]]


def test_jsonl_with_a_byte_order_mark_and_crlf(tmp_path):
    p = tmp_path / "b.jsonl"
    p.write_bytes('\ufeff{"id": "a", "v": [1, 1, 0]}\r\n{"id": "b", "v": [0, 0, 0]}\r\n'
                  .encode("utf-8"))
    td = io.read_jsonl(p, panel="v", item="id")["b"]
    assert td.panel.index.tolist() == ["a", "b"]
    assert td.panel.to_numpy().tolist() == [[1, 1, 0], [0, 0, 0]]


def test_jsonl_null_id_refused(tmp_path):
    # a null id used to become the item 'None'
    p = _write(tmp_path / "n.jsonl", '{"id": "a", "v": [1, 1]}\n{"id": null, "v": [0, 0]}\n')
    with pytest.raises(ValueError, match=r"^item: record 2 of .*n\.jsonl has a null id \('id'\)"):
        io.read_jsonl(p, panel="v", item="id")


def test_rater_files_missing_task_column_named_without_tasks_given(tmp_path):
    a = _write(tmp_path / "r1.csv", "id,A,B\nx,1,0\ny,0,0\n")
    b = _write(tmp_path / "r2.csv", "id,A\nx,1\ny,0\n")
    # no tasks= given: the message is about the files (it used to start "tasks:")
    with pytest.raises(ValueError, match=r"^files: panel file .*r2\.csv has no column 'B', "
                                         r"which .*r1\.csv has; .*\(tasks=\.\.\.\)$"):
        io.read_rater_files([a, b], panel="r*", item="id")
    with pytest.raises(ValueError, match=r"^tasks: column 'B' missing from panel file .*r2\.csv$"):
        io.read_rater_files([a, b], panel="r*", item="id", tasks="B")
    d = io.read_rater_files([a, b], panel="r*", item="id", tasks="A")
    assert d["A"].panel.to_numpy().tolist() == [[1, 1], [0, 0]]


def test_synthetic_panel_sizes_are_single_numbers():
    with pytest.raises(ValueError, match=r"^n_items must be a single number"):
        io.synthetic_panel([3, 4])
    assert io.synthetic_panel(7, n_panel=3, seed=1).shape[0] == 7


# --------------------------------------------------------------------------- label values
def _votes_jsonl(tmp_path, name, votes, system=None):
    """400 items of 3 votes (0/1 from a seeded draw); ``votes(i)`` replaces item i's if given."""
    rng = np.random.default_rng(0)
    lines = []
    for i in range(400):
        v = votes(i)
        rec = {"id": f"i{i}", "votes": v if v is not None else rng.integers(0, 2, 3).tolist(),
               "sys": (system(i) if system else None) or i % 2}
        lines.append(json.dumps(rec, allow_nan=True))
    return _write(tmp_path / name, "\n".join(lines) + "\n")


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("every", [1, 3, 10**6])  # on every line, a third, only line 1
def test_jsonl_nan_and_infinity_labels_refused_naming_line_and_field(tmp_path, token, every):
    # before: a frequent Infinity became a third label (inf), NaN a missing vote, unseen;
    # only a rare Infinity was refused (as a stray label)
    x = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[token]
    p = _votes_jsonl(tmp_path, "v.jsonl", lambda i: [1, x, 0] if i % every == 0 else None)
    with pytest.raises(ValueError, match=rf"^panel: .*v\.jsonl:1: field 'votes' holds {token}, "
                                         r"which is not JSON and no label; write null for a "
                                         r"missing label$"):
        io.load_tasks(p, columns=io.Columns(panel="votes", systems="sys", item="id"))
    q = _votes_jsonl(tmp_path, "s.jsonl", lambda i: None, system=lambda i: x if i >= 5 else None)
    with pytest.raises(ValueError, match=rf"^systems: .*s\.jsonl:6: field 'sys' holds {token},"):
        io.read_jsonl(q, panel="votes", systems="sys", item="id")


@pytest.mark.parametrize("odd, every, kind, count", [
    ('"yes"', 2, "strings", "200"),   # common: was taken for a third label
    ('"yes"', 400, "strings", "1"),   # rare: was refused as stray; now as a mix, the same way
    ('"1"', 2, "strings", "200"),     # was merged with 1 unseen
    ("true", 2, "booleans", "200"),   # was merged with 1 unseen
    ("true", 400, "booleans", "1"),
])
def test_jsonl_labels_of_mixed_kinds_refused_however_frequent(tmp_path, odd, every, kind, count):
    p = _votes_jsonl(tmp_path, "m.jsonl", lambda i: [json.loads(odd), 0, 1]
                     if i % every == 1 else None)
    msg = (rf"^panel: the labels of task 'm' mix numbers and {kind}: field 'votes' holds {odd} "
           rf"\(.*m\.jsonl:2; {count} of 1,600 labels\), field 'votes' holds \d \(line 1\); they "
           r"must be all numbers, all strings or all booleans \(null: missing\): ")
    with pytest.raises(ValueError, match=msg):
        io.load_tasks(p, columns=io.Columns(panel="votes", systems="sys", item="id"))
    if kind == "booleans":  # true and 1 are one label to stratify: a label set cannot help
        with pytest.raises(ValueError, match=msg + "booleans do not mix with other labels$"):
            io.load_tasks(p, columns=io.Columns(panel="votes", systems="sys", item="id"), labels=[0, 1])
    elif count == "1":  # declared: the rare string is a stray value, missing with a note
        with pytest.warns(UserWarning, match=r"1 of 1,200 votes outside the label set \('yes': 1"):
            r = stratify(io.load_tasks(p, columns=io.Columns(panel="votes", systems="sys",
                                                             item="id"), labels=[0, 1]),
                         labels=[0, 1], intervals=Intervals(n_resamples=0))
        votes = r.inputs["m"]["labels"]
        assert list(votes) == [0, 1] and sum(votes.values()) == 1199


def test_jsonl_system_field_of_another_kind_refused(tmp_path):
    p = _votes_jsonl(tmp_path, "s.jsonl", lambda i: None, system=lambda i: "1" if i > 2 else None)
    with pytest.raises(ValueError, match=r"^systems: the labels of task 's' mix numbers and "
                                         r"strings: field 'sys' holds \"1\" \(.*s\.jsonl:4; 397 "
                                         r"of 1,600 labels\), field 'votes' holds 1 \(line 1\)"):
        io.read_jsonl(p, panel="votes", systems="sys", item="id")


def test_jsonl_multi_task_values_checked_per_task(tmp_path):
    rows = [{"id": i, "ann": [{"coh": 4, "flu": "good"}, {"coh": 5, "flu": "bad"}],
             "bot": {"coh": 4, "flu": "good"}} for i in range(3)]
    rows[2]["ann"][1]["coh"] = float("nan")
    p = _write(tmp_path / "t.jsonl", "\n".join(map(json.dumps, rows)) + "\n")
    with pytest.raises(ValueError, match=r"^panel: .*t\.jsonl:3: field 'ann\.coh' holds NaN"):
        io.read_jsonl(p, panel="ann", systems="bot", item="id")
    rows[2]["ann"][1]["coh"] = 5
    rows[1]["bot"]["coh"] = "4"
    p.write_text("\n".join(map(json.dumps, rows)) + "\n")
    with pytest.raises(ValueError, match=r"^systems: the labels of task 'coh' mix numbers and "
                                         r"strings: field 'bot\.coh' holds \"4\" \(.*t\.jsonl:2;"):
        io.read_jsonl(p, panel="ann", systems="bot", item="id")
    rows[1]["bot"]["coh"] = 4
    rows[0]["ann"].append(3)  # used to crash with AttributeError
    p.write_text("\n".join(map(json.dumps, rows)) + "\n")
    with pytest.raises(ValueError, match=r"^panel: .*t\.jsonl:1: field 'ann' holds 3 among "
                                         r"objects"):
        io.read_jsonl(p, panel="ann", systems="bot", item="id")


def test_jsonl_valid_files_read_as_before(tmp_path):
    ints = _write(tmp_path / "i.jsonl", '{"v": [1, 0, 1], "s": 1}\n{"v": [0, 0], "s": 0}\n')
    strs = _write(tmp_path / "s.jsonl", '{"v": ["e", "n", "e"], "s": "e"}\n'
                                        '{"v": ["c", null, "c"], "s": "n"}\n')
    bools = _write(tmp_path / "b.jsonl", '{"v": [true, false], "s": true}\n')
    halves = _write(tmp_path / "h.jsonl", '{"v": [1, 1.5, 2.0], "s": 1}\n')
    for p, panel, pred in ((ints, [[1, 0, 1], [0, 0, None]], [1, 0]),
                           (strs, [["e", "n", "e"], ["c", None, "c"]], ["e", "n"]),
                           (bools, [[True, False]], [True]),
                           (halves, [[1, 1.5, 2.0]], [1])):
        td = io.read_jsonl(p, panel="v", systems="s")[p.stem]
        got = td.panel.astype(object).where(td.panel.notna(), None).to_numpy().tolist()
        assert got == panel and td.predictions["s"].tolist() == pred
    r = stratify(io.load_tasks(strs, columns=io.Columns(panel="v", systems="s")),
                 intervals=Intervals(n_resamples=0))
    assert list(r.inputs["s"]["labels"]) == ["c", "e", "n"]


@pytest.mark.parametrize("cell", ["NaN", "null", "-1", "1.5", "true", '"3"', "Infinity"])
def test_jsonl_counts_are_whole_numbers(tmp_path, cell):
    # before: NaN and null counted as 0 votes, unseen
    p = _write(tmp_path / "c.jsonl", '{"id": "a", "n": [12, 68, 20]}\n'
                                     '{"id": "b", "n": [0, %s, 99]}\n' % cell)
    with pytest.raises(ValueError, match=r"^panel counts: .*c\.jsonl:2: field 'n' holds "
                                         rf"{re.escape(cell)}; a count is a whole number >= 0"):
        io.read_jsonl(p, panel="n", item="id", counts=True)
    q = _write(tmp_path / "d.jsonl", '{"id": "a", "n": {"e": 2, "c": %s}}\n' % cell)
    with pytest.raises(ValueError, match=r"^panel counts: .*d\.jsonl:1: field 'n' holds "):
        io.read_jsonl(q, panel="n", item="id", counts=True)
    ok = _write(tmp_path / "ok.jsonl", '{"id": "a", "n": [12, 68.0, 20]}\n')
    assert io.read_jsonl(ok, panel="n", item="id", counts=True)["ok"].panel.to_numpy().tolist() \
        == [[12, 68, 20]]


def test_prediction_files_refuse_nan_and_mixed_kinds(tmp_path):
    base = {"t": io.TaskData(pd.DataFrame({"r1": [1, 0], "r2": [1, 1]},
                                          index=pd.Index(["a", "b"], name="item")),
                             pd.DataFrame(index=pd.Index(["a", "b"], name="item")))}
    nan = _write(tmp_path / "p.jsonl", '{"uid": "a", "pred": 1}\n{"uid": "b", "pred": NaN}\n')
    with pytest.raises(ValueError, match=r"^predictions 'bot': .*p\.jsonl:2: field 'pred' holds "
                                         r"NaN, which is not JSON"):
        io.attach_predictions(base, "bot", nan, item="uid", label="pred")
    mixed = _write(tmp_path / "q.jsonl", '{"uid": "a", "pred": 1}\n{"uid": "b", "pred": true}\n')
    with pytest.raises(ValueError, match=r"^predictions 'bot': the labels of a prediction file "
                                         r"mix numbers and booleans: field 'pred' holds true "
                                         r"\(.*q\.jsonl:2; 1 of 2 labels\), field 'pred' holds 1 "
                                         r"\(line 1\); .*: booleans do not mix with other labels$"):
        io.attach_predictions(base, "bot", mixed, item="uid", label="pred")
    idx = _write(tmp_path / "r.jsonl", '{"uid": "a", "pred": true}\n{"uid": "b", "pred": false}\n')
    with pytest.raises(ValueError, match=r"^predictions 'bot': .*r\.jsonl:1: field 'pred' holds "
                                         r"true; with classes it must be a class index"):
        io.attach_predictions(base, "bot", idx, item="uid", label="pred", classes=["x", "y"])


def _wide_csv(tmp_path, name, cell, every):
    rng = np.random.default_rng(0)
    rows = ["id,r1,r2,r3,sys"]
    for i in range(400):
        v = [str(x) for x in rng.integers(0, 2, 3)]
        if i % every == 0:
            v[1] = cell
        rows.append(f"i{i},{','.join(v)},{i % 2}")
    return _write(tmp_path / name, "\n".join(rows) + "\n")


@pytest.mark.parametrize("every", [3, 400])  # a third of the items, or one vote in 1,200
def test_csv_inf_and_text_among_numbers_refused_however_frequent(tmp_path, every):
    # before: "inf" and "yes" on a third of the items became a third label
    for cell, shown in (("inf", "inf"), ("Infinity", "inf"), ("-inf", "-inf")):
        p = _wide_csv(tmp_path, "w.csv", cell, every)
        with pytest.raises(ValueError, match=rf"^panel: column 'r2' of task 'w' holds {shown} "
                                             r"\(item 'i0' of .*w\.csv; \d+ of 1,200 votes\): a "
                                             r"label is text or a finite number"):
            io.load_tasks(p, columns=io.Columns(panel="r*", systems="sys", item="id"))
    p = _wide_csv(tmp_path, "y.csv", "yes", every)
    with pytest.raises(ValueError, match=r"^panel: the labels of task 'y' mix numbers and text: "
                                         r"column 'r2' holds 'yes' \(item 'i0' of .*y\.csv; "
                                         r"\d+ of 1,200 votes\), column 'r1' holds 1 \(item "
                                         r"'i0'\); they must be all numbers, all text or all "
                                         r"booleans \(empty and NaN cells: missing\): correct "
                                         r"them, or declare the label set"):
        io.load_tasks(p, columns=io.Columns(panel="r*", systems="sys", item="id"))
    long = tmp_path / "long.csv"
    df = pd.read_csv(p).melt(id_vars="id", var_name="rater", value_name="label")
    df.rename(columns={"id": "item"}).to_csv(long, index=False)
    with pytest.raises(ValueError, match=r"^panel: the labels of task 'long' mix numbers and "
                                         r"text: column 'r2' holds 'yes' \(item 'i0' of "):
        io.load_tasks(long, columns=io.Columns(panel="r*", systems="sys"), layout="long")
    # declared: a rare one is a stray value (missing, with a note), a common one refused
    data = io.load_tasks(p, columns=io.Columns(panel="r*", systems="sys", item="id"), labels=[0, 1])
    if every == 400:
        with pytest.warns(UserWarning, match=r"1 of 1,200 votes outside the label set"):
            stratify(data, labels=[0, 1], intervals=Intervals(n_resamples=0))
    else:
        with pytest.raises(ValueError, match=r"outside the label set \{0, 1\}: 'yes' \(134 of "):
            stratify(data, labels=[0, 1], intervals=Intervals(n_resamples=0))


def test_csv_booleans_do_not_mix_with_numbers(tmp_path):
    # "True" in a column pandas types as boolean was merged with 1 unseen
    p = _write(tmp_path / "b.csv", "id,r1,r2,sys\na,True,1,1\nb,False,0,0\nc,True,1,0\n")
    msg = (r"^panel: the labels of task 'b' mix numbers and booleans: column 'r1' holds True "
           r"\(item 'a' of .*b\.csv; 3 of 9 labels\), column 'r2' holds 1 \(item 'a'\); .*: "
           r"booleans do not mix with other labels$")
    with pytest.raises(ValueError, match=msg):
        io.read_wide(p, panel="r*", systems="sys", item="id")
    with pytest.raises(ValueError, match=msg):
        io.read_wide(p, panel="r*", systems="sys", item="id", labels=[0, 1])
    q = _write(tmp_path / "c.csv", "id,r1,r2,sys\na,True,True,1\nb,False,True,0\n")
    with pytest.raises(ValueError, match=r"^systems: the labels of task 'c' mix booleans and "
                                         r"numbers: column 'sys' holds 1 "):
        io.read_wide(q, panel="r*", systems="sys", item="id")
    frame = pd.DataFrame({"r1": [True, False], "r2": [True, True], "sys": [True, False]})
    td = io.read_wide(frame, panel="r*", systems="sys", task="t")["t"]
    assert td.panel.to_numpy().tolist() == [[True, True], [False, True]]


def test_csv_valid_files_read_as_before(tmp_path):
    p = _write(tmp_path / "v.csv", "id,r1,r2,r3,sys\na,1,1,0,1\nb,0,,1,0\nc,1.0,1,NA,1\n")
    td = io.load_tasks(p, columns=io.Columns(panel="r*", systems="sys", item="id"))["v"]
    assert td.panel.astype(float).fillna(-1).to_numpy().tolist() == [[1, 1, 0], [0, -1, 1],
                                                                      [1, 1, -1]]
    s = _write(tmp_path / "s.csv", "id,r1,r2,sys\na,yes,no,yes\nb,no,,no\nc,1 yes,no,no\n")
    td = io.load_tasks(s, columns=io.Columns(panel="r*", systems="sys", item="id"))["s"]
    assert td.panel.astype(object).fillna("-").to_numpy().tolist() == [["yes", "no"],
                                                                       ["no", "-"],
                                                                       ["1 yes", "no"]]


def test_bad_label_values_are_one_line_and_exit_2_on_the_command_line(tmp_path, capsys):
    from labelvar.cli import main

    j = _votes_jsonl(tmp_path, "v.jsonl", lambda i: [1, float("nan"), 0] if i % 3 == 0 else None)
    c = _wide_csv(tmp_path, "y.csv", "yes", 3)
    for args, start in (([str(j), "--panel", "votes", "--item", "id"],
                         "labelvar: error: --panel: "),
                        ([str(c), "--panel", "r*", "--item", "id"],
                         "labelvar: error: --panel: the labels of task 'y' mix numbers and text")):
        assert main(["stratify", *args]) == 2
        err = capsys.readouterr().err
        assert err.startswith(start) and err.count("\n") == 1 and "Traceback" not in err
    p = tmp_path / "pilot.jsonl"
    p.write_text('{"annotator_labels": [1, 0, 1]}\n{"annotator_labels": [1, "1", 1]}\n')
    assert main(["design", "--pilot", str(p), "--question", "separability"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("labelvar: error: --pilot: ") and err.count("\n") == 1
    assert "the labels of a pilot mix numbers and strings: field 'annotator_labels'" in err


# --------------------------------------------------------------------------- tasks, one field, ids
def _two_tasks(tmp_path):
    """Rater files (CheXpert layout) with tasks A and B on items s0..s5, and a model file."""
    rng = np.random.default_rng(1)
    files = []
    for r in ("r1", "r2", "r3"):
        df = pd.DataFrame({"Study": [f"s{i}" for i in range(6)],
                           "A": rng.integers(0, 2, 6), "B": rng.integers(0, 2, 6)})
        files.append(tmp_path / f"{r}.csv")
        df.to_csv(files[-1], index=False)
    pred = tmp_path / "partial.csv"
    pd.DataFrame({"Study": [f"s{i}" for i in range(6)], "A": [1, 0, 1, 1, 0, 0],
                  "B": [0, 0, 0, 1, 1, 1]}).to_csv(pred, index=False)
    return files, pred


def test_one_prediction_field_is_not_every_tasks_answer_in_python(tmp_path):
    # before: task B got the A column as its predictions (CheXpert: Edema scored with the
    # Cardiomegaly column); only the command line refused it
    files, pred = _two_tasks(tmp_path)
    kw = dict(columns=io.Columns(panel="r*", item="Study"),
              predictions=io.Predictions(files={"m": pred}, label="A"))
    with pytest.raises(ValueError, match=r"^predictions 'm': its one field 'A' would be every "
                                         r"task's answer: tasks 'A', 'B' share items \(e\.g\. "
                                         r"'s0'\); choose one task \(tasks=\.\.\.\), or give each "
                                         r"task's answers in a file of its own$"):
        io.load_tasks(files, tasks=["A", "B"], **kw)
    with pytest.raises(ValueError, match=r"^predictions 'm': its one field 'A' would be every"):
        io.load_tasks(files, **kw)  # all tasks
    d = io.load_tasks(files, tasks="A", **kw)
    assert list(d) == ["A"] and d["A"].predictions["m"].tolist() == [1, 0, 1, 1, 0, 0]
    base = io.read_rater_files(files, panel="r*", item="Study")
    with pytest.raises(ValueError, match=r"share items \(e\.g\. 's0'\); choose one task "
                                         r"\(task=\.\.\.\)"):
        io.attach_predictions(base, "m", pred, item="Study", label="A")
    d = io.attach_predictions(base, "m", pred, item="Study", label="B", task="B")
    assert d["B"].predictions["m"].tolist() == [0, 0, 0, 1, 1, 1]
    assert "m" not in d["A"].predictions
    probs = tmp_path / "probs.csv"
    pd.DataFrame({"Study": [f"s{i}" for i in range(6)], "p": np.linspace(0, 1, 6)}).to_csv(
        probs, index=False)
    with pytest.raises(ValueError, match=r"^probabilities 'pm': its one field 'p' would be "):
        io.attach_probabilities(base, "pm", probs, item="Study", field="p")
    with pytest.raises(ValueError, match=r"^probabilities 'pm': its one field 'p' .*\(tasks="):
        io.load_tasks(files, columns=io.Columns(panel="r*", item="Study"),
                      predictions=io.Predictions(probabilities={"pm": probs}, field="p"))
    # one column per task (no field): each task its own column, as before
    d = io.attach_probabilities(base, "m", pred, item="Study")
    assert d["B"].probabilities["m"].tolist() == [0, 0, 0, 1, 1, 1]


def test_one_field_for_tasks_with_their_own_items_is_allowed(tmp_path):
    rows = [dict(task=t, item=f"{t}{i}", rater=f"r{j}", label=(i + j) % 2)
            for t in "ab" for i in range(4) for j in range(3)]
    long = tmp_path / "long.csv"
    pd.DataFrame(rows).to_csv(long, index=False)
    pred = tmp_path / "pred.csv"
    pd.DataFrame({"id": ["a0", "a1", "b2", "b3"], "y": [1, 0, 1, 1]}).to_csv(pred, index=False)
    d = io.load_tasks(long, columns=io.Columns(panel="r*", task_column="task"), layout="long",
                      predictions=io.Predictions(files={"m": pred}, item="id", label="y"))
    assert d["a"].predictions["m"].tolist()[:2] == [1, 0]
    assert d["b"].predictions["m"].tolist()[2:] == [1, 1]


def _long_two_tasks(tmp_path, bad_b=False):
    rows = [dict(task=t, item=f"i{i}", rater=f"r{j}", label=(i * j + (t == "b")) % 2)
            for t in "ab" for i in range(5) for j in range(3)]
    if bad_b:
        rows[-1]["label"] = "yes"  # task b mixes numbers and text
    return pd.DataFrame(rows)


def test_tasks_select_in_every_layout(tmp_path):
    # before: tasks= was read by the raters layout only, silently ignored by the others
    df = _long_two_tasks(tmp_path)
    long = tmp_path / "long.csv"
    df.to_csv(long, index=False)
    wide = tmp_path / "wide.csv"
    df.pivot_table(index=["task", "item"], columns="rater", values="label").reset_index() \
        .to_csv(wide, index=False)
    groups = tmp_path / "groups.csv"
    g = df.assign(col=df.task + "/" + df.rater).pivot(index="item", columns="col", values="label")
    g.reset_index().to_csv(groups, index=False)
    jl = tmp_path / "multi.jsonl"
    jl.write_text("".join(json.dumps({"id": f"i{i}", "ann": [
        {t: int(df[(df.task == t) & (df.item == f"i{i}") & (df.rater == f"r{j}")].label.iloc[0])
         for t in "ab"} for j in range(3)]}) + "\n" for i in range(5)))
    cases = {"long": (long, dict(task_column="task"), dict(layout="long")),
             "wide": (wide, dict(item="item", task_column="task"), {}),
             "groups": (groups, dict(item="item", group_sep="/"), {}),
             "jsonl": (jl, dict(item="id"), {})}
    for name, (files, cols, kw) in cases.items():
        panel = "ann" if name == "jsonl" else "r*"
        kw["columns"] = io.Columns(panel=panel, **cols)
        every = io.load_tasks(files, **kw)
        assert list(every) == ["a", "b"], name
        d = io.load_tasks(files, tasks="b", **kw)
        assert list(d) == ["b"], name
        np.testing.assert_array_equal(d["b"].panel.to_numpy(float),
                                      every["b"].panel.to_numpy(float))
        with pytest.raises(ValueError, match=r"^tasks: 'c' matches no task; available: 'a', "
                                             r"'b'$"):
            io.load_tasks(files, tasks=["b", "c"], **kw)
    one = _write(tmp_path / "one.csv", "id,r1,r2\na,1,0\nb,1,1\n")
    assert list(io.load_tasks(one, columns=io.Columns(panel="r*"), tasks="one")) == ["one"]
    with pytest.raises(ValueError, match=r"^tasks: 'x' matches no task; available: 'one'$"):
        io.load_tasks(one, columns=io.Columns(panel="r*"), tasks="x")  # one task: the file's
    # only the tasks kept are checked: b's "yes" among numbers does not stop task a
    bad = tmp_path / "bad.csv"
    _long_two_tasks(tmp_path, bad_b=True).to_csv(bad, index=False)
    with pytest.raises(ValueError, match=r"^panel: the labels of task 'b' mix numbers and text"):
        io.load_tasks(bad, columns=io.Columns(panel="r*", task_column="task"), layout="long")
    assert list(io.load_tasks(bad, columns=io.Columns(panel="r*", task_column="task"),
                              layout="long", tasks="a")) == ["a"]


def test_rater_files_with_other_ids_name_some_and_count_them(tmp_path):
    # before: "does not hold the same item ids as ... (first difference: 's9')" only
    ids = [f"s{i}" for i in range(10)]
    ref = _write(tmp_path / "r1.csv", "Study,A\n" + "".join(f"{i},1\n" for i in ids))
    other = _write(tmp_path / "r2.csv", "Study,A\n" + "".join(f"{i},0\n" for i in ids[:5]))
    model = _write(tmp_path / "m.csv", "Study,A\n" + "".join(f"{i},1\n" for i in ids[1:]
                                                                  + ["x1", "x2"]))
    with pytest.raises(ValueError, match=r"^files: .*r2\.csv does not hold the same item ids as "
                                         r".*r1\.csv: it lacks 5 of its 10 ids \('s5', 's6', "
                                         r"'s7', \.\.\.\); every rater file covers the same "
                                         r"items$"):
        io.read_rater_files([ref, other], panel="r*", item="Study")
    with pytest.raises(ValueError, match=r"^files: .*m\.csv does not hold the same item ids as "
                                         r".*r1\.csv: it lacks 1 of its 10 ids \('s0'\) and has 2 "
                                         r"it lacks \('x1', 'x2'\); "):
        io.read_rater_files([ref, model], panel="r*", systems="m", item="Study")
    with pytest.raises(ValueError, match=r"r1\.csv: it has 2 it lacks \('x1', 'x2'\); "):
        io.read_rater_files([ref, _write(tmp_path / "m.csv", "Study,A\n" + "".join(
            f"{i},1\n" for i in ids + ["x1", "x2"]))], panel="r*", systems="m", item="Study")


def test_wide_count_columns_with_an_empty_cell_refused_naming_the_item(tmp_path):
    # before: the empty count was 0 votes, unseen
    p = _write(tmp_path / "c.csv", "id,e,n,c\na,12,68,20\nb,30,,70\nc,1,1,98\n")
    d = io.load_tasks(p, columns=io.Columns(panel="e,n,c", item="id", counts=True))
    with pytest.raises(ValueError, match=r"^panel counts of task 'c': item 'b' has no count for "
                                         r"label 'n' \(an empty or NaN cell; 1 bad cell\(s\) in "
                                         r"all\)"):
        stratify(d, intervals=Intervals(n_resamples=0))
    from labelvar.cli import main

    assert main(["stratify", str(p), "--panel-counts", "e,n,c", "--item", "id"]) == 2


def test_probabilities_without_a_task_column_name_the_python_parameter(tmp_path):
    # before: the Python message said "give --prob-field", a command-line flag
    p = _write(tmp_path / "w.csv", "id,r1,r2\na,1,0\nb,1,1\n")
    q = _write(tmp_path / "p.csv", "id,prob\na,0.3\nb,0.9\n")
    with pytest.raises(ValueError, match=r"names a task \('w'\); give the field holding them "
                                         r"\(predictions\.field=\.\.\.\)$"):
        io.load_tasks(p, columns=io.Columns(panel="r*", item="id"),
                      predictions=io.Predictions(probabilities={"pm": q}))
    with pytest.raises(ValueError, match=r"give the field holding them \(field=\.\.\.\)$"):
        io.attach_probabilities(io.load_tasks(p, columns=io.Columns(panel="r*", item="id")),
                                "pm", q, item="id")
    d = io.load_tasks(p, columns=io.Columns(panel="r*", item="id"),
                      predictions=io.Predictions(probabilities={"pm": q}, field="prob"))
    assert d["w"].probabilities["pm"].tolist() == [0.3, 0.9]


def test_label_kinds_of_a_categorical_leave_a_text_index_compact():
    """Checking a categorical column's label kinds must not turn a text item index into
    Python strings (np.asarray of ``.cat.codes`` did: 2e6 items cost 200 MB more)."""
    from labelvar.io import _labels

    n = 50_000
    index = pd.Index(pd.array([f"item{i}" for i in range(n)], dtype="string"), name="item")
    col = pd.Series(pd.Categorical(np.arange(n) % 2), index=index)
    before = col.index.memory_usage(deep=True)
    assert _labels.column_kinds(col) == {"number": (0, n)}
    assert col.index.memory_usage(deep=True) == before
