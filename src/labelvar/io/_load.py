"""Any layout: :func:`load_tasks` picks the layout from the files and joins predictions."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from pathlib import Path

from labelvar._base._docs import fill
from labelvar.io._common import TaskData, _patterns
from labelvar.io._jsonl import read_jsonl
from labelvar.io._long import read_long
from labelvar.io._predictions import _attach_predictions, _attach_probabilities
from labelvar.io._rater_files import read_rater_files
from labelvar.io._wide import read_wide

# --------------------------------------------------------------------------- any layout
#: input layouts of :func:`load_tasks`
LAYOUTS = ("auto", "wide", "long", "jsonl", "raters")


@fill
def load_tasks(files, *, panel, layout: str = "auto", systems=(), humans=(), item=None,
               task_column: str | None = None, group_sep: str | None = None, tasks=None,
               rater: str = "rater", label: str = "label", predictions=None,
               pred_item: str | None = None, pred_label: str = "pred",
               pred_classes: Sequence | None = None, panel_counts: bool = False,
               labels: Sequence | None = None, probabilities=None,
               prob_field: str | None = None, pred_samples: bool = False,
               pred_parse: str = "none", pred_task: str | None = None) -> dict[str, TaskData]:
    r"""Load panel votes and predictions from files in any supported layout.

    Parameters
    ----------
    files : path or sequence of paths
        One file (wide, long or JSONL) or one file per rater.
    panel : str or sequence of str
        Panel columns/raters (names or globs); for JSONL the field with the labels.
    layout : {"auto", "wide", "long", "jsonl", "raters"}
        ``"auto"``: ``raters`` for several files, ``jsonl`` for ``.json``/``.jsonl``,
        else ``wide``.
    systems, humans : str or sequence of str
        Columns/raters/fields evaluated; the humans are loaded like the systems
        (a pattern matching nothing is reported under ``humans``), and each task's
        are its :attr:`TaskData.humans`.
    item : str, optional
        Item id column/field (required with several files).
    task_column, group_sep : str, optional
        Wide/long: column naming each row's task; wide: ``<task><sep><rater>`` groups.
    {{tasks}}
    rater, label : str
        Long layout: the rater and label columns.
    predictions : mapping of str to path or paths, optional
        Systems whose predictions are in separate files (:func:`attach_predictions`);
        their one ``pred_label`` field is refused when it would be the answer of
        several tasks on the same items (keep one task: ``tasks``).
    pred_item, pred_label : str
        Id and label fields of those files (``pred_item`` defaults to ``item``).
    pred_classes : sequence, optional
        Labels of class indices in those files, in index order.
    panel_counts : bool
        ``panel`` names per-label vote counts: a JSONL field (:func:`read_jsonl`
        with ``counts=True``) or wide count columns, one per label (their names
        are the labels unless ``labels`` is given). Wide and JSONL layouts only.
    labels : sequence, optional
        With ``panel_counts``: the label of each count, in order. Without: the declared
        label set, passed to the readers (strings and numbers may then mix; see
        :func:`read_wide`); give it to :func:`labelvar.stratify` too.
    probabilities : mapping of str to path or paths, optional
        Systems' probability outputs in separate files (:func:`attach_probabilities`,
        joined on ``pred_item``; list positions named by ``pred_classes``).
    prob_field : str, optional
        Their field/column (default: one column per task); refused, as ``pred_label``,
        when it would be several tasks' answer on the same items.
    pred_samples, pred_parse, pred_task
        :func:`attach_predictions`' ``samples`` (several rows per item are sampled
        answers), ``parse`` (``"number"``: an answer's leading number) and
        ``task_field`` (the field naming each row's task). ``pred_item`` and
        ``pred_label`` may name several fields: a composite id (``doc_id,system_id``),
        one field per sample; a ``pred_label`` holding a list per item is a system's
        sampled answers.

    Returns
    -------
    {{tasks_returned}}

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "w.csv")
    >>> _ = open(p, "w").write("id,r1,r2,bot\na,1,1,0\nb,0,1,0\n")
    >>> d = load_tasks(p, panel="r*", systems="bot", item="id")
    >>> d["w"].predictions.columns.tolist()
    ['bot']
    >>> load_tasks([p, p], panel="r*")
    Traceback (most recent call last):
    ...
    ValueError: item is required with several files (the id column they share)
    """
    files = [Path(files)] if isinstance(files, (str, Path)) else [Path(f) for f in files]
    if not files:
        raise ValueError("files: no input file given")
    for f in files:
        if f.is_dir():
            raise ValueError(f"files: {f} is a directory; give the data file(s) inside it")
        if not f.is_file():
            raise ValueError(f"files: no such file: {f}")
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}; got {layout!r}")
    if layout == "auto":
        if len(files) > 1:
            layout = "raters"
        elif files[0].suffix.lower() in (".json", ".jsonl"):
            layout = "jsonl"
        else:
            layout = "wide"
    if layout != "raters" and len(files) > 1:
        raise ValueError(f"layout {layout} takes one file, got {len(files)}")
    if panel_counts and layout not in ("wide", "jsonl"):
        raise ValueError(f"panel_counts: count vectors are read from wide or JSONL files, "
                         f"not the {layout} layout")
    human_patterns = _patterns(humans)
    both = [h for h in human_patterns if h in _patterns(systems)]
    if both:
        raise ValueError(f"humans: {both[0]!r} is also given as a system; a rater is evaluated "
                         "as a system or as a human, not both")
    evaluated = _patterns(systems) + human_patterns
    try:
        if layout == "wide":
            data = read_wide(files[0], panel=panel, systems=evaluated, item=item,
                             task_column=task_column, group_sep=group_sep, labels=labels,
                             counts=panel_counts, tasks=tasks)
        elif layout == "long":
            data = read_long(files[0], panel=panel, systems=evaluated, item=item or "item",
                             rater=rater, label=label, task_column=task_column, labels=labels,
                             tasks=tasks)
        elif layout == "jsonl":
            data = read_jsonl(files[0], panel=panel, systems=_patterns(systems), item=item,
                              counts=panel_counts, labels=labels, tasks=tasks,
                              humans=human_patterns)
        else:
            if not item:
                raise ValueError("item is required with several files (the id column they "
                                 "share)")
            data = read_rater_files(files, panel=panel, systems=evaluated, item=item,
                                    tasks=tasks, labels=labels)
    except ValueError as exc:
        msg = str(exc)
        for h in human_patterns:  # humans are loaded with the systems: name the right field
            if msg.startswith(f"systems: {h!r} ") or (msg.startswith("systems (task")
                                                      and f"): {h!r} " in msg):
                raise ValueError("humans" + msg[len("systems"):]) from None
        raise
    for name, paths in (predictions or {}).items():
        if not (pred_item or item):
            raise ValueError("pred_item is required with predictions (the id field of "
                             "those files)")
        data = _attach_predictions(data, name, paths, item=pred_item or item, label=pred_label,
                                   classes=pred_classes, task=None, one_task="tasks",
                                   samples=pred_samples, parse=pred_parse, task_field=pred_task)
    for name, paths in (probabilities or {}).items():
        if not (pred_item or item):
            raise ValueError("pred_item is required with probabilities (the id field of "
                             "those files)")
        data = _attach_probabilities(data, name, paths, item=pred_item or item,
                                     field=prob_field, classes=pred_classes, task=None,
                                     one_task="tasks", field_param="prob_field")
    # (a reader that expanded a humans field itself, e.g. a JSON list of objects, named them)
    return {t: td._replace(humans=td.humans or tuple(
                c for c in map(str, td.predictions.columns)
                if any(fnmatch.fnmatchcase(c, h) for h in human_patterns)))
            for t, td in data.items()}
