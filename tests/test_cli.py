"""The calculator and tables subcommands, and the command line's error contract."""

from __future__ import annotations

import io
import subprocess
import sys
from contextlib import redirect_stdout

import pandas as pd
import pytest

import labelvar
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
    assert row.E_F1 == pytest.approx(labelvar.expected_f1(0.6, 0.1))
    assert row.P_acc_ge == pytest.approx(analytic.prob_correct_at_least(0.6, 100, 80))
    assert row.SE == pytest.approx(analytic.accuracy_se(0.6, 100))
    f1 = analytic.exact_f1(0.6, 0.1, 100)
    assert row.F1_exact_mean == pytest.approx(f1.mean)
    assert (row.F1_lo, row.F1_hi) == pytest.approx(f1.interval(0.95))  # the one default level


def test_expect_markdown_table():
    code, out = run("expect", "--p-d", "0.6", "--m", "0.1")
    lines = out.strip().splitlines()
    assert code == 0 and len(lines) == 3
    assert lines[0].startswith("| p_d") and "1.64e-05" in lines[2] and "0.2308" in lines[2]


def test_tables_csv_matches_analytic(capsys):
    """stdout is CSV only (no title line): it parses as the analytic tables."""
    import csv

    assert main(["tables", "--table", "2", "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    t = pd.read_csv(io.StringIO(out))
    pd.testing.assert_frame_equal(t, analytic.paper_table2(), check_dtype=False)
    assert err == "labelvar: Table 2: expected precision and F1 for given p_d (expected recall) and m\n"
    assert main(["tables", "--format", "csv"]) == 0  # both: one CSV, "table" says which
    out, err = capsys.readouterr()
    rows = list(csv.reader(io.StringIO(out)))
    assert len({len(r) for r in rows}) == 1 and rows[0][0] == "table"
    both = pd.read_csv(io.StringIO(out))
    t1, t2 = analytic.paper_table1(), analytic.paper_table2()
    assert both.table.tolist() == [1] * len(t1) + [2] * len(t2)
    pd.testing.assert_frame_equal(both[both.table == 2][list(t2.columns)].reset_index(drop=True), t2,
                                  check_dtype=False)
    one = both[both.table == 1][list(t1.columns)].reset_index(drop=True).fillna({"baseline": ""})
    pd.testing.assert_frame_equal(one, t1, check_dtype=False)  # (an empty baseline reads as NaN)
    assert err.count("labelvar: Table ") == 2


@pytest.mark.parametrize("argv,needle", [
    (["expect", "--p-d", "1.2"], "--p-d must be in [0, 1], got 1.2"),
    (["expect", "--p-d", "0.5", "--m", "-0.1"], "m must be in [0, 1]"),
    (["expect", "--p-d", "0.5", "--n-items", "0"], "--n-items must be >= 1"),
    (["expect", "--p-d", "0.5", "--threshold", "2"], "threshold must be in [0, 1]"),
    (["expect", "--p-d", "nan"], "--p-d must not be NaN"),
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
    assert proc.stderr.strip() == "labelvar: error: --p-d must be in [0, 1], got 1.5"
    assert proc.stdout == ""


# --------------------------------------------------------------------------- the error boundary
@pytest.mark.parametrize("exc,code,needle", [
    (PermissionError(13, "Permission denied", "out/x.csv"), 2, "out/x.csv: Permission denied"),
    (IsADirectoryError(21, "Is a directory", "data"), 2, "data: Is a directory"),
    (OSError(28, "No space left on device", "big.csv"), 1, "disk full writing big.csv"),
    (MemoryError(), 1, "out of memory"),
    (ModuleNotFoundError("No module named 'pyarrow'", name="pyarrow"), 2,
     "pip install 'labelvar[parquet]'"),
    (ImportError("Unable to find a usable engine; tried using: 'pyarrow', 'fastparquet'."), 2,
     "labelvar[parquet]"),
    (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), 2, "not UTF-8"),
    (RuntimeError("boom"), 1, "the run failed: RuntimeError: boom (rerun with --debug"),
    (ValueError("labelvar configs not found: x/config.yaml"), 2,
     "labelvar: error: labelvar configs not found"),  # a message naming labelvar is prefixed too
])
def test_every_failure_is_one_line(monkeypatch, capsys, exc, code, needle):
    from labelvar.analytic import _closed_forms as analytic

    def fail(*args, **kwargs):
        raise exc

    monkeypatch.setattr(analytic, "_table1_rows", fail)
    assert main(["tables"]) == code
    err = capsys.readouterr().err
    assert err.startswith("labelvar: error: ") and needle in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_debug_shows_the_traceback(monkeypatch):
    from labelvar.analytic import _closed_forms as analytic

    monkeypatch.setattr(analytic, "_table1_rows", lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        main(["--debug", "tables"])


def test_version(capsys):
    import labelvar

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"labelvar {labelvar.__version__}"


def test_closed_pipe_ends_quietly(monkeypatch, capsys):
    """`labelvar tables | head`: writing to a closed pipe ends with exit 0 and no message."""

    class ClosedPipe(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(["tables"]) == 0
    assert capsys.readouterr().err == ""


def test_huge_size_is_computed_by_quadrature_not_refused(capsys):
    # 10^18 items: the exact sums would need 1.3 TB (they were refused, see
    # test_analytic's memory test); the quadrature answers in milliseconds
    assert main(["expect", "--p-d", "0.6", "--m", "0.1", "--n-items", "1000000000000000000"]) == 0
    out = capsys.readouterr().out
    assert "1000000000000000000" in out and "0.2308" in out


def test_memory_limit_is_configurable(monkeypatch, capsys):
    monkeypatch.setenv("LABELVAR_MEMORY_LIMIT", "1MB")
    assert main(["expect", "--p-d", "0.6", "--m", "0.1", "--n-items", "10000000"]) == 2
    assert "more than the limit of 1 MB" in capsys.readouterr().err
    monkeypatch.setenv("LABELVAR_MEMORY_LIMIT", "lots")
    assert main(["expect", "--p-d", "0.6"]) == 2
    assert "LABELVAR_MEMORY_LIMIT must be a size" in capsys.readouterr().err


@pytest.mark.parametrize("argv,needle", [
    (["design", "--panel-sizes", "100001", "--replicates", "1000000000000"], "needs about"),
    (["design", "--n-labels", "100000", "--panel-sizes", "3"], "vote compositions; at most"),
    (["design", "--theta", "beta:0,1"], "theta 'beta:0,1': beta a must be a number > 0"),
])
def test_impossible_design_sizes_and_bad_priors_are_one_line(capsys, argv, needle):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


def test_huge_panel_is_planned_without_materialising_a_composition_table(capsys):
    """--panel-sizes 100001 used to allocate a 100,002 x 100,002 matrix (80 GB)."""
    assert main(["design", "--panel-sizes", "100001", "--replicates", "0"]) == 0
    assert "recommended: K = 100001 annotators per item" in capsys.readouterr().out


def test_simulation_sizes_are_refused_before_allocating():
    from labelvar import Coin, Panel, simulate

    with pytest.raises(ValueError, match=r"replicates=1000000000000 .* needs about"):
        simulate(Coin(p_d=0.8), replicates=10**12)
    with pytest.raises(ValueError, match=r"n_labels=100000 needs about"):
        simulate(Coin(p_d=0.5, n_labels=10**5), replicates=10)
    # hours of per-item work on the explicit path: refused before any (issue 31's sizes)
    with pytest.raises(ValueError, match=r"^n_items=10000000 x replicates=1000000 simulated"):
        simulate(Panel(theta_prior="beta:2,1"), n_items=10**7, replicates=10**6)


def test_an_empty_list_is_refused_not_ignored(capsys):
    assert main(["expect", "--p-d", ",,,"]) == 2
    assert "argument --p-d: expected numbers" in capsys.readouterr().err


def test_an_unwritable_out_names_the_directory_asked_for(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code = main(["design", "--replicates", "0", "--panel-sizes", "1", "--out",
                 str(blocker / "sub")])
    err = capsys.readouterr().err
    assert code == 2 and f"cannot create {blocker / 'sub'}" in err and ".tmp" not in err


@pytest.mark.parametrize("argv,line", [
    (["expect", "--p-d", "0.5", "--threshold", "2"], "--threshold must be in [0, 1], got 2.0"),
    (["expect", "--p-d", "0.5", "--confidence-level", "2"], "--confidence-level must be in (0, 1)"),
    (["design", "--n-max", "-5"], "--n-max must be >= 2, got -5"),
    (["design", "--seed", "-1"], "--seed must be an int in [0, 2**63 - 1]"),
])
def test_messages_name_the_flag_the_user_typed(capsys, argv, line):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"labelvar: error: {line}") and len(err.splitlines()) == 1
