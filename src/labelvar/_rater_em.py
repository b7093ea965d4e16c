r"""EM / MAP fits of the rater models on encoded votes (:mod:`labelvar._rater_data`).

Parameters are held in the kernels' layout: ``lc`` (J + 1, L, G, L) = log P(rater j
says l | truth z, node g), row J the population rater. The E-step and the per-rater
statistics are numba kernels (:mod:`labelvar._rater_kernels`); the M-steps work on
the small (J, L, G, L) statistics in numpy.

Priors (MAP; weak, none gives a zero rate):

- truth prior: Dirichlet(2, ..., 2) (one pseudo-item per label);
- Dawid-Skene rows: rater j's row z ~ Dirichlet(1 + s * pop_z), pop_z the pooled
  confusion row of all raters (+ 1 pseudo-vote per cell), s = ``prior_strength``
  (default 2): a rater who saw few items is pulled to the pool, MAP row
  (S_jz + s pop_z) / (N_jz + s);
- one-coin: accuracy a_j ~ Beta-like pull of ``prior_strength`` votes to the pooled
  accuracy;
- difficulty: the logit abilities a_jz ~ N(mu_z, ``tau``^2) (tau = 2.5), mu_z the mean
  over raters (empirical Bayes); item difficulty beta ~ N(0, sigma^2), sigma fitted,
  integrated by Gauss-Hermite quadrature on G nodes; the error label spread
  e_j[z, .] as the Dawid-Skene rows (off the diagonal).
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy.special import expit

from labelvar import _rater_kernels as rk

MODELS = ("one_coin", "dawid_skene", "dawid_skene_difficulty")
#: Gauss-Hermite nodes of the difficulty model
N_NODES = 11
TAU = 2.5
_CK_EPS = 1e-10  # crowd-kit's floor


@dataclasses.dataclass
class Params:
    """Fitted parameters (kernel layout) and the fit's record."""

    log_prior: np.ndarray  # (L,)
    nodes: np.ndarray  # (G,)
    log_weights: np.ndarray  # (G,)
    lc: np.ndarray  # (J + 1, L, G, L)
    a: np.ndarray | None = None  # (J, L) logit abilities (difficulty model)
    sigma: float = 0.0
    n_iter: int = 0
    log_lik: float = np.nan
    converged: bool = False


@dataclasses.dataclass
class Data:
    """The encoded votes with both sparse orders; ``fixed``: gold truth codes (-1: none)."""

    item_ptr: np.ndarray
    rater: np.ndarray
    label: np.ndarray
    rater_ptr: np.ndarray
    r_item: np.ndarray
    r_label: np.ndarray
    n_raters: int
    n_labels: int
    fixed: np.ndarray

    @property
    def n_items(self) -> int:
        return self.item_ptr.size - 1


def from_votes(votes, fixed) -> Data:
    J = len(votes.raters)
    ptr, it, lab = votes.by_rater(J)
    return Data(votes.item_ptr, votes.rater, votes.label, ptr, it, lab, J, len(votes.labels),
                fixed)


def hermite(G: int, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """Standard Gauss-Hermite nodes x and log weights for N(0, 1)."""
    if G == 1:
        return np.zeros(1), np.zeros(1)
    x, w = np.polynomial.hermite_e.hermegauss(G)
    return x, np.log(w / w.sum())


def _e(d: Data, p: Params, weights, post) -> float:
    return rk.e_step(d.item_ptr, d.rater, d.label, p.lc, p.log_prior, p.log_weights, d.fixed,
                     weights, post)


def _prior_step(d: Data, post, weights) -> np.ndarray:
    tot = rk.item_sums(post, weights).sum(axis=0)
    return np.log((tot + 1.0) / (tot.sum() + d.n_labels))


def _rows(counts, s):
    """MAP rows (counts + s pop) / (N + s), pop the pooled rows (+1 per cell); last axis sums."""
    pool = counts.sum(axis=0) + 1.0
    pop = pool / pool.sum(axis=-1, keepdims=True)
    return (counts + s * pop) / (counts.sum(axis=-1, keepdims=True) + s)


def _with_population(conf: np.ndarray, n_votes: np.ndarray) -> np.ndarray:
    """Append the population row: the vote-weighted mean rater (J, ...) -> (J + 1, ...)."""
    w = n_votes / max(n_votes.sum(), 1)
    if n_votes.sum() == 0:
        w = np.full(conf.shape[0], 1 / conf.shape[0])
    pop = np.tensordot(w, conf, axes=1)
    return np.concatenate([conf, pop[None]], axis=0)


def _ds_m(d: Data, S, s: float, one_coin: bool) -> np.ndarray:
    C = S[:, :, 0, :].transpose(0, 2, 1)  # (J, z, l)
    L = d.n_labels
    if one_coin:
        corr = np.trace(C, axis1=1, axis2=2)
        tot = C.sum(axis=(1, 2))
        pool = (corr.sum() + 1.0) / (tot.sum() + 2.0)
        a = (corr + s * pool) / (tot + s)
        conf = np.broadcast_to(((1 - a) / (L - 1))[:, None, None], C.shape).copy()
        idx = np.arange(L)
        conf[:, idx, idx] = a[:, None]
    else:
        conf = _rows(C, s)
    conf = _with_population(conf, np.diff(d.rater_ptr).astype(float))
    return np.log(conf).transpose(0, 2, 1)[:, :, None, :].copy()  # (J + 1, l, 1, z)


def _spread(d: Data, S, s: float) -> np.ndarray:
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
    conf = _with_population(conf, n_votes)
    with np.errstate(divide="ignore"):
        return np.log(conf).transpose(0, 3, 1, 2).copy()  # (J + 1, l, G, z)


def _difficulty_m(d: Data, S, p: Params, x, s: float, steps: int = 3):
    J, L = d.n_raters, d.n_labels
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
    e = _spread(d, S, s) if L > 2 else np.ones((J, L, L)) - np.eye(L)
    p.a, p.sigma = a, sigma
    p.nodes = sigma * x
    p.lc = difficulty_lc(a, sigma, x, e, np.diff(d.rater_ptr).astype(float))


def _penalty(p: Params) -> float:
    """Log prior density terms that the EM maximises besides the evidence (difficulty: a)."""
    if p.a is None:
        return 0.0
    return float(-((p.a - p.a.mean(axis=0)) ** 2).sum() / (2 * TAU ** 2))


def fit(d: Data, model: str, *, prior_strength: float = 2.0, weights=None, start: Params | None = None,
        max_iter: int = 1000, tol: float = 1e-8, n_nodes: int = N_NODES) -> Params:
    """EM to a MAP of ``model``; stops when the log posterior per vote gains < ``tol``.

    ``start``: parameters to start from (a bootstrap's warm start); otherwise the
    vote shares (Dawid-Skene, one-coin) or a Dawid-Skene fit (difficulty).
    """
    n, L, J = d.n_items, d.n_labels, d.n_raters
    w = np.ones(n) if weights is None else weights
    n_votes = max(float(np.repeat(w, np.diff(d.item_ptr)).sum()), 1.0)
    diff = model == "dawid_skene_difficulty"
    if diff:
        x, logw = hermite(n_nodes, 1.0)
        if start is None:
            ds = fit(d, "dawid_skene", prior_strength=prior_strength, weights=weights,
                     max_iter=200, tol=1e-6)
            cz = np.exp(ds.lc[:J, np.arange(L), 0, np.arange(L)])  # (J, z)
            p = Params(ds.log_prior, x.copy(), logw, ds.lc, a=np.log(cz / (1 - cz)), sigma=0.5)
            post = np.empty((n, 1, L))
            _e(d, ds, w, post)
            post = np.repeat(post, n_nodes, axis=1) / 1.0
            S = rk.rater_stats(d.rater_ptr, d.r_item, d.r_label, post, w, L) * np.exp(logw)[
                None, None, :, None]
            _difficulty_m(d, S, p, x, prior_strength)
        else:
            p = dataclasses.replace(start, a=start.a.copy())
        post = np.empty((n, n_nodes, L))
    else:
        if start is None:
            counts = np.zeros((n, 1, L))
            item_of = np.repeat(np.arange(n), np.diff(d.item_ptr))
            np.add.at(counts, (item_of, 0, d.label), 1.0)
            tot = counts.sum(axis=2, keepdims=True)
            post = np.where(tot > 0, counts / np.maximum(tot, 1), 1.0 / L)
            if (d.fixed >= 0).any():
                g = np.flatnonzero(d.fixed >= 0)
                post[g] = 0.0
                post[g, 0, d.fixed[g]] = 1.0
            S = rk.rater_stats(d.rater_ptr, d.r_item, d.r_label, post, w, L)
            p = Params(_prior_step(d, post, w), np.zeros(1), np.zeros(1),
                       _ds_m(d, S, prior_strength, model == "one_coin"))
        else:
            p = dataclasses.replace(start)
        post = np.empty((n, 1, L))
    old = -np.inf
    for it in range(1, max_iter + 1):
        ll = _e(d, p, w, post)
        obj = (ll + _penalty(p)) / n_votes
        p.n_iter, p.log_lik = it, ll
        if obj - old < tol:
            p.converged = True
            break
        old = obj
        S = rk.rater_stats(d.rater_ptr, d.r_item, d.r_label, post, w, L)
        p.log_prior = _prior_step(d, post, w)
        if diff:
            _difficulty_m(d, S, p, x, prior_strength)
        else:
            p.lc = _ds_m(d, S, prior_strength, model == "one_coin")
    p.post = post
    return p


def crowdkit(d: Data, n_iter: int, tol: float):
    """crowd-kit 1.4.2's ``DawidSkene`` EM on these kernels.

    Maximum likelihood, the 1e-10 floor of observed rates, the vote-share start, its
    lower bound and stopping rule.
    """
    n, L, J = d.n_items, d.n_labels, d.n_raters
    w = np.ones(n)
    counts = np.zeros((n, 1, L))
    item_of = np.repeat(np.arange(n), np.diff(d.item_ptr))
    np.add.at(counts, (item_of, 0, d.label), 1.0)
    k = counts.sum(axis=2)[:, 0]
    has = k > 0
    post = np.where(k[:, None, None] > 0, counts / np.maximum(k, 1)[:, None, None], 1.0 / L)
    used = np.zeros((J, L), dtype=bool)
    used[d.rater, d.label] = True

    def m_step(post):
        S = rk.rater_stats(d.rater_ptr, d.r_item, d.r_label, post, w, L)[:, :, 0, :]  # (J, l, z)
        err = np.where(used[:, :, None], np.maximum(S, _CK_EPS), 0.0)
        err = err / err.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore"):
            le = np.log(err)
        return S, np.where(np.isfinite(le), le, 0.0)

    prior = post[has, 0].mean(axis=0)
    S, le = m_step(post)
    lc = np.concatenate([le, np.zeros((1, L, L))])[:, :, None, :]
    loss, it = -np.inf, 0
    n_votes = d.rater.size
    fixed = np.full(n, -1, dtype=np.int64)
    while it < int(n_iter):
        it += 1
        rk.e_step(d.item_ptr, d.rater, d.label, lc, np.log(np.maximum(prior, _CK_EPS)),
                  np.zeros(1), fixed, w, post)
        prior = post[has, 0].mean(axis=0)
        S, le = m_step(post)
        lc = np.concatenate([le, np.zeros((1, L, L))])[:, :, None, :]
        tc = post[has, 0]
        joint = (S * le).sum() + (k[has] @ tc) @ np.log(np.maximum(prior, _CK_EPS))
        tcl = np.maximum(tc, _CK_EPS)
        new = float((joint - (np.log(tcl) * tcl).sum()) / n_votes)
        if new - loss < tol:
            break
        loss = new
    return post[:, 0], it
