"""Sweep plumbing: chunk plan, content-hash resume, atomic files, collect.

These tests run the job runner with a small stand-in engine that honours the
engine's contract (tidy table, a cell's stream keyed by its parameter values),
so they exercise the plumbing independently of the numba engine; the tests in
test_sweep_engine.py run the real engine end to end.
"""

from __future__ import annotations

import hashlib
import itertools
import json

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from labelvar._base._files import read_results, write_results
from labelvar.cli import _sweeps as sweep_cli
from labelvar.sweep import _job as _sweep_job
from labelvar.sweep import _job as sweep  # run_job, collect, plan_chunks, chunk_key ...
from labelvar.sweep._config import SweepConfig

# --------------------------------------------------------------------------- stand-in engine


def fake_engine(*, items, labellers, n_items, replicates, seed, thresholds, method="auto",
                progress=False, calls=None):
    """Binomial accuracy/recall per cell; the stream depends on the cell's values only."""
    mode, m, n_labels = items.mode, items.m, items.n_labels
    p_d = items.p_d if mode == "coin" else items.theta
    panel_size = [0] if mode == "coin" else items.panel_size
    if calls is not None:
        calls.append(len(p_d) * len(m) * len(n_items) * len(n_labels) * len(panel_size))
    rows = []
    for n, L, K, mm, p in itertools.product(n_items, n_labels, panel_size, m, p_d):
        key = json.dumps([seed, n, L, K, mm, p]).encode()
        rng = np.random.default_rng(int.from_bytes(hashlib.sha256(key).digest()[:8], "little"))
        for lab in labellers:
            q = p if lab == "expert" else 1.0 / L
            acc = rng.binomial(n, q, size=replicates) / n
            metrics = {"accuracy": (acc, q)}
            for a in thresholds:
                metrics[f"ge{a}"] = ((acc >= a).astype(float), np.nan)
            for name, (x, expected) in metrics.items():
                metric, thr = (("prob_accuracy_ge", float(name[2:])) if name.startswith("ge")
                               else (name, np.nan))
                se = x.std(ddof=1) / np.sqrt(replicates)
                rows.append(dict(p_d=p if mode == "coin" else np.nan,
                                 theta=p if mode == "panel" else np.nan, m=mm, n_items=n,
                                 n_labels=L, panel_size=K, mode=mode,
                                 labeller=lab, stratum="all", metric=metric, threshold=thr,
                                 mean=x.mean(), sd=x.std(ddof=1), se=se,
                                 q05=np.quantile(x, 0.05), q50=np.quantile(x, 0.5),
                                 q95=np.quantile(x, 0.95), expected=expected,
                                 z=(x.mean() - expected) / se if se > 0 else np.nan,
                                 replicates=replicates, seed=seed))
    return pd.DataFrame(rows)


class Interrupt(Exception):
    pass


def engine_dying_after(k):
    """An engine that completes k calls and then dies (a killed job)."""
    done = []

    def engine(**kw):
        if len(done) >= k:
            raise Interrupt("killed")
        done.append(1)
        return fake_engine(**kw)

    return engine


def small_cfg(**kw) -> SweepConfig:
    cfg = SweepConfig()
    cfg.grid.p_d = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    cfg.grid.m = [0.1, 0.5]
    cfg.grid.n_items = [20, 50]
    cfg.replicates = 300
    cfg.thresholds = [0.5, 0.8]
    cfg.chunk_cells = 6
    cfg.quiet = True
    cfg.output.plots = []
    for k, v in kw.items():
        setattr(cfg, k, v)
    return cfg


# --------------------------------------------------------------------------- chunk plan
@pytest.mark.parametrize("chunk_cells", [1, 2, 3, 5, 6, 7, 11, 12, 13, 24, 25, 1000])
def test_chunks_partition_the_grid(chunk_cells):
    cfg = small_cfg(chunk_cells=chunk_cells)
    cfg.grid.n_labels = [2, 3]
    chunks = sweep.plan_chunks(cfg)
    cells = [cell for c in chunks
             for cell in itertools.product(*(c.axes[a] for a in sweep.CELL_AXES))]
    grid = dict(vars(cfg.grid), panel_size=[0], theta=[None])  # a coin model: no panel, no theta
    full = list(itertools.product(*(grid[a] for a in sweep.CELL_AXES)))
    assert sorted(cells) == sorted(full)  # every cell exactly once
    assert len(cells) == len(set(cells)) == 48
    assert all(c.n_cells <= chunk_cells for c in chunks)
    # as few engine calls as the chunk size allows (within a factor 2 of the bound)
    assert len(chunks) <= 2 * -(-48 // chunk_cells)


def test_chunk_key_depends_on_what_changes_the_numbers():
    cfg = small_cfg()
    chunk = sweep.plan_chunks(cfg)[0]
    key = sweep.chunk_key(sweep.engine_kwargs(cfg, chunk), "csv")
    assert key == sweep.chunk_key(sweep.engine_kwargs(small_cfg(), chunk), "csv")
    for change in ({"seed": 1}, {"replicates": 301}, {"thresholds": [0.5]}):
        other = small_cfg(**change)
        assert sweep.chunk_key(sweep.engine_kwargs(other, chunk), "csv") != key
    assert sweep.chunk_key(sweep.engine_kwargs(cfg, chunk), "parquet") != key
    # integers and floats of the same value give the same key
    cfg2 = small_cfg()
    cfg2.grid.p_d = [1, 0.5]
    c2 = sweep.plan_chunks(cfg2)[0]
    assert sweep.engine_kwargs(cfg2, c2)["items"].p_d == [1.0, 0.5]


# --------------------------------------------------------------------------- job + resume
def test_job_writes_table_config_metadata(tmp_path):
    calls = []
    res = sweep.run_job(small_cfg(), tmp_path, engine=lambda **kw: fake_engine(**kw, calls=calls))
    n_chunks = len(sweep.plan_chunks(small_cfg()))
    assert res.computed == n_chunks == len(calls) == 4 and res.reused == 0
    assert sum(calls) == 24
    t = res.table
    assert len(t) == 24 * 2 * 3  # cells x labellers x (accuracy + 2 thresholds)
    assert_frame_equal(read_results(tmp_path / "results.csv"), t)
    meta = json.loads((tmp_path / "metadata.json").read_text())
    assert meta["seed"] == 0 and meta["computed"] == 4 and meta["reused"] == 0
    assert meta["versions"]["numpy"] == np.__version__
    assert "revision" in meta["git"]
    assert "replicates: 300" in (tmp_path / "config.yaml").read_text()
    assert not list(tmp_path.rglob("*.tmp"))  # atomic writes leave no temp files
    # the chunking does not change the numbers (a cell's stream is keyed by its values)
    one = sweep.run_job(small_cfg(chunk_cells=1000), tmp_path / "one", engine=fake_engine)
    key = ["n_items", "m", "p_d", "labeller", "metric", "threshold"]
    assert_frame_equal(one.table.sort_values(key).reset_index(drop=True),
                       t.sort_values(key).reset_index(drop=True))


def test_interrupted_job_resumes_only_missing_chunks(tmp_path):
    full = sweep.run_job(small_cfg(), tmp_path / "full", engine=fake_engine)
    job = tmp_path / "job"
    with pytest.raises(Interrupt):
        sweep.run_job(small_cfg(), job, engine=engine_dying_after(2))
    done = sorted(job.glob("chunks/*.csv"))
    assert len(done) == 2 and not (job / "results.csv").exists()
    mtimes = {p: p.stat().st_mtime_ns for p in done}
    calls = []
    res = sweep.run_job(small_cfg(), job, engine=lambda **kw: fake_engine(**kw, calls=calls))
    assert (res.computed, res.reused, len(calls)) == (2, 2, 2)
    assert {p: p.stat().st_mtime_ns for p in done} == mtimes  # reused files untouched
    assert_frame_equal(res.table, full.table)
    assert_frame_equal(read_results(job / "results.csv"),
                       read_results(tmp_path / "full" / "results.csv"))
    # a third run computes nothing
    again = sweep.run_job(small_cfg(), job, engine=engine_dying_after(0))
    assert (again.computed, again.reused) == (0, 4)


def test_torn_or_unmarked_chunks_are_recomputed(tmp_path):
    full = sweep.run_job(small_cfg(), tmp_path, engine=fake_engine)
    tables = sorted(tmp_path.glob("chunks/*.csv"))
    # a file whose marker is missing (killed between the two renames) ...
    tables[0].with_suffix(".json").unlink()
    # ... and a file whose content no longer matches its marker (torn/edited)
    tables[1].write_text(tables[1].read_text()[:200])
    res = sweep.run_job(small_cfg(), tmp_path, engine=fake_engine)
    assert (res.computed, res.reused) == (2, 2)
    assert_frame_equal(res.table, full.table)
    off = sweep.run_job(small_cfg(resume=False), tmp_path, engine=fake_engine)
    assert (off.computed, off.reused) == (4, 0)


def test_shared_chunk_dir_and_parquet(tmp_path):
    pytest.importorskip("pyarrow")
    cfg = small_cfg(chunk_dir=str(tmp_path / "cache"))
    cfg.output.format = "parquet"
    a = sweep.run_job(cfg, tmp_path / "a", engine=fake_engine)
    b = sweep.run_job(cfg, tmp_path / "b", engine=engine_dying_after(0))
    assert (b.computed, b.reused) == (0, 4)
    assert (tmp_path / "b" / "results.parquet").is_file()
    assert_frame_equal(a.table, b.table)
    csv = sweep.run_job(small_cfg(), tmp_path / "c", engine=fake_engine)
    assert_frame_equal(csv.table, a.table)  # CSV round-trips floats exactly


def test_invalid_config_is_refused_before_any_work(tmp_path):
    cfg = small_cfg()
    cfg.grid.m = [0.5, 1.5]
    with pytest.raises(ValueError, match=r"^grid\.m must be in \[0, 1\], got 1\.5$"):
        sweep.run_job(cfg, tmp_path, engine=engine_dying_after(0))
    assert not (tmp_path / "chunks").exists()


# --------------------------------------------------------------------------- collect
def test_collect_merges_jobs_in_order_and_refuses_missing(tmp_path):
    a = sweep.run_job(small_cfg(name="alpha"), tmp_path / "0_alpha", engine=fake_engine)
    cfg_b = small_cfg(name="beta", seed=7)
    cfg_b.grid.n_items = [30]
    b = sweep.run_job(cfg_b, tmp_path / "1_beta", engine=fake_engine)
    (tmp_path / "10_gamma" / ".hydra").mkdir(parents=True)  # a job that never finished
    with pytest.raises(ValueError, match="1 job.*10_gamma.*--allow-missing"):
        sweep.collect(tmp_path)
    merged, path = sweep.collect(tmp_path, allow_missing=True)
    assert path == tmp_path / "collected.csv"
    assert list(merged.columns[:2]) == ["experiment", "job"]
    assert merged["experiment"].tolist() == ["alpha"] * len(a.table) + ["beta"] * len(b.table)
    assert_frame_equal(merged.iloc[:len(a.table), 2:].reset_index(drop=True), a.table)
    assert_frame_equal(merged.iloc[len(a.table):, 2:].reset_index(drop=True), b.table)
    assert_frame_equal(read_results(path), merged)
    with pytest.raises(ValueError, match="have no complete results table"):
        sweep.collect(tmp_path / "10_gamma")
    # a job rerun into its directory and killed keeps an old table but says "running"
    cfg_b.resume = False
    with pytest.raises(Interrupt):
        sweep.run_job(cfg_b, tmp_path / "1_beta", engine=engine_dying_after(0))
    assert json.loads((tmp_path / "1_beta" / "metadata.json").read_text())["status"] == "running"
    with pytest.raises(ValueError, match=r"2 job\(s\) .* table \(1_beta, 10_gamma\)"):
        sweep.collect(tmp_path, out=tmp_path / "again.csv")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="no results.csv or results.parquet under"):
        sweep.collect(tmp_path / "empty")


def test_progress_bar_shows_on_a_terminal_unless_quiet(monkeypatch):
    class Tty:
        def isatty(self):
            return True

        def write(self, text):
            return len(text)

        def flush(self):
            pass

    monkeypatch.setattr("sys.stderr", Tty())
    with _sweep_job._progress(10, "x", quiet=False) as bar:
        assert not bar.disable
    with _sweep_job._progress(10, "x", quiet=True) as bar:
        assert bar.disable


def test_every_combination_of_a_large_sweep_is_checked_before_launch():
    """A bad job that only a combination of two non-first values makes is found, however
    many jobs the sweep has (checking each value once would miss it)."""
    from labelvar.cli._sweeps import check_overrides

    seeds = "seed=" + ",".join(str(s) for s in range(40))
    ok = ["model=panel", "grid.p_d=[]", "grid.n_labels=[3],[2]", "grid.theta=[0.6],[0.7]", seeds]
    assert check_overrides(ok) == 160
    bad = ["model=panel", "grid.p_d=[]", "grid.n_labels=[3],[2]", "grid.theta=[0.6],[0.4]", seeds]
    with pytest.raises(ValueError, match=r"got 0\.4 with n_labels=2 \(in the job .*"
                                         r"grid\.n_labels=\[2\].*grid\.theta=\[0\.4\]"):
        check_overrides(bad)


def test_the_panel_axis_is_grid_theta():
    """Under model.mode=panel the latent agreement is grid.theta; the old grid.p_d is refused
    naming the new spelling, and coin-model settings are refused under panel and back."""
    from labelvar.cli._sweeps import check_overrides

    with pytest.raises(ValueError, match=r"grid\.theta=\[0\.6,0\.9\] grid\.p_d=\[\]"):
        check_overrides(["model=panel", "grid.p_d=[0.6,0.9]"])
    with pytest.raises(ValueError, match=r"grid\.theta applies to model\.mode='panel'"):
        check_overrides(["grid.theta=[0.6]"])
    with pytest.raises(ValueError, match=r"grid\.panel_size applies to model\.mode='panel'"):
        check_overrides(["grid.panel_size=[3,5]"])
    assert check_overrides(["model=panel", "grid.p_d=[]", "grid.theta=[0.6,0.9]"]) == 1


def test_collect_refuses_a_truncated_or_edited_results_table(tmp_path):
    """718 of 1,056 rows plus one garbage row used to merge with exit 0."""
    sweep.run_job(small_cfg(name="alpha"), tmp_path / "0_alpha", engine=fake_engine)
    job = sweep.run_job(small_cfg(name="beta", seed=3), tmp_path / "1_beta", engine=fake_engine)
    meta = json.loads((job.out_dir / "metadata.json").read_text())
    assert meta["results"]["rows"] == len(job.table) and len(meta["results"]["sha256"]) == 64
    sweep.collect(tmp_path)  # intact: fine
    lines = job.results.read_text().splitlines()
    job.results.write_text("\n".join(lines[: len(lines) * 2 // 3]) + "\n0.5,garbage\n")
    with pytest.raises(ValueError, match="1_beta/results.csv is not the table its job wrote"):
        sweep.collect(tmp_path)


def test_collect_refuses_a_truncated_table_whose_metadata_was_deleted(tmp_path):
    """Fuzz: a job's results.csv cut mid-row with its metadata.json deleted was merged."""
    sweep.run_job(small_cfg(name="alpha"), tmp_path / "0_alpha", engine=fake_engine)
    job = sweep.run_job(small_cfg(name="beta", seed=3), tmp_path / "1_beta", engine=fake_engine)
    (job.out_dir / ".hydra").mkdir()  # a multirun's job directory
    text = job.results.read_text()
    job.results.write_text(text[: len(text) // 2])  # cut mid-row
    (job.out_dir / "metadata.json").unlink()
    with pytest.raises(ValueError, match=r"1_beta/results.csv: its job's metadata.json .* is "
                                         r"missing.*rerun the job"):
        sweep.collect(tmp_path)
    assert not (tmp_path / "collected.csv").exists()


@pytest.mark.parametrize("cut", ["mid-row", "short row"])
def test_collect_refuses_a_bare_table_cut_mid_row(tmp_path, cut):
    """A results table with no job around it (no record to check) must at least be whole."""
    write_results(pd.DataFrame({"mean": [0.5, 0.6], "n": [1, 2]}), tmp_path / "0_a" / "results.csv")
    path = write_results(pd.DataFrame({"mean": [0.7, 0.8], "n": [3, 4]}),
                         tmp_path / "1_b" / "results.csv")
    text = path.read_text()
    path.write_text(text[:-3] if cut == "mid-row" else text + "0.9\n")
    with pytest.raises(ValueError, match="1_b/results.csv (ends mid-row|line 4 has 1 fields)"):
        sweep.collect(tmp_path)


def test_stop_with_parent_watches_only_a_direct_child_of_the_sweep(monkeypatch):
    import os

    monkeypatch.setenv(_sweep_job.PARENT_ENV, str(os.getpid()))  # the sweep process itself
    assert _sweep_job.stop_with_parent() is False
    monkeypatch.setenv(_sweep_job.PARENT_ENV, "1")  # not our parent (a cluster job): no watch
    assert os.getppid() == 1 or _sweep_job.stop_with_parent() is False


def test_a_figure_that_fails_never_leaves_the_run_running(tmp_path, monkeypatch):
    from labelvar import plots

    def broken(table, **kwargs):
        raise RuntimeError("no display")

    monkeypatch.setattr(plots, "plot_figure1", broken)
    cfg = small_cfg(name="fig")
    cfg.output.plots = ["figure1"]
    res = sweep.run_job(cfg, tmp_path / "0_fig", engine=fake_engine)
    meta = json.loads((res.out_dir / "metadata.json").read_text())
    assert meta["status"] == "figures_failed" and meta["figure_error"] == "RuntimeError: no display"
    assert res.figure_error == "RuntimeError: no display" and res.results.is_file()
    merged, _ = sweep.collect(tmp_path)  # the table is complete: collect takes it
    assert len(merged) == len(res.table)


def test_extra_grid_axes_get_one_figure_each(tmp_path):
    """The sweeps guide's example varies N as well as p_d and m: one Figure 1 per N."""
    cfg = small_cfg(name="fig")
    cfg.output.plots = ["figure1"]
    cfg.output.figure_formats = ["png"]
    res = sweep.run_job(cfg, tmp_path / "job", engine=fake_engine)
    assert res.figure_error is None
    assert sorted(p.name for p in res.figures) == ["figure1_n_items=20.png",
                                                    "figure1_n_items=50.png"]
    assert json.loads((res.out_dir / "metadata.json").read_text())["status"] == "complete"


def test_two_runs_into_one_job_directory_never_interleave(tmp_path):
    """While one run holds a job directory, a second run is refused at once (one line)."""
    from labelvar._base._files import directory_lock

    job = tmp_path / "job"
    with directory_lock(job):
        with pytest.raises(FileExistsError, match="another run is writing to .*job"):
            sweep.run_job(small_cfg(seed=1), job, engine=fake_engine)
    assert not (job / "results.csv").exists()
    res = sweep.run_job(small_cfg(seed=1), job, engine=fake_engine)  # free again
    assert json.loads((job / "metadata.json").read_text())["seed"] == 1
    assert res.results.is_file()


def test_the_table_is_the_same_however_the_grid_is_chunked(tmp_path):
    # the real engine orders a call's cells p_d first; the merged table must not show it
    tables = []
    for chunk_cells in (1, 3, 1000):
        cfg = small_cfg(chunk_cells=chunk_cells, replicates=50, thresholds=[])
        cfg.grid.p_d, cfg.grid.m, cfg.grid.n_items = [0.9, 0.6, 0.75], [0.5, 0.1], [30, 20]
        tables.append(sweep.run_job(cfg, tmp_path / str(chunk_cells)).table)
    for t in tables[1:]:
        assert_frame_equal(t, tables[0])
    cells = tables[0].drop_duplicates(["n_items", "m", "p_d"])[["n_items", "m", "p_d"]]
    assert cells.values.tolist() == [[n, m, p] for n in (30, 20) for m in (0.5, 0.1)
                                     for p in (0.9, 0.6, 0.75)]  # grid order, as configured


@pytest.mark.parametrize("file, text, message", [
    ("metadata.json", "{bad json", "1_b/metadata.json is not a job's metadata"),
    ("metadata.json", "[1, 2]", "1_b/metadata.json is not a job's metadata"),
    ("results.csv", 'p_d,"unclosed\n', r"1_b/results.csv is not a readable results table \("),
    ("results.csv", "", r"1_b/results.csv is not a readable results table \(No columns"),
])
def test_collect_names_the_file_it_cannot_read(tmp_path, file, text, message):
    sweep.run_job(small_cfg(name="a"), tmp_path / "0_a", engine=fake_engine)
    sweep.run_job(small_cfg(name="b"), tmp_path / "1_b", engine=fake_engine)
    if file == "results.csv":  # an old job without metadata: nothing to check it against
        (tmp_path / "1_b" / "metadata.json").unlink()
    (tmp_path / "1_b" / file).write_text(text)
    with pytest.raises(ValueError, match=f"^{message}.*rerun the job$"):
        sweep.collect(tmp_path)
    assert not (tmp_path / "collected.csv").exists()


def test_panel_bias_over_several_theta_draws_one_figure_per_theta(tmp_path):
    """panel_bias draws one theta; the others are split like any axis a figure does not show."""
    cfg = small_cfg(name="pb", replicates=50, thresholds=[])
    cfg.model.mode = "panel"
    cfg.grid.p_d, cfg.grid.theta = [], [0.6, 0.9]
    cfg.grid.m, cfg.grid.n_items, cfg.grid.panel_size = [0.5], [20], [3, 5]
    cfg.output.plots, cfg.output.figure_formats = ["panel_bias"], ["png"]
    res = sweep.run_job(cfg, tmp_path / "job")
    assert res.figure_error is None
    assert sorted(p.name for p in res.figures) == ["panel_bias_theta=0.6.png",
                                                    "panel_bias_theta=0.9.png"]
    assert res.table["p_d"].isna().all() and set(res.table["theta"]) == {0.6, 0.9}
    # Figure 1 of a panel grid draws against its theta (the modal label's probability)
    cfg.output.plots, cfg.grid.panel_size = ["figure1"], [3]
    res = sweep.run_job(cfg, tmp_path / "fig1")
    assert res.figure_error is None and [p.name for p in res.figures] == ["figure1.png"]


@pytest.mark.parametrize("change, message", [
    ({"plots": ["panel_bias"]}, "'panel_bias' needs model.mode='panel'"),
    ({"plots": ["table1"], "thresholds": []}, "'table1' draws P(accuracy >= a): give thresholds"),
    ({"plots": ["table1"], "names": ["random"]}, "'table1' draws the labeller 'expert', not in"),
    ({"plots": ["figure1"], "names": ["prior"]},
     "'figure1' draws the labeller 'expert' or 'random', not in labellers.names"),
    ({"plots": ["figure1"], "prior": True}, "'figure1' draws against grid.p_d, which model"),
])
def test_a_figure_the_table_cannot_give_is_refused_before_the_run(tmp_path, change, message):
    cfg = small_cfg()
    cfg.output.plots = change["plots"]
    cfg.thresholds = change.get("thresholds", cfg.thresholds)
    cfg.labellers.names = change.get("names", cfg.labellers.names)
    if change.get("prior"):
        from labelvar.sweep._config import ThetaPriorConfig

        cfg.model.mode, cfg.model.theta_prior, cfg.grid.p_d = "panel", ThetaPriorConfig(), []
    with pytest.raises(ValueError) as info:
        sweep.run_job(cfg, tmp_path / "job", engine=fake_engine)
    assert str(info.value).startswith(f"output.plots: {message}")
    assert str(info.value).endswith("; choose other plots or output.plots=[]")
    assert not (tmp_path / "job").exists()  # nothing ran


@pytest.mark.parametrize("marker", ["[1]", '"text"', "null", "{bad"])
def test_a_chunk_marker_that_is_not_a_json_object_means_recompute(tmp_path, marker):
    full = sweep.run_job(small_cfg(), tmp_path, engine=fake_engine)
    markers = sorted(tmp_path.glob("chunks/*.json"))
    markers[0].write_text(marker)
    res = sweep.run_job(small_cfg(), tmp_path, engine=fake_engine)
    assert (res.computed, res.reused) == (1, 3)
    assert_frame_equal(res.table, full.table)
    assert json.loads(markers[0].read_text())["sha256"]  # rewritten


def test_collect_takes_the_table_the_job_recorded_and_never_overwrites_one(tmp_path):
    job = tmp_path / "0_a"
    sweep.run_job(small_cfg(name="a"), job, engine=fake_engine)  # results.csv ...
    cfg = small_cfg(name="a")
    cfg.grid.n_items = [20]
    cfg.output.format = "parquet"
    res = sweep.run_job(cfg, job, engine=fake_engine)  # ... then results.parquet, fewer rows
    merged, _ = sweep.collect(tmp_path)
    assert_frame_equal(merged.iloc[:, 2:], res.table)
    assert len(merged) == len(res.table) == 12 * 2 * 3
    before = {p.name: p.read_bytes() for p in job.glob("results.*")}
    for name in before:
        with pytest.raises(ValueError, match=r"^out must not be a job's results table"):
            sweep.collect(tmp_path, out=job / name)
    assert {p.name: p.read_bytes() for p in job.glob("results.*")} == before


@pytest.mark.parametrize("call, message", [
    (lambda d: sweep.run_job(small_cfg(), None), "out_dir must be a path (str or os.PathLike), "
                                                  "got None"),
    (lambda d: sweep.run_job(small_cfg(), 5), "out_dir must be a path (str or os.PathLike), got 5"),
    (lambda d: sweep.collect(None), "sweep_dir must be a path (str or os.PathLike), got None"),
    (lambda d: sweep.collect(d, out=5), "out must be a path (str or os.PathLike), got 5"),
    (lambda d: sweep.plan_chunks(None), "the config must be a labelvar.sweep.SweepConfig, "
                                        "got None"),
    (lambda d: sweep_cli.check_overrides("grid.m=[0.5]"),
     "overrides must be a list of 'key=value' strings, got 'grid.m=[0.5]'"),
    (lambda d: sweep_cli.check_overrides([5]), "overrides must be a list of 'key=value' strings, "
                                           "got [5]"),
])
def test_python_api_arguments_of_the_wrong_type_are_value_errors(tmp_path, call, message):
    sweep.run_job(small_cfg(), tmp_path / "0_a", engine=fake_engine)
    with pytest.raises(ValueError) as info:
        call(tmp_path)
    assert str(info.value) == message


def test_a_sweep_without_multirun_or_over_an_interval_is_one_line():
    with pytest.raises(ValueError, match=r"^seed=1,2 gives several values: add -m"):
        sweep_cli.check_overrides(["grid=small", "seed=1,2"], multirun=False)
    assert sweep_cli.check_overrides(["grid=small", "seed=1,2"], multirun=True) == 2
    with pytest.raises(ValueError, match=r"^seed=interval\(0,1\): Hydra's basic sweeper takes "
                                         r"values"):
        sweep_cli.check_overrides(["grid=small", "seed=interval(0,1)"], multirun=True)


def test_a_config_of_numpy_values_and_tuples_runs_like_plain_lists(tmp_path):
    # (passed validate, computed every chunk, then failed writing config.yaml: OmegaConf
    # takes no ndarray / numpy scalar; the job was left "running")
    plain = sweep.run_job(small_cfg(), tmp_path / "plain", engine=fake_engine)
    cfg = small_cfg(replicates=np.int64(300), seed=np.int64(0), chunk_cells=6.0)
    cfg.grid.p_d = np.array(cfg.grid.p_d)
    cfg.grid.m = tuple(np.float64(m) for m in cfg.grid.m)
    cfg.grid.n_items = [np.int64(n) for n in cfg.grid.n_items]
    res = sweep.run_job(cfg, tmp_path / "numpy", engine=fake_engine)
    assert (res.computed, res.reused) == (plain.computed, 0)
    assert_frame_equal(res.table, plain.table)
    assert (tmp_path / "numpy" / "config.yaml").read_text() == \
        (tmp_path / "plain" / "config.yaml").read_text()
    meta = json.loads((tmp_path / "numpy" / "metadata.json").read_text())
    assert meta["status"] == "complete"
    assert meta["config"] == json.loads((tmp_path / "plain" / "metadata.json").read_text())["config"]
    # the same chunk files: a rerun of the plain config into the numpy job reuses them all
    again = sweep.run_job(small_cfg(), tmp_path / "numpy", engine=fake_engine)
    assert (again.computed, again.reused) == (0, plain.computed)


def test_collect_orders_jobs_of_several_multiruns_by_folder_then_number(tmp_path):
    for run, names in (("run_b", ("0_x", "1_y", "10_z", "2_w")), ("run_a", ("1_y", "0_x"))):
        for name in names:
            job = tmp_path / run / name
            write_results(pd.DataFrame({"mean": [0.5]}), job / "results.csv")
    merged, _ = sweep.collect(tmp_path)
    assert merged["job"].tolist() == ["run_a/0_x", "run_a/1_y", "run_b/0_x", "run_b/1_y",
                                      "run_b/2_w", "run_b/10_z"]


# --------------------------------------------------------------------------- command line
TINY = ["grid.p_d=[0.6,0.9]", "grid.m=[0.5]", "grid.n_items=[20]", "replicates=50",
        "output.figure_formats=[png]", "quiet=true"]


@pytest.fixture
def broken_figure1(monkeypatch):
    """The stand-in engine, and a Figure 1 that fails while drawing (as on a broken backend)."""
    from labelvar import plots

    def broken(table, **kwargs):
        raise RuntimeError("no display")

    monkeypatch.setattr(_sweep_job, "_default_engine", lambda: fake_engine)
    monkeypatch.setattr(plots, "plot_figure1", broken)


def test_figures_that_fail_exit_1_and_keep_the_complete_table(tmp_path, capsys, broken_figure1):
    from labelvar import cli

    run = tmp_path / "run"
    assert cli.main(["sweep", *TINY, f"hydra.run.dir={run}"]) == 1
    out, err = capsys.readouterr()
    assert err.strip() == (f"labelvar: error: figure1: figures failed (RuntimeError: no display);"
                           f" the table is complete: {run / 'results.csv'}")
    assert f"figure1: table {run / 'results.csv'}" in out
    table = read_results(run / "results.csv")
    assert len(table) == 2 * 2  # cells x labellers (accuracy only, in the stand-in): all rows
    meta = json.loads((run / "metadata.json").read_text())
    assert meta["status"] == "figures_failed" and meta["figure_error"] == "RuntimeError: no display"
    assert meta["results"]["rows"] == len(table) and meta["files"] == ["results.csv"]
    assert (run / "config.yaml").is_file() and not list(run.glob("*.png"))


def test_a_multirun_runs_every_job_then_exits_1_if_figures_failed(tmp_path, capsys,
                                                                   broken_figure1):
    from labelvar import cli

    multi = tmp_path / "multi"
    assert cli.main(["sweep", "-m", *TINY, "seed=1,2", f"hydra.sweep.dir={multi}"]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    jobs = [multi / "0_figure1", multi / "1_figure1"]
    assert lines == [f"labelvar: error: figure1: figures failed (RuntimeError: no display); the "
                     f"table is complete: {job / 'results.csv'}" for job in jobs]
    for job in jobs:  # the second job ran although the first one's figures failed
        assert json.loads((job / "metadata.json").read_text())["status"] == "figures_failed"
    merged, _ = sweep.collect(multi)
    assert merged["job"].unique().tolist() == ["0_figure1", "1_figure1"]


def test_a_multirun_job_outside_cli_main_makes_hydra_exit_1_after_every_job(
        tmp_path, capsys, monkeypatch, broken_figure1):
    """A job in a launcher's own process (joblib, submitit) cannot count itself in cli_main's
    process: it raises Hydra's compact error, and Hydra exits 1 once every job has run."""
    import logging
    import sys

    from hydra.core.global_hydra import GlobalHydra

    multi = tmp_path / "multi"
    monkeypatch.setattr(sys, "argv", ["labelvar", "-m", *TINY, "seed=1,2",
                                      f"hydra.sweep.dir={multi}"])
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    GlobalHydra.instance().clear()
    try:
        with pytest.raises(SystemExit) as info:
            sweep_cli._hydra_app()()  # (not through cli_main, as in a launcher's process)
    finally:
        GlobalHydra.instance().clear()
        for handler in [h for h in root.handlers if h not in handlers]:
            root.removeHandler(handler)
            handler.close()
        root.setLevel(level)
    assert info.value.code == 1
    lines = capsys.readouterr().err.splitlines()
    assert sweep_cli._FIGURES_FAILED in lines and "Traceback" not in "\n".join(lines)
    for job in ("0_figure1", "1_figure1"):
        assert json.loads((multi / job / "metadata.json").read_text())["status"] == \
            "figures_failed"


def test_a_run_whose_figures_are_drawn_exits_0(tmp_path, capsys, monkeypatch):
    from labelvar import cli

    monkeypatch.setattr(_sweep_job, "_default_engine", lambda: fake_engine)
    run = tmp_path / "run"
    assert cli.main(["sweep", *TINY, f"hydra.run.dir={run}"]) == 0
    assert capsys.readouterr().err == ""
    assert json.loads((run / "metadata.json").read_text())["files"] == ["results.csv",
                                                                         "figure1.png"]


# --------------------------------------------------------------------------- a reused run dir
def _figure_cfg(n_items, plots=("figure1",)):
    cfg = small_cfg(name="fig", replicates=50, thresholds=[])
    cfg.grid.p_d, cfg.grid.m, cfg.grid.n_items = [0.6, 0.9], [0.5], list(n_items)
    cfg.output.plots, cfg.output.figure_formats = list(plots), ["png", "svg"]
    return cfg


def _listing(job):
    return sorted(p.name for p in job.iterdir() if p.is_file() and p.name != ".lock")


def test_a_reused_run_dir_keeps_no_figure_of_an_earlier_grid(tmp_path):
    job = tmp_path / "job"
    first = sweep.run_job(_figure_cfg([20, 50]), job, engine=fake_engine)
    assert sorted(p.name for p in first.figures) == [
        "figure1_n_items=20.png", "figure1_n_items=20.svg",
        "figure1_n_items=50.png", "figure1_n_items=50.svg"]
    (job / "notes.txt").write_text("mine")  # files the user put there stay, even figure-like
    (job / "figure1_mine.png").write_bytes(b"mine")
    res = sweep.run_job(_figure_cfg([20]), job, engine=fake_engine)  # one N: one figure
    assert _listing(job) == ["config.yaml", "figure1.png", "figure1.svg", "figure1_mine.png",
                             "metadata.json", "notes.txt", "results.csv"]
    meta = json.loads((job / "metadata.json").read_text())
    assert meta["files"] == ["results.csv", "figure1.png", "figure1.svg"]
    assert [p.name for p in res.figures] == ["figure1.png", "figure1.svg"]
    assert (job / "notes.txt").read_text() == "mine"
    assert (job / "figure1_mine.png").read_bytes() == b"mine"
    sweep.run_job(_figure_cfg([20], plots=()), job, engine=fake_engine)  # no figures at all
    assert not list(job.glob("figure1.*"))
    assert json.loads((job / "metadata.json").read_text())["files"] == ["results.csv"]
    assert (job / "figure1_mine.png").read_bytes() == b"mine"


def test_figures_of_a_run_killed_while_drawing_are_removed_by_the_next_run(tmp_path, monkeypatch):
    from labelvar import plots

    job = tmp_path / "job"
    sweep.run_job(_figure_cfg([20, 50]), job, engine=fake_engine)
    draw, drawn = plots.plot_figure1, []

    class Killed(BaseException):  # (not an Exception: nothing below the process catches it)
        pass

    def killed_after_one(table, **kwargs):  # killed while drawing the second figure
        if drawn:
            raise Killed
        drawn.append(1)
        return draw(table, **kwargs)

    monkeypatch.setattr(plots, "plot_figure1", killed_after_one)
    with pytest.raises(Killed):
        sweep.run_job(_figure_cfg([20, 30]), job, engine=fake_engine)
    assert (job / "figure1_n_items=20.png").is_file()  # drawn by the killed run
    meta = json.loads((job / "metadata.json").read_text())
    assert meta["status"] == "running"
    # the killed run listed what it was about to write beside what the run before wrote
    assert {"figure1_n_items=30.png", "figure1_n_items=50.png"} <= set(meta["files"])
    monkeypatch.setattr(plots, "plot_figure1", draw)
    sweep.run_job(_figure_cfg([40]), job, engine=fake_engine)
    assert sorted(p.name for p in job.glob("figure1*")) == ["figure1.png", "figure1.svg"]


def test_figures_drawn_before_one_failed_are_kept_and_listed(tmp_path, monkeypatch):
    from labelvar import plots

    job = tmp_path / "job"
    sweep.run_job(_figure_cfg([20, 50]), job, engine=fake_engine)
    draw = plots.plot_figure1

    def fails_for_n_50(table, **kwargs):
        if 50 in set(table["n_items"]):
            raise RuntimeError("no display")
        return draw(table, **kwargs)

    monkeypatch.setattr(plots, "plot_figure1", fails_for_n_50)
    res = sweep.run_job(_figure_cfg([20, 50]), job, engine=fake_engine)
    assert res.figure_error == "RuntimeError: no display"
    assert [p.name for p in res.figures] == ["figure1_n_items=20.png", "figure1_n_items=20.svg"]
    meta = json.loads((job / "metadata.json").read_text())
    assert meta["status"] == "figures_failed"
    assert meta["files"] == ["results.csv", "figure1_n_items=20.png", "figure1_n_items=20.svg"]
    # the earlier run's N = 50 figure does not belong to this table: gone
    assert sorted(p.name for p in job.glob("figure1*")) == ["figure1_n_items=20.png",
                                                            "figure1_n_items=20.svg"]


def test_only_figure_files_listed_directly_in_the_run_dir_are_ever_removed(tmp_path):
    job = tmp_path / "job"
    sweep.run_job(_figure_cfg([20]), job, engine=fake_engine)
    (tmp_path / "figure1.png").write_bytes(b"outside")
    meta_path = job / "metadata.json"
    meta = json.loads(meta_path.read_text())
    meta["files"] += ["../figure1.png", "config.yaml", "notes.txt", 5, "chunks", "table1.png"]
    meta_path.write_text(json.dumps(meta))
    (job / "notes.txt").write_text("mine")
    (job / "table1.png").mkdir()  # (a folder, whatever its name, is never removed)
    sweep.run_job(_figure_cfg([20], plots=()), job, engine=fake_engine)
    assert (tmp_path / "figure1.png").read_bytes() == b"outside"
    assert {"config.yaml", "notes.txt"} <= set(_listing(job)) and (job / "chunks").is_dir()
    assert (job / "table1.png").is_dir() and not list(job.glob("figure1.*"))


# --------------------------------------------------------------------------- engine check
def test_the_engine_checks_a_job_once_before_and_inside_hydra(tmp_path, monkeypatch):
    from labelvar import cli
    from labelvar.engine._spec import _Spec

    build, calls = _Spec.build, []
    monkeypatch.setattr(_Spec, "build", lambda *a, **kw: calls.append(1) or build(*a, **kw))
    monkeypatch.setattr(_sweep_job, "_default_engine", lambda: fake_engine)
    assert cli.main(["sweep", *TINY, "output.plots=[]", "seed=7",
                     f"hydra.run.dir={tmp_path / 'run'}"]) == 0
    assert calls == [1]  # check_overrides checked it; run_job did not build it again
    # a changed memory limit is a different check
    cfg = small_cfg(seed=7)
    sweep.check_engine_limits(cfg)
    monkeypatch.setenv("LABELVAR_MEMORY_LIMIT", "1KB")
    with pytest.raises(ValueError, match="more than the limit of 1 KB"):
        sweep.check_engine_limits(cfg)


def test_collect_on_a_file_says_it_is_a_file(tmp_path, capsys):
    """Issue 31: `labelvar collect FILE` said "not found"; it names the file as a file."""
    from labelvar import cli

    table = tmp_path / "results.csv"
    table.write_text("p_d,mean\n0.5,0.5\n")
    with pytest.raises(ValueError, match=r"^sweep_dir must be a directory .*got the file "):
        sweep.collect(table)
    assert cli.main(["collect", str(table)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "got the file" in err and "not found" not in err


def test_engine_sources_of_the_chunk_key_exist_and_cover_the_numbers():
    """Every source the chunk key hashes exists (a moved file once went unhashed, so an edit
    of the panel maths reused old chunks), and the modules that make a sweep's numbers are
    among them."""
    from pathlib import Path

    from labelvar.sweep import _chunks

    root = Path(_chunks.__file__).resolve().parents[1]
    hashed = set()
    for name in _chunks._ENGINE_SOURCES:
        path = root / name
        assert path.exists(), name
        hashed |= {p.relative_to(root).as_posix()
                   for p in (sorted(path.glob("*.py")) if path.is_dir() else [path])}
    for module in ("engine._simulate", "votes._panel", "votes._models", "votes._priors",
                   "votes._item_priors", "votes._raters", "metrics._scores", "_kernels.explicit",
                   "analytic._closed_forms", "_base._seeding"):
        assert module.replace(".", "/") + ".py" in hashed, module
