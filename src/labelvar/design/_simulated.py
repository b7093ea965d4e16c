"""Simulated power: the planned study re-run by the engine, the same test per replicate.

Every draw comes from :func:`labelvar.simulate` (panel mode, the scenario's θ prior,
tie rule and class prior, positives drawn per item): the system and the baseline
(``separability``, ``precision``) or a :class:`labelvar.ModelPair` with
correlated errors (``two_systems``). Per replicate the scored strata (observed
agreement >= ``min_agreement``) are summed and the test of the exact calculation is
applied to the counts. A (K, N) has its own stream,
``_seeding.derive(seed, "design", question, K, N)``, so the numbers do not depend on
the order in which the planner's search visits the points.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from labelvar._base import _seeding
from labelvar.design._power import (
    Cell,
    f1_and_gradient,
    f1_difference_variance,
    mcnemar_lower_critical,
    separability_critical,
    unpaired_z,
    wilson_half_width,
)
from labelvar.design._scenario import Scenario


def simulated_power(sc: Scenario, K: int, N: int, replicates: int, seed: int,
                    cell: Cell) -> dict:
    """Simulated power of the scenario's test at (K, N) from ``replicates`` engine studies.

    Parameters
    ----------
    sc : Scenario
    K, N : int
        Panel size and items (per system for the unpaired test).
    replicates : int
        Simulated studies.
    seed : int
        The plan's seed (an int, or None for a fresh one); the stream of (K, N) is
        derived from it.
    cell : Cell
        Exact per-item probabilities (the separability test's baseline accuracy).

    Returns
    -------
    dict
        ``power_simulated``, ``power_se`` (binomial Monte Carlo SE),
        ``p_beats_baseline_simulated`` (NaN for ``two_systems``) and
        ``scored_items_simulated`` (mean scored items; of system A when unpaired).
    """
    stream = _seeding.derive(seed, "design", sc.question, int(K), int(N))
    if sc.question == "two_systems":
        reject, n_s = _two_systems(sc, K, N, replicates, stream)
        beats = np.nan
    else:
        reject, beats, n_s = _one_system(sc, K, N, replicates, stream, cell)
    p = float(reject.mean())
    return {"power_simulated": p,
            "power_se": math.sqrt(p * (1 - p) / replicates),
            "p_beats_baseline_simulated": beats,
            "scored_items_simulated": float(n_s.mean())}


def _simulate(sc: Scenario, K: int, N: int, labellers, replicates: int, seed: int, outputs):
    from labelvar.engine._items import Panel
    from labelvar.engine._simulate import simulate
    from labelvar.votes._priors import ItemModel

    L = sc.n_labels
    classes = {} if isinstance(sc.theta, ItemModel) else dict(  # an item model's are its own
        m=float(sc.m[1]) if L == 2 else 0.5, class_prior=None if L == 2 else sc.m.tolist(),
        positives="bernoulli")
    items = Panel(theta_prior=sc.theta, panel_size=int(K), n_labels=L, tie_rule=sc.tie_rule,
                  **classes)
    return simulate(items, labellers, n_items=int(N), replicates=replicates, seed=seed,
                    expected=False, outputs=outputs)


def _scored(table: pd.DataFrame, sc: Scenario, K: int) -> pd.DataFrame:
    """Rows of the scored strata: observed agreement >= min_agreement (all items if 0)."""
    if sc.min_agreement <= 0:
        return table[table["stratum"] == "all"]
    strata = table[table["stratum"] != "all"]
    top = np.round(strata["stratum"].astype(float).to_numpy() * K)
    return strata[top / K >= sc.min_agreement - 1e-12]


def _one_system(sc: Scenario, K: int, N: int, replicates: int, seed: int, cell: Cell):
    """Separability / precision: the system and the baseline label the same items."""
    from labelvar.votes._models import Expert, Model, Prior, Random

    qa, _ = sc.accuracies
    system = Expert(name="system") if qa is None else Model(accuracy=qa, name="system")
    base = Random(name="base") if sc.baseline == "random" else Prior(name="base")
    raw = _scored(_simulate(sc, K, N, (system, base), replicates, seed, ["raw"]).raw, sc, K)
    tot = raw.groupby(["labeller", "replicate"])[["n", "correct"]].sum()
    idx = pd.MultiIndex.from_product([["system", "base"], range(replicates)],
                                     names=["labeller", "replicate"])
    tot = tot.reindex(idx, fill_value=0)
    n_s = tot.loc["system", "n"].to_numpy()
    x = tot.loc["system", "correct"].to_numpy()
    xb = tot.loc["base", "correct"].to_numpy()
    if sc.question == "separability":
        reject = (n_s > 0) & (x >= separability_critical(n_s, cell.p_baseline, sc.alpha))
    else:
        reject = wilson_half_width(x, n_s, sc.confidence_level) <= sc.half_width
    return reject, float((x > xb).mean()), n_s


def _joint_counts(sc: Scenario, K: int, N: int, replicates: int, seed: int) -> np.ndarray:
    """Scored items per replicate and (GT, A, B) labels: shape (replicates, L, L, L)."""
    from labelvar.votes._models import ModelPair

    qa, qb = sc.accuracies
    pair = ModelPair(qa, qb, error_correlation=sc.error_correlation, names=("A", "B"))
    joint = _scored(_simulate(sc, K, N, [pair], replicates, seed, ["joint"]).joint, sc, K)
    L = sc.n_labels
    code = (joint["truth"].to_numpy() * L + joint["A"].to_numpy()) * L + joint["B"].to_numpy()
    out = np.zeros(replicates * L**3, dtype=np.int64)
    np.add.at(out, joint["replicate"].to_numpy() * L**3 + code, joint["count"].to_numpy())
    return out.reshape(replicates, L, L, L)


def _two_systems(sc: Scenario, K: int, N: int, replicates: int, seed: int):
    """Reject flags and scored items (of A) per replicate for the two-systems test.

    Paired: A and B label the same items. Unpaired: 2 x ``replicates`` studies are
    drawn; A is scored on the first half, B on the second (independent item sets).
    """
    from labelvar.design._binom import norm

    paired = sc.test == "paired"
    cnt = _joint_counts(sc, K, N, replicates if paired else 2 * replicates, seed)
    L = sc.n_labels
    z_crit = norm.isf(sc.alpha / 2)
    if sc.metric == "f1":  # L = 2, label 1 positive: cells [g, a, b]
        with np.errstate(divide="ignore", invalid="ignore"):
            if paired:
                n_s = cnt.sum(axis=(1, 2, 3))
                d, v = f1_difference_variance(cnt / n_s[:, None, None, None])
                se, n_min = np.sqrt(v / n_s), n_s
            else:
                ga, gb = cnt[:replicates].sum(axis=-1), cnt[replicates:].sum(axis=-2)
                n_s, nb = ga.sum(axis=(1, 2)), gb.sum(axis=(1, 2))
                pa, pb = ga / n_s[:, None, None], gb / nb[:, None, None]
                fa, da = f1_and_gradient(pa)
                fb, db = f1_and_gradient(pb)
                va = (pa * da * da).sum(axis=(1, 2)) - (pa * da).sum(axis=(1, 2)) ** 2
                vb = (pb * db * db).sum(axis=(1, 2)) - (pb * db).sum(axis=(1, 2)) ** 2
                d, se, n_min = fa - fb, np.sqrt(va / n_s + vb / nb), np.minimum(n_s, nb)
            z = np.nan_to_num(d / se, nan=0.0)  # A's F1 significantly higher only
        return (n_min > 0) & (se > 0) & (z >= z_crit), n_s
    right = np.eye(L, dtype=bool)  # [truth, prediction]
    if paired:
        n10 = (cnt * (right[:, :, None] & ~right[:, None, :])).sum(axis=(1, 2, 3))
        n01 = (cnt * (~right[:, :, None] & right[:, None, :])).sum(axis=(1, 2, 3))
        dis = n10 + n01
        j = mcnemar_lower_critical(dis, sc.alpha)
        return (j >= 0) & ((n10 <= j) | (n10 >= dis - j)), cnt.sum(axis=(1, 2, 3))
    a, b = cnt[:replicates], cnt[replicates:]
    na, nb = a.sum(axis=(1, 2, 3)), b.sum(axis=(1, 2, 3))
    xa = (a * right[:, :, None]).sum(axis=(1, 2, 3))
    xb = (b * right[:, None, :]).sum(axis=(1, 2, 3))
    return unpaired_z(xa, na, xb, nb) >= z_crit, na
