"""Item label-distribution models: one label distribution π per item (absolute labels).

The implementation of :class:`labelvar.votes.ItemModel` and its subclasses
:class:`~labelvar.DirichletItems`, :class:`~labelvar.DirichletMixture` and
:class:`~labelvar.EmpiricalItems`, documented and parsed (beside the θ priors) in
:mod:`labelvar.votes`, which re-exports them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from labelvar._base import _validate as v
from labelvar._base._format import exact_float as _exact
from labelvar._base._format import short_float as _g
from labelvar._base._validate import SUM_TOL
from labelvar.votes import _panel


class ItemModel:
    r"""Base class of the item label-distribution models (one π over the L labels per item).

    An item model draws each item's label distribution π (absolute labels, no symmetry);
    its K panel votes are Multinomial(K, π), the ground truth is their plurality (tie
    rule), the expert is one more draw from π and model labellers answer against the
    item's modal label argmax π (ties at random). The classes are defined by π: the
    class (modal-label) prior is :meth:`modal_probs`, so ``m`` / ``class_prior`` do not
    apply. Subclasses: :class:`DirichletItems`, :class:`DirichletMixture`,
    :class:`EmpiricalItems`; :func:`labelvar.votes.as_theta_prior` parses them beside the θ priors.

    The exact calculation uses :meth:`modal_composition_probs` (P(votes, modal label) over
    absolute labels) and, for the expert, the same table of K + 1 votes (votes are
    exchangeable: P(votes c, next vote h, modal j) =
    :math:`P_{K+1}(c + e_h, \text{modal } j)\,(c_h + 1) / (K + 1)`). The θ-prior methods
    ``nodes`` and ``kernel_args`` do not apply and raise ``TypeError``, so no symmetric
    formula can use an item model by mistake.

    Examples
    --------
    >>> from labelvar.votes import as_theta_prior
    >>> isinstance(as_theta_prior("dirichlet:2,1,0.5"), ItemModel)
    True
    """

    @property
    def n_labels(self) -> int:
        """L, the number of labels the distributions are over."""
        raise NotImplementedError

    def check(self, n_labels: int, name: str = "theta"):
        """Raise ValueError unless the model has ``n_labels`` labels; return self.

        Examples
        --------
        >>> DirichletItems((2, 1, 1)).check(2)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: theta 'dirichlet:2,1,1' is a distribution over 3 labels, but n_labels=2
        """
        L = int(v.n_labels(n_labels))
        if L != self.n_labels:
            raise ValueError(f"{name} {self.spec()!r} is a distribution over {self.n_labels} "
                             f"labels, but n_labels={L}")
        return self

    def support(self, n_labels: int) -> tuple[float, float]:
        """Return (1/L, 1): the range of an item's agreement max π."""
        return 1.0 / self.n_labels, 1.0

    def nodes(self, n_labels: int, degree: int):
        """Not defined: an item model has no θ nodes (raises TypeError)."""
        raise TypeError(f"{self.describe()} is an item model (a label distribution per item), "
                        "not a theta prior: use its composition probabilities")

    def kernel_args(self, n_labels: int):
        """Not defined: the engine draws item models with its own kernel (raises TypeError)."""
        raise TypeError(f"{self.describe()} is an item model: use item_kernel_args()")

    def label_nodes(self, n_labels: int, degree: int):
        """Not defined for Dirichlet models (continuous π): raises TypeError."""
        raise TypeError(f"{self.describe()} has no finite π nodes: use its composition "
                        "probabilities")

    def mean(self, n_labels: int | None = None) -> float:
        """Return E[max_p π_p], the mean agreement of an annotator with the modal label."""
        comp, prob = self.modal_composition_probs(1)  # one vote: P(vote = j, modal = j)
        return float(prob[np.arange(len(comp)), comp.argmax(axis=1)].sum())

    def modal_probs(self) -> np.ndarray:
        """P(the modal label argmax π is label j), shape (L,): the class prior of the model."""
        return self.modal_composition_probs(0)[1][0]

    def composition_probs(self, panel_size: int) -> tuple[np.ndarray, np.ndarray]:
        """Vote compositions (absolute labels, one row of L counts per composition) and P.

        Examples
        --------
        >>> comp, p = DirichletItems((1, 1)).composition_probs(2)
        >>> comp.tolist(), p.round(4).tolist()
        ([[0, 2], [1, 1], [2, 0]], [0.3333, 0.3333, 0.3333])
        """
        comp, prob = self.modal_composition_probs(panel_size)
        return comp, prob.sum(axis=1)

    def modal_composition_probs(self, panel_size: int) -> tuple[np.ndarray, np.ndarray]:
        """Compositions and P(votes = composition, modal label = j), shape (n_comp, L).

        Exact up to rounding (Dirichlet models: a one-dimensional integral per
        composition); cached.
        """
        kk = v.single("panel_size", v.integer("panel_size", panel_size, lo=0))
        _panel.check_enumerable(kk, self.n_labels)
        comp, prob = _modal_table(self, kk)
        return comp.copy(), prob.copy()

    def panel_probabilities(self, panel_size: int, tie_rule="random") -> dict[str, np.ndarray]:
        """Exact per-item probabilities of a K-vote panel, by top vote count t = 0..K.

        The planner's tables (:func:`labelvar.design.panel_probabilities` for a θ), from
        :meth:`modal_composition_probs`: ``"top"`` P(top = t); ``"gt_modal"`` P(top = t,
        kept, GT = modal label); ``"gt_other"`` P(top = t, kept, GT = another label);
        ``"expert"`` P(top = t, kept, one more annotator votes the GT); ``"gt_label"``
        (K + 1, L): P(top = t, kept, GT = label).

        Examples
        --------
        >>> p = DirichletItems((1, 1)).panel_probabilities(1)
        >>> p["top"].tolist(), p["gt_modal"].tolist(), round(float(p["expert"].sum()), 4)
        ([0.0, 1.0], [0.0, 0.75], 0.6667)
        """
        kk = v.single("panel_size", v.integer("panel_size", panel_size, lo=1))
        comp, t_k = self.modal_composition_probs(kk)
        comp1, t_k1 = self.modal_composition_probs(kk + 1)
        index = {tuple(row): i for i, row in enumerate(comp1.tolist())}
        p1 = t_k1.sum(axis=1)
        nxt = np.zeros(comp.shape)  # P(votes c, next vote h)
        for h in range(self.n_labels):
            up = comp.copy()
            up[:, h] += 1
            nxt[:, h] = p1[[index[tuple(r)] for r in up.tolist()]] * (comp[:, h] + 1) / (kk + 1)
        truth, drop = _panel.truth_weights(comp, tie_rule, modal=0)
        top, _ = _panel.plurality(comp)
        prob = t_k.sum(axis=1)

        def by_top(x):
            return np.bincount(top, weights=x, minlength=kk + 1)

        gt_modal = by_top((t_k * truth).sum(axis=1))
        return {"top": by_top(prob), "gt_modal": gt_modal,
                "gt_other": by_top(prob * (1.0 - drop)) - gt_modal,
                "expert": by_top((nxt * truth).sum(axis=1)),
                "gt_label": np.stack([by_top(prob * truth[:, h]) for h in range(self.n_labels)],
                                     axis=1)}

    def loglik(self, counts) -> np.ndarray:
        """Per-item log P(counts) (marginal over π), shape (items,)."""
        raise NotImplementedError

    def predictive(self, counts) -> np.ndarray:
        """P(one more vote is label h | the item's counts), shape (items, L)."""
        raise NotImplementedError

    def item_kernel_args(self) -> tuple[int, np.ndarray, np.ndarray]:
        """Return (kind, parameters (rows, L), cumulative row weights) for the engine's kernel.

        kind 0: rows are Dirichlet α of mixture components; kind 1: rows are π nodes.
        """
        raise NotImplementedError


def _counts(counts, n_labels: int) -> np.ndarray:
    c = v.integer("counts", counts, lo=0)
    c = np.atleast_2d(c)
    if c.ndim != 2 or c.shape[1] != n_labels:
        raise ValueError(f"counts must be an (items, {n_labels}) matrix of votes per label, got "
                         f"shape {c.shape}")
    return c


def _weights(weights, n: int, name: str) -> tuple:
    if weights is None:
        return tuple([1.0 / n] * n)
    w = v.as_float_array(name, weights)
    if w.shape != (n,) or (w < 0).any() or abs(w.sum() - 1.0) > SUM_TOL:
        raise ValueError(f"{name} must be >= 0, one per component, and sum to 1; got "
                         f"{weights!r}")
    return tuple(float(x) for x in w / w.sum())


def _concentration_row(row, name: str) -> tuple:
    a = v.as_float_array(name, row)
    if a.ndim != 1 or a.size < 2 or not np.isfinite(a).all() or (a <= 0).any():
        raise ValueError(f"{name} must be >= 2 numbers > 0 (one per label), got {row!r}")
    return tuple(float(x) for x in a)


class _DirichletFamily(ItemModel):
    """Mixtures of Dirichlets (a single Dirichlet is one component)."""

    def _components(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    @property
    def n_labels(self) -> int:
        """L, the length of α."""
        return self._components()[0].shape[1]

    def _log_components(self, counts) -> np.ndarray:
        concentrations, w = self._components()
        c = _counts(counts, self.n_labels)
        with np.errstate(divide="ignore"):
            return (_panel.log_dirichlet_multinomial_pmf(c[:, None, :], concentrations[None])
                    + np.log(w)[None, :])

    def loglik(self, counts) -> np.ndarray:
        """Per-item log P(counts) = log sum_k w_k DirMult(counts; α_k).

        Examples
        --------
        >>> round(float(np.exp(DirichletItems((1, 1)).loglik([[3, 0]])[0])), 6)  # 1 / (K + 1)
        0.25
        """
        from scipy.special import logsumexp

        return logsumexp(self._log_components(counts), axis=1)

    def predictive(self, counts) -> np.ndarray:
        """Posterior predictive P(next vote = h | counts) = sum_k P(k | c) (c_h + α_kh) / (n + α_k0).

        Examples
        --------
        >>> DirichletItems((1, 1, 2)).predictive([[2, 0, 0]]).round(4).tolist()
        [[0.5, 0.1667, 0.3333]]
        """
        from scipy.special import softmax

        concentrations, _ = self._components()
        c = _counts(counts, self.n_labels)
        post = softmax(self._log_components(c), axis=1)  # (items, k)
        pred = (c[:, None, :] + concentrations[None]) / (
            c.sum(axis=1)[:, None, None] + concentrations.sum(axis=1)[None, :, None])
        return np.einsum("ik,ikh->ih", post, pred)

    def item_kernel_args(self) -> tuple[int, np.ndarray, np.ndarray]:
        """Return ``(0, concentrations, cumsum(weights))``."""
        concentrations, w = self._components()
        return 0, np.ascontiguousarray(concentrations), np.cumsum(w)


@dataclass(frozen=True)
class DirichletItems(_DirichletFamily):
    """Each item's label distribution π ~ Dirichlet(α), one α per (absolute) label.

    Votes are then Dirichlet-multinomial: log P(c) = log K! - sum log c_p! + log Γ(α_0)
    - log Γ(K + α_0) + sum_p [log Γ(c_p + α_p) - log Γ(α_p)] (α_0 = sum α). E[π] = α / α_0;
    a small α_0 means strong disagreement between items, not within them.

    Parameters
    ----------
    concentration : sequence of float
        α, one concentration (> 0) per label.

    Examples
    --------
    >>> d = DirichletItems((2, 1, 0.5))
    >>> d.describe(), d.spec(), round(d.mean(), 4)
    ('Dirichlet(2, 1, 0.5)', 'dirichlet:2,1,0.5', 0.662)
    >>> d.modal_probs().round(3).tolist()  # P(label j is the modal label)
    [0.691, 0.226, 0.083]
    """

    concentration: tuple

    def __post_init__(self):
        object.__setattr__(self, "concentration", _concentration_row(
            self.concentration, "DirichletItems.concentration"))

    def _components(self):
        return np.array([self.concentration]), np.ones(1)

    def key(self) -> str:
        """Return ``dirichlet(concentration=(...))``."""
        return f"dirichlet(concentration={self.concentration!r})"

    def describe(self, n_labels: int | None = None) -> str:
        """Return e.g. ``Dirichlet(2, 1, 0.5)``."""
        return "Dirichlet(" + ", ".join(_g(a) for a in self.concentration) + ")"

    def spec(self, n_labels: int | None = None) -> str:
        """Return ``"dirichlet:A1,A2,..."``, digits exact."""
        return "dirichlet:" + ",".join(_exact(a) for a in self.concentration)


@dataclass(frozen=True)
class DirichletMixture(_DirichletFamily):
    """π ~ Dirichlet(α_k) with probability ``weights[k]`` (equal weights when omitted).

    Parameters
    ----------
    concentrations : sequence of sequences of float
        α_k, one row of per-label concentrations (> 0) per component.
    weights : sequence of float or None
        The components' probabilities (default None: equal).

    Examples
    --------
    >>> from labelvar.votes import as_theta_prior
    >>> d = DirichletMixture(((5, 1, 1), (1, 1, 5)), (0.7, 0.3))
    >>> d.spec()
    'dirichlet_mixture:0.7=5,1,1;0.3=1,1,5'
    >>> as_theta_prior(d.spec()) == d
    True
    """

    concentrations: tuple
    weights: tuple | None = None

    def __post_init__(self):
        rows = self.concentrations
        if isinstance(rows, np.ndarray):
            rows = rows.tolist()
        rows = tuple(_concentration_row(r, "DirichletMixture.concentrations") for r in rows)
        if not rows or len({len(r) for r in rows}) != 1:
            raise ValueError("DirichletMixture.concentrations must be one or more rows of α, "
                             f"all of the same length; got {self.concentrations!r}")
        object.__setattr__(self, "concentrations", rows)
        object.__setattr__(self, "weights", _weights(self.weights, len(rows),
                                                     "DirichletMixture.weights"))

    def _components(self):
        return np.array(self.concentrations), np.array(self.weights)

    def key(self) -> str:
        """Return ``dirichlet_mixture(concentrations=(...),weights=(...))``."""
        return (f"dirichlet_mixture(concentrations={self.concentrations!r},"
                f"weights={self.weights!r})")

    def describe(self, n_labels: int | None = None) -> str:
        """Return e.g. ``Dirichlet mixture 0.7 x (5, 1, 1) + 0.3 x (1, 1, 5)``."""
        return "Dirichlet mixture " + " + ".join(
            f"{_g(w)} x (" + ", ".join(_g(a) for a in r) + ")"
            for r, w in zip(self.concentrations, self.weights))

    def spec(self, n_labels: int | None = None) -> str:
        """Return ``"dirichlet_mixture:W1=A,B,C;W2=A,B,C"``, digits exact."""
        return "dirichlet_mixture:" + ";".join(
            f"{_exact(w)}=" + ",".join(_exact(a) for a in r)
            for r, w in zip(self.concentrations, self.weights))


@dataclass(frozen=True)
class EmpiricalItems(ItemModel):
    """π resampled from given label distributions (e.g. of real many-vote items).

    ``label_distributions`` has one row per item (>= 0, summing to 1;
    :meth:`from_counts` normalises vote counts); ``weights`` default equal. The modal
    label of a row with tied top probabilities is one of them at random.

    Parameters
    ----------
    label_distributions : sequence of sequences of float
        One label distribution (>= 0, summing to 1) per item.
    weights : sequence of float or None
        The items' resampling probabilities (default None: equal).

    Examples
    --------
    >>> e = EmpiricalItems.from_counts([[30, 70, 0], [3, 94, 3]])
    >>> e.describe(), e.spec()
    ('empirical: 2 label distributions over 3 labels', 'empirical:0.3,0.7,0;0.03,0.94,0.03')
    >>> round(e.mean(), 3), e.modal_probs().tolist()
    (0.82, [0.0, 1.0, 0.0])
    """

    label_distributions: tuple
    weights: tuple | None = None

    def __post_init__(self):
        rows = v.probability("EmpiricalItems.label_distributions", self.label_distributions)
        if rows.ndim != 2 or rows.shape[0] == 0 or rows.shape[1] < 2:
            raise ValueError("EmpiricalItems.label_distributions must be an (items, L) matrix, "
                             f"L >= 2; got shape {rows.shape}")
        bad = np.abs(rows.sum(axis=1) - 1.0) > 1e-6
        if bad.any():
            raise ValueError(f"EmpiricalItems.label_distributions rows must sum to 1 (row "
                             f"{int(np.flatnonzero(bad)[0])} sums to "
                             f"{rows[bad][0].sum():.6g}); vote counts: use the from_counts constructor")
        rows = rows / rows.sum(axis=1, keepdims=True)
        object.__setattr__(self, "label_distributions",
                           tuple(tuple(float(x) for x in r) for r in rows))
        object.__setattr__(self, "weights", _weights(self.weights, rows.shape[0],
                                                     "EmpiricalItems.weights"))

    @classmethod
    def from_counts(cls, counts, weights=None) -> EmpiricalItems:
        """The items' vote shares c / n as label distributions."""
        c = v.integer("counts", counts, lo=0)
        if c.ndim != 2 or (c.sum(axis=1) == 0).any():
            raise ValueError("counts must be an (items, L) matrix with >= 1 vote per item")
        return cls(c / c.sum(axis=1, keepdims=True), weights)

    @property
    def n_labels(self) -> int:
        """L, the length of each label distribution."""
        return len(self.label_distributions[0])

    def _nodes(self):
        return np.array(self.label_distributions), np.array(self.weights)

    def label_nodes(self, n_labels: int, degree: int) -> tuple[np.ndarray, np.ndarray]:
        """The label distributions (absolute labels) and their weights."""
        self.check(n_labels)
        return self._nodes()

    def _log_nodes(self, counts):
        pis, w = self._nodes()
        c = _counts(counts, self.n_labels)
        with np.errstate(divide="ignore"):
            return _panel.log_multinomial_pmf(c[:, None, :], pis[None]) + np.log(w)[None, :]

    def loglik(self, counts) -> np.ndarray:
        """Per-item log P(counts) = log sum_n w_n Multinomial(counts; π_n)."""
        from scipy.special import logsumexp

        with np.errstate(divide="ignore"):
            return logsumexp(self._log_nodes(counts), axis=1)

    def predictive(self, counts) -> np.ndarray:
        """P(next vote = h | counts) = sum_n P(π_n | counts) π_nh (NaN if no π_n fits)."""
        from scipy.special import logsumexp

        lp = self._log_nodes(counts)
        with np.errstate(invalid="ignore"):
            post = np.exp(lp - logsumexp(lp, axis=1, keepdims=True))
        return post @ self._nodes()[0]

    def item_kernel_args(self) -> tuple[int, np.ndarray, np.ndarray]:
        """Return ``(1, label distributions, cumsum(weights))``."""
        pis, w = self._nodes()
        return 1, np.ascontiguousarray(pis), np.cumsum(w)

    def key(self) -> str:
        """Return ``empirical(n=..., L=..., digest=...)`` (a hash of the rows and weights)."""
        import hashlib

        pis, w = self._nodes()
        digest = hashlib.blake2b(pis.tobytes() + w.tobytes(), digest_size=8).hexdigest()
        return f"empirical(n={len(w)},L={self.n_labels},digest={digest})"

    def describe(self, n_labels: int | None = None) -> str:
        """Return e.g. ``empirical: 1514 label distributions over 3 labels``."""
        return f"empirical: {len(self.weights)} label distributions over {self.n_labels} labels"

    def spec(self, n_labels: int | None = None) -> str:
        """Return ``"empirical:P,P,P;P,P,P"`` (rows; ``W=`` prefixes when weights differ)."""
        equal = np.ptp(self.weights) == 0
        return "empirical:" + ";".join(
            ("" if equal else f"{_exact(w)}=") + ",".join(_exact(x) for x in r)
            for r, w in zip(self.label_distributions, self.weights))


@functools.lru_cache(maxsize=32)
def _modal_table(model: ItemModel, panel_size: int) -> tuple[np.ndarray, np.ndarray]:
    """P(votes = composition, modal label = j) of ``model`` for K votes (absolute labels)."""
    L = model.n_labels
    comp = _panel.compositions(panel_size, L)
    if isinstance(model, EmpiricalItems):
        pis, w = model._nodes()
        top = pis == pis.max(axis=1, keepdims=True)
        modal = top / top.sum(axis=1, keepdims=True)  # (nodes, L): ties split
        prob = np.exp(_panel.log_multinomial_pmf(comp[None], pis[:, None, :]))  # (nodes, comp)
        return comp, np.einsum("n,nc,nj->cj", w, prob, modal)
    concentrations, w = model._components()
    out = np.zeros(comp.shape)
    for a, wk in zip(concentrations, w):
        p = np.exp(_panel.log_dirichlet_multinomial_pmf(comp, a[None]))
        out += wk * p[:, None] * _panel.dirichlet_argmax_probs(comp + a[None])
    return comp, out


def _parse_rows(rest: str) -> tuple[list, list | None]:
    """``"W=a,b;W=a,b"`` or ``"a,b;a,b"`` -> (rows, weights or None)."""
    rows, weights = [], []
    for part in [x.strip() for x in rest.split(";") if x.strip()]:
        w, sep, vals = part.rpartition("=")
        rows.append([float(x) for x in vals.split(",") if x.strip()])
        weights.append(float(w) if sep else None)
    if any(w is None for w in weights):
        if not all(w is None for w in weights):
            raise ValueError("give a weight W= to every row or to none")
        return rows, None
    return rows, weights
