"""Importing labelvar, or any of its submodules, changes no global state.

The check runs in fresh interpreters with ``MPLBACKEND`` unset. Third-party
packages set some warning filters when they are first imported (numpy, scipy.special,
...); those are theirs, so a first run lists the third-party modules that labelvar's
submodules import and a second run imports them before taking the "before" snapshot,
leaving only what labelvar itself does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

SCRIPT = r"""
import importlib, json, pkgutil, sys, warnings
preload = json.loads(sys.argv[1])
for name in preload:
    try:
        importlib.import_module(name)
    except Exception:
        pass
import matplotlib

def state():
    rc = dict.__getitem__  # raw values: reading rcParams["backend"] would resolve it
    return {"backend": repr(rc(matplotlib.rcParams, "backend")),
            "rcParams": {k: repr(rc(matplotlib.rcParams, k)) for k in matplotlib.rcParams},
            "filters": [repr(f) for f in warnings.filters],
            "pyplot": "matplotlib.pyplot" in sys.modules}

before, loaded = state(), set(sys.modules)
import labelvar
names = ["labelvar"]
for info in pkgutil.walk_packages(labelvar.__path__, "labelvar."):
    importlib.import_module(info.name)
    names.append(info.name)
after = state()
third_party = sorted(m for m in set(sys.modules) - loaded
                     if not m.startswith("labelvar") and not m.startswith("_"))
print(json.dumps({"names": names, "before": before, "after": after,
                  "third_party": third_party, "get_backend": matplotlib.get_backend()}))
"""


def _run(preload):
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    proc = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(preload)],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_importing_every_submodule_changes_no_global_state():
    first = _run([])
    out = _run(first["third_party"])
    assert {"labelvar.cli", "labelvar.plots", "labelvar.plots._stratified",
            "labelvar.report"} <= set(out["names"])
    before, after = out["before"], out["after"]
    assert not after["pyplot"]
    assert after["backend"] == before["backend"]
    assert after["rcParams"] == before["rcParams"]
    assert after["filters"] == before["filters"]
    # the backend a user gets is matplotlib's own choice, not one labelvar forced
    assert first["after"]["backend"] == first["before"]["backend"]
