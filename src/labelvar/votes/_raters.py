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

All three are fitted by EM to a MAP with weak priors (no zero rates), in log space, on
sparse votes: any number of votes per item, raters who saw few items (pulled to the
pooled raters), gold items (``gold={item: label}`` fixes their truth). Every model is a :class:`RaterModel`
(arrays over raters x difficulty nodes x truth x label), the representation the
ceilings, the simulation and the planner share.

Examples
--------
>>> import pandas as pd
>>> votes = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4],
...                       "rater": ["a", "b", "c"] * 4,
...                       "label": [1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 1, 0]})
>>> fit = fit_raters(votes, model="dawid_skene", n_boot=0)
>>> fit.skills[["rater", "n_items"]].values.tolist()
[['a', 4], ['b', 4], ['c', 4]]
"""

from __future__ import annotations

import dataclasses
import functools
import warnings

import numpy as np
import pandas as pd
from scipy import stats
from scipy.special import expit

from labelvar._base import _labels, _seeding
from labelvar._base import _validate as V
from labelvar._base._defaults import CONFIDENCE_LEVEL
from labelvar._base._format import shown
from labelvar._kernels import raters as rk
from labelvar.votes import _rater_data as rd
from labelvar.votes import _rater_em as em

__all__ = ["MODELS", "RaterCheck", "RaterFit", "RaterModel", "fit_raters"]

MODELS = em.MODELS
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
        lab = tuple(_labels.declared(labels))
        L = len(lab)
        many = isinstance(skill, (list, tuple)) and len(skill) > 0 and not np.isscalar(skill[0]) \
            and not (isinstance(skill[0], (list, tuple)) and np.isscalar(skill[0][0]))
        skills = list(skill) if many else [skill]
        conf = np.stack([_confusion(s, L) for s in skills])[:, None]  # (J, 1, L, L)
        if raters is None:
            raters = ("skill",) if not many else tuple(f"skill{k}" for k in range(len(skills)))
        raters = tuple(raters)
        if len(raters) != len(skills):
            raise ValueError(f"raters must name each of the {len(skills)} skills, got {len(raters)}")
        pri = np.full(L, 1.0 / L) if prior is None else V.probability("prior", prior)
        if pri.shape != (L,) or abs(pri.sum() - 1) > 1e-9:
            raise ValueError(f"prior must give {L} probabilities summing to 1, got {pri.tolist()}")
        return cls(lab, raters, _log(pri), np.zeros(1), np.zeros(1), _log(conf),
                   _log(conf.mean(axis=0)))

    def _index(self, rater) -> int:
        try:
            return self.raters.index(rater)
        except ValueError:
            return len(self.raters)

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

    def _posterior(self, d: rd.Votes, fixed=None) -> np.ndarray:
        n = d.n_items
        post = np.empty((n, self.nodes.size, len(self.labels)))
        with em.threads_for(d.n_votes):
            rk.e_step(d.item_ptr, d.rater, d.label, self.kernel_log_conf, self.log_prior,
                      self.log_weights, np.full(n, -1, np.int64) if fixed is None else fixed,
                      np.ones(n), post)
        return post

    def predict_agreement(self, panel_votes, rater=None, *, skill=None, tie_rule: str = "drop",
                          item="item", rater_column="rater", label="label"):
        """P(rater R's label = the panel's plurality label | the panel's votes), per item.

        Exact: the posterior over (truth z, difficulty node g) given the panel's votes,
        then R's confusion at (g, z), at the plurality label(s).

        Parameters
        ----------
        panel_votes : pandas.DataFrame
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
        item, rater_column, label : column names of panel_votes

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
        d = rd.encode(panel_votes, item=item, rater=rater_column, label=label, labels=self.labels,
                      raters=self.raters, what="panel_votes",
                      extra_bytes_per_item=8 * self.nodes.size * len(self.labels))
        if skill is None and rater is None:
            raise ValueError("predict_agreement needs rater=R (a rater id) or skill=...")
        if skill is None and rater_column in panel_votes and (panel_votes[rater_column] == rater).any():
            raise ValueError(f"panel_votes must not contain the target rater's votes (rater={rater!r}); "
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


def _gold_codes(gold, d: rd.Votes, labels) -> np.ndarray:
    fixed = np.full(d.n_items, -1, dtype=np.int64)
    if gold is None:
        return fixed
    if not hasattr(gold, "items"):
        raise ValueError("gold must be a mapping item -> true label (a dict or a pandas Series)")
    lab = list(labels)
    g = pd.Series(dict(gold.items()) if not isinstance(gold, pd.Series) else gold)
    pos = d.items.get_indexer(g.index)
    if (pos < 0).any():
        raise ValueError(f"gold: item {_labels.plain(g.index[pos < 0][0])!r} has no votes; gold "
                         "items must be among the voted items")
    fixed[pos] = [lab.index(_labels.match_label(x, lab, "gold")) for x in g.to_numpy()]
    return fixed


@shown
@dataclasses.dataclass(frozen=True, repr=False)
class RaterCheck:
    """Posterior predictive check of the histogram of votes per item.

    Attributes
    ----------
    chi2, df, p : float
        Pearson's chi-squared of observed vs expected item counts over the pooled
        cells, its degrees of freedom (cells minus vote-count groups) and p-value.
    statistic : str
        What is counted per item: ``"votes for <label>"`` (L = 2: the positive label,
        exact Poisson-binomial expectation) or ``"plurality count"`` (L > 2, Monte
        Carlo expectation).
    table : pandas.DataFrame
        One row per pooled cell: ``votes`` (votes per item), ``low``..``high`` (the
        counts pooled), ``expected``, ``observed``, ``chi2`` (the cell's term).
    """

    chi2: float
    df: int
    p: float
    statistic: str
    table: pd.DataFrame = dataclasses.field(repr=False)

    def _shown_tables(self) -> dict:
        return {"table": self.table}


def _pool(expected: np.ndarray, observed: np.ndarray, k: int):
    """Cells 0..k of one vote count, pooled left to right until each expects >= MIN_EXPECTED.

    A short last cell joins the one before; a group expecting < MIN_EXPECTED in total
    is one cell (no degree of freedom).
    """
    cells, lo, e, o = [], 0, 0.0, 0.0
    for c in range(k + 1):
        e += expected[c]
        o += observed[c]
        if e >= MIN_EXPECTED:
            cells.append([lo, c, e, o])
            lo, e, o = c + 1, 0.0, 0.0
    if lo <= k:
        if cells:
            cells[-1][1] = k
            cells[-1][2] += e
            cells[-1][3] += o
        else:
            cells.append([0, k, e, o])
    return cells


@shown
@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class RaterFit:
    """The result of :func:`fit_raters`.

    Attributes
    ----------
    model : RaterModel
    kind : str
        ``"one_coin"``, ``"dawid_skene"`` or ``"dawid_skene_difficulty"``.
    n_iter : int
        EM iterations; ``converged`` whether the tolerance was met.
    log_lik : float
        log P(votes) at the fit (the marginal likelihood, difficulty integrated).
    sigma : float
        The fitted sd of item difficulty (0 without difficulty).
    truth : pandas.DataFrame
        P(truth = label | votes) per item (rows: items, columns: labels).
    skills : pandas.DataFrame
        One row per rater: ``rater``, ``n_items``, ``accuracy`` = P(correct) under the
        fitted prior and difficulty, for L = 2 ``sensitivity`` (P(says labels[1] |
        truth labels[1])) and ``specificity``, each with ``_low`` / ``_high``: a
        percentile bootstrap interval over items (``n_boot`` refits warm-started at the
        fit, ``confidence_level``; NaN with ``n_boot=0``). Computed on first access.
    """

    model: RaterModel
    kind: str
    n_iter: int
    converged: bool
    log_lik: float
    sigma: float
    n_boot: int
    confidence_level: float
    seed: int
    _data: object = dataclasses.field(repr=False)
    _params: object = dataclasses.field(repr=False)
    _items: pd.Index = dataclasses.field(repr=False)
    _options: dict = dataclasses.field(repr=False)

    @property
    def raters(self) -> tuple:
        """The fitted raters' ids."""
        return self.model.raters

    def _shown(self) -> dict:
        return {"kind": self.kind, "raters": self.raters, "labels": self.model.labels,
                "items": len(self._items), "n_iter": self.n_iter, "converged": self.converged,
                "log_lik": self.log_lik, "sigma": self.sigma, "n_boot": self.n_boot,
                "seed": self.seed}

    def _shown_tables(self) -> dict:
        """The skills (with intervals once computed: ``n_boot`` refits are not run here)."""
        if "skills" in self.__dict__ or self.n_boot == 0:
            return {"skills": self.skills}
        return {"skills (point estimates; .skills adds the bootstrap intervals)":
                pd.DataFrame({"rater": list(self.raters), **_skill_columns(self.model)})}

    @property
    def truth(self) -> pd.DataFrame:
        """P(truth = label | votes) per item (rows: items, columns: labels)."""
        post = self._params.post.sum(axis=1)
        return pd.DataFrame(post, index=self._items, columns=list(self.model.labels))

    @functools.cached_property
    def skills(self) -> pd.DataFrame:
        """The per-rater skill table with bootstrap intervals (see the class)."""
        base = _skill_columns(self.model)
        out = pd.DataFrame({"rater": list(self.model.raters),
                            "n_items": self._data.rater_votes.astype(np.int64)})
        boots = []
        if self.n_boot > 0:
            rng = _seeding.generator(self.seed, "raters", "bootstrap")
            n = self._data.n_items
            with em.threads_for(self._data.rater.size):
                for _ in range(self.n_boot):
                    w = rng.multinomial(n, np.full(n, 1.0 / n)).astype(float)
                    p = em.fit(self._data, self.kind, weights=w, start=self._params, max_iter=50,
                               keep_post=False, **self._options)
                    boots.append(_skill_columns(_as_model(self.model, p)))
        q = (1 - self.confidence_level) / 2
        for name, val in base.items():
            out[name] = val
            if boots:
                b = np.stack([x[name] for x in boots])
                out[f"{name}_low"] = np.quantile(b, q, axis=0)
                out[f"{name}_high"] = np.quantile(b, 1 - q, axis=0)
            else:
                out[f"{name}_low"] = np.nan
                out[f"{name}_high"] = np.nan
        return out

    def check(self, *, n_draws: int = 200, seed=0) -> RaterCheck:
        """Posterior predictive check of the per-item vote histogram, by vote count.

        For L = 2 the histogram of the number of votes for the positive label
        (``labels[1]``) per item, among items with the same number of votes; each
        item's expectation is the model's exact marginal predictive for its raters (a
        mixture over truth and difficulty of Poisson-binomials). For L > 2 the
        histogram of the plurality count (votes for the item's most voted label),
        expected from ``n_draws`` simulated vote sets per item (counter-based draws
        from ``seed``). Cells expecting fewer than 5 items are pooled with the next
        (see :func:`_pool`); df = cells - vote-count groups (the fitted parameters are
        not subtracted, as in Carpenter's case study). With items of different rater
        sets in one group the statistic is a sum over independent non-identical items:
        the chi-squared p is then approximate (conservative).

        Returns
        -------
        RaterCheck

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> truth = rng.random(300) < 0.3
        >>> said = np.where(rng.random((300, 4)) < 0.85, truth[:, None], ~truth[:, None])
        >>> v = pd.DataFrame({"item": np.repeat(np.arange(300), 4), "rater": list("abcd") * 300,
        ...                   "label": said.ravel().astype(int)})
        >>> bool(fit_raters(v, n_boot=0).check().p > 0.01)
        True
        """
        d, m = self._data, self.model
        L = len(m.labels)
        n_max = int(np.diff(d.item_ptr).max())
        V.memory(f"the check's histograms of items with up to {n_max} votes",
                 16.0 * (n_max + 1) ** 2 * (d.n_items // rk.BLOCK + 1), "fit fewer votes per item")
        if L > 2:
            n_draws = int(V.single("n_draws", V.integer("n_draws", n_draws, lo=1)))
        with em.threads_for(d.rater.size):
            ex, ob, what = self._histograms(n_max, n_draws, seed)
        return self._finish_check(ex, ob, what, n_max)

    def _histograms(self, n_max, n_draws, seed):
        d, m = self._data, self.model
        lc = m.kernel_log_conf
        if len(m.labels) == 2:
            ex, ob = rk.count_hist(d.item_ptr, d.rater, d.label, lc, m.log_prior, m.log_weights, 1,
                                   n_max)
            return ex, ob, f"votes for {m.labels[1]!r}"
        key = np.uint64(_seeding.derive(_seeding.as_seed(seed), "raters", "check"))
        ex, ob = rk.plurality_hist(d.item_ptr, d.rater, d.label, lc, m.log_prior, m.log_weights,
                                   n_max, n_draws, key)
        return ex, ob, "plurality count"

    @staticmethod
    def _finish_check(ex, ob, what, n_max):
        rows = []
        for k in range(n_max + 1):
            if ob[k].sum() == 0:
                continue
            for lo, hi, e, o in _pool(ex[k], ob[k], k):
                rows.append({"votes": k, "low": lo, "high": hi, "expected": e, "observed": o})
        table = pd.DataFrame(rows)
        table["chi2"] = (table["observed"] - table["expected"]) ** 2 / table["expected"]
        chi2 = float(table["chi2"].sum())
        df = int(len(table) - table["votes"].nunique())
        p = float(stats.chi2.sf(chi2, df)) if df > 0 else np.nan
        return RaterCheck(chi2=chi2, df=df, p=p, statistic=what, table=table)

    def predict_agreement(self, panel_votes, rater=None, *, skill=None, tie_rule: str = "drop",
                          item="item", rater_column="rater", label="label"):
        """:meth:`RaterModel.predict_agreement` of the fitted model (same arguments).

        Examples
        --------
        >>> v = pd.DataFrame({"item": np.repeat(np.arange(50), 3), "rater": list("abc") * 50,
        ...                   "label": np.repeat(np.arange(50) % 2, 3)})
        >>> p = fit_raters(v, n_boot=0).predict_agreement(v[v.rater != "c"], "c")
        >>> bool(p.items["predicted"].min() > 0.9)
        True
        """
        return self.model.predict_agreement(panel_votes, rater, skill=skill, tie_rule=tie_rule,
                                            item=item, rater_column=rater_column, label=label)


def _skill_columns(m: RaterModel) -> dict:
    conf = np.exp(m.log_conf)  # (J, G, z, l)
    w = np.exp(m.log_weights)
    marg = np.einsum("g,jgzl->jzl", w, conf)
    idx = np.arange(len(m.labels))
    right = marg[:, idx, idx]  # (J, z)
    out = {"accuracy": right @ np.exp(m.log_prior)}
    if len(m.labels) == 2:
        out["sensitivity"] = right[:, 1]
        out["specificity"] = right[:, 0]
    return out


def _as_model(template: RaterModel | None, p, labels=None, raters=None) -> RaterModel:
    labels = template.labels if template is not None else labels
    raters = template.raters if template is not None else raters
    lc = p.lc.transpose(0, 2, 3, 1)  # (J + 1, G, z, l)
    return RaterModel(tuple(labels), tuple(raters), p.log_prior.copy(), np.asarray(p.nodes, float).copy(),
                      p.log_weights.copy(), np.ascontiguousarray(lc[:-1]), np.ascontiguousarray(lc[-1]))


def fit_raters(votes, model: str = "dawid_skene", *, item="item", rater="rater", label="label",
               labels=None, gold=None, prior_strength: float = 2.0, n_boot: int = 200,
               confidence_level: float = CONFIDENCE_LEVEL, seed=0, max_iter: int = 1000,
               tol: float = 1e-7, n_nodes: int = em.N_NODES) -> RaterFit:
    """Fit a rater model to long-format votes of identified raters.

    Parameters
    ----------
    votes : pandas.DataFrame
        One row per vote: item, rater, label (any hashable values; labels follow
        labelvar's label rules: ``"1"`` and ``1`` are one label). One vote per (item,
        rater); missing values are refused.
    model : {"one_coin", "dawid_skene", "dawid_skene_difficulty"}
    item, rater, label : column names
    labels : sequence or None
        The declared label set (default: the labels seen, sorted).
    gold : mapping or None
        Gold/control items: item -> true label (their truth is fixed in the fit).
    prior_strength : float
        Pseudo-votes pulling each rater's rates to the pooled raters' (> 0).
    n_boot : int
        Bootstrap refits over items for the intervals of :attr:`RaterFit.skills`
        (run when ``skills`` is first read; 0: no intervals).
    confidence_level : float
    seed : int
        The bootstrap's seed.
    max_iter, tol : EM limits (tol: gain of the log posterior per vote).
    n_nodes : int
        Gauss-Hermite nodes of the difficulty distribution (difficulty model only).

    Returns
    -------
    RaterFit

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> truth = rng.integers(0, 2, 400)
    >>> acc = np.array([0.95, 0.85, 0.75, 0.65, 0.55])
    >>> said = np.where(rng.random((400, 5)) < acc, truth[:, None], 1 - truth[:, None])
    >>> v = pd.DataFrame({"item": np.repeat(np.arange(400), 5), "rater": list("abcde") * 400,
    ...                   "label": said.ravel()})
    >>> (said == truth[:, None]).mean(axis=0).round(2).tolist()  # the simulated raters' hits
    [0.96, 0.82, 0.75, 0.64, 0.56]
    >>> fit_raters(v, model="one_coin", n_boot=0).skills["accuracy"].round(2).tolist()
    [0.94, 0.83, 0.76, 0.64, 0.59]
    """
    V.choice("model", model, MODELS)
    n_boot = int(V.single("n_boot", V.integer("n_boot", n_boot, lo=0)))
    max_iter = int(V.single("max_iter", V.integer("max_iter", max_iter, lo=1)))
    s = float(V.single("prior_strength", V.probability("prior_strength", prior_strength, lo=0,
                                                        hi=np.inf, open_lo=True)))
    cl = float(V.single("confidence_level", V.probability("confidence_level", confidence_level,
                                                          open_lo=True, open_hi=True)))
    tol = float(V.single("tol", V.probability("tol", tol, hi=np.inf)))
    seed = _seeding.as_seed(seed)
    lab = None if labels is None else _labels.declared(labels)
    G = int(V.single("n_nodes", V.integer("n_nodes", n_nodes, lo=2, hi=101))) \
        if model == "dawid_skene_difficulty" else 1
    d = rd.encode(votes, item=item, rater=rater, label=label, labels=lab,
                  extra_bytes_per_item=2 * 8 * G * (2 if lab is None else len(lab)))
    data = em.from_votes(d, _gold_codes(gold, d, d.labels))
    options = {"prior_strength": s, "tol": tol, "n_nodes": max(G, 2)}
    with em.threads_for(d.n_votes):
        p = em.fit(data, model, max_iter=max_iter, **options)
    m = _as_model(None, p, d.labels, d.raters)
    return RaterFit(model=m, kind=model, n_iter=p.n_iter, converged=p.converged,
                    log_lik=float(p.log_lik), sigma=float(p.sigma), n_boot=n_boot,
                    confidence_level=cl, seed=seed, _data=data, _params=p, _items=d.items,
                    _options=options)


def dawid_skene_codes(codes, n_labels: int, *, n_iter: int = 100, tol: float = 1e-5):
    """crowd-kit 1.4.2's maximum-likelihood Dawid-Skene on an items x raters code matrix.

    The engine of :func:`labelvar.evaluation.dawid_skene` (see there).
    """
    c = np.asarray(codes, dtype=np.int64)
    if c.ndim != 2:
        raise ValueError(f"codes must be items x raters, got shape {c.shape}")
    L = int(V.single("n_labels", V.n_labels(n_labels)))
    if c.size and (c.max() >= L or c.min() < -1):
        raise ValueError(f"codes must be in [-1, {L - 1}] (-1: no vote), got {c.min()}..{c.max()}")
    n, R = c.shape
    ii, jj = np.nonzero(c >= 0)  # row-major: item order
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(ii, minlength=n), out=ptr[1:])
    data = em.Data(ptr, jj.astype(np.int64), c[ii, jj], R, L, np.full(n, -1, np.int64))
    with em.threads_for(data.rater.size):
        return em.crowdkit(data, n_iter, tol)

