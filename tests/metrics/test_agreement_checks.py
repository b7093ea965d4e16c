"""Chance-corrected agreement: Monte Carlo checks of the analytic standard errors, refusals."""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd
import pytest

from labelvar.metrics import agreement_coefficient
from labelvar.metrics._agreement import (
    agreement_weights,
    counts_coefficient,
    counts_variance,
    table_coefficient,
    table_variance,
)

TABLE_COEFS = ["cohen_kappa", "scott_pi", "gwet_ac1", "brennan_prediger", "percent_agreement"]
COUNT_COEFS = ["fleiss_kappa", "gwet_ac1", "brennan_prediger", "percent_agreement"]


def sd_check(values, ses):
    """The spread of the estimates against the mean analytic se, within 3 of its SEs."""
    values = values[np.isfinite(values)]
    sd = values.std(ddof=1)
    se_sd = sd / np.sqrt(2 * (values.size - 1))
    return abs(np.mean(ses) - sd), 3 * se_sd + 0.02 * sd  # (2 %: the large-sample approximation)


@pytest.mark.parametrize("weights", [None, "quadratic"])
@pytest.mark.parametrize("coefficient", TABLE_COEFS)
def test_table_standard_error_matches_the_spread_of_simulated_studies(coefficient, weights):
    rng = np.random.default_rng(zlib.crc32(f"{coefficient} {weights}".encode()))
    cells = np.array([[30, 6, 2, 1], [5, 20, 5, 1], [1, 4, 14, 3], [0, 1, 3, 4]], float)
    cells /= cells.sum()
    w, _ = agreement_weights(weights, 4)
    n, reps = 300, 3000
    tables = rng.multinomial(n, cells.ravel(), size=reps).reshape(reps, 4, 4)
    gammas = table_coefficient(tables, coefficient, w)[2]
    ses = np.sqrt([table_variance(t, coefficient, w) for t in tables[:400]])
    gap, allowed = sd_check(gammas, ses)
    assert gap < allowed


def _panel_counts(rng, reps, n_items, n_raters, prevalence, theta, missing):
    q = len(prevalence)
    truth = rng.choice(q, size=(reps, n_items), p=prevalence)
    agree = rng.random((reps, n_items, n_raters)) < theta
    other = rng.integers(0, q, size=(reps, n_items, n_raters))
    votes = np.where(agree, truth[..., None], other)
    present = rng.random((reps, n_items, n_raters)) >= missing
    present[..., :2] = True  # every item rated at least twice
    return (np.eye(q)[votes] * present[..., None]).sum(axis=2)


@pytest.mark.parametrize("weights", [None, "linear"])
@pytest.mark.parametrize("coefficient", COUNT_COEFS)
def test_count_standard_error_matches_the_spread_of_simulated_studies(coefficient, weights):
    rng = np.random.default_rng(zlib.crc32(f"{coefficient} {weights} counts".encode()))
    w, _ = agreement_weights(weights, 3)
    counts = _panel_counts(rng, 3000, 150, 5, [0.6, 0.3, 0.1], 0.7, missing=0.25)
    gammas = counts_coefficient(counts, coefficient, w)[2]
    ses = np.sqrt([counts_variance(c, coefficient, w) for c in counts[:400]])
    gap, allowed = sd_check(gammas, ses)
    assert gap < allowed


def test_weighted_ac2_from_a_table_and_from_votes_agree():
    rng = np.random.default_rng(2)
    a = rng.integers(0, 5, 80)
    b = np.clip(a + rng.integers(-1, 2, 80), 0, 4)
    votes = pd.DataFrame({"item": np.r_[np.arange(80), np.arange(80)],
                          "rater": ["x"] * 80 + ["y"] * 80, "label": np.r_[a, b] + 1})
    table = pd.crosstab(a + 1, b + 1).reindex(index=range(1, 6), columns=range(1, 6), fill_value=0)
    t = agreement_coefficient(table, "gwet_ac1", layout="table", weights="quadratic",
                              references=False)
    v = agreement_coefficient(votes, "gwet_ac1", weights="quadratic", labels=range(1, 6),
                              references=False)
    assert t.coefficient == pytest.approx(v.coefficient, abs=1e-12)
    assert t.weights == "quadratic" and t.coefficient > agreement_coefficient(
        table, "gwet_ac1", layout="table", references=False).coefficient


GOOD = pd.DataFrame([[5, 1], [2, 7]], index=["a", "b"], columns=["a", "b"])


@pytest.mark.parametrize(("data", "kwargs", "name"), [
    (pd.DataFrame([[1, 2, 3], [4, 5, 6]]), {"layout": "table"}, "data"),
    (pd.DataFrame([[9]], index=["a"], columns=["a"]), {"layout": "table"}, "data"),
    (GOOD, {"layout": "table", "weights": np.eye(3)}, "weights"),
    (GOOD, {"layout": "table", "weights": "cubic"}, "weights"),
    (GOOD, {"layout": "tables"}, "layout"),
    (GOOD, {"layout": "table", "confidence_level": 1.5}, "confidence_level"),
    (pd.DataFrame([[5, -1], [2, 7]], index=["a", "b"], columns=["a", "b"]), {"layout": "table"},
     "data"),
    (pd.DataFrame([[1, 1], [2, 0]], columns=["x", "y"]), {"layout": "counts",
                                                           "coefficient": "cohen_kappa"},
     "coefficient"),
    (pd.DataFrame({"item": [1, 1], "rater": ["a", "a"], "label": [0, 1]}), {}, "data"),
    (pd.DataFrame({"item": [1, 1], "label": [0, 1]}), {}, "data"),
    (pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b"] * 2, "label": [0] * 4}), {}, "data"),
    (GOOD, {"layout": "table", "coefficient": "kappa"}, "coefficient"),
    (GOOD * 10**7, {"layout": "table"}, "data"),
])
def test_bad_input_is_one_line_naming_the_argument(data, kwargs, name):
    coefficient = kwargs.pop("coefficient", "gwet_ac1")
    with pytest.raises(ValueError, match=rf"^{name}\b") as err:
        agreement_coefficient(data, coefficient, **kwargs)
    assert "\n" not in str(err.value)


def test_cohen_kappa_of_votes_is_conger_kappa_and_missing_ratings_are_kept():
    from sklearn.metrics import cohen_kappa_score

    one = pd.DataFrame({"item": [1, 2], "rater": ["a", "a"], "label": [0, 1]})
    with pytest.raises(ValueError, match="^data .* at least 2 raters"):
        agreement_coefficient(one, "cohen_kappa")
    rng = np.random.default_rng(6)
    a = rng.integers(0, 3, 40)
    b = np.where(rng.random(40) < 0.7, a, rng.integers(0, 3, 40))
    votes = pd.DataFrame({"item": np.r_[np.arange(40), np.arange(40)],
                          "rater": ["a"] * 40 + ["b"] * 40, "label": np.r_[a, b]})
    res = agreement_coefficient(votes, "cohen_kappa", references=False)
    assert res.coefficient == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    assert "Conger" in res.variance and res.n_excluded == 0


def test_conger_standard_error_matches_the_spread_of_simulated_studies():
    from labelvar.metrics._agreement import conger_coefficient, conger_variance

    rng = np.random.default_rng(31)
    reps, n, r = 2000, 120, 4
    truth = rng.choice(3, size=(reps, n), p=[0.5, 0.3, 0.2])
    bias = np.array([0.0, 0.15, 0.3, 0.1])  # raters differ in how often they say 2
    codes = np.where(rng.random((reps, n, r)) < 0.7, truth[..., None],
                     np.where(rng.random((reps, n, r)) < bias, 2, rng.integers(0, 3, (reps, n, r))))
    codes[..., 2:][rng.random((reps, n, 2)) < 0.2] = -1
    gammas = conger_coefficient(codes, np.eye(3))[2]
    ses = np.sqrt([conger_variance(c, np.eye(3)) for c in codes[:300]])
    gap, allowed = sd_check(gammas, ses)
    assert gap < allowed


def test_result_shows_and_describes():
    res = agreement_coefficient(GOOD, "cohen_kappa", layout="table", n_resamples=20)
    assert repr(res).startswith("AgreementResult(name='cohen_kappa', coefficient=")
    assert "<table" in res._repr_html_()
    text = res.describe()
    assert "Cohen's kappa (unweighted)" in text and "delta-method" in text
    assert list(res.table.columns) == ["scope", "n_items", "coefficient", "se", "ci_low",
                                      "ci_high", "p_value", "pa", "pe"]
    assert list(res.references["reference"].unique()) == ["uniform", "prevalence",
                                                         "exchangeable", "plurality"]


def test_agreement_table_is_the_results_side_by_side():
    from labelvar.metrics import agreement_table

    table = agreement_table(SIX_LIKE, ["fleiss_kappa", "percent_agreement"], layout="counts",
                            n_resamples=30, seed=4)
    for name in ("fleiss_kappa", "percent_agreement"):
        res = agreement_coefficient(SIX_LIKE, name, layout="counts", references=False)
        rows = table[table["coefficient"] == name].set_index("scope")
        assert rows.loc["all", "value"] == res.coefficient and rows.loc["all", "se"] == res.se
        assert list(rows.index) == list(res.table["scope"])
    pa = table[table["coefficient"] == "percent_agreement"].set_index("scope")
    exact = agreement_coefficient(SIX_LIKE, "percent_agreement", layout="counts")
    want = exact.references.query("scope == 'all'").set_index("reference")["expected"]
    assert pa.loc["all", ["uniform", "prevalence", "exchangeable", "plurality"]].tolist() == \
        want[["uniform", "prevalence", "exchangeable", "plurality"]].tolist()
    with pytest.raises(ValueError, match="^coefficients must be among"):
        agreement_table(SIX_LIKE, ["ac1"], layout="counts")


SIX_LIKE = pd.DataFrame([[4, 1, 0], [2, 2, 1], [0, 5, 0], [1, 1, 3], [5, 0, 0], [0, 3, 2]],
                        columns=["a", "b", "c"])
