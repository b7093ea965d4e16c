"""Malformed input files: refused in one line naming the file and place, never misread.

Each case is a file a parser reads "successfully" into something else: a row cut
short (padded with missing cells), two columns of one name (the second renamed), a
label list with a repeat (the repeated label's votes dropped), ids spelt as numbers
(``0001`` read as the number 1), and what a list of votes cannot support (Dawid-Skene
needs rater identities).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from labelvar import io, stratify
from labelvar._base import _validate
from labelvar.cli import main
from labelvar.evaluation import Intervals, Truth
from labelvar.io import _csv


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _cli(args, capsys) -> tuple[int, str]:
    code = main(["stratify", *map(str, args)])
    err = capsys.readouterr().err.strip()
    return code, err


WIDE = "id,r1,r2,r3,weak\na,1,1,0,1\nb,0,0,0,1\nc,1,1,1,0\n"


# --------------------------------------------------------------------------- rows cut short
@pytest.mark.parametrize(("cut", "kept"), [(3, 4), (6, 3), (8, 2)])
def test_a_file_cut_mid_row_is_refused_naming_file_and_line(tmp_path, cut, kept, capsys):
    p = _write(tmp_path / "w.csv", WIDE[:-cut])
    whole = pd.read_csv(p)  # what pandas makes of it: a padded row
    assert whole.shape[0] == 3 and whole.iloc[2].isna().any()
    with pytest.raises(ValueError, match=rf"^cannot read .*w\.csv as a table: line 4 has "
                                         rf"{kept} cell\(s\), the header 5: the file ends mid-row"):
        io.read_wide(p, panel="r*", systems="weak", item="id")
    code, err = _cli([p, "--panel", "r*", "--systems", "weak", "--item", "id"], capsys)
    assert code == 2 and err.count("\n") == 0 and "line 4 has" in err


def test_a_row_with_a_cell_left_out_is_refused_anywhere(tmp_path, monkeypatch):
    # the middle row lost a cell: pandas would shift r3's vote into r2 and pad weak
    rows = ["id,r1,r2,r3,weak"] + [f"i{i},1,0,1,1" for i in range(3000)]
    rows[1501] = "i1500,1,1,1"
    p = _write(tmp_path / "w.csv", "\n".join(rows) + "\n")
    for block in (1 << 10, 1 << 18):  # the row inside a block, and across block edges
        monkeypatch.setattr(_csv, "_ROW_BLOCK", block)
        with pytest.raises(ValueError, match=r"line 1502 has 4 cell\(s\), the header 5: a row "
                                             r"cut short, or a cell left out"):
            io.read_wide(p, panel="r*", systems="weak", item="id")
        with pytest.raises(ValueError, match="line 1502 has 4"):
            io.read_frame(p)  # (the whole-table reader: long, rater and prediction files)


def test_quoted_separators_line_breaks_and_blank_lines_are_not_short_rows(tmp_path, monkeypatch):
    text = ('id,note,r1,r2\n"a,1","x\n,y",1,0\n\n b ,"",1,1\n"c""d",z,0,0\n\n')
    p = _write(tmp_path / "q.csv", text)
    for block in (4, 1 << 18):
        monkeypatch.setattr(_csv, "_ROW_BLOCK", block)
        td = io.read_wide(p, panel="r*", item="id")["q"]
        assert td.panel.index.tolist() == ["a,1", "b ", 'c"d']  # (leading spaces skipped)
        assert td.panel["r2"].tolist() == [0, 1, 0]
    _write(p, text.replace(' b ,"",1,1', ' b ,"",1'))
    with pytest.raises(ValueError, match=r"line 5 has 3 cell\(s\), the header 4"):
        io.read_frame(p)


def test_a_file_without_a_final_newline_but_whole_is_read(tmp_path):
    p = _write(tmp_path / "w.csv", WIDE.rstrip("\n"))
    assert io.read_wide(p, panel="r*", systems="weak", item="id")["w"].panel.shape == (3, 3)


# --------------------------------------------------------------------------- column names
def test_two_columns_of_one_name_are_refused_naming_them(tmp_path, capsys):
    p = _write(tmp_path / "d.csv", "id,r1,r2,r3,weak,weak\na,1,1,0,1,0\nb,0,0,0,1,0\n")
    assert pd.read_csv(p).columns.tolist()[-1] == "weak.1"  # what pandas would do
    msg = r"cannot read .*d\.csv as a table: columns 5 and 6 are both named 'weak'"
    with pytest.raises(ValueError, match=msg):
        io.read_wide(p, panel="r*", systems="weak", item="id")
    with pytest.raises(ValueError, match=msg):
        io.read_frame(p)
    code, err = _cli([p, "--panel", "r*", "--systems", "weak", "--item", "id"], capsys)
    assert code == 2 and "both named 'weak'" in err and "\n" not in err
    # names that differ only by spaces around them are one name once stripped
    _write(p, "id,r1,r2, weak,weak \na,1,1,0,1\n")
    with pytest.raises(ValueError, match="columns 4 and 5 are both named 'weak'"):
        io.read_frame(p)
    frame = pd.DataFrame([[1, 0, 1, 0]], columns=["r1", "r2", "weak", "weak"])
    with pytest.raises(ValueError, match="two columns are named 'weak'"):
        io.read_wide(frame, panel="r*", systems="weak")


# --------------------------------------------------------------------------- label lists
def test_a_repeated_count_label_is_refused_not_dropped(tmp_path, capsys):
    rng = np.random.default_rng(0)
    counts = rng.multinomial(10, [0.5, 0.3, 0.2], size=50)
    p = tmp_path / "c.csv"
    pd.DataFrame({"id": [f"i{i}" for i in range(50)], "e": counts[:, 0], "n": counts[:, 1],
                  "c": counts[:, 2]}).to_csv(p, index=False)
    code, err = _cli([p, "--panel-counts", "e,n,e", "--item", "id"], capsys)
    assert code == 2 and err == ("labelvar: error: --panel-counts: 'e' is given twice in e,n,e; "
                                 "name each column once")
    code, err = _cli([p, "--panel-counts", "e,n,c", "--labels", "e,n,e", "--item", "id"], capsys)
    assert code == 2 and "--labels: 'e' is given twice in ['e', 'n', 'e']" in err
    with pytest.raises(ValueError, match="'e' is given twice"):
        io.load_tasks(p, columns=io.Columns(panel="e,n,e", item="id", counts=True))
    # the right columns: every vote counted (the sum of the file's counts)
    r = stratify(io.load_tasks(p, columns=io.Columns(panel="e,n,c", item="id", counts=True)),
                 intervals=Intervals(n_resamples=0))
    assert sum(r.inputs["c"]["labels"].values()) == int(counts.sum())


def test_repeated_labels_in_jsonl_counts_and_prediction_classes(tmp_path, capsys):
    p = _write(tmp_path / "c.jsonl", "".join(json.dumps({"id": f"i{i}", "n": [3, 1, 1]}) + "\n"
                                             for i in range(4)))
    with pytest.raises(ValueError, match=r"^labels: 'e' is given twice in \['e', 'n', 'e'\]"):
        io.read_jsonl(p, panel="n", item="id", counts=True, labels=["e", "n", "e"])
    panel = _write(tmp_path / "w.csv", "id,r1,r2\na,e,e\nb,n,c\n")
    pred = _write(tmp_path / "p.jsonl", '{"id": "a", "pred": 0}\n{"id": "b", "pred": 2}\n')
    with pytest.raises(ValueError, match=r"^predictions\.classes: 'e' is given twice"):
        io.load_tasks(panel, columns=io.Columns(panel="r*", item="id"),
                      predictions=io.Predictions(files={"m": pred}, classes=["e", "n", "e"]))
    code, err = _cli([panel, "--panel", "r*", "--item", "id", "--predictions", f"m={pred}",
                      "--pred-classes", "e,n,e"], capsys)
    assert code == 2 and "--pred-classes: 'e' is given twice" in err
    data = io.load_tasks(panel, columns=io.Columns(panel="r*", item="id"))
    with pytest.raises(ValueError, match=r"^classes: 'n' is given twice"):
        io.attach_probabilities(data, "m", _write(tmp_path / "q.jsonl",
                                                  '{"id": "a", "p": [0.5, 0.3, 0.2]}\n'),
                                item="id", field="p", classes=["e", "n", "n"])


# --------------------------------------------------------------------------- ids as text
def test_ids_are_read_as_written_in_every_layout(tmp_path, capsys):
    ids = ["0001", "01", "1.0", "1", "+1", " 7", "1e3"]
    written = ["0001", "01", "1.0", "1", "+1", "7", "1e3"]  # (spaces around a cell: stripped)
    wide = _write(tmp_path / "w.csv", "id,r1,r2,m\n" + "".join(f"{i},1,{k % 2},1\n"
                                                               for k, i in enumerate(ids)))
    assert pd.read_csv(wide)["id"].tolist()[:4] == [1, 1, 1, 1]  # (pandas: the number 1)
    td = io.read_wide(wide, panel="r*", systems="m", item="id")["w"]
    assert td.panel.index.tolist() == written
    assert td.panel["r2"].tolist() == [0, 1, 0, 1, 0, 1, 0]
    # each layout on its own ids, integers with leading zeros only (pandas: all the number 1)
    _write(wide, "id,r1,r2\n0001,1,0\n01,1,1\n1,0,0\n")
    assert pd.read_csv(wide)["id"].tolist() == [1, 1, 1]
    assert io.read_wide(wide, panel="r*", item="id")["w"].panel.index.tolist() == ["0001", "01",
                                                                                   "1"]
    long = _write(tmp_path / "l.csv", "item,rater,label\n0001,r1,1\n0001,r2,0\n01,r1,1\n"
                                      "01,r2,1\n1,r1,0\n1,r2,0\n")
    assert io.read_long(long, panel="r*")["l"].panel.index.tolist() == ["0001", "01", "1"]
    for n, rows in (("r1", "id,A\n0001,1\n01,0\n1,1\n"), ("r2", "id,A\n1,0\n01,1\n0001,1\n")):
        _write(tmp_path / f"{n}.csv", rows)
    d = io.read_rater_files([tmp_path / "r1.csv", tmp_path / "r2.csv"], panel="r*", item="id")
    assert d["A"].panel.loc["0001"].tolist() == [1, 1] and d["A"].panel.loc["1"].tolist() == [1, 0]
    # a predictions file joins on the text: 0001 is not 1
    pred = _write(tmp_path / "p.csv", "id,pred\n1,1\n01,0\n0001,0\n")
    data = io.attach_predictions(io.read_wide(wide, panel="r*", item="id"), "m", pred, item="id",
                                 label="pred")
    assert data["w"].predictions["m"].tolist() == [0, 0, 1]
    code, err = _cli([wide, "--panel", "r*", "--item", "id", "--predictions", f"m={pred}",
                      "--n-resamples", "0", "--format", "csv"], capsys)
    assert code == 0, err


def test_ids_read_as_written_when_a_late_block_holds_decimals(tmp_path, monkeypatch):
    monkeypatch.setattr(_csv, "_CHUNK_ROWS", 2)
    ids = ["a", "b", "3", "4", "1.0", "1.50", "7", "8", "true", "FALSE"]
    p = _write(tmp_path / "w.csv", "id,r1,r2\n" + "".join(f"{i},1,{k % 2}\n"
                                                          for k, i in enumerate(ids)))
    td = io.read_wide(p, panel="r*", item="id")["w"]
    assert td.panel.index.tolist() == ids and td.panel["r2"].tolist() == [0, 1] * 5
    _write(p, "id,r1,r2\ntrue,1,0\nFALSE,1,1\n")  # (pandas: the booleans True, False)
    assert io.read_wide(p, panel="r*", item="id")["w"].panel.index.tolist() == ["true", "FALSE"]


def test_integer_ids_stay_compact(tmp_path):
    """Ids an integer spells as written are parsed as numbers, then turned to text."""
    n = 50_000
    p = tmp_path / "w.csv"
    pd.DataFrame({"id": np.arange(n), "r1": np.arange(n) % 2, "r2": 1}).to_csv(p, index=False)
    rows, text = _csv._check_rows(p, ",", 3, [0])
    assert rows == n + 2 and text == set()
    td = io.read_wide(p, panel="r*", item="id")["w"]
    assert td.panel.index[[0, 9, n - 1]].tolist() == ["0", "9", str(n - 1)]
    _write(p, p.read_text() + "007,1,1\n")
    assert _csv._check_rows(p, ",", 3, [0])[1] == {0}


# --------------------------------------------------------------------------- roles of a list
def test_dawid_skene_refused_on_a_list_of_votes(tmp_path, capsys):
    rng = np.random.default_rng(1)
    labels = np.array(["entailment", "neutral", "contradiction"])
    p = _write(tmp_path / "snli.jsonl", "".join(
        json.dumps({"pairID": f"p{i}", "annotator_labels": list(labels[rng.integers(0, 3, 5)])})
        + "\n" for i in range(40)))
    data = io.load_tasks(p, columns=io.Columns(panel="annotator_labels", item="pairID"))
    assert data["snli"].raters_identified is False
    with pytest.raises(ValueError, match=r"^aggregation: Dawid-Skene .*(list of votes|are "
                                         r"lists).*aggregation='majority'"):
        stratify(data, truth=Truth(aggregation="dawid_skene"), intervals=Intervals(n_resamples=0))
    code, err = _cli([p, "--panel", "annotator_labels", "--item", "pairID", "--aggregation",
                      "dawid_skene"], capsys)
    assert code == 2 and err.startswith("labelvar: error: --aggregation: Dawid-Skene")
    assert "--aggregation majority" in err
    # the plurality of the same list is read as before
    assert stratify(data, intervals=Intervals(n_resamples=0)).inputs["snli"]["items"] == 40


# --------------------------------------------------------------------------- environment
@pytest.mark.parametrize("value", ["1e400GB", "0", "0.5B", "2e18", "1e9999"])
def test_memory_limit_absurd_values_are_one_line(value, monkeypatch):
    monkeypatch.setenv("LABELVAR_MEMORY_LIMIT", value)
    with pytest.raises(ValueError) as info:
        _validate.memory_limit()
    assert str(info.value) == (f"LABELVAR_MEMORY_LIMIT must be a size such as 8GB or 500MB, "
                               f"from 1 B to 1000 PB, got {value!r}")
    monkeypatch.setenv("LABELVAR_MEMORY_LIMIT", "1e3GB")
    assert _validate.memory_limit() == 10**12


# --------------------------------------------------------------------------- JSON fields
def test_a_json_field_given_twice_is_refused_not_its_last_value(tmp_path):
    p = _write(tmp_path / "d.jsonl", '{"id": "a", "v": ["e", "n"], "gpt": "e"}\n'
                                     '{"id": "b", "v": ["e", "e"], "gpt": "e", "gpt": "n"}\n')
    assert json.loads(p.read_text().splitlines()[1])["gpt"] == "n"  # what json would keep
    with pytest.raises(ValueError, match=r"d\.jsonl:2: field 'gpt' appears twice in one object"):
        io.read_jsonl(p, panel="v", systems="gpt", item="id")
    nested = _write(tmp_path / "n.jsonl", '{"id": "a", "ann": [{"coh": 1, "coh": 2}]}\n')
    with pytest.raises(ValueError, match=r"n\.jsonl:1: field 'coh' appears twice"):
        io.read_jsonl(nested, panel="ann", item="id")


# --------------------------------------------------------------------------- probabilities
def test_probabilities_out_of_range_infinite_or_text_are_refused(tmp_path):
    panel = pd.DataFrame({"r1": ["e", "n", "c"], "r2": ["e", "n", "n"]},
                         index=pd.Index(["a", "b", "c"], name="item"))
    good = pd.DataFrame({"e": [0.7, 0.1, 0.2], "n": [0.2, 0.8, 0.5], "c": [0.1, 0.1, 0.3]},
                        index=panel.index)
    base = {"t": io.TaskData(panel, pd.DataFrame(index=panel.index), {"m": good})}
    r = stratify(base, metrics=["cross_entropy"], intervals=Intervals(n_resamples=0))
    assert r.inputs["t"]["systems"] == ["m"]
    for value, shown in ((np.inf, "inf"), (1.5, "1.5"), (-0.1, "-0.1")):
        bad = good.copy()
        bad.loc["b", "n"] = value
        with pytest.raises(ValueError, match=rf"^probabilities\['m'\] \(task 't'\): item 'b' has "
                                             rf"{shown} for label 'n' \(1 item\(s\) with such "
                                             r"values\); probabilities are finite numbers in \[0, 1\]"):
            stratify({"t": base["t"]._replace(probabilities={"m": bad})},
                     metrics=["cross_entropy"], intervals=Intervals(n_resamples=0))
    text = good.astype(object)
    text.loc["c", "e"] = "high"
    with pytest.raises(ValueError, match=r"'high' \(row 3\) is no probability"):
        stratify({"t": base["t"]._replace(probabilities={"m": text})}, metrics=["cross_entropy"],
                 intervals=Intervals(n_resamples=0))
    f = _write(tmp_path / "p.csv", "id,t\na,0.9\nb,high\nc,0.2\n")
    with pytest.raises(ValueError, match=r"^probabilities 'm': column 't': 'high' \(row 2\) is "
                                         r"no probability"):
        io.attach_probabilities(base, "m", f, item="id")


# --------------------------------------------------------------------------- every reader (issue 31)
def _layout_files(tmp_path, layout, stray):
    """400 items, 3 raters voting 0.0/1.0 (floats), ids 0000..0399, one vote replaced."""
    rng = np.random.default_rng(0)
    n = 400
    ids = [f"{i:04d}" for i in range(n)]
    votes = rng.integers(0, 2, (n, 3)).astype(float).astype(object)
    if stray is not None:
        votes[3, 1] = stray
    sysv = rng.integers(0, 2, n)
    if layout == "wide":
        df = pd.DataFrame(votes, columns=["r1", "r2", "r3"]).assign(sys=sysv)
        df.insert(0, "id", ids)
        df.to_csv(tmp_path / "w.csv", index=False)
        return [tmp_path / "w.csv"], io.Columns(panel="r*", systems="sys", item="id"), {}
    if layout == "long":
        rows = [(ids[i], f"r{j + 1}", votes[i, j]) for i in range(n) for j in range(3)]
        rows += [(ids[i], "sys", sysv[i]) for i in range(n)]
        pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(tmp_path / "l.csv",
                                                                       index=False)
        return [tmp_path / "l.csv"], io.Columns(panel="r*", systems="sys"), {"layout": "long"}
    if layout == "jsonl":
        with open(tmp_path / "j.jsonl", "w") as f:
            for i in range(n):
                f.write(json.dumps({"id": ids[i], "v": list(votes[i]), "sys": int(sysv[i])})
                        + "\n")
        return [tmp_path / "j.jsonl"], io.Columns(panel="v", systems="sys", item="id"), {}
    files = []
    for j in range(3):
        pd.DataFrame({"id": ids, "t": votes[:, j]}).to_csv(tmp_path / f"r{j + 1}.csv",
                                                          index=False)
        files.append(tmp_path / f"r{j + 1}.csv")
    pd.DataFrame({"id": ids, "t": sysv}).to_csv(tmp_path / "sys.csv", index=False)
    return files + [tmp_path / "sys.csv"], io.Columns(panel="r*", systems="sys", item="id"), {}


@pytest.mark.parametrize("layout", ["wide", "long", "jsonl", "raters"])
def test_every_reader_keeps_ids_reads_float_labels_and_refuses_stray_ones(tmp_path, layout):
    files, cols, kw = _layout_files(tmp_path, layout, None)
    data = io.load_tasks(files, columns=cols, **kw)
    (task,) = data
    assert data[task].panel.index[:2].tolist() == ["0000", "0001"]
    r = stratify(data, intervals=Intervals(n_resamples=0), truth=Truth(tie_rule="lowest"),
                 metrics=["accuracy"])
    assert list(r.inputs[task]["labels"]) == [0, 1]
    for stray, says in ((2, r"label 2 occurs in 1 of 1,200 votes"),
                        (0.5, r"label 0\.5 occurs in 1 of 1,200 votes"),
                        ("x", r"mix numbers and (text|strings).*'?\"?x"),
                        (float("inf"), r"(inf|Infinity)")):
        if layout == "jsonl" and stray == float("inf"):
            says = r"holds Infinity, which is not JSON"
        files, cols, kw = _layout_files(tmp_path, layout, stray)
        with pytest.raises(ValueError, match=says):
            stratify(io.load_tasks(files, columns=cols, **kw), intervals=Intervals(n_resamples=0),
                     truth=Truth(tie_rule="lowest"), metrics=["accuracy"])
