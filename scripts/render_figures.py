"""Render every figure of labelvar.plots into docs/ from small, seeded inputs.

    .venv/bin/python scripts/render_figures.py [--out docs] [--only NAME ...] [--dpi 110]

Inputs: small simulations (labelvar.simulate, fixed seeds, fewer replicates than the
paper's sweeps), the study planner on the SNLI example's fitted prior (Beta(7.963, 2.008)
on [1/3, 1], so no pilot file is needed), and stratified tables of synthetic panels
(labelvar.io.synthetic_panel, the generator of examples/synthetic_panel.csv) with eight
systems and three humans. The same command always writes the same pictures.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SEED = 0


def _figure1():
    from labelvar import plots, simulate

    t = simulate(p_d=np.round(np.arange(0.5, 1.0001, 0.05), 2), m=[0.05, 0.1, 0.25, 0.5],
                 n_items=1000, labellers=["expert", "random"], replicates=2000,
                 seed=SEED).summary
    return plots.plot_figure1(t)


def _multiclass():
    from labelvar import plots, simulate

    t = simulate(p_d=[0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0], m=0.5, n_items=1000,
                 n_labels=[2, 3, 4, 5], labellers=["expert", "random"], replicates=2000,
                 seed=SEED).summary
    return plots.plot_figure1(t, color_by="n_labels")


def _panel_bias():
    from labelvar import plots, simulate

    t = simulate(mode="panel", theta_prior="beta:2,1", panel_size=[3, 5, 7, 9], m=0.5,
                 n_items=1000, labellers=["expert", "random"], replicates=500,
                 seed=SEED).summary
    return plots.plot_panel_bias(t)


def _table1():
    from labelvar import plots, simulate

    t = simulate(p_d=np.round(np.arange(0.25, 1.0001, 0.05), 2), m=0.5, n_items=[10, 100],
                 labellers=["expert"], thresholds=[0.5, 0.8], replicates=4000,
                 seed=SEED).summary
    return plots.plot_table1_tails(t)


def _snli_scenario():
    from labelvar.design import Scenario

    # configs/design/snli.yaml with the prior fitted to its pilot (README, "Planning a study")
    return Scenario("two_systems", theta="beta:7.963,2.008", n_labels=3,
                    accuracy_b=0.85, delta=0.05, error_correlation=0.3, test="paired",
                    min_agreement=0.8, alpha=0.05, power=0.8, cost_per_item=1.0,
                    cost_per_annotation=0.5)


def _design_power():
    from labelvar import plots
    from labelvar.design import plan_study

    res = plan_study(_snli_scenario(), panel_sizes=[3, 5, 7, 9], replicates=200, seed=SEED)
    return plots.plot_power_curves(res.curves, res.evaluated, res.plans,
                                   scenario=res.scenario)


def _design_sawtooth():
    from labelvar.design import Scenario, plan_study
    from labelvar.design import _power as P
    from labelvar.plots.design import plot_power_sawtooth

    sc = Scenario("separability", theta=0.7)
    row = plan_study(sc, panel_sizes=[1], replicates=0).plans.iloc[0]
    n = np.arange(200, 301)
    pw = P.exact_power(sc, P.cell_probabilities(sc, 1), n)
    return plot_power_sawtooth(n, pw, target=sc.power, n_first=int(row["n_items_first"]),
                               n_stable=int(row["n_items_stable"]), scenario=sc)


_CACHE: dict = {}


def _stratified(bins=None):
    """Four synthetic tasks, 8 systems, 3 humans; optional interval bins."""
    key = tuple(bins or ())
    if key in _CACHE:
        return _CACHE[key]
    from labelvar import stratify
    from labelvar.io import synthetic_panel

    tasks = {}
    for k in range(4):
        df = synthetic_panel(160, n_panel=6, seed=SEED + k).set_index("item")
        rng = np.random.default_rng(100 + k)
        preds = df[["strong", "weak", "coin", "human1", "human2"]].copy()
        preds["human3"] = df["gt6"]
        for j, flip in enumerate((0.03, 0.08, 0.15, 0.22, 0.3)):  # noisier copies of strong
            preds[f"sys{j + 1}"] = np.where(rng.random(len(df)) < flip, 1 - df["strong"],
                                            df["strong"])
        tasks[f"task {k + 1}"] = (df[[f"gt{i}" for i in range(1, 6)]], preds)
    res = stratify(tasks, humans=["human1", "human2", "human3"], bins=bins, n_boot=200,
                   seed=SEED)
    _CACHE[key] = res
    return res


def _stratified_scores():
    from labelvar import plots

    return plots.plot_stratified_scores(_stratified().table, "f1", ncols=2)


def _delta_by_bin():
    from labelvar import bin_tests, plots

    res = _stratified(bins=[0.5, 0.7, 0.9, 1.0])
    return plots.plot_delta_by_bin(res.table, "f1", tests=bin_tests(res.table, metric="f1"))


def _system_vs_system():
    from labelvar import paired_test, plots

    t = _stratified().table
    return plots.plot_system_vs_system(t, "strong", "sys3", "f1",
                                       tests=paired_test(t, "strong", "sys3", metric="f1"))


FIGURES = {"figure1": _figure1, "multiclass": _multiclass, "panel_bias": _panel_bias,
           "table1": _table1, "design_power": _design_power,
           "design_sawtooth": _design_sawtooth, "stratified_scores": _stratified_scores,
           "delta_by_bin": _delta_by_bin, "system_vs_system": _system_vs_system}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(ROOT / "docs"))
    p.add_argument("--only", nargs="*", choices=sorted(FIGURES), default=None)
    p.add_argument("--dpi", type=int, default=110)
    args = p.parse_args(argv)
    from labelvar import plots

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in args.only or FIGURES:
        t0 = time.perf_counter()
        fig = FIGURES[name]()
        (path,) = plots.save(fig, out / name, formats=("png",), dpi=args.dpi)
        print(f"{path} ({path.stat().st_size // 1024} kB, {time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
