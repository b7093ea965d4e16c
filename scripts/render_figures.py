"""Render every figure of labelvar.plots, the paper's Figures 2-4, 7 and 8 on real data.

    .venv/bin/python scripts/render_figures.py [--out docs] [--only NAME ...] [--dpi 110]

Inputs: small simulations (labelvar.simulate, fixed seeds, fewer replicates than the
paper's sweeps), the study planner on the SNLI example's fitted prior (Beta(7.963, 2.008)
on [1/3, 1], so no pilot file is needed), and the real data of ``../shared/data``
(``LABELVAR_SHARED_DATA`` points elsewhere; never copied into the repository):
CheXpert (Figures 2, 3, 4: 5 ground-truth radiologists, 3 benchmark radiologists and 8
leaderboard models on the 5 findings they predict), ChaosNLI (Figure 7: 100 votes per
item, RoBERTa and BERT predictions; the item-model check) and DialSummEval (Figure 8:
four automatic metrics made 1-5 judges). The same command always writes the same
pictures. The docs build draws them all (``docs/_figures.py``); a figure whose data is
absent is drawn as a placeholder saying which folder is missing (:func:`draw`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SEED = 0
#: resolution of the figures written here and by the docs build
DPI = 110
#: the shared real data (``../shared/data`` beside the checkout, as tests/conftest.py)
DATA = Path(os.environ.get("LABELVAR_SHARED_DATA") or ROOT.parent / "shared" / "data")
sys.path.insert(0, str(ROOT / "scripts"))  # the data scripts' loaders (one definition)


def _figure1():
    from labelvar import Coin, plots, simulate

    t = simulate(Coin(p_d=np.round(np.arange(0.5, 1.0001, 0.05), 2), m=[0.05, 0.1, 0.25, 0.5]),
                 ["expert", "random"], n_items=1000, replicates=2000, seed=SEED).summary
    return plots.plot_figure1(t)


def _multiclass():
    import pandas as pd

    from labelvar import Coin, plots, simulate

    # an expert follows the panel's modal label, whose agreement p_d is at least 1/L:
    # each L is simulated from p_d = 1/L up (below it no label is modal)
    parts = []
    for n_labels in (2, 3, 4, 5):
        grid = [round(1 / n_labels, 4)] + [v for v in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
                                           if v > 1 / n_labels + 1e-9]
        parts.append(simulate(Coin(p_d=grid, m=0.5, n_labels=n_labels), ["expert", "random"],
                              n_items=1000, replicates=2000, seed=SEED).summary)
    return plots.plot_figure1(pd.concat(parts, ignore_index=True), color_by="n_labels")


def _panel_bias():
    from labelvar import Panel, plots, simulate

    t = simulate(Panel(theta_prior="beta:2,1", panel_size=[3, 5, 7, 9], m=0.5),
                 ["expert", "random"], n_items=1000, replicates=500, seed=SEED).summary
    return plots.plot_panel_bias(t)


def _table1():
    from labelvar import Coin, plots, simulate

    t = simulate(Coin(p_d=np.round(np.arange(0.25, 1.0001, 0.05), 2), m=0.5), ["expert"],
                 n_items=[10, 100], thresholds=[0.5, 0.8], replicates=4000, seed=SEED).summary
    return plots.plot_table1_tails(t)


def _snli_scenario():
    from labelvar.design._scenario import Scenario

    # configs/design/snli.yaml with the prior fitted to its pilot (README, "Planning a study")
    return Scenario("two_systems", theta="beta:7.963,2.008", n_labels=3,
                    accuracy_b=0.85, delta=0.05, error_correlation=0.3, test="paired",
                    min_agreement=0.8, alpha=0.05, power=0.8, cost_per_item=1.0,
                    cost_per_annotation=0.5)


def _design_power():
    from labelvar import plan_study, plots

    res = plan_study(_snli_scenario(), panel_sizes=[3, 5, 7, 9], replicates=200, seed=SEED)
    return plots.plot_power_curves(res.curves, res.evaluated, res.table,
                                   scenario=res.scenario)


def _design_sawtooth():
    import pandas as pd

    from labelvar import plan_study
    from labelvar.design import _power as P
    from labelvar.design._scenario import Scenario
    from labelvar.plots._design import plot_power_sawtooth

    sc = Scenario("separability", theta=0.7)
    row = plan_study(sc, panel_sizes=[1], replicates=0).table.iloc[0]
    n = np.arange(200, 301)
    curve = pd.DataFrame({"n_items": n, "power_analytic": P.exact_power(
        sc, P.cell_probabilities(sc, 1), n)})
    return plot_power_sawtooth(curve, target=sc.power, n_first=int(row["n_items_first"]),
                               n_stable=int(row["n_items_stable"]), scenario=sc)


_CACHE: dict = {}


def _cached(key, make):
    if key not in _CACHE:
        _CACHE[key] = make()
    return _CACHE[key]


#: the 5 CheXpert findings the leaderboard models predict, and the pair of Figure 4:
#: yww211 scores below ngango2 where the radiologists split (p_d = 0.6: median F1
#: difference over the findings -0.040) and above it where they agree (1.0: +0.036),
#: while over all items the two differ by 0.005 (the 8 models' F1 per bin and finding
#: searched for the pair whose median difference changes sign most)
CHEXPERT_FINDINGS = ("Atelectasis", "Cardiomegaly", "Consolidation", "Edema",
                     "Pleural Effusion")
PAIR = ("yww211", "ngango2")


def _chexpert():
    """CheXpert's stratified table as the paper makes it (scripts/chexpert_table3.py)."""
    import chexpert_table3

    return _cached("chexpert", lambda: chexpert_table3.compute(
        DATA / "chexpert_test", n_resamples=200, seed=SEED, findings=CHEXPERT_FINDINGS))


def _figure2_chexpert():
    from labelvar import plots

    t = _chexpert()
    keep = t[(t["role"] != "system") | t["system"].isin(PAIR)]
    return plots.plot_stratified_scores(
        keep, "f1", ncols=3, title="CheXpert: $F_1$ per agreement bin of the 5 ground-truth "
        "radiologists (Figure 2)")


def _figure3_chexpert():
    from labelvar import bin_tests, plots

    t = _chexpert()
    return plots.plot_delta_by_bin(t, "f1", tests=bin_tests(t, metric="f1"),
                                   title="CheXpert: Δ = H − model per agreement bin, "
                                   "$F_1$ (Figure 3)")


def _figure4_chexpert():
    from labelvar import paired_test, plots

    t = _chexpert()
    return plots.plot_system_vs_system(t, *PAIR, "f1", tests=paired_test(t, *PAIR, metric="f1"),
                                       title="CheXpert: two models, paired across the 5 "
                                       "findings (Figure 4)")


def _chaosnli():
    """ChaosNLI's SNLI and MNLI items, 100 votes each, with the 6 model runs."""
    def make():
        import warnings

        from labelvar import io
        from labelvar.evaluation import Intervals
        from labelvar.evaluation._stratified import stratify

        P = DATA / "chaosnli"
        tasks = {}
        for name, file, models in (("SNLI", "chaosNLI_snli", ("roberta-base", "bert-base-uncased")),
                                   ("MNLI", "chaosNLI_mnli_m", ("roberta-base",))):
            preds = {f"{m} (seed {k})": [P / "predictions" / f"{name}_{split}_{m}_{k}.json"
                                         for split in ("dev", "test")]
                     for m in models for k in (0, 1)}
            (tasks[f"ChaosNLI {name}"],) = io.load_tasks(
                P / "chaosNLI_v1.0" / f"{file}.jsonl", labels=["e", "n", "c"],
                columns=io.Columns(panel="label_count", counts=True, item="uid"),
                predictions=io.Predictions(files=preds, item="uid", label="pred",
                                           classes=["e", "c", "n"])).values()
        with warnings.catch_warnings():  # 30 MNLI items have no prediction: left out, noted
            warnings.simplefilter("ignore")
            return stratify(tasks, metrics=["accuracy"], bins=[0.3, 0.5, 0.7, 0.9, 1.0],
                            missing="drop", seed=SEED, intervals=Intervals(n_resamples=0)).table
    return _cached("chaosnli", make)


def _figure7_chaosnli():
    from labelvar import bin_tests, plots

    t = _chaosnli()
    return plots.plot_delta_by_bin(
        t, "accuracy", value="score", tests=bin_tests(t, metric="accuracy", value="score"),
        title="ChaosNLI: model accuracy per agreement bin of 100 annotators (Figure 7)")


def _figure8_dialsummeval():
    import warnings

    import dialsummeval_stratify

    from labelvar import plots
    from labelvar.evaluation import Intervals
    from labelvar.evaluation._inference import expected_gap_test
    from labelvar.evaluation._stratified import stratify

    data = dialsummeval_stratify.build(DATA / "dialsummeval")
    with warnings.catch_warnings():  # small-bin notes
        warnings.simplefilter("ignore")
        t = stratify(data, metrics=["accuracy"], seed=SEED,
                     intervals=Intervals(n_resamples=0)).table
    return plots.plot_gap_to_expected(
        t, "accuracy", tests=expected_gap_test(t, metric="accuracy"),
        title="DialSummEval: E − metric judge per agreement bin of 3 raters (Figure 8)")


def _item_models():
    import validate_item_models

    return validate_item_models.figure(validate_item_models.validate_all(
        DATA / "chaosnli" / "chaosNLI_v1.0", (3, 5, 10), SEED))


FIGURES = {"figure1": _figure1, "multiclass": _multiclass, "panel_bias": _panel_bias,
           "table1": _table1, "design_power": _design_power,
           "design_sawtooth": _design_sawtooth, "figure2_chexpert": _figure2_chexpert,
           "figure3_chexpert": _figure3_chexpert, "figure4_chexpert": _figure4_chexpert,
           "figure7_chaosnli": _figure7_chaosnli, "figure8_dialsummeval": _figure8_dialsummeval,
           "item_models": _item_models}
#: the folders of the shared data each real-data figure reads
NEEDS = {"figure2_chexpert": ("chexpert_test",), "figure3_chexpert": ("chexpert_test",),
         "figure4_chexpert": ("chexpert_test",),
         "figure7_chaosnli": ("chaosnli/chaosNLI_v1.0", "chaosnli/predictions"),
         "figure8_dialsummeval": ("dialsummeval",), "item_models": ("chaosnli/chaosNLI_v1.0",)}


def missing_data(name: str) -> list[Path]:
    """The shared-data folders figure ``name`` needs that are not there."""
    return [DATA / d for d in NEEDS.get(name, ()) if not (DATA / d).is_dir()]


def placeholder(name: str, missing):
    """A figure saying that ``name`` could not be drawn and which data is missing."""
    from labelvar.plots import new_figure

    fig, axes = new_figure(1, 1, width=6.0, height=1.6)
    ax = axes[0, 0]
    ax.axis("off")
    ax.text(0.5, 0.5, f"{name}: not drawn, its data is missing:\n"
            + "\n".join(str(m) for m in missing)
            + "\n(see ../shared/data/README.md; LABELVAR_SHARED_DATA points elsewhere)",
            ha="center", va="center", fontsize=9, transform=ax.transAxes)
    return fig


def draw(name: str):
    """``(figure, missing)``: figure ``name``, or its placeholder and the missing folders."""
    missing = missing_data(name)
    return (placeholder(name, missing), missing) if missing else (FIGURES[name](), [])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(ROOT / "docs"))
    p.add_argument("--only", nargs="*", choices=sorted(FIGURES), default=None)
    p.add_argument("--dpi", type=int, default=DPI)
    args = p.parse_args(argv)
    from labelvar import plots

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    status = 0
    for name in args.only or FIGURES:
        t0 = time.perf_counter()
        fig, missing = draw(name)
        if missing:
            print(f"{name}: not drawn, data missing: {', '.join(map(str, missing))}",
                  file=sys.stderr)
            status = 1
            continue
        (path,) = plots.save(fig, out / name, formats=("png",), dpi=args.dpi)
        print(f"{path} ({path.stat().st_size // 1024} kB, {time.perf_counter() - t0:.1f} s)")
    return status


if __name__ == "__main__":
    sys.exit(main())
