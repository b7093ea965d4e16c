"""The paper's LLM tables as far as public data goes: Table 5's human side, Table 6.

    python scripts/llm_tables.py [--mnli DIR] [--geval DIR --summeval FILE] [--out DIR]

Table 5 (MNLI matched / mismatched, 5 annotators, 3 labels): per agreement bin S, E(A),
H' (one of the panel's votes drawn at random, 5 draws, mean ± sd) and Δ(E−H'), from
``../shared/data/mnli/``. The paper leaves out the items without a 3-vote majority
(185 matched, 168 mismatched: a 2-2-1 split), which is ``tie_rule="drop"``; S then
matches the paper in all six bins (checked, and said, below the table). The four
LLMs' per-item answers of that table were never published: there is no model side.

Table 6 (G-Eval's GPT-4 ratings of SummEval summaries against the 3 experts, per
criterion): needs G-Eval's result files and SummEval's expert annotations, which are
not redistributed here:

    git clone https://github.com/nlpyang/geval   # results/gpt4_{coh,con,flu,rel}_detailed.json
    wget https://storage.googleapis.com/sfr-summarization-repo-research/model_annotations.aligned.jsonl

then ``--geval geval/results --summeval model_annotations.aligned.jsonl``. Each criterion
is one ``labelvar stratify`` run (printed as the command line it equals): the panel is
``expert_annotations`` (key ``id`` + ``model_id``), G-Eval's 20 sampled ``all_responses``
per summary (key ``doc_id`` + ``system_id``, text such as ``" 4"`` read as its number)
are one sampled system, scored by its modal answer (ties: the first sampled among the
tied, ``Counter.most_common``, the paper's rule); the experts' majority of a 3-way split
(p_d = 1/3) is the first expert's rating among the tied (``--tie-rule first_vote``, the
paper's ``Counter.most_common``). Without the files the Table 6 part prints these
instructions and is skipped.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from labelvar import io
from labelvar.evaluation import Intervals, Paper, Truth
from labelvar.evaluation._stratified import TIE_RULES, stratify

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MNLI = ROOT.parent / "shared" / "data" / "mnli"
#: the paper's Table 5 S per bin (p_d 0.6, 0.8, 1.0), tie_rule="drop"
PAPER_S = {"matched": (1599, 2457, 5759), "mismatched": (1446, 2402, 5984)}
#: G-Eval's result file of each SummEval criterion
GEVAL_FILES = {"coherence": "gpt4_coh_detailed.json", "consistency": "gpt4_con_detailed.json",
               "fluency": "gpt4_flu_detailed.json", "relevance": "gpt4_rel_detailed.json"}
#: the tie rule the paper's code uses for the experts' majority (Counter.most_common)
FIRST_VOTE = "first_vote"
DOWNLOAD = """Table 6 skipped: give G-Eval's results and SummEval's expert annotations:
  git clone https://github.com/nlpyang/geval      # results/gpt4_{coh,con,flu,rel}_detailed.json
  wget https://storage.googleapis.com/sfr-summarization-repo-research/model_annotations.aligned.jsonl
  python scripts/llm_tables.py --geval geval/results --summeval model_annotations.aligned.jsonl"""


def table5(mnli_dir: Path = DEFAULT_MNLI, seed: int = 0) -> pd.DataFrame:
    """Table 5's human side: dataset, p_d, S, E(A), H' (mean, sd over 5 draws), Δ(E−H').

    ``left out (tied)``: the dataset's items without a 3-vote majority (the paper's 185
    and 168), not in any bin.
    """
    import warnings

    from labelvar.evaluation._stratified import ExcludedItemsWarning

    rows = []
    for name in ("matched", "mismatched"):
        path = mnli_dir / f"mnli_dev_{name}_labels.jsonl"
        data = io.read_jsonl(path, panel="annotator_labels", item="row", task=f"MNLI {name}")
        with warnings.catch_warnings():  # the tied items left out: a column of the table
            warnings.simplefilter("ignore", ExcludedItemsWarning)
            r = stratify(data, metrics=["accuracy"], seed=seed, truth=Truth(tie_rule="drop"),
                         intervals=Intervals(n_resamples=0), paper=Paper(replicates=5))
        t = r.table
        left_out = r.excluded[f"MNLI {name}"]["tied"]
        h = t[(t["role"] == "H'") & (t["stratum"] != "all")]
        for x in h.itertuples():
            rows.append({"dataset": f"MNLI {name}", "p_d": x.stratum, "S": int(x.S),
                         "E(A)": x.expected, "H'": x.score, "H' sd": x.sd,
                         "Δ(E−H')": x.delta_expected, "left out (tied)": left_out})
    return pd.DataFrame(rows)


def table5_check(table: pd.DataFrame) -> list[str]:
    """Differences between Table 5's S and the paper's (an empty list: all six bins match)."""
    out = []
    for name, want in PAPER_S.items():
        got = tuple(table.loc[table["dataset"] == f"MNLI {name}", "S"])
        if got != want:
            out.append(f"MNLI {name}: S {got}, the paper {want}")
    return out


def geval_command(criterion: str, geval_dir, summeval, tie_rule: str) -> list[str]:
    """The ``labelvar stratify`` arguments of one criterion of Table 6."""
    return ["stratify", str(summeval), "--panel", "expert_annotations", "--item", "id,model_id",
            "--tasks", criterion, "--predictions",
            f"G-Eval={Path(geval_dir) / GEVAL_FILES[criterion]}",
            "--pred-item", "doc_id,system_id", "--pred-label", "all_responses",
            "--pred-parse", "number", "--tie-rule", tie_rule, "--metrics", "accuracy",
            "--n-resamples", "0", "--no-agreement"]


def table6(geval_dir, summeval, tie_rule: str = FIRST_VOTE,
           criteria=tuple(GEVAL_FILES)) -> pd.DataFrame:
    """Table 6: criterion, p_d, S, E(A), score (the modal answer's accuracy), ΔEM.

    Also G-Eval's ``self_agreement`` and ``sample_accuracy`` per bin (its samples taken
    as one more panel), the same computation as :func:`geval_command`'s run.
    """
    import warnings

    from labelvar.evaluation._stratified import DataNoteWarning

    rows = []
    for crit in criteria:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DataNoteWarning)  # unparsed answers: counted below
            data = io.load_tasks(
                summeval, tasks=crit,
                columns=io.Columns(panel="expert_annotations", item="id,model_id"),
                predictions=io.Predictions(
                    files={"G-Eval": [Path(geval_dir) / GEVAL_FILES[crit]]},
                    item="doc_id,system_id", label="all_responses", parse="number"))
            t = stratify(data, metrics=["accuracy"], truth=Truth(tie_rule=tie_rule),
                         intervals=Intervals(n_resamples=0)).table
        t = t[t["system"] == "G-Eval"]
        for stratum, g in t.groupby("stratum", sort=False):
            by = g.set_index("metric")
            rows.append({"criterion": crit, "p_d": stratum,
                         "S": int(by.loc["accuracy", "S"]),
                         "E(A)": by.loc["accuracy", "expected"],
                         "score": by.loc["accuracy", "score"],
                         "ΔEM": by.loc["accuracy", "delta_expected"],
                         "self_agreement": by.loc["self_agreement", "score"],
                         "sample_accuracy": by.loc["sample_accuracy", "score"]})
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    from labelvar._base._format import markdown_table

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mnli", type=Path, default=DEFAULT_MNLI,
                   help="folder with mnli_dev_{matched,mismatched}_labels.jsonl")
    p.add_argument("--geval", type=Path, default=None,
                   help="G-Eval's results folder (gpt4_{coh,con,flu,rel}_detailed.json)")
    p.add_argument("--summeval", type=Path, default=None,
                   help="SummEval's model_annotations.aligned.jsonl")
    p.add_argument("--tie-rule", default=None,
                   help="experts' majority of a 3-way split (default: first_vote, the paper's)")
    p.add_argument("--out", type=Path, default=None, help="write table5.csv, table6.csv here")
    args = p.parse_args(argv)
    tables = {}
    if (args.mnli / "mnli_dev_matched_labels.jsonl").is_file():
        t5 = table5(args.mnli)
        tables["table5"] = t5
        print("### Table 5, human side (MNLI dev; tie_rule drop: the items without a 3-vote "
              "majority left out)")
        print(markdown_table(t5.round(3)))
        diff = table5_check(t5)
        print("S matches the paper in all 6 bins" if not diff else
              "S differs from the paper: " + "; ".join(diff))
    else:
        print(f"Table 5 skipped: no MNLI labels at {args.mnli} (../shared/data/README.md)")
    print()
    if args.geval is None or args.summeval is None:
        print(DOWNLOAD)
    else:
        for f in [args.summeval] + [args.geval / n for n in GEVAL_FILES.values()]:
            if not f.is_file():
                print(f"llm_tables: no such file: {f}\n{DOWNLOAD}", file=sys.stderr)
                return 2
        rule = args.tie_rule or FIRST_VOTE
        if rule not in TIE_RULES:
            print(f"llm_tables: tie rule {rule!r} is not in this labelvar ({', '.join(TIE_RULES)})"
                  "; --tie-rule drop leaves the p_d = 1/3 bin out instead", file=sys.stderr)
            return 2
        t6 = table6(args.geval, args.summeval, rule)
        tables["table6"] = t6
        print(f"### Table 6 (G-Eval's modal answer of 20 samples; experts' ties: {rule})")
        print(markdown_table(t6.round(3)))
        print("\nthe same, one command per criterion:")
        for crit in GEVAL_FILES:
            print("  labelvar " + " ".join(geval_command(crit, args.geval, args.summeval, rule)))
    if args.out:
        from labelvar._base._files import write_results

        args.out.mkdir(parents=True, exist_ok=True)
        for name, t in tables.items():
            write_results(t, args.out / f"{name}.csv")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
