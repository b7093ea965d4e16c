"""The ``labelvar judge`` report: the alt-test's verdicts, tables and figure.

Examples
--------
>>> import pandas as pd
>>> from labelvar import alt_test
>>> votes = pd.DataFrame({"item": [i for i in range(30) for _ in range(3)],
...                       "rater": ["a", "b", "c"] * 30, "label": [0, 0, 1] * 30})
>>> res = alt_test(votes, pd.Series([0] * 30, name="judge"), references=None)
>>> print(judge_markdown({"judge": res}).splitlines()[0])
### judge: passes (winning rate 1, rho 1)
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from labelvar._base._files import atomic_write, check_replaceable, replaced_directory, write_results
from labelvar._base._format import markdown_table, short_float

#: files of a judge report (glob patterns); ``labelvar judge --plan --out``: plan files
JUDGE_FILES = ("report.json", "table.md", "verdicts.csv", "humans.csv", "references.csv",
               "by_bin.csv", "alt_test_*.png", "alt_test_*.pdf", "plan.csv", "power_curves.csv",
               "power.png", "power.pdf", "report.html", "disagreements.csv")


def _allowed(name: str) -> bool:
    import fnmatch

    return any(fnmatch.fnmatchcase(name, p) for p in JUDGE_FILES)


def check_judge_dir(out_dir) -> None:
    """Refuse, before any work, a directory the judge report may not replace."""
    check_replaceable(out_dir, _allowed)


def verdicts(results: dict) -> pd.DataFrame:
    """One row per system: the verdict and its settings."""
    return pd.DataFrame([{"system": n, "passed": r.passed, "winning_rate": r.winning_rate,
                          "advantage_probability": r.advantage_probability,
                          "epsilon": r.epsilon, "q": r.q, "scoring": r.scoring, "test": r.test,
                          "margin": r.margin, "n_humans": r.n_humans, "n_items": r.n_items,
                          "n_humans_excluded": r.n_humans_excluded,
                          "n_items_excluded": r.n_items_excluded}
                         for n, r in results.items()])


def _stack(results: dict, attr: str) -> pd.DataFrame:
    return pd.concat([getattr(r, attr).assign(system=n)[["system", *getattr(r, attr).columns]]
                      for n, r in results.items()], ignore_index=True)


def judge_markdown(results: dict) -> str:
    """What ``labelvar judge`` prints: per system the verdict, the humans, the references."""
    parts = []
    for name, r in results.items():
        verdict = "passes" if r.passed else "fails"
        parts.append(f"### {name}: {verdict} (winning rate {short_float(r.winning_rate)}, "
                     f"rho {short_float(r.advantage_probability)})\n\n{r.describe()}")
        parts.append("humans (leave one out)\n\n" + markdown_table(r.table))
        if len(r.references) > 1:
            parts.append("references (same humans, items, scoring, epsilon)\n\n"
                         + markdown_table(r.references))
        parts.append("rho per agreement bin of the remaining humans\n\n"
                     + markdown_table(r.by_bin))
        if r.n_humans_excluded:
            parts.append("humans not tested (too few kept items)\n\n" + markdown_table(r.excluded))
    return "\n\n".join(parts) + "\n"


def _stem(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name)).strip(".")[:60] or "system"


def _stems(names) -> dict:
    """One file stem per system: its name in safe characters (at most 60), made unique.

    ``a/b`` and ``a_b`` (or two long names alike in their first 60 characters) get
    ``a_b`` and ``a_b_2``: no figure overwrites another.

    Examples
    --------
    >>> _stems(["a/b", "a_b", "."])
    {'a/b': 'a_b', 'a_b': 'a_b_2', '.': 'system'}
    """
    out, used = {}, set()
    for n in names:
        base = stem = _stem(n)
        k = 1
        while stem.lower() in used:
            k += 1
            stem = f"{base}_{k}"
        used.add(stem.lower())
        out[n] = stem
    return out


def write_judge_report(results: dict, out_dir, markdown: str | None = None,
                       *, figures: bool = True, drill=None, sources=None) -> list[Path]:
    """Write a judge report directory; return the paths written (under ``out_dir``).

    Files: ``verdicts.csv`` (one row per system), ``humans.csv``, ``references.csv``,
    ``by_bin.csv`` (tidy, a ``system`` column), ``table.md`` (what was printed),
    ``alt_test_<system>.png/.pdf`` (the figure), ``report.html`` (all of it on one page;
    with ``drill``, :func:`labelvar.report._html_reports.judge_drill`, the items where a
    judge and the humans' majority disagree, also in ``disagreements.csv``; ``sources``:
    the files read, named on the page) and ``report.json``. The directory is replaced as
    a whole.
    """
    from labelvar import plots
    from labelvar.plots._judge import plot_alt_test
    from labelvar.report._html_reports import judge_html

    out = Path(out_dir)
    text = judge_markdown(results) if markdown is None else markdown
    with replaced_directory(out, allowed=_allowed) as tmp:
        files = [write_results(verdicts(results), tmp / "verdicts.csv")]
        for attr, fname in (("table", "humans.csv"), ("references", "references.csv"),
                            ("by_bin", "by_bin.csv")):
            files.append(write_results(_stack(results, attr), tmp / fname))
        files.append(atomic_write(tmp / "table.md", text))
        if figures:
            stems = _stems(list(results))
            for name, r in results.items():
                fig = plot_alt_test(r.table, r.references, r.by_bin,
                                    title=f"alt-test: {name}", subtitle=r.describe())
                files += plots.save(fig, tmp / f"alt_test_{stems[name]}")
        files += judge_html(tmp, files, results, drill, sources)  # report.html: the page
        from labelvar import __version__

        meta = {"kind": "judge", "labelvar": __version__,
                "files": sorted(p.name for p in files) + ["report.json"]}
        files.append(atomic_write(tmp / "report.json", json.dumps(meta, indent=2)))
    return [out / p.name for p in files]


def write_judge_plan(design, plan: pd.DataFrame, curves: pd.DataFrame, out_dir, *,
                     target: float, markdown: str) -> list[Path]:
    """Write a plan directory (``labelvar judge --plan --out``); return the paths.

    Files: ``plan.csv``, ``power_curves.csv``, ``power.png/.pdf``, ``table.md``,
    ``report.html``, ``report.json``.
    """
    from labelvar import plots
    from labelvar.plots._judge import plot_alt_test_power

    out = Path(out_dir)
    with replaced_directory(out, allowed=_allowed) as tmp:
        files = [write_results(plan, tmp / "plan.csv"),
                 write_results(curves, tmp / "power_curves.csv"),
                 atomic_write(tmp / "table.md", markdown)]
        fig = plot_alt_test_power(curves, plan, target=target, title="alt-test power",
                                  subtitle=design.describe())
        files += plots.save(fig, tmp / "power")
        from labelvar.report._html_reports import judge_plan_html

        files += judge_plan_html(tmp, files, design)  # report.html: the one page
        from labelvar import __version__

        meta = {"kind": "judge plan", "labelvar": __version__,
                "files": sorted(p.name for p in files) + ["report.json"]}
        files.append(atomic_write(tmp / "report.json", json.dumps(meta, indent=2)))
    return [out / p.name for p in files]
