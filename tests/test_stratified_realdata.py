"""Real data end to end (read from <repo>/../shared/data, never copied; skipped when absent)."""

from __future__ import annotations

import importlib.util
import io as _io
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest
from conftest import REPO
from conftest import shared_data as _need

from labelvar.cli import main


def _script():
    spec = importlib.util.spec_from_file_location("chexpert_table3",
                                                  REPO / "scripts" / "chexpert_table3.py")
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
    table = mod.compute(root, n_boot=0, findings=["Cardiomegaly", "Lung Opacity",
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
    from labelvar.stratified import stratify

    data = mod.load(root)
    t = stratify({"Cardiomegaly": data["Cardiomegaly"]}, humans=mod.HUMANS, p_d_one=0.97,
                 n_boot=0).table
    h = t[(t.role == "H") & (t.stratum == "0.80") & (t.metric == "f1")].iloc[0]
    assert round(h.score, 2) == 0.72  # the paper prints 0.71 (= mean of 0.67, 0.72, 0.75)


def test_chexpert_all_findings_and_models():
    root = _need("chexpert_test")
    mod = _script()
    t = mod.compute(root, n_boot=0)
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
             "--missing-predictions", "drop", "--simulated-human", "5", "--n-boot", "0",
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
                         "--n-boot", "0", "--format", "csv")
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
    spec = importlib.util.spec_from_file_location("dse", REPO / "scripts" /
                                                  "dialsummeval_stratify.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
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
