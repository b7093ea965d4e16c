"""Small evaluation logs in their projects' real formats, written for the tests.

Written from the documented schemas (no log of either project is copied):

- Inspect (inspect_ai, log schema version 2, the ``EvalLog`` of ``inspect_ai.log``):
  the JSON log, and the ``.eval`` zip (``_journal/start.json``, ``header.json``,
  ``samples/<id>_epoch_<n>.json``, ``summaries.json``, ``reductions.json``);
- lm-evaluation-harness v0.4 ``--log_samples``: ``samples_<task>_<date>.jsonl``,
  one line per document (``doc_id``, ``doc``, ``target``, ``arguments``, ``resps``,
  ``filtered_resps``, ``filter``, ``metrics``, the hashes, one field per metric).
"""

from __future__ import annotations

import json
import zipfile

#: item -> the answers of epochs 1, 2, 3 (Inspect) and the target
INSPECT_ANSWERS = {"q01": ["yes", "yes", "no"], "q02": ["no", "no", "no"],
                   "q03": ["yes", "no", "no"], "q04": ["no", "yes", "yes"],
                   "q05": ["yes", "yes", "yes"], "q06": ["no", "yes", "no"]}
INSPECT_TARGET = {"q01": "yes", "q02": "no", "q03": "no", "q04": "yes", "q05": "no",
                  "q06": "no"}
MODEL = "openai/gpt-4o-mini"


def _sample(item: str, epoch: int, answer: str) -> dict:
    target = INSPECT_TARGET[item]
    text = f"ANSWER: {answer}"
    return {
        "id": item, "epoch": epoch, "input": f"Is claim {item} supported?", "target": target,
        "messages": [{"role": "user", "content": f"Is claim {item} supported?",
                      "source": "input"},
                     {"role": "assistant", "content": text, "source": "generate",
                      "model": MODEL}],
        "output": {"model": MODEL, "choices": [{"message": {
            "role": "assistant", "content": [{"type": "text", "text": text}],
            "source": "generate", "model": MODEL}, "stop_reason": "stop"}],
            "completion": text, "usage": {"input_tokens": 31, "output_tokens": 4,
                                          "total_tokens": 35}, "time": 0.41},
        "scores": {"match": {"value": "C" if answer == target else "I", "answer": answer,
                             "explanation": text, "metadata": {}, "history": []}},
        "metadata": {"source": "demo"}, "store": {}, "events": [], "model_usage": {},
        "total_time": 0.52, "working_time": 0.41, "uuid": f"u-{item}-{epoch}",
        "error_retries": [], "attachments": {}, "limit": None,
    }


def inspect_header(version: int = 2) -> dict:
    n = len(INSPECT_ANSWERS)
    right = sum(a == INSPECT_TARGET[i] for i, v in INSPECT_ANSWERS.items() for a in v)
    return {
        "version": version, "status": "success",
        "eval": {"eval_id": "E1", "run_id": "R1", "created": "2025-05-01T10:00:00+00:00",
                 "task": "claims", "task_id": "T1", "task_version": 0,
                 "task_file": "claims.py", "task_attribs": {}, "task_args": {},
                 "dataset": {"name": "claims", "location": "claims.jsonl", "samples": n,
                             "sample_ids": list(INSPECT_ANSWERS), "shuffled": False},
                 "model": MODEL, "model_generate_config": {}, "model_args": {},
                 "config": {"epochs": 3, "epochs_reducer": ["mean"]},
                 "revision": None, "packages": {"inspect_ai": "0.3.90"}, "metadata": None},
        "plan": {"name": "plan", "steps": [{"solver": "generate", "params": {}}],
                 "config": {}},
        "results": {"total_samples": 3 * n, "completed_samples": 3 * n,
                    "scores": [{"name": "match", "scorer": "match", "params": {},
                                "metrics": {"accuracy": {"name": "accuracy",
                                                         "value": right / (3 * n),
                                                         "params": {}}}}]},
        "stats": {"started_at": "2025-05-01T10:00:00+00:00",
                  "completed_at": "2025-05-01T10:01:00+00:00", "model_usage": {}},
    }


def samples() -> list[dict]:
    return [_sample(i, e, a) for e in (1, 2, 3) for i, v in INSPECT_ANSWERS.items()
            for a in [v[e - 1]]]


def write_inspect_json(path, version: int = 2):
    log = {**inspect_header(version), "samples": samples(),
           "reductions": [{"scorer": "match", "reducer": "mean", "samples": []}]}
    path.write_text(json.dumps(log, indent=2))
    return path


def write_inspect_eval(path, finished: bool = True):
    head = inspect_header()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("_journal/start.json", json.dumps(
            {"version": 2, "eval": head["eval"], "plan": head["plan"]}))
        for s in samples():
            z.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
        if finished:
            z.writestr("summaries.json", json.dumps(
                [{"id": s["id"], "epoch": s["epoch"], "scores": s["scores"]}
                 for s in samples()]))
            z.writestr("reductions.json", json.dumps([]))
            z.writestr("header.json", json.dumps(head))
    return path


#: doc_id -> (target, the filtered response, exact_match)
LMEVAL_GEN = {0: ("yes", "yes"), 1: ("no", "yes"), 2: ("no", "no"), 3: ("yes", "yes"),
              4: ("no", "no"), 5: ("no", "yes")}
#: doc_id -> (gold choice index, loglikelihood per choice)
LMEVAL_MC = {0: (0, [-0.7, -2.3]), 1: (1, [-0.4, -1.9]), 2: (1, [-3.1, -0.2]),
             3: (0, [-1.2, -1.1])}


def write_lmeval_generate(path):
    with open(path, "w") as fh:
        for d, (target, resp) in LMEVAL_GEN.items():
            rec = {"doc_id": d, "doc": {"claim": f"claim {d}", "label": target},
                   "target": target,
                   "arguments": {"gen_args_0": {"arg_0": f"Claim {d}. Supported?",
                                                "arg_1": {"until": ["\n"]}}},
                   "resps": [[f" {resp}"]], "filtered_resps": [resp], "filter": "strip",
                   "metrics": ["exact_match"], "doc_hash": f"h{d}", "prompt_hash": f"p{d}",
                   "target_hash": f"t{d}", "exact_match": float(resp == target)}
            fh.write(json.dumps(rec) + "\n")
    return path


def write_lmeval_mc(path, as_text: bool = True):
    with open(path, "w") as fh:
        for d, (gold, lls) in LMEVAL_MC.items():
            pairs = [[str(x), str(x == max(lls))] if as_text else [x, x == max(lls)]
                     for x in lls]
            rec = {"doc_id": d, "doc": {"q": f"question {d}", "gold": gold}, "target": gold,
                   "arguments": {f"gen_args_{k}": {"arg_0": f"Q{d}", "arg_1": f" {c}"}
                                 for k, c in enumerate(("yes", "no"))},
                   "resps": [[p] for p in pairs], "filtered_resps": pairs, "filter": "none",
                   "metrics": ["acc", "acc_norm"], "doc_hash": f"h{d}",
                   "prompt_hash": f"p{d}", "target_hash": f"t{d}",
                   "acc": float(lls.index(max(lls)) == gold), "acc_norm": 1.0}
            fh.write(json.dumps(rec) + "\n")
    return path


def write_lmeval_repeats(path):
    """Three repeats per document, not reduced by a filter (a list per document)."""
    with open(path, "w") as fh:
        for d, answers in ((0, ["yes", "no", "yes"]), (1, ["no", "yes", "no"])):
            rec = {"doc_id": d, "target": "yes", "resps": [answers],
                   "filtered_resps": [answers], "filter": "none",
                   "metrics": ["exact_match"], "exact_match": 0.0}
            fh.write(json.dumps(rec) + "\n")
    return path
