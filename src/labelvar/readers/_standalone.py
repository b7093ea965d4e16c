"""``standalone_vs_readers``: a standalone AI against a panel of readers (single-treatment OR)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
from scipy import stats

from labelvar._base._format import markdown_table, report_page, setting, short_float, shown
from labelvar.readers import _fom, _inputs
from labelvar.readers._mrmc import check_alpha, check_memory, resolve_truth

ANALYSES = ("1T-RRRC", "1T-RRFC")


def single_treatment(psi: np.ndarray, cov: np.ndarray, analysis: str):
    """Mean of ``psi`` (r,) with its SE and df; ``cov`` the covariance of ``psi`` over cases.

    1T-RRRC (Hillis 2007, one treatment): ``SE = sqrt([MS(R) + r max(Cov2, 0)] / r)``,
    ``df = [MS(R) + r max(Cov2, 0)]^2 / [MS(R)^2 / (r - 1)]``; 1T-RRFC: ``SE =
    sqrt(MS(R) / r)`` on ``r - 1`` df (the one-sample t test of the readers' ψ).
    ``cov`` may be ``(..., r, r)`` with ``psi`` ``(..., r)`` (vectorised over studies).

    Examples
    --------
    >>> d, se, df = single_treatment(np.array([0.1, 0.2, 0.3]), np.zeros((3, 3)), "1T-RRFC")
    >>> round(float(d), 3), round(float(se), 4), float(df)
    (0.2, 0.0577, 2.0)
    """
    r = psi.shape[-1]
    ms_r = psi.var(-1, ddof=1)
    off = ~np.eye(r, dtype=bool)
    cov2 = cov[..., off].mean(-1)
    if analysis == "1T-RRRC":
        err = ms_r + r * np.maximum(cov2, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            df = np.where(ms_r > 0, err ** 2 / (ms_r ** 2 / (r - 1)), np.inf)
    else:
        err, df = ms_r, np.full(np.shape(ms_r), float(r - 1))
    return psi.mean(-1), np.sqrt(err / r), df


def rubin(estimates: np.ndarray, variances: np.ndarray, df_complete: np.ndarray):
    """Rubin's rules over imputations (last axis): estimate, SE and Barnard-Rubin df.

    ``T = W + (1 + 1/M) B``; ``df = 1 / (1/nu_m + 1/nu_obs)`` with ``nu_m = (M - 1) / lambda^2``,
    ``lambda = (1 + 1/M) B / T``, ``nu_obs = (nu + 1) / (nu + 3) nu (1 - lambda)`` (Barnard &
    Rubin 1999; ``nu`` the complete-data df, the mean over imputations).

    Examples
    --------
    >>> q, se, df = rubin(np.array([1.0, 1.0]), np.array([0.25, 0.25]), np.array([10.0, 10.0]))
    >>> float(q), float(se), round(float(df), 4)
    (1.0, 0.5, 8.4615)
    """
    m = estimates.shape[-1]
    q = estimates.mean(-1)
    w = variances.mean(-1)
    b = estimates.var(-1, ddof=1)
    total = w + (1 + 1 / m) * b
    lam = np.where(total > 0, (1 + 1 / m) * b / total, 0.0)
    nu = np.minimum(df_complete.mean(-1), 1e12)
    with np.errstate(divide="ignore"):
        nu_m = np.where(lam > 0, (m - 1) / lam ** 2, np.inf)
        nu_obs = (nu + 1) / (nu + 3) * nu * (1 - lam)
        df = 1 / (1 / nu_m + 1 / nu_obs)
    return q, np.sqrt(total), df


@shown
@dataclasses.dataclass(frozen=True, repr=False)
class StandaloneResult:
    """The result of :func:`standalone_vs_readers`.

    Attributes
    ----------
    ai_fom : float
        The AI's figure of merit.
    readers_fom : DataFrame
        reader, fom, truth (the truth the reader met), psi (fom minus the AI's).
    difference : float
        The readers' mean FOM minus the AI's.
    statistic, df, p, ci_low, ci_high : float
        The t statistic of the difference, its df, two-sided p and CI (``1 - alpha``).
    se : float
    analysis : str
        ``"1T-RRRC"`` or ``"1T-RRFC"``.
    components : dict
        ``ms_r`` (variance of the readers' ψ), ``var_error`` and ``cov2`` of the ψ.
    imputed : DataFrame or None
        With ``truth_model``: the fixed-majority and the truth-uncertainty (multiple
        imputation) analyses side by side.
    settings : dict
        ``analysis``, ``fom_name``, ``alpha``, ``n_cases``, ``ai_se``, ``ai_truth``
        (each also an attribute).
    """

    ai_fom: float
    readers_fom: pd.DataFrame
    difference: float
    se: float
    statistic: float
    df: float
    p: float
    ci_low: float
    ci_high: float
    components: dict
    settings: dict
    imputed: pd.DataFrame | None = None

    analysis = setting("analysis", "``1T-RRRC`` or ``1T-RRFC``.")
    fom_name = setting("fom_name", "The figure of merit's name.")
    alpha = setting("alpha", "The significance level (CI ``1 - alpha``).")
    n_cases = setting("n_cases", "Cases read.")
    ai_se = setting("ai_se", "The AI's FOM standard error.")
    ai_truth = setting("ai_truth", "The truth the AI met.")
    to_html = report_page

    @property
    def table(self) -> pd.DataFrame:
        """One row: the analysis, the FOMs and the test (more rows with a truth model)."""
        if self.imputed is not None:
            return self.imputed
        return pd.DataFrame([{"analysis": self.analysis, "truth": "fixed", "ai_fom": self.ai_fom,
                              "readers_fom": float(self.readers_fom["fom"].mean()),
                              "difference": self.difference, "se": self.se,
                              "statistic": self.statistic, "df": self.df, "p": self.p,
                              "ci_low": self.ci_low, "ci_high": self.ci_high}])

    def _shown_tables(self) -> dict:
        return {"test": self.table, "readers": self.readers_fom}

    @property
    def points(self) -> pd.DataFrame:
        """The figure's table: the readers' and the AI's FOMs with CIs, and the readers' mean.

        A reader's or the AI's CI is over cases (jackknife/DeLong SE, normal quantiles);
        the mean's is the CI of the difference placed around the readers' mean FOM
        (``role``: reader, AI, readers' mean).
        """
        z = stats.norm.isf(self.alpha / 2)
        r = self.readers_fom
        mean = float(r["fom"].mean())
        rows = pd.DataFrame({"modality": self.fom_name, "reader": r["reader"], "fom": r["fom"],
                             "se": r["se"], "ci_low": r["fom"] - z * r["se"],
                             "ci_high": r["fom"] + z * r["se"], "role": "reader", "truth": r["truth"]})
        extra = pd.DataFrame([
            {"modality": self.fom_name, "reader": "AI", "fom": self.ai_fom, "se": self.ai_se,
             "ci_low": self.ai_fom - z * self.ai_se, "ci_high": self.ai_fom + z * self.ai_se,
             "role": "AI", "truth": self.ai_truth},
            {"modality": self.fom_name, "reader": "readers' mean", "fom": mean, "se": self.se,
             "ci_low": mean + self.ci_low - self.difference, "ci_high": mean + self.ci_high - self.difference,
             "role": "readers' mean", "truth": self.ai_truth}])
        return pd.concat([rows, extra], ignore_index=True)

    def describe(self) -> str:
        """The readers, the AI and the test as text."""
        r = len(self.readers_fom)
        lines = [f"Standalone AI vs {r} readers ({self.analysis}), fom {self.fom_name}, "
                 f"{self.n_cases} cases",
                 markdown_table(self.readers_fom),
                 f"AI {short_float(self.ai_fom)}, readers' mean "
                 f"{short_float(self.readers_fom['fom'].mean())}: difference (readers - AI) "
                 f"{short_float(self.difference)}, {int(round(100 * (1 - self.alpha)))}% CI "
                 f"[{short_float(self.ci_low)}, {short_float(self.ci_high)}], t = "
                 f"{short_float(self.statistic)} on {short_float(self.df)} df, p = {short_float(self.p)}"]
        if self.imputed is not None:
            lines.append(markdown_table(self.imputed))
        return "\n".join(lines)


def _ai_rows(ratings, ai, *, reader, case, rating):
    """The ratings with the AI as one more reader named ``ai`` (text), and the AI's name."""
    if isinstance(ai, (pd.Series, dict)):
        s = pd.Series(ai)
        name = "AI"
        if (ratings[reader].astype(str) == name).any():
            raise ValueError("ai: a reader is already named 'AI'; "
                             "give the AI's ratings as a reader of ratings")
        add = pd.DataFrame({reader: name, case: s.index, rating: s.to_numpy()})
        return pd.concat([ratings, add], ignore_index=True), name
    if isinstance(ai, (bool, np.bool_)) or not isinstance(ai, (str, int, np.integer)):
        raise ValueError("ai must be the name of a reader in ratings or a Series case -> rating, "
                         f"got {type(ai).__name__}")
    name = str(ai)
    if not (ratings[reader].astype(str) == name).any():
        raise ValueError(f"ai: no reader named {name!r} in ratings "
                         "(give the AI's name or a Series case -> rating)")
    return ratings, name


def standalone_vs_readers(ratings, ai, *, truth, fom="auc", analysis="1T-RRRC", covariance="jackknife",
                          threshold=None, reader="reader", case="case", rating="rating", alpha=0.05,
                          truth_model=None) -> StandaloneResult:
    """Is the AI as good as the readers? A standalone AI against a panel of readers.

    For each reader ``j`` the analysis takes ``psi_j = theta_j - theta_AI`` (its FOM minus
    the AI's on the same cases) and tests the readers' mean ψ against 0, the single-
    treatment Obuchowski-Rockette analysis (Hillis 2007) with the AI as a fixed
    comparator.

    Parameters
    ----------
    ratings : DataFrame
        Long ratings of one modality (reader, case, rating), fully crossed.
    ai : str or Series
        The AI: the name of a reader in ``ratings``, or a Series case id -> rating.
    truth : str, Series, TruthPanel or DataFrame
        As in :func:`mrmc`; a reader in the panel meets the majority of the others, the
        AI the whole panel's majority.
    fom, covariance, threshold : as in :func:`mrmc`
    analysis : {"1T-RRRC", "1T-RRFC"}
        ``"1T-RRRC"`` (random readers and cases): ``SE = sqrt([MS(R) + r max(Cov2, 0)] / r)``
        with ``MS(R)`` the variance (ddof 1) of the ψ_j over readers and ``Cov2`` the mean
        covariance over cases of two readers' ψ (jackknife or DeLong), on Hillis' df
        ``[MS(R) + r max(Cov2, 0)]^2 / [MS(R)^2 / (r - 1)]``. ``"1T-RRFC"`` (random
        readers, these cases): the one-sample t test of the ψ_j, ``SE = sqrt(MS(R) / r)``
        on ``r - 1`` df.
    reader, case, rating : str
        Column names in ``ratings``.
    alpha : float
        Significance level; the CI covers ``1 - alpha`` (Student t quantiles on ``df``).
    truth_model : fitted rater model or Series, optional
        A model of the truth's uncertainty: ``fit_raters``' result (its ``.truth``, P(truth
        | the panel's votes) per case) or a Series case -> P(truth = 1). The FOMs are then
        integrated over the posterior of each case's latent truth: ``M = 50`` truths are
        drawn from the posteriors (seeded, 0), each reader's ψ is averaged over them, and
        its covariance over cases is the jackknife of that averaged FOM (the per-case
        influences averaged over the draws: a case carries its votes, hence its
        posterior). ``.imputed`` prints it beside the fixed-truth analysis, and the
        result's test is this one. Its type-I error stayed in [0.0445, 0.0600]
        at alpha 0.05 over 4 simulated designs x 2,000 studies, where Rubin's rules over
        the same draws gave 0.017-0.031 (too conservative: the averaged FOM varies less
        than one draw's); ``scripts/validate_readers.py``.

    Returns
    -------
    StandaloneResult

    Examples
    --------
    >>> rng = np.random.default_rng(3)
    >>> y = rng.integers(0, 2, 80)
    >>> rows = [(j, k, y[k] + rng.normal()) for j in ["a", "b", "c", "AI"] for k in range(80)]
    >>> ratings = pd.DataFrame(rows, columns=["reader", "case", "rating"])
    >>> res = standalone_vs_readers(ratings, "AI", truth=pd.Series(y), analysis="1T-RRFC")
    >>> res.df, len(res.readers_fom)
    (2.0, 3)
    """
    if analysis not in ANALYSES:
        raise ValueError(f"analysis must be '1T-RRRC' or '1T-RRFC', got {analysis!r}")
    check_alpha(alpha)
    if not isinstance(ratings, pd.DataFrame):
        raise ValueError("ratings must be a long DataFrame (reader, case, rating), "
                         f"got {type(ratings).__name__}")
    for col in (reader, case, rating):
        if col not in ratings.columns:
            raise ValueError(f"ratings has no column {col!r}")
    table, ai_name = _ai_rows(ratings, ai, reader=reader, case=case, rating=rating)
    study = _inputs.read_study(table, reader=reader, case=case, modality=None, rating=rating)
    if len(study.readers) < 3:
        raise ValueError(f"ratings: the AI against readers needs at least 2 readers besides the AI, "
                         f"got {len(study.readers) - 1}")
    check_memory(1, len(study.readers), len(study.cases), truth_model is not None)
    truth_rc, met = resolve_truth(table, truth, study, case=case)
    a = study.reader_text.index(ai_name)
    scores = _inputs.check_fom(fom, threshold, study, truth_rc, covariance)
    post = None if truth_model is None else _inputs.truth_probabilities(truth_model, study.cases)
    order = [j for j in range(len(study.readers)) if j != a] + [a]
    scores, truth_rc = scores[:, order], truth_rc[order]
    names = [study.readers[j] for j in order[:-1]]
    res = _one(scores, truth_rc, fom, covariance, analysis)
    d, se, df, theta = res
    if not se > 0:
        raise ValueError("ratings: the readers' figures of merit minus the AI's (psi) have no "
                         f"variance (every psi {d:.4g}, over readers and over cases: e.g. every "
                         "rating tied, or the readers rate as the AI); the test is undefined")
    t_stat = d / se
    q = stats.t.isf(alpha / 2, df)
    p = float(2 * stats.t.sf(abs(t_stat), df))
    lo, hi = d - q * se, d + q * se
    _, u, _ = _fom.fom_influence(scores, truth_rc, fom, covariance)
    se_theta = np.sqrt((u[0] ** 2).sum(-1))
    readers_tab = pd.DataFrame({"reader": names, "fom": theta[:-1], "se": se_theta[:-1],
                                "psi": theta[:-1] - theta[-1], "truth": [met[j] for j in order[:-1]]})
    comp = _components(scores, truth_rc, fom, covariance)
    imputed = None
    if post is not None:
        imputed, (d, se, df, t_stat, p, lo, hi) = _imputed(
            scores, post, fom, covariance, analysis, alpha, (d, se, df, t_stat, p, lo, hi), theta)
    return StandaloneResult(
        ai_fom=float(theta[-1]), readers_fom=readers_tab, difference=float(d), se=float(se),
        statistic=float(t_stat), df=float(df), p=p, ci_low=float(lo), ci_high=float(hi),
        components=comp, imputed=imputed,
        settings=dict(analysis=analysis, alpha=float(alpha), n_cases=len(study.cases),
                      fom_name=fom if isinstance(fom, str) else getattr(fom, "__name__", "callable"),
                      ai_se=float(se_theta[-1]), ai_truth=met[a]))


def _psi_cov(scores, truth_rc, fom, covariance):
    theta, u, _ = _fom.fom_influence(scores, truth_rc, fom, covariance)
    theta, u = theta[0], u[0]
    psi = theta[:-1] - theta[-1]
    up = u[:-1] - u[-1]
    return theta, psi, up @ up.T


def _one(scores, truth_rc, fom, covariance, analysis):
    theta, psi, cov = _psi_cov(scores, truth_rc, fom, covariance)
    d, se, df = single_treatment(psi, cov, analysis)
    return float(d), float(se), float(df), theta


def _components(scores, truth_rc, fom, covariance) -> dict:
    _, psi, cov = _psi_cov(scores, truth_rc, fom, covariance)
    r = len(psi)
    return {"ms_r": float(psi.var(ddof=1)), "var_error": float(np.diag(cov).mean()),
            "cov2": float(cov[~np.eye(r, dtype=bool)].mean())}


def imputed_draws(scores, post, fom, covariance, analysis, rng, n_imputations=50):
    """The readers-minus-AI analysis over ``n_imputations`` truths drawn from ``post``.

    ``scores`` ``(1, r + 1, c)`` with the AI last; each draw is a truth of the ``c`` cases
    (Bernoulli with the case's posterior), redrawn when it has one class only. The
    imputations ride on the modality axis of the FOM kernels: one call for all of them.

    Returns ``integrated`` = ``(d, se, df)``: the single-treatment analysis of each
    reader's ψ averaged over the draws, with the covariance over cases of the averaged
    per-case influences (the jackknife of the posterior-integrated FOM: each case carries
    its votes, hence its posterior, hence its drawn truths); and ``draws`` = ``(d, var,
    df)`` per draw, for Rubin's rules.
    """
    y = _inputs.draw_truths(post, n_imputations, rng)
    theta, u, _ = _fom.fom_influence(np.broadcast_to(scores[0], (n_imputations,) + scores.shape[1:]),
                                     y[:, None, :], fom, covariance)
    psi = theta[:, :-1] - theta[:, -1:]
    up = u[:, :-1] - u[:, -1:]
    cov = np.einsum("mak,mbk->mab", up, up)
    d, se, df = single_treatment(psi, cov, analysis)
    ubar = up.mean(0)
    integrated = single_treatment(psi.mean(0), ubar @ ubar.T, analysis)
    return integrated, (d, se ** 2, df)


def _imputed(scores, post, fom, covariance, analysis, alpha, fixed, theta, n_imputations=50, seed=0):
    """Rubin's rules over truths drawn from the per-case posteriors."""
    rng = np.random.default_rng(seed)
    (q, se, df), _ = imputed_draws(scores, post, fom, covariance, analysis, rng, n_imputations)
    t_stat = q / se
    p = float(2 * stats.t.sf(abs(t_stat), df))
    qq = stats.t.isf(alpha / 2, df)
    imp = (float(q), float(se), float(df), float(t_stat), p, float(q - qq * se), float(q + qq * se))
    cols = ["difference", "se", "df", "statistic", "p", "ci_low", "ci_high"]
    table = pd.DataFrame([{"analysis": analysis, "truth": "fixed majority", **dict(zip(cols, fixed))},
                          {"analysis": analysis, "truth": f"posterior ({n_imputations} draws)",
                           **dict(zip(cols, imp))}])
    return table, imp
