"""``labelvar sweep`` and ``labelvar collect``: Hydra sweeps and merging their results."""

from __future__ import annotations

import argparse


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
    from labelvar._base._format import count

    print(f"{path} ({count(len(table), 'row')} from {count(table['job'].nunique(), 'job')})")
    return 0
