"""The alt-test's exact power and the study planner built on it.

The model (``accuracy`` scoring): each item falls in an agreement bin ``b`` with
probability ``weights[b]``; on an item of bin b every human gives the item's modal
label with probability ``theta[b]`` and otherwise one of the other ``n_labels - 1``
labels uniformly; the system gives it with probability ``skill`` (a number, or one per
bin), otherwise another label uniformly. Each tested human is compared on ``n_items``
items with ``n_humans - 1`` other humans.

1. One comparison's outcome (tie, system better, human better) has a trinomial law,
   computed exactly by enumerating the others' vote counts (a multinomial over the
   labels), the human's label and the system's.
2. A human's outcome counts over ``n_items`` items are multinomial; the p-value is a
   function of the counts, so ``P(p <= c)`` is an exact sum over the counts (for every
   Benjamini–Yekutieli threshold c).
3. With the humans' tests independent (their comparisons drawn independently: the
   model's assumption, see the guide), the number of BY rejections has an exact law
   (a dynamic programme over the thresholds), hence ``P(winning rate >= 0.5)``.

In a real study the humans share items (each is in the others' references), which
makes their tests dependent; :meth:`AltTestPower.simulate` runs that shared design by
Monte Carlo so the two can be compared.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import numbers

import numpy as np
import pandas as pd
from scipy import special, stats

from labelvar._base._format import shown
from labelvar.judge import _stats

#: the most labels, humans per item and other humans' vote patterns the exact power takes
MAX_LABELS = 100
MAX_HUMANS = 200
MAX_COMPOSITIONS = 200_000
#: the most N (items per human) the exact power takes, and Monte Carlo runs of simulate
MAX_ITEMS = 5000
MAX_SIM_RESAMPLES = 1_000_000


def comparison_law(theta: float, skill: float, *, n_humans: int, n_labels: int) -> np.ndarray:
    """Exact (P tie, P system better, P human better) of one comparison.

    Examples
    --------
    >>> comparison_law(1.0, 1.0, n_humans=3, n_labels=2).tolist()  # all agree: a tie
    [1.0, 0.0, 0.0]
    >>> p = comparison_law(0.8, 0.5, n_humans=2, n_labels=2)  # one other human
    >>> [round(float(x), 4) for x in p]  # tie: same label; sys better: 0.8*.5*.2 + .2*.5*.8
    [0.5, 0.16, 0.34]
    """
    L, r = int(n_labels), int(n_humans) - 1
    ph = np.full(L, (1.0 - theta) / (L - 1))
    ph[0] = theta
    ps = np.full(L, (1.0 - skill) / (L - 1))
    ps[0] = skill
    out = np.zeros(3)
    for comp in _compositions(r, L):
        c = np.asarray(comp)
        pc = math.exp(special.gammaln(r + 1) - special.gammaln(c + 1).sum()
                      + float(special.xlogy(c, ph).sum()))
        if pc == 0.0:
            continue
        # outcome for each (human label z, system label x)
        cz = c[:, None]
        cx = c[None, :]
        sys_ge = cx >= cz
        h_ge = cz >= cx
        w = pc * ph[:, None] * ps[None, :]
        out[0] += w[sys_ge & h_ge].sum()
        out[1] += w[sys_ge & ~h_ge].sum()
        out[2] += w[h_ge & ~sys_ge].sum()
    return out / out.sum()


def _compositions(n: int, k: int):
    """All k-tuples of non-negative integers summing to n."""
    for bars in itertools.combinations(range(n + k - 1), k - 1):
        prev, parts = -1, []
        for b in bars:
            parts.append(b - prev - 1)
            prev = b
        parts.append(n + k - 2 - prev)
        yield tuple(parts)


def rejection_cdf(law, *, n_items: int, thresholds, epsilon: float, margin: str = "additive",
                  test: str = "t") -> np.ndarray:
    """``P(p <= c)`` for each threshold c, the human's counts multinomial(n_items, law).

    Examples
    --------
    >>> rejection_cdf([0.0, 1.0, 0.0], n_items=30, thresholds=[0.01], epsilon=0.2).tolist()
    [1.0]
    """
    law = np.asarray(law, dtype=float)
    n = int(n_items)
    a, b = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")  # sys, human wins
    ok = a + b <= n
    a, b = a[ok], b[ok]
    t = n - a - b
    counts = np.stack([t, a, b], axis=1)
    logpmf = (special.gammaln(n + 1) - special.gammaln(t + 1) - special.gammaln(a + 1)
              - special.gammaln(b + 1))
    logpmf = logpmf + special.xlogy(counts, law[None, :]).sum(axis=1)  # 0 log 0 = 0
    # the p-values (the costly part) only where the counts carry mass: cells below e^-80
    # of the mode hold under N^2 e^-80 < 1e-28 in all, far below a double's precision
    keep = logpmf >= logpmf.max() - 80.0
    counts, logpmf = counts[keep], logpmf[keep]
    pmf = np.exp(logpmf)
    p = _stats.pvalues(counts, epsilon=epsilon, margin=margin, test=test)
    p = np.where(np.isnan(p), np.inf, p)
    thr = np.asarray(thresholds, dtype=float)
    return np.array([pmf[p <= c].sum() for c in thr]).clip(0.0, 1.0)


def rejections_law(cdf_at_thresholds) -> np.ndarray:
    """Law of the number of BY rejections among m independent humans with one p-value law.

    ``cdf_at_thresholds[k-1] = P(p <= c_k)``, k = 1..m. BY rejects
    ``max{k : #(p <= c_k) >= k}``.

    Examples
    --------
    >>> rejections_law([1.0, 1.0]).tolist()  # every p below every threshold
    [0.0, 0.0, 1.0]
    >>> [round(float(x), 4) for x in rejections_law([0.5])]
    [0.5, 0.5]
    """
    F = np.asarray(cdf_at_thresholds, dtype=float)
    m = len(F)
    # state: (count of p-values <= current threshold, rejections so far) -> probability
    dist = np.zeros((m + 1, m + 1))
    dist[0, 0] = 1.0
    prev = 0.0
    for k in range(1, m + 1):
        mass = F[k - 1] - prev
        rest = 1.0 - prev
        prob = 0.0 if rest <= 0 else min(max(mass / rest, 0.0), 1.0)
        new = np.zeros_like(dist)
        for n_in in range(m + 1):
            row = dist[n_in]
            if not row.any():
                continue
            left = m - n_in
            add = stats.binom.pmf(np.arange(left + 1), left, prob)
            for j, pj in enumerate(add):
                if pj == 0.0:
                    continue
                n_new = n_in + j
                rej = np.arange(m + 1)
                target = np.where(n_new >= k, k, rej)  # rejections so far become k
                np.add.at(new[n_new], target, row * pj)
        dist = new
        prev = F[k - 1]
    return dist.sum(axis=0)


@shown
@dataclasses.dataclass(frozen=True, repr=False)
class AltTestPower:
    """How likely does a judge of given skill pass the alt-test? (exact, accuracy scoring).

    Parameters
    ----------
    theta : float or sequence of float
        Per agreement bin, the probability that a human gives the item's modal label.
    skill : float or sequence of float
        The system's probability of giving the item's modal label (one, or one per bin).
    weights : sequence of float or None
        The bins' shares of the items (default equal).
    n_labels : int
    epsilon, q : float
        The test's margin and false discovery rate.

    Examples
    --------
    >>> d = AltTestPower(theta=[0.6, 0.9], skill=0.85, weights=[0.5, 0.5], epsilon=0.2)
    >>> round(d.power(n_items=50, n_humans=3), 4)
    0.9352
    >>> d.plan(n_humans=(3,), target=0.8)[["n_humans", "n_items", "power"]].round(4)
       n_humans  n_items   power
    0         3       35  0.8132
    >>> d.supported_epsilon(n_items=50, n_humans=3, target=0.8)
    0.17
    """

    theta: tuple
    skill: tuple
    weights: tuple | None = None
    n_labels: int = 2
    epsilon: float = 0.2
    q: float = 0.05

    def __post_init__(self):
        theta = _floats(self.theta, "theta", "probabilities in [0, 1]")
        skill = _floats(self.skill, "skill", "one probability or one per bin")
        if not theta or any(not 0.0 <= x <= 1.0 for x in theta):
            raise ValueError(f"theta must be probabilities in [0, 1], got {self.theta!r}")
        if len(skill) not in (1, len(theta)) or any(not 0.0 <= x <= 1.0 for x in skill):
            raise ValueError(f"skill must be one probability or one per bin, got {self.skill!r}")
        w = np.ones(len(theta)) if self.weights is None else np.asarray(
            _floats(self.weights, "weights", "one non-negative number per bin"))
        if w.shape != (len(theta),) or not np.isfinite(w).all() or np.any(w < 0) or \
                w.sum() <= 0:
            raise ValueError(f"weights must be one finite non-negative number per bin (not all "
                             f"0), got {self.weights!r}")
        if isinstance(self.n_labels, bool) or not isinstance(self.n_labels, (int, np.integer)) \
                or not 2 <= self.n_labels <= MAX_LABELS:
            raise ValueError(f"n_labels must be a whole number in [2, {MAX_LABELS}], got "
                             f"{self.n_labels!r}")
        if _check_epsilon(self.epsilon) == 0.0 and isinstance(self.epsilon, float):
            object.__setattr__(self, "epsilon", 0.0)  # -0.0 shown as 0.0
        from labelvar.judge._data import check_q

        check_q(self.q)
        object.__setattr__(self, "theta", theta)
        object.__setattr__(self, "skill", skill * len(theta) if len(skill) == 1 else skill)
        object.__setattr__(self, "weights", tuple(float(x) for x in w / w.sum()))

    @classmethod
    def from_raters(cls, fit, *, skill, epsilon: float = 0.2, q: float = 0.05):
        """The design of a fitted rater model (``fit_raters``), one agreement bin.

        theta is the raters' mean accuracy (weighted by their items); the number of
        labels is the model's.

        Examples
        --------
        >>> import numpy as np, pandas as pd, labelvar
        >>> rng = np.random.default_rng(0)
        >>> truth = rng.integers(0, 2, 200)
        >>> votes = pd.DataFrame([(i, r, int(truth[i]) if rng.random() < 0.8 else
        ...                        1 - int(truth[i])) for i in range(200) for r in "abc"],
        ...                      columns=["item", "rater", "label"])
        >>> d = AltTestPower.from_raters(labelvar.fit_raters(votes, n_resamples=0), skill=0.85)
        >>> d.n_labels, round(d.theta[0], 2)
        (2, 0.77)
        """
        skills = getattr(fit, "skills", None)
        if not isinstance(skills, pd.DataFrame) or "accuracy" not in skills:
            raise ValueError("fit must be a fitted rater model (fit_raters(...))")
        w = skills["n_items"].to_numpy(float) if "n_items" in skills else None
        theta = float(np.average(skills["accuracy"].to_numpy(float), weights=w))
        return cls(theta=theta, skill=skill, n_labels=len(fit.model.labels), epsilon=epsilon,
                   q=q)

    def comparison_law(self, *, n_humans: int) -> np.ndarray:
        """(P tie, P system better, P human better) of one comparison, bins mixed."""
        _check_humans(n_humans, self.n_labels)
        law = np.zeros(3)
        for t, s, w in zip(self.theta, self.skill, self.weights):
            law += w * comparison_law(t, s, n_humans=n_humans, n_labels=self.n_labels)
        return law

    def rejections(self, *, n_items: int, n_humans: int, epsilon: float | None = None
                   ) -> np.ndarray:
        """The exact law of the number of humans rejected (0..n_humans)."""
        _check_items(n_items)
        eps = self.epsilon if epsilon is None else _check_epsilon(epsilon)
        law = self.comparison_law(n_humans=n_humans)
        thr = _stats.by_thresholds(int(n_humans), self.q)
        return rejections_law(rejection_cdf(law, n_items=n_items, thresholds=thr, epsilon=eps))

    def power(self, *, n_items: int, n_humans: int, epsilon: float | None = None) -> float:
        """P(the alt-test passes): P(winning rate >= 0.5), exact under the model."""
        dist = self.rejections(n_items=n_items, n_humans=n_humans, epsilon=epsilon)
        need = math.ceil(int(n_humans) / 2)
        return float(dist[need:].sum())

    def plan(self, *, n_humans=(2, 3, 4, 5), target: float = 0.8, max_items: int = 500,
             min_items: int = 30) -> pd.DataFrame:
        """The smallest number of items per human reaching ``target`` power, per K.

        Every N from ``min_items`` up is tried (the power of a discrete test is not
        monotone in N), so the N returned is the smallest that meets the target; NaN
        when none up to ``max_items`` does. ``min_items`` defaults to the paper's 30
        items per human (below it the t-test's normality is doubtful, and with a few
        items a run of ties has sd 0 and p = 0).
        """
        target = _check_target(target)
        ks = _humans_list(n_humans, self.n_labels)
        for name, v in (("min_items", min_items), ("max_items", max_items)):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or \
                    not 2 <= v <= MAX_ITEMS:
                raise ValueError(f"{name} must be a whole number in [2, {MAX_ITEMS}] (items per "
                                 f"human), got {v!r}")
        if max_items < min_items:
            raise ValueError(f"max_items must be at least min_items (the smallest N tried: "
                             f"{min_items}), got {max_items!r}")
        _check_cost(ks, range(int(min_items), int(max_items) + 1), "max_items")
        rows = []
        for k in ks:
            found = None
            for n in range(int(min_items), int(max_items) + 1):
                pw = self.power(n_items=n, n_humans=k)
                if pw >= target:
                    found = (n, pw)
                    break
            rows.append({"n_humans": k, "n_items": found[0] if found else np.nan,
                         "power": found[1] if found else np.nan, "target": target,
                         "epsilon": self.epsilon})
        return pd.DataFrame(rows)

    def curves(self, *, n_humans=(2, 3, 4, 5), n_items=range(30, 201)) -> pd.DataFrame:
        """The exact power per (humans per item, items per human), for a figure.

        Columns ``n_humans``, ``n_items``, ``power``.
        """
        ks = _humans_list(n_humans, self.n_labels)
        try:
            ns = np.atleast_1d(np.asarray(n_items))
        except (TypeError, ValueError):
            ns = np.array([None])
        if ns.ndim != 1 or ns.size == 0 or ns.size > MAX_ITEMS:
            raise ValueError(f"n_items must be 1 to {MAX_ITEMS} numbers of items per human, got "
                             f"{ns.size} values")
        for n in ns:
            _check_items(n.item() if isinstance(n, np.generic) else n)
        _check_cost(ks, [int(n) for n in ns], "n_items")
        rows = [{"n_humans": k, "n_items": int(n), "power": self.power(n_items=int(n),
                                                                        n_humans=k)}
                for k in ks for n in ns]
        return pd.DataFrame(rows)

    def supported_epsilon(self, *, n_items: int, n_humans: int, target: float = 0.8,
                          grid=None) -> float:
        """The smallest epsilon on ``grid`` (default 0, 0.01, ... 0.5) with power >= target."""
        _check_target(target)
        grid = np.round(np.arange(0.0, 0.5001, 0.01), 2) if grid is None else \
            np.asarray(_floats(grid, "grid", "epsilons in [0, 1)"))
        if grid.size == 0:
            raise ValueError("grid must be epsilons in [0, 1), got none")
        for e in grid:
            _check_epsilon(e)
        _check_items(n_items)
        _check_cost([_humans_list(n_humans, self.n_labels)[0]], [n_items] * grid.size, "grid")
        for e in grid:
            if self.power(n_items=n_items, n_humans=n_humans, epsilon=float(e)) >= target:
                return float(e)
        return float("nan")

    def simulate(self, *, n_items: int, n_humans: int, n_resamples: int = 2000, seed=0,
                 shared: bool = False) -> tuple[float, float]:
        """Monte Carlo power and its standard error.

        ``shared=False`` draws each human's comparisons independently (the model of
        :meth:`power`); ``shared=True`` runs the real design: one set of items, every
        human annotating all of them, each in the others' references.
        """
        from labelvar.judge._power_sim import simulate_power

        _check_items(n_items)
        _check_humans(n_humans)
        if isinstance(n_resamples, (bool, np.bool_)) or not isinstance(
                n_resamples, (int, np.integer)) or not 1 <= n_resamples <= MAX_SIM_RESAMPLES:
            raise ValueError(f"n_resamples must be a whole number in [1, {MAX_SIM_RESAMPLES}], "
                             f"got {n_resamples!r}")
        if int(n_resamples) * int(n_items) * int(n_humans) ** 2 > 2 * 10**10:
            raise ValueError(f"n_resamples={n_resamples} with n_items={n_items} and "
                             f"n_humans={n_humans} is too large a simulation (over 2e10 votes "
                             "drawn); use fewer resamples")

        return simulate_power(self, n_items=n_items, n_humans=n_humans,
                              n_resamples=n_resamples, seed=seed, shared=shared)

    def _shown(self) -> dict:
        return {"theta": self.theta, "skill": self.skill, "weights": self.weights,
                "n_labels": self.n_labels, "epsilon": self.epsilon}

    def describe(self) -> str:
        """One line naming the design question."""
        return (f"alt-test power: {len(self.theta)} agreement bin(s), theta {self.theta}, "
                f"system skill {self.skill}, {self.n_labels} labels, epsilon {self.epsilon}")


def _floats(x, name: str, allowed: str) -> tuple:
    """``x`` (a number or a sequence of numbers) as a tuple of floats, else one clear line."""
    try:
        arr = np.atleast_1d(np.asarray(x, dtype=float))
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.ndim != 1 or isinstance(x, (str, bytes, bool)):
        raise ValueError(f"{name} must be {allowed}, got {x!r}")
    return tuple(float(v) for v in arr)


def _check_epsilon(e) -> float:
    """The margin epsilon as a float in [0, 1), else one clear line."""
    try:
        v = math.nan if isinstance(e, (bool, np.bool_, str)) else float(e)
    except (TypeError, ValueError):
        v = math.nan
    if not 0.0 <= v < 1.0:
        raise ValueError(f"epsilon must be in [0, 1) (a number), got {e!r}")
    return v + 0.0  # -0.0 is 0


def _check_target(target) -> float:
    """A target power in (0, 1), else one clear line."""
    if isinstance(target, (bool, np.bool_)) or not isinstance(target, numbers.Real) or \
            not 0.0 < float(target) < 1.0:
        raise ValueError(f"target must be in (0, 1) (a number), got {target!r}")
    return float(target)


def _check_humans(k, n_labels: int | None = None):
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or k < 2:
        raise ValueError(f"n_humans must be a whole number >= 2, got {k!r}")
    if k > MAX_HUMANS:
        raise ValueError(f"n_humans must be at most {MAX_HUMANS} humans per item for the exact "
                         f"power, got {k!r}")
    if n_labels is not None and math.comb(int(k) - 1 + n_labels - 1, n_labels - 1) > \
            MAX_COMPOSITIONS:
        raise ValueError(f"n_humans={k} with {n_labels} labels is too large for the exact power "
                         f"(more than {MAX_COMPOSITIONS} vote patterns of the other humans); use "
                         "fewer humans per item or fewer labels (n_labels)")


#: the most seconds of exact power a plan or curves may ask for (refused before work)
MAX_SECONDS = 40.0


def _check_cost(ks, ns, field: str) -> None:
    """Refuse a scan of N (plan, curves) that would run for minutes, naming ``field``.

    The cost of one exact power is about ``1.1e-7 N^2 + 3.2e-6 K^3`` seconds (the
    p-values of every outcome count, then the rejections' law over K humans); a plan
    whose target is never reached scans every N up to ``max_items``.
    """
    sq = sum(int(n) ** 2 for n in ns)
    cost = sum(1.1e-7 * sq + 3.2e-6 * k ** 3 * len(ns) for k in ks)
    if cost > MAX_SECONDS:
        raise ValueError(f"{field}: {len(ns)} values of N (up to {max(ns)}) for "
                         f"{len(ks)} value(s) of n_humans would take minutes of exact power "
                         f"(about {cost:.0f} s); use a smaller {field} or fewer n_humans")


def _humans_list(n_humans, n_labels) -> list:
    """``n_humans`` (one or several humans per item) as a checked list of ints."""
    ks = list(np.atleast_1d(np.asarray(n_humans, dtype=object)))
    if not ks:
        raise ValueError("n_humans must give at least one number of humans per item, got none")
    for k in ks:
        _check_humans(k, n_labels)
    ks = [int(k) for k in ks]
    twice = [k for i, k in enumerate(ks) if k in ks[:i]]
    if twice:
        raise ValueError(f"n_humans: {twice[0]} is given twice in {ks}; give each number of "
                         "humans per item once")
    return ks


def _check_items(n):
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"n_items must be a whole number >= 2, got {n!r}")
    if n > MAX_ITEMS:
        raise ValueError(f"n_items must be at most {MAX_ITEMS} for the exact power, got {n!r}")
