"""The engine across processes: thread-count invariance and the on-disk kernel cache (slow)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

_SCRIPT = """
import sys
from labelvar import simulate
from labelvar import Coin
from labelvar import Panel
df = simulate(Panel(theta=[0.6, 0.9], m=[0.2], panel_size=[3, 5]), n_items=[70],
              replicates=257, seed=42, thresholds=[0.6], method="explicit", expected=False,
              parallel=True).summary
df2 = simulate(Coin(p_d=0.8, m=0.5), n_items=70, replicates=257, seed=42, expected=False,
               parallel=True).summary
df3 = simulate(Panel(theta=0.7, m=0.4, n_labels=3, panel_size=4), n_items=90,
               replicates=131, seed=42, expected=False, parallel=True).summary
import pandas as pd
pd.concat([df, df2, df3]).to_pickle(sys.argv[1])
"""


def _env(**extra):
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), **extra)
    return env


def test_identical_under_one_and_two_threads(tmp_path):
    frames = []
    for threads in ("1", "2"):
        out = tmp_path / f"t{threads}.pkl"
        subprocess.run([sys.executable, "-c", _SCRIPT, str(out)], check=True,
                       env=_env(NUMBA_NUM_THREADS=threads), cwd=REPO)
        frames.append(pd.read_pickle(out))
    pd.testing.assert_frame_equal(frames[0], frames[1])


_CACHED = """
import json, sys
from labelvar import _kernels as K
from labelvar import simulate
from labelvar import Coin
simulate(Coin(p_d=0.8), n_items=50, replicates=20, seed=1, expected=False, method="collapsed",
         parallel=False)
print(json.dumps({"hits": sum(K.collapsed_serial.stats.cache_hits.values()),
                  "misses": sum(K.collapsed_serial.stats.cache_misses.values())}))
"""


def test_kernels_are_cached_on_disk(tmp_path):
    """A fresh cache directory is filled by one process and used by the next."""
    cache = tmp_path / "numba-cache"
    runs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", _CACHED], check=True, capture_output=True,
                              text=True, env=_env(NUMBA_CACHE_DIR=str(cache)), cwd=tmp_path)
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    index = {p.name.split(".")[1].split("-")[0] for p in cache.rglob("*.nbi")}
    assert "collapsed_serial" in index, sorted(index)
    assert runs[0]["hits"] == 0 and runs[0]["misses"] >= 1  # compiled, then written
    assert runs[1]["hits"] >= 1 and runs[1]["misses"] == 0  # loaded from the cache
