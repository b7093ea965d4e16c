"""labelvar readers: the command line, its report directory and its one-line errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from labelvar import mrmc, standalone_vs_readers
from labelvar.cli import main


def _study(tmp_path, n_readers=4, n_cases=60, seed=0):
    rng = np.random.default_rng(seed)
    y = (np.arange(n_cases) % 3 == 0).astype(int)
    rows = [(f"r{j}", f"{k:04d}", m, y[k], round(float(y[k] * (1 + 0.4 * m) + rng.normal()), 2))
            for m in (1, 2) for j in range(n_readers) for k in range(n_cases)]
    d = pd.DataFrame(rows, columns=["reader", "case", "modality", "truth", "rating"])
    path = tmp_path / "ratings.csv"
    d.to_csv(path, index=False)
    return d, path


def test_cli_prints_the_analysis_and_writes_the_report(tmp_path, capsys):
    d, path = _study(tmp_path)
    out = tmp_path / "rep"
    assert main(["readers", str(path), "--truth", "truth", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    res = mrmc(d.astype({"case": str}), truth="truth")
    assert text == res.describe() + "\n"
    written = sorted(p.name for p in out.iterdir())
    assert {"fom.csv", "tests.csv", "components.csv", "readers.png", "readers.pdf", "report.json",
            "points.csv", "dbm.csv"} <= set(written)
    tests = pd.read_csv(out / "tests.csv").set_index("analysis")
    assert tests.loc["RRRC", "statistic"] == pytest.approx(res.tests.loc["RRRC", "statistic"])


def test_cli_ai_against_readers_with_a_panel_file(tmp_path, capsys):
    d, path = _study(tmp_path)
    one = d[d.modality == 1].drop(columns="modality")
    one.to_csv(path, index=False)
    rng = np.random.default_rng(1)
    y = d.groupby("case").truth.first()
    votes = pd.DataFrame({"case": y.index, **{f"p{i}": np.where(rng.random(len(y)) < 0.85, y, 1 - y)
                                              for i in range(3)}, "r0": y.to_numpy()})
    vpath = tmp_path / "panel.csv"
    votes.to_csv(vpath, index=False)
    assert main(["readers", str(path), "--truth", str(vpath), "--ai", "r3", "--analysis", "1T-RRFC"]) == 0
    text = capsys.readouterr().out
    assert "Standalone AI vs 3 readers (1T-RRFC)" in text
    assert "majority of 3 panelists without r0" in text and "majority of 4 panelists" in text
    panel = votes.astype(str)
    res = standalone_vs_readers(one.astype({"case": str}), "r3", truth=panel.set_index("case"),
                                analysis="1T-RRFC")
    assert text == res.describe() + "\n"


@pytest.mark.parametrize("change,flagged", [
    (lambda d: d.iloc[3:], "labelvar: error: RATINGS: the design is not fully crossed"),
    (lambda d: d.assign(truth=np.where(d.case == "0005", "", d.truth)),
     "labelvar: error: --truth: case '0005' has no truth"),
    (lambda d: d[d.reader == "r0"],
     "labelvar: error: --reader: a reader study needs at least 2 readers, got 1"),
    (lambda d: d.assign(truth=1), "labelvar: error: --truth: the cases are all of one class"),
    (lambda d: d.assign(rating=d.rating.astype(str).where(d.index != 7, "high")),
     "labelvar: error: --rating: the column 'rating' must be numeric"),
])
def test_cli_bad_input_one_line(tmp_path, capsys, change, flagged):
    d, path = _study(tmp_path)
    change(d.astype({"case": str, "truth": str})).to_csv(path, index=False)
    assert main(["readers", str(path), "--truth", "truth"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(flagged) and err.count("\n") == 1, err


def test_cli_truth_model_prints_the_integrated_analysis(tmp_path, capsys):
    d, path = _study(tmp_path)
    rng = np.random.default_rng(2)
    y = d.groupby("case").truth.first()
    votes = pd.DataFrame({"case": y.index, **{f"p{i}": np.where(rng.random(len(y)) < 0.85, y, 1 - y)
                                              for i in range(5)}})
    vpath = tmp_path / "panel.csv"
    votes.to_csv(vpath, index=False)
    assert main(["readers", str(path), "--truth", str(vpath), "--truth-model", "dawid_skene"]) == 0
    out = capsys.readouterr().out
    assert "integrated over the truth's posterior (50 draws):" in out
    assert main(["readers", str(path), "--truth", "truth", "--truth-model", "dawid_skene"]) == 2
    assert "--truth-model needs a panel's votes as --truth" in capsys.readouterr().err


def test_cli_sizes_a_study_from_this_one(tmp_path, capsys):
    from labelvar.readers import MRMCPower

    d, path = _study(tmp_path, n_readers=5)
    assert main(["readers", str(path), "--truth", "truth", "--size-effect", "0.05"]) == 0
    out = capsys.readouterr().out
    res = mrmc(d.astype({"case": str}), truth="truth")
    want = MRMCPower.from_result(res).sizes(effect=0.05, target=0.8).table
    assert "sizing from this study as a pilot (OR RRRC, two modalities, effect 0.05" in out
    row = [ln for ln in out.splitlines() if ln.startswith("|       8 |")][0]
    assert row.split("|")[2].strip() == f"{int(want.set_index('readers').loc[8, 'cases'])}"
