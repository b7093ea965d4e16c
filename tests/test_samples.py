"""Sampled systems (labelvar.io._samples), the file shapes they come in, and reports without humans."""

from __future__ import annotations

import json
import random
import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from labelvar import io, stratify
from labelvar.evaluation import DataNoteWarning, Intervals, Truth
from labelvar.evaluation._inference import expected_gap_test
from labelvar.io._samples import modal_answer, parse_answer, sample_shares


def _panel(n, k=3, labels=(1, 2, 3, 4, 5), seed=0):
    rng = random.Random(seed)
    idx = pd.Index([f"d{i}|M{i % 4}" for i in range(n)], name="item")
    return pd.DataFrame([[rng.choice(labels) for _ in range(k)] for _ in range(n)], index=idx,
                        columns=[f"e{j + 1}" for j in range(k)])


# --------------------------------------------------------------------------- modal answer
def test_modal_answer_equals_counter_most_common():
    rng = random.Random(1)
    rows = [[rng.choice([1, 2, 3]) for _ in range(rng.randint(1, 7))] for _ in range(300)]
    width = max(map(len, rows))
    s = pd.DataFrame([r + [None] * (width - len(r)) for r in rows])
    got = modal_answer(s).tolist()
    assert got == [Counter(r).most_common(1)[0][0] for r in rows]
    lowest = modal_answer(s, "label_order").tolist()
    want = [min(v for v, c in Counter(r).items() if c == max(Counter(r).values())) for r in rows]
    assert lowest == want
    assert got != lowest  # ties exist, and the two rules differ on them


def test_parse_answer_reads_the_leading_number_only():
    assert [parse_answer(x) for x in [" 4", "4\n\nbecause", "2.5", "-1", "Score: 3", "", True]] \
        == [4, 4, 2.5, -1, None, None, None]
    with pytest.raises(ValueError, match="parse must be one of"):
        parse_answer("1", "int")


def test_sample_shares_refuse_an_answer_outside_the_labels():
    s = pd.DataFrame([[1, 1, 2], [3, None, None]], index=["a", "b"])
    np.testing.assert_allclose(sample_shares(s, [1, 2, 3]).to_numpy(),
                               [[2 / 3, 1 / 3, 0], [0, 0, 1]])
    with pytest.raises(ValueError, match="item 'b' has the answer 3, outside the label set"):
        sample_shares(s, [1, 2])


# --------------------------------------------------------------------------- stratify
def test_stratify_scores_sampled_system_by_hand():
    pan = _panel(200)
    rng = np.random.default_rng(4)
    votes = pan.to_numpy()
    samples = pd.DataFrame(np.where(rng.random((200, 20)) < 0.5, votes[:, [0]],
                                    rng.integers(1, 6, (200, 20))), index=pan.index)
    td = io.TaskData(pan, pd.DataFrame(index=pan.index), samples={"llm": samples})
    r = stratify({"coh": td}, metrics=["accuracy", "total_variation", "cross_entropy"],
                 truth=Truth(tie_rule="drop"), intervals=Intervals(n_resamples=0))
    t = r.table
    # independent computation: plain Counter majorities, shares, per bin
    maj, agree, keep = [], [], []
    for row in votes.tolist():
        c = Counter(row).most_common()
        tied = len(c) > 1 and c[0][1] == c[1][1]
        keep.append(not tied)
        maj.append(c[0][0])
        agree.append(c[0][1] / 3)
    keep = np.array(keep)
    maj, agree = np.array(maj), np.round(np.array(agree), 2)
    srows = samples.to_numpy().tolist()
    mode = np.array([Counter(x).most_common(1)[0][0] for x in srows])
    share = np.array([[x.count(v) / 20 for v in range(1, 6)] for x in srows])
    soft = np.array([[list(r).count(v) / 3 for v in range(1, 6)] for r in votes])
    assert r.excluded["coh"]["tied"] == int((~keep).sum())
    for level in sorted(set(agree[keep])):
        m = keep & (agree == level)
        name = f"{level:.2f}"

        def get(metric, col="score", name=name):
            q = t[(t.system == "llm") & (t.stratum == name) & (t.metric == metric)]
            assert len(q) == 1
            return q.iloc[0][col]

        assert get("accuracy", "S") == m.sum()
        assert get("accuracy") == pytest.approx(np.mean(mode[m] == maj[m]))
        assert get("self_agreement") == pytest.approx(share[m].max(axis=1).mean())
        assert get("sample_accuracy") == pytest.approx(share[m, maj[m] - 1].mean())
        assert get("sample_accuracy", "delta_expected") == pytest.approx(
            get("accuracy", "expected") - share[m, maj[m] - 1].mean())
        assert get("total_variation") == pytest.approx(
            0.5 * np.abs(share[m] - soft[m]).sum(axis=1).mean())
        ce = -(soft[m] * np.log(np.clip(share[m], 1e-15, 1))).sum(axis=1).mean()
        assert get("cross_entropy") == pytest.approx(ce)
    info = r.inputs["coh"]["samples"]["llm"]
    assert info["samples_min"] == info["samples_max"] == 20
    assert info["tie_rule"] == "first_sample"
    assert info["tied"] == sum(len(c := Counter(x).most_common(2)) == 2 and c[0][1] == c[1][1]
                               for x in srows)


def test_sampled_system_with_a_label_too_is_refused():
    pan = _panel(10)
    s = pd.DataFrame(np.ones((10, 3), int), index=pan.index)
    td = io.TaskData(pan, pd.DataFrame({"llm": 1}, index=pan.index), samples={"llm": s})
    with pytest.raises(ValueError, match="has sampled answers and also a label"):
        stratify({"t": td}, intervals=Intervals(n_resamples=0))


# --------------------------------------------------------------------------- JSON arrays
def test_json_array_records_keep_their_lines(tmp_path):
    from labelvar.io._reading import read_jsonl_records

    p = tmp_path / "a.json"
    p.write_text(json.dumps([{"a": 1}, {"a": [2, 3]}], indent=4))
    lines = []
    assert read_jsonl_records(p, lines) == [{"a": 1}, {"a": [2, 3]}]
    assert lines == [2, 5]
    p.write_text('[{"a": 1}, {"a": 2}')
    with pytest.raises(ValueError, match=r"a\.json:1: not valid JSON \(the array is not closed"):
        read_jsonl_records(p)
    p.write_text('[{"a": 1}, 3]')
    with pytest.raises(ValueError, match="expected an array of JSON objects, record 2 is a int"):
        read_jsonl_records(p)
    p.write_text('[{"a": 1}\n {"a": 2}]')
    with pytest.raises(ValueError, match=r"a\.json:2: not valid JSON \(expected ','"):
        read_jsonl_records(p)


# --------------------------------------------------------------------------- predictions files
def _base(pan):
    return {"coh": io.TaskData(pan, pd.DataFrame(index=pan.index))}


def test_composite_key_list_field_and_parse(tmp_path):
    pan = _panel(8)
    recs = [{"doc_id": i.split("|")[0], "system_id": i.split("|")[1],
             "all_responses": [" 4", " 3", "4", "Score: 2"]} for i in pan.index]
    p = tmp_path / "geval.json"
    p.write_text(json.dumps(recs, indent=4))
    with pytest.warns(DataNoteWarning, match="8 of 32 answers start with no number"):
        d = io.attach_predictions(_base(pan), "g", p, item="doc_id,system_id",
                                  label="all_responses", parse="number")
    s = d["coh"].samples["g"]
    assert s.index.equals(pan.index) and s.to_numpy().tolist() == [[4, 3, 4, None]] * 8
    # the key's fields in the other order share no id with the panel: refused, not all missing
    with pytest.raises(ValueError, match="none of its 8 item ids .* is a panel item id"):
        io.attach_predictions(_base(pan), "g", p, item="system_id,doc_id",
                              label="all_responses", parse="number")
    # text answers without parse: refused in stratify, the fix named
    d = io.attach_predictions(_base(pan), "g", p, item="doc_id,system_id", label="all_responses")
    with pytest.raises(ValueError, match="samples of 'g' .*'Score: 2', outside the label set.*"
                       "parse='number'"):
        stratify(d, intervals=Intervals(n_resamples=0))


def test_repeated_rows_and_columns_per_sample(tmp_path):
    pan = _panel(4)
    ids = list(pan.index)
    p = tmp_path / "rows.csv"
    pd.DataFrame({"id": ids * 3, "ans": [1] * 4 + [2] * 4 + [2] * 4}).to_csv(p, index=False)
    with pytest.raises(ValueError, match="appears more than once; several sampled answers"):
        io.attach_predictions(_base(pan), "g", p, item="id", label="ans")
    d = io.attach_predictions(_base(pan), "g", p, item="id", label="ans", samples=True)
    assert d["coh"].samples["g"].to_numpy().tolist() == [[1, 2, 2]] * 4
    q = tmp_path / "cols.csv"
    pd.DataFrame({"id": ids, "s1": 3, "s2": 1, "s3": 3}).to_csv(q, index=False)
    d = io.attach_predictions(_base(pan), "g", q, item="id", label="s*")
    assert d["coh"].samples["g"].to_numpy().tolist() == [[3, 1, 3]] * 4


def test_one_predictions_file_for_several_tasks(tmp_path):
    pan = _panel(5)
    data = {"coh": io.TaskData(pan, pd.DataFrame(index=pan.index)),
            "flu": io.TaskData(pan, pd.DataFrame(index=pan.index))}
    p = tmp_path / "p.jsonl"
    p.write_text("".join(json.dumps({"id": i, "task": t, "y": v}) + "\n"
                         for t, v in (("coh", 2), ("flu", 5)) for i in pan.index))
    d = io.attach_predictions(data, "m", p, item="id", label="y", task_field="task")
    assert d["coh"].predictions["m"].tolist() == [2] * 5
    assert d["flu"].predictions["m"].tolist() == [5] * 5
    with pytest.raises(ValueError, match="its one field 'y' would be every task's answer"):
        io.attach_predictions(data, "m", p, item="id", label="y", samples=True)
    p.write_text(json.dumps({"id": pan.index[0], "task": "rel", "y": 1}) + "\n")
    with pytest.raises(ValueError, match="no task named in 'task'"):
        io.attach_predictions(data, "m", p, item="id", label="y", task_field="task")


# --------------------------------------------------------------------------- humans: lists of objects
def test_list_of_objects_as_humans(tmp_path):
    p = tmp_path / "s.jsonl"
    recs = [{"id": f"d{i}", "model_id": "M1",
             "expert_annotations": [{"coherence": 1 + (i + j) % 5, "fluency": 3} for j in range(3)],
             "turker_annotations": [{"coherence": 1 + (i * j) % 5, "fluency": 2 + j % 2}
                                    for j in range(5)]} for i in range(30)]
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    d = io.read_jsonl(p, panel="expert_annotations", item="id,model_id",
                      humans="turker_annotations")
    td = d["coherence"]
    assert td.humans == tuple(f"turker_annotations_{j}" for j in range(1, 6))
    assert td.predictions["turker_annotations_3"].tolist() == [1 + (i * 2) % 5 for i in range(30)]
    assert d["fluency"].predictions["turker_annotations_2"].tolist() == [3] * 30
    recs[4]["turker_annotations"] = {"coherence": 3}
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    with pytest.raises(ValueError, match=r"humans: .*s\.jsonl:5: field 'turker_annotations' holds"):
        io.read_jsonl(p, panel="expert_annotations", item="id", humans="turker_annotations")


# --------------------------------------------------------------------------- reports without humans
def test_expected_gap_test_equals_scipy():
    rng = np.random.default_rng(2)
    t = pd.DataFrame({"role": "system", "system": np.repeat(["a", "b", "c", "d"], 3),
                      "task": "t", "metric": "accuracy", "stratum": ["0.60", "0.80", "1.00"] * 4,
                      "expected": [0.6, 0.8, 1.0] * 4, "score": rng.uniform(0.4, 0.9, 12),
                      "small_bin": False})
    r = expected_gap_test(t).table.set_index("stratum")
    for s in ("0.60", "0.80", "1.00"):
        g = t[t.stratum == s]
        assert r.loc[s, "p"] == pytest.approx(stats.ttest_rel(g.expected, g.score).pvalue)
        assert r.loc[s, "n"] == 4
    g = t
    assert r.loc["pooled", "p"] == pytest.approx(stats.ttest_1samp(g.expected - g.score, 0).pvalue)
    assert "not independent" in r.loc["0.60", "note"]


def test_report_without_humans_names_only_what_was_computed(tmp_path):
    from labelvar import plots, report

    df = io.synthetic_panel(300, seed=3)
    r = stratify(df[[c for c in df if c.startswith("gt")]], df[["strong", "weak", "coin"]],
                 metrics=["accuracy"], intervals=Intervals(n_resamples=0))
    fig = plots.plot_stratified_scores(r.table, "accuracy")
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert not any("H'" in x or "H:" in x for x in labels), labels
    assert "E (expected)" in labels
    assert "humans" not in fig.texts[0].get_text() + "".join(t.get_text() for t in fig.texts)
    # an ordinal-free metric without an E: no E entry
    fig = plots.plot_stratified_scores(r.table.assign(expected=np.nan), "accuracy")
    assert "E (expected)" not in [t.get_text() for t in fig.legends[0].get_texts()]
    paths = report.write_stratify_report(r, tmp_path / "rep")
    names = {p.name for p in paths}
    assert {"scores_by_bin_accuracy.png", "delta_expected_accuracy.png",
            "expected_tests.csv"} <= names
    assert not any(n.startswith("delta_accuracy") for n in names)  # no H, no H': no Δ(H−M)
    e = pd.read_csv(tmp_path / "rep" / "expected_tests.csv")
    assert set(e["stratum"]) == {"0.60", "0.80", "1.00", "all", "pooled"}


def test_sampled_system_report_section(tmp_path):
    pan = _panel(40)
    s = pd.DataFrame(np.tile([1, 1, 2, 2], (40, 1)), index=pan.index)
    td = io.TaskData(pan, pd.DataFrame(index=pan.index), samples={"llm": s})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = stratify({"t": td}, metrics=["accuracy"], intervals=Intervals(n_resamples=0))
    from labelvar.report._writers import stratify_markdown

    md = stratify_markdown(r)
    assert "t: llm: 4 sampled answers per item" in md
    assert "ties, 40 items: the label sampled first among the tied" in md
    assert set(r.table.loc[r.table.system == "llm", "metric"]) == {
        "accuracy", "self_agreement", "sample_accuracy"}
    assert (r.table.loc[r.table.metric == "self_agreement", "score"] == 0.5).all()


# --------------------------------------------------------------------------- recode (issue 31)
def test_parse_answer_reads_the_number_whole_or_reports_it_missing():
    # "4/5" is no one number (read as 4 before: a part of "1/2" read as 1; issue 31)
    assert [parse_answer(x) for x in ["1e3", " 2.5e1 points", "4/5", "4.", "4abc", "4.5.6",
                                      "1e999", float("inf"), float("nan"), "-0", "1,000",
                                      "4,5", "4, fluent"]] \
        == [1000, 25, None, 4, None, None, None, None, None, 0, None, None, 4]


def test_recode_applies_to_every_sample_before_the_modal_answer_and_the_scores():
    """A judge rating 1-3 recoded onto the panel's 1-5: modal answer, shares, self-agreement
    and sample accuracy all on the recoded scale, by hand; an answer 0 (outside the panel's
    labels) the map sends to 1 is accepted."""
    pan = _panel(120, labels=(1, 3, 5), seed=3)
    rng = np.random.default_rng(7)
    raw = rng.choice([0, 1, 2, 3], size=(120, 9), p=[0.05, 0.35, 0.3, 0.3])
    samples = pd.DataFrame(raw, index=pan.index).astype(object)
    table = {0: 1, 1: 1, 2: 3, 3: 5}
    td = io.TaskData(pan, pd.DataFrame(index=pan.index), samples={"llm": samples})
    r = stratify({"flu": td}, truth=Truth(tie_rule="drop"), intervals=Intervals(n_resamples=0), bins=None,
                 metrics=["accuracy", "total_variation"],
                 recode="llm:" + ",".join(f"{a}={b}" for a, b in table.items()))
    t = r.table
    votes = pan.to_numpy()
    new = np.vectorize(table.get)(raw)
    labels = [1, 3, 5]
    share = np.stack([(new == v).mean(axis=1) for v in labels], axis=1)
    soft = np.stack([(votes == v).mean(axis=1) for v in labels], axis=1)
    keep, maj = [], []
    for row in votes.tolist():
        c = Counter(row).most_common()
        keep.append(not (len(c) > 1 and c[0][1] == c[1][1]))
        maj.append(c[0][0])
    keep, maj = np.array(keep), np.array(maj)
    mode = np.array([Counter(x).most_common(1)[0][0] for x in new.tolist()])
    hit = share[np.arange(120), np.searchsorted(labels, maj)]

    def get(metric):
        q = t[(t.system == "llm") & (t.stratum == "all") & (t.metric == metric)]
        assert len(q) == 1
        return float(q.iloc[0]["score"])

    assert get("accuracy") == pytest.approx(np.mean(mode[keep] == maj[keep]))
    assert get("self_agreement") == pytest.approx(share[keep].max(axis=1).mean())
    assert get("sample_accuracy") == pytest.approx(hit[keep].mean())
    assert get("total_variation") == pytest.approx(
        0.5 * np.abs(share[keep] - soft[keep]).sum(axis=1).mean())


def test_recoded_sampled_and_labelled_system_of_one_name_refused():
    pan = _panel(10)
    s = pd.DataFrame([[1, 2]] * 10, index=pan.index)
    data = {"a": io.TaskData(pan, pd.DataFrame(index=pan.index), samples={"m": s}),
            "b": io.TaskData(pan, pd.DataFrame({"m": [1] * 10}, index=pan.index))}
    with pytest.raises(ValueError, match="recode: 'm' gives sampled answers in one task"):
        stratify(data, intervals=Intervals(n_resamples=0), recode="m:1=2", truth=Truth(tie_rule="lowest"))


def test_a_system_name_given_twice_is_refused(tmp_path):
    pan = _panel(4)
    p = tmp_path / "p.jsonl"
    p.write_text("".join(json.dumps({"id": i, "pred": 1}) + "\n" for i in pan.index))
    base = {"t": io.TaskData(pan, pd.DataFrame({"m": [2] * 4}, index=pan.index))}
    with pytest.raises(ValueError, match="predictions 'm': task 't' already has a system 'm'"):
        io.attach_predictions(base, "m", p, item="id", label="pred")
    once = io.attach_predictions(base, "n", p, item="id", label="pred")
    with pytest.raises(ValueError, match="predictions 'n': task 't' already has a system 'n'"):
        io.attach_predictions(once, "n", p, item="id", label="pred")


def test_predictions_flag_with_one_name_twice_is_refused(tmp_path, capsys):
    from labelvar.cli import main

    pan = _panel(6)
    p = tmp_path / "panel.csv"
    pan.reset_index().rename(columns={"item": "id"}).to_csv(p, index=False)
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    for f, v in ((a, 1), (b, 5)):
        pd.DataFrame({"id": pan.index, "pred": v}).to_csv(f, index=False)
    code = main(["stratify", str(p), "--panel", "e*", "--item", "id", "--predictions",
                 f"m={a}", "--predictions", f"m={b}", "--n-resamples", "0"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "--predictions: 'm' is given twice" in err and "\n" not in err


def test_a_sampled_answer_outside_the_labels_names_the_recode():
    pan = _panel(6, labels=(1, 2, 3))
    s = pd.DataFrame([[1, 2, 9]] * 6, index=pan.index)
    td = io.TaskData(pan, pd.DataFrame(index=pan.index), samples={"judge": s})
    with pytest.raises(ValueError, match=r"has the answer 9, outside the label set \[1, 2, 3\]; "
                                         r"map it onto them \(recode='judge:9=1,\.\.\.'\)"):
        stratify({"t": td}, intervals=Intervals(n_resamples=0), truth=Truth(tie_rule="lowest"))
    r = stratify({"t": td}, intervals=Intervals(n_resamples=0), truth=Truth(tie_rule="lowest"),
                 recode="judge:9=3", metrics=["accuracy"])
    row = r.table[(r.table.system == "judge") & (r.table.metric == "self_agreement")]
    assert set(row["score"].round(6)) == {round(1 / 3, 6)}
