"""Agreement statistics, aggregation, same-item tests, ordinal and probability metrics.

Every statistic is compared with an independent computation: statsmodels, scikit-learn,
scipy, Krippendorff's published worked examples, crowd-kit 1.4.2's Dawid-Skene.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import labelvar
from labelvar.evaluation import Intervals, Labels, Truth
from labelvar.evaluation import _agreement as agreement
from labelvar.evaluation import _inference as inference
from labelvar.evaluation._stratified import stratify
from labelvar.io import TaskData
from labelvar.metrics import _scores as _metrics

sm_ir = pytest.importorskip("statsmodels.stats.inter_rater")
skm = pytest.importorskip("sklearn.metrics")


def _counts(rows, values):
    return np.array([[sum(x == v for x in r) for v in values] for r in rows], float)


# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": 4 observers x 12 units
KRIPP = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
         [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]]


@pytest.mark.parametrize("level, published", [("nominal", 0.743), ("ordinal", 0.815),
                                              ("interval", 0.849)])
def test_krippendorff_alpha_published_example(level, published):
    counts = _counts(list(zip(*KRIPP, strict=True)), range(1, 6))
    got = agreement.krippendorff_alpha(counts, level, values=[1, 2, 3, 4, 5])
    assert round(got, 3) == published


def test_krippendorff_alpha_binary_two_observers():
    # Krippendorff (2011), section A: Ben and Gerry, 10 units, nominal alpha = 0.095
    ben = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    gerry = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    counts = _counts(list(zip(ben, gerry, strict=True)), (0, 1))
    assert round(agreement.krippendorff_alpha(counts), 3) == 0.095


def test_fleiss_kappa_equals_statsmodels_and_bootstrap_covers_it():
    rng = np.random.default_rng(3)
    for L, K in ((2, 5), (3, 5), (5, 3)):
        counts = rng.multinomial(K, rng.dirichlet(np.ones(L)), size=60).astype(float)
        assert agreement.fleiss_kappa(counts) == pytest.approx(sm_ir.fleiss_kappa(counts),
                                                               abs=1e-12)
        lo, hi = agreement.bootstrap_agreement(counts, "fleiss_kappa", 300,
                                               np.random.default_rng(0))
        assert lo <= agreement.fleiss_kappa(counts) <= hi


def test_dawid_skene_matches_crowd_kit():
    # crowd-kit 1.4.2 DawidSkene(n_iter=100, tol=1e-5).fit(...) on these votes gave these
    # labels and posteriors after 30 iterations (run once, pinned here). labelvar's one
    # Dawid-Skene with prior_strength=0 is the same maximum-likelihood estimate, run to
    # convergence: the same labels, and the posteriors crowd-kit had nearly reached (it
    # stops at its tolerance; item 27 still drifts towards 1 there)
    rng = np.random.default_rng(5)
    n, R, L = 30, 4, 3
    truth = rng.integers(0, L, n)
    acc = np.array([0.85, 0.7, 0.55, 0.4])
    codes = np.where(rng.random((n, R)) < acc, truth[:, None], rng.integers(0, L, (n, R)))
    codes[rng.random((n, R)) < 0.15] = -1
    crowd_kit = [2, 2, 0, 2, 1, 1, 1, 0, 2, 0, 0, 1, 2, 1, 0, 2, 1, 0, 0, 2, 0, 1, 2, 0, 0, 0,
                 0, 0, 0, 2]
    post, iters = agreement.dawid_skene(codes, L, prior_strength=0, tol=1e-12)
    assert post.argmax(axis=1).tolist() == crowd_kit
    np.testing.assert_allclose(post[2], [0.9253103437480608, 0, 0.07468965624954452], atol=5e-4)
    np.testing.assert_allclose(post[13], [0.10846893338937383, 0.8915310666063121, 0], atol=5e-4)
    assert post[27, 0] > 0.9942469991410187
    # the default (MAP, two pseudo-votes per row) gives the same labels here, and it is
    # fit_raters' Dawid-Skene
    post_map, _ = agreement.dawid_skene(codes, L)
    assert post_map.argmax(axis=1).tolist() == crowd_kit
    items = np.repeat(np.arange(n), R)
    long = pd.DataFrame({"item": items, "rater": np.tile(np.arange(R), n), "label": codes.ravel()})
    fit = labelvar.fit_raters(long[long.label >= 0], model="dawid_skene", labels=[0, 1, 2],
                              n_resamples=0)
    np.testing.assert_allclose(fit.truth.to_numpy(), post_map, atol=1e-12)


def test_counts_must_be_whole_numbers():
    with pytest.raises(ValueError,
                       match=r"^counts must be whole numbers of votes, got 2.5 \(item 0, column 0\)$"):
        agreement.fleiss_kappa([[2.5, 0.5], [1, 2]])
    with pytest.raises(ValueError, match=r"^counts_y must be whole numbers of votes"):
        agreement.cross_replication([[2, 1], [1, 2]], [[1.5, 0.5], [1, 1]], n_resamples=0)
    with pytest.raises(ValueError, match=r"^codes must be whole label codes .* got 0.5"):
        agreement.dawid_skene([[0, 1, 0.5], [1, 1, 0]], 2)
    assert agreement.fleiss_kappa([[2.0, 1.0], [0.0, 3.0]]) == agreement.fleiss_kappa(
        [[2, 1], [0, 3]])


def test_resample_counts_are_bounded_before_work():
    with pytest.raises(ValueError, match=r"^n_resamples must be <= 1000000"):
        agreement.cross_replication([[2, 1], [1, 2]], [[1, 1], [1, 1]], n_resamples=10 ** 9)
    with pytest.raises(ValueError, match=r"^n_resamples must be <= 1000000"):
        agreement.bootstrap_agreement([[2, 1], [1, 2]], "fleiss_kappa", 10 ** 9,
                                      np.random.default_rng(0))


def test_kappa_and_qwk_equal_sklearn():
    rng = np.random.default_rng(1)
    y, p = rng.integers(0, 5, 200), rng.integers(0, 5, 200)
    p[:120] = y[:120]
    conf = _metrics.confusion(y, p, 5)
    assert _metrics.kappa(conf) == pytest.approx(skm.cohen_kappa_score(y, p), abs=1e-12)
    assert _metrics.kappa(conf, "quadratic") == pytest.approx(
        skm.cohen_kappa_score(y, p, weights="quadratic"), abs=1e-12)


def test_auroc_auprc_equal_sklearn_with_ties():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 300)
    s = np.round(rng.random(300) * 0.6 + 0.4 * y, 1)  # many ties
    assert _metrics.auroc(y, s) == pytest.approx(skm.roc_auc_score(y, s), abs=1e-12)
    assert _metrics.auprc(y, s) == pytest.approx(skm.average_precision_score(y, s), abs=1e-12)


def test_ordinal_scores_equal_scipy_and_by_hand():
    from scipy import stats

    rng = np.random.default_rng(4)
    votes = rng.integers(1, 6, size=(80, 3))
    mean = votes.mean(axis=1)
    pred = np.clip(np.round(mean + rng.normal(0, 0.8, 80)), 1, 5).astype(int)
    s = _metrics.ordinal_scores(pred, mean, np.zeros(80, int), pred - 1, 5)
    assert s["mae"] == pytest.approx(np.abs(pred - mean).mean())
    assert s["within1"] == pytest.approx(np.mean(np.abs(pred - mean) <= 1))
    assert s["spearman"] == pytest.approx(stats.spearmanr(pred, mean).statistic)
    assert s["kendall"] == pytest.approx(stats.kendalltau(pred, mean).statistic)


def test_mcnemar_and_holm_equal_statsmodels():
    from statsmodels.stats.contingency_tables import mcnemar
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(6)
    a, b = rng.random(150) < 0.8, rng.random(150) < 0.7
    r = inference.mcnemar_exact(a, b)
    table = [[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]]
    assert r.p == pytest.approx(mcnemar(table, exact=True).pvalue, abs=1e-12)
    p = rng.random(12) ** 3
    np.testing.assert_allclose(inference.holm(p), multipletests(p, method="holm")[1])


def test_stratify_compare_ordinal_probabilities_and_dawid_skene():
    rng = np.random.default_rng(7)
    n = 300
    truth = rng.integers(1, 6, n)
    panel = np.clip(truth[:, None] + rng.integers(-1, 2, (n, 3)), 1, 5)
    preds = {"a": np.clip(truth + rng.integers(-1, 2, n), 1, 5), "b": rng.integers(1, 6, n)}
    r = stratify(panel, preds, labels=Labels(ordinal=True),
                 truth=Truth(aggregation="dawid_skene"), intervals=Intervals(n_resamples=50))
    t = r.table
    assert {"mae", "within1", "qwk", "spearman", "kendall"} <= set(t.metric)
    assert set(r.agreement().table.statistic) == {"fleiss_kappa", "alpha_nominal", "alpha_ordinal",
                                          "alpha_interval"}
    assert r.inputs["task"]["changed_vs_majority"] >= 0
    comp = r.compare("a", "b").table
    acc = comp[comp.metric == "accuracy"]
    small = acc.note.str.contains("small bin")  # (MAP Dawid-Skene: one bin under 10 items)
    assert (acc.test == "mcnemar_exact").all() and acc.p[~small].notna().all()
    assert small.sum() <= 1
    # per bin, the agreement statistics equal statsmodels / a direct computation
    r2 = stratify(panel, preds, labels=Labels(ordinal=True), intervals=Intervals(n_resamples=0))
    votes = pd.DataFrame(panel)
    counts = _counts(votes.to_numpy(), range(1, 6))
    top = counts.max(axis=1) / 3
    for stratum, g in r2.agreement().table.groupby("stratum"):
        sel = np.ones(n, bool) if stratum == "all" else np.round(top, 2) == float(stratum)
        fk = g.set_index("statistic").score["fleiss_kappa"]
        want = sm_ir.fleiss_kappa(counts[sel])
        assert (np.isnan(fk) and np.isnan(want)) or fk == pytest.approx(want, abs=1e-12)
    # probabilities: cross-entropy / TV by hand, AUROC by sklearn (binary)
    bpanel = (panel >= 3).astype(int)
    prob = rng.random(n)
    r3 = stratify(TaskData(bpanel, {"m": (prob > 0.5).astype(int)}, probabilities={"m": prob}),
                  intervals=Intervals(n_resamples=0))
    row = r3.table[(r3.table.stratum == "all")].set_index("metric").score
    k = bpanel.sum(axis=1)
    ref = np.stack([1 - k / 3, k / 3], axis=1)
    p2 = np.stack([1 - prob, prob], axis=1)
    assert row["cross_entropy"] == pytest.approx(-(ref * np.log(p2)).sum(axis=1).mean())
    assert row["total_variation"] == pytest.approx(0.5 * np.abs(p2 - ref).sum(axis=1).mean())
    maj = (k >= 2).astype(int)
    assert row["auroc"] == pytest.approx(skm.roc_auc_score(maj, prob))
    assert row["auprc"] == pytest.approx(skm.average_precision_score(maj, prob))


def test_distinct_rows_give_the_per_item_values():
    """Fleiss/alpha over distinct count rows with their frequencies = over every item."""
    rng = np.random.default_rng(0)
    counts = rng.multinomial(5, [0.5, 0.3, 0.2], size=300)
    w = np.ones((1, counts.shape[0]))
    assert np.isclose(agreement.fleiss_kappa(counts), agreement._fleiss(counts.astype(float), w)[0],
                      rtol=0, atol=1e-12)
    for level in agreement.LEVELS:
        full = agreement._alpha(agreement._coincidence_parts(counts.astype(float)), w, level,
                         np.arange(3.0))[0]
        assert np.isclose(agreement.krippendorff_alpha(counts, level), full, rtol=0, atol=1e-12)


def test_rater_bootstrap_refused_with_dawid_skene(capsys):
    """The rater bootstrap redraws votes and takes their plurality: with Dawid-Skene ground
    truth its intervals were about another ground truth (on CheXpert Cardiomegaly a model's
    accuracy 0.69 in the lowest posterior bin got the interval [0.34, 0.57])."""
    from labelvar.cli import main

    panel = [[1, 1, 0], [0, 0, 0], [1, 0, 0], [1, 1, 1], [0, 1, 1]] * 4
    with pytest.raises(ValueError, match=r"^resample_raters: the rater bootstrap recomputes .*"
                                         r"aggregation=dawid_skene"):
        stratify(panel, {"s": [1, 0, 1, 0, 1] * 4}, truth=Truth(aggregation="dawid_skene"),
                 intervals=Intervals(n_resamples=10, resample_raters=True))
    assert len(stratify(panel, {"s": [1, 0, 1, 0, 1] * 4},
                        truth=Truth(aggregation="dawid_skene"),
                        intervals=Intervals(n_resamples=10)).table)  # either alone still runs
    path = Path(__file__).resolve().parents[1] / "examples" / "synthetic_panel.csv"
    code = main(["stratify", str(path), "--panel", "gt*", "--systems", "weak", "--item", "item",
                 "--aggregation", "dawid_skene", "--resample-raters", "--n-resamples", "10"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err.startswith("labelvar: error: --resample-raters: the rater bootstrap")
    assert "--aggregation dawid_skene" in err and len(err.strip().splitlines()) == 1


def test_agreement_notes_say_why_a_statistic_is_missing():
    """A bin where Fleiss' kappa has no item with the task's usual number of votes, and a
    bin whose votes all go to one label: NaN with the reason (SNLI's 0.75 bin of 4-vote
    items used to read "NaN (items with 5 votes)"; CheXpert's Pleural Other 1.00 bin a bare
    NaN)."""
    panel = [[0, 0, 0, 0, 0]] * 4 + [[1, 1, 1, 0, 0], [0, 0, 0, 1, 1], [1, 1, 1, 1, 0],
                                     [0, 0, 0, 0, 1]] * 3 + [[1, 1, 1, 0, None]] * 2
    r = stratify(panel, {"s": [0] * 4 + [1, 0, 1, 0] * 3 + [1, 1]},
                 intervals=Intervals(n_resamples=0, min_bin_size=1))
    ag = r.agreement().table.set_index(["stratum", "statistic"])
    # the 0.75 bin: two items with 4 votes (3-1), none with the usual 5
    assert np.isnan(ag.score["0.75", "fleiss_kappa"]) and ag.n["0.75", "fleiss_kappa"] == 0
    assert ag.note["0.75", "fleiss_kappa"] == ("no item with 5 votes, the number Fleiss' "
                                               "kappa uses here")
    # alpha takes any number of votes: two items 1-3, coincidences o_01 = o_10 = 2,
    # o_11 = 4, n_0 = 2, n_1 = 6: alpha = 1 - (8 - 1) * 4 / (2 * 2 * 6) = -1/6
    assert ag.score["0.75", "alpha_nominal"] == pytest.approx(-1 / 6)
    assert ag.note["0.75", "alpha_nominal"] == ""
    # the unanimous bin: the 4 all-0 items and no other unanimous one
    assert ag.S["1.00", "fleiss_kappa"] == 4
    for stat in ("fleiss_kappa", "alpha_nominal"):
        assert np.isnan(ag.score["1.00", stat])
        assert ag.note["1.00", stat] == "every vote for one label: undefined"
    want = sm_ir.fleiss_kappa(np.array([[5, 0]] * 4 + [[2, 3], [3, 2], [1, 4], [4, 1]] * 3))
    assert ag.score["all", "fleiss_kappa"] == pytest.approx(want, abs=1e-12)
    assert ag.note["all", "fleiss_kappa"] == "items with 5 votes"


def test_comparisons_small_bins_and_untestable_rows_have_no_p_and_say_why():
    """Small bins enter no test (as in bin_tests): SNLI's one-item 0.75 bin used to get a
    McNemar p-value that entered Holm. A row without a p-value says why; Holm runs over
    the tested rows only and n_comparisons counts them."""
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(3)
    n = 150
    truth = rng.integers(0, 2, n)
    panel = np.where(rng.random((n, 5)) < 0.8, truth[:, None], 1 - truth[:, None])
    panel[:4, 4] = -1  # four 4-vote items: with a 3-1 split they form a small bin 0.75
    panel[:4, :4] = [[1, 1, 1, 0]] * 4
    panel = np.where(panel < 0, None, panel).astype(object)
    a = np.where(rng.random(n) < 0.85, truth, 1 - truth)
    b = np.where(rng.random(n) < 0.70, truth, 1 - truth)
    a[:4], b[:4] = [1, 1, 1, 0], [0, 0, 0, 0]  # discordant in the small bin
    r = stratify(panel, {"a": a, "b": b}, seed=1, metrics=["accuracy", "f1"],
                 intervals=Intervals(n_resamples=200))
    comp = r.compare("a", "b").table
    c = comp.set_index(["stratum", "metric"])
    assert c.S["0.75", "accuracy"] == 4 and c.n_a_only["0.75", "accuracy"] == 3
    for metric in ("accuracy", "f1"):
        assert np.isnan(c.p["0.75", metric]) and np.isnan(c.p_holm["0.75", metric])
        assert c.note["0.75", metric] == "small bin (fewer than 10 items): no test"
    tested = comp[comp.p.notna()]
    assert len(tested) == len(comp) - 2 and (comp.note[tested.index] == "").all()
    assert (comp.n_comparisons == len(tested)).all()
    np.testing.assert_allclose(tested.p_holm, multipletests(tested.p, method="holm")[1])
    # identical answers: no discordant item (McNemar) and no bootstrap test either
    r = stratify(panel, {"a": a, "c": a.copy()}, metrics=["accuracy", "f1"],
                 intervals=Intervals(n_resamples=50))
    comp = r.compare("a", "c").table
    big = comp[~comp.small_bin]
    assert big.p.isna().all() and (comp.n_comparisons == 0).all()
    assert set(big.note[big.metric == "accuracy"]) == {"no discordant items: no test"}
    assert set(big.note[big.metric == "f1"]) == {"identical answers on these items: no test"}
    # no bootstrap: F1 rows have no p-value, and say so
    r = stratify(panel, {"a": a, "b": b}, metrics=["f1"], intervals=Intervals(n_resamples=0))
    comp = r.compare("a", "b").table
    big = comp[~comp.small_bin]
    assert big.p.isna().all() and set(big.note) == {"no bootstrap (n_resamples=0): no p-value"}


@pytest.mark.parametrize("level, published", [("nominal", 0.743), ("ordinal", 0.815),
                                              ("interval", 0.849)])
def test_krippendorff_alpha_columns_in_any_order(level, published):
    """Columns given out of value order with their values: ordinal alpha used to rank by
    column position (0.754 for this permutation instead of the published 0.815)."""
    perm = [2, 0, 4, 1, 3]
    counts = _counts(list(zip(*KRIPP, strict=True)), range(1, 6))[:, perm]
    values = np.array([1, 2, 3, 4, 5])[perm]
    assert round(agreement.krippendorff_alpha(counts, level, values=values), 3) == published
    lo, hi = agreement.bootstrap_agreement(counts, f"alpha_{level}", 400,
                                           np.random.default_rng(0), values=values)
    lo0, hi0 = agreement.bootstrap_agreement(counts[:, np.argsort(perm)], f"alpha_{level}", 400,
                                             np.random.default_rng(0), values=[1, 2, 3, 4, 5])
    assert (lo, hi) == pytest.approx((lo0, hi0))
    with pytest.raises(ValueError, match=r"^values must be finite numbers"):
        agreement.krippendorff_alpha(counts, level, values=[1, 2, np.nan, 4, 5])
