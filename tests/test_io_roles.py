"""What a loader was told travels with the data: TaskData's role fields, in every layout."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from labelvar import io


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


WIDE = "id,r1,r2,r3,dr1,dr2,bot\na,1,1,0,1,1,0\nb,0,0,0,0,1,1\nc,1,1,1,1,1,1\n"


def test_load_tasks_records_humans_labels_and_rater_ids(tmp_path):
    p = _write(tmp_path / "w.csv", WIDE)
    td = io.load_tasks(p, columns=io.Columns(panel="r*", systems="bot", humans="dr*", item="id"))["w"]
    assert td.humans == ("dr1", "dr2")
    assert td.predictions.columns.tolist() == ["bot", "dr1", "dr2"]
    assert (td.counts, td.labels, td.samples, td.raters_identified) == (False, None, None, True)
    td = io.load_tasks(p, columns=io.Columns(panel="r*", systems="bot", item="id"), labels=[0, 1])["w"]
    assert td.humans == () and td.labels == (0, 1)


def test_roles_survive_attached_predictions_and_probabilities(tmp_path):
    p = _write(tmp_path / "w.csv", WIDE)
    pred = _write(tmp_path / "p.csv", "id,pred\na,1\nb,0\nc,1\n")
    prob = _write(tmp_path / "q.jsonl", "".join(json.dumps({"id": i, "p": x}) + "\n"
                                                for i, x in (("a", 0.9), ("b", 0.2), ("c", 0.6))))
    data = io.load_tasks(p, columns=io.Columns(panel="r*", humans="dr1", item="id"),
                         labels=["0", "1"], predictions=io.Predictions(
                             files={"m": pred}, probabilities={"m": prob}, field="p"))
    td = data["w"]
    assert td.humans == ("dr1",) and td.labels == ("0", "1")
    assert td.predictions["m"].tolist() == [1, 0, 1]
    assert td.probabilities["m"].tolist() == [0.9, 0.2, 0.6]
    base = io.read_wide(p, panel="r*", item="id", labels=[0, 1])
    for d in (io.attach_predictions(base, "m", pred, item="id", label="pred"),
              io.attach_probabilities(base, "m", prob, item="id", field="p")):
        assert d["w"].labels == (0, 1) and d["w"].raters_identified is True


def test_counts_and_lists_of_votes_are_no_raters(tmp_path):
    counts = _write(tmp_path / "c.csv", "id,e,n,c,bot\na,3,1,0,e\nb,0,2,2,n\n")
    td = io.load_tasks(counts, columns=io.Columns(panel="e,n,c", systems="bot", item="id", counts=True))["c"]
    assert (td.counts, td.raters_identified, td.labels) == (True, False, None)
    td = io.load_tasks(counts, columns=io.Columns(panel="e,n,c", item="id", counts=True),
                       labels=["E", "N", "C"])["c"]
    assert td.labels == ("E", "N", "C")
    js = _write(tmp_path / "c.jsonl", '{"id": "a", "n": [3, 1, 0]}\n{"id": "b", "n": [0, 2, 2]}\n')
    td = io.load_tasks(js, columns=io.Columns(panel="n", item="id", counts=True), labels=["e", "n", "c"])["c"]
    assert (td.counts, td.raters_identified, td.labels) == (True, False, ("e", "n", "c"))
    assert td.panel.loc["b"].tolist() == [0, 2, 2]
    snli = _write(tmp_path / "s.jsonl", '{"id": "a", "v": ["e", "n", "e"], "gpt": "e"}\n'
                                        '{"id": "b", "v": ["c", "c"], "gpt": "n"}\n')
    td = io.load_tasks(snli, columns=io.Columns(panel="v", systems="gpt", item="id"))["s"]
    assert (td.counts, td.raters_identified) == (False, False)
    multi = _write(tmp_path / "m.jsonl", json.dumps({"id": "a", "ann": [{"coh": 1, "flu": 2},
                                                                        {"coh": 2, "flu": 2}]}))
    assert {t: td.raters_identified for t, td in io.read_jsonl(multi, panel="ann",
                                                               item="id").items()} == \
        {"coh": False, "flu": False}


def test_rater_files_and_long_tables_name_their_raters(tmp_path):
    for n, rows in (("r1", "id,A\nx,1\ny,0\n"), ("r2", "id,A\nx,1\ny,1\n"),
                    ("dr", "id,A\nx,0\ny,1\n")):
        _write(tmp_path / f"{n}.csv", rows)
    files = [tmp_path / f"{n}.csv" for n in ("r1", "r2", "dr")]
    td = io.load_tasks(files, columns=io.Columns(panel="r*", humans="dr", item="id"))["A"]
    assert td.humans == ("dr",) and td.raters_identified and not td.counts
    long = pd.DataFrame({"item": ["x", "x", "y", "y", "x", "y"],
                         "rater": ["r1", "r2", "r1", "r2", "dr", "dr"],
                         "label": [1, 1, 0, 1, 0, 1]})
    long.to_csv(tmp_path / "l.csv", index=False)
    td = io.load_tasks(tmp_path / "l.csv", columns=io.Columns(panel="r*", humans="dr"), layout="long")["l"]
    assert td.humans == ("dr",) and td.raters_identified
    assert td.panel.loc["y"].tolist() == [0, 1]


def test_a_rater_given_as_system_and_human_is_refused(tmp_path):
    p = _write(tmp_path / "w.csv", WIDE)
    with pytest.raises(ValueError, match=r"^humans: 'dr1' is also given as a system"):
        io.load_tasks(p, columns=io.Columns(panel="r*", systems="bot,dr1", humans="dr1", item="id"))


# --------------------------------------------------------------------------- records (issue 28/31)
def test_load_tasks_takes_records_of_column_roles_within_twelve_parameters():
    import inspect

    params = inspect.signature(io.load_tasks).parameters
    assert len(params) <= 12
    assert not [p for p in params if p.startswith(("pred_", "prob_"))]
    assert [f for f in io.Predictions.__dataclass_fields__] == [
        "files", "probabilities", "item", "label", "classes", "samples", "parse", "task_field",
        "field"]


def test_records_as_mappings_and_unknown_fields(tmp_path):
    p = _write(tmp_path / "w.csv", WIDE)
    td = io.load_tasks(p, columns={"panel": "r*", "humans": "dr*", "item": "id"})["w"]
    assert td.humans == ("dr1", "dr2")
    with pytest.raises(ValueError, match=r"^columns: 'pred_item' is no field of Columns"):
        io.load_tasks(p, columns={"panel": "r*", "pred_item": "id"})
    with pytest.raises(ValueError, match=r"^predictions must be a labelvar\.io\.Predictions"):
        io.load_tasks(p, columns=io.Columns(panel="r*", item="id"), predictions=["x"])
    with pytest.raises(ValueError, match=r"^predictions\.files must map each system's name"):
        io.load_tasks(p, columns=io.Columns(panel="r*", item="id"),
                      predictions=io.Predictions(files=["x.csv"]))


@pytest.mark.parametrize("layout", ["wide", "long", "raters"])
def test_a_human_pattern_matching_nothing_is_named_humans_in_every_layout(tmp_path, layout):
    """The readers name humans themselves (no error text rewritten by its prefix)."""
    if layout == "wide":
        files, kw = [_write(tmp_path / "w.csv", WIDE)], dict(item="id")
    elif layout == "long":
        files = [_write(tmp_path / "l.csv", "item,rater,label\na,r1,1\na,r2,0\na,dr1,1\n")]
        kw = {}
    else:
        files = [_write(tmp_path / f"{n}.csv", "id,t\na,1\nb,0\n") for n in ("r1", "r2", "dr1")]
        kw = dict(item="id")
    with pytest.raises(ValueError, match=r"^humans: 'nurse\*' matches no (column|rater)"):
        io.load_tasks(files, layout=layout,
                      columns=io.Columns(panel="r*", humans="dr*,nurse*", **kw))


def test_a_rater_matched_by_both_systems_and_humans_is_refused(tmp_path):
    p = _write(tmp_path / "w.csv", WIDE)
    with pytest.raises(ValueError, match=r"^humans: 'dr1' is also among the systems"):
        io.load_tasks(p, columns=io.Columns(panel="r*", systems="bot,dr*", humans="dr1",
                                            item="id"))
    with pytest.raises(ValueError, match=r"^humans: 'dr1' is also among the systems"):
        io.read_wide(p, panel="r*", systems="*1", humans="dr*", item="id")
