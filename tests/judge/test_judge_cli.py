"""``labelvar judge``: the verdict, the tables, the report directory, one-line refusals."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from labelvar.cli._main import main


@pytest.fixture
def files(tmp_path):
    rows = [(f"{i:03d}", r, lab) for i in range(40) for r, lab in
            zip("abc", (0, 0, 0) if i < 30 else (1, 1, 0))]
    votes = tmp_path / "votes.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(votes, index=False)
    system = tmp_path / "system.csv"
    pd.DataFrame({"item": [f"{i:03d}" for i in range(40)], "good": [0] * 30 + [1] * 10,
                  "odd": [0] * 30 + [2] * 10}).to_csv(system, index=False)
    return votes, system, tmp_path


def test_prints_and_writes_the_report(files, capsys):
    votes, system, tmp = files
    out = tmp / "rep"
    code = main(["judge", str(votes), "--system", str(system), "--epsilon", "0.15",
                 "--n-resamples", "20", "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 0
    assert "### good: passes (winning rate 1, rho 1)" in text
    assert "### odd: fails (winning rate 0.3333, rho 0.8333)" in text
    assert "references (same humans, items, scoring, epsilon)" in text
    v = pd.read_csv(out / "verdicts.csv").set_index("system")
    assert v.loc["odd", "winning_rate"] == pytest.approx(1 / 3) and not v.loc["odd", "passed"]
    assert v.loc["good", "epsilon"] == 0.15
    refs = pd.read_csv(out / "references.csv")
    assert set(refs["reference"]) == {"system", "uniform", "prevalence", "exchangeable",
                                      "plurality"}
    assert (out / "alt_test_odd.png").is_file() and (out / "table.md").read_text() == text
    assert "humans.csv" in json.loads((out / "report.json").read_text())["files"]
    # item ids are text as written: "001" is matched, not 1
    assert pd.read_csv(out / "humans.csv")["n_items"].tolist() == [40] * 6


def test_system_as_a_rater_in_the_votes(files, capsys):
    votes, _, tmp = files
    df = pd.read_csv(votes, dtype={"item": str})
    extra = pd.DataFrame({"item": df["item"].unique(), "rater": "llm", "label": 0})
    path = tmp / "with_llm.csv"
    pd.concat([df, extra]).to_csv(path, index=False)
    assert main(["judge", str(path), "--system-rater", "llm", "--n-resamples", "0"]) == 0
    assert "### llm:" in capsys.readouterr().out


@pytest.mark.parametrize("extra, needle", [
    (["--epsilon", "1"], "--epsilon must be in [0, 1)"),
    (["--scoring", "neg_rmse", "--system", "TEXT"], "--scoring neg_rmse needs numeric labels"),
    (["--min-items-per-human", "50"], "--min-items-per-human 50"),
    (["--system", "MISSING"], "--system: item id '999' is not among the votes' 40 items"),
])
def test_bad_input_one_line_nothing_written(files, capsys, extra, needle):
    votes, system, tmp = files
    text_sys = tmp / "text.csv"
    pd.DataFrame({"item": [f"{i:03d}" for i in range(40)], "s": ["x"] * 40}).to_csv(
        text_sys, index=False)
    miss = tmp / "miss.csv"
    pd.DataFrame({"item": ["999"], "s": [0]}).to_csv(miss, index=False)
    args = ["judge", str(votes), "--system", str(system), "--out", str(tmp / "rep")]
    args += [str(text_sys) if x == "TEXT" else str(miss) if x == "MISSING" else x for x in extra]
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp / "rep").exists()


def test_no_identified_raters(tmp_path, capsys):
    path = tmp_path / "v.csv"
    pd.DataFrame({"item": [1, 2], "rater": ["", ""], "label": [0, 1]}).to_csv(path, index=False)
    sysf = tmp_path / "s.csv"
    pd.DataFrame({"item": [1, 2], "s": [0, 1]}).to_csv(sysf, index=False)
    assert main(["judge", str(path), "--system", str(sysf)]) == 2
    assert "no identified raters" in capsys.readouterr().err


def test_plan(capsys):
    code = main(["judge", "--plan", "--theta", "0.6,0.9", "--weights", "0.5,0.5", "--skill",
                 "0.85", "--per-item", "3", "--epsilon", "0.2"])
    out = capsys.readouterr().out
    assert code == 0 and "|        3 |      35 | 0.8132 |" in out


def test_plan_writes_the_power_figure(tmp_path, capsys):
    out = tmp_path / "plan"
    code = main(["judge", "--plan", "--theta", "0.6,0.9", "--weights", "0.5,0.5", "--skill",
                 "0.85", "--per-item", "2,3", "--epsilon", "0.2", "--out", str(out)])
    assert code == 0
    plan = pd.read_csv(out / "plan.csv")
    curves = pd.read_csv(out / "power_curves.csv")
    assert plan["n_items"].tolist() == [41, 35] and (out / "power.png").is_file()
    # the plan's N is the first N on the curve at the target
    for k, n in zip(plan["n_humans"], plan["n_items"]):
        g = curves[curves["n_humans"] == k].set_index("n_items")["power"]
        assert g[n] >= 0.8 and (g[g.index < n] < 0.8).all()


def test_wide_layout_through_load_tasks(files, capsys):
    votes, _, tmp = files
    long = pd.read_csv(votes, dtype={"item": str})
    wide = long.pivot(index="item", columns="rater", values="label").reset_index()
    wide["bot"] = [0] * 30 + [2] * 10
    path = tmp / "wide.csv"
    wide.to_csv(path, index=False)
    code = main(["judge", str(path), "--panel", "a,b,c", "--systems", "bot", "--item", "item",
                 "--n-resamples", "0"])
    out = capsys.readouterr().out
    assert code == 0 and "### bot: fails (winning rate 0.3333, rho 0.8333)" in out
