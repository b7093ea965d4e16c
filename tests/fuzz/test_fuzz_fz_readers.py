"""Fuzz cases of the reader studies and the agreement metrics (issue 31): each was a crash,
a hang, a silently wrong number or an unclear message before, and is now the right number
or a one-line refusal naming the argument (or flag) and what is allowed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from labelvar import metrics, mrmc, standalone_vs_readers
from labelvar.cli import main
from labelvar.readers import MRMCPower, StandalonePower, TruthPanel

C = 30
Y = (np.arange(C) % 3 == 0).astype(int)
IDS = [f"c{k}" for k in range(C)]


def _study(readers=("r0", "r1", "r2"), mods=(1, 2), y=Y, seed=0):
    g = np.random.default_rng(seed)
    rows = [(j, f"c{k}", m, int(y[k]), round(float(y[k] * (1 + .4 * m) + g.normal()), 2))
            for m in mods for j in readers for k in range(len(y))]
    return pd.DataFrame(rows, columns=["reader", "case", "modality", "truth", "rating"])


D = _study()
D1 = D[D.modality == 1].drop(columns="modality")
P = MRMCPower(var_tr=0.0002, var_error=0.0008, cov1=0.00035, cov2=0.00034, cov3=0.00024, n_cases=114)
SP = StandalonePower(var_r=0.001, var_error=0.0015, cov2=0.0007, n_cases=100)


def _same_ratings_per_modality():
    d = D.copy()
    d["rating"] = d.groupby(["reader", "case"]).rating.transform("first")
    return d


def _ai_equals_readers():
    d = D1.copy()
    d["rating"] = d.groupby("case").rating.transform("first")
    return d


def _nan_reader():
    d = D.astype({"reader": object})
    d.loc[d.reader == "r0", "reader"] = np.nan
    return d


VOTES = pd.DataFrame([(f"i{i}", r, int((i + (r == "c") + (i % 4 == 0)) % 2)) for i in range(12)
                      for r in "abc"], columns=["item", "rater", "label"])

# (id, call, pattern the one-line refusal matches)
REFUSED = [
    # mrmc / standalone: crashes (ZeroDivisionError, KeyError) and a hang before
    ("mrmc two cases", lambda: mrmc(_study(y=np.array([0, 1])), truth="truth"),
     r"truth: fom='auc' needs at least 2 positives and 2 negatives"),
    ("mrmc every rating tied", lambda: mrmc(D.assign(rating=1.0), truth="truth"),
     r"ratings: the figures of merit \(0\.5\) do not vary over cases"),
    ("mrmc tied, one modality", lambda: mrmc(_study(mods=(1,)).assign(rating=1.0), truth="truth"),
     r"do not vary over cases"),
    ("mrmc every decision 1", lambda: mrmc(D.assign(rating=1), truth="truth", fom="sensitivity"),
     r"do not vary over cases"),
    ("mrmc identical modalities", lambda: mrmc(_same_ratings_per_modality(), truth="truth"),
     r"ratings: the modalities' figures of merit .* zero variance"),
    ("mrmc threshold nan", lambda: mrmc(D, truth="truth", fom="sensitivity", threshold=float("nan")),
     r"threshold must be a finite number"),
    ("mrmc threshold inf", lambda: mrmc(D, truth="truth", fom="accuracy", threshold=np.inf),
     r"threshold must be a finite number"),
    ("mrmc threshold text", lambda: mrmc(D, truth="truth", fom="sensitivity", threshold="x"),
     r"threshold must be a finite number"),
    ("mrmc alpha text", lambda: mrmc(D, truth="truth", alpha="a"), r"^alpha must be a number"),
    ("mrmc alpha list", lambda: mrmc(D, truth="truth", alpha=[0.05, 0.1]), r"^alpha must be a single number"),
    ("mrmc reader id NaN", lambda: mrmc(_nan_reader(), truth="truth"),
     r"reader: 60 of 180 ratings have no reader id \(column 'reader'"),
    ("mrmc ids 1 and '1'", lambda: mrmc(_study(readers=(1, "1", 2)), truth="truth"),
     r"reader: the ids 1 and '1' read as the same text"),
    ("mrmc modality column named but absent", lambda: mrmc(D, truth="truth", modality="mod"),
     r"modality: ratings has no column 'mod'"),
    ("mrmc one column twice", lambda: mrmc(D, truth="truth", reader="case"),
     r"reader, case, modality and rating must name different columns"),
    ("mrmc posteriors all 0", lambda: mrmc(D, truth="truth", truth_model=pd.Series(np.zeros(C), index=IDS)),
     r"truth_model: the posteriors cannot give both classes"),
    ("standalone posteriors all 1",
     lambda: standalone_vs_readers(D1, "r2", truth="truth", truth_model=pd.Series(np.ones(C), index=IDS)),
     r"truth_model: the posteriors cannot give both classes"),
    ("standalone tied", lambda: standalone_vs_readers(D1.assign(rating=1.0), "r2", truth="truth"),
     r"ratings: the readers' figures of merit minus the AI's \(psi\) have no variance"),
    ("standalone readers rate as the AI",
     lambda: standalone_vs_readers(_ai_equals_readers(), "r2", truth="truth"),
     r"psi\) have no variance"),
    ("standalone several modalities", lambda: standalone_vs_readers(D, "r2", truth="truth"),
     r"rates case 'c0' twice \(one modality: the ratings have no modality column"),
    ("standalone ai a list", lambda: standalone_vs_readers(D1, list(range(C)), truth="truth"),
     r"^ai must be the name of a reader in ratings or a Series"),
    ("truth yes/no", lambda: mrmc(D.assign(truth=np.where(D.truth == 1, "yes", "no")), truth="truth"),
     r"^truth must be 0/1, got 'yes', 'no'"),
    ("panel seed text", lambda: mrmc(D, truth=TruthPanel(D[["case"]].assign(p=D.truth), seed="x")),
     r"truth: TruthPanel's seed must be a whole number"),
    ("panel seed -1", lambda: mrmc(D, truth=TruthPanel(D[["case"]].assign(p=D.truth), seed=-1)),
     r"TruthPanel's seed must be a whole number in \[0, 2\*\*63 - 1\]"),
    ("panel columns", lambda: mrmc(D, truth=TruthPanel(D[["case"]], columns=("case",))),
     r"truth: TruthPanel's columns must be three column names"),
    # sizing: silently wrong numbers (NaN, power -0.95, n_cases 0 accepted) and a hang before
    ("power readers 2.5", lambda: P.power(2.5, 100, effect=0.05), r"^readers must be a whole number"),
    ("power readers inf", lambda: P.power(np.inf, 100, effect=0.05), r"^readers must be a whole number"),
    ("power readers bool", lambda: P.power(True, 100, effect=0.05), r"^readers must be a whole number"),
    ("power cases 100.5", lambda: P.power(5, 100.5, effect=0.05), r"^cases must be a whole number"),
    ("power effect nan", lambda: P.power(5, 100, effect=np.nan), r"^effect must not be NaN"),
    ("power effect 2", lambda: P.power(5, 100, effect=2.0), r"^effect must be in \[-1, 1\]"),
    ("power effect text", lambda: P.power(5, 100, effect="big"), r"^effect must be a number"),
    ("power alpha 0", lambda: P.power(5, 100, effect=0.05, alpha=0), r"^alpha must be in \(0, 1\)"),
    ("power alpha 1.5", lambda: SP.power(5, 100, effect=0.05, alpha=1.5), r"^alpha must be in \(0, 1\)"),
    ("sizes effect 0", lambda: P.sizes(effect=0.0), r"^effect must be a difference other than 0"),
    ("sizes no readers", lambda: P.sizes(effect=0.05, readers=[]), r"^readers must list at least one"),
    ("sizes 1e7 reader counts", lambda: P.sizes(effect=0.05, readers=range(3, 10**7)),
     r"^readers lists 9,999,997 numbers of readers; at most 10,000"),
    ("sizes readers 2.5", lambda: P.sizes(effect=0.05, readers=[2.5, 3]), r"^readers must be a whole number"),
    ("sizes max_cases 1", lambda: P.sizes(effect=0.05, max_cases=1), r"^max_cases must be >= 2"),
    ("n_cases 0", lambda: MRMCPower(0.0002, 0.0008, 0.00035, 0.00034, 0.00024, 0), r"^n_cases must be >= 2"),
    ("n_cases 2.5", lambda: StandalonePower(0.001, 0.0015, 0.0007, 2.5), r"^n_cases must be a whole number"),
    ("var_error < 0", lambda: MRMCPower(0.0002, -0.0008, 0.00035, 0.00034, 0.00024, 100),
     r"^var_error must be >= 0"),
    ("components all 0", lambda: MRMCPower(0, 0, 0, 0, 0, 100),
     r"MRMCPower: the components give no error variance"),
    ("cov1 > var_error", lambda: MRMCPower(0.0, 0.0008, 0.002, 0.002, 0.0, 100),
     r"var_error - cov1 - cov2 \+ cov3 = -0\.0032"),
    ("from_result one modality", lambda: MRMCPower.from_result(mrmc(_study(mods=(1,)), truth="truth")),
     r"^result: MRMCPower sizes a comparison of two modalities; the pilot has one"),
    ("component nan", lambda: MRMCPower(np.nan, 0.0008, 0.00035, 0.00034, 0.00024, 100),
     r"^var_tr must be a finite number"),
    ("component text", lambda: StandalonePower("x", 0.0015, 0.0007, 100), r"^var_r must be a finite number"),
    # agreement: hangs (n_resamples) and unclear messages before
    ("n_resamples 1e9", lambda: metrics.agreement_coefficient(VOTES, "gwet_ac1", n_resamples=10**9),
     r"^n_resamples must be <= 1000000"),
    ("references draws", lambda: metrics.agreement_coefficient(
        [[10**6, 10], [10, 10**6]], "cohen_kappa", layout="table", n_resamples=10**5),
     r"^n_resamples=100,000 x 4,000,040 votes is .* lower n_resamples or pass references=False"),
    ("one item", lambda: metrics.agreement_coefficient(VOTES[VOTES.item == "i1"], "fleiss_kappa"),
     r"^data must have at least 2 items with a rating, got 1"),
    ("by_agreement text", lambda: metrics.agreement_coefficient(VOTES, "gwet_ac1", by_agreement="no"),
     r"^by_agreement must be True or False"),
    ("coefficient twice", lambda: metrics.agreement_table(VOTES, ["gwet_ac1", "gwet_ac1"]),
     r"^coefficients lists 'gwet_ac1' more than once"),
    ("coefficients an int", lambda: metrics.agreement_table(VOTES, 3),
     r"^coefficients must be a name or a list"),
    # LeWiDi: a label 2 gave an error rate of 2; text and ragged rows gave numpy's messages
    ("error_rate label 2", lambda: metrics.error_rate([[0, 0]], [[2, 2]]),
     r"^observed must hold 0/1 labels for an error rate"),
    ("error_rate predicted 0.5", lambda: metrics.error_rate([[0.5, 0.5]], [[1, 0]]),
     r"^predicted must hold 0/1 labels"),
    ("multilabel error_rate label 2", lambda: metrics.multilabel_error_rate([[[0, 0]]], [[[2, 1]]]),
     r"^observed must hold 0/1 labels"),
    ("manhattan ragged", lambda: metrics.manhattan_distance([[0.5, 0.5], [1.0]], [[1, 0], [1]]),
     r"^predicted must be an array of numbers with rows of equal length"),
    ("error_rate text", lambda: metrics.error_rate([["yes", "no"]], [[1, 1]]),
     r"^predicted must be an array of numbers"),
    ("scale text", lambda: metrics.mean_absolute_distance([[1, 2]], [[2, 2]], scale="x"),
     r"^scale must be a positive number, got 'x'"),
    ("scale list", lambda: metrics.mean_absolute_distance([[1, 2]], [[2, 2]], scale=[5, 6]),
     r"^scale must be a positive number"),
    ("references fractional counts",
     lambda: metrics.score_references([[1.5, 1.5], [1, 2]], "manhattan_distance"),
     r"^observed must hold vote counts for 'manhattan_distance' \(whole numbers"),
    ("references shares", lambda: metrics.score_references([[0.5, 0.5], [1, 0]], "wasserstein_distance"),
     r"not shares"),
    ("references inf", lambda: metrics.score_references([[1, np.inf, 0], [0, 0, 1]], "error_rate"),
     r"^observed must hold finite labels"),
    ("references label 2", lambda: metrics.score_references([[2, 2, 0], [0, 0, 2]], "error_rate"),
     r"^observed must hold 0/1 labels"),
    ("references labels [0, 1, 2]",
     lambda: metrics.score_references([[1, 1, 0]], "error_rate", labels=[0, 1, 2]),
     r"^labels must hold 0/1 labels"),
    ("references scale ignored",
     lambda: metrics.score_references([[3, 0], [1, 2]], "manhattan_distance", scale=5),
     r"^scale applies to 'mean_absolute_distance' only"),
    ("references labels ignored",
     lambda: metrics.score_references([[3, 0]], "manhattan_distance", labels=[0, 1]),
     r"^labels applies to the perspectivist scores"),
    ("references labels twice", lambda: metrics.score_references([[1, 1, 0]], "error_rate", labels=[0, 1, 1]),
     r"^labels lists a value more than once"),
    # label metrics: a label 2 scored as positive, NaN scores, negative weights
    ("auroc y 2", lambda: metrics.auroc([0, 2, 1], [0.1, 0.2, 0.3]),
     r"^y must hold 0/1 labels, got \[2\.0\]"),
    ("auroc NaN score", lambda: metrics.auroc([0, 1, 1], [0.1, np.nan, 0.3]), r"^score must not be NaN"),
    ("auprc lengths", lambda: metrics.auprc([0, 1], [0.1, 0.2, 0.3]),
     r"^y and score must be 1-d of the same length"),
    ("confusion n_labels 1.5", lambda: metrics.confusion([0, 1], [0, 1], n_labels=1.5),
     r"^n_labels must be a whole number"),
    ("confusion weights < 0", lambda: metrics.confusion([0, 1], [0, 1], n_labels=2, weights=[-1, 1]),
     r"^weights must be finite per-item weights >= 0"),
    ("threshold with auc", lambda: mrmc(D, truth="truth", threshold=1.0),
     r"^threshold: it applies to sensitivity, specificity and accuracy, not fom='auc'"),
    ("references ragged", lambda: metrics.score_references([[3, 0], [1]], "manhattan_distance"),
     r"^observed must be an array of numbers"),
]


@pytest.mark.parametrize("call,pattern", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_refused_in_one_line(call, pattern):
    with pytest.raises(ValueError, match=pattern) as info:
        call()
    assert "\n" not in str(info.value)


def test_power_at_effect_zero_is_alpha():
    # scipy's ncf.sf at noncentrality 0 gave -0.95: the power of a true null is alpha
    assert float(P.power(5, 114, effect=0.0)) == pytest.approx(0.05, abs=1e-12)
    assert float(SP.power(6, 200, effect=0.0, alpha=0.1)) == pytest.approx(0.1, abs=1e-12)
    # and a non-zero effect is the noncentral F tail, computed by hand
    s = 114 / 114
    ms_tr = 0.0002 + s * (0.0008 - 0.00035 - 0.00034 + 0.00024)
    den = ms_tr + 5 * s * max(0.00034 - 0.00024, 0)
    lam, ddf = 5 * 0.05 ** 2 / (2 * den), den ** 2 / (ms_tr ** 2 / 4)
    want = stats.ncf.sf(stats.f.isf(0.05, 1, ddf), 1, ddf, lam)
    assert float(P.power(5, 114, effect=0.05)) == pytest.approx(want, rel=1e-12)


def test_sizes_bisects_every_reader_count_as_one_at_a_time():
    table = P.sizes(effect=0.05, readers=[5, 10, 40], max_cases=10**6).table
    for r, cases in zip(table.readers, table.cases):
        assert float(P.power(r, cases, effect=0.05)) >= 0.8 > float(P.power(r, cases - 1, effect=0.05))
    assert table.cases.tolist()[:2] == [208.0, 115.0]


def test_agreement_without_sampling_error_has_p_zero():
    # every vote 1: AC1 = 1 exactly (pe = 0), se 0: the t statistic is infinite, p = 0 (was NaN)
    res = metrics.agreement_coefficient(VOTES.assign(label=1), "gwet_ac1", labels=[0, 1], references=False)
    assert (res.coefficient, res.se, res.ci_low, res.ci_high, res.p_value) == (1.0, 0.0, 1.0, 1.0, 0.0)
    # the whole population rated: the finite-population correction makes se 0
    res = metrics.agreement_coefficient(VOTES, "percent_agreement", population_size=12, references=False)
    assert res.se == 0.0 and res.p_value == 0.0


def test_undefined_kappa_says_why():
    res = metrics.agreement_coefficient(VOTES.assign(label=1), "cohen_kappa", labels=[0, 1],
                                        references=False)
    assert np.isnan(res.coefficient) and np.isnan(res.se) and res.pe == 1.0
    assert res.describe().splitlines()[0].startswith(
        "Cohen's kappa (unweighted) is undefined: chance agreement pe = 1 (every vote in one category)")


def _cli(capsys, *argv):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err.strip()
    return code, err


@pytest.fixture
def files(tmp_path):
    ratings = tmp_path / "ratings.csv"
    D.to_csv(ratings, index=False)
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    js = tmp_path / "ratings.json"
    D.to_json(js)
    bad = tmp_path / "bad.parquet"
    bad.write_text("x")
    votes = tmp_path / "votes.csv"
    VOTES.to_csv(votes, index=False)
    return {"R": ratings, "E": empty, "J": js, "B": bad, "V": votes, "DIR": tmp_path}


CLI = [
    ("empty file", ["readers", "E", "--truth", "truth"], r"RATINGS: the file .* is empty"),
    ("json file", ["readers", "J", "--truth", "truth"],
     r"RATINGS: .* must be a \.csv, \.tsv or \.parquet file, got '\.json'"),
    ("damaged parquet", ["readers", "B", "--truth", "truth"], r"RATINGS: cannot read .* as parquet"),
    ("directory", ["readers", "DIR", "--truth", "truth"], r"RATINGS: .* is a directory"),
    ("latin-1 file", ["readers", "LAT", "--truth", "truth"],
     r"RATINGS: .* is not UTF-8 text \(.*\); convert it to UTF-8"),
    ("truth neither column nor file", ["readers", "R", "--truth", "truthx"],
     r"--truth: 'truthx' is neither a column of RATINGS "
     r"\(columns: reader, case, modality, truth, rating\) nor a file"),
    ("threshold nan", ["readers", "R", "--truth", "truth", "--fom", "sensitivity", "--threshold", "nan"],
     r"--threshold must be a finite number"),
    ("size-effect 0", ["readers", "R", "--truth", "truth", "--size-effect", "0"],
     r"--size-effect must be a difference .* not 0"),
    ("size-effect nan", ["readers", "R", "--truth", "truth", "--size-effect", "nan"],
     r"--size-effect must be"),
    ("size-effect 5", ["readers", "R", "--truth", "truth", "--size-effect", "5"],
     r"--size-effect must be .* in \[-1, 1\]"),
    ("power 1.5", ["readers", "R", "--truth", "truth", "--size-effect", "0.05", "--power", "1.5"],
     r"--power must be in \(0, 1\)"),
    ("power alone", ["readers", "R", "--truth", "truth", "--power", "0.9"],
     r"--power is the target power of --size-effect"),
    ("analysis without ai", ["readers", "R", "--truth", "truth", "--analysis", "1T-RRFC"],
     r"--analysis applies to the AI"),
    ("tie-rule without panel", ["readers", "R", "--truth", "truth", "--tie-rule", "lowest"],
     r"--tie-rule applies to a panel's votes"),
    ("modality column absent", ["readers", "R", "--truth", "truth", "--modality", "mod"],
     r"--modality: ratings has no column 'mod'"),
    ("tied ratings", ["readers", "TIED", "--truth", "truth"],
     r"RATINGS: the figures of merit \(0\.5\) do not vary"),
    ("truth-model on a one-class panel",
     ["readers", "R", "--truth", "PANEL1", "--truth-model", "dawid_skene"],
     r"--truth: the panel's majority makes the cases all of one class"),
    ("agreement twice", ["raters", "V", "--agreement", "gwet_ac1,gwet_ac1", "--n-resamples", "0"],
     r"--agreement lists 'gwet_ac1' more than once"),
]


@pytest.mark.parametrize("argv,pattern", [c[1:] for c in CLI], ids=[c[0] for c in CLI])
def test_cli_refuses_in_one_line(files, capsys, argv, pattern):
    tied = files["DIR"] / "tied.csv"
    D.assign(rating=1.0).to_csv(tied, index=False)
    files["TIED"] = tied
    panel = files["DIR"] / "panel1.csv"
    pd.DataFrame({"case": IDS, "p0": 1, "p1": 1, "p2": 0}).to_csv(panel, index=False)
    files["PANEL1"] = panel
    latin = files["DIR"] / "latin.csv"
    _study(readers=("é", "b", "c")).to_csv(latin, index=False, encoding="latin-1")
    files["LAT"] = latin
    code, err = _cli(capsys, *[files.get(a, a) for a in argv])
    assert code == 2, err
    assert len(err.splitlines()) == 1 and err.startswith("labelvar")
    assert pytest.importorskip("re").search(pattern, err), err


def test_cli_power_and_size_effect_still_size(files, capsys):
    code = main(["readers", str(files["R"]), "--truth", "truth", "--size-effect", "0.1", "--power", "0.9"])
    out = capsys.readouterr().out
    assert code == 0 and "power 0.9" in out
