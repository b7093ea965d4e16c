"""``labelvar judge``: the alternative annotator test with its references, and its power."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from labelvar.cli._common import _floats, _strs

#: alt_test's parameters named in its errors -> the flags a user typed
_FLAGS = {"votes": "VOTES", "system": "--system", "epsilon": "--epsilon", "q": "--q",
          "scoring": "--scoring", "min_humans_per_item": "--min-humans-per-item",
          "min_items_per_human": "--min-items-per-human", "test": "--test",
          "margin": "--margin", "labels": "--labels", "n_resamples": "--n-resamples",
          "bins": "--bins", "theta": "--theta", "skill": "--skill", "weights": "--weights",
          "n_labels": "--n-labels", "n_humans": "--per-item", "target": "--power",
          "seed": "--seed", "max_items": "--max-items"}
#: the table files VOTES and --system FILE may be
TABLE_SUFFIXES = (".csv", ".tsv", ".tab", ".txt", ".json", ".jsonl")
#: the options of the alt-test run (no --plan) that --plan ignores, with their defaults
_RUN_ONLY = {"system": None, "system_rater": None, "item": None, "panel": None,
             "systems": None, "humans": None, "layout": "auto", "tasks": None,
             "rater": "rater", "label": "label", "scoring": "accuracy",
             "min_humans_per_item": 2, "min_items_per_human": 30, "test": "t",
             "margin": "additive", "labels": None, "n_resamples": 100, "seed": 0}
#: the options of --plan that the alt-test run ignores, with their defaults
_PLAN_ONLY = {"theta": None, "weights": None, "skill": None, "n_labels": 2,
              "per_item": ["3"], "power": 0.8, "max_items": 500}


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def _check_layout_flags(args) -> None:
    """Refuse the options of one input form (--panel, or VOTES + --system) given with the other."""
    if args.panel:
        for dest in ("system", "system_rater"):
            if getattr(args, dest):
                raise ValueError(f"{_flag(dest)} is not used with --panel (the judges are the "
                                 "--systems columns); drop it, or drop --panel to read one long "
                                 "votes file")
    else:
        for dest, default in (("systems", None), ("humans", None), ("tasks", None),
                              ("layout", "auto")):
            if getattr(args, dest) != default:
                raise ValueError(f"{_flag(dest)} is used only with --panel (the files stratify "
                                 "reads); add --panel R*, or drop it (one long votes file: "
                                 "--system FILE or --system-rater R)")


def _check_mode(args) -> None:
    """Refuse options the chosen mode (--plan or the test) would silently ignore."""
    if args.plan:
        given = [d for d, default in _RUN_ONLY.items() if getattr(args, d) != default]
        if args.votes:
            given.insert(0, "VOTES")
        if given:
            name = given[0] if given[0] == "VOTES" else _flag(given[0])
            raise ValueError(f"{name} is not used with --plan (it plans from --theta, --skill, "
                             "--weights, --n-labels, --per-item, --power, --max-items, "
                             "--epsilon, --q); drop it, or drop --plan to run the test")
    else:
        given = [d for d, default in _PLAN_ONLY.items() if getattr(args, d) != default]
        if given:
            raise ValueError(f"{_flag(given[0])} is used only with --plan (the power and the "
                             "number of items); add --plan, or drop it to run the test")


def _flagged(exc: ValueError) -> ValueError:
    msg = str(exc).splitlines()[0] if str(exc) else "invalid value"
    msg = re.sub(r"(?<![\w-])(\w+)=(?:'([^']*)'|)", lambda m: (
        f"{_FLAGS[m.group(1)]} {m.group(2) or ''}".rstrip() + ("" if m.group(2) is not None
                                                               else " ")
        if m.group(1) in _FLAGS else m.group()), msg)
    head = re.match(r"(\w+)(?=[ :])", msg)
    if head and head.group(1) in _FLAGS:
        msg = _FLAGS[head.group(1)] + msg[head.end():]
    return ValueError(msg)


def _add_judge(sub) -> None:
    p = sub.add_parser(
        "judge", help="may this judge replace the annotators? the alt-test with references",
        description="The alternative annotator test (Calderon, Reichart & Dror, ACL 2025): "
        "leave one human out at a time, score the judge and the human against the others, "
        "test with a margin epsilon; the judge passes when it wins against at least half of "
        "the humans. Printed beside what a coin, an exchangeable annotator and the plurality "
        "follower reach on the same comparisons. With --plan: the exact power and the "
        "smallest number of items instead.")
    p.add_argument("votes", metavar="VOTES", nargs="*", default=[],
                   help="long votes of identified humans (.csv, .tsv, .jsonl); with --panel: "
                   "the files stratify reads (wide, long, JSONL, one file per rater)")
    p.add_argument("--system", action="append", default=None, metavar="FILE[:COLUMNS]",
                   help="the judge's labels: a file with the --item column and one column per "
                   "system (COLUMNS: which, comma separated); or an eval log, inspect:PATH "
                   "(.json/.eval) or lmeval:PATH (--log_samples .jsonl), joined on its sample "
                   "ids (several epochs: the modal answer); repeatable (each system's name once)")
    p.add_argument("--system-rater", type=_strs, default=None, metavar="R[,R..]",
                   help="rater ids in VOTES that are systems, not humans")
    p.add_argument("--item", default=None, help="item id column (default: item)")
    p.add_argument("--panel", type=_strs, default=None, metavar="R*[,..]",
                   help="read with io.load_tasks: the identified raters' columns (globs)")
    p.add_argument("--systems", type=_strs, default=None, metavar="S[,..]",
                   help="with --panel: the judges' columns")
    p.add_argument("--humans", type=_strs, default=None, metavar="H[,..]",
                   help="with --panel: more identified humans' columns (tested like the panel)")
    p.add_argument("--layout", choices=("auto", "wide", "long", "jsonl", "raters"),
                   default="auto", help="with --panel: the input layout")
    p.add_argument("--tasks", type=_strs, default=None, help="with --panel: tasks to test")
    p.add_argument("--rater", default="rater", help="rater id column")
    p.add_argument("--label", default="label", help="label column")
    p.add_argument("--scoring", choices=("accuracy", "neg_rmse"), default="accuracy",
                   help="alignment score against the remaining humans")
    p.add_argument("--epsilon", type=float, default=0.2,
                   help="the judge's margin, in [0, 1) (0.2 experts, 0.15 skilled, 0.1 crowd)")
    p.add_argument("--q", type=float, default=0.05, help="Benjamini-Yekutieli FDR level")
    p.add_argument("--min-humans-per-item", type=int, default=2)
    p.add_argument("--min-items-per-human", type=int, default=30)
    p.add_argument("--test", choices=("t", "signed_rank"), default="t")
    p.add_argument("--margin", choices=("additive", "multiplicative"), default="additive")
    p.add_argument("--labels", type=_strs, default=None,
                   help="label set of the uniform reference (default: the humans' labels)")
    p.add_argument("--n-resamples", type=int, default=100,
                   help="Monte Carlo runs for the references' winning rates (0: none)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, metavar="DIR",
                   help="write verdicts, tables, markdown and the figure here")
    p.add_argument("--plan", action="store_true",
                   help="plan a study instead: exact power (accuracy scoring) and smallest N")
    p.add_argument("--theta", type=_floats, default=None, metavar="T1,T2,..",
                   help="--plan: per agreement bin, P(a human gives the modal label)")
    p.add_argument("--weights", type=_floats, default=None, help="--plan: the bins' shares")
    p.add_argument("--skill", type=_floats, default=None,
                   help="--plan: the judge's P(modal label), one or one per bin")
    p.add_argument("--n-labels", type=int, default=2, help="--plan: number of labels")
    p.add_argument("--per-item", type=_strs, default=["3"], metavar="K1,K2,..",
                   help="--plan: humans per item")
    p.add_argument("--power", type=float, default=0.8, help="--plan: target power")
    p.add_argument("--max-items", type=int, default=500, help="--plan: largest N tried")
    p.set_defaults(func=_run_judge)


def _read_table(path: Path, text_cols):
    import pandas as pd

    from labelvar.io import read_frame
    from labelvar.io._reading import read_jsonl_records

    if path.suffix.lower() not in TABLE_SUFFIXES and path.is_file():
        raise ValueError(f"{path.name}: labelvar judge reads {', '.join(TABLE_SUFFIXES)} files, "
                         f"not {path.suffix or 'files without an extension'} (save it as CSV)")
    if path.suffix.lower() in (".json", ".jsonl"):
        df = pd.DataFrame.from_records(read_jsonl_records(path))
        for c in text_cols:
            if c in df.columns:
                df[c] = df[c].astype(str)
        return df
    return read_frame(path, text=[c for c in text_cols])


def _systems(args, votes):
    import pandas as pd

    from labelvar.io._eval_logs import eval_log_spec, eval_log_systems
    from labelvar.judge._data import check_names

    out = {}
    if args.system_rater:
        check_names(args.system_rater, "--system-rater")
        for r in args.system_rater:
            sel = votes[votes[args.rater] == r]
            if sel.empty:
                raise ValueError(f"--system-rater {r!r} has no votes in VOTES")
            out[r] = sel.set_index(args.item)[args.label]
        votes = votes[~votes[args.rater].isin(args.system_rater)]
    for one in args.system or []:  # each --system: a file (its columns) or an eval log
        if eval_log_spec(one):  # inspect:PATH, lmeval:PATH
            logged = eval_log_systems(one)
            check_names([*out, *logged.columns], "--system")
            out.update({c: logged[c] for c in logged.columns})
            continue
        spec, _, cols = one.rpartition(":") if ":" in one and not Path(one).exists() \
            else (one, "", "")
        path = Path(spec)
        if not path.is_file():
            raise ValueError(f"--system: no file {spec!r}")
        head = _read_table(path, [args.item])
        if args.item not in head.columns:
            raise ValueError(f"--system: {path.name} has no item column {args.item!r}")
        names = _strs(cols) if cols else [c for c in head.columns if c != args.item]
        missing = [c for c in names if c not in head.columns]
        if missing or not names:
            raise ValueError(f"--system: {path.name} lacks column(s) {', '.join(missing) or '?'}")
        check_names([*out, *names], "--system")
        frame = head.set_index(args.item)
        for c in names:
            out[c] = frame[c]
    if not out:
        raise ValueError("--system FILE or --system-rater R is required (the judge's labels)")
    return pd.DataFrame(out), votes


def _from_long(args):
    """(votes, systems) from one long votes file and --system / --system-rater."""
    if len(args.votes) != 1:
        raise ValueError("VOTES: give one long votes file (several files: use --panel)")
    item = args.item or "item"
    args.item = item
    votes = _read_table(Path(args.votes[0]), [item, args.rater])
    missing = [c for c in (item, args.rater, args.label) if c not in votes.columns]
    if missing:
        flags = {item: "--item", args.rater: "--rater", args.label: "--label"}
        raise ValueError(f"VOTES has no column {missing[0]!r} ({flags[missing[0]]})")
    systems, votes = _systems(args, votes)
    votes = votes.rename(columns={item: "item", args.rater: "rater", args.label: "label"})
    return votes[["item", "rater", "label"]], systems


def _from_tasks(args):
    """[(task, votes, systems)] from the layouts stratify reads (io.load_tasks)."""
    import pandas as pd

    from labelvar import io
    from labelvar.judge._data import check_names

    if not args.systems:
        raise ValueError("--panel needs --systems (the judges' columns)")
    check_names(args.systems, "--systems")
    both = [s for s in args.systems if s in (args.humans or ())]
    if both:
        raise ValueError(f"--systems and --humans both name {both[0]!r}; a rater is a judge or "
                         "a human, not both")
    cols = io.Columns(panel=args.panel, systems=args.systems, humans=args.humans or (),
                      item=args.item, rater=args.rater, label=args.label)
    data = io.load_tasks(args.votes, columns=cols, layout=args.layout, tasks=args.tasks)
    out = []
    for task, td in data.items():
        if not td.raters_identified or td.counts:
            raise ValueError(f"--panel: task {task!r} has no identified raters (vote counts or "
                             "a list of votes per item); the alt-test needs each rater's votes")
        humans = pd.concat([td.panel, td.predictions[list(td.humans)]], axis=1)
        long = humans.rename_axis("item").reset_index().melt(
            id_vars="item", var_name="rater", value_name="label").dropna(subset=["label"])
        systems = td.predictions.drop(columns=list(td.humans))
        out.append((task if len(data) > 1 else "", long, systems))
    return out


def _run_plan(args) -> int:
    import numpy as np

    from labelvar._base._format import markdown_table
    from labelvar.judge import AltTestPower
    from labelvar.report._judge import check_judge_dir

    if args.theta is None or args.skill is None:
        raise ValueError("--plan needs --theta and --skill")
    if args.out:
        check_judge_dir(args.out)
    try:
        design = AltTestPower(theta=args.theta, skill=args.skill, weights=args.weights,
                              n_labels=args.n_labels, epsilon=args.epsilon, q=args.q)
        ks = []
        for k in args.per_item:
            try:
                ks.append(int(k))
            except ValueError:
                raise ValueError(f"--per-item must be whole numbers of humans per item (2 or "
                                 f"more, comma separated), got {k!r}") from None
        plan = design.plan(n_humans=ks, target=args.power, max_items=args.max_items)
    except ValueError as exc:
        raise _flagged(exc) from None
    text = design.describe() + "\n" + markdown_table(plan) + "\n"
    sys.stdout.write(text)
    if args.out:
        from labelvar.report._judge import write_judge_plan

        top = int(np.nanmax(plan["n_items"])) if plan["n_items"].notna().any() else 200
        curves = design.curves(n_humans=ks, n_items=range(30, max(top, 100) + 21))
        paths = write_judge_plan(design, plan, curves, args.out, target=args.power,
                                 markdown=text)
        print(f"labelvar: wrote {', '.join(p.name for p in paths)} to {args.out}",
              file=sys.stderr)
    return 0


def _run_judge(args) -> int:
    from labelvar.judge import References
    from labelvar.judge._alt_test import alt_test
    from labelvar.report._judge import check_judge_dir, judge_markdown, write_judge_report

    _check_mode(args)
    if args.plan:
        return _run_plan(args)
    if not args.votes:
        raise ValueError("VOTES is required (a long votes file: item, rater, label)")
    if not 0.0 <= args.epsilon < 1.0:
        raise ValueError(f"--epsilon must be in [0, 1), got {args.epsilon:g}")
    if args.out:
        check_judge_dir(args.out)
    _check_layout_flags(args)
    inputs = _from_tasks(args) if args.panel else [("", *_from_long(args))]
    results = {}
    try:
        refs = References(labels=tuple(args.labels) if args.labels else None,
                          n_resamples=args.n_resamples, seed=args.seed)
        for task, votes, systems in inputs:
            res = alt_test(votes, systems, scoring=args.scoring, epsilon=args.epsilon,
                           q=args.q, min_humans_per_item=args.min_humans_per_item,
                           min_items_per_human=args.min_items_per_human, test=args.test,
                           margin=args.margin, references=refs)
            results.update({f"{task}: {n}" if task else n: r for n, r in res.items()})
    except ValueError as exc:
        raise _flagged(exc) from None
    text = judge_markdown(results)
    sys.stdout.write(text)
    if args.out:
        from labelvar.report._html_reports import judge_drill

        paths = write_judge_report(results, args.out, text, drill=judge_drill(inputs),
                                   sources=[*args.votes, *(args.system or [])])
        print(f"labelvar: wrote {', '.join(p.name for p in paths)} to {args.out}",
              file=sys.stderr)
    return 0
