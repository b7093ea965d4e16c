r"""Dawid & Skene (1979): one confusion matrix per rater.

P(rater j says l | truth z) = :math:`\theta_j[z, l]`. Prior: rater j's row z ~
Dirichlet(1 + s pop_z), pop_z the pooled confusion row of all raters (+ 1 pseudo-vote
per cell), s = ``prior_strength`` (default 2): a rater who saw few items is pulled to
the pool, MAP row (S_jz + s pop_z) / (N_jz + s). With s = 0 the maximum-likelihood
estimate (rates floored at 1e-10, the truth prior the mean posterior), the setting
of crowd-kit's ``DawidSkene``.
"""

from __future__ import annotations

import dataclasses

from labelvar.votes import _rater_em as em
from labelvar.votes._rater_models._base import RaterModelSpec
from labelvar.votes._rater_models._registry import register


@register
class DawidSkene(RaterModelSpec):
    """Dawid-Skene: a confusion matrix per rater (MAP with weak priors; ML with ``prior_strength=0``).

    Examples
    --------
    >>> DawidSkene(prior_strength=0)
    DawidSkene(prior_strength=0.0)
    """

    name = "dawid_skene"

    def m_step(self, d, S, T, p):
        C = S[:, :, 0, :].transpose(0, 2, 1)  # (J, z, l)
        return dataclasses.replace(p, log_prior=em.prior_step(d, T, self.prior_strength),
                                   lc=em.kernel_lc(em.rows(C, self.prior_strength), d))

    def n_parameters(self, n_raters: int, n_labels: int) -> int:
        return n_raters * n_labels * (n_labels - 1) + n_labels - 1
