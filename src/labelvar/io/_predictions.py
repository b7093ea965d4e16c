"""Predictions and probability outputs kept in their own files, joined on the item id."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from labelvar.io import _labels
from labelvar.io._common import TaskData, _patterns, read_frame, select_columns
from labelvar.io._labels import JsonLabels, plain
from labelvar.io._reading import read_jsonl_records


def attach_predictions(data: Mapping[str, TaskData], name: str, paths, *, item,
                       label, classes: Sequence | None = None,
                       task: str | None = None, samples: bool = False, parse: str = "none",
                       task_field: str | None = None) -> dict[str, TaskData]:
    r"""Add a system whose predictions live in separate files (one row per item, or per answer).

    A system that gave several sampled answers per item (an LLM judge asked n times)
    is read into :attr:`TaskData.samples` (:func:`labelvar.modal_answer`: stratify scores its
    modal answer, its sample shares and its self-agreement) when its file has

    - a list of answers per item in the ``label`` field (G-Eval's ``all_responses``),
    - several ``label`` fields/columns, one per sample (``label="s1,s2,s3"`` or a glob), or
    - several rows per item, with ``samples=True`` (without it a repeated id is refused).

    Parameters
    ----------
    data : mapping of str to TaskData
        As returned by the loaders.
    name : str
        System name.
    paths : path or sequence of paths
        CSV/TSV, JSON lines or one JSON array of objects (``.json``/``.jsonl``), concatenated
        (e.g. a model's predictions on the dev and test halves of a split).
    item : str or sequence of str
        Item id column(s)/field(s) in the prediction files, joined with ``|`` when several
        (G-Eval: ``"doc_id,system_id"``), matched to the panel's ids (a composite panel id,
        ``item="id,model_id"`` in :func:`read_jsonl`, is joined the same way: give the
        fields in the same order).
    label : str or sequence of str
        Column/field holding the predicted label (or list of sampled answers); several
        names or a glob: one column per sample.
    classes : sequence, optional
        If the prediction is a class index, the label of each index (e.g. ChaosNLI's
        predictions use the order entailment, contradiction, neutral).
    task : str, optional
        Task to attach to (default: every task in ``data``).
    samples : bool
        Several rows per item are sampled answers, in file order.
    parse : {"none", "number"}
        ``"number"``: each answer is the number it starts with
        (:func:`labelvar.parse_answer`: G-Eval's ``" 4"`` is 4); an answer that
        starts with no number is missing, and a note says how many.
    task_field : str, optional
        Column/field naming each row's task: one file holding several tasks' answers
        (rows of tasks not in ``data`` are left out; none matching is refused).

    Returns
    -------
    dict of str to TaskData
        A new mapping; ids the prediction files lack become missing predictions
        (which :func:`labelvar.stratify` reports unless those items are excluded).

    Raises
    ------
    ValueError
        A missing field, an id repeated across the files (without ``samples``), no id in
        common with the panel (the composite key's fields in another order?), an index
        outside ``classes``; in JSON files a label that is NaN or Infinity, an object, or
        labels of more than one kind (as :func:`read_jsonl`). Without ``task`` or
        ``task_field``, several tasks on the same items: the one ``label`` field would be
        every task's answer.

    Warns
    -----
    labelvar.evaluation.DataNoteWarning
        With ``parse="number"``, answers that start with no number (counted).

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "pred.jsonl")
    >>> _ = open(p, "w").write('{"uid": "a", "pred": 0}\n{"uid": "b", "pred": 2}\n')
    >>> base = {"t": TaskData(pd.DataFrame({"r1": ["e", "n"], "r2": ["e", "c"]},
    ...                                    index=pd.Index(["a", "b"], name="item")),
    ...                       pd.DataFrame(index=pd.Index(["a", "b"], name="item")))}
    >>> d = attach_predictions(base, "bert", p, item="uid", label="pred", classes=["e", "c", "n"])
    >>> d["t"].predictions["bert"].tolist()
    ['e', 'n']

    Sampled answers, G-Eval style (one JSON array, a composite key, text answers):

    >>> q = os.path.join(tempfile.mkdtemp(), "geval.json")
    >>> _ = open(q, "w").write('[{"doc_id": "d1", "system_id": "M1", "all_responses": [" 4", " 3", " 4"]},'
    ...                        ' {"doc_id": "d1", "system_id": "M2", "all_responses": ["2", "2", "x"]}]')
    >>> panel = pd.DataFrame({"e1": [4, 2], "e2": [5, 2]}, index=pd.Index(["d1|M1", "d1|M2"], name="item"))
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     d = attach_predictions({"coh": TaskData(panel, pd.DataFrame(index=panel.index))},
    ...                            "geval", q, item="doc_id,system_id", label="all_responses",
    ...                            parse="number")
    >>> d["coh"].samples["geval"].to_numpy().tolist()
    [[4, 3, 4], [2, 2, None]]
    """
    return _attach_predictions(data, name, paths, item=item, label=label, classes=classes,
                               task=task, one_task="task", samples=samples, parse=parse,
                               task_field=task_field)


def _prediction_frame(p: Path, name: str, keys: list, label, task_field, parse) -> tuple:
    """One predictions file, read.

    Returns (id and task columns, answers per row, label fields, the JSON labels seen,
    whether a label field holds lists, the answers before parsing).
    """
    from labelvar.io._eval_logs import eval_log_frame
    from labelvar.io._samples import parse_answer

    logged = eval_log_frame(p, name, keys, task_field, parse)  # inspect:PATH, lmeval:PATH
    if logged is not None:
        return logged
    need = keys + ([task_field] if task_field else [])
    if p.suffix.lower() in (".json", ".jsonl"):
        lines: list[int] = []
        recs = read_jsonl_records(p, lines)
        fields = list(dict.fromkeys(k for r in recs[:1000] for k in r))
        for c in need:
            if not any(c in r for r in recs):
                raise ValueError(f"predictions {name!r}: field {c!r} not found in {p}")
        lab_fields = select_columns(fields, label, f"predictions {name!r} (fields of {p})") \
            if any(ch in str(label) for ch in "*?[,") or not isinstance(label, str) else [label]
        if not any(lab_fields[0] in r for r in recs):
            raise ValueError(f"predictions {name!r}: field {lab_fields[0]!r} not found in {p}")
        seen = JsonLabels(p, declarable=False, whole="a prediction file")
        answers, raw = [], 0
        for line, r in zip(lines, recs, strict=True):
            row = []
            for f in lab_fields:
                x = r.get(f)
                row.extend(x if isinstance(x, list) else [x])
            raw += sum(x is not None for x in row)
            if parse != "none":
                row = [parse_answer(x, parse) for x in row]
            seen.add(row, f"predictions {name!r}", lab_fields[0] if len(lab_fields) == 1
                     else ",".join(lab_fields), line)
            answers.append(row)
        seen.check()
        df = pd.DataFrame({c: [r.get(c) for r in recs] for c in need})
        listed = any(isinstance(r.get(f), list) for r in recs for f in lab_fields)
        return df, answers, lab_fields, seen, listed, raw
    df = read_frame(p, text=need)  # ids as written
    for c in need:
        if c not in df.columns:
            raise ValueError(f"predictions {name!r}: field {c!r} not found in {p}")
    lab_fields = select_columns([c for c in df.columns if c not in need], label,
                                f"predictions {name!r} (columns of {p})")
    rows = df[lab_fields].to_numpy(dtype=object).tolist()
    raw = int(df[lab_fields].notna().to_numpy().sum())
    if parse != "none":
        rows = [[parse_answer(x, parse) for x in r] for r in rows]
    return df[need], rows, lab_fields, None, False, raw


def _attach_predictions(data, name, paths, *, item, label, classes, task, one_task,
                        samples=False, parse="none", task_field=None):
    """:func:`attach_predictions`; ``one_task``: the caller's parameter choosing one task."""
    from labelvar.io._samples import PARSERS

    if parse not in PARSERS:
        raise ValueError(f"parse must be one of {', '.join(PARSERS)}; got {parse!r}")
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"predictions: the system's name must be a non-empty text, got {name!r}")
    keys = _patterns(item)
    if not keys:
        raise ValueError(f"predictions {name!r}: no item id field given")
    plist = [paths] if isinstance(paths, (str, Path)) else list(paths)
    if not plist:
        raise ValueError(f"predictions {name!r}: no file given (paths: one path or a list of "
                         "paths)")
    ids, tasks_of, answers, fields = [], [], [], None
    listed, raw = False, 0
    for p in map(Path, plist):
        df, rows, lab_fields, seen, is_listed, n_raw = _prediction_frame(p, name, keys, label,
                                                                         task_field, parse)
        raw += n_raw
        listed |= is_listed or len(lab_fields) > 1
        fields = fields or lab_fields
        if seen is not None and classes is not None and set(seen.count) - {"number"}:
            role, field, line, x = seen.first[next(iter(set(seen.count) - {"number"}))]
            raise ValueError(f"{role}: {p}:{line}: field {field!r} holds {json.dumps(x)}; "
                             f"with classes it must be a class index (a whole number)")
        for k in keys:
            blank = df[k].isna().to_numpy()
            if blank.any():
                raise ValueError(f"predictions {name!r}: {p} has no {k!r} (an item id) in "
                                 f"{int(blank.sum())} row(s), first data row "
                                 f"{int(np.flatnonzero(blank)[0]) + 1}")
        ids.append(df[keys].astype(str).agg("|".join, axis=1) if len(keys) > 1
                   else df[keys[0]].astype(str))
        tasks_of.append(df[task_field].astype(str) if task_field else None)
        answers.extend(rows)
    ids = pd.concat(ids, ignore_index=True)
    if not len(ids):
        raise ValueError(f"predictions {name!r}: {', '.join(map(str, plist))} hold(s) no rows "
                         "(a header only?); give the predictions, one row per item")
    tasks = pd.concat(tasks_of, ignore_index=True) if task_field else None
    key = ids if tasks is None else tasks + "\x00" + ids
    repeated = key.duplicated()
    if repeated.any() and not samples:
        raise ValueError(f"predictions {name!r}: item id {ids[repeated].iloc[0]!r} appears more "
                         "than once" + ("" if tasks is None else " in one task")
                         + "; several sampled answers per item? say so (samples=True)")
    sampled = listed or bool(samples)
    n_answers = sum(sum(x is not None for x in r) for r in answers)
    if parse != "none":
        from labelvar._base._warnings import DataNoteWarning

        lost = raw - n_answers
        if n_answers == 0:
            raise ValueError(f"predictions {name!r}: no answer in {fields[0]!r} starts with a "
                             f"number ({raw:,} answers); parse={parse!r} reads the leading "
                             "number of each")
        if lost:
            import warnings

            warnings.warn(f"predictions {name!r}: {lost:,} of {raw:,} answers start with no "
                          "number and are missing", DataNoteWarning, stacklevel=3)
    if classes is not None:
        classes = _labels.distinct(classes, "predictions.classes" if one_task == "tasks" else "classes")
        flat = [x for r in answers for x in r if x is not None]
        idx = pd.to_numeric(pd.Series(flat, dtype=object), errors="coerce")
        bad = idx.isna() | (idx < 0) | (idx >= len(classes)) | (idx != np.round(idx))
        if bad.any():
            raise ValueError(f"predictions {name!r}: {fields[0]} must be a class index in "
                             f"0..{len(classes) - 1}, got {plain(flat[int(np.flatnonzero(bad)[0])])!r}")
        answers = [[None if x is None else classes[int(x)] for x in r] for r in answers]
    if task is not None and task not in data:
        raise ValueError(f"task: {task!r} not found; tasks: {', '.join(map(repr, data))}")
    if tasks is not None:
        unknown = set(tasks) - set(map(str, data))
        if len(unknown) == tasks.nunique():
            raise ValueError(f"task_field: no task named in {task_field!r} ("
                             f"{', '.join(map(repr, sorted(unknown)[:3]))}) is a task of the "
                             f"panel ({', '.join(map(repr, data))})")
    panel_ids = set()
    for td in data.values():
        panel_ids |= set(td.panel.index.astype(str))
    if not ids.isin(panel_ids).any():
        some = next(iter(data.values())).panel.index
        raise ValueError(f"predictions {name!r}: {', '.join(map(str, plist))}: none of its "
                         f"{ids.nunique():,} item ids (e.g. "
                         f"{ids.iloc[0]!r}) is a panel item id (e.g. "
                         f"{str(some[0]) if len(some) else '?'!r}); check the id fields "
                         f"({','.join(keys)}) and, for a composite id, their order")
    _note_unmatched(name, ids, panel_ids)
    out = {}
    for t, td in data.items():
        if task is not None and t != task:
            out[t] = td
            continue
        mine = np.ones(len(ids), bool) if tasks is None else (tasks == str(t)).to_numpy()
        if tasks is not None and not mine.any():
            out[t] = td
            continue
        fold = "".join(str(name).split()).casefold()  # 'GPT' and ' gpt' are one name
        same = [s for s in (*map(str, td.predictions.columns), *map(str, td.samples or {}))
                if "".join(s.split()).casefold() == fold]
        if same:
            raise ValueError(f"predictions {name!r}: task {t!r} already has a system {same[0]!r} "
                             "(a column of the panel's file or another predictions file); give "
                             "each system its own name (one system's several files: one name "
                             "with all its paths)")
        where = td.panel.index.astype(str)
        sel = np.flatnonzero(mine)
        if not sampled:
            series = pd.Series([answers[i][0] if answers[i] else None for i in sel],
                               index=ids.to_numpy()[sel], dtype=object)
            pred = td.predictions.copy()
            pred[name] = series.reindex(where).to_numpy()
            out[t] = td._replace(predictions=pred)
            continue
        per_item: dict = {}
        for i in sel:
            per_item.setdefault(ids.iat[i], []).extend(answers[i])
        width = max((len(v) for v in per_item.values()), default=0)
        table = pd.DataFrame([v + [None] * (width - len(v)) for v in per_item.values()],
                             index=list(per_item), columns=range(1, width + 1), dtype=object)
        table = table.reindex(where)
        table.index = td.panel.index
        out[t] = td._replace(samples={**(td.samples or {}), name: table})
    if task is None and tasks is None:
        _one_task_per_field(out, name, "samples" if sampled else "predictions", fields[0],
                            one_task)
    return out


def _one_task_per_field(data: Mapping[str, TaskData], name: str, kind: str, field: str,
                       one_task: str = "tasks") -> None:
    """Refuse one field of a predictions or probabilities file as several tasks' answers.

    Such a file has one field (a label, or probabilities) for every task, so with
    several tasks on the same items each would get the same answers (CheXpert: Edema
    scored with the Cardiomegaly column). Tasks with their own item ids (a long file
    with task-specific ids) each take their own. Used by :func:`attach_predictions`,
    :func:`attach_probabilities` and :func:`load_tasks` (so by ``labelvar stratify``).

    Parameters
    ----------
    data : mapping of str to TaskData
        With system ``name`` attached.
    name : str
        The system.
    kind : {"predictions", "samples", "probabilities"}
        Where its answers are.
    field : str
        The file's field, for the message.
    one_task : str
        The caller's parameter choosing one task, for the message.

    Raises
    ------
    ValueError
        When two tasks hold answers of ``name`` for one item id.

    Examples
    --------
    >>> idx = pd.Index(["a", "b"], name="item")
    >>> td = TaskData(pd.DataFrame({"r1": [1, 0]}, index=idx), pd.DataFrame({"m": [1, 1]}, index=idx))
    >>> _one_task_per_field({"Cardio": td, "Edema": td}, "m", "predictions", "Cardio")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: predictions 'm': its one field 'Cardio' would be every task's answer: ...
    """
    ids, owner = [], []
    for t, td in data.items():
        col = (td.predictions.get(name) if kind == "predictions"
               else (td.samples or {}).get(name) if kind == "samples"
               else (td.probabilities or {}).get(name))
        if col is None:
            continue
        has = col.notna().to_numpy()
        if has.ndim > 1:
            has = has.any(axis=1)
        ids.append(td.panel.index.astype(str).to_numpy()[has])
        owner += [t] * int(has.sum())
    if len(ids) < 2:
        return
    index = pd.Index(np.concatenate(ids))
    dup = np.flatnonzero(index.duplicated(keep=False))
    if dup.size:
        item = index[dup[0]]
        tasks = list(dict.fromkeys(owner[i] for i in dup if index[i] == item))
        raise ValueError(f"{kind} {name!r}: its one field {field!r} would be every task's "
                         f"answer: tasks {', '.join(map(repr, tasks))} share items (e.g. "
                         f"{item!r}); choose one task ({one_task}=...), or give each task's "
                         "answers in a file of its own")


def _read_records(p: Path, item: str) -> pd.DataFrame:
    if p.suffix.lower() in (".json", ".jsonl"):
        return pd.DataFrame.from_records(read_jsonl_records(p))
    return read_frame(p, text=[item])  # ids as written


def attach_probabilities(data: Mapping[str, TaskData], name: str, paths, *, item: str,
                         field: str | None = None, classes: Sequence | None = None,
                         task: str | None = None) -> dict[str, TaskData]:
    r"""Add a system's probability outputs from separate files (one row per item).

    Two layouts:

    - ``field`` names a column/field holding, per item, a list of probabilities in
      ``classes`` order (ChaosNLI's ``probs``) or one number (the positive class's
      probability of a binary task); it is attached to every task (or ``task``);
    - no ``field``: one column per task holding the positive class's probability
      (the CheXpert layout: ``Study, Cardiomegaly, Edema, ...``); tasks without a
      column get none.

    Parameters
    ----------
    data : mapping of str to TaskData
    name : str
        System name (may also have labels from :func:`attach_predictions`).
    paths : path or sequence of paths
        CSV/TSV or JSONL files, concatenated.
    item : str
        Item id column/field (joined with the panel's ids; absent ids are missing).
    field : str, optional
        See above.
    classes : sequence, optional
        The label of each list position (default: 0, 1, ...).
    task : str, optional
        Attach to this task only. Without it, a ``field`` joined to several tasks'
        items is refused (it would be every task's answer).

    Returns
    -------
    dict of str to TaskData

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "probs.jsonl")
    >>> _ = open(p, "w").write('{"uid": "a", "probs": [0.7, 0.1, 0.2]}\n'
    ...                        '{"uid": "b", "probs": [0.2, 0.2, 0.6]}\n')
    >>> base = {"t": TaskData(pd.DataFrame({"r1": ["e", "n"], "r2": ["e", "c"]},
    ...                                    index=pd.Index(["a", "b"], name="item")),
    ...                       pd.DataFrame(index=pd.Index(["a", "b"], name="item")))}
    >>> d = attach_probabilities(base, "bert", p, item="uid", field="probs",
    ...                          classes=["e", "c", "n"])
    >>> d["t"].probabilities["bert"].round(1).to_numpy().tolist()
    [[0.7, 0.1, 0.2], [0.2, 0.2, 0.6]]
    """
    return _attach_probabilities(data, name, paths, item=item, field=field, classes=classes,
                                 task=task, one_task="task")


def _attach_probabilities(data, name, paths, *, item, field, classes, task, one_task,
                          field_param="field"):
    """:func:`attach_probabilities`; ``one_task``, ``field_param``: the caller's parameters.

    (choosing one task, and the field: named in messages)
    """
    plist = [paths] if isinstance(paths, (str, Path)) else list(paths)
    frames = []
    for p in map(Path, plist):
        df = _read_records(p, item)
        need = [item] + ([field] if field else [])
        for c in need:
            if c not in df.columns:
                raise ValueError(f"probabilities {name!r}: field {c!r} not found in {p}")
        frames.append(df)
    df = pd.concat(frames, ignore_index=True)
    df[item] = df[item].astype(str)
    if df[item].duplicated().any():
        dup = df.loc[df[item].duplicated(), item].iloc[0]
        raise ValueError(f"probabilities {name!r}: item id {dup!r} appears more than once")
    df = df.set_index(item)
    if field is not None:
        vals = df[field]
        if len(vals) and isinstance(vals.iloc[0], list):
            width = {len(x) for x in vals if isinstance(x, list)}
            if len(width) != 1:
                raise ValueError(f"probabilities {name!r}: lists in {field!r} differ in length")
            n = width.pop()
            cols = (_labels.distinct(classes, "predictions.classes" if one_task == "tasks" else "classes")
                    if classes is not None else list(range(n)))
            if len(cols) != n:
                raise ValueError(f"probabilities {name!r}: {len(cols)} classes for {n} "
                                 f"probabilities per item in {field!r}")
            table = pd.DataFrame([x if isinstance(x, list) else [np.nan] * n for x in vals],
                                 index=vals.index, columns=cols)
            for c in table.columns:  # (text in a list: refused, not read as missing)
                table[c] = _labels.probability_column(table[c], f"probabilities {name!r}: "
                                                                f"field {field!r}")
        else:
            table = pd.Series(_labels.probability_column(vals, f"probabilities {name!r}: "
                                                              f"field {field!r}"),
                              index=vals.index)
        per_task = {t: table for t in data}
    else:
        per_task = {t: pd.Series(_labels.probability_column(
            df[t], f"probabilities {name!r}: column {t!r}"), index=df.index)
            for t in data if t in df.columns}
        if not per_task:
            raise ValueError(f"probabilities {name!r}: no column of {plist[0]} names a task "
                             f"({', '.join(map(repr, list(data)[:5]))}); give the field "
                             f"holding them ({field_param}=...)")
    if task is not None and task not in data:
        raise ValueError(f"task: {task!r} not found; tasks: {', '.join(map(repr, data))}")
    panel_ids = set()
    for t, td in data.items():
        if t in per_task and (task is None or t == task):
            panel_ids |= set(td.panel.index.astype(str))
    if panel_ids:
        _note_unmatched(name, pd.Index(next(iter(per_task.values())).index).astype(str),
                        panel_ids, what="probabilities")
    out = {}
    for t, td in data.items():
        probs = dict(td.probabilities or {})
        if t in per_task and (task is None or t == task):
            if name in probs:
                raise ValueError(f"probabilities {name!r}: task {t!r} already has probabilities "
                                 f"of {name!r}; give each system its own name (one system's "
                                 "several files: one name with all its paths)")
            probs[name] = per_task[t].reindex(td.panel.index.astype(str))
            probs[name].index = td.panel.index
        out[t] = td._replace(probabilities=probs or None)
    if task is None and field is not None:  # (without a field: one column per task)
        _one_task_per_field(out, name, "probabilities", field, one_task)
    return out


def _note_unmatched(name, ids, panel_ids, *, what="predictions") -> None:
    """A note counting the item ids of a predictions file that no panel item has.

    A predictions file may cover more items than the panel (a whole benchmark's answers
    for a subset's votes); those answers are not scored, and the note says how many.
    """
    extra = pd.Index(pd.unique(pd.Index(ids).astype(str))).difference(pd.Index(list(panel_ids)))
    if len(extra):
        import warnings

        from labelvar._base._warnings import DataNoteWarning

        warnings.warn(f"{what} {name!r}: {len(extra):,} item id(s) that no panel item has "
                      f"(e.g. {extra[0]!r}) are not scored", DataNoteWarning, stacklevel=3)
