"""The calculator and tables subcommands, and the command line's error contract."""

from __future__ import annotations

import io
import subprocess
import sys
from contextlib import redirect_stdout

import pandas as pd
import pytest

from labelvar import analytic
from labelvar.cli import main


def run(*argv: str) -> tuple[int, str]:
    buf = io.StringIO()
    with redirect_stdout(buf):
        code = main(list(argv))
    return code, buf.getvalue()


def test_expect_csv_has_the_closed_forms_for_every_combination():
    code, out = run("expect", "--p-d", "0.6,0.9", "--m", "0.1,0.5", "--n-items", "100", "--threshold", "0.8",
                    "--format", "csv")
    assert code == 0
    t = pd.read_csv(io.StringIO(out))
    assert len(t) == 4
    row = t[(t.p_d == 0.6) & (t.m == 0.1)].iloc[0]
    assert row.E_F1 == pytest.approx(analytic.expected_f1(0.6, 0.1))
    assert row.P_acc_ge == pytest.approx(analytic.prob_correct_at_least(0.6, 100, 80))
    assert row.SE == pytest.approx(analytic.accuracy_se(0.6, 100))
    f1 = analytic.exact_f1(0.6, 0.1, 100)
    assert row.F1_exact_mean == pytest.approx(f1.mean)
    assert (row.F1_lo, row.F1_hi) == pytest.approx(f1.interval(0.9))


def test_expect_markdown_table():
    code, out = run("expect", "--p-d", "0.6", "--m", "0.1")
    lines = out.strip().splitlines()
    assert code == 0 and len(lines) == 3
    assert lines[0].startswith("| p_d") and "1.64e-05" in lines[2] and "0.2308" in lines[2]


def test_tables_csv_matches_analytic():
    code, out = run("tables", "--table", "2", "--format", "csv")
    assert code == 0
    body = out.split("\n", 1)[1]
    t = pd.read_csv(io.StringIO(body))
    pd.testing.assert_frame_equal(t, analytic.paper_table2(), check_dtype=False)


@pytest.mark.parametrize("argv,needle", [
    (["expect", "--p-d", "1.2"], "p_d must be in [0, 1], got 1.2"),
    (["expect", "--p-d", "0.5", "--m", "-0.1"], "m must be in [0, 1]"),
    (["expect", "--p-d", "0.5", "--n-items", "0"], "n_items must be >= 1"),
    (["expect", "--p-d", "0.5", "--threshold", "2"], "threshold must be in [0, 1]"),
    (["expect", "--p-d", "nan"], "p_d must not be NaN"),
    (["expect", "--p-d", "abc"], "argument --p-d"),
    (["expect"], "--p-d"),
    (["tables", "--format", "xml"], "invalid choice"),
    (["no-such-command"], "invalid choice"),
])
def test_bad_input_is_one_line_exit_2(argv, needle, capsys):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2
    assert needle in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_console_script_exit_code_and_stderr():
    proc = subprocess.run([sys.executable, "-m", "labelvar.cli", "expect", "--p-d", "1.5"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "labelvar: error: p_d must be in [0, 1], got 1.5"
    assert proc.stdout == ""
