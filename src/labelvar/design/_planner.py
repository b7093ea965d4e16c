"""The planner: :func:`plan_study` searches panel sizes K and item counts N; :class:`DesignResult`."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from labelvar import _seeding
from labelvar import _validate as V
from labelvar._format import markdown_table
from labelvar.design._power import (
    Cell,
    PowerScan,
    cell_probabilities,
    f1_and_gradient,
    f1_difference_variance,
    p_beats,
    separability_critical,
    wilson_half_width,
)
from labelvar.design._scenario import Scenario
from labelvar.design._simulated import simulated_power


@dataclasses.dataclass
class DesignResult:
    """Output of :func:`plan_study`.

    Attributes
    ----------
    scenario : Scenario
    plans : pandas.DataFrame
        One row per panel size K: the smallest N meeting the target (see :func:`plan_study`).
    bins : pandas.DataFrame
        Expected items per observed-agreement bin (top votes / K) at each plan.
    curves : pandas.DataFrame
        Analytic power for a grid of N per K (for the power-curve figure).
    evaluated : pandas.DataFrame
        Every (K, N) simulated during the search, with its power and Monte Carlo SE.
    message : str
        One-line conclusion (the recommended plan, or that none meets the target).
    seed : int or None
        The int seed of the simulation (pass it again to repeat the plan).
    """

    scenario: Scenario
    plans: pd.DataFrame
    bins: pd.DataFrame
    curves: pd.DataFrame
    evaluated: pd.DataFrame
    message: str
    seed: int | None = None

    @property
    def found(self) -> bool:
        """Whether some plan meets the target."""
        return bool(self.plans["meets_target"].any())

    @property
    def recommended(self) -> pd.Series | None:
        """The recommended plan (cheapest meeting the target), or None."""
        rows = self.plans[self.plans["recommended"]]
        return None if rows.empty else rows.iloc[0]

    def to_markdown(self) -> str:
        """Plans as a markdown table plus the conclusion line."""
        cols = ["panel_size", "n_items", "annotations", "cost", "power_analytic",
                "power_simulated", "power_se", "meets_target", "recommended",
                "p_gt_error", "items_per_bin"]
        return markdown_table(self.plans[[c for c in cols if c in self.plans]]) + "\n\n" + self.message

    def write(self, out_dir: str | Path, figure: bool = True) -> list[Path]:
        """Write the report directory (:func:`labelvar.report.write_design_report`)."""
        from labelvar.report import write_design_report

        return write_design_report(self, out_dir, figure=figure)


def plan_study(scenario: Scenario, panel_sizes: Sequence[int] | None = None, *,
               n_max: int = 10_000, n_step: int | None = None, replicates: int = 1000,
               seed=0, max_steps: int = 30) -> DesignResult:
    """Find, for every panel size K, the smallest number of items N that meets the target.

    For each K the exact power P(N) (normal approximation for the unpaired test) is
    computed for every N = 1..n_max and N_analytic is the first N with P(N) >= power.
    With ``replicates > 0`` the study is then simulated by the engine
    (:func:`labelvar.simulate`, see :mod:`labelvar.design._simulated`) at N_analytic and
    at neighbours on the grid N_analytic + j * n_step: downwards while the simulated
    power still meets the target, upwards until it does. The reported N is the
    smallest grid point whose *simulated* power meets the target, directly above
    one that does not (``n_items_below`` / ``power_simulated_below``). The
    recommended plan is the cheapest K meeting the target (in simulation when
    ``replicates > 0``).

    Parameters
    ----------
    scenario : Scenario
        The study.
    panel_sizes : sequence of int or None
        Panel sizes K to consider; default odd K (no ties for L = 2): 1, 3, 5, 7, 9, or
        3, 5, 7, 9 when ``min_agreement > 0`` (one vote gives no observed agreement).
    n_max : int
        Largest number of items searched.
    n_step : int or None
        Search step of the simulated refinement. None = the smallest step over which the
        exact power near N_analytic changes by 2 Monte Carlo SEs, so the simulation can
        resolve one step (and MC noise cannot pick a plan whose power is clearly short).
    replicates : int
        Simulated studies per evaluated (K, N); 0 = analytic only.
    seed : int, numpy.random.Generator or None
        Seed of the simulation (:func:`labelvar._seeding.as_seed`; the int used is
        ``DesignResult.seed``). Each (K, N) has its own stream derived from it, so a
        point's simulated power does not depend on the search order.
    max_steps : int
        Most grid steps simulated per K.

    Returns
    -------
    DesignResult
        Tables ``plans``, ``bins``, ``curves``, ``evaluated`` and a one-line ``message``.

    Notes
    -----
    Columns of ``plans`` (one row per K): ``n_items`` (per system for the unpaired test,
    whose ``annotations`` and ``cost`` count both item sets), ``annotations`` = N K,
    ``cost`` = N cost_per_item + N K cost_per_annotation, ``power_analytic`` (exact,
    normal approximation for the unpaired test), ``power_simulated`` +/- ``power_se``,
    ``meets_target`` (in simulation when ``replicates > 0``), ``recommended``,
    ``n_items_analytic`` (first N with exact power >= target), ``n_step``,
    ``n_items_below`` / ``power_simulated_below`` (the grid point one step smaller),
    ``expected_scored_items``, ``p_gt_error`` (P(GT != modal label) over kept items),
    ``p_gt_error_scored`` (same over scored items), ``p_tie`` (P(the plurality is tied)),
    ``accuracy_a_vs_gt`` (the system's or expert's accuracy against the GT on scored
    items), ``items_per_bin`` (expected items per observed-agreement bin t/K; full table
    in ``bins``) and per question: separability ``baseline_accuracy``,
    ``threshold_accuracy`` and ``p_baseline_at_least_threshold`` (r_c / n and the
    baseline's tail at the expected number n of scored items), ``p_beats_baseline``
    (P(system's correct count > random labeller's), exact; NaN for the prior baseline)
    and ``p_beats_baseline_simulated``; two_systems ``accuracy_b_vs_gt``,
    ``delta_observed`` (attenuated by GT errors), ``p_discordant``, ``test``; precision
    ``expected_half_width`` (Wilson half-width at the expected counts).

    Examples
    --------
    How many items must an expert (θ = 0.7 for every item, one annotator as
    ground truth) label to be told apart from a coin flip at α = 0.05 with power 0.8?

    >>> res = plan_study(Scenario("separability", theta=0.7), panel_sizes=[1, 3],
    ...                  replicates=0)
    >>> res.plans[["panel_size", "n_items", "power_analytic"]].round(3)
       panel_size  n_items  power_analytic
    0           1      245           0.804
    1           3      119           0.803
    """
    sc = scenario
    if not isinstance(sc, Scenario):
        raise ValueError(f"scenario must be a Scenario, got {type(sc).__name__}")
    if panel_sizes is None:
        panel_sizes = (1, 3, 5, 7, 9) if sc.min_agreement == 0 else (3, 5, 7, 9)
    ks = V.integer("panel_sizes", np.atleast_1d(panel_sizes), lo=1)
    if ks.size == 0:
        raise ValueError("panel_sizes must list at least one panel size")
    if sc.min_agreement > 0 and (ks < 2).any():
        raise ValueError(f"panel_sizes must be >= 2 when min_agreement > 0 (one vote per item "
                         f"gives no observed agreement to stratify by), got {ks.tolist()}")
    n_max = int(V.integer("n_max", n_max, lo=2))
    replicates = int(V.integer("replicates", replicates, lo=0))
    max_steps = int(V.integer("max_steps", max_steps, lo=1))
    if n_step is not None:
        n_step = int(V.integer("n_step", n_step, lo=1))
    seed = _seeding.as_seed(seed)
    rows, bins, curves, evaluated = [], [], [], []
    for K in (int(k) for k in ks):
        cell = cell_probabilities(sc, K)
        pw = PowerScan(sc, cell, n_max)
        n_a = pw.first_crossing()
        curve_max = min(n_max, max(20, int(2 * n_a) if n_a else n_max))
        idx = np.unique(np.round(np.geomspace(1, curve_max, 200)).astype(int))
        sets = 2 if (sc.question == "two_systems" and sc.test == "unpaired") else 1
        curves.append(pd.DataFrame({
            "panel_size": K, "n_items": idx, "power_analytic": pw[idx - 1],
            "cost": sets * idx * (sc.cost_per_item + K * sc.cost_per_annotation)}))
        row = {"panel_size": K, "n_items_analytic": n_a}
        if n_a is None:
            N = pw.argmax_n()
            row.update(n_items=N, meets_analytic=False)
        else:
            N = n_a
            row.update(meets_analytic=True)
        step = n_step or _auto_step(pw, n_a, replicates, sc.power)
        search = _SimSearch(sc, K, cell, pw, replicates, seed, evaluated)
        below = None
        if replicates > 0 and n_a is not None:
            N, below = search.run(n_a, step, n_max, max_steps)
            row["meets_target"] = search.meets(N)
        elif replicates > 0:  # no analytic plan: simulate the best point so the user sees it
            row["meets_target"] = search.meets(N)
        else:
            row["meets_target"] = n_a is not None
        sims = search.sims
        s = sims.get(N, {})
        exp_bins = N * cell.p_top
        t = np.arange(K + 1)
        bins.append(pd.DataFrame({"panel_size": K, "n_items": N, "agreement": t[1:] / K,
                                  "probability": cell.p_top[1:],
                                  "expected_items": exp_bins[1:],
                                  "scored": (t[1:] / K >= sc.min_agreement - 1e-12)}))
        row.update(
            n_items=N, annotations=N * K,
            cost=N * sc.cost_per_item + N * K * sc.cost_per_annotation,
            power_analytic=float(pw[N - 1]),
            power_simulated=s.get("power_simulated", np.nan),
            power_se=s.get("power_se", np.nan),
            n_step=step if replicates > 0 else np.nan,
            n_items_below=below if below is not None else np.nan,
            power_simulated_below=sims[below]["power_simulated"] if below in sims else np.nan,
            expected_scored_items=N * cell.p_eval,
            p_gt_error=cell.p_gt_error, p_gt_error_scored=cell.p_gt_error_scored,
            p_tie=cell.p_tie,
            accuracy_a_vs_gt=cell.p_a,
            items_per_bin=", ".join(f"{tt}/{K}:{e:.4g}" for tt, e in zip(t[1:], exp_bins[1:])
                                    if e >= 0.05 * N / (K + 1) or tt == K),
        )
        row.update(_question_columns(sc, cell, N, s))
        rows.append(row)
    plans = pd.DataFrame(rows)
    if sc.question == "two_systems" and sc.test == "unpaired":
        plans["n_items_total"] = 2 * plans["n_items"]
        plans["annotations"] *= 2
        plans["cost"] *= 2
    plans["recommended"] = False
    ok = plans[plans["meets_target"]]
    if len(ok):
        best = ok.sort_values(["cost", "annotations", "n_items"]).index[0]
        plans.loc[best, "recommended"] = True
        r = plans.loc[best]
        src = "in simulation" if replicates > 0 else "analytically"
        msg = (f"recommended: K = {int(r['panel_size'])} annotators per item, N = "
               f"{int(r['n_items'])} items, {int(r['annotations'])} annotations, cost "
               f"{r['cost']:.6g}; power {_power_text(r)} meets the target {sc.power:g} {src}")
    else:
        b = plans.loc[plans["power_analytic"].idxmax()]
        sim = (f", simulated {b['power_simulated']:.3f} +/- {b['power_se']:.3f}"
               if b["power_simulated"] == b["power_simulated"] else "")
        msg = (f"no plan with K in {{{', '.join(str(int(k)) for k in ks)}}} and N <= {n_max} "
               f"reaches power {sc.power:g}; best power reached {b['power_analytic']:.4f} "
               f"(exact{sim}; K = {int(b['panel_size'])}, N = {int(b['n_items'])})")
    front = ["panel_size", "n_items", "annotations", "cost", "power_analytic",
             "power_simulated", "power_se", "meets_target", "recommended"]
    plans = plans[front + [c for c in plans.columns if c not in front]]
    ev = pd.DataFrame(evaluated, columns=["panel_size", "n_items", "power_analytic",
                                          "power_simulated", "power_se",
                                          "p_beats_baseline_simulated",
                                          "scored_items_simulated"])
    return DesignResult(sc, plans, pd.concat(bins, ignore_index=True),
                        pd.concat(curves, ignore_index=True),
                        ev.sort_values(["panel_size", "n_items"], ignore_index=True), msg, seed)


def _auto_step(pw: PowerScan, n_a: int | None, replicates: int, target: float) -> int:
    """Smallest step s with P(N_a) - P(N_a - s) >= 2 Monte Carlo SEs (at least 1).

    A finer grid than the simulation can resolve would let Monte Carlo noise pick the
    plan; with this step the plan one step smaller has exact power at least 2 SEs lower.
    """
    if n_a is None or n_a <= 1 or replicates <= 0:
        return max(1, (n_a or 50) // 50)
    se = math.sqrt(target * (1 - target) / replicates)
    below = pw[np.arange(n_a - 1)]  # P(1) .. P(N_a - 1)
    ok = np.flatnonzero(below <= pw[n_a - 1] - 2 * se)
    return int(n_a - (ok[-1] + 1)) if ok.size else max(1, n_a // 2)


class _SimSearch:
    """Simulated power at (K, N), memoised, and the step search around N_analytic."""

    def __init__(self, sc, K, cell, pw, replicates, seed, evaluated):
        self.sc, self.K, self.cell, self.pw = sc, K, cell, pw
        self.replicates, self.seed, self.evaluated = replicates, seed, evaluated
        self.sims: dict[int, dict] = {}

    def meets(self, n: int) -> bool:
        if n not in self.sims:
            self.sims[n] = simulated_power(self.sc, self.K, n, self.replicates, self.seed,
                                           self.cell)
            self.evaluated.append({"panel_size": self.K, "n_items": n,
                                   "power_analytic": float(self.pw[n - 1]), **self.sims[n]})
        return bool(self.sims[n]["power_simulated"] >= self.sc.power)

    def run(self, n: int, step: int, n_max: int, max_steps: int) -> tuple[int, int | None]:
        """Return (smallest grid N meeting the target in simulation, the failing N below)."""
        steps = 0
        if self.meets(n):
            while n - step >= 1 and steps < max_steps and self.meets(n - step):
                n -= step
                steps += 1
            return n, (n - step if (n - step) in self.sims else None)
        while n + step <= n_max and steps < max_steps and not self.meets(n + step):
            n += step
            steps += 1
        if n + step <= n_max and steps < max_steps:
            return n + step, n
        return n, None


def _power_text(r) -> str:
    if r["power_simulated"] == r["power_simulated"]:
        return f"{r['power_simulated']:.3f} +/- {r['power_se']:.3f} (analytic {r['power_analytic']:.3f})"
    return f"{r['power_analytic']:.3f}"


def _question_columns(sc: Scenario, cell: Cell, N: int, sim: dict) -> dict:
    """Extra, question-specific columns of a plan row."""
    from scipy.stats import binom

    n_exp = max(1, int(round(N * cell.p_eval)))
    if sc.question == "separability":
        c = int(separability_critical(n_exp, cell.p_baseline, sc.alpha))
        out = {"baseline_accuracy": cell.p_baseline,
               "threshold_accuracy": c / n_exp,
               "p_baseline_at_least_threshold": float(binom.sf(c - 1, n_exp, cell.p_baseline)),
               "p_beats_baseline": p_beats(cell, N) if sc.baseline == "random" else np.nan,
               "p_beats_baseline_simulated": sim.get("p_beats_baseline_simulated", np.nan)}
        return out
    if sc.question == "two_systems":
        p11, p10, p01, p00 = cell.joint
        out = {"accuracy_b_vs_gt": cell.p_b, "delta_observed": cell.p_a - cell.p_b,
               "p_discordant": p10 + p01, "test": sc.test, "metric": sc.metric}
        if sc.metric == "f1":
            d, v = f1_difference_variance(cell.f1_cells, paired=sc.test == "paired")
            fa, _ = f1_and_gradient(cell.f1_cells.sum(axis=-1))
            out.update(f1_a_vs_gt=float(fa), f1_b_vs_gt=float(fa - d), delta_observed=float(d),
                       se_delta_at_plan=float(np.sqrt(v / max(N * cell.p_eval, 1e-300))))
        return out
    return {"expected_half_width": float(wilson_half_width(round(n_exp * cell.p_a), n_exp,
                                                           sc.confidence_level))}
