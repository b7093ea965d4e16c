"""``labelvar stratify``: the agreement-stratified report of real results."""

from __future__ import annotations

import argparse
import re
import sys

from labelvar._base._defaults import CONFIDENCE_LEVEL
from labelvar.cli._common import _floats, _print_table, _strs, _whole, _write

# --------------------------------------------------------------------------- stratify
#: flags renamed to the one vocabulary: old spelling -> new one (the old is refused, naming it)
RENAMED = {"--n-boot": "--n-resamples", "--boot-raters": "--resample-raters"}


class _Renamed(argparse.Action):
    """An old flag: refused with one line naming its new spelling (exit 2)."""

    def __init__(self, option_strings, dest, **kwargs):
        kwargs.update(nargs="?", help=argparse.SUPPRESS, default=None)
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        raise ValueError(f"{option_string} is now {RENAMED[option_string]} (the one name "
                         "for bootstrap resamples everywhere)")


#: input layouts (labelvar.io.LAYOUTS; kept here so building the parser imports no pandas)
_LAYOUTS = ("auto", "wide", "long", "jsonl", "raters")


def _add_stratify(sub) -> None:
    p = sub.add_parser(
        "stratify",
        help="agreement-stratified report of real results (the paper's Table 3)",
        description="Bin items by the ground-truth panel's agreement p_d and report, per bin, "
        "S, m, each system's score, the human group H, the expected score E and the gaps. "
        "Layouts: wide CSV/TSV (one row per item), long CSV (item, rater, label), JSONL "
        "(a list of labels per item) or one file per rater (several FILEs, columns = tasks).",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="input file(s)")
    p.add_argument("--layout", choices=_LAYOUTS,
                   default="auto", help="input layout (default: jsonl for .json/.jsonl, "
                   "raters for several files, else wide)")
    p.add_argument("--panel", default=None,
                   help="panel columns/raters (names or globs, comma separated); for JSONL the "
                   "field holding the list of labels")
    p.add_argument("--panel-counts", default=None, metavar="FIELD_OR_COLUMNS",
                   help="instead of --panel: per-label vote counts, a JSONL field holding a "
                   "list of counts (ChaosNLI's label_count) or CSV count columns; --labels "
                   "names the counts in order (default: the column names, or 0,1,...)")
    p.add_argument("--systems", default="", help="columns/raters/fields to evaluate")
    p.add_argument("--humans", default="",
                   help="columns/raters forming the independent human group H")
    p.add_argument("--item", default=None, help="item id column(s)/field(s)")
    p.add_argument("--task-column", default=None, help="column naming each row's task")
    p.add_argument("--group-sep", default=None,
                   help="wide files with <task><SEP><rater> columns (one group per task)")
    p.add_argument("--tasks", default=None,
                   help="tasks to evaluate, names or globs (default all): the raters layout's "
                   "task columns, or tasks of a task column, column groups or JSONL")
    p.add_argument("--rater-column", default="rater", help="long layout: rater column")
    p.add_argument("--label-column", default="label", help="long layout: label column")
    p.add_argument("--predictions", action="append", default=[], metavar="NAME=PATH[,PATH]",
                   help="a system whose predictions are in separate files (repeatable)")
    p.add_argument("--pred-item", default=None,
                   help="item id field(s) of --predictions files; several (doc_id,system_id) "
                   "are one id joined like the panel's --item fields, in the same order")
    p.add_argument("--pred-label", default="pred",
                   help="label field of --predictions files; a field holding a list per item "
                   "(G-Eval's all_responses), or several fields, are sampled answers: scored "
                   "by their modal answer (ties: the first sampled), sample shares and "
                   "self-agreement")
    p.add_argument("--pred-samples", action="store_true",
                   help="several rows per item in --predictions files are sampled answers "
                   "(without it a repeated id is refused)")
    p.add_argument("--pred-parse", choices=("none", "number"), default="none",
                   help="number: each predicted answer is the number it starts with (G-Eval's "
                   "' 4'); answers without one are missing, counted in a note")
    p.add_argument("--pred-task", default=None, metavar="FIELD",
                   help="field/column of --predictions files naming each row's task (one "
                   "file, several tasks)")
    p.add_argument("--pred-classes", type=_strs, default=None,
                   help="labels of class indices in --predictions files, in index order (and "
                   "of the list positions of --prob-field)")
    p.add_argument("--probabilities", action="append", default=[], metavar="NAME=PATH[,PATH]",
                   help="a system's probability outputs in separate files (repeatable), joined "
                   "on --pred-item; scored against the panel's vote shares (cross-entropy, "
                   "total variation) and the majority (AUROC, AUPRC)")
    p.add_argument("--prob-field", default=None, metavar="FIELD",
                   help="field/column of --probabilities files holding a list of class "
                   "probabilities (order: --pred-classes) or the positive class's; default: "
                   "one column per task (CheXpert's predictions files)")
    p.add_argument("--ordinal", action="store_true",
                   help="the labels are ordered ratings: add MAE, within-1, quadratic-weighted "
                   "kappa, Spearman and Kendall against the panel, and ordinal/interval alpha")
    p.add_argument("--aggregation", choices=("majority", "dawid_skene"), default="majority",
                   help="ground truth: the panel's plurality (default) or the Dawid-Skene "
                   "posterior mode (bins by its probability)")
    p.add_argument("--no-agreement", action="store_true",
                   help="skip the panel agreement table (Fleiss kappa, Krippendorff alpha)")
    p.add_argument("--pos-label", default=None, help="positive label for F1")
    p.add_argument("--labels", type=_strs, default=None,
                   help="the label set (default inferred; rare votes outside a given set are "
                   "dropped as missing, with a note)")
    p.add_argument("--recode", action="append", default=None, metavar="NAME:OLD=NEW,...",
                   help="map a system's labels onto the panel's (NAME 'panel': the panel's "
                   "votes), e.g. gpt4:1=1,2=3,3=5, or a .json/.yaml file {name: {old: new}}; "
                   "repeatable. Needed for system labels outside the panel's set, two "
                   "spellings of one label (Entailment, entailment), and a rating scale of "
                   "another range: a system rating from the bottom of a 3+ point scale but "
                   "never its top, with 5%% or more of the panel's votes above its ratings "
                   "(G-Eval's 1-3 against 1-5), is refused unless mapped (or given the "
                   "identity map gpt4:1=1,2=2,3=3: the same scale, used narrowly)")
    p.add_argument("--bins", type=_floats, default=None, help="p_d bin edges, e.g. 0.5,0.7,1")
    p.add_argument("--metrics", type=_strs, default=None,
                   help="accuracy, precision, recall, f1, kappa; with --ordinal mae, within1, "
                   "qwk, spearman, kendall; with --probabilities cross_entropy, "
                   "total_variation, auroc, auprc (default: f1,accuracy and all of those "
                   "that apply)")
    p.add_argument("--simulated-human", type=_whole, default=None, metavar="D",
                   help="add H' (a panel vote drawn at random, D draws averaged); default 5 "
                   "when there are no systems and no humans (a panel-only report), else 0")
    p.add_argument("--min-bin-size", type=_whole, default=10, metavar="S",
                   help="bins with fewer items are flagged small and left out of the bin "
                   "tests (default 10)")
    p.add_argument("--leave-one-out", action=argparse.BooleanOptionalAction, default=None,
                   help="with H': H'-loo (the drawn vote removed from the majority), the "
                   "reference without humans, beside the self-inclusive H' (default); "
                   "--no-leave-one-out: H' alone, as the paper's Table 4")
    p.add_argument("--skill-model", default=None,
                   metavar="MODEL", help="one_coin, dawid_skene or dawid_skene_difficulty: fit it "
                   "to the panel's and the humans' votes and add each human's skill-based "
                   "expected accuracy (expected_skill) beside E")
    p.add_argument("--panel-loo", action="store_true",
                   help="score each identified panel rater against the majority of the other "
                   "raters (panel-loo) and, labelled, of the whole panel (panel-self); a panel "
                   "rater may then be one of --compare")
    p.add_argument("--p-d-one", type=float, default=None, metavar="P",
                   help="p_d used for E where the observed p_d is 1 (the paper: 0.97; "
                   "default: 1)")
    p.add_argument("--human-round", type=_whole, default=None, metavar="D",
                   help="round each human's score to D decimals before H's mean/sd (paper: 2)")
    p.add_argument("--tie-rule", default="random", metavar="RULE",
                   help="majority label of tied items: random (seeded, default), lowest (the "
                   "lowest label), first_vote (the tied label voted first in rater order, the "
                   "paper's code) or drop (the paper's Table 5)")
    p.add_argument("--missing-predictions", choices=("error", "drop"), default="error",
                   help="items some system has no prediction for: error, or drop (counted)")
    p.add_argument("--confidence-level", type=float, default=CONFIDENCE_LEVEL,
                   help=f"of every interval (default {CONFIDENCE_LEVEL:g})")
    p.add_argument("--n-resamples", type=_whole, default=1000,
                   help="bootstrap resamples for F1 CIs and the bootstrap tests (0: none)")
    p.add_argument("--resample-raters", action="store_true",
                   help="bootstrap over items and each item's panel votes (all CIs)")
    for old in RENAMED:
        p.add_argument(old, action=_Renamed, dest=f"_renamed{old.replace('-', '_')}")
    p.add_argument("--seed", type=_whole, default=0,
                   help="seed of the bootstrap, tie breaks and simulated humans")
    p.add_argument("--compare", type=_strs, default=None, metavar="A,B",
                   help="systems A and B on the same items, per task, bin and metric: exact "
                   "McNemar (accuracy), paired bootstrap (others), Holm over all comparisons")
    p.add_argument("--compare-across-tasks", action="store_true",
                   help="with --compare: also the paired t-test across tasks, per bin "
                   "(Figure 4)")
    p.add_argument("--format", choices=("markdown", "csv"), default="markdown",
                   help="table format on stdout")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="write the tidy table, the paper-layout tables, tests and figures here")
    p.add_argument("--no-figures", action="store_true",
                   help="with --out: write the tables and report.html without drawing the "
                   "figures (PNG and PDF)")
    p.set_defaults(func=_run_stratify)


#: load_tasks/stratify parameters named in their errors -> the flags a user typed
_STRATIFY_FLAGS = {"files": "FILE", "layout": "--layout", "humans": "--humans", "item": "--item",
                   "predictions": "--predictions",
                   "pred_item": "--pred-item", "labels": "--labels", "pos_label": "--pos-label",
                   "missing": "--missing-predictions", "panel_counts": "--panel-counts",
                   "replicates": "--simulated-human", "min_bin_size": "--min-bin-size",
                   "confidence_level": "--confidence-level", "n_resamples": "--n-resamples",
                   "bins": "--bins", "metrics": "--metrics", "p_d_one": "--p-d-one",
                   "human_round": "--human-round", "tasks": "--tasks", "systems": "--systems",
                   "panel": "--panel", "task_column": "--task-column", "group_sep": "--group-sep",
                   "seed": "--seed", "compare": "--compare", "ordinal": "--ordinal",
                   "aggregation": "--aggregation", "probabilities": "--probabilities",
                   "prob_field": "--prob-field", "resample_raters": "--resample-raters",
                   "recode": "--recode", "pred_classes": "--pred-classes",
                   "tie_rule": "--tie-rule", "leave_one_out": "--leave-one-out",
                   "leave_one_rater_out": "--panel-loo", "expected_skill": "--skill-model",
                   "model": "--skill-model",
                   "parse": "--pred-parse", "task_field": "--pred-task",
                   "samples": "--pred-samples",
                   # (load_tasks' records: io.Columns, io.Predictions)
                   "columns.item": "--item", "columns.counts": "--panel-counts",
                   "predictions.item": "--pred-item", "predictions.classes": "--pred-classes",
                   "predictions.field": "--prob-field", "predictions.files": "--predictions",
                   "predictions.probabilities": "--probabilities"}


_NAMED = re.compile(r"\b([\w.]+)=(\[[^\]]*\]|'[^']*'|[^\s;,)]+)")


def _flag_error(exc: ValueError) -> ValueError:
    """The error with parameter names (``labels: ...``, ``labels=[0, 1]``) as flags."""
    msg = str(exc)
    head = re.match(r"([\w.]+)(?=:| must | is | takes | '[^']*': )", msg)  # (predictions 'm': ...)
    if head and head.group(1) in _STRATIFY_FLAGS:
        msg = _STRATIFY_FLAGS[head.group(1)] + msg[head.end():]

    def flag(m):
        if m.group(1) not in _STRATIFY_FLAGS:
            return m.group()
        value = ",".join(x.strip(" '\"") for x in m.group(2).strip("[]").split(","))
        if value == "True":  # a switch (--ordinal), not a flag taking a value
            return _STRATIFY_FLAGS[m.group(1)]
        return f"{_STRATIFY_FLAGS[m.group(1)]} {value}"

    return ValueError(_NAMED.sub(flag, msg))


def _predictions(specs, flag: str = "--predictions") -> dict:
    """``NAME=PATH[,PATH]`` flags as a name -> paths mapping."""
    out = {}
    for spec in specs:
        name, sep, paths = spec.partition("=")
        if not sep or not name.strip() or not paths:
            raise ValueError(f"{flag} must be NAME=PATH[,PATH...], got {spec!r}")
        if name.strip() in out:  # (a dict would keep the second file silently)
            raise ValueError(f"{flag}: {name.strip()!r} is given twice; give each system one "
                             f"name (its several files: {name.strip()}=PATH,PATH)")
        out[name.strip()] = _strs(paths)
    return out


#: flags of the predictions/probabilities files, and the default each has when not given
_PRED_FLAGS = {"pred_item": None, "pred_label": "pred", "pred_samples": False,
               "pred_parse": "none", "pred_task": None, "pred_classes": None,
               "prob_field": None}


def _no_idle_flags(args) -> None:
    """Refuse a flag of --predictions/--probabilities files given without such files."""
    if args.predictions or args.probabilities:
        if args.prob_field is not None and not args.probabilities:
            raise ValueError("--prob-field names a field of --probabilities files; there are "
                             "none: add --probabilities NAME=PATH or leave it out")
        return
    given = [f for f, default in _PRED_FLAGS.items() if getattr(args, f) != default]
    if given:
        flag = "--" + given[0].replace("_", "-")
        raise ValueError(f"{flag} describes --predictions/--probabilities files; there are "
                         "none: add --predictions NAME=PATH (or --probabilities) or leave it out")


def _run_stratify(args) -> int:
    import warnings

    from labelvar import io
    from labelvar.evaluation import _stratified as st
    from labelvar.report import _writers as report

    if (args.panel is None) == (args.panel_counts is None):
        raise ValueError("give the panel's votes (--panel) or its per-label counts "
                         "(--panel-counts), one of the two")
    if args.compare is not None and len(args.compare) != 2:
        raise ValueError(f"--compare takes two systems A,B; got {args.compare!r}")
    if args.compare_across_tasks and args.compare is None:
        raise ValueError("--compare-across-tasks needs --compare A,B")
    if args.no_figures and not args.out:
        raise ValueError("--no-figures goes with --out DIR (without --out no figure is drawn)")
    _no_idle_flags(args)
    if args.out:  # before any work: a report directory that cannot be written is refused
        report.check_report_dir(args.out)
    counts = args.panel_counts is not None
    metrics = args.metrics
    if metrics is None:  # the paper's order, then what the inputs allow
        metrics = (["f1", "accuracy"] + (list(st.ORDINAL_METRICS) if args.ordinal else [])
                   + (list(st.PROBABILITY_METRICS) if args.probabilities else []))
    caught: list = []
    try:
        with warnings.catch_warnings(record=True) as loading:
            warnings.simplefilter("always", st.DataNoteWarning)
            data = io.load_tasks(
                args.files, layout=args.layout, tasks=args.tasks, labels=args.labels,
                columns=io.Columns(
                    panel=args.panel_counts if counts else args.panel, systems=args.systems,
                    humans=args.humans, item=args.item, rater=args.rater_column,
                    label=args.label_column, task_column=args.task_column,
                    group_sep=args.group_sep, counts=counts),
                predictions=io.Predictions(
                    files=_predictions(args.predictions),
                    probabilities=_predictions(args.probabilities, "--probabilities"),
                    item=args.pred_item, label=args.pred_label, classes=args.pred_classes,
                    samples=args.pred_samples, parse=args.pred_parse,
                    task_field=args.pred_task, field=args.prob_field))
        caught += loading
        # (load_tasks keeps the --tasks in every layout, and refuses a --pred-label or
        # --prob-field that would be the answer of several tasks on the same items)
        loaded = list(dict.fromkeys(c for td in data.values() for c in td.predictions.columns))
        # humans a loader named (a list per item: <field>_1, <field>_2, ...) and the patterns
        named = list(dict.fromkeys(h for td in data.values() for h in td.humans))
        rest = [h for h in _strs(args.humans) if not any(n.startswith(f"{h}_") for n in named)]
        humans = named + [h for h in (io.select_columns(loaded, rest, "humans") if rest else [])
                          if h not in named]
        # a rater matched by both --systems and --humans is refused by the reader
        # (io.load_tasks: "humans: 'h1' is also among the systems")
        sampled = any(td.samples for td in data.values())
        if args.metrics is None and sampled:  # their shares against the panel's, too
            metrics = metrics + [m for m in ("cross_entropy", "total_variation")
                                 if m not in metrics]
        if args.metrics is None and not loaded and not sampled:  # probabilities only
            metrics = [m for m in metrics if m not in st.LABEL_METRICS] or metrics
        with warnings.catch_warnings(record=True) as scoring:
            warnings.simplefilter("always", st.DataNoteWarning)
            truth = st.Truth(aggregation=args.aggregation, tie_rule=args.tie_rule)
            intervals = st.Intervals(n_resamples=args.n_resamples,
                                     confidence_level=args.confidence_level,
                                     resample_raters=args.resample_raters,
                                     min_bin_size=args.min_bin_size)
            paper = st.Paper(replicates=args.simulated_human,
                             leave_one_out=args.leave_one_out is not False,
                             p_d_one=args.p_d_one, human_round=args.human_round)
            labels = st.Labels(args.labels, pos_label=args.pos_label, ordinal=args.ordinal)
            result = st.stratify(
                data, humans=humans, labels=labels, bins=args.bins, metrics=metrics,
                truth=truth, intervals=intervals, paper=paper,
                missing=args.missing_predictions, seed=args.seed, recode=args.recode)
            if args.leave_one_out is not None and not (result.table.role == "H'").any():
                flag = "--leave-one-out" if args.leave_one_out else "--no-leave-one-out"
                raise ValueError(f"{flag} acts on the simulated human H', which this run does "
                                 "not draw (--simulated-human 0, the default with systems or "
                                 "humans); add --simulated-human D or leave it out")
            if args.panel_loo:
                result = result.leave_one_rater_out()
            if args.skill_model is not None:
                result = result.expected_skill(args.skill_model)
            agreement = None if args.no_agreement else result.agreement()
            comparisons = result.compare(*args.compare) if args.compare else None
        caught += scoring
    except ValueError as exc:
        msg = str(_flag_error(exc))
        if counts and msg.startswith("--panel:"):  # (the panel was given as its counts)
            msg = "--panel-counts" + msg[len("--panel"):]
        raise ValueError(msg) from None
    for line in result.describe().splitlines():  # what was read, on stderr: piped tables stay clean
        print(f"labelvar: {line}", file=sys.stderr)
    for w in caught:
        if issubclass(w.category, st.DataNoteWarning):
            print(f"labelvar: note: {_flag_error(ValueError(w.message))}", file=sys.stderr)
    across = args.compare if args.compare_across_tasks else None
    paired = report.paired_tests(result, across)
    if args.format == "csv":
        _print_table(result.table, "csv")
    else:
        _write(report.stratify_markdown(result, compare=across, paired=paired,
                                        agreement=agreement, comparisons=comparisons))
    if args.out:
        paths = report.write_stratify_report(result, args.out, compare=across, paired=paired,
                                             agreement=agreement, comparisons=comparisons,
                                             figures=not args.no_figures,
                                             data=data, sources=[*args.files, *args.predictions,
                                                                 *args.probabilities])
        print(f"labelvar: wrote {', '.join(p.name for p in paths)} to {args.out}", file=sys.stderr)
    return 0
