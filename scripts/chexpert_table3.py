"""Reproduce the paper's Table 3 (human H and expected E columns) from the raw CheXpert files.

    .venv/bin/python scripts/chexpert_table3.py [--data DIR] [--out DIR] [--n-resamples N]

Ground truth: the majority of the 5 ground-truth radiologists (bc1, bc2, bc3, bc5, bc7);
H: the 3 benchmark radiologists (bc4, bc6, bc8), mean ± sd over the three; E: the coin
model at the bin's (agreement, m), an agreement of 1 taken as p_d = 0.97, as in the
paper (``p_d_one``).
The paper rounds each radiologist's score to 2 decimals before taking H's mean and sd
(``human_round=2``); only that way does its H column come out to the printed digit.

Prints (1) the paper's printed values next to labelvar's for Cardiomegaly, Lung Opacity
and Support Devices, (2) the H/E table for all 14 findings, (3) the paper-layout table
for each of the 8 leaderboard models on the 5 findings they predict. The data is read
from ``<repo>/../shared/data/chexpert_test`` (never copied into the repository).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from labelvar import io
from labelvar.evaluation import Intervals, Paper
from labelvar.evaluation._stratified import paper_table, stratify

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "chexpert_test"
PANEL = ["bc1", "bc2", "bc3", "bc5", "bc7"]
HUMANS = ["bc4", "bc6", "bc8"]
MODELS = ["drnet", "ihil", "jfaboy", "ngango2", "ngango3", "sensexdr", "uestc", "yww211"]

#: the paper's Table 3 (arXiv 2601.05500 v6), columns that do not depend on the AI model:
#: (finding, agreement bin) -> (S, m, F1 H, F1 H sd, F1 E, accuracy H, accuracy H sd, accuracy E)
PAPER_TABLE3 = {
    ("Cardiomegaly", "0.60"): (142, 0.507, 0.64, 0.10, 0.60, 0.66, 0.03, 0.60),
    ("Cardiomegaly", "0.80"): (196, 0.372, 0.71, 0.04, 0.75, 0.79, 0.03, 0.80),
    ("Cardiomegaly", "1.00"): (162, 0.037, 0.70, 0.12, 0.71, 0.98, 0.02, 0.97),
    ("Cardiomegaly", "all"): (500, 0.302, 0.68, 0.07, 0.68, 0.81, 0.03, 0.80),
    ("Lung Opacity", "0.60"): (106, 0.519, 0.63, 0.07, 0.61, 0.62, 0.03, 0.60),
    ("Lung Opacity", "0.80"): (125, 0.536, 0.84, 0.03, 0.81, 0.83, 0.03, 0.80),
    ("Lung Opacity", "1.00"): (269, 0.528, 0.96, 0.01, 0.97, 0.96, 0.01, 0.97),
    ("Lung Opacity", "all"): (500, 0.528, 0.86, 0.02, 0.86, 0.86, 0.01, 0.85),
    ("Support Devices", "0.60"): (50, 0.580, 0.72, 0.04, 0.64, 0.67, 0.05, 0.60),
    ("Support Devices", "0.80"): (105, 0.705, 0.93, 0.02, 0.85, 0.90, 0.02, 0.80),
    ("Support Devices", "1.00"): (345, 0.458, 0.98, 0.00, 0.97, 0.98, 0.00, 0.97),
    ("Support Devices", "all"): (500, 0.522, 0.93, 0.01, 0.90, 0.93, 0.01, 0.90),
}
FIELDS = ("S", "m", "f1 H", "f1 H sd", "f1 E", "accuracy H", "accuracy H sd", "accuracy E")


def load(data_dir: Path = DEFAULT_DATA) -> dict[str, io.TaskData]:
    """The 14 findings: panel = 5 ground-truth radiologists; evaluated = 3 humans + 8 models."""
    data_dir = Path(data_dir)
    if not data_dir.is_dir():
        raise FileNotFoundError(f"CheXpert test labels not found at {data_dir}")
    rad = data_dir / "radiologists"
    files = {n: rad / "groundtruth" / f"{n}_gt.csv" for n in PANEL}
    files.update({n: rad / "benchmark_radiologists" / f"{n}.csv" for n in HUMANS})
    dec = data_dir / "example_models" / "decisions" / "standard"
    files.update({n: dec / f"{n}_decisions.csv" for n in MODELS})
    return io.read_rater_files(files, panel=PANEL, systems=HUMANS + MODELS, item="Study")


def compute(data_dir: Path = DEFAULT_DATA, *, n_resamples: int = 1000, seed: int = 0,
            findings=None) -> pd.DataFrame:
    """The tidy stratified table of every finding (or the given ones), as in the paper."""
    data = load(data_dir)
    if findings is not None:
        data = {f: data[f] for f in findings}
    return stratify(data, humans=HUMANS, seed=seed, intervals=Intervals(n_resamples=n_resamples),
                    paper=Paper(p_d_one=0.97, human_round=2)).table


def compare(table: pd.DataFrame) -> pd.DataFrame:
    """Paper value, labelvar value (rounded as printed) and whether they agree, per cell."""
    rows = []
    for (finding, stratum), paper in PAPER_TABLE3.items():
        g = table[(table.task == finding) & (table.stratum == stratum)]
        h = g[g.role == "H"].set_index("metric")
        ours = (int(g.S.iloc[0]), round(float(g.m.iloc[0]), 3),
                h.loc["f1", "score"], h.loc["f1", "sd"], h.loc["f1", "expected"],
                h.loc["accuracy", "score"], h.loc["accuracy", "sd"], h.loc["accuracy", "expected"])
        for field, pv, ov in zip(FIELDS, paper, ours, strict=True):
            digits = 0 if field == "S" else (3 if field == "m" else 2)
            shown = round(float(ov), digits)
            rows.append(dict(finding=finding, agreement=stratum, field=field, paper=pv,
                             labelvar=shown, exact=float(ov),
                             match=bool(np.isclose(shown, pv, atol=1e-9))))
    return pd.DataFrame(rows)


def _md(df: pd.DataFrame) -> str:
    from labelvar._base._format import render_table

    return render_table(df, "markdown")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--out", type=Path, default=None, help="also write the tables here")
    p.add_argument("--n-resamples", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    try:
        table = compute(args.data, n_resamples=args.n_resamples, seed=args.seed)
    except FileNotFoundError as exc:
        print(f"chexpert_table3: {exc}", file=sys.stderr)
        return 2
    cmp_ = compare(table)
    text = [f"Table 3, H and E columns: {int(cmp_.match.sum())}/{len(cmp_)} printed values "
            "reproduced (S, m to the printed digit; H, sd, E to 2 decimals)\n"]
    wide = cmp_.pivot_table(index=["finding", "agreement"], columns="field", values="labelvar",
                            sort=False)[list(FIELDS)].reset_index()
    for field in FIELDS:
        fmt = "{:.0f}" if field == "S" else ("{:.3f}" if field == "m" else "{:.2f}")
        wide[field] = wide[field].map(fmt.format)
    text.append(_md(wide))
    if not cmp_.match.all():
        text.append("mismatches:\n" + _md(cmp_[~cmp_.match]))
    text.append("\nAll 14 findings: H (3 benchmark radiologists) and E\n")
    text.append(_md(paper_table(table, digits=2)))
    for model in MODELS:
        sub = table[table.task.isin(table.loc[table.system == model, "task"].unique())]
        text.append(f"\n### {model}\n")
        text.append(_md(paper_table(sub, model, digits=2)))
    out = "".join(text)
    print(out)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        for name, content in (("table3.md", out), ("stratified.csv", table.to_csv(index=False)),
                              ("table3_check.csv", cmp_.to_csv(index=False))):
            tmp = args.out / f".{name}.tmp"
            tmp.write_text(content, encoding="utf-8")
            tmp.replace(args.out / name)
    return 0 if cmp_.match.all() else 1


if __name__ == "__main__":
    raise SystemExit(main())
