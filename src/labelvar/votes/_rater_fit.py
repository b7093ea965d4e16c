"""Fitting a rater model to identified raters' votes: :func:`fit_raters` -> :class:`RaterFit`.

The models are the registered classes of :mod:`labelvar.votes._rater_models` (one file
each); the EM is :mod:`labelvar.votes._rater_em`. Here: the votes' encoding, the labels
no vote uses (zero weight: not identified), the gold items' anchoring of the
orientation, the skills table with its bootstrap, and the model check. Public through
:mod:`labelvar.votes._raters`.
"""

from __future__ import annotations

import dataclasses
import functools
import warnings
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from labelvar._base import _seeding
from labelvar._base import _validate as V
from labelvar._base._defaults import CONFIDENCE_LEVEL
from labelvar._base._format import shown
from labelvar._kernels import raters as rk
from labelvar.io import _labels
from labelvar.votes import _rater_data as rd
from labelvar.votes import _rater_em as em
from labelvar.votes import _rater_models as rm

if TYPE_CHECKING:
    from labelvar.votes._raters import RaterModel

#: the model of :func:`fit_raters` and ``labelvar raters`` when none is named
DEFAULT_MODEL = "dawid_skene_difficulty"
#: expected count below which the check pools a histogram cell with its neighbour
MIN_EXPECTED = 5.0
#: most bootstrap refits of :attr:`RaterFit.skills` (``n_resamples``)
MAX_RESAMPLES = 10_000
#: most votes x refits of the bootstrap: every resample is an EM refit of every vote.
#: Measured (caries, 19,345 votes, warm-started refits of at most 50 passes, one thread):
#: 3.2 microseconds of CPU per vote and refit for Dawid-Skene + difficulty, 0.4 for
#: Dawid-Skene, so the bound is about 11 minutes of CPU for the default model
MAX_RESAMPLE_VOTES = 2e8


def _declared(labels, what: str = "labels") -> list:
    """The canonical declared labels; a single string is refused (not one label per letter)."""
    if isinstance(labels, (str, bytes)) or not hasattr(labels, "__iter__"):
        raise ValueError(f"{what} must be a list of labels, got {labels!r}; for one label per "
                         f"character give list({labels!r})" if isinstance(labels, str) else
                         f"{what} must be a list of labels, got {labels!r}")
    return _labels.declared(labels)


def _gold_codes(gold, d: rd.Encoded, labels, what: str = "gold") -> np.ndarray:
    """Truth codes of the gold items (-1: none), matched to the votes' items by id text.

    An item given twice with different labels is refused naming it; an item without
    votes, or a label outside ``labels``, is refused.
    """
    fixed = np.full(d.n_items, -1, dtype=np.int64)
    if gold is None:
        return fixed
    if isinstance(gold, pd.DataFrame):  # a table of gold items: the votes' column names
        if not {"item", "label"} <= set(gold.columns):
            raise ValueError(f"{what}: a table of gold items needs the columns 'item' and "
                             f"'label', got {list(map(str, gold.columns))}; or give a mapping "
                             "item -> true label")
        gold = pd.Series(gold["label"].to_numpy(), index=gold["item"].to_numpy())
    if isinstance(gold, pd.Series):
        keys, vals = list(gold.index), list(gold.to_numpy())
    elif hasattr(gold, "items"):
        keys, vals = [k for k, _ in gold.items()], [x for _, x in gold.items()]
    else:
        pairs = list(gold) if isinstance(gold, (list, tuple)) else None
        if pairs is None or not all(isinstance(p, tuple) and len(p) == 2 for p in pairs):
            raise ValueError(f"{what} must be a mapping item -> true label (a dict, a pandas Series "
                             "or a list of (item, label) pairs)")
        keys, vals = [k for k, _ in pairs], [x for _, x in pairs]
    lab = list(labels)
    codes = [lab.index(_labels.match_label(x, lab, what)) for x in vals]
    by_text = {str(_labels.plain(k)): i for i, k in enumerate(d.items)}
    seen: dict = {}
    for k, c in zip(keys, codes, strict=True):
        key = str(_labels.plain(k))
        if key not in by_text:
            raise ValueError(f"{what}: item {_labels.plain(k)!r} has no votes; gold items must be "
                             "among the voted items")
        if key in seen and seen[key] != c:
            raise ValueError(f"{what}: item {_labels.plain(k)!r} is given twice with different "
                             f"labels ({lab[seen[key]]!r} and {lab[c]!r}); give each gold item "
                             "once")
        seen[key] = c
        fixed[by_text[key]] = c
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

@dataclasses.dataclass(frozen=True)
class _FitState:
    """What a :class:`RaterFit` keeps to refit and check.

    The votes (over the declared labels and over the used ones), the fitted
    parameters, the model object and the EM tolerance.
    """

    data: em.Data  # codes over the declared labels
    params: object  # em.Params on the used labels
    items: pd.Index
    spec: object
    fit_data: em.Data  # codes over the used labels (what the EM fits)
    used: np.ndarray
    tol: float


@shown
@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class RaterFit:
    """The result of :func:`fit_raters`.

    Attributes
    ----------
    model : RaterModel
    kind : str
        The rater model's registered name (``"one_coin"``, ``"dawid_skene"``,
        ``"dawid_skene_difficulty"``, or one registered by the user).
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
        percentile bootstrap interval over items (``n_resamples`` refits warm-started at
        the fit, ``confidence_level``; NaN with ``n_resamples=0``). Computed on first
        access. A class no rater uses (and no gold item has) is not identified: its
        prior is 0 and its rates are NaN (``unidentified`` lists them).
    unidentified : tuple
        Declared labels no vote and no gold item uses: they get zero weight in the fit.
    """

    model: RaterModel
    kind: str
    n_iter: int
    converged: bool
    log_lik: float
    sigma: float
    n_resamples: int
    confidence_level: float
    seed: int
    unidentified: tuple
    _state: _FitState = dataclasses.field(repr=False)

    @property
    def _data(self) -> em.Data:
        return self._state.data

    @property
    def _params(self):
        return self._state.params

    @property
    def _items(self) -> pd.Index:
        return self._state.items

    @property
    def raters(self) -> tuple:
        """The fitted raters' ids."""
        return self.model.raters

    def _shown(self) -> dict:
        return {"kind": self.kind, "raters": self.raters, "labels": self.model.labels,
                "items": len(self._items), "n_iter": self.n_iter, "converged": self.converged,
                "log_lik": self.log_lik, "sigma": self.sigma,
                "n_resamples": self.n_resamples, "seed": self.seed,
                **({"unidentified": self.unidentified} if self.unidentified else {})}

    def _shown_tables(self) -> dict:
        """The skills (with intervals once computed: ``n_resamples`` refits are not run here)."""
        if "skills" in self.__dict__ or self.n_resamples == 0:
            return {"skills": self.skills}
        return {"skills (point estimates; .skills adds the bootstrap intervals)":
                pd.DataFrame({"rater": list(self.raters), **_skill_columns(self.model)})}

    @property
    def truth(self) -> pd.DataFrame:
        """P(truth = label | votes) per item (rows: items, columns: labels)."""
        post = np.zeros((len(self._items), len(self.model.labels)))
        post[:, self._state.used] = self._params.post.sum(axis=1)
        return pd.DataFrame(post, index=self._items, columns=list(self.model.labels))

    @functools.cached_property
    def skills(self) -> pd.DataFrame:
        """The per-rater skill table with bootstrap intervals (see the class)."""
        base = _skill_columns(self.model)
        out = pd.DataFrame({"rater": list(self.model.raters),
                            "n_items": self._data.rater_votes.astype(np.int64)})
        boots = []
        if self.n_resamples > 0:
            rng = _seeding.generator(self.seed, "raters", "bootstrap")
            n = self._data.n_items
            with em.threads_for(em.work(self._data, self._state.spec)):
                for _ in range(self.n_resamples):
                    w = rng.multinomial(n, np.full(n, 1.0 / n)).astype(float)
                    st = self._state
                    p = _em_fit(st.fit_data, st.spec, weights=w, start=st.params, max_iter=50,
                                keep_post=False, tol=st.tol)
                    boots.append(_skill_columns(_as_model(self.model, p, st.used)))
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

    def label_counts(self, raters=None) -> pd.DataFrame:
        """Votes per item and label of ``raters`` (default all): items x labels, as fitted.

        Counted from the encoded votes, so the labels are the fit's canonical ones
        (``1.0`` and ``1`` are one label) and the items its items, in its order.

        Examples
        --------
        >>> v = pd.DataFrame({"item": [1, 1, 2, 2], "rater": list("abab"),
        ...                   "label": ["1.0", "1", "0.0", "1"]})
        >>> fit_raters(v, model="dawid_skene", n_resamples=0).label_counts(["a"]).values.tolist()
        [[0, 1], [1, 0]]
        """
        d, known = self._data, list(map(str, self.model.raters))
        if raters is None:
            pick = np.ones(d.n_raters, dtype=bool)
        else:
            if isinstance(raters, str):
                raise ValueError(f"raters must be a list of rater ids, got the string {raters!r}")
            unknown = [r for r in raters if str(r) not in known]
            if unknown:
                raise ValueError(f"raters: {unknown[0]!r} is not a fitted rater; raters: "
                                 f"{', '.join(known[:12])}")
            pick = np.isin(np.arange(d.n_raters), [known.index(str(r)) for r in raters])
        L = len(self.model.labels)
        item_of = np.repeat(np.arange(d.n_items), np.diff(d.item_ptr))
        sel = pick[d.rater]
        counts = np.zeros((d.n_items, L), dtype=np.int64)
        np.add.at(counts, (item_of[sel], d.label[sel]), 1)
        return pd.DataFrame(counts, index=self._items, columns=list(self.model.labels))

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
        >>> bool(fit_raters(v, n_resamples=0).check().p > 0.01)
        True
        """
        d, m = self._data, self.model
        L = len(m.labels)
        n_max = int(np.diff(d.item_ptr).max())
        V.memory(f"the check's histograms of items with up to {n_max} votes",
                 16.0 * (n_max + 1) ** 2 * (d.n_items // rk.BLOCK + 1), "fit fewer votes per item")
        if L > 2:
            n_draws = int(V.single("n_draws", V.integer("n_draws", n_draws, lo=1)))
        with em.threads_for(d.rater.size * m.nodes.size * len(m.labels)):
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

    def predict_agreement(self, panel, rater=None, *, skill=None, tie_rule: str = "drop",
                          item="item", rater_column="rater", label="label"):
        """:meth:`RaterModel.predict_agreement` of the fitted model (same arguments).

        Examples
        --------
        >>> v = pd.DataFrame({"item": np.repeat(np.arange(50), 3), "rater": list("abc") * 50,
        ...                   "label": np.repeat(np.arange(50) % 2, 3)})
        >>> p = fit_raters(v, n_resamples=0).predict_agreement(v[v.rater != "c"], "c")
        >>> bool(p.items["predicted"].min() > 0.9)
        True
        """
        return self.model.predict_agreement(panel, rater, skill=skill, tie_rule=tie_rule,
                                            item=item, rater_column=rater_column, label=label)



def _skill_columns(m) -> dict:
    """Accuracy (and L = 2 sensitivity, specificity) per rater; NaN for a class of prior 0."""
    conf = np.exp(m.log_conf)  # (J, G, z, l)
    w = np.exp(m.log_weights)
    marg = np.einsum("g,jgzl->jzl", w, conf)
    idx = np.arange(len(m.labels))
    right = marg[:, idx, idx]  # (J, z)
    prior = np.exp(m.log_prior)
    out = {"accuracy": right @ prior}
    right = np.where(prior > 0, right, np.nan)
    if len(m.labels) == 2:
        out["sensitivity"] = right[:, 1]
        out["specificity"] = right[:, 0]
    return out


def _expand(p, used: np.ndarray, L: int):
    """Parameters fitted on the used labels -> the declared labels (zero prior elsewhere).

    A declared class no vote uses gets prior 0 (log -inf) and uniform rows (never
    weighed); no rater says an unused label (rate 0).
    """
    if used.size == L:
        return p
    J1, _, G, _ = p.lc.shape
    lc = np.full((J1, L, G, L), np.log(1.0 / L))
    lc[:, :, :, used] = -np.inf
    lc[np.ix_(np.arange(J1), used, np.arange(G), used)] = p.lc
    log_prior = np.full(L, -np.inf)
    log_prior[used] = p.log_prior
    out = dataclasses.replace(p, lc=lc, log_prior=log_prior)
    if hasattr(p, "post"):
        post = np.zeros(p.post.shape[:2] + (L,))
        post[:, :, used] = p.post
        out.post = post
    return out


def _as_model(template, p, used=None, labels=None, raters=None):
    """A :class:`~labelvar.votes._raters.RaterModel` of fitted parameters (on the used labels)."""
    from labelvar.votes._raters import RaterModel

    labels = template.labels if template is not None else labels
    raters = template.raters if template is not None else raters
    if used is not None:
        p = _expand(p, used, len(labels))
    lc = p.lc.transpose(0, 2, 3, 1)  # (J + 1, G, z, l)
    return RaterModel(tuple(labels), tuple(raters), p.log_prior.copy(),
                      np.asarray(p.nodes, float).copy(), p.log_weights.copy(),
                      np.ascontiguousarray(lc[:-1]), np.ascontiguousarray(lc[-1]))


def _em_fit(d: em.Data, spec, **kw):
    """:func:`labelvar.votes._rater_em.fit`, or the one-label fit (every vote right)."""
    if d.n_labels > 1:
        return em.fit(d, spec, **kw)
    p = em.Params(np.zeros(1), np.zeros(1), np.zeros(1), np.zeros((d.n_raters + 1, 1, 1, 1)),
                  sigma=0.0, n_iter=0, log_lik=0.0, converged=True, objective=0.0)
    if kw.get("keep_post", True):
        p.post = np.ones((d.n_items, 1, 1))
    return p


def _identified(d: em.Data) -> np.ndarray:
    """Per class: whether the votes identify it (a plurality label of some item, or a gold label).

    A class whose label is never an item's plurality (ties count) has no item of its own:
    the model can only make it a copy of another class (Dawid-Skene then moves whole
    groups of items to it on the strength of one vote), so it is held at prior 0.
    """
    L = d.n_labels
    item_of = np.repeat(np.arange(d.n_items), np.diff(d.item_ptr))
    counts = np.zeros((d.n_items, L), dtype=np.int64)
    np.add.at(counts, (item_of, d.label), 1)
    top = counts.max(axis=1, keepdims=True)
    out = ((counts == top) & (top > 0)).any(axis=0)
    out[d.fixed[d.fixed >= 0]] = True
    return out


def _anchored_fit(d: em.Data, spec, max_iter: int, tol: float):
    """The fit from the vote shares and, with gold items, from the gold items alone.

    Of the optima the gold items do not reject (:func:`labelvar.votes._rater_em.gold_rejects`),
    the one of highest objective; the gold items' start wins a tie.
    """
    p = _em_fit(d, spec, max_iter=max_iter, tol=tol)
    if not (d.fixed >= 0).any() or d.n_labels == 1:
        return p
    pg = em.fit(d, spec, max_iter=max_iter, tol=tol, gold_start=True)
    kept = [q for q in (pg, p) if not em.gold_rejects(d, q)]
    if not kept:
        raise ValueError(f"gold: the model fitted with the {int((d.fixed >= 0).sum())} gold items, "
                         "from their start and from the vote shares, labels them better with "
                         "the labels switched; check the gold labels (and that they use the "
                         "votes' labels)")
    return max(kept, key=lambda q: q.objective)


def fit_raters(votes, *, model=DEFAULT_MODEL, item="item", rater="rater", label="label",
               labels=None, gold=None, n_resamples: int = 200,
               confidence_level: float = CONFIDENCE_LEVEL, seed=0, max_iter: int = 1000,
               tol: float = 1e-7) -> RaterFit:
    """Fit a rater model to long-format votes of identified raters.

    Parameters
    ----------
    votes : pandas.DataFrame, labelvar.io.Votes or a votes file
        One row per vote: item, rater, label, read by :func:`labelvar.io.read_votes`
        (its rules: ids are text as written, ``"1"``, ``1.0`` and ``1`` are one label;
        one vote per (item, rater); missing values, non-finite labels, and with labels
        not declared text mixed with numbers or a stray rare label are refused).
    model : str or rater model object
        A registered name (``"dawid_skene_difficulty"``, the default, ``"dawid_skene"``,
        ``"one_coin"``) or an object such as ``DawidSkene(prior_strength=0)``; see
        :data:`RATER_MODELS` and :func:`register_rater_model`.
    item, rater, label : column names
    labels : sequence or None
        The declared label set (default: the labels seen, sorted). A declared label no
        vote uses gets zero weight (it is not identified; ``unidentified`` says so);
        rare votes outside it are left out as missing (a warning says how many).
    gold : mapping, pandas.DataFrame or None
        Gold/control items: item -> true label (or a table with columns ``item`` and
        ``label``) (their truth is fixed in the fit, and
        they anchor the labels' orientation: the fit starts from them too, and an
        optimum they reject is never kept).
    n_resamples : int
        Bootstrap refits over items for the intervals of :attr:`RaterFit.skills` (run
        when ``skills`` is first read; 0: no intervals). At most
        :data:`MAX_RESAMPLES`, and ``n_resamples`` x votes at most
        :data:`MAX_RESAMPLE_VOTES` (each resample refits every vote).
    confidence_level : float
    seed : int
        The bootstrap's seed.
    max_iter, tol : EM limits (tol: gain of the log posterior per vote).

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
    >>> fit_raters(v, model="one_coin", n_resamples=0).skills["accuracy"].round(2).tolist()
    [0.94, 0.83, 0.76, 0.64, 0.59]
    """
    spec = rm.resolve(model)
    n_resamples = int(V.single("n_resamples", V.integer("n_resamples", n_resamples, lo=0,
                                                        hi=MAX_RESAMPLES)))
    max_iter = int(V.single("max_iter", V.integer("max_iter", max_iter, lo=1)))
    cl = float(V.single("confidence_level", V.probability("confidence_level", confidence_level,
                                                          open_lo=True, open_hi=True)))
    tol = float(V.single("tol", V.probability("tol", tol, hi=np.inf)))
    seed = _seeding.as_seed(seed)
    lab = None if labels is None else _declared(labels)
    n_rows = len(votes) if isinstance(votes, pd.DataFrame) else getattr(votes, "n_votes", 0)
    if n_resamples * n_rows > MAX_RESAMPLE_VOTES:
        raise ValueError(f"n_resamples: {n_resamples:,} bootstrap refits of {n_rows:,} votes "
                         f"exceed {MAX_RESAMPLE_VOTES:.0e} vote refits (each resample refits the "
                         f"model: about {n_resamples * n_rows * 3.2e-6 / 3600:.1f} hours of "
                         f"CPU); use at most {int(MAX_RESAMPLE_VOTES // max(n_rows, 1)):,}")
    G = spec.n_nodes
    d = rd.encode(votes, item=item, rater=rater, label=label, labels=lab,
                  extra_bytes_per_item=2 * 8 * G * (2 if lab is None else len(lab)))
    fixed = _gold_codes(gold, d, d.labels)
    data = em.Data(d.item_ptr, d.rater, d.label, len(d.raters), len(d.labels), fixed)
    used = np.flatnonzero(np.bincount(np.concatenate([d.label, fixed[fixed >= 0]]),
                                      minlength=len(d.labels)) > 0)
    remap = np.full(len(d.labels), -1, np.int64)
    remap[used] = np.arange(used.size)
    fit_data = em.Data(d.item_ptr, d.rater, remap[d.label], len(d.raters), int(used.size),
                       np.where(fixed >= 0, remap[np.maximum(fixed, 0)], -1))
    ident = _identified(fit_data)
    if not ident.all():
        fit_data = dataclasses.replace(fit_data, blocked=~ident)
    held = set(used[~ident].tolist())
    unidentified = tuple(d.labels[k] for k in range(len(d.labels))
                         if k not in set(used) or k in held)
    if unidentified:
        from labelvar._base._warnings import DataNoteWarning

        warnings.warn(f"fit_raters: the label(s) {', '.join(map(repr, unidentified))} are not "
                      "identified (no item has them as its plurality label, and no gold item): "
                      "they get zero weight (prior 0, their rates NaN)", DataNoteWarning,
                      stacklevel=2)
    with em.threads_for(em.work(fit_data, spec)):
        p = _anchored_fit(fit_data, spec, max_iter, tol)
    m = _as_model(None, p, used, d.labels, d.raters)
    return RaterFit(model=m, kind=spec.name, n_iter=p.n_iter, converged=p.converged,
                    log_lik=float(p.log_lik), sigma=float(p.sigma), n_resamples=n_resamples,
                    confidence_level=cl, seed=seed, unidentified=unidentified,
                    _state=_FitState(data, p, d.items, spec, fit_data, used, tol))


def dawid_skene_codes(codes, n_labels: int, *, prior_strength: float = 2.0, max_iter: int = 1000,
                      tol: float = 1e-7):
    """Dawid-Skene on an items x raters code matrix: (posterior (n, L), EM passes).

    The engine of :func:`labelvar.evaluation._agreement.dawid_skene` (see there): the one
    Dawid-Skene estimator, :class:`~labelvar.votes.DawidSkene`.
    """
    c = np.asarray(codes)
    if c.dtype.kind == "f":
        bad = ~np.isfinite(c) | (c != np.round(c))
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise ValueError(f"codes must be whole label codes (-1: no vote), got {c[i, j]:g} at "
                             f"item {i}, rater {j}")
    elif c.dtype.kind not in "iub":
        raise ValueError(f"codes must be whole label codes (-1: no vote), got dtype {c.dtype}")
    c = c.astype(np.int64)
    if c.ndim != 2:
        raise ValueError(f"codes must be items x raters, got shape {c.shape}")
    L = int(V.single("n_labels", V.n_labels(n_labels)))
    if c.size and (c.max() >= L or c.min() < -1):
        raise ValueError(f"codes must be in [-1, {L - 1}] (-1: no vote), got {c.min()}..{c.max()}")
    spec = rm.DawidSkene(prior_strength=prior_strength)
    max_iter = int(V.single("max_iter", V.integer("max_iter", max_iter, lo=1)))
    n, R = c.shape
    ii, jj = np.nonzero(c >= 0)  # row-major: item order
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(ii, minlength=n), out=ptr[1:])
    data = em.Data(ptr, jj.astype(np.int64), c[ii, jj], R, L, np.full(n, -1, np.int64))
    ident = _identified(data)
    if not ident.any():  # no votes at all: the prior
        return np.full((n, L), 1.0 / L), 0
    if not ident.all():
        data = dataclasses.replace(data, blocked=~ident)
    with em.threads_for(em.work(data, spec)):
        p = em.fit(data, spec, max_iter=max_iter, tol=tol)
    return p.post[:, 0], p.n_iter
