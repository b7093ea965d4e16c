"""The tables of ``labelvar raters``: skills, the model check, ceilings per bin, κx.

One call per task of a long votes file: :func:`labelvar.fit_raters`, its
:meth:`~labelvar.RaterFit.check`, :func:`labelvar.panel_ceilings`
conditional on the file's panel votes for each target rater, and
:func:`labelvar.cross_replication` between two rater groups. The command
line prints :func:`markdown`; :func:`labelvar.report.write_raters_report` writes the
tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from labelvar._base._defaults import CONFIDENCE_LEVEL
from labelvar._base._format import markdown_table


@dataclass(frozen=True)
class RaterReport:
    """Tidy tables of a ``labelvar raters`` run (each with a ``task`` column)."""

    skills: pd.DataFrame
    check: pd.DataFrame
    ceilings: pd.DataFrame
    kappa_x: pd.DataFrame | None
    settings: dict
    agreement: pd.DataFrame | None = None  # --agreement: labelvar.metrics.agreement_table

    def to_html(self, path):
        """Write this report's page, ``report.html`` (self-contained), to ``path``."""
        from labelvar.report._html_reports import to_html

        return to_html(self, path)


def _read(path: Path, text=()) -> pd.DataFrame:
    """A votes (or gold) table: CSV/TSV by :func:`labelvar.io.read_frame`, JSON lines by records.

    The id columns ``text`` are read as written (``0001`` stays ``0001``), as
    :func:`labelvar.io.read_votes` reads them.
    """
    from labelvar.io import read_frame
    from labelvar.io._reading import read_jsonl_records

    if path.suffix.lower() in (".json", ".jsonl"):
        return pd.DataFrame.from_records(read_jsonl_records(path))
    return read_frame(path, text=list(text))


def from_file(path, *, item: str, rater: str, label: str, task_column=None, tasks=None,
              gold=None, **options) -> RaterReport:
    """Read a long votes file (and a gold file), one :func:`rater_tables` per task, combined."""
    path = Path(path)
    votes = _read(path, [item, rater])
    need = [item, rater, label] + ([task_column] if task_column else [])
    missing = [c for c in need if c not in votes.columns]
    if missing:
        raise ValueError(f"{path}: column {missing[0]!r} not found (--item/--rater/--label/"
                         f"--task-column); columns: {', '.join(map(str, votes.columns[:12]))}")
    gold_map = None
    if gold is not None:
        g = _read(Path(gold), [item])
        if item not in g.columns or label not in g.columns:
            raise ValueError(f"--gold {gold}: needs the columns {item!r} and {label!r}")
        gold_map = list(zip(g[item], g[label]))  # an item given twice is checked, not overwritten
    groups = ([(str(t), sub) for t, sub in votes.groupby(task_column, sort=False)]
              if task_column else [(path.stem, votes)])
    if tasks is not None:
        unknown = sorted(set(tasks) - {t for t, _ in groups})
        if unknown:
            raise ValueError(f"--tasks: {', '.join(unknown)} not in --task-column {task_column!r}")
        groups = [(t, sub) for t, sub in groups if t in tasks]
    return combine([rater_tables(sub, item=item, rater=rater, label=label, gold=gold_map,
                                 task=t, **options) for t, sub in groups])


def _ids(values, known: list, flag: str) -> list:
    """Rater ids named on the command line, matched to the file's (as text)."""
    by_text = {str(r): r for r in known}
    bad = [x for x in values if str(x) not in by_text]
    if bad:
        raise ValueError(f"{flag}: rater(s) {', '.join(map(repr, bad))} not in the votes; raters: "
                         f"{', '.join(map(str, known[:12]))}{' ...' if len(known) > 12 else ''}")
    return [by_text[str(x)] for x in values]


def rater_tables(votes: pd.DataFrame, *, model: str, item: str, rater: str, label: str,
                 labels=None, gold=None, raters=None, targets=None, groups=None,
                 tie_rule="random", n_resamples: int = 200,
                 confidence_level: float = CONFIDENCE_LEVEL, seed: int = 0,
                 task: str = "task", agreement=None) -> RaterReport:
    """Fit, check and score one task's votes (see the module docstring)."""
    from labelvar.evaluation._agreement import cross_replication
    from labelvar.votes._ceilings import panel_ceilings
    from labelvar.votes._raters import fit_raters

    fit = fit_raters(votes, model=model, item=item, rater=rater, label=label, labels=labels,
                     gold=gold, n_resamples=n_resamples, confidence_level=confidence_level,
                     seed=seed)
    known = list(fit.raters)
    if len(known) < 2:
        raise ValueError(f"VOTES: only one rater ({known[0]!r}) in task {task!r}; labelvar raters "
                         "sets each rater against the others' votes and needs at least 2 raters")
    skills = fit.skills.copy()
    chk = fit.check(seed=seed)
    check = pd.DataFrame([{"model": fit.kind, "statistic": chk.statistic, "chi2": chk.chi2,
                           "df": chk.df, "p": chk.p}])
    pan = None if raters is None else _ids(raters, known, "--raters")
    tgt = None if targets is None else _ids(targets, known, "--target")
    if pan is None and tgt is None:  # every rater against the majority of the others
        pairs = [([r for r in known if r != t], t) for t in known]
    elif pan is None:
        pairs = [([r for r in known if r != t], t) for t in tgt]
    else:
        rest = [r for r in known if r not in pan]
        pairs = [(pan, t) for t in (tgt if tgt is not None else rest)] or [(pan, None)]
    frames = []
    for p, t in pairs:
        if t is not None and t in p:
            raise ValueError(f"--target {t!r} is in --raters; the panel is the other raters")
        c = panel_ceilings(fit, p, target=t, panel=votes, tie_rule=tie_rule,
                           confidence_level=confidence_level, item=item, rater=rater, label=label)
        frames.append(c.table)
    ceil = pd.concat(frames, ignore_index=True)
    kx = None
    if groups is not None:
        gx, gy = (_ids(g, known, "--groups") for g in groups)
        if set(gx) & set(gy):
            raise ValueError(f"--groups: a rater is in both groups ({sorted(set(gx) & set(gy))})")
        r = cross_replication(fit.label_counts(gx).to_numpy(), fit.label_counts(gy).to_numpy(),
                              n_resamples=n_resamples, confidence_level=confidence_level,
                              seed=seed)
        kx = r.table.assign(group_x=",".join(map(str, gx)), group_y=",".join(map(str, gy)))
    settings = {"model": fit.kind, "tie_rule": str(tie_rule), "n_resamples": n_resamples,
                "confidence_level": confidence_level, "seed": seed}
    agree = None
    if agreement:
        from labelvar.metrics import agreement_table

        long = votes[[item, rater, label]].set_axis(["item", "rater", "label"], axis=1)
        agree = agreement_table(long, list(agreement), labels=labels,
                                confidence_level=confidence_level, seed=seed)
        settings["agreement"] = ",".join(agreement)
    skills, check, ceil, kx, agree = (None if df is None else df.assign(task=task).pipe(_task_first)
                                      for df in (skills, check, ceil, kx, agree))
    return RaterReport(skills, check, ceil, kx, settings=settings, agreement=agree)


def _task_first(df: pd.DataFrame) -> pd.DataFrame:
    return df[["task"] + [c for c in df.columns if c != "task"]]


def combine(reports: list[RaterReport]) -> RaterReport:
    """One report of several tasks' (tables stacked)."""
    def cat(name):
        frames = [getattr(r, name) for r in reports if getattr(r, name) is not None]
        return pd.concat(frames, ignore_index=True) if frames else None

    return RaterReport(cat("skills"), cat("check"), cat("ceilings"), cat("kappa_x"),
                       reports[0].settings, cat("agreement"))


def _ci(x, lo, hi) -> str:
    if not np.isfinite(x):
        return ""
    return f"{x:.3f}" + (f" [{lo:.3f}, {hi:.3f}]" if np.isfinite(lo) else "")


def ceilings_wide(table: pd.DataFrame) -> pd.DataFrame:
    """Ceilings laid out one row per task x target x stratum (expected [interval] per ceiling)."""
    rows = []
    keys = ["task", "target", "raters", "stratum"]
    for key, g in table.groupby(keys, sort=False):
        r = dict(zip(keys, key))
        rr = g[g.ceiling == "rater"].iloc[0]
        r.update(S=int(rr.n_items), p_d=rr.p_d)
        for c in ("exchangeable", "oracle", "rater"):
            x = g[g.ceiling == c].iloc[0]
            r[{"exchangeable": "E = p_d", "oracle": "oracle", "rater": "rater (skill)"}[c]] = \
                _ci(x.expected, x.ci_low, x.ci_high)
        if "observed" in g:
            r["observed"] = rr.observed
        rows.append(r)
    return pd.DataFrame(rows)


def markdown(rep: RaterReport) -> str:
    """What ``labelvar raters`` prints: the four tables as markdown."""
    skills = rep.skills.copy()
    for c in [c for c in skills.columns if f"{c}_low" in skills.columns]:
        skills[c] = [_ci(x, lo, hi) for x, lo, hi in
                     zip(skills[c], skills[f"{c}_low"], skills[f"{c}_high"])]
    skills = skills[[c for c in skills.columns if not c.endswith(("_low", "_high"))]]
    parts = ["### rater skills\n\n" + markdown_table(skills),
             "### model check (posterior predictive, votes per item)\n\n"
             + markdown_table(rep.check),
             "### ceilings per agreement bin (expected accuracy against the panel's plurality)\n\n"
             + markdown_table(ceilings_wide(rep.ceilings))]
    if rep.kappa_x is not None:
        k = rep.kappa_x
        show = pd.DataFrame({"task": k.task, "stratum": k.stratum, "S": k.n_items,
                             **{n: [_ci(a, b, c) for a, b, c in zip(k[n], k[f"{n}_low"],
                                                                    k[f"{n}_high"])]
                                for n in ("kappa_x", "kappa_X", "kappa_Y", "normalized")},
                             "independent": k.independent})
        parts.append("### cross-replication reliability (X: " + str(k.group_x.iloc[0]) + "; Y: "
                     + str(k.group_y.iloc[0]) + ")\n\n" + markdown_table(show))
    if rep.agreement is not None:
        a = rep.agreement
        show = pd.DataFrame({"task": a.task, "coefficient": a.coefficient, "scope": a.scope,
                             "S": a.n_items, "value [CI]": [_ci(x, lo, hi) for x, lo, hi in
                                                           zip(a.value, a.ci_low, a.ci_high)],
                             "se": a.se, "p": a.p_value})
        refs = [c for c in ("uniform", "prevalence", "exchangeable", "plurality") if c in a]
        show = pd.concat([show, a[refs].reset_index(drop=True)], axis=1)
        parts.append("### chance-corrected agreement among the raters (and what a reference "
                     "labeller in place of one vote per item reaches)\n\n" + markdown_table(show))
    return "\n\n".join(parts) + "\n"
