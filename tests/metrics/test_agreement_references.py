"""The references of ``agreement_coefficient`` against a plain simulation written here.

Each reference's expectation (exact, or Monte Carlo with its standard error) must be within
3 standard errors of an item-by-item simulation of the same replacement that uses other
implementations of the coefficients (statsmodels' Fleiss κ, scikit-learn's Cohen κ, the
textbook formulas for AC1, Brennan-Prediger and percent agreement).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from labelvar.metrics import agreement_coefficient


def plain_coefficient(counts: np.ndarray, coefficient: str, pairs=None) -> float:
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import fleiss_kappa

    if coefficient == "cohen_kappa" and pairs.shape[1] == 2:
        return cohen_kappa_score(pairs[:, 0], pairs[:, 1], labels=list(range(counts.shape[1])))
    if coefficient == "cohen_kappa":  # Conger: mean over pairs of raters of Cohen's chance term
        q = counts.shape[1]
        margins = [np.bincount(c[c >= 0], minlength=q) / (c >= 0).sum() for c in pairs.T]
        pe = np.mean([margins[g] @ margins[h] for g in range(len(margins))
                      for h in range(len(margins)) if g != h])
        r = counts.sum(axis=1)
        pa = np.mean([(c * (c - 1)).sum() / (n * (n - 1)) for c, n in zip(counts, r)])
        return (pa - pe) / (1 - pe)
    r = counts.sum(axis=1)
    q = counts.shape[1]
    if coefficient == "fleiss_kappa":  # statsmodels needs the same number of raters per item
        assert (r == r[0]).all()
        return fleiss_kappa(counts, method="fleiss")
    pa = np.mean([(c * (c - 1)).sum() / (n * (n - 1)) for c, n in zip(counts, r)])
    pi = (counts / r[:, None]).mean(axis=0)
    pe = {"gwet_ac1": (pi * (1 - pi)).sum() / (q - 1), "brennan_prediger": 1 / q,
          "percent_agreement": 0.0}[coefficient]
    return (pa - pe) / (1 - pe)


def simulate(codes: np.ndarray, q: int, coefficient: str, reference: str, reps: int, rng):
    """Replace one vote per item, item by item, ``reps`` times; mean and its standard error."""
    prevalence = np.bincount(codes[codes >= 0], minlength=q) / (codes >= 0).sum()
    out = []
    for _ in range(reps):
        new = codes.copy()
        for i, row in enumerate(codes):
            slots = np.flatnonzero(row >= 0)
            j = rng.choice(slots)
            others = row[slots[slots != j]]
            if reference == "uniform":
                label = rng.integers(q)
            elif reference == "prevalence":
                label = rng.choice(q, p=prevalence)
            elif reference == "exchangeable":
                label = rng.choice(others)
            else:
                c = np.bincount(others, minlength=q)
                label = rng.choice(np.flatnonzero(c == c.max()))
            new[i, j] = label
        counts = np.stack([(new == k).sum(axis=1) for k in range(q)], axis=1).astype(float)
        out.append(plain_coefficient(counts, coefficient, new))
    out = np.array(out)
    return out.mean(), out.std(ddof=1) / np.sqrt(reps)


def votes_frame(codes: np.ndarray) -> pd.DataFrame:
    i, j = np.nonzero(codes >= 0)
    return pd.DataFrame({"item": i, "rater": j, "label": codes[i, j]})


@pytest.fixture(scope="module")
def panel():
    rng = np.random.default_rng(20)
    n, k, q = 60, 4, 3
    truth = rng.choice(q, size=n, p=[0.6, 0.3, 0.1])
    votes = np.where(rng.random((n, k)) < 0.7, truth[:, None], rng.integers(0, q, (n, k)))
    return votes


@pytest.mark.parametrize("coefficient",
                         ["fleiss_kappa", "gwet_ac1", "brennan_prediger", "percent_agreement"])
def test_references_of_many_raters_match_a_plain_simulation(panel, coefficient):
    res = agreement_coefficient(votes_frame(panel), coefficient, labels=[0, 1, 2],
                                by_agreement=False, n_resamples=400, seed=1)
    rng = np.random.default_rng(99)
    for row in res.references.itertuples():
        mean, se = simulate(panel, 3, coefficient, row.reference, 150, rng)
        assert row.method == ("exact" if coefficient in ("brennan_prediger", "percent_agreement")
                              else "monte_carlo")
        assert abs(row.expected - mean) < 3 * np.hypot(se, row.se), (row.reference, mean, se)


def test_cohen_kappa_references_of_two_raters_match_a_plain_simulation(panel):
    pairs = panel[:, :2]
    table = pd.crosstab(pairs[:, 0], pairs[:, 1]).reindex(index=range(3), columns=range(3),
                                                          fill_value=0)
    res = agreement_coefficient(table, "cohen_kappa", layout="table", by_agreement=False,
                                n_resamples=400, seed=2)
    rng = np.random.default_rng(98)
    got = res.references.set_index("reference")
    for reference in ("uniform", "prevalence"):
        mean, se = simulate(pairs, 3, "cohen_kappa", reference, 300, rng)
        assert abs(got.loc[reference, "expected"] - mean) < 3 * np.hypot(se, got.loc[reference, "se"])
    # with two raters both item-aware references copy the other rater: kappa 1
    assert got.loc["exchangeable", "expected"] == 1.0 and got.loc["plurality", "expected"] == 1.0


def test_references_per_agreement_bin_use_the_bin_items_only(panel):
    res = agreement_coefficient(votes_frame(panel), "percent_agreement", labels=[0, 1, 2],
                                n_resamples=50)
    counts = np.stack([(panel == k).sum(axis=1) for k in range(3)], axis=1)
    top = counts.max(axis=1)
    assert list(res.table["scope"]) == ["all"] + [f"agreement {f}" for f in
                                                   ("1/2", "3/4", "1")
                                                   if (top == {"1/2": 2, "3/4": 3, "1": 4}[f]).any()]
    unanimous = res.references[res.references["scope"] == "agreement 1"].set_index("reference")
    # in unanimous items of 4, replacing one vote by the plurality of the other 3 keeps it
    assert unanimous.loc["plurality", "expected"] == 1.0
    assert unanimous.loc["exchangeable", "expected"] == 1.0
    # a uniform vote among 3 labels agrees with 3 others with probability 1/3: pa = (6 + 6/3) / 12
    assert unanimous.loc["uniform", "expected"] == pytest.approx((3 * 2 + 2 * 3 / 3) / 12)


def test_conger_kappa_references_of_four_raters_match_a_plain_simulation(panel):
    res = agreement_coefficient(votes_frame(panel), "cohen_kappa", labels=[0, 1, 2],
                                by_agreement=False, n_resamples=400, seed=3)
    rng = np.random.default_rng(97)
    for row in res.references.itertuples():
        mean, se = simulate(panel, 3, "cohen_kappa", row.reference, 150, rng)
        assert abs(row.expected - mean) < 3 * np.hypot(se, row.se), (row.reference, mean, se)
