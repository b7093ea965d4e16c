r"""EM / MAP fits of the rater models on encoded votes (:mod:`labelvar.votes._rater_data`).

Parameters are held in the kernels' layout: ``lc`` (J + 1, L, G, L) = log P(rater j
says l | truth z, node g), row J the population rater. The E-step and the per-rater
statistics are numba kernels (:mod:`labelvar._kernels.raters`); the M-steps work on
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

import contextlib
import dataclasses

import numba
import numpy as np
from scipy.special import expit

from labelvar._kernels import raters as rk

MODELS = ("one_coin", "dawid_skene", "dawid_skene_difficulty")
#: Gauss-Hermite nodes of the difficulty model
N_NODES = 7
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
    e: np.ndarray | None = None  # (J, L, L) error shares (difficulty model)
    n_iter: int = 0
    log_lik: float = np.nan
    converged: bool = False


@dataclasses.dataclass
class Data:
    """The encoded votes (by item); ``fixed``: gold truth codes (-1: none)."""

    item_ptr: np.ndarray
    rater: np.ndarray
    label: np.ndarray
    n_raters: int
    n_labels: int
    fixed: np.ndarray

    @property
    def n_items(self) -> int:
        return self.item_ptr.size - 1

    @property
    def rater_votes(self) -> np.ndarray:
        """Votes per rater (= items per rater: one vote per item and rater)."""
        return np.bincount(self.rater, minlength=self.n_raters)[:self.n_raters]


#: bytes of the per-range rater statistics the fit may hold at once
STATS_BYTES = 256e6
#: item ranges of :func:`labelvar._kernels.raters.em_pass` (fewer when raters are many)
MAX_CHUNKS = 16


#: below this many votes the kernels run on one thread (a parallel region's start-up costs
#: more than the work; results are the same on any number of threads)
PARALLEL_MIN_VOTES = 200_000


@contextlib.contextmanager
def threads_for(n_votes: int):
    """Run the enclosed kernels on one thread when the data is small."""
    before = numba.get_num_threads()
    if n_votes >= PARALLEL_MIN_VOTES or before == 1:
        yield
        return
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(before)


def n_chunks(d: Data, G: int) -> int:
    """Item ranges of a pass: fixed by the data's size, never by the thread count."""
    per = 8.0 * d.n_raters * d.n_labels * G * d.n_labels
    return int(max(1, min(MAX_CHUNKS, d.n_items, STATS_BYTES // max(per, 1))))


def from_votes(votes, fixed) -> Data:
    return Data(votes.item_ptr, votes.rater, votes.label, len(votes.raters), len(votes.labels),
                fixed)


def run_pass(d: Data, p, weights, post=None):
    """(log_lik, S, T, Tk, H) of :func:`labelvar._kernels.raters.em_pass` at ``p``."""
    G = p.log_weights.size
    out = np.empty((0, G, d.n_labels)) if post is None else post
    return rk.em_pass(d.item_ptr, d.rater, d.label, p.lc, p.log_prior, p.log_weights, d.fixed,
                      weights, d.n_raters, n_chunks(d, G), out)


def hermite(G: int, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """Standard Gauss-Hermite nodes x and log weights for N(0, 1)."""
    if G == 1:
        return np.zeros(1), np.zeros(1)
    x, w = np.polynomial.hermite_e.hermegauss(G)
    return x, np.log(w / w.sum())


def _prior_step(d: Data, T) -> np.ndarray:
    tot = T.sum(axis=0)
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
    conf = _with_population(conf, d.rater_votes.astype(float))
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
    p.a, p.sigma, p.e = a, sigma, e
    p.nodes = sigma * x
    p.lc = difficulty_lc(a, sigma, x, e, d.rater_votes.astype(float))


def _penalty(p: Params) -> float:
    """Log prior density terms that the EM maximises besides the evidence (difficulty: a)."""
    if p.a is None:
        return 0.0
    return float(-((p.a - p.a.mean(axis=0)) ** 2).sum() / (2 * TAU ** 2))


def _start_stats(d: Data, w):
    """Statistics of the vote-share start (gold items at their truth): S (J, L, 1, L), T."""
    S, T = rk.share_stats(d.item_ptr, d.rater, d.label, d.fixed, w, d.n_raters, d.n_labels)
    return S[:, :, None, :], T[None, :]


def fit(d: Data, model: str, *, prior_strength: float = 2.0, weights=None, start: Params | None = None,
        max_iter: int = 1000, tol: float = 1e-7, n_nodes: int = N_NODES, keep_post: bool = True) -> Params:
    """EM to a MAP of ``model``; stops when the log posterior per vote gains < ``tol``.

    ``start``: parameters to start from (a bootstrap's warm start); otherwise the
    vote shares (Dawid-Skene, one-coin) or a Dawid-Skene fit (difficulty).
    ``keep_post``: store the items' final posteriors (``p.post``, (n, G, L)).
    """
    n, L = d.n_items, d.n_labels
    w = np.ones(n) if weights is None else weights
    n_votes = max(float(np.repeat(w, np.diff(d.item_ptr)).sum()), 1.0)
    diff = model == "dawid_skene_difficulty"
    if diff:
        x, logw = hermite(n_nodes, 1.0)
        if start is None:
            ds = fit(d, "dawid_skene", prior_strength=prior_strength, weights=weights,
                     max_iter=200, tol=1e-6, keep_post=False)
            J = d.n_raters
            cz = np.clip(np.exp(ds.lc[:J, np.arange(L), 0, np.arange(L)]), 1e-6, 1 - 1e-6)  # (J, z)
            # abilities whose mean accuracy over N(0, 1) difficulty is about the DS one
            # (the logistic-normal mean ~ logit^-1(a / sqrt(1 + pi sigma^2 / 8)))
            a = np.log(cz / (1 - cz)) * np.sqrt(1 + np.pi / 8)
            e = _spread(d, run_pass(d, ds, w)[1], prior_strength) if L > 2 else 1 - np.eye(L)[None]
            e = np.broadcast_to(e, (J, L, L)).copy()
            p = Params(ds.log_prior, x.copy(), logw,
                       difficulty_lc(a, 1.0, x, e, d.rater_votes.astype(float)), a=a, sigma=1.0, e=e)
        else:
            p = dataclasses.replace(start, a=start.a.copy())
    elif start is None:
        S, T = _start_stats(d, w)
        p = Params(_prior_step(d, T), np.zeros(1), np.zeros(1),
                   _ds_m(d, S, prior_strength, model == "one_coin"))
    else:
        p = dataclasses.replace(start)
    one_coin = model == "one_coin"
    J = d.n_raters
    votes_j = d.rater_votes.astype(float)

    def update(p):
        """(log posterior per vote at p, the EM update of p)."""
        ll, S, T, _, _ = run_pass(d, p, w)
        q = dataclasses.replace(p, log_prior=_prior_step(d, T))
        if diff:
            _difficulty_m(d, S, q, x, prior_strength)
        else:
            q.lc = _ds_m(d, S, prior_strength, one_coin)
        return (ll + _penalty(p)) / n_votes, ll, q

    def pack(p):
        if diff:
            parts = [p.a.ravel(), [np.log(p.sigma)], p.log_prior]
            if L > 2:
                off = ~np.eye(L, dtype=bool)
                parts.append(np.log(p.e[:, off]).ravel())
            return np.concatenate(parts)
        return np.concatenate([p.lc[:J, :, 0, :].ravel(), p.log_prior])

    def unpack(theta, like):
        lp = theta[-L:] - np.logaddexp.reduce(theta[-L:])
        if diff:
            a = theta[:J * L].reshape(J, L)
            sigma = float(np.clip(np.exp(theta[J * L]), 1e-3, 10.0))
            e = like.e
            if L > 2:
                off = ~np.eye(L, dtype=bool)
                le = theta[J * L + 1:-L].reshape(J, L, L - 1)
                le = le - np.logaddexp.reduce(le, axis=2, keepdims=True)
                e = np.zeros((J, L, L))
                e[:, off] = np.exp(le).reshape(J, -1)
            return dataclasses.replace(like, a=a, sigma=sigma, e=e, nodes=sigma * x, log_prior=lp,
                                       lc=difficulty_lc(a, sigma, x, e, votes_j))
        lc = theta[:-L].reshape(J, L, L)  # (j, said, truth)
        conf = np.exp(lc - np.logaddexp.reduce(lc, axis=1, keepdims=True)).transpose(0, 2, 1)
        conf = _with_population(conf, votes_j)
        return dataclasses.replace(like, log_prior=lp,
                                   lc=np.log(conf).transpose(0, 2, 1)[:, :, None, :].copy())

    # SQUAREM (Varadhan & Roland 2008, scheme S3): two EM updates, an extrapolated point
    # theta0 - 2 alpha r + alpha^2 v, one EM update from it; back to the plain EM point
    # when the extrapolation lowers the objective
    old, passes = -np.inf, 0
    while passes < max_iter:
        obj0, ll0, p1 = update(p)
        passes += 1
        p.n_iter, p.log_lik = passes, ll0
        if obj0 - old < tol:
            p.converged = True
            break
        old = obj0
        obj1, _, p2 = update(p1)
        passes += 1
        t0, t1, t2 = pack(p), pack(p1), pack(p2)
        r, v = t1 - t0, t2 - 2 * t1 + t0
        alpha = -np.sqrt((r @ r) / (v @ v)) if v @ v > 0 else -1.0
        alpha = min(alpha, -1.0) if np.isfinite(alpha) else -1.0
        if alpha < -1.0:
            pe = unpack(t0 - 2 * alpha * r + alpha ** 2 * v, p2)
            obj_e, _, p_next = update(pe)
            passes += 1
            if np.isfinite(obj_e) and obj_e >= obj1:
                p = p_next
                continue
        p = p2
    if keep_post:
        p.post = np.empty((n, p.log_weights.size, L))
        rk.e_step(d.item_ptr, d.rater, d.label, p.lc, p.log_prior, p.log_weights, d.fixed, w,
                  p.post)
    return p


def crowdkit(d: Data, n_iter: int, tol: float):
    """crowd-kit 1.4.2's ``DawidSkene`` EM on these kernels.

    Maximum likelihood, the 1e-10 floor of observed rates, the vote-share start, its
    lower bound and stopping rule.
    """
    n, L, J = d.n_items, d.n_labels, d.n_raters
    w = np.ones(n)
    has = np.diff(d.item_ptr) > 0
    used = np.zeros((J, L), dtype=bool)
    used[d.rater, d.label] = True

    def m_step(S):  # S (J, l, 1, z) -> kernel log confusion with a (zero) population row
        err = np.where(used[:, :, None], np.maximum(S[:, :, 0, :], _CK_EPS), 0.0)
        err = err / err.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore"):
            le = np.log(err)
        le = np.where(np.isfinite(le), le, 0.0)
        return le, np.concatenate([le, np.zeros((1, L, L))])[:, :, None, :]

    S, T = _start_stats(d, w)
    prior = T[0] / max(has.sum(), 1)
    le, lc = m_step(S)
    loss, it = -np.inf, 0
    n_votes = d.rater.size
    p = Params(np.log(np.maximum(prior, _CK_EPS)), np.zeros(1), np.zeros(1), lc)
    post = np.empty((n, 1, L))
    while it < int(n_iter):
        it += 1
        _, S, T, Tk, H = run_pass(d, p, w, post)
        prior = T[0] / max(has.sum(), 1)
        le, p.lc = m_step(S)
        p.log_prior = np.log(np.maximum(prior, _CK_EPS))
        joint = (S[:, :, 0, :] * le).sum() + Tk[0] @ p.log_prior
        new = float((joint - H) / n_votes)
        if new - loss < tol:
            break
        loss = new
    return post[:, 0], it
