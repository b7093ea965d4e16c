r"""Three ceilings per agreement bin for a panel of K raters, exact and for S items.

Score a labeller against the plurality label of a K-rater panel drawn from a rater
model (:class:`labelvar.RaterModel`, fitted by :func:`labelvar.fit_raters`,
stated by :meth:`~labelvar.RaterModel.from_skill`, or the paper's exchangeable
coin model, :func:`coin_model`). Per agreement bin of the panel (top votes / K, the
bins of :func:`labelvar.stratify`) three labellers' expected accuracy:

``exchangeable``
    one of the panel's own votes, drawn at random (the paper's H'): it agrees with the
    plurality with probability top / K on every item, so its expectation is the
    paper's :math:`E = p_d` in every bin, under any model;
``oracle``
    the plurality oracle: it always answers the item's plurality label in the
    population of raters (:math:`\arg\max_l` P(a population rater says l | the item's
    truth and difficulty); ties split), the label an infinite panel would give. Above
    :math:`p_d` where :math:`p_d > 1/2`: a labeller can beat "human agreement";
``rater``
    a rater of fitted or stated skill R (a fitted rater not in the panel, the
    population rater, i.e. a fresh rater from the fitted population, or a skill given
    as sensitivity/specificity, accuracy or a confusion matrix), scored against the
    majority of the *other* raters.

Two sources. Without ``panel`` the expectation enumerates every joint vote of
the panel (:math:`L^K` of them, or the compositions when every panel rater has the
same skill), the truth and the difficulty node: per bin b,
:math:`E_b = \sum_{v \in b} P(v)\, q(v) / \sum_{v \in b} P(v)` with q(v) the
labeller's probability of matching the plurality of v (under the tie rule). S items
of bin b drawn from the model are i.i.d. given the bin, so the number right is
Bin(S, :math:`E_b`). With ``panel`` (real items) each item's q is conditional on
its panel votes and the number right of a bin's S items is a sum of Bernoulli(q_i):
exact (a Poisson-binomial distribution, computed exactly). The ``all`` row
combines the bins (model source: per-bin S fixed).

The posterior over (truth, difficulty) given the panel's votes is the rater model's
own (:meth:`RaterModel._posterior <labelvar.RaterModel>`, the E-step kernel);
this module only adds the forward probabilities P(v) of the enumerated votes.

Examples
--------
>>> from labelvar import RaterModel
>>> m = coin_model(0.7)
>>> c = panel_ceilings(m, raters=3, n_items=100)
>>> t = c.table[c.table.stratum != "all"]
>>> for ceiling in ("exchangeable", "oracle", "rater"):   # bins 2/3 and 3/3
...     print(ceiling, t[t.ceiling == ceiling].expected.round(4).tolist())
exchangeable [0.6667, 1.0]
oracle [0.7, 0.927]
rater [0.58, 0.6708]
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from labelvar._base import _validate as V
from labelvar._base._defaults import CONFIDENCE_LEVEL
from labelvar._base._format import shown
from labelvar.analytic._distributions import DiscreteDistribution, binomial_sum_distribution
from labelvar.votes import _panel

__all__ = ["CEILINGS", "Ceilings", "coin_model", "panel_ceilings"]

#: the three ceilings, in table order
CEILINGS = ("exchangeable", "oracle", "rater")
#: most items per bin of the finite-sample distributions (``n_items``): their pmf is
#: convolved over the bins, and beyond 1e9 items per bin that takes minutes and its
#: spread underflows the doubles (sd 0)
MAX_ITEMS = 10**9
#: rater id of the population raters of an exchangeable panel (``raters=K``)
_POPULATION = "population"


@shown
@dataclass(frozen=True, repr=False)
class Ceilings:
    """Ceilings per agreement bin (:func:`panel_ceilings`).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per ceiling x stratum (the bins in increasing agreement, then
        ``"all"``): ``ceiling``, ``target``, ``raters`` (the panel's rater ids), ``K``, ``L``, ``tie_rule``,
        ``source`` (``"model"`` or ``"votes"``), ``stratum``, ``p_d`` (mean top / K),
        ``p_bin`` (probability of the bin under the model, or its share of the items),
        ``n_items`` (S), ``expected`` (exact expected accuracy), with ``panel``
        holding the target's own votes also ``observed`` (its score against the
        plurality, a tied item counting as the tie rule's share) and ``n_observed`` on
        the ``rater`` rows, ``sd``, ``ci_low``, ``ci_high`` (central interval of the
        accuracy on S items), ``confidence_level``.
    distributions : dict
        (ceiling, stratum) -> :class:`~labelvar.analytic.DiscreteDistribution` of the
        accuracy on the bin's S items.
    """

    table: pd.DataFrame
    distributions: dict = field(repr=False)

    def _shown(self) -> dict:
        t = self.table
        return {"ceilings": list(dict.fromkeys(t["ceiling"])), "K": sorted(set(t["K"].tolist())),
                "strata": list(dict.fromkeys(t["stratum"])), "table": t}

    def _shown_tables(self) -> dict:
        return {"table": self.table}

    def distribution(self, ceiling: str, stratum: str) -> DiscreteDistribution:
        """The finite-sample distribution of ``ceiling``'s accuracy in ``stratum``.

        Examples
        --------
        >>> d = panel_ceilings(coin_model(0.8), raters=5, n_items=50).distribution("exchangeable", "0.60")
        >>> round(d.mean, 6), round(float(d.sf(0.7)), 4)   # Bin(50, 0.6) / 50
        (0.6, 0.0955)
        """
        key = (V.choice("ceiling", ceiling, CEILINGS), str(stratum))
        if key not in self.distributions:
            known = sorted({s for _, s in self.distributions})
            raise ValueError(f"stratum {stratum!r} has no distribution (n_items not given, or "
                             f"not a stratum); strata: {', '.join(known) or 'none'}")
        return self.distributions[key]


def coin_model(theta, n_labels: int = 2, *, labels=None, prior=None, degree: int = 48):
    r"""The paper's exchangeable coin model as a rater model with no identified raters.

    Each vote is the item's modal label with probability θ, else each other label with
    probability (1 - θ) / (L - 1); the modal label (the truth here) has ``prior``.

    Parameters
    ----------
    theta : float, (values, weights) or a θ prior
        One agreement θ for every item, a discrete distribution of θ, or a
        :mod:`labelvar.votes` θ prior (discretised on its ``nodes(L, degree)``).
    n_labels : int
        L (ignored when ``labels`` is given).
    labels : sequence, optional
        The label set (default 0, ..., L - 1).
    prior : sequence, optional
        P(modal label) per label (default uniform).
    degree : int
        Quadrature degree of a continuous θ prior.

    Returns
    -------
    labelvar.RaterModel
        ``raters = ()``, ``nodes`` = the θ values (the population rater's agreement at
        each node), ``population_log_conf`` the coin confusion per node.

    Examples
    --------
    >>> m = coin_model(0.8, 3)
    >>> np.exp(m.population_log_conf[0]).round(2).tolist()[0]
    [0.8, 0.1, 0.1]
    """
    from labelvar.votes._raters import RaterModel

    lab = tuple(range(int(V.single("n_labels", V.n_labels(n_labels))))) if labels is None \
        else tuple(labels)
    L = len(lab)
    if L < 2:
        raise ValueError(f"labels must hold at least 2 labels, got {list(lab)!r}")
    if hasattr(theta, "nodes"):
        nodes, weights = theta.nodes(L, int(degree))
    elif isinstance(theta, tuple) and len(theta) == 2:
        nodes, weights = (np.atleast_1d(V.probability("theta", x)) for x in theta)
    else:
        nodes, weights = np.atleast_1d(V.probability("theta", theta)).ravel(), None
    nodes = np.asarray(nodes, float).ravel()
    weights = np.full(nodes.size, 1.0 / nodes.size) if weights is None else \
        np.asarray(weights, float).ravel()
    if nodes.shape != weights.shape or abs(weights.sum() - 1) > 1e-9 or (weights < 0).any():
        raise ValueError("theta as (values, weights): weights must be >= 0, one per value, "
                         f"summing to 1, got {weights.tolist()}")
    if (nodes < 1.0 / L - 1e-12).any():
        raise ValueError(f"theta must be >= 1/L = {1 / L:.4g} (the modal label's probability), "
                         f"got {V._show(nodes[nodes < 1.0 / L - 1e-12])}")
    pri = np.full(L, 1.0 / L) if prior is None else V.probability("prior", prior)
    if pri.shape != (L,) or abs(pri.sum() - 1) > 1e-9:
        raise ValueError(f"prior must give {L} probabilities summing to 1, got {pri.tolist()}")
    eye = np.eye(L)
    conf = nodes[:, None, None] * eye + ((1 - nodes) / (L - 1))[:, None, None] * (1 - eye)
    with np.errstate(divide="ignore"):
        return RaterModel(lab, (), np.log(pri), nodes, np.log(weights),
                          np.zeros((0, nodes.size, L, L)), np.log(conf))


# --------------------------------------------------------------------------- per-pattern scores
def _panel_ids(model, raters) -> tuple[list, bool]:
    """Panel rater ids (an int K: K population raters) and whether they share one skill."""
    if isinstance(raters, (int, np.integer)) and not isinstance(raters, bool):
        k = int(V.single("raters", V.integer("raters", raters, lo=1)))
        return [f"{_POPULATION}{i + 1}" for i in range(k)], True
    if isinstance(raters, str) or not hasattr(raters, "__iter__"):
        raise ValueError(f"raters must be a list of rater ids or a panel size K, got {raters!r}")
    ids = list(raters)
    if not ids:
        raise ValueError("raters must name at least one rater")
    if len(set(map(str, ids))) != len(ids):
        twice = next(r for i, r in enumerate(ids) if str(r) in map(str, ids[:i]))
        raise ValueError(f"raters names a rater twice: {twice!r} in {ids!r}; name each panel "
                         "rater once (K population raters: raters=K)")
    confs = [model.rater_log_conf(r) for r in ids]
    same = all(np.array_equal(confs[0], c) for c in confs[1:])
    return ids, same


def _codes(model, ids) -> np.ndarray:
    """Rater codes of the model (len(raters) for a rater not in it: the population)."""
    return np.array([model._index(r) for r in ids], dtype=np.int64)


def _patterns(model, ids, same: bool):
    """Every joint vote of the panel (or composition, if one skill): codes, log P, multiplicity."""
    K, L = len(ids), len(model.labels)
    if same:
        comp = _panel.compositions(K, L)  # (P, L) counts
        votes = np.stack([np.repeat(np.arange(L), c) for c in comp])
        lf = _panel._log_factorials(K)
        log_mult = lf[K] - lf[comp].sum(axis=1)
    else:
        _panel.check_enumerable(K, L, joint=True)
        votes = np.array(list(itertools.product(range(L), repeat=K)), dtype=np.int64)
        log_mult = np.zeros(len(votes))
    G = model.nodes.size
    V.memory(f"ceilings over {len(votes)} vote patterns", 8.0 * len(votes) * (G * L * 3 + K),
             "use a smaller panel")
    lc = np.stack([model.rater_log_conf(r) for r in ids])  # (K, G, z, l)
    joint = model.log_weights[:, None] + model.log_prior[None, :]  # (G, z)
    log_v = np.broadcast_to(joint, (len(votes), G, L)).copy()
    for k in range(K):
        log_v += np.moveaxis(lc[k][:, :, votes[:, k]], -1, 0)  # (P, G, z)
    m = log_v.max(axis=(1, 2))
    ok = np.isfinite(m)  # a pattern of probability 0 (a rate of 0 or 1) has log P = -inf
    safe = np.where(ok, m, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        log_p = np.where(ok, safe + np.log(np.exp(log_v - safe[:, None, None]).sum(axis=(1, 2))),
                         -np.inf)
    return votes, log_p + log_mult


def _posterior(model, votes: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The rater model's posterior (P, G, L) of dense panel votes (P, K)."""
    from labelvar.votes import _rater_data as rd

    P, K = votes.shape
    d = rd.Encoded(items=pd.RangeIndex(P), raters=model.raters, labels=model.labels,
                 item_ptr=np.arange(0, P * K + 1, K, dtype=np.int64),
                 rater=np.tile(codes, P).astype(np.int64), label=votes.ravel().astype(np.int64))
    return model._posterior(d)


def _tie_code(model, tie_rule):
    if isinstance(tie_rule, str) and tie_rule in _panel.TIE_RULES:
        return tie_rule
    from labelvar.io import _labels

    lab = list(model.labels)
    return lab.index(_labels.match_label(tie_rule, lab, "tie_rule"))


def _scores(model, post, counts, tie, target_conf):
    """Per pattern: P(match) of the three ceilings (P, 3), dropped (P,), top (P,), n (P,)."""
    gt, dropped = _panel.truth_weights(counts, tie, modal=0)  # absolute positions = labels
    n = counts.sum(axis=1)
    top = counts.max(axis=1)
    exch = (counts / n[:, None] * gt).sum(axis=1)
    pop = np.exp(model.population_log_conf)  # (G, z, l)
    best = pop >= pop.max(axis=-1, keepdims=True) - 1e-12
    oracle = best / best.sum(axis=-1, keepdims=True)
    q_oracle = np.einsum("pgz,gzl,pl->p", post, oracle, gt)
    q_rater = np.einsum("pgz,gzl,pl->p", post, target_conf, gt)
    return np.stack([exch, q_oracle, q_rater], axis=1), dropped, top, n


# --------------------------------------------------------------------------- the ceilings
def panel_ceilings(model, raters, *, target=None, skill=None, panel=None, n_items=None,
                   tie_rule="random", confidence_level: float = CONFIDENCE_LEVEL, item: str = "item",
                   rater: str = "rater", label: str = "label") -> Ceilings:
    r"""Expected accuracy and its finite-sample distribution of three labellers, per agreement bin.

    See the module docstring for the three ceilings and the two sources.

    Parameters
    ----------
    model : RaterModel or RaterFit
        A fitted (:func:`labelvar.fit_raters`), stated
        (:meth:`~labelvar.RaterModel.from_skill`) or coin (:func:`coin_model`)
        model.
    raters : sequence of rater ids, or int K
        The raters of the panel whose plurality is the ground truth. Ids not in the model are
        population raters (fresh raters); an int is K population raters.
    target : rater id, optional
        R of the ``rater`` ceiling: a fitted rater (not in ``raters``) or any other id
        (the population rater). Default: the population rater.
    skill : dict or array, optional
        A stated R instead of ``target``: ``{"sensitivity": s, "specificity": t}``,
        ``{"accuracy": a}`` or an L x L confusion matrix (rows: truth).
    panel : pandas.DataFrame, optional
        Long votes (``item``, ``rater``, ``label`` columns) of real items: the ceilings
        conditional on each item's panel votes (only the panel's raters' votes are
        used; raters may be missing on some items). The target's own votes, if there,
        give its ``observed`` score. Default: the model's panel.
    n_items : int or mapping, optional
        Model source: S, the items of every bin (or stratum -> S) for the finite-sample
        distributions (default: none, only the expectations); at most 1e9 per bin.
        Not with ``panel`` (S is then the items observed per bin).
    tie_rule : {"random", "drop"} or a label
        Ground truth of a tied panel: uniform over the tied labels, the item left out,
        or that label when tied (else uniform).
    confidence_level : float
        Of the central intervals.
    item, rater, label : str
        Column names of ``panel``.

    Returns
    -------
    Ceilings

    Notes
    -----
    Per vote pattern v with plurality distribution :math:`T_v(l)` (the tie rule) and
    posterior :math:`P(z, g \mid v)`: exchangeable :math:`q = \sum_l (c_l / K) T_v(l)`
    (= top / K); oracle :math:`q = \sum_{z,g} P(z,g \mid v) \sum_l o_{gz}(l) T_v(l)`
    with :math:`o_{gz}` uniform over :math:`\arg\max_l \pi_{pop}[g, z, l]`; rater R
    :math:`q = \sum_{z,g} P(z,g \mid v) \sum_l \theta_R[g, z, l] T_v(l)`.

    Examples
    --------
    >>> from labelvar import RaterModel
    >>> m = RaterModel.from_skill([{"accuracy": 0.9}, {"accuracy": 0.8}, {"accuracy": 0.7}],
    ...                           raters=["a", "b", "c"])
    >>> c = panel_ceilings(m, raters=["a", "b"], target="c", tie_rule="drop", n_items=40)
    >>> r = c.table[(c.table.ceiling == "rater") & (c.table.stratum == "1.00")].iloc[0]
    >>> round(float(r.expected), 4), round(float(r.p_bin), 4)   # (.72 .7 + .02 .3) / .74; P(agree) = .74
    (0.6892, 0.74)
    """
    from labelvar.votes._raters import RaterFit

    if isinstance(model, RaterFit):
        model = model.model
    if not all(hasattr(model, a) for a in ("log_conf", "population_log_conf", "log_prior")):
        raise ValueError(f"model must be a RaterModel or RaterFit, got {type(model).__name__}")
    lvl = float(V.single("confidence_level", V.probability("confidence_level", confidence_level,
                                                           open_lo=True, open_hi=True)))
    tie = _tie_code(model, tie_rule)
    ids, same = _panel_ids(model, raters)
    if skill is not None and target is not None:
        raise ValueError("give target (a rater id) or skill (a stated skill), not both")
    if target is not None and target in ids:
        raise ValueError(f"target {target!r} is in the panel; the panel is the other raters")
    target_name = ("skill" if skill is not None else _POPULATION if target is None
                   else str(target))
    target_conf = np.exp(model.rater_log_conf(None if target is None else target, skill))
    L = len(model.labels)
    if panel is None:
        votes, log_p = _patterns(model, ids, same)
        post = _posterior(model, votes, _codes(model, ids))
        counts = np.stack([(votes == lab).sum(axis=1) for lab in range(L)], axis=1)
        weight = np.exp(log_p)
        source = "model"
    else:
        if n_items is not None:
            raise ValueError("n_items is for the model source; with panel (votes) S is the "
                             "items observed per bin: give panel or n_items, not both")
        if isinstance(raters, (int, np.integer)):
            raise ValueError("with panel (votes), raters must name the panel's raters (ids in "
                             "the votes), not a size")
        post, counts, items = _observed(model, panel, ids, item, rater, label)
        weight = np.ones(len(counts))
        source = "votes"
    q, dropped, top, n = _scores(model, post, counts, tie, target_conf)
    said = None
    if source == "votes" and target is not None:
        said = _target_codes(model, panel, target, items, item, rater, label)
        gt = _panel.truth_weights(counts, tie, modal=0)[0]
        hit = np.where(said >= 0, gt[np.arange(len(said)), np.maximum(said, 0)], np.nan)
    keep = dropped == 0
    share = np.where(n > 0, top / np.maximum(n, 1), np.nan)
    strata = np.array([f"{s:.2f}" for s in share])
    names = sorted(set(strata[keep & (weight > 0)].tolist()), key=float)
    S_of = _bin_sizes(n_items, names, source, strata, keep)
    base = {"target": target_name, "raters": ",".join(map(str, ids)), "K": len(ids), "L": L,
            "tie_rule": str(tie_rule), "source": source}
    rows, dists = [], {}
    total_w = float(weight.sum())
    for ci, ceiling in enumerate(CEILINGS):
        parts_c, parts_q = [], []
        for s in names + ["all"]:
            sel = keep & (weight > 0) & ((strata == s) if s != "all" else True)
            w = weight[sel]
            row = dict(base, ceiling=ceiling, stratum=s,
                       p_d=float(np.dot(w, share[sel]) / w.sum()),
                       p_bin=float(w.sum() / total_w),
                       expected=float(np.dot(w, q[sel, ci]) / w.sum()))
            dist = None
            if source == "model" and s != "all" and S_of.get(s):
                parts_c.append(S_of[s])
                parts_q.append(row["expected"])
                dist = binomial_sum_distribution([S_of[s]], [row["expected"]])
            elif source == "model" and s == "all" and parts_c:
                dist = binomial_sum_distribution(parts_c, parts_q)
            elif source == "votes":
                vals, cnt = np.unique(q[sel, ci], return_counts=True)
                dist = binomial_sum_distribution(cnt, vals)
            row["n_items"] = (int(sum(parts_c)) if s == "all" and source == "model" and parts_c
                              else int(S_of.get(s, 0)) if source == "model" else int(sel.sum()))
            if source == "model" and s == "all":
                row["expected_S"] = (float(np.dot(parts_c, parts_q) / sum(parts_c)) if parts_c
                                     else np.nan)
            if dist is not None:
                lo, hi = dist.interval(lvl)
                row.update(sd=dist.sd, ci_low=lo, ci_high=hi)
                dists[(ceiling, s)] = dist
            else:
                row.update(sd=np.nan, ci_low=np.nan, ci_high=np.nan)
            row["confidence_level"] = lvl
            if ceiling == "rater" and said is not None:
                h = hit[sel]
                row["n_observed"] = int(np.isfinite(h).sum())
                row["observed"] = float(np.nanmean(h)) if np.isfinite(h).any() else np.nan
            rows.append(row)
    cols = ["ceiling", "target", "raters", "K", "L", "tie_rule", "source", "stratum", "p_d",
            "p_bin", "n_items", "expected", "sd", "ci_low", "ci_high", "confidence_level"]
    table = pd.DataFrame(rows)
    if "expected_S" in table:
        cols.insert(cols.index("expected") + 1, "expected_S")
    if "observed" in table:
        cols[cols.index("sd"):cols.index("sd")] = ["observed", "n_observed"]
    return Ceilings(table=table[cols], distributions=dists)


def _bin_sizes(n_items, names, source, strata, keep) -> dict:
    if source == "votes" or n_items is None:
        return {}
    if isinstance(n_items, Mapping):
        unknown = sorted(set(map(str, n_items)) - set(names))
        if unknown:
            raise ValueError(f"n_items names strata that do not occur: {', '.join(unknown)}; "
                             f"strata: {', '.join(names)}")
        return {str(k): int(V.single("n_items", V.integer("n_items", s, lo=1, hi=MAX_ITEMS)))
                for k, s in n_items.items()}
    s = int(V.single("n_items", V.integer("n_items", n_items, lo=1, hi=MAX_ITEMS)))
    return dict.fromkeys(names, s)


def _observed(model, panel, ids, item, rater, label):
    """Posterior and label counts of real items from the panel raters' long votes."""
    from labelvar.votes import _rater_data as rd

    if not isinstance(panel, pd.DataFrame):
        raise ValueError(f"panel must be a pandas DataFrame of long votes, got "
                         f"{type(panel).__name__}")
    for c in (item, rater, label):
        if c not in panel.columns:
            raise ValueError(f"panel: column {c!r} not found; columns: "
                             f"{', '.join(map(str, panel.columns[:12]))}")
    names = pd.Index(list(map(str, ids)))
    sub = panel[panel[rater].astype(str).isin(names)]
    missing = sorted(set(names) - set(sub[rater].astype(str)))
    if missing:
        raise ValueError(f"panel: panel rater(s) {', '.join(missing)} have no votes")
    sub = sub.assign(**{rater: sub[rater].astype(str)})
    d = rd.encode(sub, item=item, rater=rater, label=label, labels=model.labels,
                  raters=tuple(map(str, model.raters)), what="panel",
                  extra_bytes_per_item=8 * model.nodes.size * len(model.labels))
    post = model._posterior(d)
    L = len(model.labels)
    counts = np.zeros((d.n_items, L), dtype=np.int64)
    item_of = np.repeat(np.arange(d.n_items), np.diff(d.item_ptr))
    np.add.at(counts, (item_of, d.label), 1)
    return post, counts, d.items


def _target_codes(model, panel, target, items, item, rater, label) -> np.ndarray:
    """The target's label code on each of ``items`` (-1 where it did not vote)."""
    from labelvar.io import _labels

    mine = panel[panel[rater].astype(str) == str(target)]
    out = np.full(len(items), -1, dtype=np.int64)
    if len(mine) == 0:
        return out
    lab = list(model.labels)
    code = {}
    for x in pd.unique(mine[label]):
        code[x] = lab.index(_labels.match_label(x, lab, "panel label"))
    from labelvar.io._csv import as_text

    pos = pd.Index(items).get_indexer(as_text(mine[item].reset_index(drop=True)))
    ok = pos >= 0
    out[pos[ok]] = np.array([code[x] for x in mine[label][ok]], dtype=np.int64)
    return out
