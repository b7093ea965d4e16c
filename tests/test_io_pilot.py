"""Pilot votes read into counts (labelvar.io._pilot, behind labelvar.votes._pilot.read_pilot).

An id column is never a label's counts; stray labels in JSON label lists are refused.
"""

import json

import numpy as np
import pandas as pd
import pytest

from labelvar.cli import main
from labelvar.votes._pilot import read_pilot


def _counts(n=40, seed=0):
    rng = np.random.default_rng(seed)
    yes = rng.integers(0, 6, n)
    return pd.DataFrame({"yes": yes, "no": 5 - yes})


def test_a_csv_saved_with_its_index_is_refused_naming_the_column(tmp_path):
    p = tmp_path / "pilot.csv"
    _counts().to_csv(p)  # the usual pandas way: an unnamed index column first
    with pytest.raises(ValueError, match=r"column 1 has no name \(an index written by "
                                         r"DataFrame\.to_csv\?\).*columns=\['yes', 'no'\].*"
                                         r"--pilot-columns yes,no"):
        read_pilot(p)
    assert read_pilot(p, columns=["yes", "no"]).tolist() == _counts().to_numpy().tolist()


@pytest.mark.parametrize("name", ["item", "id", "pairID", "doc_id", "Item"])
def test_an_integer_id_column_is_refused(tmp_path, name):
    p = tmp_path / "pilot.csv"
    _counts().rename_axis(name).reset_index().to_csv(p, index=False)
    with pytest.raises(ValueError, match=rf"column '{name}' is named as item ids"):
        read_pilot(p)


def test_row_numbers_under_another_name_are_refused(tmp_path):
    p = tmp_path / "pilot.csv"
    df = _counts()
    df.insert(0, "n", np.arange(1, len(df) + 1) * 7)
    df.to_csv(p, index=False)
    with pytest.raises(ValueError, match=r"column 'n' holds 40 distinct numbers, one per row"):
        read_pilot(p)


def test_text_ids_are_left_out_and_counts_kept(tmp_path):
    p = tmp_path / "pilot.csv"
    df = _counts()
    df.insert(0, "item", [f"q{i}" for i in range(len(df))])
    df.to_csv(p, index=False)
    assert read_pilot(p).tolist() == _counts().to_numpy().tolist()


def test_plain_counts_read_as_before(tmp_path):
    p = tmp_path / "pilot.csv"
    _counts().to_csv(p, index=False)
    got = read_pilot(p)
    assert got.shape == (40, 2) and got.sum(axis=1).tolist() == [5] * 40


def test_design_refuses_the_index_column_at_once(tmp_path, capsys):
    p = tmp_path / "pilot.csv"
    _counts().to_csv(p)
    code = main(["design", "--pilot", str(p), "--pilot-method", "beta"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "column 1 has no name" in err and "--pilot-columns yes,no" in err


def _jsonl(tmp_path, rows):
    p = tmp_path / "pilot.jsonl"
    p.write_text("".join(json.dumps({"votes": r}) + "\n" for r in rows))
    return p


def test_json_labels_one_number_however_written(tmp_path):
    p = _jsonl(tmp_path, [[1, 0, 1.0], [0.0, 0, 1]] * 5)
    assert read_pilot(p, field="votes").tolist() == [[1, 2], [2, 1]] * 5


def test_json_stray_label_refused(tmp_path):
    rows = [[0, 1, 1]] * 400
    rows[-1] = [0, 1, 2]
    p = _jsonl(tmp_path, rows)
    with pytest.raises(ValueError, match=r"label 2 occurs in 1 of 1,200 votes .*stray value "
                                         r"among \[0, 1\]"):
        read_pilot(p, field="votes")


def test_json_labels_in_number_order(tmp_path):
    rows = [[k, k, k + 1] for k in range(1, 11)] * 3
    p = _jsonl(tmp_path, rows)
    got = read_pilot(p, field="votes")
    assert got.shape == (30, 11)
    assert got[0].tolist() == [2, 1] + [0] * 9  # labels 1, 2, ..., 11 (not "1", "10", "11", "2")
