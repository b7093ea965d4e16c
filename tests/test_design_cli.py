"""`labelvar design` command line and YAML configs."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import shared_data

import labelvar
from labelvar.cli import main
from labelvar.design._scenario import Scenario

REPO = Path(__file__).resolve().parents[1]


def run(capsys, *argv):
    code = main(["design", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_markdown_plan_matches_api(capsys):
    code, out, err = run(capsys, "--theta", "beta:2,2", "--panel-sizes", "1,3", "--replicates",
                         "0")
    assert code == 0
    res = labelvar.plan_study(Scenario("separability", theta="beta:2,2"), panel_sizes=[1, 3],
                       replicates=0)
    for n in res.table["n_items"]:
        assert f"| {n} " in out or f" {n} |" in out
    assert res.describe() in out


def test_cli_writes_tables_and_figure(tmp_path, capsys):
    code, out, err = run(capsys, "--question", "two-systems", "--theta", "beta:3,1",
                         "--accuracy-b", "0.8", "--delta", "0.1", "--error-correlation", "0.2",
                         "--panel-sizes", "1,3", "--replicates", "200", "--out", str(tmp_path),
                         "--format", "csv")
    assert code == 0
    plans = pd.read_csv(tmp_path / "design.csv")
    for col in ("panel_size", "n_items", "annotations", "cost", "power_analytic",
                "power_simulated", "power_se", "meets_target", "recommended"):
        assert col in plans
    assert plans["recommended"].sum() == 1
    assert (tmp_path / "power.png").stat().st_size > 10_000
    for name in ("design_bins.csv", "design_curves.csv", "design_evaluated.csv", "scenario.json"):
        assert (tmp_path / name).exists()
    # CSV on stdout is the same table
    assert out.splitlines()[0].startswith("panel_size,n_items,annotations")


@pytest.mark.parametrize("argv,match", [
    (["--question", "two_systems", "--accuracy-b", "0.9", "--delta", "0.2"],
     "labelvar: error: --delta must be in (0, 1 - accuracy_b] = (0, 0.1]"),
    (["--power", "1"], "labelvar: error: --power must be in (0, 1), got 1.0"),
    (["--alpha", "0"], "labelvar: error: --alpha must be in (0, 1), got 0.0"),
    (["--theta", "0.2"], "labelvar: error: --theta must be in [1/L, 1] = [0.5, 1]"),
    (["--question", "sizes"], "labelvar: error: --question must be one of"),
])
def test_cli_bad_input_one_line_exit_2(capsys, argv, match):
    code, out, err = run(capsys, *argv, "--replicates", "0")
    assert code == 2
    assert err.startswith(match), err
    assert err.count("\n") == 1


@pytest.mark.parametrize("extra,match", [
    (["--pilot-selection", "top>=-1"], "labelvar: error: --pilot-selection must be 'top=T'"),
    (["--pilot-counts", "--pilot-labels", "a,b"],
     "labelvar: error: --pilot-labels: 2 labels for 3 counts per item"),
])
def test_cli_pilot_messages_name_the_pilot_flags(tmp_path, capsys, extra, match):
    """The pilot's parameters (selection, labels) are reported as the --pilot-* flags."""
    p = tmp_path / "pilot.jsonl"
    p.write_text('{"v": [1, 2, 0]}\n{"v": [3, 0, 0]}\n{"v": [2, 1, 0]}\n')
    code, out, err = run(capsys, "--pilot", str(p), "--pilot-field", "v", *extra,
                         "--replicates", "0")
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(match), err


def test_cli_selected_pilot_names_its_flag_once(tmp_path, capsys):
    """The Python message names selection='top=2' and the flag; on the command line, one flag."""
    p = tmp_path / "pilot.jsonl"
    p.write_text("".join('{"v": [3, 1, 1]}\n{"v": [3, 2, 0]}\n{"v": [1, 3, 1]}\n{"v": [0, 2, 3]}\n'
                         for _ in range(10)))  # vote counts: 5 votes, top exactly 3
    code, out, err = run(capsys, "--pilot", str(p), "--pilot-field", "v", "--pilot-counts",
                         "--replicates", "0")
    assert code == 2 and err.count("\n") == 1
    assert "declare it (--pilot-selection top=3) so it enters the likelihood" in err, err


def test_cli_unidentifiable_pilot_refused_in_one_line(tmp_path, capsys):
    p = tmp_path / "pilot.csv"
    p.write_text("a,b\n3,0\n0,3\n")
    code, out, err = run(capsys, "--pilot", str(p), "--replicates", "0")
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("labelvar: error: --pilot: every one of the 2 items is unanimous")


@pytest.mark.parametrize("seed", range(10))
def test_cli_unpaired_example_exact_for_every_seed(capsys, seed):
    """Done-when: the issue's unpaired example gives K = 5: N = 306 for seeds 0-9."""
    code, out, err = run(capsys, "--question", "two_systems", "--theta", "0.9", "--n-labels", "2",
                         "--accuracy-b", "0.7", "--delta", "0.1", "--test", "unpaired",
                         "--panel-sizes", "1,3,5", "--seed", str(seed), "--replicates", "100",
                         "--format", "csv")
    assert code == 0
    plans = pd.read_csv(__import__("io").StringIO(out))
    assert plans["n_items"].tolist() == [513, 340, 306]
    assert plans["meets_target"].all()


def test_cli_n_rule_first(capsys):
    code, out, err = run(capsys, "--theta", "0.7", "--panel-sizes", "1", "--replicates", "0",
                         "--n-rule", "first", "--format", "csv")
    assert code == 0 and pd.read_csv(__import__("io").StringIO(out))["n_items"][0] == 245
    assert "it stays >= 0.8 only from N = 258" in err


def test_cli_chaosnli_pilot_selection(capsys):
    path = shared_data("chaosnli/chaosNLI_v1.0/chaosNLI_snli.jsonl")
    base = ["--pilot", str(path), "--pilot-field", "old_labels", "--replicates", "0",
            "--panel-sizes", "3"]
    code, out, err = run(capsys, *base)
    assert code == 2 and err.count("\n") == 1 and "--pilot-selection top=3" in err
    code, out, err = run(capsys, *base, "--pilot-selection", "top=3")
    assert code == 0, err
    assert err.startswith("pilot: 1514 items, selected by top=3, L = 3; fitted theta = ")
    code, out, err = run(capsys, "--pilot", str(path), "--pilot-field", "label_count",
                         "--pilot-counts", "--replicates", "0", "--panel-sizes", "3")
    assert code == 0 and err.startswith("pilot: 1514 items, L = 3; fitted Beta(")


def test_cli_no_plan_says_so_exit_1(capsys):
    code, out, err = run(capsys, "--question", "two_systems", "--theta", "0.6",
                         "--accuracy-b", "0.6", "--delta", "0.02", "--n-max", "200",
                         "--panel-sizes", "1,3", "--replicates", "100")
    assert code == 1
    assert "no plan with K in {1, 3} and N <= 200 reaches power 0.8; best power reached" in out


def test_yaml_configs_run_standalone(tmp_path, capsys):
    code, out, err = run(capsys, "--config", "separability", "--replicates", "100",
                         "--panel-sizes", "1,3")
    assert code == 0 and "recommended: K = " in out
    bad = tmp_path / "bad.yaml"
    bad.write_text("design:\n  questoin: separability\n")
    code, out, err = run(capsys, "--config", str(bad))
    assert code == 2 and "unknown design key(s) questoin" in err


def test_config_paths_are_relative_to_the_config_file(capsys, monkeypatch, tmp_path):
    """A pilot path inside --config resolves against the config's folder, not the cwd."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "pilot.csv").write_text("a,b\n3,0\n2,1\n0,3\n1,2\n3,0\n2,1\n")
    (tmp_path / "cfg").mkdir()
    cfg = tmp_path / "cfg" / "plan.yaml"
    cfg.write_text("design:\n  question: separability\n  pilot: ../data/pilot.csv\n")
    monkeypatch.chdir(REPO)  # anywhere but the config's folder
    code, out, err = run(capsys, "--config", str(cfg), "--replicates", "0", "--panel-sizes", "3")
    assert code == 0, err
    assert err.startswith("pilot: 6 items, L = 2")


def test_yaml_snli_config(capsys, monkeypatch):
    shared_data("snli_dev_subset")
    monkeypatch.chdir(REPO)
    code, out, err = run(capsys, "--config", "snli",
                         "--replicates", "200", "--panel-sizes", "3,5")
    assert code == 0
    assert err.startswith("pilot: 1289 items, L = 3; fitted Beta(")
    assert "recommended: K = " in out


@pytest.mark.parametrize("argv,line", [
    (["--question", "precision", "--theta", "0.8", "--alpha", "0.1"],
     "labelvar: error: precision has no test, so no alpha: give --confidence-level (of the Wilson "
     "interval), got --alpha 0.1"),
    (["--question", "two_systems", "--theta", "0.8"],
     "labelvar: error: two_systems needs --accuracy-b and --delta (accuracies against the modal "
     "label: B and A = B + delta)"),
    (["--question", "precision", "--theta", "0.8"],
     "labelvar: error: precision needs --half-width (target CI half-width, in (0, 0.5])"),
    (["--theta", "0.8", "--metric", "f1"],
     "labelvar: error: --metric f1 needs --question two_systems and --n-labels 2, got "
     "--question separability, --n-labels 2"),
    (["--theta", "0.8", "--pilot", "pilot.jsonl"],
     "labelvar: error: give either --theta or --pilot (or a config's theta or pilot), not both"),
])
def test_errors_name_the_flags_not_the_python_fields(capsys, argv, line):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and err == line + "\n"
    # the same check from Python names the fields
    if "--metric" in argv:
        with pytest.raises(ValueError, match=r"^metric='f1' needs question='two_systems'"):
            Scenario("separability", theta=0.8, metric="f1")
