"""`labelvar stratify` end to end on the shipped synthetic data and on small bad files."""

from __future__ import annotations

import io as _io
import json
import os
import subprocess
import sys
import threading
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pandas as pd
import pytest

from labelvar.cli import main
from labelvar.evaluation import Intervals, Paper
from labelvar.evaluation._stratified import stratify
from labelvar.io import TaskData, synthetic_panel

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "synthetic_panel.csv"


def run(*argv):
    out, err = _io.StringIO(), _io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def test_markdown_table_on_synthetic_example():
    code, out, err = run("stratify", EXAMPLE, "--panel", "gt*", "--systems", "strong,weak,coin",
                         "--humans", "human*", "--item", "item", "--n-resamples", "0")
    assert code == 0, err
    assert out.count("### ") == 4 and "| task" in out  # 3 systems and the panel's agreement
    assert "f1 Δ(H−AI)" in out and "accuracy E" in out
    # the numbers are those of the Python API
    df = synthetic_panel(400, seed=0).set_index("item")
    t = stratify({"synthetic_panel": TaskData(
        df.filter(like="gt"), df[["strong", "weak", "coin", "human1", "human2"]])},
                 humans=["human1", "human2"], intervals=Intervals(n_resamples=0)).table
    h = t[(t.role == "H") & (t.stratum == "all") & (t.metric == "accuracy")].iloc[0]
    assert f"{h.score:.2f}±{h.sd:.2f}" in out


def test_csv_format_and_out_dir(tmp_path):
    code, out, err = run("stratify", EXAMPLE, "--panel", "gt*", "--systems", "strong,weak,coin",
                         "--humans", "human1,human2", "--item", "item", "--n-resamples", "50",
                         "--simulated-human", "3", "--leave-one-out", "--format", "csv",
                         "--out", tmp_path / "res")
    assert code == 0, err
    t = pd.read_csv(_io.StringIO(out))
    assert {"task", "system", "stratum", "agreement", "S", "m", "metric", "score", "expected",
            "delta_expected"} <= set(t.columns)
    assert {"H", "H'", "H'-loo", "system", "human"} == set(t.role)
    res = tmp_path / "res"
    saved = pd.read_csv(res / "stratified.csv")
    pd.testing.assert_frame_equal(saved, t)
    for name in ("table.md", "bin_tests.csv", "scores_f1.png", "scores_accuracy.pdf",
                 "delta_f1.png", "excluded.json"):
        assert (res / name).is_file(), name
    assert not list(res.glob(".*.tmp"))
    bt = pd.read_csv(res / "bin_tests.csv")
    assert set(bt.metric) == {"f1", "accuracy"}


def test_p_d_one_flag_changes_only_unanimous_expectation():
    base = ["stratify", EXAMPLE, "--panel", "gt*", "--systems", "weak", "--item", "item",
            "--n-resamples", "0", "--format", "csv", "--metrics", "accuracy"]
    _, out1, _ = run(*base)
    _, out2, _ = run(*base, "--p-d-one", "0.97")
    a, b = pd.read_csv(_io.StringIO(out1)), pd.read_csv(_io.StringIO(out2))
    assert (a[a.stratum == "1.00"].expected == 1.0).all()
    assert (b[b.stratum == "1.00"].expected == 0.97).all()
    assert (a[a.stratum == "0.60"].expected == b[b.stratum == "0.60"].expected).all()


def test_long_and_jsonl_layouts(tmp_path):
    long = tmp_path / "long.csv"
    rows = ["item,rater,label"] + [f"i{i},r{j},{(i + (j == 2)) % 2}" for i in range(6)
                                   for j in range(3)] + [f"i{i},bot,1" for i in range(6)]
    long.write_text("\n".join(rows) + "\n")
    code, out, err = run("stratify", long, "--layout", "long", "--panel", "r*",
                         "--systems", "bot", "--n-resamples", "0")
    assert code == 0, err
    assert "### bot" in out
    js = tmp_path / "x.jsonl"
    js.write_text('{"id": "a", "v": ["x", "x", "y"], "m": "x"}\n'
                  '{"id": "b", "v": ["y", "y", "y"], "m": "x"}\n')
    code, out, err = run("stratify", js, "--panel", "v", "--systems", "m", "--item", "id",
                         "--pos-label", "x", "--n-resamples", "0")
    assert code == 0, err
    assert "0.67" in out and "1.00" in out


def _bad(tmp_path, text, *args, name="w.csv"):
    p = tmp_path / name
    p.write_text(text)
    code, out, err = run("stratify", p, *args)
    lines = err.strip().splitlines()
    assert code == 2, (out, err)
    assert len(lines) == 1 and lines[0].startswith("labelvar"), err
    assert "error: " in lines[0]
    assert "Traceback" not in err
    return lines[0]


WIDE = "id,r1,r2,r3,gpt\na,1,1,0,1\nb,0,0,0,1\nc,1,1,1,0\n"


@pytest.mark.parametrize("args, match", [
    (("--panel", "r*", "--systems", "gtp", "--item", "id"), "systems: 'gtp' matches no column"),
    (("--panel", "x*", "--item", "id"), "panel: 'x*' matches no column"),
    (("--panel", "r*", "--item", "key"), "item: column 'key' not found"),
    (("--panel", "r*", "--systems", "gpt", "--item", "id", "--labels", "0,2"),
     "labels outside the label set"),
    (("--panel", "r*", "--systems", "gpt", "--item", "id", "--pos-label", "7"),
     "--pos-label: '7' is not in the label set"),
    (("--panel", "r1", "--systems", "gpt", "--item", "id"), "at least 2 annotators"),
    (("--panel", "r*", "--systems", "gpt", "--item", "id", "--humans", "dr"),
     "--humans: 'dr' matches no column"),
    (("--panel", "r*", "--systems", "gpt", "--item", "id", "--bins", "0.8,1"),
     "do not cover the observed agreement"),
    (("--panel", "r*", "--item", "id", "--tie-rule", "coin"), "--tie-rule must be one of"),
])
def test_bad_input_one_line_exit_2(tmp_path, args, match):
    assert match in _bad(tmp_path, WIDE, *args)


def test_bad_labels_in_predictions_and_positive_never_occurs(tmp_path):
    msg = _bad(tmp_path, "id,r1,r2,gpt\na,1,1,2\nb,0,0,1\n", "--panel", "r*", "--systems", "gpt",
               "--item", "id")
    assert "predictions['gpt']" in msg and "outside the label set" in msg
    msg = _bad(tmp_path, "id,r1,r2,gpt\na,x,x,x\nb,y,x,x\n", "--panel", "r*", "--systems", "gpt",
               "--item", "id", "--labels", "x,y,z", "--pos-label", "z")
    assert "positive label 'z' never occurs" in msg


def test_duplicate_ids(tmp_path):
    msg = _bad(tmp_path, "item,rater,label\na,r1,1\na,r1,0\na,r2,1\n", "--layout", "long",
               "--panel", "r*", name="l.csv")
    assert "duplicate rows for item 'a' and rater 'r1'" in msg
    msg = _bad(tmp_path, "id,r1,r2\na,1,1\na,0,0\n", "--panel", "r*", "--item", "id")
    assert "duplicate item id 'a'" in msg


def test_prediction_length_mismatch_via_missing_ids(tmp_path):
    pred = tmp_path / "p.jsonl"
    pred.write_text('{"uid": "a", "pred": 1}\n')
    msg = _bad(tmp_path, WIDE, "--panel", "r*", "--item", "id", "--predictions", f"bot={pred}",
               "--pred-item", "uid")
    assert "predictions['bot']" in msg and "missing for 2 item(s)" in msg
    code, out, err = run("stratify", tmp_path / "w.csv", "--panel", "r*", "--item", "id",
                         "--predictions", f"bot={pred}", "--pred-item", "uid",
                         "--missing-predictions", "drop", "--n-resamples", "0")
    assert code == 0 and "2 without a prediction" in err


def test_items_without_votes_reported_and_excluded(tmp_path):
    p = tmp_path / "w.csv"
    p.write_text("id,r1,r2,r3,gpt\na,1,1,0,1\nb,,,,1\nc,1,,,0\nd,0,0,0,0\n")
    code, out, err = run("stratify", p, "--panel", "r*", "--systems", "gpt", "--item", "id",
                         "--n-resamples", "0", "--format", "csv")
    assert code == 0
    assert "labelvar: note: excluded items (w: 1 with no votes, 1 with one vote)" in err
    t = pd.read_csv(_io.StringIO(out))
    assert (t[t.stratum == "all"].S == 2).all()


def test_missing_file_one_line(tmp_path):
    code, out, err = run("stratify", tmp_path / "nope.csv", "--panel", "r*")
    assert code == 2 and err.strip().startswith("labelvar: error: FILE: no such file")


def test_compare_two_systems_across_tasks(tmp_path):
    df = pd.concat([synthetic_panel(120, seed=s).assign(task=f"t{s}") for s in range(4)])
    p = tmp_path / "multi.csv"
    df.to_csv(p, index=False)
    code, out, err = run("stratify", p, "--panel", "gt*", "--systems", "strong,weak",
                         "--item", "item", "--task-column", "task", "--n-resamples", "0",
                         "--compare", "strong,weak", "--compare-across-tasks",
                         "--out", tmp_path / "o")
    assert code == 0, err
    assert "### paired t-test strong − weak (f1), pairs = tasks" in out
    # the same items inside each bin: exact McNemar for accuracy, Holm over all tests
    comp = pd.read_csv(tmp_path / "o" / "comparisons.csv", dtype={"stratum": str})
    acc = comp[comp.metric == "accuracy"]
    assert (acc.test == "mcnemar_exact").all() and len(acc) == 4 * 4
    tested = comp.p.notna()  # --n-resamples 0: no bootstrap p-values, McNemar's only
    assert (comp.n_comparisons == tested.sum()).all() and tested.sum() == 16
    assert (comp.p_holm[tested] >= comp.p[tested]).all()
    res = pd.read_csv(tmp_path / "o" / "paired_accuracy.csv", dtype={"stratum": str})
    assert res.stratum.tolist() == ["0.60", "0.80", "1.00", "all", "pooled"]
    assert res.n.tolist() == [4, 4, 4, 4, 12]
    assert (tmp_path / "o" / "paired_f1.png").is_file()
    code, out, err = run("stratify", p, "--panel", "gt*", "--systems", "strong",
                         "--item", "item", "--task-column", "task", "--compare", "strong")
    assert code == 2 and "--compare takes two systems" in err


# ------------------------------------------------------------- bad input: one line naming the flag
def test_stray_label_refused_naming_the_flags(tmp_path):
    rows = ["id,r1,r2,r3,r4,r5"] + [f"i{i},{i % 2},{i % 2},1,0,{i % 2}" for i in range(400)]
    rows[9] = "i8,0,0,2,0,0"
    p = tmp_path / "stray.csv"
    p.write_text("\n".join(rows) + "\n")
    msg = _bad(tmp_path, p.read_text(), "--panel", "r*", "--item", "id", name="stray.csv")
    assert ("label 2 occurs in 1 of 2,000 votes (0.05 %), which looks like a stray value; pass "
            "--labels 0,1 to drop it as missing or --labels 0,1,2 to keep it") in msg
    code, out, err = run("stratify", p, "--panel", "r*", "--item", "id", "--labels", "0,1",
                         "--n-resamples", "0", "--format", "csv")
    assert code == 0, err
    assert "labelvar: note: task 'stray': 1 of 2,000 votes outside the label set (2: 1)" in err
    assert (pd.read_csv(_io.StringIO(out)).n_labels == 2).all()


def test_system_that_is_also_a_rater_refused(tmp_path):
    msg = _bad(tmp_path, WIDE, "--panel", "r*", "--systems", "r1,gpt", "--item", "id")
    assert "--systems: 'r1' is also a panel rater: it would be scored against a majority it " \
           "voted in" in msg


def test_messages_name_the_flags(tmp_path):
    pred = tmp_path / "p.jsonl"
    pred.write_text('{"uid": "a", "pred": 1}\n')
    msg = _bad(tmp_path, WIDE, "--panel", "r*", "--item", "id", "--predictions", f"bot={pred}",
               "--pred-item", "uid")
    assert "--missing-predictions drop" in msg and "missing=" not in msg
    msg = _bad(tmp_path, "id,r1,r2,gpt\na,x,x,x\nb,y,x,x\n", "--panel", "r*", "--systems",
               "gpt", "--item", "id")
    assert "(--pos-label ...)" in msg
    msg = _bad(tmp_path, WIDE, "--panel", "r*", "--item", "id", "--min-bin-size", "0")
    assert msg.startswith("labelvar: error: --min-bin-size")
    msg = _bad(tmp_path, WIDE, "--panel", "r*", "--item", "id", "--simulated-human", "0")
    assert "--simulated-human 5" in msg


def test_panel_counts_csv_columns(tmp_path):
    p = tmp_path / "c.csv"
    p.write_text("id,yes,no,bot\na,3,2,yes\nb,0,5,no\nc,4,1,no\n")
    code, out, err = run("stratify", p, "--panel-counts", "yes,no", "--systems", "bot",
                         "--item", "id", "--pos-label", "yes", "--n-resamples", "0", "--format", "csv")
    assert code == 0, err
    assert "c: 3 items, count vectors, 5 votes per item, labels yes (7), no (8); systems bot" in err
    t = pd.read_csv(_io.StringIO(out), dtype={"stratum": str})
    acc = t[(t.metric == "accuracy") & (t.stratum == "all")].iloc[0]
    assert acc.score == pytest.approx(2 / 3)
    msg = _bad(tmp_path, WIDE, "--panel", "r*", "--panel-counts", "r1,r2", "--item", "id")
    assert "one of the two" in msg


def test_rerun_of_out_replaces_old_files_and_records_the_seed(tmp_path):
    df = pd.concat([synthetic_panel(60, seed=s).assign(task=f"t{s}") for s in range(3)])
    p = tmp_path / "m.csv"
    df.to_csv(p, index=False)
    base = ["stratify", p, "--panel", "gt*", "--systems", "strong,weak", "--item", "item",
            "--task-column", "task", "--n-resamples", "0", "--out", tmp_path / "o", "--no-figures"]
    assert run(*base, "--compare", "strong,weak", "--compare-across-tasks", "--seed", "3")[0] == 0
    assert (tmp_path / "o" / "paired_f1.csv").is_file()
    assert run(*base, "--seed", "7")[0] == 0
    files = {f.name for f in (tmp_path / "o").iterdir()}
    assert not any(f.startswith("paired_") for f in files)
    meta = json.loads((tmp_path / "o" / "report.json").read_text())
    assert meta["seed"] == 7 and sorted(meta["files"]) == sorted(files - {"report.json"})
    assert meta["inputs"]["t0"]["items"] == 60


def test_concurrent_runs_into_one_dir_never_mix(tmp_path):
    from labelvar.report import write_stratify_report

    df = synthetic_panel(80, seed=1).set_index("item")
    results = {s: stratify(df.filter(like="gt"), df[["weak", "coin"]], seed=s,
                           intervals=Intervals(n_resamples=20), paper=Paper(replicates=2)) for s in (0, 1)}
    out = tmp_path / "o"
    def write(seed):
        try:
            write_stratify_report(results[seed], out, figures=False)
        except OSError:  # the loser of a rename race fails; it never mixes files
            pass

    for _ in range(5):

        threads = [threading.Thread(target=write, args=(s,)) for s in (0, 1)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        seed = json.loads((out / "report.json").read_text())["seed"]
        saved = pd.read_csv(out / "stratified.csv")
        expect = results[seed].table.reset_index(drop=True)
        assert saved.score.to_numpy() == pytest.approx(expect.score.to_numpy(), nan_ok=True)
        assert not [p for p in tmp_path.iterdir() if p.name != "o"]  # no temporary left


BAD_INPUTS = [  # (file name, content (str, bytes or "DIR"), extra args)
    ("empty.csv", "", ()),
    ("header.csv", "id,r1,r2,r3\n", ()),
    ("latin1.csv", "id,r1,r2\na,\xe9,\xe9\n".encode("latin-1"), ()),
    ("latin1.jsonl", '{"v": ["\xe9", "a"]}\n'.encode("latin-1"), ("--panel", "v")),
    ("nocol.csv", "id,a,b\nx,1,0\n", ()),
    ("dup.csv", "id,r1,r2\na,1,1\na,0,0\n", ()),
    ("allnan.csv", "id,r1,r2\na,,\nb,,\n", ()),
    ("one.csv", "id,r1\na,1\nb,0\n", ()),
    ("adir", "DIR", ()),
    ("one_label.csv", "id,r1,r2\na,1,1\nb,1,1\n", ("--labels", "1")),
    ("dup_labels.csv", "id,r1,r2\na,1,0\nb,1,1\n", ("--labels", "0,0")),
    ("strings.csv", "id,r1,r2\na,x,y\nb,x,x\n", ()),
    ("bad.jsonl", "{not json\n", ("--panel", "v")),
    ("list.jsonl", "[1, 2]\n", ("--panel", "v")),
    ("nofield.jsonl", '{"w": [1, 0]}\n', ("--panel", "v")),
    ("scalar.jsonl", '{"v": 3}\n', ("--panel", "v")),
    ("mixed.jsonl", '{"v": [1, 0]}\n{"v": "10"}\n', ("--panel", "v")),
    ("empty.jsonl", "\n\n", ("--panel", "v")),
    ("counts.jsonl", '{"v": [1, 2]}\n{"v": [1, 2, 3]}\n', ("--panel-counts", "v")),
    ("neg.jsonl", '{"v": [1, -2]}\n{"v": [1, 2]}\n', ("--panel-counts", "v")),
    ("frac.csv", "id,a,b\nx,1.5,2\ny,1,1\n", ("--panel-counts", "a,b")),
    ("nlab.jsonl", '{"v": [1, 2]}\n', ("--panel-counts", "v", "--labels", "a,b,c")),
    ("ok.csv", "id,r1,r2,r3\na,1,1,0\nb,0,0,1\n", ("--bins", "0.9,1")),
    ("ok2.csv", "id,r1,r2,r3\na,1,1,0\nb,0,0,1\n", ("--metrics", "auc")),
    ("ok3.csv", "id,r1,r2,r3\na,1,1,0\nb,0,0,1\n", ("--confidence-level", "1.5")),
    ("ok4.csv", "id,r1,r2,r3\na,1,1,0\nb,0,0,1\n", ("--n-resamples", "-1")),
    ("ok5.csv", "id,r1,r2,r3\na,1,1,0\nb,0,0,1\n", ("--p-d-one", "2")),
    ("ok6.csv", "id,r1,r2,r3\na,1,1,0\nb,0,0,1\n", ("--layout", "raters")),
    ("ok7.csv", "id,r1,r2,r3\na,1,1,0\nb,0,0,1\n", ("--seed", "-1")),
    ("ok8.csv", "id,r1,r2,r3\na,1,1,0\nb,0,0,1\n", ("--panel-counts", "r1,r2", "--layout",
                                                     "long")),
    ("ragged.csv", "id,r1,r2\na,1,1,1,1\nb,0\n", ()),
    ("pred.csv", "id,r1,r2,r3\na,1,1,0\nb,0,0,1\n", ("--predictions", "x")),
]


@pytest.mark.parametrize("name, content, extra", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_fresh_pass_of_bad_inputs(tmp_path, name, content, extra):
    path = tmp_path / name
    if content == "DIR":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    args = ["stratify", path, "--n-resamples", "0"]
    if "--panel" not in extra and "--panel-counts" not in extra:
        args += ["--panel", "r*"]
    if not name.endswith(".jsonl"):
        args += ["--item", "id"]
    code, out, err = run(*args, *extra)
    lines = err.strip().splitlines()
    assert code == 2, (out, err)
    assert len(lines) == 1 and lines[0].startswith("labelvar: error: "), err
    assert "Traceback" not in err


def test_bad_input_subprocess_no_traceback(tmp_path):
    p = tmp_path / "x.csv"
    p.write_bytes(b"id,r1,r2\na,\xff,1\n")
    for argv in (["stratify", str(p), "--panel", "r*", "--item", "id"],
                 ["stratify", str(tmp_path), "--panel", "r*"]):
        proc = subprocess.run([sys.executable, "-m", "labelvar.cli", *argv], capture_output=True,
                              text=True, env={**os.environ, "PYTHONPATH": str(REPO / "src")})
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def _two_tasks_long(tmp_path):
    """A long file with two tasks on the same items and one predictions file (one field)."""
    votes = {"a": [[1, 1, 0], [0, 0, 0], [1, 1, 1], [0, 1, 0]] * 3,
             "b": [[0, 0, 0], [1, 1, 0], [1, 0, 0], [1, 1, 1]] * 3}
    rows = [dict(task=t, item=f"i{i}", rater=f"r{j}", label=v[i][j])
            for t, v in votes.items() for i in range(12) for j in range(3)]
    long = tmp_path / "long.csv"
    pd.DataFrame(rows).to_csv(long, index=False)
    pred = tmp_path / "pred.csv"
    pd.DataFrame({"id": [f"i{i}" for i in range(12)],
                  "a_pred": [1, 0, 1, 1] * 3}).to_csv(pred, index=False)
    return long, pred


def test_one_prediction_field_is_not_every_tasks_answer(tmp_path):
    """--predictions NAME=FILE --pred-label FIELD used to be joined to every task: with two
    tasks on the same items, task b was scored with task a's predictions (CheXpert: Edema
    scored with a Cardiomegaly column). Refused; with --tasks the one task is scored."""
    long, pred = _two_tasks_long(tmp_path)
    base = ["stratify", long, "--layout", "long", "--task-column", "task", "--item", "item",
            "--panel", "r*", "--predictions", f"m={pred}", "--pred-item", "id",
            "--pred-label", "a_pred", "--n-resamples", "0", "--metrics", "accuracy",
            "--no-agreement", "--format", "csv"]
    code, out, err = run(*base)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert err.startswith("labelvar: error: --predictions 'm': its one field 'a_pred' would be "
                          "every task's answer: tasks 'a', 'b' share items (e.g. 'i0')")
    code, out, err = run(*base, "--tasks", "a")
    assert code == 0, err
    t = pd.read_csv(_io.StringIO(out), dtype={"stratum": str})
    assert set(t.task) == {"a"}
    # majority of a: 1, 0, 1, 0 (x3); predictions 1, 0, 1, 1: accuracy 9/12
    assert t.set_index("stratum").score["all"] == pytest.approx(9 / 12)


def test_tasks_flag_selects_tasks_in_every_layout(tmp_path):
    """--tasks used to be read by the raters layout only and silently ignored otherwise."""
    long, _ = _two_tasks_long(tmp_path)
    base = ["stratify", long, "--layout", "long", "--task-column", "task", "--item", "item",
            "--panel", "r*", "--n-resamples", "0", "--metrics", "accuracy", "--no-agreement",
            "--format", "csv"]
    code, out, err = run(*base, "--tasks", "b")
    assert code == 0, err
    t = pd.read_csv(_io.StringIO(out), dtype={"stratum": str})
    assert set(t.task) == {"b"} and "labelvar: a:" not in err
    code, out, err = run(*base, "--tasks", "c")
    assert code == 2 and err == ("labelvar: error: --tasks: 'c' matches no task; available: "
                                 "'a', 'b'\n")


def test_out_that_cannot_be_written_is_refused_before_any_work(tmp_path):
    """A --out holding other files (or a file) was refused only after the whole report
    had been computed and printed to stdout."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    base = ["stratify", EXAMPLE, "--panel", "gt*", "--systems", "weak", "--item", "item",
            "--n-resamples", "0"]
    code, out, err = run(*base, "--out", mine)
    assert code == 2 and out == ""
    assert err == (f"labelvar: error: {mine} holds files that are not part of a labelvar "
                   "report (notes.txt); choose a new or empty directory\n")
    assert (mine / "notes.txt").read_text() == "keep"
    code, out, err = run(*base, "--out", mine / "notes.txt")
    assert code == 2 and out == "" and err.endswith("notes.txt exists and is not a directory\n")


def test_switch_named_as_typed_in_messages():
    """'declare them (ordinal=True)' became '(--ordinal True)', which argparse refuses."""
    code, out, err = run("stratify", EXAMPLE, "--panel", "gt*", "--systems", "weak",
                         "--item", "item", "--n-resamples", "0", "--metrics", "mae")
    assert code == 2
    assert err == ("labelvar: error: --metrics: 'mae' scores ordinal ratings; declare them "
                   "(--ordinal)\n")


def test_compare_with_nothing_in_common_is_one_line(tmp_path):
    """A system with labels only against one with probabilities only crashed with
    "KeyError: 'p'"; two systems never on the same task gave an empty comparison."""
    df = synthetic_panel(60, seed=0)
    p = tmp_path / "w.csv"
    df.to_csv(p, index=False)
    probs = tmp_path / "probs.csv"
    pd.DataFrame({"id": df["item"], "prob": (df["strong"] * 0.8 + 0.1)}).to_csv(probs,
                                                                                 index=False)
    code, out, err = run("stratify", p, "--panel", "gt*", "--systems", "weak", "--item", "item",
                         "--probabilities", f"pm={probs}", "--pred-item", "id",
                         "--prob-field", "prob", "--n-resamples", "0", "--compare", "weak,pm")
    assert code == 2 and out == "" and "Traceback" not in err
    assert err == ("labelvar: error: --compare: 'weak' and 'pm' share no metric on task(s) 'w' "
                   "(labels against probabilities?); nothing to compare\n")
    with pytest.raises(ValueError, match=r"^compare: 'a' and 'b' are never evaluated on the "
                                         r"same task; nothing to compare$"):
        stratify({"t1": ([[1, 1, 0], [0, 0, 0]] * 3, {"a": [1, 0] * 3}),
                  "t2": ([[1, 1, 0], [0, 0, 0]] * 3, {"b": [1, 0] * 3})},
                 intervals=Intervals(n_resamples=0)).compare("a", "b")


def test_compare_across_tasks_with_probabilities_writes_the_report(tmp_path, capsys):
    """--compare, --compare-across-tasks and --probabilities together: exit 0 and a report
    (issue 22: it computed everything, then exited 2 writing nothing)."""
    import random

    rnd = random.Random(0)
    rows, probs = ["id,task,r1,r2,r3,a,b"], ["id,t1,t2"]
    for t in ("t1", "t2"):
        for i in range(60):
            truth = rnd.randint(0, 1)
            votes = [truth if rnd.random() < 0.8 else 1 - truth for _ in range(3)]
            a = truth if rnd.random() < 0.8 else 1 - truth
            b = truth if rnd.random() < 0.7 else 1 - truth
            rows.append(f"i{i},{t},{votes[0]},{votes[1]},{votes[2]},{a},{b}")
    for i in range(60):
        probs.append(f"i{i},{rnd.random():.3f},{rnd.random():.3f}")
    (tmp_path / "w.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "pa.csv").write_text("\n".join(probs) + "\n")
    out = tmp_path / "rep"
    code = main(["stratify", str(tmp_path / "w.csv"), "--panel", "r*", "--systems", "a,b",
                 "--item", "id", "--task-column", "task", "--compare", "a,b",
                 "--compare-across-tasks", "--probabilities", f"a={tmp_path / 'pa.csv'}",
                 "--pred-item", "id", "--n-resamples", "50", "--out", str(out), "--no-figures"])
    assert code == 0
    table = pd.read_csv(out / "comparisons.csv")
    assert set(table["system_a"]) == {"a"} and set(table["system_b"]) == {"b"}
    assert (out / "stratified.csv").exists()


@pytest.mark.parametrize("systems, humans", [("strong,human1", "human*"),
                                             ("strong,human*", "human1")])
def test_rater_matched_as_system_and_human_is_refused(systems, humans):
    """Issue 31: a rater named by --systems and matched by a --humans glob (or the other way
    round) was silently a human only, never scored as the system asked for."""
    code, out, err = run("stratify", EXAMPLE, "--panel", "gt*", "--systems", systems,
                         "--humans", humans, "--item", "item", "--n-resamples", "0")
    assert code == 2 and out == ""
    assert err == ("labelvar: error: --humans: 'human1' is also among the systems; a rater is "
                   "evaluated as a system or as a human, not both\n")


@pytest.mark.parametrize("old, new", [("--n-boot", "--n-resamples"),
                                      ("--boot-raters", "--resample-raters")])
def test_renamed_flags_are_refused_naming_the_new_one(old, new):
    args = [old, "10"] if old == "--n-boot" else [old]
    code, out, err = run("stratify", EXAMPLE, "--panel", "gt*", "--systems", "strong",
                         "--item", "item", *args)
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.startswith(f"labelvar: error: {old} is now {new}") and err.count("\n") == 1


def test_no_figures_writes_the_same_tables_and_no_image(tmp_path):
    """--no-figures (the report tests that check tables use it): the same CSVs, byte for
    byte, a report.html, and no PNG or PDF; without --out it is refused."""
    base = ["stratify", EXAMPLE, "--panel", "gt*", "--systems", "strong,weak", "--item", "item",
            "--n-resamples", "20", "--seed", "1"]
    assert run(*base, "--out", tmp_path / "a")[0] == 0
    assert run(*base, "--out", tmp_path / "b", "--no-figures")[0] == 0
    drawn = {f.name for f in (tmp_path / "a").iterdir()}
    plain = {f.name for f in (tmp_path / "b").iterdir()}
    assert {n for n in drawn if n.endswith((".png", ".pdf"))} and not {
        n for n in plain if n.endswith((".png", ".pdf"))}
    assert "report.html" in plain
    for name in sorted(n for n in plain if n.endswith(".csv")):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    code, out, err = run(*base, "--no-figures")
    assert code == 2 and out == ""
    assert err == ("labelvar: error: --no-figures goes with --out DIR (without --out no figure "
                   "is drawn)\n")


def test_prediction_ids_outside_the_panel_are_counted_in_a_note(tmp_path):
    """Answers for items the panel lacks are not scored, and a note counts them (they were
    dropped without a word); the scores are those of the matched items alone."""
    (tmp_path / "p.csv").write_text("item,gt1,gt2,gt3\na,1,1,0\nb,0,0,0\nc,1,1,1\n")
    (tmp_path / "s.csv").write_text("item,pred\na,1\nb,1\nc,1\nzz,0\nyy,1\n")
    (tmp_path / "pr.csv").write_text("item,t\na,0.8\nb,0.3\nc,0.9\nq,0.5\n")
    code, out, err = run("stratify", tmp_path / "p.csv", "--panel", "gt*", "--item", "item",
                         "--predictions", f"m={tmp_path / 's.csv'}", "--probabilities",
                         f"m={tmp_path / 'pr.csv'}", "--prob-field", "t", "--pred-item", "item",
                         "--n-resamples", "0", "--metrics", "accuracy,auroc", "--format", "csv")
    assert code == 0
    assert ("labelvar: note: --predictions 'm': 2 item id(s) that no panel item has (e.g. 'yy') "
            "are not scored") in err
    assert ("labelvar: note: --probabilities 'm': 1 item id(s) that no panel item has (e.g. 'q') "
            "are not scored") in err
    table = pd.read_csv(_io.StringIO(out))
    row = table[(table["stratum"] == "all") & (table["system"] == "m")
                & (table["metric"] == "accuracy")]
    assert float(row["score"].iloc[0]) == pytest.approx(2 / 3)  # a, c right; b wrong
