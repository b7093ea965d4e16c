r"""Agreement-stratified evaluation of real results (the paper's Tables 3-6).

:func:`stratify` bins the items by the observed agreement of the ground-truth
panel, :math:`p_d = \text{(votes for the majority label)} / K`, and reports per
bin the sample size ``S``, the positive ratio ``m``, each system's score, the
independent human group ``H`` (mean and sd over humans), the expected score
``E`` of a :math:`p_d`-following labeller (:mod:`labelvar.analytic`) and the
gaps :math:`\Delta_{H-X}`, :math:`\Delta_{E-X}`, plus a Wilson or bootstrap
interval and the probability that a random labeller scores at least as well.

:func:`bin_tests` compares the distribution of a gap (over systems and tasks)
between two bins (Welch's t-test and Levene's test, Figure 3) and
:func:`paired_test` compares two systems across tasks x bins (Figure 4).
:func:`paper_table` lays the tidy result out as the paper's Table 3.

Simulated humans
----------------
Without independent humans, ``simulated_human=D`` adds the paper's H' (Table 4):
for every item one of the panel's own votes is picked at random and compared
with the panel's majority; D draws, averaged (``sd`` over draws). Because the
picked vote is part of the majority it is compared with, H' matches E by
construction (expected accuracy exactly :math:`p_d`). ``leave_one_out=True``
adds ``H'-loo``: the picked vote is removed and compared with the majority of
the *remaining* K-1 votes, i.e. a rater scored against a panel it is not part
of. That is what an independent rater drawn from the same population would
score against a (K-1)-panel, and it is much lower at low agreement (K = 5,
3-2 split: the majority voter meets a 2-2 tie, the minority voter a 3-1
majority against it: expected accuracy 0.3, not 0.6).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from labelvar import _validate as v
from labelvar._callable import make_module_callable

__all__ = [
    "ExcludedItemsWarning",
    "bin_tests",
    "paired_test",
    "paper_table",
    "stratify",
]

#: columns of the tidy table returned by :func:`stratify`, in order
COLUMNS = (
    "task", "system", "role", "stratum", "p_d", "S", "m", "n_labels", "metric", "score", "sd",
    "ci_low", "ci_high", "expected", "delta_expected", "delta_human", "p_random",
    "p_random_prior",
)

_METRICS = ("accuracy", "f1")
_TIES = ("random", "first", "drop")
_MISSING_STR = {"", "nan", "none", "null", "na", "n/a"}


class ExcludedItemsWarning(UserWarning):
    """Items were excluded (fewer than 2 panel votes, ties with ``ties='drop'``, no prediction)."""


# --------------------------------------------------------------------------- label handling
def _canon(x):
    """Canonical label: None for missing; integral numbers as int; strings stripped."""
    if x is None:
        return None
    if isinstance(x, (bool, np.bool_)):
        return int(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        if np.isnan(x):
            return None
        return int(x) if float(x).is_integer() else float(x)
    s = str(x).strip()
    if s.lower() in _MISSING_STR:
        return None
    try:  # "1" and 1 are one label (CSV cells, command-line values)
        f = float(s)
    except ValueError:
        return s
    if not np.isfinite(f):
        return s
    return int(f) if f.is_integer() else f


def _canon_array(values) -> np.ndarray:
    arr = np.asarray(values, dtype=object).ravel()
    return np.array([_canon(x) for x in arr], dtype=object)


def _sort_key(x):
    return (0, x, "") if isinstance(x, (int, float)) else (1, 0, str(x))


def _match_label(value, labels: list, field: str):
    """Find ``value`` among ``labels`` (exact, or by its text, so ``"1"`` finds ``1``)."""
    c = _canon(value)
    if c in labels:
        return c
    for lab in labels:
        if str(lab) == str(value).strip():
            return lab
    raise ValueError(f"{field} {value!r} is not in the label set "
                     f"{{{', '.join(map(repr, labels))}}}")


@dataclass
class _Task:
    name: str
    labels: list
    codes: np.ndarray        # items x panel, -1 missing
    counts: np.ndarray       # items x L
    k: np.ndarray            # votes per item
    majority: np.ndarray     # code per item
    p_d: np.ndarray
    preds: dict              # name -> codes per item (kept items)
    positive: int | None     # code of the positive label (binary F1), None -> macro-F1
    excluded: dict


def _as_panel(panel) -> pd.DataFrame:
    if isinstance(panel, pd.DataFrame):
        return panel
    arr = np.asarray(panel, dtype=object)
    if arr.ndim != 2:
        raise ValueError(f"panel must be a 2-d table (items x annotators), got shape {arr.shape}")
    return pd.DataFrame(arr, columns=[f"a{j + 1}" for j in range(arr.shape[1])])


def _as_predictions(predictions, n_items: int) -> dict:
    if predictions is None:
        return {}
    if isinstance(predictions, pd.DataFrame):
        items = {str(c): predictions[c].to_numpy() for c in predictions.columns}
    elif isinstance(predictions, Mapping):
        items = {str(k): val for k, val in predictions.items()}
    else:
        raise ValueError("predictions must be a mapping system -> labels or a DataFrame, "
                         f"got {type(predictions).__name__}")
    out = {}
    for name, vals in items.items():
        arr = np.asarray(vals, dtype=object).ravel() if not isinstance(vals, pd.Series) \
            else vals.to_numpy(dtype=object)
        if arr.shape[0] != n_items:
            raise ValueError(f"predictions[{name!r}] has {arr.shape[0]} labels but the panel "
                             f"has {n_items} items; give one label per item, in panel order")
        out[name] = arr
    return out


def _prepare(task: str, panel, predictions, *, labels, positive, ties, missing,
             rng) -> _Task:
    pdf = _as_panel(panel)
    n_items, n_cols = pdf.shape
    if n_items == 0:
        raise ValueError(f"panel of task {task!r} has no items")
    if n_cols < 2:
        raise ValueError(f"panel of task {task!r} must have at least 2 annotators "
                         f"(p_d is undefined for a single vote), got {n_cols} column")
    if isinstance(predictions, pd.DataFrame) and isinstance(panel, pd.DataFrame) \
            and not predictions.index.equals(pdf.index):
        if len(predictions.index) == n_items and set(predictions.index) == set(pdf.index):
            predictions = predictions.reindex(pdf.index)
        elif not (isinstance(predictions.index, pd.RangeIndex)
                  or isinstance(pdf.index, pd.RangeIndex)):
            miss = [i for i in pdf.index if i not in set(predictions.index)][:1]
            raise ValueError(f"predictions of task {task!r}: index does not match the panel's "
                             f"item ids (e.g. {miss[0] if miss else predictions.index[0]!r})")
    preds = _as_predictions(predictions, n_items)
    votes = _canon_array(pdf.to_numpy(dtype=object)).reshape(n_items, n_cols)
    present = np.array([x is not None for x in votes.ravel()]).reshape(votes.shape)
    seen = {x for x in votes.ravel() if x is not None}
    if labels is not None:
        lab = [_canon(x) for x in labels]
        if len(set(lab)) != len(lab) or any(x is None for x in lab):
            raise ValueError(f"labels must be distinct non-missing values, got {list(labels)!r}")
        bad = sorted((x for x in seen if x not in lab), key=_sort_key)
        if bad:
            raise ValueError(f"panel of task {task!r} has labels outside the label set "
                             f"{{{', '.join(map(repr, lab))}}}: {', '.join(map(repr, bad[:5]))}")
    else:
        if seen and seen <= {0, 1}:
            lab = [0, 1]
        else:
            lab = sorted(seen, key=_sort_key)
    if len(lab) < 2:
        raise ValueError(f"task {task!r}: need at least 2 labels, the panel only uses "
                         f"{lab!r}; give the label set (labels=...)")
    index = {x: i for i, x in enumerate(lab)}
    codes = np.full(votes.shape, -1, dtype=np.int64)
    codes[present] = [index[x] for x in votes[present]]
    L = len(lab)
    counts = np.zeros((n_items, L), dtype=np.int64)
    for j in range(n_cols):
        ok = codes[:, j] >= 0
        counts[np.flatnonzero(ok), codes[ok, j]] += 1
    k = counts.sum(axis=1)
    pcodes = {}
    for name, arr in preds.items():
        vals = _canon_array(arr)
        bad = [x for x in vals if x is not None and x not in index]
        if bad:
            uniq = list(dict.fromkeys(bad))
            hint = "" if labels is not None else " (inferred from the panel; give labels=...)"
            raise ValueError(f"predictions[{name!r}] (task {task!r}) has labels outside the "
                             f"label set {{{', '.join(map(repr, lab))}}}{hint}: "
                             f"{', '.join(map(repr, uniq[:5]))}")
        pcodes[name] = np.array([index[x] if x is not None else -1 for x in vals], dtype=np.int64)

    # positive label
    pos_code = None
    if positive is not None:
        p = _match_label(positive, lab, "positive")
        pos_code = index[p]
        used = (counts[:, pos_code].sum() > 0) or any((c == pos_code).any()
                                                      for c in pcodes.values())
        if not used:
            raise ValueError(f"positive label {p!r} never occurs in task {task!r} "
                             "(neither in the panel nor in the predictions)")
    elif L == 2:
        if lab == [0, 1]:
            pos_code = 1
        else:
            raise ValueError(f"task {task!r} is binary with labels {lab!r}: say which is the "
                             "positive class (positive=..., --positive)")

    # majority with ties
    top = counts.max(axis=1)
    is_top = counts == top[:, None]
    n_top = is_top.sum(axis=1)
    tied = (n_top > 1) & (k > 0)
    majority = np.argmax(is_top, axis=1)  # first (label order) among the tied
    if ties == "random" and tied.any():
        u = rng.random(n_items)
        pick = np.floor(u * n_top).astype(np.int64)
        cum = np.cumsum(is_top, axis=1)
        majority = np.where(tied, np.argmax(cum > pick[:, None], axis=1), majority)
    keep = k >= 2
    excluded = {"no_votes": int((k == 0).sum()), "one_vote": int((k == 1).sum()), "tied": 0}
    if ties == "drop":
        excluded["tied"] = int((tied & keep).sum())
        keep &= ~tied
    excluded["no_prediction"] = 0
    if missing == "drop" and pcodes:
        lacking = keep & np.any(np.stack([c < 0 for c in pcodes.values()]), axis=0)
        excluded["no_prediction"] = int(lacking.sum())
        keep &= ~lacking
    for name, c in pcodes.items():
        miss = int((c[keep] < 0).sum())
        if miss:
            first = pdf.index[np.flatnonzero(keep & (c < 0))[0]]
            raise ValueError(f"predictions[{name!r}] (task {task!r}) is missing for {miss} "
                             f"item(s), e.g. item {first!r}; every evaluated item needs a "
                             "label (or exclude them: missing='drop')")
    if not keep.any():
        raise ValueError(f"task {task!r}: no item left to evaluate (excluded: {excluded})")
    return _Task(
        name=task, labels=lab, codes=codes[keep], counts=counts[keep], k=k[keep],
        majority=majority[keep], p_d=top[keep] / k[keep],
        preds={n: c[keep] for n, c in pcodes.items()}, positive=pos_code, excluded=excluded,
    )


# --------------------------------------------------------------------------- scores
def _f1_counts(truth_pos: np.ndarray, pred_pos: np.ndarray, axis=-1):
    tp = np.sum(truth_pos & pred_pos, axis=axis)
    fp = np.sum(~truth_pos & pred_pos, axis=axis)
    fn = np.sum(truth_pos & ~pred_pos, axis=axis)
    return tp, fp, fn


def _f1(truth: np.ndarray, pred: np.ndarray, positive: int | None, n_labels: int, axis=-1):
    """Binary F1 of ``positive`` (0 when 0/0) or macro-F1 over the labels present."""
    if positive is not None:
        tp, fp, fn = _f1_counts(truth == positive, pred == positive, axis)
        den = 2 * tp + fp + fn
        return np.where(den > 0, 2 * tp / np.maximum(den, 1), 0.0)
    scores, present = [], []
    for c in range(n_labels):
        tp, fp, fn = _f1_counts(truth == c, pred == c, axis)
        den = 2 * tp + fp + fn
        scores.append(np.where(den > 0, 2 * tp / np.maximum(den, 1), 0.0))
        present.append(den > 0)
    s, p = np.stack(scores), np.stack(present)
    return np.sum(s * p, axis=0) / np.maximum(np.sum(p, axis=0), 1)


def _score(metric: str, truth, pred, positive, n_labels):
    if metric == "accuracy":
        return float(np.mean(truth == pred))
    return float(_f1(truth, pred, positive, n_labels))


def _bootstrap_f1(truth, pred, positive, n_labels, n_boot, confidence, rng):
    """Percentile bootstrap over items for F1 (seeded numpy resampling)."""
    n = truth.size
    if n_boot <= 0:
        return np.nan, np.nan
    lo_q, hi_q = (1 - confidence) / 2, (1 + confidence) / 2
    vals = np.empty(n_boot)
    chunk = max(1, 2_000_000 // max(n, 1))
    for start in range(0, n_boot, chunk):
        stop = min(n_boot, start + chunk)
        idx = rng.integers(0, n, size=(stop - start, n))
        vals[start:stop] = _f1(truth[idx], pred[idx], positive, n_labels, axis=-1)
    return float(np.quantile(vals, lo_q)), float(np.quantile(vals, hi_q))


def _bootstrap_panel(t: _Task, idx, pred, metric, n_boot, confidence, rng, ties):
    """Percentile bootstrap over items *and* over each item's panel votes.

    A replicate resamples the bin's items and, for every drawn item, redraws its K
    votes with replacement from its own votes, recomputes the majority (ties at
    random, or the first label with ``ties="first"``) and scores ``pred`` against it.
    """
    if n_boot <= 0:
        return np.nan, np.nan
    n, L = idx.size, len(t.labels)
    order = np.argsort(t.codes < 0, axis=1, kind="stable")
    compact = np.take_along_axis(t.codes, order, axis=1)[idx]
    kk = t.k[idx]
    kmax = int(kk.max())
    compact = compact[:, :kmax]
    labels = np.arange(L)
    vals = np.empty(n_boot)
    chunk = max(1, 4_000_000 // max(n * kmax * L, 1))
    for start in range(0, n_boot, chunk):
        b = min(n_boot, start + chunk) - start
        items = rng.integers(0, n, size=(b, n))
        ki = kk[items]
        j = np.floor(rng.random((b, n, kmax)) * ki[..., None]).astype(np.int64)
        votes = np.take_along_axis(compact[items], j, axis=2)
        valid = np.arange(kmax) < ki[..., None]
        counts = ((votes[..., None] == labels) & valid[..., None]).sum(axis=2)
        if ties == "first":
            maj = counts.argmax(axis=-1)
        else:  # uniform noise < 1 only reorders equal (integer) counts
            maj = (counts + 0.5 * rng.random(counts.shape)).argmax(axis=-1)
        p = pred[items]
        if metric == "accuracy":
            vals[start:start + b] = np.mean(maj == p, axis=1)
        else:
            vals[start:start + b] = _f1(maj, p, t.positive, L, axis=-1)
    lo_q, hi_q = (1 - confidence) / 2, (1 + confidence) / 2
    return float(np.quantile(vals, lo_q)), float(np.quantile(vals, hi_q))


def _wilson(k: int, n: int, confidence: float):
    from scipy import stats

    ci = stats.binomtest(int(k), int(n)).proportion_ci(confidence_level=confidence,
                                                       method="wilson")
    return float(ci.low), float(ci.high)


def _prior_matched_sf(class_counts: np.ndarray, k: int) -> float:
    r"""P(X >= k) for a labeller guessing class c with probability n_c / n.

    On the items of class c it is right with probability :math:`\pi_c = n_c / n`, so
    X is a sum of independent :math:`\mathrm{Bin}(n_c, \pi_c)` -- a Poisson-binomial
    with only L distinct probabilities. The smaller classes' pmfs are convolved and
    combined with the largest class's exact ``binom.sf``: O(n) scipy calls instead of
    the O(n^2) general Poisson-binomial (which is what
    :func:`labelvar.analytic.prob_correct_at_least_heterogeneous` computes; equal, tested).
    """
    from scipy import signal, stats

    n = int(class_counts.sum())
    counts = [int(c) for c in class_counts if c > 0]
    counts.sort()
    big = counts.pop()
    pmf = np.array([1.0])
    for c in counts:
        pc = stats.binom.pmf(np.arange(c + 1), c, c / n)
        if pmf.size * pc.size > 5e7:  # large multi-class data: FFT (absolute error ~1e-16)
            pmf = np.clip(signal.fftconvolve(pmf, pc), 0.0, None)
        else:
            pmf = np.convolve(pmf, pc)
    j = np.arange(pmf.size)
    return float(min(1.0, np.dot(pmf, stats.binom.sf(k - j - 1, big, big / n))))


def _support(n: int, r: float) -> int:
    """Rough size of Bin(n, r)'s support with non-negligible mass (about +-9 sd)."""
    return min(n + 1, int(2 * (9 * np.sqrt(n * r * (1 - r)) + 10)))


def _p_random(metric, score, truth, positive, n_labels, exact_limit):
    """P(random labeller >= score): (1/L coin, prior-matched) on these items."""
    from labelvar import analytic

    n = truth.size
    if not np.isfinite(score):
        return np.nan, np.nan
    if metric == "accuracy":
        k = int(round(score * n))
        p1 = float(analytic.prob_random_accuracy_at_least(n_labels, n, k / n))
        p2 = _prior_matched_sf(np.bincount(truth, minlength=n_labels), k)
        return p1, p2
    if positive is None:
        return np.nan, np.nan  # no closed form for macro-F1 of a random labeller
    n_pos = int((truth == positive).sum())
    n_neg = n - n_pos
    out = []
    for r in (1.0 / n_labels, n_pos / n):
        if _support(n_pos, r) * _support(n_neg, r) > exact_limit:
            out.append(np.nan)
            continue
        d = analytic.exact_binary_metrics(n_pos, n_neg, sensitivity=r, specificity=1 - r)
        out.append(float(d.f1.sf(score)))
    return tuple(out)


# --------------------------------------------------------------------------- simulated humans
def _simulated(t: _Task, n_draws: int, rng, loo: bool, ties: str):
    """Draw H' votes; return picked votes and reference labels (each draws x items)."""
    n = t.codes.shape[0]
    order = np.argsort(t.codes < 0, axis=1, kind="stable")
    compact = np.take_along_axis(t.codes, order, axis=1)  # valid votes first
    picks = np.empty((n_draws, n), dtype=np.int64)
    refs = np.empty((n_draws, n), dtype=np.int64)
    rows = np.arange(n)
    for d in range(n_draws):
        j = np.floor(rng.random(n) * t.k).astype(np.int64)
        pick = compact[rows, j]
        picks[d] = pick
        if not loo:
            refs[d] = t.majority
            continue
        rest = t.counts.copy()
        rest[rows, pick] -= 1
        top = rest.max(axis=1)
        is_top = rest == top[:, None]
        n_top = is_top.sum(axis=1)
        u = np.floor(rng.random(n) * n_top).astype(np.int64)
        cum = np.cumsum(is_top, axis=1)
        first = np.argmax(is_top, axis=1)
        refs[d] = first if ties == "first" else np.argmax(cum > u[:, None], axis=1)
    return picks, refs


# --------------------------------------------------------------------------- bins
def _strata(p_d: np.ndarray, bins) -> tuple[np.ndarray, list[str]]:
    """Stratum index per item and the labels (sorted by agreement)."""
    if bins is None:
        vals = np.round(p_d, 9)
        uniq = np.unique(vals)
        return np.searchsorted(uniq, vals), [f"{u:.2f}" for u in uniq]
    edges = v.probability("bins", bins)
    if edges.ndim != 1 or edges.size < 2 or np.any(np.diff(edges) <= 0):
        raise ValueError(f"bins must be at least 2 increasing edges in [0, 1], got {list(edges)}")
    lo, hi = p_d.min(), p_d.max()
    if lo < edges[0] - 1e-12 or hi > edges[-1] + 1e-12:
        raise ValueError(f"bins [{edges[0]:g}, {edges[-1]:g}] do not cover the observed p_d "
                         f"range [{lo:.3f}, {hi:.3f}]; no item may be left out")
    idx = np.clip(np.searchsorted(edges, p_d + 1e-12, side="right") - 1, 0, edges.size - 2)
    labels = [f"[{a:.2f}, {b:.2f}{']' if i == edges.size - 2 else ')'}"
              for i, (a, b) in enumerate(zip(edges[:-1], edges[1:], strict=True))]
    used = np.unique(idx)
    remap = np.full(edges.size - 1, -1)
    remap[used] = np.arange(used.size)
    return remap[idx], [labels[i] for i in used]


# --------------------------------------------------------------------------- public API
def stratify(panel, predictions=None, *, humans: Sequence[str] = (), positive=None,
             labels: Sequence | None = None, bins: Sequence[float] | None = None,
             metrics: Sequence[str] = _METRICS, simulated_human: int = 0,
             leave_one_out: bool = False, p_d_one: float | None = None,
             human_round: int | None = None, ties: str = "random",
             missing: str = "error", confidence: float = 0.95, n_boot: int = 1000,
             boot_raters: bool = False,
             seed: int | np.random.Generator | None = 0, task: str = "task",
             exact_limit: int = 4_000_000) -> pd.DataFrame:
    r"""Score systems and humans per bin of ground-truth agreement :math:`p_d`.

    Parameters
    ----------
    panel : array_like, DataFrame, or mapping of task to ``(panel, predictions)``
        Items x annotators votes of the ground-truth panel; missing votes as
        NaN/None (panels may differ in size per item). A mapping (as returned by
        the :mod:`labelvar.io` loaders) evaluates several tasks at once; then
        ``predictions`` must be None.
    predictions : mapping of str to array_like, or DataFrame, optional
        One label per item for every evaluated rater (systems and the humans
        named in ``humans``), aligned with the panel's rows.
    humans : sequence of str
        Names in ``predictions`` forming the independent human group H.
    positive : label, optional
        Positive class for F1 (binary; for multi-class, F1 of that class
        one-vs-rest). Default: 1 for 0/1 labels; macro-F1 for more than 2 labels.
        ``expected`` F1 (the coin model's closed form) is given for binary labels
        only; it is NaN for macro-F1 and for one-vs-rest F1 with more than 2 labels,
        where it would depend on how disagreements spread over the other labels.
    labels : sequence, optional
        The label set (default: inferred from the panel; {0, 1} if only 0/1 occur).
    bins : sequence of float, optional
        Bin edges on :math:`p_d` (e.g. ``[0.5, 0.7, 0.9, 1.0]``); default one bin
        per observed value (0.60, 0.80, 1.00 for 5 votes).
    metrics : sequence of {"accuracy", "f1"}
        Metrics to report.
    simulated_human : int
        Number of H' draws (the paper uses 5); 0 for none. See the module notes.
    leave_one_out : bool
        Also report ``H'-loo`` (the drawn vote removed from the majority it is compared with).
    p_d_one : float, optional
        Value of :math:`p_d` used for ``expected`` where the observed :math:`p_d`
        is 1 (the paper's Table 3 uses 0.97: unanimity of 5 raters does not mean a
        true agreement of exactly 1). Default None: the observed value.
    human_round : int, optional
        Round each human's score to this many decimals before taking the H mean
        and sd. The paper's Table 3 does this with 2 decimals (its H column is
        reproduced to the printed digit only that way); default None: exact scores.
    ties : {"random", "first", "drop"}
        Majority label when several labels share the top count: one of them at
        random (seeded; default), the first in label order, or drop the item
        (counted in ``table.attrs["excluded"]``).
    missing : {"error", "drop"}
        An evaluated item without a prediction from some system is an error
        (default), or is excluded from every system's scores (counted).
    confidence : float
        Confidence level of the intervals (Wilson for accuracy, percentile
        bootstrap over items with ``n_boot`` resamples for F1).
    n_boot : int
        Bootstrap resamples for F1 intervals (0 to skip).
    boot_raters : bool
        Bootstrap over raters too: every interval (accuracy and F1) becomes a
        percentile bootstrap whose replicates resample the bin's items and redraw
        each item's panel votes from its own votes (with replacement), recomputing
        the majority label. It adds the uncertainty of the ground truth itself.
        The bins stay those of the observed p_d.
    seed : int, Generator or None
        Seed for ties, H' draws and bootstrap (each its own spawned stream).
    task : str
        Task name when ``panel`` is a single table.
    exact_limit : int
        Largest (approximate) size of the joint TP x FP support for which the random
        labeller's exact F1 tail is computed (NaN above; about 10^5 items per bin
        fit the default).

    Returns
    -------
    pandas.DataFrame
        Tidy: one row per task x rater x stratum x metric with the columns
        ``task, system, role, stratum, p_d, S, m, n_labels, metric, score, sd,
        ci_low, ci_high, expected, delta_expected, delta_human, p_random,
        p_random_prior``. ``role`` is ``system``, ``human`` (each human), ``H``
        (mean over humans, ``sd`` across them, ddof=1), ``H'`` or ``H'-loo``.
        ``stratum`` is ``"0.60"``-style (or ``"[0.50, 0.70)"`` for user bins)
        or ``"all"`` (``p_d`` NaN there). ``expected`` is the closed form at the
        bin's (p_d, m) and, for ``all``, :func:`labelvar.analytic.stratified_expectation`
        over the bins. ``delta_expected = expected - score`` (on the H row: Δ(E−H));
        ``delta_human = H - score`` (H' when there are no humans). ``p_random``
        and ``p_random_prior`` are the probabilities that a labeller guessing
        uniformly (1/L) or with the bin's label frequencies scores at least
        ``score`` on the bin's items. ``table.attrs["excluded"]`` counts the
        excluded items per task.

    Raises
    ------
    ValueError
        Misaligned predictions, labels outside the label set, a positive label
        that never occurs, a 1-column panel, bins not covering the data, ...

    Warns
    -----
    ExcludedItemsWarning
        When items with fewer than 2 votes (or ties, with ``ties="drop"``) are excluded.

    Examples
    --------
    >>> panel = [[1, 1, 1], [1, 1, 0], [0, 0, 0], [0, 1, 0], [1, 1, 1], [0, 0, 0]]
    >>> preds = {"model": [1, 0, 0, 0, 1, 1], "dr": [1, 1, 0, 1, 1, 0]}
    >>> t = stratify(panel, preds, humans=["dr"], metrics=["accuracy"], n_boot=0)
    >>> print(t[t.role != "human"][["system", "stratum", "S", "score", "expected"]]
    ...       .round(3).to_string(index=False))
    system stratum  S  score  expected
     model    0.67  2  0.500     0.667
         H    0.67  2  0.500     0.667
     model    1.00  4  0.750     1.000
         H    1.00  4  1.000     1.000
     model     all  6  0.667     0.889
         H     all  6  0.833     0.889
    """
    v.choice("ties", ties, _TIES)
    v.choice("missing", missing, ("error", "drop"))
    for mtr in metrics:
        v.choice("metrics", mtr, _METRICS)
    if not metrics:
        raise ValueError("metrics must name at least one of 'accuracy', 'f1'")
    confidence = float(v.probability("confidence", confidence, open_lo=True, open_hi=True))
    n_boot = int(v.integer("n_boot", n_boot, lo=0))
    n_draws = int(v.integer("simulated_human", simulated_human, lo=0))
    if leave_one_out and n_draws == 0:
        n_draws = 5
    if p_d_one is not None:
        p_d_one = float(v.probability("p_d_one", p_d_one))
    if human_round is not None:
        human_round = int(v.integer("human_round", human_round, lo=0))
    if isinstance(panel, Mapping):
        if predictions is not None:
            raise ValueError("predictions must be None when panel is a mapping of tasks")
        tasks = [(str(name), td[0], td[1]) for name, td in panel.items()]
        if not tasks:
            raise ValueError("panel: the mapping of tasks is empty")
    else:
        tasks = [(str(task), panel, predictions)]
    humans = list(humans)
    ss = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    frames, excluded = [], {}
    for name, pan, pred in tasks:
        task_rngs = ss.spawn(4)
        t = _prepare(name, pan, pred, labels=labels, positive=positive, ties=ties,
                     missing=missing, rng=task_rngs[0])
        missing = [h for h in humans if h not in t.preds]
        if missing:
            raise ValueError(f"humans: {missing[0]!r} is not among the predictions of task "
                             f"{name!r} ({', '.join(map(repr, t.preds)) or 'none'})")
        excluded[name] = t.excluded
        frames.append(_task_table(t, humans, bins, metrics, n_draws, leave_one_out, p_d_one,
                                  human_round, ties, confidence, n_boot, boot_raters,
                                  task_rngs[1:], exact_limit))
    bad = {k: e for k, e in excluded.items() if any(e.values())}
    if bad:
        msg = "; ".join(f"{k}: {e['no_votes']} with no votes, {e['one_vote']} with one vote"
                        + (f", {e['tied']} tied" if e["tied"] else "")
                        + (f", {e['no_prediction']} without a prediction"
                           if e["no_prediction"] else "") for k, e in bad.items())
        warnings.warn(f"excluded items ({msg})", ExcludedItemsWarning, stacklevel=2)
    out = pd.concat(frames, ignore_index=True)
    out.attrs["excluded"] = excluded
    return out


def _task_table(t: _Task, humans, bins, metrics, n_draws, loo, p_d_one, human_round, ties,
                confidence, n_boot, boot_raters, rngs, exact_limit) -> pd.DataFrame:
    from labelvar import analytic

    L = len(t.labels)
    binary = t.positive is not None
    # the coin model's F1 assumes every disagreement lands on the other class: binary only
    f1_closed = binary and L == 2
    stratum, names = _strata(t.p_d, bins)
    n_strata = len(names)
    groups = [np.flatnonzero(stratum == s) for s in range(n_strata)]
    all_idx = np.arange(t.p_d.size)
    sim_rng, loo_rng, boot_rng = rngs
    sim = {}
    if n_draws:
        sim["H'"] = _simulated(t, n_draws, sim_rng, loo=False, ties=ties)
        if loo:
            sim["H'-loo"] = _simulated(t, n_draws, loo_rng, loo=True, ties=ties)

    # bin-level quantities
    info = []
    for s, idx in enumerate(groups):
        p = float(t.p_d[idx].mean())
        m = float(np.mean(t.majority[idx] == t.positive)) if binary else np.nan
        p_eff = p_d_one if (p_d_one is not None and p >= 1 - 1e-12) else p
        info.append((names[s], idx, p, m, p_eff))
    n_k = np.array([len(i[1]) for i in info])
    m_k = np.array([i[3] for i in info])
    pe_k = np.array([i[4] for i in info])
    strat = analytic.stratified_expectation(pe_k, m_k if binary else np.zeros(n_strata), n_k)
    m_all = float(np.mean(t.majority == t.positive)) if binary else np.nan
    info.append(("all", all_idx, np.nan, m_all, np.nan))

    def expected(metric, row):
        name, _, _, m, p_eff = row
        if name == "all":
            if metric == "accuracy":
                return strat.accuracy
            return strat.f1 if f1_closed else np.nan
        if metric == "accuracy":
            return float(analytic.expected_accuracy(p_eff))
        return float(analytic.expected_f1(p_eff, m)) if f1_closed else np.nan

    rows = []
    raters = [(n, "human" if n in humans else "system") for n in t.preds]
    for row in info:
        name, idx, p, m, _ = row
        truth = t.majority[idx]
        for metric in metrics:
            e = expected(metric, row)
            base = dict(task=t.name, stratum=name, p_d=p, S=idx.size, m=m, n_labels=L,
                        metric=metric, expected=e)
            rater_rows = []
            for rname, role in raters:
                pred = t.preds[rname][idx]
                sc = _score(metric, truth, pred, t.positive, L)
                if boot_raters:
                    lo, hi = _bootstrap_panel(t, idx, pred, metric, n_boot, confidence,
                                              boot_rng, ties)
                elif metric == "accuracy":
                    lo, hi = _wilson(int(np.sum(truth == pred)), idx.size, confidence)
                else:
                    lo, hi = _bootstrap_f1(truth, pred, t.positive, L, n_boot, confidence,
                                           boot_rng)
                pr = _p_random(metric, sc, truth, t.positive, L, exact_limit)
                rater_rows.append(dict(base, system=rname, role=role, score=sc, sd=np.nan,
                                       ci_low=lo, ci_high=hi, p_random=pr[0],
                                       p_random_prior=pr[1]))
            hs = [r["score"] for r in rater_rows if r["role"] == "human"]
            if human_round is not None:
                hs = [round(x, human_round) for x in hs]
            group_rows = []
            if hs:
                sc = float(np.mean(hs))
                sd = float(np.std(hs, ddof=1)) if len(hs) > 1 else np.nan
                pr = _p_random(metric, sc, truth, t.positive, L, exact_limit)
                group_rows.append(dict(base, system="H", role="H", score=sc, sd=sd,
                                       ci_low=np.nan, ci_high=np.nan, p_random=pr[0],
                                       p_random_prior=pr[1]))
            for sname, (picks, refs) in sim.items():
                draws = np.array([_score(metric, refs[d, idx], picks[d, idx], t.positive, L)
                                  for d in range(picks.shape[0])])
                sc = float(draws.mean())
                sd = float(draws.std(ddof=1)) if draws.size > 1 else np.nan
                group_rows.append(dict(base, system=sname, role=sname, score=sc, sd=sd,
                                       ci_low=np.nan, ci_high=np.nan, p_random=np.nan,
                                       p_random_prior=np.nan))
            if hs:
                ref = float(np.mean(hs))
            else:
                ref = next((r["score"] for r in group_rows if r["role"] == "H'"), np.nan)
            for r in rater_rows + group_rows:
                r["delta_expected"] = e - r["score"]
                r["delta_human"] = ref - r["score"]
            rows.extend(rater_rows + group_rows)
    out = pd.DataFrame(rows)
    # order: systems, humans, H, H', per stratum/metric as built; stable columns
    return out[list(COLUMNS)]


# --------------------------------------------------------------------------- tests between bins
def _stars(p: float) -> str:
    if not np.isfinite(p):
        return ""
    for cut, s in ((1e-4, "****"), (1e-3, "***"), (1e-2, "**"), (5e-2, "*")):
        if p <= cut:
            return s
    return "ns"


def bin_tests(table: pd.DataFrame, *, metric: str = "f1", value: str = "delta_human",
              a: str | None = None, b: str | None = None, role: str = "system",
              proportiontocut: float = 0.1) -> pd.DataFrame:
    r"""Welch's t-test and Levene's test between two bins of a column's distribution.

    The distribution is over the rows of ``role`` (systems x tasks), as in the
    paper's Figure 3 (:math:`\Delta_{H-M}` by bin).

    Parameters
    ----------
    table : DataFrame
        Output of :func:`stratify`.
    metric : str
        Metric to compare.
    value : str
        Column to compare (``delta_human``, ``score``, ``delta_expected``).
    a, b : str, optional
        Strata to compare (default: the lowest and highest agreement bin).
    role : str
        Rows to use (``system`` by default).
    proportiontocut : float
        Trimming of Levene's test (``center="trimmed"``), 0.1 as in the paper.

    Returns
    -------
    pandas.DataFrame
        One row: ``metric, value, stratum_a, stratum_b, n_a, n_b, mean_a, mean_b,
        sd_a, sd_b, welch_t, welch_p, welch_stars, levene_stat, levene_p, levene_stars,
        note`` (scipy's warning, e.g. on nearly identical values, instead of a warning).

    Examples
    --------
    >>> t = pd.DataFrame({"role": "system", "metric": "f1",
    ...                   "stratum": ["0.60"] * 4 + ["1.00"] * 4,
    ...                   "delta_human": [0.0, 0.02, -0.01, 0.01, 0.3, 0.1, 0.25, 0.4]})
    >>> r = bin_tests(t).iloc[0]
    >>> r.stratum_a, r.stratum_b, round(float(r.welch_p), 4)
    ('0.60', '1.00', 0.0252)
    """
    from scipy import stats

    sub = table[(table["role"] == role) & (table["metric"] == metric)]
    if value not in table.columns:
        raise ValueError(f"value must be a column of the table, got {value!r}")
    strata = [s for s in dict.fromkeys(sub["stratum"]) if s != "all"]
    if len(strata) < 2 and (a is None or b is None):
        raise ValueError(f"need at least 2 bins to compare, got {strata!r}")
    a = strata[0] if a is None else a
    b = strata[-1] if b is None else b
    for s in (a, b):
        if s not in set(sub["stratum"]):
            raise ValueError(f"stratum {s!r} not in the table; strata: {', '.join(strata)}")
    xa = sub.loc[sub["stratum"] == a, value].dropna().to_numpy(float)
    xb = sub.loc[sub["stratum"] == b, value].dropna().to_numpy(float)
    if xa.size < 2 or xb.size < 2:
        raise ValueError(f"need at least 2 values per bin, got {xa.size} and {xb.size}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        w = stats.ttest_ind(xa, xb, equal_var=False)
        lev = stats.levene(xa, xb, center="trimmed", proportiontocut=proportiontocut)
    note = "; ".join(dict.fromkeys(str(c.message).split(".")[0] for c in caught))
    return pd.DataFrame([dict(
        metric=metric, value=value, stratum_a=a, stratum_b=b, n_a=xa.size, n_b=xb.size,
        mean_a=xa.mean(), mean_b=xb.mean(), sd_a=xa.std(ddof=1), sd_b=xb.std(ddof=1),
        welch_t=float(w.statistic), welch_p=float(w.pvalue), welch_stars=_stars(w.pvalue),
        levene_stat=float(lev.statistic), levene_p=float(lev.pvalue),
        levene_stars=_stars(lev.pvalue), note=note,
    )])


def paired_test(table: pd.DataFrame, system_a: str, system_b: str, *, metric: str = "f1"
                ) -> pd.DataFrame:
    r"""Paired t-test of two systems' scores across tasks, per bin and pooled (Figure 4).

    Parameters
    ----------
    table : DataFrame
        Output of :func:`stratify`.
    system_a, system_b : str
        The systems compared; differences are ``a - b``.
    metric : str
        Metric to compare.

    Returns
    -------
    pandas.DataFrame
        One row per stratum (pairs = tasks) plus ``pooled`` (pairs = tasks x bins,
        excluding ``all``): ``stratum, n, mean_diff, sd_diff, t, p, stars``.

    Examples
    --------
    >>> t = pd.DataFrame({"metric": "f1", "stratum": ["1.00"] * 6,
    ...                   "task": ["a", "b", "c"] * 2, "system": ["x"] * 3 + ["y"] * 3,
    ...                   "score": [0.9, 0.8, 0.85, 0.7, 0.75, 0.6]})
    >>> r = paired_test(t, "x", "y")
    >>> r.stratum.tolist(), round(float(r.p.iloc[0]), 4)
    (['1.00', 'pooled'], 0.1091)
    """
    from scipy import stats

    sub = table[table["metric"] == metric]
    for s in (system_a, system_b):
        if s not in set(sub["system"]):
            raise ValueError(f"system {s!r} not in the table; systems: "
                             f"{', '.join(map(str, dict.fromkeys(sub['system'])))}")
    wide = sub[sub["system"].isin([system_a, system_b])].pivot_table(
        index=["task", "stratum"], columns="system", values="score", aggfunc="first")
    wide = wide.dropna()
    rows = []
    strata = list(dict.fromkeys(wide.index.get_level_values("stratum")))
    for s in [x for x in strata if x != "all"] + ["all", "pooled"]:
        if s == "pooled":
            w = wide[wide.index.get_level_values("stratum") != "all"]
        elif s in strata:
            w = wide.xs(s, level="stratum", drop_level=False)
        else:
            continue
        d = (w[system_a] - w[system_b]).to_numpy(float)
        if d.size >= 2:
            r = stats.ttest_rel(w[system_a].to_numpy(float), w[system_b].to_numpy(float))
            t_stat, p = float(r.statistic), float(r.pvalue)
        else:
            t_stat = p = np.nan
        rows.append(dict(stratum=s, n=d.size, mean_diff=d.mean() if d.size else np.nan,
                         sd_diff=d.std(ddof=1) if d.size > 1 else np.nan, t=t_stat, p=p,
                         stars=_stars(p)))
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- paper layout
def paper_table(table: pd.DataFrame, system: str | None = None, *,
                metrics: Sequence[str] | None = None, digits: int = 2) -> pd.DataFrame:
    r"""Lay the tidy table out as the paper's Table 3 (strings, ready to print).

    Columns: ``task, p_d, S, m`` then per metric ``AI, H, E, Δ(H−AI), Δ(E−H),
    Δ(E−AI)``, where H is the human group (``mean±sd``) or, without humans, H'.
    Without a ``system`` only the ``H, E, Δ(E−H)`` columns are shown.

    Parameters
    ----------
    table : DataFrame
        Output of :func:`stratify`.
    system : str, optional
        The system shown in the AI columns.
    metrics : sequence of str, optional
        Metrics to show (default: those in the table, F1 first).
    digits : int
        Decimals shown (``m`` gets one more). The gaps are computed from the
        unrounded scores, so they may differ by one in the last digit from a
        difference of the printed values (the paper subtracts printed values).

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> panel = [[1, 1, 1], [1, 1, 0], [0, 0, 0], [0, 1, 0]]
    >>> t = stratify(panel, {"ai": [1, 0, 0, 0], "dr": [1, 1, 0, 1]}, humans=["dr"],
    ...              metrics=["accuracy"], n_boot=0)
    >>> print(paper_table(t, "ai").iloc[:, :7].to_string(index=False))
    task  p_d S     m accuracy AI accuracy H accuracy E
    task 0.67 2 0.500        0.50       0.50       0.67
    task 1.00 2 0.500        1.00       1.00       1.00
    task  All 4 0.500        0.75       0.75       0.83
    """
    if system is not None and system not in set(table["system"]):
        raise ValueError(f"system {system!r} not in the table; systems: "
                         f"{', '.join(map(str, dict.fromkeys(table['system'])))}")
    if metrics is None:
        metrics = [m for m in ("f1", "accuracy") if m in set(table["metric"])]
    roles = set(table["role"])
    ref_role = "H" if "H" in roles else ("H'" if "H'" in roles else None)

    def f(x, d=digits):
        return "NaN" if not np.isfinite(x) else f"{x:.{d}f}"

    out = []
    for (task, stratum), g in table.groupby(["task", "stratum"], sort=False):
        first = g.iloc[0]
        row = {"task": task, "p_d": "All" if stratum == "all" else stratum, "S": str(first.S),
               "m": f(first.m, digits + 1)}
        for metric in metrics:
            gm = g[g.metric == metric]
            if gm.empty:
                continue
            h = gm[gm.role == ref_role].iloc[0] if ref_role else None
            ai = gm[gm.system == system].iloc[0] if system is not None else None
            if ai is not None:
                row[f"{metric} AI"] = f(ai.score)
            hs = ""
            if h is not None:
                hs = f(h.score) + (f"±{h.sd:.{digits}f}" if np.isfinite(h.sd) else "")
            hn = ref_role or "H"
            row[f"{metric} {hn}"] = hs
            loo = gm[gm.role == "H'-loo"]
            if len(loo):
                row[f"{metric} H'-loo"] = f(loo.iloc[0].score)
            row[f"{metric} E"] = f(gm.iloc[0].expected)
            if ai is not None:
                row[f"{metric} Δ({hn}−AI)"] = f(ai.delta_human)
            row[f"{metric} Δ(E−{hn})"] = f(h.delta_expected) if h is not None else ""
            if ai is not None:
                row[f"{metric} Δ(E−AI)"] = f(ai.delta_expected)
        out.append(row)
    return pd.DataFrame(out)


make_module_callable(__name__, "stratify")  # labelvar.stratify(...) however it was imported
