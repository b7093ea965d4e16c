"""The paper's LLM tables: G-Eval-format files end to end (Table 6), MNLI's human side (Table 5).

The G-Eval and SummEval files are generated here in those projects' own shapes: G-Eval's
``results/gpt4_<crit>_detailed.json`` is one JSON array of SummEval instances (``doc_id``,
``system_id``, ``source``, ``reference``, ``system_output``, ``scores``, ``prompt``) with
20 sampled ``all_responses`` strings (``" 4"``); SummEval's
``model_annotations.aligned.jsonl`` has per line ``id``, ``model_id``, ``decoded``,
``expert_annotations`` (3 objects, one key per criterion), ``turker_annotations`` (5),
``references``, ``filepath``. The expected numbers are computed below with plain
``collections.Counter``, independently of labelvar.
"""

from __future__ import annotations

import io as _io
import json
import random
import sys
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pandas as pd
import pytest
from conftest import shared_data

from labelvar.cli import main
from labelvar.evaluation._stratified import TIE_RULES

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import llm_tables  # noqa: E402

CRITERIA = ("coherence", "consistency", "fluency", "relevance")
FILES = {"coherence": "gpt4_coh_detailed.json", "consistency": "gpt4_con_detailed.json",
         "fluency": "gpt4_flu_detailed.json", "relevance": "gpt4_rel_detailed.json"}


def _write_files(root: Path, n_docs: int = 30, n_systems: int = 8, seed: int = 7):
    """G-Eval results (4 JSON arrays) and a SummEval expert file, in their own shapes."""
    rng = random.Random(seed)
    docs = [f"dm-test-{rng.getrandbits(160):040x}" for _ in range(n_docs)]
    systems = [f"M{k}" for k in rng.sample(range(24), n_systems)]
    summeval, geval = [], {c: [] for c in CRITERIA}
    for d in docs:
        for m in systems:
            quality = {c: rng.randint(1, 5) for c in CRITERIA}
            experts = [{c: quality[c] if rng.random() < 0.55 else rng.randint(1, 5)
                        for c in CRITERIA} for _ in range(3)]
            summeval.append({
                "id": d, "model_id": m, "decoded": f"summary of {d} by {m}",
                "expert_annotations": experts,
                "turker_annotations": [{c: rng.randint(1, 5) for c in CRITERIA} for _ in range(5)],
                "references": [f"reference {j}" for j in range(11)],
                "filepath": f"cnndm/dailymail/stories/{d[8:]}.story"})
            for c in CRITERIA:
                responses = []
                for _ in range(20):
                    v = quality[c] if rng.random() < 0.45 else rng.randint(1, 5)
                    responses.append(f" {v}" if rng.random() < 0.8 else str(v))
                if rng.random() < 0.1:  # temperature 2: now and then no number at all
                    responses[rng.randrange(20)] = "Coherence:"
                geval[c].append({
                    "doc_id": d, "system_id": m, "source": f"article {d}",
                    "reference": "reference 0", "system_output": f"summary of {d} by {m}",
                    "scores": {**{k: sum(e[k] for e in experts) / 3 for k in CRITERIA},
                               "overall": 3.0},
                    "prompt": "You will be given one summary ...", "all_responses": responses})
    expert_file = root / "model_annotations.aligned.jsonl"
    expert_file.write_text("".join(json.dumps(r) + "\n" for r in summeval))
    for c, rows in geval.items():
        (root / FILES[c]).write_text(json.dumps(rows, indent=4))
    return expert_file, summeval, geval


def _by_hand(summeval, geval_rows, criterion, tie_rule):
    """S, score and ΔEM per bin with plain Counters (the paper's computation)."""
    experts = {(r["id"], r["model_id"]): [e[criterion] for e in r["expert_annotations"]]
               for r in summeval}
    bins: dict = {}
    for g in geval_rows:
        votes = experts[(g["doc_id"], g["system_id"])]
        c = Counter(votes).most_common()
        if tie_rule == "drop" and len(c) > 1 and c[0][1] == c[1][1]:
            continue
        majority, p_d = c[0][0], c[0][1] / len(votes)  # most_common: first vote among ties
        answers = [int(a.strip()) for a in g["all_responses"] if a.strip().isdigit()]
        mode = Counter(answers).most_common(1)[0][0]  # first sampled among ties
        bins.setdefault(p_d, []).append(mode == majority)
    return {f"{p:.2f}": (len(v), sum(v) / len(v), p - sum(v) / len(v))
            for p, v in sorted(bins.items())}  # ΔEM = E(A) - score, E(A) = p_d exactly


def _run(*argv):
    out, err = _io.StringIO(), _io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def _tie_rules():
    return [pytest.param("first_vote", marks=pytest.mark.skipif(
        "first_vote" not in TIE_RULES, reason="the first-vote tie rule is built on the stratify "
        "branch; not merged here yet")), "drop"]


@pytest.mark.parametrize("tie_rule", _tie_rules())
def test_geval_files_one_command_per_criterion(tmp_path, tie_rule):
    expert_file, summeval, geval = _write_files(tmp_path)
    for crit in CRITERIA:
        args = llm_tables.geval_command(crit, tmp_path, expert_file, tie_rule)
        code, out, err = _run(*args, "--format", "csv")
        assert code == 0, err
        assert "answers start with no number and are missing" in err  # said, not dropped unseen
        t = pd.read_csv(_io.StringIO(out), dtype={"stratum": str})
        t = t[(t.system == "G-Eval") & (t.metric == "accuracy") & (t.stratum != "all")]
        want = _by_hand(summeval, geval[crit], crit, tie_rule)
        assert list(t.stratum) == list(want), crit
        if tie_rule == "first_vote":
            assert "0.33" in want and want["0.33"][0] > 10  # the 3-way splits are scored
        for r in t.itertuples():
            s, score, delta = want[r.stratum]
            assert r.S == s
            assert r.score == pytest.approx(score, abs=1e-12)
            assert r.delta_expected == pytest.approx(delta, abs=1e-12)


@pytest.mark.parametrize("tie_rule", _tie_rules())
def test_table6_script_equals_the_commands(tmp_path, tie_rule):
    expert_file, summeval, geval = _write_files(tmp_path, n_docs=12, n_systems=5, seed=11)
    t6 = llm_tables.table6(tmp_path, expert_file, tie_rule, criteria=("coherence", "fluency"))
    for crit in ("coherence", "fluency"):
        want = _by_hand(summeval, geval[crit], crit, tie_rule)
        got = t6[(t6.criterion == crit) & (t6.p_d != "all")].set_index("p_d")
        assert list(got.index) == list(want)
        for p_d, (s, score, delta) in want.items():
            assert got.loc[p_d, "S"] == s
            assert got.loc[p_d, "score"] == pytest.approx(score)
            assert got.loc[p_d, "ΔEM"] == pytest.approx(delta)


def test_table6_without_files_prints_the_download_steps(capsys):
    assert llm_tables.main(["--mnli", "/nonexistent"]) == 0
    out = capsys.readouterr().out
    assert "Table 5 skipped" in out and "Table 6 skipped" in out
    assert "nlpyang/geval" in out and "model_annotations.aligned.jsonl" in out


def test_table5_human_side_matches_the_paper_s():
    mnli = shared_data("mnli")
    t5 = llm_tables.table5(mnli)
    assert llm_tables.table5_check(t5) == []
    for name, s in llm_tables.PAPER_S.items():
        g = t5[t5.dataset == f"MNLI {name}"]
        assert tuple(g.S) == s
        assert list(g.p_d) == ["0.60", "0.80", "1.00"]
        assert g["E(A)"].tolist() == pytest.approx([0.6, 0.8, 1.0])
        # H' (a panel vote drawn at random) is E in expectation: within 4 sd of the draws
        assert ((g["H'"] - g["E(A)"]).abs() <= 4 * g["H' sd"] + 1e-12).all()
    assert t5.groupby("dataset")["left out (tied)"].first().to_dict() == {
        "MNLI matched": 185, "MNLI mismatched": 168}
