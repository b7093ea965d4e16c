"""``labelvar.io.read_eval_log``: Inspect (.json, .eval) and lm-eval --log_samples, joined."""

from __future__ import annotations

import json
import zipfile

import pandas as pd
import pytest
from tests import eval_log_files as logs

from labelvar import io
from labelvar.cli._main import main

#: three humans' votes per item, in the logs' item order (majority: yes no no yes no no)
VOTES = ["yyn", "nnn", "nny", "yyy", "nnn", "nyn"]


def _panel(tmp_path, items=None):
    """A wide panel of three humans on the logs' items (ids as text)."""
    items = items or list(logs.INSPECT_TARGET)
    rows = [{"id": i, **{f"h{k}": "yes" if c == "y" else "no"
                         for k, c in enumerate(VOTES[n % 6], 1)}} for n, i in enumerate(items)]
    p = tmp_path / "panel.csv"
    pd.DataFrame(rows).to_csv(p, index=False)
    return p


def test_inspect_json_rows_are_the_logs_samples(tmp_path):
    p = logs.write_inspect_json(tmp_path / "claims.json")
    df = io.read_eval_log(p)
    assert list(df.columns) == ["item", "system", "answer", "score", "sample"]
    assert len(df) == 18 and set(df["system"]) == {logs.MODEL}
    raw = json.loads(p.read_text())["samples"]
    got = df.set_index(["item", "sample"])
    for s in raw:  # each row against the log's own record
        r = got.loc[(s["id"], s["epoch"])]
        assert r["answer"] == s["scores"]["match"]["answer"]
        assert r["score"] == {"C": 1.0, "I": 0.0}[s["scores"]["match"]["value"]]
    assert df.attrs["log"]["version"] == 2


def test_inspect_eval_zip_reads_as_the_json_log(tmp_path):
    j = io.read_eval_log(logs.write_inspect_json(tmp_path / "a.json"))
    for finished in (True, False):  # header.json, or only the journal's start.json
        e = io.read_eval_log(logs.write_inspect_eval(tmp_path / f"a{finished}.eval", finished))
        key = ["item", "sample"]
        pd.testing.assert_frame_equal(e.sort_values(key).reset_index(drop=True),
                                      j.sort_values(key).reset_index(drop=True))


def test_inspect_answer_falls_back_to_the_completion(tmp_path):
    log = {**logs.inspect_header(), "samples": [
        {"id": 1, "epoch": 1, "output": {"completion": "B", "choices": []}},
        {"id": 2, "epoch": 1, "output": {"choices": [{"message": {
            "role": "assistant", "content": [{"type": "text", "text": "A"}]}}]},
         "scores": {"judge": {"value": 0.75}}}]}
    p = tmp_path / "x.json"
    p.write_text(json.dumps(log))
    df = io.read_eval_log(p)
    assert df["answer"].tolist() == ["B", "A"] and "sample" not in df.columns
    assert df["score"].isna().tolist() == [True, False] and df["score"].iloc[1] == 0.75


def test_lmeval_generate_until(tmp_path):
    p = logs.write_lmeval_generate(tmp_path / "samples_claims_2025-05-01T10-00-00.123.jsonl")
    df = io.read_eval_log(p)
    assert list(df.columns) == ["item", "system", "answer", "score"]
    assert df["system"].unique().tolist() == ["claims"]
    assert df["item"].tolist() == [str(d) for d in logs.LMEVAL_GEN]
    assert df["answer"].tolist() == [r for _, r in logs.LMEVAL_GEN.values()]
    assert df["score"].tolist() == [float(t == r) for t, r in logs.LMEVAL_GEN.values()]


@pytest.mark.parametrize("as_text", [True, False])
def test_lmeval_multiple_choice_is_the_argmax_choice(tmp_path, as_text):
    p = logs.write_lmeval_mc(tmp_path / "samples_mc_2025-05-01T10-00-00.jsonl", as_text)
    df = io.read_eval_log(p)
    assert df["answer"].tolist() == [0, 0, 1, 1]  # argmax of each document's loglikelihoods
    assert df["score"].tolist() == [1.0, 0.0, 1.0, 0.0]  # acc, the first metric listed


def test_lmeval_repeats_are_samples_and_their_mode_joins(tmp_path):
    p = logs.write_lmeval_repeats(tmp_path / "samples_rep_2025-05-01T10-00-00.jsonl")
    df = io.read_eval_log(p)
    assert df["sample"].tolist() == [1, 2, 3, 1, 2, 3]
    assert df["answer"].tolist() == ["yes", "no", "yes", "no", "yes", "no"]


def test_joined_as_predictions_become_sampled_answers(tmp_path):
    p = logs.write_inspect_json(tmp_path / "claims.json")
    data = io.load_tasks(_panel(tmp_path), columns=io.Columns(panel="h*", item="id"),
                         predictions=io.Predictions(files={"gpt": f"inspect:{p}"}))
    td = data["panel"]
    table = td.samples["gpt"]
    assert table.loc["q01"].tolist() == ["yes", "yes", "no"]
    from labelvar.io._samples import modal_answer
    assert modal_answer(table).tolist() == ["yes", "no", "no", "yes", "yes", "no"]


def test_stratify_takes_an_lmeval_log(tmp_path, capsys):
    p = logs.write_lmeval_generate(tmp_path / "samples_claims_2025-05-01T10-00-00.jsonl")
    panel = _panel(tmp_path, items=[str(d) for d in logs.LMEVAL_GEN])
    out = tmp_path / "rep"
    code = main(["stratify", str(panel), "--panel", "h*", "--item", "id", "--predictions",
                 f"lm=lmeval:{p}", "--metrics", "accuracy", "--n-resamples", "20", "--pos-label",
                 "yes", "--min-bin-size", "1", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    tidy = pd.read_csv(out / "stratified.csv").set_index("stratum")
    # majority yes no no yes no no; lm answers yes yes no yes no yes: 2 of 3 right in each bin
    assert tidy.loc["0.67", "score"] == pytest.approx(2 / 3)
    assert tidy.loc["1.00", "score"] == pytest.approx(2 / 3)
    assert set(tidy["system"]) == {"lm"}


def test_judge_takes_an_inspect_log(tmp_path, capsys):
    p = logs.write_inspect_eval(tmp_path / "claims.eval")
    rows = [(i, f"h{k}", lab) for i in logs.INSPECT_TARGET for k, lab in
            enumerate(["yes", "no", "yes"] if i in ("q01", "q04") else ["no", "no", "yes"])]
    votes = tmp_path / "votes.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(votes, index=False)
    code = main(["judge", str(votes), "--system", f"inspect:{p}", "--n-resamples", "0",
                 "--min-items-per-human", "2"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert f"### {logs.MODEL}:" in captured.out


# --------------------------------------------------------------------------- refusals
def _refused(capsys, argv, out):
    code = main(argv)
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    assert not out.exists() or not any(out.iterdir())
    return err


def test_truncated_inspect_log_one_line_naming_the_file(tmp_path, capsys):
    p = logs.write_inspect_json(tmp_path / "claims.json")
    p.write_text(p.read_text()[:5000])
    with pytest.raises(ValueError, match=r"claims.json: not valid JSON .*truncated"):
        io.read_eval_log(p)
    out = tmp_path / "rep"
    err = _refused(capsys, ["stratify", str(_panel(tmp_path)), "--panel", "h*", "--item", "id",
                            "--predictions", f"gpt=inspect:{p}", "--out", str(out)], out)
    assert "claims.json" in err and "truncated" in err


def test_truncated_eval_zip_and_lmeval_line(tmp_path):
    e = logs.write_inspect_eval(tmp_path / "a.eval")
    data = e.read_bytes()
    e.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"a.eval: .*(truncated|damaged)"):
        io.read_eval_log(e)
    p = logs.write_lmeval_generate(tmp_path / "samples_c_2025-05-01T10-00-00.jsonl")
    p.write_text(p.read_text()[:-40])
    with pytest.raises(ValueError, match=r"samples_c_.*jsonl:6: not valid JSON"):
        io.read_eval_log(p)


def test_unknown_version_and_not_a_log(tmp_path):
    p = logs.write_inspect_json(tmp_path / "v9.json", version=9)
    with pytest.raises(ValueError, match=r"v9.json: Inspect log schema version 9 is not one"):
        io.read_eval_log(p)
    q = tmp_path / "other.json"
    q.write_text(json.dumps({"results": {}}))
    with pytest.raises(ValueError, match=r"other.json: not an Inspect evaluation log"):
        io.read_eval_log(q)
    r = tmp_path / "samples_x_2025-01-01T00-00-00.jsonl"
    r.write_text(json.dumps({"doc_id": 0, "target": "a"}) + "\n")
    with pytest.raises(ValueError, match=r"jsonl:1: no 'filtered_resps' field"):
        io.read_eval_log(r)
    z = tmp_path / "empty.eval"
    with zipfile.ZipFile(z, "w") as f:
        f.writestr("something.json", "{}")
    with pytest.raises(ValueError, match=r"empty.eval: an Inspect .eval log has header.json"):
        io.read_eval_log(z)


def test_started_log_without_samples(tmp_path):
    p = tmp_path / "started.json"
    p.write_text(json.dumps({**logs.inspect_header(), "status": "started"}))
    with pytest.raises(ValueError, match=r"started.json: the log has no samples \(status: "
                                         r"started\)"):
        io.read_eval_log(p)


def test_join_matching_no_item(tmp_path, capsys):
    p = logs.write_inspect_json(tmp_path / "claims.json")
    panel = _panel(tmp_path, items=["a1", "a2", "a3"])
    out = tmp_path / "rep"
    err = _refused(capsys, ["stratify", str(panel), "--panel", "h*", "--item", "id",
                            "--predictions", f"gpt=inspect:{p}", "--out", str(out)], out)
    assert "claims.json" in err and "none of its 6 item ids" in err
