"""The rater EM's thread count: the work decides whether a second thread pays, and the
CPUs other processes hold are given back (issue 31 item 5). The busy-machine timing is a
row of ``scripts/bench.py --contention``; here the rules, and equal results either way."""

from __future__ import annotations

import numba
import numpy as np
import pandas as pd
import pytest

import labelvar
from labelvar._base import _cpu
from labelvar.votes import _rater_em as em


@pytest.mark.parametrize(("allowed", "machine", "running", "own", "free"), [
    (2, 2, 1, 1, 2),    # only this process runs: both CPUs
    (2, 2, 2, 1, 1),    # one other runnable thread holds a core
    (2, 2, 3, 2, 1),    # this process's two threads and one other
    (2, 2, 6, 1, 1),    # a crowded machine: still one thread
    (4, 4, 2, 1, 3),
    (2, 64, 40, 1, 2),  # /proc counts a host of 64 CPUs: says nothing of this process's 2
    (1, 1, 9, 1, 1),
])
def test_free_of(allowed, machine, running, own, free):
    assert _cpu.free_of(allowed, machine, running, own) == free


def test_free_cpus_reads_this_machine():
    assert 1 <= _cpu.free_cpus() <= (len(_cpu.os.sched_getaffinity(0)))
    assert _cpu._own_running() >= 1  # the thread reading is running


def test_threads_for_small_work_is_serial_and_restores(monkeypatch):
    before = numba.get_num_threads()
    with em.threads_for(em.PARALLEL_MIN_WORK - 1):
        assert numba.get_num_threads() == 1
        em.retune()
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == before


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
@pytest.mark.parametrize(("free", "expect"), [(1, 1), (2, 2), (8, 2)])
def test_threads_for_large_work_takes_the_free_cpus(monkeypatch, free, expect):
    monkeypatch.setattr(em, "free_cpus", lambda: free)
    before = numba.get_num_threads()
    numba.set_num_threads(2)
    try:
        with em.threads_for(em.PARALLEL_MIN_WORK):
            assert numba.get_num_threads() == expect
            with em.threads_for(1.0):  # nested small work: serial, then back
                assert numba.get_num_threads() == 1
            em.retune()
            assert numba.get_num_threads() == expect
    finally:
        numba.set_num_threads(before)


def test_fit_is_the_same_whatever_the_free_cpus(monkeypatch):
    """A fit large enough to run parallel gives identical numbers on one or two threads."""
    rng = np.random.default_rng(5)
    n, k, J = 60_000, 10, 300
    z = rng.random(n) < 0.4
    r = np.stack([rng.choice(J, k, replace=False) for _ in range(200)])[rng.integers(0, 200, n)]
    right = rng.random((n, k)) < 0.8
    votes = pd.DataFrame({"item": np.repeat(np.arange(n), k), "rater": r.ravel(),
                          "label": np.where(right, z[:, None], ~z[:, None]).ravel().astype(int)})
    assert n * k * 7 * 2 >= em.PARALLEL_MIN_WORK  # DS + difficulty (7 nodes, 2 labels): parallel
    fits = []
    for free in (1, 2):
        monkeypatch.setattr(em, "free_cpus", lambda free=free: free)
        f = labelvar.fit_raters(votes, n_resamples=0, max_iter=30)
        fits.append((f.log_lik, f.skills["accuracy"].to_numpy()))
    assert fits[0][0] == fits[1][0]
    assert np.array_equal(fits[0][1], fits[1][1])
