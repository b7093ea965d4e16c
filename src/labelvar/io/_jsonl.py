"""JSON lines: one object per item with a list of panel labels (or of dicts, one task per key)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from labelvar._base._docs import fill
from labelvar.io._common import _OK, TaskData, _chosen, _count_labels, _patterns, _roles
from labelvar.io._labels import JsonLabels, json_token
from labelvar.io._reading import read_jsonl_records


@fill
def read_jsonl(path, *, panel: str, systems=(), item=None, task: str | None = None,
               counts: bool = False, labels: Sequence | None = None,
               tasks=None, humans=()) -> dict[str, TaskData]:
    r"""Load JSON lines with a list of panel labels (or per-label vote counts) per item.

    Parameters
    ----------
    path : str or Path
        One JSON object per line.
    panel : str
        Field holding the list of panel labels (``annotator_labels`` in SNLI). If
        its elements are objects (``{"coherence": 4, "fluency": 5}``), each key is
        one task (DialSummEval's ``annotations``).
    systems : str or sequence of str
        Fields holding one label per item (a system's prediction); for multi-task
        panels a system field may be an object keyed by task.
    item : str or sequence of str, optional
        Item id field(s), joined with ``|`` when several (default: line number).
    task : str, optional
        Task name for a single-task file (default: the file's stem).
    humans : str or sequence of str
        Fields of the independent human raters (the group H). A field holding a list
        per item (SummEval's ``turker_annotations``: a list of objects, one task per
        key; or a list of labels) gives one human per list position, ``<field>_1``,
        ``<field>_2``, ... (positions, not identified raters); a field holding one label
        (or an object keyed by task) is one human. They are loaded with the systems
        and named in :attr:`TaskData.humans`.
    counts : bool
        ``panel`` holds per-label vote counts instead of votes: a list in label
        order (ChaosNLI's ``label_count``, ``[12, 68, 20]``) or an object label ->
        count (``label_counter``). The panel then has one column per label
        holding the counts (pass it to :func:`labelvar.stratify` with
        ``panel_counts=True``); any number of votes per item.
    labels : sequence, optional
        With ``counts``: the label of each list position (default 0, 1, ...; for
        objects, the keys in order of appearance). Without: the declared label set (as
        :func:`labelvar.stratify`'s ``labels``), which lets strings and numbers mix.
    {{tasks}}

    Returns
    -------
    {{tasks_returned}}

    Raises
    ------
    ValueError
        One line naming the file, line and field: a missing field, a repeated or null
        id, a panel that is not a list; a label that is NaN or Infinity (not JSON:
        write null for a missing label), an array or object; the labels of a task
        (votes and system fields together) of more than one kind (strings, numbers,
        booleans) however rare, unless ``labels`` is declared (strings and numbers
        then; booleans never mix); counts that are not whole numbers >= 0.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "c.jsonl")
    >>> _ = open(p, "w").write('{"id": "a", "n": [12, 68, 20]}\n{"id": "b", "n": [0, 1, 99]}\n')
    >>> read_jsonl(p, panel="n", item="id", counts=True, labels=["e", "n", "c"])["c"].panel.loc["a"]
    e    12
    n    68
    c    20
    Name: a, dtype: int64
    >>> p = os.path.join(tempfile.mkdtemp(), "nli.jsonl")
    >>> _ = open(p, "w").write('{"id": "a", "votes": ["e", "e", "n"]}\n'
    ...                        '{"id": "b", "votes": ["c", "c", "c", "n"]}\n')
    >>> d = read_jsonl(p, panel="votes", item="id")
    >>> d["nli"].panel.shape, d["nli"].panel.loc["b"].tolist()
    ((2, 4), ['c', 'c', 'c', 'n'])
    """
    lines: list[int] = []
    rows = read_jsonl_records(path, lines)
    if not rows:
        raise ValueError(f"{path}: no records")
    keys = _patterns(item)
    sysf = _patterns(systems)
    humf = [h for h in _patterns(humans) if h not in sysf]
    ids = []
    for i, r in enumerate(rows):
        for k in [panel, *keys]:
            if k not in r:
                raise ValueError(f"{path}: record {i + 1} has no field {k!r}; "
                                 f"fields: {', '.join(map(repr, list(r)[:12]))}")
        if any(r[k] is None for k in keys):
            raise ValueError(f"item: record {i + 1} of {path} has a null id "
                             f"({next(k for k in keys if r[k] is None)!r}); every record "
                             "needs an item id")
        ids.append("|".join(str(r[k]) for k in keys) if keys else str(i))
    s = pd.Series(ids)
    if s.duplicated().any():
        raise ValueError(f"item: duplicate item id {s[s.duplicated()].iloc[0]!r} in {path}; "
                         "ids must be unique (give several fields to item for a composite id)")
    for f in sysf + humf:
        if f not in rows[0]:
            raise ValueError(f"{'systems' if f in sysf else 'humans'}: field {f!r} not found "
                             f"in {path}; fields: {', '.join(map(repr, list(rows[0])[:12]))}")
    index = pd.Index(ids, name="item")
    for f in humf:
        _check_human_lists(path, rows, lines, f)

    def evaluated(t=None) -> tuple[pd.DataFrame, tuple]:
        """The systems' and humans' columns of task ``t`` (None: a single-task file)."""
        cols = {f: [r[f].get(t) if t is not None and isinstance(r.get(f), dict) else r.get(f)
                    for r in rows] for f in sysf}
        hum = {}
        for f in humf:
            hum.update(_human_columns(rows, f, t))
        return pd.DataFrame({**cols, **hum}, index=index), tuple(hum)

    def seen_humans(seen, t=None) -> None:
        for line, r in zip(lines, rows, strict=True):
            for f in humf:
                x = r.get(f)
                vals = x if isinstance(x, list) else [x]
                if t is not None:
                    vals = [v.get(t) if isinstance(v, dict) else v for v in vals]
                seen.add(vals, "humans", f if t is None else f"{f}.{t}", line)
    name = task or Path(path).stem  # of a single-task file
    if counts:
        _chosen([name], tasks)
        pan = _count_panel(path, rows, panel, labels, index, lines)
        pred, hum = evaluated()
        seen = JsonLabels(path, whole=f"task {name!r}")
        for line, r in zip(lines, rows, strict=True):
            for f in sysf:
                seen.add([r.get(f)], "systems", f, line)
        seen_humans(seen)
        seen.check()
        return {name: TaskData(pan, pred, humans=hum, **_roles(list(pan.columns), counts=True))}
    for i, r in enumerate(rows):
        if not isinstance(r[panel], list):
            raise ValueError(f"panel: field {panel!r} must hold a list of labels per item; "
                             f"record {i + 1} of {path} has {type(r[panel]).__name__}")
    first = rows[0][panel]
    if not isinstance(first, list):
        raise ValueError(f"panel: field {panel!r} must hold a list of labels per item, "
                         f"got {type(first).__name__}")
    multi = any(isinstance(x, dict) for x in first)
    width = max(len(r[panel]) for r in rows)
    if not multi:
        _chosen([name], tasks)
        seen = JsonLabels(path, allow_text_and_numbers=labels is not None, whole=f"task {name!r}")
        for line, r in zip(lines, rows, strict=True):
            seen.add(r[panel], "panel", panel, line)
            for f in sysf:
                seen.add([r.get(f)], "systems", f, line)
        seen_humans(seen)
        seen.check()
        votes = [list(r[panel]) + [None] * (width - len(r[panel])) for r in rows]
        pan = pd.DataFrame(votes, index=index, columns=[f"{panel}_{j + 1}" for j in range(width)])
        pred, hum = evaluated()
        return {name: TaskData(pan, pred, humans=hum, **_roles(labels, listed=True))}
    for line, r in zip(lines, rows, strict=True):
        odd = next((a for a in r[panel] if not isinstance(a, dict)), None)
        if odd is not None:
            raise ValueError(f"panel: {path}:{line}: field {panel!r} holds {json.dumps(odd)[:40]} "
                             "among objects; a multi-task panel is a list of objects task -> "
                             "label (one per annotator), on every line")
    task_names = _chosen(dict.fromkeys(k for r in rows for a in r[panel] for k in a), tasks)
    for t in task_names:
        seen = JsonLabels(path, allow_text_and_numbers=labels is not None, whole=f"task {t!r}")
        for line, r in zip(lines, rows, strict=True):
            seen.add([a.get(t) for a in r[panel]], "panel", f"{panel}.{t}", line)
            for f in sysf:
                x = r.get(f)
                seen.add([x.get(t) if isinstance(x, dict) else x], "systems",
                         f"{f}.{t}" if isinstance(x, dict) else f, line)
        seen_humans(seen, t)
        seen.check()
    out = {}
    for t in task_names:
        votes = [[a.get(t) for a in r[panel]] + [None] * (width - len(r[panel])) for r in rows]
        pan = pd.DataFrame(votes, index=index, columns=[f"{panel}_{j + 1}" for j in range(width)])
        pred, hum = evaluated(t)
        out[t] = TaskData(pan, pred, humans=hum, **_roles(labels, listed=True))
    return out


def _check_human_lists(path, rows, lines, field) -> None:
    """A humans field holds a list on every record or on none (null: no human there)."""
    if not any(isinstance(r.get(field), list) for r in rows):
        return
    for line, r in zip(lines, rows, strict=True):
        x = r.get(field)
        if x is not None and not isinstance(x, list):
            raise ValueError(f"humans: {path}:{line}: field {field!r} holds {json.dumps(x)[:40]} "
                             "where the other records hold a list (one entry per human)")


def _human_columns(rows, field, t=None) -> dict:
    """One column per list position of a humans field (``<field>_1`` ...), or the field itself."""
    vals = [r.get(field) for r in rows]

    def of_task(x):
        return x.get(t) if t is not None and isinstance(x, dict) else x

    if not any(isinstance(v, list) for v in vals):
        return {field: [of_task(v) for v in vals]}
    width = max(len(v) for v in vals if isinstance(v, list))
    return {f"{field}_{j + 1}": [of_task(v[j]) if isinstance(v, list) and j < len(v) else None
                                 for v in vals] for j in range(width)}


def _count_panel(path, rows, field, labels, index, lines) -> pd.DataFrame:
    """Per-label vote counts from a JSONL field (lists in label order, or label -> count)."""
    vals = [r[field] for r in rows]
    for line, x in zip(lines, vals, strict=True):
        cells = x.values() if isinstance(x, dict) else x if isinstance(x, list) else ()
        bad = next((c for c in cells if type(c) not in (int, float)
                    or not (math.isfinite(c) and c >= 0 and c == int(c))), _OK)
        if bad is not _OK:
            shown = json_token(bad) if type(bad) is float and not math.isfinite(bad) \
                else json.dumps(bad)[:40]
            raise ValueError(f"panel counts: {path}:{line}: field {field!r} holds {shown}; "
                             "a count is a whole number >= 0 (0 for a label nobody chose)")
    if all(isinstance(x, dict) for x in vals):
        keys = list(dict.fromkeys(k for x in vals for k in x))
        names = keys if labels is None else _count_labels(labels)
        if not set(map(str, keys)) <= set(map(str, names)):
            raise ValueError(f"panel counts: {path} has labels {keys!r} in {field!r}, "
                             f"not among labels {names!r}")
        by_text = {str(k): k for k in keys}
        table = [[x.get(by_text.get(str(n), n), 0) for n in names] for x in vals]
    else:
        bad = next((i for i, x in enumerate(vals) if not isinstance(x, list)), None)
        if bad is not None:
            raise ValueError(f"panel counts: field {field!r} must hold a list of counts (or "
                             f"an object label -> count); record {bad + 1} of {path} has "
                             f"{type(vals[bad]).__name__}")
        width = {len(x) for x in vals}
        if len(width) != 1:
            raise ValueError(f"panel counts: lists in {field!r} of {path} differ in length "
                             f"({min(width)} to {max(width)}); one count per label, always")
        n = width.pop()
        names = list(range(n)) if labels is None else _count_labels(labels)
        if len(names) != n:
            raise ValueError(f"labels: {len(names)} labels for {n} counts per item in "
                             f"{field!r}; name every count, in order")
        table = vals
    return pd.DataFrame(table, index=index, columns=names)
