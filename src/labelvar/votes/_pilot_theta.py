"""The θ-prior pilot fit: :func:`read_pilot`, :func:`fit_pilot` and the vote selection rule.

A Beta or discrete θ prior fitted to pilot votes by maximum likelihood (the item-model
methods are handed to :func:`labelvar.votes._pilot_items.fit_item_model`); the face is
:mod:`labelvar.votes`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from labelvar._base import _validate as V
from labelvar.votes import _panel
from labelvar.votes._pilot_items import ITEM_METHODS, fit_item_model
from labelvar.votes._pilot_predict import PilotFit, Selection, _check_quadrature, _count_matrix, _pooled_chi2
from labelvar.votes._priors import BetaPrior, DiscretePrior, FixedTheta


def as_selection(spec) -> Selection | None:
    """Parse an item-selection rule: None, ``"top=3"``, ``"top=3,4"``, ``"top>=4"`` or a Selection.

    Examples
    --------
    >>> str(as_selection("top = 3,4")), as_selection(None)
    ('top=3,4', None)
    """
    if spec is None or isinstance(spec, Selection):
        return spec
    text = str(spec).replace(" ", "").lower()
    if text in ("", "none"):
        return None
    try:
        if text.startswith("top>="):
            tops, out = [int(text[5:])], Selection(at_least=int(text[5:]))
        elif text.startswith("top="):
            tops = sorted({int(x) for x in text[4:].split(",") if x})
            out = Selection(tops=tuple(tops))
        else:
            tops = []
        if tops and tops[0] >= 1:  # a top count is at least 1 (items with votes)
            return out
    except ValueError:
        pass
    raise ValueError(f"selection must be 'top=T' (items whose top vote count is T; several: "
                     f"'top=3,4') or 'top>=T', T >= 1, got {spec!r}")


def selection_log_prob(selection: Selection, panel_size: int, theta, n_labels: int) -> np.ndarray:
    """Log P(an item with ``panel_size`` votes is selected | θ), exactly, per θ.

    Sums the multinomial probabilities of the vote compositions whose top count the rule
    admits (the one vote enumeration of the package).

    Examples
    --------
    >>> round(float(np.exp(selection_log_prob(as_selection("top=3"), 5, [0.5], 2))[0]), 4)
    0.625
    """
    comp, prob = _panel.composition_probs(int(panel_size), int(n_labels),
                                          _panel.symmetric_probs(np.asarray(theta, float),
                                                                 int(n_labels)))
    top, _ = _panel.plurality(comp)
    p = prob[..., selection.admits(top)].sum(axis=-1)
    with np.errstate(divide="ignore"):
        return np.log(p)


def read_pilot(path: str | Path, field: str = "annotator_labels",
               columns: Sequence[str] | None = None, counts: bool = False,
               labels: Sequence | None = None) -> np.ndarray:
    r"""Read pilot votes into an (items x labels) count matrix.

    Parameters
    ----------
    path : str or Path
        ``.csv``: one row per item, one numeric column per label holding vote counts.
        ``.jsonl`` / ``.json``: one object per line whose ``field`` is the list of the
        item's annotator labels (e.g. SNLI's ``annotator_labels``).
    field : str
        JSON field with the labels.
    columns : sequence of str, optional
        CSV: the vote-count columns (default: every numeric column; a column that looks
        like item ids, unnamed, named as ids or all distinct numbers, is then refused).
    counts : bool
        JSON: ``field`` holds per-label vote counts (ChaosNLI's ``label_count``, a list
        in label order, or an object label -> count; :func:`labelvar.io.read_jsonl` with
        ``counts=True``) instead of a list of labels. Any number of votes per item.
    labels : sequence, optional
        With ``counts``: the label of each count position (see
        :func:`labelvar.io.read_jsonl`).

    Returns
    -------
    ndarray of int
        Vote counts, shape (items, L); labels in sorted order for JSON input.

    Raises
    ------
    ValueError
        One line naming the line (or column) and field: JSON votes that are not a list
        of labels, a label that is NaN or Infinity (not JSON), labels of more than one
        kind ("1" and 1, true and 1, "yes" among numbers: all strings, all numbers or
        all booleans); CSV counts that are not whole numbers >= 0, or a column mixing
        numbers and text (a count column with a typo would otherwise be left out).

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "votes.csv")
    >>> _ = open(p, "w").write("yes,no\n3,2\n5,0\n")
    >>> read_pilot(p).tolist()
    [[3, 2], [5, 0]]
    """
    from labelvar.io._pilot import read_pilot_counts  # (the reading is labelvar.io's)

    return read_pilot_counts(path, field=field, columns=columns, counts=counts, labels=labels)


def fit_pilot(counts, method: str = "beta", n_labels: int | None = None,
              grid_size: int = 60, selection=None, *, n_components: int = 2, seed=0,
              n_starts: int = 8) -> PilotFit:
    """Fit the item-agreement prior to pilot vote counts by maximum likelihood.

    Each item i has K_i votes c_i (counts per label; any K_i). Under the panel model the
    likelihood of an item is (1/L) sum_j E_θ[Multinomial(c_i; θ on label j, (1 - θ)/(L - 1)
    elsewhere)], the sum running over which label is modal (unobserved). With a declared
    ``selection`` (the pilot kept only some items, e.g. those whose top count is 3 of 5)
    each item's likelihood is divided by P(selected | prior, K_i), exactly
    (:func:`selection_log_prob`).

    Pilots the model cannot fit are refused in one line with the reason (ValueError):
    a single item, every item with fewer than 2 votes, every item unanimous (θ = 1 with
    no disagreement to fit), a single vote pattern, or every item with the same
    non-unanimous top count and no declared selection (the pilot looks selected by
    agreement, as ChaosNLI's original 5 votes: declare it). Items with fewer than 2
    votes carry no information about θ and are left out (a note). When the patterns the
    selection admits leave fewer free proportions than the method has parameters, one
    θ for every item is fitted instead (a note).

    Parameters
    ----------
    counts : array (items, L)
        Votes per label for every item (see :func:`read_pilot`).
    method : {"beta", "mixture", "dirichlet", "dirichlet_mixture", "empirical"}
        The last three fit an item label-distribution model: see :func:`fit_item_model`
        (with ``n_components``, ``seed``, ``n_starts``).
        ``"beta"``: Beta(a, b) on [1/L, 1], maximised over log a, log b (scipy.optimize,
        Gauss-Jacobi quadrature of degree 2 max(K_i) + 2, exact for these polynomials). ``"mixture"``:
        nonparametric maximum likelihood over a grid of θ in [1/L, 1] (EM), support
        points with weight < 1e-4 dropped and the rest renormalised.
    n_labels : int or None
        L; defaults to the number of columns.
    grid_size : int
        Grid points for ``"mixture"``.
    selection : str, Selection or None
        The pilot's item-selection rule (:func:`as_selection`: ``"top=3"``, ``"top>=4"``);
        every item must satisfy it. ``"mixture"`` needs one K for all items then.
    n_components, seed, n_starts
        Passed to :func:`fit_item_model` for the item-model methods.

    Returns
    -------
    PilotFit or ItemModelFit

    Examples
    --------
    >>> votes = [[5, 0], [4, 1], [3, 2], [5, 0], [4, 1], [5, 0]]
    >>> fit = fit_pilot(votes)
    >>> fit.method, fit.n_items, round(fit.prior.mean(2), 2)
    ('beta', 6, 0.86)
    """
    from scipy.optimize import minimize
    from scipy.special import chdtrc, logsumexp

    V.choice("method", method, ("beta", "mixture") + ITEM_METHODS)
    V.integer("n_starts", n_starts, lo=1)  # (every method: a typo is not ignored)
    if method in ITEM_METHODS:  # an item label-distribution model (fit_item_model)
        if selection is not None:
            raise ValueError("selection applies to the theta-prior methods (beta, mixture), not "
                             f"to method={method!r}")
        return fit_item_model(counts, method, n_labels, n_components, seed, n_starts)
    sel = as_selection(selection)
    c, L, notes = _pilot_input(counts, n_labels, sel)
    k = c.sum(axis=1)
    pats, inverse, mult = np.unique(-np.sort(-c, axis=1), axis=0, return_inverse=True,
                                    return_counts=True)
    lo = 1.0 / L
    degree = 2 * int(k.max()) + 2
    kpat = pats.sum(axis=1)
    ks = np.unique(kpat)

    def log_sel(th):  # log P(selected | θ, K of each pattern), (patterns, nodes); 0 if no rule
        if sel is None:
            return np.zeros((len(pats), len(th)))
        by_k = {int(kk): selection_log_prob(sel, kk, th, L) for kk in ks}
        return np.stack([by_k[int(kk)] for kk in kpat])

    free = _free_proportions(ks, L, sel, cap=len(pats) + 2)  # dof <= observed patterns
    if method == "beta" and free < 2:
        notes.append(f"the patterns {'the selection admits' if sel else 'possible'} leave "
                     f"{free} free proportion(s), too few for a Beta (2 parameters): one "
                     f"theta fitted for every item")
        method = "fixed"
    if method == "beta":
        _check_quadrature("pilot vote counts", int(k.max()), "method='beta'",
                          "use method='mixture' (a grid of theta, any number of votes) or "
                          "method='dirichlet'")
        V.memory(f"the Beta fit's likelihood of {len(pats)} vote patterns x "
                 f"{int(k.max())} votes", 8.0 * 4 * len(pats) * (k.max() + 3) * L * L,
                 "use fewer distinct vote patterns, or method='mixture'")
    if method == "mixture" and sel is not None and len(ks) > 1:
        raise ValueError(f"pilot: method='mixture' with a selection needs one number of votes "
                         f"per item, got {', '.join(map(str, ks))}; use method='beta'")

    if method == "beta":
        def nll(x):
            th, w = BetaPrior(math.exp(x[0]), math.exp(x[1])).nodes(L, degree)
            thc = np.clip(th, lo, 1 - 1e-15)
            lw = np.log(w)[None, :]
            ll = logsumexp(_panel.log_pattern_likelihood(pats, thc, L) + lw, axis=1)
            if sel is not None:
                ll = ll - logsumexp(log_sel(thc) + lw, axis=1)
            return -float(mult @ ll)

        # log a, log b within _LOG_AB (the Gauss-Jacobi weights overflow beyond); a start
        # at Beta(1, 1), then a restart from its optimum (Nelder-Mead can stall)
        best = None
        x0 = [0.0, 0.0]
        for _ in range(2):
            r = minimize(nll, x0, method="Nelder-Mead", bounds=[_LOG_AB] * 2,
                         options={"xatol": 1e-5, "fatol": 1e-8, "maxiter": 2000})
            if best is None or r.fun < best.fun:
                best = r
            x0 = best.x
        if np.isclose(best.x, _LOG_AB, atol=1e-3).any():
            notes.append(f"the Beta fit reached a bound of its parameters (a, b in "
                         f"[e^{_LOG_AB[0]:g}, e^{_LOG_AB[1]:g}]): the votes pin the prior down "
                         "poorly")
        prior = BetaPrior(float(math.exp(best.x[0])), float(math.exp(best.x[1])))
        loglik, n_params = -float(best.fun), 2
    elif method == "fixed":
        from scipy.optimize import minimize_scalar

        def nll1(t):
            th = np.array([t])
            ll = _panel.log_pattern_likelihood(pats, th, L)[:, 0] - log_sel(th)[:, 0]
            return -float(mult @ ll)

        r = minimize_scalar(nll1, bounds=(lo, 1 - 1e-9), method="bounded",
                            options={"xatol": 1e-10})
        prior = FixedTheta(float(r.x))
        loglik, n_params = -float(r.fun), 1
    else:
        grid = np.linspace(lo, 1.0, grid_size)
        lp = _panel.log_pattern_likelihood(pats, np.clip(grid, lo, 1 - 1e-15), L)
        lp[:, -1] = _panel.log_pattern_likelihood(pats, np.array([1.0]), L)[:, 0]
        ls = log_sel(grid)[0] if sel is not None else np.zeros(grid_size)
        # P(c | θ, selected): the EM fits the θ law among selected items; a θ the selection
        # never admits (P = 0, e.g. θ = 1 under top=3) has no selected items
        admitted = np.isfinite(ls)
        lp = np.where(admitted[None, :], lp - np.where(admitted, ls, 0.0)[None, :], -np.inf)
        w = np.full(grid_size, 1.0 / grid_size)
        for _ in range(5000):
            lj = lp + np.log(np.maximum(w, 1e-300))[None, :]
            post = np.exp(lj - logsumexp(lj, axis=1, keepdims=True))
            w_new = mult @ post / mult.sum()
            if np.abs(w_new - w).max() < 1e-10:
                w = w_new
                break
            w = w_new
        loglik = float(mult @ logsumexp(lp + np.log(np.maximum(w, 1e-300))[None, :], axis=1))
        with np.errstate(divide="ignore", over="ignore"):  # back to the population's θ law
            w = np.where(admitted, w * np.exp(-np.where(admitted, ls, 0.0)), 0.0)
        w = w / w.sum()
        keep = w >= 1e-4
        w = w[keep] / w[keep].sum()
        prior = DiscretePrior(tuple(grid[keep].tolist()), tuple(w.tolist()))
        n_params = 2 * int(keep.sum()) - 1
    # goodness of fit: observed vs expected items per pattern, within each K
    th, w = prior.nodes(L, degree)
    thc = np.clip(th, lo, 1.0)
    pp = np.exp(_panel.log_pattern_likelihood(pats, thc, L)) @ w
    if sel is not None:
        pp = pp / (np.exp(log_sel(thc)) @ w)
    # multiplicity of each sorted pattern among labelled patterns (label permutations)
    perms = np.array([math.factorial(L) / math.prod(math.factorial(int(v))
                                                      for v in np.unique(p, return_counts=True)[1])
                      for p in pats])
    n_k = {kk: int(mult[kpat == kk].sum()) for kk in np.unique(kpat)}
    expected = np.array([n_k[kk] for kk in kpat]) * pp * perms
    table = pd.DataFrame({"votes": kpat, "pattern": ["-".join(map(str, p)) for p in pats],
                          "observed": mult, "expected": expected})
    chi2, dof = _pooled_chi2(table, n_params, free)
    if dof == 0 and chi2 > 9:
        gap = table.iloc[int(np.argmax(np.abs(table["observed"] - table["expected"])))]
        notes.append(f"with 0 df the fit should reproduce the pattern counts but misses them "
                     f"(chi2 {chi2:.1f}; pattern {gap['pattern']}: observed "
                     f"{int(gap['observed'])}, expected {gap['expected']:.1f}): the symmetric "
                     "vote model cannot produce these shares")
    top = np.where(c == c.max(axis=1, keepdims=True), 1.0, 0.0)
    class_prior = (top / top.sum(axis=1, keepdims=True)).mean(axis=0)
    return PilotFit(prior=prior, method=method, n_items=int(c.shape[0]),
                    loglik=loglik, n_params=n_params,
                    class_prior=class_prior, table=table, chi2=chi2, dof=dof,
                    p_value=float(chdtrc(dof, chi2)) if dof > 0 else np.nan,
                    selection=sel, notes=notes)



#: bounds of log a and log b in the Beta fit (a + b < ~1000 keeps the Gauss-Jacobi weights
#: finite)
_LOG_AB = (-5.0, 6.0)


def _partitions(k: int, parts: int, largest: int | None = None, firsts=None):
    """Sorted vote patterns of k votes over at most ``parts`` labels (descending tuples).

    ``firsts``: the top counts to enumerate (default every feasible one). Only feasible
    branches are entered (the top count is at least ceil(k / parts)), so every step
    yields a pattern: the first n patterns cost O(n parts), whatever k (1e12 votes).
    """
    largest = k if largest is None else largest
    if k == 0:
        yield ()
        return
    if parts == 0 or k > parts * largest:
        return
    lo = -(-k // parts)  # ceil(k / parts)
    tops = range(min(k, largest), lo - 1, -1) if firsts is None else \
        (t for t in firsts if lo <= t <= min(k, largest))
    for first in tops:
        for rest in _partitions(k - first, parts - 1, first):
            yield (first, *rest)


def _free_proportions(ks, L: int, sel: Selection | None, cap: int | None = None) -> int:
    """Free pattern proportions: per K, the admitted sorted patterns minus one, summed.

    With ``cap``, at most ``cap + 1`` patterns are counted per K (the result is then
    min(true count, >= cap)): enough for the degrees of freedom, which never exceed the
    observed patterns, without enumerating the patterns of 1e12 votes.
    """
    total = 0
    for kk in ks:
        kk = int(kk)
        if sel is None:
            firsts = None
        elif sel.at_least is not None:
            firsts = range(kk, sel.at_least - 1, -1)
        else:
            firsts = sorted(sel.tops, reverse=True)
        pats = _partitions(kk, L, firsts=firsts)
        n = sum(1 for _ in (pats if cap is None else itertools.islice(pats, cap + 1)))
        total += max(n - 1, 0)
    return total


def _pilot_input(counts, n_labels, sel: Selection | None) -> tuple[np.ndarray, int, list]:
    """Vote counts as (items, L) ints, items without information left out, unfittable refused."""
    c = _count_matrix(counts, n_labels)
    L = c.shape[1]
    notes = []
    k = c.sum(axis=1)
    if (k < 2).all():
        raise ValueError(f"pilot: every one of the {len(c)} items has fewer than 2 votes; one "
                         "vote shows no agreement, so theta cannot be fitted (need items with "
                         ">= 2 votes)")
    if (k < 2).any():
        notes.append(f"{int((k < 2).sum())} item(s) with fewer than 2 votes left out (one vote "
                     "carries no information about theta)")
        c, k = c[k >= 2], k[k >= 2]
    if len(c) == 1:
        raise ValueError("pilot: a single item (with >= 2 votes) cannot identify a theta "
                         "distribution; give more items")
    top = c.max(axis=1)
    if sel is not None and not sel.admits(top).all():
        bad = int(np.flatnonzero(~sel.admits(top))[0])
        raise ValueError(f"pilot: {int((~sel.admits(top)).sum())} item(s) do not satisfy the "
                         f"declared selection {sel} (first: item {bad} with top count "
                         f"{int(top[bad])} of {int(k[bad])})")
    if (top == k).all():
        raise ValueError(f"pilot: every one of the {len(c)} items is unanimous; with no "
                         "disagreement the fit would put theta = 1 (give theta=1 instead, or a "
                         "pilot with disagreement)")
    pats = np.unique(-np.sort(-c, axis=1), axis=0)
    if len(pats) == 1:
        raise ValueError(f"pilot: all {len(c)} items show one vote pattern "
                         f"({'-'.join(map(str, -np.sort(-pats[0])))}): one proportion cannot "
                         "identify theta")
    if sel is None and len(np.unique(top)) == 1 and (top < k).all():
        t = int(top[0])
        raise ValueError(f"pilot: every one of the {len(c)} items has its top label at "
                         f"exactly {t} votes (of {'/'.join(map(str, np.unique(k)))}), never "
                         "unanimous: the pilot looks selected by agreement (as ChaosNLI's "
                         f"items); declare it (selection='top={t}', --pilot-selection top={t}) "
                         "so it enters the likelihood")
    if sel is not None and _free_proportions(np.unique(k), L, sel, cap=1) == 0:
        raise ValueError(f"pilot: the selection {sel} admits one vote pattern per number of "
                         "votes, so the votes carry no information about theta")
    return c, L, notes
