"""Tie rules of stratify: the paper's first-vote rule, the lowest label, and how each bin was made."""

from __future__ import annotations

import json
import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from tests.conftest import row, shared_data

from labelvar import io
from labelvar.evaluation import Intervals, Paper, Truth
from labelvar.evaluation._stratified import stratify
from labelvar.io import TaskData


def _most_common(votes):
    """The paper's code: ``Counter(votes).most_common(1)`` (ties: the label seen first)."""
    return Counter(v for v in votes if v is not None).most_common(1)[0][0]


def test_first_vote_is_counter_most_common():
    rng = np.random.default_rng(5)
    n = 400
    panel = rng.integers(0, 3, size=(n, 4))  # 4 votes, 3 labels: many 2-2 and 2-1-1 ties
    pred = rng.integers(0, 3, size=n)
    r = stratify(panel, {"m": pred}, metrics=["accuracy"], truth=Truth(tie_rule="first_vote"),
                 intervals=Intervals(n_resamples=0))
    truth = np.array([_most_common(list(p)) for p in panel])
    got = row(r.table, system="m", stratum="all", metric="accuracy")
    assert got.score == pytest.approx(np.mean(truth == pred))
    n_tied = sum(1 for p in panel if sorted(Counter(p).values())[-2:].count(
        max(Counter(p).values())) > 1)
    assert got.n_tied == n_tied > 50 and got.tie_rule == "first_vote"
    # a 3-way split of 3 votes gives rater 1's label
    r = stratify([["b", "c", "a"], ["c", "a", "b"], ["a", "a", "a"]], {"m": ["b", "c", "a"]},
                 metrics=["accuracy"], truth=Truth(tie_rule="first_vote"),
                 intervals=Intervals(n_resamples=0))
    assert row(r.table, system="m", stratum="all", metric="accuracy").score == 1.0
    r = stratify([["b", "c", "a"], ["c", "a", "b"], ["a", "a", "a"]], {"m": ["a", "a", "a"]},
                 metrics=["accuracy"], truth=Truth(tie_rule="lowest"),
                 intervals=Intervals(n_resamples=0))
    assert row(r.table, system="m", stratum="all", metric="accuracy").score == 1.0


def test_first_vote_h_prime_loo_against_a_loop():
    rng = np.random.default_rng(2)
    n = 300
    panel = rng.integers(0, 3, size=(n, 5))
    r = stratify(panel, metrics=["accuracy"], seed=1, truth=Truth(tie_rule="first_vote"),
                 intervals=Intervals(n_resamples=0),
                 paper=Paper(replicates=200, leave_one_out=True))
    # exact expectation of the loop: each vote picked with probability 1/5, scored against
    # Counter.most_common of the other 4 (in rater order)
    exp = np.mean([np.mean([votes[j] == _most_common(np.delete(votes, j))
                            for j in range(5)]) for votes in panel])
    got = row(r.table, system="H'-loo", stratum="all", metric="accuracy")
    se = got.sd / np.sqrt(200)
    assert abs(got.score - exp) < 4 * se


def test_first_spelling_and_counts_refused():
    with pytest.raises(ValueError, match=r"tie_rule: 'first' is ambiguous; say 'lowest' .* or "
                       r"'first_vote'"):
        stratify([[0, 1], [1, 1]], truth=Truth(tie_rule="first"))
    with pytest.raises(ValueError, match="per-label counts of task .task. have no vote order"):
        stratify(TaskData(pd.DataFrame({"a": [2, 1], "b": [2, 3]}), None, counts=True),
                 truth=Truth(tie_rule="first_vote"), paper=Paper(replicates=2))


def test_cli_tie_rule_first_is_refused(tmp_path):
    from tests.test_stratify_cli import run

    path = tmp_path / "p.csv"
    pd.DataFrame({"item": [1, 2], "a": [0, 1], "b": [1, 1]}).to_csv(path, index=False)
    code, out, err = run("stratify", path, "--panel", "a,b", "--item", "item", "--tie-rule",
                         "first")
    assert code == 2 and out == ""
    assert err.startswith("labelvar: error: --tie-rule: 'first' is ambiguous") and \
        len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("split, sizes, tied", [
    ("matched", (1599, 2457, 5759), 185),
    ("mismatched", (1446, 2402, 5984), 168),
])
def test_table5_bins_on_mnli(split, sizes, tied):
    """The paper's Table 5 (human side): S per bin, once the items without a 3-vote
    majority are left out (tie_rule "drop", as the paper does)."""
    path = shared_data(f"mnli/mnli_dev_{split}_labels.jsonl")
    data = io.load_tasks([path], columns=io.Columns(panel="annotator_labels", item="row"), layout="jsonl")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = stratify(data, truth=Truth(tie_rule="drop"), intervals=Intervals(n_resamples=0),
                     paper=Paper(replicates=5))
    (task,) = r.tasks
    assert r.excluded[task]["tied"] == tied
    t = r.table[(r.table.role == "H'") & (r.table.metric == "accuracy")]
    assert t["stratum"].tolist() == ["0.60", "0.80", "1.00", "all"]
    assert t["S"].tolist() == [*sizes, sum(sizes)]
    assert set(t["tie_rule"]) == {"drop"} and set(t["n_tied"]) == {0}
    assert f"{tied:,} tied items left out (tie_rule 'drop')" in r.describe()
    # the tied items counted independently: no label with 3 of the 5 votes
    votes = [json.loads(line)["annotator_labels"] for line in open(path)]
    assert sum(max(Counter(v).values()) < 3 for v in votes) == tied
    # with the first-vote rule they form a 0.40 bin of their own, labelled by the rule
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = stratify(data, truth=Truth(tie_rule="first_vote"),
                     intervals=Intervals(n_resamples=0), paper=Paper(replicates=5))
    low = row(r.table, role="H'", stratum="0.40", metric="accuracy")
    assert (low.S, low.n_tied, low.tie_rule) == (tied, tied, "first_vote")
