"""What each report type puts in ``report.html``: its headline, what was read, its settings.

One function per report type, called by its writer with what the writer computed
(the page itself is :func:`labelvar.report._html.write_report_html`, shared). The
headline's numbers are read back from the CSVs just written, so that the page quotes
exactly what the files hold (each number names its file, row and column).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from labelvar.report._html import disagreements, write_report_html


def _csv(tmp: Path, name: str) -> pd.DataFrame | None:
    p = Path(tmp) / name
    return pd.read_csv(p, dtype={"stratum": str, "bin": str}) if p.is_file() else None


# --------------------------------------------------------------------------- stratify
def stratify_headline(table: pd.DataFrame, *, most: int = 4) -> list:
    """Per system (the first metric, first task): its score over all items beside E and H."""
    metric = table["metric"].iloc[0]
    task = table["task"].iloc[0]
    rows = table[(table["metric"] == metric) & (table["task"] == task)
                 & (table["stratum"] == "all")]
    human = rows[rows["role"] == "H"]
    out = []
    for i, r in rows[rows["role"] == "system"].head(most).iterrows():
        parts = [f"{r['system']}'s {metric} over all ", (f"{int(r['S'])} items: ", None, None),
                 ("", r["score"], f"stratified.csv:{i}:score")]
        if pd.notna(r.get("ci_low")):
            parts += [(" [", r["ci_low"], f"stratified.csv:{i}:ci_low"),
                      (", ", r["ci_high"], f"stratified.csv:{i}:ci_high"), "]"]
        if pd.notna(r.get("expected")):
            parts += [("; a rater as good as the panel's agreement predicts (the coin model's "
                       "E) gets ", r["expected"], f"stratified.csv:{i}:expected")]
        if len(human) and pd.notna(human["score"].iloc[0]):
            j = human.index[0]
            parts += [("; the human group H ", human["score"].iloc[0], f"stratified.csv:{j}:score")]
        if pd.notna(r.get("chance")):
            parts += [("; chance ", r["chance"], f"stratified.csv:{i}:chance")]
        out.append(parts + [f" (task {task})." if table["task"].nunique() > 1 else "."])
    if not out:
        h = rows[rows["role"].isin(["H", "H'", "H'-loo"])].head(1)
        for i, r in h.iterrows():
            out.append([f"A panel-only report: {r['system']}'s {metric} over all items ",
                        ("", r["score"], f"stratified.csv:{i}:score"),
                        ("; the coin model's E ", r.get("expected"), f"stratified.csv:{i}:expected"),
                        "."])
    return out or [["A stratified report (no system or human score over all items)."]]


def stratify_drill(data: Mapping) -> pd.DataFrame:
    """Items where a system's answer (modal answer if sampled) and the panel's majority differ."""
    from labelvar.io._samples import modal_answer

    parts = []
    for task, td in data.items():
        panel = td.panel
        long = panel.rename_axis("item").reset_index().melt(
            id_vars="item", var_name="rater", value_name="label").dropna(subset=["label"])
        systems = td.predictions.drop(columns=[h for h in td.humans
                                               if h in td.predictions.columns])
        for name, table in (td.samples or {}).items():
            systems = systems.assign(**{name: modal_answer(table).to_numpy()})
        if systems.shape[1]:
            parts.append(disagreements(long, systems, task=str(task) if len(data) > 1 else ""))
    return pd.concat(parts, ignore_index=True) if parts else None


def stratify_html(tmp: Path, files: list, result, data=None, sources=None) -> list[Path]:
    """``report.html`` of a stratify report (``data``: the votes, for the drill-down)."""
    table = _csv(tmp, "stratified.csv")
    read = {"files": ", ".join(map(str, sources))} if sources else {}
    for line in result.describe().splitlines():
        task, _, rest = line.partition(": ")
        read[f"task {task}"] = rest
    for task, ex in (result.excluded or {}).items():
        read[f"excluded ({task})"] = ", ".join(f"{k}: {v}" for k, v in ex.items()) or "none"
    settings = {"seed": result.seed, "metrics": ", ".join(dict.fromkeys(table["metric"])),
                "bins": ", ".join(s for s in dict.fromkeys(table["stratum"]) if s != "all"),
                "tie rule": ", ".join(map(str, dict.fromkeys(table["tie_rule"].dropna())))}
    drill = stratify_drill(data) if data is not None else None
    return write_report_html(tmp, files, kind="stratify", title="Agreement-stratified report",
                             headline=stratify_headline(table), read=read, settings=settings,
                             drill=drill)


# --------------------------------------------------------------------------- judge
def judge_headline(refs: pd.DataFrame, verdicts: pd.DataFrame) -> list:
    """Per system: the verdict, rho, and what a coin and an exchangeable annotator get."""
    out = []
    for k, v in verdicts.iterrows():
        name = v["system"]
        mine = refs[refs["system"] == name]
        rho = mine[mine["reference"] == "system"]
        parts = [f"{name} {'passes' if v['passed'] else 'fails'} the alt-test: the judge's ρ ",
                 ("", rho["advantage_probability"].iloc[0] if len(rho) else v[
                     "advantage_probability"], f"references.csv:{rho.index[0]}:advantage_probability"
                  if len(rho) else f"verdicts.csv:{k}:advantage_probability")]
        named = {"uniform": "a coin gets ", "exchangeable": "an exchangeable annotator "}
        got = [(r, named[r["reference"]]) for _, r in mine.iterrows() if r["reference"] in named]
        for n, (r, text) in enumerate(got):
            sep = "; " if n == 0 else " and "
            parts.append((sep + text, r["advantage_probability"],
                          f"references.csv:{r.name}:advantage_probability"))
        if got:
            parts.append(" on these items")
        parts += [(" (winning rate ", v["winning_rate"], f"verdicts.csv:{k}:winning_rate"),
                  (", ε ", v["epsilon"], f"verdicts.csv:{k}:epsilon"), ")."]
        out.append(parts)
    return out


def judge_html(tmp: Path, files: list, results: Mapping, drill=None,
               sources=None) -> list[Path]:
    """``report.html`` of a judge report (``drill``: items judge and majority differ on)."""
    verdicts, refs = _csv(tmp, "verdicts.csv"), _csv(tmp, "references.csv")
    read, settings = ({"files": ", ".join(map(str, sources))} if sources else {}), {}
    for name, r in results.items():
        read[name] = (f"{r.n_items} items ({r.n_items_excluded} excluded: too few humans), "
                      f"{r.n_humans} humans tested ({r.n_humans_excluded} excluded: too few "
                      "items)")
        settings.setdefault("epsilon", r.epsilon)
        settings.setdefault("q", r.q)
        settings.setdefault("scoring", r.scoring)
        settings.setdefault("test", r.test)
        settings.setdefault("margin", r.margin)
    methods = refs.drop_duplicates("reference")[["reference", "winning_rate_method"]]
    settings["references"] = "; ".join(f"{a}: {b}" for a, b in methods.to_numpy())
    return write_report_html(tmp, files, kind="judge", title="Judge report: the alt-test",
                             headline=judge_headline(refs, verdicts), read=read,
                             settings=settings, drill=drill)


def judge_plan_html(tmp: Path, files: list, design) -> list[Path]:
    """``report.html`` of ``labelvar judge --plan``: the smallest N per humans per item."""
    plan = _csv(tmp, "plan.csv")
    head = []
    for i, r in plan.iterrows():
        if pd.isna(r["n_items"]):
            head.append([f"With {int(r['n_humans'])} humans per item no N in range reaches "
                         "the target power."])
            continue
        head.append([("With ", r["n_humans"], f"plan.csv:{i}:n_humans"),
                     (" humans per item, N = ", r["n_items"], f"plan.csv:{i}:n_items"),
                     (" items give the alt-test power ", r["power"], f"plan.csv:{i}:power"),
                     (" (target ", r["target"], f"plan.csv:{i}:target"),
                     (", ε ", r["epsilon"], f"plan.csv:{i}:epsilon"), ")."])
    return write_report_html(tmp, files, kind="judge plan", title="Judge study plan",
                             headline=head or ["A judge study plan."],
                             read={"design": design.describe()}, settings={})


def judge_drill(inputs) -> pd.DataFrame | None:
    """[(task, long votes, systems)] -> items where a judge and the humans' majority differ."""
    parts = [disagreements(v, s, task=t) for t, v, s in inputs if s.shape[1]]
    return pd.concat(parts, ignore_index=True) if parts else None


# --------------------------------------------------------------------------- readers
def readers_html(tmp: Path, files: list, result) -> list[Path]:
    """``report.html`` of a reader study: the test's difference or the AI's, with its CI."""
    lines = result.describe().splitlines()
    name = "tests.csv" if (Path(tmp) / "tests.csv").is_file() else "standalone.csv"
    t = _csv(tmp, name)
    head = [lines[0] if lines else "A reader study."]
    if t is not None and len(t):
        i = 0
        diff = next((c for c in ("diff", "difference", "estimate", "fom_diff") if c in t), None)
        if diff is not None:
            row = t.iloc[i]
            what = f"{row['analysis']}: " if "analysis" in t else ""
            head = [f"{lines[0].rstrip('.')}. {what}"]
            if {"ai_fom", "readers_fom"} <= set(t.columns):  # the AI against the readers
                head += [("the AI's FOM ", row["ai_fom"], f"{name}:{i}:ai_fom"),
                         (", the readers' mean ", row["readers_fom"], f"{name}:{i}:readers_fom"),
                         "; "]
            head.append((f"{diff} ", row[diff], f"{name}:{i}:{diff}"))
            if "ci_low" in t:
                head += [(" [", row["ci_low"], f"{name}:{i}:ci_low"),
                         (", ", row["ci_high"], f"{name}:{i}:ci_high"), "]"]
            p = next((c for c in ("p", "p_value") if c in t), None)
            if p is not None:
                head.append((", p ", row[p], f"{name}:{i}:{p}"))
            head.append(".")
    return write_report_html(tmp, files, kind="readers", title="Reader study report",
                             headline=head, read={"study": " ".join(lines[1:]) or lines[0]},
                             settings={"FOM": getattr(result, "fom_name", "")})


# --------------------------------------------------------------------------- design, raters
def design_html(tmp: Path, files: list, result) -> list[Path]:
    """``report.html`` of a study plan: the recommended plan (N, K, power) first."""
    plans = _csv(tmp, "design.csv")
    rec = plans[plans["recommended"].astype(str) == "True"] if "recommended" in plans else plans
    if len(rec):
        i = rec.index[0]
        r = plans.loc[i]
        head = [("Recommended: K = ", r["panel_size"], f"design.csv:{i}:panel_size"),
                (" annotators per item, N = ", r["n_items"], f"design.csv:{i}:n_items"),
                (" items; exact power ", r["power_analytic"], f"design.csv:{i}:power_analytic"),
                (" against the target ", getattr(result.scenario, "power", np.nan), None), "."]
    else:
        head = [result.message]
    scen = result.scenario.to_dict() if hasattr(result.scenario, "to_dict") else {}
    return write_report_html(tmp, files, kind="design", title="Study plan",
                             headline=head, read={"scenario": result.scenario.describe()},
                             settings={k: v for k, v in scen.items() if not isinstance(v, dict)})


def raters_html(tmp: Path, files: list, rep) -> list[Path]:
    """``report.html`` of a rater-model report: the most and least accurate raters first."""
    skills = _csv(tmp, "skills.csv")
    head: list = ["A rater-model report."]
    if skills is not None and "accuracy" in skills and skills["accuracy"].notna().any():
        hi, lo = skills["accuracy"].idxmax(), skills["accuracy"].idxmin()
        head = [f"Most accurate rater {skills.loc[hi, 'rater']}: ",
                ("", skills.loc[hi, "accuracy"], f"skills.csv:{hi}:accuracy"),
                f"; least accurate {skills.loc[lo, 'rater']}: ",
                ("", skills.loc[lo, "accuracy"], f"skills.csv:{lo}:accuracy"),
                f" (fitted skill against the model's posterior truth, {len(skills)} rater rows)."]
    read = {"raters": len(skills) if skills is not None else "?",
            "items": int(skills["n_items"].max()) if skills is not None and "n_items" in skills
            else "?"}
    return write_report_html(tmp, files, kind="raters", title="Rater models report",
                             headline=head, read=read, settings=dict(rep.settings))


# --------------------------------------------------------------------------- to_html
def to_html(result, path) -> Path:
    """``result.to_html(path)``: the report directory written aside, its ``report.html`` kept.

    The same writer as ``--out`` (every table, every figure, the same headline), run in a
    temporary directory; ``path`` gets its page. Stratify's drill-down needs the votes,
    which a result does not hold: :func:`labelvar.report.write_stratify_report` with
    ``data=`` has it.
    """
    import tempfile

    from labelvar._base._files import atomic_write
    from labelvar.report import _writers as report
    from labelvar.report._judge import write_judge_report
    from labelvar.report._readers import write_readers_report

    path = Path(path)
    if path.is_dir():
        raise ValueError(f"path: {path} is a directory; give the .html file to write")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report"
        if hasattr(result, "advantage_probability"):  # the alt-test
            write_judge_report({result.system: result}, out)
        elif hasattr(result, "fom_name"):  # a reader study (MRMC or standalone)
            write_readers_report(result, out, result.describe())
        elif hasattr(result, "scenario"):  # a study plan (DesignResult)
            report.write_design_report(result, out)
        elif hasattr(result, "ceilings"):  # rater models
            from labelvar.report._raters import markdown

            report.write_raters_report(result, out, markdown(result))
        elif hasattr(result, "excluded") and hasattr(result, "table"):  # stratify
            report.write_stratify_report(result, out)
        else:
            raise ValueError(f"result: a {type(result).__name__} has no report page")
        return atomic_write(path, (out / "report.html").read_bytes())
