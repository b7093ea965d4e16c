"""The ``labelvar`` command line.

One console script with subcommands. Every subcommand validates its input
through the same functions as the Python API; a bad value ends the program
with one line on stderr (``labelvar: error: ...``) and exit code 2, never a
traceback.

Subcommands
-----------
expect    closed-form expectations and tails for given p_d, m, n
tables    the paper's Tables 1 and 2 as computed by labelvar
sweep     Hydra sweeps over simulation grids
collect   merge a multirun directory into one table
stratify  agreement-stratified report of real results
design    study sizing: items and annotators per item

This module parses, calls and prints: tables are printed by
:func:`labelvar._format.render_table`, inputs loaded by :mod:`labelvar.io`, report
directories written by :mod:`labelvar.report`.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path


class UsageError(ValueError):
    """A command-line argument is invalid (reported in one line, exit code 2)."""


class _HelpFormatter(argparse.HelpFormatter):
    """Help that states every option's default: ``(default: X)`` unless the text gives it.

    Like :class:`argparse.ArgumentDefaultsHelpFormatter`, but lists are shown as typed
    (``0.5,0.6``), and options whose default is "not given" (None, False) say nothing.
    """

    def _get_help_string(self, action):
        text = action.help or ""
        default = action.default
        if (not action.option_strings or action.required or "default" in text
                or default in (None, False, "", argparse.SUPPRESS) or default == []):
            return text
        if isinstance(default, (list, tuple)):
            default = ",".join(str(v) for v in default)
        return f"{text} (default: {str(default).replace('%', '%%')})".lstrip()


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line, exit code 2, and whose help shows defaults."""

    def __init__(self, *args, formatter_class=_HelpFormatter, **kwargs):
        self.flags: set[str] = set()  # every option string, for :func:`_as_flag`
        self.commands: dict[str, _Parser] = {}  # sub-command name -> its parser
        super().__init__(*args, formatter_class=formatter_class, **kwargs)

    def add_argument(self, *args, **kwargs):  # noqa: D102 - argparse API
        action = super().add_argument(*args, **kwargs)
        self.flags.update(action.option_strings)
        return action

    def add_subparsers(self, **kwargs):  # noqa: D102 - argparse API
        action = super().add_subparsers(**kwargs)
        self.commands = action.choices  # filled as each sub-command is added
        return action

    def error(self, message: str):  # noqa: D102 - argparse API
        raise UsageError(f"{self.prog}: error: {message}")


def _floats(text: str) -> list[float]:
    """Parse ``0.5,0.6`` or ``0.5`` into a (non-empty) list of floats."""
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        values = []
    if not values:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got {text!r}")
    return values


def _ints(text: str) -> list[int]:
    """Parse ``10,100`` into a list of ints."""
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        values = []
    if not values:
        msg = f"expected whole numbers separated by commas, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return values


# --------------------------------------------------------------------------- expect / tables
def _add_expect(sub) -> None:
    p = sub.add_parser(
        "expect",
        help="expected accuracy/precision/recall/F1 and tails under the coin model",
        description="Closed-form expectations of the coin-toss paradigm for every combination "
        "of the given values (comma-separated lists allowed).",
    )
    p.add_argument("--p-d", type=_floats, required=True, metavar="P",
                   help="probability of agreeing with the majority label, in [0, 1]")
    p.add_argument("--m", type=_floats, default=[0.5], metavar="M",
                   help="positive-class ratio in [0, 1] (default 0.5)")
    p.add_argument("--n-items", type=_ints, default=[100], metavar="N",
                   help="number of items (default 100)")
    p.add_argument("--threshold", type=_floats, default=[0.8], metavar="A",
                   help="accuracy threshold for P(accuracy >= A), in [0, 1] (default 0.8)")
    p.add_argument("--confidence-level", type=float, default=0.9, metavar="C",
                   help="coverage of the exact F1 interval (default 0.9)")
    p.add_argument("--format", choices=("markdown", "csv"), default="markdown",
                   help="table format on stdout")
    p.set_defaults(func=_run_expect)


def _run_expect(args) -> int:
    from labelvar import analytic

    # rows, not a DataFrame: this command imports neither pandas nor numba
    table = analytic._expectation_rows(args.p_d, args.m, args.n_items, args.threshold,
                                       args.confidence_level)
    _print_table(table, args.format)
    return 0


def _add_tables(sub) -> None:
    p = sub.add_parser("tables", help="the paper's Tables 1 and 2 as computed by labelvar")
    p.add_argument("--format", choices=("markdown", "csv"), default="markdown",
                   help="table format on stdout")
    p.add_argument("--table", choices=("1", "2", "all"), default="all", help="which table")
    p.set_defaults(func=_run_tables)


def _run_tables(args) -> int:
    from labelvar import analytic

    if args.table in ("1", "all"):
        print("Table 1: P(accuracy >= r_c) for N = 100 and N = 10 (exact binomial tails)")
        _print_table(analytic._table1_rows(), args.format)
    if args.table in ("2", "all"):
        if args.table == "all":
            print()
        print("Table 2: expected precision and F1 for given p_d (expected recall) and m")
        _print_table(analytic._table2_rows(), args.format)
    return 0


def _print_table(table, fmt: str) -> None:
    from labelvar._format import render_table

    sys.stdout.write(render_table(table, fmt))


# --------------------------------------------------------------------------- sweep / collect
def _add_sweep(sub) -> None:
    # Every argument after `sweep` goes to the Hydra app unchanged (-m, hydra/launcher=...,
    # --cfg job, overrides); prefix_chars no user types keeps argparse out of the way.
    p = sub.add_parser(
        "sweep",
        help="run a Hydra sweep (e.g. `labelvar sweep experiment=figure1`; `sweep --help`)",
        description="Hydra app: labelvar sweep [-m] [--quiet] [key=value ...]",
        prefix_chars="\x00", add_help=False,
    )
    p.add_argument("hydra_args", nargs=argparse.REMAINDER)
    p.set_defaults(func=_run_sweep)


def _run_sweep(args) -> int:
    from labelvar import sweep

    return sweep.cli_main(args.hydra_args)


def _add_collect(sub) -> None:
    p = sub.add_parser(
        "collect",
        help="merge the results tables of a multirun directory into one table",
        description="Merge every job's results table under DIR (adds experiment and job "
        "columns) into DIR/collected.csv or --out.",
    )
    p.add_argument("sweep_dir", metavar="DIR", help="a multirun (or single run) directory")
    p.add_argument("--out", default=None, help="output file, .csv or .parquet "
                   "(default DIR/collected.csv)")
    p.add_argument("--allow-missing", action="store_true",
                   help="merge even if some job directories have no results table")
    p.set_defaults(func=_run_collect)


def _run_collect(args) -> int:
    from labelvar import sweep

    table, path = sweep.collect(args.sweep_dir, out=args.out, allow_missing=args.allow_missing)
    print(f"{path} ({len(table)} rows from {table['job'].nunique()} jobs)")
    return 0


# --------------------------------------------------------------------------- stratify
#: input layouts (labelvar.io.LAYOUTS; kept here so building the parser imports no pandas)
_LAYOUTS = ("auto", "wide", "long", "jsonl", "raters")


def _strs(text: str) -> list[str]:
    """Parse ``a,b`` into a list of non-empty strings."""
    return [x.strip() for x in text.split(",") if x.strip()]


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
    p.add_argument("--pred-item", default=None, help="item id field of --predictions files")
    p.add_argument("--pred-label", default="pred", help="label field of --predictions files")
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
    p.add_argument("--simulated-human", type=int, default=None, metavar="D",
                   help="add H' (a panel vote drawn at random, D draws averaged); default 5 "
                   "when there are no systems and no humans (a panel-only report), else 0")
    p.add_argument("--min-bin-size", type=int, default=10, metavar="S",
                   help="bins with fewer items are flagged small and left out of the bin "
                   "tests (default 10)")
    p.add_argument("--leave-one-out", action="store_true",
                   help="add H'-loo (the drawn vote removed from the majority)")
    p.add_argument("--p-d-one", type=float, default=None, metavar="P",
                   help="p_d used for E where the observed p_d is 1 (the paper: 0.97; "
                   "default: 1)")
    p.add_argument("--human-round", type=int, default=None, metavar="D",
                   help="round each human's score to D decimals before H's mean/sd (paper: 2)")
    p.add_argument("--tie-rule", choices=("random", "first", "drop"), default="random",
                   help="majority label of tied items: random (seeded), first label, or drop")
    p.add_argument("--missing-predictions", choices=("error", "drop"), default="error",
                   help="items some system has no prediction for: error, or drop (counted)")
    p.add_argument("--confidence-level", type=float, default=0.95,
                   help="of every interval (default 0.95)")
    p.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples for F1 CIs")
    p.add_argument("--boot-raters", action="store_true",
                   help="bootstrap over items and each item's panel votes (all CIs)")
    p.add_argument("--seed", type=int, default=0,
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
    p.set_defaults(func=_run_stratify)


#: load_tasks/stratify parameters named in their errors -> the flags a user typed
_STRATIFY_FLAGS = {"files": "FILE", "layout": "--layout", "humans": "--humans", "item": "--item",
                   "predictions": "--predictions",
                   "pred_item": "--pred-item", "labels": "--labels", "pos_label": "--pos-label",
                   "missing": "--missing-predictions", "panel_counts": "--panel-counts",
                   "simulated_human": "--simulated-human", "min_bin_size": "--min-bin-size",
                   "confidence_level": "--confidence-level", "n_boot": "--n-boot",
                   "bins": "--bins", "metrics": "--metrics", "p_d_one": "--p-d-one",
                   "human_round": "--human-round", "tasks": "--tasks", "systems": "--systems",
                   "panel": "--panel", "task_column": "--task-column", "group_sep": "--group-sep",
                   "seed": "--seed", "compare": "--compare", "ordinal": "--ordinal",
                   "aggregation": "--aggregation", "probabilities": "--probabilities",
                   "prob_field": "--prob-field", "boot_raters": "--boot-raters",
                   "recode": "--recode", "pred_classes": "--pred-classes"}
_NAMED = re.compile(r"\b(\w+)=(\[[^\]]*\]|'[^']*'|[^\s;,)]+)")


def _flag_error(exc: ValueError) -> ValueError:
    """The error with parameter names (``labels: ...``, ``labels=[0, 1]``) as flags."""
    msg = str(exc)
    head = re.match(r"(\w+)(?=:| must | is | takes | '[^']*': )", msg)  # (predictions 'm': ...)
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
        out[name.strip()] = _strs(paths)
    return out


def _run_stratify(args) -> int:
    import warnings

    from labelvar import io, report
    from labelvar import stratified as st

    if (args.panel is None) == (args.panel_counts is None):
        raise ValueError("give the panel's votes (--panel) or its per-label counts "
                         "(--panel-counts), one of the two")
    if args.compare is not None and len(args.compare) != 2:
        raise ValueError(f"--compare takes two systems A,B; got {args.compare!r}")
    if args.compare_across_tasks and args.compare is None:
        raise ValueError("--compare-across-tasks needs --compare A,B")
    if args.out:  # before any work: a report directory that cannot be written is refused
        report.check_report_dir(args.out)
    counts = args.panel_counts is not None
    metrics = args.metrics
    if metrics is None:  # the paper's order, then what the inputs allow
        metrics = (["f1", "accuracy"] + (list(st.ORDINAL_METRICS) if args.ordinal else [])
                   + (list(st.PROBABILITY_METRICS) if args.probabilities else []))
    try:
        data = io.load_tasks(
            args.files, panel=args.panel_counts if counts else args.panel, layout=args.layout,
            systems=args.systems, humans=args.humans, item=args.item,
            task_column=args.task_column, group_sep=args.group_sep, tasks=args.tasks,
            rater=args.rater_column, label=args.label_column,
            predictions=_predictions(args.predictions), pred_item=args.pred_item,
            pred_label=args.pred_label, pred_classes=args.pred_classes, panel_counts=counts,
            labels=args.labels,
            probabilities=_predictions(args.probabilities, "--probabilities"),
            prob_field=args.prob_field)
        # (load_tasks keeps the --tasks in every layout, and refuses a --pred-label or
        # --prob-field that would be the answer of several tasks on the same items)
        loaded = list(dict.fromkeys(c for td in data.values() for c in td.predictions.columns))
        humans = io.select_columns(loaded, args.humans, "humans") if args.humans else []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", st.DataNoteWarning)
            result = st.stratify(
                data, humans=humans, pos_label=args.pos_label, labels=args.labels,
                bins=args.bins, metrics=metrics, simulated_human=args.simulated_human,
                leave_one_out=args.leave_one_out, p_d_one=args.p_d_one,
                human_round=args.human_round, tie_rule=args.tie_rule,
                missing=args.missing_predictions, confidence_level=args.confidence_level,
                n_boot=args.n_boot, boot_raters=args.boot_raters, seed=args.seed,
                panel_counts=counts, min_bin_size=args.min_bin_size, ordinal=args.ordinal,
                aggregation=args.aggregation, agreement=not args.no_agreement,
                compare=args.compare, progress=None, recode=args.recode)
    except ValueError as exc:
        msg = str(_flag_error(exc))
        if counts and msg.startswith("--panel:"):  # (the panel was given as its counts)
            msg = "--panel-counts" + msg[len("--panel"):]
        raise ValueError(msg) from None
    for line in result.describe():  # what was read, on stderr: piped tables stay clean
        print(f"labelvar: {line}", file=sys.stderr)
    for w in caught:
        if issubclass(w.category, st.DataNoteWarning):
            print(f"labelvar: note: {_flag_error(ValueError(w.message))}", file=sys.stderr)
    across = args.compare if args.compare_across_tasks else None
    paired = report.paired_tests(result, across)
    if args.format == "csv":
        _print_table(result.table, "csv")
    else:
        sys.stdout.write(report.stratify_markdown(result, compare=across, paired=paired))
    if args.out:
        report.write_stratify_report(result, args.out, compare=across, paired=paired)
        print(f"labelvar: wrote {args.out}/stratified.csv, table.md, figures", file=sys.stderr)
    return 0


# --------------------------------------------------------------------------- design
#: keys of a design config file / flags, split into Scenario fields and planner settings
_DESIGN_SCENARIO_KEYS = ("question", "theta", "n_labels", "m", "tie_rule", "min_agreement",
                         "alpha", "confidence_level", "power", "baseline", "accuracy_a",
                         "accuracy_b", "delta", "error_correlation", "test", "metric",
                         "half_width", "cost_per_item", "cost_per_annotation")
_DESIGN_PLAN_KEYS = ("panel_sizes", "n_max", "n_rule", "replicates", "seed")
_DESIGN_PILOT_KEYS = ("pilot", "pilot_field", "pilot_columns", "pilot_method", "pilot_counts",
                      "pilot_labels", "pilot_selection")


def _add_design(sub) -> None:
    p = sub.add_parser(
        "design",
        help="study sizing: items N and annotators per item K for a target power",
        description="Plan a study: for each panel size K, the smallest number of items N "
        "meeting the target power, exact under the panel model (the first N reaching it "
        "and the N from which it stays reached), verified by simulation, priced. Values "
        "come from --config (a YAML file with a 'design:' block, or the name of a packaged "
        "one: separability, snli), overridden by flags. Exit code 1 when no plan "
        "in range meets the target.",
    )
    p.add_argument("--config", metavar="YAML|NAME",
                   help="design settings: a YAML file with a 'design:' block, or a packaged "
                   "config by name (separability, snli); a relative pilot path in it resolves "
                   "against the file's folder (outside a checkout give snli's data with --pilot)")
    p.add_argument("--question", type=lambda x: x.replace("-", "_"),
                   help="separability | two_systems | precision (default separability)")
    p.add_argument("--theta", metavar="SPEC",
                   help="item agreement: 0.8 | beta:A,B (on [1/L, 1]) | mixture:T1=W1,T2=W2 | "
                   "an item model: dirichlet:A1,A2,.. | dirichlet_mixture:W=A1,..;W=.. "
                   "(default 0.8)")
    p.add_argument("--pilot", metavar="FILE",
                   help="fit theta to pilot votes: CSV of per-label counts or JSONL label lists")
    p.add_argument("--pilot-field", help="JSONL field with the labels (annotator_labels)")
    p.add_argument("--pilot-columns", type=lambda x: [c for c in x.split(",") if c],
                   help="CSV vote-count columns, e.g. yes,no (default: all numeric columns)")
    p.add_argument("--pilot-method", help="beta | mixture | dirichlet | dirichlet_mixture | "
                   "empirical (default beta)")
    p.add_argument("--pilot-counts", action="store_true", default=None,
                   help="JSONL: --pilot-field holds per-label vote counts (e.g. ChaosNLI "
                   "label_count), not a list of labels")
    p.add_argument("--pilot-labels", type=lambda x: [c for c in x.split(",") if c],
                   help="with --pilot-counts: the label of each count position")
    p.add_argument("--pilot-selection", metavar="RULE",
                   help="the pilot's item selection, entering the likelihood: top=T (only "
                   "items whose top count is T, e.g. top=3 for ChaosNLI's old_labels) | top>=T")
    p.add_argument("--n-labels", type=int, help="number of labels L (default 2, or the pilot's)")
    p.add_argument("--m", type=_floats, help="class prior: positive ratio or L probabilities "
                   "(default: uniform)")
    p.add_argument("--tie-rule", help="tied panel votes: random | drop (default random)")
    p.add_argument("--min-agreement", type=float,
                   help="score only items with observed agreement >= this (default 0: all)")
    p.add_argument("--alpha", type=float, help="tests: significance level (default 0.05)")
    p.add_argument("--confidence-level", type=float,
                   help="precision: confidence level of the interval (default 0.95)")
    p.add_argument("--power", type=float, help="target power (default 0.8)")
    p.add_argument("--baseline", help="separability: random | prior (default random)")
    p.add_argument("--accuracy-a", type=float,
                   help="separability/precision: system accuracy vs modal label (default: expert)")
    p.add_argument("--accuracy-b", type=float, help="two_systems: accuracy of B vs modal label "
                   "(required)")
    p.add_argument("--delta", type=float, help="two_systems: A's accuracy minus B's (required)")
    p.add_argument("--error-correlation", type=float,
                   help="two_systems: phi of A/B correctness (default 0)")
    p.add_argument("--test", help="two_systems: paired (McNemar) | unpaired (two-proportion) "
                   "(default paired)")
    p.add_argument("--metric", help="two_systems: accuracy | f1 (L = 2; delta-method z-test) "
                   "(default accuracy)")
    p.add_argument("--half-width", type=float,
                   help="precision: target CI half-width (required for precision)")
    p.add_argument("--cost-per-item", type=float, help="cost of one item (default 0)")
    p.add_argument("--cost-per-annotation", type=float,
                   help="cost of one annotation (default 1)")
    p.add_argument("--panel-sizes", type=_ints, metavar="K",
                   help="panel sizes K to plan for (default 1,3,5,7,9; 3,5,7,9 with "
                   "--min-agreement > 0)")
    p.add_argument("--n-max", type=int, help="largest N searched (default 10000)")
    p.add_argument("--n-rule", choices=("stable", "first"),
                   help="plan N: stable = smallest N from which the exact power stays >= the "
                   "target up to 2x the first crossing (default); first = first N reaching it")
    p.add_argument("--replicates", type=int,
                   help="simulated studies verifying each plan (default 1000; 0 = none)")
    p.add_argument("--seed", type=int, help="seed of the verification (default 0)")
    p.add_argument("--out", metavar="DIR", help="write design*.csv, scenario.json, power.png/pdf")
    p.add_argument("--format", choices=("markdown", "csv"), default="markdown",
                   help="table format on stdout")
    p.set_defaults(func=_run_design)


def _design_settings(args) -> dict:
    """Merge a design config file (if any) with the flags (flags win)."""
    allowed = _DESIGN_SCENARIO_KEYS + _DESIGN_PLAN_KEYS + _DESIGN_PILOT_KEYS
    settings: dict = {}
    if args.config:
        import yaml

        from labelvar.config import design_config

        path = design_config(args.config)  # a file, else a packaged config by name
        with open(path) as fh:
            doc = yaml.safe_load(fh) or {}
        block = doc.get("design", doc) if isinstance(doc, dict) else None
        if not isinstance(block, dict):
            raise ValueError(f"config {args.config} must be a mapping with a 'design:' block")
        unknown = sorted(set(block) - set(allowed))
        if unknown:
            raise ValueError(f"config {args.config}: unknown design key(s) {', '.join(unknown)}; "
                             f"allowed: {', '.join(allowed)}")
        settings.update(block)
        pilot = block.get("pilot")
        if pilot is not None and not Path(str(pilot)).is_absolute():
            # paths inside a config file are relative to that file, not to the working directory
            settings["pilot"] = str(path.resolve().parent / str(pilot))
        if pilot is not None and args.pilot is None and not Path(settings["pilot"]).is_file():
            raise FileNotFoundError(
                f"the pilot of --config {args.config} is not there: {settings['pilot']} "
                f"(its path is relative to {path.resolve().parent}); pass the pilot file with "
                "--pilot PATH")
    for key in allowed:
        val = getattr(args, key, None)
        if val is not None:
            settings[key] = val
    if isinstance(settings.get("m"), list) and len(settings["m"]) == 1:
        settings["m"] = settings["m"][0]
    return settings


def _run_design(args) -> int:
    from labelvar import design

    st = _design_settings(args)
    pilot = st.pop("pilot", None)
    field = st.pop("pilot_field", None) or "annotator_labels"
    method = st.pop("pilot_method", None) or "beta"
    columns = st.pop("pilot_columns", None)
    counts = bool(st.pop("pilot_counts", None))
    labels = st.pop("pilot_labels", None)
    selection = st.pop("pilot_selection", None)
    plan_kw = {k: st.pop(k) for k in _DESIGN_PLAN_KEYS if k in st}
    if pilot is not None:
        if "theta" in st:
            raise ValueError("give either theta or pilot, not both")
        from labelvar.pilot import fit_pilot, read_pilot

        fit = fit_pilot(read_pilot(pilot, field=field, columns=columns, counts=counts,
                                   labels=labels),
                        method=method, n_labels=st.get("n_labels"), selection=selection)
        st["theta"] = fit.prior
        st.setdefault("n_labels", fit.n_labels)
        print(fit.summary(), file=sys.stderr)
    scenario = design.Scenario(**st)
    result = design.plan_study(scenario, **plan_kw)
    if args.format == "csv":
        sys.stdout.write(result.plans.to_csv(index=False))
        print(result.message, file=sys.stderr)
    else:
        print(result.to_markdown())
    if args.out:
        from labelvar import report

        paths = report.write_design_report(result, args.out)
        print(f"labelvar: wrote {', '.join(str(p) for p in paths)}", file=sys.stderr)
    return 0 if result.found else 1


def build_parser() -> _Parser:
    """Build the ``labelvar`` argument parser with all subcommands."""
    parser = _Parser(
        prog="labelvar",
        description="Evaluate AI systems and human experts when the ground-truth annotators "
        "disagree (the coin-toss paradigm of arXiv:2601.05500).",
        epilog="Run `labelvar COMMAND --help` for the options of a command. Shell completion "
        "(bash, zsh) of the commands and of `labelvar sweep`'s config groups and keys: "
        'eval "$(labelvar -sc install=bash)".',
    )
    from labelvar._provenance import version

    parser.add_argument("--version", action="version", version=f"labelvar {version()}",
                        help="print labelvar's version (the installed package's metadata)")
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an error instead of one line")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _add_expect(sub)
    _add_tables(sub)
    _add_sweep(sub)
    _add_collect(sub)
    _add_stratify(sub)
    _add_design(sub)
    return parser


#: optional dependencies: import name -> the extra that installs it
_EXTRAS = {"pyarrow": "parquet", "hydra_plugins": "cluster", "submitit": "cluster",
           "joblib": "cluster", "sklearn": "test"}


def _one_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def _describe(exc: BaseException) -> tuple[int, str]:
    """Exit code and the one line that explains an expected failure.

    2: bad input (a value, a file, a missing optional dependency); 1: a run that
    failed (out of memory, disk full, anything unexpected).
    """
    import errno

    if isinstance(exc, UnicodeDecodeError):
        return 2, f"a file is not UTF-8 text ({exc.reason} at byte {exc.start}); convert it to UTF-8"
    if isinstance(exc, UsageError):
        return 2, str(exc)
    if isinstance(exc, ValueError):
        return 2, _one_line(str(exc)) or "invalid value"
    if isinstance(exc, ImportError):
        text = f"{exc.name or ''} {exc}"
        top = next((m for m in _EXTRAS if m in text), (exc.name or "").split(".")[0])
        hint = (f"pip install 'labelvar[{_EXTRAS[top]}]'" if top in _EXTRAS
                else f"pip install {top}" if top else "check the installation")
        return 2, f"optional dependency {top or '?'!r} is not available ({_one_line(str(exc))}); {hint}"
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        where = f" writing {exc.filename}" if exc.filename else ""
        return 1, f"disk full{where}; free space or choose another --out"
    if isinstance(exc, OSError):
        reason = exc.strerror or _one_line(str(exc)) or type(exc).__name__
        where = f"{exc.filename}: " if exc.filename else ""
        return 2, f"{where}{reason}"
    if isinstance(exc, MemoryError):
        return 1, "out of memory; use smaller sizes (items, replicates, labels) or a bigger machine"
    if type(exc).__module__.startswith(("yaml", "omegaconf")):
        return 2, f"invalid configuration: {_one_line(str(exc))}"
    return 1, (f"the run failed: {type(exc).__name__}: {_one_line(str(exc))} "
               "(rerun with --debug for the traceback)")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``labelvar`` command line; return the exit code.

    The one error boundary: every expected failure is one line on stderr
    (``labelvar: error: ...``), exit code 2 for bad input and 1 for a run that
    failed; ``--debug`` (anywhere before a ``sweep``'s own arguments) shows the
    traceback instead. A closed output pipe (``labelvar tables | head``) ends quietly.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] in (["-sc"], ["--shell-completion"]):  # Hydra's completion script calls this
        from labelvar import sweep

        return sweep.shell_completion(argv)
    head = argv[: argv.index("sweep") + 1] if "sweep" in argv else argv
    debug = "--debug" in head
    if debug:
        argv.remove("--debug")
    parser: _Parser = build_parser()
    try:
        args = parser.parse_args(argv)
        code = int(args.func(args) or 0)
        sys.stdout.flush()
        return code
    except SystemExit:
        raise
    except KeyboardInterrupt:
        print("labelvar: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except BaseException as exc:
        if debug:
            raise
        code, msg = _describe(exc)
        if isinstance(exc, ValueError) and not isinstance(exc, UsageError):
            msg = _as_flag(msg, parser, argv)
        if not re.match(r"labelvar( [a-z]+)?: error: ", msg):  # argparse's own are prefixed
            msg = f"labelvar: error: {msg}"
        print(msg, file=sys.stderr)
        return code


def _as_flag(msg: str, parser: _Parser, argv: Sequence[str]) -> str:
    """A message that starts with a parameter name names the flag the user typed instead.

    ``n_items must be >= 1`` becomes ``--n-items must be >= 1`` when the command has
    that flag (Python names and flags differ only by ``_``/``-``); the pilot's
    parameters (``labels``, ``selection``) are ``labelvar design``'s ``--pilot-*`` flags.
    """
    head = re.match(r"[a-z][a-z0-9_]*(?=( must| is |:| '| \())", msg)
    if not head:
        return msg
    sub = next((a for a in argv if not a.startswith("-")), None)
    command = parser.commands.get(sub)
    if command is None:
        return msg
    name = head.group().replace("_", "-")
    flag = next((f for f in (f"--{name}", f"--pilot-{name}") if f in command.flags), None)
    return msg if flag is None else flag + msg[head.end():]


def _silence_stdout() -> None:
    """After a closed pipe, point stdout at /dev/null so the exit flush cannot fail."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
