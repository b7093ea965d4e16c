"""Issue 31, round 3: the fuzz of the engine's surface (simulate, the closed forms and
distributions, sweeps and collect, the plot functions), one test per case it found wrong.

Every case failed on the morning's main: a silently wrong number, a crash or an unclear
refusal. Each asserts the right number (hand computation, exact asymptotics) or that the
refusal is one line naming the argument (or flag) and what is allowed. Nothing here runs a
kernel: refusals come before any work, and the columns are read from the validated grid.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from labelvar import (
    Coin,
    Panel,
    RaterModel,
    RaterPanel,
    analytic,
    plots,
    simulate,
)
from labelvar.cli import main
from labelvar.engine._spec import _Spec


def _one_line(exc) -> str:
    text = str(exc.value)
    assert "\n" not in text, text
    return text


def _cli(argv, capsys) -> tuple[int, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own exits
        code = exc.code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err.strip()


# --------------------------------------------------------------------------- simulate
@pytest.mark.parametrize("items, match", [
    (Coin(p_d=True), r"^Coin\.p_d must be a number in \[0, 1\], got True$"),
    (Coin(p_d=0.9, m=[False]), r"^Coin\.m must be a number in \[0, 1\], got \[False\]$"),
    (Panel(theta=np.bool_(True), panel_size=3), r"^Panel\.theta must be a number in \[0, 1\]"),
])
def test_a_bool_is_not_a_probability(items, match):
    """Coin(p_d=True) ran as p_d = 1."""
    with pytest.raises(ValueError, match=match) as exc:
        simulate(items, n_items=10, replicates=2, expected=False)
    _one_line(exc)


@pytest.mark.parametrize("items, field", [
    (Coin(p_d=0.9, m=0.2, n_labels=3, class_prior=[0.5, 0.25, 0.25]), "Coin"),
    (Panel(theta=0.8, m=0.7, n_labels=3, class_prior=[0.2, 0.3, 0.5]), "Panel"),
    (Coin(p_d=0.9, m=[0.25, 0.5], n_labels=3, class_prior=[0.5, 0.25, 0.25]), "Coin"),
])
def test_m_beside_a_class_prior_is_refused(items, field):
    """m was silently ignored under class_prior (and the tables' m column said m)."""
    with pytest.raises(ValueError, match=rf"^{field}\.m and {field}\.class_prior both set "
                                         r"the class prior; give one") as exc:
        simulate(items, n_items=10, replicates=2, expected=False)
    _one_line(exc)


@pytest.mark.parametrize("m", [None, 0.5, 0.25])
def test_the_m_column_under_a_class_prior_is_its_label_1_share(m):
    """The m column said 0.5 while label 1's prior was 0.25 (m unset, or its default)."""
    spec = _Spec.build(Coin(p_d=0.9, m=m, n_labels=3, class_prior=[0.5, 0.25, 0.25]),
                       ("expert",), 10, 2, 0, (), "auto")
    (cell,) = spec.cells()
    assert cell.columns(spec)["m"] == 0.25
    assert cell.class_prior(spec).tolist() == [0.5, 0.25, 0.25]
    # the random stream's key is the morning's (the m given, else 0.5)
    assert cell.m == (0.5 if m is None else m)


@pytest.mark.parametrize("kwargs, match", [
    (dict(expected="no"), r"^expected must be True or False, got 'no'$"),
    (dict(parallel="yes"), r"^parallel must be True, False or None, got 'yes'$"),
    (dict(progress=1), r"^progress must be True or False, got 1$"),
    (dict(outputs=3), r"^outputs must list 'raw' and/or 'joint', got 3$"),
])
def test_flags_are_bools(kwargs, match):
    """expected='no' computed the expectations; outputs=3 was a TypeError from list()."""
    with pytest.raises(ValueError, match=match) as exc:
        simulate(Coin(p_d=0.9), n_items=10, replicates=2, **kwargs)
    _one_line(exc)


def test_outputs_none_is_no_extra_table():
    """outputs=None was "'NoneType' object is not iterable"."""
    from labelvar.engine._simulate import _outputs

    assert _outputs(None) == _outputs(()) == {"raw": False, "joint": False}


@pytest.mark.parametrize("method", ["fast", "collapsed", None])
def test_a_rater_panel_refuses_a_method_it_has_not(method):
    """RaterPanel ignored method (any value, even a misspelt one)."""
    model = RaterModel.from_skill([{"accuracy": 0.9}, {"accuracy": 0.8}, {"accuracy": 0.7}],
                                  raters=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"^method must be 'auto' or 'explicit' for a "
                                         r"RaterPanel") as exc:
        simulate(RaterPanel(model), n_items=10, replicates=2, method=method)
    _one_line(exc)


@pytest.mark.parametrize("items, n_items, replicates", [
    (Coin(p_d=np.linspace(0.5, 1, 1001), m=np.linspace(0.01, 0.99, 99)), [10, 20, 30], 10_000),
    (Panel(theta=np.linspace(0.5, 1, 4001), panel_size=[3, 5, 7]), 100, 100_000),
])
def test_a_grid_of_hours_is_refused_before_any_work(items, n_items, replicates):
    """1.5 million cells x 10,000 replicates ran (for hours) instead of being refused."""
    with pytest.raises(ValueError, match=r"^the grid's [\d,]+ cells \(p_d or theta x m x "
                                         r"n_items x n_labels x panel_size\) x replicates=\d+ "
                                         r"is more than 1e\+09 simulated replicates") as exc:
        simulate(items, n_items=n_items, replicates=replicates)
    _one_line(exc)


# --------------------------------------------------------------------------- distributions
@pytest.mark.parametrize("n", [2**53 + 2, 2**54, 2**60, 10**18])
def test_binomial_tails_beyond_2_53_items_keep_their_last_digits(n):
    """P(X >= n/2) for p = 1/2 is 1/2 + pmf(n/2)/2 = 1/2 + sqrt(1/(2 pi n)) (1 + O(1/n)).

    The morning's value lost the continuity half and the units of k beyond 2**53 (a count
    is not an exact double there): 0.5 exactly at 2**60, twice the excess at 2**53 + 2.
    """
    exact = 0.5 + 0.5 * math.sqrt(2.0 / (math.pi * n))
    assert analytic.prob_correct_at_least(0.5, n, n // 2) == pytest.approx(exact, rel=1e-15)
    assert analytic.prob_accuracy_at_least(0.5, n, 0.5) == pytest.approx(exact, rel=1e-15)
    assert analytic.prob_random_accuracy_at_least(2, n, 0.5) == pytest.approx(exact, rel=1e-15)


def test_a_single_bin_is_a_stratified_expectation():
    """Scalars were refused as 'bin arrays must be non-empty 1-d sequences, got shape ()'.

    One bin of 100 items at p_d = 0.9, m = 0.1: TP = 9, FP = 9, FN = 1.
    """
    e = analytic.stratified_expectation(0.9, 0.1, 100)
    assert (e.precision, e.recall, e.accuracy, e.n_items) == (0.5, 0.9, 0.9, 100)
    assert e.f1 == pytest.approx(18 / 28, rel=1e-15)
    assert e == analytic.stratified_expectation([0.9], [0.1], [100])


@pytest.mark.parametrize("kwargs, match", [
    (dict(p_d=[]), r"^p_d must list at least one value, got \[\]$"),
    (dict(p_d=[0.9], n_items=[]), r"^n_items must list at least one value, got \[\]$"),
    (dict(p_d=np.linspace(0, 1, 1001), m=np.linspace(0.01, 0.99, 99), n_items=[10, 20, 30]),
     r"^p_d, m, n_items and threshold give 297,297 combinations \(1001 x 99 x 3 x 1\), more "
     r"than 10,000 rows"),
])
def test_expectation_table_sizes(kwargs, match):
    """An empty axis gave an empty table without columns; a grid of millions ran for minutes."""
    with pytest.raises(ValueError, match=match) as exc:
        analytic.expectation_table(**kwargs)
    _one_line(exc)


def test_expect_refuses_a_grid_of_minutes_naming_its_flags(capsys):
    p_d = ",".join(str(i / 1000) for i in range(1000))
    code, err = _cli(["expect", "--p-d", p_d, "--m", "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,0.95,0.99"],
                     capsys)
    assert code == 2
    assert err == ("labelvar: error: --p-d, --m, --n-items and --threshold give 11,000 "
                   "combinations (1000 x 11 x 1 x 1), more than 10,000 rows (each an exact F1 "
                   "distribution); give fewer values")


# --------------------------------------------------------------------------- sweep, collect
def test_sweep_refuses_a_grid_of_hours_before_running(capsys):
    grid = "[" + ",".join(str(i / 1000) for i in range(500, 1001)) + "]"
    m = "[" + ",".join(str(i / 100) for i in range(1, 100)) + "]"
    code, err = _cli(["sweep", f"grid.p_d={grid}", f"grid.m={m}", "grid.n_items=[100,1000]",
                      "replicates=20000", "output.plots=[]"], capsys)
    assert code == 2
    assert err.startswith("labelvar: error: the grid's 99,198 cells (p_d or theta x m x n_items "
                          "x n_labels x panel_size) x replicates=20000 is more than 1e+09")
    assert "\n" not in err


@pytest.mark.parametrize("out, message", [
    ("DIR", "--out must be a file ending in .csv or .parquet, got the directory"),
    ("x.xlsx", "--out must end in .csv or .parquet, got 'x.xlsx'"),
])
def test_collect_names_out(tmp_path, capsys, out, message):
    """'table file must end in .csv or .parquet, got ''' named neither --out nor a directory."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.csv").write_text("a\n1\n")
    target = str(tmp_path) if out == "DIR" else str(tmp_path / out)
    code, err = _cli(["collect", str(run), "--out", target], capsys)
    assert code == 2
    assert err.startswith(f"labelvar: error: {message}") and "\n" not in err


# --------------------------------------------------------------------------- plots
_STRATIFY = "a labelvar.stratify table"


@pytest.mark.parametrize("call, match", [
    (lambda t: plots.plot_stratified_scores(t), _STRATIFY),
    (lambda t: plots.plot_delta_by_bin(t), _STRATIFY),
    (lambda t: plots.plot_gap_to_expected(t), _STRATIFY),
    (lambda t: plots.plot_system_vs_system(t, "a", "b"), _STRATIFY),
    (lambda t: plots.plot_power_curves(t), "a DesignResult.curves table"),
    (lambda t: plots.plot_item_models(t), "an item-model check table"),
])
@pytest.mark.parametrize("table", [None, [1, 2], "scores.csv"])
def test_a_figure_of_no_table_is_one_line(call, match, table):
    """None crashed with AttributeError / TypeError deep in the figure code."""
    with pytest.raises(ValueError, match=r"^(table|curves) must be a pandas DataFrame \("
                                         + match) as exc:
        call(table)
    _one_line(exc)


@pytest.mark.parametrize("call, needs", [
    (lambda t: plots.plot_stratified_scores(t), "task, system, role, stratum, metric, score"),
    (lambda t: plots.plot_delta_by_bin(t), "role, stratum, metric, delta_human"),
    (lambda t: plots.plot_gap_to_expected(t), "task, role, stratum, metric, delta_expected"),
    (lambda t: plots.plot_system_vs_system(t, "a", "b"), "task, system, stratum, metric, score"),
    (lambda t: plots.plot_power_curves(t), "panel_size, n_items, power_analytic"),
])
def test_a_figure_of_an_empty_table_names_its_columns(call, needs):
    """An empty DataFrame was a KeyError ('metric', 'panel_size') from pandas."""
    with pytest.raises(ValueError, match=r"^(table|curves) lacks the column\(s\) ") as exc:
        call(pd.DataFrame())
    assert _one_line(exc).endswith(f"(needs {needs})")


def test_an_item_model_table_without_rows_is_refused():
    """Its columns without rows: matplotlib's 'Number of rows must be a positive integer'."""
    cols = ["data", "K", "model", "bin", "agreement", "predicted", "held_out", "error"]
    with pytest.raises(ValueError, match=r"^table has no rows \(nothing to draw\)$"):
        plots.plot_item_models(pd.DataFrame(columns=cols))


def _coin_rows(mean=np.nan, expected=np.nan, p_d=(0.6, 0.9), theta=np.nan):
    return pd.DataFrame([dict(p_d=p, theta=theta, m=0.5, n_items=100, labeller=lab,
                              stratum=s, metric=met, mean=mean, expected=expected, se=0.01,
                              q05=0.0, q95=1.0, threshold=0.8 if met == "prob_accuracy_ge"
                              else np.nan, panel_size=3)
                         for p in p_d for lab in ("expert", "random")
                         for s in ("all", "0.67", "1.00")
                         for met in ("accuracy", "f1", "theta", "prob_accuracy_ge")])


@pytest.mark.parametrize("call", [plots.plot_figure1, plots.plot_panel_bias,
                                  plots.plot_table1_tails])
def test_a_figure_of_nan_values_only_is_refused(call):
    """A table whose every mean and expected value is NaN gave an empty figure."""
    table = _coin_rows(p_d=(0.6,)) if call is plots.plot_panel_bias else _coin_rows()
    with pytest.raises(ValueError, match=r"^table has no finite mean or expected value in its "
                                         r"rows with metric in \[.*\]: nothing to draw$"):
        call(table)


def test_figure1_of_a_panel_table_draws_against_theta():
    """A Panel table's p_d is NaN: plot_figure1 drew empty axes (the sweep used theta)."""
    rows = []
    for theta, acc in ((0.7, 0.78), (0.9, 0.97)):
        rows += [dict(p_d=np.nan, theta=theta, m=0.5, labeller="expert", stratum="all",
                      metric=met, mean=acc, expected=acc, q05=acc - 0.01, q95=acc + 0.01)
                 for met in ("accuracy", "f1")]
    fig = plots.plot_figure1(pd.DataFrame(rows), labellers=("expert",))
    xs = sorted({float(x) for ln in fig.axes[0].get_lines() for x in ln.get_xdata()})
    assert xs == [0.7, 0.9]
    with pytest.raises(ValueError, match=r"^table has no p_d \(or a panel's fixed theta\) to "
                                         r"draw plot_figure1 against"):
        plots.plot_figure1(pd.DataFrame(rows).assign(theta=np.nan), labellers=("expert",))


def test_save_names_the_formats_it_takes(tmp_path):
    """A bad format was matplotlib's 'Format 'jpg2' is not supported' (naming no argument)."""
    fig, _ = plots.new_figure()
    with pytest.raises(ValueError, match=r"^formats must name figure formats \(.*png.*\), "
                                         r"got 'jpg2'$"):
        plots.save(fig, tmp_path / "f", formats=("png", "jpg2"))
    assert not list(tmp_path.iterdir())  # refused before the first file


@pytest.mark.parametrize("value", ["0.5,,0.7", "0.5,", ",0.5"])
def test_number_lists_with_an_empty_entry_are_refused(value, capsys):
    # before: the empty entry was dropped and '0.5,,0.7' ran as 0.5, 0.7
    code, err = _cli(["expect", "--p-d", value, "--m", "0.5", "--n-items", "10"], capsys)
    assert code == 2
    assert err == (f"labelvar expect: error: argument --p-d: expected numbers separated by "
                   f"commas, got {value!r}")
