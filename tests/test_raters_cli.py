"""``labelvar raters``: printed and written tables equal the Python API; bad input is one line, exit 2."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from labelvar import cli
from labelvar._base._files import read_results
from labelvar.evaluation._agreement import cross_replication
from labelvar.votes._ceilings import panel_ceilings
from labelvar.votes._raters import fit_raters


@pytest.fixture(scope="module")
def votes_file(tmp_path_factory):
    rng = np.random.default_rng(12)
    n = 300
    truth = rng.random(n) < 0.35
    acc = {"a": 0.9, "b": 0.85, "c": 0.8, "d": 0.75, "e": 0.7}
    rows = []
    for r, q in acc.items():
        said = np.where(rng.random(n) < q, truth, ~truth).astype(int)
        rows.append(pd.DataFrame({"item": [f"i{k}" for k in range(n)], "rater": r,
                                  "label": said}))
    df = pd.concat(rows, ignore_index=True)
    path = tmp_path_factory.mktemp("votes") / "votes.csv"
    df.to_csv(path, index=False)
    return path, df


def run(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_tables_equal_the_python_api(votes_file, capsys, tmp_path):
    path, df = votes_file
    out_dir = tmp_path / "rep"
    code, out, err = run(["raters", str(path), "--model", "dawid_skene", "--raters", "a,b,c",
                          "--target", "d,e", "--groups", "a,b,c:d,e", "--n-resamples", "0",
                          "--out", str(out_dir)], capsys)
    assert code == 0, err
    assert "### rater skills" in out and "### cross-replication reliability" in out
    ceil = read_results(out_dir / "ceilings.csv")
    fit = fit_raters(df, model="dawid_skene", n_resamples=0)
    for t in ("d", "e"):
        want = panel_ceilings(fit, ["a", "b", "c"], target=t, panel=df).table
        got = ceil[ceil.target == t].reset_index(drop=True)
        for col in ("expected", "ci_low", "ci_high", "p_bin", "observed"):
            np.testing.assert_allclose(got[col].to_numpy(float), want[col].to_numpy(float),
                                       rtol=0, atol=1e-12, err_msg=col)
        assert got.stratum.tolist() == want.stratum.tolist()
    # the printed table shows the same numbers (3 decimals)
    r = want[(want.ceiling == "oracle") & (want.stratum == "0.67")].iloc[0]
    assert f"{r.expected:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]" in out
    skills = read_results(out_dir / "skills.csv")
    np.testing.assert_allclose(skills.accuracy, fit.skills.accuracy, atol=1e-12)
    chk = read_results(out_dir / "check.csv").iloc[0]
    assert chk.chi2 == pytest.approx(fit.check().chi2, abs=1e-9)
    kx = read_results(out_dir / "kappa_x.csv")
    wide = df.pivot(index="item", columns="rater", values="label")
    cx = np.stack([(wide[["a", "b", "c"]] == v).sum(axis=1) for v in (0, 1)], axis=1)
    cy = np.stack([(wide[["d", "e"]] == v).sum(axis=1) for v in (0, 1)], axis=1)
    assert kx.kappa_x[0] == pytest.approx(
        cross_replication(cx, cy, n_resamples=0).table.kappa_x[0], abs=1e-12)
    meta = json.loads((out_dir / "report.json").read_text())
    assert meta["kind"] == "raters" and "ceilings.csv" in meta["files"]


def test_default_each_rater_against_the_others_and_jsonl(votes_file, capsys, tmp_path):
    path, df = votes_file
    js = tmp_path / "votes.jsonl"
    js.write_text("".join(json.dumps(r) + "\n" for r in df.to_dict("records")))
    code, out, err = run(["raters", str(js), "--model", "one_coin", "--n-resamples", "0",
                          "--tie-rule", "drop"], capsys)
    assert code == 0, err
    for r in "abcde":
        others = ",".join(x for x in "abcde" if x != r)
        assert re.search(rf"\|\s*{r}\s*\|\s*{others}\s*\|", out), r
    fit = fit_raters(df, model="one_coin", n_resamples=0)
    want = panel_ceilings(fit, list("bcde"), target="a", panel=df, tie_rule="drop").table
    r = want[(want.ceiling == "rater") & (want.stratum == "all")].iloc[0]
    assert f"{r.expected:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]" in out


@pytest.mark.parametrize("argv, msg", [
    (["--rater", "who"], "column 'who' not found"),
    (["--raters", "a,zz"], "--raters: rater(s) 'zz' not in the votes"),
    (["--raters", "a,b", "--target", "a"], "--target 'a' is in --raters"),
    (["--panel", "a,b"], "--panel is now --raters (same meaning); use --raters a,b"),
    (["--groups", "a,b"], "--groups must be X1,X2:Y1,Y2"),
    (["--groups", "a,b:b,c"], "--groups: a rater is in both groups"),
    (["--n-resamples", "-1"], "--n-resamples must be"),
    (["--tasks", "x"], "--tasks: x not in --task-column"),
    (["--model", "glad"], "--model must be one of dawid_skene, dawid_skene_difficulty, one_coin, got 'glad'"),
])
def test_bad_inputs_exit_2_one_line(votes_file, capsys, argv, msg):
    path, _ = votes_file
    code, out, err = run(["raters", str(path), "--n-resamples", "0", *argv], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and msg in lines[0], err
    assert lines[0].startswith("labelvar")


def test_foreign_out_dir_is_refused_before_work(votes_file, capsys, tmp_path):
    path, _ = votes_file
    out_dir = tmp_path / "mine"
    out_dir.mkdir()
    (out_dir / "notes.txt").write_text("keep me")
    code, out, err = run(["raters", str(path), "--out", str(out_dir)], capsys)
    assert code == 2 and "not part of a labelvar report" in err and out == ""
    assert (out_dir / "notes.txt").read_text() == "keep me"


def test_subprocess_no_traceback(tmp_path):
    bad = tmp_path / "v.csv"
    bad.write_text("item,rater,label\n1,a,0\n1,a,1\n")
    p = subprocess.run([sys.executable, "-m", "labelvar.cli", "raters", str(bad), "--n-resamples", "0"],
                       capture_output=True, text=True)
    assert p.returncode == 2
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert "item '1' has votes from rater 'a' with different labels (0, 1)" in p.stderr
