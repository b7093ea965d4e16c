"""DialSummEval stratified by rater agreement, with automatic metrics turned into 1-5 judges.

    .venv/bin/python scripts/dialsummeval_stratify.py [--data DIR] [--metrics M,...] [--out DIR]

Panel: the 3 expert ratings (1-5) of each of the 1,400 summaries, per criterion
(coherence, consistency, fluency, relevance); agreement bins {1/3, 2/3, 1}. DialSummEval
has no LLM judge like the paper's G-Eval (Table 6), so each automatic metric in
``models_eval_new/<model>/metrics.csv`` is made a 1-5 "judge" by rank-matching: the
summaries are sorted by the metric and given the labels 1..5 in the proportions of the
panel's majority labels for that criterion. That calibration uses the human label
marginals (an optimistic, oracle choice): a metric that carries no information about
the ratings still reaches the accuracy of a prior-matched random labeller. Also shown:
H' (a panel rating drawn at random; equals E) and H'-loo (the drawn rating against the
other two; what an independent expert would score).

Metric rows are joined to the ratings on the normalised dialogue text + model letter
(the row order differs). Data are read from ``<repo>/../shared/data/dialsummeval``.
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
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "dialsummeval"
DEFAULT_METRICS = ("rouge-l", "bertscore_f1", "bartscore_s_h", "questeval")


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def metric_scores(data_dir: Path, metrics) -> pd.DataFrame:
    """Automatic metric scores indexed like the ratings (``"<id>|<model>"``)."""
    import json

    rows = [json.loads(line) for line in open(data_dir / "human_judgment.jsonl")]
    dial_id = {_norm(r["dialogue"]): r["id"] for r in rows}
    dials = [line.rstrip("\n") for line in open(data_dir / "dials.txt")]
    frames = []
    for model_dir in sorted((data_dir / "models_eval_new").iterdir()):
        m = pd.read_csv(model_dir / "metrics.csv")
        missing = [c for c in metrics if c not in m.columns]
        if missing:
            raise ValueError(f"metrics: {missing[0]!r} not in {model_dir / 'metrics.csv'}")
        if len(m) != len(dials):
            raise ValueError(f"{model_dir}: {len(m)} metric rows for {len(dials)} dialogues")
        ids = [f"{dial_id[_norm(d)]}|{model_dir.name}" for d in dials]
        frames.append(m[list(metrics)].set_axis(ids))
    return pd.concat(frames)


def rank_match(scores: pd.Series, reference_labels: np.ndarray) -> pd.Series:
    """Labels for ``scores`` with the same label counts as ``reference_labels`` (by rank)."""
    ordered = np.sort(np.asarray(reference_labels))
    ranks = np.argsort(np.argsort(scores.to_numpy(), kind="stable"), kind="stable")
    return pd.Series(ordered[ranks], index=scores.index)


def build(data_dir: Path = DEFAULT_DATA, metrics=DEFAULT_METRICS) -> dict[str, io.TaskData]:
    """The four criteria with one rank-matched 1-5 judge per automatic metric."""
    data = io.read_jsonl(data_dir / "human_judgment.jsonl", panel="annotations",
                         item="id,model_id")
    scores = metric_scores(data_dir, metrics).reindex(next(iter(data.values())).panel.index)
    if scores.isna().any().any():
        raise ValueError("some summaries have no metric row after the join")
    out = {}
    for crit, td in data.items():
        votes = td.panel.to_numpy(dtype=float)
        counts = np.stack([(votes == k).sum(axis=1) for k in range(1, 6)], axis=1)
        majority = counts.argmax(axis=1) + 1  # reference marginals only (ties: lowest)
        preds = pd.DataFrame({m: rank_match(scores[m], majority) for m in metrics},
                             index=td.panel.index)
        out[crit] = io.TaskData(td.panel, preds)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--metrics", default=",".join(DEFAULT_METRICS))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    if not args.data.is_dir():
        print(f"dialsummeval_stratify: data not found at {args.data}", file=sys.stderr)
        return 2
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    data = build(args.data, metrics)
    table = stratify(data, metrics=["accuracy"], seed=args.seed,
                     intervals=Intervals(n_resamples=0),
                     paper=Paper(replicates=5, leave_one_out=True)).table
    from labelvar._base._files import write_results
    from labelvar._base._format import markdown_table

    for m in metrics:
        print(f"### {m} (rank-matched to the majority-label marginals)")
        print(markdown_table(paper_table(table, m, digits=2)))
        print()
    if args.out:
        write_results(table, args.out / "stratified.csv")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
