r"""Tests on a stratified table: between agreement bins and between two systems.

:func:`bin_tests` compares the distribution of a gap (over systems and tasks)
between two agreement bins (Welch's t-test and Levene's test, the paper's
Figure 3); :func:`paired_test` compares two systems across tasks, per bin and
pooled over tasks x bins (Figure 4). Both take the output of
:func:`labelvar.stratify` (the :class:`~labelvar.stratified.StratifiedResult` or
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

from labelvar.stratified import _as_table, stratum_order

__all__ = ["BinTestResult", "PairedTestResult", "bin_tests", "paired_test", "stars"]

#: (largest p, stars) from the strictest level down; above the last: ``ns``
STAR_LEVELS = ((1e-4, "****"), (1e-3, "***"), (1e-2, "**"), (5e-2, "*"))


def stars(p) -> str:
    """Significance stars of a p-value: ``****`` (p <= 1e-4) ... ``*`` (p <= 0.05), ``ns``.

    NaN (no test) gives an empty string.

    Examples
    --------
    >>> [stars(p) for p in (1e-5, 1e-4, 0.001, 0.01, 0.05, 0.051)]
    ['****', '****', '***', '**', '*', 'ns']
    """
    p = float(p)
    if not np.isfinite(p):
        return ""
    for cut, s in STAR_LEVELS:
        if p <= cut:
            return s
    return "ns"


@dataclass(frozen=True, eq=False)
class BinTestResult:
    """Welch's t-test and Levene's test of one column between two bins (:func:`bin_tests`).

    Attributes
    ----------
    table : pandas.DataFrame
        One row: ``metric, value, stratum_a, stratum_b, n_a, n_b, mean_a, mean_b,
        sd_a, sd_b, welch_t, welch_p, levene_stat, levene_p, note``.
    """

    table: pd.DataFrame

    def _get(self, column):
        return self.table[column].iloc[0]

    @property
    def stratum_a(self) -> str:
        """The first bin compared (default: the lowest agreement)."""
        return self._get("stratum_a")

    @property
    def stratum_b(self) -> str:
        """The second bin compared (default: the highest agreement)."""
        return self._get("stratum_b")

    @property
    def welch_t(self) -> float:
        """Welch's t statistic (mean of a minus mean of b)."""
        return float(self._get("welch_t"))

    @property
    def welch_p(self) -> float:
        """Two-sided p-value of Welch's t-test."""
        return float(self._get("welch_p"))

    @property
    def levene_stat(self) -> float:
        """Levene's statistic (trimmed centre)."""
        return float(self._get("levene_stat"))

    @property
    def levene_p(self) -> float:
        """p-value of Levene's test."""
        return float(self._get("levene_p"))


@dataclass(frozen=True, eq=False)
class PairedTestResult:
    """Paired t-tests of two systems per bin and pooled (:func:`paired_test`).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per stratum, bins in increasing agreement, then ``all`` and
        ``pooled``: ``stratum, n, mean_diff, sd_diff, t, p``.
    system_a, system_b : str
        The systems compared (differences are ``a - b``).
    metric : str
        The metric compared.
    """

    table: pd.DataFrame
    system_a: str
    system_b: str
    metric: str


def bin_tests(table, *, metric: str = "f1", value: str = "delta_human", a: str | None = None,
              b: str | None = None, role: str = "system",
              proportiontocut: float = 0.1) -> BinTestResult:
    r"""Welch's t-test and Levene's test between two bins of a column's distribution.

    The distribution is over the rows of ``role`` (systems x tasks), as in the
    paper's Figure 3 (:math:`\Delta_{H-M}` by bin).

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
        numeric order over all tasks).
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
    sub = table[(table["role"] == role) & (table["metric"] == metric)]
    strata = [s for s in stratum_order(sub["stratum"]) if s != "all"]
    if len(strata) < 2 and (a is None or b is None):
        raise ValueError(f"need at least 2 bins to compare, got {strata!r}")
    a = strata[0] if a is None else a
    b = strata[-1] if b is None else b
    for s in (a, b):
        if s not in set(sub["stratum"]):
            raise ValueError(f"stratum {s!r} not in the table; strata: {', '.join(strata)}")
    xa = sub.loc[sub["stratum"] == a, value].dropna().to_numpy(float)
    xb = sub.loc[sub["stratum"] == b, value].dropna().to_numpy(float)
    if xa.size < 2 or xb.size < 2:
        raise ValueError(f"need at least 2 values per bin, got {xa.size} and {xb.size}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        w = stats.ttest_ind(xa, xb, equal_var=False)
        lev = stats.levene(xa, xb, center="trimmed", proportiontocut=proportiontocut)
    note = "; ".join(dict.fromkeys(str(c.message).split(".")[0] for c in caught))
    return BinTestResult(pd.DataFrame([dict(
        metric=metric, value=value, stratum_a=a, stratum_b=b, n_a=xa.size, n_b=xb.size,
        mean_a=xa.mean(), mean_b=xb.mean(), sd_a=xa.std(ddof=1), sd_b=xb.std(ddof=1),
        welch_t=float(w.statistic), welch_p=float(w.pvalue),
        levene_stat=float(lev.statistic), levene_p=float(lev.pvalue), note=note,
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
        ``all``): ``stratum, n, mean_diff, sd_diff, t, p``.

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
    sub = table[table["metric"] == metric]
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
        if d.size >= 2:
            r = stats.ttest_rel(w[system_a].to_numpy(float), w[system_b].to_numpy(float))
            t_stat, p = float(r.statistic), float(r.pvalue)
        else:
            t_stat = p = np.nan
        rows.append(dict(stratum=s, n=d.size, mean_diff=d.mean() if d.size else np.nan,
                         sd_diff=d.std(ddof=1) if d.size > 1 else np.nan, t=t_stat, p=p))
    return PairedTestResult(pd.DataFrame(rows), system_a=system_a, system_b=system_b,
                            metric=metric)
