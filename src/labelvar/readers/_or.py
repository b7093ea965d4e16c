"""Obuchowski-Rockette (OR) and Dorfman-Berbaum-Metz (DBM) analyses on arrays.

Input: the FOMs ``theta`` ``(t, r)`` and their covariance over cases ``cov``
``(t r, t r)`` (index ``i * r + j``). Formulas (Obuchowski & Rockette 1995; Hillis 2007;
Hillis, Berbaum & Metz 2008), with ``MS`` the mean squares of the modality x reader
ANOVA of the FOMs:

- ``var_error`` the mean of the variances; ``cov1`` the mean covariance of one reader in
  two modalities, ``cov2`` of two readers in one modality, ``cov3`` of two readers in two
  modalities;
- ``var_tr = MS(TR) - var_error + cov1 + cov2 - cov3``,
  ``var_r = [MS(R) - var_error - (t-1) cov1 + cov2 + (t-1) cov3 - var_tr] / t``;
- random readers and cases (RRRC): ``F = MS(T) / [MS(TR) + r max(cov2 - cov3, 0)]``
  on ``t - 1`` and Hillis' ``ddf = [MS(TR) + r max(cov2 - cov3, 0)]^2 / [MS(TR)^2 /
  ((t-1)(r-1))]``; the SE of a difference ``sqrt(2 / r * error term)``;
- fixed readers (FRRC): ``X2 = (t-1) MS(T) / [var_error - cov1 + (r-1) max(cov2 - cov3, 0)]``
  on ``t - 1`` degrees of freedom (chi-square), normal CIs;
- fixed cases (RRFC): ``F = MS(T) / MS(TR)`` on ``t - 1``, ``(t-1)(r-1)``;
- one modality (RRRC): ``SE = sqrt([MS(R)_i + r max(cov2_i, 0)] / r)`` on
  ``[MS(R)_i + r max(cov2_i, 0)]^2 / [MS(R)_i^2 / (r-1)]`` df; FRRC
  ``sqrt([var_i + (r-1) max(cov2_i, 0)] / r)`` (normal); RRFC ``sqrt(MS(R)_i / r)`` on ``r-1``;
- one reader (fixed cases... FRRC per reader): ``SE = sqrt(var_ij + var_i'j - 2 cov_ii'j)``, normal.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from scipy import stats

ANALYSES = ("RRRC", "FRRC", "RRFC")


def _div(a, b) -> float:
    """``a / b`` as a float: NaN for 0 / 0, signed inf for a / 0 (a degenerate test, not a crash)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(a) / np.float64(b))


def _blocks(cov: np.ndarray, t: int, r: int):
    """Mean variance and Cov1/Cov2/Cov3 of the ``(t, r, t, r)`` covariance."""
    c4 = cov.reshape(t, r, t, r)
    same_i = np.eye(t, dtype=bool)[:, None, :, None]
    same_j = np.eye(r, dtype=bool)[None, :, None, :]
    same_i, same_j = np.broadcast_arrays(same_i, same_j)

    def mean(mask):
        return float(c4[mask].mean()) if mask.any() else float("nan")

    return (mean(same_i & same_j), mean(~same_i & same_j), mean(same_i & ~same_j),
            mean(~same_i & ~same_j))


def mean_squares(theta: np.ndarray) -> dict:
    """MS(T), MS(R), MS(T x R) and MS(R) of each modality of the FOM table."""
    t, r = theta.shape
    g = theta.mean()
    mi, mj = theta.mean(1), theta.mean(0)
    ms_t = r * ((mi - g) ** 2).sum() / (t - 1) if t > 1 else float("nan")
    ms_r = t * ((mj - g) ** 2).sum() / (r - 1)
    resid = theta - mi[:, None] - mj[None, :] + g
    ms_tr = (resid ** 2).sum() / ((t - 1) * (r - 1)) if t > 1 else float("nan")
    ms_r_i = ((theta - mi[:, None]) ** 2).sum(1) / (r - 1)
    return {"ms_t": float(ms_t), "ms_r": float(ms_r), "ms_tr": float(ms_tr), "ms_r_i": ms_r_i}


def components(theta: np.ndarray, cov: np.ndarray) -> dict:
    """The OR variance components and correlations (``var_tr``, ``cov1``, ``cov3`` NaN at t = 1)."""
    t, r = theta.shape
    ms = mean_squares(theta)
    var, cov1, cov2, cov3 = _blocks(cov, t, r)
    if t > 1:
        var_tr = ms["ms_tr"] - var + cov1 + cov2 - cov3
        var_r = (ms["ms_r"] - var - (t - 1) * cov1 + cov2 + (t - 1) * cov3 - var_tr) / t
    else:
        var_tr, var_r = float("nan"), ms["ms_r"] - var + cov2
    return {"var_r": var_r, "var_tr": var_tr, "cov1": cov1, "cov2": cov2, "cov3": cov3,
            "var_error": var, "corr1": _div(cov1, var), "corr2": _div(cov2, var),
            "corr3": _div(cov3, var)}


def _ci(diff, se, df, alpha):
    q = stats.norm.isf(alpha / 2) if np.isinf(df) else stats.t.isf(alpha / 2, df)
    return diff - q * se, diff + q * se


def _p_two_sided(stat, df):
    return float(2 * (stats.norm.sf(abs(stat)) if np.isinf(df) else stats.t.sf(abs(stat), df)))


def _error_terms(comp: dict, ms: dict, r: int) -> dict:
    """Denominator of each test (the quantity whose 2/r gives a difference's variance)."""
    c23 = max(comp["cov2"] - comp["cov3"], 0.0)
    return {"RRRC": ms["ms_tr"] + r * c23,
            "FRRC": comp["var_error"] - comp["cov1"] + (r - 1) * c23,
            "RRFC": ms["ms_tr"]}


def _ddf(analysis: str, error: float, ms: dict, t: int, r: int) -> float:
    if analysis == "FRRC":
        return float("inf")
    dfe = (t - 1) * (r - 1)
    if analysis == "RRFC":
        return float(dfe)
    return _div(error ** 2, ms["ms_tr"] ** 2 / dfe) if ms["ms_tr"] > 0 else float("inf")


def or_tests(theta: np.ndarray, cov: np.ndarray, modalities, alpha: float):
    """The tests table (rows RRRC, FRRC, RRFC) and the pairwise differences table (t >= 2)."""
    t, r = theta.shape
    ms = mean_squares(theta)
    comp = components(theta, cov)
    errors = _error_terms(comp, ms, r)
    mi = theta.mean(1)
    rows, diffs = [], []
    for a in ANALYSES:
        err = errors[a]
        ddf = _ddf(a, err, ms, t, r)
        if a == "FRRC":
            stat = _div((t - 1) * ms["ms_t"], err)
            p = float(stats.chi2.sf(stat, t - 1))
        else:
            stat = _div(ms["ms_t"], err)
            p = float(stats.f.sf(stat, t - 1, ddf))
        se = float(np.sqrt(2.0 / r * err))
        for i1, i2 in itertools.combinations(range(t), 2):
            d = float(mi[i1] - mi[i2])
            lo, hi = _ci(d, se, ddf, alpha)
            z = _div(d, se)
            diffs.append({"analysis": a, "comparison": f"{modalities[i1]} - {modalities[i2]}",
                          "difference": d, "se": se, "df": ddf, "statistic": z,
                          "p": _p_two_sided(z, ddf), "ci_low": lo, "ci_high": hi})
        one = diffs[-1] if t == 2 else {}
        rows.append({"analysis": a, "statistic": float(stat), "df1": float(t - 1),
                     "df2": ddf, "p": p, "difference": one.get("difference", np.nan),
                     "se": one.get("se", np.nan), "ci_low": one.get("ci_low", np.nan),
                     "ci_high": one.get("ci_high", np.nan), "error_term": err})
    tests = pd.DataFrame(rows).set_index("analysis")
    return tests, pd.DataFrame(diffs), comp, ms


def single_modality(theta: np.ndarray, cov: np.ndarray, modalities, alpha: float) -> pd.DataFrame:
    """Each modality's mean FOM with its SE, df and CI under each analysis."""
    t, r = theta.shape
    ms_r_i = mean_squares(theta)["ms_r_i"]
    rows = []
    for i in range(t):
        sub = cov.reshape(t, r, t, r)[i, :, i, :]
        var_i = float(np.diag(sub).mean())
        cov2_i = float(sub[~np.eye(r, dtype=bool)].mean())
        m = float(theta[i].mean())
        c2 = max(cov2_i, 0.0)
        for a in ANALYSES:
            if a == "RRRC":
                err = ms_r_i[i] + r * c2
                df = _div(err ** 2, ms_r_i[i] ** 2 / (r - 1)) if ms_r_i[i] > 0 else float("inf")
            elif a == "FRRC":
                err, df = var_i + (r - 1) * c2, float("inf")
            else:
                err, df = ms_r_i[i], float(r - 1)
            se = float(np.sqrt(err / r))
            lo, hi = _ci(m, se, df, alpha)
            rows.append({"analysis": a, "modality": modalities[i], "fom": m, "se": se, "df": df,
                         "ci_low": lo, "ci_high": hi, "ms_r": float(ms_r_i[i]),
                         "var_error": var_i, "cov2": cov2_i})
    return pd.DataFrame(rows)


def per_reader(theta: np.ndarray, cov: np.ndarray, modalities, readers, alpha: float) -> pd.DataFrame:
    """Each reader's modality differences (fixed reader, random cases: z tests)."""
    t, r = theta.shape
    c4 = cov.reshape(t, r, t, r)
    rows = []
    for j in range(r):
        for i1, i2 in itertools.combinations(range(t), 2):
            var = 0.5 * (c4[i1, j, i1, j] + c4[i2, j, i2, j])
            cov1 = c4[i1, j, i2, j]
            se = float(np.sqrt(max(2.0 * (var - cov1), 0.0)))
            d = float(theta[i1, j] - theta[i2, j])
            z = _div(d, se)
            lo, hi = _ci(d, se, np.inf, alpha)
            rows.append({"reader": readers[j], "comparison": f"{modalities[i1]} - {modalities[i2]}",
                         "difference": d, "se": se, "statistic": z, "p": _p_two_sided(z, np.inf),
                         "ci_low": lo, "ci_high": hi, "var_error": float(var), "cov1": float(cov1)})
    return pd.DataFrame(rows)


def dbm(theta: np.ndarray, loo: np.ndarray, alpha: float):
    """DBM: the three-way ANOVA of jackknife pseudovalues, its components and RRRC test.

    ``loo`` ``(t, r, c)`` are the leave-one-case-out FOMs (every case entering every FOM).
    Pseudovalues ``Y_ijk = c theta_ij - (c - 1) theta_ij(-k)``. Components (Dorfman,
    Berbaum & Metz 1992; Hillis, Berbaum & Metz 2008): ``var_r = (MS(R) - MS(TR) - MS(RC) +
    MS(TRC)) / (t c)``, ``var_c = (MS(C) - MS(TC) - MS(RC) + MS(TRC)) / (t r)``,
    ``var_tr = (MS(TR) - MS(TRC)) / c``, ``var_tc = (MS(TC) - MS(TRC)) / r``,
    ``var_rc = (MS(RC) - MS(TRC)) / t``, ``var_error = MS(TRC)``; RRRC
    ``F = MS(T) / [MS(TR) + max(MS(TC) - MS(TRC), 0)]`` with Hillis' ddf.
    """
    t, r, c = loo.shape
    y = c * theta[..., None] - (c - 1) * loo
    g = y.mean()
    yi, yj, yk = y.mean((1, 2)), y.mean((0, 2)), y.mean((0, 1))
    yij, yik, yjk = y.mean(2), y.mean(1), y.mean(0)
    ss = {"T": r * c * ((yi - g) ** 2).sum(), "R": t * c * ((yj - g) ** 2).sum(),
          "C": t * r * ((yk - g) ** 2).sum(),
          "TR": c * ((yij - yi[:, None] - yj[None, :] + g) ** 2).sum(),
          "TC": r * ((yik - yi[:, None] - yk[None, :] + g) ** 2).sum(),
          "RC": t * ((yjk - yj[:, None] - yk[None, :] + g) ** 2).sum()}
    resid = (y - yij[..., None] - yik[:, None, :] - yjk[None] + yi[:, None, None]
             + yj[None, :, None] + yk[None, None, :] - g)
    ss["TRC"] = (resid ** 2).sum()
    df = {"T": t - 1, "R": r - 1, "C": c - 1, "TR": (t - 1) * (r - 1), "TC": (t - 1) * (c - 1),
          "RC": (r - 1) * (c - 1), "TRC": (t - 1) * (r - 1) * (c - 1)}
    ms = {k: (ss[k] / df[k] if df[k] > 0 else float("nan")) for k in ss}
    anova = pd.DataFrame({"source": list(ss), "df": [float(df[k]) for k in ss],
                          "ss": [float(ss[k]) for k in ss], "ms": [float(ms[k]) for k in ss]})
    if t > 1:
        comp = {"var_r": (ms["R"] - ms["TR"] - ms["RC"] + ms["TRC"]) / (t * c),
                "var_c": (ms["C"] - ms["TC"] - ms["RC"] + ms["TRC"]) / (t * r),
                "var_tr": (ms["TR"] - ms["TRC"]) / c, "var_tc": (ms["TC"] - ms["TRC"]) / r,
                "var_rc": (ms["RC"] - ms["TRC"]) / t, "var_error": ms["TRC"]}
        err = ms["TR"] + max(ms["TC"] - ms["TRC"], 0.0)
        ddf = _div(err ** 2, ms["TR"] ** 2 / df["TR"]) if ms["TR"] > 0 else float("inf")
        f = _div(ms["T"], err)
        test = {"statistic": float(f), "df1": float(t - 1), "df2": float(ddf),
                "p": float(stats.f.sf(f, t - 1, ddf))}
    else:  # one modality: R, C and the R x C residual
        comp = {"var_r": (ms["R"] - ms["RC"]) / c, "var_c": (ms["C"] - ms["RC"]) / r,
                "var_error": ms["RC"]}
        test = {}
    return anova, {k: float(v) for k, v in comp.items()}, test
