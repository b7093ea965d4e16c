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
    p.add_argument("--analysis", choices=("1T-RRRC", "1T-RRFC"), default=None,
                   help="with --ai: random readers and cases, or random readers and fixed cases "
                   "(default: 1T-RRRC)")
    p.add_argument("--truth-model", choices=("dawid_skene", "dawid_skene_difficulty"), default=None,
                   help="with a panel as --truth: also integrate over the truth's posterior "
                   "under this rater model fitted to the panel's votes")
    p.add_argument("--tie-rule", choices=("random", "lowest", "highest"), default=None,
                   help="with a panel as --truth: a tied panel majority (even number of voters) "
                   "(default: random)")
    p.add_argument("--reader", default="reader", help="reader id column")
    p.add_argument("--case", default="case", help="case id column")
    p.add_argument("--modality", default="modality", help="modality column (absent: one modality)")
    p.add_argument("--rating", default="rating", help="rating column")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (CIs cover 1 - alpha)")
    p.add_argument("--size-effect", type=float, default=None, metavar="DELTA",
                   help="also size a study from this one as a pilot: readers x cases for --power "
                   "to detect a difference DELTA of the FOM (RRRC; with --ai, 1T-RRRC)")
    p.add_argument("--power", type=float, default=None,
                   help="target power of --size-effect (default: 0.8)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="write the tables (CSV), table.md and the per-reader figure here")
    p.set_defaults(func=_run_readers)


#: the file types RATINGS and --truth are read from
SUFFIXES = (".csv", ".tsv", ".tab", ".txt", ".parquet")


def _read(path: str, flag: str):
    import pandas as pd

    p = Path(path)
    if p.is_dir():
        raise ValueError(f"{flag}: {path!r} is a directory; give a file (.csv, .tsv or .parquet)")
    if not p.is_file():
        raise ValueError(f"{flag}: no file {path!r}")
    if p.suffix.lower() not in SUFFIXES:
        raise ValueError(f"{flag}: {path!r} must be a .csv, .tsv or .parquet file, got "
                         f"{p.suffix or 'no extension'!r}")
    try:
        if p.suffix.lower() == ".parquet":
            table = pd.read_parquet(p).astype(str)
        else:
            sep = "\t" if p.suffix.lower() in (".tsv", ".tab") else ","
            table = pd.read_csv(p, sep=sep, dtype=str, keep_default_na=False, na_values=[""])
    except (ValueError, OSError, pd.errors.ParserError) as exc:
        if isinstance(exc, pd.errors.EmptyDataError):
            raise ValueError(f"{flag}: the file {path!r} is empty") from None
        if isinstance(exc, UnicodeDecodeError):
            raise ValueError(f"{flag}: {path!r} is not UTF-8 text ({exc.reason} at byte "
                             f"{exc.start}); convert it to UTF-8") from None
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ValueError(f"{flag}: cannot read {path!r} as {p.suffix.lstrip('.')} ({first})") from None
    except ImportError:
        raise
    except Exception as exc:  # pyarrow's own errors on a damaged parquet file
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ValueError(f"{flag}: cannot read {path!r} as {p.suffix.lstrip('.')} ({first})") from None
    return table


def _truth(args, ratings):
    from labelvar.readers import TruthPanel

    if args.truth in ratings.columns:
        return args.truth, None
    if not Path(args.truth).exists():
        raise ValueError(f"--truth: {args.truth!r} is neither a column of RATINGS (columns: "
                         f"{', '.join(map(str, ratings.columns))}) nor a file")
    table = _read(args.truth, "--truth")
    if args.case not in table.columns:
        raise ValueError(f"--truth: the file {args.truth!r} has no {args.case!r} column (--case)")
    if len(table.columns) == 2:
        return table.set_index(args.case).iloc[:, 0], None
    panel = TruthPanel(table, tie_rule=args.tie_rule or "random", columns=(args.case, "rater", "label"))
    return panel, panel.votes_wide()


def _check_flags(args) -> None:
    """Refuse, before reading, flags out of range or that the chosen mode would ignore."""
    import math

    if args.power is not None and args.size_effect is None:
        raise ValueError("--power is the target power of --size-effect; give --size-effect DELTA "
                         "too (or leave --power out)")
    if args.analysis is not None and args.ai is None:
        raise ValueError("--analysis applies to the AI against the readers; give --ai NAME too "
                         "(without --ai: the OR analysis prints RRRC, FRRC and RRFC)")
    if args.threshold is not None and not math.isfinite(args.threshold):
        raise ValueError(f"--threshold must be a finite number, got {args.threshold}")
    if args.size_effect is not None and not (math.isfinite(args.size_effect)
                                             and 0 < abs(args.size_effect) <= 1):
        raise ValueError("--size-effect must be a difference of figures of merit in [-1, 1], "
                         f"not 0, got {args.size_effect}")
    if args.power is not None and not 0 < args.power < 1:
        raise ValueError(f"--power must be in (0, 1), got {args.power}")


def _run_readers(args) -> int:
    from labelvar.readers._mrmc import mrmc
    from labelvar.readers._standalone import standalone_vs_readers

    if args.out:
        from labelvar.report._readers import READERS_FILES
        from labelvar.report._writers import check_report_dir

        check_report_dir(args.out, READERS_FILES)
    _check_flags(args)
    ratings = _read(args.ratings, "RATINGS")
    truth, wide = _truth(args, ratings)
    if args.tie_rule is not None and wide is None:
        raise ValueError("--tie-rule applies to a panel's votes as --truth (a majority that can "
                         f"tie); --truth {args.truth!r} is a truth per case")
    model = None
    if args.truth_model:
        if wide is None:
            raise ValueError("--truth-model needs a panel's votes as --truth")
        from labelvar.votes._raters import fit_raters

        ones, k = wide.to_numpy().sum(1), wide.shape[1]
        if not (2 * ones >= k).any() or not (2 * ones <= k).any():
            raise ValueError("--truth: the panel's majority makes the cases all of one class "
                             "(need positives and negatives)")
        long = wide.stack().rename("label").reset_index()
        long.columns = ["item", "rater", "label"]
        try:  # (a panel's votes are 0/1: both labels declared, used or not)
            model = fit_raters(long, model=args.truth_model, n_resamples=0, labels=[0, 1])
        except ValueError as exc:
            raise ValueError(f"--truth-model: fitting {args.truth_model} to the panel's votes "
                             f"(--truth): {exc}") from None
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
                                        analysis=args.analysis or "1T-RRRC", covariance=args.covariance,
                                        threshold=args.threshold, reader=args.reader, case=args.case,
                                        rating=args.rating, alpha=args.alpha, truth_model=model)
    except ValueError as exc:
        text = str(exc)
        if text.startswith("ratings"):
            raise ValueError("RATINGS" + text[len("ratings"):]) from None
        raise
    text = res.describe() + "\n"
    if args.size_effect is not None:
        power = 0.8 if args.power is None else args.power
        from labelvar._base._format import markdown_table
        from labelvar.readers import MRMCPower, StandalonePower

        if args.ai is None and res.fom["modality"].nunique() < 2:
            raise ValueError("--size-effect sizes a comparison of two modalities (or, with --ai, "
                             "the AI against the readers); RATINGS has one modality")
        pilot = (StandalonePower if args.ai is not None else MRMCPower).from_result(res)
        sizing = pilot.sizes(effect=args.size_effect, target=power, alpha=args.alpha)
        text += (f"sizing from this study as a pilot ({sizing.question}, effect {args.size_effect:g}, "
                 f"power {power:g}, alpha {args.alpha:g}; no cases: the power is not reached with "
                 "100,000 cases):\n" + markdown_table(sizing.table) + "\n")
    sys.stdout.write(text)
    if args.out:
        from labelvar.report._readers import write_readers_report

        paths = write_readers_report(res, args.out, text)
        print(f"labelvar: wrote {', '.join(p.name for p in paths)} to {args.out}", file=sys.stderr)
    return 0
