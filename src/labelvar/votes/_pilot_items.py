"""Item-model pilot fits (:func:`fit_item_model`): per-item label distributions.

Dirichlet, Dirichlet mixture and empirical fits; the face is :mod:`labelvar.votes`.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from labelvar._base import _validate as V
from labelvar.votes import _panel
from labelvar.votes._pilot_predict import PilotFit, _item_counts, _pooled_chi2

#: ``fit_pilot`` methods that fit an item label-distribution model (:mod:`labelvar.votes`)
ITEM_METHODS = ("dirichlet", "dirichlet_mixture", "empirical")


@dataclasses.dataclass(repr=False)
class ItemModelFit(PilotFit):
    """An item label-distribution model fitted to pilot vote counts (absolute labels).

    The fields of :class:`PilotFit`, with ``prior`` the fitted
    :class:`~labelvar.DirichletItems`, :class:`~labelvar.DirichletMixture`
    or :class:`~labelvar.EmpiricalItems` (also ``model``), ``method`` one of
    ``"dirichlet"``, ``"dirichlet_mixture"``, ``"empirical"``, ``n_params`` counting
    (L - 1) per distinct vote share + the weights for the empirical model, and
    ``table`` holding labelled (not sorted) vote patterns.
    """

    @property
    def model(self):
        """The fitted item model (the same object as ``prior``)."""
        return self.prior

    def summary(self) -> str:
        """One line: the fitted model and its fit."""
        fit = (f"Pearson chi2 {self.chi2:.2f} on {self.dof} df, p = {self.p_value:.3g}"
               if self.dof > 0 else "goodness of fit not testable (0 df)")
        return (f"pilot: {self.n_items} items, L = {self.n_labels}; fitted "
                f"{self.model.describe()} (mean agreement {self.model.mean():.3f}); log-lik "
                f"{self.loglik:.2f}, AIC {self.aic:.2f}; {fit}")


def _dm_terms(pats, alpha):
    """Per pattern: log DirMult and its gradient w.r.t. log α, for α of shape (L,)."""
    from scipy.special import digamma

    n = pats.sum(axis=1)
    a0 = alpha.sum()
    ll = _panel.log_dirichlet_multinomial_pmf(pats, alpha[None])
    grad = alpha[None] * (digamma(a0) - digamma(n + a0)[:, None] + digamma(pats + alpha[None])
                          - digamma(alpha)[None])
    return ll, grad


def _fit_dirichlet_mixture(pats, mult, n_components, rng, n_starts):
    """Maximum likelihood of a k-component Dirichlet mixture (L-BFGS over log α, logits)."""
    from scipy.optimize import minimize
    from scipy.special import logsumexp, softmax

    L = pats.shape[1]
    k = n_components

    def unpack(x):
        return np.exp(x[: k * L].reshape(k, L)), np.concatenate([[0.0], x[k * L:]])

    def nll(x):
        alphas, logits = unpack(x)
        logw = logits - logsumexp(logits)
        parts = [_dm_terms(pats, a) for a in alphas]
        lj = np.stack([p[0] for p in parts], axis=1) + logw[None]  # (patterns, k)
        ll = logsumexp(lj, axis=1)
        r = np.exp(lj - ll[:, None]) * mult[:, None]  # responsibilities x multiplicity
        g_alpha = np.stack([r[:, j] @ parts[j][1] for j in range(k)])  # (k, L)
        g_logit = r.sum(axis=0) - mult.sum() * softmax(logits)
        return -float(mult @ ll), -np.concatenate([g_alpha.ravel(), g_logit[1:]])

    best = None
    share = (pats + 0.5) / (pats + 0.5).sum(axis=1, keepdims=True)
    for start in range(n_starts):
        if start == 0 and k == 1:
            x0 = np.log(share.T @ mult / mult.sum() * 2.0)  # mean share, precision 2
        else:  # component means from random items, precision ~ 1..10, equal weights
            idx = rng.choice(len(pats), size=k, p=mult / mult.sum())
            x0 = np.log(share[idx] * rng.uniform(1.0, 10.0, size=(k, 1))).ravel()
            x0 = np.concatenate([x0, np.zeros(k - 1)])
        r = minimize(nll, x0, jac=True, method="L-BFGS-B",
                     bounds=[(-12.0, 12.0)] * (k * L) + [(-30.0, 30.0)] * (k - 1),
                     options={"maxiter": 5000, "ftol": 1e-13, "gtol": 1e-8})
        if best is None or r.fun < best.fun:
            best = r
    alphas, logits = unpack(best.x)
    w = softmax(logits)
    order = np.argsort(-w, kind="stable")
    return alphas[order], w[order], -float(best.fun)


def fit_item_model(counts, method: str = "dirichlet", n_labels: int | None = None,
                   n_components: int = 2, seed=0, n_starts: int = 8) -> ItemModelFit:
    """Fit an item label-distribution model to pilot vote counts by maximum likelihood.

    Parameters
    ----------
    counts : array or DataFrame (items, L)
        Votes per (absolute) label for every item; any number (>= 1) of votes per item.
        The Dirichlet methods refuse (ValueError) a pilot with one vote per item (the
        likelihood depends on α only through α / α_0) or with every item unanimous
        (α_0 -> 0, no disagreement to fit; as :func:`fit_pilot` for θ).
    method : {"dirichlet", "dirichlet_mixture", "empirical"}
        ``"dirichlet"``: π ~ Dirichlet(α), one α per label (L parameters; the
        Dirichlet-multinomial likelihood, L-BFGS over log α with its exact gradient).
        ``"dirichlet_mixture"``: ``n_components`` Dirichlets with weights (direct
        optimisation from ``n_starts`` seeded starts, the best kept; components sorted
        by weight). ``"empirical"``: the items' vote shares c / n as the population of
        label distributions (:class:`labelvar.EmpiricalItems`): for many votes per
        item (e.g. ChaosNLI's 100); with few votes the shares overstate agreement.
    n_labels : int or None
        L; defaults to the number of columns.
    n_components : int
        ``"dirichlet_mixture"``: number of components (>= 1).
    seed : int, numpy.random.Generator or None
        Seed of the mixture's random starts (an int, or None for a fresh one).
    n_starts : int
        ``"dirichlet_mixture"``: random starts.

    Returns
    -------
    ItemModelFit

    Examples
    --------
    >>> votes = [[5, 0, 0], [4, 1, 0], [3, 2, 0], [0, 5, 0], [1, 3, 1], [0, 0, 5], [2, 2, 1]]
    >>> fit = fit_item_model(votes)
    >>> fit.model.describe(), fit.n_params, round(fit.loglik, 3)
    ('Dirichlet(0.636, 0.5929, 0.2868)', 3, -19.702)
    """
    from scipy.special import chdtrc

    from labelvar._base import _seeding
    from labelvar.votes._priors import DirichletItems, DirichletMixture, EmpiricalItems

    V.choice("method", method, ITEM_METHODS)
    n_starts = int(V.single("n_starts", V.integer("n_starts", n_starts, lo=1)))
    if isinstance(counts, pd.DataFrame):
        counts = counts.select_dtypes("number").to_numpy()
    c = _item_counts(counts, n_labels)
    L = c.shape[1]
    if method != "empirical" and (c.sum(axis=1) < 2).all():
        raise ValueError(f"pilot: every one of the {len(c)} items has 1 vote; one vote per item "
                         "shows the labels' shares but not how items differ (the Dirichlet's "
                         f"total concentration), so method={method!r} cannot be fitted (need items with >= 2 "
                         "votes)")
    if method != "empirical" and (c.max(axis=1) == c.sum(axis=1)).all():
        raise ValueError(f"pilot: every one of the {len(c)} items is unanimous; with no "
                         f"disagreement method={method!r} would put every item's label "
                         "distribution on one label (give theta=1 instead, or a pilot with "
                         "disagreement)")
    pats, mult = np.unique(c, axis=0, return_counts=True)
    if method == "empirical":
        model = EmpiricalItems.from_counts(c)
        shares = np.unique(c / c.sum(axis=1, keepdims=True), axis=0)
        n_params = len(shares) * (L - 1) + len(shares) - 1
    else:
        k = 1 if method == "dirichlet" else int(V.integer("n_components", n_components, lo=1))
        rng = _seeding.generator(seed, "labelvar.fit_item_model", k)
        concentrations, w, _ = _fit_dirichlet_mixture(pats, mult, k, rng,
                                                      1 if k == 1 else int(n_starts))
        model = (DirichletItems(tuple(concentrations[0])) if method == "dirichlet"
                 else DirichletMixture(tuple(map(tuple, concentrations)), tuple(w)))
        n_params = k * L + k - 1
    lp = model.loglik(pats)
    loglik = float(mult @ lp)
    kpat = pats.sum(axis=1)
    n_k = {kk: int(mult[kpat == kk].sum()) for kk in np.unique(kpat)}
    table = pd.DataFrame({"votes": kpat, "pattern": ["-".join(map(str, p)) for p in pats],
                          "observed": mult,
                          "expected": np.array([n_k[kk] for kk in kpat]) * np.exp(lp)})
    free = sum(math.comb(int(kk) + L - 1, L - 1) - 1 for kk in n_k)  # labelled patterns per K
    chi2, dof = _pooled_chi2(table, n_params, free)
    top = np.where(c == c.max(axis=1, keepdims=True), 1.0, 0.0)
    return ItemModelFit(prior=model, method=method, n_items=int(c.shape[0]),
                        loglik=loglik, n_params=n_params,
                        class_prior=(top / top.sum(axis=1, keepdims=True)).mean(axis=0),
                        table=table, chi2=chi2, dof=dof,
                        p_value=float(chdtrc(dof, chi2)) if dof > 0 else np.nan)
