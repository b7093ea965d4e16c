"""Type-I error and power of the AI-vs-readers test when the truth is a panel's majority.

Simulated reader studies with a known latent truth (issue 30, item 4): a panel of K
raters votes on every case (Dawid-Skene raters, sensitivity and specificity drawn per
rater in [0.75, 0.95]); r readers and an AI rate every case (binormal: rating = mu * y +
N(0, 1), each reader's mu drawn from N(1.5, 0.3^2), so readers are a random sample);
the AI's mu gives it the readers' population-mean AUC (equal skill: H0 holds against
the latent truth) or an AUC 0.05 lower (power). Each study is analysed by the 1T-RRRC
test of the readers' mean AUC minus the AI's (jackknife covariance) against

- ``fixed``: the panel's majority taken as the truth;
- ``posterior``: the truth's uncertainty, ``fit_raters`` (Dawid-Skene) fitted to the
  panel's votes and ``n_imputations`` truths drawn from its posteriors, combined by
  Rubin's rules (Barnard-Rubin df) -- what ``standalone_vs_readers(..., truth_model=fit)``
  does;
- ``latent``: the latent truth itself (for reference).

Usage::

    python scripts/validate_readers.py                   # 2,000 studies x 4 designs
    python scripts/validate_readers.py --studies 200 --designs 3,4,100
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import pandas as pd
from scipy import stats

from labelvar.readers._standalone import _one, imputed_draws, rubin
from labelvar.votes._raters import fit_raters

#: (panel K, readers, cases)
DESIGNS = ((3, 4, 100), (5, 6, 200), (3, 10, 300), (5, 8, 500))
PREVALENCE = 0.3
MU_READERS, SD_READERS = 1.5, 0.3


def mean_reader_auc() -> float:
    """E[Phi(mu / sqrt 2)] over mu ~ N(MU_READERS, SD_READERS^2) (Gauss-Hermite)."""
    x, w = np.polynomial.hermite_e.hermegauss(60)
    return float((w * stats.norm.cdf((MU_READERS + SD_READERS * x) / np.sqrt(2))).sum() / w.sum())


def ai_mu(auc: float) -> float:
    """The binormal separation with AUC ``auc``."""
    return float(np.sqrt(2) * stats.norm.ppf(auc))


def simulate(k, r, c, rng, mu_ais):
    """One study: latent truth, panel votes, and ratings (1, r + 1, c) with the AI last, for
    each AI separation in ``mu_ais`` (the same cases, panel, readers and noise)."""
    y = rng.random(c) < PREVALENCE
    while y.all() or not y.any():
        y = rng.random(c) < PREVALENCE
    sens, spec = rng.uniform(0.75, 0.95, k), rng.uniform(0.75, 0.95, k)
    p_yes = np.where(y[:, None], sens[None, :], 1 - spec[None, :])
    votes = (rng.random((c, k)) < p_yes).astype(int)
    noise = rng.standard_normal((r + 1, c))
    mu_readers = rng.normal(MU_READERS, SD_READERS, r)
    scores = [(np.append(mu_readers, mu)[:, None] * y[None, :] + noise)[None] for mu in mu_ais]
    return y, votes, scores


def _p(d, se, df):
    return 2 * stats.t.sf(np.abs(d / se), df)


def analyse(y, votes, scores, rng, n_imputations):
    """p-values of the fixed-majority, posterior, Rubin and latent-truth 1T-RRRC tests, for
    each array of ``scores`` (one rater-model fit of the panel serves them all)."""
    c, k = votes.shape
    long = pd.DataFrame({"item": np.repeat(np.arange(c), k), "rater": np.tile(np.arange(k), c),
                         "label": votes.ravel()})
    fit = fit_raters(long, model="dawid_skene", n_resamples=0)
    post = fit.truth[1].to_numpy() if 1 in fit.truth.columns else fit.truth.iloc[:, -1].to_numpy()
    majority = 2 * votes.sum(1) > k
    results = []
    for sc in scores:
        r1 = sc.shape[1]
        out = {}
        for name, truth in (("fixed", majority), ("latent", y)):
            if truth.all() or not truth.any():
                out[name] = np.nan
                continue
            d, se, df, _ = _one(sc, np.broadcast_to(truth, (r1, c)), "auc", "jackknife", "1T-RRRC")
            out[name] = _p(d, se, df)
        (d, se, df), draws = imputed_draws(sc, post, "auc", "jackknife", "1T-RRRC", rng, n_imputations)
        out["posterior"] = float(_p(d, se, df))
        out["rubin"] = float(_p(*rubin(*draws)))
        results.append(out)
    return results


def run_design(k, r, c, n_studies, *, seed=0, n_imputations=20, alpha=0.05):
    """Rejection rates (type-I error with an equal AI, power with a weaker one) of one design."""
    auc = mean_reader_auc()
    ais = ("equal", "lower")
    rng = np.random.default_rng([seed, k, r, c])
    per = [analyse(*simulate(k, r, c, rng, (ai_mu(auc), ai_mu(auc - 0.05))), rng, n_imputations)
           for _ in range(n_studies)]
    rows = []
    for a, which in enumerate(ais):
        ps = pd.DataFrame([p[a] for p in per])
        for method in ("posterior", "rubin", "fixed", "latent"):
            rate = float((ps[method] < alpha).mean())
            rows.append({"K": k, "readers": r, "cases": c, "ai": which, "truth": method,
                         "studies": n_studies, "rejected": rate,
                         "mc_se": float(np.sqrt(rate * (1 - rate) / n_studies))})
    return pd.DataFrame(rows)


def table(results: pd.DataFrame) -> pd.DataFrame:
    """One row per design: type-I errors and powers side by side."""
    wide = results.pivot_table(index=["K", "readers", "cases", "studies"], columns=["ai", "truth"],
                               values="rejected")
    out = pd.DataFrame({
        "type1_posterior": wide[("equal", "posterior")], "type1_fixed": wide[("equal", "fixed")],
        "type1_latent": wide[("equal", "latent")], "type1_rubin": wide[("equal", "rubin")],
        "power_posterior": wide[("lower", "posterior")],
        "power_fixed": wide[("lower", "fixed")], "power_latent": wide[("lower", "latent")]})
    out["in_range"] = out["type1_posterior"].between(0.035, 0.065)
    return out.reset_index()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--studies", type=int, default=2000, help="simulated studies per design and AI")
    default = ";".join(",".join(map(str, d)) for d in DESIGNS)
    ap.add_argument("--designs", default=None, help=f"K,readers,cases;... (default: {default})")
    ap.add_argument("--imputations", type=int, default=20, help="truths drawn per study")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    designs = DESIGNS if args.designs is None else [
        tuple(int(x) for x in d.split(",")) for d in args.designs.split(";")]
    from labelvar._base._format import markdown_table

    t0 = time.perf_counter()
    parts = []
    for d in designs:  # each design's row as soon as it is done (a long run shows progress)
        parts.append(run_design(*d, args.studies, seed=args.seed, n_imputations=args.imputations))
        print(markdown_table(table(parts[-1])).splitlines()[-1], f"({time.perf_counter() - t0:.0f} s)",
              flush=True)
    res = pd.concat(parts, ignore_index=True)
    out = table(res)

    print(f"1T-RRRC, AI vs readers' mean AUC at alpha 0.05 (readers' mean AUC {mean_reader_auc():.4f}; "
          f"lower AI: -0.05); {args.imputations} imputations per study; seed {args.seed}")
    print(markdown_table(out))
    print(f"Monte Carlo SE of a rate near 0.05: {np.sqrt(0.05 * 0.95 / args.studies):.4f}; "
          f"{time.perf_counter() - t0:.0f} s, load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
