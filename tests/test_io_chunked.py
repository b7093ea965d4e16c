"""Wide files read a block of rows at a time (labelvar.io._csv): the same answers as one block.

Every file is read with blocks of a few rows (a private block size) and as one block;
``stratify`` must give identical tables, notes, exclusions and errors either way, and
the same as for the file loaded whole into a DataFrame first. Nothing may be dropped:
long rows, repeated ids, missing predictions and stray labels are refused in any block.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from labelvar import io, stratify
from labelvar.evaluation import ExcludedItemsWarning, Intervals
from labelvar.evaluation._agreement import bootstrap_agreement, fleiss_kappa, krippendorff_alpha
from labelvar.io import _csv


def _votes_file(tmp_path: Path, name: str, rows: list[list]) -> Path:
    path = tmp_path / name
    path.write_text("item,r1,r2,r3,r4,ai,bot\n"
                    + "".join(",".join(map(str, r)) + "\n" for r in rows), encoding="utf-8")
    return path


def _run(path: Path, block: int | None, monkeypatch, **kw):
    """stratify on the file read with ``block`` rows at a time (None: one block)."""
    monkeypatch.setattr(_csv, "_CHUNK_ROWS", block or 10**9)
    data = io.load_tasks(path, columns=io.Columns(panel="r*", systems=kw.pop("systems", "ai,bot"),
                                                  item=kw.pop("item", "item")),
                         labels=kw.get("labels"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = stratify(data, seed=3, **kw, intervals=Intervals(n_resamples=30))
    return r, [str(w.message) for w in caught]


def _same(a, b):
    (ra, wa), (rb, wb) = a, b
    pd.testing.assert_frame_equal(ra.table, rb.table, check_exact=True)
    pd.testing.assert_frame_equal(ra.agreement().table, rb.agreement().table,
                                  check_exact=True)
    assert (ra.excluded, ra.inputs, wa) == (rb.excluded, rb.inputs, wb)


def _rows(seed=0, n=60):
    """String labels with missing votes (ragged panels) and a missing prediction."""
    rng = np.random.default_rng(seed)
    labels = np.array(["yes", "no", "maybe"])
    rows = []
    for i in range(n):
        votes = [labels[j] if rng.random() > 0.25 else "" for j in rng.integers(0, 3, 4)]
        rows.append([f"id{i:03d}", *votes, labels[rng.integers(0, 3)],
                     labels[rng.integers(0, 3)] if i != 41 else ""])
    return rows


def test_string_labels_missing_votes_ragged_panels_same_in_blocks(tmp_path, monkeypatch):
    path = _votes_file(tmp_path, "s.csv", _rows())
    whole = _run(path, None, monkeypatch, missing="drop")
    assert whole[0].excluded["s"]["no_prediction"] == 1
    assert whole[0].inputs["s"]["votes_min"] < whole[0].inputs["s"]["votes_max"]
    for block in (1, 7, 59):
        _same(_run(path, block, monkeypatch, missing="drop"), whole)
    # the same votes given as an in-memory frame
    df = pd.read_csv(path).set_index("item")
    with pytest.warns(ExcludedItemsWarning, match="1 without a prediction"):
        r = stratify({"s": (df[["r1", "r2", "r3", "r4"]], df[["ai", "bot"]])}, seed=3,
                     missing="drop", intervals=Intervals(n_resamples=30))
    pd.testing.assert_frame_equal(r.table, whole[0].table, check_exact=True)


def test_blocks_typed_apart_give_one_label_set(tmp_path, monkeypatch):
    """Numbers in the first rows, text ("1", "x", "True") later: one label per value."""
    rng = np.random.default_rng(1)
    rows = [[i, *rng.integers(0, 2, 4), 1, 0] for i in range(30)]
    rows += [[i, *rng.choice(["0", "1", "1.0", "x"], 4), "1", "0"] for i in range(30, 60)]
    path = _votes_file(tmp_path, "m.csv", rows)
    # "x" among numbers (35 of 360 labels): a mix of kinds, refused in any block (before,
    # a common one was taken as a third label; only a rare one was refused, as stray)
    for block in (None, 4, 30):
        assert _error(path, block, monkeypatch).startswith(
            "panel: the labels of task 'm' mix numbers and text: column 'r1' holds 'x' (item "
            "'31' of ")
    # declared, the mix is the user's: "1", 1 and 1.0 are one label in any block
    whole = _run(path, None, monkeypatch, labels=[0, 1, "x"])
    assert list(whole[0].inputs["m"]["labels"]) == [0, 1, "x"]
    for block in (4, 30):
        _same(_run(path, block, monkeypatch, labels=[0, 1, "x"]), whole)


def test_numbers_with_missing_cells_and_bools(tmp_path, monkeypatch):
    rng = np.random.default_rng(2)
    rows = [[i * 10, *[x if rng.random() > 0.2 else "NA" for x in rng.integers(1, 4, 4)],
             rng.integers(1, 4), 2] for i in range(50)]
    path = _votes_file(tmp_path, "n.csv", rows)
    whole = _run(path, None, monkeypatch)
    assert list(whole[0].inputs["n"]["labels"]) == [1, 2, 3]
    _same(_run(path, 6, monkeypatch), whole)
    bools = [[i, *rng.choice(["True", "False"], 4), "True", "False"] for i in range(40)]
    path = _votes_file(tmp_path, "b.csv", bools)
    _same(_run(path, 9, monkeypatch), _run(path, None, monkeypatch))


def _error(path, block, monkeypatch, **kw):
    with pytest.raises(ValueError) as exc:
        _run(path, block, monkeypatch, **kw)
    return str(exc.value)


def test_nothing_dropped_in_a_late_block(tmp_path, monkeypatch):
    rows = [[i, 1, 0, 1, 1, 1, 0] for i in range(300)]
    late_dup = [r[:] for r in rows]
    late_dup[237][0] = 3
    long_row = [r[:] for r in rows] + [[300, 1, 1, 1, 1, 1, 0, 9]]
    no_pred = [r[:] for r in rows]
    no_pred[238][5] = ""
    stray = [r[:] for r in rows] + [[300, 1, 7, 1, 1, 1, 0]]
    cases = {"dup.csv": (late_dup, "duplicate item id '3' in .*dup.csv \\(1 duplicated rows\\)"),
             "long.csv": (long_row, "cannot read .*long.csv as a table: .*line 302, saw 8"),
             "nopred.csv": (no_pred, r"predictions\['ai'\] .* missing for 1 item\(s\), "
                                     "e.g. item '238'"),
             "stray.csv": (stray, "label 7 occurs in 1 of 1,204 votes")}
    for name, (rows_, match) in cases.items():
        path = _votes_file(tmp_path, name, rows_)
        msgs = {_error(path, block, monkeypatch) for block in (None, 7, 64)}
        assert len(msgs) == 1, msgs
        assert pytest.raises(ValueError, _run, path, 5, monkeypatch).match(match)


def test_rare_votes_outside_the_declared_labels_noted_in_any_block(tmp_path, monkeypatch):
    rows = [[i, 1, 0, 1, 0 if i % 3 else 1, 1, 0] for i in range(300)] + [[300, 1, 9, 1, 0, 1, 0]]
    path = _votes_file(tmp_path, "r.csv", rows)
    whole = _run(path, None, monkeypatch, labels=[0, 1])
    assert any("1 of 1,204 votes outside the label set (9: 1)" in w for w in whole[1])
    _same(_run(path, 11, monkeypatch, labels=[0, 1]), whole)


def test_predictions_outside_the_label_set_named_in_order_of_appearance(tmp_path, monkeypatch):
    rows = [[i, 1, 0, 1, 0, "zeta" if i == 20 else ("alpha" if i == 33 else 1), 0]
            for i in range(40)]
    path = _votes_file(tmp_path, "p.csv", rows)
    msgs = {_error(path, block, monkeypatch) for block in (None, 4, 25)}
    assert msgs == {"predictions['ai'] (task 'p') has labels outside the label set {0, 1} "
                    "(inferred from the panel; or declare it, labels=...): 'zeta', 'alpha'; "
                    "map them onto the panel's labels (recode='ai:zeta=...,alpha=...')"}


def test_many_distinct_values_and_lone_carriage_returns(tmp_path, monkeypatch):
    """Codes widen past 127 values; rows beyond the line count (\\r endings) still fit."""
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"item": np.arange(400), "r1": rng.integers(0, 300, 400),
                       "r2": rng.normal(size=400).round(3), "ai": rng.integers(0, 2, 400)})
    path = tmp_path / "w.csv"
    path.write_text(df.to_csv(index=False).replace("\n", "\r"), encoding="utf-8")
    assert _csv._line_count(path) == 1
    whole = io.read_frame(path)
    for block in (7, 10**9):
        monkeypatch.setattr(_csv, "_CHUNK_ROWS", block)
        td = io.read_wide(path, panel="r1,r2", systems="ai", item="item")["w"]
        assert td.panel.index.tolist() == [str(i) for i in range(400)]
        for c in ("r1", "r2"):
            assert td.panel[c].dtype == "category"
            assert td.panel[c].to_numpy().tolist() == whole[c].tolist()
        assert td.predictions["ai"].to_numpy().tolist() == whole["ai"].tolist()


def test_integer_ids_as_text_and_repeats(monkeypatch):
    monkeypatch.setattr(_csv, "_TEXT_ROWS", 16)
    ints = np.iinfo(np.int64)
    col = pd.Series(np.concatenate([np.arange(-62, 60, 7), [0, -1, 9, 10, -10, ints.min,
                                                            ints.max, 10**18, -(10**18)]]))
    text = _csv.as_text(col)
    assert text.tolist() == col.astype(str).tolist()
    assert text.dtype == col.astype(str).dtype and text.index.equals(col.index)
    assert not _csv.has_repeats(col) and _csv.has_repeats(pd.concat([col, col.iloc[:1]]))
    assert not _csv.has_repeats(text) and _csv.has_repeats(pd.concat([text, text.iloc[3:4]]))
    assert _csv.has_repeats(pd.Series(["a", None, "b", None]).astype(str))
    assert not _csv.has_repeats(pd.Series(["a", None, "b"], dtype=object))


def test_agreement_of_integer_counts_equals_float_counts():
    """The integer-count path of the agreement statistics gives the float path's numbers."""
    rng = np.random.default_rng(5)
    counts = rng.multinomial(5, [0.6, 0.3, 0.1], size=700)
    for c in (counts, counts.astype(np.int8)):
        assert fleiss_kappa(c) == fleiss_kappa(counts.astype(float))
        for level in ("nominal", "ordinal", "interval"):
            assert krippendorff_alpha(c, level) == krippendorff_alpha(counts.astype(float), level)
        assert (bootstrap_agreement(c, "alpha_nominal", 50, np.random.default_rng(1))
                == bootstrap_agreement(counts.astype(float), "alpha_nominal", 50,
                                       np.random.default_rng(1)))
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa(np.array([[3, 2], [2, 2]], dtype=np.int8))
