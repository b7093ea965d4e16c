r"""Rater models fitted from identified raters' votes: skill, item difficulty, predictions.

Three models of how rater j labels item i with true class z (L classes, any L):

- ``"one_coin"``: j is right with probability a_j, else says each other label with
  probability (1 - a_j) / (L - 1);
- ``"dawid_skene"`` (Dawid & Skene 1979): a confusion matrix per rater,
  P(j says l | z) = theta_j[z, l];
- ``"dawid_skene_difficulty"`` (Carpenter 2019's binary model, extended to any L):
  :math:`P(j \text{ is right} \mid z, i) = \mathrm{logit}^{-1}(a_{j,z} - \beta_i)`, and a
  wrong vote says l with the rater's error share e_j[z, l] (the off-diagonal of its
  confusion row, normalised; for L = 2 the one other label). For L = 2, :math:`a_{j,1}` is
  Carpenter's :math:`\alpha_j` (sensitivity) and :math:`a_{j,0}` his :math:`\gamma_j`
  (specificity). The difficulty :math:`\beta_i \sim N(0, \sigma^2)`, σ fitted, is integrated
  by Gauss-Hermite quadrature on G = 7 nodes (``n_nodes``; the fitted model *is* that
  G-node mixture, so predictions and the check use the same nodes).

Each model is one class in one file of :mod:`labelvar.votes._rater_models`
(:class:`DawidSkene`, :class:`OneCoin`, :class:`DawidSkeneDifficulty`), registered by
name in :data:`RATER_MODELS`; a new model is one more class following
:class:`RaterModelSpec`, registered with :func:`register_rater_model`.
:func:`fit_raters` takes a registered name or a model object; its default, and the
command line's, is ``"dawid_skene_difficulty"`` (:data:`DEFAULT_MODEL`), the model the
caries check accepts where plain Dawid-Skene is rejected.

All are fitted by one EM to a MAP with weak priors (no zero rates), in log space, on
sparse votes: any number of votes per item, raters who saw few items (pulled to the
pooled raters), gold items (``gold={item: label}`` fixes their truth and anchors the
labels' orientation). ``prior_strength=0`` gives the maximum-likelihood estimate.
There is one Dawid-Skene estimator: :class:`DawidSkene`, MAP with ``prior_strength=2``
by default, used by :func:`fit_raters`, by :func:`labelvar.evaluation._agreement.dawid_skene` and
so by ``stratify(aggregation="dawid_skene")``. MAP rather than maximum likelihood
because the maximum-likelihood rates of a rater who saw few items, or never said a
label, are 0 or 1 (the posterior of every item that rater voted on then rests on one
vote), and the weak prior costs nothing where the data are many (the pull is two
pseudo-votes per row). Every fitted model is a :class:`RaterModel` (arrays over raters x
difficulty nodes x truth x label), the representation the ceilings, the simulation and
the planner share.

Examples
--------
>>> import pandas as pd
>>> votes = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4],
...                       "rater": ["a", "b", "c"] * 4,
...                       "label": [1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 1, 0]})
>>> fit = fit_raters(votes, model="dawid_skene", n_resamples=0)
>>> fit.skills[["rater", "n_items"]].values.tolist()
[['a', 4], ['b', 4], ['c', 4]]
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd
from scipy.special import expit

from labelvar._base import _validate as V
from labelvar._base._format import shown
from labelvar._kernels import raters as rk
from labelvar.votes import _rater_data as rd
from labelvar.votes import _rater_em as em
from labelvar.votes._rater_models import (
    REGISTRY,
    DawidSkene,
    DawidSkeneDifficulty,
    OneCoin,
    RaterModelSpec,
)
from labelvar.votes._rater_models import register as register_rater_model

__all__ = ["DEFAULT_MODEL", "MAX_RESAMPLES", "MAX_RESAMPLE_VOTES", "RATER_MODELS", "DawidSkene",
           "DawidSkeneDifficulty", "OneCoin",
           "RaterCheck", "RaterFit", "RaterModel", "RaterModelSpec", "fit_raters",
           "register_rater_model"]

#: the registered rater models, name -> class (:func:`register_rater_model` adds one)
RATER_MODELS = REGISTRY
TIE_RULES = ("drop", "random")
#: expected count below which the check pools a histogram cell with its neighbour
MIN_EXPECTED = 5.0


def _log(x):
    with np.errstate(divide="ignore"):
        return np.log(x)


@shown
@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class RaterModel:
    """A fitted (or stated) rater model: arrays over raters, difficulty nodes, truth, label.

    Attributes
    ----------
    labels : tuple
        The L labels (codes 0..L-1 index the arrays).
    raters : tuple
        The J rater ids.
    log_prior : ndarray (L,)
        log P(truth = z).
    nodes : ndarray (G,)
        Item difficulty values (G = 1, ``[0.]``, without difficulty).
    log_weights : ndarray (G,)
        Their log probabilities.
    log_conf : ndarray (J, G, L, L)
        log P(rater j says l | truth z, node g), indexed ``[j, g, z, l]``.
    population_log_conf : ndarray (G, L, L)
        The same for a rater not in ``raters``: the vote-weighted mean of the fitted
        raters' confusions (a rater drawn as the rater of a random vote).
    """

    labels: tuple
    raters: tuple
    log_prior: np.ndarray
    nodes: np.ndarray
    log_weights: np.ndarray
    log_conf: np.ndarray
    population_log_conf: np.ndarray

    def _shown(self) -> dict:
        return {"labels": self.labels, "raters": self.raters, "nodes": len(self.nodes)}

    def _shown_tables(self) -> dict:
        from labelvar.votes._rater_fit import _skill_columns

        return {"skill": pd.DataFrame({"rater": list(self.raters), **_skill_columns(self)})}

    @property
    def kernel_log_conf(self) -> np.ndarray:
        """(J + 1, L, G, L) ``[j, said, g, truth]`` with the population last (the kernels')."""
        full = np.concatenate([self.log_conf, self.population_log_conf[None]], axis=0)
        return np.ascontiguousarray(full.transpose(0, 3, 1, 2))

    @classmethod
    def from_skill(cls, skill, labels=(0, 1), *, raters=None, prior=None) -> RaterModel:
        """A model of raters of stated skill (no difficulty: G = 1).

        Parameters
        ----------
        skill : dict, array or list of them
            One rater's skill, or a list (one per rater). Spellings:
            ``{"sensitivity": s, "specificity": t}`` (L = 2; positive = ``labels[1]``),
            ``{"accuracy": a}`` (one-coin: errors uniform over the other labels), or an
            L x L confusion matrix (rows the truth, columns the label said, in
            ``labels`` order; rows sum to 1).
        labels : sequence
            The label set (default (0, 1)).
        raters : sequence or None
            Rater ids (default ``"skill"``, or ``"skill0"``, ... for a list).
        prior : sequence or None
            P(truth) per label (default uniform).

        Returns
        -------
        RaterModel
            Its population rater is the mean of the stated ones.

        Examples
        --------
        >>> m = RaterModel.from_skill({"sensitivity": 0.9, "specificity": 0.8})
        >>> np.exp(m.log_conf[0, 0]).round(2).tolist()
        [[0.8, 0.2], [0.1, 0.9]]
        """
        from labelvar.votes._rater_fit import _declared

        lab = tuple(_declared(labels))
        L = len(lab)
        if L < 2:
            raise ValueError(f"labels must name at least 2 labels, got {list(lab)!r}")
        many = isinstance(skill, (list, tuple)) and len(skill) > 0 and not np.isscalar(skill[0]) \
            and not (isinstance(skill[0], (list, tuple)) and np.isscalar(skill[0][0]))
        skills = list(skill) if many else [skill]
        conf = np.stack([_confusion(s, L) for s in skills])[:, None]  # (J, 1, L, L)
        if raters is None:
            raters = ("skill",) if not many else tuple(f"skill{k}" for k in range(len(skills)))
        if isinstance(raters, str):
            raise ValueError(f"raters must be a list of rater ids, got the string {raters!r}")
        raters = tuple(raters)
        if len(raters) != len(skills):
            raise ValueError(f"raters must name each of the {len(skills)} skills, got {len(raters)}")
        if len(set(map(str, raters))) != len(raters):
            twice = next(r for i, r in enumerate(raters) if str(r) in map(str, raters[:i]))
            raise ValueError(f"raters: {twice!r} is named twice in {list(raters)!r}; give each "
                             "rater one id (several raters of one skill: one id each)")
        pri = np.full(L, 1.0 / L) if prior is None else V.probability("prior", prior)
        if pri.shape != (L,) or abs(pri.sum() - 1) > 1e-9:
            raise ValueError(f"prior must give {L} probabilities summing to 1, got {pri.tolist()}")
        return cls(lab, raters, _log(pri), np.zeros(1), np.zeros(1), _log(conf),
                   _log(conf.mean(axis=0)))

    def _index(self, rater) -> int:
        """The rater's code: matched as given, else by its text; the population if unknown.

        Votes are read with ids as text, so a fitted rater 3 is ``"3"``; an unknown rater
        gets ``len(raters)``, the population rater.
        """
        if rater in self.raters:
            return self.raters.index(rater)
        text = [str(r) for r in self.raters]
        return text.index(str(rater)) if rater is not None and str(rater) in text \
            else len(self.raters)

    def rater_log_conf(self, rater=None, skill=None) -> np.ndarray:
        """(G, L, L) log confusion of a fitted rater, the population (unseen) or a stated skill.

        A stated skill in a model with difficulty becomes logit abilities that give the
        stated per-class rates averaged over the difficulty distribution (an L x L
        matrix: its diagonal; its off-diagonal the error shares); a (G, L, L) array is
        taken as the log-free confusion per node.
        """
        if skill is None:
            j = self._index(rater)
            return self.log_conf[j] if j < len(self.raters) else self.population_log_conf
        G, L = self.nodes.size, len(self.labels)
        arr = np.asarray(skill, dtype=float) if not isinstance(skill, dict) else None
        if arr is not None and arr.shape == (G, L, L) and G > 1:
            return _log(_confusion(arr.reshape(-1, L), L, rows=G * L).reshape(G, L, L))
        conf = _confusion(skill, L)
        if G == 1:
            return _log(conf)[None]
        w = np.exp(self.log_weights)
        out = np.empty((G, L, L))
        for z in range(L):
            c = min(max(conf[z, z], 1e-12), 1 - 1e-12)
            a = _solve_ability(c, self.nodes, w)
            right = expit(a - self.nodes)
            err = conf[z].copy()
            err[z] = 0.0
            err = err / err.sum() if err.sum() > 0 else np.full(L, 1 / (L - 1))
            err[z] = 0.0
            out[:, z, :] = (1 - right)[:, None] * err[None, :]
            out[:, z, z] = right
        return _log(out)

    def posterior(self, votes, *, item="item", rater="rater", label="label", gold=None):
        """Posterior over (difficulty node, truth) of each item given its votes.

        Parameters
        ----------
        votes : pandas.DataFrame
            Long votes; raters not in the model get the population rater.
        item, rater, label : column names
        gold : mapping or None
            item -> true label (fixes those items' truth).

        Returns
        -------
        items : pandas.Index
            In order of first appearance.
        post : ndarray (n_items, G, L)
            P(node g, truth z | the item's votes).

        Examples
        --------
        >>> m = RaterModel.from_skill({"sensitivity": 0.9, "specificity": 0.8})
        >>> v = pd.DataFrame({"item": [1, 1], "rater": ["x", "y"], "label": [1, 1]})
        >>> items, post = m.posterior(v)
        >>> round(float(post[0, 0, 1]), 4)  # 0.81 / (0.81 + 0.04)
        0.9529
        """
        d = rd.encode(votes, item=item, rater=rater, label=label, labels=self.labels,
                      raters=self.raters, what="votes",
                      extra_bytes_per_item=8 * self.nodes.size * len(self.labels))
        post = self._posterior(d, _gold_codes(gold, d, self.labels))
        return d.items, post

    def _posterior(self, d: rd.Encoded, fixed=None) -> np.ndarray:
        n = d.n_items
        post = np.empty((n, self.nodes.size, len(self.labels)))
        with em.threads_for(d.n_votes * self.nodes.size * len(self.labels)):
            rk.e_step(d.item_ptr, d.rater, d.label, self.kernel_log_conf, self.log_prior,
                      self.log_weights, np.full(n, -1, np.int64) if fixed is None else fixed,
                      np.ones(n), post)
        return post

    def predict_agreement(self, panel, rater=None, *, skill=None, tie_rule: str = "drop",
                          item="item", rater_column="rater", label="label"):
        """P(rater R's label = the panel's plurality label | the panel's votes), per item.

        Exact: the posterior over (truth z, difficulty node g) given the panel's votes,
        then R's confusion at (g, z), at the plurality label(s).

        Parameters
        ----------
        panel : pandas.DataFrame
            Other raters' votes (long; any items, raters unseen in the fit get the
            population rater). Must not contain R's votes.
        rater : rater id or None
            The target rater R: a fitted rater, or any other id (the population rater).
        skill : dict or array, optional
            A hypothetical R instead (see :meth:`from_skill` for the spellings;
            :meth:`rater_log_conf` for how it meets difficulty).
        tie_rule : {"drop", "random"}
            "drop": items whose panel plurality is tied are left out (a warning says
            how many); "random": the prediction averages over the tied labels.
        item, rater_column, label : column names of panel

        Returns
        -------
        labelvar.votes.AgreementPrediction
            ``items``: ``item``, ``votes``, ``top``, ``n_tied``, ``agreement`` (top /
            votes), ``predicted``, ``bin``; ``bins`` in increasing agreement.

        Examples
        --------
        >>> m = RaterModel.from_skill([{"accuracy": 0.8}] * 3, raters=["a", "b", "c"])
        >>> v = pd.DataFrame({"item": [1, 1], "rater": ["a", "b"], "label": [1, 1]})
        >>> p = m.predict_agreement(v, "c")
        >>> round(float(p.items["predicted"].iloc[0]), 4)  # (0.64 .8 + .04 .2) / .68
        0.7647
        """
        from labelvar.votes._pilot import AgreementPrediction

        V.choice("tie_rule", tie_rule, TIE_RULES)
        d = rd.encode(panel, item=item, rater=rater_column, label=label, labels=self.labels,
                      raters=self.raters, what="panel",
                      extra_bytes_per_item=8 * self.nodes.size * len(self.labels))
        if skill is None and rater is None:
            raise ValueError("predict_agreement needs rater=R (a rater id) or skill=...")
        if skill is None and rater_column in panel and \
                (panel[rater_column].astype(str) == str(rater)).any():
            raise ValueError(f"panel must not contain the target rater's votes (rater={rater!r}); "
                             "drop them: the panel is the other raters")
        conf = np.exp(self.rater_log_conf(rater, skill))  # (G, z, l)
        post = self._posterior(d)
        said = np.einsum("igz,gzl->il", post, conf)
        L = len(self.labels)
        counts = np.zeros((d.n_items, L))
        item_of = np.repeat(np.arange(d.n_items), np.diff(d.item_ptr))
        np.add.at(counts, (item_of, d.label), 1.0)
        top = counts.max(axis=1)
        tied = counts == top[:, None]
        n_tied = tied.sum(axis=1)
        n = counts.sum(axis=1)
        items = pd.DataFrame({"item": d.items, "votes": n.astype(np.int64),
                              "top": top.astype(np.int64), "n_tied": n_tied,
                              "agreement": top / n,
                              "predicted": (said * tied).sum(axis=1) / n_tied})
        keep = np.ones(d.n_items, dtype=bool)
        if tie_rule == "drop":
            keep = n_tied == 1
            if not keep.all():
                from labelvar._base._warnings import ExcludedItemsWarning

                warnings.warn(f"predict_agreement: {int((~keep).sum())} of {d.n_items} items have a "
                              "tied panel plurality and are left out (tie_rule='drop')",
                              ExcludedItemsWarning, stacklevel=2)
            items = items[keep].reset_index(drop=True)
        items["bin"] = [f"{x:.2f}" for x in items["agreement"]]
        bins = (items.groupby("bin", sort=False)
                .agg(n_items=("votes", "size"), agreement=("agreement", "mean"),
                     predicted=("predicted", "mean")).reset_index()
                .sort_values("agreement", kind="stable").reset_index(drop=True))
        return AgreementPrediction(items=items, bins=bins, tied=tied[keep].astype(float))


def _solve_ability(c: float, nodes, w) -> float:
    """The logit ability a with sum_g w_g logit^-1(a - nodes_g) = c (bisection)."""
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if w @ expit(mid - nodes) < c:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _confusion(skill, L: int, rows: int | None = None) -> np.ndarray:
    """An L x L confusion matrix from a skill spelling (see :meth:`RaterModel.from_skill`)."""
    if isinstance(skill, dict):
        keys = set(skill)
        if keys == {"sensitivity", "specificity"}:
            if L != 2:
                raise ValueError(f"skill: sensitivity/specificity need 2 labels, the model has {L}; "
                                 "give an L x L confusion matrix or {'accuracy': a}")
            se = float(V.single("skill sensitivity", V.probability("skill sensitivity",
                                                                   skill["sensitivity"])))
            sp = float(V.single("skill specificity", V.probability("skill specificity",
                                                                   skill["specificity"])))
            return np.array([[sp, 1 - sp], [1 - se, se]])
        if keys == {"accuracy"}:
            a = float(V.single("skill accuracy", V.probability("skill accuracy", skill["accuracy"])))
            conf = np.full((L, L), (1 - a) / (L - 1))
            np.fill_diagonal(conf, a)
            return conf
        raise ValueError("skill must be {'sensitivity': s, 'specificity': t}, {'accuracy': a} or an "
                         f"L x L confusion matrix, got keys {sorted(map(str, keys))}")
    conf = V.probability("skill", skill)
    r = L if rows is None else rows
    if conf.shape != (r, L) or np.any(np.abs(conf.sum(axis=1) - 1) > 1e-9):
        raise ValueError(f"skill must be a {L} x {L} confusion matrix (rows: truth, columns: label "
                         f"said, each row summing to 1), got shape {conf.shape}")
    return conf


from labelvar.votes._rater_fit import (  # noqa: E402  (they build RaterModel objects)
    DEFAULT_MODEL,
    MAX_RESAMPLE_VOTES,
    MAX_RESAMPLES,
    RaterCheck,
    RaterFit,
    _gold_codes,
    dawid_skene_codes,  # noqa: F401  (the engine of labelvar.evaluation._agreement.dawid_skene)
    fit_raters,
)
