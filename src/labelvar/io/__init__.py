"""Loaders for the layouts multi-annotator results come in.

Every loader returns ``{task: TaskData(panel, predictions)}``: ``panel`` is an
items x annotators :class:`pandas.DataFrame` (missing votes are NaN/None, so
panels may differ in size per item) and ``predictions`` an items x systems
DataFrame on the same index (the item ids). :func:`labelvar.stratify` accepts
that mapping directly.

Votes (one row per vote: item, rater, label) are read and checked in one place,
:func:`read_votes`, which every entry point taking votes uses (:class:`Votes`: ids as
text, labels canonical, the votes as codes).

Layouts
-------
wide      one row per item; panel and system columns chosen by name or glob
          (:func:`read_wide`); several tasks via a task column or one column
          group per task (``Cardiomegaly/bc1`` with ``group_sep="/"``)
raters    one file per annotator or system, one column per task, joined on an
          item key (:func:`read_rater_files`; the CheXpert layout)
long      one row per (item, rater, label), crowd-kit style, optional task column
          (:func:`read_long`)
jsonl     one object per item with a list of panel labels, e.g. SNLI's
          ``annotator_labels``; a list of dicts gives one task per key
          (DialSummEval's ``annotations``) (:func:`read_jsonl`)

Evaluation logs (UK AISI Inspect ``.json``/``.eval``, lm-evaluation-harness
``--log_samples`` JSONL) are read by :func:`read_eval_log` into a predictions table,
and joined like a predictions file when its path is given as ``inspect:PATH`` or
``lmeval:PATH``.

Predictions kept in their own files (one row per item: id and label) are joined
with :func:`attach_predictions`, probability outputs with
:func:`attach_probabilities`. :func:`load_tasks` picks the layout from the
files and does all of this in one call (the ``labelvar stratify`` input).

What a loader was told travels with the data, in :class:`TaskData`'s role fields:
the humans (:func:`load_tasks`), count panels, the declared label set, and whether the
panel's columns are raters (not for a JSON list of votes or count vectors).

Item ids are text exactly as written (``0001``, ``01`` and ``1.0`` are three ids), in
every layout and in the files joined to them. Every problem (a pattern that matches no
column or is given twice, two columns of one name, a row with fewer cells than the
header, a duplicated item id, a prediction file without an id the panel needs, label
values of mixed kinds) raises :class:`ValueError` with one line naming it. What a
label value may be is checked the same way here and in :func:`labelvar.stratify`, for the
tables it is given, read here or not.
"""

# The code is in private modules, one per layout (_wide, _rater_files, _long, _jsonl), the
# prediction and probability files (_predictions), load_tasks (_load), the one votes reader
# (_votes), the pilot's counts (_pilot), the synthetic_panel
# example (_synthetic) and the shared pieces (_common: TaskData, column selection,
# read_frame, the checks). This face only re-exports; import from labelvar.io. The readers
# may import pandas, numpy, the foundations (labelvar._base: _docs, _validate, _seeding,
# _warnings) and the part's own helpers (_labels, _csv, _reading, _scales, _samples), never
# the models of votes, evaluation, planning, the engine, figures or the command line. What a
# label value may be is defined once, in labelvar.io._labels.

from labelvar.io._common import TaskData, read_frame, select_columns
from labelvar.io._eval_logs import read_eval_log
from labelvar.io._jsonl import read_jsonl
from labelvar.io._load import LAYOUTS, Columns, Predictions, load_tasks
from labelvar.io._long import read_long
from labelvar.io._predictions import attach_predictions, attach_probabilities
from labelvar.io._rater_files import read_rater_files
from labelvar.io._samples import modal_answer, parse_answer, sample_shares
from labelvar.io._synthetic import synthetic_panel
from labelvar.io._votes import Votes, read_votes
from labelvar.io._wide import read_wide

__all__ = [
    "LAYOUTS",
    "Columns",
    "Predictions",
    "TaskData",
    "Votes",
    "attach_predictions",
    "attach_probabilities",
    "load_tasks",
    "modal_answer",
    "parse_answer",
    "read_jsonl",
    "read_long",
    "read_rater_files",
    "read_eval_log",
    "read_votes",
    "read_frame",
    "read_wide",
    "sample_shares",
    "select_columns",
    "synthetic_panel",
]
