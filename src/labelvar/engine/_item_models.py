"""Panel mode under an item label-distribution model (:class:`labelvar.votes.ItemModel`).

Each item draws its label distribution π (absolute labels) from the item model; the K
panel votes are Multinomial(K, π), the ground truth is their plurality (tie rule), the
stratum is the observed agreement top / K, the expert is one more draw from π and the
other labellers answer against the item's modal label argmax π (ties at random) as in
the symmetric panel model. The class prior is the item model's (P(argmax π = c), used by
the ``prior`` labeller): ``m`` and ``class_prior`` are ignored (the ``m`` column keeps the
value given) and ``positives`` does not apply (modal labels are drawn per item).
Items are i.i.d., so the path is explicit (:func:`labelvar._kernels.item_model`); the
exact expectations come from :class:`_ItemTable`, built from the model's exact
P(votes, modal label) tables (:meth:`labelvar.votes.ItemModel.modal_composition_probs`),
and :func:`labelvar.engine._tables._expected`.
"""

from __future__ import annotations

import numpy as np

from labelvar import _kernels as K
from labelvar._kernels.layout import Labellers, Strata
from labelvar.engine._tables import _expected
from labelvar.votes import _panel


class _ItemTable:
    """Exact per-item outcome probabilities of one cell under an item model (one group of N).

    ``labeller_joint(j)[0, s, t, h]`` = P(slot s, truth t, labeller j predicts h) with
    slots 0 (unused), 1..S = observed-agreement bins, S + 1 = dropped (truth slot 0),
    and the margins of it that the exact expectations use (``labeller_margins``);
    ``theta_joint()[0, s]`` = E[π_modal 1{slot s}].
    """

    def __init__(self, cell, spec, labels, stratum_of_top):
        model = spec.theta_prior
        lab, kk = cell.n_labels, cell.panel_size
        self.n_lab = lab
        self.groups = np.array([cell.n_items], dtype=np.int64)
        comp, t_k = model.modal_composition_probs(kk)  # P(votes, modal m), (n_comp, L)
        comp1, t_k1 = model.modal_composition_probs(kk + 1)
        index = {tuple(row): i for i, row in enumerate(comp1.tolist())}
        # P(votes c, next vote h [, modal h]) = P_{K+1}(c + e_h [, modal h]) (c_h + 1) / (K + 1)
        nxt = np.zeros(comp.shape)
        nxt_modal = np.zeros(comp.shape)
        p1 = t_k1.sum(axis=1)
        for h in range(lab):
            up = comp.copy()
            up[:, h] += 1
            idx = np.array([index[tuple(row)] for row in up.tolist()])
            factor = (comp[:, h] + 1) / (kk + 1)
            nxt[:, h] = p1[idx] * factor
            nxt_modal[:, h] = t_k1[idx, h] * factor
        truth, drop = _panel.truth_weights(comp, spec.tie_rule, modal=0)  # absolute labels
        top, _ = _panel.plurality(comp)
        self.n_slots = len(labels) + 2
        slot = np.where(drop > 0, self.n_slots - 1, stratum_of_top[top])
        self.modal_probs = t_k.sum(axis=0)
        self._t_k, self._nxt, self._truth, self._drop, self._slot = t_k, nxt, truth, drop, slot
        self._theta = nxt_modal.sum(axis=1)
        self._preds = [self._prediction(lb, lab) for lb in spec.labellers]

    def _prediction(self, lb, lab):
        """P(votes c, prediction h) of one labeller, (n_comp, L)."""
        if lb.annotator:
            return self._nxt
        own = lb.own_matrix(lab, self.modal_probs)
        rho = lb.correlation
        return rho * self._nxt + (1.0 - rho) * self._t_k @ np.asarray(own)

    def labeller_joint(self, j) -> np.ndarray:
        pred = self._preds[j]
        out = np.zeros((1, self.n_slots, self.n_lab, self.n_lab))
        kept = self._truth[:, :, None] * pred[:, None, :]  # (comp, t, h)
        np.add.at(out[0], self._slot, kept)
        out[0, -1] = 0.0
        out[0, -1, 0] = (self._drop[:, None] * pred).sum(axis=0)
        return out

    def labeller_margins(self, j, slots) -> tuple:
        """The margins of :meth:`labeller_joint` that ``_expected`` needs (one group).

        ``(sum_h P(s, t, h), sum_t P(s, t, h), P(s, c, c))``, each (1, L), slots summed
        over ``slots`` (as ``labelvar.engine._tables._Table.labeller_margins``).
        """
        pj = self.labeller_joint(j)[:, slots].sum(axis=1)  # (1, t, h)
        return pj.sum(axis=2), pj.sum(axis=1), np.diagonal(pj, axis1=1, axis2=2)

    def theta_joint(self) -> np.ndarray:
        out = np.zeros((1, self.n_slots))
        np.add.at(out[0], self._slot, self._theta * (1.0 - self._drop))
        out[0, -1] = float(self._theta @ self._drop)
        return out


def run_item_model_cell(cell, spec, key, parallel, want_expected, want):
    """Simulate one grid cell under an item model; return its tables (as ``_run_cell``)."""
    from labelvar.engine._summary import _PARALLEL_WORK, _raw_table, _summarise

    model = spec.theta_prior
    lab, kk = cell.n_labels, cell.panel_size
    if spec.pairs or want["joint"]:
        raise ValueError(f"{'a ModelPair' if spec.pairs else 'joint=True'} needs the collapsed "
                         f"path, which an item model ({model.describe()}) does not have")
    if spec.method == "collapsed":
        raise ValueError("method='collapsed' is not available with an item model "
                         f"({model.describe()}); use 'auto' or 'explicit'")
    labels, stratum_of_top = _panel.strata(kk, lab, spec.tie_rule)
    n_strata = 1 + len(labels)
    n_j = len(spec.labellers)
    table = None
    if want_expected or any(lb.uses_class_prior for lb in spec.labellers):
        try:
            _panel.check_enumerable(kk + 1, lab)
            table = _ItemTable(cell, spec, labels, stratum_of_top)
        except ValueError:
            table = None
    modal = table.modal_probs if table is not None else model.modal_probs()
    mats = [np.asarray(lb.own_matrix(lab, modal)) for lb in spec.labellers]
    lab_rho = np.array([lb.correlation for lb in spec.labellers])
    lab_kind = np.array([K.EXPERT if lb.annotator else K.MATRIX for lb in spec.labellers],
                        dtype=np.int64)
    lab_cum = np.ascontiguousarray(np.cumsum(np.stack(mats), axis=2))
    tie = int({"random": K.TIE_RANDOM, "drop": K.TIE_DROP}.get(spec.tie_rule, spec.tie_rule))
    kind, par, cum = model.item_kernel_args()
    if parallel is None:
        parallel = spec.replicates * cell.n_items * (kk + n_j) >= _PARALLEL_WORK
    from labelvar.engine._kernel_sets import KERNELS

    kern = KERNELS[bool(parallel)].item_model
    out = np.empty((spec.replicates, n_j, n_strata, K.N_FIELDS))
    kern(np.uint64(key), spec.replicates, cell.n_items, lab, kk, kind,
         np.ascontiguousarray(par, dtype=float), np.ascontiguousarray(cum, dtype=float), tie,
         Labellers(lab_kind, lab_cum, lab_rho), Strata(stratum_of_top, n_strata), out)
    names = [lb.name for lb in spec.labellers]
    strata = ["all"] + labels
    exp = _expected(table, cell, spec, labels) if (want_expected and table is not None) else None
    summary = _summarise(out, names, strata, spec, exp, True, "explicit", theta_ok=True)
    summary["method"] = ["explicit"] * len(summary["mean"])
    tables = {"summary": summary}
    if want["raw"]:
        tables["raw"] = _raw_table(out, names, strata, "explicit", theta=True)
    return tables
