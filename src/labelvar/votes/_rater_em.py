r"""The EM shared by every rater model (:mod:`labelvar.votes._rater_models`).

Parameters are held in the kernels' layout: ``lc`` (J + 1, L, G, L) = log P(rater j
says l | truth z, node g), row J the population rater. The E-step and the per-rater
statistics are numba kernels (:mod:`labelvar._kernels.raters`); a model's M-step works
on the small (J, L, G, L) statistics in numpy. This module knows no model by name: it
calls the methods of the rater-model protocol
(:class:`labelvar.votes._rater_models._base.RaterModelSpec`).

The truth prior is Dirichlet(2, ..., 2) (one pseudo-item per label) with a positive
``prior_strength``, the maximum-likelihood share (crowd-kit's) with ``prior_strength``
0.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading

import numba
import numpy as np

from labelvar._base._cpu import free_cpus
from labelvar._kernels import raters as rk

#: floor of a maximum-likelihood rate (crowd-kit's 1e-10): no log of zero
ML_FLOOR = 1e-10


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
    objective: float = -np.inf


@dataclasses.dataclass
class Data:
    """The encoded votes (by item); ``fixed``: gold truth codes (-1: none)."""

    item_ptr: np.ndarray
    rater: np.ndarray
    label: np.ndarray
    n_raters: int
    n_labels: int
    fixed: np.ndarray
    #: truth classes held at prior 0 (not identified by the votes), or None
    blocked: np.ndarray | None = None

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


#: below this much work per pass (votes x difficulty nodes x labels) the passes run on one
#: thread: a second thread gains nothing there (plain Dawid-Skene on 1e6 binary votes, 2e6:
#: 16 ms a pass on one thread or two; on 1e7 votes 142 ms vs 95 ms; with 7 difficulty nodes
#: on 1e6 votes 96-117 ms vs 51 ms). Results are the same on any number of threads.
PARALLEL_MIN_WORK = 5_000_000

#: the most threads the enclosing :func:`threads_for` allows (1: serial)
_ceiling = threading.local()


@contextlib.contextmanager
def threads_for(work: float):
    """Run the enclosed kernels on the threads the work pays for and the machine has free.

    ``work`` is votes x difficulty nodes x labels. Below :data:`PARALLEL_MIN_WORK` one
    thread; above, numba's threads, fewer when other processes hold cores
    (:func:`labelvar._base._cpu.free_cpus`, read again before every EM pass by
    :func:`retune`, so a fit gives a core back when another process starts).
    """
    before = numba.get_num_threads()
    outer = getattr(_ceiling, "n", None)
    ceiling = before if work >= PARALLEL_MIN_WORK else 1
    _ceiling.n = ceiling
    try:
        retune()
        yield
    finally:
        _ceiling.n = outer
        numba.set_num_threads(before)


def work(d: Data, spec) -> float:
    """Work of one pass over ``d`` under the model ``spec``: votes x nodes x labels."""
    return float(d.rater.size) * spec.n_nodes * d.n_labels


def retune() -> None:
    """Set numba's threads to the enclosing ceiling, at most the CPUs free right now."""
    ceiling = getattr(_ceiling, "n", None)
    if ceiling is None:
        return
    numba.set_num_threads(1 if ceiling <= 1 else min(ceiling, free_cpus()))


def n_chunks(d: Data, G: int) -> int:
    """Item ranges of a pass: fixed by the data's size, never by the thread count."""
    per = 8.0 * d.n_raters * d.n_labels * G * d.n_labels
    return int(max(1, min(MAX_CHUNKS, d.n_items, STATS_BYTES // max(per, 1))))


def run_pass(d: Data, p, weights, post=None):
    """(log_lik, S, T, Tk, H) of :func:`labelvar._kernels.raters.em_pass` at ``p``."""
    G = p.log_weights.size
    out = np.empty((0, G, d.n_labels)) if post is None else post
    retune()
    return rk.em_pass(d.item_ptr, d.rater, d.label, p.lc, p.log_prior, p.log_weights, d.fixed,
                      weights, d.n_raters, n_chunks(d, G), out)


# --------------------------------------------------------------------------- shared M-step parts
def prior_step(d: Data, T, s: float) -> np.ndarray:
    """Log P(truth): Dirichlet(2) MAP with ``s`` > 0, the mean posterior (ML) with ``s`` = 0.

    A blocked class (``d.blocked``) keeps prior 0.
    """
    tot = T.sum(axis=0)
    if s == 0:
        share = np.maximum(tot / max(tot.sum(), ML_FLOOR), ML_FLOOR)
    else:
        share = tot + 1.0
    if d.blocked is not None:
        share = np.where(d.blocked, 0.0, share)
    with np.errstate(divide="ignore"):
        return np.log(share / share.sum())


def pack_prior(log_prior: np.ndarray) -> np.ndarray:
    """The log prior for the extrapolation (a blocked class's -inf held at 0)."""
    return np.where(np.isfinite(log_prior), log_prior, 0.0)


def unpack_prior(theta: np.ndarray, d: Data) -> np.ndarray:
    """A packed log prior, normalised, blocked classes back at -inf."""
    if d.blocked is not None:
        theta = np.where(d.blocked, -np.inf, theta)
    return theta - np.logaddexp.reduce(theta)


def rows(counts, s):
    """MAP rows (counts + s pop) / (N + s), pop the pooled rows (+1 per cell); last axis sums.

    ``s`` = 0: the maximum-likelihood rows counts / N, floored at :data:`ML_FLOOR`.
    """
    if s == 0:
        r = np.maximum(counts, ML_FLOOR)
        return r / r.sum(axis=-1, keepdims=True)
    pool = counts.sum(axis=0) + 1.0
    pop = pool / pool.sum(axis=-1, keepdims=True)
    return (counts + s * pop) / (counts.sum(axis=-1, keepdims=True) + s)


def with_population(conf: np.ndarray, n_votes: np.ndarray) -> np.ndarray:
    """Append the population row: the vote-weighted mean rater (J, ...) -> (J + 1, ...)."""
    w = n_votes / max(n_votes.sum(), 1)
    if n_votes.sum() == 0:
        w = np.full(conf.shape[0], 1 / conf.shape[0])
    pop = np.tensordot(w, conf, axes=1)
    return np.concatenate([conf, pop[None]], axis=0)


def kernel_lc(conf: np.ndarray, d: Data) -> np.ndarray:
    """(J, z, l) confusion rows without difficulty -> kernel log confusion (J + 1, l, 1, z)."""
    conf = with_population(conf, d.rater_votes.astype(float))
    with np.errstate(divide="ignore"):
        return np.log(conf).transpose(0, 2, 1)[:, :, None, :].copy()


def start_stats(d: Data, w):
    """Statistics of the vote-share start (gold items at their truth): S (J, L, 1, L), T."""
    S, T = rk.share_stats(d.item_ptr, d.rater, d.label, d.fixed, w, d.n_raters, d.n_labels)
    return S[:, :, None, :], T[None, :]


# --------------------------------------------------------------------------- the EM
def fit(d: Data, spec, *, weights=None, start: Params | None = None, max_iter: int = 1000,
        tol: float = 1e-7, keep_post: bool = True, gold_start: bool = False) -> Params:
    """EM of the rater model ``spec`` to its MAP; stops when the objective per vote gains < ``tol``.

    ``start``: parameters to start from (a bootstrap's warm start); otherwise the
    model's :meth:`start` from the vote shares, or with ``gold_start`` from the gold
    items alone (the orientation they anchor). ``keep_post``: store the items' final
    posteriors (``p.post``, (n, G, L)).
    """
    n, L = d.n_items, d.n_labels
    w = np.ones(n) if weights is None else weights
    n_votes = max(float(np.repeat(w, np.diff(d.item_ptr)).sum()), 1.0)
    if start is not None:
        p = spec.copy_params(start)
    elif gold_start:
        p = spec.start(d, np.where(d.fixed >= 0, w, 0.0))
    else:
        p = spec.start(d, w)

    def update(p):
        """(objective per vote at p, log likelihood at p, the EM update of p)."""
        ll, S, T, _, _ = run_pass(d, p, w)
        return (ll + spec.penalty(p)) / n_votes, ll, spec.m_step(d, S, T, p)

    # SQUAREM (Varadhan & Roland 2008, scheme S3): two EM updates, an extrapolated point
    # theta0 - 2 alpha r + alpha^2 v, one EM update from it; back to the plain EM point
    # when the extrapolation lowers the objective
    old, passes = -np.inf, 0
    while passes < max_iter:
        obj0, ll0, p1 = update(p)
        passes += 1
        p.n_iter, p.log_lik, p.objective = passes, ll0, obj0
        if obj0 - old < tol:
            p.converged = True
            break
        old = obj0
        obj1, _, p2 = update(p1)
        passes += 1
        t0, t1, t2 = spec.pack(p, d), spec.pack(p1, d), spec.pack(p2, d)
        r, v = t1 - t0, t2 - 2 * t1 + t0
        alpha = -np.sqrt((r @ r) / (v @ v)) if v @ v > 0 else -1.0
        alpha = min(alpha, -1.0) if np.isfinite(alpha) else -1.0
        if alpha < -1.0:
            pe = spec.unpack(t0 - 2 * alpha * r + alpha ** 2 * v, p2, d)
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


def gold_rejects(d: Data, p: Params) -> bool:
    """Whether the gold items reject the fit's orientation.

    The fitted model's posterior mode of each gold item, *not* told its truth, is
    compared with the gold label: a relabelling of the classes (the label switch EM
    can converge to) that matches more gold items than the identity rejects the fit.
    Checked over every permutation of the labels up to L = 6, else over the swaps of
    two labels.
    """
    gold = np.flatnonzero(d.fixed >= 0)
    if gold.size == 0:
        return False
    free = dataclasses.replace(d, fixed=np.full(d.n_items, -1, np.int64))
    post = np.empty((d.n_items, p.log_weights.size, d.n_labels))
    rk.e_step(free.item_ptr, free.rater, free.label, p.lc, p.log_prior, p.log_weights, free.fixed,
              np.ones(d.n_items), post)
    mode = post.sum(axis=1)[gold].argmax(axis=1)
    truth = d.fixed[gold]
    hits = int((mode == truth).sum())
    L = d.n_labels
    if L <= 6:
        import itertools

        perms = (np.array(q) for q in itertools.permutations(range(L)))
    else:
        perms = []
        for a in range(L):
            for b in range(a + 1, L):
                q = np.arange(L)
                q[[a, b]] = q[[b, a]]
                perms.append(q)
    return any(int((q[mode] == truth).sum()) > hits for q in perms)
