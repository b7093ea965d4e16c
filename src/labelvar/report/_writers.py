"""The stratify, design and raters report writers (the face is :mod:`labelvar.report`)."""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path

import numpy as np
import pandas as pd

from labelvar._base._files import atomic_write, check_replaceable, replaced_directory, write_results
from labelvar._base._format import markdown_table
from labelvar.report._html_reports import design_html, raters_html, stratify_html
from labelvar.report._judge import JUDGE_FILES, write_judge_report  # noqa: F401 (labelvar judge)
from labelvar.report._readers import READERS_FILES, write_readers_report  # noqa: F401

__all__ = [
    "DESIGN_FILES",
    "RATERS_FILES",
    "STRATIFY_FILES",
    "bin_test_table",
    "check_report_dir",
    "expected_test_table",
    "paired_tests",
    "samples_markdown",
    "stratify_blocks",
    "stratify_markdown",
    "write_design_report",
    "write_raters_report",
    "write_stratify_report",
]

#: files of a stratify report (glob patterns)
STRATIFY_FILES = ("report.json", "stratified.csv", "table.md", "excluded.json", "bin_tests.csv",
                  "agreement.csv", "comparisons.csv", "expected_tests.csv",
                  "scores_*.png", "scores_*.pdf", "delta_*.png", "delta_*.pdf",
                  "paired_*.csv", "paired_*.png", "paired_*.pdf", "report.html",
                  "disagreements.csv")
#: files of a design report (glob patterns)
DESIGN_FILES = ("report.json", "design.csv", "design_bins.csv", "design_evaluated.csv",
                "design_curves.csv", "scenario.json", "power.png", "power.pdf", "report.html")


# --------------------------------------------------------------------------- stratify
def _table(result) -> pd.DataFrame:
    """The tidy table of a stratify result (a result object or the table itself)."""
    return getattr(result, "table", result)


def _paper_table(result, system):
    from labelvar.evaluation._stratified import paper_table

    return paper_table(result, system, digits=2)


def stratify_blocks(result) -> list[tuple[str, pd.DataFrame]]:
    """The paper-layout tables of a stratify result, one per system, with their titles.

    A system's table holds the tasks it has predictions for; tasks no system covers
    get one more table (H or H', E, chance), so every task is shown.

    Examples
    --------
    >>> from labelvar import stratify
    >>> from labelvar.evaluation import Intervals
    >>> t = stratify([[1, 1, 0], [0, 0, 0]], {"ai": [1, 0]}, intervals=Intervals(n_resamples=0))
    >>> [title for title, _ in stratify_blocks(t)]
    ['ai']
    """
    table = _table(result)
    is_system = (table["role"] == "system") & table["metric"].isin(["f1", "accuracy"])
    systems = list(dict.fromkeys(table.loc[is_system, "system"]))
    if not systems:
        scored = (table["role"] == "system").any()  # probabilities only: other metrics
        return [("panel vs humans (" + ("no system with labels; systems' other metrics below"
                                        if scored else "no systems") + ")",
                 _paper_table(result, None))]
    blocks = [(str(s), _paper_table(result, s)) for s in systems]
    uncovered = ~table["task"].isin(set(table.loc[is_system, "task"]))
    if uncovered.any():
        blocks.append(("tasks without systems: panel vs humans",
                       _paper_table(table[uncovered], None)))
    return blocks


def paired_tests(result, compare) -> dict:
    """Paired t-tests of systems ``compare = (a, b)`` across tasks, per metric.

    Examples
    --------
    >>> paired_tests(None, ["a"])
    Traceback (most recent call last):
    ...
    ValueError: compare takes two systems A,B; got ['a']
    """
    if compare is None:
        return {}
    if len(compare) != 2:
        raise ValueError(f"compare takes two systems A,B; got {list(compare)!r}")
    table = _table(result)
    from labelvar.evaluation._inference import paired_test

    both = table[table["system"].isin(list(compare))].groupby("metric", sort=False)["system"]
    shared = [m for m, names in both if set(names) >= set(compare)]  # both scored on it
    return {metric: paired_test(table, *compare, metric=metric)
            for metric in dict.fromkeys(table["metric"]) if metric in shared}


def bin_test_table(result) -> pd.DataFrame | None:
    """Welch and Levene tests between the lowest and highest bin, per metric and value.

    ``value`` is ``delta_human`` and ``score``; a (metric, value) with fewer than two
    bins or values has no row. None when no test applies.

    Examples
    --------
    >>> t = pd.DataFrame({"role": "system", "metric": "f1", "task": "t", "score": 0.5,
    ...                   "stratum": ["0.60"] * 4 + ["1.00"] * 4,
    ...                   "delta_human": [0.0, 0.02, -0.01, 0.01, 0.3, 0.1, 0.25, 0.4]})
    >>> bin_test_table(t)[["metric", "value", "stratum_a", "stratum_b"]].to_numpy().tolist()
    [['f1', 'delta_human', '0.60', '1.00'], ['f1', 'score', '0.60', '1.00']]
    """
    table = _table(result)
    from labelvar.evaluation._inference import bin_tests

    tests = []
    for metric in dict.fromkeys(table["metric"]):
        for value in ("delta_human", "score"):
            try:
                res = bin_tests(table, metric=metric, value=value)
            except ValueError:
                continue  # fewer than 2 bins or values: nothing to test
            tests.append(getattr(res, "table", res))
    return pd.concat(tests, ignore_index=True) if tests else None


def expected_test_table(result) -> pd.DataFrame | None:
    """Paired t-tests of E against the systems' scores per bin, for every metric with an E.

    :func:`labelvar.evaluation.expected_gap_test` per metric (a ``metric`` column
    first); None when no system row has an expected score.

    Examples
    --------
    >>> from labelvar import stratify
    >>> from labelvar.evaluation import Intervals
    >>> t = stratify([[1, 1, 0], [0, 0, 0], [1, 1, 1]], {"ai": [1, 0, 0]},
    ...              intervals=Intervals(n_resamples=0, min_bin_size=1))
    >>> expected_test_table(t)[["metric", "stratum", "n"]].to_numpy().tolist()[:2]
    [['accuracy', '0.67', 1], ['accuracy', '1.00', 1]]
    """
    from labelvar.evaluation._inference import expected_gap_test

    table = _table(result)
    sys_rows = table[(table["role"] == "system") & table["expected"].notna()]
    out = [expected_gap_test(table, metric=m).table.assign(metric=m)
           for m in dict.fromkeys(sys_rows["metric"])]
    if not out:
        return None
    res = pd.concat(out, ignore_index=True)
    return res[["metric"] + [c for c in res.columns if c != "metric"]]


#: how the modal answer of a sampled system breaks ties, in words
_SAMPLE_TIES = {"first_sample": "the label sampled first among the tied",
                "label_order": "the first tied label in label order"}


def samples_markdown(result) -> str:
    """What the report says about systems given as sampled answers (none: an empty string).

    One line per task and system: answers per item, the modal answer's tie rule and
    how many items it decided, and what the ``self_agreement`` and
    ``sample_accuracy`` rows mean.
    """
    lines = []
    for task, d in (getattr(result, "inputs", None) or {}).items():
        for name, s in (d.get("samples") or {}).items():
            k = (f"{s['samples_min']}" if s["samples_min"] == s["samples_max"]
                 else f"{s['samples_min']}-{s['samples_max']}")
            rule = _SAMPLE_TIES.get(s["tie_rule"], s["tie_rule"])
            lines.append(f"- {task}: {name}: {k} sampled answers per item; its label is its modal "
                         f"answer (ties, {s['tied']:,} items: {rule})")
    if not lines:
        return ""
    return ("### sampled systems\n" + "\n".join(lines) + "\n\nself_agreement: the mean share of "
            "a system's samples at its own modal answer (its agreement with itself); "
            "sample_accuracy: the mean share of its samples equal to the panel's majority (one "
            "sampled answer's accuracy, against E); cross_entropy, total_variation: its sample "
            "shares against the panel's vote shares.")


def _render(res) -> str:
    return markdown_table(getattr(res, "table", res))


def _ci(score, lo, hi, digits=3) -> str:
    if not np.isfinite(score):
        return "NaN"
    from labelvar.evaluation._paper_layout import _fixed

    text = _fixed(score, digits)
    return text + (f" [{_fixed(lo, digits)}, {_fixed(hi, digits)}]" if np.isfinite(lo) else "")


def _ordered(df: pd.DataFrame) -> pd.DataFrame:
    from labelvar.evaluation._stratified import _stratum_key

    pos = {t: i for i, t in enumerate(dict.fromkeys(df["task"]))}
    key = [(pos[t], _stratum_key(s)) for t, s in zip(df["task"], df["stratum"])]
    return df.iloc[sorted(range(len(df)), key=key.__getitem__)]


def agreement_markdown_table(agreement: pd.DataFrame) -> pd.DataFrame:
    """The agreement table laid out wide: one row per task x stratum, one column per statistic.

    Examples
    --------
    >>> from labelvar import stratify
    >>> from labelvar.evaluation import Intervals
    >>> r = stratify([[1, 1, 0], [0, 0, 0], [1, 1, 1], [0, 1, 0]], {"ai": [1, 0, 1, 0]},
    ...              intervals=Intervals(n_resamples=0))
    >>> agreement_markdown_table(r.agreement().table).columns.tolist()
    ['task', 'stratum', 'S', 'fleiss_kappa', 'alpha_nominal']
    """
    rows = []
    for (task, stratum), g in agreement.groupby(["task", "stratum"], sort=False):
        row = {"task": task, "stratum": stratum, "S": int(g["S"].iloc[0])}
        for r in g.itertuples():
            row[r.statistic] = _ci(r.score, r.ci_low, r.ci_high) + (f" ({r.note})" if r.note
                                                                     else "")
        rows.append(row)
    return _ordered(pd.DataFrame(rows))


def other_metrics_table(result) -> pd.DataFrame | None:
    """Scores of the metrics the paper layout does not show (all but F1 and accuracy), wide.

    One row per task x stratum x rater, one column per metric (score and interval).
    None when there are none.
    """
    table = _table(result)
    sub = table[~table["metric"].isin(["f1", "accuracy"])]
    if sub.empty:
        return None
    rows = []
    for (task, stratum, system), g in sub.groupby(["task", "stratum", "system"], sort=False):
        row = {"task": task, "stratum": stratum, "S": int(g["S"].iloc[0]), "rater": system}
        for r in g.itertuples():
            row[r.metric] = _ci(r.score, r.ci_low, r.ci_high)
        rows.append(row)
    return _ordered(pd.DataFrame(rows))


def comparisons_markdown(comparisons: pd.DataFrame) -> str:
    """The same-item comparisons as markdown, with how many tests were made."""
    if comparisons is None or comparisons.empty:
        return ""
    c = comparisons
    a, b = c["system_a"].iloc[0], c["system_b"].iloc[0]
    n = int(c["n_comparisons"].iloc[0])
    cols = ["task", "stratum", "S", "metric", "score_a", "score_b", "diff", "ci_low", "ci_high",
            "test", "n_a_only", "n_b_only", "p", "p_holm"]
    if "note" in c.columns and c["note"].fillna("").astype(str).str.len().any():
        cols.append("note")
    untested = len(c) - n
    return (f"### {a} − {b} on the same items (per task and bin)\n"
            f"{n} comparisons tested (tasks x strata x metrics"
            + (f"; {untested} more rows without a test, the note says why" if untested else "")
            + "); p: exact McNemar for accuracy, paired bootstrap otherwise; p_holm: Holm's "
            f"adjustment over the {n}.\n\n" + markdown_table(_show_rows(c, cols)))


def _show_rows(df: pd.DataFrame, cols) -> pd.DataFrame:
    """The columns ``cols`` of ``df``, blank text where a note is empty."""
    out = df[list(cols)].copy()
    if "note" in out.columns:
        out["note"] = out["note"].fillna("")
    return out


def stratify_markdown(result, *, compare=None, paired=None, agreement=None,
                      comparisons=None) -> str:
    """The stratify report as markdown: one paper-layout table per system, paired tests.

    ``paired`` (from :func:`paired_tests`) is computed from ``compare`` if not given;
    ``agreement`` (``result.agreement()``) and ``comparisons`` (``result.compare(a, b)``),
    results or their tables, are added when given.

    Examples
    --------
    >>> from labelvar import stratify
    >>> from labelvar.evaluation import Intervals
    >>> t = stratify([[1, 1, 0], [0, 0, 0]], {"ai": [1, 0]}, metrics=["accuracy"],
    ...              intervals=Intervals(n_resamples=0))
    >>> print(stratify_markdown(t).splitlines()[0])
    ### ai
    """
    if paired is None:
        paired = paired_tests(result, compare)
    table = _table(result)
    f1 = table[table["metric"] == "f1"]
    macro = set(f1.loc[f1["m"].isna() & (f1["n_labels"] > 2), "task"])  # no positive class
    parts = []
    for title, block in stratify_blocks(result):
        shown = set(block["task"]) & macro if "task" in block.columns else set()
        note = ("f1 of " + ", ".join(map(str, sorted(shown))) + ": macro-F1 over the task's "
                "labels (no positive class, so no m and no E)\n\n") if shown else ""
        parts.append(f"### {title}\n{note}{markdown_table(block)}")
    other = other_metrics_table(result)
    if other is not None:
        rows = table[~table["metric"].isin(["f1", "accuracy"])]
        what = "score [interval]" if rows["ci_low"].notna().any() else "score; no intervals"
        parts.append(f"### other metrics ({what})\n{markdown_table(other)}")
    sampled = samples_markdown(result)
    if sampled:
        parts.append(sampled)
    agreement = getattr(agreement, "table", agreement)
    if agreement is not None and len(agreement):
        what = ("score [bootstrap interval over items]" if agreement["ci_low"].notna().any()
                else "score; no intervals without bootstrap resamples")
        parts.append(f"### panel agreement ({what})\n"
                     + markdown_table(agreement_markdown_table(agreement)))
    comps = getattr(comparisons, "table", comparisons)
    if comps is not None and len(comps):
        parts.append(comparisons_markdown(comps))
    if paired:
        a, b = compare
        parts += [f"### paired t-test {a} − {b} ({metric}), pairs = tasks\n{_render(res)}"
                  for metric, res in paired.items()]
    return "\n\n".join(parts) + "\n"


def _allowed(patterns):
    return lambda name: any(fnmatch.fnmatchcase(name, p) for p in patterns)


def check_report_dir(out_dir, files=STRATIFY_FILES) -> None:
    """Refuse, before any work, a report directory that could not be written.

    The same rule as the writers (:func:`labelvar._base._files.replaced_directory`): an
    existing ``out_dir`` must be a directory holding only report files (``files``,
    glob patterns), which the new report replaces.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "notes.txt").write_text("mine")
    >>> try:
    ...     check_report_dir(d)
    ... except FileExistsError as exc:
    ...     print(str(exc).split("(")[1])
    notes.txt); choose a new or empty directory
    """
    check_replaceable(out_dir, _allowed(files))


def _metadata(kind: str, files, **extra) -> str:
    from labelvar import __version__

    return json.dumps({"kind": kind, "labelvar": __version__, **extra,
                       "files": sorted(p.name for p in files)}, indent=2, default=str)


def write_stratify_report(result, out_dir, *, compare=None, paired=None, agreement=None,
                          comparisons=None, figures: bool = True, data=None,
                          sources=None) -> list[Path]:
    """Write a stratify report directory; return the paths written (under ``out_dir``).

    Files: ``stratified.csv`` (the tidy table), ``table.md`` (:func:`stratify_markdown`),
    ``excluded.json`` (items left out, by reason), ``agreement.csv`` (the panel's
    agreement, ``agreement=result.agreement()``), ``comparisons.csv`` (two systems on
    the same items, ``comparisons=result.compare(a, b)``),
    ``bin_tests.csv``
    (:func:`bin_test_table`), per metric ``scores_<metric>`` and ``delta_<metric>``
    figures; without a human group (systems only: LLM judges, the NLI models of the
    paper's Table 5) ``expected_tests.csv`` (:func:`expected_test_table`) and, with
    several systems or tasks per bin, ``scores_by_bin_<metric>`` (Figure 7: the scores
    across systems, with Welch's and Levene's tests between the lowest and highest bin)
    and ``delta_expected_<metric>`` (Figure 8: E - score, the paired test of E per bin);
    with ``compare = (a, b)`` ``paired_<metric>.csv`` and its figure, and
    ``report.json``. The directory is replaced as a whole (see the module notes).

    Parameters
    ----------
    result : StratifiedResult
        Output of :func:`labelvar.stratify`.
    out_dir : str or Path
    compare : (str, str), optional
        Two systems compared by paired t-tests across tasks.
    paired : dict, optional
        Those tests already computed (:func:`paired_tests`).
    agreement, comparisons : result or DataFrame, optional
        ``result.agreement()`` and ``result.compare(a, b)`` (or their tables).
    figures : bool
        Also draw the figures (PNG and PDF).
    data : mapping of str to TaskData, optional
        The votes and answers stratified: ``report.html`` then lists the items where a
        system and the panel's majority disagree (``disagreements.csv``).
    sources : sequence of str, optional
        The files read, named on the page.

    Returns
    -------
    list of Path

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from labelvar import stratify
    >>> from labelvar.evaluation import Intervals
    >>> t = stratify([[1, 1, 0], [0, 0, 0]], {"ai": [1, 0]}, intervals=Intervals(n_resamples=0))
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "report"
    >>> [p.name for p in write_stratify_report(t, out, agreement=t.agreement(), figures=False)][-3:]
    ['agreement.csv', 'report.html', 'report.json']
    """
    from labelvar import plots

    table = _table(result)
    if paired is None:
        paired = paired_tests(result, compare)
    out = Path(out_dir)
    with replaced_directory(out, allowed=_allowed(STRATIFY_FILES)) as tmp:
        files = [write_results(table, tmp / "stratified.csv"),
                 atomic_write(tmp / "table.md", stratify_markdown(
                     result, compare=compare, paired=paired, agreement=agreement,
                     comparisons=comparisons)),
                 atomic_write(tmp / "excluded.json",
                              json.dumps(result.excluded, indent=2, default=str))]
        tests = bin_test_table(result)
        if tests is not None:
            files.append(write_results(tests, tmp / "bin_tests.csv"))
        # without a human group (LLM judges, NLI models): the paper's Figures 7 and 8
        judges = not (table["role"] == "H").any()
        e_tests = expected_test_table(result) if judges else None
        if e_tests is not None:
            files.append(write_results(e_tests, tmp / "expected_tests.csv"))
        for name, extra_table in (("agreement", agreement), ("comparisons", comparisons)):
            extra_table = getattr(extra_table, "table", extra_table)
            if extra_table is not None and len(extra_table):
                files.append(write_results(extra_table, tmp / f"{name}.csv"))
        for metric, res in paired.items():
            files.append(write_results(getattr(res, "table", res), tmp / f"paired_{metric}.csv"))
        if figures:
            has_delta = (table["role"] == "system").any() and table["delta_human"].notna().any()
            for metric in dict.fromkeys(table["metric"]):
                if not table.loc[table["metric"] == metric, "score"].notna().any():
                    continue
                files += plots.save(plots.plot_stratified_scores(table, metric),
                                    tmp / f"scores_{metric}")
                rows = (table["metric"] == metric) & (table["role"] == "system")
                if has_delta and table.loc[rows, "delta_human"].notna().any():
                    fig = plots.plot_delta_by_bin(table, metric, tests=tests)
                    files += plots.save(fig, tmp / f"delta_{metric}")
                if judges:
                    files += _judge_figures(plots, table, metric, rows, tests, e_tests, tmp)
            for metric, res in paired.items():
                fig = plots.plot_system_vs_system(table, *compare, metric, tests=res)
                files += plots.save(fig, tmp / f"paired_{metric}")
        seed = getattr(result, "seed", None)  # the seed used: passing it again repeats the run
        extra = {"seed": seed} if seed is not None else {}
        if getattr(result, "inputs", None):
            extra["inputs"] = result.inputs  # what was read, per task
        files += stratify_html(tmp, files, result, data, sources)  # report.html: the page
        files.append(atomic_write(tmp / "report.json", _metadata("stratify", files, **extra)))
    return [out / p.name for p in files]


def _judge_figures(plots, table, metric, rows, tests, e_tests, tmp) -> list:
    """Figure 7 and 8 analogues of one metric: scores across systems per bin, E - score per bin.

    ``scores_by_bin_<metric>``: the systems' scores (systems x tasks) per bin with the
    bin tests on ``score`` (Welch, Levene), when some bin has two or more; and
    ``delta_expected_<metric>``: E - score per bin with the paired test of E against
    the scores, when the metric has an E.
    """
    files = []
    sys_rows = table[rows & (table["stratum"] != "all") & table["score"].notna()]
    if sys_rows.empty or sys_rows.groupby("stratum").size().max() < 2:
        return files  # one point per bin: no distribution to draw
    fig = plots.plot_delta_by_bin(table, metric, value="score", tests=tests)
    files += plots.save(fig, tmp / f"scores_by_bin_{metric}")
    if sys_rows["delta_expected"].notna().any():
        sel = None if e_tests is None else e_tests[e_tests["metric"] == metric]
        fig = plots.plot_gap_to_expected(table, metric, tests=sel)
        files += plots.save(fig, tmp / f"delta_expected_{metric}")
    return files


# --------------------------------------------------------------------------- design
def write_design_report(result, out_dir, *, figure: bool = True) -> list[Path]:
    """Write a study-plan report directory; return the paths written (under ``out_dir``).

    Files: ``design.csv`` (the plans), ``design_bins.csv``, ``design_evaluated.csv``,
    ``design_curves.csv``, ``scenario.json``, the power figure ``power.png``/``power.pdf``
    and ``report.json``. The directory is replaced as a whole (see the module notes).

    Parameters
    ----------
    result : DesignResult
        Output of :func:`labelvar.plan_study` (uses ``scenario, plans, bins, curves,
        evaluated, message``).
    out_dir : str or Path
    figure : bool
        Also draw the power curves.

    Returns
    -------
    list of Path
    """
    from labelvar import plots

    out = Path(out_dir)
    with replaced_directory(out, allowed=_allowed(DESIGN_FILES)) as tmp:
        files = [write_results(df, tmp / f"{name}.csv")
                 for name, df in (("design", result.table), ("design_bins", result.bins),
                                  ("design_evaluated", result.evaluated),
                                  ("design_curves", result.curves))]
        files.append(atomic_write(tmp / "scenario.json",
                                  json.dumps(result.scenario.to_dict(), indent=2, default=str)))
        if figure:
            head, _, sub = result.scenario.describe().partition("\n")  # figures take text
            fig = plots.plot_power_curves(result.curves, result.evaluated, result.table,
                                          target=result.scenario.power, title=head, subtitle=sub)
            files += plots.save(fig, tmp / "power")
        files += design_html(tmp, files, result)  # report.html: the one page
        files.append(atomic_write(tmp / "report.json",
                                  _metadata("design", files, message=result.describe())))
    return [out / p.name for p in files]


# --------------------------------------------------------------------------- raters
#: files of a raters report (``labelvar raters --out``)
RATERS_FILES = ("report.json", "table.md", "skills.csv", "check.csv", "ceilings.csv",
                "kappa_x.csv", "agreement.csv", "report.html")


def write_raters_report(rep, out_dir, markdown: str) -> list[Path]:
    """Write a rater-model report directory; return the paths written (under ``out_dir``).

    Files: ``skills.csv``, ``check.csv``, ``ceilings.csv`` (tidy, one row per task x
    target x ceiling x stratum), ``kappa_x.csv`` (with ``--groups``), ``agreement.csv``
    (with ``--agreement``), ``table.md`` (what was printed) and ``report.json``. The
    directory is replaced as a whole.
    """
    out = Path(out_dir)
    with replaced_directory(out, allowed=_allowed(RATERS_FILES)) as tmp:
        files = [write_results(getattr(rep, name), tmp / f"{name}.csv")
                 for name in ("skills", "check", "ceilings", "kappa_x", "agreement")
                 if getattr(rep, name) is not None]
        files.append(atomic_write(tmp / "table.md", markdown))
        files += raters_html(tmp, files, rep)  # report.html: the one page
        files.append(atomic_write(tmp / "report.json", _metadata("raters", files, **rep.settings)))
    return [out / p.name for p in files]
