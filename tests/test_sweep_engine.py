"""End to end through Hydra and the real engine: Figure 1, resume, launchers, collect."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from pandas.testing import assert_frame_equal
from scipy.stats import binom

import labelvar
from labelvar import cli
from labelvar._base._files import read_results
from labelvar.cli import _sweeps as sweep
from labelvar.sweep import _job as _sweep_job

SMALL = ["grid=small", "replicates=400", "output.plots=[]", "quiet=true"]


def run_cli(*args) -> int:
    return cli.main(["sweep", *args])


@pytest.fixture(scope="module")
def figure1(tmp_path_factory):
    """`labelvar sweep experiment=figure1` at the default settings (10,000 replicates)."""
    out = tmp_path_factory.mktemp("figure1") / "run"
    assert run_cli("experiment=figure1", f"hydra.run.dir={out}", "--quiet") == 0
    return out


def test_a_sweep_collects_less_and_restores_the_collector(tmp_path, monkeypatch):
    import atexit
    import gc

    seen, registered = [], []
    engine = _sweep_job._default_engine

    def spy():
        seen.append(gc.get_threshold())
        return engine()

    monkeypatch.setattr(_sweep_job, "_default_engine", spy)
    register = atexit.register
    monkeypatch.setattr(atexit, "register", lambda f, *a: registered.append(f) or register(f, *a))
    sweep._exit_without_collecting.cache_clear()
    before = gc.get_threshold()
    assert run_cli(*SMALL, f"hydra.run.dir={tmp_path}") == 0
    assert seen and seen[0][0] == max(10_000, before[0]) and seen[0][1:] == before[1:]
    assert gc.get_threshold() == before
    assert registered.count(gc.freeze) == 1  # the exit skips the final collections


def test_figure1_outputs(figure1):
    names = {p.name for p in figure1.iterdir()}
    assert {"results.csv", "config.yaml", "metadata.json", "figure1.png", "figure1.pdf",
            "chunks", ".hydra"} <= names
    meta = json.loads((figure1 / "metadata.json").read_text())
    assert (meta["name"], meta["seed"], meta["replicates"]) == ("figure1", 0, 10_000)
    assert meta["computed"] == meta["chunks"] == 4 and meta["reused"] == 0
    assert meta["status"] == "complete"
    assert meta["versions"]["hydra-core"] and meta["git"]["revision"]
    assert (figure1 / "figure1.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (figure1 / "figure1.pdf").read_bytes()[:5] == b"%PDF-"


def test_figure1_done_when(figure1):
    """The issue's checks on the produced table."""
    t = read_results(figure1 / "results.csv")
    allrows = t[t["stratum"] == "all"]
    assert len(allrows) == 11 * 4 * 2 * 4  # p_d x m x labellers x metrics
    # every cell agrees with the closed form: |z| < 4
    z = allrows["z"].to_numpy()
    assert np.isfinite(z).all() and np.abs(z).max() < 4
    acc = allrows[allrows["metric"] == "accuracy"].pivot_table(
        index=["m", "p_d"], columns="labeller", values="mean")
    gap = (acc["expert"] - acc["random"]).groupby(level="p_d").mean()
    se = allrows[allrows["metric"] == "accuracy"]["se"].max()
    # the expert-random accuracy gap is ~0 at p_d = 0.5 (within MC error) ...
    assert abs(gap.loc[0.5]) < 5 * np.sqrt(2) * se
    # ... grows with p_d and is widest at p_d = 1 (exactly 0.5: the expert is always right)
    assert gap.idxmax() == 1.0 and np.all(np.diff(gap.to_numpy()) > 0)
    assert gap.loc[1.0] == pytest.approx(0.5, abs=5 * se)
    # F1 falls with m as the closed form says: MC means within 0.01 of 2mp/(2mp + 1 - p)
    f1 = allrows[(allrows["metric"] == "f1") & (allrows["labeller"] == "expert")]
    closed = labelvar.expected_f1(f1["p_d"].to_numpy(), f1["m"].to_numpy())
    assert np.abs(f1["mean"].to_numpy() - closed).max() < 0.01
    by_m = f1.pivot_table(index="p_d", columns="m", values="mean")
    inner = by_m.loc[(by_m.index > 0.5) & (by_m.index < 1.0)]
    assert (np.diff(inner.to_numpy(), axis=1) > 0).all()  # larger m -> larger F1


def test_rerun_reuses_chunks_and_resume_after_kill_matches(figure1, tmp_path, capsys):
    """A rerun in the same run dir computes nothing; losing chunks recomputes only them."""
    base = read_results(figure1 / "results.csv")
    job = tmp_path / "job"
    shutil.copytree(figure1, job)
    assert run_cli("experiment=figure1", f"hydra.run.dir={job}", "--quiet") == 0
    meta = json.loads((job / "metadata.json").read_text())
    assert (meta["computed"], meta["reused"]) == (0, 4)
    assert_frame_equal(read_results(job / "results.csv"), base)
    # simulate a kill after two of four chunks: drop the others' files and the results
    markers = sorted((job / "chunks").glob("*.json"))
    for m in markers[2:]:
        m.unlink()
        m.with_suffix(".csv").unlink()
    (job / "results.csv").unlink()
    assert run_cli("experiment=figure1", f"hydra.run.dir={job}", "--quiet") == 0
    meta = json.loads((job / "metadata.json").read_text())
    assert (meta["computed"], meta["reused"]) == (2, 2)
    assert_frame_equal(read_results(job / "results.csv"), base)


def test_chunking_does_not_change_the_table(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert run_cli(*SMALL, "chunk_cells=1", f"hydra.run.dir={a}") == 0
    assert run_cli(*SMALL, "chunk_cells=100", f"hydra.run.dir={b}") == 0
    ta, tb = (read_results(d / "results.csv") for d in (a, b))
    key = ["m", "p_d", "labeller", "metric"]
    assert json.loads((a / "metadata.json").read_text())["chunks"] == 6
    assert_frame_equal(ta.sort_values(key).reset_index(drop=True),
                       tb.sort_values(key).reset_index(drop=True))


def test_other_experiments_small(tmp_path):
    out = tmp_path / "pb"
    assert run_cli("experiment=panel_bias", "replicates=200", "grid.n_items=[200]",
                   "grid.panel_size=[3,5]", f"hydra.run.dir={out}", "--quiet") == 0
    t = read_results(out / "results.csv")
    theta = t[(t["metric"] == "theta") & (t["labeller"] == "expert")]
    top = theta[theta["stratum"] == "1.00"].set_index("panel_size")["mean"]
    assert (top < 1).all()  # unanimous panels: the true agreement is below 1
    assert np.abs(t["z"].dropna()).max() < 4
    assert (out / "panel_bias.png").is_file()
    out = tmp_path / "t1"
    assert run_cli("experiment=table1", "replicates=2000", "grid.p_d=[0.5,0.6,0.9]",
                   f"hydra.run.dir={out}", "--quiet") == 0
    t = read_results(out / "results.csv")
    tails = t[t["metric"] == "prob_accuracy_ge"]
    assert len(tails) == 3 * 2 * 2
    # Table 1's values are binomial tails: P(acc >= a) = binom.sf(ceil(a N) - 1, N, p_d)
    expert = tails[tails["labeller"] == "expert"]
    k = np.ceil(expert["threshold"] * expert["n_items"] - 1e-9) - 1
    exact = binom.sf(k, expert["n_items"], expert["p_d"])
    np.testing.assert_allclose(expert["expected"], exact, rtol=1e-9, atol=1e-12)
    row = expert.set_index(["p_d", "n_items", "threshold"])["expected"]
    assert round(row.loc[(0.6, 100, 0.5)], 2) == 0.98 and round(row.loc[(0.5, 10, 0.5)], 2) == 0.62
    assert np.abs(tails["z"].dropna()).max() < 4
    assert (out / "table1.png").is_file()


def test_model_labellers_from_the_config(tmp_path):
    out = tmp_path / "models"
    assert run_cli(*SMALL, "labellers=with_models", f"hydra.run.dir={out}") == 0
    t = read_results(out / "results.csv")
    acc = t[t["metric"] == "accuracy"].groupby("labeller")["expected"].unique()
    # A: accuracy 0.9; B: m = 0.1 -> 0.1 * 0.9 + 0.9 * 0.6, m = 0.5 -> 0.75
    assert acc["A"].tolist() == pytest.approx([0.9])
    assert sorted(acc["B"].tolist()) == pytest.approx([0.63, 0.75])
    assert np.abs(t["z"].dropna()).max() < 4
    marker = json.loads(next((out / "chunks").glob("*.json")).read_text())
    assert marker["kwargs"]["labellers"][2] == {"type": "Model", "accuracy": 0.9,
                                                "sensitivity": None, "specificity": None,
                                                "name": "A"}


def test_progress_bar_quiet_when_not_a_tty(tmp_path, capfd, monkeypatch):
    # the bar prints only after its 1 s delay, so an empty stderr alone proves little: record
    # whether the bar the job made was disabled, and read the capture once (a second
    # readouterr() is always empty)
    made = []

    def progress(*args, **kwargs):
        bar = real(*args, **kwargs)
        made.append(bar.disable)
        return bar

    real = _sweep_job._progress
    monkeypatch.setattr(_sweep_job, "_progress", progress)
    assert run_cli(*SMALL[:-1], f"hydra.run.dir={tmp_path / 'r'}") == 0
    assert made == [True]
    err = capfd.readouterr().err
    assert "cell/s" not in err and "%|" not in err


def test_an_unwritable_chunk_dir_is_one_line_exit_2(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    args = [*SMALL, f"hydra.run.dir={tmp_path / 'run'}"]
    assert run_cli(*args, f"chunk_dir={blocker}") == 2  # refused before anything runs
    assert capsys.readouterr().err.strip() == (f"labelvar: error: chunk_dir must be a directory, "
                                               f"got the file '{blocker}'")
    assert run_cli(*args, f"chunk_dir={blocker / 'chunks'}") == 2  # below a file: at run time
    err = capsys.readouterr().err.strip()
    assert err == f"labelvar: error: figure1: {blocker / 'chunks'}: Not a directory"
    assert "Traceback" not in err and len(err.splitlines()) == 1


def test_a_run_dir_that_cannot_be_created_is_one_line_exit_2(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert run_cli(*SMALL, f"hydra.run.dir={blocker / 'run'}") == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"labelvar: error: hydra.run.dir cannot be created: {blocker} is a file "
                   f"(got {blocker / 'run'})")
    assert run_cli("-m", *SMALL, f"hydra.sweep.dir={blocker}", "seed=1,2") == 2
    err = capsys.readouterr().err.strip()
    assert err == f"labelvar: error: hydra.sweep.dir cannot be created: {blocker} is a file"
    # a multirun only checks its sweep dir (its jobs go below it)
    assert run_cli("-m", *SMALL, f"hydra.run.dir={blocker}", "seed=1,2",
                   f"hydra.sweep.dir={tmp_path / 'multi'}") == 0
    assert sorted(p.name for p in (tmp_path / "multi").glob("*_*")) == ["0_figure1", "1_figure1"]


def test_multirun_flag_after_the_overrides_and_bad_options_are_one_line(tmp_path, capsys):
    assert run_cli(*SMALL, "seed=1,2", f"hydra.sweep.dir={tmp_path / 'multi'}", "-m") == 0
    assert sorted(p.name for p in (tmp_path / "multi").glob("*_*")) == ["0_figure1", "1_figure1"]
    capsys.readouterr()
    assert run_cli(*SMALL, "--bogus") == 2
    err = capsys.readouterr().err
    assert err.startswith("labelvar: error: unrecognized arguments: --bogus (labelvar sweep [-m]")
    assert len(err.strip().splitlines()) == 1


def test_what_the_engine_refuses_is_one_line_exit_2_before_or_while_running(tmp_path, capsys):
    # the engine's memory limit per cell: refused before anything runs
    with pytest.raises(ValueError, match=r"^replicates=1000000000 x 2 labellers x 2 strata "
                                         r"needs about 1.15 TB of memory"):
        sweep.check_overrides(["replicates=1000000000"])
    assert run_cli("replicates=1000000000", f"hydra.run.dir={tmp_path / 'a'}", "--quiet") == 2
    assert capsys.readouterr().err.startswith("labelvar: error: replicates=1000000000 x 2 ")
    assert not (tmp_path / "a").exists()
    with pytest.raises(ValueError, match=r"^a labeller table for grid.n_labels=100000 needs "
                                         r"about 320 GB"):
        sweep.check_overrides(["grid.n_labels=[100000]", "grid.p_d=[0.9]"])  # no MemoryError
    # a cell the engine refuses only when it gets there: one line, not Hydra's traceback
    args = ["model=panel", "grid.n_labels=[8]", "model.method=collapsed", "grid.panel_size=[30]",
            "grid.p_d=[]", "grid.theta=[0.9]", "grid.m=[0.5]", "grid.n_items=[10]", "replicates=10",
            "labellers.names=[expert,random,prior]", "output.plots=[]"]
    assert run_cli(*args, f"hydra.run.dir={tmp_path / 'b'}", "--quiet") == 2
    err = capsys.readouterr().err.strip()
    assert err == ("labelvar: error: figure1: method='collapsed' is not available for this cell "
                   "(outcome table of 8**4 x strata cells is too large, or the vote enumeration "
                   "is); use method='explicit'")
    assert json.loads((tmp_path / "b" / "metadata.json").read_text())["status"] == "running"
