"""``labelvar raters``: rater skills, the model check, ceilings per bin and kappa_x."""

from __future__ import annotations

import argparse
import sys

from labelvar._base._defaults import CONFIDENCE_LEVEL
from labelvar.cli._common import UsageError, _strs

#: flags renamed to the one vocabulary: the old spelling is refused naming the new one
_RENAMED = {"--n-boot": "--n-resamples", "--panel": "--raters"}


def _whole(text: str) -> int:
    """A whole number, also written as ``1e3`` (its size is checked against the limit later)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value == value or value != round(value) or abs(value) >= 2.0**63:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}")
    return int(value)


# --------------------------------------------------------------------------- raters
def _add_raters(sub) -> None:
    p = sub.add_parser(
        "raters", help="rater skills, model check, ceilings per agreement bin, kappa_x",
        description="Fit a rater model to long votes (one row per item, rater, label), print "
        "each rater's skill, the model check, the three ceilings per agreement bin of a panel "
        "(E = p_d, the plurality oracle, the target's skill) and kappa_x between two groups.")
    p.add_argument("votes", metavar="VOTES", help="long votes: .csv, .tsv or .jsonl")
    p.add_argument("--item", default="item", help="item id column")
    p.add_argument("--rater", default="rater", help="rater id column")
    p.add_argument("--label", default="label", help="label column")
    p.add_argument("--task-column", default=None, help="column naming each vote's task "
                   "(one fit per task)")
    p.add_argument("--tasks", type=_strs, default=None, help="tasks to fit (default all)")
    p.add_argument("--model", default=None,
                   help="rater model: a name of labelvar.votes._raters.RATER_MODELS (default: "
                   "fit_raters' default, dawid_skene_difficulty)")
    p.add_argument("--labels", type=_strs, default=None, help="the label set (default: seen)")
    p.add_argument("--gold", default=None, metavar="FILE",
                   help="gold items: a file with the --item and --label columns")
    p.add_argument("--raters", type=_strs, default=None, metavar="R1,R2,..",
                   help="the raters of the panel whose plurality is the truth (default: for "
                   "each target, every other rater)")
    p.add_argument("--target", type=_strs, default=None, metavar="R[,R..]",
                   help="raters scored against the panel (default: every rater not in it)")
    p.add_argument("--groups", default=None, metavar="X1,X2:Y1,Y2",
                   help="two rater groups for cross-replication reliability kappa_x")
    p.add_argument("--tie-rule", choices=("random", "drop"), default="random",
                   help="tied panel plurality: uniform over the tied labels, or drop the item")
    p.add_argument("--n-resamples", type=_whole, default=200,
                   help="bootstrap resamples over items (each one a refit of the skills)")
    for old in _RENAMED:
        p.add_argument(old, dest=f"renamed_{old[2:].replace('-', '_')}", default=None,
                       metavar="VALUE", help=argparse.SUPPRESS)
    p.add_argument("--confidence-level", type=float, default=CONFIDENCE_LEVEL,
                   help=f"of every interval (default {CONFIDENCE_LEVEL:g})")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstraps and the check")
    p.add_argument("--out", default=None, metavar="DIR", help="write the tables here (CSV)")
    p.add_argument("--agreement", type=_strs, default=None, metavar="C1,C2,..",
                   help="also chance-corrected agreement among the raters, with se, CI and what "
                   "reference labellers reach: any of cohen_kappa, scott_pi, gwet_ac1, "
                   "brennan_prediger, fleiss_kappa, percent_agreement")
    p.set_defaults(func=_run_raters)


def _run_raters(args) -> int:
    from labelvar.report import _raters as rr
    from labelvar.report import _writers as report

    for old, new in _RENAMED.items():
        if getattr(args, f"renamed_{old[2:].replace('-', '_')}") is not None:
            raise UsageError(f"labelvar raters: error: {old} is now {new} (same meaning); "
                             f"use {new} {getattr(args, 'renamed_' + old[2:].replace('-', '_'))}")
    from labelvar._base import _validate as V
    from labelvar.votes._raters import DEFAULT_MODEL, MAX_RESAMPLES, RATER_MODELS

    if args.tasks is not None and args.task_column is None:
        raise UsageError(f"labelvar raters: error: --tasks: {', '.join(args.tasks)} not in "
                         "--task-column (none given): --tasks needs --task-column, the column "
                         "naming each vote's task")
    model = DEFAULT_MODEL if args.model is None else args.model
    if model not in RATER_MODELS:
        raise ValueError(f"--model must be one of {', '.join(RATER_MODELS)}, got {model!r}")
    V.integer("n_resamples", args.n_resamples, lo=0, hi=MAX_RESAMPLES)  # before reading
    if args.out:
        report.check_report_dir(args.out, report.RATERS_FILES)
    if args.agreement is not None:
        from labelvar.metrics import COEFFICIENTS

        bad = [c for c in args.agreement if c not in COEFFICIENTS]
        twice = sorted({c for c in args.agreement if args.agreement.count(c) > 1})
        if twice:
            raise ValueError(f"--agreement lists {', '.join(map(repr, twice))} more than once")
        if bad or not args.agreement:
            raise ValueError(f"--agreement must list coefficients among {', '.join(COEFFICIENTS)};"
                             f" got {', '.join(map(repr, bad)) or 'none'}")
    groups = None
    if args.groups is not None:
        groups = [_strs(g) for g in args.groups.split(":")]
        if len(groups) != 2 or not all(groups):
            raise ValueError(f"--groups must be X1,X2:Y1,Y2 (two non-empty groups), got "
                             f"{args.groups!r}")
    rep = rr.from_file(args.votes, item=args.item, rater=args.rater, label=args.label,
                       task_column=args.task_column, tasks=args.tasks, gold=args.gold,
                       model=model, labels=args.labels, raters=args.raters,
                       targets=args.target, groups=groups, tie_rule=args.tie_rule,
                       n_resamples=args.n_resamples, confidence_level=args.confidence_level,
                       seed=args.seed, agreement=args.agreement)
    text = rr.markdown(rep)
    sys.stdout.write(text)
    if args.out:
        paths = report.write_raters_report(rep, args.out, text)
        print(f"labelvar: wrote {', '.join(p.name for p in paths)} to {args.out}", file=sys.stderr)
    return 0
