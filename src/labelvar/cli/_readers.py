"""``labelvar readers``: a reader study (OR/DBM MRMC) or a standalone AI against the readers."""

from __future__ import annotations

import sys
from pathlib import Path


def _add_readers(sub) -> None:
    p = sub.add_parser(
        "readers", help="reader study: OR/DBM MRMC analysis, or an AI against the readers",
        description="Analyse a multi-reader multi-case reader study from long ratings (one row per "
        "reader, case, modality, rating): each reader's figure of merit, the Obuchowski-Rockette "
        "variance components and the RRRC/FRRC/RRFC tests; with --ai, the AI against the "
        "readers' mean (single-treatment OR, random readers and cases).")
    p.add_argument("ratings", metavar="RATINGS", help="long ratings: .csv, .tsv or .parquet")
    p.add_argument("--truth", required=True, metavar="COL_OR_PANEL",
                   help="a column of RATINGS (0/1 per case), or a file: two columns (case, 0/1), "
                   "or a panel's votes (long: case, rater, label; or wide: case and one 0/1 column "
                   "per rater) whose majority is the truth (a reader in the panel meets the "
                   "majority of the others)")
    p.add_argument("--fom", choices=("auc", "sensitivity", "specificity", "accuracy"), default="auc",
                   help="figure of merit (binary ones on 0/1 ratings or with --threshold)")
    p.add_argument("--threshold", type=float, default=None,
                   help="a rating >= this is a positive decision (binary figures of merit)")
    p.add_argument("--covariance", choices=("jackknife", "delong"), default="jackknife",
                   help="covariance of the FOMs over cases (delong: AUC only)")
    p.add_argument("--ai", default=None, metavar="NAME",
                   help="the reader of RATINGS that is the AI: compare it with the other readers")
    p.add_argument("--analysis", choices=("1T-RRRC", "1T-RRFC"), default="1T-RRRC",
                   help="with --ai: random readers and cases, or random readers and fixed cases")
    p.add_argument("--truth-model", choices=("dawid_skene", "dawid_skene_difficulty"), default=None,
                   help="with a panel as --truth: also integrate over the truth's posterior "
                   "under this rater model fitted to the panel's votes")
    p.add_argument("--tie-rule", choices=("random", "lowest", "highest"), default="random",
                   help="a tied panel majority (even number of voters)")
    p.add_argument("--reader", default="reader", help="reader id column")
    p.add_argument("--case", default="case", help="case id column")
    p.add_argument("--modality", default="modality", help="modality column (absent: one modality)")
    p.add_argument("--rating", default="rating", help="rating column")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (CIs cover 1 - alpha)")
    p.add_argument("--size-effect", type=float, default=None, metavar="DELTA",
                   help="also size a study from this one as a pilot: readers x cases for --power "
                   "to detect a difference DELTA of the FOM (RRRC; with --ai, 1T-RRRC)")
    p.add_argument("--power", type=float, default=0.8, help="target power of --size-effect")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="write the tables (CSV), table.md and the per-reader figure here")
    p.set_defaults(func=_run_readers)


def _read(path: str, flag: str):
    import pandas as pd

    p = Path(path)
    if not p.is_file():
        raise ValueError(f"{flag}: no file {path!r}")
    if p.suffix == ".parquet":
        return pd.read_parquet(p).astype(str)
    sep = "\t" if p.suffix in (".tsv", ".tab") else ","
    return pd.read_csv(p, sep=sep, dtype=str, keep_default_na=False, na_values=[""])


def _truth(args, ratings):
    from labelvar.readers import TruthPanel

    if args.truth in ratings.columns:
        return args.truth, None
    table = _read(args.truth, "--truth")
    if args.case not in table.columns:
        raise ValueError(f"--truth: the file {args.truth!r} has no {args.case!r} column (--case)")
    if len(table.columns) == 2:
        return table.set_index(args.case).iloc[:, 0], None
    panel = TruthPanel(table, tie_rule=args.tie_rule, columns=(args.case, "rater", "label"))
    return panel, panel.votes_wide()


def _run_readers(args) -> int:
    from labelvar.readers._mrmc import mrmc
    from labelvar.readers._standalone import standalone_vs_readers

    if args.out:
        from labelvar.report._readers import READERS_FILES
        from labelvar.report._writers import check_report_dir

        check_report_dir(args.out, READERS_FILES)
    ratings = _read(args.ratings, "RATINGS")
    truth, wide = _truth(args, ratings)
    model = None
    if args.truth_model:
        if wide is None:
            raise ValueError("--truth-model needs a panel's votes as --truth")
        from labelvar.votes._raters import fit_raters

        long = wide.stack().rename("label").reset_index()
        long.columns = ["item", "rater", "label"]
        model = fit_raters(long, model=args.truth_model, n_resamples=0)
    try:
        if args.ai is None:
            res = mrmc(ratings, truth=truth, fom=args.fom, covariance=args.covariance,
                       threshold=args.threshold, reader=args.reader, case=args.case,
                       modality=args.modality, rating=args.rating, alpha=args.alpha,
                       truth_model=model)
        else:
            if args.modality in ratings.columns and ratings[args.modality].nunique() > 1:
                raise ValueError("--ai: RATINGS has several modalities; give the ratings of one "
                                 f"(column {args.modality!r})")
            res = standalone_vs_readers(ratings, args.ai, truth=truth, fom=args.fom,
                                        analysis=args.analysis, covariance=args.covariance,
                                        threshold=args.threshold, reader=args.reader, case=args.case,
                                        rating=args.rating, alpha=args.alpha, truth_model=model)
    except ValueError as exc:
        text = str(exc)
        if text.startswith("ratings"):
            raise ValueError("RATINGS" + text[len("ratings"):]) from None
        raise
    text = res.describe() + "\n"
    if args.size_effect is not None:
        from labelvar._base._format import markdown_table
        from labelvar.readers import MRMCPower, StandalonePower

        if args.ai is None and res.fom["modality"].nunique() < 2:
            raise ValueError("--size-effect sizes a comparison of two modalities (or, with --ai, "
                             "the AI against the readers); RATINGS has one modality")
        pilot = (StandalonePower if args.ai is not None else MRMCPower).from_result(res)
        sizing = pilot.sizes(effect=args.size_effect, target=args.power, alpha=args.alpha)
        text += (f"sizing from this study as a pilot ({sizing.question}, effect {args.size_effect:g}, "
                 f"power {args.power:g}, alpha {args.alpha:g}; no cases: the power is not reached with "
                 "100,000 cases):\n" + markdown_table(sizing.table) + "\n")
    sys.stdout.write(text)
    if args.out:
        from labelvar.report._readers import write_readers_report

        paths = write_readers_report(res, args.out, text)
        print(f"labelvar: wrote {', '.join(p.name for p in paths)} to {args.out}", file=sys.stderr)
    return 0
