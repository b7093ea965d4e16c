"""Report directories: the files written, replaced as a whole, never over a user's files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

import labelvar
from labelvar import plots, stratify
from labelvar._base._files import read_results
from labelvar.design._scenario import Scenario
from labelvar.evaluation import Intervals
from labelvar.io import TaskData, synthetic_panel
from labelvar.report import _writers as report
from labelvar.report._writers import stratify_markdown

SRC = Path(__file__).resolve().parents[1] / "src" / "labelvar"


@pytest.fixture(scope="module")
def result():
    tasks = {}
    for k in range(3):
        df = synthetic_panel(120, seed=k).set_index("item")
        tasks[f"t{k}"] = (df.filter(like="gt"), df[["strong", "weak", "human1", "human2"]])
    return stratify(tasks, humans=["human1", "human2"], intervals=Intervals(n_resamples=0))


def names(path):
    return sorted(p.name for p in Path(path).iterdir())


def test_stratify_report_files(tmp_path, result):
    out = tmp_path / "rep"
    agreement = result.agreement()
    paths = report.write_stratify_report(result, out, compare=("strong", "weak"),
                                         agreement=agreement)
    assert sorted(p.name for p in paths) == names(out)
    assert set(names(out)) == {
        "report.json", "stratified.csv", "table.md", "excluded.json", "bin_tests.csv",
        "agreement.csv", "report.html",
        "paired_f1.csv", "paired_accuracy.csv",
        *(f"{kind}_{m}.{ext}" for kind in ("scores", "delta", "paired")
          for m in ("f1", "accuracy") for ext in ("png", "pdf"))}
    pd.testing.assert_frame_equal(read_results(out / "stratified.csv"), result.table,
                                  check_dtype=False)
    meta = json.loads((out / "report.json").read_text())
    assert meta["kind"] == "stratify" and "stratified.csv" in meta["files"]
    md = (out / "table.md").read_text()
    assert md == report.stratify_markdown(result, compare=("strong", "weak"), agreement=agreement)
    assert md.count("### ") == 5 and "### paired t-test strong − weak (f1)" in md
    bt = read_results(out / "bin_tests.csv")
    assert set(zip(bt.metric, bt.value)) == {(m, v) for m in ("f1", "accuracy")
                                             for v in ("delta_human", "score")}
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporaries


def test_rerun_replaces_the_report_as_a_whole(tmp_path, result):
    out = tmp_path / "rep"
    report.write_stratify_report(result, out, compare=("strong", "weak"), figures=False)
    assert "paired_f1.csv" in names(out)
    report.write_stratify_report(result, out, figures=False)
    assert "paired_f1.csv" not in names(out)  # nothing of the previous run survives
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_interrupted_run_keeps_the_previous_report(tmp_path, result, monkeypatch):
    out = tmp_path / "rep"
    report.write_stratify_report(result, out, figures=False)
    before = {n: (out / n).read_bytes() for n in names(out)}

    def fail(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(plots, "save", fail)
    with pytest.raises(RuntimeError, match="disk full"):
        report.write_stratify_report(result, out, compare=("strong", "weak"))
    assert {n: (out / n).read_bytes() for n in names(out)} == before
    assert names(tmp_path) == ["rep"]


def test_refuses_a_directory_with_other_files(tmp_path, result):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="not part of a labelvar report.*notes.txt"):
        report.write_stratify_report(result, tmp_path, figures=False)
    assert names(tmp_path) == ["notes.txt"]


def test_design_report(tmp_path):
    res = labelvar.plan_study(Scenario("separability", theta="beta:2,2"), panel_sizes=[1, 3],
                       replicates=0)
    paths = report.write_design_report(res, tmp_path / "d")
    assert sorted(p.name for p in paths) == names(tmp_path / "d") == sorted(
        ["design.csv", "design_bins.csv", "design_evaluated.csv", "design_curves.csv",
         "scenario.json", "power.png", "power.pdf", "report.html", "report.json"])
    plans = read_results(tmp_path / "d" / "design.csv")
    assert plans["n_items"].tolist() == res.table["n_items"].tolist()
    meta = json.loads((tmp_path / "d" / "report.json").read_text())
    assert meta["kind"] == "design" and meta["message"] == res.describe()
    paths = report.write_design_report(res, tmp_path / "d", figure=False)  # rerun: replaced
    assert "power.png" not in names(tmp_path / "d")


def test_one_atomic_writer_in_src():
    """Only labelvar._base._files renames files into place or opens temporaries."""
    pattern = re.compile(r"os\.replace\(|\.replace\(path\)|mkstemp|NamedTemporaryFile|"
                         r"\.rename\((?!\s*(?:columns|index)=|\s*[\"'])")  # pandas' rename moves no file
    offenders = [str(p.relative_to(SRC)) for p in SRC.rglob("*.py")
                 if p.name != "_files.py" and pattern.search(p.read_text())]
    assert offenders == []


def test_a_system_with_probabilities_only_is_named_as_read():
    """A system given only probability outputs is evaluated (AUROC, ...): what was read
    says so, where it used to say "systems none" (CheXpert's predictions files)."""
    panel = [[1, 1, 0], [0, 0, 0], [1, 0, 0], [1, 1, 1], [0, 1, 1], [0, 0, 1]] * 3
    prob = [0.9, 0.1, 0.4, 0.8, 0.7, 0.2] * 3
    r = stratify(TaskData(panel, None, probabilities={"model": prob}), humans=[],
                 intervals=Intervals(n_resamples=0))
    assert r.inputs["task"]["systems"] == ["model"]
    assert "; systems model;" in r.describe()
    auroc = r.table[(r.table.metric == "auroc") & (r.table.stratum == "all")]
    assert auroc.system.tolist() == ["model"]
    md = stratify_markdown(r)
    assert "(no systems)" not in md
    assert md.startswith("### panel vs humans (no system with labels; systems' other metrics")


def test_headings_promise_intervals_only_when_there_are_some():
    """With no resamples there is no interval: the headings used to announce one anyway."""
    panel = [[1, 1, 0], [0, 0, 0], [1, 0, 0], [1, 1, 1], [0, 1, 1], [0, 0, 1]] * 4
    preds = {"s": [1, 0, 0, 1, 0, 1] * 4}
    r = stratify(panel, preds, metrics=["accuracy", "kappa"], intervals=Intervals(n_resamples=0))
    md = report.stratify_markdown(r, agreement=r.agreement())
    assert "### other metrics (score; no intervals)" in md
    assert "### panel agreement (score; no intervals without bootstrap resamples)" in md
    assert "[" not in md.split("### other metrics")[1]
    r = stratify(panel, preds, metrics=["accuracy", "kappa"], intervals=Intervals(n_resamples=20))
    md = report.stratify_markdown(r, agreement=r.agreement())
    assert "### other metrics (score [interval])" in md
    assert "### panel agreement (score [bootstrap interval over items])" in md


def test_macro_f1_is_named_as_such_in_the_markdown():
    """With 3 labels and no positive class the 'f1' columns are macro-F1 (E and m are
    NaN): the table now says so; a binary task's block does not."""
    panel = [["e", "e", "n"], ["c", "c", "c"], ["n", "n", "e"], ["e", "e", "e"]] * 5
    r = stratify({"nli": TaskData(panel, {"s": ["e", "c", "e", "n"] * 5})},
                 intervals=Intervals(n_resamples=0))
    md = report.stratify_markdown(r)
    assert md.startswith("### s\nf1 of nli: macro-F1 over the task's labels (no positive "
                         "class, so no m and no E)\n\n| task")
    f1 = r.table[(r.table.metric == "f1") & (r.table.stratum == "all")].score.iloc[0]
    skm = pytest.importorskip("sklearn.metrics")
    maj = ["e", "c", "n", "e"] * 5
    assert f1 == pytest.approx(skm.f1_score(maj, ["e", "c", "e", "n"] * 5, average="macro"))
    binary = stratify([[1, 1, 0], [0, 0, 0]] * 5, {"s": [1, 0] * 5},
                      intervals=Intervals(n_resamples=0))
    assert "macro-F1" not in report.stratify_markdown(binary)
