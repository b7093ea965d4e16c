"""``labelvar raters``: rater skills, the model check, ceilings per bin and kappa_x."""

from __future__ import annotations

import sys

from labelvar._base._defaults import CONFIDENCE_LEVEL
from labelvar.cli._common import _strs


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
    p.add_argument("--model", choices=("one_coin", "dawid_skene", "dawid_skene_difficulty"),
                   default="dawid_skene_difficulty", help="rater model")
    p.add_argument("--labels", type=_strs, default=None, help="the label set (default: seen)")
    p.add_argument("--gold", default=None, metavar="FILE",
                   help="gold items: a file with the --item and --label columns")
    p.add_argument("--panel", type=_strs, default=None, metavar="R1,R2,..",
                   help="the panel whose plurality is the truth (default: for each target, "
                   "every other rater)")
    p.add_argument("--target", type=_strs, default=None, metavar="R[,R..]",
                   help="raters scored against the panel (default: every rater not in it)")
    p.add_argument("--groups", default=None, metavar="X1,X2:Y1,Y2",
                   help="two rater groups for cross-replication reliability kappa_x")
    p.add_argument("--tie-rule", choices=("random", "drop"), default="random",
                   help="tied panel plurality: uniform over the tied labels, or drop the item")
    p.add_argument("--n-boot", type=int, default=200, help="bootstrap resamples over items")
    p.add_argument("--confidence-level", type=float, default=CONFIDENCE_LEVEL,
                   help=f"of every interval (default {CONFIDENCE_LEVEL:g})")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstraps and the check")
    p.add_argument("--out", default=None, metavar="DIR", help="write the tables here (CSV)")
    p.set_defaults(func=_run_raters)


def _run_raters(args) -> int:
    from labelvar.report import _raters as rr
    from labelvar.report import _writers as report

    if args.out:
        report.check_report_dir(args.out, report.RATERS_FILES)
    groups = None
    if args.groups is not None:
        groups = [_strs(g) for g in args.groups.split(":")]
        if len(groups) != 2 or not all(groups):
            raise ValueError(f"--groups must be X1,X2:Y1,Y2 (two non-empty groups), got "
                             f"{args.groups!r}")
    rep = rr.from_file(args.votes, item=args.item, rater=args.rater, label=args.label,
                       task_column=args.task_column, tasks=args.tasks, gold=args.gold,
                       model=args.model, labels=args.labels, panel=args.panel,
                       targets=args.target, groups=groups, tie_rule=args.tie_rule,
                       n_boot=args.n_boot, confidence_level=args.confidence_level, seed=args.seed)
    text = rr.markdown(rep)
    sys.stdout.write(text)
    if args.out:
        paths = report.write_raters_report(rep, args.out, text)
        print(f"labelvar: wrote {', '.join(p.name for p in paths)} to {args.out}", file=sys.stderr)
    return 0
