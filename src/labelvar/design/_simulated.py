"""Simulated power: the planned study re-run item by item, the same test per replicate.

Two simulators live here until the engine can draw two systems with correlated errors:
:func:`labelvar.simulate` (separability, precision) and a seeded per-item numpy
simulation of the same model (every question; the only one for ``two_systems``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from labelvar.design._power import (
    Cell,
    f1_and_gradient,
    f1_difference_variance,
    mcnemar_lower_critical,
    separability_critical,
    wilson_half_width,
)
from labelvar.design._scenario import QUESTIONS, Scenario


def numpy_power(sc: Scenario, K: int, N: int, replicates: int, seed: int,
                    cell: Cell) -> dict:
    """Simulate the study item by item (seeded numpy) and apply the same test.

    Each replicate draws θ for every item, the K panel votes (modal-label count
    Binomial(K, θ), the rest multinomial over the other labels), the plurality GT with
    the tie rule, and every labeller's label; then counts and tests exactly as a real
    study would. The stream depends only on (seed, question, K, N).
    """
    L = sc.n_labels
    q_code = QUESTIONS.index(sc.question)
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 6, q_code, int(K), int(N)]))
    n_sets = 2 if (sc.question == "two_systems" and sc.test == "unpaired") else 1
    items = N * n_sets
    chunk = max(1, 2_000_000 // max(1, items * max(K, L)))
    reject = np.empty(replicates, dtype=bool)
    beats = np.empty(replicates, dtype=bool)
    n_scored = np.empty(replicates, dtype=np.int64)
    qa, qb = sc.accuracies
    for start in range(0, replicates, chunk):
        r = min(chunk, replicates - start)
        shape = (r, items)
        th = sc.theta.sample(rng, L, shape)
        v0 = rng.binomial(K, th)
        if L == 2:
            counts = np.stack([v0, K - v0], axis=-1)
        else:
            rest = rng.multinomial(K - v0, np.full(L - 1, 1.0 / (L - 1)))
            counts = np.concatenate([v0[..., None], rest], axis=-1)
        top = counts.max(axis=-1)
        tied = counts == top[..., None]
        if sc.tie_rule == "random":
            gt = np.argmax(np.where(tied, rng.random(counts.shape), -1.0), axis=-1)
            scored = np.ones(shape, dtype=bool)
        else:
            gt = np.argmax(counts, axis=-1)
            scored = tied.sum(axis=-1) == 1
        scored &= top / K >= sc.min_agreement - 1e-12

        def label(modal_correct, shape=shape):
            other = rng.integers(1, L, size=shape) if L > 2 else np.ones(shape, np.int64)
            return np.where(modal_correct, 0, other)

        if sc.question == "two_systems":
            s = math.sqrt(qa * (1 - qa) * qb * (1 - qb))
            p11 = qa * qb + sc.error_correlation * s
            u = rng.random(shape)
            ca = u < qa
            cb = (u < p11) | ((u >= qa) & (u < qa + qb - p11))
            la, lb = label(ca), label(cb)
            ok_a = (la == gt) & scored
            ok_b = (lb == gt) & scored
            if sc.metric == "f1":
                from scipy.stats import norm

                c1 = rng.random(shape) < sc.m[1]  # the modal label's class
                g_cls = np.where(gt == 0, c1, ~c1)
                a_cls = np.where(la == 0, c1, ~c1)
                b_cls = np.where(lb == 0, c1, ~c1)
                code = 4 * g_cls + 2 * a_cls + b_cls
                if sc.test == "paired":
                    cnt = np.stack([((code == k) & scored).sum(axis=1) for k in range(8)], -1)
                    n_s = cnt.sum(axis=1)
                    nn = n_s
                else:  # A scores the first N items, B the second N
                    code_a = 4 * g_cls[:, :N] + 2 * a_cls[:, :N]  # b bit 0: A's own cells
                    code_b = 4 * g_cls[:, N:] + b_cls[:, N:]
                    ca_cnt = np.stack([((code_a == k) & scored[:, :N]).sum(axis=1)
                                       for k in (0, 2, 4, 6)], -1).reshape(-1, 2, 2)
                    cb_cnt = np.stack([((code_b == k) & scored[:, N:]).sum(axis=1)
                                       for k in (0, 1, 4, 5)], -1).reshape(-1, 2, 2)
                    n_s = ca_cnt.sum(axis=(1, 2))
                    nb_ = cb_cnt.sum(axis=(1, 2))
                    nn = np.minimum(n_s, nb_)
                with np.errstate(divide="ignore", invalid="ignore"):
                    if sc.test == "paired":
                        d, v = f1_difference_variance(cnt.reshape(-1, 2, 2, 2)
                                                      / n_s[:, None, None, None])
                        se = np.sqrt(v / n_s)
                    else:
                        pa_ = ca_cnt / n_s[:, None, None]
                        pb_ = cb_cnt / nb_[:, None, None]
                        fa, ga = f1_and_gradient(pa_)
                        fb, gb = f1_and_gradient(pb_)
                        va = (pa_ * ga * ga).sum(axis=(1, 2)) - (pa_ * ga).sum(axis=(1, 2)) ** 2
                        vb = (pb_ * gb * gb).sum(axis=(1, 2)) - (pb_ * gb).sum(axis=(1, 2)) ** 2
                        d, se = fa - fb, np.sqrt(va / n_s + vb / nb_)
                    zz = np.abs(d) / se
                rej = (nn > 0) & (se > 0) & (np.nan_to_num(zz, nan=0.0) >= norm.isf(sc.alpha / 2))
                reject[start:start + r] = rej
                beats[start:start + r] = False
                n_scored[start:start + r] = n_s
                continue
            if sc.test == "paired":
                n10 = (ok_a & ~ok_b).sum(axis=1)
                n01 = (~ok_a & ok_b).sum(axis=1)
                d = n10 + n01
                j = mcnemar_lower_critical(d, sc.alpha)
                rej = (j >= 0) & ((n10 <= j) | (n10 >= d - j))
                n_s = scored.sum(axis=1)
            else:
                from scipy.stats import norm

                na, nb = scored[:, :N].sum(axis=1), scored[:, N:].sum(axis=1)
                xa, xb = ok_a[:, :N].sum(axis=1), ok_b[:, N:].sum(axis=1)
                with np.errstate(divide="ignore", invalid="ignore"):
                    pp = (xa + xb) / (na + nb)
                    se = np.sqrt(pp * (1 - pp) * (1 / na + 1 / nb))
                    zz = (xa / na - xb / nb) / se
                rej = np.nan_to_num(np.abs(zz), nan=0.0) >= norm.isf(sc.alpha / 2)
                rej &= (na > 0) & (nb > 0) & (se > 0)
                n_s = na
            reject[start:start + r] = rej
            beats[start:start + r] = False
            n_scored[start:start + r] = n_s
            continue
        modal_ok = rng.random(shape) < (th if qa is None else qa)
        ok = (label(modal_ok) == gt) & scored
        n_s = scored.sum(axis=1)
        x = ok.sum(axis=1)
        if sc.baseline == "random":
            base_ok = (rng.integers(0, L, size=shape) == gt) & scored
        else:
            modal_class = rng.choice(L, size=shape, p=sc.m)
            gt_class = (modal_class + gt) % L
            base_ok = (rng.choice(L, size=shape, p=sc.m) == gt_class) & scored
        xb = base_ok.sum(axis=1)
        if sc.question == "separability":
            c = separability_critical(n_s, cell.p_baseline, sc.alpha)
            reject[start:start + r] = (n_s > 0) & (x >= c)
        else:
            reject[start:start + r] = wilson_half_width(x, n_s, sc.confidence_level) <= sc.half_width
        beats[start:start + r] = x > xb
        n_scored[start:start + r] = n_s
    p = float(reject.mean())
    return {
        "power_simulated": p,
        "power_se": math.sqrt(max(p * (1 - p), 1e-300) / replicates),
        "p_beats_baseline_simulated": float(beats.mean())
        if sc.question != "two_systems" else np.nan,
        "scored_items_simulated": float(n_scored.mean()),
    }


def engine_power(sc: Scenario, K: int, N: int, replicates: int, seed: int,
                           cell: Cell) -> dict:
    """Simulated power from the engine (:func:`labelvar.simulate`, panel mode, raw output).

    Separability and precision only: the engine labels the same simulated items with the
    system (expert, or a ``Model`` with ``accuracy_a``) and the baseline (``Random`` or
    ``Prior``); per replicate the scored strata (observed p_d >= min_agreement) are summed
    and the same test as the exact calculation is applied.
    """
    from labelvar.models import Expert, Model, Prior, Random
    from labelvar.simulate import simulate

    qa, _ = sc.accuracies
    system = Expert(name="system") if qa is None else Model(accuracy=qa, name="system")
    base = Random(name="base") if sc.baseline == "random" else Prior(name="base")
    L = sc.n_labels
    eseed = int(np.random.SeedSequence([int(seed), 6, QUESTIONS.index(sc.question), int(K),
                                        int(N)]).generate_state(1)[0])
    _, raw = simulate(m=[float(sc.m[1])] if L == 2 else 0.5,
                      class_prior=None if L == 2 else sc.m.tolist(), n_items=[N],
                      n_labels=[L], panel_size=[K], labellers=(system, base),
                      mode="panel", replicates=replicates, seed=eseed,
                      theta_prior=sc.theta, tie_rule=sc.tie_rule,
                      positives="bernoulli", return_raw=True, expected=False)
    if sc.min_agreement > 0:
        strata = raw[raw["stratum"] != "all"]
        t = np.round(strata["stratum"].astype(float).to_numpy() * K)
        raw = strata[t / K >= sc.min_agreement - 1e-12]
    else:
        raw = raw[raw["stratum"] == "all"]
    tot = raw.groupby(["labeller", "replicate"])[["n", "correct"]].sum()
    idx = pd.MultiIndex.from_product([["system", "base"], range(replicates)],
                                     names=["labeller", "replicate"])
    tot = tot.reindex(idx, fill_value=0)
    n_s = tot.loc["system", "n"].to_numpy()
    x = tot.loc["system", "correct"].to_numpy()
    xb = tot.loc["base", "correct"].to_numpy()
    if sc.question == "separability":
        c = separability_critical(n_s, cell.p_baseline, sc.alpha)
        reject = (n_s > 0) & (x >= c)
    else:
        reject = wilson_half_width(x, n_s, sc.confidence_level) <= sc.half_width
    p = float(reject.mean())
    return {"power_simulated": p,
            "power_se": math.sqrt(max(p * (1 - p), 1e-300) / replicates),
            "p_beats_baseline_simulated": float((x > xb).mean()),
            "scored_items_simulated": float(n_s.mean())}
