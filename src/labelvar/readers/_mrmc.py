"""``mrmc``: the Obuchowski-Rockette and DBM analysis of a multi-reader multi-case study."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from labelvar._base._format import count, markdown_table, report_page, setting, short_float, shown
from labelvar.readers import _fom, _inputs, _or
from labelvar.readers._inputs import TruthPanel


@shown
@dataclasses.dataclass(frozen=True, repr=False)
class DBM:
    """The Dorfman-Berbaum-Metz analysis: ANOVA of the jackknife pseudovalues.

    Attributes
    ----------
    anova : DataFrame
        source (T, R, C, TR, TC, RC, TRC), df, ss, ms.
    components : dict
        ``var_r``, ``var_c``, ``var_tr``, ``var_tc``, ``var_rc``, ``var_error`` (pseudovalue
        scale; ``var_r`` and ``var_tr`` equal the OR ones).
    test : dict
        The RRRC F test: ``statistic``, ``df1``, ``df2`` (Hillis' ddf), ``p`` (empty at t = 1).
    """

    anova: pd.DataFrame
    components: dict
    test: dict

    @property
    def table(self) -> pd.DataFrame:
        """The pseudovalue ANOVA."""
        return self.anova

    def describe(self) -> str:
        """The ANOVA and the components as text."""
        comp = ", ".join(f"{k} {short_float(v)}" for k, v in self.components.items())
        return markdown_table(self.anova) + "\n" + comp


@shown
@dataclasses.dataclass(frozen=True, repr=False)
class MRMCResult:
    """The result of :func:`mrmc`.

    Attributes
    ----------
    fom : DataFrame
        modality, reader, fom: each reader's figure of merit in each modality.
    components : dict
        The OR variance components ``var_r``, ``var_tr``, ``cov1``, ``cov2``, ``cov3``,
        ``var_error`` and the correlations ``corr1..3`` (cov / var_error).
    tests : DataFrame
        Indexed by analysis (``RRRC`` random readers and cases, ``FRRC`` fixed readers,
        ``RRFC`` fixed cases); columns statistic (F, or chi-square for FRRC), df1, df2
        (inf for FRRC), p, and, with two modalities, the difference (first minus second
        modality), its se and CI (``ci_low``, ``ci_high``); ``error_term`` the
        denominator of the test.
    differences : DataFrame
        Every pair of modalities under each analysis (t or z statistic, df, p, CI).
    modalities : DataFrame
        Each modality's mean FOM with its SE, df and CI under each analysis.
    readers : DataFrame
        Each reader's modality differences (that reader fixed, cases random: z tests).
    anova : DataFrame
        The OR mean squares of the modality x reader table of FOMs.
    covariance : DataFrame
        The covariance of the FOMs over cases (rows and columns ``modality/reader``).
    dbm : DBM or None
        The DBM analysis (None for the DeLong covariance or when readers met different
        truths on binary FOMs).
    truth : DataFrame
        reader, truth (the truth that reader met), n_positive, n_negative.
    posterior : DataFrame or None
        With ``truth_model``: the tests (as ``tests``; one modality: its CIs) on the FOMs
        integrated over the truth's posterior.
    settings : dict
        ``fom_name``, ``covariance_method``, ``n_cases``, ``alpha`` (each also an attribute).
    """

    fom: pd.DataFrame
    components: dict
    tests: pd.DataFrame
    differences: pd.DataFrame
    modalities: pd.DataFrame
    readers: pd.DataFrame
    anova: pd.DataFrame
    covariance: pd.DataFrame = dataclasses.field(repr=False)
    dbm: DBM | None
    truth: pd.DataFrame
    settings: dict
    posterior: pd.DataFrame | None = None

    fom_name = setting("fom_name", "The figure of merit's name.")
    covariance_method = setting("covariance_method", "``jackknife`` or ``delong``.")
    n_cases = setting("n_cases", "Cases read.")
    alpha = setting("alpha", "The significance level of the tests and CIs (``1 - alpha``).")
    to_html = report_page

    @property
    def table(self) -> pd.DataFrame:
        """The tests, one row per analysis (``analysis`` a column)."""
        return self.tests.reset_index()

    def _shown_tables(self) -> dict:
        return {"fom": self.fom, "tests": self.table, "modalities": self.modalities}

    @property
    def points(self) -> pd.DataFrame:
        """The figure's table: per-reader FOMs with CIs, and each modality's readers' mean.

        A reader's CI is over cases (``sqrt`` of the FOM's variance, normal quantiles); a
        mean's is the RRRC single-modality CI (``role`` ``"reader"`` or ``"readers' mean"``).
        """
        from scipy import stats

        z = stats.norm.isf(self.alpha / 2)
        se = np.sqrt(np.diag(self.covariance.to_numpy()))
        rows = self.fom.assign(se=se, ci_low=self.fom["fom"] - z * se, ci_high=self.fom["fom"] + z * se,
                               role="reader")
        truth = self.truth.set_index("reader")["truth"]
        rows["truth"] = [truth[r] for r in rows["reader"]]
        mean = self.modalities[self.modalities["analysis"] == "RRRC"]
        mean = mean[["modality", "fom", "se", "ci_low", "ci_high"]].assign(
            reader="readers' mean", role="readers' mean", truth="; ".join(sorted(set(truth))))
        return pd.concat([rows, mean[rows.columns]], ignore_index=True)

    def describe(self) -> str:
        """The FOMs, the components and the tests as text."""
        t = self.fom["modality"].nunique()
        r = self.fom["reader"].nunique()
        wide = self.fom.pivot(index="reader", columns="modality", values="fom")
        wide = wide.reindex(index=pd.unique(self.fom["reader"]), columns=pd.unique(self.fom["modality"]))
        lines = [f"MRMC analysis: {count(t, 'modality', 'modalities')} x {count(r, 'reader')} x "
                 f"{count(self.n_cases, 'case')}, "
                 f"fom {self.fom_name}, {self.covariance_method} covariance",
                 markdown_table(wide.reset_index().rename(columns=str)),
                 "OR components: " + ", ".join(f"{k} {short_float(self.components[k])}"
                                               for k in ("var_r", "var_tr", "cov1", "cov2", "cov3",
                                                         "var_error")),
                 markdown_table(self.table.drop(columns="error_term"))]
        truths = sorted(set(self.truth["truth"]))
        lines.append("truth: " + "; ".join(truths))
        if self.posterior is not None:
            lines += [f"integrated over the truth's posterior ({POSTERIOR_DRAWS} draws):",
                      markdown_table(self.posterior.reset_index().drop(columns="error_term",
                                                                        errors="ignore"))]
        return "\n".join(lines)


def analyse(scores, truth, fom, covariance, modalities, readers, alpha):
    """The OR (and DBM) analysis of a ``(t, r, c)`` array against ``truth`` ``(r, c)``."""
    theta, u, loo = _fom.fom_influence(scores, truth, fom, covariance)
    cov = _fom.covariance_matrix(u)
    check_variance(theta, cov)
    t, r = theta.shape
    tests, diffs, comp, ms = _or.or_tests(theta, cov, modalities, alpha) if t > 1 else (
        None, None, _or.components(theta, cov), _or.mean_squares(theta))
    if tests is not None and not tests.loc["RRRC", "error_term"] > 1e-15:
        raise ValueError("ratings: the modalities' figures of merit differ by the same amount "
                         "for every reader and case resample (their difference has zero "
                         "variance: e.g. the modalities' ratings are identical); the test of "
                         "modalities is undefined")
    return theta, cov, u, loo, tests, diffs, comp, ms


def check_alpha(alpha) -> float:
    """``alpha`` as a float in (0, 1), or one line naming it."""
    from labelvar._base import _validate as V

    return float(V.single("alpha", V.probability("alpha", alpha, open_lo=True, open_hi=True)))


def check_variance(theta, cov) -> None:
    """Refuse a study whose figures of merit have no variance over cases (nothing to test)."""
    if not np.any(np.abs(cov) > 1e-15):
        values = ", ".join(f"{v:.4g}" for v in np.unique(np.round(theta, 12))[:4])
        raise ValueError(f"ratings: the figures of merit ({values}) do not vary over cases (zero "
                         "variance: e.g. every rating tied, or every decision the same, or every "
                         "reader perfect); their tests and intervals are undefined")


#: truths drawn from a truth model's posteriors (seeded: 0)
POSTERIOR_DRAWS = 50


#: bytes per rating of the FOM kernels' working arrays (ranks, placements, influences)
BYTES_PER_RATING = 96


def check_memory(t, r, c, posterior: bool) -> None:
    """Refuse, before the kernels allocate, a study whose arrays would exceed the memory limit."""
    from labelvar._base import _validate as V

    V.memory(f"ratings: {t} modalities x {r} readers x {c} cases", BYTES_PER_RATING * t * r * c,
             "analyse fewer cases")
    if posterior:
        V.memory(f"truth_model: {POSTERIOR_DRAWS} drawn truths x {t * r * c} ratings",
                 BYTES_PER_RATING * POSTERIOR_DRAWS * t * r * c, "analyse fewer cases")


def integrated(scores, post, fom, covariance, n_draws=POSTERIOR_DRAWS, seed=0):
    """FOMs ``(t, r)`` integrated over truths drawn from ``post`` and their influence.

    Each draw's FOMs and per-case influences (the draws ride on the modality axis: one
    kernel call) are averaged over the draws; the covariance of the averaged influences
    is the jackknife over cases of the integrated FOM (a case carries its votes, hence
    its posterior, hence its drawn truths).
    """
    t, r, c = scores.shape
    y = _inputs.draw_truths(post, n_draws, np.random.default_rng(seed))
    big = np.broadcast_to(scores[None], (n_draws, t, r, c)).reshape(n_draws * t, r, c)
    theta, u, _ = _fom.fom_influence(big, np.repeat(y, t, axis=0)[:, None, :], fom, covariance)
    return theta.reshape(n_draws, t, r).mean(0), u.reshape(n_draws, t, r, c).mean(0)


def _posterior_tests(scores, post, fom, covariance, modalities, alpha):
    theta, u = integrated(scores, post, fom, covariance)
    cov = _fom.covariance_matrix(u)
    if theta.shape[0] > 1:
        return _or.or_tests(theta, cov, modalities, alpha)[0]
    single = _or.single_modality(theta, cov, modalities, alpha)
    return single.set_index("analysis")[["fom", "se", "df", "ci_low", "ci_high"]]


def _dbm(theta, loo, truth, fom, alpha):
    if loo is None:
        return None
    kind = "all" if callable(fom) else _fom.FOMS[fom]
    if kind == "all":
        keep = np.ones(loo.shape[-1], dtype=bool)
    else:
        if not (truth == truth[:1]).all():
            return None
        keep = truth[0].astype(bool) if kind == "positives" else ~truth[0].astype(bool)
    anova, comp, test = _or.dbm(theta, loo[..., keep], alpha)
    return DBM(anova, comp, test)


def mrmc(ratings, *, truth, fom="auc", covariance="jackknife", threshold=None, reader="reader",
         case="case", modality="modality", rating="rating", alpha=0.05, truth_model=None) -> MRMCResult:
    """Obuchowski-Rockette (and DBM) analysis of a multi-reader multi-case reader study.

    Parameters
    ----------
    ratings : DataFrame
        Long ratings, one row per reader x case x modality (columns named by ``reader``,
        ``case``, ``modality``, ``rating``; without a modality column, one modality). The
        design must be fully crossed: every reader reads every case in every modality.
    truth : str, Series, TruthPanel or DataFrame
        The truth of each case (1 positive, 0 negative): a column of ``ratings``, a Series
        case id -> 0/1 (ids matched by their text), or a panel of identified raters
        (:class:`TruthPanel`, or a DataFrame of votes read as ``TruthPanel(votes)``): the truth is
        their majority, and a tested reader who sits in the panel (same id) is scored
        against the majority of the others (``.truth`` says which truth each reader met).
    fom : {"auc", "sensitivity", "specificity", "accuracy"} or callable
        The figure of merit: the trapezoidal (Wilcoxon) AUC of the ratings; the
        sensitivity, specificity or accuracy of 0/1 decisions (or of ``rating >=
        threshold``); or ``fom(ratings, truth) -> float`` on one reader's 1-D arrays.
    covariance : {"jackknife", "delong"}
        The covariance of the FOMs over cases: the jackknife over the cases that enter the
        FOM (positives only for sensitivity, negatives only for specificity, all cases
        for AUC, accuracy and a callable), ``(c - 1) / c * sum d d'``; or DeLong's (AUC
        only; ``S10 / m + S01 / n`` with ddof 1).
    threshold : float, optional
        For the binary FOMs: a rating ``>= threshold`` is a positive decision.
    reader, case, modality, rating : str
        Column names in ``ratings``.
    alpha : float
        Significance level of the tests; the CIs cover ``1 - alpha``.
    truth_model : fitted rater model or Series, optional
        The truth's uncertainty: ``fit_raters``' result (its ``.truth``, P(truth | the
        panel's votes) per case) or a Series case -> P(truth = 1). The analysis is then
        repeated on the FOMs integrated over the posterior of each case's latent truth
        (:data:`POSTERIOR_DRAWS` truths drawn, seeded; the covariance is the jackknife of
        the integrated FOMs) and ``.posterior`` holds its tests, printed beside the
        fixed-truth ones. Every reader meets the same posterior (no leave-reader-out).

    Returns
    -------
    MRMCResult
        ``.fom``, ``.components``, ``.tests`` (RRRC, FRRC, RRFC), ``.differences``,
        ``.modalities`` (single-modality CIs), ``.readers`` (per-reader tests), ``.anova``,
        ``.dbm``, ``.truth``.

    Notes
    -----
    The formulas follow Obuchowski & Rockette (1995; Hillis
    2007; Hillis, Berbaum & Metz 2008; Dorfman, Berbaum & Metz 1992; DeLong, DeLong &
    Clarke-Pearson 1988). With the jackknife covariance OR and DBM give the same RRRC
    test. The Wilcoxon AUC's leave-one-case-out values come from placement values (one
    sort per reader and modality), not from recomputing the AUC.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> cases = np.arange(60); truth = pd.Series(cases % 2, index=cases)
    >>> rows = [(j, k, m, truth[k] * (1.0 + 0.5 * m) + rng.normal()) for m in (0, 1)
    ...         for j in range(4) for k in cases]
    >>> ratings = pd.DataFrame(rows, columns=["reader", "case", "modality", "rating"])
    >>> res = mrmc(ratings, truth=truth)
    >>> res.tests.loc["RRRC", ["df1"]].tolist(), res.fom.shape
    ([1.0], (8, 3))
    """
    check_alpha(alpha)
    study = _inputs.read_study(ratings, reader=reader, case=case, modality=modality, rating=rating)
    t, r, c = study.scores.shape
    truth_rc, met = resolve_truth(ratings, truth, study, case=case)
    scores = _inputs.check_fom(fom, threshold, study, truth_rc, covariance)
    check_memory(t, r, c, truth_model is not None)
    post = None
    if truth_model is not None:
        if callable(fom):
            raise ValueError("truth_model: a callable fom cannot be integrated over the truth; "
                             "use a named fom")
        post = _inputs.truth_probabilities(truth_model, study.cases)
    theta, cov, u, loo, tests, diffs, comp, ms = analyse(
        scores, truth_rc, fom, covariance, study.modalities, study.readers, alpha)
    fom_table = pd.DataFrame({"modality": np.repeat(study.modalities, r),
                              "reader": np.tile(study.readers, t), "fom": theta.ravel()})
    labels = [f"{m}/{j}" for m in study.modalities for j in study.readers]
    if tests is None:  # one modality: the tests rows hold its CI (no statistic)
        single = _or.single_modality(theta, cov, study.modalities, alpha)
        tests = single.set_index("analysis")[["fom", "se", "df", "ci_low", "ci_high"]].rename(
            columns={"fom": "difference", "df": "df2"})
        tests.insert(0, "statistic", np.nan)
        tests.insert(1, "df1", np.nan)
        tests.insert(4, "p", np.nan)
        tests["error_term"] = tests["se"] ** 2 * r
        tests = tests[["statistic", "df1", "df2", "p", "difference", "se", "ci_low", "ci_high",
                       "error_term"]]
        diffs = pd.DataFrame(columns=["analysis", "comparison", "difference", "se", "df",
                                      "statistic", "p", "ci_low", "ci_high"])
        readers_tab = pd.DataFrame(columns=["reader", "comparison", "difference", "se", "statistic",
                                            "p", "ci_low", "ci_high", "var_error", "cov1"])
    else:
        readers_tab = _or.per_reader(theta, cov, study.modalities, study.readers, alpha)
    anova = pd.DataFrame({"source": ["T", "R", "TR"] + [f"R in {m}" for m in study.modalities],
                          "df": [t - 1, r - 1, (t - 1) * (r - 1)] + [r - 1] * t,
                          "ms": [ms["ms_t"], ms["ms_r"], ms["ms_tr"], *ms["ms_r_i"].tolist()]})
    truth_tab = pd.DataFrame({"reader": study.readers, "truth": met,
                              "n_positive": truth_rc.sum(1), "n_negative": c - truth_rc.sum(1)})
    return MRMCResult(
        fom=fom_table, components={k: float(v) for k, v in comp.items()}, tests=tests,
        differences=diffs, modalities=_or.single_modality(theta, cov, study.modalities, alpha),
        readers=readers_tab, anova=anova, covariance=pd.DataFrame(cov, index=labels, columns=labels),
        dbm=_dbm(theta, loo, truth_rc, fom, alpha), truth=truth_tab,
        settings=dict(covariance_method=covariance, n_cases=c, alpha=float(alpha),
                      fom_name=fom if isinstance(fom, str) else getattr(fom, "__name__", "callable")),
        posterior=None if post is None else _posterior_tests(scores, post, fom, covariance,
                                                             study.modalities, alpha))


def resolve_truth(ratings, truth, study, *, case):
    """Truth ``(r, c)`` and the text of the truth each reader met."""
    r = len(study.readers)
    if isinstance(truth, pd.DataFrame):
        truth = TruthPanel(truth)
    if isinstance(truth, TruthPanel):
        return _inputs.panel_truth(truth, study)
    vals = _inputs.case_truth(ratings, truth, study, case=case)
    name = f"column {truth!r}" if isinstance(truth, str) else "the given truth"
    return np.broadcast_to(vals, (r, len(vals))).copy(), [name] * r
