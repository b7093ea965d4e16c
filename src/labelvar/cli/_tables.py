"""``labelvar expect`` and ``labelvar tables``: closed-form expectations and the paper's tables."""

from __future__ import annotations

import sys

from labelvar._base._defaults import CONFIDENCE_LEVEL
from labelvar.cli._common import _floats, _ints, _print_table


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
    p.add_argument("--confidence-level", type=float, default=CONFIDENCE_LEVEL, metavar="C",
                   help=f"coverage of the exact F1 interval (default {CONFIDENCE_LEVEL:g})")
    p.add_argument("--format", choices=("markdown", "csv"), default="markdown",
                   help="table format on stdout")
    p.set_defaults(func=_run_expect)


def _run_expect(args) -> int:
    from labelvar.analytic import _closed_forms as analytic

    # rows, not a DataFrame: this command imports neither pandas nor numba
    table = analytic._expectation_rows(args.p_d, args.m, args.n_items, args.threshold,
                                       args.confidence_level)
    _print_table(table, args.format)
    return 0


def _add_tables(sub) -> None:
    p = sub.add_parser("tables", help="the paper's Tables 1 and 2 as computed by labelvar")
    p.add_argument("--format", choices=("markdown", "csv"), default="markdown",
                   help="table format on stdout; csv is CSV only (the titles go to stderr; "
                   "both tables: one CSV, a first column 'table' saying which)")
    p.add_argument("--table", choices=("1", "2", "all"), default="all", help="which table")
    p.set_defaults(func=_run_tables)


TITLES = {"1": "Table 1: P(accuracy >= r_c) for N = 100 and N = 10 (exact binomial tails)",
          "2": "Table 2: expected precision and F1 for given p_d (expected recall) and m"}


def _run_tables(args) -> int:
    from labelvar.analytic import _closed_forms as analytic

    if args.format == "csv":  # stdout is CSV only: the titles go to stderr
        chosen = ("1", "2") if args.table == "all" else (args.table,)
        rows = {"1": analytic._table1_rows, "2": analytic._table2_rows}
        for key in chosen:
            print(f"labelvar: {TITLES[key]}", file=sys.stderr)
        if len(chosen) == 1:
            _print_table(rows[chosen[0]](), "csv")
            return 0
        both = [{"table": key, **r} for key in chosen for r in rows[key]()]
        columns = list(dict.fromkeys(c for r in both for c in r))
        _print_table([{c: r.get(c, float("nan")) for c in columns} for r in both], "csv")
        return 0
    if args.table in ("1", "all"):
        print(TITLES["1"])
        _print_table(analytic._table1_rows(), args.format)
    if args.table in ("2", "all"):
        if args.table == "all":
            print()
        print(TITLES["2"])
        _print_table(analytic._table2_rows(), args.format)
    return 0
