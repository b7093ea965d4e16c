"""Real data end to end (read from <repo>/../shared/data, never copied; skipped when absent)."""

from __future__ import annotations

import importlib.util
import io as _io
import json
import re
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest
from conftest import REPO
from conftest import shared_data as _need

from labelvar.cli import main
from labelvar.evaluation import Intervals, Labels, Paper, Truth


def _script(name: str = "chexpert_table3"):
    """A script of scripts/ loaded as a module."""
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(*argv):
    out, err = _io.StringIO(), _io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def test_chexpert_table3_h_e_s_m_match_the_paper():
    root = _need("chexpert_test")
    mod = _script()
    table = mod.compute(root, n_resamples=0, findings=["Cardiomegaly", "Lung Opacity",
                                                  "Support Devices"])
    cmp_ = mod.compare(table)
    assert len(cmp_) == 12 * 8
    bad = cmp_[~cmp_.match]
    assert bad.empty, bad.to_string()
    # S exactly, m to the printed 3 decimals
    s = cmp_[cmp_.field == "S"]
    assert (s.exact == s.paper).all()


def test_chexpert_h_needs_per_radiologist_rounding_to_match():
    # without rounding each radiologist's score first, some printed H values differ by 0.01
    root = _need("chexpert_test")
    mod = _script()
    from labelvar.evaluation._stratified import stratify

    data = mod.load(root)
    t = stratify({"Cardiomegaly": data["Cardiomegaly"]}, humans=mod.HUMANS,
                 intervals=Intervals(n_resamples=0), paper=Paper(p_d_one=0.97)).table
    h = t[(t.role == "H") & (t.stratum == "0.80") & (t.metric == "f1")].iloc[0]
    assert round(h.score, 2) == 0.72  # the paper prints 0.71 (= mean of 0.67, 0.72, 0.75)


def test_chexpert_all_findings_and_models():
    root = _need("chexpert_test")
    mod = _script()
    t = mod.compute(root, n_resamples=0)
    assert t.task.nunique() == 14
    models = t[t.system.isin(mod.MODELS)]
    assert set(models.task) == {"Atelectasis", "Cardiomegaly", "Consolidation", "Edema",
                                "Pleural Effusion"}
    assert set(models.system) == set(mod.MODELS)
    assert (t[t.stratum == "all"].S == 500).all()
    # every finding: bins are the 5-vote agreement levels
    assert set(t.stratum) == {"0.60", "0.80", "1.00", "all"}
    # binary F1 (of label 1) is pinned: the one metrics definition changed macro-F1 only
    f1 = t[(t.system == "drnet") & (t.metric == "f1")].set_index(["task", "stratum"]).score
    assert f1["Cardiomegaly", "all"] == pytest.approx(96 / 131, abs=1e-15)
    assert f1["Consolidation", "all"] == pytest.approx(0.32, abs=1e-15)
    assert f1["Edema", "0.60"] == pytest.approx(0.53164556962025311, abs=1e-15)


def test_snli_with_chaosnli_predictions_cli():
    snli = _need("snli_dev_subset") / "snli_1.0_dev_first1288.jsonl"
    pred = _need("chaosnli/predictions")
    args = ["stratify", snli, "--panel", "annotator_labels", "--item", "pairID"]
    for name, model in (("roberta", "roberta-base"), ("bert", "bert-base-uncased")):
        args += ["--predictions", f"{name}={pred}/SNLI_dev_{model}_0.json,"
                                  f"{pred}/SNLI_test_{model}_0.json"]
    args += ["--pred-item", "uid", "--pred-label", "pred",
             "--pred-classes", "entailment,contradiction,neutral", "--tie-rule", "drop",
             "--missing-predictions", "drop", "--simulated-human", "5", "--n-resamples", "0",
             "--format", "csv"]
    code, out, err = run(*args)
    assert code == 0, err
    assert "15 tied, 1 without a prediction" in err
    t = pd.read_csv(_io.StringIO(out))
    strata = set(t.stratum)
    assert {"0.60", "0.80", "1.00", "all"} <= strata <= {"0.60", "0.75", "0.80", "1.00", "all"}
    assert (t[t.stratum == "all"].S == 1273).all()
    assert (t.n_labels == 3).all()
    f1 = t[t.metric == "f1"].set_index(["system", "stratum"]).score
    assert f1["roberta", "all"] == pytest.approx(0.910198, abs=1e-6)
    if ("roberta", "0.75") in f1.index:  # one item (4 votes, 3-1), predicted right: F1 1
        # for its label, 0 for the two declared labels absent from the bin
        assert f1["roberta", "0.75"] == pytest.approx(1 / 3)
    acc = t[(t.metric == "accuracy") & (t.stratum == "all")].set_index("system").score
    # the class order matters: with the wrong order these fine-tuned models score < 0.5
    assert acc["roberta"] > 0.85 and acc["bert"] > 0.85
    # H' (a panel vote drawn at random) scores p_d on average
    h = t[(t.role == "H'") & (t.metric == "accuracy") & (t.stratum == "0.80")].iloc[0]
    assert abs(h.score - 0.8) < 4 * np.sqrt(0.16 / (h.S * 5))


def test_dialsummeval_cli_three_raters_four_criteria():
    path = _need("dialsummeval") / "human_judgment.jsonl"
    code, out, err = run("stratify", path, "--panel", "annotations", "--item", "id,model_id",
                         "--simulated-human", "5", "--leave-one-out", "--metrics", "accuracy",
                         "--n-resamples", "0", "--format", "csv")
    assert code == 0, err
    t = pd.read_csv(_io.StringIO(out), dtype={"stratum": str})
    assert set(t.task) == {"coherence", "consistency", "fluency", "relevance"}
    assert set(t.stratum) <= {"0.33", "0.67", "1.00", "all"}
    assert set(t[t.task == "consistency"].stratum) == {"0.33", "0.67", "1.00", "all"}
    assert (t[t.stratum == "all"].S == 1400).all()
    assert (t.n_labels == 5).all()
    # leave-one-out: 3 votes all different -> the other two never agree with the drawn one
    loo = t[(t.role == "H'-loo") & (t.stratum == "0.33")]
    assert (loo.score == 0).all()


def test_dialsummeval_metric_judges_join_and_rank_match():
    root = _need("dialsummeval")
    mod = _script("dialsummeval_stratify")
    data = mod.build(root, ["rouge-l"])
    assert set(data) == {"coherence", "consistency", "fluency", "relevance"}
    for td in data.values():
        assert td.panel.shape == (1400, 3)
        votes = td.panel.to_numpy(dtype=float)
        counts = np.stack([(votes == k).sum(axis=1) for k in range(1, 6)], axis=1)
        majority = counts.argmax(axis=1) + 1
        pred = td.predictions["rouge-l"].to_numpy()
        np.testing.assert_array_equal(np.bincount(pred, minlength=6),
                                      np.bincount(majority, minlength=6))
    # the join: every summary found its metric row exactly once
    scores = mod.metric_scores(root, ["rouge-l"])
    assert scores.shape == (1400, 1) and scores.index.is_unique


# ------------------------------------------------------------- real files through the command line
def _stderr_lines(err):
    return [ln for ln in err.splitlines() if ln.strip()]


def test_snli_panel_only_h_prime_e_and_chance():
    snli = _need("snli_dev_subset") / "snli_1.0_dev_first1288.jsonl"
    code, out, err = run("stratify", snli, "--panel", "annotator_labels", "--n-resamples", "0",
                         "--format", "csv")
    assert code == 0, err
    assert "labelvar:" not in out  # the summary goes to stderr: the piped table stays clean
    assert ("snli_1.0_dev_first1288: 1,289 items, unidentified raters, 4-5 votes per item, labels "
            "contradiction (2,088), entailment (2,183), neutral (2,171); systems none") in err
    t = pd.read_csv(_io.StringIO(out), dtype={"stratum": str})
    assert set(t.role) == {"H'", "H'-loo"}
    acc = t[(t.metric == "accuracy") & (t.role == "H'")].set_index("stratum")
    assert acc.chance.eq(1 / 3).all()
    assert acc.expected["0.80"] == pytest.approx(0.8)
    assert bool(acc.small_bin["0.75"]) and not bool(acc.small_bin["0.80"])
    code, out, err = run("stratify", snli, "--panel", "annotator_labels", "--n-resamples", "0")
    assert code == 0 and "accuracy H'" in out and "accuracy chance" in out


def test_dialsummeval_panel_only():
    path = _need("dialsummeval") / "human_judgment.jsonl"
    code, out, err = run("stratify", path, "--panel", "annotations", "--n-resamples", "0",
                         "--metrics", "accuracy")
    assert code == 0, err
    paper = out.split("### panel agreement")[0]
    assert len(re.findall(r"\|\s+fluency \|", paper)) == 4 and "accuracy H'" in out
    # fluency's 16 ratings of 1 (0.4 % of votes) are a real rating next to the others: kept
    assert "fluency: 1,400 items, unidentified raters, 3 votes per item, labels 1 (16), 2 (71)" in err


def test_chexpert_without_tasks_partial_coverage(tmp_path):
    d = _need("chexpert_test")
    files = sorted((d / "radiologists").glob("*/*.csv")) + sorted(
        (d / "example_models" / "decisions" / "standard").glob("*_decisions.csv"))
    code, out, err = run("stratify", *files, "--item", "Study", "--panel", "bc*_gt",
                         "--humans", "bc4,bc6,bc8", "--systems", "*_decisions",
                         "--p-d-one", "0.97", "--human-round", "2", "--n-resamples", "0",
                         "--out", tmp_path / "o")
    assert code == 0, err
    assert len([ln for ln in err.splitlines() if "500 items, 5 raters" in ln]) == 14
    blocks = [b for b in out.split("### ")[1:] if not b.startswith("panel agreement")]
    assert len(blocks) == 9  # 8 models + the findings no model covers
    drnet = next(b for b in blocks if b.startswith("drnet_decisions"))
    assert len(re.findall(r"\|\s+Cardiomegaly \|", drnet)) == 4 and "Fracture" not in drnet
    rest = blocks[-1]
    assert rest.startswith("tasks without systems")
    assert len(re.findall(r"\|\s+Fracture \|", rest)) == 4
    t = pd.read_csv(tmp_path / "o" / "stratified.csv", dtype={"stratum": str})
    assert t.task.nunique() == 14
    assert set(t[t.system == "drnet_decisions"].task) == {
        "Atelectasis", "Cardiomegaly", "Consolidation", "Edema", "Pleural Effusion"}
    # Table 3's Cardiomegaly values are unchanged
    c = t[(t.task == "Cardiomegaly") & (t.role == "H") & (t.metric == "f1")].set_index("stratum")
    assert c.S.tolist() == [142, 196, 162, 500]


def test_chaosnli_label_count_refused_as_votes_and_read_as_counts():
    path = _need("chaosnli/chaosNLI_v1.0") / "chaosNLI_snli.jsonl"
    code, out, err = run("stratify", path, "--panel", "label_count", "--item", "uid")
    assert code == 2 and "--panel-counts" in err and "Traceback" not in err
    assert len(_stderr_lines(err)) == 1
    code, out, err = run("stratify", path, "--panel-counts", "label_count", "--labels", "e,n,c",
                         "--item", "uid", "--n-resamples", "0", "--metrics", "accuracy",
                         "--simulated-human", "20", "--format", "csv")
    assert code == 0, err
    assert "chaosNLI_snli: 1,514 items, count vectors, 100 votes per item, labels e" in err
    t = pd.read_csv(_io.StringIO(out), dtype={"stratum": str})
    counts = np.array([json.loads(ln)["label_count"] for ln in path.open()])
    top = counts.max(axis=1)
    s = t[t.role == "H'"].set_index("stratum").S
    assert s["all"] == 1514
    for k in (50, 68, 90):  # S by hand
        assert s[f"{k / 100:.2f}"] == (top == k).sum()
    h = t[t.role == "H'"].set_index("stratum")
    se = np.sqrt(0.25 / (1514 * 20))
    assert abs(h.score["all"] - (top / 100).mean()) < 5 * se  # H' draws from the counts
    assert h.expected["0.68"] == pytest.approx(0.68)


# ---------------------------------------------- agreement, paired tests, probabilities on real data
def test_chexpert_compare_mcnemar_per_bin_agreement_and_probabilities(tmp_path):
    from sklearn.metrics import roc_auc_score
    from statsmodels.stats.contingency_tables import mcnemar
    from statsmodels.stats.inter_rater import fleiss_kappa

    d = _need("chexpert_test")
    files = sorted((d / "radiologists").glob("*/*.csv")) + sorted(
        (d / "example_models" / "decisions" / "standard").glob("*_decisions.csv"))
    pred = d / "example_models" / "predictions" / "standard" / "drnet_predictions.csv"
    code, out, err = run("stratify", *files, "--item", "Study", "--panel", "bc*_gt",
                         "--humans", "bc4,bc6,bc8", "--systems", "*_decisions",
                         "--tasks", "Cardiomegaly", "--probabilities", f"drnet={pred}",
                         "--compare", "drnet_decisions,ihil_decisions", "--p-d-one", "0.97",
                         "--human-round", "2", "--n-resamples", "0", "--out", tmp_path / "o")
    assert code == 0, err
    assert "on the same items" in out and "panel agreement" in out
    t = pd.read_csv(tmp_path / "o" / "stratified.csv", dtype={"stratum": str})
    f1 = t[(t.system == "drnet_decisions") & (t.metric == "f1")].set_index("stratum").score
    assert f1["all"] == pytest.approx(96 / 131, abs=1e-15)  # pinned value unchanged
    comp = pd.read_csv(tmp_path / "o" / "comparisons.csv", dtype={"stratum": str})
    acc = comp[comp.metric == "accuracy"].set_index("stratum")
    assert set(acc.index) == {"0.60", "0.80", "1.00", "all"}
    data = _script().load(d)["Cardiomegaly"]
    votes = data.panel.to_numpy(int)
    k1 = votes.sum(axis=1)
    maj = (k1 >= 3).astype(int)
    top = np.maximum(k1, 5 - k1) / 5
    a = data.predictions["drnet"].to_numpy(int) == maj
    b = data.predictions["ihil"].to_numpy(int) == maj
    ag = pd.read_csv(tmp_path / "o" / "agreement.csv", dtype={"stratum": str})
    fk = ag[ag.statistic == "fleiss_kappa"].set_index("stratum").score
    for s in ("0.60", "0.80", "1.00", "all"):
        sel = np.ones(500, bool) if s == "all" else np.isclose(top, float(s))
        table = [[np.sum(a[sel] & b[sel]), np.sum(a[sel] & ~b[sel])],
                 [np.sum(~a[sel] & b[sel]), np.sum(~a[sel] & ~b[sel])]]
        want = mcnemar(table, exact=True).pvalue if table[0][1] + table[1][0] else np.nan
        assert acc.p[s] == pytest.approx(want, abs=1e-12, nan_ok=True)
        counts = np.stack([5 - k1[sel], k1[sel]], axis=1)
        assert fk[s] == pytest.approx(fleiss_kappa(counts), abs=1e-12, nan_ok=True)
    probs = pd.read_csv(pred).set_index("Study")["Cardiomegaly"].reindex(data.panel.index)
    auc = t[(t.system == "drnet") & (t.metric == "auroc")].set_index("stratum").score
    assert auc["all"] == pytest.approx(roc_auc_score(maj, probs.to_numpy()), abs=1e-12)


def test_snli_chaosnli_probabilities_and_agreement():
    snli = _need("snli_dev_subset") / "snli_1.0_dev_first1288.jsonl"
    pred = _need("chaosnli/predictions")
    code, out, err = run(
        "stratify", snli, "--panel", "annotator_labels", "--item", "pairID",
        "--predictions", f"roberta={pred}/SNLI_dev_roberta-base_0.json,"
                         f"{pred}/SNLI_test_roberta-base_0.json",
        "--probabilities", f"roberta={pred}/SNLI_dev_roberta-base_0.json,"
                           f"{pred}/SNLI_test_roberta-base_0.json",
        "--pred-item", "uid", "--pred-classes", "entailment,contradiction,neutral",
        "--prob-field", "probs", "--tie-rule", "drop", "--missing-predictions", "drop",
        "--n-resamples", "0", "--metrics", "accuracy,kappa,cross_entropy,total_variation,auroc",
        "--format", "csv")
    assert code == 0, err
    t = pd.read_csv(_io.StringIO(out), dtype={"stratum": str})
    s = t[t.stratum == "all"].set_index("metric").score
    assert 0.85 < s["accuracy"] and 0 < s["total_variation"] < 0.5 and 0.9 < s["auroc"] <= 1
    assert s["cross_entropy"] > 0


def test_dialsummeval_ordinal_per_bin():
    from statsmodels.stats.inter_rater import fleiss_kappa

    root = _need("dialsummeval")
    data = _script("dialsummeval_stratify").build(root, ["rouge-l"])
    from labelvar.evaluation._stratified import stratify

    r = stratify({"consistency": data["consistency"]}, labels=Labels(ordinal=True),
                 intervals=Intervals(n_resamples=0))
    t = r.table
    assert {"mae", "within1", "qwk", "spearman", "kendall"} <= set(t.metric)
    assert set(t[t.metric == "mae"].stratum) == {"0.33", "0.67", "1.00", "all"}
    ag = r.agreement().table.set_index(["stratum", "statistic"]).score
    votes = data["consistency"].panel.to_numpy(int)
    counts = np.stack([(votes == v).sum(axis=1) for v in range(1, 6)], axis=1)
    assert ag["all", "fleiss_kappa"] == pytest.approx(fleiss_kappa(counts), abs=1e-12)
    assert np.isfinite(ag["all", "alpha_interval"]) and np.isfinite(ag["0.67", "alpha_ordinal"])
    pred = data["consistency"].predictions["rouge-l"].to_numpy(float)
    mae = t[(t.metric == "mae") & (t.stratum == "all")].score.iloc[0]
    assert mae == pytest.approx(np.abs(pred - votes.mean(axis=1)).mean())


def test_snli_agreement_and_kappa_equal_independent_computations():
    """SNLI: Fleiss kappa per bin (statsmodels) and a system's Cohen kappa against the
    majority (scikit-learn), recomputed here from the loaded votes."""
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import fleiss_kappa

    from labelvar import io
    from labelvar.evaluation._stratified import ExcludedItemsWarning, stratify

    snli = _need("snli_dev_subset") / "snli_1.0_dev_first1288.jsonl"
    pred = _need("chaosnli/predictions")
    data = io.load_tasks(snli, columns=io.Columns(panel="annotator_labels", item="pairID"),
                         predictions=io.Predictions(files={"roberta": [
                             pred / "SNLI_dev_roberta-base_0.json",
                             pred / "SNLI_test_roberta-base_0.json"]}, item="uid",
                             classes=["entailment", "contradiction", "neutral"]))
    ((task, td),) = data.items()
    with pytest.warns(ExcludedItemsWarning, match="15 tied, 1 without a prediction"):
        r = stratify(data, missing="drop", metrics=["accuracy", "kappa"],
                     truth=Truth(tie_rule="drop"), intervals=Intervals(n_resamples=0))
    labels = sorted({v for v in td.panel.to_numpy().ravel() if isinstance(v, str)})
    votes = td.panel.to_numpy(object)
    counts = np.stack([(votes == lab).sum(axis=1) for lab in labels], axis=1)
    k = counts.sum(axis=1)
    top = counts.max(axis=1)
    untied = (counts == top[:, None]).sum(axis=1) == 1
    ag = r.agreement().table.set_index(["stratum", "statistic"]).score
    for stratum, frac in (("0.60", 3 / 5), ("0.80", 4 / 5), ("1.00", 1.0)):
        sel = (k == 5) & untied & np.isclose(top / k, frac)
        assert ag[stratum, "fleiss_kappa"] == pytest.approx(fleiss_kappa(counts[sel]), abs=1e-9)
    majority = np.array(labels, dtype=object)[counts.argmax(axis=1)]
    sys = td.predictions["roberta"].to_numpy(object)
    keep = untied & pd.notna(sys)
    mine = cohen_kappa_score(majority[keep].astype(str), sys[keep].astype(str))
    t = r.table
    got = t[(t.system == "roberta") & (t.metric == "kappa") & (t.stratum == "all")].score.iloc[0]
    assert got == pytest.approx(mine, abs=1e-9)


# ---------------------------------------------- loading real data from Python (the review's cases)
def test_chexpert_one_prediction_field_refused_and_tasks_kept_in_python():
    """load_tasks attached a predictions file's one field to every task (Edema got the
    Cardiomegaly column) and kept every task whatever tasks= said; the CLI refused."""
    from labelvar import io

    d = _need("chexpert_test")
    files = sorted((d / "radiologists" / "groundtruth").glob("*.csv"))
    pred = d / "example_models" / "decisions" / "standard" / "drnet_decisions.csv"
    kw = dict(columns=io.Columns(panel="bc*_gt", item="Study"),
              predictions=io.Predictions(files={"drnet": pred}, item="Study",
                                         label="Cardiomegaly"))
    with pytest.raises(ValueError, match=r"^predictions 'drnet': its one field 'Cardiomegaly' "
                                         r"would be every task's answer: tasks 'Cardiomegaly', "
                                         r"'Edema' share items \(e\.g\. 'CheXpert-v1\.0/test/"):
        io.load_tasks(files, tasks=["Cardiomegaly", "Edema"], **kw)
    data = io.load_tasks(files, tasks="Cardiomegaly", **kw)
    assert list(data) == ["Cardiomegaly"]
    model = pd.read_csv(pred).set_index("Study")["Cardiomegaly"]
    got = data["Cardiomegaly"].predictions["drnet"]
    assert got.notna().all() and (got.to_numpy() == model.loc[got.index].to_numpy()).all()
    assert data["Cardiomegaly"].panel.shape == (500, len(files))


def test_chexpert_rater_file_cut_short_names_the_ids_it_lacks(tmp_path):
    from labelvar import io

    d = _need("chexpert_test")
    files = sorted((d / "radiologists" / "groundtruth").glob("*.csv"))
    short = tmp_path / "bc9_gt.csv"
    pd.read_csv(files[0]).iloc[:-3].to_csv(short, index=False)
    with pytest.raises(ValueError, match=r"^files: .*bc9_gt\.csv does not hold the same item ids "
                                         r"as .*bc1_gt\.csv: it lacks 3 of its 500 ids "
                                         r"\('CheXpert-v1\.0/test/"):
        io.load_tasks(files + [short], columns=io.Columns(panel="bc*_gt", item="Study"))
