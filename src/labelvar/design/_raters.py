"""Rater questions of a study design: how many items tell rater A from rater B, which panel to buy.

:func:`compare_raters` sizes a comparison of two raters' agreement with a reference (e.g.
a benchmark radiologist against a panel member, each scored against the panel's
majority): the exact power of the paired McNemar test or of the unpaired pooled z-test
(through :func:`plan_study` with every item scored).
:func:`panel_accuracy` is the exact accuracy of a panel's plurality from its raters'
skills (a :class:`labelvar.RaterModel`: enumerating the panel's votes, integrating
the difficulty); :func:`cheapest_panel` picks, among panels of several rater kinds and
sizes, the cheapest per item whose plurality reaches a target accuracy, with a cost per
vote. Each returns a small frozen result; writing is the caller's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pandas as pd

from labelvar._base import _validate as V
from labelvar._base._format import count, shown
from labelvar.votes import _panel


@shown
@dataclasses.dataclass(frozen=True, repr=False)
class RaterComparison:
    """Items needed to tell two raters apart (:func:`compare_raters`).

    Attributes
    ----------
    p_d_a, p_d_b : float
        The two raters' probabilities of matching the reference (A the higher).
    test : str
        ``"paired"`` (both rate the same items, exact McNemar) or ``"unpaired"`` (each its
        own items, pooled two-proportion z-test).
    alpha, target_power : float
        The test's level and the power asked for.
    n_items : int or None
        Items per rater at the plan (the stable crossing), None if none up to ``n_max``.
    n_items_first : int or None
        The first N reaching the target power.
    power : float
        The exact (or, for large unpaired N, normal: ``power_method``) power at ``n_items``.
    power_method : str
    """

    p_d_a: float
    p_d_b: float
    test: str
    alpha: float
    target_power: float
    n_items: int | None
    n_items_first: int | None
    power: float
    power_method: str
    n_max: int = 100_000

    @property
    def table(self) -> pd.DataFrame:
        """The comparison as one row (every attribute a column)."""
        return pd.DataFrame([dataclasses.asdict(self)])

    def describe(self) -> str:
        """One line: the items per rater that tell the two apart, or that none up to n_max do."""
        hi, lo, n = self.p_d_a, self.p_d_b, self.n_items
        how = "the same items (exact McNemar)" if self.test == "paired" else \
            "separate items (pooled z-test)"
        if n is None:
            return (f"no N <= {self.n_max} tells p_d {hi:g} from {lo:g} at power "
                    f"{self.target_power:g} (best {self.power:.4f})")
        return (f"{count(n, 'item')} per rater tell{'s' if n == 1 else ''} p_d {hi:g} from "
                f"{lo:g} at power {self.power:.4f} >= {self.target_power:g} "
                f"({self.power_method}, alpha {self.alpha:g}, {how}; first reached at N = "
                f"{self.n_items_first})")

    def _shown_lines(self) -> list:
        return [self.describe()]


def compare_raters(p_d_a: float, p_d_b: float, *, test: str = "unpaired",
                   error_correlation: float = 0.0, alpha: float = 0.05, power: float = 0.8,
                   n_max: int = 100_000) -> RaterComparison:
    """How many items tell a rater matching the reference with ``p_d_a`` from one with ``p_d_b``.

    Each item is scored once per rater against its reference label (e.g. the panel's
    majority); a rater matches it with its p_d, independently across items. The
    paired test (both rate the same items) is the exact McNemar test, its discordance set
    by ``error_correlation`` (the phi coefficient of the two raters' correctness); the
    unpaired test is the pooled two-proportion z-test with its power summed exactly over
    both binomials. N is the smallest from which the power stays at or above the target
    (:func:`labelvar.design.plan_study`'s stable crossing, a one-annotator "panel" whose
    label is the reference).

    Parameters
    ----------
    p_d_a, p_d_b : float
        The two raters' probabilities of matching the reference, in (0, 1), different.
    test : {"unpaired", "paired"}
    error_correlation : float
        Paired test: correlation of the two raters' correctness on an item (0: independent).
    alpha, power : float
        Two-sided significance level and target power.
    n_max : int
        Largest number of items per rater searched. A comparison whose normal
        approximation needs more than 1.25 ``n_max`` items is refused at once (the
        exact scan up to ``n_max`` could only say "none", after minutes).

    Returns
    -------
    RaterComparison

    Examples
    --------
    A rater matching the reference with p_d 0.9 against one with 0.8, each on its own items (CheXpert's
    benchmark radiologists against a panel member in the 3/4 bin, 0.765 vs 0.738, need
    4019 items each; 2081 on the same items with correctness correlated at 0.5):

    >>> r = compare_raters(0.9, 0.8)
    >>> r.n_items, round(r.power, 4), r.power_method
    (196, 0.8019, 'exact')
    """
    from labelvar.design._planner import plan_study
    from labelvar.design._scenario import Scenario

    a = float(V.single("p_d_a", V.probability("p_d_a", p_d_a, open_lo=True, open_hi=True)))
    b = float(V.single("p_d_b", V.probability("p_d_b", p_d_b, open_lo=True, open_hi=True)))
    if a == b:
        raise ValueError(f"p_d_a and p_d_b must differ (no N tells equal raters "
                         f"apart), got {a:g} twice")
    hi, lo = max(a, b), min(a, b)
    V.choice("test", test, ("unpaired", "paired"))
    n_max = int(V.single("n_max", V.integer("n_max", n_max, lo=1)))
    need = _normal_n(hi, lo, test, float(error_correlation), float(alpha), float(power))
    if need > 1.25 * n_max:  # refused in a moment, not after an exact scan of n_max items
        raise ValueError(f"n_max: telling p_d {hi:g} from {lo:g} apart needs about "
                         f"{need:,.0f} items per rater (normal approximation), more than "
                         f"n_max = {n_max:,}; raise n_max or compare raters further apart")
    sc = Scenario("two_systems", theta=1.0, n_labels=2, accuracy_b=lo, delta=hi - lo,
                  error_correlation=error_correlation, test=test, alpha=alpha, power=power)
    res = plan_study(sc, panel_sizes=[1], n_max=n_max, replicates=0, progress=False)
    row = res.table.iloc[0]
    found = bool(row["meets_target"])
    n = int(row["n_items"]) if found else None
    first = None if pd.isna(row["n_items_first"]) else int(row["n_items_first"])
    return RaterComparison(hi, lo, test, sc.alpha, float(power), n, first,
                           float(row["power_analytic"]), str(row["power_method"]), n_max)


def _normal_n(hi: float, lo: float, test: str, rho: float, alpha: float, power: float) -> float:
    """Items per rater of the normal approximation (two-sided level alpha, the target power).

    Unpaired: the pooled two-proportion z-test; paired: McNemar's on the discordant pairs
    (p10, p01 from the correctness correlation ``rho``). Only an order of magnitude for
    refusing hopeless searches; the plan itself is exact.
    """
    from scipy import stats

    V.probability("alpha", alpha, open_lo=True, open_hi=True)
    V.probability("power", power, open_lo=True, open_hi=True)
    za, zb = stats.norm.isf(alpha / 2), stats.norm.ppf(power)
    d = hi - lo
    if test == "paired":
        p11 = hi * lo + rho * np.sqrt(hi * (1 - hi) * lo * (1 - lo))
        disc = max((hi - p11) + (lo - p11), d)
        return float((za * np.sqrt(disc) + zb * np.sqrt(max(disc - d * d, 0.0))) ** 2 / d**2)
    pbar = (hi + lo) / 2
    return float((za * np.sqrt(2 * pbar * (1 - pbar))
                  + zb * np.sqrt(hi * (1 - hi) + lo * (1 - lo))) ** 2 / d**2)


def panel_accuracy(model, raters: Sequence, *, tie_rule: str = "random") -> dict:
    """Exact P(a panel's plurality label is the truth) from its raters' skills.

    Sums over the truth z (the model's prior), the difficulty node g (its weights) and
    every vote pattern of the panel: identical raters through the multinomial
    compositions (the vote enumeration of the engine, any panel size up to the
    enumeration limit), a mixed panel through its L**K joint votes
    (each rater with its own skill).

    Parameters
    ----------
    model : labelvar.RaterModel
        Fitted or stated (``RaterModel.from_skill``).
    raters : sequence of str
        The panel's rater ids (repeat an id for several raters of that skill; an id not
        in the model is its population rater). A single string is refused (it is one
        id, not a list of them).
    tie_rule : {"random", "drop"}
        Ties of the plurality: a random tied label, or the item is dropped.

    Returns
    -------
    dict
        ``accuracy`` (P(plurality = truth | item kept)), ``p_kept``.

    Examples
    --------
    Three raters of accuracy 0.8: 0.8**3 + 3 * 0.8**2 * 0.2 = 0.896.

    >>> from labelvar import RaterModel
    >>> m = RaterModel.from_skill({"accuracy": 0.8})
    >>> round(panel_accuracy(m, ["skill"] * 3)["accuracy"], 6)
    0.896
    """
    V.choice("tie_rule", tie_rule, _panel.TIE_RULES)
    from labelvar.votes._raters import RaterFit

    if isinstance(model, RaterFit):
        model = model.model
    if not all(hasattr(model, a) for a in ("rater_log_conf", "log_prior", "log_weights")):
        raise ValueError(f"model must be a RaterModel or RaterFit (labelvar.fit_raters, "
                         f"RaterModel.from_skill), got {type(model).__name__}")
    if isinstance(raters, (str, bytes)) or not hasattr(raters, "__iter__"):
        # (a string would be read as one rater per letter)
        what = "the string " if isinstance(raters, (str, bytes)) else ""
        raise ValueError(f"raters must be a list of rater ids, got {what}{raters!r}; "
                         f"for a panel of K raters of that skill give [{raters!r}] * K")
    ids = list(raters)
    if not ids:
        raise ValueError("raters must list at least one rater")
    conf = np.exp(np.stack([model.rater_log_conf(r) for r in ids]))  # (K, G, L, L) [k, g, z, l]
    K, G, L = conf.shape[0], conf.shape[1], conf.shape[2]
    prior, weights = np.exp(model.log_prior), np.exp(model.log_weights)
    same = all(np.array_equal(conf[0], c) for c in conf[1:])
    right = kept = 0.0
    if same:
        comp = _panel.compositions(K, L)  # absolute labels
        truth, drop = _panel.truth_weights(comp, tie_rule, modal=0)
        for g in range(G):
            for z in range(L):
                _, p = _panel.composition_probs(K, L, conf[0, g, z])
                w = prior[z] * weights[g]
                right += w * float(p @ truth[:, z])
                kept += w * float(p @ (1.0 - drop))
    else:
        comp = _panel.compositions(K, L)  # relative to the truth
        truth, drop = _panel.truth_weights(comp, tie_rule)
        for g in range(G):
            probs = _panel.skill_composition_probs(conf[:, g], K, L, comp)  # (L, n_comp)
            right += weights[g] * float(prior @ (probs @ truth[:, 0]))
            kept += weights[g] * float(prior @ (probs @ (1.0 - drop)))
    # (sums of probabilities: rounding may pass 1 by 1e-12; the ratio keeps its precision)
    return {"accuracy": float(min(right / kept, 1.0)) if kept > 0 else float("nan"),
            "p_kept": float(min(kept, 1.0))}


@shown
@dataclasses.dataclass(frozen=True, repr=False)
class PanelChoice:
    """Panels compared by :func:`cheapest_panel` (:meth:`describe` gives the conclusion).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (option, panel size): ``option``, ``panel_size``, ``accuracy`` (exact),
        ``p_kept``, ``cost_per_item`` (size x cost per vote), ``meets_target``.
    best : pandas.Series or None
        The cheapest row meeting the target (ties: the more accurate).
    """

    table: pd.DataFrame
    best: pd.Series | None
    _conclusion: str = dataclasses.field(repr=False, default="")

    def describe(self) -> str:
        """The conclusion: the cheapest panel reaching the target, or that none does."""
        return self._conclusion

    def _shown(self) -> dict:
        best = {} if self.best is None else {"option": self.best["option"],
                                             "panel_size": int(self.best["panel_size"])}
        return {**best, "table": self.table}

    def _shown_tables(self) -> dict:
        return {"table": self.table}

    def _shown_lines(self) -> list:
        return [self.describe()]


def cheapest_panel(options: dict, target: float, *, sizes: Sequence[int] = (1, 3, 5, 7, 9),
                   tie_rule: str = "random") -> PanelChoice:
    """Which panel reaches a target plurality accuracy for less: K crowd raters or k experts.

    Parameters
    ----------
    options : dict
        name -> (RaterModel, rater id, cost per vote): a kind of rater to buy.
    target : float
        The plurality accuracy the panel must reach, in (0, 1).
    sizes : sequence of int
        Panel sizes tried for every option.
    tie_rule : {"random", "drop"}

    Returns
    -------
    PanelChoice

    Examples
    --------
    Crowd workers of accuracy 0.7 at 1 per vote, or experts of accuracy 0.9 at 5, for a
    plurality right 95% of the time (17 crowd votes reach 0.9487 only):

    >>> from labelvar import RaterModel
    >>> crowd = RaterModel.from_skill({"accuracy": 0.7})
    >>> expert = RaterModel.from_skill({"accuracy": 0.9})
    >>> c = cheapest_panel({"crowd": (crowd, "skill", 1.0), "expert": (expert, "skill", 5.0)},
    ...                    target=0.95, sizes=range(1, 18, 2))
    >>> c.describe()
    'cheapest panel reaching accuracy 0.95: 3 x expert (accuracy 0.9720, cost 15 per item)'
    """
    t = float(V.single("target", V.probability("target", target, open_lo=True, open_hi=True)))
    ks = V.integer("sizes", np.atleast_1d(sizes), lo=1)
    if not options:
        raise ValueError("options must name at least one kind of rater")
    rows = []
    for name, spec in options.items():
        if not (isinstance(spec, (tuple, list)) and len(spec) == 3):
            raise ValueError(f"options[{name!r}] must be (RaterModel, rater id, cost per vote), "
                             f"got {spec!r}")
        model, rater, cost = spec
        cost = float(V.single(f"options[{name!r}] cost", V.as_float_array("cost", cost)))
        if not cost >= 0 or not np.isfinite(cost):
            raise ValueError(f"options[{name!r}] cost per vote must be a finite number >= 0, "
                             f"got {cost}")
        for k in ks.tolist():
            acc = panel_accuracy(model, [rater] * k, tie_rule=tie_rule)
            rows.append({"option": str(name), "panel_size": k,
                         "accuracy": float(acc["accuracy"]), "p_kept": float(acc["p_kept"]),
                         "cost_per_item": k * cost, "meets_target": bool(acc["accuracy"] >= t)})
    table = pd.DataFrame(rows)
    ok = table[table["meets_target"]]
    if ok.empty:
        b = table.loc[table["accuracy"].idxmax()]
        return PanelChoice(table, None, f"no panel reaches accuracy {t:g}; best "
                           f"{b['accuracy']:.4f} ({b['option']}, K = {int(b['panel_size'])})")
    best = ok.sort_values(["cost_per_item", "accuracy"], ascending=[True, False]).iloc[0]
    return PanelChoice(table, best, f"cheapest panel reaching accuracy {t:g}: "
                       f"{int(best['panel_size'])} x {best['option']} (accuracy "
                       f"{best['accuracy']:.4f}, cost {best['cost_per_item']:g} per item)")
