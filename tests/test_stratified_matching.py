"""stratify matches pandas predictions and probabilities to the panel by item id, checks
the probabilities themselves, and scores every metric it is asked for."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, roc_auc_score
from tests.conftest import row

from labelvar.evaluation import Intervals
from labelvar.evaluation._stratified import DataNoteWarning, stratify
from labelvar.io import TaskData


def _data(n=300, seed=3):
    rng = np.random.default_rng(seed)
    truth = (rng.random(n) < 0.5).astype(int)
    panel = np.where(rng.random((n, 5)) < 0.75, truth[:, None], 1 - truth[:, None])
    ids = [f"item{i:04d}" for i in range(n)]
    pdf = pd.DataFrame(panel, index=ids, columns=[f"r{j}" for j in range(5)])
    pred = np.where(rng.random(n) < 0.7, truth, 1 - truth)
    prob = np.clip(truth * 0.3 + rng.random(n) * 0.7, 0, 1)
    return pdf, pd.Series(pred, index=ids), pd.Series(prob, index=ids)


def _all(r, metric, system="m"):
    return row(r.table, system=system, stratum="all", metric=metric).score


def test_reordered_series_is_matched_by_id_not_position():
    pdf, pred, prob = _data()
    majority = (pdf.sum(axis=1) >= 3).astype(int)  # 5 votes: no ties
    kw = dict(metrics=["accuracy", "auroc"], intervals=Intervals(n_resamples=0))
    base = stratify(TaskData(pdf, {"m": pred}, probabilities={"m": prob}), **kw)
    shuffled = np.random.default_rng(0).permutation(len(pred))
    moved = stratify(TaskData(pdf, {"m": pred.iloc[shuffled]}, probabilities={"m": prob.iloc[shuffled]}),
                     **kw)
    # sklearn on the aligned values is the oracle of both runs
    assert _all(base, "accuracy") == pytest.approx(accuracy_score(majority, pred))
    assert _all(moved, "accuracy") == pytest.approx(accuracy_score(majority, pred))
    assert _all(moved, "auroc") == pytest.approx(roc_auc_score(majority, prob))
    # the positional reading (what it did before) would have given something else
    assert accuracy_score(majority, pred.iloc[shuffled].to_numpy()) != pytest.approx(
        accuracy_score(majority, pred))
    # a probabilities DataFrame (one column per label) is matched the same way
    frame = pd.DataFrame({0: 1 - prob, 1: prob}).iloc[shuffled]
    r = stratify(TaskData(pdf, {"m": pred}, probabilities={"m": frame}), **kw)
    assert _all(r, "auroc") == pytest.approx(roc_auc_score(majority, prob))
    # a predictions DataFrame too
    r = stratify(pdf, pred.to_frame("m").iloc[shuffled], metrics=["accuracy"],
                 intervals=Intervals(n_resamples=0))
    assert _all(r, "accuracy") == pytest.approx(accuracy_score(majority, pred))


def test_arrays_and_lists_stay_positional():
    pdf, pred, _ = _data()
    majority = (pdf.sum(axis=1) >= 3).astype(int)
    for given in (pred.to_numpy(), pred.tolist()):
        r = stratify(pdf, {"m": given}, metrics=["accuracy"], intervals=Intervals(n_resamples=0))
        assert _all(r, "accuracy") == pytest.approx(accuracy_score(majority, pred))


@pytest.mark.parametrize("change, message", [
    (lambda s: s.set_axis([f"x{i}" for i in range(len(s))]), r"300 panel item\(s\) it has no "
     r"entry for \('item0000', 'item0001', 'item0002', \.\.\.\); 300 id\(s\) the panel does not "
     r"have \('x0'"),
    (lambda s: s.iloc[:-2], r"2 panel item\(s\) it has no entry for \('item0298', 'item0299'\)"),
    (lambda s: pd.concat([s, pd.Series([1], index=["zz"])]), r"1 id\(s\) the panel does not "
     r"have \('zz'\)"),
    (lambda s: pd.concat([s, s.iloc[:1]]), r"1 id\(s\) occur more than once \('item0000'\)"),
])
def test_series_not_covering_the_panel_is_refused(change, message):
    pdf, pred, prob = _data()
    with pytest.raises(ValueError, match=r"predictions\['m'\] \(task 'task'\): its index does "
                       r"not match the panel's item ids: " + message):
        stratify(pdf, {"m": change(pred)}, intervals=Intervals(n_resamples=0))
    with pytest.raises(ValueError, match=r"probabilities\['m'\] \(task 'task'\): its index "
                       r"does not match the panel's item ids: " + message):
        stratify(TaskData(pdf, {"m": pred}, probabilities={"m": change(prob)}),
                 intervals=Intervals(n_resamples=0))


def test_series_against_an_unnamed_panel_uses_its_row_numbers():
    pdf, pred, _ = _data(n=40)
    arr = pdf.to_numpy()
    with pytest.raises(ValueError, match=r"predictions\['m'\].*40 panel item\(s\) it has no "
                       r"entry for \(0, 1, 2, \.\.\.\)"):
        stratify(arr, {"m": pred}, intervals=Intervals(n_resamples=0))
    r = stratify(arr, {"m": pred.reset_index(drop=True).iloc[::-1]}, metrics=["accuracy"],
                 intervals=Intervals(n_resamples=0))
    majority = (arr.sum(axis=1) >= 3).astype(int)
    assert _all(r, "accuracy") == pytest.approx(accuracy_score(majority, pred))


@pytest.mark.parametrize("bad, message", [
    (np.inf, r"item 'item0007' has inf for label 1 \(1 item\(s\) with such values\); "
             r"probabilities are finite numbers in \[0, 1\]"),
    (1.5, r"item 'item0007' has 1.5 for label 1"),
    (-0.2, r"item 'item0007' has -0.2 for label 1"),
])
def test_probabilities_out_of_range_are_refused(bad, message):
    pdf, pred, prob = _data()
    prob = prob.copy()
    prob.iloc[7] = bad
    with pytest.raises(ValueError, match=r"probabilities\['m'\] \(task 'task'\): " + message):
        stratify(TaskData(pdf, {"m": pred}, probabilities={"m": prob}),
                 intervals=Intervals(n_resamples=0))


def test_probability_rows_must_sum_to_one():
    pdf, pred, prob = _data()
    frame = pd.DataFrame({0: 1 - prob, 1: prob})
    far = frame.copy()
    far.iloc[3] = [0.5, 0.2]
    with pytest.raises(ValueError, match=r"the probabilities of item 'item0003' sum to 0.7, "
                       r"not 1 \(1 item\(s\)\)"):
        stratify(TaskData(pdf, {"m": pred}, probabilities={"m": far}),
                 intervals=Intervals(n_resamples=0))
    near = frame.clip(0.05, 0.95).round(2)  # rows of 2-decimal probabilities may sum to 0.99 or 1.01
    near.iloc[5] = [0.333, 0.66]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = stratify(TaskData(pdf, {"m": pred}, probabilities={"m": near}),
                     metrics=["cross_entropy"], intervals=Intervals(n_resamples=0))
    notes = [str(w.message) for w in caught if issubclass(w.category, DataNoteWarning)]
    assert any("were normalised to sum to 1" in n for n in notes), notes
    # the score is that of the normalised rows: cross-entropy against the vote shares
    p = near.to_numpy(float)
    p = p / p.sum(axis=1, keepdims=True)
    shares = np.stack([(pdf == 0).mean(axis=1), (pdf == 1).mean(axis=1)], axis=1)
    ce = -(shares * np.log(p)).sum(axis=1).mean()
    assert _all(r, "cross_entropy") == pytest.approx(ce, rel=1e-12)


def test_named_metric_without_its_input_is_refused():
    pdf, pred, _ = _data()
    for metrics in (["auroc"], ["accuracy", "auroc"]):
        with pytest.raises(ValueError, match=r"metrics: 'auroc' scores probability outputs and "
                           r"no system has any; give them \(probabilities=\.\.\.\)"):
            stratify(pdf, {"m": pred}, metrics=metrics, intervals=Intervals(n_resamples=0))
    _, _, prob = _data()
    with pytest.raises(ValueError, match="metrics: 'accuracy' scores label predictions"):
        stratify(TaskData(pdf, None, probabilities={"m": prob}), metrics=["accuracy", "auroc"],
                 intervals=Intervals(n_resamples=0))


def test_cli_metrics_auroc_without_probabilities(tmp_path):
    from tests.test_stratify_cli import run

    pdf, pred, _ = _data(n=60)
    path = tmp_path / "t.csv"
    pdf.assign(m=pred).rename_axis("item").reset_index().to_csv(path, index=False)
    code, out, err = run("stratify", path, "--panel", "r*", "--systems", "m", "--item", "item",
                         "--metrics", "accuracy,auroc", "--n-resamples", "0")
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        "labelvar: error: --metrics: 'auroc' scores probability outputs and no system has "
        "any; give them (--probabilities ...) or leave it out"]
