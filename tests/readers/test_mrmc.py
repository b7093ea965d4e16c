"""mrmc: the Van Dyke published OR analysis, hand/brute-force FOMs and covariances, bad input."""

from __future__ import annotations

import itertools
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from conftest import shared_data
from scipy import stats

from labelvar import mrmc
from labelvar.readers import TruthPanel, _fom

PUBLISHED = "mrmc/vandyke_or_jackknife_published.csv"


def _vandyke():
    return pd.read_csv(shared_data("mrmc/vandyke.csv"))


def _published_rows():
    path = shared_data(PUBLISHED)
    return [tuple(r) for r in pd.read_csv(path, dtype={"published": str}).itertuples(index=False)]


def _value(res, analysis, quantity):
    """The number of the result that the printout's row names."""
    fom = res.fom.set_index(["modality", "reader"])["fom"]
    comp = res.components
    ms = res.anova.set_index("source")["ms"]
    single = res.modalities[res.modalities.analysis == "RRRC"].set_index("modality")
    rrrc = res.tests.loc["RRRC"]
    q = quantity
    if q.startswith("AUC trt"):
        trt, rdr = q.split()[1][3:], q.split()[2][6:]
        return fom[(int(trt), int(rdr))]
    if q.startswith("mean AUC trt"):
        return single.loc[int(q[-1]), "fom"]
    if q == "AUC diff 1-2":
        return rrrc["difference"]
    table = {"MS(T)": ms["T"], "MS(R)": ms["R"], "MS(T*R)": ms["TR"], "MS(R) trt1": ms["R in 1"],
             "MS(R) trt2": ms["R in 2"], "Var(R)": comp["var_r"], "Var(T*R)": comp["var_tr"],
             "Cov1": comp["cov1"], "Cov2": comp["cov2"], "Cov3": comp["cov3"],
             "corr1": comp["corr1"], "corr2": comp["corr2"], "corr3": comp["corr3"],
             "Var(Error)": comp["var_error"]}
    if analysis in ("OR ANOVA", "OR components"):
        return table[q]
    if analysis == "OR RRRC":
        return {"F": rrrc["statistic"], "p": rrrc["p"], "error term": rrrc["error_term"],
                "ddf": rrrc["df2"], "SE diff": rrrc["se"], "t": rrrc["difference"] / rrrc["se"],
                "CI lo": rrrc["ci_low"], "CI hi": rrrc["ci_high"]}[q]
    trt, what = q.split(" ", 1)
    row = single.loc[int(trt[3:])]
    return {"SE": row["se"], "df": row["df"], "CI lo": row["ci_low"], "CI hi": row["ci_high"],
            "Cov2": row["cov2"]}[what]


@pytest.fixture(scope="module")
def vandyke():
    return mrmc(_vandyke(), truth="truth")


def _rows_or_skip():
    try:
        return _published_rows()
    except pytest.skip.Exception:
        return [pytest.param(None, None, None, None, marks=pytest.mark.skip(
            reason=f"shared data absent: {PUBLISHED}"))]


@pytest.mark.parametrize("analysis,covariance,quantity,published", _rows_or_skip())
def test_vandyke_published(vandyke, analysis, covariance, quantity, published):
    """All 45 published numbers, to half a unit of their last printed digit."""
    exponent = Decimal(published).as_tuple().exponent
    half = 0.5 * 10.0 ** exponent
    got = _value(vandyke, analysis, quantity)
    assert abs(got - float(published)) <= half * (1 + 1e-9), (quantity, got, published)


def test_vandyke_reader1_fixed_readers_printout(vandyke):
    """OR-DBM MRMC 2.51 printout of reader 1 alone (RJafroc inst/Iowa/VanDyke1R.txt):
    difference -0.02818, StdErr 0.02551, z -1.10, p 0.2693, CI (-0.07818, 0.02182),
    Var(Error) 0.00069890, Cov1 0.00037347; single-treatment SEs 0.03012552, 0.02214169."""
    row = vandyke.readers.set_index("reader").loc[1]
    for got, want, digits in [(row.difference, -0.02818, 5), (row.se, 0.02551, 5),
                              (row.statistic, -1.10, 2), (row.p, 0.2693, 4), (row.ci_low, -0.07818, 5),
                              (row.ci_high, 0.02182, 5), (row.var_error, 0.00069890, 8),
                              (row.cov1, 0.00037347, 8)]:
        assert abs(got - want) <= 0.5 * 10.0 ** -digits
    # the FRRC single-treatment SE of one reader is its own jackknife SD
    cov = vandyke.covariance
    assert abs(np.sqrt(cov.loc["1/1", "1/1"]) - 0.03012552) < 5e-9
    assert abs(np.sqrt(cov.loc["2/1", "2/1"]) - 0.02214169) < 5e-9


def test_dbm_equals_or_with_jackknife(vandyke):
    """Hillis et al. (2005): with jackknife covariances DBM and OR give the same RRRC test."""
    rrrc = vandyke.tests.loc["RRRC"]
    assert vandyke.dbm.test["statistic"] == pytest.approx(rrrc["statistic"], rel=1e-10)
    assert vandyke.dbm.test["df2"] == pytest.approx(rrrc["df2"], rel=1e-10)
    assert vandyke.dbm.components["var_r"] == pytest.approx(vandyke.components["var_r"], rel=1e-9)
    assert vandyke.dbm.components["var_tr"] == pytest.approx(vandyke.components["var_tr"], rel=1e-9)
    c = vandyke.n_cases
    ms = vandyke.dbm.anova.set_index("source")["ms"]
    assert ms["T"] == pytest.approx(c * vandyke.anova.set_index("source")["ms"]["T"], rel=1e-10)


def _brute_auc(x, y):
    pos, neg = x[y == 1], x[y == 0]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    return psi.mean(), psi


def test_auc_and_leave_one_out_against_brute_force():
    rng = np.random.default_rng(1)
    c = 40
    y = rng.integers(0, 2, c)
    y[:2] = [0, 1]
    x = np.round(rng.normal(size=(2, 3, c)) + y, 1)  # ties
    theta, u, loo = _fom.auc_influence(x, np.broadcast_to(y.astype(bool), (3, c)), "jackknife")
    for i, j in itertools.product(range(2), range(3)):
        assert theta[i, j] == pytest.approx(_brute_auc(x[i, j], y)[0], abs=1e-14)
        for k in range(c):
            keep = np.arange(c) != k
            assert loo[i, j, k] == pytest.approx(_brute_auc(x[i, j, keep], y[keep])[0], abs=1e-13)
    # jackknife covariance (c - 1) / c sum d d'
    flat = loo.reshape(6, c)
    d = flat - flat.mean(1, keepdims=True)
    np.testing.assert_allclose(_fom.covariance_matrix(u), (c - 1) / c * d @ d.T, atol=1e-15)


def test_delong_covariance_against_its_definition():
    rng = np.random.default_rng(2)
    c = 50
    y = (rng.random(c) < 0.4).astype(int)
    x = np.round(rng.normal(size=(1, 2, c)) + y, 1)
    _, u, _ = _fom.auc_influence(x, np.broadcast_to(y.astype(bool), (2, c)), "delong")
    m, n = y.sum(), c - y.sum()
    v10, v01 = [], []
    for j in range(2):
        auc, psi = _brute_auc(x[0, j], y)
        v10.append(psi.mean(1))
        v01.append(psi.mean(0))
    s10 = np.cov(np.array(v10), ddof=1)
    s01 = np.cov(np.array(v01), ddof=1)
    np.testing.assert_allclose(_fom.covariance_matrix(u), s10 / m + s01 / n, rtol=1e-12)


def test_sensitivity_jackknife_over_positives_not_all_cases():
    """The known trap (RJafroc #90): jackknifing sensitivity over all cases.

    Over the m positives the jackknife variance is p(1 - p) / (m - 1); over all c cases
    the deleted negatives leave the sensitivity unchanged, yet the (c - 1)/c scaling
    counts them: (c - 1) m / (c (m - 1)) times the right variance."""
    d = _vandyke()
    res = mrmc(d, truth="truth", fom="sensitivity", threshold=3)
    truth = d[(d.reader == 1) & (d.modality == 1)].sort_values("case").truth.to_numpy()
    m = truth.sum()
    fom = res.fom.set_index(["modality", "reader"])["fom"]
    p = fom[(1, 1)]
    assert res.covariance.loc["1/1", "1/1"] == pytest.approx(p * (1 - p) / (m - 1), rel=1e-12)
    # the all-cases jackknife, by hand
    x = d[(d.reader == 1) & (d.modality == 1)].sort_values("case").rating.to_numpy() >= 3
    c = len(x)
    loo = np.array([x[np.arange(c) != k][truth[np.arange(c) != k] == 1].mean() for k in range(c)])
    all_cases = (c - 1) / c * ((loo - loo.mean()) ** 2).sum()
    ours = res.covariance.loc["1/1", "1/1"]
    assert all_cases == pytest.approx((c - 1) * m / (c * (m - 1)) * ours, rel=1e-12)
    assert all_cases / ours - 1 > 0.01
    # and specificity over the negatives
    spec = mrmc(d, truth="truth", fom="specificity", threshold=3)
    q = spec.fom.set_index(["modality", "reader"])["fom"][(1, 1)]
    assert q == pytest.approx(((x == 0) & (truth == 0)).sum() / (c - m))
    assert spec.covariance.loc["1/1", "1/1"] == pytest.approx(q * (1 - q) / (c - m - 1), rel=1e-12)


def test_accuracy_of_binary_decisions_equals_threshold():
    d = _vandyke()
    a = mrmc(d.assign(rating=(d.rating >= 4).astype(int)), truth="truth", fom="accuracy")
    b = mrmc(d, truth="truth", fom="accuracy", threshold=4)
    pd.testing.assert_frame_equal(a.tests, b.tests)
    hand = ((d.rating >= 4).astype(int) == d.truth).groupby([d.modality, d.reader]).mean()
    np.testing.assert_allclose(a.fom["fom"], hand.to_numpy())


def test_callable_fom_matches_auc():
    d = _vandyke()

    def wilcoxon(x, y):
        return _brute_auc(x, y)[0]

    a = mrmc(d, truth="truth", fom=wilcoxon)
    b = mrmc(d, truth="truth")
    pd.testing.assert_frame_equal(a.tests, b.tests, rtol=1e-10)
    assert a.fom_name == "wilcoxon"


def test_three_modalities_rrfc_is_the_two_way_anova():
    rng = np.random.default_rng(5)
    cases = np.arange(60)
    y = pd.Series(cases % 3 == 0, index=cases).astype(int)
    rows = [(j, k, m, y[k] * (1 + 0.3 * m + 0.2 * j) + rng.normal())
            for m in range(3) for j in range(4) for k in cases]
    res = mrmc(pd.DataFrame(rows, columns=["reader", "case", "modality", "rating"]), truth=y)
    theta = res.fom.pivot(index="modality", columns="reader", values="fom").to_numpy()
    t, r = theta.shape
    g = theta.mean()
    ss_t = r * ((theta.mean(1) - g) ** 2).sum()
    resid = theta - theta.mean(1, keepdims=True) - theta.mean(0, keepdims=True) + g
    f = (ss_t / 2) / ((resid ** 2).sum() / 6)
    assert res.tests.loc["RRFC", "statistic"] == pytest.approx(f)
    assert res.tests.loc["RRFC", "p"] == pytest.approx(stats.f.sf(f, 2, 6))
    assert len(res.differences) == 9 and np.isnan(res.tests.loc["RRRC", "difference"])


def test_panel_truth_leave_reader_out():
    rng = np.random.default_rng(7)
    c = 30
    latent = rng.integers(0, 2, c)
    votes = pd.DataFrame({f"p{i}": np.where(rng.random(c) < 0.8, latent, 1 - latent) for i in range(3)})
    votes.index = [f"c{k}" for k in range(c)]
    votes["r1"] = np.where(rng.random(c) < 0.8, latent, 1 - latent)
    rows = [(rd, f"c{k}", latent[k] + rng.normal()) for rd in ("r1", "r2") for k in range(c)]
    ratings = pd.DataFrame(rows, columns=["reader", "case", "rating"])
    res = mrmc(ratings, truth=TruthPanel(votes, tie_rule="lowest"))
    met = res.truth.set_index("reader")["truth"]
    assert met["r1"] == "majority of 3 panelists without r1" and met["r2"] == "majority of 4 panelists"
    y1 = (votes[["p0", "p1", "p2"]].sum(axis=1) >= 2).astype(int)
    y2 = (votes.sum(axis=1) >= 3).astype(int)
    x = ratings.set_index(["reader", "case"])["rating"]
    fom = res.fom.set_index("reader")["fom"]
    assert fom["r1"] == pytest.approx(_brute_auc(x["r1"].to_numpy(), y1.to_numpy())[0])
    assert fom["r2"] == pytest.approx(_brute_auc(x["r2"].to_numpy(), y2.to_numpy())[0])


@pytest.mark.parametrize("change,words", [
    (lambda d: d.iloc[1:], "not fully crossed"),
    (lambda d: d[d.reader == 1], "reader: a reader study needs at least 2 readers"),
    (lambda d: d.assign(rating=d.rating.astype(str).replace("3", "three")), "rating: the column 'rating'"),
    (lambda d: d.assign(truth=0), "truth: the cases are all of one class"),
])
def test_bad_input_one_line(change, words):
    with pytest.raises(ValueError, match=words) as err:
        mrmc(change(_vandyke()), truth="truth")
    assert "\n" not in str(err.value)


def test_bad_truth_and_options():
    d = _vandyke()
    series = d.groupby("case").truth.first()
    with pytest.raises(ValueError, match="truth: case '114' has no truth"):
        mrmc(d, truth=series.iloc[:-1])
    with pytest.raises(ValueError, match="fom must be one of"):
        mrmc(d, truth="truth", fom="f1")
    with pytest.raises(ValueError, match="threshold"):
        mrmc(d, truth="truth", fom="sensitivity")
    with pytest.raises(ValueError, match="covariance: 'delong'"):
        mrmc(d, truth="truth", fom="accuracy", threshold=3, covariance="delong")


def test_result_views(vandyke):
    assert repr(vandyke).startswith("MRMCResult(fom=DataFrame(10 rows x 3 columns)")
    assert "<table" in vandyke._repr_html_()
    text = vandyke.describe()
    assert "RRRC" in text and "var_tr 0.0002004" in text
    assert list(vandyke.tests.index) == ["RRRC", "FRRC", "RRFC"]
    assert {"statistic", "df1", "df2", "p", "difference", "se", "ci_low", "ci_high"} <= set(vandyke.tests)
    assert list(vandyke.fom.columns) == ["modality", "reader", "fom"]


def test_one_modality_single_ci():
    d = _vandyke()
    res = mrmc(d[d.modality == 1].drop(columns="modality"), truth="truth")
    assert res.tests.loc["RRRC", "difference"] == pytest.approx(0.89703704, abs=5e-9)
    assert res.tests.loc["RRRC", "se"] == pytest.approx(0.03317360, abs=5e-9)
    assert res.tests.loc["RRRC", "df2"] == pytest.approx(12.74, abs=0.005)


def test_panel_votes_read_by_read_votes():
    """Long and wide panels give one truth; labels outside 0/1 and missing votes refused."""
    rng = np.random.default_rng(8)
    c = 20
    y = rng.integers(0, 2, c)
    wide = pd.DataFrame({"case": [f"{k:03d}" for k in range(c)], "a": y, "b": y, "c": 1 - y})
    long = wide.melt(id_vars="case", var_name="rater", value_name="label")
    rows = [(rd, f"{k:03d}", y[k] + rng.normal()) for rd in ("x", "z") for k in range(c)]
    ratings = pd.DataFrame(rows, columns=["reader", "case", "rating"])
    a, b = mrmc(ratings, truth=wide), mrmc(ratings, truth=TruthPanel(long))
    pd.testing.assert_frame_equal(a.fom, b.fom)
    with pytest.raises(ValueError, match="^truth: the panel's votes: .*2"):
        mrmc(ratings, truth=long.assign(label=long.label.replace(0, 2)))
    with pytest.raises(ValueError, match="truth: a panel rater has no vote on some case"):
        mrmc(ratings, truth=long.iloc[1:])


def test_truth_model_integrates_over_the_posterior():
    d = _vandyke()
    truth = d.groupby(d.case.astype(str)).truth.first()
    certain = mrmc(d, truth="truth", truth_model=truth.astype(float))
    fixed = mrmc(d, truth="truth")
    pd.testing.assert_frame_equal(certain.posterior, fixed.tests)
    # an uncertain truth: the integrated FOMs by hand (the same seeded draws)
    from labelvar.readers._inputs import draw_truths

    post = (0.8 * truth + 0.1).astype(float)
    res = mrmc(d, truth="truth", truth_model=post)
    y = draw_truths(post.loc[[str(c) for c in range(1, 115)]].to_numpy(), 50, np.random.default_rng(0))
    x = d.sort_values(["modality", "reader", "case"]).rating.to_numpy().reshape(2, 5, 114)
    want = np.mean([[[_brute_auc(x[i, j], y[m].astype(int))[0] for j in range(5)] for i in range(2)]
                    for m in range(50)], axis=0)
    mean = want.mean(1)
    assert res.posterior.loc["RRFC", "difference"] == pytest.approx(mean[0] - mean[1], abs=1e-12)
    assert "integrated over the truth's posterior (50 draws)" in res.describe()
    with pytest.raises(ValueError, match="truth_model: case '1' has no posterior"):
        mrmc(d, truth="truth", truth_model=post.drop("1"))


def test_ids_keep_their_values_and_match_by_text():
    d = _vandyke()
    res = mrmc(d, truth="truth")
    assert res.fom["reader"].tolist()[:2] == [1, 2] and res.fom["modality"].tolist()[0] == 1
    mixed = d.astype({"reader": object})
    mixed.loc[mixed.index[:114], "reader"] = "1"  # reader 1 of modality 1 spelled as text
    with pytest.raises(ValueError, match="reader: the ids 1 and '1' read as the same text|"
                                         "reader: the ids '1' and 1 read as the same text"):
        mrmc(mixed, truth="truth")


def test_sizes_refused_before_allocating(monkeypatch):
    monkeypatch.setenv("LABELVAR_MEMORY_LIMIT", "100kB")
    d = _vandyke()
    with pytest.raises(ValueError, match="^ratings: 2 modalities x 5 readers x 114 cases needs about"):
        mrmc(d, truth="truth")
    monkeypatch.setenv("LABELVAR_MEMORY_LIMIT", "1MB")
    with pytest.raises(ValueError, match="^truth_model: 50 drawn truths x 1140 ratings needs about"):
        mrmc(d, truth="truth", truth_model=d.groupby("case").truth.first().astype(float))


def test_one_modality_tests_keep_the_contract_columns():
    d = _vandyke()
    res = mrmc(d[d.modality == 2], truth="truth")
    assert list(res.tests.columns[:8]) == ["statistic", "df1", "df2", "p", "difference", "se",
                                           "ci_low", "ci_high"]
    assert res.describe().startswith("MRMC analysis: 1 modality x 5 readers x 114 cases")
