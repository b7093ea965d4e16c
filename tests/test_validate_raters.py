"""scripts/validate_raters.py: the protocol on synthetic data (fast) and on ../shared/data (slow)."""

from __future__ import annotations

import importlib.util
import io as _io
import itertools
import sys
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest
from conftest import REPO
from conftest import shared_data as _need
from scipy.special import expit

import labelvar


@pytest.fixture(scope="module")
def vr():
    """The script as a module."""
    spec = importlib.util.spec_from_file_location("validate_raters",
                                                  REPO / "scripts" / "validate_raters.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["validate_raters"] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    yield mod
    sys.modules.pop("validate_raters", None)


def _baselines(vr):
    """Models every labelvar has (the rater models only when fit_raters exists)."""
    return ("p_d", "dirichlet") + (vr.RATER_MODELS if vr.has_rater_models() else ())


def test_folds_partition_items_and_depend_only_on_seed(vr):
    items = np.repeat(np.arange(101), 3)
    a, b = vr.folds(items, 2, 0, "x"), vr.folds(items[::-1], 2, 0, "x")
    assert a.equals(b) and len(a) == 101  # input order does not matter
    assert sorted(np.bincount(a.to_numpy())) == [50, 51]
    assert not a.equals(vr.folds(items, 2, 1, "x"))
    assert sorted(np.bincount(vr.folds(items, 3, 0, "x").to_numpy())) == [33, 34, 34]


def test_pairs_match_a_direct_loop_over_the_votes(vr):
    # small sparse crowd: plurality of the *other* raters, 2-2 ties dropped, by brute force
    ds = vr.synthetic_sparse_crowd(seed=3, n_items=120, n_raters=12, per_item=5)
    pairs, dropped = vr.cross_fit(ds, seed=0, models=("p_d", "dirichlet"))
    votes = ds.votes["all"]
    fold = vr.folds(votes["item"], 2, 0, "sparse_crowd:all")
    expect, tied = {}, 0
    for item, g in votes.groupby("item"):
        for r, lab in zip(g["rater"], g["label"]):
            others = g[g["rater"] != r]["label"].value_counts()
            if (others == others.max()).sum() > 1:
                tied += 1
                continue
            expect[(item, r)] = (float(lab == others.idxmax()), others.max() / others.sum(),
                                 fold[item])
    assert dropped == {"tied": tied, "no_panel": 0}
    assert len(pairs) == len(expect) and tied > 0
    for p in pairs.itertuples():
        obs, agr, f = expect[(p.item, p.target)]
        assert (p.observed, p.fold) == (obs, f)
        assert p.agreement == pytest.approx(agr) and p.p_d == p.agreement
        assert p.bin == f"{agr:.2f}"


def test_fixed_panel_targets_are_scored_against_the_whole_panel(vr):
    ds = vr.synthetic_expert_crowd(seed=1, n_items=60, n_crowd=10, per_item=5, n_experts=2)
    pairs, dropped = vr.cross_fit(ds, seed=0, models=("p_d",))
    assert set(pairs["target"]) == {"expert1", "expert2"} and len(pairs) == 120
    assert dropped["tied"] == 0  # 5 binary crowd votes never tie
    votes = ds.votes["all"].set_index(["item", "rater"])["label"]
    crowd = ds.votes["all"][ds.votes["all"]["rater"].str.startswith("crowd")]
    plural = (crowd.groupby("item")["label"].mean() > 0.5).astype(int)
    for p in pairs.itertuples():
        assert p.observed == float(votes[(p.item, p.target)] == plural[p.item])


def test_weighted_error_and_bins(vr):
    pairs = pd.DataFrame({"group": ["a", "a", "a", "b"], "bin": ["0.60", "0.60", "1.00", "1.00"],
                          "observed": [1.0, 0.0, 1.0, 1.0], "m": [0.9, 0.7, 0.6, 0.8]})
    # cells (a, .6): |0.8 - 0.5| x 2, (a, 1): 0.4, (b, 1): 0.2 -> (0.6 + 0.4 + 0.2) / 4
    assert vr.weighted_error(pairs, "m", ("group", "bin")) == pytest.approx(0.3)
    # bins only: .6: 0.3 x 2; 1.0: |0.7 - 1| x 2 -> 0.3
    assert vr.weighted_error(pairs, "m", ("bin",)) == pytest.approx(0.3)
    assert vr._bin(np.array([0.55, 0.6, 0.999, 1.0]), 0.1).tolist() == [
        "[0.5,0.6)", "[0.6,0.7)", "[0.9,1.0)", "1.0"]
    assert vr._bin(np.array([2 / 3, 1.0]), None).tolist() == ["0.67", "1.00"]


def test_sampling_floor_matches_exact_enumeration(vr):
    # two cells of independent Bernoulli(p_i): E|mean p - mean Y| by enumeration
    p = np.array([0.9, 0.6, 0.75, 0.3, 0.95])
    cell = np.array(["x", "x", "x", "y", "y"])
    pairs = pd.DataFrame({"c": cell, "m": p, "observed": 0.0})
    exact = 0.0
    for c in ("x", "y"):
        q = p[cell == c]
        e = sum(np.prod(np.where(y, q, 1 - q)) * abs(q.mean() - np.mean(y))
                for y in itertools.product([0, 1], repeat=len(q)))
        exact += e * len(q) / len(p)
    # Monte Carlo in standard errors: |error| <= 1/len(p) per draw, so sd <= 0.2 / sqrt(draws)
    got = vr.sampling_floor(pairs, "m", ("c",), 20000, 0, "t")
    assert abs(got - exact) < 4 * 0.2 / np.sqrt(20000)
    assert got == vr.sampling_floor(pairs, "m", ("c",), 20000, 0, "t")  # seeded


def test_true_agreement_matches_bayes_by_hand(vr):
    truth = vr._binary_truth(["a", "b", "c"], [2.0, 0.5, 1.0], [1.5, 1.0, -0.2], 0.3, 1.0)
    # item 0: a says 1, b says 0; item 1: a 1, b 1; target c, plurality label given
    item, rater, label = np.array([0, 0, 1, 1]), np.array(["a", "b", "a", "b"]), \
        np.array([1, 0, 1, 1])
    lp = vr.true_log_posterior(truth, item, rater, label, 2)
    got = vr.true_agreement(truth, lp, "c", np.array([1, 0]))
    nodes, w = truth["nodes"], np.exp(truth["log_weights"])
    sens = {"a": 2.0, "b": 0.5, "c": 1.0}
    spec = {"a": 1.5, "b": 1.0, "c": -0.2}

    def p_says(r, lab, z, beta):
        p1 = expit(sens[r] - beta) if z == 1 else 1 - expit(spec[r] - beta)
        return p1 if lab == 1 else 1 - p1

    for i, (votes, target_label) in enumerate([((("a", 1), ("b", 0)), 1),
                                               ((("a", 1), ("b", 1)), 0)]):
        num = den = 0.0
        for z, prior in ((0, 0.7), (1, 0.3)):
            for beta, wg in zip(nodes, w):
                joint = prior * wg * np.prod([p_says(r, lab, z, beta) for r, lab in votes])
                den += joint
                num += joint * p_says("c", target_label, z, beta)
        assert got[i] == pytest.approx(num / den, rel=1e-12)


def test_true_model_is_calibrated_and_sits_at_the_floor(vr):
    # the generator's truth predicts the experts' agreement: its error is the floor up to noise,
    # while E = p_d (experts are not exchangeable with the crowd) is far above it
    ds = vr.synthetic_expert_crowd(seed=0)
    pairs, _ = vr.cross_fit(ds, seed=0, models=("p_d",))
    res = vr.score(ds, pairs, draws=300, seed=0)
    line = res[res["cells"] == "group x bin"].iloc[0]
    assert line["reference"] == "true model"
    assert abs(line["true model"] - line["floor"]) < 0.5 * line["floor"]
    assert line["E = p_d"] > 2 * line["floor"]
    # calibration in standard errors, pooled over the pairs
    p, y = pairs["truth"].to_numpy(), pairs["observed"].to_numpy()
    assert abs(p.mean() - y.mean()) < 4 * np.sqrt((p * (1 - p)).sum()) / len(p)


def test_validate_averages_seeds_and_targets_report(vr):
    ds = vr.synthetic_expert_crowd(seed=2, n_items=300, n_crowd=15, per_item=5)
    mean, dropped = vr.validate(ds, seeds=(0, 1), draws=20, models=_baselines(vr))
    one = [vr.score(ds, vr.cross_fit(ds, s, models=_baselines(vr))[0], 20, s) for s in (0, 1)]
    assert mean["E = p_d"].tolist() == pytest.approx(
        ((one[0]["E = p_d"] + one[1]["E = p_d"]) / 2).tolist())
    assert dropped["seeds"] == 2
    res = pd.DataFrame([{"data": "chexpert", "cells": "group x bin", "DS + difficulty": 0.011,
                         "floor": 0.009},
                        {"data": "caries", "cells": "group x bin", "DS + difficulty": 0.007,
                         "floor": 0.006},
                        {"data": "masc", "cells": "group x bin", "DS + difficulty": 0.030,
                         "floor": 0.026}])
    checks = pd.DataFrame([{"data": "caries", "model": "DS", "p": 1e-9},
                           {"data": "caries", "model": "DS + difficulty", "p": 0.01}])
    t = vr.targets(res, checks).set_index("check")["result"]
    assert t["chexpert (group x bin): DS + difficulty error"] == "PASS"
    assert t["caries (group x bin): DS + difficulty error"] == "FAIL"
    assert t["caries model check: DS p"] == "PASS"
    assert t["caries model check: DS + difficulty p"] == "FAIL"
    assert t["masc (group x bin): DS + difficulty error - floor"] == "PASS"
    assert t["masc (pooled bins): DS + difficulty error - floor"] == "n/a"


def test_main_on_synthetic_prints_the_table(vr):
    out = _io.StringIO()
    with redirect_stdout(out):
        code = vr.main(["--datasets", "expert_crowd", "--seeds", "0", "--draws", "10"])
    text = out.getvalue()
    assert code == 0
    assert "== expert_crowd" in text and "true model" in text and "targets" in text


@pytest.mark.slow
def test_real_data_protocol_and_done_when_targets(vr, capsys):
    # issue 21's Done when on CheXpert and caries, 3 seeds (the script's default is 5)
    data = _need("raters").parent
    _need("chexpert_test")
    code = vr.main(["--data", str(data), "--datasets", "chexpert", "caries", "--seeds", "0", "1",
                    "2", "--draws", "200", "--strict"])
    out = capsys.readouterr().out
    assert code == 0, out
    for line in ("chexpert (group x bin): DS + difficulty error", "caries model check: DS p",
                 "caries (group x bin): DS + difficulty error",
                 "caries model check: DS + difficulty p"):
        assert any(line in x and x.rstrip().endswith("PASS") for x in out.splitlines()), out
    # the baselines equal the reference implementation's (RATERS.md): E = p_d and the Dirichlet
    res = {n: vr.validate(getattr(vr, f"load_{n}")(data), seeds=(0,), draws=10,
                          models=("p_d", "dirichlet"))[0].set_index("cells")
           for n in ("chexpert", "caries")}
    assert res["chexpert"].loc["group x bin", "E = p_d"] == pytest.approx(0.034, abs=0.0006)
    assert res["chexpert"].loc["group x bin", "Dirichlet"] == pytest.approx(0.030, abs=0.0006)
    assert res["caries"].loc["group x bin", "E = p_d"] == pytest.approx(0.106, abs=0.0006)
    assert res["caries"].loc["group x bin", "Dirichlet"] == pytest.approx(0.094, abs=0.0006)


@pytest.mark.skipif(not hasattr(labelvar, "fit_raters"), reason="no labelvar.fit_raters here")
def test_rater_model_predictions_equal_the_true_models(vr):
    # the generator's parameters as a labelvar RaterModel: its predict_agreement must equal the
    # independent true_agreement, whatever order the panel's raters come in
    from labelvar.votes._raters import RaterModel

    ds = vr.synthetic_sparse_crowd(seed=5, n_items=200, n_raters=20, per_item=5)
    tr = ds.truth["all"]
    model = RaterModel((0, 1), tr["raters"], tr["log_prior"], tr["nodes"], tr["log_weights"],
                       tr["log_conf"], tr["log_conf"].mean(axis=0))
    votes = ds.votes["all"].sample(frac=1.0, random_state=0)  # raters in a shuffled order
    target = "w003"
    panel = votes[(votes["rater"] != target)
                  & votes["item"].isin(votes.loc[votes["rater"] == target, "item"])]
    got = model.predict_agreement(panel, rater=target, tie_rule="random").items
    items = np.sort(panel["item"].unique())
    code = pd.Index(items).get_indexer(panel["item"])
    lp = vr.true_log_posterior(tr, code, panel["rater"].to_numpy(), panel["label"].to_numpy(),
                               len(items))
    counts = np.zeros((len(items), 2))
    np.add.at(counts, (code, panel["label"].to_numpy()), 1)
    untied = counts[:, 0] != counts[:, 1]
    want = vr.true_agreement(tr, lp[untied], target, counts[untied].argmax(axis=1))
    got["item"] = got["item"].astype(np.int64)  # ids come back as text, as read
    pred = got.set_index("item")["predicted"].reindex(items[untied]).to_numpy()
    assert untied.sum() > 20
    np.testing.assert_allclose(pred, want, rtol=1e-10)
