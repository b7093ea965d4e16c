"""End to end (slow): Hydra multiruns through the joblib and submitit launchers, collect,
and a real `labelvar sweep` process killed midway and resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from labelvar import cli
from labelvar._base._files import read_results

pytestmark = pytest.mark.slow

SMALL = ["grid=small", "replicates=400", "output.plots=[]", "quiet=true"]


def run_cli(*args) -> int:
    return cli.main(["sweep", *args])


# --------------------------------------------------------------------------- launchers
def _multirun(tmp_path, launcher, *extra):
    sweep_dir = tmp_path / launcher
    code = run_cli("-m", "experiment=figure1,table1", *SMALL, "grid.p_d=[0.5,1.0]",
                   f"hydra/launcher={launcher}", f"hydra.sweep.dir={sweep_dir}", *extra)
    assert code == 0
    return sweep_dir


def _check_collected(sweep_dir, capsys):
    capsys.readouterr()
    assert cli.main(["collect", str(sweep_dir)]) == 0
    out = capsys.readouterr().out
    assert "collected.csv" in out and "from 2 jobs" in out
    merged = read_results(sweep_dir / "collected.csv")
    assert merged["experiment"].unique().tolist() == ["figure1", "table1"]
    for job in ("0_figure1", "1_table1"):
        own = read_results(sweep_dir / job / "results.csv")
        part = merged[merged["job"] == job].drop(columns=["experiment", "job"])
        assert_frame_equal(part.reset_index(drop=True), own)
    assert "prob_accuracy_ge" in set(merged.loc[merged["experiment"] == "table1", "metric"])
    return merged


def test_joblib_multirun_and_collect(tmp_path, capsys):
    pytest.importorskip("hydra_plugins.hydra_joblib_launcher")
    sweep_dir = _multirun(tmp_path, "joblib", "hydra.launcher.n_jobs=2")
    _check_collected(sweep_dir, capsys)


def test_submitit_local_multirun_and_collect(tmp_path, capsys):
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    sweep_dir = _multirun(tmp_path, "submitit_local", "hydra.launcher.timeout_min=10")
    assert (sweep_dir / ".submitit").is_dir()  # the jobs really went through submitit
    _check_collected(sweep_dir, capsys)


def test_sigkill_midway_then_resume(tmp_path):
    """Kill a real `labelvar sweep` process with SIGKILL after some chunks, then rerun."""
    args = ["sweep", "experiment=figure1", "replicates=20000", "chunk_cells=2",
            "output.plots=[]", "--quiet"]
    exe = Path(sys.executable).with_name("labelvar")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "labelvar.cli"]
    ref = tmp_path / "ref"
    subprocess.run(cmd + args + [f"hydra.run.dir={ref}"], check=True, capture_output=True,
                   timeout=600)
    job = tmp_path / "job"
    proc = subprocess.Popen(cmd + args + [f"hydra.run.dir={job}"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while len(list((job / "chunks").glob("*.json"))) < 3 and time.time() < deadline:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done = len(list((job / "chunks").glob("*.json")))
    total = json.loads((ref / "metadata.json").read_text())["chunks"]
    assert total == 4 * 6  # m values x pieces of 2 p_d values
    assert 3 <= done < total and not (job / "results.csv").exists()
    subprocess.run(cmd + args + [f"hydra.run.dir={job}"], check=True, capture_output=True,
                   timeout=600)
    meta = json.loads((job / "metadata.json").read_text())
    assert (meta["reused"], meta["computed"]) == (done, total - done)
    assert_frame_equal(pd.read_csv(job / "results.csv"), pd.read_csv(ref / "results.csv"))


def test_joblib_workers_stop_when_the_sweep_process_is_killed(tmp_path):
    """SIGKILL the `labelvar sweep -m` process of a joblib multirun: its workers stop writing
    (before: they went on computing every chunk), and a rerun reuses every chunk they left."""
    pytest.importorskip("hydra_plugins.hydra_joblib_launcher")
    sweep_dir = tmp_path / "multi"
    args = ["sweep", "-m", "experiment=figure1,table1", "replicates=20000", "chunk_cells=2",
            "output.plots=[]", "--quiet", "hydra/launcher=joblib", "hydra.launcher.n_jobs=2",
            f"hydra.sweep.dir={sweep_dir}"]
    exe = Path(sys.executable).with_name("labelvar")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "labelvar.cli"]

    def markers():
        return sorted(p for p in sweep_dir.glob("*/chunks/*.json"))

    proc = subprocess.Popen(cmd + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while len(markers()) < 3 and time.time() < deadline:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(3.0)  # the watchers poll every 0.2 s; a chunk being written is finished
    left = markers()
    time.sleep(6.0)
    assert markers() == left, "workers went on writing after the sweep process died"
    assert 3 <= len(left)
    for marker in left:  # every chunk left is whole: its table matches its marker
        info = json.loads(marker.read_text())
        assert len(read_results(marker.with_name(info["file"]))) == info["rows"]
    subprocess.run(cmd + args, check=True, capture_output=True, timeout=900)
    reused = sum(json.loads((d / "metadata.json").read_text())["reused"]
                 for d in sweep_dir.iterdir() if (d / "metadata.json").is_file())
    assert reused == len(left)
