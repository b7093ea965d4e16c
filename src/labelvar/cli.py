"""The ``labelvar`` command line.

One console script with subcommands. Every subcommand validates its input
through the same functions as the Python API; a bad value ends the program
with one line on stderr (``labelvar: error: ...``) and exit code 2, never a
traceback.

Subcommands
-----------
expect    closed-form expectations and tails for given p_d, m, n (issue 2)
tables    the paper's Tables 1 and 2 as computed by labelvar (issue 2)
sweep     Hydra sweeps over simulation grids (issue 4)
collect   merge a multirun directory into one table (issue 4)
stratify  agreement-stratified report of real results (issue 5)
design    study sizing: items and annotators per item (issue 6)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


class UsageError(ValueError):
    """A command-line argument is invalid (reported in one line, exit code 2)."""


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line, exit code 2."""

    def error(self, message: str):  # noqa: D102 - argparse API
        raise UsageError(f"{self.prog}: error: {message}")


def _floats(text: str) -> list[float]:
    """Parse ``0.5,0.6`` or ``0.5`` into a list of floats."""
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got {text!r}") from None


def _ints(text: str) -> list[int]:
    """Parse ``10,100`` into a list of ints."""
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        msg = f"expected whole numbers separated by commas, got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None


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
    p.add_argument("--n", type=_ints, default=[100], metavar="N", help="number of items (default 100)")
    p.add_argument("--threshold", type=_floats, default=[0.8], metavar="A",
                   help="accuracy threshold for P(accuracy >= A), in [0, 1] (default 0.8)")
    p.add_argument("--level", type=float, default=0.9,
                   help="coverage of the exact F1 interval (default 0.9)")
    p.add_argument("--format", choices=("markdown", "csv"), default="markdown")
    p.set_defaults(func=_run_expect)


def _run_expect(args) -> int:
    from labelvar import analytic

    table = analytic.expectation_table(args.p_d, args.m, args.n, args.threshold, level=args.level)
    _print_table(table, args.format)
    return 0


def _add_tables(sub) -> None:
    p = sub.add_parser("tables", help="the paper's Tables 1 and 2 as computed by labelvar")
    p.add_argument("--format", choices=("markdown", "csv"), default="markdown")
    p.add_argument("--table", choices=("1", "2", "all"), default="all")
    p.set_defaults(func=_run_tables)


def _run_tables(args) -> int:
    from labelvar import analytic

    if args.table in ("1", "all"):
        print("Table 1: P(accuracy >= r_c) for N = 100 and N = 10 (exact binomial tails)")
        _print_table(analytic.paper_table1(), args.format)
    if args.table in ("2", "all"):
        if args.table == "all":
            print()
        print("Table 2: expected precision and F1 for given p_d (expected recall) and m")
        _print_table(analytic.paper_table2(), args.format)
    return 0


def _print_table(table, fmt: str) -> None:
    """Print a DataFrame as markdown or CSV (no optional dependency needed)."""
    if fmt == "csv":
        sys.stdout.write(table.to_csv(index=False))
        return
    cols = [str(c) for c in table.columns]
    rows = [[_cell(v) for v in row] for row in table.itertuples(index=False)]
    widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c) for i, c in enumerate(cols)]
    print("| " + " | ".join(c.ljust(w) for c, w in zip(cols, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print("| " + " | ".join(v.rjust(w) for v, w in zip(r, widths)) + " |")


def _cell(v) -> str:
    if isinstance(v, float):
        if v != v:
            return ""
        if v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e6):
            return f"{v:.3g}"
        return f"{v:.4f}"
    return str(v)


# --------------------------------------------------------------------------- sweep / collect (issue 4)
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


def _add_sweep_collect(sub) -> None:
    _add_sweep(sub)
    _add_collect(sub)


def _run_collect(args) -> int:
    from labelvar import sweep

    table, path = sweep.collect(args.sweep_dir, out=args.out, allow_missing=args.allow_missing)
    print(f"{path} ({len(table)} rows from {table['job'].nunique()} jobs)")
    return 0


# --------------------------------------------------------------------------- stratify (issue 5)
# (added by the stratify issue)

# --------------------------------------------------------------------------- design (issue 6)
# (added by the design issue)


def build_parser() -> argparse.ArgumentParser:
    """Build the ``labelvar`` argument parser with all subcommands."""
    parser = _Parser(prog="labelvar", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _add_expect(sub)
    _add_tables(sub)
    _add_sweep_collect(sub)  # issue 4
    # sweep/collect, stratify and design register here as their issues land.
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``labelvar`` command line; return the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(argv)
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError) as exc:  # UsageError is a ValueError
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if not msg.startswith("labelvar"):
            msg = f"labelvar: error: {msg}"
        print(msg, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("labelvar: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
