"""Scales and spellings: labels outside the panel's set, another rating range, another case.

Each is refused naming the fix (a recode map), and the recoded run gives what an
independent computation of the same scores gives.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from labelvar import io, stratify
from labelvar.cli import main
from labelvar.evaluation import Intervals, Labels, Truth
from labelvar.io import _scales


def _ratings(seed=0, n=400):
    """Experts rate 1-5 (3 each); gpt rates 1-3 (G-Eval's fluency), roughly their 1, 3, 5."""
    rng = np.random.default_rng(seed)
    truth = rng.choice([1, 2, 3, 4, 5], size=n, p=[0.1, 0.15, 0.25, 0.25, 0.25])
    noise = rng.integers(-1, 2, size=(n, 3)) * (rng.random((n, 3)) < 0.3)
    experts = np.clip(truth[:, None] + noise, 1, 5)
    gpt = np.clip(np.round((truth - 1) / 2).astype(int) + 1 + (rng.random(n) < 0.1), 1, 3)
    return pd.DataFrame({"e1": experts[:, 0], "e2": experts[:, 1], "e3": experts[:, 2]},
                        index=pd.Index([f"d{i}" for i in range(n)], name="item")), \
        pd.DataFrame({"gpt": gpt}, index=pd.Index([f"d{i}" for i in range(n)], name="item"))


def _accuracy(panel: pd.DataFrame, pred: np.ndarray, labels) -> float:
    """Accuracy against the plurality, ties to the lowest label (tie_rule="lowest"), by hand."""
    counts = np.stack([(panel.to_numpy() == x).sum(axis=1) for x in labels], axis=1)
    majority = np.asarray(labels)[counts.argmax(axis=1)]
    return float((pred == majority).mean())


def _score(result, system="gpt", metric="accuracy") -> float:
    t = result.table
    row = t[(t.system == system) & (t.stratum == "all") & (t.metric == metric)]
    return float(row.score.iloc[0])


def test_a_narrower_rating_range_is_refused_naming_the_recode():
    panel, pred = _ratings()
    with pytest.raises(ValueError) as info:
        stratify(panel, pred, truth=Truth(tie_rule="lowest"), intervals=Intervals(n_resamples=0))
    msg = str(info.value)
    assert msg.startswith("predictions['gpt'] (task 'task') rate on 1-3, the panel on 1-5 (")
    assert "recode='gpt:1=1,2=3,3=5'" in msg and "recode='gpt:1=1,2=2,3=3'" in msg
    votes = panel.to_numpy().ravel()
    share = round(100 * float((votes > 3).mean()))
    assert f"({share} % of its votes above 3)" in msg
    with pytest.raises(ValueError, match="rate on 1-3"):  # ordinal: the same
        stratify(panel, pred, metrics=["mae"], labels=Labels(ordinal=True),
                 truth=Truth(tie_rule="lowest"), intervals=Intervals(n_resamples=0))


def test_the_recoded_and_the_identity_mapped_system_score_as_computed_by_hand():
    panel, pred = _ratings()
    mapped = pred["gpt"].map({1: 1, 2: 3, 3: 5}).to_numpy()
    for recode in ({"gpt": {1: 1, 2: 3, 3: 5}}, "gpt:1=1,2=3,3=5", ["gpt:1=1,2=3,3=5"]):
        r = stratify(panel, pred, recode=recode, truth=Truth(tie_rule="lowest"),
                     intervals=Intervals(n_resamples=0))
        assert _score(r) == pytest.approx(_accuracy(panel, mapped, [1, 2, 3, 4, 5]), abs=1e-12)
    r = stratify(panel, pred, recode="gpt:1=1,2=2,3=3", truth=Truth(tie_rule="lowest"),
                 intervals=Intervals(n_resamples=0))
    raw = pred["gpt"].to_numpy()
    assert _score(r) == pytest.approx(_accuracy(panel, raw, [1, 2, 3, 4, 5]), abs=1e-12)
    assert _score(r) < _score(stratify(panel, pred, recode="gpt:1=1,2=3,3=5",
                                       truth=Truth(tie_rule="lowest"),
                                       intervals=Intervals(n_resamples=0)))


def test_a_narrow_system_with_few_panel_votes_above_and_central_or_constant_ones_run():
    panel, pred = _ratings()
    top = panel.replace(5, 4)
    top.iloc[:10, 0] = 5  # the panel's 5s: 10 of 1200 votes, under RANGE_SHARE
    assert (top.to_numpy() == 5).mean() < _scales.RANGE_SHARE
    narrow = np.clip(top["e1"].to_numpy(), 1, 4)  # never says 5
    r = stratify(top, {"narrow": narrow}, truth=Truth(tie_rule="lowest"),
                 intervals=Intervals(n_resamples=0))
    assert _score(r, "narrow") == pytest.approx(_accuracy(top, narrow, [1, 2, 3, 4, 5]))
    central = np.clip(panel["e1"].to_numpy(), 2, 4)  # neither 1 nor 5: no other scale's shape
    const = np.full(len(panel), 4)
    r = stratify(panel, {"central": central, "const": const}, truth=Truth(tie_rule="lowest"),
                 intervals=Intervals(n_resamples=0))
    for name, p in (("central", central), ("const", const)):
        assert _score(r, name) == pytest.approx(_accuracy(panel, p, [1, 2, 3, 4, 5]))
    with pytest.raises(ValueError, match=r"rate on 1-4, the panel on 1-5"):
        stratify(panel, {"narrow": np.clip(panel["e1"].to_numpy(), 1, 4)},
                 intervals=Intervals(n_resamples=0))


def test_labels_outside_the_set_name_the_recode_and_text_onto_numbers_works():
    panel = pd.DataFrame({"r1": [1, 0, 1, 1], "r2": [1, 0, 0, 1], "r3": [1, 1, 0, 0]})
    bot = ["yes", "no", "no", "yes"]
    with pytest.raises(ValueError, match=r"\(recode='bot:yes=...,no=...'\)"):
        stratify(panel, {"bot": bot}, intervals=Intervals(n_resamples=0))
    r = stratify(panel, {"bot": bot}, recode={"bot": {"yes": 1, "no": 0}},
                 intervals=Intervals(n_resamples=0))
    assert _score(r, "bot") == pytest.approx(_accuracy(panel, np.array([1, 0, 0, 1]), [0, 1]))
    with pytest.raises(ValueError) as info:
        stratify(panel, {"bot": [1, 0, 2, 1]}, intervals=Intervals(n_resamples=0))
    assert str(info.value) == ("predictions['bot'] (task 'task') has labels outside the label "
                               "set {0, 1} (inferred from the panel; or declare it, labels=...)"
                               ": 2; map them onto the panel's labels (recode='bot:2=...')")


def _snli(tmp_path, odd="Entailment", n=60, seed=2):
    rng = np.random.default_rng(seed)
    labels = np.array(["entailment", "neutral", "contradiction"])
    rows = []
    for i in range(n):
        votes = list(labels[rng.integers(0, 3, 5)])
        if i in (3, 17):
            votes[0] = odd
        rows.append({"pairID": f"p{i}", "annotator_labels": votes,
                     "gpt": str(labels[rng.integers(0, 3)])})
    p = tmp_path / "snli.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return p, rows


@pytest.mark.parametrize("odd", ["Entailment", "ENTAILMENT", "en tailment"])
def test_two_spellings_of_one_label_refused_then_recoded(tmp_path, odd, capsys):
    p, rows = _snli(tmp_path, odd)
    data = io.load_tasks(p, columns=io.Columns(panel="annotator_labels", systems="gpt", item="pairID"))
    with pytest.raises(ValueError) as info:
        stratify(data, intervals=Intervals(n_resamples=0))
    n_e = sum(v == "entailment" for r in rows for v in r["annotator_labels"])
    assert str(info.value) == (
        f"panel of task 'snli': labels 'entailment' and {odd!r} differ only in case or spacing "
        f"({n_e:,} and 2 votes): one label spelt two ways? recode one into the other "
        f"(recode='panel:{odd}=entailment'), or declare both in the label set (labels=...) if "
        "they are two labels")
    r = stratify(data, recode={"panel": {odd: "entailment"}}, intervals=Intervals(n_resamples=0))
    assert r.inputs["snli"]["labels"] == {"contradiction": sum(
        v == "contradiction" for r in rows for v in r["annotator_labels"]),
        "entailment": n_e + 2, "neutral": sum(v == "neutral" for r in rows
                                               for v in r["annotator_labels"])}
    # declared as two labels: four labels, as asked
    r = stratify(data, labels=["entailment", "neutral", "contradiction", odd],
                 intervals=Intervals(n_resamples=0))
    assert r.inputs["snli"]["labels"][odd] == 2
    code = main(["stratify", str(p), "--panel", "annotator_labels", "--systems", "gpt", "--item",
                 "pairID", "--n-resamples", "0"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and f"(--recode panel:{odd}=entailment)" in err and "\n" not in err


def test_a_system_spelling_a_label_otherwise_is_told_the_panel_spelling():
    panel = pd.DataFrame({"r1": ["entailment", "neutral"], "r2": ["entailment", "neutral"]})
    with pytest.raises(ValueError, match=r"'Neutral'; 'Neutral' is 'neutral' spelt otherwise; "
                                         r"map them onto the panel's labels \(recode='bot:"
                                         r"Neutral=neutral'\)"):
        stratify(panel, {"bot": ["entailment", "Neutral"]}, labels=Labels(pos_label="neutral"),
                 intervals=Intervals(n_resamples=0))


def test_recode_spellings_one_definition_for_text_files_and_mappings(tmp_path):
    want = {"gpt4": {1: 1, 2: 3, 3: 5}, "panel": {"Entailment": "entailment"}}
    (tmp_path / "m.json").write_text(json.dumps({"gpt4": {"1": 1, "2": 3, "3": 5},
                                                 "panel": {"Entailment": "entailment"}}))
    (tmp_path / "m.yaml").write_text("gpt4: {1: 1, 2: 3, 3: 5}\npanel:\n  Entailment: entailment\n")
    assert _scales.recode_map(str(tmp_path / "m.json")) == want
    assert _scales.recode_map(tmp_path / "m.yaml") == want
    assert _scales.recode_map(["gpt4:1=1, 2=3, 3=5", "panel:Entailment=entailment"]) == want
    for bad, match in (("gpt4", "must be NAME:OLD=NEW"), ("gpt4:1=", "'1=' in 'gpt4:1=' is not"),
                       (["a:1=2", "a:2=3"], "'a' has two maps"), (":1=2", "a map without a name"),
                       ({"a": [1, 2]}, "must be old -> new labels"),
                       (str(tmp_path / "none.yaml"), "no such file")):
        with pytest.raises((ValueError, FileNotFoundError), match=match):
            _scales.recode_map(bad)
    panel, pred = _ratings(n=60)
    with pytest.raises(ValueError, match=r"^recode: 'gtp' is no evaluated rater of any task "
                                         r"\('gpt'; 'panel': the panel's votes\)"):
        stratify(panel, pred, recode="gtp:1=1,2=3,3=5", intervals=Intervals(n_resamples=0))


def test_recode_on_the_command_line_as_text_and_as_a_file(tmp_path, capsys):
    panel, pred = _ratings(n=200, seed=4)
    df = pd.concat([panel, pred], axis=1).reset_index()
    p = tmp_path / "g.csv"
    df.to_csv(p, index=False)
    args = ["stratify", str(p), "--panel", "e*", "--systems", "gpt", "--item", "item",
            "--n-resamples", "0", "--tie-rule", "lowest", "--format", "csv", "--metrics", "accuracy"]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert "rate on 1-3, the panel on 1-5" in err and "(--recode gpt:1=1,2=3,3=5)" in err
    (tmp_path / "r.yaml").write_text("gpt: {1: 1, 2: 3, 3: 5}\n")
    want = _accuracy(panel, pred["gpt"].map({1: 1, 2: 3, 3: 5}).to_numpy(), [1, 2, 3, 4, 5])
    for spec in ("gpt:1=1,2=3,3=5", str(tmp_path / "r.yaml")):
        assert main(args + ["--recode", spec]) == 0
        out = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out))
        row = out[(out.system == "gpt") & (out.stratum == "all")]
        assert float(row.score.iloc[0]) == pytest.approx(want, abs=1e-12)
    assert main(args + ["--recode", "gpt:1=1,1=3"]) == 2
    assert capsys.readouterr().err.strip() == ("labelvar: error: --recode: 'gpt' maps 1 twice; "
                                               "give each old label once")
