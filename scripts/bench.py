#!/usr/bin/env python
"""Benchmark of the engine, the command line and stratify. Not a test: it prints numbers.

    .venv/bin/python scripts/bench.py            # full run (~1-2 min)
    .venv/bin/python scripts/bench.py --quick    # fewer replicates

Workload (as in /work/shared/PERFORMANCE.md): binary labels (L = 2), a panel
of K = 5 annotators per item + one expert + one random labeller, N = 1000
items, confusion counts per replicate overall and per observed-p_d stratum,
metrics per replicate. "item-replicates/s" = N x replicates / seconds.

Rows:
- numpy baseline: plain batched numpy (Generator.random in chunks of
  replicates, compare, sum, bincount), one thread.
- engine explicit: the vectorised L = 2 kernel, 1 and 2 threads.
- engine explicit, scalar L = 2 kernel (the one used for theta priors /
  Bernoulli positives / K > 7), 2 threads.
- engine generic L: the any-L kernel at L = 2, 4, 10, 2 threads.
- engine collapsed: counts drawn as multinomials per replicate (coin mode and
  panel mode with fixed theta), 1 thread, N = 1000 and N = 1e6.
- simulate() end to end (kernel + summary table) for the explicit path.
- warm second-process start: a fresh interpreter that imports labelvar and
  runs a small simulate() with the on-disk numba cache warm.

Kernel rows time the kernel call alone (median of several runs after a
warm-up) by handing simulate's cell runner timing wrappers around the
kernels. The machine is shared: absolute numbers are noisy, ratios from one
run are the figures to quote.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np

from labelvar._kernels.layout import Labellers, Strata, ThetaDraw
from labelvar.engine import _simulate as sim
from labelvar.engine import _tables
from labelvar.engine._items import Coin, Panel
from labelvar.engine._spec import _Spec
from labelvar.votes import _panel

REPO = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- numpy baseline
def numpy_panel(reps, n_items, panel_k, theta, m, rng, chunk_items=100_000):
    """Plain numpy, batched over replicates: same model and outputs as the engine.

    The fastest variant we found: float32 uniforms (as in PERFORMANCE.md's
    batched row; the engine uses 53-bit uniforms), chunks of ~1e5
    item-replicates so temporaries stay in cache, one bincount per labeller.
    """
    n_pos = int(round(m * n_items))
    c = np.arange(n_items) < n_pos
    tops = np.arange(-(-panel_k // 2), panel_k + 1)
    stratum_of_v = np.zeros(panel_k + 1, dtype=np.int64)
    for v in range(panel_k + 1):
        stratum_of_v[v] = np.searchsorted(tops, max(v, panel_k - v)) + 1
    n_strata = len(tops) + 1
    out = np.empty((reps, 2, n_strata, 4))  # accuracy, precision, recall, f1
    step = max(1, chunk_items // n_items)
    theta32 = np.float32(theta)
    for r0 in range(0, reps, step):
        rc = min(step, reps - r0)
        u = rng.random((panel_k + 3, rc, n_items), dtype=np.float32)
        v = (u[:panel_k] < theta32).sum(axis=0, dtype=np.int8)
        tie = u[panel_k] < 0.5
        truth = np.where(2 * v > panel_k, c, np.where(2 * v < panel_k, ~c, tie))
        expert = (u[panel_k + 1] < theta32) == c  # agrees with the modal label w.p. theta
        rand = u[panel_k + 2] < 0.5
        base = (np.arange(rc)[:, None] * n_strata + stratum_of_v[v]) * 4 + truth * 2
        for j, pred in enumerate((expert, rand)):
            conf = np.bincount((base + pred).ravel(), minlength=rc * n_strata * 4).reshape(
                rc, n_strata, 4)
            conf[:, 0, :] = conf[:, 1:, :].sum(axis=1)
            tn, fp, fn, tp = (conf[..., k].astype(float) for k in range(4))
            n = tn + fp + fn + tp
            with np.errstate(invalid="ignore", divide="ignore"):
                out[r0:r0 + rc, j, :, 0] = (tp + tn) / n
                out[r0:r0 + rc, j, :, 1] = np.where(tp + fp > 0, tp / (tp + fp), 0.0)
                out[r0:r0 + rc, j, :, 2] = np.where(tp + fn > 0, tp / (tp + fn), 0.0)
                out[r0:r0 + rc, j, :, 3] = np.where(tp + fp + fn > 0,
                                                    2 * tp / (2 * tp + fp + fn), 0.0)
    return out


# --------------------------------------------------------------------------- engine timing
class _Timed:
    """Wraps a kernel; remembers how long its last call took."""

    def __init__(self, fn):
        self.fn, self.seconds, self.calls = fn, 0.0, 0

    def __call__(self, *args):
        t = time.perf_counter()
        self.fn(*args)
        self.seconds = time.perf_counter() - t
        self.calls += 1


def time_kernel(runs=3, fast=True, **kw):
    """Median seconds of the kernel call that simulate() makes for one cell."""
    value, m, n_labels = kw.pop("p_d", 0.7), kw.pop("m", 0.5), kw.pop("n_labels", 2)
    panel_size = kw.pop("panel_size", 5)
    items = (Panel(theta=value, m=m, n_labels=n_labels, panel_size=panel_size)
             if kw.pop("mode", "panel") == "panel" else Coin(p_d=value, m=m, n_labels=n_labels))
    spec = _Spec.build(items, kw.pop("labellers", ("expert", "random")), kw.pop("n_items", 1000),
                       kw.pop("replicates"), 0, (), kw.pop("method", "explicit"))
    assert not kw, kw
    cell = spec.cells()[0]
    key = cell.key(spec)
    names = [f for f in sim.Kernels._fields if f != "parallel"]
    timed = {name: _Timed(getattr(sim.KERNELS[True], name)) for name in names}
    kern = sim.KERNELS[True]._replace(**timed)
    times = []
    for _ in range(runs + 1):  # first call: warm-up (JIT / cache load)
        sim._run_cell(cell, spec, key, kern, False, {"raw": False, "joint": False}, fast=fast)
        times.append(max(k.seconds for k in timed.values() if k.calls))
        for k in timed.values():
            k.calls = 0
    used = [name for name, k in timed.items() if k.seconds > 0]
    return statistics.median(times[1:]), used


def second_process(code, runs=5):
    env = dict(os.environ)
    times = []
    for _ in range(runs + 1):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=REPO)
        times.append(time.perf_counter() - t)
    return statistics.median(times[1:]), min(times[1:])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer replicates")
    ap.add_argument("--no-stratify", action="store_true",
                    help="skip the stratify rows (2e6-item file, minutes)")
    ap.add_argument("--docs", action="store_true",
                    help="also write this run's output into docs/guides/development.md's "
                         "benchmark section (between the bench markers)")
    ap.add_argument("--readers", action="store_true",
                    help="only the reader-study row (mrmc OR, jackknife AUC, 2 x 20 x 5,000)")
    ap.add_argument("--raters", action="store_true",
                    help="only the rater-model rows (fit_raters on 1e7 votes, DS vs crowd-kit)")
    ap.add_argument("--contention", action="store_true",
                    help="only the busy-machine row (plain DS on 1e6 votes, idle and beside "
                         "one competing process)")
    ap.add_argument("--judge", action="store_true",
                    help="only the alt-test row (alt_test with its references on 1e6 votes)")
    args = ap.parse_args(argv)
    if args.raters or args.readers or args.judge or args.contention:
        rows = (_rater_rows() + _ds_contention_rows() if args.raters else _readers_rows()
                if args.readers else _judge_rows() if args.judge else _ds_contention_rows())
        for what, value, target, verdict in rows:
            print(f"  {what}  {value}  {target}  {verdict}")
        print(f"load average: {os.getloadavg()[0]:.2f} (1 min)")
        return 0
    if args.docs:
        return _to_docs(lambda: main([a for a in (argv or sys.argv[1:]) if a != "--docs"]))
    scale = 0.25 if args.quick else 1.0
    n_items, panel_k, theta = 1000, 5, 0.7
    rows = []

    def add(name, threads, seconds, work, unit="item-replicates/s", note=""):
        rows.append((name, threads, work / seconds, unit, note))

    # numpy baseline (1 thread)
    reps_np = int(2000 * scale) or 50
    rng = np.random.default_rng(0)
    numpy_panel(20, n_items, panel_k, theta, 0.5, rng)
    t = time.perf_counter()
    numpy_panel(reps_np, n_items, panel_k, theta, 0.5, rng)
    t_np = time.perf_counter() - t
    add("numpy batched baseline", 1, t_np, reps_np * n_items)

    reps = int(20_000 * scale)
    for threads in (1, 2):
        numba.set_num_threads(threads)
        sec, used = time_kernel(replicates=reps)
        add("engine explicit L=2 (vectorised)", threads, sec, reps * n_items, note=used[0])
    numba.set_num_threads(2)
    sec, used = time_kernel(replicates=int(4000 * scale), fast=False)
    add("engine explicit L=2 (scalar kernel)", 2, sec, int(4000 * scale) * n_items,
        note=used[0])
    for lab in (2, 4, 10):
        r = int(2000 * scale)
        sec, used = time_kernel(replicates=r, n_labels=lab, p_d=0.7, fast=False,
                                labellers=("expert", "random")) if lab > 2 else (None, None)
        if lab == 2:  # force the generic kernel at L = 2 (K > 64 would; here call it directly)
            sec, used = _time_generic_l2(r)
        add(f"engine generic L={lab}", 2, sec, r * n_items, note=used[0])

    numba.set_num_threads(1)
    for n in (1000, 1_000_000):
        r = int(200_000 * scale)
        sec, used = time_kernel(replicates=r, mode="coin", method="collapsed", n_items=n)
        add(f"engine collapsed coin, N={n:g}", 1, sec, r, unit="replicates/s", note=used[0])
    r = int(50_000 * scale)
    sec, used = time_kernel(replicates=r, mode="panel", method="collapsed", n_items=1000)
    add("engine collapsed panel K=5, N=1000", 1, sec, r, unit="replicates/s", note=used[0])
    numba.set_num_threads(2)

    # end to end, including the summary table
    sim.simulate(Panel(theta=0.7), n_items=n_items, replicates=100, expected=False,
                 method="explicit")
    t = time.perf_counter()
    sim.simulate(Panel(theta=0.7), n_items=n_items, replicates=reps, expected=False,
                 method="explicit")
    add("simulate() explicit end to end", 2, time.perf_counter() - t, reps * n_items)

    small = ("from labelvar import Coin, simulate; "
             "simulate(Coin(p_d=0.8, m=0.3), n_items=100, replicates=1000, expected={})")
    base_med, base_min = second_process("pass")
    imp_med, imp_min = second_process("import numpy, numba, pandas")
    run_med, run_min = second_process(small.format(False))
    exp_med, exp_min = second_process(small.format(True))

    print(f"\nlabelvar engine benchmark (L=2, K={panel_k}, N={n_items}, theta={theta}; "
          f"{os.cpu_count()} cores; numba {numba.__version__}, numpy {np.__version__})")
    print(f"{'what':42s} {'thr':>3s} {'rate':>10s}  {'unit':20s} {'x numpy':>8s}  kernel")
    base = rows[0][2]
    for name, threads, rate, unit, note in rows:
        ratio = f"{rate / base:8.1f}" if unit.startswith("item") else f"{'':8s}"
        print(f"{name:42s} {threads:3d} {rate:10.3g}  {unit:20s} {ratio}  {note}")
    print("\nsecond process, warm cache (median / min of 5, seconds):")
    print(f"  python -c pass                               {base_med:.3f} / {base_min:.3f}")
    print(f"  import numpy, numba, pandas                  {imp_med:.3f} / {imp_min:.3f}")
    print(f"  import + simulate(1000 reps), expected=False {run_med:.3f} / {run_min:.3f}")
    print(f"  import + simulate(1000 reps), expected=True  {exp_med:.3f} / {exp_min:.3f}")
    fig1 = report_figure1_end_to_end()  # Figure 1 end to end (section below)
    report_design_snli()  # the README's planning example (section below)
    report_targets(base, scale, fig1, stratify=not args.no_stratify, quick=args.quick)
    report_scaling()
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f} (1 min). The machine is shared "
          "with other jobs: quote ratios from one run.")


def _time_generic_l2(reps, runs=3):
    """The any-L kernel at L = 2 (simulate uses it for K > 64), called directly."""
    from labelvar import _kernels as K

    kk = 5
    labels, sot = _panel.strata(kk, 2, "random")
    n_strata = 1 + len(labels)
    lab_kind = np.array([K.EXPERT, K.MATRIX], dtype=np.int64)
    lab_cum = np.cumsum(np.stack([np.eye(2), np.full((2, 2), 0.5)]), axis=2)
    out = np.empty((reps, 2, n_strata, K.N_FIELDS))
    times = []
    for _ in range(runs + 1):
        t = time.perf_counter()
        comp = _tables._composition_tables(2, kk, 0.7)
        K.explicit_generic(np.uint64(1), reps, 1000, 2, kk, True, np.array([0.5, 1.0]),
                           np.array([500, 500]), False,
                           ThetaDraw(K.THETA_FIXED, np.array([0.7]), np.ones(1)), comp, False,
                           np.zeros((1, 2, 2)), K.TIE_RANDOM,
                           Labellers(lab_kind, lab_cum, np.zeros(2)), Strata(sot, n_strata), out)
        times.append(time.perf_counter() - t)
    return statistics.median(times[1:]), ["generic"]


# --------------------------------------------------------------------------- Figure 1 end to end
def report_figure1_end_to_end(runs=3):
    """Time `labelvar sweep experiment=figure1` (default settings) as a user runs it.

    The command runs this checkout's code (``python -m labelvar.cli`` with its ``src``
    first on ``PYTHONPATH``), not an installed console script's. A warm-up run fills
    the numba cache; each timed run is a fresh process writing into a fresh run
    directory (no chunk reuse), so it pays imports, config composition and
    validation, the engine (44 cells x 10,000 replicates), the tables, the PNG + PDF
    figure and the interpreter's exit. Wall time is the target; the CPU time (user +
    sys of the child, all threads) is printed too, as it depends less on other jobs.
    Target: <= 3 s on 2 cores.
    """
    import json
    import resource
    import tempfile

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO / "src")] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    cmd = [sys.executable, "-m", "labelvar.cli"]
    times, cpu, meta = [], [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs + 1):
            out = Path(tmp) / f"run{i}"
            c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            subprocess.run(cmd + ["sweep", "experiment=figure1", f"hydra.run.dir={out}",
                                  "--quiet"], check=True, capture_output=True, env=env)
            c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            if i:
                times.append(time.perf_counter() - t)
                cpu.append(c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime)
                meta = json.loads((out / "metadata.json").read_text())
    print(f"\nFigure 1 end to end (labelvar sweep experiment=figure1, warm numba cache, "
          f"median / min of {runs}): {statistics.median(times):.2f} / {min(times):.2f} s wall, "
          f"{statistics.median(cpu):.2f} s CPU (load average {os.getloadavg()[0]:.1f}) "
          f"(target <= 3 s); last run inside the job: engine {meta['engine_seconds']:.2f} s, "
          f"figures {meta['figure_seconds']:.2f} s, job {meta['seconds']:.2f} s")
    return statistics.median(times)


# --------------------------------------------------------------------------- speed and memory targets
def _child(code, runs=1):
    """Run ``code`` in a fresh interpreter; (median wall seconds, its stdout)."""
    times, out = [], ""
    for _ in range(runs):
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                             text=True, cwd=REPO, env=dict(os.environ)).stdout
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


# peak memory from VmHWM: ru_maxrss survives exec, so a child forked from this (large)
# process would report the parent's peak
_TIMED = """
import time
{setup}
t = time.perf_counter()
{work}
sec = time.perf_counter() - t
hwm = [ln for ln in open("/proc/self/status") if ln.startswith("VmHWM")][0].split()[1]
print(sec, int(hwm) / 1024)
"""


def _timed_child(setup, work):
    """Seconds and peak RSS (MB) of ``work`` in a fresh process (after ``setup``)."""
    _, out = _child(_TIMED.format(setup=setup, work=work))
    sec, mb = out.split()[-2:]
    return float(sec), float(mb)


def report_targets(base, scale, fig1_seconds, stratify=True, quick=False):
    """Every speed and memory target (the list of issue 14) with its value and PASS/FAIL."""
    rows = []

    def add(what, value, target, ok):
        rows.append((what, value, target, "PASS" if ok else "FAIL"))

    # exact F1 and precision (mean + 5/50/95 % quantiles) at N = 1e6, fresh process
    work = ("for p, m in ((0.6, 0.1), (0.5, 0.5), (0.9, 0.01)):\n"
            "    e = a.exact_binary_metrics(round(m * 1e6), 10**6 - round(m * 1e6), p, p)\n"
            "    [(d.mean, d.quantile([0.05, 0.5, 0.95])) for d in (e.f1, e.precision)]")
    sec, mb = _timed_child("from labelvar import analytic as a", work)
    add("exact F1 + precision (mean, q05/50/95), N=1e6, 3 cells", f"{sec:.2f} s, {mb:.0f} MB",
        "<= 1 s, <= 300 MB", sec <= 1.0 and mb <= 300)
    # coin-mode simulate: cost independent of N (expected values included)
    reps = int(20_000 * scale)
    coin = {}
    # a fresh process per N: one untimed call of the same size first (it loads the kernels
    # from the numba cache and imports what the large-N expectations use, once per
    # process), then 3 timed calls (their mean); peak memory covers all of them. Small N
    # is faster (its binomials come from tables); "independent of N" is judged where the
    # draws are table-free: 1e6 and 1e7 items against 1e5
    sizes = (1000, 10**5, 10**6, 10**7)
    for n in sizes:
        call = f"simulate(Coin(p_d=0.6, m=0.1), n_items={n}, replicates={reps})"
        sec, mb = _timed_child(f"from labelvar import Coin, simulate\n{call}",
                               f"for _ in range(3):\n    {call}")
        coin[n] = (sec / 3, mb)
    ratio = max(coin[10**6][0], coin[10**7][0]) / coin[10**5][0]
    add(f"coin simulate() N=1e3 / 1e5 / 1e6 / 1e7, {reps} reps (mean of 3 calls)",
        " / ".join(f"{coin[n][0] * 1e3:.0f} ms" for n in sizes)
        + f" ({coin[10**7][1]:.0f} MB at 1e7)", "N=1e7 runs; 1e6, 1e7 <= 1.5 x time(1e5)",
        ratio <= 1.5)
    # any-L kernel vs the numpy baseline
    numba.set_num_threads(2)
    for lab in (3, 4, 10):
        r = int(2000 * scale)
        sec, used = time_kernel(replicates=r, n_labels=lab)
        x = r * 1000 / sec / base
        add(f"any-L kernel L={lab}, K=5 ({used[0]}), 2 threads", f"{x:.1f}x numpy", ">= 10x",
            x >= 10)
    # simulate() as a user calls it (method="auto"); the explicit path for information.
    # Steady state, as in a sweep or any loop of calls: after an identical warm-up call
    # (the parallel kernels load from the numba cache once per process) the next one or
    # two calls still pay first-touch page faults on the ~15 MB output arrays until
    # glibc's malloc raises its mmap threshold; the median of 5 calls after 3 warm-ups is
    # judged, the first call after the warm-up is printed beside it
    for method in ("auto", "explicit"):
        kw = dict(n_items=1000, replicates=reps, method=method)
        times = []
        for _ in range(8):
            t = time.perf_counter()
            res = sim.simulate(Panel(theta=0.7), **kw)
            times.append(time.perf_counter() - t)
        x = reps * 1000 / statistics.median(times[3:]) / base
        first = reps * 1000 / times[1] / base
        what = (f"simulate() end to end, panel L=2 K=5 N=1000, {reps} reps, expected, "
                f"method={method} ({res.summary['method'].iloc[0]}, median of 5 after 3)")
        value = f"{x:.1f}x numpy (2nd call {first:.1f}x)"
        if method == "auto":
            add(what, value, ">= 25x", x >= 25)
        else:
            rows.append((what, value, "(information: per-item path)", "info"))
    # collapsed panel mode, one thread
    numba.set_num_threads(1)
    for kk, lab in ((3, 2), (5, 2), (9, 2), (5, 3), (9, 3)):
        r = int(50_000 * scale)
        sec, used = time_kernel(replicates=r, mode="panel", method="collapsed", n_items=1000,
                                panel_size=kk, n_labels=lab)
        add(f"collapsed panel K={kk}, L={lab}, N=1000, 1 thread", f"{r / sec:.3g} reps/s",
            ">= 1e6 reps/s", r / sec >= 1e6)
    numba.set_num_threads(2)
    # the command line in a fresh process
    exe = [sys.executable, "-m", "labelvar.cli"]
    for argv in (["expect", "--p-d", "0.6", "--m", "0.1", "--n-items", "1000000"], ["tables"]):
        code = (f"import subprocess, sys; subprocess.run({exe + argv!r}, check=True, "
                "stdout=subprocess.DEVNULL)")
        sec, _ = _child(code, runs=5)
        add(f"labelvar {' '.join(argv)} (fresh process, median of 5)", f"{sec:.2f} s",
            "<= 0.5 s", sec <= 0.5)
    add("Figure 1 end to end (warm cache, median of 3)", f"{fig1_seconds:.2f} s", "<= 3 s",
        fig1_seconds <= 3.0)
    if stratify:
        rows.extend(_stratify_rows(quick))
    rows.extend(_rater_rows())
    rows.extend(_ds_contention_rows())
    rows.extend(_votes_rows())
    rows.extend(_readers_rows())
    rows.extend(_judge_rows())
    print("\nissue 14 targets (ratios against the numpy baseline of this run):")
    width = max(len(r[0]) for r in rows)
    for what, value, target, verdict in rows:
        print(f"  {what:{width}s}  {value:28s}  {target:38s}  {verdict}")


# votes of n items x 10 distinct raters (of 10,000) from Carpenter's model with item difficulty
_RATER_VOTES = """
import numpy as np, pandas as pd
rng = np.random.default_rng(0)
n, k, J = {n}, 10, 10_000
z = rng.random(n) < 0.3
start, step = rng.integers(0, J, n), rng.integers(1, J // k, n)
r = (start[:, None] + step[:, None] * np.arange(k)) % J
a = np.where(z[:, None], rng.normal(1.5, 0.5, J)[r], rng.normal(2.5, 0.5, J)[r])
right = rng.random((n, k)) < 1 / (1 + np.exp(rng.normal(0, 1, n)[:, None] - a))
votes = pd.DataFrame({{"item": np.repeat(np.arange(n), k), "rater": r.ravel(),
                      "label": np.where(right, z[:, None], ~z[:, None]).ravel().astype(np.int8)}})
del z, r, a, right, start, step
"""

#: a Python with crowd-kit 1.4.2 for the comparison row (never a labelvar dependency)
CROWDKIT_PYTHON_ENV = "LABELVAR_CROWDKIT_PYTHON"


def _readers_rows(runs=5):
    """Issue 30's row: mrmc (OR, jackknife Wilcoxon AUC), 2 modalities x 20 readers x 5,000 cases."""
    import pandas as pd

    from labelvar import mrmc

    rng = np.random.default_rng(0)
    t, r, c = 2, 20, 5000
    truth = rng.random(c) < 0.4
    x = np.round(rng.normal(size=(t, r, c)) + truth * (1.0 + 0.2 * np.arange(t))[:, None, None], 2)
    ratings = pd.DataFrame({"modality": np.repeat(np.arange(t), r * c),
                            "reader": np.tile(np.repeat(np.arange(r), c), t),
                            "case": np.tile(np.arange(c), t * r), "rating": x.ravel()})
    y = pd.Series(truth.astype(int), index=np.arange(c))
    mrmc(ratings, truth=y)  # warm-up
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        mrmc(ratings, truth=y)
        times.append(time.perf_counter() - t0)
    med = float(np.median(times))
    return [("mrmc OR, jackknife AUC, 2 modalities x 20 readers x 5,000 cases (median of 5)",
             f"{med:.2f} s (load {os.getloadavg()[0]:.2f})", "<= 2 s", "PASS" if med <= 2 else "FAIL")]


def _crowdkit_seconds(n):
    """Seconds of crowd-kit's DawidSkene(n_iter=100) on the same votes, or None."""
    python = os.environ.get(CROWDKIT_PYTHON_ENV, sys.executable)
    code = (_RATER_VOTES.format(n=n) + "import time\nfrom crowdkit.aggregation import DawidSkene\n"
            "df = votes.rename(columns={'item': 'task', 'rater': 'worker'})\n"
            "t = time.perf_counter()\nDawidSkene(n_iter=100).fit(df)\n"
            "print(time.perf_counter() - t)")
    res = subprocess.run([python, "-c", code], capture_output=True, text=True)
    if res.returncode != 0:
        return None
    return float(res.stdout.split()[-1])


def _rater_rows():
    """Issue 21's speed rows: DS + difficulty on 1e7 votes; plain DS against crowd-kit."""
    rows = []
    # a warm-up fit of 2000 votes first: it loads the kernels from the numba cache
    warm = "import labelvar\nlabelvar.fit_raters(votes.iloc[:2000], model={!r}, n_resamples=0)"
    setup = _RATER_VOTES.format(n=1_000_000) + warm.format("dawid_skene_difficulty")
    sec, mb = _timed_child(setup, "labelvar.fit_raters(votes, model='dawid_skene_difficulty', "
                                  "n_resamples=0)")
    rows.append(("fit_raters DS + difficulty, 1e7 votes (1e6 items x 10 of 10,000 raters)",
                 f"{sec:.1f} s, peak {mb:.0f} MB (with the votes)", "<= 60 s, <= 2 GB",
                 "PASS" if sec <= 60 and mb <= 2000 else "FAIL"))
    sec, _ = _timed_child(_RATER_VOTES.format(n=100_000) + warm.format("dawid_skene"),
                          "labelvar.fit_raters(votes, model='dawid_skene', n_resamples=0)")
    ck = _crowdkit_seconds(100_000)
    what = "fit_raters DS vs crowd-kit DawidSkene, 1e6 votes (1e5 items x 10)"
    if ck is None:
        rows.append((what, f"{sec:.2f} s; crowd-kit not measured (not importable; set "
                     f"{CROWDKIT_PYTHON_ENV})", ">= 10x crowd-kit", "not measured"))
    else:
        rows.append((what, f"{ck / sec:.1f}x ({sec:.2f} s vs {ck:.1f} s)", ">= 10x crowd-kit",
                     "PASS" if ck / sec >= 10 else "FAIL"))
    return rows


#: plain Dawid-Skene on 1e6 votes, median of 5 fits after a warm-up fit, printed in seconds
_DS_FITS = _RATER_VOTES.format(n=100_000) + """
import statistics, time, labelvar
labelvar.fit_raters(votes, model='dawid_skene', n_resamples=0)
times = []
for _ in range(5):
    t = time.perf_counter()
    labelvar.fit_raters(votes, model='dawid_skene', n_resamples=0)
    times.append(time.perf_counter() - t)
print(statistics.median(times), min(times), max(times))
"""

#: the competing processes: a single-threaded busy loop, and another labelvar process
#: fitting Dawid-Skene over and over (its own numba threads)
_COMPETITORS = {
    "one busy single-threaded process": "while True:\n    pass\n",
    "another labelvar process fitting DS in a loop": _RATER_VOTES.format(n=100_000) + (
        "import labelvar\nwhile True:\n"
        "    labelvar.fit_raters(votes, model='dawid_skene', n_resamples=0)\n"),
}


def _ds_contention_rows():
    """Issue 31's row: plain DS on 1e6 votes idle, then beside one competing process."""
    def fits():
        _, out = _child(_DS_FITS)
        return [float(x) for x in out.split()[-3:]]

    idle, load0 = fits(), os.getloadavg()[0]
    rows = [("fit_raters DS, 1e6 votes, idle (median of 5; min-max)",
             f"{idle[0]:.2f} s ({idle[1]:.2f}-{idle[2]:.2f}; load {load0:.2f} before)", "", "info")]
    for name, code in _COMPETITORS.items():
        comp = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, env=dict(os.environ),
                                stdout=subprocess.DEVNULL)
        try:
            time.sleep(8 if "labelvar" in code else 1)  # the competitor at full speed first
            busy = fits()
        finally:
            comp.kill()
            comp.wait()
        ratio = busy[0] / idle[0]
        rows.append((f"fit_raters DS, 1e6 votes, beside {name}",
                     f"{ratio:.2f}x idle ({busy[0]:.2f} s; {busy[1]:.2f}-{busy[2]:.2f})",
                     "<= 2x idle", "PASS" if ratio <= 2 else "FAIL"))
    return rows


#: 1e6 votes of 1e5 items x 10 of 1,000 raters (3 labels), a judge of skill 0.75
_JUDGE_VOTES = """
import numpy as np, pandas as pd
from labelvar.judge import References
from labelvar import alt_test
rng = np.random.default_rng(0)
n_items, k, n_raters = 100_000, 10, 1000
panels = np.stack([rng.choice(n_raters, k, replace=False) for _ in range(200)])
raters = panels[rng.integers(0, 200, n_items)]
truth = rng.integers(0, 3, n_items)
lab = np.where(rng.random((n_items, k)) < 0.7, truth[:, None], rng.integers(0, 3, (n_items, k)))
votes = pd.DataFrame({"item": np.repeat(np.arange(n_items), k), "rater": raters.ravel(),
                      "label": lab.ravel()})
system = pd.Series(np.where(rng.random(n_items) < 0.75, truth, rng.integers(0, 3, n_items)))
alt_test(votes.iloc[:20_000], system.iloc[:2000], references=References(n_resamples=2))
"""


def _judge_rows():
    """Issue 29's speed row: alt_test with its references (default: 4 references, 100
    Monte Carlo runs each) on 1e6 votes, in a fresh process after a small warm-up."""
    sec, mb = _timed_child(_JUDGE_VOTES, "alt_test(votes, system)")
    return [("alt_test + references (4 x 100 runs), 1e6 votes (1e5 items x 10 of 1,000 raters)",
             f"{sec:.1f} s, peak {mb:.0f} MB (with the votes)", "<= 10 s",
             "PASS" if sec <= 10 else "FAIL")]


def _votes_rows():
    """Issue 31's row: the one votes reader, labelvar.io.read_votes, on 1e6 votes."""
    setup = _RATER_VOTES.format(n=100_000) + "from labelvar.io import read_votes\nread_votes(votes[:100])"
    sec, mb = _timed_child(setup, "v = read_votes(votes); v.counts")
    return [("io.read_votes, 1e6 votes (1e5 items x 10 of 10,000 raters), a DataFrame",
             f"{sec:.2f} s, peak {mb:.0f} MB (with the votes)", "< 1 s",
             "PASS" if sec < 1 else "FAIL")]


#: what `labelvar stratify` imports before it reads a file (the child's baseline memory)
_STRATIFY_IMPORTS = ("pandas", "pyarrow.pandas_compat", "scipy.stats", "scipy.signal",
                     "tqdm.auto", "labelvar.cli", "labelvar.io", "labelvar.evaluation._stratified",
                     "labelvar.report", "labelvar.analytic", "labelvar.evaluation._agreement",
                     "labelvar.evaluation._inference", "labelvar._base._provenance")

# one `labelvar stratify` in a fresh process: seconds, peak RSS (VmHWM), RSS after the
# imports, and the top-level modules first imported while it ran
_STRATIFY_CHILD = """
import contextlib, importlib, io, sys, time
def rss(key):
    return int(next(ln for ln in open("/proc/self/status") if ln.startswith(key)).split()[1]) / 1024
for name in {imports!r}:
    try:
        importlib.import_module(name)
    except ImportError:
        pass
from labelvar.cli import main
before, base = set(sys.modules), rss("VmRSS")
t = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    main({argv!r})
sec = time.perf_counter() - t
roots = {{m.split(".")[0] for m in before}}
new = set(sys.modules) - before
late = sorted({{m.split(".")[0] for m in new}} - roots)
print(sec, rss("VmHWM"), base, ",".join(late) or "-", len(new))
"""


def _stratify_child(argv):
    """(seconds, peak MB, MB after the imports, what was imported late) of one run."""
    _, out = _child(_STRATIFY_CHILD.format(imports=_STRATIFY_IMPORTS, argv=argv))
    sec, peak, base, late, n_new = out.split()[-5:]
    return float(sec), float(peak), float(base), f"{late.replace(',', ', ')} ({n_new} modules)"


def _stratify_rows(quick, runs=3):
    """stratify on 2e6 items x 5 votes: time and peak memory, the data's part judged.

    Each run is a fresh process (VmHWM, not ru_maxrss, which a child inherits). The
    memory target, 3x the file, is judged on the memory the data costs: peak RSS
    minus the RSS right after the imports the command needs (numpy, pandas with
    pyarrow, scipy and labelvar alone take ~170 MB, more than 3x the 39 MB file),
    measured in the same process; the total peak is printed beside it, and the
    modules first imported during the run (outside that baseline) are named. Time
    and memory are the medians of ``runs`` runs (memory does not depend on the load;
    time does, see the load average printed at the end).
    """
    import tempfile

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "votes.csv"
        rng = np.random.default_rng(1)
        n = 2_000_000
        votes = (rng.random((n, 5)) < 0.7).astype(np.int8)
        pred = (rng.random(n) < 0.6).astype(np.int8)
        with open(path, "w") as f:
            f.write("item,r1,r2,r3,r4,r5,ai\n")
            block = 200_000
            for i0 in range(0, n, block):
                arr = np.column_stack([np.arange(i0, min(n, i0 + block)), votes[i0:i0 + block],
                                       pred[i0:i0 + block]])
                np.savetxt(f, arr, fmt="%d", delimiter=",")
        size_mb = path.stat().st_size / 1e6
        base = ["stratify", str(path), "--panel", "r1,r2,r3,r4,r5", "--systems", "ai",
                "--item", "item", "--format", "csv", "--seed", "1"]
        res = [_stratify_child(base + ["--n-resamples", "0"]) for _ in range(runs)]
        sec = statistics.median(r[0] for r in res)
        peak = statistics.median(r[1] for r in res)
        data = statistics.median(r[1] - r[2] for r in res)
        rows.append((f"stratify 2e6 items x 5 votes (1e7 votes), no bootstrap, median of {runs}",
                     f"{sec:.1f} s, data {data:.0f} MB ({data / size_mb:.1f}x file), "
                     f"total peak {peak:.0f} MB (imports {res[0][2]:.0f} MB; imported "
                     f"while running: {res[0][3]})",
                     f"<= 10 s, data <= 3x the {size_mb:.0f} MB file",
                     sec <= 10 and data <= 3 * size_mb))
        n_boot = 100 if quick else 1000
        sec, peak, imports, _ = _stratify_child(base + ["--n-resamples", str(n_boot)])
        est = sec if n_boot == 1000 else sec * 1000 / n_boot
        note = "" if n_boot == 1000 else f" (x{1000 // n_boot} of {n_boot})"
        rows.append(("stratify + 1000 item-bootstrap resamples (bar on a terminal)",
                     f"{est:.1f} s{note}, data {peak - imports:.0f} MB",
                     "<= 30 s, progress shown", est <= 30))
    return [(w, v, t, "PASS" if ok else "FAIL") for w, v, t, ok in rows]


# --------------------------------------------------------------------------- docs section
_MARKERS = ("<!-- bench output: start -->", "<!-- bench output: end -->")


class _Tee:
    """A text stream that writes to the terminal and keeps a copy."""

    def __init__(self, stream):
        self.stream, self.parts = stream, []

    def write(self, text):
        self.parts.append(text)
        return self.stream.write(text)

    def flush(self):
        self.stream.flush()


def _to_docs(run):
    """Run ``run()`` printing as usual, then put its output into the development notes.

    ``docs/guides/development.md``'s benchmark section holds the output of one full run between
    :data:`_MARKERS`; this replaces exactly that block (atomically), so the section is
    always a real run's output.
    """
    import contextlib

    from labelvar._base._files import atomic_write

    page = REPO / "docs" / "guides" / "development.md"
    text = page.read_text()
    start, end = (text.find(m) for m in _MARKERS)
    if start < 0 or end < start:
        raise SystemExit(f"{page} has no {_MARKERS[0]} ... {_MARKERS[1]} block")
    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        run()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    block = (f"{_MARKERS[0]}\n```text\n# scripts/bench.py {' '.join(sys.argv[1:])} -- {when}, "
             f"{os.cpu_count()} cores\n{''.join(tee.parts).strip()}\n```\n")
    atomic_write(page, text[:start] + block + text[end:])
    print(f"\nwrote this output into {page}")


# --------------------------------------------------------------------------- scaling table
_SCALING = [  # N, K, L, replicates, mode, method
    (1_000, 5, 2, 20_000, "panel", "auto"), (1_000, 5, 2, 20_000, "panel", "explicit"),
    (100_000, 5, 2, 1_000, "panel", "explicit"), (1_000, 9, 3, 20_000, "panel", "auto"),
    (1_000, 5, 4, 2_000, "panel", "explicit"), (1_000, 5, 10, 2_000, "panel", "explicit"),
    (10**6, 1, 2, 20_000, "coin", "auto"), (10**7, 1, 2, 20_000, "coin", "auto"),
]


def report_scaling():
    """Wall time and peak memory of simulate() (expected values included), fresh processes."""
    print("\nscaling: simulate(..., expected=True) in a fresh process after a small warm-up "
          "call (2 threads)")
    print(f"  {'N':>9s} {'K':>3s} {'L':>3s} {'replicates':>10s} {'mode':6s} {'method':9s} "
          f"{'seconds':>8s} {'peak MB':>8s}")
    for n, kk, lab, reps, mode, method in _SCALING:
        items = (f"Panel(theta=0.7, m=0.3, n_labels={lab}, panel_size={kk})" if mode == "panel"
                 else f"Coin(p_d=0.7, m=0.3, n_labels={lab})")
        sec, mb = _timed_child(f"from labelvar import Coin, Panel, simulate\n"
                               f"simulate({items}, n_items=50, method={method!r}, "
                               f"replicates=50)",
                               f"r = simulate({items}, n_items={n}, method={method!r}, "
                               f"replicates={reps})")
        print(f"  {n:9d} {kk:3d} {lab:3d} {reps:10d} {mode:6s} {method:9s} {sec:8.2f} {mb:8.0f}")


# --------------------------------------------------------------------------- planner
def report_design_snli(runs=5, target=2.0):
    """Time `labelvar design --config snli` (the README's example).

    Fresh processes after one warm-up (numba cache warm): imports, the pilot fit, the
    exact power scans and the simulated verification, printed as the user sees it.
    Target: <= 2 s. Needs the SNLI pilot in ../shared/data (skipped without it).
    """
    cfg = REPO / "src" / "labelvar" / "configs_design" / "snli.yaml"
    if not (REPO.parent / "shared" / "data" / "snli_dev_subset").exists():
        print("\nplanner (labelvar design --config snli): skipped, no "
              "../shared/data/snli_dev_subset")
        return None
    exe = Path(sys.executable).with_name("labelvar")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "labelvar.cli"]
    import resource

    times, cpu = [], []
    for i in range(runs + 1):
        c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(cmd + ["design", "--config", str(cfg)], check=True, capture_output=True,
                       cwd=REPO)
        c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if i:
            times.append(time.perf_counter() - t)
            cpu.append(c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime)
    med = statistics.median(times)
    print(f"\nplanner, README SNLI example (labelvar design --config snli, "
          f"warm, median / min of {runs}): {med:.2f} / {min(times):.2f} s wall, "
          f"{statistics.median(cpu):.2f} s CPU (user + sys, all threads; load average "
          f"{os.getloadavg()[0]:.1f}) (target <= {target:g} s wall): "
          f"{'PASS' if med <= target else 'FAIL'}")
    return med


if __name__ == "__main__":
    main()
