"""Fuzz cases of the judge surface (issue 31): alt_test, References, AltTestPower,
joint_winning_rates, parse_answer, read_eval_log, sampled-answer names and ``labelvar judge``.

Each case is a variant of a case the issue names, found wrong on the branch's start:
a refusal must be one line naming the argument (or flag) and what is allowed; a
number must be the number computed by hand.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from labelvar import alt_test
from labelvar.cli import main
from labelvar.io import read_eval_log
from labelvar.io._samples import parse_answer
from labelvar.judge import AltTestPower, References, joint_winning_rates


def _votes(n=40):
    """The alt_test docstring's votes: 30 unanimous 0 items, 10 items voted 1, 1, 0."""
    return pd.DataFrame({"item": [i for i in range(n) for _ in range(3)],
                         "rater": ["a", "b", "c"] * n,
                         "label": [0, 0, 0] * 30 + [1, 1, 0] * (n - 30)})


TRUTH = pd.Series([0] * 30 + [1] * 10)


def _at(**kw):
    kw.setdefault("references", None)
    system = kw.pop("system", TRUTH)
    votes = kw.pop("votes", None)
    return alt_test(_votes() if votes is None else votes, system, **kw)


# --------------------------------------------------------------------------- refusals (Python)
def _two(a, b, cols):
    return pd.DataFrame({0: a, 1: b}).set_axis(cols, axis=1)


PY_REFUSED = [
    ("duplicated columns", lambda: _at(system=_two(TRUTH, 1 - TRUTH, ["x", "x"])),
     r"system: the name 'x' is given twice .*give each system one name"),
    ("names differing in case and spacing", lambda: _at(system=_two(TRUTH, 1 - TRUTH, ["GPT", " gpt "])),
     r"system: the name 'GPT' is given twice \(as 'GPT' and ' gpt '\)"),
    ("names 0 and '0'", lambda: _at(system=_two(TRUTH, 1 - TRUTH, [0, "0"])),
     r"system: the name '0' is given twice"),
    ("system label inf", lambda: _at(system=TRUTH.astype(float).replace({1.0: np.inf})),
     r"system 'system': item '30' has the label inf; a label is text or a finite number"),
    ("system booleans among numbers", lambda: _at(system=TRUTH.astype(bool).rename("s")),
     r"system 's': item '0' has the label False \(booleans\), but the humans' labels are numbers"),
    ("system text among numbers", lambda: _at(system=TRUTH.map({0: "no", 1: "yes"}).rename("s")),
     r"system 's': item '0' has the label 'no' \(text\), but the humans' labels are numbers"),
    ("system spelling a human label otherwise",
     lambda: _at(votes=_votes().assign(label=_votes()["label"].map({0: "neg", 1: "pos"})),
                 system=TRUTH.map({0: "neg", 1: "POS"}).rename("s")),
     r"system 's': item '30' has the label 'POS', which the humans spell 'pos'"),
    ("epsilon False", lambda: _at(epsilon=False), r"epsilon must be in \[0, 1\), got False"),
    ("scoring returns NaN", lambda: _at(scoring=lambda x, others: float("nan")),
     r"scoring: <lambda>\(0, \[0, 0\]\) returned nan; a scoring callable returns a finite number"),
    ("scoring raises", lambda: _at(scoring=lambda x, others: 1 / 0),
     r"scoring: <lambda>\(0, \[0, 0\]\) raised ZeroDivisionError: division by zero"),
    ("scoring returns text", lambda: _at(scoring=lambda x, others: "high"),
     r"returned 'high'; a scoring callable returns a finite number"),
    ("References n_resamples 1e9", lambda: References(n_resamples=10**9),
     r"n_resamples must be at most 100000 \(Monte Carlo runs of the whole test\), got 1000000000"),
    ("References bins NaN", lambda: References(bins=(0, float("nan"), 1)),
     r"bins must be increasing finite edges, got \(0, nan, 1\)"),
    ("References bins leaving agreements out", lambda: _at(references=References(
        bins=(0.6, 1.0), n_resamples=0)),
     r"bins: the remaining humans' agreement 0.5 of 20 comparison\(s\) is outside the edges "
     r"\(0.6 to 1\)"),
    ("References seed -1", lambda: References(seed=-1),
     r"seed must be a whole number >= 0 or None, got -1"),
    ("References seed text", lambda: References(seed="a"),
     r"seed must be a whole number >= 0 or None, got 'a'"),
    ("AltTestPower weights NaN", lambda: AltTestPower(theta=(0.8, 0.9), skill=0.85, weights=(np.nan, 1)),
     r"weights must be one finite non-negative number per bin"),
    ("AltTestPower weights inf", lambda: AltTestPower(theta=(0.8, 0.9), skill=0.85, weights=(np.inf, 1)),
     r"weights must be one finite non-negative number per bin"),
    ("AltTestPower n_labels 1e6", lambda: AltTestPower(theta=0.8, skill=0.85, n_labels=10**6),
     r"n_labels must be a whole number in \[2, 100\], got 1000000"),
    ("AltTestPower theta text", lambda: AltTestPower(theta="x", skill=0.85),
     r"theta must be probabilities in \[0, 1\], got 'x'"),
    ("AltTestPower theta None", lambda: AltTestPower(theta=None, skill=0.85),
     r"theta must be probabilities in \[0, 1\], got None"),
    ("AltTestPower epsilon text", lambda: AltTestPower(theta=0.8, skill=0.85, epsilon="x"),
     r"epsilon must be in \[0, 1\) \(a number\), got 'x'"),
    ("power n_humans 1e6", lambda: AltTestPower(theta=0.8, skill=0.85).power(n_items=40, n_humans=10**6),
     r"n_humans must be at most 200 humans per item for the exact power, got 1000000"),
    ("power epsilon 2", lambda: AltTestPower(theta=0.8, skill=0.85).power(n_items=40, n_humans=3, epsilon=2),
     r"epsilon must be in \[0, 1\) \(a number\), got 2"),
    ("power epsilon NaN", lambda: AltTestPower(theta=0.8, skill=0.85).power(
        n_items=40, n_humans=3, epsilon=np.nan),
     r"epsilon must be in \[0, 1\) \(a number\), got nan"),
    ("plan max_items 1e9", lambda: AltTestPower(theta=0.8, skill=0.85).plan(max_items=10**9),
     r"max_items must be a whole number in \[2, 5000\] \(items per human\), got 1000000000"),
    ("plan max_items below min_items", lambda: AltTestPower(theta=0.8, skill=0.85).plan(max_items=10),
     r"max_items must be at least min_items \(the smallest N tried: 30\), got 10"),
    ("plan n_humans none", lambda: AltTestPower(theta=0.8, skill=0.85).plan(n_humans=[]),
     r"n_humans must give at least one number of humans per item"),
    ("plan n_humans 2.5", lambda: AltTestPower(theta=0.8, skill=0.85).plan(n_humans=[2.5]),
     r"n_humans must be a whole number >= 2, got 2.5"),
    ("plan target text", lambda: AltTestPower(theta=0.8, skill=0.85).plan(target="0.8"),
     r"target must be in \(0, 1\) \(a number\), got '0.8'"),
    ("plan scanning for minutes", lambda: AltTestPower(theta=0.8, skill=0.85).plan(
        n_humans=[150], max_items=2000), r"max_items: 1971 values of N .* would take minutes"),
    ("curves of 1e7 N", lambda: AltTestPower(theta=0.8, skill=0.85).curves(n_items=range(30, 10**7)),
     r"n_items must be 1 to 5000 numbers of items per human"),
    ("simulate 0 resamples", lambda: AltTestPower(theta=0.8, skill=0.85).simulate(
        n_items=40, n_humans=3, n_resamples=0), r"n_resamples must be a whole number in \[1, 1000000\]"),
    ("simulate 1e12 resamples", lambda: AltTestPower(theta=0.8, skill=0.85).simulate(
        n_items=40, n_humans=3, n_resamples=10**12), r"n_resamples must be a whole number in \[1, 1000000\]"),
    ("supported_epsilon grid NaN", lambda: AltTestPower(theta=0.8, skill=0.85).supported_epsilon(
        n_items=40, n_humans=3, grid=[np.nan]), r"epsilon must be in \[0, 1\)"),
    ("supported_epsilon target 2", lambda: AltTestPower(theta=0.8, skill=0.85).supported_epsilon(
        n_items=40, n_humans=3, target=2), r"target must be in \(0, 1\)"),
    ("joint_winning_rates of a list", lambda: joint_winning_rates([_at(), _at()]),
     r"results must be a mapping task name -> AltTestResult \(a dict\), got list"),
    ("joint_winning_rates of one result", lambda: joint_winning_rates(_at()),
     r"results must be a mapping task name -> AltTestResult \(a dict\), got AltTestResult"),
]


@pytest.mark.parametrize("name,call,match", PY_REFUSED, ids=[c[0] for c in PY_REFUSED])
def test_python_refusals_name_the_argument_and_what_is_allowed(name, call, match):
    with pytest.raises(ValueError, match=match) as info:
        call()
    assert "\n" not in str(info.value)


# --------------------------------------------------------------------------- right numbers
def test_q_as_a_numpy_float_gives_the_published_verdict():
    """The docstring's case by hand: humans a, b (1 on the last 10 items) and c (0 on all).
    Against a and b the system (0 on all 40) scores lower on the 10 items: W_sys = 30/40;
    against c it always ties or wins; BY rejects c only: winning rate 1/3, rho 0.8333."""
    res = _at(system=pd.Series([0] * 30 + [2] * 10), q=np.float32(0.05))
    assert res.winning_rate == pytest.approx(1 / 3)
    assert res.advantage_probability == pytest.approx((0.75 + 0.75 + 1.0) / 3)
    joint = joint_winning_rates({"x": res}, q=np.float32(0.05))
    assert joint[["n_humans", "n_rejected"]].values.tolist() == [[3, 1]]


def test_references_kinds_given_as_one_name():
    assert References(kinds="uniform", n_resamples=0).kinds == ("uniform",)


@pytest.mark.parametrize("text,value", [
    ("1/2", None), ("4/5", None), ("4 / 5", None), ("4-5", None), ("4\u20135", None),
    ("1, 2", None), ("3:4", None), ("4 - the summary is fluent", 4), ("3 out of 5", 3),
    ("1e3", 1000), (" 2 ", 2), ("2.0", 2), ("+1", 1), ("-0", 0), ("3.", 3),
    ("\u0663", 3), ("Answer: 3", None), ("", None), ("nan", None), ("inf", None), ("\u00bd", None),
])
def test_parse_answer_reads_a_number_whole_or_none(text, value):
    assert parse_answer(text) == value


# --------------------------------------------------------------------------- eval logs
def _inspect(path, samples, **top):
    path.write_text(json.dumps({"version": 2, "status": "success",
                                "eval": top.get("eval", {"model": "m"}), "samples": samples}))
    return path


def _lmeval(tmp, lines, task="t"):
    p = tmp / f"samples_{task}_2024-06-01T10-00-00.jsonl"
    p.write_text("".join(line if isinstance(line, str) else json.dumps(line) + "\n"
                         for line in lines))
    return p


def _s(i, a="1", **kw):
    return {"id": i, "scores": {"m": {"value": "C", "answer": a}}, **kw}


LOGS = [
    ("repeated id in one epoch", lambda t: _inspect(t / "l.json", [_s(0), _s(0, "0"), _s(1)]),
     r"l.json: sample id '0' is given twice for epoch 1"),
    ("epoch 0", lambda t: _inspect(t / "l.json", [_s(1, epoch=0), _s(1, epoch=1)]),
     r"sample '1' has the epoch 0; an epoch is a whole number from 1"),
    ("epoch text", lambda t: _inspect(t / "l.json", [_s(1, epoch="x")]),
     r"sample '1' has the epoch 'x'; an epoch is a whole number from 1"),
    ("id an object", lambda t: _inspect(t / "l.json", [_s({"a": 1})]),
     r"sample 1 has the id \{'a': 1\}; a sample id is text or a whole number"),
    ("id a boolean", lambda t: _inspect(t / "l.json", [_s(True)]),
     r"sample 1 has the id True; a sample id is text or a whole number"),
    ("answer a list", lambda t: _inspect(t / "l.json", [_s(1, [1, 2])]),
     r"sample '1' has the answer \[1, 2\]; an answer labelvar reads is text or a finite number"),
    ("eval not an object", lambda t: _inspect(t / "l.json", [_s(1)], eval="x"),
     r"the log's 'eval' field must be an object"),
    ("lm-eval repeated doc", lambda t: _lmeval(t, [{"doc_id": 0, "filtered_resps": ["1"]},
                                                   {"doc_id": 0, "filtered_resps": ["0"]}]),
     r"sample id '0' is given twice for the filter of system 't'"),
    ("lm-eval NaN answer", lambda t: _lmeval(t, ['{"doc_id": 1, "filtered_resps": [NaN]}\n']),
     r"sample '1' has the answer nan; an answer labelvar reads is text or a finite number"),
    ("lm-eval null doc_id", lambda t: _lmeval(t, [{"doc_id": None, "filtered_resps": ["1"]}]),
     r"line 1 has the doc_id None; a sample id is text or a whole number"),
    ("lm-eval NaN loglikelihood", lambda t: _lmeval(
        t, [{"doc_id": 1, "filtered_resps": [["nan", False], [-0.5, True]]}]),
     r":1: 'filtered_resps' holds a loglikelihood that is not a number"),
    ("a .csv file", lambda t: (t / "v.csv").write_text("a,b\n1,2\n") and t / "v.csv",
     r"v.csv: cannot tell the log's format from its extension '.csv'; an Inspect log is .json or "
     r".eval"),
    ("a JSON lines file read as Inspect", lambda t: "inspect:" + str(_lmeval(
        t, [{"doc_id": 0, "filtered_resps": ["1"]}, {"doc_id": 1, "filtered_resps": ["1"]}])),
     r"several JSON documents: an lm-evaluation-harness samples file\? \(read it as lmeval:PATH\)"),
]


@pytest.mark.parametrize("name,make,match", LOGS, ids=[c[0] for c in LOGS])
def test_eval_log_refusals_name_the_file_and_the_field(tmp_path, name, make, match):
    with pytest.raises(ValueError, match=match) as info:
        read_eval_log(make(tmp_path))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("kw,match", [
    (dict(system=""), r"system must be a non-empty name \(text\) or None, got ''"),
    (dict(system=5), r"system must be a non-empty name \(text\) or None, got 5"),
    (dict(format="lmeval", prefix="inspect:"), r"format='lmeval' conflicts with the prefix inspect:"),
    (dict(path=None), r"path must be a file path \(str or Path\), got NoneType"),
])
def test_eval_log_arguments_refused(tmp_path, kw, match):
    p = _inspect(tmp_path / "l.json", [_s(1)])
    path = kw.pop("prefix", "") + str(p) if "path" not in kw else kw.pop("path")
    with pytest.raises(ValueError, match=match):
        read_eval_log(path, **kw)


def test_eval_log_integral_float_id_is_the_whole_number(tmp_path):
    p = _inspect(tmp_path / "l.json", [_s(1.0)])
    assert read_eval_log(p)["item"].tolist() == ["1"]


# --------------------------------------------------------------------------- command line
@pytest.fixture
def files(tmp_path):
    v = _votes()
    v.to_csv(tmp_path / "votes.csv", index=False)
    pd.DataFrame({"item": range(40), "gpt": TRUTH, "GPT ": 1 - TRUTH, "a": TRUTH}).to_csv(
        tmp_path / "sys.csv", index=False)
    _inspect(tmp_path / "dup.json", [_s(0, "0"), _s(0, "1")] + [_s(i, "0") for i in range(1, 40)])
    wide = v.pivot(index="item", columns="rater", values="label").reset_index()
    wide["judge"], wide["JUDGE"] = TRUTH, 1 - TRUTH
    wide.to_csv(tmp_path / "wide.csv", index=False)
    (tmp_path / "votes.xlsx").write_bytes(b"PK\x03\x04")
    return tmp_path


def _cli(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own exits
        code = exc.code
    return code, capsys.readouterr().err.strip()


PLAN = ["judge", "--plan", "--theta", "0.8", "--skill", "0.85"]
CLI_REFUSED = [
    ("one column twice", lambda d: ["judge", f"{d}/votes.csv", "--system", f"{d}/sys.csv:gpt,gpt"],
     "--system: the name 'gpt' is given twice"),
    ("columns differing in case", lambda d: ["judge", f"{d}/votes.csv", "--system", f"{d}/sys.csv:gpt,GPT"],
     "--system: the name 'gpt' is given twice (as 'gpt' and 'GPT')"),
    ("one rater twice", lambda d: ["judge", f"{d}/votes.csv", "--system-rater", "a,a"],
     "--system-rater: the name 'a' is given twice"),
    ("a rater and a file column of one name", lambda d: [
        "judge", f"{d}/votes.csv", "--system-rater", "a", "--system", f"{d}/sys.csv:a"],
     "--system: the name 'a' is given twice"),
    ("an eval log with a repeated id", lambda d: ["judge", f"{d}/votes.csv", "--system",
                                                  f"inspect:{d}/dup.json"],
     "dup.json: sample id '0' is given twice for epoch 1"),
    ("--n-resamples 1e9", lambda d: ["judge", f"{d}/votes.csv", "--system", f"{d}/sys.csv:gpt",
                                     "--n-resamples", "1000000000"],
     "--n-resamples must be at most 100000"),
    ("--seed -1", lambda d: ["judge", f"{d}/votes.csv", "--system", f"{d}/sys.csv:gpt", "--seed", "-1"],
     "--seed must be a whole number >= 0"),
    ("an .xlsx VOTES", lambda d: ["judge", f"{d}/votes.xlsx", "--system", f"{d}/sys.csv:gpt"],
     "votes.xlsx: labelvar judge reads .csv, .tsv, .tab, .txt, .json, .jsonl files, not .xlsx"),
    ("--systems without --panel", lambda d: ["judge", f"{d}/votes.csv", "--system", f"{d}/sys.csv:gpt",
                                             "--systems", "gpt"],
     "--systems is used only with --panel"),
    ("--system with --panel", lambda d: ["judge", f"{d}/wide.csv", "--panel", "a,b,c", "--systems", "judge",
                                         "--system", f"{d}/sys.csv:gpt"],
     "--system is not used with --panel"),
    ("--systems differing in case", lambda d: ["judge", f"{d}/wide.csv", "--panel", "a,b,c",
                                               "--systems", "judge,JUDGE"],
     "--systems: the name 'judge' is given twice (as 'judge' and 'JUDGE')"),
    ("a rater in --systems and --humans", lambda d: ["judge", f"{d}/wide.csv", "--panel", "a,b",
                                                      "--systems", "judge,c", "--humans", "c"],
     "--systems and --humans both name 'c'"),
    ("--theta without --plan", lambda d: ["judge", f"{d}/votes.csv", "--system", f"{d}/sys.csv:gpt",
                                          "--theta", "0.8"],
     "--theta is used only with --plan"),
    ("--plan with VOTES", lambda d: PLAN + [f"{d}/votes.csv"], "VOTES is not used with --plan"),
    ("--plan with --system", lambda d: PLAN + ["--system", f"{d}/sys.csv"],
     "--system is not used with --plan"),
    ("--plan with --n-resamples", lambda d: PLAN + ["--n-resamples", "5"],
     "--n-resamples is not used with --plan"),
    ("--plan --weights nan", lambda d: ["judge", "--plan", "--theta", "0.8,0.9", "--skill", "0.85",
                                        "--weights", "nan,1"],
     "--weights must be one finite non-negative number per bin"),
    ("--plan --n-labels 1e6", lambda d: PLAN + ["--n-labels", "1000000"],
     "--n-labels must be a whole number in [2, 100], got 1000000"),
    ("--plan --per-item 2.5", lambda d: PLAN + ["--per-item", "2.5"],
     "--per-item must be whole numbers of humans per item (2 or more, comma separated), got '2.5'"),
    ("--plan --per-item 1000", lambda d: PLAN + ["--per-item", "1000"],
     "--per-item must be at most 200 humans per item for the exact power, got 1000"),
    ("--plan --max-items 10", lambda d: PLAN + ["--max-items", "10"],
     "--max-items must be at least min_items (the smallest N tried: 30), got 10"),
    ("--plan --max-items 1e9", lambda d: PLAN + ["--max-items", "1000000000"],
     "--max-items must be a whole number in [2, 5000] (items per human), got 1000000000"),
]


@pytest.mark.parametrize("name,argv,needle", CLI_REFUSED, ids=[c[0] for c in CLI_REFUSED])
def test_cli_refusals_are_one_line_naming_the_flag(files, capsys, name, argv, needle):
    code, err = _cli(argv(files), capsys)
    assert code == 2 and needle in err and len(err.splitlines()) == 1, err


def test_stratify_predictions_of_one_name_in_two_cases_refused(tmp_path, capsys):
    pan = pd.DataFrame({"id": [f"d{i}" for i in range(6)], "e1": [1, 2, 3, 1, 2, 3],
                        "e2": [1, 2, 3, 3, 2, 1], "e3": [1, 1, 3, 1, 2, 3]})
    pan.to_csv(tmp_path / "panel.csv", index=False)
    for f, v in (("a", 1), ("b", 3)):
        pd.DataFrame({"id": pan["id"], "pred": v}).to_csv(tmp_path / f"{f}.csv", index=False)
    code, err = _cli(["stratify", str(tmp_path / "panel.csv"), "--panel", "e*", "--item", "id",
                      "--n-resamples", "0", "--predictions", f"GPT={tmp_path}/a.csv",
                      "--predictions", f"gpt={tmp_path}/b.csv"], capsys)
    assert code == 2 and "task 'panel' already has a system 'GPT'" in err, err


# --------------------------------------------------------------------------- recode maps, report files
@pytest.mark.parametrize("spec,match", [
    ("gpt4:a=b=c", r"recode: 'a=b=c' in 'gpt4:a=b=c' is not OLD=NEW \(one '=' per pair, pairs "
                   r"separated by commas\)"),
    ("gpt4:1=1;2=2", r"recode: '1=1;2=2' in 'gpt4:1=1;2=2' is not OLD=NEW"),
    ("panel:1=2,gpt4:1=2", r"recode: 'gpt4:1=2' in 'panel:1=2,gpt4:1=2' looks like a second map "
                           r"\('gpt4'\); give each map its own --recode"),
])
def test_recode_texts_that_are_no_map_refused(spec, match):
    from labelvar.io._scales import recode_map

    with pytest.raises(ValueError, match=match):
        recode_map(spec)


def test_recode_file_missing_is_a_value_error(tmp_path):
    from labelvar.io._scales import recode_map

    with pytest.raises(ValueError, match=r"recode: no such file: .*missing\.json"):
        recode_map(str(tmp_path / "missing.json"))


def test_report_figures_of_systems_with_alike_or_long_names_do_not_collide():
    """'a/b' and 'a_b' both wrote alt_test_a_b.png (one figure lost); a 300-character name
    failed with 'File name too long'."""
    from labelvar.report._judge import _stems

    assert _stems(["a/b", "a_b", "A_B", "x" * 300, "../up", "."]) == {
        "a/b": "a_b", "a_b": "a_b_2", "A_B": "A_B_3", "x" * 300: "x" * 60, "../up": "_up",
        ".": "system"}


def test_one_system_name_in_two_system_flags_refused(files, capsys):
    """--system was one value: a second --system silently replaced the first."""
    d = files
    code, err = _cli(["judge", f"{d}/votes.csv", "--system", f"{d}/sys.csv:gpt", "--system",
                      f"{d}/sys.csv:gpt", "--n-resamples", "0"], capsys)
    assert code == 2 and "--system: the name 'gpt' is given twice" in err, err


def test_system_given_twice_prints_both_verdicts(files, capsys):
    d = files
    pd.DataFrame({"item": range(40), "other": 1 - TRUTH}).to_csv(d / "other.csv", index=False)
    assert main(["judge", f"{d}/votes.csv", "--system", f"{d}/sys.csv:gpt", "--system",
                 f"{d}/other.csv", "--n-resamples", "0"]) == 0
    text = capsys.readouterr().out
    # gpt = the humans' majority: at least as close to the others as any human on every item
    # (rho 1); 'other' (its negation) loses on the 30 unanimous items and ties on the last 10
    # against every human (a, b: 1/2 vs 1/2; c: the same label 0): rho = 10/40
    assert "### gpt: passes (winning rate 1, rho 1)" in text
    assert "### other: fails (winning rate 0, rho 0.25)" in text


def test_inspect_version_true_is_no_schema_version(tmp_path):
    p = tmp_path / "l.json"
    p.write_text(json.dumps({"version": True, "eval": {"model": "m"}, "samples": [_s(1)]}))
    with pytest.raises(ValueError, match=r"Inspect log schema version True is not one labelvar reads"):
        read_eval_log(p)


def test_plan_per_item_given_twice_and_negative_zero_epsilon(capsys):
    code, err = _cli(PLAN + ["--per-item", "3,3"], capsys)
    assert code == 2 and "--per-item: 3 is given twice in [3, 3]" in err, err
    assert AltTestPower(theta=0.8, skill=0.8, epsilon=-0.0).describe().endswith("epsilon 0.0")


def _one_task():
    from labelvar import io

    pan = pd.DataFrame({"e1": [1, 2], "e2": [1, 2]}, index=pd.Index(["d0", "d1"], name="item"))
    return {"t": io.TaskData(pan, pd.DataFrame(index=pan.index))}


def test_predictions_file_without_rows_or_paths_refused(tmp_path):
    from labelvar import io

    p = tmp_path / "p.csv"
    p.write_text("id,pred\n")
    with pytest.raises(ValueError, match=r"predictions 'm': .*p.csv hold\(s\) no rows"):
        io.attach_predictions(_one_task(), "m", p, item="id", label="pred")  # was an IndexError
    with pytest.raises(ValueError, match=r"predictions 'm': no file given"):
        io.attach_predictions(_one_task(), "m", [], item="id", label="pred")


def test_modal_answer_of_a_list_refused():
    from labelvar.io import modal_answer

    with pytest.raises(ValueError, match=r"samples must be a DataFrame, items x samples .*got list"):
        modal_answer([[1, 2]])  # was an AttributeError


def test_rater_reference_from_a_model_with_labels_the_votes_never_use_refused():
    """A model fitted on other votes (labels 0, 1, 2) was cut to the votes' 0, 1 and renormalised."""
    from types import SimpleNamespace

    post = pd.DataFrame({0: [0.6] * 40, 1: [0.2] * 40, 2: [0.2] * 40}, index=range(40))
    refs = References(model=SimpleNamespace(truth=post), skills=(0.9,), n_resamples=0)
    with pytest.raises(ValueError, match=r"references model gives the label\(s\) \[2\] that the "
                                         r"votes never use \(the votes: \[0, 1\]\)"):
        _at(references=refs)
    with pytest.raises(ValueError, match=r"skills: each accuracy once, got \(0.9, 0.9\)"):
        References(model=SimpleNamespace(truth=post), skills=(0.9, 0.9))
