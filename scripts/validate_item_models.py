"""Validate the item models on held-out many-vote data (ChaosNLI: 100 votes per item).

    PYTHONPATH=src python scripts/validate_item_models.py [--data DIR] [--k 3 5 10]
        [--seed 0] [--figure docs/item_models.png] [--table out.csv]

For each data set and pilot size K: draw K of each item's votes at random without
replacement (seeded, :mod:`labelvar._base._seeding`), fit every model on the K-vote counts only,
predict for every item the probability that one more annotator agrees with the item's
K-vote plurality label (:func:`labelvar.votes._pilot.predict_agreement`; tied labels averaged),
and compare with the held-out votes (the item's other 100 - K votes: the share equal to
the plurality label), per observed-agreement bin (top / K). The score of a model is the
item-weighted mean over bins of |mean predicted - mean held-out|.

Models: the paper's rule E = p_d (agreement = observed top / K), the symmetric panel model
θ ~ Beta (fit_pilot method "beta", modal label unknown), a Dirichlet with one α per label,
Dirichlet mixtures of 2 and 3 components, and the empirical model on the K-vote shares.
The data is read from ``<repo>/../shared/data/chaosnli`` (never copied into the repository).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from labelvar._base import _seeding
from labelvar.votes._pilot import fit_pilot, predict_agreement

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "chaosnli" / "chaosNLI_v1.0"
DATASETS = {"SNLI": "chaosNLI_snli.jsonl", "MNLI": "chaosNLI_mnli_m.jsonl"}
#: (name, fit_pilot method, options); "p_d" is the paper's rule, no fit
MODELS = (("E = p_d", None, {}),
          ("theta ~ Beta (symmetric)", "beta", {}),
          ("Dirichlet", "dirichlet", {}),
          ("Dirichlet mixture (2)", "dirichlet_mixture", {"n_components": 2}),
          ("Dirichlet mixture (3)", "dirichlet_mixture", {"n_components": 3}),
          ("empirical (K-vote shares)", "empirical", {}))


def load(path: Path) -> np.ndarray:
    """ChaosNLI ``label_count`` vectors (order [e, n, c]) as an (items, 3) int array."""
    with open(path) as fh:
        return np.array([json.loads(line)["label_count"] for line in fh if line.strip()],
                        dtype=np.int64)


def subsample(counts: np.ndarray, k: int, seed: int, name: str) -> np.ndarray:
    """K of each item's votes without replacement (multivariate hypergeometric), seeded."""
    rng = _seeding.generator(seed, "validate_item_models", name, int(k))
    return np.stack([rng.multivariate_hypergeometric(row, k) for row in counts])


def validate(counts: np.ndarray, k: int, seed: int = 0, name: str = "data") -> pd.DataFrame:
    """Per model and bin: predicted vs held-out agreement; ``bin == "weighted"`` rows score.

    Returns a tidy table: data, K, model, bin, n_items, agreement, predicted, held_out,
    error (the weighted row: item-weighted mean |error| over bins), and the fitted model.
    """
    pilot = subsample(counts, k, seed, name)
    held = counts - pilot
    parts = []
    for label, method, options in MODELS:
        if method is None:
            pred = predict_agreement("dirichlet:1,1,1", pilot)  # only its bins/p_d are used
            table = pred.compare(held)
            table["predicted"] = table["agreement"]
            table["error"] = table["error_p_d"]
            fitted = "top / K"
        else:
            fit = fit_pilot(pilot, method, seed=seed, **options) if method != "beta" \
                else fit_pilot(pilot, method)
            table = predict_agreement(fit.prior, pilot).compare(held)
            fitted = fit.prior.describe(counts.shape[1]) if method != "empirical" else \
                "K-vote shares"
            table["aic"] = fit.aic
        table = table.drop(columns=["error_p_d"])
        parts.append(table.assign(data=name, K=int(k), model=label, fitted=fitted))
    out = pd.concat(parts, ignore_index=True)
    # the honest choice without held-out votes: the Dirichlet family member of least AIC
    dirichlet = out[out["model"].str.startswith("Dirichlet") & (out["bin"] == "weighted")]
    best = dirichlet.loc[dirichlet["aic"].idxmin(), "model"]
    out = pd.concat([out, out[out["model"] == best].assign(model=f"AIC-selected: {best}")],
                    ignore_index=True)
    first = ["data", "K", "model", "bin"]
    return out[first + [c for c in out.columns if c not in first]]


def validate_all(data_dir: Path = DEFAULT_DATA, ks=(3, 5, 10), seed: int = 0) -> pd.DataFrame:
    """:func:`validate` on every data set of :data:`DATASETS` and every K, one table."""
    parts = [validate(load(Path(data_dir) / file), k, seed, name)
             for name, file in DATASETS.items() for k in ks]
    return pd.concat(parts, ignore_index=True)


def figure(table: pd.DataFrame):
    """The validation figure (the docs' ``item_models.png``, drawn by scripts/render_figures.py)."""
    from labelvar import plots

    return plots.plot_item_models(table, title="ChaosNLI: agreement of one more annotator "
                                  "with the K-vote plurality")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--k", type=int, nargs="+", default=[3, 5, 10])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--figure", type=Path, default=None)
    ap.add_argument("--table", type=Path, default=None)
    args = ap.parse_args(argv)
    if not args.data.is_dir():
        print(f"ChaosNLI not found at {args.data}", file=sys.stderr)
        return 2
    table = validate_all(args.data, args.k, args.seed)
    weighted = table[table["bin"] == "weighted"]
    score = weighted.assign(model=weighted["model"].str.replace(r"AIC-selected: .*",
                                                                "AIC-selected Dirichlet family",
                                                                regex=True)).pivot_table(
        index="model", columns=["data", "K"], values="error", sort=False)
    pd.set_option("display.width", 160)
    print("weighted mean |predicted - held-out| agreement over observed-agreement bins")
    print(score.round(4).to_string())
    fits = table[table["bin"] == "weighted"][["data", "K", "model", "fitted"]]
    print()
    print(fits[fits["model"].str.startswith(("Dirichlet", "theta", "AIC"))].to_string(index=False))
    if args.table:
        table.to_csv(args.table, index=False)
    if args.figure:
        from labelvar import plots

        stem = args.figure.with_suffix("") if args.figure.suffix else args.figure
        fmt = args.figure.suffix.lstrip(".") or "png"
        # the resolution of scripts/render_figures.py, which draws the same figure for the docs
        (path,) = plots.save(figure(table), stem, formats=(fmt,), dpi=110)
        print(f"figure: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
