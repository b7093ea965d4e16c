"""Any layout: :func:`load_tasks` picks the layout from the files and joins predictions."""

from __future__ import annotations

import dataclasses
import fnmatch
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

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


@dataclasses.dataclass(frozen=True)
class Columns:
    """Which columns (fields, raters) of the input files play which role (:func:`load_tasks`).

    Parameters
    ----------
    panel : str or sequence of str
        The panel's columns/raters (names or globs); for JSON lines the field with the
        votes. With ``counts``: the per-label count columns (or the JSON field).
    systems, humans : str or sequence of str
        Columns/raters/fields evaluated: systems, and the independent humans (the
        group H, each task's :attr:`TaskData.humans`); a rater is one or the other.
    item : str or sequence of str, optional
        Item id column/field (required with several files); several: one id joined
        with ``|``.
    rater, label : str
        Long layout: the rater and label columns.
    task_column : str, optional
        Wide/long: the column naming each row's task.
    group_sep : str, optional
        Wide: columns are ``<task><group_sep><rater>``.
    counts : bool
        ``panel`` names per-label vote counts (wide count columns, or a JSON field),
        not votes; wide and JSON layouts only.

    Examples
    --------
    >>> Columns(panel="r*", systems="gpt", item="id").item
    'id'
    """

    panel: str | Sequence[str] = ()
    systems: str | Sequence[str] = ()
    humans: str | Sequence[str] = ()
    item: str | Sequence[str] | None = None
    rater: str = "rater"
    label: str = "label"
    task_column: str | None = None
    group_sep: str | None = None
    counts: bool = False

    def __post_init__(self):
        for f in ("panel", "systems", "humans", "item"):
            _names_field(f"columns.{f}", getattr(self, f), optional=True)
        for f in ("rater", "label", "task_column", "group_sep"):
            value = getattr(self, f)
            if not (isinstance(value, str) or (value is None and f in ("task_column",
                                                                       "group_sep"))):
                raise ValueError(f"columns.{f} must be a column name (a string), got "
                                 f"{type(value).__name__} {value!r}")
        if not isinstance(self.counts, (bool, np.bool_)):
            raise ValueError(f"columns.counts must be True or False, got {self.counts!r}")


@dataclasses.dataclass(frozen=True)
class Predictions:
    """Systems' answers kept in files of their own, joined on the item id (:func:`load_tasks`).

    The one ``label`` (or ``field``) is refused when it would be the answer of several
    tasks on the same items (keep one task: ``tasks``).

    Parameters
    ----------
    files : mapping of str to path or paths, optional
        System name -> its predictions file(s) (:func:`attach_predictions`).
    probabilities : mapping of str to path or paths, optional
        System name -> its probability outputs (:func:`attach_probabilities`).
    item : str or sequence of str, optional
        Id field(s) of those files (default: :attr:`Columns.item`).
    label : str or sequence of str
        The predicted label's field; several, or a glob: one field per sample; a list
        per item: sampled answers.
    classes : sequence, optional
        Labels of class indices, in index order (labels and probability lists).
    samples : bool
        Several rows per item are sampled answers.
    parse : {"none", "number"}
        ``"number"``: an answer is read whole as a number, else missing (:func:`labelvar.io.parse_answer`).
    task_field : str, optional
        The field naming each row's task.
    field : str, optional
        The probabilities' field/column (default: one column per task).
    """

    files: Mapping | None = None
    probabilities: Mapping | None = None
    item: str | Sequence[str] | None = None
    label: str | Sequence[str] = "pred"
    classes: Sequence | None = None
    samples: bool = False
    parse: str = "none"
    task_field: str | None = None
    field: str | None = None

    def __post_init__(self):
        _names_field("predictions.item", self.item, optional=True)
        _names_field("predictions.label", self.label)
        for f in ("task_field", "field"):
            value = getattr(self, f)
            if value is not None and not isinstance(value, str):
                raise ValueError(f"predictions.{f} must be a field name (a string) or None, "
                                 f"got {type(value).__name__} {value!r}")
        if not isinstance(self.samples, (bool, np.bool_)):
            raise ValueError(f"predictions.samples must be True or False, got {self.samples!r}")


def _names_field(name: str, value, optional: bool = False) -> None:
    """A role's columns: a name, or a list of names (strings); None where ``optional``."""
    if value is None and optional:
        return
    if isinstance(value, str):
        return
    ok = not isinstance(value, (bytes, Mapping)) and isinstance(value, (list, tuple, pd.Index,
                                                                        np.ndarray))
    bad = None if not ok else next((x for x in value if not isinstance(x, str)), None)
    if not ok or bad is not None:
        got = value if not ok else bad
        raise ValueError(f"{name} must be a column name or a list of names (strings"
                         f"{', or None' if optional else ''}), got {type(got).__name__} "
                         f"{got!r}")


def _record(value, cls, name: str):
    """``value`` as a ``cls`` record: the record, a mapping of its fields, or None (default)."""
    if value is None:
        return cls()
    if isinstance(value, cls):
        return value
    if isinstance(value, Mapping):
        known = [f.name for f in dataclasses.fields(cls)]
        odd = [k for k in value if k not in known]
        if odd:
            raise ValueError(f"{name}: {odd[0]!r} is no field of {cls.__name__}; fields: "
                             f"{', '.join(known)}")
        return cls(**value)
    raise ValueError(f"{name} must be a labelvar.io.{cls.__name__} (or a mapping of its "
                     f"fields), got {type(value).__name__}")


@fill
def load_tasks(files, *, columns, layout: str = "auto", tasks=None,
               labels: Sequence | None = None, predictions=None) -> dict[str, TaskData]:
    r"""Load panel votes and predictions from files in any supported layout.

    Parameters
    ----------
    files : path, sequence of paths, or mapping of rater name to path
        One file (wide, long or JSONL) or one file per rater (named by its stem, or by
        the mapping's keys).
    columns : Columns or mapping
        Which columns play which role: the panel, the systems, the humans, the item
        id, ... (:class:`Columns`; a mapping of its fields is taken too).
    layout : {"auto", "wide", "long", "jsonl", "raters"}
        ``"auto"``: ``raters`` for several files, ``jsonl`` for ``.json``/``.jsonl``,
        else ``wide``.
    {{tasks}}
    labels : sequence or str, optional
        A string is comma separated, as on the command line (``"0,1,2"``).
        With ``columns.counts``: the label of each count, in order. Without: the
        declared label set, passed to the readers (strings and numbers may then mix;
        see :func:`read_wide`); give it to :func:`labelvar.stratify` too.
    predictions : Predictions or mapping, optional
        Systems whose answers (labels, sampled answers, probabilities) are in files of
        their own (:class:`Predictions`).

    Returns
    -------
    {{tasks_returned}}

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "w.csv")
    >>> _ = open(p, "w").write("id,r1,r2,bot\na,1,1,0\nb,0,1,0\n")
    >>> d = load_tasks(p, columns=Columns(panel="r*", systems="bot", item="id"))
    >>> d["w"].predictions.columns.tolist()
    ['bot']
    >>> load_tasks([p, p], columns=Columns(panel="r*"))
    Traceback (most recent call last):
    ...
    ValueError: columns.item is required with several files (the id column they share)
    """
    cols = _record(columns, Columns, "columns")
    pred = _record(predictions, Predictions, "predictions")
    named = None  # rater files given as a mapping name -> path (the raters layout)
    if isinstance(files, Mapping):
        named = {str(k): v for k, v in files.items()}
        files = list(named.values())
    if isinstance(files, (str, os.PathLike)):
        files = [files]
    if isinstance(files, (bytes, Mapping)) or not isinstance(files, Iterable):
        raise ValueError(f"files: give a path, a list of paths or (one file per rater) a mapping "
                         f"name -> path, got {type(files).__name__}")
    files = list(files)
    bad = next((f for f in files if not isinstance(f, (str, os.PathLike))), None)
    if bad is not None:
        raise ValueError(f"files: {bad!r} is no path; give paths (str or pathlib.Path)")
    files = [Path(f) for f in files]
    if not files:
        raise ValueError("files: no input file given")
    if isinstance(tasks, str):
        tasks = [tasks]
    if tasks is not None and (not isinstance(tasks, Iterable) or isinstance(tasks, Mapping)
                              or not all(isinstance(t, str) for t in tasks)):
        raise ValueError(f"tasks: give task names or globs (a string or a list of strings), "
                         f"got {tasks!r}")
    if isinstance(labels, str):  # comma separated, as on the command line
        labels = [x.strip() for x in labels.split(",") if x.strip()]
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
    if cols.counts and layout not in ("wide", "jsonl"):
        raise ValueError(f"columns.counts: count vectors are read from wide or JSONL files, "
                         f"not the {layout} layout")
    systems, humans = _patterns(cols.systems), _patterns(cols.humans)
    both = [h for h in humans if h in systems]
    if both:
        raise ValueError(f"humans: {both[0]!r} is also given as a system; a rater is evaluated "
                         "as a system or as a human, not both")
    if layout == "wide":
        data = read_wide(files[0], panel=cols.panel, systems=systems, humans=humans,
                         item=cols.item, task_column=cols.task_column, group_sep=cols.group_sep,
                         labels=labels, counts=cols.counts, tasks=tasks)
    elif layout == "long":
        data = read_long(files[0], panel=cols.panel, systems=systems, humans=humans,
                         item=cols.item or "item", rater=cols.rater, label=cols.label,
                         task_column=cols.task_column, labels=labels, tasks=tasks)
    elif layout == "jsonl":
        data = read_jsonl(files[0], panel=cols.panel, systems=systems, item=cols.item,
                          counts=cols.counts, labels=labels, tasks=tasks, humans=humans)
    else:
        if not cols.item:
            raise ValueError("columns.item is required with several files (the id column "
                             "they share)")
        data = read_rater_files(files if named is None else named, panel=cols.panel,
                                systems=systems, humans=humans,
                                item=cols.item, tasks=tasks, labels=labels)
    return _attach(data, pred, cols.item, humans)


def _eval_logs_only(paths) -> bool:
    """Every path an eval log (``inspect:PATH``, ``lmeval:PATH``: joined on its sample ids)."""
    from labelvar.io._eval_logs import eval_log_spec

    plist = [paths] if isinstance(paths, (str, Path)) else list(paths)
    return bool(plist) and all(eval_log_spec(p) for p in plist)


def _attach(data: dict, pred: Predictions, item, humans: list) -> dict:
    """``data`` with the predictions and probabilities files of ``pred`` joined."""
    for what, named, files in (("files", pred.files, "prediction files"),
                               ("probabilities", pred.probabilities, "probability files")):
        if named is not None and not isinstance(named, Mapping):
            raise ValueError(f"predictions.{what} must map each system's name to its file(s), "
                             f"got {type(named).__name__}")
        logs_only = what == "files" and named and all(map(_eval_logs_only, named.values()))
        if named and not (pred.item or item) and not logs_only:  # (a log: its sample ids)
            raise ValueError(f"predictions.item is required with {files} (the id field of "
                             "those files)")
    for name, paths in (pred.files or {}).items():
        data = _attach_predictions(data, name, paths, item=pred.item or item or "item",
                                   label=pred.label,
                                   classes=pred.classes, task=None, one_task="tasks",
                                   samples=pred.samples, parse=pred.parse,
                                   task_field=pred.task_field)
    for name, paths in (pred.probabilities or {}).items():
        data = _attach_probabilities(data, name, paths, item=pred.item or item,
                                     field=pred.field, classes=pred.classes, task=None,
                                     one_task="tasks", field_param="predictions.field")
    # (humans kept in a predictions file of their own are named by their pattern too)
    return {t: td._replace(humans=tuple(dict.fromkeys(td.humans + tuple(
                c for c in map(str, td.predictions.columns)
                if any(fnmatch.fnmatchcase(c, h) for h in humans)))))
            for t, td in data.items()}
