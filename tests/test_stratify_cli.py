"""`labelvar stratify` end to end on the shipped synthetic data and on small bad files."""

from __future__ import annotations

import io as _io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pandas as pd
import pytest

from labelvar.cli import main
from labelvar.io import synthetic_panel
from labelvar.stratified import stratify

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "synthetic_panel.csv"


def run(*argv):
    out, err = _io.StringIO(), _io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def test_markdown_table_on_synthetic_example():
    code, out, err = run("stratify", EXAMPLE, "--panel", "gt*", "--systems", "strong,weak,coin",
                         "--humans", "human*", "--item", "item", "--n-boot", "0")
    assert code == 0, err
    assert out.count("### ") == 3 and "| task" in out
    assert "f1 Δ(H−AI)" in out and "accuracy E" in out
    # the numbers are those of the Python API
    df = synthetic_panel(400, seed=0).set_index("item")
    t = stratify(df.filter(like="gt"), df[["strong", "weak", "coin", "human1", "human2"]],
                 humans=["human1", "human2"], n_boot=0, task="synthetic_panel").table
    h = t[(t.role == "H") & (t.stratum == "all") & (t.metric == "accuracy")].iloc[0]
    assert f"{h.score:.2f}±{h.sd:.2f}" in out


def test_csv_format_and_out_dir(tmp_path):
    code, out, err = run("stratify", EXAMPLE, "--panel", "gt*", "--systems", "strong,weak,coin",
                         "--humans", "human1,human2", "--item", "item", "--n-boot", "50",
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
            "--n-boot", "0", "--format", "csv", "--metrics", "accuracy"]
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
                         "--systems", "bot", "--n-boot", "0")
    assert code == 0, err
    assert "### bot" in out
    js = tmp_path / "x.jsonl"
    js.write_text('{"id": "a", "v": ["x", "x", "y"], "m": "x"}\n'
                  '{"id": "b", "v": ["y", "y", "y"], "m": "x"}\n')
    code, out, err = run("stratify", js, "--panel", "v", "--systems", "m", "--item", "id",
                         "--pos-label", "x", "--n-boot", "0")
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
    (("--panel", "r*", "--item", "id", "--tie-rule", "coin"), "invalid choice"),
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
                         "--missing-predictions", "drop", "--n-boot", "0")
    assert code == 0 and "2 without a prediction" in err


def test_items_without_votes_reported_and_excluded(tmp_path):
    p = tmp_path / "w.csv"
    p.write_text("id,r1,r2,r3,gpt\na,1,1,0,1\nb,,,,1\nc,1,,,0\nd,0,0,0,0\n")
    code, out, err = run("stratify", p, "--panel", "r*", "--systems", "gpt", "--item", "id",
                         "--n-boot", "0", "--format", "csv")
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
                         "--item", "item", "--task-column", "task", "--n-boot", "0",
                         "--compare", "strong,weak", "--out", tmp_path / "o")
    assert code == 0, err
    assert "### paired t-test strong − weak (f1), pairs = tasks" in out
    res = pd.read_csv(tmp_path / "o" / "paired_accuracy.csv", dtype={"stratum": str})
    assert res.stratum.tolist() == ["0.60", "0.80", "1.00", "all", "pooled"]
    assert res.n.tolist() == [4, 4, 4, 4, 12]
    assert (tmp_path / "o" / "paired_f1.png").is_file()
    code, out, err = run("stratify", p, "--panel", "gt*", "--systems", "strong",
                         "--item", "item", "--task-column", "task", "--compare", "strong")
    assert code == 2 and "--compare takes two systems" in err
