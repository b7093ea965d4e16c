"""Per-replicate kernel output into tables: the raw table and the summary columns.

Shared by the grid runner (:mod:`labelvar.engine._simulate`) and the item-model
runner (:mod:`labelvar.engine._item_models`); it imports neither.
"""

from __future__ import annotations

import numba
import numpy as np

from labelvar import _kernels as K
from labelvar.engine._tables import _EPS
from labelvar.metrics._scores import METRICS

#: the parameter columns of every summary row, then the summary's own
PARAM_COLUMNS = ("p_d", "theta", "m", "n_items", "n_labels", "panel_size", "mode", "theta_prior",
                 "tie_rule", "positives", "method")
SUMMARY_COLUMNS = PARAM_COLUMNS + ("labeller", "stratum", "metric", "threshold", "mean", "sd",
                                   "se", "q05", "q50", "q95", "expected", "z", "replicates",
                                   "seed")
_PARALLEL_WORK = 2_000_000  # draws per cell from which parallel kernels are used
_PARALLEL_SUMMARY = 250_000  # values per cell from which the summary runs in parallel


def _raw_table(out, names, strata, path, theta: bool):
    """The per-replicate table: one row per replicate x labeller x stratum."""
    import pandas as pd

    n_rep, n_j, n_strata = out.shape[:3]
    r, j, s = np.meshgrid(np.arange(n_rep), np.arange(n_j), np.arange(n_strata), indexing="ij")
    flat = out.reshape(-1, K.N_FIELDS)
    raw = pd.DataFrame({"labeller": np.asarray(names, dtype=object)[j.ravel()],
                        "stratum": np.asarray(strata, dtype=object)[s.ravel()],
                        "replicate": r.ravel()})
    for f, name in enumerate(K.FIELDS):
        if name == "theta" and not theta:
            continue
        # the stratum's mean true theta: "mean_theta", beside the parameter column "theta"
        column = "mean_theta" if name == "theta" else name
        raw[column] = flat[:, f].astype(np.int64) if f < 6 else flat[:, f]
    raw["method"] = path
    return raw


def _summarise(out, names, strata, spec, exp, panel, path, theta_ok):
    """Summary columns (mean, sd, quantiles, expected, z) of every labeller x stratum x metric.

    One kernel call (:func:`labelvar._kernels.summary_stats`) reads every series (one
    metric of one labeller and stratum over the replicates where the stratum is
    non-empty) straight from the kernel output ``out``.
    """
    series = [(name, np.nan, K.FIELDS.index(name)) for name in METRICS]
    if theta_ok:
        series.append(("theta", np.nan, K.FIELDS.index("theta")))
    for t in spec.thresholds:
        series += [("prob_accuracy_ge", t, K.FIELDS.index("accuracy")),
                   ("prob_f1_ge", t, K.FIELDS.index("f1"))]
    n_j, n_strata = out.shape[1:3]
    fields = np.array([f for _, _, f in series], dtype=np.int64)
    above = np.array([t - _EPS for _, t, _ in series], dtype=float)  # NaN: the value itself
    st = np.empty((n_j, n_strata, len(series), 5))
    n_ok = np.empty((n_j, n_strata), dtype=np.int64)  # replicates where (j, s) is non-empty
    if out.shape[0] * n_j * n_strata * len(series) >= _PARALLEL_SUMMARY:
        K.summary_stats(out, fields, above, st, n_ok, numba.get_num_threads())
    else:
        K.summary_stats_serial(out, fields, above, st, n_ok)
    blocks = np.argwhere(n_ok > 0)  # (j, s), labellers outer
    st = st[n_ok > 0].reshape(-1, 5)
    n_series = len(series)
    j_of, s_of = np.repeat(blocks[:, 0], n_series), np.repeat(blocks[:, 1], n_series)
    metric = [m for m, _, _ in series] * len(blocks)
    threshold = np.tile(np.array([t for _, t, _ in series], dtype=float), len(blocks))
    if exp is None:
        expected = np.full(len(metric), np.nan)
    else:
        expected = np.array([exp.get((j, s, m, None if t != t else t), np.nan)
                             for j, s, m, t in zip(j_of.tolist(), s_of.tolist(), metric,
                                                   threshold.tolist())], dtype=float)
    n_rep = np.repeat(n_ok[blocks[:, 0], blocks[:, 1]], n_series).astype(np.int64)
    mean, sd = st[:, 0], st[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        se = sd / np.sqrt(n_rep)
        diff = mean - expected
        z = diff / se
        # no spread beyond rounding noise (e.g. theta when fixed, constant labellers)
        flat = (sd <= 1e-9) | np.isnan(se)
        z[flat & (np.abs(diff) <= 1e-9)] = 0.0
        z[flat & (np.abs(diff) > 1e-12)] = np.nan  # no spread seen: z undefined
    # plain columns (simulate() makes one DataFrame of all cells); "method" is set by the caller
    return {"labeller": np.asarray(names, dtype=object)[j_of],
            "stratum": np.asarray(strata, dtype=object)[s_of], "metric": metric,
            "threshold": threshold, "mean": mean, "sd": sd,
            "q05": st[:, 2], "q50": st[:, 3], "q95": st[:, 4], "expected": expected,
            "replicates": n_rep, "se": se, "z": z}


def _summary_frame(parts, seed):
    """One DataFrame (columns :data:`SUMMARY_COLUMNS`) from per-cell summary columns.

    ``parts``: (summary columns of a cell, its parameter values); every column is one
    typed numpy array (text as Python strings), so pandas infers the same dtypes as
    from the values themselves, without a Series per cell.
    """
    import pandas as pd

    cols: dict[str, list] = {c: [] for c in SUMMARY_COLUMNS if c != "seed"}
    for table, params in parts:
        n = len(table["mean"])
        for c, pieces in cols.items():
            x = table[c] if c in table else np.full(n, params[c])
            pieces.append(np.asarray(x, dtype=object) if isinstance(x, list) else x)
    data = {}
    for c, pieces in cols.items():
        x = np.concatenate(pieces) if pieces else np.empty(0, dtype=object)
        data[c] = x.astype(object) if x.dtype.kind == "U" else x
    data["seed"] = np.full(len(data["mean"]), seed, dtype=np.int64)
    return pd.DataFrame(data)


# --------------------------------------------------------------------------- running a cell
