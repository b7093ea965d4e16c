"""The rater-model protocol: what the shared EM (:mod:`labelvar.votes._rater_em`) needs.

A rater model is a small class with a registered ``name`` and five methods; the EM,
the E-step kernels, the skills table, the bootstrap and the check are shared. To add
a model, write one file in this folder with one subclass of :class:`RaterModelSpec`
and decorate it with :func:`labelvar.votes._rater_models.register` (or call
``register`` on it from anywhere): nothing else changes.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from labelvar._base import _validate as V


class RaterModelSpec:
    """Base of the rater models: options, and the protocol the EM calls.

    Subclasses set ``name`` (the registry key) and implement :meth:`start`,
    :meth:`m_step` and :meth:`n_parameters`; :meth:`pack`/:meth:`unpack` (the EM's
    extrapolation) and :meth:`penalty` (log prior terms beyond the evidence) have
    defaults. ``n_nodes`` is the number of difficulty nodes G (1: no difficulty).

    Parameters
    ----------
    prior_strength : float
        Pseudo-votes pulling each rater's rates to the pooled raters' (MAP, weak
        priors); 0 gives the maximum-likelihood estimate.
    """

    name: str = ""
    n_nodes: int = 1

    def __init__(self, *, prior_strength: float = 2.0):
        self.prior_strength = float(V.single("prior_strength", V.probability(
            "prior_strength", prior_strength, lo=0, hi=np.inf)))
        if not np.isfinite(self.prior_strength):  # infinite pseudo-votes: every rate NaN
            raise ValueError(f"prior_strength must be a finite number >= 0 (pseudo-votes), got "
                             f"{self.prior_strength}")

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options().items())
        return f"{type(self).__name__}({opts})"

    def options(self) -> dict:
        """The keyword arguments that rebuild this model (its repr and the report)."""
        return {"prior_strength": self.prior_strength}

    # -- the protocol --------------------------------------------------------------------------
    def start(self, d, w):
        """Initial :class:`~labelvar.votes._rater_em.Params` from the votes (weights ``w``).

        The default: the vote shares (gold items at their truth) as posteriors, then
        :meth:`m_step`. Items of weight 0 take no part (a start from the gold items
        alone gives the others weight 0).
        """
        from labelvar.votes import _rater_em as em

        S, T = em.start_stats(d, w)
        like = em.Params(np.zeros(d.n_labels), np.zeros(1), np.zeros(1), None)
        return self.m_step(d, S, T, like)

    def m_step(self, d, S, T, p):
        """New parameters from the E-step statistics S (J, L, G, L) and T (G, L) at ``p``."""
        raise NotImplementedError

    def n_parameters(self, n_raters: int, n_labels: int) -> int:
        """Free parameters of the model (for information criteria)."""
        raise NotImplementedError

    def penalty(self, p) -> float:
        """Log prior density terms the EM maximises besides the evidence (default none)."""
        return 0.0

    def pack(self, p, d) -> np.ndarray:
        """The parameters as one unconstrained vector (the EM's extrapolation works on it).

        Default: the raters' log confusion rows and the log prior.
        """
        from labelvar.votes import _rater_em as em

        J = d.n_raters
        return np.concatenate([p.lc[:J, :, 0, :].ravel(), em.pack_prior(p.log_prior)])

    def unpack(self, theta, like, d):
        """The parameters of a packed vector (``like`` supplies what is not packed)."""
        from labelvar.votes import _rater_em as em

        J, L = d.n_raters, d.n_labels
        lp = em.unpack_prior(theta[-L:], d)
        lc = theta[:-L].reshape(J, L, L)  # (j, said, truth)
        conf = np.exp(lc - np.logaddexp.reduce(lc, axis=1, keepdims=True)).transpose(0, 2, 1)
        return dataclasses.replace(like, log_prior=lp, lc=em.kernel_lc(conf, d))

    def with_confusion(self, p, d, conf, prior):
        """``p`` with confusion rows ``conf`` (J, z, l) (no difficulty) and truth prior (L,).

        The kernel layout (log, said label first, the population row appended) is built
        here: a model without difficulty needs only its rows.
        """
        from labelvar.votes import _rater_em as em

        with np.errstate(divide="ignore"):
            return dataclasses.replace(p, log_prior=np.log(np.asarray(prior, float)),
                                       lc=em.kernel_lc(np.asarray(conf, float), d))

    def copy_params(self, p):
        """A copy of ``p`` the EM may change (a warm start)."""
        return dataclasses.replace(p, a=None if p.a is None else p.a.copy())
