r"""Tests on a stratified table: between agreement bins and between two systems.

Two systems on the *same items* (inside one bin of one task) are compared by
:func:`mcnemar_exact` (accuracy) and :func:`paired_bootstrap` (any metric);
``StratifiedResult.compare(a, b)`` does so and :func:`holm` adjusts
the p-values over all the comparisons made.

:func:`bin_tests` compares the distribution of a gap (over systems and tasks)
between two agreement bins (Welch's t-test and Levene's test, the paper's
Figure 3); :func:`paired_test` compares two systems across tasks, per bin and
pooled over tasks x bins (Figure 4). Both take the output of
:func:`labelvar.stratify` (the :class:`~labelvar.StratifiedResult` or
its ``table``) and return small frozen result objects holding a table of
statistics and p-values. Significance stars are display only: :func:`stars`
turns a p-value into ``*`` ... ``****`` / ``ns`` for figures and printed tables.

Examples
--------
>>> stars(0.003), stars(0.2), stars(float("nan"))
('**', 'ns', '')
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from labelvar._base._defaults import CONFIDENCE_LEVEL
from labelvar._base._format import shown
from labelvar.evaluation._paper_layout import _as_table, stratum_order

__all__ = ["BinTestResult", "McNemarResult", "PairedBootstrapResult", "PairedTestResult",
           "bin_tests", "expected_gap_test", "holm", "mcnemar_exact", "paired_bootstrap",
           "paired_test", "stars"]

#: (largest p, stars) from the strictest level down; above the last: ``ns``
STAR_LEVELS = ((1e-4, "****"), (1e-3, "***"), (1e-2, "**"), (5e-2, "*"))
#: fewest observations per group for a test (fewer: NaN p, a note, no star)
MIN_GROUP = 3


def stars(p) -> str:
    """Significance stars of a p-value: ``****`` (p <= 1e-4) ... ``*`` (p <= 0.05), ``ns``.

    NaN (no test) gives an empty string; a value outside [0, 1] (beyond rounding) is
    not a p-value and is refused.

    Examples
    --------
    >>> [stars(p) for p in (1e-5, 1e-4, 0.001, 0.01, 0.05, 0.051)]
    ['****', '****', '***', '**', '*', 'ns']
    """
    p = float(p)
    if not np.isfinite(p):
        return ""
    if not -1e-12 <= p <= 1.0 + 1e-9:
        raise ValueError(f"p must be a p-value in [0, 1], got {p!r}")
    for cut, s in STAR_LEVELS:
        if p <= cut:
            return s
    return "ns"


def _cell(column: str, kind, doc: str) -> property:
    """A read-only property giving one cell of a one-row result table."""
    return property(lambda self: kind(self.table[column].iloc[0]), doc=doc)


@shown
@dataclass(frozen=True, eq=False, repr=False)
class BinTestResult:
    """Welch's t-test and Levene's test of one column between two bins (:func:`bin_tests`).

    Attributes
    ----------
    table : pandas.DataFrame
        One row: ``metric, value, stratum_a, stratum_b, n_a, n_b, mean_a, mean_b,
        sd_a, sd_b, welch_t, welch_p, levene_stat, levene_p, note``.
    """

    table: pd.DataFrame

    stratum_a = _cell("stratum_a", str, "The first bin compared (default: the lowest agreement).")
    stratum_b = _cell("stratum_b", str, "The second bin compared (default: the highest agreement).")
    welch_t = _cell("welch_t", float, "Welch's t statistic (mean of a minus mean of b).")
    welch_p = _cell("welch_p", float, "Two-sided p-value of Welch's t-test.")
    levene_stat = _cell("levene_stat", float, "Levene's statistic (trimmed centre).")
    levene_p = _cell("levene_p", float, "p-value of Levene's test.")

    def _shown(self) -> dict:
        r = self.table.iloc[0]
        return {"metric": r.metric, "value": r.value, "stratum_a": r.stratum_a,
                "stratum_b": r.stratum_b, "welch_p": r.welch_p, "levene_p": r.levene_p}

    def describe(self) -> str:
        """One line: the two bins, Welch's and Levene's p-values (and why not, if no test)."""
        r = self.table.iloc[0]
        note = f" ({r.note})" if isinstance(r.note, str) and r.note else ""
        return (f"{r.value} ({r.metric}), bin {r.stratum_a} against {r.stratum_b}: Welch "
                f"p = {r.welch_p:.4g}, Levene p = {r.levene_p:.4g}{note}")

    def _shown_tables(self) -> dict:
        return {"table": self.table}


@shown
@dataclass(frozen=True, eq=False, repr=False)
class PairedTestResult:
    """Paired t-tests of two systems per bin and pooled (:func:`paired_test`).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per stratum, bins in increasing agreement, then ``all`` and
        ``pooled``: ``stratum, n, mean_diff, sd_diff, t, p, note`` (fewer than 3
        pairs: no test, NaN ``t`` and ``p``, the reason in ``note``).
    system_a, system_b : str
        The systems compared (differences are ``a - b``).
    metric : str
        The metric compared.
    """

    table: pd.DataFrame
    system_a: str
    system_b: str
    metric: str

    def describe(self) -> str:
        """One line: the pooled mean difference a − b and its p-value (or that none was tested)."""
        pooled = self.table[self.table["stratum"] == "pooled"]
        head = f"{self.system_a} − {self.system_b} ({self.metric})"
        if not len(pooled):
            return f"{head}: {len(self.table)} strata"
        r = pooled.iloc[0]
        return f"{head}, pooled over tasks x bins: mean difference {r.mean_diff:.4g}, p = {r.p:.4g}"

    def _shown(self) -> dict:
        shown = {"system_a": self.system_a, "system_b": self.system_b, "metric": self.metric}
        pooled = self.table[self.table["stratum"] == "pooled"]
        if len(pooled):
            shown.update(pooled_mean_diff=pooled["mean_diff"].iloc[0], pooled_p=pooled["p"].iloc[0])
        return shown

    def _shown_tables(self) -> dict:
        return {"table": self.table}


def _metric_rows(table: pd.DataFrame, metric: str) -> pd.DataFrame:
    """The rows of ``metric``; a metric the table does not hold is named as such."""
    sub = table[table["metric"] == metric]
    if sub.empty:
        raise ValueError(f"metric {metric!r} not in the table; metrics: "
                         f"{', '.join(map(str, dict.fromkeys(table['metric'])))}")
    return sub


def bin_tests(table, *, metric: str = "f1", value: str = "delta_human", a: str | None = None,
              b: str | None = None, role: str = "system",
              proportiontocut: float = 0.1) -> BinTestResult:
    r"""Welch's t-test and Levene's test between two bins of a column's distribution.

    The distribution is over the rows of ``role`` (systems x tasks), as in the
    paper's Figure 3 (:math:`\Delta_{H-M}` by bin). Rows of bins flagged
    ``small_bin`` (fewer items than :func:`labelvar.stratify`'s ``min_bin_size``)
    are left out. With fewer than 3 values in either bin there is no test: the
    statistics and p-values are NaN and ``note`` says why (a non-finite statistic,
    e.g. Levene's on constant groups, is treated the same way). Both tests treat
    the values as independent; when several systems share a task (the paper's
    Figure 3: systems x tasks) they are not, and ``note`` says so: the p-values
    are then optimistic (too small), a description rather than a test.

    Parameters
    ----------
    table : StratifiedResult or DataFrame
        Output of :func:`labelvar.stratify` (or its ``table``).
    metric : str
        Metric to compare.
    value : str
        Column to compare (``delta_human``, ``score``, ``delta_expected``).
    a, b : str, optional
        Strata to compare (default: the lowest and the highest agreement bin, in
        numeric order over all tasks, among the bins that are not small).
    role : str
        Rows to use (``system`` by default).
    proportiontocut : float
        Trimming of Levene's test (``center="trimmed"``), 0.1 as in the paper.

    Returns
    -------
    BinTestResult
        Its ``table`` has one row: ``metric, value, stratum_a, stratum_b, n_a, n_b,
        mean_a, mean_b, sd_a, sd_b, welch_t, welch_p, levene_stat, levene_p, note``
        (``note``: scipy's warning, e.g. on nearly identical values, instead of a
        warning).

    Examples
    --------
    >>> t = pd.DataFrame({"role": "system", "metric": "f1",
    ...                   "stratum": ["1.00"] * 4 + ["0.60"] * 4,
    ...                   "delta_human": [0.3, 0.1, 0.25, 0.4, 0.0, 0.02, -0.01, 0.01]})
    >>> r = bin_tests(t)
    >>> r.stratum_a, r.stratum_b, round(r.welch_p, 4), stars(r.welch_p)
    ('0.60', '1.00', 0.0252, '*')
    """
    from scipy import stats

    table = _as_table(table)
    if value not in table.columns:
        raise ValueError(f"value must be a column of the table, got {value!r}")
    if (isinstance(proportiontocut, bool) or not isinstance(proportiontocut, (int, float))
            or not 0 <= proportiontocut < 0.5):
        raise ValueError(f"proportiontocut must be a number in [0, 0.5) (the share trimmed "
                         f"from each end), got {proportiontocut!r}")
    sub = _metric_rows(table, metric)
    roles = list(dict.fromkeys(sub["role"]))
    if role not in roles:
        raise ValueError(f"role must be one of the table's roles ({', '.join(map(repr, roles))}), "
                         f"got {role!r}")
    sub = sub[sub["role"] == role]
    small = []
    if "small_bin" in sub.columns:
        flagged = sub["small_bin"].astype(bool)
        small = [s for s in stratum_order(sub.loc[flagged, "stratum"]) if s != "all"]
        sub = sub[~flagged]
    strata = [s for s in stratum_order(sub["stratum"]) if s != "all"]
    if len(strata) < 2 and (a is None or b is None):
        raise ValueError(f"need at least 2 bins to compare, got {strata!r}"
                         + (f" (small bins enter no test: {', '.join(small)})" if small
                            else ""))
    a = strata[0] if a is None else a
    b = strata[-1] if b is None else b
    for s in (a, b):
        if s not in set(sub["stratum"]):
            raise ValueError(f"stratum {s!r} not in the table (or a small bin); strata: "
                             f"{', '.join(strata)}")
    ga = sub[(sub["stratum"] == a) & sub[value].notna()]
    gb = sub[(sub["stratum"] == b) & sub[value].notna()]
    xa, xb = ga[value].to_numpy(float), gb[value].to_numpy(float)
    nan = float("nan")
    welch = levene = (nan, nan)
    if min(xa.size, xb.size) < MIN_GROUP:
        note = (f"no test: fewer than {MIN_GROUP} values per bin ({xa.size} and {xb.size})")
    else:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RuntimeWarning)
            w = stats.ttest_ind(xa, xb, equal_var=False)
            lev = stats.levene(xa, xb, center="trimmed", proportiontocut=proportiontocut)
        notes = list(dict.fromkeys(str(c.message).split(".")[0] for c in caught))
        welch, levene = (float(w.statistic), float(w.pvalue)), (float(lev.statistic),
                                                                float(lev.pvalue))
        for name, res in (("Welch", welch), ("Levene", levene)):
            if not np.isfinite(res[0]):
                notes.append(f"{name}: statistic {res[0]} (constant values?), no test")
        welch = welch if np.isfinite(welch[0]) else (nan, nan)
        levene = levene if np.isfinite(levene[0]) else (nan, nan)
        if "task" in sub.columns:  # several systems per task: clustered, not independent
            ka, kb = ga["task"].nunique(), gb["task"].nunique()
            if ka < xa.size or kb < xb.size:
                notes.append(f"not independent: {xa.size} and {xb.size} values from {ka} and "
                             f"{kb} tasks (systems of a task share its items and humans); the "
                             "tests assume independent values, so p is optimistic")
        note = "; ".join(notes)
    return BinTestResult(pd.DataFrame([dict(
        metric=metric, value=value, stratum_a=a, stratum_b=b, n_a=xa.size, n_b=xb.size,
        mean_a=xa.mean() if xa.size else nan, mean_b=xb.mean() if xb.size else nan,
        sd_a=xa.std(ddof=1) if xa.size > 1 else nan, sd_b=xb.std(ddof=1) if xb.size > 1 else nan,
        welch_t=welch[0], welch_p=welch[1], levene_stat=levene[0], levene_p=levene[1], note=note,
    )]))


def paired_test(table, system_a: str, system_b: str, *, metric: str = "f1"
                ) -> PairedTestResult:
    r"""Paired t-test of two systems' scores across tasks, per bin and pooled (Figure 4).

    Parameters
    ----------
    table : StratifiedResult or DataFrame
        Output of :func:`labelvar.stratify` (or its ``table``).
    system_a, system_b : str
        The systems compared; differences are ``a - b``.
    metric : str
        Metric to compare.

    Returns
    -------
    PairedTestResult
        Its ``table``: one row per stratum (pairs = tasks; bins in increasing
        agreement, then ``all``) plus ``pooled`` (pairs = tasks x bins, excluding
        ``all``): ``stratum, n, mean_diff, sd_diff, t, p, note``; fewer than 3
        pairs give no test (NaN ``t`` and ``p``, the reason in ``note``).

    Examples
    --------
    >>> t = pd.DataFrame({"metric": "f1", "stratum": ["1.00"] * 6,
    ...                   "task": ["a", "b", "c"] * 2, "system": ["x"] * 3 + ["y"] * 3,
    ...                   "score": [0.9, 0.8, 0.85, 0.7, 0.75, 0.6]})
    >>> r = paired_test(t, "x", "y")
    >>> r.table.stratum.tolist(), round(float(r.table.p.iloc[0]), 4)
    (['1.00', 'pooled'], 0.1091)
    """
    from scipy import stats

    table = _as_table(table)
    if system_a == system_b:
        raise ValueError(f"paired_test compares two different systems; got {system_a!r} twice")
    sub = _metric_rows(table, metric)
    if "small_bin" in sub.columns:  # small bins enter no test
        sub = sub[~sub["small_bin"].astype(bool)]
    for s in (system_a, system_b):
        if s not in set(sub["system"]):
            raise ValueError(f"system {s!r} not in the table; systems: "
                             f"{', '.join(map(str, dict.fromkeys(sub['system'])))}")
    wide = sub[sub["system"].isin([system_a, system_b])].pivot_table(
        index=["task", "stratum"], columns="system", values="score", aggfunc="first")
    wide = wide.dropna()
    rows = []
    strata = stratum_order(wide.index.get_level_values("stratum"))
    for s in strata + ["pooled"]:
        if s == "pooled":
            w = wide[wide.index.get_level_values("stratum") != "all"]
        else:
            w = wide.xs(s, level="stratum", drop_level=False)
        d = (w[system_a] - w[system_b]).to_numpy(float)
        t_stat = p = np.nan
        note = f"no test: fewer than {MIN_GROUP} pairs" if d.size < MIN_GROUP else ""
        if not note:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                r = stats.ttest_rel(w[system_a].to_numpy(float), w[system_b].to_numpy(float))
            t_stat, p = float(r.statistic), float(r.pvalue)
            if not np.isfinite(t_stat):
                t_stat = p = np.nan
                note = "no test: identical differences"
        rows.append(dict(stratum=s, n=d.size, mean_diff=d.mean() if d.size else np.nan,
                         sd_diff=d.std(ddof=1) if d.size > 1 else np.nan, t=t_stat, p=p,
                         note=note))
    return PairedTestResult(pd.DataFrame(rows), system_a=system_a, system_b=system_b,
                            metric=metric)


def expected_gap_test(table, *, metric: str = "accuracy", role: str = "system"
                      ) -> PairedTestResult:
    r"""Paired t-test of the expected score E against the systems' scores, per bin (Figure 8).

    The pairs are the rows of ``role`` (systems x tasks) in a bin: ``expected`` and
    ``score``, so the test is on :math:`\Delta_{E-M}` = ``delta_expected`` (scipy's
    ``ttest_rel(expected, score)``, two-sided). Rows of small bins and rows without
    an expectation (NaN ``expected``: macro-F1, ordinal metrics) are left out; fewer
    than 3 pairs give no test. As in :func:`bin_tests`, several systems of one task
    are not independent (``note`` says so).

    Parameters
    ----------
    table : StratifiedResult or DataFrame
        Output of :func:`labelvar.stratify` (or its ``table``).
    metric : str
        Metric compared (``expected`` exists for accuracy and binary precision,
        recall and F1).
    role : str
        Rows compared with E (``system`` by default).

    Returns
    -------
    PairedTestResult
        ``system_a`` is ``"E"``, ``system_b`` the role; its ``table`` has one row per
        stratum (bins, then ``all`` and ``pooled`` over the bins): ``stratum, n,
        mean_diff`` (mean E - score), ``sd_diff, t, p, note``.

    Examples
    --------
    >>> t = pd.DataFrame({"role": "system", "metric": "accuracy", "task": list("abcd") * 2,
    ...                   "stratum": ["0.60"] * 4 + ["1.00"] * 4,
    ...                   "expected": [0.6] * 4 + [1.0] * 4,
    ...                   "score": [0.55, 0.62, 0.58, 0.6, 0.7, 0.8, 0.75, 0.85]})
    >>> r = expected_gap_test(t)
    >>> r.table.stratum.tolist(), r.table.p.round(4).tolist()
    (['0.60', '1.00', 'pooled'], [0.4639, 0.0061, 0.0291])
    """
    from scipy import stats

    table = _as_table(table)
    sub = _metric_rows(table, metric)
    sub = sub[(sub["role"] == role) & sub["expected"].notna() & sub["score"].notna()]
    if "small_bin" in sub.columns:
        sub = sub[~sub["small_bin"].astype(bool)]
    rows = []
    strata = stratum_order(sub["stratum"])
    for s in strata + ["pooled"]:
        g = sub[sub["stratum"] != "all"] if s == "pooled" else sub[sub["stratum"] == s]
        e, x = g["expected"].to_numpy(float), g["score"].to_numpy(float)
        d = e - x
        t_stat = p = np.nan
        notes = [f"no test: fewer than {MIN_GROUP} pairs"] if d.size < MIN_GROUP else []
        if not notes:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                r = stats.ttest_rel(e, x)
            t_stat, p = float(r.statistic), float(r.pvalue)
            if not np.isfinite(t_stat):
                t_stat = p = np.nan
                notes.append("no test: identical differences")
            elif "task" in g.columns and g.groupby(["task", "stratum"]).size().max() > 1:
                notes.append(f"not independent: {d.size} pairs from {g['task'].nunique()} "
                             "task(s), several systems per task and bin (they share its "
                             "items); p is optimistic")
        rows.append(dict(stratum=s, n=d.size, mean_diff=d.mean() if d.size else np.nan,
                         sd_diff=d.std(ddof=1) if d.size > 1 else np.nan, t=t_stat, p=p,
                         note="; ".join(notes)))
    return PairedTestResult(pd.DataFrame(rows), system_a="E", system_b=role, metric=metric)


# --------------------------------------------------------------------------- same items
@dataclass(frozen=True)
class McNemarResult:
    """Exact McNemar test of two systems' correctness on the same items.

    Attributes
    ----------
    n_a_only, n_b_only : int
        Items only system a (b) gets right.
    p : float
        Two-sided exact p-value (NaN without discordant items).
    """

    n_a_only: int
    n_b_only: int
    p: float


def mcnemar_exact(correct_a, correct_b) -> McNemarResult:
    r"""Exact McNemar test of two systems' accuracies on the same items.

    Under the null hypothesis each of the :math:`n = b + c` discordant items (one
    system right, the other wrong) favours a with probability 1/2, so the p-value
    is the two-sided binomial test of b successes in n trials
    (``scipy.stats.binomtest``), equal to
    ``statsmodels.stats.contingency_tables.mcnemar(table, exact=True)``.

    Parameters
    ----------
    correct_a, correct_b : array_like of bool, shape (n_items,)
        Whether each system's label equals the ground truth.

    Returns
    -------
    McNemarResult

    Examples
    --------
    >>> r = mcnemar_exact([1, 1, 1, 1, 1, 1, 0, 1], [0, 0, 0, 0, 0, 1, 0, 1])
    >>> r.n_a_only, r.n_b_only, round(r.p, 4)
    (5, 0, 0.0625)
    """
    from scipy import stats

    a = np.asarray(correct_a, dtype=bool)
    b = np.asarray(correct_b, dtype=bool)
    if a.shape != b.shape:
        raise ValueError(f"correct_a and correct_b must have the same shape, got {a.shape} "
                         f"and {b.shape}")
    n_a, n_b = int((a & ~b).sum()), int((b & ~a).sum())
    p = float(stats.binomtest(n_a, n_a + n_b, 0.5).pvalue) if n_a + n_b else float("nan")
    return McNemarResult(n_a, n_b, p)


@dataclass(frozen=True)
class PairedBootstrapResult:
    """Paired bootstrap of a difference of two systems' scores on the same items.

    Attributes
    ----------
    diff : float
        The observed difference (a minus b).
    ci_low, ci_high : float
        Percentile interval of the difference.
    p : float
        Two-sided p-value of "no difference" (see :func:`paired_bootstrap`).
    """

    diff: float
    ci_low: float
    ci_high: float
    p: float


def paired_bootstrap(diff, n_items: int, n_resamples: int, rng, *, confidence_level: float = CONFIDENCE_LEVEL,
                     stacked: bool = False) -> PairedBootstrapResult:
    r"""Paired bootstrap of a score difference (resample the items, keep the pairs).

    Parameters
    ----------
    diff : callable
        ``diff(index)`` -> score of a minus score of b on the items ``index``
        (int array of shape (n,)); with ``stacked`` it receives (B, n) and returns B
        differences at once.
    n_items : int
    n_resamples : int
        Resamples (0: NaN interval and p-value).
    rng : numpy.random.Generator
    confidence_level : float
    stacked : bool
        ``diff`` accepts stacked resamples (it is given blocks of them, about
        4 million resampled indices at a time: memory stays bounded, and the
        draws are those of one ``(n_resamples, n_items)`` draw).

    Returns
    -------
    PairedBootstrapResult
        ``p`` is the shifted-null bootstrap p-value
        :math:`(1 + \#\{|d^*_b - d| \ge |d|\}) / (B + 1)`: the resampled
        differences, centred on the observed one, stand in for the null
        distribution. NaN replicates (e.g. F1 0/0) are dropped.

    Examples
    --------
    >>> a = np.array([1, 1, 1, 0, 1, 1, 1, 1, 0, 1] * 3)
    >>> b = np.array([1, 0, 1, 0, 0, 1, 0, 1, 0, 0] * 3)
    >>> r = paired_bootstrap(lambda i: a[i].mean() - b[i].mean(), 30, 999,
    ...                      np.random.default_rng(1))
    >>> round(r.diff, 2), r.p < 0.01
    (0.4, True)
    """
    n = int(n_items)
    d0 = float(diff(np.arange(n)))
    if n_resamples <= 0 or n == 0:
        return PairedBootstrapResult(d0, np.nan, np.nan, np.nan)
    from labelvar.evaluation._bins import boot_chunks

    d = np.empty(int(n_resamples))
    for start, rows in boot_chunks(int(n_resamples), n):  # bounded memory, the same draws
        draws = rng.integers(0, n, size=(rows, n))
        if stacked:
            d[start:start + rows] = np.asarray(diff(draws), dtype=float)
        else:
            d[start:start + rows] = [diff(row) for row in draws]
    d = d[np.isfinite(d)]
    if d.size == 0 or not np.isfinite(d0):
        return PairedBootstrapResult(d0, np.nan, np.nan, np.nan)
    q = (1 - confidence_level) / 2
    p = (1 + np.sum(np.abs(d - d0) >= abs(d0) - 1e-12)) / (d.size + 1)
    return PairedBootstrapResult(d0, float(np.quantile(d, q)), float(np.quantile(d, 1 - q)),
                                 float(min(1.0, p)))


def holm(p) -> np.ndarray:
    """Holm's step-down adjustment of p-values (NaN entries are not tests and stay NaN).

    Equal to ``statsmodels.stats.multitest.multipletests(p, method="holm")[1]``.

    Examples
    --------
    >>> holm([0.01, 0.04, float("nan"), 0.03]).round(3).tolist()
    [0.03, 0.06, nan, 0.06]
    """
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    m = int(ok.sum())
    if m == 0:
        return out
    pv = p[ok]
    order = np.argsort(pv, kind="stable")
    adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * pv[order]))
    res = np.empty(m)
    res[order] = adj
    out[ok] = res
    return out
