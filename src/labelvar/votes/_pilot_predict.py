"""A pilot fit's result and what it predicts: :class:`PilotFit`, :func:`predict_agreement`.

The fit result (:class:`PilotFit`, its :class:`Selection` rule), the shared count-matrix
and goodness-of-fit checks, the next vote's distribution (:func:`predictive`) and the
agreement a panel would show (:class:`AgreementPrediction`); the fits
(``_pilot_theta``, ``_pilot_items``) build on it. The face is :mod:`labelvar.votes`.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from labelvar._base import _validate as V
from labelvar._base._format import Text, shown
from labelvar.votes import _panel
from labelvar.votes._priors import BetaPrior


@shown
@dataclasses.dataclass(repr=False)
class PilotFit:
    """A θ prior fitted to pilot vote counts.

    Attributes
    ----------
    prior : BetaPrior or DiscretePrior
        The fitted prior (:mod:`labelvar.votes`; pass it as ``Scenario(theta=fit.prior)``).
    method : str
        ``"beta"``, ``"mixture"`` or ``"fixed"`` (one θ: what the votes identify when a
        selection leaves one free pattern proportion).
    n_items, n_labels : int
    loglik : float
        Maximised log-likelihood of the vote patterns.
    n_params : int
    aic : float
    class_prior : ndarray
        Frequency of each label as the plurality label (ties split).
    table : pandas.DataFrame
        Observed vs expected number of items per (votes per item, sorted vote pattern).
    chi2, dof, p_value : float
        Pearson goodness of fit over the patterns (expected counts >= 5 pooled); with
        0 degrees of freedom the fit is not testable (``p_value`` NaN, said so in
        :meth:`summary`).
    selection : Selection or None
        The declared item-selection rule that entered the likelihood.
    notes : list of str
        What the fit had to do or could not do (items left out, a model reduced to what
        the votes identify), one sentence each; :meth:`summary` prints them.
    """

    prior: object
    method: str
    n_items: int
    loglik: float
    n_params: int
    class_prior: np.ndarray
    table: pd.DataFrame
    chi2: float
    dof: int
    p_value: float
    selection: Selection | None = None
    notes: list = dataclasses.field(default_factory=list)

    @property
    def n_labels(self) -> int:
        """L, the number of labels (one plurality share each in ``class_prior``)."""
        return int(np.asarray(self.class_prior).size)

    @property
    def aic(self) -> float:
        """Akaike's information criterion, 2 ``n_params`` - 2 ``loglik``."""
        return 2 * self.n_params - 2 * self.loglik

    def _shown(self) -> dict:
        return {"prior": Text(self.prior.describe(self.n_labels)), "method": self.method,
                "n_items": self.n_items, "n_labels": self.n_labels, "loglik": self.loglik,
                "aic": self.aic, "p_value": self.p_value}

    def _shown_tables(self) -> dict:
        return {"table": self.table}

    def _shown_lines(self) -> list:
        return [self.summary()]

    def summary(self) -> str:
        """One line: the fitted prior, its fit and the notes."""
        L = self.n_labels
        sel = f", selected by {self.selection}" if self.selection is not None else ""
        gof = (f"Pearson chi2 {self.chi2:.2f} on {self.dof} df, p = {self.p_value:.3g}"
               if self.dof > 0 else "goodness of fit not testable (0 df)")
        notes = "".join(f"; note: {n}" for n in self.notes)
        return (f"pilot: {self.n_items} items{sel}, L = {L}; fitted "
                f"{self.prior.describe(L)} (mean theta {self.prior.mean(L):.3f}); log-lik "
                f"{self.loglik:.2f}, AIC {self.aic:.2f}; {gof}{notes}")

    def predict_agreement(self, counts):
        """P(one more annotator agrees with each item's plurality label), given its counts.

        See :func:`predict_agreement` (θ priors and item models alike).
        """
        return predict_agreement(self.prior, counts)


@dataclasses.dataclass(frozen=True)
class Selection:
    """An item-selection rule of a pilot: only items whose top vote count is in ``tops``.

    ``tops`` is a set of top counts (``"top=3"``) or a lower bound (``"top>=4"``, stored
    as ``at_least``). The rule enters the likelihood: each item's probability is divided
    by P(selected | prior, its number of votes) (:func:`selection_log_prob`).

    Examples
    --------
    >>> from labelvar.votes._pilot import as_selection
    >>> as_selection("top=3"), as_selection("top>=4").admits(np.array([3, 4, 5]))
    (Selection(tops=(3,), at_least=None), array([False,  True,  True]))
    """

    tops: tuple = ()
    at_least: int | None = None

    def admits(self, top) -> np.ndarray:
        """Whether items with these top counts satisfy the rule."""
        top = np.asarray(top)
        if self.at_least is not None:
            return top >= self.at_least
        return np.isin(top, self.tops)

    def __str__(self) -> str:
        if self.at_least is not None:
            return f"top>={self.at_least}"
        return "top=" + ",".join(map(str, self.tops))


#: most votes on one item that a Beta θ prior's Gauss-Jacobi quadrature takes (degree
#: 2 K + 2, about K nodes: scipy's nodes cost O(K^2), ~27 s for a Beta fit at 1000 votes)
MAX_QUADRATURE_VOTES = 1000


def _check_quadrature(field: str, votes: int, what: str, way_out: str) -> None:
    """Refuse, before computing nodes, an item with more votes than the quadrature takes."""
    if votes > MAX_QUADRATURE_VOTES:
        raise ValueError(f"{field}: {what} takes items with at most "
                         f"{MAX_QUADRATURE_VOTES} votes (exact quadrature of degree 2K + 2), "
                         f"got an item with {votes}; {way_out}")

def _pooled_chi2(table: pd.DataFrame, n_params: int, free: int) -> tuple[float, int]:
    """Pearson chi-square over patterns; patterns with expected < 5 are pooled per K.

    Patterns never observed are not listed, so their expected mass joins the pooled cell.
    The degrees of freedom are at most ``free`` (the free pattern proportions) minus the
    fitted parameters.
    """
    chi2, cells = 0.0, 0
    for _, g in table.groupby("votes"):
        n = g["observed"].sum()
        big = g["expected"] >= 5
        chi2 += float((((g["observed"] - g["expected"]) ** 2) / g["expected"])[big].sum())
        cells += int(big.sum())
        rest_o = n - g.loc[big, "observed"].sum()
        rest_e = n - g.loc[big, "expected"].sum()
        if rest_e > 1e-9:
            chi2 += (rest_o - rest_e) ** 2 / rest_e
            cells += 1
        cells -= 1  # the total per K is fixed
    return chi2, max(min(cells, free) - n_params, 0)


def _count_matrix(counts, n_labels=None) -> np.ndarray:
    """Pilot vote counts as an (items, L) int matrix: checked, padded to ``n_labels`` columns."""
    c = V.integer("pilot vote counts", counts, lo=0)
    if c.ndim != 2 or c.shape[0] == 0:
        raise ValueError(f"pilot vote counts must be a non-empty (items, labels) matrix, "
                         f"got shape {c.shape}")
    L = int(V.n_labels(c.shape[1] if n_labels is None else n_labels))
    if c.shape[1] > L:
        raise ValueError(f"pilot has {c.shape[1]} label columns but n_labels={L}")
    if c.shape[1] < L:
        c = np.pad(c, ((0, 0), (0, L - c.shape[1])))
    return c


def _item_counts(counts, n_labels=None) -> np.ndarray:
    """:func:`_count_matrix` where every item has at least one vote."""
    c = _count_matrix(counts, n_labels)
    if (c.sum(axis=1) < 1).any():
        bad = np.flatnonzero(c.sum(axis=1) < 1)
        raise ValueError(f"pilot items need at least 1 vote each; {bad.size} item(s) have none "
                         f"(first: item {bad[0]})")
    return c


# --------------------------------------------------------------------------- prediction
def predictive(model, counts, n_labels: int | None = None) -> np.ndarray:
    r"""P(one more vote is label h | the item's counts) under an item model or θ prior.

    Parameters
    ----------
    model : ItemModel, ThetaPrior or anything :func:`labelvar.votes.as_theta_prior` parses
        Item models: their posterior predictive (a Dirichlet: (c_h + α_h) / (n + α_0)).
        θ priors (the symmetric panel model, modal label unknown and uniform): the
        posterior over (θ node, modal label j) given the counts, averaging :math:`\pi^{j,\theta}_h`.
    counts : array (items, L)
        Votes per label.
    n_labels : int or None
        L (default: the number of columns).

    Returns
    -------
    ndarray, shape (items, L)

    Examples
    --------
    >>> predictive("dirichlet:1,1,2", [[2, 0, 0]]).round(4).tolist()
    [[0.5, 0.1667, 0.3333]]
    >>> predictive(0.8, [[2, 0]]).round(4).tolist()  # (.8**3 + .2**3) / (.8**2 + .2**2) = 0.7647
    [[0.7647, 0.2353]]
    """
    from scipy.special import logsumexp

    from labelvar.votes._priors import ItemModel, as_theta_prior

    c = V.integer("counts", counts, lo=0)
    c = np.atleast_2d(c)
    L = int(c.shape[1] if n_labels is None else n_labels)
    prior = as_theta_prior(model, L)
    if isinstance(prior, ItemModel):
        return prior.predictive(c)
    n = c.sum(axis=1)
    if isinstance(prior, BetaPrior):
        _check_quadrature("counts", int(n.max()),
                          f"a Beta theta prior ({prior.describe(L)})",
                          "use a discrete theta prior (fit_pilot(..., method='mixture')) or "
                          "an item model")
    th, w = prior.nodes(L, 2 * int(n.max()) + 2)
    V.memory(f"the predictive of {len(c)} items x {len(th)} theta nodes x L = {L}",
             8.0 * 4 * len(c) * len(th) * L * L, "predict fewer items at a time")
    rel = _panel.symmetric_probs(np.clip(th, 1.0 / L, 1.0), L)  # (nodes, L)
    shift = (np.arange(L)[None, :] - np.arange(L)[:, None]) % L  # modal j: label h at (h - j)
    absolute = rel[:, shift]  # (nodes, j, L)
    with np.errstate(divide="ignore"):
        lp = (_panel.log_multinomial_pmf(c[:, None, None, :], absolute[None])
              + np.log(w)[None, :, None])  # (items, nodes, j)
    post = np.exp(lp - logsumexp(lp, axis=(1, 2), keepdims=True))
    return np.einsum("inj,njh->ih", post, absolute)


@shown
@dataclasses.dataclass(repr=False)
class AgreementPrediction:
    """Predicted agreement of one more annotator with each item's plurality label.

    Attributes
    ----------
    items : pandas.DataFrame
        One row per item: ``votes`` (n), ``top`` (plurality count), ``n_tied`` (labels
        at the top), ``agreement`` (observed p_d = top / n: the paper's rule E = p_d) and
        ``predicted`` (P(one more annotator votes the plurality label | counts),
        averaged over tied labels).
    bins : pandas.DataFrame
        Per observed-agreement bin (``"0.60"``, top / n at two decimals), in numeric
        order: ``n_items``, ``agreement`` and mean ``predicted``.
    """

    items: pd.DataFrame
    bins: pd.DataFrame
    tied: np.ndarray = dataclasses.field(repr=False, default=None)

    def compare(self, held_out) -> pd.DataFrame:
        """Per bin: predicted vs the observed share of held-out votes for the plurality label.

        Parameters
        ----------
        held_out : array (items, L)
            Other votes of the same items (e.g. the rest of a many-vote item), per label.

        Returns
        -------
        pandas.DataFrame
            ``bins`` with ``held_out`` (mean per item of the share of its held-out votes
            equal to its plurality label, averaged over tied labels), ``error`` =
            predicted - held_out, ``error_p_d`` = agreement - held_out; the last row,
            ``bin == "weighted"``, holds the item-weighted mean |error| over bins.
        """
        h = V.integer("held_out", held_out, lo=0)
        if h.shape != self.tied.shape or (h.sum(axis=1) < 1).any():
            raise ValueError(f"held_out must be ({len(self.items)}, L) counts with >= 1 vote "
                             f"per item, got shape {h.shape}")
        share = (h * self.tied).sum(axis=1) / self.tied.sum(axis=1) / h.sum(axis=1)
        items = self.items.assign(held_out=share)
        out = self.bins.merge(items.groupby("bin", sort=False)["held_out"].mean().reset_index(),
                              on="bin")
        out["error"] = out["predicted"] - out["held_out"]
        out["error_p_d"] = out["agreement"] - out["held_out"]
        w = out["n_items"] / out["n_items"].sum()
        total = {"bin": "weighted", "n_items": int(out["n_items"].sum()),
                 "agreement": float(w @ out["agreement"]),
                 "predicted": float(w @ out["predicted"]), "held_out": float(w @ out["held_out"]),
                 "error": float(w @ out["error"].abs()),
                 "error_p_d": float(w @ out["error_p_d"].abs())}
        return pd.concat([out, pd.DataFrame([total])], ignore_index=True)


def predict_agreement(model, counts, n_labels: int | None = None) -> AgreementPrediction:
    """P(one more annotator agrees with each item's plurality label), given its counts.

    The posterior predictive of ``model`` (:func:`predictive`) at the plurality label of
    each item's counts, averaged over the tied labels when the plurality is tied; plus a
    per-bin summary by observed agreement top / n.

    Parameters
    ----------
    model : item model, θ prior or a spelling of :func:`labelvar.votes.as_theta_prior`
    counts : array or DataFrame (items, L)
        Votes per label, any number (>= 1) per item.
    n_labels : int or None
        L (default: the number of columns).

    Returns
    -------
    AgreementPrediction

    Examples
    --------
    A Dirichlet(1, 1, 2) item with votes (2, 0, 0): (2 + 1) / (2 + 4) = 0.5, where the
    paper's rule says 1.

    >>> p = predict_agreement("dirichlet:1,1,2", [[2, 0, 0], [1, 1, 0]])
    >>> p.items[["agreement", "predicted"]].values.tolist()
    [[1.0, 0.5], [0.5, 0.3333333333333333]]
    >>> p.bins.values.tolist()  # bins in numeric order
    [['0.50', 1, 0.5, 0.3333333333333333], ['1.00', 1, 1.0, 0.5]]
    """
    if isinstance(counts, pd.DataFrame):
        counts = counts.select_dtypes("number").to_numpy()
    c = _item_counts(counts, n_labels)
    pred = predictive(model, c)
    top = c.max(axis=1)
    tied = c == top[:, None]
    n = c.sum(axis=1)
    items = pd.DataFrame({"votes": n, "top": top, "n_tied": tied.sum(axis=1),
                          "agreement": top / n,
                          "predicted": (pred * tied).sum(axis=1) / tied.sum(axis=1)})
    items["bin"] = [f"{x:.2f}" for x in items["agreement"]]
    bins = (items.groupby("bin", sort=False)
            .agg(n_items=("votes", "size"), agreement=("agreement", "mean"),
                 predicted=("predicted", "mean")).reset_index())
    bins = bins.iloc[np.argsort(bins["bin"].astype(float).to_numpy(), kind="stable")]
    bins = bins.reset_index(drop=True)  # in numeric order of observed agreement
    return AgreementPrediction(items=items, bins=bins, tied=tied.astype(float))
