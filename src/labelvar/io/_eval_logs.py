r"""Evaluation logs as predictions: UK AISI Inspect logs and lm-evaluation-harness samples.

:func:`read_eval_log` turns one log into a predictions table, one row per answer:
``item`` (the log's sample id as text), ``system``, ``answer``, and where the log has
them ``score`` (the first scorer's or metric's value as a number) and ``sample`` (the
epoch or repeat, from 1). Several rows per item are sampled answers: joined to a panel
(:func:`labelvar.io.load_tasks` with a predictions path ``inspect:PATH`` or
``lmeval:PATH``) they become :attr:`TaskData.samples`, scored by their modal answer
(:func:`labelvar.modal_answer`, ties: the first sampled).

Formats read (from the projects' documented schemas; no code of theirs is used):

- **Inspect JSON log** (``inspect_ai.log.EvalLog`` written as ``.json``), log schema
  versions 1 and 2 (``"version"``): ``eval.model`` is the system, each of ``samples``
  one answer: ``id``, ``epoch``, the answer the first scorer extracted
  (``scores.<name>.answer``; version 1: ``score.answer``), else the model's completion
  (``output.completion``, else the first choice's message text); the score is that
  scorer's ``value`` (``"C"``/``"I"``/``"P"``/``"N"`` as 1/0/0.5/0, numbers as they are).
- **Inspect binary log** (``.eval``): a zip with ``header.json`` (or, for a run that did
  not finish, ``_journal/start.json``) holding ``version`` and ``eval``, and one
  ``samples/<id>_epoch_<epoch>.json`` per sample (the same sample records): read with
  the standard library's :mod:`zipfile`, ``inspect_ai`` is not needed.
- **lm-evaluation-harness** ``--log_samples`` files (``samples_<task>_<date>.jsonl``,
  v0.4): one line per document and filter with ``doc_id``, ``target``, ``resps``,
  ``filtered_resps``, ``filter`` and one field per metric (named in ``metrics`` where
  the line has it). The answer is the filtered response: a text answer as it is; a list
  of texts (repeats not reduced by a filter) as sampled answers; loglikelihood pairs
  ``[ll, is_greedy]`` (a multiple-choice task) as the index of the choice with the
  largest loglikelihood (``acc``'s choice, not ``acc_norm``'s). The system is the task
  named in the file name (``samples_<task>_<date>``), with ``[filter]`` when the file
  holds several filters.

A malformed or truncated log, an unknown schema version, or a log without samples is
refused with one line naming the file.

Examples
--------
>>> import json, os, tempfile
>>> p = os.path.join(tempfile.mkdtemp(), "samples_arc_2024-06-01T10-00-00.jsonl")
>>> with open(p, "w") as fh:
...     for d, t, r, acc in ((0, 1, "B", 1.0), (1, 0, "B", 0.0)):
...         print(json.dumps({"doc_id": d, "target": t, "resps": [[r]],
...                           "filtered_resps": [r], "filter": "none",
...                           "metrics": ["exact_match"], "exact_match": acc}), file=fh)
>>> read_eval_log(p).to_dict("list")
{'item': ['0', '1'], 'system': ['arc', 'arc'], 'answer': ['B', 'B'], 'score': [1.0, 0.0]}
"""

from __future__ import annotations

import json
import math
import os
import re
import zipfile
from pathlib import Path

import pandas as pd

from labelvar.io._reading import check_file, read_jsonl_records

__all__ = ["EVAL_LOG_FORMATS", "INSPECT_LOG_VERSIONS", "eval_log_spec", "read_eval_log"]

#: the eval-log formats :func:`read_eval_log` reads (``inspect``: .json and .eval)
EVAL_LOG_FORMATS = ("auto", "inspect", "lmeval")
#: Inspect log schema versions read
INSPECT_LOG_VERSIONS = (1, 2)
#: Inspect's score values as numbers (CORRECT, INCORRECT, PARTIAL, NOANSWER)
_INSPECT_VALUES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
#: lm-eval sample fields that are no metric
_LMEVAL_FIELDS = {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps",
                  "filter", "metrics", "doc_hash", "prompt_hash", "target_hash", "task_name"}
_SPEC = re.compile(r"^(inspect|lmeval):(.+)$", re.S)


def eval_log_spec(path) -> tuple[str, Path] | None:
    """``("inspect", path)`` for ``"inspect:PATH"`` (``lmeval:PATH`` alike), else None.

    Examples
    --------
    >>> eval_log_spec("inspect:logs/run.eval")
    ('inspect', PosixPath('logs/run.eval'))
    >>> eval_log_spec("preds.csv") is None
    True
    """
    m = _SPEC.match(str(path))
    return (m.group(1), Path(m.group(2))) if m else None


def read_eval_log(path, *, format: str = "auto", system: str | None = None) -> pd.DataFrame:
    """One evaluation log as a predictions table (one row per answer).

    Parameters
    ----------
    path : str or Path
        An Inspect log (``.json``, ``.eval``) or an lm-evaluation-harness
        ``--log_samples`` file (``.jsonl``); ``"inspect:PATH"``/``"lmeval:PATH"`` name
        the format.
    format : {"auto", "inspect", "lmeval"}
        ``"auto"``: from the prefix, else ``.eval``/``.json`` Inspect, ``.jsonl`` lm-eval.
    system : str, optional
        The system's name (default: Inspect's ``eval.model``, lm-eval's task).

    Returns
    -------
    pandas.DataFrame
        Columns ``item`` (text), ``system``, ``answer``, then ``score`` where the log
        scores its answers and ``sample`` (from 1) where an item has several answers;
        ``attrs["log"]`` says what was read (format, version, file).

    Raises
    ------
    ValueError
        One line naming the file: not valid JSON (a truncated log), no samples, an
        unknown schema version, a sample without an id, an answer of a shape not read.

    Examples
    --------
    >>> import json, os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "log.json")
    >>> s = [{"id": 7, "epoch": e, "scores": {"match": {"value": v, "answer": a}}}
    ...      for e, v, a in ((1, "C", "yes"), (2, "I", "no"))]
    >>> _ = open(p, "w").write(json.dumps({"version": 2, "status": "success",
    ...                                   "eval": {"model": "openai/gpt-4o"}, "samples": s}))
    >>> log = read_eval_log(p)
    >>> log.columns.tolist(), log["answer"].tolist(), log["score"].tolist(), log["sample"].tolist()
    (['item', 'system', 'answer', 'score', 'sample'], ['yes', 'no'], [1.0, 0.0], [1, 2])
    """
    if not isinstance(format, str) or format not in EVAL_LOG_FORMATS:
        raise ValueError(f"format must be one of {', '.join(EVAL_LOG_FORMATS)}; got {format!r}")
    if system is not None and (not isinstance(system, str) or not system.strip()):
        raise ValueError(f"system must be a non-empty name (text) or None, got {system!r}")
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"path must be a file path (str or Path), got {type(path).__name__}")
    spec = eval_log_spec(path)
    if spec is not None:
        if format != "auto" and format != spec[0]:
            raise ValueError(f"format={format!r} conflicts with the prefix {spec[0]}: of "
                             f"{str(path)!r}; give one of the two")
        format, path = spec[0], spec[1]
    path = Path(path)
    try:
        check_file(path)
    except FileNotFoundError as exc:
        raise ValueError(str(exc)) from None
    if format == "auto":
        suffix = path.suffix.lower()
        if suffix not in (".json", ".eval", ".jsonl"):
            raise ValueError(f"{path}: cannot tell the log's format from its extension "
                             f"{suffix or '(none)'!r}; an Inspect log is .json or .eval, an "
                             "lm-evaluation-harness samples file .jsonl (or give "
                             "format='inspect'/'lmeval', or inspect:PATH/lmeval:PATH)")
        format = "lmeval" if suffix == ".jsonl" else "inspect"
    if format == "inspect":
        rows, info = _inspect(path)
    else:
        rows, info = _lmeval(path)
    if not rows:
        raise ValueError(f"{path}: the log has no samples (status: {info.get('status', '?')})")
    _check_repeats(rows, path, info["format"])
    df = pd.DataFrame(rows)
    if system is not None:
        df["system"] = system
    if df["score"].isna().all():
        df = df.drop(columns="score")
    if df.groupby(["system", "item"], sort=False).size().max() > 1:
        df["sample"] = df["sample"].astype("int64")
    else:
        df = df.drop(columns="sample")
    df.attrs["log"] = {**info, "file": str(path)}
    return df.reset_index(drop=True)


def _check_repeats(rows, path: Path, fmt: str) -> None:
    """Refuse one sample id given twice for one system and epoch (or lm-eval filter)."""
    seen = set()
    for r in rows:
        key = (r["system"], r["item"], r["sample"])
        if key in seen:
            what = (f"epoch {r['sample']}" if fmt == "inspect" else
                    f"the filter of system {r['system']!r}")
            raise ValueError(f"{path}: sample id {r['item']!r} is given twice for {what}; "
                             "each sample id is one item, once per epoch (a log appended to, "
                             "or two runs in one file?)")
        seen.add(key)


def _sample_id(x, path: Path, where: str, field: str) -> str:
    """A sample id as text: text or a whole number (``1.0`` is ``'1'``), else refused."""
    if isinstance(x, float) and math.isfinite(x) and x.is_integer():
        x = int(x)
    if isinstance(x, bool) or not isinstance(x, (str, int)) or (isinstance(x, str)
                                                                and not x.strip()):
        raise ValueError(f"{path}: {where} has the {field} {x!r}; a sample id is text or a "
                         "whole number")
    return str(x)


def _answer(a, path: Path, item: str):
    """An answer as read: text, a finite number, or None (no answer); else refused."""
    if a is None or isinstance(a, str):
        return a
    if isinstance(a, (int, float)) and not isinstance(a, bool) and math.isfinite(a):
        return a
    raise ValueError(f"{path}: sample {item!r} has the answer {a!r}; an answer labelvar reads "
                     "is text or a finite number")


def _number(x) -> float:
    """A score value as a number (NaN where it is none: a dict, a text)."""
    if isinstance(x, bool):
        return float(x)
    if isinstance(x, (int, float)):
        return float(x) if math.isfinite(x) else math.nan
    if isinstance(x, str) and x in _INSPECT_VALUES:
        return _INSPECT_VALUES[x]
    return math.nan


# --------------------------------------------------------------------------- Inspect
def _json(path: Path, text: str, where: str = ""):
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        hint = ("; several JSON documents: an lm-evaluation-harness samples file? (read it "
                "as lmeval:PATH)") if exc.msg == "Extra data" else ""
        raise ValueError(f"{path}{where}: not valid JSON at line {exc.lineno}, column "
                         f"{exc.colno} ({exc.msg}); a truncated or malformed log{hint}") from None


def _inspect(path: Path) -> tuple[list, dict]:
    """The rows of an Inspect log (.json, or .eval read as a zip)."""
    if zipfile.is_zipfile(path):
        try:
            with zipfile.ZipFile(path) as z:
                names = z.namelist()
                head_name = next((n for n in ("header.json", "_journal/start.json")
                                  if n in names), None)
                if head_name is None:
                    raise ValueError(f"{path}: an Inspect .eval log has header.json or "
                                     "_journal/start.json; this zip has neither")
                head = _json(path, z.read(head_name).decode("utf-8"), f" ({head_name})")
                samples = [_json(path, z.read(n).decode("utf-8"), f" ({n})")
                           for n in names if n.startswith("samples/") and n.endswith(".json")]
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise ValueError(f"{path}: a truncated or damaged .eval (zip) log ({exc})") from None
    else:
        if path.suffix.lower() == ".eval":
            raise ValueError(f"{path}: not a zip archive; an Inspect .eval log is one (a "
                             "truncated or damaged file?)")
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"{path}: not UTF-8 text ({exc.reason})") from None
        head = _json(path, text)
        samples = head.get("samples") if isinstance(head, dict) else None
    if not isinstance(head, dict) or "eval" not in head or "version" not in head:
        raise ValueError(f"{path}: not an Inspect evaluation log (no 'version' and 'eval' "
                         "fields at the top)")
    version = head["version"]
    if isinstance(version, bool) or version not in INSPECT_LOG_VERSIONS:
        raise ValueError(f"{path}: Inspect log schema version {version!r} is not one labelvar "
                         f"reads ({', '.join(map(str, INSPECT_LOG_VERSIONS))})")
    if not isinstance(head["eval"], dict):
        raise ValueError(f"{path}: the log's 'eval' field must be an object (with 'model'), got "
                         f"{type(head['eval']).__name__}")
    ev = head["eval"]
    model = str(ev.get("model") or "inspect")
    info = {"format": "inspect", "version": version, "status": head.get("status"),
            "task": ev.get("task"), "model": model}
    if samples is None:
        return [], info
    if not isinstance(samples, list):
        raise ValueError(f"{path}: 'samples' must be a list of sample records")
    rows = []
    for i, s in enumerate(samples, 1):
        if not isinstance(s, dict) or s.get("id") is None:
            raise ValueError(f"{path}: sample {i} has no 'id'")
        item = _sample_id(s["id"], path, f"sample {i}", "id")
        epoch = s.get("epoch", 1)
        epoch = 1 if epoch is None else epoch
        if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
            raise ValueError(f"{path}: sample {item!r} has the epoch {epoch!r}; an epoch is a "
                             "whole number from 1")
        score = _inspect_score(s)
        answer = score.get("answer") if score else None
        if answer is None:
            answer = _completion(s.get("output"))
        rows.append({"item": item, "system": model, "answer": _answer(answer, path, item),
                     "score": _number(score.get("value")) if score else math.nan,
                     "sample": epoch})
    rows.sort(key=lambda r: r["sample"])  # zip members need not be in epoch order
    return rows, info


def _inspect_score(s: dict) -> dict | None:
    """The first scorer's record of a sample (version 2 ``scores``, version 1 ``score``)."""
    scores = s.get("scores")
    if isinstance(scores, dict) and scores:
        first = next(iter(scores.values()))
        return first if isinstance(first, dict) else None
    score = s.get("score")
    return score if isinstance(score, dict) else None


def _completion(output) -> str | None:
    """The model's answer text: ``output.completion``, else the first choice's text."""
    if not isinstance(output, dict):
        return None
    if isinstance(output.get("completion"), str) and output["completion"]:
        return output["completion"]
    choices = output.get("choices") or []
    msg = choices[0].get("message") if choices and isinstance(choices[0], dict) else None
    content = msg.get("content") if isinstance(msg, dict) else None
    if isinstance(content, list):
        content = "".join(c.get("text", "") for c in content
                          if isinstance(c, dict) and c.get("type") == "text")
    return content if isinstance(content, str) and content else None


# --------------------------------------------------------------------------- lm-eval
def _float(x) -> float | None:
    """A loglikelihood, a number or its text; None if it is neither."""
    if isinstance(x, bool):
        return None
    if isinstance(x, (int, float)):
        return float(x)
    try:
        return float(x) if isinstance(x, str) else None
    except ValueError:
        return None


def _lmeval(path: Path) -> tuple[list, dict]:
    """The rows of an lm-evaluation-harness ``--log_samples`` JSONL file."""
    lines: list[int] = []
    try:
        recs = read_jsonl_records(path, lines)
    except ValueError as exc:
        raise ValueError(f"{exc} (a truncated or malformed lm-eval samples file?)") from None
    m = re.match(r"samples_(.+?)_\d{4}-\d{2}-\d{2}T", path.name)
    task = m.group(1) if m else path.stem
    filters = list(dict.fromkeys(str(r.get("filter", "none")) for r in recs))
    rows = []
    for line, r in zip(lines, recs, strict=True):
        missing = [f for f in ("doc_id", "filtered_resps") if f not in r]
        if missing:
            raise ValueError(f"{path}:{line}: no {missing[0]!r} field; not an "
                             "lm-evaluation-harness --log_samples line")
        system = task if len(filters) == 1 else f"{task} [{r.get('filter', 'none')}]"
        names = r.get("metrics") if isinstance(r.get("metrics"), list) else \
            [k for k, v in r.items() if k not in _LMEVAL_FIELDS and _number(v) == _number(v)
             and not isinstance(v, str)]
        score = _number(r.get(names[0])) if names else math.nan
        item = _sample_id(r["doc_id"], path, f"line {line}", "doc_id")
        for k, a in enumerate(_lmeval_answers(r["filtered_resps"], path, line), 1):
            rows.append({"item": item, "system": system, "answer": _answer(a, path, item),
                         "score": score, "sample": k})
    return rows, {"format": "lmeval", "version": "0.4 --log_samples", "task": task,
                  "filters": filters}


def _lmeval_answers(fr, path: Path, line: int) -> list:
    """The answer(s) of one lm-eval line's ``filtered_resps``."""
    def pair(x):  # [ll, is_greedy]; written as text ("-4.86", "False") by some versions
        return (isinstance(x, list) and len(x) == 2 and _float(x[0]) is not None
                and (isinstance(x[1], bool) or x[1] in ("True", "False")))

    if not isinstance(fr, list) or not fr:
        raise ValueError(f"{path}:{line}: 'filtered_resps' must be a non-empty list")
    if all(pair(x) for x in fr):  # loglikelihood per choice: the choice with the largest
        lls = [_float(x[0]) for x in fr]
        if not all(math.isfinite(x) or x == -math.inf for x in lls):
            raise ValueError(f"{path}:{line}: 'filtered_resps' holds a loglikelihood that is "
                             "not a number (NaN or +inf); no choice can be read")
        return [lls.index(max(lls))]
    if len(fr) == 1 and isinstance(fr[0], list):  # repeats, not reduced by a filter
        if not all(isinstance(x, (str, int, float)) for x in fr[0]) or not fr[0]:
            raise ValueError(f"{path}:{line}: 'filtered_resps' holds a list labelvar does not "
                             "read as answers")
        return list(fr[0])
    if len(fr) == 1 and isinstance(fr[0], (str, int, float)) and not isinstance(fr[0], bool):
        return [fr[0]]
    raise ValueError(f"{path}:{line}: 'filtered_resps' of {len(fr)} entries is neither one "
                     "answer, one list of sampled answers, nor loglikelihoods per choice")


def eval_log_frame(p: Path, name: str, keys: list, task_field, parse: str):
    """An ``inspect:PATH``/``lmeval:PATH`` predictions file as ``_prediction_frame`` returns it.

    None for any other path. The log's sample ids are the item ids (the stated key:
    Inspect's ``id``, lm-eval's ``doc_id``, as text), whatever the id field of other
    predictions files; an item's answers, in sample order, are one row.
    """
    from labelvar.io._samples import parse_answer

    spec = eval_log_spec(p)
    if spec is None:
        return None
    if task_field:
        raise ValueError(f"predictions {name!r}: {spec[1]} is an eval log, one task per "
                         "log; task_field names no field of it")
    log = read_eval_log(p)
    systems = log["system"].unique()
    if len(systems) > 1:
        raise ValueError(f"predictions {name!r}: {spec[1]} holds {len(systems)} systems "
                         f"({', '.join(map(repr, systems[:3]))}); one system per log")
    per_item: dict = {}
    for item, a in zip(log["item"], log["answer"], strict=True):
        per_item.setdefault(item, []).append(a)
    answers = list(per_item.values())
    raw = sum(a is not None for r in answers for a in r)
    if parse != "none":
        answers = [[parse_answer(a, parse) for a in r] for r in answers]
    df = pd.DataFrame({keys[0]: list(per_item)})
    if len(keys) > 1:
        raise ValueError(f"predictions {name!r}: {spec[1]} is an eval log, joined on its "
                         f"sample ids alone; give one id field, not {','.join(keys)}")
    listed = any(len(r) > 1 for r in answers)
    return df, answers, ["answer"], None, listed, raw


def eval_log_systems(path) -> pd.DataFrame:
    """Items x systems: each system's answer per item in an eval log (the modal one if sampled).

    Several answers per item (epochs, repeats) give the modal answer, ties broken by the
    first sampled (:func:`labelvar.modal_answer`'s ``"first_sample"``). The index is the
    log's sample ids as text (``labelvar judge --system inspect:PATH``).
    """
    from labelvar.io._samples import modal_answer

    log = read_eval_log(path)
    if "sample" not in log.columns:
        return log.pivot(index="item", columns="system", values="answer")
    cols = {}
    for system, part in log.groupby("system", sort=False):
        table = part.pivot(index="item", columns="sample", values="answer")
        cols[system] = modal_answer(table.reindex(part["item"].unique()))
    return pd.DataFrame(cols)
