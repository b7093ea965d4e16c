r"""Dawid-Skene with item difficulty (Carpenter 2019's binary model, extended to any L).

:math:`P(j \text{ is right} \mid z, i) = \mathrm{logit}^{-1}(a_{j,z} - \beta_i)`; a wrong
vote says l with the rater's error share e_j[z, l] (the off-diagonal of its confusion
row, normalised; for L = 2 the one other label). For L = 2, :math:`a_{j,1}` is
Carpenter's :math:`\alpha_j` (sensitivity) and :math:`a_{j,0}` his :math:`\gamma_j`
(specificity). The difficulty :math:`\beta_i \sim N(0, \sigma^2)`, σ fitted, is integrated
by Gauss-Hermite quadrature on G nodes (``n_nodes``, default 7: the fitted model *is*
that G-node mixture, so predictions and the check use the same nodes).

Priors: the logit abilities a_jz ~ N(mu_z, ``tau``^2) (tau = 2.5), mu_z the mean over
raters (empirical Bayes); the error shares e_j[z, .] as the Dawid-Skene rows (off the
diagonal), pulled by ``prior_strength``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy.special import expit

from labelvar._base import _validate as V
from labelvar.votes import _rater_em as em
from labelvar.votes._rater_models._base import RaterModelSpec
from labelvar.votes._rater_models._registry import register
from labelvar.votes._rater_models.dawid_skene import DawidSkene

#: Gauss-Hermite nodes of the difficulty distribution (default)
N_NODES = 7
#: sd of the abilities' normal prior around their mean
TAU = 2.5


def hermite(G: int) -> tuple[np.ndarray, np.ndarray]:
    """Standard Gauss-Hermite nodes x and log weights for N(0, 1)."""
    if G == 1:
        return np.zeros(1), np.zeros(1)
    x, w = np.polynomial.hermite_e.hermegauss(G)
    return x, np.log(w / w.sum())


def spread(d, S, s: float) -> np.ndarray:
    """Error shares e[j, z, l] (l != z, rows sum to 1 off the diagonal); zero on it."""
    L = d.n_labels
    W = S.sum(axis=2).transpose(0, 2, 1).copy()  # (J, z, l)
    idx = np.arange(L)
    W[:, idx, idx] = 0.0
    pool = W.sum(axis=0) + 1.0
    pool[idx, idx] = 0.0
    pop = pool / pool.sum(axis=-1, keepdims=True)
    e = (W + s * pop) / (W.sum(axis=-1, keepdims=True) + s)
    e[:, idx, idx] = 0.0
    return e


def difficulty_lc(a, sigma, x, e, n_votes) -> np.ndarray:
    """Kernel log confusion of the difficulty model (with the population row)."""
    J, L = a.shape
    eta = a[:, :, None] - sigma * x[None, None, :]  # (J, z, G)
    conf = np.empty((J, x.size, L, L))  # (J, G, z, l)
    right = expit(eta).transpose(0, 2, 1)  # (J, G, z)
    conf[:] = (1.0 - right)[:, :, :, None] * e[:, None, :, :]
    idx = np.arange(L)
    conf[:, :, idx, idx] = right
    conf = em.with_population(conf, n_votes)
    with np.errstate(divide="ignore"):
        return np.log(conf).transpose(0, 3, 1, 2).copy()  # (J + 1, l, G, z)


@register
class DawidSkeneDifficulty(RaterModelSpec):
    """Dawid-Skene with item difficulty integrated over ``n_nodes`` Gauss-Hermite nodes.

    Examples
    --------
    >>> DawidSkeneDifficulty(n_nodes=9).n_nodes
    9
    """

    name = "dawid_skene_difficulty"

    def __init__(self, *, prior_strength: float = 2.0, n_nodes: int = N_NODES):
        super().__init__(prior_strength=prior_strength)
        self.n_nodes = int(V.single("n_nodes", V.integer("n_nodes", n_nodes, lo=2, hi=101)))
        self._x, self._logw = hermite(self.n_nodes)

    def options(self) -> dict:
        return {"prior_strength": self.prior_strength, "n_nodes": self.n_nodes}

    def n_parameters(self, n_raters: int, n_labels: int) -> int:
        return (n_raters * n_labels + 1 + n_labels - 1
                + n_raters * n_labels * max(n_labels - 2, 0))

    def start(self, d, w):
        """Abilities whose mean accuracy over N(0, 1) difficulty is about a Dawid-Skene fit's."""
        s, x, L, J = self.prior_strength, self._x, d.n_labels, d.n_raters
        base = DawidSkene(prior_strength=s)
        ds = em.fit(d, base, weights=w, start=base.start(d, w), max_iter=200, tol=1e-6,
                    keep_post=False)
        cz = np.clip(np.exp(ds.lc[:J, np.arange(L), 0, np.arange(L)]), 1e-6, 1 - 1e-6)  # (J, z)
        # the logistic-normal mean ~ logit^-1(a / sqrt(1 + pi sigma^2 / 8))
        a = np.log(cz / (1 - cz)) * np.sqrt(1 + np.pi / 8)
        e = spread(d, em.run_pass(d, ds, w)[1], s) if L > 2 else 1 - np.eye(L)[None]
        e = np.broadcast_to(e, (J, L, L)).copy()
        return em.Params(ds.log_prior, x.copy(), self._logw.copy(),
                         difficulty_lc(a, 1.0, x, e, d.rater_votes.astype(float)), a=a, sigma=1.0,
                         e=e)

    def m_step(self, d, S, T, p, steps: int = 3):
        J, L, x, s = d.n_raters, d.n_labels, self._x, self.prior_strength
        idx = np.arange(L)
        C = S[:, idx, :, idx].transpose(1, 0, 2)  # (J, z, G): said z given truth z
        N = S.sum(axis=1).transpose(0, 2, 1)  # (J, z, G)
        a, sigma = p.a.copy(), p.sigma
        for _ in range(steps):
            mu = a.mean(axis=0, keepdims=True)
            for _ in range(2):
                q = expit(a[:, :, None] - sigma * x)
                grad = (C - N * q).sum(axis=2) - (a - mu) / TAU ** 2
                hess = -(N * q * (1 - q)).sum(axis=2) - 1 / TAU ** 2
                a = a - grad / hess
            for _ in range(2):
                q = expit(a[:, :, None] - sigma * x)
                r = C - N * q
                grad = -(x * r).sum()
                hess = -(x ** 2 * N * q * (1 - q)).sum()
                if hess < 0:
                    sigma = float(np.clip(sigma - grad / hess, 1e-3, 10.0))
        e = spread(d, S, s) if L > 2 else np.ones((J, L, L)) - np.eye(L)
        return dataclasses.replace(p, log_prior=em.prior_step(d, T, s), a=a, sigma=sigma, e=e,
                                   nodes=sigma * x,
                                   lc=difficulty_lc(a, sigma, x, e, d.rater_votes.astype(float)))

    def penalty(self, p) -> float:
        return float(-((p.a - p.a.mean(axis=0)) ** 2).sum() / (2 * TAU ** 2))

    def pack(self, p, d) -> np.ndarray:
        L = d.n_labels
        parts = [p.a.ravel(), [np.log(p.sigma)], em.pack_prior(p.log_prior)]
        if L > 2:
            off = ~np.eye(L, dtype=bool)
            parts.append(np.log(p.e[:, off]).ravel())
        return np.concatenate(parts)

    def unpack(self, theta, like, d):
        J, L, x = d.n_raters, d.n_labels, self._x
        lp = em.unpack_prior(theta[J * L + 1:J * L + 1 + L], d)
        a = theta[:J * L].reshape(J, L)
        sigma = float(np.clip(np.exp(theta[J * L]), 1e-3, 10.0))
        e = like.e
        if L > 2:
            off = ~np.eye(L, dtype=bool)
            le = theta[J * L + 1 + L:].reshape(J, L, L - 1)
            le = le - np.logaddexp.reduce(le, axis=2, keepdims=True)
            e = np.zeros((J, L, L))
            e[:, off] = np.exp(le).reshape(J, -1)
        return dataclasses.replace(like, a=a, sigma=sigma, e=e, nodes=sigma * x, log_prior=lp,
                                   lc=difficulty_lc(a, sigma, x, e, d.rater_votes.astype(float)))
