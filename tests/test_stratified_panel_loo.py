"""Panel raters scored against the others' majority (leave-one-rater-out), H' leave-one-out
by default, and an expert compared with a panel member on the same (K-1)-majority."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from tests.conftest import row, shared_data

from labelvar.evaluation import Intervals, Labels, Paper, Truth
from labelvar.evaluation._stratified import stratify
from labelvar.io import TaskData

REPO = Path(__file__).resolve().parents[1]


def _panel(n=400, seed=7):
    rng = np.random.default_rng(seed)
    truth = (rng.random(n) < 0.4).astype(int)
    acc = np.array([0.9, 0.8, 0.75, 0.7])
    votes = np.where(rng.random((n, 4)) < acc, truth[:, None], 1 - truth[:, None])
    votes = votes.astype(float)
    votes[rng.random((n, 4)) < 0.1] = np.nan  # raters skip some items
    panel = pd.DataFrame(votes, columns=["p1", "p2", "p3", "p4"])
    expert = np.where(rng.random(n) < 0.85, truth, 1 - truth)
    return panel, expert


def _others_majority(panel, j):
    """Per item, the strict plurality of the other raters (None: j did not vote, a tie)."""
    out = []
    for _, r in panel.iterrows():
        if np.isnan(r.iloc[j]):
            out.append(None)
            continue
        rest = r.drop(r.index[j]).dropna().to_numpy()
        n1, n0 = (rest == 1).sum(), (rest == 0).sum()
        out.append(None if n1 == n0 else int(n1 > n0))
    return out


def test_panel_rater_against_the_others_by_a_loop():
    panel, expert = _panel()
    with pytest.warns(UserWarning, match="53 tied"):
        r = stratify(panel, {"dr": expert}, humans=["dr"], metrics=["accuracy", "f1"],
                     truth=Truth(tie_rule="drop"), intervals=Intervals(n_resamples=0)).leave_one_rater_out()
    t = r.table
    k = panel.notna().sum(axis=1).to_numpy()
    n1 = (panel == 1).sum(axis=1).to_numpy()
    keep = (k >= 2) & (2 * n1 != k)  # the panel's own ties dropped (tie_rule drop)
    maj = (2 * n1 > k).astype(int)
    for j, name in enumerate(panel.columns):
        ref = _others_majority(panel, j)
        ok = np.array([x is not None for x in ref]) & keep
        truth = np.array([x if x is not None else -1 for x in ref])[ok]
        vote = panel.iloc[:, j].to_numpy()[ok].astype(int)
        got = row(t, system=name, role="panel-loo", stratum="all", metric="accuracy")
        assert got.S == ok.sum() and got.score == pytest.approx(np.mean(vote == truth))
        tp = np.sum((vote == 1) & (truth == 1))
        f1 = 2 * tp / (np.sum(vote == 1) + np.sum(truth == 1))
        assert row(t, system=name, role="panel-loo", stratum="all", metric="f1").score == \
            pytest.approx(f1)
        # self-inclusive, labelled so: against the whole panel's majority
        mine = keep & panel.iloc[:, j].notna().to_numpy()
        got = row(t, system=name, role="panel-self", stratum="all", metric="accuracy")
        assert got.score == pytest.approx(np.mean(panel.iloc[:, j].to_numpy()[mine] == maj[mine]))
        assert got.score > row(t, system=name, role="panel-loo", stratum="all",
                               metric="accuracy").score
    assert r.humans == ["dr"]  # the panel rows are neither systems nor humans


def test_expert_against_a_panel_member_on_the_same_majority():
    panel, expert = _panel()
    r = stratify(panel, {"dr": expert}, metrics=["accuracy"], truth=Truth(tie_rule="drop"),
                 intervals=Intervals(n_resamples=200))
    c = r.compare("dr", "p2").table.set_index("stratum").loc["all"]
    ref = _others_majority(panel, 1)
    k = panel.notna().sum(axis=1).to_numpy()
    n1 = (panel == 1).sum(axis=1).to_numpy()
    ok = np.array([x is not None for x in ref]) & (k >= 2) & (2 * n1 != k)
    truth = np.array([x if x is not None else -1 for x in ref])[ok]
    a = expert[ok] == truth
    b = panel.iloc[:, 1].to_numpy()[ok] == truth
    assert c.S == ok.sum()
    assert (c.score_a, c.score_b) == (pytest.approx(a.mean()), pytest.approx(b.mean()))
    n_a, n_b = int((a & ~b).sum()), int((b & ~a).sum())
    assert (c.n_a_only, c.n_b_only) == (n_a, n_b)
    assert c.p == pytest.approx(stats.binomtest(n_a, n_a + n_b, 0.5).pvalue)
    with pytest.raises(ValueError, match="two panel raters have no common reference"):
        stratify(panel, {"dr": expert}, intervals=Intervals(n_resamples=0)).compare("p1", "p2")


def test_panel_loo_needs_identified_raters():
    counts = pd.DataFrame({"a": [2, 1, 3], "b": [1, 2, 0]})
    with pytest.raises(ValueError, match="leave_one_rater_out: scoring each panel rater against the "
                       "others needs identified raters"):
        stratify(TaskData(counts, None, counts=True), labels=Labels(["a", "b"], pos_label="a"),
                 paper=Paper(replicates=2)).leave_one_rater_out()


def test_h_prime_leave_one_out_by_default():
    panel, _ = _panel(n=300)
    r = stratify(panel, metrics=["accuracy"], intervals=Intervals(n_resamples=0),
                 paper=Paper(replicates=50))
    t = r.table
    loo = row(t, role="H'-loo", stratum="all", metric="accuracy")
    self_ = row(t, role="H'", stratum="all", metric="accuracy")
    assert loo.score < self_.score  # the self-inclusive score flatters
    p = r.paper_table()
    assert "accuracy H'-loo" in p.columns and "accuracy H' (self-incl.)" in p.columns
    assert p.loc[p.agreement == "all", "accuracy H' (self-incl.)"].item() == self_.score
    assert p.loc[p.agreement == "all", "accuracy H'-loo"].item() == loo.score
    r = stratify(panel, metrics=["accuracy"], intervals=Intervals(n_resamples=0),
                 paper=Paper(replicates=50, leave_one_out=False))
    assert set(r.table.role) == {"H'"}


def test_chexpert_panel_radiologist_with_and_without_its_own_vote():
    root = shared_data("chexpert_test")
    spec = importlib.util.spec_from_file_location("chexpert_table3",
                                                  REPO / "scripts" / "chexpert_table3.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    data = mod.load(root)
    data = {f: td._replace(predictions=td.predictions[mod.HUMANS]) for f, td in data.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = stratify(data, humans=mod.HUMANS, metrics=["accuracy"], truth=Truth(tie_rule="drop"),
                     intervals=Intervals(n_resamples=0)).leave_one_rater_out()
    t = r.table[(r.table.stratum == "all") & (r.table.metric == "accuracy")]
    means = t.groupby("role").score.mean()  # over findings x raters (14 x 5, 14 x 3)
    assert round(means["panel-self"], 3) == 0.906
    assert round(means["panel-loo"], 3) == 0.894
    assert round(means["human"], 3) == 0.896
    assert t[t.role == "panel-loo"].system.nunique() == 5
    # the guide quotes 0.894 with its tie rule: by default (random) a 2-2 split of the other
    # four is a coin toss, and the panel radiologist scores 0.864 against them
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = stratify(data, humans=mod.HUMANS, metrics=["accuracy"],
                     intervals=Intervals(n_resamples=0)).leave_one_rater_out().table
    d = d[(d.stratum == "all") & (d.metric == "accuracy")].groupby("role").score.mean()
    assert round(d["panel-loo"], 3) == 0.864  # (seed 0)
    guide = (REPO / "docs" / "guides" / "stratified.md").read_text()
    assert "0.894" in guide and "0.864" in guide and "--tie-rule drop" in guide
