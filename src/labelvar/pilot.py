"""Pilot fitting: the item-agreement θ prior fitted to pilot votes by maximum likelihood.

:func:`read_pilot` turns a pilot file into an (items x labels) vote-count matrix;
:func:`fit_pilot` fits a :class:`labelvar.priors.BetaPrior` or a nonparametric
:class:`labelvar.priors.DiscretePrior` to it, with the likelihood of each vote pattern
from :func:`labelvar._panel.log_pattern_likelihood` (the one vote enumeration) and the
prior's own quadrature; the result (:class:`PilotFit`) goes into
``labelvar.Scenario(theta=fit.prior)``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from labelvar import _panel
from labelvar import _validate as V
from labelvar.priors import BetaPrior, DiscretePrior


@dataclasses.dataclass
class PilotFit:
    """A θ prior fitted to pilot vote counts.

    Attributes
    ----------
    prior : BetaPrior or DiscretePrior
        The fitted prior (:mod:`labelvar.priors`; pass it as ``Scenario(theta=fit.prior)``).
    method : str
        ``"beta"`` or ``"mixture"``.
    n_items, n_labels : int
    loglik : float
        Maximised log-likelihood of the vote patterns.
    n_params : int
    aic : float
    class_prior : ndarray
        Frequency of each label as the plurality label (ties split).
    table : pandas.DataFrame
        Observed vs expected number of items per (votes per item, sorted vote pattern).
    chi2, dof, p_value : float
        Pearson goodness of fit over the patterns (expected counts >= 5 pooled).
    """

    prior: object
    method: str
    n_items: int
    n_labels: int
    loglik: float
    n_params: int
    aic: float
    class_prior: np.ndarray
    table: pd.DataFrame
    chi2: float
    dof: int
    p_value: float

    def summary(self) -> str:
        """One line: the fitted prior and its fit."""
        L = self.n_labels
        return (f"pilot: {self.n_items} items, L = {L}; fitted {self.prior.describe(L)}"
                f" (mean theta {self.prior.mean(L):.3f}); log-lik {self.loglik:.2f}, AIC "
                f"{self.aic:.2f}; Pearson chi2 {self.chi2:.2f} on {self.dof} df, p = "
                f"{self.p_value:.3g}")


def read_pilot(path: str | Path, field: str = "annotator_labels",
               columns: Sequence[str] | None = None) -> np.ndarray:
    r"""Read pilot votes into an (items x labels) count matrix.

    Parameters
    ----------
    path : str or Path
        ``.csv``: one row per item, one numeric column per label holding vote counts.
        ``.jsonl`` / ``.json``: one object per line whose ``field`` is the list of the
        item's annotator labels (e.g. SNLI's ``annotator_labels``).
    field : str
        JSON field with the labels.
    columns : sequence of str, optional
        CSV: the vote-count columns (default: every numeric column, so give this when
        the file also has a numeric id column).

    Returns
    -------
    ndarray of int
        Vote counts, shape (items, L); labels in sorted order for JSON input.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "votes.csv")
    >>> _ = open(p, "w").write("yes,no\n3,2\n5,0\n")
    >>> read_pilot(p).tolist()
    [[3, 2], [5, 0]]
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"pilot file not found: {path}")
    from labelvar import io

    if path.suffix.lower() in (".jsonl", ".json"):
        labels = []
        for i, rec in enumerate(io._read_jsonl_records(path)):
            if field not in rec:
                raise ValueError(f"pilot line {i + 1} has no field {field!r}")
            labels.append([str(x) for x in rec[field]])
        names = sorted({x for row in labels for x in row})
        index = {n: j for j, n in enumerate(names)}
        out = np.zeros((len(labels), max(2, len(names))), dtype=np.int64)
        for i, row in enumerate(labels):
            for x in row:
                out[i, index[x]] += 1
        return out
    df = io.read_frame(path)
    if columns is not None:
        missing = [c for c in columns if c not in df.columns]
        if missing:
            raise ValueError(f"pilot CSV {path} has no column(s) {', '.join(missing)}; "
                             f"columns: {', '.join(map(str, df.columns))}")
        df = df[list(columns)]
        if df.shape[1] != df.select_dtypes("number").shape[1]:
            raise ValueError(f"pilot columns must hold vote counts (numbers), got "
                             f"{dict(df.dtypes.astype(str))}")
    num = df.select_dtypes("number")
    if num.shape[1] < 2:
        raise ValueError(f"pilot CSV {path} needs one numeric vote-count column per label "
                         f"(>= 2), found {num.shape[1]}")
    return V.integer("pilot vote counts", num.to_numpy(), lo=0)


def fit_pilot(counts, method: str = "beta", n_labels: int | None = None,
              grid_size: int = 60) -> PilotFit:
    """Fit the item-agreement prior to pilot vote counts by maximum likelihood.

    Each item i has K_i >= 2 votes c_i (counts per label). Under the panel model the
    likelihood of an item is (1/L) sum_j E_θ[Multinomial(c_i; θ on label j, (1 - θ)/(L - 1)
    elsewhere)], the sum running over which label is modal (unobserved).

    Parameters
    ----------
    counts : array (items, L)
        Votes per label for every item (see :func:`read_pilot`).
    method : {"beta", "mixture"}
        ``"beta"``: Beta(a, b) on [1/L, 1], maximised over log a, log b (scipy.optimize,
        Gauss-Jacobi quadrature of degree 2 max(K_i) + 2, exact for these polynomials). ``"mixture"``:
        nonparametric maximum likelihood over a grid of θ in [1/L, 1] (EM), support
        points with weight < 1e-4 dropped and the rest renormalised.
    n_labels : int or None
        L; defaults to the number of columns.
    grid_size : int
        Grid points for ``"mixture"``.

    Returns
    -------
    PilotFit

    Examples
    --------
    >>> votes = [[5, 0], [4, 1], [3, 2], [5, 0], [4, 1], [5, 0]]
    >>> fit = fit_pilot(votes)
    >>> fit.method, fit.n_items, round(fit.prior.mean(2), 2)
    ('beta', 6, 0.86)
    """
    from scipy.optimize import minimize
    from scipy.special import logsumexp
    from scipy.stats import chi2 as chi2_dist

    V.choice("method", method, ("beta", "mixture"))
    c = V.integer("pilot vote counts", counts, lo=0)
    if c.ndim != 2 or c.shape[0] == 0:
        raise ValueError(f"pilot vote counts must be a non-empty (items, labels) matrix, "
                         f"got shape {c.shape}")
    L = int(V.n_labels(c.shape[1] if n_labels is None else n_labels))
    if c.shape[1] > L:
        raise ValueError(f"pilot has {c.shape[1]} label columns but n_labels={L}")
    if c.shape[1] < L:
        c = np.pad(c, ((0, 0), (0, L - c.shape[1])))
    k = c.sum(axis=1)
    if (k < 2).any():
        bad = np.flatnonzero(k < 2)
        raise ValueError(f"pilot items need at least 2 votes each; {bad.size} item(s) have fewer "
                         f"(first: item {bad[0]} with {k[bad[0]]})")
    pats, inverse, mult = np.unique(-np.sort(-c, axis=1), axis=0, return_inverse=True,
                                    return_counts=True)
    lo = 1.0 / L
    degree = 2 * int(k.max()) + 2

    if method == "beta":
        def nll(x):
            th, w = BetaPrior(math.exp(x[0]), math.exp(x[1])).nodes(L, degree)
            ll = logsumexp(_panel.log_pattern_likelihood(pats, np.clip(th, lo, 1 - 1e-15), L)
                           + np.log(w)[None, :], axis=1)
            return -float(mult @ ll)

        best = None
        for x0 in ([0.0, 0.0], [1.0, 0.0], [0.0, 1.0]):
            r = minimize(nll, x0, method="Nelder-Mead",
                         options={"xatol": 1e-6, "fatol": 1e-9, "maxiter": 2000})
            if best is None or r.fun < best.fun:
                best = r
        prior = BetaPrior(float(math.exp(best.x[0])), float(math.exp(best.x[1])))
        loglik, n_params = -float(best.fun), 2
    else:
        grid = np.linspace(lo, 1.0, grid_size)
        lp = _panel.log_pattern_likelihood(pats, np.clip(grid, lo, 1 - 1e-15), L)
        lp[:, -1] = _panel.log_pattern_likelihood(pats, np.array([1.0]), L)[:, 0]
        w = np.full(grid_size, 1.0 / grid_size)
        for _ in range(5000):
            lj = lp + np.log(np.maximum(w, 1e-300))[None, :]
            post = np.exp(lj - logsumexp(lj, axis=1, keepdims=True))
            w_new = mult @ post / mult.sum()
            if np.abs(w_new - w).max() < 1e-10:
                w = w_new
                break
            w = w_new
        keep = w >= 1e-4
        w = w[keep] / w[keep].sum()
        prior = DiscretePrior(tuple(grid[keep].tolist()), tuple(w.tolist()))
        th, ww = prior.nodes(L, degree)
        loglik = float(mult @ logsumexp(_panel.log_pattern_likelihood(pats, np.clip(th, lo, 1.0), L)
                                        + np.log(ww)[None, :], axis=1))
        n_params = 2 * int(keep.sum()) - 1
    # goodness of fit: observed vs expected items per pattern, within each K
    th, w = prior.nodes(L, degree)
    pp = np.exp(_panel.log_pattern_likelihood(pats, np.clip(th, lo, 1.0), L)) @ w
    # multiplicity of each sorted pattern among labelled patterns (label permutations)
    perms = np.array([math.factorial(L) / math.prod(math.factorial(int(v))
                                                      for v in np.unique(p, return_counts=True)[1])
                      for p in pats])
    kpat = pats.sum(axis=1)
    n_k = {kk: int(mult[kpat == kk].sum()) for kk in np.unique(kpat)}
    expected = np.array([n_k[kk] for kk in kpat]) * pp * perms
    table = pd.DataFrame({"votes": kpat, "pattern": ["-".join(map(str, p)) for p in pats],
                          "observed": mult, "expected": expected})
    chi2, dof = _pooled_chi2(table, n_params)
    top = np.where(c == c.max(axis=1, keepdims=True), 1.0, 0.0)
    class_prior = (top / top.sum(axis=1, keepdims=True)).mean(axis=0)
    return PilotFit(prior=prior, method=method, n_items=int(c.shape[0]), n_labels=L,
                    loglik=loglik, n_params=n_params, aic=2 * n_params - 2 * loglik,
                    class_prior=class_prior, table=table, chi2=chi2, dof=dof,
                    p_value=float(chi2_dist.sf(chi2, dof)) if dof > 0 else np.nan)


def _pooled_chi2(table: pd.DataFrame, n_params: int) -> tuple[float, int]:
    """Pearson chi-square over patterns; patterns with expected < 5 are pooled per K.

    Patterns never observed are not listed, so their expected mass joins the pooled cell.
    """
    chi2, cells = 0.0, 0
    for _, g in table.groupby("votes"):
        n = g["observed"].sum()
        big = g["expected"] >= 5
        chi2 += float((((g["observed"] - g["expected"]) ** 2) / g["expected"])[big].sum())
        cells += int(big.sum())
        rest_o = n - g.loc[big, "observed"].sum()
        rest_e = n - g.loc[big, "expected"].sum()
        if rest_e > 1e-9:
            chi2 += (rest_o - rest_e) ** 2 / rest_e
            cells += 1
        cells -= 1  # the total per K is fixed
    return chi2, max(cells - n_params, 0)


__all__ = ["PilotFit", "fit_pilot", "read_pilot"]
