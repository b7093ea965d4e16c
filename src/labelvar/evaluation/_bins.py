"""A task's strata and the statistics of one stratum (used by :func:`labelvar.stratify`).

Strata by observed agreement; a rater's score on a stratum's items from its confusion
counts (:mod:`labelvar.metrics`); Wilson and bootstrap intervals (over items, or over
items and each item's panel votes); the probability that a random labeller scores as
well; the coin model's expected score over a stratum's agreement levels; the simulated
humans H' and H'-loo drawn from the panel's own votes.
"""

from __future__ import annotations

import math

import numpy as np

from labelvar._base import _validate as v
from labelvar.evaluation._tasks import _blocks, _Task, first_vote
from labelvar.metrics import _scores as _metrics
from labelvar.metrics._scores import ORDINAL_METRICS, PROBABILITY_METRICS

# --------------------------------------------------------------------------- scores

def bin_agreement(t: _Task, idx) -> float:
    """The mean observed agreement of the items ``idx``, exact where it can be.

    A bin of one agreement level gets that level itself (3 of 5 votes is 0.6, where a
    mean of many 0.6 can print 0.5999999999999999); several levels get the correctly
    rounded mean (:func:`math.fsum`).
    """
    a = t.agreement(idx)
    if a.size == 0:
        return float("nan")
    if (a == a[0]).all():
        return float(a[0])
    return math.fsum(a.tolist()) / a.size

def _score(metric: str, truth, pred, t: _Task):
    """``metric`` of label codes (shape (..., n)) over the task's declared label set."""
    return _metrics.score(metric, truth, pred, len(t.labels), pos_label=t.pos_label)


def _confusion(truth: np.ndarray, pred: np.ndarray, n_labels: int) -> np.ndarray:
    """Confusion counts (L x L) of 1-d label codes, counted a block of items at a time."""
    conf = np.zeros((n_labels, n_labels), dtype=np.int64)
    for b in _blocks(truth.size):
        conf += _metrics.confusion(truth[b], pred[b], n_labels)
    return conf


def _has(metric: str, t: _Task, name: str) -> bool:
    """Whether rater ``name`` has the input ``metric`` scores (labels or probabilities)."""
    if metric in PROBABILITY_METRICS:
        return name in t.probs
    if metric in ORDINAL_METRICS and t.values is None:
        return False
    return name in t.preds


def _item_score(metric: str, t: _Task, name: str, idx: np.ndarray) -> float:
    """``metric`` of rater ``name`` on the items ``idx`` (codes into the kept items)."""
    truth = t.majority[idx]
    if metric in PROBABILITY_METRICS:
        ref = t.counts[idx] / t.k[idx, None]
        return _metrics.probability_scores(t.probs[name][idx], ref, truth,
                                           pos_label=t.pos_label)[metric]
    pred = t.preds[name][idx]
    if metric in ORDINAL_METRICS:
        mean = (t.counts[idx] @ t.values) / t.k[idx]
        if metric in ("mae", "within1", "qwk"):  # (as ordinal_scores computes them, without
            # the rank correlations it adds: a bootstrap replicate scores one metric)
            if metric == "qwk":
                return float(_metrics.kappa(_metrics.confusion(truth, pred, len(t.labels)),
                                            "quadratic"))
            diff = np.abs(np.asarray(t.values[pred], dtype=float) - np.asarray(mean, dtype=float))
            n = diff.shape[-1]
            num = diff.sum(axis=-1) if metric == "mae" else (diff <= 1 + 1e-12).sum(axis=-1)
            return float(_metrics._div(num, n, np.nan))
        return float(_metrics.ordinal_scores(t.values[pred], mean, truth, pred,
                                             len(t.labels))[metric])
    return float(_score(metric, truth, pred, t))


def _bootstrap_loop(t: _Task, metric: str, name: str, idx, n_boot, confidence_level, rng):
    """Percentile bootstrap over items of a metric not computed on stacked resamples."""
    if n_boot <= 0:
        return np.nan, np.nan
    vals = np.empty(n_boot)
    for start, rows in boot_chunks(n_boot, idx.size):
        draws = rng.integers(0, idx.size, size=(rows, idx.size))
        vals[start:start + rows] = [_item_score(metric, t, name, idx[d]) for d in draws]
    vals = vals[np.isfinite(vals)]
    return _percentiles(vals, confidence_level) if vals.size else (np.nan, np.nan)


#: resampled item indices held at a time by a bootstrap (rows x items)
BOOT_CELLS = 1 << 22
#: bootstrap replicates scored one at a time that a run may ask for, over its strata,
#: raters and metrics, in units of a probability score's replicate (about 0.7 ms; this
#: many is about two minutes)
MAX_LOOP_REPLICATES = 200_000
#: the cost of one replicate in those units: rank correlations (scipy) cost about three,
#: mae, within1 and qwk a twentieth
_LOOP_COST = {"spearman": 3.0, "kendall": 3.0, "mae": 0.05, "within1": 0.05, "qwk": 0.05}
#: redrawn panel votes (replicates x items x votes x labels) a rater bootstrap may ask for
MAX_PANEL_CELLS = 3_000_000_000


def check_boot_size(t: _Task, groups, metrics, n_boot: int, boot_raters: bool,
                    label_metrics) -> None:
    """Refuse, before any resample, a bootstrap that would run for many minutes.

    ``groups``: (stratum, item indices), as the table makes them. Counted: the
    replicates scored one at a time (metrics outside ``label_metrics``, which are scored
    on stacked confusion matrices), and with
    ``boot_raters`` the panel votes redrawn for the label metrics.
    """
    if n_boot <= 0:
        return
    raters = list(dict.fromkeys(list(t.preds) + list(t.probs)))
    loop = sum(len(groups) * _LOOP_COST.get(m, 1.0) for m in metrics
               if m not in label_metrics for r in raters if _has(m, t, r))
    if n_boot * loop > MAX_LOOP_REPLICATES:
        most = max(int(MAX_LOOP_REPLICATES // loop), 1)
        raise ValueError(f"n_resamples: {n_boot:,} resamples of the ordinal or probability scores "
                         f"of task {t.name!r} (computed one replicate at a time, per stratum, "
                         f"rater and metric) would take many minutes; ask for at most {most:,} "
                         "resamples, or fewer metrics")
    if boot_raters:
        kmax = int(t.k.max()) if t.k.size else 0
        n_label = sum(1 for m in metrics if m in label_metrics) * sum(1 for r in raters if r in t.preds)
        cells = n_boot * sum(idx.size for _, idx in groups) * kmax * len(t.labels) * n_label
        if cells > MAX_PANEL_CELLS:
            most = max(int(n_boot * MAX_PANEL_CELLS // cells), 1)
            raise ValueError(f"n_resamples: {n_boot:,} resamples of the rater bootstrap "
                             f"(resample_raters) redraw {cells:.2g} panel votes x labels in task "
                             f"{t.name!r}, more than {MAX_PANEL_CELLS:.0e} (many minutes of work); "
                             f"ask for at most {most:,} resamples, or fewer metrics or raters")


def boot_chunks(n_boot: int, n_items: int, cells: int = BOOT_CELLS):
    """(first resample, resamples) blocks of about ``cells`` resampled indices each.

    Drawing ``rng.integers(0, n, size=(rows, n))`` block after block gives the same
    indices as one ``(n_boot, n)`` draw, so the block size changes memory, not numbers.
    """
    rows = max(1, cells // max(int(n_items), 1))
    return [(s, min(rows, n_boot - s)) for s in range(0, int(n_boot), rows)]


def _percentiles(values: np.ndarray, confidence_level: float) -> tuple[float, float]:
    lo_q, hi_q = (1 - confidence_level) / 2, (1 + confidence_level) / 2
    return float(np.quantile(values, lo_q)), float(np.quantile(values, hi_q))


def _score_conf(metric: str, conf: np.ndarray, t: _Task):
    """``metric`` of confusion matrices ``conf[..., truth, pred]`` (as :func:`_score` computes it)."""
    if metric in _metrics.KAPPA_METRICS:
        return _metrics.kappa(conf, None if metric == "kappa" else "quadratic")
    return _metrics.scores(conf, pos_label=t.pos_label)[metric]


def _bootstrap_items(t: _Task, conf, metric, n_boot, confidence_level, rng):
    """Percentile bootstrap over items of a confusion-matrix metric (seeded).

    A resample of the n items with replacement has a confusion matrix distributed as
    Multinomial(n, cell shares) (``conf``: the items' confusion counts): drawn so, each
    replicate costs O(L^2) instead of O(n) (the same distribution as resampling item
    indices; 1,000 resamples of 2e6 items take milliseconds).
    """
    n = int(conf.sum())
    if n_boot <= 0:
        return np.nan, np.nan
    L = len(t.labels)
    shares = conf.ravel() / n
    vals = np.empty(n_boot)
    chunk = max(1, 1_000_000 // (L * L))
    for start in range(0, n_boot, chunk):
        stop = min(n_boot, start + chunk)
        conf = rng.multinomial(n, shares, size=stop - start).reshape(stop - start, L, L)
        vals[start:stop] = _score_conf(metric, conf, t)
    return _percentiles(vals, confidence_level)


def _bootstrap_panel(t: _Task, idx, pred, metric, n_boot, confidence_level, rng, tie_rule):
    """Percentile bootstrap over items *and* over each item's panel votes.

    A replicate resamples the bin's items and, for every drawn item, redraws its K
    votes with replacement from its own votes, recomputes the majority (ties at
    random, the lowest label with ``tie_rule="lowest"``, the first redrawn vote for a tied
    label with ``"first_vote"``) and scores ``pred`` against it.
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
        if tie_rule == "lowest":
            maj = counts.argmax(axis=-1)
        elif tie_rule == "first_vote":  # the first redrawn vote for a top label
            is_top = counts == counts.max(axis=-1, keepdims=True)
            maj = first_vote(np.where(valid, votes, -1).reshape(b * n, kmax),
                             is_top.reshape(b * n, L)).reshape(b, n)
        else:  # uniform noise < 1 only reorders equal (integer) counts
            maj = (counts + 0.5 * rng.random(counts.shape)).argmax(axis=-1)
        vals[start:start + b] = _score(metric, maj, pred[items], t)
    return _percentiles(vals, confidence_level)


def _wilson(k: int, n: int, confidence_level: float):
    from scipy import stats

    ci = stats.binomtest(int(k), int(n)).proportion_ci(confidence_level=confidence_level,
                                                       method="wilson")
    return float(ci.low), float(ci.high)


def _support(n: int, r: float) -> int:
    """Rough size of Bin(n, r)'s support with non-negligible mass (about +-9 sd)."""
    return min(n + 1, int(2 * (9 * np.sqrt(n * r * (1 - r)) + 10)))


def _p_random(metric, score, truth_counts, pos_label, n_labels, exact_limit):
    """P(random labeller >= score): (1/L coin, prior-matched) on items with these label counts."""
    from labelvar.analytic import _closed_forms as analytic

    n = int(truth_counts.sum())
    if not np.isfinite(score):
        return np.nan, np.nan
    if metric == "accuracy":
        k = int(round(score * n))
        p1 = float(analytic.prob_random_accuracy_at_least(n_labels, n, k / n))
        # a labeller guessing class c with probability n_c / n is right on the items of
        # class c with that probability: a sum of L binomials
        from labelvar.analytic._distributions import binomial_sum_sf

        p2 = binomial_sum_sf(truth_counts, truth_counts / n, k)
        return p1, p2
    if metric != "f1" or pos_label is None:
        return np.nan, np.nan  # no closed form for macro-F1 of a random labeller
    n_pos = int(truth_counts[pos_label])
    n_neg = n - n_pos
    out = []
    for r in (1.0 / n_labels, n_pos / n):
        if _support(n_pos, r) * _support(n_neg, r) > exact_limit:
            out.append(np.nan)
            continue
        d = analytic.exact_binary_metrics(n_pos, n_neg, sensitivity=r, specificity=1 - r)
        out.append(float(d.f1.sf(score)))
    return tuple(out)


# --------------------------------------------------------------------------- expected score
def _levels(t: _Task, idx: np.ndarray, positive: np.ndarray | None,
            p_d_one: float | None):
    """The items ``idx`` grouped by agreement level: (p_d of each level, items, positives).

    The level's p_d is its observed agreement (top votes / K; with Dawid-Skene the
    posterior), or ``p_d_one`` where that is 1. Levels are counted on the integer
    (top, K) pairs, without sorting the items.
    """
    weights = None if positive is None else positive.astype(float)
    k = t.k[idx].astype(np.int64)
    base = int(k.max()) + 1 if k.size else 1
    if t.posterior is None and base * base <= 1 << 22:
        key = t.top[idx].astype(np.int64) * base + k
        n_k = np.bincount(key, minlength=base * base).astype(float)
        pos_k = (np.zeros(n_k.size) if weights is None
                 else np.bincount(key, weights=weights, minlength=base * base))
        keys = np.flatnonzero(n_k)
        p_d, n_k, pos_k = (keys // base) / (keys % base), n_k[keys], pos_k[keys]
    else:
        p_d, inv = np.unique(t.agreement(idx), return_inverse=True)
        inv = inv.ravel()
        n_k = np.bincount(inv, minlength=p_d.size).astype(float)
        pos_k = (np.zeros(p_d.size) if weights is None
                 else np.bincount(inv, weights=weights, minlength=p_d.size))
    if p_d_one is not None:
        p_d = np.where(p_d >= 1 - 1e-12, p_d_one, p_d)
    return p_d, n_k, pos_k


def _merge_levels(levels):
    """The levels of several bins as one (the ``all`` stratum)."""
    p_d, n_k, pos_k = (np.concatenate(parts) for parts in zip(*levels, strict=True))
    u, inv = np.unique(p_d, return_inverse=True)
    inv = inv.ravel()
    return (u, np.bincount(inv, weights=n_k, minlength=u.size),
            np.bincount(inv, weights=pos_k, minlength=u.size))


def _expectation(p_d, n_k, pos_k, binary: bool):
    """The coin model's expected accuracy, precision, recall, F1 over agreement levels.

    :func:`labelvar.analytic.stratified_expectation` (the paper's section 2.1) with
    each level at its own p_d and m; for one level it is the closed form there.
    """
    from labelvar.analytic import _closed_forms as analytic

    m_k = pos_k / n_k if binary else np.zeros(n_k.size)
    return analytic.stratified_expectation(p_d, m_k, n_k)


# --------------------------------------------------------------------------- simulated humans
def _simulated(t: _Task, n_draws: int, rng, loo: bool, tie_rule: str):
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
        if tie_rule == "lowest":
            refs[d] = np.argmax(is_top, axis=1)
        elif tie_rule == "first_vote":  # the first of the remaining votes for a top label
            rest_votes = compact.copy()
            rest_votes[rows, j] = -1
            refs[d] = first_vote(rest_votes, is_top)
        else:
            refs[d] = np.argmax(np.cumsum(is_top, axis=1) > u[:, None], axis=1)
    return picks, refs


# --------------------------------------------------------------------------- bins
def _strata(t: _Task, bins) -> list[tuple[str, np.ndarray]]:
    """The strata in increasing agreement: (label, its items' indices in increasing order).

    Computed :data:`labelvar.evaluation._tasks.BLOCK` items at a time; the indices of all strata
    are slices of one (int32 when it can) array, in the order a stable sort by
    stratum gives.
    """
    n = t.k.size
    blocks = _blocks(n)
    if bins is None:
        uniq = np.unique(np.concatenate([np.unique(np.round(t.agreement(b), 9))
                                         for b in blocks]))  # numeric order
        names = [f"{u:.2f}" for u in uniq]

        def where(a):
            return np.searchsorted(uniq, np.round(a, 9))
    else:
        edges, names = _bin_edges(t, blocks, bins)

        def where(a):
            return np.clip(np.searchsorted(edges, a + 1e-12, side="right") - 1, 0,
                           edges.size - 2)
    stratum = np.empty(n, dtype=np.min_scalar_type(len(names)))
    for b in blocks:
        stratum[b] = where(t.agreement(b))
    sizes = np.bincount(stratum, minlength=len(names))
    free = np.concatenate([[0], np.cumsum(sizes)[:-1]])  # where each stratum's next item goes
    order = np.empty(n, dtype=_index_dtype(n))
    for b in blocks:  # a stable sort by stratum, a block at a time
        ranked = np.argsort(stratum[b], kind="stable") + b.start
        start = 0
        for g, m in enumerate(np.bincount(stratum[b], minlength=len(names))):
            order[free[g]:free[g] + m] = ranked[start:start + m]
            free[g] += m
            start += m
    return [(nm, idx) for nm, idx in zip(names, np.split(order, np.cumsum(sizes)[:-1]),
                                         strict=True) if idx.size]


def _index_dtype(n: int):
    """Integer dtype of item indices into ``n`` items (int32 when it holds them)."""
    return np.int32 if n <= np.iinfo(np.int32).max else np.intp


def _bin_edges(t: _Task, blocks, bins) -> tuple[np.ndarray, list[str]]:
    """User bin edges, checked to cover the observed agreement, and each bin's label."""
    edges = v.probability("bins", bins)
    if edges.ndim != 1 or edges.size < 2 or np.any(np.diff(edges) <= 0):
        raise ValueError("bins must be at least 2 increasing edges in [0, 1], got "
                         f"[{', '.join(f'{x:g}' for x in np.ravel(edges))}]")
    lo = min(t.agreement(b).min() for b in blocks)
    hi = max(t.agreement(b).max() for b in blocks)
    if lo < edges[0] - 1e-12 or hi > edges[-1] + 1e-12:
        raise ValueError(f"bins [{edges[0]:g}, {edges[-1]:g}] do not cover the observed "
                         f"agreement range [{lo:.3f}, {hi:.3f}]; no item may be left out")
    return edges, [f"[{a:.2f}, {b:.2f}{']' if i == edges.size - 2 else ')'}"
                   for i, (a, b) in enumerate(zip(edges[:-1], edges[1:], strict=True))]
