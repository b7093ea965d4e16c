"""What reference labellers reach in the alt-test on the same humans, items and scoring.

A reference labeller gives, for each comparison (tested human h, kept item i), a label
drawn from a known law ``pi`` over the humans' label set. Each comparison's outcome is
a known function of that label (``_pairs.outcome`` over every label), so its
``E[W_sys] = sum_x pi(x) 1[s(x) >= s(h)]`` is exact, and so is the expected rho.

- ``uniform``: every label of the set equally likely (one draw per item);
- ``prevalence``: labels at their share of the humans' votes on the kept items (one
  draw per item);
- ``exchangeable``: one of the other humans' votes on the item, at random (one draw per
  comparison: an annotator exchangeable with the others);
- ``plurality``: the other humans' best label under the scoring (their plurality under
  ``accuracy``, the scale value nearest their mean under ``neg_rmse``; ties at random,
  one draw per comparison): rho = 1 by construction, a check;
- ``rater``: a rater of accuracy ``skill`` under a fitted rater model
  (:func:`labelvar.fit_raters`): the item's truth posterior, then the
  truth kept with probability ``skill``, else another label uniformly (one draw per item).

The winning rate depends on every human's test at once (the draws of a per-item
reference are shared by the humans, and BY couples their p-values): it is exact when
the reference is deterministic (one run of the test), or when the humans' tests are
independent (a per-comparison reference, or one tested human) and small enough
(``_exact_rates``: at most 8 humans, 300 items each), and estimated by Monte Carlo
otherwise (``winning_rate_method`` says which, with ``n_resamples``).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from labelvar.judge import _pairs, _stats

KINDS = ("uniform", "prevalence", "exchangeable", "plurality")
PER_ITEM = ("uniform", "prevalence", "rater")
DEFAULT_BINS = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
#: the most Monte Carlo runs of the test a References may ask for
MAX_RESAMPLES = 100_000
#: the most (run, comparison) draws of one reference's Monte Carlo (about a minute)
MAX_DRAWS = 2 * 10**9
#: the most (run, rater) outcome counts held at once (8 bytes x 3 each: 1.2 GB)
MAX_COUNTS = 5 * 10**7


@dataclasses.dataclass(frozen=True)
class References:
    """Which reference labellers :func:`alt_test` runs beside the system, and how.

    Parameters
    ----------
    kinds : tuple of str
        Any of ``"uniform"``, ``"prevalence"``, ``"exchangeable"``, ``"plurality"``.
    labels : sequence or None
        The label set of the uniform labeller (default: the labels seen among the
        humans' votes; under ``neg_rmse`` pass the scale's values).
    model : RaterFit or None
        A fitted rater model (``fit_raters``): adds a reference per ``skills`` value.
    skills : tuple of float
        Accuracies of the model-based raters (with ``model``).
    n_resamples : int
        Monte Carlo runs of the test for the winning rate's distribution (0: none).
    bins : tuple of float
        Edges of the remaining humans' agreement bins (right-closed, first one closed).
    seed : int or None

    Examples
    --------
    >>> r = References(kinds=("uniform",), n_resamples=0)
    >>> r.kinds, r.n_resamples, r.bins
    (('uniform',), 0, (0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0))
    """

    kinds: tuple = KINDS
    labels: tuple | None = None
    model: object = None
    skills: tuple = ()
    n_resamples: int = 100
    bins: tuple = DEFAULT_BINS
    seed: int | None = 0

    def __post_init__(self):
        if isinstance(self.kinds, str):  # one kind named alone
            object.__setattr__(self, "kinds", (self.kinds,))
        bad = [k for k in self.kinds if k not in KINDS]
        if bad:
            raise ValueError(f"references kinds must be among {', '.join(KINDS)}, got {bad[0]!r}")
        if isinstance(self.n_resamples, bool) or not isinstance(self.n_resamples, (int, np.integer)) \
                or self.n_resamples < 0:
            raise ValueError(f"n_resamples must be a whole number >= 0, got {self.n_resamples!r}")
        if self.n_resamples > MAX_RESAMPLES:
            raise ValueError(f"n_resamples must be at most {MAX_RESAMPLES} (Monte Carlo runs of "
                             f"the whole test), got {self.n_resamples!r}")
        try:
            edges = np.asarray(self.bins, dtype=float)
        except (TypeError, ValueError):
            edges = np.array([np.nan])
        if edges.ndim != 1 or len(edges) < 2 or not np.isfinite(edges).all() or \
                np.any(np.diff(edges) <= 0):
            raise ValueError(f"bins must be increasing finite edges, got {self.bins!r}")
        if self.seed is not None and (isinstance(self.seed, bool) or not isinstance(
                self.seed, (int, np.integer)) or self.seed < 0):
            raise ValueError(f"seed must be a whole number >= 0 or None, got {self.seed!r}")
        try:
            skills = tuple(float(s) for s in np.atleast_1d(self.skills))
        except (TypeError, ValueError):
            raise ValueError(f"skills must be numbers in [0, 1], got {self.skills!r}") from None
        if any(not 0.0 <= s <= 1.0 for s in skills):
            raise ValueError(f"skills must be in [0, 1], got {self.skills!r}")
        if len(set(skills)) < len(skills):
            raise ValueError(f"skills: each accuracy once, got {self.skills!r}")
        if skills and self.model is None:
            raise ValueError("skills needs model= (a fitted rater model from fit_raters)")
        object.__setattr__(self, "skills", skills)
        object.__setattr__(self, "kinds", tuple(self.kinds))


def _laws(prep, pairs, score, refs: References) -> dict:
    """``{name: (pi, per_item)}``: pi is (n_items or n_pairs, n_labels)."""
    lh = prep.n_human_labels
    out = {}
    kept_votes = pairs.kept[prep.item] & (prep.code < lh)
    if "uniform" in refs.kinds:
        out["uniform"] = (np.full((1, lh), 1.0 / lh), True)
    if "prevalence" in refs.kinds:
        prev = np.bincount(prep.code[kept_votes], minlength=lh)[:lh].astype(float)
        out["prevalence"] = ((prev / prev.sum())[None, :], True)
    rem = pairs.counts[pairs.item, :lh].astype(float)
    rem[np.arange(len(pairs.item)), pairs.code] -= 1.0
    if "exchangeable" in refs.kinds:
        out["exchangeable"] = (rem / rem.sum(axis=1, keepdims=True), False)
    if "plurality" in refs.kinds:
        if score == "neg_rmse":
            v = prep.values[:lh]
            if prep.scale is not None:
                v = np.round(v * prep.scale)
            n = rem.sum(axis=1, keepdims=True)
            s1 = rem @ v
            s2 = rem @ (v * v)
            ss = n * v[None, :] ** 2 - 2 * v[None, :] * s1[:, None] + s2[:, None]
            best = ss == ss.min(axis=1, keepdims=True)
        else:
            best = rem == rem.max(axis=1, keepdims=True)
        out["plurality"] = (best / best.sum(axis=1, keepdims=True), False)
    for skill in refs.skills:
        out[f"rater (skill {skill:g})"] = (_rater_law(prep, refs.model, skill), True)
    return out


def _rater_law(prep, fit, skill) -> np.ndarray:
    """Per item, P(label) of a rater of accuracy ``skill`` under the fitted model."""
    from labelvar.io._labels import canon

    truth = getattr(fit, "truth", None)
    if not isinstance(truth, pd.DataFrame):
        raise ValueError("references model must be a fitted rater model (fit_raters(...))")
    lh = prep.n_human_labels
    labels = list(prep.labels[:lh])
    cols = pd.Index([canon(c) for c in truth.columns]).get_indexer(labels)
    if (cols < 0).any():
        raise ValueError(f"references model lacks label {labels[int(np.argmin(cols))]!r} of "
                         "the votes; fit it on the same votes")
    rows = pd.Index([str(x) for x in truth.index]).get_indexer([str(x) for x in prep.items])
    if (rows < 0).any():
        raise ValueError(f"references model has no posterior for item {prep.items[int(np.argmin(rows))]!r}"
                         " of the votes; fit it on the same votes")
    full = truth.to_numpy(dtype=float)[rows]
    extra = np.setdiff1d(np.arange(full.shape[1]), cols)
    if extra.size and float(full[:, extra].sum(axis=1).max()) > 1e-6:
        names = [canon(truth.columns[j]) for j in extra]
        raise ValueError(f"references model gives the label(s) {names} that the votes never use "
                         f"(the votes: {labels}) posterior weight; fit it on the same votes")
    post = full[:, cols]
    conf = np.full((lh, lh), (1.0 - skill) / max(lh - 1, 1))
    np.fill_diagonal(conf, skill if lh > 1 else 1.0)
    law = post @ conf
    return law / law.sum(axis=1, keepdims=True)


def reference_tables(prep, pairs, sys_codes, score, *, references, epsilon, q, test, margin,
                     system_rate):
    """The ``references`` and ``by_bin`` tables of one alt-test."""
    n_raters = len(prep.raters)
    tested_rater = pairs.rater
    n_per = np.bincount(tested_rater, minlength=n_raters).astype(float)
    tested = pairs.tested

    def rho(w_pairs):
        per = np.bincount(tested_rater, weights=w_pairs, minlength=n_raters)[tested] / n_per[tested]
        return float(per.mean())

    w_sys = (sys_codes != 2).astype(float)
    rows = [{"reference": "system", "advantage_probability": rho(w_sys), "rho_method": "observed",
             "winning_rate_mean": system_rate, "winning_rate_sd": 0.0,
             "pass_probability": float(system_rate >= 0.5), "winning_rate_method": "observed"}]
    edges = np.asarray(references.bins if references else DEFAULT_BINS, dtype=float)
    agree = _pairs.remaining_agreement(pairs)
    out = agree[(agree < edges[0] - 1e-12) | (agree > edges[-1] + 1e-12)]
    if out.size:  # (it would be counted in the first or last bin, under the wrong label)
        raise ValueError(f"bins: the remaining humans' agreement {float(out[0]):.4g} of "
                         f"{out.size} comparison(s) is outside the edges ({edges[0]:g} to "
                         f"{edges[-1]:g}); give bins that cover it (e.g. from 0 to 1)")
    b = np.clip(np.searchsorted(edges, agree, side="left") - 1, 0, len(edges) - 2)
    nb = len(edges) - 1
    n_bin = np.bincount(b, minlength=nb)
    by_bin = {"bin": [f"({edges[k]:g}, {edges[k + 1]:g}]" if k else f"[{edges[0]:g}, {edges[1]:g}]"
                      for k in range(nb)],
              "n_comparisons": n_bin,
              "system": np.bincount(b, weights=w_sys, minlength=nb) / np.maximum(n_bin, 1)}
    if references is not None:
        lh = prep.n_human_labels
        grid = _pairs.outcome(prep, pairs, np.broadcast_to(np.arange(lh), (len(pairs.item), lh)),
                              score)
        ge = (grid != 2).astype(float)
        rng = np.random.default_rng(references.seed)
        opts = dict(epsilon=epsilon, margin=margin, test=test)
        for name, (pi, per_item) in _laws(prep, pairs, score, references).items():
            pp = pi[pairs.item] if per_item and len(pi) > 1 else np.broadcast_to(pi, ge.shape) \
                if per_item else pi
            w = (pp * ge).sum(axis=1)
            row = {"reference": name, "advantage_probability": rho(w), "rho_method": "exact"}
            deterministic = bool(np.all((pp == 0) | (pp == 1)))
            if deterministic:
                codes = grid[np.arange(len(pp)), np.argmax(pp, axis=1)]
                cnt = _pairs.per_rater_counts(pairs.rater, codes, n_raters)[tested]
                wr = float(_stats.by_rejections(
                    _stats.pvalues(cnt, epsilon=epsilon, margin=margin, test=test), q=q).mean())
                row.update(winning_rate_mean=wr, winning_rate_sd=0.0,
                           pass_probability=float(wr >= 0.5), winning_rate_method="exact")
            elif (exact := _exact(pp, grid, pairs, per_item, opts, q)) is not None:
                row.update(winning_rate_mean=exact[0], winning_rate_sd=exact[1],
                           pass_probability=exact[2], winning_rate_method="exact")
            elif references.n_resamples > 0:
                _check_size(references.n_resamples, len(pairs.item), n_raters)
                rates = _mc_rates(pi, per_item, grid, pairs, n_raters, rng,
                                  references.n_resamples, opts, q)
                row.update(winning_rate_mean=float(rates.mean()),
                           winning_rate_sd=float(rates.std(ddof=1)) if len(rates) > 1 else np.nan,
                           pass_probability=float((rates >= 0.5).mean()),
                           winning_rate_method=f"monte carlo ({references.n_resamples} runs)")
            else:
                row.update(winning_rate_mean=np.nan, winning_rate_sd=np.nan,
                           pass_probability=np.nan, winning_rate_method="not computed")
            rows.append(row)
            by_bin[name] = np.bincount(b, weights=w, minlength=nb) / np.maximum(n_bin, 1)
    table = pd.DataFrame(rows)
    bins = pd.DataFrame(by_bin)
    for col in bins.columns[2:]:
        bins.loc[bins["n_comparisons"] == 0, col] = np.nan
    return table, bins


def _check_size(n_resamples, n_pairs, n_raters) -> None:
    """Refuse a Monte Carlo too large for memory or minutes, before any draw."""
    if n_resamples * n_pairs > MAX_DRAWS or n_resamples * n_raters > MAX_COUNTS:
        most = max(1, min(MAX_DRAWS // max(n_pairs, 1), MAX_COUNTS // max(n_raters, 1)))
        raise ValueError(f"n_resamples={n_resamples} is too many Monte Carlo runs for "
                         f"{n_pairs} comparisons of {n_raters} raters (at most {most} here); "
                         "use fewer")


def _exact(pp, grid, pairs, per_item, opts, q):
    """The winning rate's exact law when the humans' tests are independent, else None."""
    from labelvar.judge._exact_rates import exact_rates

    if per_item and pairs.tested.sum() > 1:  # shared draws couple the humans
        return None
    tri = np.stack([(pp * (grid == c)).sum(axis=1) for c in range(3)], axis=1)
    return exact_rates(tri, pairs.rater, pairs.tested, q=q, **opts)


def _mc_rates(pi, per_item, grid, pairs, n_raters, rng, n_resamples, opts, q) -> np.ndarray:
    """Winning rates of ``n_resamples`` runs of the test with the reference's labels.

    A per-item reference's draws are shared by the humans of an item: the kernel draws
    them (``_kernels.judge.reference_runs``). A per-comparison reference's draws are
    independent, so each human's outcome counts are sums of independent trinomials:
    comparisons of one human with one trinomial law are drawn together as one
    multinomial (the same law as drawing them one by one, at a fraction of the cost).
    """
    tested = pairs.tested
    rater = pairs.rater.astype(np.int64)
    if per_item:
        from labelvar._kernels.judge import reference_runs

        cum = np.cumsum(pi, axis=1)
        cum[:, -1] = np.inf
        n_items = len(pairs.kept)
        row_of = np.zeros(n_items, np.int64) if len(pi) == 1 else np.arange(n_items)
        order = np.argsort(pairs.item, kind="stable").astype(np.int64)
        item_ptr = np.zeros(n_items + 1, np.int64)
        np.cumsum(np.bincount(pairs.item, minlength=n_items), out=item_ptr[1:])
        key = int(rng.integers(0, 2**63 - 1))
        counts = reference_runs(cum, row_of, item_ptr, order,
                                np.ascontiguousarray(grid, dtype=np.int8), rater, n_raters,
                                key, n_resamples)
    else:
        tri = np.stack([(pi * (grid == c)).sum(axis=1) for c in range(3)], axis=1)
        group = pd.DataFrame({"r": rater, "t": tri[:, 0], "s": tri[:, 1]}).groupby(
            ["r", "t", "s"], sort=False).ngroup().to_numpy()
        n_g = np.bincount(group)
        first = np.zeros(len(n_g), np.int64)
        first[group[::-1]] = np.arange(len(group))[::-1]  # one comparison per group
        g_rater = rater[first]
        law = tri[first] / tri[first].sum(axis=1, keepdims=True)
        counts = np.zeros((n_resamples, n_raters, 3), dtype=np.int64)
        for r in range(n_resamples):
            draws = rng.multinomial(n_g, law)
            for c in range(3):
                counts[r, :, c] = np.bincount(g_rater, weights=draws[:, c], minlength=n_raters)
    m = int(tested.sum())
    p = _stats.pvalues(counts[:, tested].reshape(-1, 3), **opts).reshape(n_resamples, m)
    return np.array([_stats.by_rejections(row, q=q).mean() for row in p])
