"""One-coin: one accuracy per rater, errors uniform over the other labels.

Rater j is right with probability a_j, else says each other label with probability
(1 - a_j) / (L - 1). Prior: a_j pulled by ``prior_strength`` votes to the pooled
accuracy (MAP (right_j + s pool) / (votes_j + s)); 0: maximum likelihood.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from labelvar.votes import _rater_em as em
from labelvar.votes._rater_models._base import RaterModelSpec
from labelvar.votes._rater_models._registry import register


@register
class OneCoin(RaterModelSpec):
    """One accuracy per rater, errors uniform over the other labels.

    Examples
    --------
    >>> OneCoin().n_parameters(5, 2)
    6
    """

    name = "one_coin"

    def m_step(self, d, S, T, p):
        C = S[:, :, 0, :].transpose(0, 2, 1)  # (J, z, l)
        L, s = d.n_labels, self.prior_strength
        corr = np.trace(C, axis1=1, axis2=2)
        tot = C.sum(axis=(1, 2))
        pool = (corr.sum() + 1.0) / (tot.sum() + 2.0)
        a = (corr + s * pool) / (tot + s) if s > 0 else corr / np.maximum(tot, em.ML_FLOOR)
        a = np.clip(a, em.ML_FLOOR, 1 - em.ML_FLOOR)
        conf = np.broadcast_to(((1 - a) / (L - 1))[:, None, None], C.shape).copy()
        idx = np.arange(L)
        conf[:, idx, idx] = a[:, None]
        return dataclasses.replace(p, log_prior=em.prior_step(d, T, s), lc=em.kernel_lc(conf, d))

    def n_parameters(self, n_raters: int, n_labels: int) -> int:
        return n_raters + n_labels - 1
