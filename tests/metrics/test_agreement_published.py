"""Chance-corrected agreement against published printouts and other libraries.

The numbers are irrCAC's printed examples (its README and overview vignette, Gwet 2014's
datasets ``cont3x3abstractors``, ``distrib.6raters`` and ``cac.raw4raters``): coefficient,
standard error, interval and p-value to the printed digits. Only printed numbers are used.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from labelvar.metrics import agreement_coefficient

ABSTRACTORS = pd.DataFrame([[13, 0, 0], [0, 20, 7], [0, 4, 56]],
                           index=["Ectopic", "AIU", "NIU"], columns=["Ectopic", "AIU", "NIU"])

# (coefficient, printed value, printed se, printed interval) of the *.table functions
TABLE = [("cohen_kappa", 0.7964094, 0.05891072, (0.68, 0.913)),
         ("scott_pi", 0.7962397, 0.05905473, (0.679, 0.913)),
         ("gwet_ac1", 0.8493305, 0.04321747, (0.764, 0.935)),
         ("brennan_prediger", 0.835, 0.04693346, (0.742, 0.928)),
         ("percent_agreement", 0.89, 0.03128898, (0.828, 0.952))]

SIX = pd.DataFrame(
    [[0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0],
     [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6],
     [1, 0, 0, 5, 0], [1, 1, 0, 4, 0], [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1]],
    columns=["Depression", "Personality.Disorder", "Schizophrenia", "Neurosis", "Other"])

# (coefficient, value, se, interval, p-value, pa, pe) of the *.dist functions
DIST = [("gwet_ac1", 0.4448007, 0.08418757, (0.264, 0.625), 0.0001155927, 0.5511111, 0.1914815),
        ("fleiss_kappa", 0.4139265, 0.08119291, (0.24, 0.588), 0.0001622724, 0.5511111,
         0.2340741),
        ("brennan_prediger", 0.4388889, 0.08312142, (0.261, 0.617), 0.0001163, 0.5511111, 0.2)]

NA = None
RAW4 = [[1, 1, NA, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
        [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [NA, 5, 5, 5], [NA, NA, 1, 1],
        [NA, NA, 3, NA]]

# (coefficient, pa, pe, value, se, interval, p-value) of the *.raw functions
RAW = [("percent_agreement", 0.8181818, 0, 0.8181818, 0.12561, (0.542, 1), 4.345373e-05),
       ("gwet_ac1", 0.8181818, 0.1903212, 0.77544, 0.14295, (0.461, 1), 0.000208721),
       ("fleiss_kappa", 0.8181818, 0.2387153, 0.76117, 0.15302, (0.424, 1), 0.000419173),
       ("brennan_prediger", 0.8181818, 0.2, 0.77273, 0.14472, (0.454, 1), 0.0002375609),
       # conger.kappa.raw: Cohen's kappa of many raters
       ("cohen_kappa", 0.8181818, 0.2334252, 0.76282, 0.14917, (0.435, 1), 0.0003367066)]


def digits(x: float) -> int:
    """Decimals printed in ``x``."""
    text = repr(x)
    return len(text.split(".")[1]) if "." in text and "e" not in text else 0


def close(value, printed, rel=None):
    if rel is not None:
        return value == pytest.approx(printed, rel=rel)
    return round(value, digits(printed)) == printed


def raw_votes() -> pd.DataFrame:
    rows = [{"item": i, "rater": f"Rater{j + 1}", "label": lab}
            for i, row in enumerate(RAW4) for j, lab in enumerate(row) if lab is not None]
    return pd.DataFrame(rows)


@pytest.mark.parametrize(("coefficient", "value", "se", "ci"), TABLE)
def test_contingency_table_reproduces_the_printed_table_functions(coefficient, value, se, ci):
    res = agreement_coefficient(ABSTRACTORS, coefficient, layout="table", references=False)
    assert close(res.coefficient, value) and close(res.se, se)
    assert (round(res.ci_low, 3), round(res.ci_high, 3)) == ci
    assert res.p_value < 1e-15  # printed 0e+00


@pytest.mark.parametrize(("coefficient", "value", "se", "ci", "p", "pa", "pe"), DIST)
def test_count_table_reproduces_the_printed_dist_functions(coefficient, value, se, ci, p, pa, pe):
    res = agreement_coefficient(SIX, coefficient, layout="counts", references=False)
    assert close(res.coefficient, value) and close(res.se, se)
    assert (round(res.ci_low, 3), round(res.ci_high, 3)) == ci
    assert close(res.p_value, p, rel=1e-6) and close(res.pa, pa) and close(res.pe, pe)
    assert res.n_raters == 6 and res.n_items == 15


@pytest.mark.parametrize(("coefficient", "pa", "pe", "value", "se", "ci", "p"), RAW)
def test_raw_ratings_with_missing_reproduce_the_printed_raw_functions(coefficient, pa, pe, value,
                                                                      se, ci, p):
    res = agreement_coefficient(raw_votes(), coefficient, layout="votes", labels=[1, 2, 3, 4, 5],
                                references=False)
    assert close(res.pa, pa) and close(res.pe, pe)
    assert close(res.coefficient, value) and close(res.se, se)
    assert (round(res.ci_low, 3), round(res.ci_high, 3)) == ci
    assert close(res.p_value, p, rel=1e-6)
    assert res.n_items == 12 and res.n_raters == 4


def test_scott_pi_of_many_raters_is_fleiss_kappa():
    a = agreement_coefficient(SIX, "scott_pi", layout="counts", references=False)
    b = agreement_coefficient(SIX, "fleiss_kappa", layout="counts", references=False)
    assert a.coefficient == b.coefficient and a.se == b.se


def test_counts_and_votes_and_table_give_one_coefficient():
    """The same ratings through the three layouts: identical coefficients."""
    rng = np.random.default_rng(5)
    a = rng.integers(0, 3, 60)
    b = np.where(rng.random(60) < 0.6, a, rng.integers(0, 3, 60))
    votes = pd.DataFrame({"item": np.r_[np.arange(60), np.arange(60)],
                          "rater": ["r1"] * 60 + ["r2"] * 60, "label": np.r_[a, b]})
    table = pd.crosstab(a, b)
    counts = pd.DataFrame(np.eye(3)[a] + np.eye(3)[b], columns=[0, 1, 2])
    for coef in ("gwet_ac1", "fleiss_kappa", "brennan_prediger", "percent_agreement"):
        values = [agreement_coefficient(d, coef, layout=lay, references=False).coefficient
                  for d, lay in ((votes, "votes"), (table, "table"), (counts, "counts"))]
        assert values == pytest.approx([values[0]] * 3, abs=1e-12)
    # Conger's kappa of two raters without missing ratings is Cohen's; its se is the
    # subject-sampling one (divisor n - 1 over the items), the table's the delta method
    k1 = agreement_coefficient(votes, "cohen_kappa", references=False)
    k2 = agreement_coefficient(table, "cohen_kappa", layout="table", references=False)
    assert k1.coefficient == pytest.approx(k2.coefficient, abs=1e-12)
    assert k1.se == pytest.approx(k2.se, rel=0.05)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_kappa_equals_scikit_learn_and_statsmodels(weights):
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import cohens_kappa

    rng = np.random.default_rng(11)
    a = rng.integers(0, 4, 150)
    b = np.clip(a + rng.integers(-1, 2, 150), 0, 3)
    table = pd.crosstab(a, b).reindex(index=range(4), columns=range(4), fill_value=0)
    res = agreement_coefficient(table, "cohen_kappa", layout="table", weights=weights,
                                references=False)
    assert res.coefficient == pytest.approx(cohen_kappa_score(a, b, weights=weights), abs=1e-12)
    if weights is None:  # statsmodels' unweighted asymptotic se is the same delta method
        sm = cohens_kappa(table.to_numpy())
        assert res.coefficient == pytest.approx(sm.kappa, abs=1e-12)
        assert res.se == pytest.approx(sm.std_kappa, rel=1e-9)


def test_fleiss_kappa_equals_statsmodels():
    from statsmodels.stats.inter_rater import fleiss_kappa

    res = agreement_coefficient(SIX, "fleiss_kappa", layout="counts", references=False)
    assert res.coefficient == pytest.approx(fleiss_kappa(SIX.to_numpy(), method="fleiss"))
    bp = agreement_coefficient(SIX, "brennan_prediger", layout="counts", references=False)
    assert bp.coefficient == pytest.approx(fleiss_kappa(SIX.to_numpy(), method="randolph"))


def test_finite_population_correction_scales_the_variance():
    a = agreement_coefficient(SIX, "gwet_ac1", layout="counts", references=False)
    b = agreement_coefficient(SIX, "gwet_ac1", layout="counts", references=False,
                              population_size=60)
    assert b.se == pytest.approx(a.se * np.sqrt(1 - 15 / 60))


# quadratic weights: irrCAC's weighting vignette ("Weighted Chance-corrected Agreement
# Coefficients"), the same three datasets
TABLE_QUADRATIC = [("cohen_kappa", 0.8921569, 0.03535151, (0.822, 0.962)),
                   ("scott_pi", 0.8921093, 0.03539506, (0.822, 0.962)),
                   ("gwet_ac1", 0.9402369, 0.01792019, (0.905, 0.976)),
                   ("brennan_prediger", 0.9175, 0.02346673, (0.871, 0.964)),
                   ("percent_agreement", 0.9725, 0.007822244, (0.957, 0.988))]
RAW_QUADRATIC = [("percent_agreement", 0.9753788, 0, 0.9753788, 0.09062, (0.776, 1), 3.526377e-07),
                 ("gwet_ac1", 0.9753788, 0.7137044, 0.914, 0.10396, (0.685, 1), 2.634438e-06),
                 ("fleiss_kappa", 0.9753788, 0.8177083, 0.86494, 0.14603, (0.544, 1),
                  9.976081e-05),
                 ("cohen_kappa", 0.9753788, 0.8269638, 0.85771, 0.14367, (0.541, 1), 9.319979e-05),
                 ("brennan_prediger", 0.9753788, 0.75, 0.90152, 0.11089, (0.657, 1), 5.60548e-06)]
DIST_QUADRATIC = [("gwet_ac1", 0.4837438, 0.1058227, (0.257, 0.711), 0.0004356618, 0.8544444,
                   0.7180556),
                  ("fleiss_kappa", 0.2511909, 0.1457381, (-0.061, 0.564), 0.1067865, 0.8544444,
                   0.8056173),
                  ("brennan_prediger", 0.4177778, 0.1067493, (0.189, 0.647), 0.001559352,
                   0.8544444, 0.75)]


@pytest.mark.parametrize(("coefficient", "value", "se", "ci"), TABLE_QUADRATIC)
def test_weighted_table_reproduces_the_printed_vignette(coefficient, value, se, ci):
    res = agreement_coefficient(ABSTRACTORS, coefficient, layout="table", weights="quadratic",
                                references=False)
    assert close(res.coefficient, value) and close(res.se, se)
    assert (round(res.ci_low, 3), round(res.ci_high, 3)) == ci


@pytest.mark.parametrize(("coefficient", "pa", "pe", "value", "se", "ci", "p"), RAW_QUADRATIC)
def test_weighted_raw_ratings_reproduce_the_printed_vignette(coefficient, pa, pe, value, se, ci, p):
    res = agreement_coefficient(raw_votes(), coefficient, weights="quadratic",
                                labels=[1, 2, 3, 4, 5], references=False)
    assert close(res.pa, pa) and close(res.pe, pe)
    assert close(res.coefficient, value) and close(res.se, se)
    assert (round(res.ci_low, 3), round(res.ci_high, 3)) == ci
    assert close(res.p_value, p, rel=1e-6)


@pytest.mark.parametrize(("coefficient", "value", "se", "ci", "p", "pa", "pe"), DIST_QUADRATIC)
def test_weighted_counts_reproduce_the_printed_vignette(coefficient, value, se, ci, p, pa, pe):
    res = agreement_coefficient(SIX, coefficient, layout="counts", weights="quadratic",
                                references=False)
    assert close(res.coefficient, value) and close(res.se, se)
    assert (round(res.ci_low, 3), round(res.ci_high, 3)) == ci
    assert close(res.p_value, p, rel=1e-6) and close(res.pa, pa) and close(res.pe, pe)


def test_table_columns_are_matched_to_rows_by_name_not_position():
    # columns in another order, and as text (a CSV header) while the rows are numbers
    shuffled = pd.DataFrame([[0, 13, 0], [7, 0, 20], [56, 0, 4]], index=[1, 2, 3],
                            columns=["3", "1", "2"])
    res = agreement_coefficient(shuffled, "cohen_kappa", layout="table", references=False)
    assert round(res.coefficient, 7) == 0.7964094 and round(res.se, 8) == 0.05891072


def test_declared_labels_count_unused_categories():
    """AC1 and Brennan-Prediger depend on q: a declared, unused category changes them."""
    votes = raw_votes()
    five = agreement_coefficient(votes, "brennan_prediger", labels=[1, 2, 3, 4, 5],
                                 references=False)
    six = agreement_coefficient(votes, "brennan_prediger", labels=[1, 2, 3, 4, 5, 6],
                                references=False)
    assert five.pe == pytest.approx(1 / 5) and six.pe == pytest.approx(1 / 6)
    assert six.n_categories == 6


def test_real_data_fleiss_and_randolph_equal_statsmodels():
    """ChaosNLI's 100 votes per item (counts) and the caries dentists (votes)."""
    import json

    from conftest import shared_data
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    path = shared_data("chaosnli/chaosNLI_v1.0/chaosNLI_snli.jsonl")
    with open(path) as fh:
        counts = pd.DataFrame([json.loads(line)["label_count"] for line in fh], columns=list("enc"))
    res = agreement_coefficient(counts, "fleiss_kappa", layout="counts", references=False,
                                by_agreement=False)
    assert res.coefficient == pytest.approx(fleiss_kappa(counts.to_numpy()), abs=1e-12)
    assert res.n_items == 1514 and res.n_raters == 100
    votes = pd.read_csv(shared_data("raters/caries/caries_votes_long.csv"))
    wide = votes.pivot(index="item", columns="rater", values="label").to_numpy()
    table, _ = aggregate_raters(wide)
    for name, method in (("fleiss_kappa", "fleiss"), ("brennan_prediger", "randolph")):
        got = agreement_coefficient(votes, name, references=False, by_agreement=False)
        assert got.coefficient == pytest.approx(fleiss_kappa(table, method=method), abs=1e-12)
