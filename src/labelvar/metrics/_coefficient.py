"""``agreement_coefficient``: one chance-corrected coefficient with its error and its references.

The formulas and the variances are in ``_agreement.py``, the references (what a coin, a
prevalence-matched coin, an exchangeable annotator and the plurality follower would reach
on the same items) in ``_references.py``.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pandas as pd

from labelvar._base import _seeding
from labelvar._base._defaults import CONFIDENCE_LEVEL
from labelvar._base._format import markdown_table, setting, shown
from labelvar.metrics import _agreement as ag
from labelvar.metrics import _references as refs

LAYOUTS = ("table", "counts", "votes")
#: the most Monte Carlo replicates of a reference
MAX_RESAMPLES = 1_000_000
#: the most votes x replicates the Monte Carlo references may draw (under a minute here)
MAX_REFERENCE_DRAWS = 50_000_000
#: the most items a contingency table may count (they are expanded to pairs of codes)
MAX_ITEMS = 20_000_000


@shown
@dataclasses.dataclass(frozen=True, repr=False)
class AgreementResult:
    """One agreement coefficient with its analytic error and its chance references.

    Attributes
    ----------
    name : str
        The coefficient (``"gwet_ac1"``, ...).
    coefficient, se, ci_low, ci_high, p_value : float
        The estimate over all items, its standard error, its interval (Student's t on
        n − 1 degrees of freedom, clipped to [-1, 1]) and the two-sided p-value of
        coefficient = 0.
    pa, pe : float
        Observed and chance agreement.
    n_items, n_raters, n_categories, n_excluded : int
        Items used, raters (2 for a table, the most votes of an item for counts),
        categories, and items left out (no rating).
    variance : str
        Which variance the standard error is.
    table : DataFrame
        One row for all items and one per agreement bin (the share of an item's votes
        on its modal label): ``scope, n_items, coefficient, se, ci_low, ci_high,
        p_value, pa, pe``.
    references : DataFrame
        ``scope, reference, expected, se, method`` (``exact`` or ``monte_carlo``):
        the coefficient each reference labeller would reach (see
        :func:`agreement_coefficient`'s Notes); empty when not asked for.
    settings : dict
        ``pa``, ``pe``, the counts, ``layout``, ``weights``, ``confidence_level`` and
        ``variance`` (each also an attribute).
    """

    name: str
    coefficient: float
    se: float
    ci_low: float
    ci_high: float
    p_value: float
    table: pd.DataFrame = dataclasses.field(repr=False)
    references: pd.DataFrame = dataclasses.field(repr=False)
    settings: dict = dataclasses.field(repr=False)

    pa = setting("pa", "Observed agreement.")
    pe = setting("pe", "Chance agreement.")
    n_items = setting("n_items", "Items used.")
    n_raters = setting("n_raters", "Raters (2 for a table, the most votes of an item for counts).")
    n_categories = setting("n_categories", "Categories.")
    n_excluded = setting("n_excluded", "Items left out (no rating).")
    layout = setting("layout", "The input layout (``table``, ``counts`` or ``votes``).")
    weights = setting("weights", "The weights (``identity``, ``linear``, ``quadratic``, ``custom``).")
    confidence_level = setting("confidence_level", "The interval's confidence level.")
    variance = setting("variance", "Which variance the standard error is.")

    def describe(self) -> str:
        """The estimate, its interval, the variance used and the references, as text."""
        pct = f"{100 * self.confidence_level:g} %"
        if not np.isfinite(self.coefficient):
            lines = [f"{ag.TITLES[self.name]} ({self.weights}) is undefined: {_undefined(self.pe)} "
                     f"({self.n_items} items, {self.n_categories} categories); coefficient, se "
                     "and CI are NaN", f"variance: {self.variance}"]
            return "\n".join(lines)
        lines = [f"{ag.TITLES[self.name]} ({self.weights}) = {self.coefficient:.4f}, "
                 f"se {self.se:.4f}, {pct} CI [{self.ci_low:.4f}, {self.ci_high:.4f}], "
                 f"p = {self.p_value:.3g} ({self.n_items} items, {self.n_categories} categories"
                 + (f", {self.n_excluded} left out" if self.n_excluded else "") + ")",
                 f"variance: {self.variance}"]
        if len(self.references):
            overall = self.references[self.references["scope"] == "all"].drop(columns="scope")
            lines += ["references, all items (one vote per item replaced; per agreement bin "
                      "in .references):", markdown_table(overall)]
        return "\n".join(lines)

    def _shown_lines(self):
        return self.describe().splitlines()[:2]


def _undefined(pe: float) -> str:
    if np.isfinite(pe) and abs(pe - 1.0) < 1e-12:
        return ("chance agreement pe = 1 (every vote in one category), so (pa - pe) / (1 - pe) "
                "is 0 / 0")
    return "its chance agreement cannot be computed on these items"


def _flag(name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        _fail(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _fail(msg: str):
    raise ValueError(msg)


def _whole(name: str, arr: np.ndarray) -> np.ndarray:
    if not np.all(np.isfinite(arr)) or arr.min() < 0 or not np.all(arr == np.round(arr)):
        _fail(f"{name} must hold counts (whole numbers >= 0)")
    return arr


def _from_table(data, labels):
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(np.asarray(data))
    if frame.ndim != 2 or frame.shape[0] != frame.shape[1]:
        _fail(f"data must be a square contingency table (layout='table'), got shape "
              f"{frame.shape[0]} x {frame.shape[1]}")
    if isinstance(data, pd.DataFrame):
        if set(map(str, frame.index)) != set(map(str, frame.columns)):
            _fail("data (layout='table') must have the same categories as rows and columns, "
                  f"got {list(frame.index)} and {list(frame.columns)}")
        by_text = {str(c): c for c in frame.columns}  # (a CSV's header is text, its index not)
        frame = frame.loc[:, [by_text[str(r)] for r in frame.index]]
        frame.columns = frame.index
    cats = tuple(frame.index) if labels is None else tuple(labels)
    if labels is not None:
        if set(map(str, cats)) != set(map(str, frame.index)):
            _fail(f"labels must list the table's categories {list(frame.index)}, got {list(cats)}")
        frame = frame.loc[list(cats), list(cats)]
    try:
        table = _whole("data", frame.to_numpy(dtype=float))
    except (TypeError, ValueError) as err:
        _fail(str(err) if "data" in str(err) else "data must hold counts (whole numbers >= 0)")
    return table, cats


def _from_counts(data, labels):
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(np.asarray(data))
    if frame.ndim != 2:
        _fail("data (layout='counts') must be an items x categories table")
    if labels is not None:
        missing = [c for c in frame.columns if c not in list(labels)]
        if missing:
            _fail(f"labels must include every column of data, missing {missing}")
        frame = frame.reindex(columns=list(labels), fill_value=0)
    try:
        counts = _whole("data", frame.to_numpy(dtype=float))
    except (TypeError, ValueError):
        _fail("data (layout='counts') must hold counts (whole numbers >= 0)")
    return counts, tuple(frame.columns)


def _votes_codes(data, labels):
    """Codes (items, raters), -1 where no vote, and the categories: read by ``io.read_votes``."""
    from labelvar.io import read_votes

    votes = read_votes(data, labels=labels)
    return votes.codes, votes.labels


def _agreement_bins(counts):
    r = counts.sum(axis=1)
    top = counts.max(axis=1)
    return np.array([str(Fraction(int(t), int(n))) if n >= 2 else "" for t, n in zip(top, r)])


def _estimate(coefficient, w, *, counts, pairs, codes, fraction, confidence_level):
    if codes is not None:
        pa, pe, gamma = (float(x) for x in ag.conger_coefficient(codes, w))
        var = ag.conger_variance(codes, w, fraction=fraction)
        n = len(codes)
    elif pairs is not None:
        table = refs.pairs_table(pairs, w.shape[0])
        pa, pe, gamma = (float(x) for x in ag.table_coefficient(table, coefficient, w))
        var = ag.table_variance(table, coefficient, w, fraction=fraction)
        n = len(pairs)
    else:
        pa, pe, gamma = (float(x) for x in ag.counts_coefficient(counts, coefficient, w))
        var = ag.counts_variance(counts, coefficient, w, fraction=fraction)
        n = len(counts)
    se = float(np.sqrt(var)) if var >= 0 else float("nan")
    lo, hi, p = ag.interval(gamma, se, n, confidence_level)
    return {"n_items": n, "coefficient": gamma, "se": se, "ci_low": lo, "ci_high": hi,
            "p_value": p, "pa": pa, "pe": pe}


def agreement_coefficient(data, coefficient: str, *, layout: str = "votes", weights=None,
                          labels=None, confidence_level: float = CONFIDENCE_LEVEL,
                          population_size: int | None = None, by_agreement: bool = True,
                          references: bool = True, n_resamples: int = 200, seed=0):
    """A chance-corrected agreement coefficient with its analytic error and references.

    Parameters
    ----------
    data : DataFrame
        ``layout="table"``: a square contingency table of two raters (rows: rater 1's
        category, columns: rater 2's, the same categories); ``"counts"``: items ×
        categories, the number of raters who chose each category (missing ratings
        allowed: rows need not sum to the same number); ``"votes"``: a long table with
        columns ``item, rater, label`` (one row per vote) or a file of them, read by
        :func:`labelvar.io.read_votes` (its rules: labels canonical, conflicts refused).
    coefficient : str
        ``"cohen_kappa"`` (a table of two raters; from votes, Conger's κ: Cohen's for
        two or more raters, each with its own margins),
        ``"scott_pi"``, ``"gwet_ac1"`` (AC2 with weights), ``"brennan_prediger"``,
        ``"fleiss_kappa"`` (Scott's π of many raters; from a table it is Scott's π) or
        ``"percent_agreement"``.
    layout : {"votes", "table", "counts"}
        What ``data`` is.
    weights : None, "linear", "quadratic" or array (q, q)
        Agreement weights for ordinal categories (weighted κ, AC2, ...), on the
        categories in their order (``labels``, the table's rows, the count columns).
    labels : sequence, optional
        The declared categories in order (unused ones count: q enters AC1 and
        Brennan-Prediger); default the table's rows, the count columns, or the labels
        seen (``read_votes``' order: numbers in order, then text).
    confidence_level : float
        Coverage of the interval.
    population_size : int, optional
        N items in a finite population: the variance gets the factor 1 − n/N; default
        infinite (no correction, as irrCAC prints).
    by_agreement : bool
        Also one row per agreement bin (the modal share of an item's votes).
    references : bool
        Compute ``.references`` (Monte Carlo for the non-linear coefficients).
    n_resamples : int
        Monte Carlo replicates of each reference.
    seed : int, numpy.random.Generator or None
        Seed of the references' Monte Carlo.

    Returns
    -------
    AgreementResult
        Where a coefficient is undefined (chance agreement pe = 1: every vote, of the items
        or of an agreement bin, in one category; κ, π), its value, se and interval are NaN
        and :meth:`AgreementResult.describe` says why; the row's ``pe`` is 1.

    Notes
    -----
    Every coefficient is (pa − pe) / (1 − pe), pa the observed and pe the chance
    agreement (with agreement weights w_kl): Cohen's κ takes pe from each rater's own
    margins (from votes: Conger's κ, the mean over pairs of raters), Scott's π and Fleiss'
    κ from the pooled margins π_k (Σ w_kl π_k π_l), AC1/AC2 T_w Σ π_k(1 − π_k) / (q(q − 1))
    with T_w = Σ w_kl, Brennan–Prediger T_w / q², percent agreement 0. From votes and
    counts, pa is the mean over items rated at least twice of each item's share of
    agreeing pairs of ratings, and π_k the mean over rated items of their share of k
    (missing ratings allowed, as in Gwet 2014).

    The variance is, for a table, the delta-method variance under multinomial sampling of
    items (divisor n; Fleiss–Cohen–Everitt's for κ); for counts and votes, Gwet's
    subject-sampling variance conditional on the raters, Σ(γ_i − γ)² / (n(n − 1)) over
    the items' linearised contributions γ_i (two raters' votes included, as irrCAC's
    ``*.raw`` functions). Both are multiplied by 1 − n/N with ``population_size`` N
    (default none). The interval is γ ± t·se, t the Student quantile on n − 1 degrees of
    freedom, clipped to [−1, 1]; the p-value the two-sided t test of γ = 0, as irrCAC
    prints.

    References: in every item one vote, chosen at random, is replaced by a ``uniform``
    label, a ``prevalence``-matched one, an ``exchangeable`` annotator's (one of the item's
    other votes) or the ``plurality`` of the other votes (ties split), and the coefficient
    recomputed: exact expectations for percent agreement and Brennan–Prediger (linear in
    the items' outcomes), seeded Monte Carlo means with their standard errors otherwise.
    With two raters the last two copy the other rater (coefficient 1). The exchangeable
    reference copies a vote it is compared with, so it exceeds what a fresh annotator
    exchangeable with the panel would reach (the observed coefficient itself).

    Examples
    --------
    >>> table = pd.DataFrame([[13, 0, 0], [0, 20, 7], [0, 4, 56]],
    ...                      index=["E", "A", "N"], columns=["E", "A", "N"])
    >>> res = agreement_coefficient(table, "gwet_ac1", layout="table", references=False)
    >>> round(res.coefficient, 7), round(res.se, 8), (round(res.ci_low, 3), round(res.ci_high, 3))
    (0.8493305, 0.04321747, (0.764, 0.935))
    """
    from labelvar._base import _validate as v

    layout = v.choice("layout", layout, LAYOUTS)
    coefficient = v.choice("coefficient", coefficient, ag.COEFFICIENTS)
    confidence_level = float(v.probability("confidence_level", confidence_level,
                                           open_lo=True, open_hi=True))
    n_resamples = int(v.single("n_resamples", v.integer("n_resamples", n_resamples, lo=2,
                                                         hi=MAX_RESAMPLES)))
    by_agreement = _flag("by_agreement", by_agreement)
    references = _flag("references", references)
    if coefficient == "cohen_kappa" and layout == "counts":
        _fail("coefficient='cohen_kappa' needs the raters' identities: use layout='table' or "
              "'votes' (or 'fleiss_kappa' for counts)")
    pairs, codes, excluded, n_raters = None, None, 0, 2
    if layout == "table":
        table, cats = _from_table(data, labels)
        q = len(cats)
        if table.sum() > MAX_ITEMS:  # (each item becomes a pair of codes for the references)
            _fail(f"data (layout='table') counts {table.sum():,.0f} items; at most "
                  f"{MAX_ITEMS:,} are taken")
        idx = np.nonzero(table.ravel())[0]
        pairs = np.repeat(np.stack([idx // q, idx % q], axis=1), table.ravel()[idx].astype(int),
                          axis=0)
        counts = np.eye(q)[pairs[:, 0]] + np.eye(q)[pairs[:, 1]]
    elif layout == "counts":
        counts, cats = _from_counts(data, labels)
    else:
        codes, cats = _votes_codes(data, labels)
        n_raters = codes.shape[1]
        if n_raters < 2:
            _fail(f"data (layout='votes') must have at least 2 raters, got {n_raters}")
        q = len(cats)
        counts = np.stack([(codes == k).sum(axis=1) for k in range(q)], axis=1).astype(float)
    q = len(cats)
    n_rated = len(pairs) if pairs is not None else int((counts.sum(axis=1) >= 1).sum())
    if n_rated < 2:
        _fail(f"data must have at least 2 items with a rating, got {n_rated}")
    if q < 2:
        _fail(f"data must have at least 2 categories, got {q} ({list(cats)}); declare the "
              "categories with labels=[...] when every vote is in one")
    w, wname = ag.agreement_weights(weights, q)
    if layout != "table":
        rated = counts.sum(axis=1) >= 1
        excluded += int((~rated).sum())
        counts = counts[rated]
        codes = codes[rated] if layout == "votes" else None
        n_raters = int(counts.sum(axis=1).max()) if layout == "counts" and len(counts) else n_raters
    n = len(pairs) if pairs is not None else len(counts)
    if n < 2 or (counts.sum(axis=1) >= 2).sum() < 1:
        _fail(f"data must have at least 2 items and one item rated twice, got {n} items")
    fraction = 0.0
    if population_size is not None:
        size = int(v.integer("population_size", population_size, lo=n))
        fraction = n / size
    if references and coefficient not in refs.EXACT:
        draws = float(n_resamples) * float(counts.sum())
        if draws > MAX_REFERENCE_DRAWS:
            _fail(f"n_resamples={n_resamples:,} x {counts.sum():,.0f} votes is {draws:.3g} Monte "
                  f"Carlo draws for the references, more than {MAX_REFERENCE_DRAWS:.0e}; lower "
                  "n_resamples or pass references=False")
    use_pairs = pairs if layout == "table" else None
    use_codes = codes if (layout == "votes" and coefficient == "cohen_kappa") else None
    prevalence = counts.sum(axis=0) / counts.sum()
    bins = _agreement_bins(counts)
    scopes = [("all", np.ones(n, bool))]
    if by_agreement:
        scopes += [(f"agreement {b}", bins == b) for b in sorted(set(bins) - {""},
                                                                  key=Fraction)]
    rng = _seeding.generator(seed, "agreement references")
    rows, ref_rows = [], []
    for scope, mask in scopes:
        sub_pairs = None if use_pairs is None else use_pairs[mask]
        sub_codes = None if use_codes is None else use_codes[mask]
        est = _estimate(coefficient, w, counts=counts[mask], pairs=sub_pairs, codes=sub_codes,
                        fraction=fraction, confidence_level=confidence_level)
        rows.append({"scope": scope, **est})
        if references:
            ref_rows += [{"scope": scope, **row} for row in refs.references(
                counts=counts[mask], pairs=sub_pairs, codes=sub_codes, coefficient=coefficient,
                w=w, prevalence=prevalence, rng=rng, n_resamples=n_resamples)]
    table_out = pd.DataFrame(rows)
    overall = rows[0]
    ref_table = pd.DataFrame(ref_rows, columns=["scope", "reference", "expected", "se", "method"])
    variance = ("delta-method variance of the two-rater table (multinomial item sampling, "
                "divisor n)" if use_pairs is not None else
                "Gwet's subject-sampling variance, conditional on the raters")
    if use_codes is not None:
        variance = "Conger's kappa (Cohen's for many raters); " + variance
    variance += ", no finite-population correction" if not fraction else \
        f", finite-population correction 1 - n/N = {1 - fraction:.4g}"
    return AgreementResult(
        name=coefficient, coefficient=overall["coefficient"], se=overall["se"],
        ci_low=overall["ci_low"], ci_high=overall["ci_high"], p_value=overall["p_value"],
        table=table_out, references=ref_table,
        settings=dict(pa=overall["pa"], pe=overall["pe"], n_items=n, n_raters=n_raters,
                      n_categories=q, n_excluded=excluded, layout=layout, weights=wname,
                      confidence_level=confidence_level, variance=variance))


def agreement_table(data, coefficients=("percent_agreement", "cohen_kappa", "gwet_ac1"), *,
                    layout: str = "votes", weights=None, labels=None,
                    confidence_level: float = CONFIDENCE_LEVEL, by_agreement: bool = True,
                    references: bool = True, n_resamples: int = 200, seed=0) -> pd.DataFrame:
    """Several coefficients of the same ratings as one tidy table, references as columns.

    The row a report prints for each coefficient (``stratify``, ``labelvar raters``): one
    :func:`agreement_coefficient` per name, its ``.table`` with the references' expected
    values beside each scope.

    Parameters
    ----------
    data, layout, weights, labels, confidence_level, by_agreement, references, n_resamples, seed
        As :func:`agreement_coefficient` (one seed stream per coefficient).
    coefficients : sequence of str
        Names from ``COEFFICIENTS``.

    Returns
    -------
    DataFrame
        ``coefficient, scope, n_items, value, se, ci_low, ci_high, p_value`` and, with
        ``references``, one column per reference labeller (``uniform``, ``prevalence``,
        ``exchangeable``, ``plurality``): its expected value.

    Examples
    --------
    >>> table = pd.DataFrame([[88, 5], [4, 3]], index=["neg", "pos"], columns=["neg", "pos"])
    >>> t = agreement_table(table, ["cohen_kappa", "gwet_ac1"], layout="table",
    ...                     by_agreement=False, references=False)
    >>> t[["coefficient", "value"]].round(3).to_dict("records")
    [{'coefficient': 'cohen_kappa', 'value': 0.352}, {'coefficient': 'gwet_ac1', 'value': 0.896}]
    """
    if not isinstance(coefficients, str) and not hasattr(coefficients, "__iter__"):
        _fail(f"coefficients must be a name or a list of names among {', '.join(ag.COEFFICIENTS)}; "
              f"got {coefficients!r}")
    names = [coefficients] if isinstance(coefficients, str) else list(coefficients)
    if not names:
        _fail("coefficients must name at least one coefficient")
    twice = sorted({n for n in names if names.count(n) > 1}, key=str)
    if twice:
        _fail(f"coefficients lists {', '.join(map(repr, twice))} more than once")
    for name in names:
        if name not in ag.COEFFICIENTS:
            _fail(f"coefficients must be among {', '.join(ag.COEFFICIENTS)}; got {name!r}")
    base = _seeding.as_seed(seed)
    frames = []
    for name in names:
        res = agreement_coefficient(data, name, layout=layout, weights=weights, labels=labels,
                                    confidence_level=confidence_level, by_agreement=by_agreement,
                                    references=references, n_resamples=n_resamples,
                                    seed=_seeding.derive(base, name))
        rows = res.table.rename(columns={"coefficient": "value"}).drop(columns=["pa", "pe"])
        rows.insert(0, "coefficient", name)
        if references and len(res.references):
            wide = res.references.pivot(index="scope", columns="reference", values="expected")
            rows = rows.join(wide[list(refs.REFERENCES)], on="scope")
        frames.append(rows)
    return pd.concat(frames, ignore_index=True)
