"""labelvar.io: every input layout, and every bad input, on small files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from labelvar import io
from labelvar.stratified import stratify

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
    t = stratify(d, pos_label="x", n_boot=0).table
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
