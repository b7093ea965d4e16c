"""Reading a reader study: long ratings -> a ``(t, r, c)`` array, and the truth of each case.

Every check raises one ``ValueError`` line naming the argument, before any analysis.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from labelvar.readers._fom import FOMS

TIE_RULES = ("random", "lowest", "highest")


@dataclass(frozen=True)
class Study:
    """A fully crossed study as arrays (ids kept as the text the user wrote)."""

    scores: np.ndarray  # (t, r, c) float
    modalities: list  # as given (the first value of each id's text)
    readers: list  # as given
    cases: list  # text: truths and panels are matched by the ids' text
    reader_text: list


@dataclass(frozen=True)
class TruthPanel:
    """A truth that is the majority of a panel of identified raters.

    Parameters
    ----------
    votes : DataFrame
        Long (columns ``case``, ``rater``, ``label``; other names through ``columns``)
        or wide (one row per case, the case id in the index or in a ``case`` column, one
        column per rater) 0/1 votes. Every rater votes on every case of the study.
    tie_rule : {"random", "lowest", "highest"}
        A tied majority (an even number of voters, e.g. four panelists left when a
        tested reader sits in a panel of five) becomes 0/1 at random (seeded per case),
        0 (``"lowest"``) or 1 (``"highest"``).
    seed : int
        Seed of the ``"random"`` tie rule.
    columns : tuple of str
        The names of the case, rater and label columns of long votes.

    Examples
    --------
    >>> v = pd.DataFrame({"case": [1, 1, 1, 2, 2, 2], "rater": list("abcabc"),
    ...                   "label": [1, 1, 0, 0, 0, 1]})
    >>> TruthPanel(v).votes_wide().to_numpy().tolist()
    [[1, 1, 0], [0, 0, 1]]
    """

    votes: pd.DataFrame
    tie_rule: str = "random"
    seed: int = 0
    columns: tuple = ("case", "rater", "label")

    def votes_wide(self) -> pd.DataFrame:
        """The votes as a case x rater table of 0/1 (ids as text), read by ``io.read_votes``."""
        from labelvar.io import read_votes

        v = self.votes
        if not isinstance(v, pd.DataFrame):
            raise ValueError(f"truth: a panel's votes must be a DataFrame, got {type(v).__name__}")
        cols = self.columns
        if (isinstance(cols, str) or not hasattr(cols, "__len__") or len(cols) != 3
                or not all(isinstance(c, str) for c in cols)):
            raise ValueError("truth: TruthPanel's columns must be three column names (case, "
                             f"rater, label), got {cols!r}")
        case, rater, label = cols
        if rater in v.columns and label in v.columns:
            long = v
        else:  # wide: one column per rater; an empty cell is no vote
            wide = v.set_index(case) if case in v.columns else v.rename_axis(case)
            long = wide.reset_index().melt(id_vars=case, var_name=rater, value_name=label)
            long = long[long[label].notna() & (long[label].astype(str).str.strip() != "")]
        try:
            votes = read_votes(long, item=case, rater=rater, label=label, labels=(0, 1))
        except ValueError as exc:
            raise ValueError(f"truth: the panel's votes: {exc}") from None
        codes = votes.codes
        if (codes < 0).any():
            raise ValueError("truth: a panel rater has no vote on some case "
                             "(every rater votes on every case)")
        return pd.DataFrame(codes, index=votes.items, columns=votes.raters)


def majority(votes: np.ndarray, tie_rule: str, seed: int, case_ids) -> np.ndarray:
    """0/1 majority of each row of ``votes`` (cases x voters); ties by ``tie_rule``.

    Examples
    --------
    >>> majority(np.array([[1, 1, 0, 0], [1, 1, 1, 0]]), "lowest", 0, ["a", "b"]).tolist()
    [0, 1]
    """
    k = votes.shape[1]
    ones = votes.sum(1)
    out = (2 * ones > k).astype(int)
    tied = 2 * ones == k
    if tied.any():
        if tie_rule == "highest":
            out[tied] = 1
        elif tie_rule == "random":  # a coin per case, from (seed, the case's id text)
            import zlib
            coins = np.array([np.random.default_rng([seed, zlib.crc32(str(c).encode())]).integers(2)
                              for c in np.asarray(case_ids)[tied]])
            out[tied] = coins
    return out


def read_study(ratings, *, reader, case, modality, rating) -> Study:
    """Long ratings -> a fully crossed :class:`Study` (partial designs refused)."""
    if not isinstance(ratings, pd.DataFrame):
        raise ValueError(f"ratings must be a long DataFrame (reader, case, modality, rating), "
                         f"got {type(ratings).__name__}")
    if len(ratings) == 0:
        raise ValueError("ratings is empty")
    missing = [c for c in (reader, case, rating) if c not in ratings.columns]
    if missing:
        raise ValueError(f"ratings has no column {', '.join(map(repr, missing))} "
                         f"(columns: {', '.join(map(str, ratings.columns))})")
    named_cols = [c for c in (reader, case, modality, rating) if c is not None]
    if len(set(named_cols)) < len(named_cols):
        raise ValueError(f"ratings: reader, case, modality and rating must name different columns, "
                         f"got {named_cols}")
    if modality is not None and modality != "modality" and modality not in ratings.columns:
        raise ValueError(f"modality: ratings has no column {modality!r} (columns: "
                         f"{', '.join(map(str, ratings.columns))}); name the modality column, or "
                         "leave it out for one modality")
    named = modality is not None and modality in ratings.columns
    if not named:  # one modality
        ratings = ratings.assign(_one_modality="1")
        modality = "_one_modality"
    for col, name in ((reader, "reader"), (case, "case"), (modality, "modality")):
        ids = ratings[col]
        blank = ids.isna() | (ids.astype(str).str.strip() == "")
        if blank.any():
            raise ValueError(f"{name}: {int(blank.sum())} of {len(ids)} ratings have no {name} id "
                             f"(column {col!r}, first at row {int(np.flatnonzero(blank.to_numpy())[0])});"
                             " give every rating its id")
    try:
        values = pd.to_numeric(ratings[rating], errors="raise").to_numpy(float)
    except (TypeError, ValueError):
        raise ValueError(f"rating: the column {rating!r} must be numeric") from None
    if not np.isfinite(values).all():
        raise ValueError(f"rating: the column {rating!r} has missing or non-finite values")
    keys = pd.DataFrame({"m": ratings[modality].astype(str), "r": ratings[reader].astype(str),
                         "c": ratings[case].astype(str)})
    originals = {}
    for col, name, key in ((modality, "modality", keys.m), (reader, "reader", keys.r)):
        first = ratings[col].groupby(key.to_numpy(), sort=False)
        if (first.nunique() > 1).any():
            bad = first.unique()[first.nunique() > 1].iloc[0]
            raise ValueError(f"{name}: the ids {bad[0]!r} and {bad[1]!r} read as the same text")
        originals[name] = first.first()
    if keys.duplicated().any():
        row = keys[keys.duplicated()].iloc[0]
        if not named:
            raise ValueError(f"ratings: reader {row.r!r} rates case {row.c!r} twice (one "
                             "modality: the ratings have no modality column; give one rating "
                             "per reader and case, or name the modality column)")
        raise ValueError(f"ratings: reader {row.r!r} rates case {row.c!r} twice in modality {row.m!r}")
    mods = list(pd.unique(keys.m))
    rdrs = list(pd.unique(keys.r))
    cases = list(pd.unique(keys.c))
    t, r, c = len(mods), len(rdrs), len(cases)
    if r < 2:
        raise ValueError(f"reader: a reader study needs at least 2 readers, got {r}")
    if len(keys) != t * r * c:
        counts = keys.groupby("c").size()
        short = counts[counts < t * r]
        raise ValueError(f"ratings: the design is not fully crossed: case {short.index[0]!r} has "
                         f"{int(short.iloc[0])} of {t * r} ratings (every reader must read every case "
                         f"in every modality)")
    im = pd.Index(mods).get_indexer(keys.m)
    ir = pd.Index(rdrs).get_indexer(keys.r)
    ic = pd.Index(cases).get_indexer(keys.c)
    scores = np.empty((t, r, c))
    scores[im, ir, ic] = values
    return Study(scores, [originals["modality"][m] for m in mods] if modality != "_one_modality" else mods,
                 [originals["reader"][r] for r in rdrs], cases, rdrs)


def case_truth(ratings, truth, study: Study, *, case) -> np.ndarray:
    """Truth per case (0/1 ints) from a column of ``ratings`` or a Series case -> 0/1."""
    if isinstance(truth, str):
        if truth not in ratings.columns:
            raise ValueError(f"truth: ratings has no column {truth!r}")
        per = ratings.groupby(ratings[case].astype(str))[truth]
        if (per.nunique() > 1).any():
            bad = per.nunique()
            raise ValueError(f"truth: case {bad[bad > 1].index[0]!r} has two different truths "
                             f"in column {truth!r}")
        series = per.first()
    elif isinstance(truth, (pd.Series, dict)):
        series = pd.Series(truth)
        series.index = series.index.astype(str)
        if series.index.duplicated().any():
            raise ValueError(f"truth: case {series.index[series.index.duplicated()][0]!r} appears twice")
    else:
        raise ValueError("truth must be a column name of ratings, a Series case -> 0/1, or a panel "
                         f"(labelvar.readers.TruthPanel or a DataFrame of votes), got {type(truth).__name__}")
    aligned = series.reindex(study.cases)
    if aligned.isna().any():
        raise ValueError(f"truth: case {aligned.index[aligned.isna()][0]!r} has no truth")
    try:
        vals = aligned.to_numpy(float)
    except (TypeError, ValueError):
        bad = [v for v in pd.unique(aligned) if str(v).strip() not in ("0", "1", "0.0", "1.0")][:3]
        raise ValueError(f"truth must be 0/1, got {', '.join(map(repr, bad))}") from None
    if not np.isin(vals, (0.0, 1.0)).all():
        raise ValueError(f"truth must be 0/1, got {sorted(set(vals.tolist()) - {0.0, 1.0})[:3]}")
    return vals.astype(int)


def panel_truth(panel: TruthPanel, study: Study, readers_in_panel: bool = True):
    """Truth ``(r, c)`` from a panel, each reader in the panel left out of its own truth.

    Returns the truth and, per reader, the text of the truth it met.
    """
    if not isinstance(panel.tie_rule, str) or panel.tie_rule not in TIE_RULES:
        raise ValueError(f"truth: tie_rule must be one of {', '.join(TIE_RULES)}, got {panel.tie_rule!r}")
    seed = panel.seed
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
        raise ValueError(f"truth: TruthPanel's seed must be a whole number in [0, 2**63 - 1], got {seed!r}")
    wide = panel.votes_wide()
    missing = [c for c in study.cases if c not in wide.index]
    if missing:
        raise ValueError(f"truth: case {missing[0]!r} has no votes in the panel")
    wide = wide.loc[study.cases]
    raters = list(wide.columns)
    if len(raters) < 1:
        raise ValueError("truth: the panel has no raters")
    votes = wide.to_numpy()
    full = majority(votes, panel.tie_rule, panel.seed, study.cases)
    truth = np.empty((len(study.readers), len(study.cases)), dtype=int)
    met = []
    for j, name in enumerate(study.reader_text):
        if name in raters and readers_in_panel:
            others = [k for k, rr in enumerate(raters) if rr != name]
            if not others:
                raise ValueError(f"truth: reader {name!r} is the panel's only rater")
            truth[j] = majority(votes[:, others], panel.tie_rule, panel.seed, study.cases)
            met.append(f"majority of {len(others)} panelists without {name}")
        else:
            truth[j] = full
            met.append(f"majority of {len(raters)} panelists")
    return truth, met


def check_fom(fom, threshold, study: Study, truth: np.ndarray, covariance: str):
    """Validate the FOM options and return the scores the FOM reads (decisions for binary FOMs)."""
    if not callable(fom) and fom not in FOMS:
        raise ValueError(f"fom must be one of {', '.join(FOMS)} or a callable, got {fom!r}")
    if covariance not in ("jackknife", "delong"):
        raise ValueError(f"covariance must be 'jackknife' or 'delong', got {covariance!r}")
    if covariance == "delong" and fom != "auc":
        raise ValueError("covariance: 'delong' is the covariance of the AUC only (fom='auc')")
    n_pos = truth.sum(-1)
    if (n_pos == 0).any() or (n_pos == truth.shape[-1]).any():
        raise ValueError("truth: the cases are all of one class (need positives and negatives)")
    n_neg = truth.shape[-1] - n_pos
    if fom in ("sensitivity", "specificity", "auc") and ((n_pos < 2).any() or (n_neg < 2).any()):
        raise ValueError(f"truth: fom={fom!r} needs at least 2 positives and 2 negatives (its "
                         f"variance leaves one case out), got {int(n_pos.min())} positives and "
                         f"{int((truth.shape[-1] - n_pos).min())} negatives")
    scores = study.scores
    if fom in ("sensitivity", "specificity", "accuracy"):
        if threshold is not None:
            try:
                cut = float(threshold)
            except (TypeError, ValueError):
                cut = float("nan")
            if isinstance(threshold, (bool, np.bool_)) or not np.isfinite(cut):
                raise ValueError(f"threshold must be a finite number (a rating >= threshold is a "
                                 f"positive decision), got {threshold!r}")
            scores = (scores >= cut).astype(float)
        elif not np.isin(scores, (0.0, 1.0)).all():
            raise ValueError(f"threshold: fom={fom!r} needs 0/1 decisions or a threshold "
                             "(a rating >= threshold is a positive decision)")
    elif threshold is not None:
        raise ValueError(f"threshold: it applies to sensitivity, specificity and accuracy, not "
                         f"fom={fom!r} (leave it out)")
    return scores


def truth_probabilities(truth_model, cases) -> np.ndarray:
    """P(truth = 1) per case from a fitted rater model (``.truth``) or a Series."""
    post = getattr(truth_model, "truth", truth_model)
    if isinstance(post, pd.DataFrame):
        cols = [c for c in post.columns if str(c) in ("1", "1.0", "True")]
        if len(cols) != 1:
            raise ValueError("truth_model: its truth table needs one column for the label 1")
        post = post[cols[0]]
    if not isinstance(post, pd.Series):
        raise ValueError("truth_model must be a fitted rater model (fit_raters) "
                         "or a Series case -> P(truth = 1)")
    post = post.copy()
    post.index = post.index.astype(str)
    p = post.reindex(cases)
    if p.isna().any():
        raise ValueError(f"truth_model: case {p.index[p.isna()][0]!r} has no posterior")
    p = p.to_numpy(float)
    if ((p < 0) | (p > 1)).any():
        raise ValueError("truth_model: posteriors must be in [0, 1]")
    can_pos, can_neg = np.flatnonzero(p > 0), np.flatnonzero(p < 1)
    if not len(can_pos) or not len(can_neg) or (
            len(can_pos) == 1 and len(can_neg) == 1 and can_pos[0] == can_neg[0]):
        raise ValueError("truth_model: the posteriors cannot give both classes (every case "
                         "P(truth = 1) = 0, or every case 1): no truth drawn from them has "
                         "positives and negatives")
    return p


def draw_truths(post: np.ndarray, n_draws: int, rng) -> np.ndarray:
    """``n_draws`` truths of the cases, Bernoulli with each case's posterior.

    Each draw has both classes (a one-class draw is drawn again).
    """
    c = post.shape[0]
    y = rng.random((n_draws, c)) < post
    for m in np.flatnonzero(y.all(1) | ~y.any(1)):
        for _ in range(MAX_REDRAWS):
            y[m] = rng.random(c) < post
            if y[m].any() and not y[m].all():
                break
        else:
            raise ValueError(f"truth_model: {MAX_REDRAWS:,} truths drawn from the posteriors in "
                             "a row were all of one class; the posteriors are too close to 0 "
                             "or 1 to draw truths with both classes")
    return y


#: one-class draws redrawn before :func:`draw_truths` gives up
MAX_REDRAWS = 10_000
