"""The LeWiDi 2025 scores against the notebook's formulas written out item by item.

Real data from ``../shared/data``: ChaosNLI's 100-annotator label distributions with a
RoBERTa model's probabilities (Manhattan), DialSummEval's 1-5 ratings (Wasserstein, the
mean absolute distance), HS-Brexit's six annotators' binary labels (error rate).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import shared_data
from scipy.optimize import linprog

from labelvar.metrics import (
    error_rate,
    manhattan_distance,
    mean_absolute_distance,
    multilabel_error_rate,
    multilabel_manhattan_distance,
    score_references,
    wasserstein_distance,
)
from labelvar.metrics._scores import probability_scores

# ---------------------------------------------------------------- the notebook's formulas, literally


def notebook_average_md(targets, predictions):
    return sum(sum(abs(p - t) for p, t in zip(pred, tgt))
               for tgt, pred in zip(targets, predictions)) / len(targets)


def notebook_error_rate(targets, predictions):
    scores = []
    for tgt, pred in zip(targets, predictions):
        pairs = [(t, p) for t, p in zip(tgt, pred) if not np.isnan(t)]
        errors = sum(abs(t - p) for t, p in pairs)
        scores.append(1 - (len(pairs) - errors) / len(pairs))
    return float(np.mean(scores))


def notebook_absolute_distance(targets, predictions, scale):
    out = []
    for tgt, pred in zip(targets, predictions):
        out.append(sum(abs(t - p) for t, p in zip(tgt, pred)) / len(tgt) / scale)
    return float(np.mean(out))


def transport(p, t):
    """min over couplings with marginals p, t of sum gamma_hk |h - k| (a linear programme)."""
    m = len(p)
    cost = np.abs(np.subtract.outer(np.arange(m), np.arange(m))).ravel()
    a_eq = np.vstack([np.kron(np.eye(m), np.ones(m)), np.kron(np.ones(m), np.eye(m))])
    return linprog(cost, A_eq=a_eq, b_eq=np.r_[p, t], bounds=(0, None), method="highs").fun


# ---------------------------------------------------------------- real data


@pytest.fixture(scope="module")
def chaosnli():
    root = shared_data("chaosnli")
    target = {}
    with open(root / "chaosNLI_v1.0" / "chaosNLI_snli.jsonl") as fh:
        for line in fh:
            row = json.loads(line)
            target[row["uid"]] = row["label_count"]  # order e, n, c
    rows = []
    for split in ("dev", "test"):
        with open(root / "predictions" / f"SNLI_{split}_roberta-base_0.json") as fh:
            for line in fh:
                row = json.loads(line)
                if row["uid"] in target:
                    e, c, n = row["probs"]  # order e, c, n
                    rows.append((target[row["uid"]], [e, n, c]))
    counts = np.array([r[0] for r in rows], float)
    probs = np.array([r[1] for r in rows])
    return counts, probs / probs.sum(axis=1, keepdims=True)


@pytest.fixture(scope="module")
def dialsumm():
    path = shared_data("dialsummeval/human_judgment.jsonl")
    with open(path) as fh:
        rows = [json.loads(line) for line in fh]
    rate = {a: np.array([[ann[a] for ann in r["annotations"]] for r in rows], float)
            for a in ("coherence", "fluency", "relevance", "consistency")}
    return rate


def test_manhattan_equals_the_notebook_on_chaosnli(chaosnli):
    counts, probs = chaosnli
    observed = counts / counts.sum(axis=1, keepdims=True)
    assert len(observed) > 1000
    got = manhattan_distance(probs, observed)
    assert got == pytest.approx(notebook_average_md(observed.tolist(), probs.tolist()), abs=1e-12)
    # the one definition: twice the total variation of probability_scores
    tv = probability_scores(probs, observed, observed.argmax(axis=1))["total_variation"]
    assert got == pytest.approx(2 * tv, abs=1e-12)


def test_multilabel_manhattan_equals_the_notebook_on_chaosnli(chaosnli):
    counts, probs = chaosnli
    observed = counts / counts.sum(axis=1, keepdims=True)
    # each label as its own yes/no distribution (VariErrNLI's layout)
    t = np.stack([1 - observed, observed], axis=-1)
    p = np.stack([1 - probs, probs], axis=-1)
    expected = np.mean([notebook_average_md(t[i].tolist(), p[i].tolist()) for i in range(len(t))])
    assert multilabel_manhattan_distance(p, t) == pytest.approx(expected, abs=1e-12)


def test_wasserstein_equals_optimal_transport_on_dialsummeval(dialsumm):
    def dist(r):
        return np.stack([(r == k).mean(axis=1) for k in range(1, 6)], axis=1)

    observed, predicted = dist(dialsumm["coherence"]), dist(dialsumm["fluency"])
    got = wasserstein_distance(predicted, observed)
    lp = [transport(p, t) for p, t in zip(predicted[:150], observed[:150])]
    assert wasserstein_distance(predicted[:150], observed[:150]) == pytest.approx(np.mean(lp),
                                                                                 abs=1e-9)
    from scipy.stats import wasserstein_distance as scipy_w

    points = np.arange(5)
    direct = np.mean([scipy_w(points, points, p, t) for p, t in zip(predicted, observed)])
    assert got == pytest.approx(direct, abs=1e-9)


def test_mean_absolute_distance_equals_the_notebook_on_dialsummeval(dialsumm):
    t, p = dialsumm["coherence"], dialsumm["relevance"]
    got = mean_absolute_distance(p, t, scale=5)
    assert got == pytest.approx(notebook_absolute_distance(t.tolist(), p.tolist(), 5), abs=1e-12)


def test_error_rate_equals_the_notebook_on_hs_brexit():
    votes = pd.read_csv(shared_data("raters/hs_brexit/HS-Brexit_votes_long.csv"))
    wide = votes.pivot(index="item", columns="annotator", values="hate_speech").to_numpy(float).copy()
    rng = np.random.default_rng(4)
    wide[rng.random(wide.shape) < 0.1] = np.nan  # some annotators missing
    wide[:, 0] = np.where(np.isnan(wide[:, 0]), 0, wide[:, 0])
    # predict each annotator by the majority of the others (ties: 1)
    others = np.nansum(wide, axis=1, keepdims=True) - np.nan_to_num(wide)
    n_other = (~np.isnan(wide)).sum(axis=1, keepdims=True) - (~np.isnan(wide))
    pred = (2 * others >= n_other).astype(float)
    got = error_rate(pred, wide)
    assert got == pytest.approx(notebook_error_rate(wide.tolist(), pred.tolist()), abs=1e-12)
    three = np.stack([votes.pivot(index="item", columns="annotator", values=a).to_numpy(float)
                      for a in ("hate_speech", "aggressive", "offensive")], axis=1)
    flip = np.where(rng.random(three.shape) < 0.2, 1 - three, three)
    expected = np.mean([np.mean([notebook_error_rate([three[i, j]], [flip[i, j]])
                                 for j in range(3)]) for i in range(len(three))])
    assert multilabel_error_rate(flip, three) == pytest.approx(expected, abs=1e-12)


# ---------------------------------------------------------------- references


def test_score_references_match_a_simulation_on_chaosnli(chaosnli):
    counts = chaosnli[0][:300]
    observed = counts / counts.sum(axis=1, keepdims=True)
    refs = score_references(counts, "wasserstein_distance").query("scope == 'all'")
    rng = np.random.default_rng(8)
    prevalence = counts.sum(axis=0) / counts.sum()
    reps = 400
    for row in refs.itertuples():
        sims = []
        for _ in range(reps):
            if row.reference == "uniform":
                v = rng.integers(0, 3, len(counts))
            elif row.reference == "prevalence":
                v = rng.choice(3, size=len(counts), p=prevalence)
            elif row.reference == "exchangeable":
                v = (rng.random(len(counts))[:, None] > np.cumsum(observed, axis=1)).sum(axis=1)
            else:
                top = counts == counts.max(axis=1, keepdims=True)
                v = np.array([rng.choice(np.flatnonzero(t)) for t in top])
            sims.append(wasserstein_distance(np.eye(3)[v], observed))
        sims = np.array(sims)
        assert row.method == "exact"
        assert abs(row.expected - sims.mean()) < 3 * sims.std(ddof=1) / np.sqrt(reps) + 1e-12


def test_perspectivist_references_by_hand():
    observed = np.array([[1, 1, 0], [0, 0, np.nan]])
    refs = score_references(observed, "error_rate", by_agreement=False).set_index("reference")
    # exchangeable: item 1 annotators see others (1,0),(1,0),(1,1): miss rates 1/2, 1/2, 1
    # -> 2/3; item 2: the other always agrees -> 0; mean 1/3
    assert refs.loc["exchangeable", "expected"] == pytest.approx(1 / 3)
    # plurality of others: (1,0) is a tie -> 1/2 miss, 1/2; (1,1) -> 1 miss: 2/3; item 2: 0
    assert refs.loc["plurality", "expected"] == pytest.approx(1 / 3)
    assert refs.loc["uniform", "expected"] == pytest.approx(0.5)
    mad = score_references(observed * 4 + 1, "mean_absolute_distance", scale=5,
                           labels=[1, 2, 3, 4, 5], by_agreement=False).set_index("reference")
    # uniform over 1..5 against a 5 or a 1: mean |t - v| = 2, / 5
    assert mad.loc["uniform", "expected"] == pytest.approx(2 / 5)


@pytest.mark.parametrize(("call", "name"), [
    (lambda: manhattan_distance([[0.5, 0.5]], [[0.5, 0.5, 0.0]]), "predicted"),
    (lambda: manhattan_distance([[0.5, 0.6]], [[0.5, 0.5]]), "predicted"),
    (lambda: wasserstein_distance([[0.5, 0.5]], [[0.7, 0.7]]), "observed"),
    (lambda: error_rate([[1, np.nan]], [[1, 0]]), "predicted"),
    (lambda: error_rate([[1, 0]], [[np.nan, np.nan]]), "observed"),
    (lambda: mean_absolute_distance([[1]], [[2]], scale=0), "scale"),
    (lambda: score_references([[1, 2]], "kappa"), "score"),
    (lambda: score_references([[1, 0]], "mean_absolute_distance"), "scale"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=rf"^{name}\b") as err:
        call()
    assert "\n" not in str(err.value)
