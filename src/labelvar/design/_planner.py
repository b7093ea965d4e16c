"""The planner: :func:`plan_study` searches panel sizes K and item counts N; :class:`DesignResult`."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from labelvar._base import _seeding
from labelvar._base import _validate as V
from labelvar._base._format import count, markdown_table, report_page, shown
from labelvar._base._progress import progress_bar
from labelvar.design._power import (
    Cell,
    PowerScan,
    cell_probabilities,
    exact_power,
    f1_and_gradient,
    f1_difference_variance,
    p_beats,
    power_method,
    separability_critical,
    wilson_half_width,
)
from labelvar.design._scenario import Scenario
from labelvar.design._simulated import simulated_power

#: largest ``n_max``: the exact scan computes the power at every N up to it
MAX_N_MAX = 200_000
#: up to this ``n_max`` a plan out of reach is scanned and reported in the table (seconds);
#: beyond it, one the normal approximation puts beyond 2 ``n_max`` is refused at once
QUICK_N_MAX = 20_000


@shown
@dataclasses.dataclass(repr=False)
class DesignResult:
    """Output of :func:`plan_study`.

    :meth:`describe` gives the one-line conclusion (the recommended plan, or that none
    meets the target).

    Attributes
    ----------
    scenario : Scenario
        The question as the planner's internal scenario (with the plan's costs).
    table : pandas.DataFrame
        The plans: one row per panel size K, the planned N (``n_rule``) and both
        crossings (see :func:`plan_study`).
    bins : pandas.DataFrame
        Expected items per observed-agreement bin (top votes / K) at each plan.
    curves : pandas.DataFrame
        Analytic power for a grid of N per K (for the power-curve figure).
    evaluated : pandas.DataFrame
        The simulated verification of each plan: (K, N), exact and simulated power,
        Monte Carlo SE and z.
    seed : int or None
        The int seed of the simulation (pass it again to repeat the plan).
    """

    scenario: Scenario
    table: pd.DataFrame
    bins: pd.DataFrame
    curves: pd.DataFrame
    evaluated: pd.DataFrame
    _conclusion: str = dataclasses.field(repr=False, default="")
    seed: int | None = None

    def describe(self) -> str:
        """The one-line conclusion: the recommended plan, or that none meets the target."""
        return self._conclusion

    to_html = report_page

    @property
    def found(self) -> bool:
        """Whether some plan meets the target."""
        return bool(self.table["meets_target"].any())

    @property
    def recommended(self) -> pd.Series | None:
        """The recommended plan (cheapest meeting the target), or None."""
        rows = self.table[self.table["recommended"]]
        return None if rows.empty else rows.iloc[0]

    def _shown(self) -> dict:
        rec = self.recommended
        shown = {"question": self.scenario.question}
        if rec is not None:
            shown.update(panel_size=int(rec["panel_size"]), n_items=int(rec["n_items"]))
        shown.update(table=self.table, found=self.found, seed=self.seed)
        return shown

    def _shown_tables(self) -> dict:
        return {"table": self.table, "bins": self.bins, "evaluated": self.evaluated}

    def _shown_lines(self) -> list:
        return [*self.scenario.describe().splitlines(), self.describe()]


#: the columns of the plans the command line prints
SHOWN_COLUMNS = ("panel_size", "n_items", "annotations", "cost", "power_analytic",
                 "power_simulated", "power_se", "meets_target", "recommended",
                 "n_items_first", "n_items_stable", "p_gt_error", "items_per_bin")


def plans_markdown(result: DesignResult) -> str:
    """The plans as a markdown table plus the conclusion line (what ``labelvar design`` prints)."""
    t = result.table
    return markdown_table(t[[c for c in SHOWN_COLUMNS if c in t]]) + "\n\n" + result.describe()


N_RULES = ("stable", "first")


def plan_study(question, panel_sizes: Sequence[int] | None = None, *,
               n_max: int = 10_000, n_rule: str = "stable", replicates: int = 1000,
               seed=0, progress: bool | None = None, cost_per_item: float = 0.0,
               cost_per_annotation: float = 1.0) -> DesignResult:
    """Find, for every panel size K, the number of items N that meets the target power.

    N is decided by the power P(N) of the chosen test, computed exactly
    for every test except the F1 comparison (a normal approximation, deterministic too)
    the unpaired test beyond 2,000,000 terms per N or, with every item scored, beyond
    5,000 items, and the paired test beyond 10,000 items (normal approximations, so
    that a scan takes seconds; ``power_method`` says which). Exact tests are discrete, so P(N) is a
    sawtooth: it can reach the target at some N and fall below it again at N + 1. Two
    N are reported per K: ``n_items_first``, the first N with P(N) >= target, and
    ``n_items_stable``, the smallest N from which P stays >= target for every N up to
    ``stable_horizon`` = min(n_max, 2 n_items_first) (doubled while P is below the
    target there). The plan uses ``n_rule``. The simulation (``replicates > 0``) only
    verifies the plan: it is reported beside it (``power_simulated`` +/- ``power_se``
    and ``power_z``, its distance from the exact power in Monte Carlo SEs) and never
    changes N or ``meets_target``, so the plan is the same for every seed.

    Parameters
    ----------
    question : Separability, TwoSystems or Precision
        The study and what it must show (:mod:`labelvar.design`'s question classes).
    panel_sizes : sequence of int or None
        Panel sizes K to consider; default odd K (no ties for L = 2): 1, 3, 5, 7, 9, or
        3, 5, 7, 9 when ``min_agreement > 0`` (one vote gives no observed agreement).
    n_max : int
        Largest number of items searched (at most 200,000). Above 20,000, a plan that
        the normal approximation puts beyond 2 ``n_max`` items for every K is refused at
        once (its exact scan would take minutes to say "none"), and a K beyond it while
        others are not is not scanned: its row gives the power at ``n_max``.
    n_rule : {"stable", "first"}
        Which crossing is the plan: the stable one (default; the power does not dip
        below the target for a few more items) or the first one.
    replicates : int
        Simulated studies verifying each plan; 0 = no simulation.
    seed : int, numpy.random.Generator or None
        Seed of the verification (an int, or None for a fresh one; the int used is
        ``DesignResult.seed``); each (K, N) has its own stream derived from it.
    progress : bool, optional
        Show a progress bar (tqdm, on stderr) over the panel sizes, each with its power
        scan and simulated verification. Default None: only when stderr is a terminal
        (and after a second); False: never.

    cost_per_item, cost_per_annotation : float
        Cost of one item (e.g. curation) and of one annotation: the plans' ``cost``.

    Returns
    -------
    DesignResult
        Tables ``table`` (the plans), ``bins``, ``curves``, ``evaluated``, and the
        one-line conclusion ``describe()``.

    Notes
    -----
    Columns of ``table`` (one row per K): ``n_items`` (per system for the unpaired test,
    whose ``annotations`` and ``cost`` count both item sets), ``annotations`` = N K,
    ``cost`` = N cost_per_item + N K cost_per_annotation, ``power_analytic`` (P(N),
    ``power_method`` "exact" or "normal"), ``power_simulated`` +/- ``power_se`` and
    ``power_z``, ``meets_target`` (P(N) >= target), ``recommended`` (the cheapest plan
    meeting the target), ``n_items_first``, ``n_items_stable``, ``stable_horizon``,
    ``n_rule``, ``expected_scored_items``, ``p_gt_error`` (P(GT != modal label) over
    kept items), ``p_gt_error_scored`` (same over scored items), ``p_tie`` (P(the
    plurality is tied)), ``accuracy_a_vs_gt`` (the system's or expert's accuracy against
    the GT on scored items), ``items_per_bin`` (expected items per observed-agreement bin
    t/K; full table in ``bins``) and per question: separability ``baseline_accuracy``,
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
    The power first reaches 0.8 at N = 245 but dips below it again up to N = 257:

    >>> from labelvar.design import Separability
    >>> res = plan_study(Separability(theta=0.7), panel_sizes=[1, 3], replicates=0)
    >>> res.table[["panel_size", "n_items", "n_items_first", "n_items_stable"]]
       panel_size  n_items  n_items_first  n_items_stable
    0           1      258            245             258
    1           3      135            119             135
    """
    from labelvar.design._questions import _Question

    if isinstance(question, _Question):
        sc = question.scenario(cost_per_item=cost_per_item,
                               cost_per_annotation=cost_per_annotation)
    elif isinstance(question, Scenario):  # (the planner's internal form; its own costs)
        sc = question
    else:
        raise ValueError("question must be a labelvar.design Separability, TwoSystems or "
                         f"Precision, got {type(question).__name__}")
    if panel_sizes is None:
        panel_sizes = (1, 3, 5, 7, 9) if sc.min_agreement == 0 else (3, 5, 7, 9)
    ks = V.integer("panel_sizes", np.atleast_1d(panel_sizes), lo=1)
    if ks.size == 0:
        raise ValueError("panel_sizes must list at least one panel size")
    if np.unique(ks).size < ks.size:
        raise ValueError(f"panel_sizes must list each panel size once, got {ks.tolist()}")
    if sc.min_agreement > 0 and (ks < 2).any():
        raise ValueError(f"panel_sizes must be >= 2 when min_agreement > 0 (one vote per item "
                         f"gives no observed agreement to stratify by), got {ks.tolist()}")
    n_max = int(V.single("n_max", V.integer("n_max", n_max, lo=2, hi=MAX_N_MAX)))
    V.choice("n_rule", n_rule, N_RULES)
    replicates = int(V.integer("replicates", replicates, lo=0))
    seed = _seeding.as_seed(seed)
    sets = 2 if (sc.question == "two_systems" and sc.test == "unpaired") else 1
    cells = {int(K): cell_probabilities(sc, int(K)) for K in ks}
    far = _check_reachable(sc, cells, n_max)  # panel sizes out of reach: no scan
    rows, bins, curves, evaluated = [], [], [], []
    bar = progress_bar(progress, desc="design", unit="K", total=ks.size, delay=1.0)
    for K in (int(k) for k in ks):
        bar.set_postfix_str(f"K={K}", refresh=True)
        cell = cells[K]
        if K in far:  # the power at n_max and on the curve's points only (seconds, not minutes)
            pw, n_first, n_stable, horizon, N = _PointPower(sc, cell), None, None, n_max, n_max
        else:
            pw = PowerScan(sc, cell, n_max)
            n_first = pw.first_crossing()
            n_stable, horizon = pw.stable_crossing(n_first) if n_first else (None, n_max)
        if K in far:
            pass  # N = n_max: the power grows with N, out of reach it is best there
        elif n_first is None:
            N = pw.argmax_n()
        elif n_rule == "first" or n_stable is None:
            N = n_first
        else:
            N = n_stable
        p_n = float(pw[N - 1])
        curve_max = min(n_max, max(20, horizon))
        idx = np.unique(np.r_[np.round(np.geomspace(1, curve_max, 200)).astype(np.int64),
                              np.array([n for n in (n_first, n_stable) if n], dtype=np.int64)])
        curves.append(pd.DataFrame({
            "panel_size": K, "n_items": idx, "power_analytic": pw[idx - 1],
            "cost": sets * idx * (sc.cost_per_item + K * sc.cost_per_annotation)}))
        s = {}
        if replicates > 0:
            s = simulated_power(sc, K, N, replicates, seed, cell)
            se0 = math.sqrt(max(p_n * (1 - p_n), 1e-12) / replicates)
            s["power_z"] = (s["power_simulated"] - p_n) / se0
            evaluated.append({"panel_size": K, "n_items": N, "power_analytic": p_n, **s})
        exp_bins = N * cell.p_top
        t = np.arange(K + 1)
        bins.append(pd.DataFrame({"panel_size": K, "n_items": N, "agreement": t[1:] / K,
                                  "probability": cell.p_top[1:],
                                  "expected_items": exp_bins[1:],
                                  "scored": (t[1:] / K >= sc.min_agreement - 1e-12)}))
        row = {
            "panel_size": K, "n_items": N, "annotations": N * K,
            "cost": N * sc.cost_per_item + N * K * sc.cost_per_annotation,
            "power_analytic": p_n,
            "power_simulated": s.get("power_simulated", np.nan),
            "power_se": s.get("power_se", np.nan),
            "meets_target": n_first is not None and p_n >= sc.power,
            "power_z": s.get("power_z", np.nan),
            "n_items_first": n_first if n_first else np.nan,
            "n_items_stable": n_stable if n_stable else np.nan,
            "stable_horizon": horizon, "n_rule": n_rule,
            "power_method": power_method(sc, cell, N),
            "expected_scored_items": N * cell.p_eval,
            "p_gt_error": cell.p_gt_error, "p_gt_error_scored": cell.p_gt_error_scored,
            "p_tie": cell.p_tie,
            "accuracy_a_vs_gt": cell.p_a,
            "items_per_bin": ", ".join(f"{tt}/{K}:{e:.4g}" for tt, e in zip(t[1:], exp_bins[1:])
                                       if e >= 0.05 * N / (K + 1) or tt == K),
        }
        row.update(_question_columns(sc, cell, N, s))
        rows.append(row)
        bar.update()
    bar.close()
    plans = pd.DataFrame(rows)
    for col in ("n_items_first", "n_items_stable"):
        plans[col] = plans[col].astype("Int64")
    if sets == 2:
        plans["n_items_total"] = 2 * plans["n_items"]
        plans["annotations"] *= 2
        plans["cost"] *= 2
    plans["recommended"] = False
    ok = plans[plans["meets_target"]]
    if len(ok):
        best = ok.sort_values(["cost", "annotations", "n_items"]).index[0]
        plans.loc[best, "recommended"] = True
        msg = _recommendation(sc, plans.loc[best])
    else:
        b = plans.loc[plans["power_analytic"].idxmax()]
        sim = (f", simulated {b['power_simulated']:.3f} +/- {b['power_se']:.3f}"
               if b["power_simulated"] == b["power_simulated"] else "")
        msg = (f"no plan with K in {{{', '.join(str(int(k)) for k in ks)}}} and N <= {n_max} "
               f"reaches power {sc.power:g}; best power reached {b['power_analytic']:.4f} "
               f"({b['power_method']}{sim}; K = {int(b['panel_size'])}, N = {int(b['n_items'])})")
    front = ["panel_size", "n_items", "annotations", "cost", "power_analytic",
             "power_simulated", "power_se", "meets_target", "recommended"]
    plans = plans[front + [c for c in plans.columns if c not in front]]
    ev = pd.DataFrame(evaluated, columns=["panel_size", "n_items", "power_analytic",
                                          "power_simulated", "power_se", "power_z",
                                          "p_beats_baseline_simulated",
                                          "scored_items_simulated"])
    return DesignResult(sc, plans, pd.concat(bins, ignore_index=True),
                        pd.concat(curves, ignore_index=True),
                        ev.sort_values(["panel_size", "n_items"], ignore_index=True), msg, seed)


def normal_items(sc: Scenario, cell) -> float:
    """Items N the normal approximation needs for the target power (inf: never; nan: unknown).

    Only an order of magnitude, to refuse at once a plan far beyond ``n_max`` (whose exact
    scan would take minutes to say "none"): separability's one-sided test of p_a against
    the baseline, McNemar's on the discordant pairs, the pooled two-proportion z-test, the
    Wald half-width of precision; each on the scored share p_eval of the items.
    """
    from scipy import stats

    if not cell.p_eval > 0:
        return math.inf
    zb = stats.norm.ppf(sc.power)
    if sc.question == "separability":
        a, b = cell.p_a, cell.p_baseline
        if not a > b + 1e-12:
            return math.inf
        za = stats.norm.isf(sc.alpha)
        n = (za * math.sqrt(b * (1 - b)) + zb * math.sqrt(a * (1 - a))) ** 2 / (a - b) ** 2
    elif sc.question == "precision":
        za = stats.norm.isf((1 - sc.confidence_level) / 2)
        n = za * za * cell.p_a * (1 - cell.p_a) / sc.half_width ** 2
    elif sc.metric == "f1":
        return math.nan  # (a normal approximation already: its scan is quick)
    elif sc.test == "paired":
        _, p10, p01, _ = cell.joint
        d, disc = abs(p10 - p01), p10 + p01
        if not d > 1e-12:
            return math.inf
        za = stats.norm.isf(sc.alpha / 2)
        n = (za * math.sqrt(disc) + zb * math.sqrt(max(disc - d * d, 0.0))) ** 2 / d ** 2
    else:
        a, b = cell.p_a, cell.p_b
        if not abs(a - b) > 1e-12:
            return math.inf
        za, pbar = stats.norm.isf(sc.alpha / 2), (a + b) / 2
        n = (za * math.sqrt(2 * pbar * (1 - pbar))
             + zb * math.sqrt(a * (1 - a) + b * (1 - b))) ** 2 / (a - b) ** 2
    return n / cell.p_eval


class _PointPower:
    """P(N) at the N asked for only (``pw[i]`` is P(i + 1)), for a panel size out of reach."""

    def __init__(self, sc: Scenario, cell):
        self.sc, self.cell = sc, cell

    def __getitem__(self, i):
        i = np.asarray(i)
        flat = np.atleast_1d(i).ravel()
        out = np.array([exact_power(self.sc, self.cell, np.array([int(n) + 1]))[0]
                        for n in flat.tolist()])
        return out.reshape(i.shape) if i.ndim else out[0]


def _check_reachable(sc: Scenario, cells: dict, n_max: int) -> set:
    """Refuse at once when no panel size can reach the target within a large ``n_max``.

    Returns the panel sizes out of reach (beyond 2 ``n_max`` by the normal approximation)
    when others are not: they are not scanned (their row: the power at ``n_max``).

    A plan the normal approximation puts beyond 2 ``n_max`` for every K (or that no N
    reaches: separability against a baseline as accurate as the labeller) would be found
    missing only after an exact scan of every N up to ``n_max``: minutes once ``n_max``
    passes :data:`QUICK_N_MAX` (below it the scan is quick and the table says "none").
    """
    if n_max <= QUICK_N_MAX:  # the scan says "none" in seconds: the table reports it
        return set()
    need = {K: normal_items(sc, c) for K, c in cells.items()}
    if any(not n > 2 * n_max for n in need.values()):  # (nan: unknown, scan)
        return {K for K, n in need.items() if n > 2 * n_max}
    if all(math.isinf(n) for n in need.values()):
        what = ("the labeller is no more accurate than the baseline on the scored items"
                if sc.question == "separability" else "the two systems do not differ on the "
                "scored items")
        raise ValueError(f"no N reaches power {sc.power:g} for any panel size K in "
                         f"{sorted(need)}: {what}")
    k, n = min(need.items(), key=lambda kv: kv[1])
    way = (f"raise n_max (at most {MAX_N_MAX:,}) or ask for a larger effect" if n_max < MAX_N_MAX
           else f"the planner searches at most {MAX_N_MAX:,} items: ask for a larger effect")
    raise ValueError(f"n_max: the target power {sc.power:g} needs about {n:,.0f} items (K = {k}, "
                     f"normal approximation), far more than n_max = {n_max:,}; {way}")


def _recommendation(sc: Scenario, r) -> str:
    """The one-line conclusion for the recommended plan ``r``."""
    first, stable = r["n_items_first"], r["n_items_stable"]
    if r["n_rule"] == "stable" and not pd.isna(stable):
        why = (f"power >= {sc.power:g} for every N from {int(stable)} to "
               f"{int(r['stable_horizon'])}; first reached at N = {int(first)}")
    else:
        why = (f"first N reaching {sc.power:g}"
               + ("" if pd.isna(stable) or int(stable) == int(first) else
                  f"; it stays >= {sc.power:g} only from N = {int(stable)}"))
    return (f"recommended: K = {count(r['panel_size'], 'annotator', sep='')} per item, N = "
            f"{count(r['n_items'], 'item', sep='')}, {count(r['annotations'], 'annotation', sep='')}, cost "
            f"{r['cost']:.6g}; {r['power_method']} power {_power_text(r)} ({why})")


def _power_text(r) -> str:
    if r["power_simulated"] == r["power_simulated"]:
        return (f"{r['power_analytic']:.4f}, simulated {r['power_simulated']:.3f} +/- "
                f"{r['power_se']:.3f} (z = {r['power_z']:+.1f})")
    return f"{r['power_analytic']:.4f}"


def _question_columns(sc: Scenario, cell: Cell, N: int, sim: dict) -> dict:
    """Extra, question-specific columns of a plan row."""
    from labelvar.design._binom import binom

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
