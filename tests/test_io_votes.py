"""labelvar.io.read_votes: the one votes reader, every rule on hand-made frames and files."""

import json

import numpy as np
import pandas as pd
import pytest

from labelvar.io import Votes, read_votes


def frame(items, raters, labels):
    return pd.DataFrame({"item": items, "rater": raters, "label": labels})


def binary(n_items=1000, stray=None):
    """Two raters on n_items items, labels 0/1; the last vote replaced by ``stray``."""
    lab = np.tile([0, 1], n_items).astype(object)
    if stray is not None:
        lab[-1] = stray
    return frame(np.repeat([f"i{k}" for k in range(n_items)], 2), ["a", "b"] * n_items, lab)


# --------------------------------------------------------------------------- the result
def test_codes_counts_frame_by_hand():
    v = read_votes(frame(["q", "q", "p", "p", "q"], ["b", "a", "a", "c", "c"],
                         ["y", "x", "y", "y", "y"]))
    assert v.items.tolist() == ["q", "p"]  # order of first occurrence
    assert v.raters.tolist() == ["a", "b", "c"]
    assert v.labels == ("x", "y")
    assert v.codes.tolist() == [[0, 1, 1], [1, -1, 1]]
    assert v.counts.tolist() == [[1, 2], [0, 2]]
    assert v.codes.dtype == np.int64 and v.counts.dtype == np.int64
    assert v.frame.to_dict("list") == {"item": ["q", "q", "p", "p", "q"],
                                       "rater": ["b", "a", "a", "c", "c"],
                                       "label": ["y", "x", "y", "y", "y"]}
    assert not v.numeric and np.isnan(v.values).all()
    assert v.n_votes == 5 and v.n_items == 2


def test_numbers_one_label_whatever_the_spelling():
    v = read_votes(frame(["1", "1", "1", "2"], ["a", "b", "c", "a"], ["1", 1.0, 0, np.float64(0)]))
    assert v.labels == (0, 1)
    assert all(type(x) is int for x in v.labels)
    assert v.counts.tolist() == [[1, 2], [1, 0]]
    assert v.numeric and v.values.tolist() == [0.0, 1.0]


def test_labels_written_as_floats_are_the_integers():
    v = read_votes(frame(["i", "i", "j"], ["a", "b", "a"], [1.0, 0.0, 1.0]))
    assert v.labels == (0, 1) and v.frame["label"].tolist() == [1, 0, 1]


def test_text_labels_as_written_sorted_after_numbers():
    v = read_votes(frame(["i"] * 3, ["a", "b", "c"], ["Yes", "no", "Yes"]))
    assert v.labels == ("Yes", "no")


def test_raters_sorted_by_number_when_all_spell_one():
    v = read_votes(frame(["i"] * 3, [10, 2, 1], [0, 1, 1]))
    assert v.raters.tolist() == ["1", "2", "10"]
    assert v.codes.tolist() == [[1, 1, 0]]


# --------------------------------------------------------------------------- ids
def test_ids_kept_as_written():
    v = read_votes(frame(["0001", "1", "01"], ["007", "7", "007"], [0, 1, 1]))
    assert v.items.tolist() == ["0001", "1", "01"]
    assert v.raters.tolist() == ["007", "7"]  # one number, two ids: by number, then text
    assert v.codes.tolist() == [[0, -1], [-1, 1], [1, -1]]


def test_integer_and_text_ids_of_one_spelling_are_one_id():
    v = read_votes(frame([1, "1"], ["a", "b"], [0, 1]))
    assert v.items.tolist() == ["1"] and v.codes.tolist() == [[0, 1]]


def test_csv_ids_read_as_text(tmp_path):
    p = tmp_path / "v.csv"
    p.write_text("item,rater,label\n0001,0001,1.0\n0001,02,0.0\n1,0001,1\n")
    v = read_votes(p)
    assert v.items.tolist() == ["0001", "1"]
    assert sorted(v.raters) == ["0001", "02"]
    assert v.labels == (0, 1)
    assert v.counts.tolist() == [[1, 1], [0, 1]]


def test_tsv_and_column_names(tmp_path):
    p = tmp_path / "v.tsv"
    p.write_text("task\tworker\tlabel\nt1\tw1\tcat\nt1\tw2\tdog\n")
    v = read_votes(p, item="task", rater="worker")
    assert v.items.tolist() == ["t1"] and v.labels == ("cat", "dog")


def test_jsonl_and_json_array(tmp_path):
    rows = [{"item": "0001", "rater": "a", "label": 1}, {"item": "0001", "rater": "b", "label": 0},
            {"item": "0002", "rater": "a", "label": 1.0}]
    p = tmp_path / "v.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    v = read_votes(p)
    assert v.items.tolist() == ["0001", "0002"] and v.labels == (0, 1)
    assert v.codes.tolist() == [[1, 0], [1, -1]]
    q = tmp_path / "v.json"
    q.write_text(json.dumps(rows))
    w = read_votes(q)
    assert w.codes.tolist() == v.codes.tolist()


def test_jsonl_missing_field_is_a_missing_label(tmp_path):
    p = tmp_path / "v.jsonl"
    p.write_text('{"item": "a", "rater": "r", "label": 1}\n{"item": "a", "rater": "s"}\n')
    with pytest.raises(ValueError, match="1 of 2 rows .* have no label .*data row 2"):
        read_votes(p)


def test_parquet(tmp_path):
    pytest.importorskip("pyarrow")
    p = tmp_path / "v.parquet"
    frame(["0001", "0002"], ["a", "a"], [1, 0]).to_parquet(p)
    assert read_votes(p).items.tolist() == ["0001", "0002"]


def test_unknown_suffix_and_missing_file(tmp_path):
    (tmp_path / "v.dat").write_text("item,rater,label\n")
    with pytest.raises(ValueError, match="cannot tell the format .*suffix"):
        read_votes(tmp_path / "v.dat")
    with pytest.raises(FileNotFoundError):
        read_votes(tmp_path / "none.jsonl")
    with pytest.raises(ValueError, match="data: give a pandas DataFrame"):
        read_votes([1, 2])


# --------------------------------------------------------------------------- declared labels
def test_declared_but_unused_labels_kept_with_zero_counts():
    v = read_votes(frame(["i", "i", "j"], ["a", "b", "a"], [0, 1, 1]), labels=[0, 1, 2])
    assert v.labels == (0, 1, 2)
    assert v.counts.tolist() == [[1, 1, 0], [0, 1, 0]]


def test_declared_order_kept_and_spellings_matched():
    v = read_votes(frame(["i", "i"], ["a", "b"], [1, 0]), labels=["1", "0"])
    assert v.labels == (1, 0) and v.codes.tolist() == [[0, 1]]
    assert read_votes(frame(["i"], ["a"], [1]), labels="0,1").labels == (0, 1)


def test_label_outside_declared_set_refused_naming_it_and_the_fix():
    with pytest.raises(ValueError, match=r"labels: the votes use 2 \(1 of 2,000 votes\), outside "
                                         r"the declared labels \[0, 1\].*add it to labels="):
        read_votes(binary(stray=2), labels=[0, 1])


def test_declared_labels_let_text_and_numbers_mix():
    v = read_votes(frame(["i", "i"], ["a", "b"], [1, "unsure"]), labels=[0, 1, "unsure"])
    assert v.labels == (0, 1, "unsure") and v.codes.tolist() == [[1, 2]]
    assert not v.numeric and np.isnan(v.values[2]) and v.values[1] == 1.0


def test_bad_declared_sets():
    df = frame(["i"], ["a"], [1])
    with pytest.raises(ValueError, match="labels: '1' is given twice"):
        read_votes(df, labels=[0, 1, "1"])
    with pytest.raises(ValueError, match="labels: inf is no label"):
        read_votes(df, labels=[0, 1, float("inf")])
    with pytest.raises(ValueError, match="labels: the declared label set is empty"):
        read_votes(df, labels=[])


# --------------------------------------------------------------------------- stray labels
def test_one_stray_vote_among_binary_refused():
    with pytest.raises(ValueError, match=r"label 2 occurs in 1 of 2,000 votes .*stray value among "
                                         r"\[0, 1\].*declare labels=\[0, 1, 2\]"):
        read_votes(binary(stray=2))


def test_half_among_binary_refused():
    with pytest.raises(ValueError, match=r"label 0\.5 occurs in 1 of 2,000 votes"):
        read_votes(binary(stray=0.5))


def test_text_among_numbers_refused():
    with pytest.raises(ValueError, match=r"mix number .* and text: 'x' in 1 of 2,000 votes "
                                         r"\(first: data row 2000\).*labels=\["):
        read_votes(binary(stray="x"))


@pytest.mark.parametrize("bad", [float("inf"), "inf", -np.inf])
def test_non_finite_refused(bad):
    with pytest.raises(ValueError, match=r"label '?-?inf'? in 1 of 2,000 votes .*data row 2000.* no "
                                         "finite number"):
        read_votes(binary(stray=bad))


def test_non_finite_refused_even_with_declared_labels():
    with pytest.raises(ValueError, match="no finite number"):
        read_votes(binary(stray=np.inf), labels=[0, 1])


def test_booleans_never_mix():
    with pytest.raises(ValueError, match="booleans do not mix"):
        read_votes(frame(["i", "i", "j"], ["a", "b", "a"], [True, 1, 0]), labels=[0, 1])
    v = read_votes(frame(["i", "i"], ["a", "b"], [True, False]))
    assert v.labels == (0, 1) and v.codes.tolist() == [[1, 0]]


def test_counts_given_as_votes_refused():
    df = frame([f"i{k}" for k in range(30)], ["a"] * 30, list(range(30)))
    with pytest.raises(ValueError, match="30 distinct integers .*look like per-label counts"):
        read_votes(df)
    assert len(read_votes(df, labels=list(range(30))).labels) == 30


def test_a_rare_rating_next_to_the_others_is_kept():
    lab = [1] * 3 + [2, 3, 4, 5] * 250
    v = read_votes(frame([f"i{k}" for k in range(len(lab))], ["a"] * len(lab), lab))
    assert v.labels == (1, 2, 3, 4, 5) and v.counts[:, 0].sum() == 3


def test_missing_label_refused():
    with pytest.raises(ValueError, match=r"1 of 3 rows of the table have no label .*data row 2"):
        read_votes(frame(["i", "i", "j"], ["a", "b", "a"], [1, None, 0]))
    with pytest.raises(ValueError, match="have no label"):
        read_votes(frame(["i", "i"], ["a", "b"], ["yes", "NA"]))


# --------------------------------------------------------------------------- one vote each
def test_conflicting_duplicate_refused_naming_item_and_rater():
    df = frame(["i", "j", "j", "k", "j"], ["a", "a", "b", "a", "a"], [0, 1, 0, 1, 0])
    with pytest.raises(ValueError, match=r"item 'j' has votes from rater 'a' with different labels"
                                         r" \(1, 0\).*1 such \(item, rater\) pair\)"):
        read_votes(df)


def test_exact_duplicate_refused():
    df = frame(["i", "j", "j", "j"], ["a", "a", "b", "a"], [0, 1, 0, 1])
    with pytest.raises(ValueError, match=r"vote of rater 'a' on item 'j' \(1\) is given 2 times "
                                         r".*1 repeated row in all.*drop_duplicates"):
        read_votes(df)
    assert read_votes(df.drop_duplicates()).n_votes == 3


def test_duplicate_of_one_label_spelt_two_ways_is_an_exact_duplicate():
    with pytest.raises(ValueError, match="is given 2 times"):
        read_votes(frame(["i", "i"], ["a", "a"], ["1", 1.0]))


# --------------------------------------------------------------------------- refusals
def test_empty_refused():
    with pytest.raises(ValueError, match="has no rows"):
        read_votes(frame([], [], []))


def test_missing_columns_all_named():
    with pytest.raises(ValueError, match=r"no column 'rater' \(rater=\), 'vote' \(label=\)"):
        read_votes(pd.DataFrame({"item": [1], "worker": ["a"], "label": [1]}), label="vote")


def test_same_column_twice_refused():
    with pytest.raises(ValueError, match="three different columns"):
        read_votes(frame(["i"], ["a"], [1]), rater="item")


def test_missing_id_refused():
    with pytest.raises(ValueError, match=r"1 row\(s\) of the table have no a rater id .*data row 2"):
        read_votes(frame(["i", "i"], ["a", None], [0, 1]))


def test_repeated_column_refused():
    df = pd.DataFrame([["i", "a", 1, 0]], columns=["item", "rater", "label", "label"])
    with pytest.raises(ValueError, match="two columns are named 'label'"):
        read_votes(df)


def test_large_votes_matrix_refused_before_allocating(monkeypatch):
    monkeypatch.setenv("LABELVAR_MEMORY_LIMIT", "1KB")
    v = read_votes(frame([f"i{k}" for k in range(100)], ["a", "b"] * 50, [0, 1] * 50))
    assert v.counts.sum() == 100  # small: fine
    with pytest.raises(ValueError, match=r"votes matrix of 100 items x 2 raters needs"):
        _ = v.codes


# --------------------------------------------------------------------------- align
def test_align_by_id_text_never_position():
    v = read_votes(frame(["0001", "2", "10"], ["a"] * 3, [0, 1, 1]))
    s = v.align(pd.Series({"10": "z", "0001": "x"}), field="gold")
    assert s.iloc[0] == "x" and pd.isna(s.iloc[1]) and s.iloc[2] == "z"
    assert s.index.tolist() == ["0001", "2", "10"]
    assert v.align(pd.Series([5, 6], index=[10, 2]), field="x").tolist()[1:] == [6, 5]
    d = v.align(pd.DataFrame({"p": [0.1, 0.2]}, index=["2", "0001"]), field="probs")
    assert d["p"].tolist()[:2] == [0.2, 0.1]


def test_align_refusals_name_the_field():
    v = read_votes(frame(["0001", "2"], ["a"] * 2, [0, 1]))
    with pytest.raises(ValueError, match=r"gold: item id '1' is not among the votes' 2 items"):
        v.align({1: 0}, field="gold")
    with pytest.raises(ValueError, match=r"gold: item id '2' is given 2 times"):
        v.align(pd.Series([0, 1], index=["2", "2"]), field="gold")
    with pytest.raises(ValueError, match="gold: give a pandas Series"):
        v.align([0, 1], field="gold")


def test_votes_pass_through_and_redeclared():
    v = read_votes(frame(["i", "i"], ["a", "b"], [0, 1]))
    assert read_votes(v) is v
    w = read_votes(v, labels=[0, 1, 2])
    assert isinstance(w, Votes) and w.labels == (0, 1, 2) and w.codes.tolist() == [[0, 1]]


def test_frame_keeps_whole_labels_whole_beside_fractions():
    v = read_votes(frame(["i", "i", "i"], ["a", "b", "c"], [1, 0.5, "0"]), labels=[0, 0.5, 1])
    assert v.frame["label"].tolist() == [1, 0.5, 0]
    assert [type(x) for x in v.frame["label"]] == [int, float, int]
    assert v.numeric and v.values.tolist() == [0.0, 0.5, 1.0]


def test_one_label_spelt_two_ways_refused_unless_both_declared():
    df = frame([f"i{k}" for k in range(6)], ["a"] * 6, ["yes", "yes", "no", "no", "no", "Yes "])
    with pytest.raises(ValueError, match=r"labels 'yes' and 'Yes' of the table differ only in "
                                         r"case or spacing \(2 and 1 votes\)"):
        read_votes(df)
    assert read_votes(df, labels=["no", "yes", "Yes"]).labels == ("no", "yes", "Yes")
