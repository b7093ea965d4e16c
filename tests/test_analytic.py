"""Tests of labelvar.analytic against scipy, exact enumeration and the paper's tables."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from labelvar.analytic import _closed_forms as a  # every closed form, the top-level four too


# --------------------------------------------------------------------------- helpers
def exact_upper_tail(p: Fraction, n: int, k: int) -> Fraction:
    """P(X >= k) for X ~ Bin(n, p), in exact rational arithmetic."""
    return sum((math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k, n + 1)), Fraction(0))


def matches_printed(value: float, printed: str) -> bool:
    """True if ``value`` shows as ``printed`` when rounded OR truncated to the printed digits.

    The paper mixes the two (e.g. 0.9992 printed as 0.99 is truncation; 0.5398
    printed as 0.54 is rounding), so a printed entry is matched by either.
    """
    if "e" in printed:
        mant, exp = printed.split("e")
        digits = len(mant.split(".")[1]) if "." in mant else 0
        scale = 10 ** int(exp)
        x = value / scale
    else:
        digits = len(printed.split(".")[1])
        mant, x = printed, value
    target = float(mant)
    rounded = round(x, digits)
    truncated = math.floor(x * 10**digits + 1e-9) / 10**digits
    return math.isclose(rounded, target, abs_tol=1e-12) or math.isclose(truncated, target, abs_tol=1e-12)


# --------------------------------------------------------------------------- accuracy and tails
def test_expected_accuracy_and_se_broadcast():
    p = np.array([0.5, 0.6, 0.9])
    np.testing.assert_array_equal(a.expected_accuracy(p), p)
    se = a.accuracy_se(p[:, None], np.array([10, 100]))
    assert se.shape == (3, 2)
    np.testing.assert_allclose(se, np.sqrt(p[:, None] * (1 - p[:, None]) / np.array([10, 100])))


def test_prob_correct_at_least_matches_scipy_sf_on_a_grid():
    p = np.linspace(0.0, 1.0, 11)[:, None, None]
    n = np.array([1, 7, 50, 300])[None, :, None]
    k = np.array([0, 1, 3, 7])[None, None, :]
    k = np.minimum(k, n)
    got = a.prob_correct_at_least(p, n, k)
    np.testing.assert_allclose(got, stats.binom.sf(k - 1, n, p), rtol=1e-14, atol=0)
    assert np.all(a.prob_correct_at_least(p, n, 0) == 1.0)


@pytest.mark.parametrize("p,n,k", [(Fraction(1, 4), 100, 80), (Fraction(1, 4), 100, 50),
                                   (Fraction(1, 2), 100, 80), (Fraction(3, 5), 100, 80),
                                   (Fraction(9, 10), 100, 80), (Fraction(3, 5), 12, 9),
                                   (Fraction(1, 10), 200, 150)])
def test_tails_against_exact_rational_enumeration(p, n, k):
    exact = float(exact_upper_tail(p, n, k))
    assert a.prob_correct_at_least(float(p), n, k) == pytest.approx(exact, rel=1e-10)


def test_extreme_tail_keeps_its_digits():
    # P(correct >= 80 | n = 100, p = 0.25) is 1.2667e-30, not 0 (the acceptance)
    got = a.prob_correct_at_least(0.25, 100, 80)
    assert got == pytest.approx(float(exact_upper_tail(Fraction(1, 4), 100, 80)), rel=1e-10)
    assert f"{got:.3g}" == "1.27e-30"
    # and much further out
    assert a.prob_correct_at_least(0.25, 1000, 900) == pytest.approx(
        float(exact_upper_tail(Fraction(1, 4), 1000, 900)), rel=1e-8)


def test_fraction_threshold_is_robust_to_floating_point():
    assert 0.07 * 100 != 7 and 0.57 * 100 != 57  # the traps: 7.000000000000001, 56.99999999999999
    assert int(a.ceil_count(0.07, 100)) == 7
    assert int(a.ceil_count(0.8, 100)) == 80
    assert int(a.ceil_count(0.57, 100)) == 57      # 56.99999999999999
    assert int(a.ceil_count(0.801, 100)) == 81
    assert int(a.ceil_count(0.0, 100)) == 0
    assert int(a.floor_count(0.7, 100)) == 70
    assert int(a.floor_count(0.29, 100)) == 29     # 28.999999999999996
    assert a.prob_accuracy_at_least(0.6, 100, 0.8) == a.prob_correct_at_least(0.6, 100, 80)
    assert a.prob_accuracy_at_least(0.6, 100, 0.801) == a.prob_correct_at_least(0.6, 100, 81)


def test_prob_accuracy_between_matches_enumeration_and_section_5_2():
    # section 5.2: p_d = 0.6, N = 100: P(50-60 %) = 0.52 and P(50-70 %) = 0.97
    assert round(a.prob_accuracy_between(0.6, 100, 0.5, 0.6), 2) == 0.52
    assert round(a.prob_accuracy_between(0.6, 100, 0.5, 0.7), 2) == 0.97
    for p, n, lo, hi in [(0.6, 100, 0.5, 0.6), (0.9, 50, 0.95, 1.0), (0.3, 40, 0.0, 0.1),
                         (0.5, 10, 0.35, 0.35), (0.5, 10, 0.3, 0.3)]:
        k = np.arange(n + 1)
        sel = (k >= a.ceil_count(lo, n)) & (k <= a.floor_count(hi, n))
        assert a.prob_accuracy_between(p, n, lo, hi) == pytest.approx(
            stats.binom.pmf(k[sel], n, p).sum(), rel=1e-12, abs=1e-300)
    assert a.prob_accuracy_between(0.5, 10, 0.35, 0.35) == 0.0  # no whole count in [3.5, 3.5]


def test_random_labeller_baseline():
    assert a.random_accuracy(2) == 0.5 and a.random_accuracy(4) == 0.25
    np.testing.assert_allclose(a.random_accuracy([2, 3, 5]), [1 / 2, 1 / 3, 1 / 5])
    # Table 1's note: with N = 10 a binary random labeller has a 5 % chance of >= 80 %
    assert round(a.prob_random_accuracy_at_least(2, 10, 0.8), 2) == 0.05
    assert a.prob_random_accuracy_at_least(4, 100, 0.5) == a.prob_accuracy_at_least(0.25, 100, 0.5)


def test_heterogeneous_tail_matches_binomial_and_brute_force():
    assert a.prob_correct_at_least_heterogeneous([0.6] * 30, 20) == pytest.approx(
        a.prob_correct_at_least(0.6, 30, 20), rel=1e-12)
    assert a.prob_correct_at_least_heterogeneous([0.25] * 100, 80) == pytest.approx(
        1.2666789647898236e-30, rel=1e-8)
    p = [0.6, 0.8, 1.0, 0.3, 0.55]
    # brute force over all 2^5 outcomes
    total = 0.0
    for bits in range(32):
        x = [(bits >> i) & 1 for i in range(5)]
        if sum(x) >= 3:
            total += np.prod([pi if xi else 1 - pi for pi, xi in zip(p, x)])
    assert a.prob_correct_at_least_heterogeneous(p, 3) == pytest.approx(total, rel=1e-12)
    assert a.prob_correct_at_least_heterogeneous(p, 0) == 1.0


def test_heterogeneous_tail_of_many_items():
    # per-bin p_d (few distinct values) and per-item p (all distinct) at sizes where
    # scipy.stats.poisson_binom's pmf took minutes (3e4 items: 70 s)
    rng = np.random.default_rng(5)
    p = rng.random(300)
    ref = stats.poisson_binom(p).pmf(np.arange(301))
    for k in (1, 120, 150, 200, 290):
        assert a.prob_correct_at_least_heterogeneous(p, k) == pytest.approx(ref[k:].sum(), rel=1e-10)
    bins = np.repeat([0.6, 0.8, 0.97], [1420, 1960, 1620])  # Table 3's bins x 10
    k = 4000
    pmf = np.convolve(np.convolve(stats.binom.pmf(np.arange(1421), 1420, 0.6),
                                  stats.binom.pmf(np.arange(1961), 1960, 0.8)),
                      stats.binom.pmf(np.arange(1621), 1620, 0.97))
    assert a.prob_correct_at_least_heterogeneous(bins, k) == pytest.approx(pmf[k:].sum(), rel=1e-9)
    q = rng.uniform(0.5, 1.0, 20_000)
    mu, sd = q.sum(), np.sqrt((q * (1 - q)).sum())
    for z in (-2.0, 0.0, 2.0):  # the normal limit (20,000 items, third moment ~1e-2)
        k = int(np.ceil(mu + z * sd))
        got = a.prob_correct_at_least_heterogeneous(q, k)
        assert got == pytest.approx(stats.norm.sf((k - 0.5 - mu) / sd), abs=2e-3)


# --------------------------------------------------------------------------- the paper's tables
# Table 1: (p_d, N, r_c, printed P(score >= r_c))
TABLE1 = [
    (0.25, 100, 50, "6.6e-8"), (0.25, 100, 80, "1.2e-30"), (0.25, 10, 5, "0.08"), (0.25, 10, 8, "0.00"),
    (0.5, 100, 50, "0.54"), (0.5, 100, 80, "5.6e-10"), (0.5, 10, 5, "0.62"), (0.5, 10, 8, "0.05"),
    (0.6, 100, 50, "0.98"), (0.6, 100, 80, "1.6e-5"), (0.6, 10, 5, "0.83"), (0.6, 10, 8, "0.17"),
    (0.9, 100, 50, "1.00"), (0.9, 100, 80, "0.99"), (0.9, 10, 5, "0.99"), (0.9, 10, 8, "0.92"),
]


@pytest.mark.parametrize("p,n,r_c,printed", TABLE1)
def test_paper_table1(p, n, r_c, printed):
    # Our values are exact. The paper truncates some entries instead of rounding:
    # 1.2667e-30 -> "1.2e-30", 0.99919 -> "0.99", 0.99985 -> "0.99", 0.92981 -> "0.92";
    # others are rounded (0.53979 -> "0.54", 6.6385e-8 -> "6.6e-8").
    got = a.prob_correct_at_least(p, n, r_c)
    assert matches_printed(got, printed), (got, printed)
    assert got == pytest.approx(stats.binom.sf(r_c - 1, n, p), rel=1e-12)


def test_paper_table1_as_computed_by_the_tables_command():
    t = a.paper_table1()
    assert len(t) == 8
    for p, n, r_c, printed in TABLE1:
        row = t[(t.p_d == p) & (t[f"r_c_{n}"] == r_c)]
        assert len(row) == 1 and matches_printed(float(row[f"P_{n}"].iloc[0]), printed)


TABLE2 = [  # p_d, m, printed precision, printed F1
    (0.5, 0.01, "0.01", "0.02"), (0.5, 0.10, "0.10", "0.17"), (0.5, 0.50, "0.50", "0.50"),
    (0.6, 0.01, "0.01", "0.03"), (0.6, 0.10, "0.14", "0.23"), (0.6, 0.50, "0.60", "0.60"),
    (0.9, 0.01, "0.08", "0.15"), (0.9, 0.10, "0.50", "0.64"), (0.9, 0.50, "0.90", "0.90"),
]


@pytest.mark.parametrize("p,m,prec,f1", TABLE2)
def test_paper_table2(p, m, prec, f1):
    assert f"{a.expected_precision(p, m):.2f}" == prec
    assert f"{a.expected_f1(p, m):.2f}" == f1
    assert a.expected_recall(p, m) == pytest.approx(p)


# Table 3, expected (E) columns: per bin (p_d, S, m) and the "All" row; the paper
# approximates p_d -> 1.0 by 0.97. (finding, bins, per-bin E F1, per-bin E acc, All F1, All acc)
TABLE3 = [
    ("Cardiomegaly", [(0.6, 142, 0.507), (0.8, 196, 0.372), (0.97, 162, 0.037)],
     ["0.60", "0.75", "0.71"], ["0.60", "0.80", "0.97"], "0.68", "0.80"),
    ("Lung Opacity", [(0.6, 106, 0.519), (0.8, 125, 0.536), (0.97, 269, 0.528)],
     ["0.61", "0.81", "0.97"], ["0.60", "0.80", "0.97"], "0.86", "0.85"),
    ("Support Devices", [(0.6, 50, 0.580), (0.8, 105, 0.705), (0.97, 345, 0.458)],
     ["0.64", "0.85", "0.97"], ["0.60", "0.80", "0.97"], "0.90", "0.90"),
]


@pytest.mark.parametrize("finding,bins,f1s,accs,all_f1,all_acc", TABLE3, ids=[t[0] for t in TABLE3])
def test_paper_table3_expected_columns(finding, bins, f1s, accs, all_f1, all_acc):
    p, s, m = (np.array(x) for x in zip(*bins))
    for pk, mk, f1, acc in zip(p, m, f1s, accs):
        assert f"{a.expected_f1(pk, mk):.2f}" == f1
        assert f"{a.expected_accuracy(pk):.2f}" == acc
    e = a.stratified_expectation(p, m, s)
    assert f"{e.f1:.2f}" == all_f1
    assert f"{e.accuracy:.2f}" == all_acc
    assert e.n_items == 500


def test_paper_table4_expected_column():
    # Mammogram: bins p_d = 2/3 (printed 0.67) and 1.00
    assert f"{a.expected_f1(2 / 3, 0.229):.2f}" == "0.48"
    assert f"{a.expected_accuracy(2 / 3):.2f}" == "0.67"
    assert f"{a.expected_f1(1.0, 0.029):.2f}" == "1.00"
    e = a.stratified_expectation([2 / 3, 1.0], [0.229, 0.029], [15834, 185245])
    assert (f"{e.f1:.2f}", f"{e.accuracy:.2f}") == ("0.75", "0.97")
    assert e.n_items == 201079 and f"{e.m:.3f}" == "0.045"


def test_section4_small_sample_note():
    # "at N = 12 [an accuracy of 0.8 at p_d -> 0.6] has a ~22 % chance": that is
    # P(X >= 9) = 0.225, i.e. 9/12 = 0.75 correct; P(X >= 10) (>= 0.8 exactly) is 0.083.
    assert round(a.prob_correct_at_least(0.6, 12, 9), 2) == 0.23
    assert round(a.prob_accuracy_at_least(0.6, 12, 0.8), 3) == 0.083


# --------------------------------------------------------------------------- confusion, P/R/F1
def test_expected_confusion_identities():
    p, m, n = np.array([0.5, 0.9])[:, None], np.array([0.1, 0.4]), 200
    c = a.expected_confusion(p, m, n)
    np.testing.assert_allclose(c.tp + c.fp + c.fn + c.tn, n)
    np.testing.assert_allclose(c.tp + c.fn, m * n + 0 * p)
    np.testing.assert_allclose(c.tp / (c.tp + c.fp), a.expected_precision(p, m))
    np.testing.assert_allclose(2 * c.tp / (2 * c.tp + c.fp + c.fn), a.expected_f1(p, m))
    np.testing.assert_allclose((c.tp + c.tn) / n, a.expected_accuracy(p) + 0 * m)


def test_undefined_ratios_are_nan_without_warnings():
    with np.errstate(all="raise"):
        assert math.isnan(a.expected_precision(1.0, 0.0))
        assert math.isnan(a.expected_f1(1.0, 0.0))
        assert math.isnan(a.expected_recall(0.7, 0.0))
    assert a.expected_f1(0.7, 0.0) == 0.0


def test_closed_forms_exact_at_the_ends_of_p_d_and_tiny_m():
    # p_d = 1: every positive is found and nothing else is predicted, so E(F1) = 1 for any
    # m > 0 (1 - p_d + 2 m p_d used to lose 2 m p_d to rounding: NaN below m ~ 1e-17,
    # 1.0000000000000002 at m = 0.1); E(R) = p_d for every m > 0, subnormal m included
    for m in (0.1, 0.3, 1e-10, 1e-200, 1e-310):
        assert a.expected_f1(1.0, m) == 1.0
        assert a.expected_recall(0.5, m) == 0.5
    assert a.expected_recall(0.5, 5e-324) == 0.5
    # m = 1/2: E(F1) = 2 p / (p + 1 - p) = p exactly, also next to 1
    assert a.expected_f1(1 - 1e-12, 0.5) == 1 - 1e-12
    np.testing.assert_array_equal(a.expected_f1(1.0, [[0.0], [0.2]]), [[np.nan], [1.0]])


def test_stratified_single_bin_equals_unstratified():
    e = a.stratified_expectation([0.7], [0.3], [80])
    assert e.precision == pytest.approx(a.expected_precision(0.7, 0.3))
    assert e.recall == pytest.approx(0.7)
    assert e.f1 == pytest.approx(a.expected_f1(0.7, 0.3))
    assert e.accuracy == pytest.approx(0.7)


@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
@pytest.mark.parametrize("m", [0.0, 0.4, 1.0])
def test_stratified_equals_unstratified_at_the_edges(p, m):
    # one bin, or bins that differ only in size, are the unstratified closed forms, NaN
    # where those are NaN (F1 was NaN whenever P or R was: m = 0 gave NaN, not 0)
    for e in (a.stratified_expectation([p], [m], [50]),
              a.stratified_expectation([p, p], [m, m], [10, 40])):
        np.testing.assert_allclose(
            [e.precision, e.recall, e.f1, e.accuracy],
            [a.expected_precision(p, m), a.expected_recall(p, m), a.expected_f1(p, m), p],
            rtol=1e-12, atol=1e-15)
    e = a.stratified_expectation([0.0, 0.5], [0.5, 0.0], [10, 10])  # TP = 0, FP, FN > 0
    assert e.f1 == 0.0 and e.precision == 0.0 and e.recall == 0.0


def test_stratified_equals_pooled_confusion_counts():
    n, m, p = np.array([10, 20, 70]), np.array([0.5, 0.2, 0.1]), np.array([0.6, 0.8, 1.0])
    c = a.expected_confusion(p, m, n)
    e = a.stratified_expectation(p, m, n)
    assert e.precision == pytest.approx(c.tp.sum() / (c.tp.sum() + c.fp.sum()))
    assert e.recall == pytest.approx(c.tp.sum() / (c.tp.sum() + c.fn.sum()))
    assert e.accuracy == pytest.approx((c.tp.sum() + c.tn.sum()) / n.sum())


# --------------------------------------------------------------------------- exact distributions
def brute_force_metrics(npos, nneg, s, t, zd=0.0):
    """Means of accuracy, precision, recall, F1 by double loop over (TP, FP)."""
    acc = prec = rec = f1 = 0.0
    for tp in range(npos + 1):
        for fp in range(nneg + 1):
            w = stats.binom.pmf(tp, npos, s) * stats.binom.pmf(fp, nneg, 1 - t)
            acc += w * (tp + nneg - fp) / (npos + nneg)
            prec += w * (tp / (tp + fp) if tp + fp else zd)
            rec += w * (tp / npos if npos else zd)
            f1 += w * (2 * tp / (tp + fp + npos) if tp + fp + npos else zd)
    return acc, prec, rec, f1


@pytest.mark.parametrize("npos,nneg,s,t", [(10, 90, 0.9, 0.9), (1, 9, 0.6, 0.6), (0, 10, 0.7, 0.7),
                                           (5, 5, 0.5, 0.5), (3, 27, 0.5, 0.5), (12, 3, 0.2, 0.95),
                                           (7, 0, 0.6, 0.6)])
def test_exact_binary_metrics_match_enumeration(npos, nneg, s, t):
    e = a.exact_binary_metrics(npos, nneg, s, t)
    got = (e.accuracy.mean, e.precision.mean, e.recall.mean, e.f1.mean)
    np.testing.assert_allclose(got, brute_force_metrics(npos, nneg, s, t), rtol=1e-10, atol=1e-14)
    for d in (e.accuracy, e.precision, e.recall, e.f1):
        assert d.total == pytest.approx(1.0, abs=1e-12)
        assert np.all(np.diff(d.values) > 0)
        assert d.values.min() >= 0 and d.values.max() <= 1


def test_exact_distribution_quantiles_and_sf():
    e = a.exact_binary_metrics(4, 6, 0.6, 0.6)
    acc = e.accuracy
    # accuracy = (TP + TN)/10 with TP + TN ~ Bin(10, 0.6): compare against scipy
    k = np.arange(11)
    np.testing.assert_allclose(acc.values, k / 10)
    np.testing.assert_allclose(acc.probs, stats.binom.pmf(k, 10, 0.6), rtol=1e-12)
    for q in (0.05, 0.5, 0.95):
        assert acc.quantile(q) == pytest.approx(stats.binom.ppf(q, 10, 0.6) / 10)
    assert acc.sf(0.8) == pytest.approx(stats.binom.sf(7, 10, 0.6))
    assert acc.sf(0.0) == pytest.approx(1.0)


def test_zero_division_convention():
    # no positives and (with specificity 1) nothing predicted positive: F1 is 0/0
    e0 = a.exact_binary_metrics(0, 10, 0.5, 1.0, zero_division=0.0)
    assert e0.f1.mean == 0.0 and e0.precision.mean == 0.0
    e1 = a.exact_binary_metrics(0, 10, 0.5, 1.0, zero_division=1.0)
    assert e1.f1.mean == 1.0
    en = a.exact_binary_metrics(2, 8, 0.5, 0.5, zero_division=np.nan)
    # conditional on TP + FP > 0 (probability 1 - 0.5**10)
    assert en.precision.total == pytest.approx(1 - 0.5**10)
    with pytest.raises(ValueError, match="zero_division"):
        a.exact_binary_metrics(2, 8, 0.5, 0.5, zero_division=2.0)


def test_zero_division_nan_with_a_score_undefined_on_every_sample(monkeypatch):
    # recall without positives, precision of a labeller that never says positive: with
    # zero_division=nan there is nothing left, an empty distribution with NaN summaries
    # (this raised numpy's "weights and list don't have the same length")
    cases = [(a.exact_binary_metrics(0, 10, 0.5, 0.5, zero_division=np.nan), "recall"),
             (a.exact_binary_metrics(3, 7, 0.0, 1.0, zero_division=np.nan), "precision"),
             (a.exact_binary_metrics(0, 10, 1.0, 1.0, zero_division=np.nan), "f1")]
    from labelvar.analytic import _distributions

    monkeypatch.setattr(_distributions, "_OUTER_MAX", 0)  # the large-sample path
    cases.append((a.exact_binary_metrics(0, 1000, 0.5, 0.5, zero_division=np.nan), "recall"))
    for e, name in cases:
        d = getattr(e, name)
        assert d.values.size == 0 and d.total == 0.0
        assert math.isnan(d.mean) and math.isnan(d.sd)
        assert all(math.isnan(x) for x in d.interval(0.9))
        assert np.isnan(d.quantile([0.1, 0.9])).all() and np.isnan(d.sf([0.0, 1.0])).all()
        assert "mean=nan" in repr(d)
    # the defined scores are unaffected: 3 positives never found, FP ~ 0
    e = cases[1][0]
    assert e.recall.mean == 0.0 and e.accuracy.mean == pytest.approx(0.7)
    assert math.isnan(a.exact_f1(1.0, 0.0, 10, zero_division=np.nan).mean)


def test_expectation_table_takes_arrays_of_any_shape():
    # values to combine: a column vector is its values (it raised numpy's TypeError)
    t = a.expectation_table(np.array([[0.6], [0.9]]), 0.1, 100, 0.8)
    assert t["p_d"].tolist() == [0.6, 0.9]
    assert t["E_F1"].tolist() == pytest.approx([2 * 0.06 / (0.12 + 0.4), 2 * 0.09 / (0.18 + 0.1)])


def test_exact_f1_converges_to_expected_f1_and_differs_for_small_n():
    ef1 = a.expected_f1(0.6, 0.1)
    gaps = []
    for n in (10, 30, 100, 1000, 10_000):
        gaps.append(abs(a.exact_f1(0.6, 0.1, n).mean - ef1))
    assert gaps[-1] < 1e-4
    assert gaps[0] > 1e-3                    # a real difference at n = 10
    assert all(x >= y for x, y in zip(gaps, gaps[1:]))
    # small samples with few positives: the finite-sample mean is far from the ratio
    # of expectations (here above it: 0.518 vs 0.474 with one positive item in 20)
    small = a.exact_f1(0.9, 0.05, 20)
    assert small.mean == pytest.approx(brute_force_metrics(1, 19, 0.9, 0.9)[3], rel=1e-12)
    assert small.mean - a.expected_f1(0.9, 0.05) > 0.04
    assert abs(a.exact_f1(0.9, 0.1, 10).mean - a.expected_f1(0.9, 0.1)) > 0.03
    # the sd shrinks like 1/sqrt(n)
    sd100, sd10000 = a.exact_f1(0.7, 0.3, 100).sd, a.exact_f1(0.7, 0.3, 10_000).sd
    assert sd100 / sd10000 == pytest.approx(10, rel=0.05)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 10**13), st.floats(0.0, 1.0))
def test_whole_counts_are_exact_at_any_n(n, frac):
    """k / n given as a float gives back k; other fractions give exact ceil / floor / round.

    Up to n ~ 1e9 a tolerance relative to the product reached a whole item:
    n_positives(0.5, 10**9) was 500000001 and exact_f1(0.5, 1.0, 10**9) failed.
    n_positives(0.6846468720876239, 8298665903722) is 5681655653484: the exact product
    is 0.0107 below the half, inside the 16-ulp tolerance (0.02 there), so it rounds up.
    """
    k = int(frac * n)
    assert int(a.ceil_count(k / n, n)) == k and int(a.floor_count(k / n, n)) == k
    assert int(a.n_positives(k / n, n)) == k
    x = Fraction(frac) * n  # the exact product of the float given and n
    far = max(Fraction(1, 10**6), Fraction(64 * np.finfo(float).eps) * x)
    if abs(x - round(x)) > far:  # far from whole (0.8 * n is whole: the float means 4/5)
        assert int(a.ceil_count(frac, n)) == math.ceil(x)
        assert int(a.floor_count(frac, n)) == math.floor(x)
    half = x - Fraction(1, 2)  # n_positives rounds halves up: within 16 ulps of one counts as it
    if abs(half - round(half)) > far:
        assert int(a.n_positives(frac, n)) == math.floor(x + Fraction(1, 2))


def test_whole_counts_at_a_billion_items():
    # near a half, 16 ulps of the product (0.02 at 5.7e12) count as the half
    assert int(a.n_positives(0.6846468720876239, 8298665903722)) == 5681655653484
    assert int(a.n_positives(0.5, 10**9)) == 500_000_000
    assert int(a.n_positives(0.3, 10**10)) == 3_000_000_000
    assert int(a.ceil_count(0.5000000004, 10**9)) == 500_000_001
    assert int(a.floor_count(0.4999999996, 10**9)) == 499_999_999
    d = a.exact_f1(0.5, 1.0, 10**9)  # every item positive: F1 = 2 TP / (TP + N), TP ~ Bin(N, 1/2)
    assert d.mean == pytest.approx(2 / 3, rel=1e-6)


def test_exact_f1_uses_round_half_up_positives():
    assert int(a.n_positives(0.5, 5)) == 3
    d = a.exact_f1(0.8, 0.5, 5)
    ref = brute_force_metrics(3, 2, 0.8, 0.8)[3]
    assert d.mean == pytest.approx(ref, rel=1e-12)


def test_exact_f1_large_n_is_vectorised():
    # 10^4 items: the grid is trimmed to the non-negligible support (mass kept ~ 1)
    d = a.exact_f1(0.6, 0.5, 10_000)
    assert d.total == pytest.approx(1.0, abs=1e-12)
    assert d.mean == pytest.approx(0.6, abs=1e-4)


# --------------------------------------------------------------------------- properties
prob = st.floats(0.0, 1.0, allow_nan=False)
inner = st.floats(0.01, 0.99, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(p1=inner, p2=inner, m=inner)
def test_expected_f1_rises_with_p_d(p1, p2, m):
    lo, hi = sorted((p1, p2))
    assert a.expected_f1(lo, m) <= a.expected_f1(hi, m) + 1e-12


@settings(max_examples=200, deadline=None)
@given(p=inner, m1=inner, m2=inner)
def test_expected_f1_and_precision_rise_with_m(p, m1, m2):
    lo, hi = sorted((m1, m2))
    assert a.expected_f1(p, lo) <= a.expected_f1(p, hi) + 1e-12
    assert a.expected_precision(p, lo) <= a.expected_precision(p, hi) + 1e-12


@settings(max_examples=200, deadline=None)
@given(p=prob, n=st.integers(1, 400), data=st.data())
def test_tails_are_probabilities_and_decrease_in_k(p, n, data):
    k = data.draw(st.integers(0, n))
    t = a.prob_correct_at_least(p, n, k)
    assert 0.0 <= t <= 1.0
    assert a.prob_correct_at_least(p, n, 0) == 1.0
    if k < n:
        assert a.prob_correct_at_least(p, n, k + 1) <= t
    frac = data.draw(st.floats(0.0, 1.0))
    assert 0.0 <= a.prob_accuracy_at_least(p, n, frac) <= 1.0


@settings(max_examples=100, deadline=None)
@given(p1=prob, p2=prob, n=st.integers(1, 200), a_=st.floats(0, 1))
def test_tail_rises_with_p_d(p1, p2, n, a_):
    lo, hi = sorted((p1, p2))
    assert a.prob_accuracy_at_least(lo, n, a_) <= a.prob_accuracy_at_least(hi, n, a_) + 1e-12


@settings(max_examples=60, deadline=None)
@given(p=prob, m=prob, n=st.integers(1, 60))
def test_exact_f1_bounds(p, m, n):
    d = a.exact_f1(p, m, n)
    assert 0.0 <= d.mean <= 1.0 and d.sd >= 0
    lo, hi = d.interval(0.9)
    assert 0.0 <= lo <= d.quantile(0.5) <= hi <= 1.0


@settings(max_examples=60, deadline=None)
@given(bins=st.lists(st.tuples(st.integers(1, 500), inner, inner), min_size=1, max_size=6))
def test_stratified_expectation_bounds(bins):
    n, m, p = (np.array(x) for x in zip(*bins))
    e = a.stratified_expectation(p, m, n)
    assert min(p) - 1e-12 <= e.accuracy <= max(p) + 1e-12
    assert min(p) - 1e-12 <= e.recall <= max(p) + 1e-12
    for x in (e.precision, e.recall, e.f1):
        assert 0.0 <= x <= 1.0


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("call,match", [
    (lambda: a.expected_accuracy(1.2), r"p_d must be in \[0, 1\], got 1.2"),
    (lambda: a.expected_accuracy(-0.1), r"p_d must be in \[0, 1\]"),
    (lambda: a.expected_f1(0.5, 1.5), r"m must be in \[0, 1\]"),
    (lambda: a.expected_f1(float("nan"), 0.5), r"p_d must not be NaN"),
    (lambda: a.accuracy_se(0.5, 0), r"n_items must be >= 1"),
    (lambda: a.accuracy_se(0.5, 10.5), r"n_items must be a whole number"),
    (lambda: a.prob_correct_at_least(0.5, 10, 11), r"k must be in \[0, n\]|k must be <= 10"),
    (lambda: a.prob_correct_at_least(0.5, 10, -1), r"k must be >= 0"),
    (lambda: a.prob_accuracy_at_least(0.5, 10, 1.1), r"threshold must be in \[0, 1\]"),
    (lambda: a.prob_accuracy_between(0.5, 10, 0.7, 0.6), r"lo must be <= hi, got lo=0.7, hi=0.6$"),
    (lambda: a.prob_accuracy_between(0.5, 10, [0.1, 0.7], [[0.6], [0.2]]),
     r"lo must be <= hi, got lo=\[0.7, 0.7\], hi=\[0.6, 0.2\]$"),
    (lambda: a.random_accuracy(1), r"n_labels must be >= 2"),
    (lambda: a.stratified_expectation([0.5, 0.6], [0.5], [1, 2]), r"bin arrays must have the same length"),
    (lambda: a.stratified_expectation([], [], []), r"non-empty"),
    (lambda: a.stratified_expectation([0.6, 0.8], [0.5, 0.5], [10, 0]), r"empty bin"),
    (lambda: a.exact_f1(0.5, 0.5, 0), r"n_items must be >= 1"),
    (lambda: a.exact_binary_metrics(0, 0, 0.5, 0.5), r"no items"),
    (lambda: a.prob_correct_at_least_heterogeneous([], 0), r"non-empty"),
    (lambda: a.prob_correct_at_least_heterogeneous([0.5, 1.2], 1), r"p must be in \[0, 1\]"),
    (lambda: a.prob_correct_at_least_heterogeneous([0.5, 0.2], 3), r"k must be <= 2"),
    (lambda: a.expected_accuracy("high"), r"p_d must be a number"),
    (lambda: a.expected_accuracy(None), r"p_d must be a number or an array of numbers, got None$"),
    (lambda: a.accuracy_se(0.5, 10**400), r"n_items must be a number or an array of numbers"),
    (lambda: a.accuracy_se(0.5, 1e300), r"n_items must be >= 1 and below 2\*\*63, got 1e\+300$"),
    (lambda: a.accuracy_se(0.5, -1e300), r"n_items must be >= 1 and below 2\*\*63"),
    (lambda: a.prob_correct_at_least(0.5, 2**64, 1), r"n_items must be >= 1 and below 2\*\*63"),
    # one distribution per call: arrays are refused by name, not with numpy's TypeError
    (lambda: a.exact_f1([0.5, 0.6], 0.1, 10), r"p_d must be a single number, got \[0.5, 0.6\]"),
    (lambda: a.exact_f1(0.5, np.array([0.1]), 10), r"m must be a single number"),
    (lambda: a.exact_f1(0.5, 0.1, [10]), r"n_items must be a single number"),
    (lambda: a.exact_f1(0.5, 0.1, 10, zero_division=None), r"zero_division must be in \[0, 1\] or NaN"),
    (lambda: a.exact_f1(0.5, 0.1, 10, zero_division=[0.0]), r"zero_division must be in \[0, 1\]"),
    (lambda: a.exact_binary_metrics([], 3, 0.5, 0.5), r"n_pos must be a single number"),
    (lambda: a.exact_binary_metrics(3, 3, [0.5, 0.6], 0.5), r"sensitivity must be a single number"),
    (lambda: a.exact_f1(0.5, 0.1, 20).interval([0.5, 0.9]), r"confidence_level must be a single"),
    (lambda: a.exact_f1(0.5, 0.1, 20).sf(None), r"x must be a number"),
    (lambda: a.exact_f1(0.5, 0.1, 20).sf(10**400), r"x must be a number"),
    (lambda: a.exact_binary_metrics(0, 10**8, 0.5, 0.5).f1.interval([0.9]),
     r"confidence_level must be a single number"),
    (lambda: a.exact_binary_metrics(0, 10**8, 0.5, 0.5).f1.sf("x"), r"x must be a number"),
    (lambda: a.prob_correct_at_least_heterogeneous([0.5, 0.2], [1]), r"k must be a single number"),
    (lambda: a.expectation_table([0.6], [0.1], [10], [0.8], [0.9]),
     r"confidence_level must be a single number"),
    # shapes that do not broadcast: named, not numpy's "arg 0" / "operands could not be"
    (lambda: a.expected_f1([0.1, 0.2], [0.1, 0.2, 0.3]),
     r"^p_d and m must broadcast against each other, got shapes \(2,\) and \(3,\)$"),
    (lambda: a.expected_recall([0.1, 0.2], [0.1, 0.2, 0.3]), r"p_d and m must broadcast"),
    (lambda: a.prob_correct_at_least(0.5, [10, 20], [1, 2, 3]),
     r"p_d, n_items and k must broadcast against each other, got shapes \(\), \(2,\) and \(3,\)"),
    (lambda: a.prob_accuracy_between(0.5, 10, [0.1, 0.2], [0.3, 0.4, 0.5]),
     r"p_d, n_items, lo and hi must broadcast"),
    (lambda: a.accuracy_se([0.5, 0.6], [10, 20, 30]), r"p_d and n_items must broadcast"),
    (lambda: a.expected_confusion([0.5, 0.6], 0.1, [1, 2, 3]), r"p_d, m and n_items must broadcast"),
    (lambda: a.prob_random_accuracy_at_least([2, 3], [10, 20, 30], 0.5),
     r"n_labels, n_items and threshold must broadcast"),
    (lambda: a.accuracy_se(0.7, True),
     r"n_items must be a whole number, got True"),  # a flag is not a count
    (lambda: a.prob_correct_at_least(0.5, [True, False], 1),
     r"n_items must be a whole number, got \[True, False\]"),
])
def test_bad_input_names_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_bad_input_message_is_one_short_line():
    # a long list with one non-number used to be printed whole (and, for a nested list,
    # over many lines); numbers past int64 used to wrap around (-9223372036854775808)
    for call in (lambda: a.expected_accuracy([0.5] * 1000 + ["x"]),
                 lambda: a.expected_accuracy([[0.5] * 50] * 50 + [[0.1, 0.2]]),
                 lambda: a.accuracy_se(0.5, [10, 2.0**70]),
                 lambda: a.prob_accuracy_between(0.5, 10, np.linspace(0.5, 1, 100),
                                                 np.linspace(0, 0.4, 100))):
        with pytest.raises(ValueError) as info:
            call()
        assert "\n" not in str(info.value) and len(str(info.value)) < 200, str(info.value)
        assert "-9223372036854775808" not in str(info.value)


# --------------------------------------------------------------------------- large samples
@pytest.mark.parametrize("npos, nneg, s, t", [(3000, 27000, 0.6, 0.6), (20000, 20000, 0.7, 0.8),
                                              (1000, 99000, 0.9, 0.95), (50, 30000, 0.5, 0.99)])
def test_large_sample_path_matches_the_outer_product(monkeypatch, npos, nneg, s, t):
    # the O(support) path (RatioDistribution, accuracy by convolution) against the full
    # TP x FP table where both run: moments to rounding, quantiles and tails exactly
    from labelvar.analytic import _distributions

    monkeypatch.setattr(_distributions, "_OUTER_MAX", 10**12)
    ref = a.exact_binary_metrics(npos, nneg, s, t)
    monkeypatch.setattr(_distributions, "_OUTER_MAX", 0)
    new = a.exact_binary_metrics(npos, nneg, s, t)
    assert isinstance(new.f1, a.RatioDistribution) and isinstance(new.precision,
                                                                 a.RatioDistribution)
    for name in ("accuracy", "precision", "recall", "f1"):
        x, y = getattr(ref, name), getattr(new, name)
        assert y.mean == pytest.approx(x.mean, rel=1e-12)
        assert y.sd == pytest.approx(x.sd, rel=1e-9)
        for q in (0.0, 0.001, 0.05, 0.5, 0.95, 0.999):  # (q = 1 sits in the 1e-12 rounding)
            assert y.quantile(q) == pytest.approx(x.quantile(q), abs=1e-12)
            assert y.sf(x.quantile(q)) == pytest.approx(x.sf(x.quantile(q)), abs=1e-11)
    assert new.f1.values.size == ref.f1.values.size  # built on request


def test_exact_f1_at_a_million_items_and_beyond():
    d = a.exact_f1(0.6, 0.1, 1_000_000)
    assert isinstance(d, a.RatioDistribution)
    assert d.mean == pytest.approx(a.expected_f1(0.6, 0.1), abs=1e-6)
    lo, hi = d.interval(0.9)
    assert lo < d.mean < hi and (hi - lo) == pytest.approx(2 * 1.645 * d.sd, rel=0.01)
    big = a.exact_f1(0.6, 0.1, 10**9)  # O(sqrt N) memory
    assert big.sd == pytest.approx(d.sd / np.sqrt(1000), rel=1e-3)


# --------------------------------------------------------------------------- huge samples
QS = [0.001, 0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99, 0.999]


def _two_pass_sd(npos, nneg, s, t, a_, c):
    """sd of a TP / (TP + FP + c) by the full double sum, mean first (no E[R^2] - E[R]^2)."""
    from labelvar.analytic import _distributions

    tp, pt = _distributions._binom_support(npos, s)
    fp, pf = _distributions._binom_support(nneg, 1 - t)
    r = lambda i: a_ * tp[i:i + 256, None] / (tp[i:i + 256, None] + fp[None, :] + c)  # noqa: E731
    blocks = range(0, tp.size, 256)
    total = pt.sum() * pf.sum()
    mean = sum(pt[i:i + 256] @ r(i) @ pf for i in blocks) / total
    return math.sqrt(sum(pt[i:i + 256] @ (r(i) - mean) ** 2 @ pf for i in blocks) / total)


@pytest.mark.parametrize("npos, nneg, s, t, exact_tails", [
    (5_000_000, 5_000_000, 0.6, 0.6, False),    # both binomials sampled (sd 1,095)
    (6_000_000, 24_000_000, 0.7, 0.8, False),   # (sd 1,122 and 1,960)
    (200_000, 20_000_000, 0.6, 0.6, True),      # TP summed point by point (sd 219)
])
def test_quadrature_against_the_exact_method_where_both_run(npos, nneg, s, t, exact_tails):
    ex = a.exact_binary_metrics(npos, nneg, s, t, method="exact")
    qu = a.exact_binary_metrics(npos, nneg, s, t, method="quadrature")
    assert (ex.method, qu.method) == ("exact", "quadrature")
    assert isinstance(qu.f1, a.QuadratureDistribution) and qu.f1.method == "quadrature"
    for name in ("accuracy", "recall"):  # closed-form moments, exact binomial tails
        x, y = getattr(ex, name), getattr(qu, name)
        assert y.mean == pytest.approx(x.mean, rel=1e-14) and y.sd == pytest.approx(x.sd, rel=1e-12)
        np.testing.assert_array_equal(y.quantile(QS), x.quantile(QS))
        np.testing.assert_allclose(y.sf(x.quantile(QS)), x.sf(x.quantile(QS)), atol=1e-12)
    for name in ("precision", "f1"):
        x, y = getattr(ex, name), getattr(qu, name)
        assert y.mean == pytest.approx(x.mean, rel=1e-13)
        assert y.sd == pytest.approx(x.sd, rel=1e-8)  # (the exact method's E[R^2] - E[R]^2)
        qx, qy = x.quantile(QS), y.quantile(QS)
        if exact_tails:  # a binomial summed point by point: exact, to rounding
            np.testing.assert_allclose(qy, qx, rtol=0, atol=1e-13)
            np.testing.assert_allclose(y.sf(qx), x.sf(qx), rtol=0, atol=1e-12)
        else:  # the documented bound: tails within 8e-4 (0.8 / sd); measured 6e-6
            assert np.abs(qy - qx).max() < 1e-4 * x.sd
            assert np.abs(y.sf(qx) - x.sf(qx)).max() < 1e-5
        assert np.all(np.diff(qy) >= 0)


def test_quadrature_moments_are_the_double_sum_to_rounding():
    # FP sampled every 61st point (sd 1,028), TP point by point: the trapezoid sums of
    # the moments equal the full double sums (sd by two passes, the exact method's
    # E[R^2] - E[R]^2 loses digits)
    npos, nneg, s, t = 4_000, 4_400_000, 0.6, 0.6
    qu = a.exact_binary_metrics(npos, nneg, s, t, method="quadrature")
    ex = a.exact_binary_metrics(npos, nneg, s, t, method="exact")
    for name, a_, c in (("precision", 1.0, 0.0), ("f1", 2.0, float(npos))):
        y = getattr(qu, name)
        assert y.mean == pytest.approx(getattr(ex, name).mean, rel=1e-14)
        assert y.sd == pytest.approx(_two_pass_sd(npos, nneg, s, t, a_, c), rel=1e-13)


def test_auto_is_exact_up_to_600000_support_points_and_unchanged_there():
    d = a.exact_f1(0.6, 0.1, 1_000_000)  # pinned before the quadrature existed
    assert d.method == "exact" and d.mean == pytest.approx(0.230769258079140, rel=1e-14)
    np.testing.assert_allclose(d.quantile([0.05, 0.5, 0.95]),
                               [0.22983812835550635, 0.23076937856776422, 0.23170013963633007],
                               rtol=0, atol=1e-16)
    e = a.exact_f1(0.6, 0.1, 10**9, method="exact")
    auto = a.exact_f1(0.6, 0.1, 10**9)  # 22 sd(TP) + 22 sd(FP) + 242 = 467,000 points
    assert auto.method == "exact" and (auto.mean, auto.sd) == (e.mean, e.sd)
    assert a.exact_f1(0.6, 0.1, 2 * 10**9).method == "quadrature"  # 660,000 points
    small = a.exact_binary_metrics(50, 50, 0.6, 0.6, method="quadrature")  # sd < 1024
    assert small.method == "exact" and small.f1.mean == a.exact_binary_metrics(50, 50, 0.6,
                                                                               0.6).f1.mean


def test_exact_f1_at_a_trillion_items_in_well_under_a_second():
    # before: 26 s to build and 6 s for three quantiles (2.6 GB), without a word
    import time

    n, p, m = 10**12, 0.6, 0.1
    t0 = time.perf_counter()
    d = a.exact_f1(p, m, n)
    q = d.quantile([0.05, 0.5, 0.95])
    e = a.exact_binary_metrics(m * n, (1 - m) * n, p, p)
    eq = {k: getattr(e, k).quantile([0.05, 0.5, 0.95]) for k in ("accuracy", "precision",
                                                                   "recall", "f1")}
    assert time.perf_counter() - t0 < 3.0  # (about 0.1 s; a shared machine)
    assert d.method == e.method == "quadrature"
    # the delta method is exact to O(1/n) here: F1 = 2 TP / (TP + FP + n_pos)
    tp, fp, c = m * n * p, (1 - m) * n * (1 - p), m * n
    den = tp + fp + c
    sd = math.hypot(2 * (fp + c) / den**2 * math.sqrt(m * n * p * (1 - p)),
                    2 * tp / den**2 * math.sqrt((1 - m) * n * p * (1 - p)))
    assert d.mean == pytest.approx(2 * tp / den, abs=1e-11) and d.sd == pytest.approx(sd, rel=1e-5)
    np.testing.assert_allclose(q, d.mean + stats.norm.ppf([0.05, 0.5, 0.95]) * d.sd, rtol=0,
                               atol=1e-3 * d.sd)
    np.testing.assert_array_equal(eq["f1"], q)
    assert e.accuracy.mean == pytest.approx(0.6, abs=1e-15)
    assert e.accuracy.sd == pytest.approx(math.sqrt(n * 0.24) / n, rel=1e-12)
    np.testing.assert_array_equal(eq["recall"] * m * n,
                                  stats.binom.ppf([0.05, 0.5, 0.95], m * n, p))
    assert eq["precision"][1] == pytest.approx(tp / (tp + fp), abs=1e-3 * e.precision.sd)


@pytest.mark.parametrize("n, m", [(10**15, 0.1), (10**12, 1e-6), (10**12, 0.999999)])
def test_quadrature_at_extreme_sizes_and_class_ratios(n, m):
    # one binomial huge, the other small (summed point by point): every huge-n call of
    # Boost's cdf sits near its mean (0.3 ms each at 1e12) - interpolated, not called
    d = a.exact_f1(0.6, m, n)
    lo, mid, hi = d.quantile([0.05, 0.5, 0.95])
    assert d.method == "quadrature" and lo < mid < hi and lo < d.mean < hi
    assert d.sf(lo) == pytest.approx(0.95, abs=2e-3) and d.sf(hi) == pytest.approx(0.05, abs=2e-3)
    assert (hi - lo) == pytest.approx(2 * 1.6449 * d.sd, rel=0.02)


def test_binomial_cdf_interpolated_near_the_mean_equals_boost():
    from labelvar._base._binom import binom
    from labelvar.analytic import _distributions

    for n, p in ((10**9, 0.6), (3 * 10**10, 0.02)):
        cdf = _distributions._Cdf(n, p)
        k = np.floor(cdf.mu + cdf.sd * np.linspace(-2.5, 2.5, 41))
        np.testing.assert_allclose(cdf.cdf(k), binom.cdf(k, n, p), rtol=0, atol=1e-11)
        np.testing.assert_allclose(cdf.sf(k), binom.sf(k, n, p), rtol=0, atol=1e-11)


def test_quadrature_refuses_values_and_an_unknown_method():
    d = a.exact_f1(0.6, 0.1, 10**11)
    with pytest.raises(ValueError, match=r"^values: a QuadratureDistribution is not enumerated"):
        _ = d.values
    with pytest.raises(ValueError, match=r"^the exact distribution for n_pos=\d+, n_neg=\d+ needs "
                                         r"about 1.31 TB of memory, .*LABELVAR_MEMORY_LIMIT\)$"):
        a.exact_f1(0.6, 0.1, 10**18, method="exact")  # refused before allocating
    assert repr(d).startswith("QuadratureDistribution(ratio, mean=0.230769")
    with pytest.raises(ValueError, match=r"^method must be one of 'auto', 'exact', 'quadrature'; "
                                         r"got 'fast'$"):
        a.exact_f1(0.6, 0.1, 100, method="fast")


def test_binomial_sum_tail_against_enumeration_and_fft_reference():
    """P(sum of Bin(n_c, p_c) >= k), the one tail of simulate, stratify and the calculator."""
    from scipy import signal

    from labelvar.analytic._distributions import binomial_sum_sf

    rng = np.random.default_rng(7)
    for _ in range(30):  # small groups (p = 0 and 1 too) against scipy's Poisson-binomial pmf
        counts = rng.integers(0, 6, size=rng.integers(1, 5))
        probs = rng.choice([0.0, 0.13, 0.5, 0.77, 1.0], size=counts.size)
        items = np.repeat(probs, counts)
        n = int(counts.sum())
        ref = stats.poisson_binom(items).pmf(np.arange(n + 1)) if n else np.ones(1)
        for k in range(-1, n + 2):
            want = 1.0 if k <= 0 else float(ref[k:].sum()) if k <= n else 0.0
            assert binomial_sum_sf(counts, probs, k) == pytest.approx(want, rel=1e-12, abs=1e-15)
    # far tail keeps its relative precision (sum of three classes, 300 items)
    counts, probs = np.array([120, 100, 80]), np.array([0.2, 1 / 3, 0.25])
    pmf = np.convolve(np.convolve(stats.binom.pmf(np.arange(121), 120, 0.2),
                                  stats.binom.pmf(np.arange(101), 100, 1 / 3)),
                      stats.binom.pmf(np.arange(81), 80, 0.25))
    for k in (150, 200, 250):
        assert binomial_sum_sf(counts, probs, k) == pytest.approx(pmf[k:].sum(), rel=1e-9)
    # groups beyond 100,000 items enter by their pmf >= 1e-22 (reference: whole pmfs, FFT)
    counts, probs = np.array([300_000, 200_000, 150_000]), np.array([0.7, 0.55, 0.9])
    full = signal.fftconvolve(stats.binom.pmf(np.arange(200_001), 200_000, 0.55),
                              stats.binom.pmf(np.arange(150_001), 150_000, 0.9))
    mu = (counts * probs).sum()
    for k in (int(mu) - 600, int(mu), int(mu) + 600):
        j = np.arange(full.size)
        want = float(np.dot(np.clip(full, 0, None), stats.binom.sf(k - j - 1, 300_000, 0.7)))
        assert binomial_sum_sf(counts, probs, k) == pytest.approx(want, rel=1e-9, abs=1e-13)


def test_accuracy_tail_beyond_2_53_items_is_a_number():
    """Issue 31: prob_accuracy_at_least was NaN beyond 2**54 items (Boost's tail is NaN).

    The Edgeworth tail used there agrees with Boost's where both work (error O(1/n): about
    6e-10 at n = 1e8) and is continuous across 2**53.
    """
    from labelvar._base._binom import _edgeworth_sf, binom

    n = 10**8
    for c in (-3, 0, 2, 5):
        k = np.floor(0.8 * n + c * np.sqrt(n * 0.16))
        assert abs(_edgeworth_sf(k, n, 0.8) - binom.sf(k, n, 0.8)) < 1e-9
    below = a.prob_accuracy_at_least(0.8, 2**53, 0.8)  # Boost
    for n in (2**53 + 2, 2**54, 2**56, 2**62):
        got = a.prob_accuracy_at_least(0.8, n, 0.8)
        assert 0.5 < got < below + 1e-9  # P(X >= np) = 1/2 + O(n^-1/2), falling with n
        assert a.prob_accuracy_at_least(0.9, n, 0.8) == 1.0
        assert a.prob_accuracy_at_least(0.7, n, 0.8) == 0.0
        assert a.prob_accuracy_at_least(1.0, n, 0.8) == 1.0
        assert a.prob_correct_at_least(0.0, n, 1) == 0.0
