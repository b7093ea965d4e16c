"""The per-task tables of :func:`labelvar.stratify`: tidy rows, panel agreement, two raters compared.

:func:`_task_table` scores every rater (systems, humans, H, H', H'-loo and, with
``panel_loo``, each panel rater) per stratum and metric, with the coin model's
expectation E, the intervals and the random labeller's tail; :func:`_agreement_rows`
gives Fleiss' kappa and Krippendorff's alpha per stratum; :func:`_compare_rows` two
raters on the same items (exact McNemar, paired bootstrap).
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from labelvar._base import _seeding
from labelvar.evaluation._bins import (
    _bootstrap_items,
    _bootstrap_loop,
    _bootstrap_panel,
    _confusion,
    _expectation,
    _has,
    _item_score,
    _levels,
    _merge_levels,
    _p_random,
    _score,
    _score_conf,
    _simulated,
    _wilson,
    bin_agreement,
    check_boot_size,
)
from labelvar.evaluation._panel_loo import panel_rows
from labelvar.evaluation._tasks import _tally, _Task
from labelvar.metrics._scores import PROBABILITY_METRICS

#: columns of the tidy table of :func:`stratify`, in order
COLUMNS = (
    "task", "system", "role", "stratum", "agreement", "S", "small_bin", "m", "n_labels",
    "metric", "score", "sd", "ci_low", "ci_high", "expected", "chance", "delta_expected",
    "delta_human", "p_random", "p_random_prior", "tie_rule", "n_tied", "expected_skill",
)

#: label metrics of a rater's labels against the majority (one confusion matrix)
LABEL_METRICS = ("accuracy", "precision", "recall", "f1", "kappa")
#: columns of :attr:`StratifiedResult.agreement`
AGREEMENT_COLUMNS = ("task", "stratum", "agreement", "S", "n", "statistic", "score",
                     "ci_low", "ci_high", "note")
#: default smallest bin (items) that enters the bin tests; smaller bins are flagged
MIN_BIN_SIZE = 10

def _agreement_rows(t: _Task, groups, n_boot, confidence_level, seed) -> pd.DataFrame:
    """Fleiss' kappa and Krippendorff's alpha per stratum (the panel's votes in it)."""
    from labelvar.evaluation import _agreement as ag

    k_mode = int(np.bincount(t.k).argmax())
    values = t.values if t.values is not None else np.arange(len(t.labels), dtype=float)
    stats = ["fleiss_kappa", "alpha_nominal"] + (
        ["alpha_ordinal", "alpha_interval"] if t.values is not None else [])
    rows = []
    for name, idx in groups:
        for stat in stats:
            counts = t.counts[idx]
            notes = []
            if stat == "fleiss_kappa":
                counts = counts[t.k[idx] == k_mode]
                if counts.shape[0] == 0:  # e.g. SNLI's few 4-vote items in a bin of their own
                    notes.append(f"no item with {k_mode} votes, the number Fleiss' kappa "
                                 "uses here")
                elif counts.shape[0] < idx.size:
                    notes.append(f"items with {k_mode} votes")
            rng = _seeding.generator(seed, "agreement", t.name, name, stat)
            if counts.shape[0] == 0:
                val, (lo, hi) = np.nan, (np.nan, np.nan)
            elif stat == "fleiss_kappa":
                val = ag.fleiss_kappa(counts) if k_mode >= 2 else np.nan
                lo, hi = ag.bootstrap_agreement(counts, stat, n_boot, rng,
                                                confidence_level=confidence_level)
            else:
                val = ag.krippendorff_alpha(counts, stat[len("alpha_"):], values)
                lo, hi = ag.bootstrap_agreement(counts, stat, n_boot, rng,
                                                confidence_level=confidence_level, values=values)
            if counts.shape[0] and not np.isfinite(val):  # say why there is no value
                if np.count_nonzero(counts.sum(axis=0)) < 2:
                    notes.append("every vote for one label: undefined")
                elif not np.any(counts.sum(axis=1) >= 2):
                    notes.append("no item with 2 votes")
            rows.append(dict(task=t.name, stratum=name,
                             agreement=np.nan if name == "all" else bin_agreement(t, idx),
                             S=idx.size, n=counts.shape[0], statistic=stat, score=val,
                             ci_low=lo, ci_high=hi, note="; ".join(notes)))
    return pd.DataFrame(rows, columns=list(AGREEMENT_COLUMNS))


def _compare_rows(t: _Task, groups, compare, metrics, n_boot, confidence_level, seed,
                  min_bin_size, refs=None) -> pd.DataFrame:
    """Two systems on the same items: exact McNemar (accuracy), paired bootstrap (others).

    With a panel rater among them (``refs``: its votes and the others' majority) both
    are scored against that majority, on the items the panel rater is scored on.
    """
    from labelvar.evaluation import _inference as inference

    a, b = compare
    refs = refs or {}
    member = next((c for c in compare if c in refs and c not in t.preds), None)
    preds = dict(t.preds)
    if member is not None:
        preds[member] = refs[member].votes
    rows = []
    for name, idx in groups:
        truth_all = t.majority
        if member is not None:
            idx = idx[refs[member].ref[idx] >= 0]
            truth_all = refs[member].ref
        for metric in metrics:
            if member is not None and metric not in LABEL_METRICS:
                continue
            if member is None and not (_has(metric, t, a) and _has(metric, t, b)):
                continue
            if member is None or metric not in LABEL_METRICS:
                sa, sb = _item_score(metric, t, a, idx), _item_score(metric, t, b, idx)
            else:
                sa, sb = (float(_score(metric, truth_all[idx], preds[c][idx], t))
                          for c in (a, b))
            row = dict(task=t.name, stratum=name, S=idx.size,
                       small_bin=name != "all" and idx.size < min_bin_size, metric=metric,
                       system_a=a, system_b=b, score_a=sa, score_b=sb, diff=sa - sb,
                       n_a_only=np.nan, n_b_only=np.nan)
            rng = _seeding.generator(seed, "compare", t.name, name, metric, a, b)
            if metric in LABEL_METRICS:
                truth = truth_all[idx]
                pa, pb = preds[a][idx], preds[b][idx]
                def delta(d, metric=metric, truth=truth, pa=pa, pb=pb):
                    return _score(metric, truth[d], pa[d], t) - _score(metric, truth[d], pb[d], t)

                boot = inference.paired_bootstrap(delta, idx.size, n_boot, rng,
                                                  confidence_level=confidence_level, stacked=True)
            else:
                def delta(d, metric=metric, idx=idx):
                    return (_item_score(metric, t, a, idx[d])
                            - _item_score(metric, t, b, idx[d]))

                boot = inference.paired_bootstrap(delta, idx.size, n_boot, rng,
                                                  confidence_level=confidence_level)
            row.update(ci_low=boot.ci_low, ci_high=boot.ci_high, test="paired_bootstrap",
                       p=boot.p)
            note = ""
            if metric == "accuracy":
                mc = inference.mcnemar_exact(pa == truth, pb == truth)
                row.update(test="mcnemar_exact", n_a_only=mc.n_a_only, n_b_only=mc.n_b_only,
                           p=mc.p)
                if mc.n_a_only + mc.n_b_only == 0:
                    note = "no discordant items: no test"
            elif (np.array_equal(pa, pb) if metric in LABEL_METRICS
                  else _same_answers(metric, t, a, b, idx)):  # every resample differs by 0
                row.update(p=np.nan)
                note = "identical answers on these items: no test"
            elif not np.isfinite(row["diff"]):
                note = "a score is undefined here: no test"
            elif n_boot <= 0:
                note = "no bootstrap (n_resamples=0): no p-value"
            if row["small_bin"]:  # small bins enter no test (as in bin_tests, paired_test)
                row.update(p=np.nan)
                note = f"small bin (fewer than {min_bin_size} items): no test"
            rows.append(dict(row, note=note))
    return pd.DataFrame(rows)


def _same_answers(metric: str, t: _Task, a: str, b: str, idx: np.ndarray) -> bool:
    """Whether systems a and b give the same answers on the items ``idx`` (for ``metric``)."""
    if metric in PROBABILITY_METRICS:
        return bool(np.array_equal(t.probs[a][idx], t.probs[b][idx], equal_nan=True))
    return bool(np.array_equal(t.preds[a][idx], t.preds[b][idx]))


def _task_table(t: _Task, humans, groups, metrics, n_draws, loo, p_d_one, human_round,
                tie_rule, confidence_level, n_boot, boot_raters, seed, exact_limit,
                min_bin_size=MIN_BIN_SIZE, bar=None, panel=None, skill=None) -> pd.DataFrame:
    """The tidy rows of one task; ``groups``: (stratum, item indices), the strata then ``all``.

    ``panel``: the panel raters' references (:mod:`labelvar.evaluation._panel_loo`), scored as
    ``panel-loo`` and ``panel-self`` rows; ``skill``: per human, its skill-based
    expected accuracy per item (:mod:`labelvar.evaluation._skill`), averaged per stratum into
    ``expected_skill``.
    """
    skill = skill or {}
    from labelvar.analytic import _closed_forms as analytic

    L = len(t.labels)
    binary = t.pos_label is not None
    # the coin model's F1 assumes every disagreement lands on the other class: binary only
    f1_closed = binary and L == 2
    n_strata = len(groups) - 1
    check_boot_size(t, groups, metrics, n_boot, boot_raters, LABEL_METRICS)
    if bar is not None:
        bar.total += n_strata + 1
        bar.set_postfix_str(t.name, refresh=False)
        bar.refresh()
    sim = {}
    if n_draws:
        sim["H'"] = _simulated(t, n_draws, _seeding.generator(seed, "simulated_human", t.name),
                               loo=False, tie_rule=tie_rule)
        if loo:
            sim["H'-loo"] = _simulated(t, n_draws,
                                       _seeding.generator(seed, "leave_one_out", t.name),
                                       loo=True, tie_rule=tie_rule)

    # bin-level quantities: (name, items, agreement, m, the coin model's expectation E).
    # E is the paper's stratified expectation (section 2.1) over the distinct agreement
    # levels of the bin's items, each at its own p_d (p_d_one where unanimous) and its
    # own m: a bin of one level is the closed form at that level; a user bin spanning
    # several levels (and "all") is the mixture, not the closed form at the mean.
    pos = (t.majority == t.pos_label) if binary else None
    levels = []
    info = []
    for name, idx in groups[:-1]:
        agree = bin_agreement(t, idx)
        lv = _levels(t, idx, None if pos is None else pos[idx], p_d_one)
        levels.append(lv)
        m = float(np.mean(pos[idx])) if binary else np.nan
        info.append((name, idx, agree, m, _expectation(*lv, binary)))
    all_e = _expectation(*_merge_levels(levels), binary) if levels else None
    m_all = float(np.mean(pos)) if binary else np.nan
    info.append(("all", groups[-1][1], np.nan, m_all, all_e))

    closed = ("f1", "precision", "recall")

    def expected(metric, row):
        e = row[4]
        if e is None:
            return np.nan
        if metric == "accuracy":
            return float(e.accuracy)
        return float(getattr(e, metric)) if f1_closed and metric in closed else np.nan

    def chance(metric, m):
        if metric == "accuracy":
            return 1.0 / L
        if not (f1_closed and metric in closed):
            return np.nan
        return float(getattr(analytic, f"expected_{metric}")(1.0 / L, m))

    def interval(rname, name, metric, idx, conf):
        if metric not in LABEL_METRICS:
            rng = _seeding.generator(seed, "bootstrap", t.name, rname, name, metric)
            return _bootstrap_loop(t, metric, rname, idx, n_boot, confidence_level, rng)
        if boot_raters or metric != "accuracy":
            rng = _seeding.generator(seed, "bootstrap", t.name, rname, name, metric)
            if boot_raters:
                return _bootstrap_panel(t, idx, t.preds[rname][idx], metric, n_boot,
                                        confidence_level, rng, tie_rule)
            return _bootstrap_items(t, conf, metric, n_boot, confidence_level, rng)
        return _wilson(int(np.trace(conf)), idx.size, confidence_level)

    def panel_score(metric, truth, pred):
        return _score_conf(metric, _confusion(truth, pred, L), t)

    def panel_interval(name, metric, truth, pred, key):
        conf = _confusion(truth, pred, L)
        if metric == "accuracy":
            return _wilson(int(np.trace(conf)), int(conf.sum()), confidence_level)
        rng = _seeding.generator(seed, "bootstrap", t.name, *key, name, metric)
        return _bootstrap_items(t, conf, metric, n_boot, confidence_level, rng)

    rows = []
    raters = [(n, "human" if n in humans else "system")
              for n in dict.fromkeys(list(t.preds) + list(t.probs))]
    for row in info:
        name, idx, agree, m, _ = row
        truth = t.majority[idx]
        truth_counts = _tally(truth, L)
        confs = {rname: _confusion(truth, t.preds[rname][idx], L) for rname, _ in raters
                 if rname in t.preds and any(mt in LABEL_METRICS for mt in metrics)}
        n_tied = 0 if t.tied is None else int(np.count_nonzero(t.tied[idx]))
        for metric in metrics:
            e = expected(metric, row)
            base = dict(task=t.name, stratum=name, agreement=agree, S=idx.size,
                        small_bin=name != "all" and idx.size < min_bin_size, m=m,
                        n_labels=L, metric=metric, expected=e, chance=chance(metric, m),
                        tie_rule=t.tie_rule, n_tied=n_tied)
            rater_rows = []
            for rname, role in raters:
                if not _has(metric, t, rname):
                    continue
                if metric in LABEL_METRICS:
                    sc = float(_score_conf(metric, confs[rname], t))
                    lo, hi = interval(rname, name, metric, idx, confs[rname])
                else:
                    sc = _item_score(metric, t, rname, idx)
                    lo, hi = interval(rname, name, metric, idx, None)
                pr = _p_random(metric, sc, truth_counts, t.pos_label, L, exact_limit)
                es = (float(np.nanmean(skill[rname][idx])) if metric == "accuracy"
                      and rname in skill and np.isfinite(skill[rname][idx]).any() else np.nan)
                rater_rows.append(dict(base, system=rname, role=role, score=sc, sd=np.nan,
                                       ci_low=lo, ci_high=hi, p_random=pr[0],
                                       p_random_prior=pr[1], expected_skill=es))
            hs = [r["score"] for r in rater_rows if r["role"] == "human"]
            if human_round is not None:
                hs = [round(x, human_round) for x in hs]
            group_rows = []
            if hs:
                sc = float(np.mean(hs))
                sd = float(np.std(hs, ddof=1)) if len(hs) > 1 else np.nan
                pr = _p_random(metric, sc, truth_counts, t.pos_label, L, exact_limit)
                group_rows.append(dict(base, system="H", role="H", score=sc, sd=sd,
                                       ci_low=np.nan, ci_high=np.nan, p_random=pr[0],
                                       p_random_prior=pr[1]))
            if panel and metric in LABEL_METRICS:
                group_rows += panel_rows(t, panel, idx, metric, base, panel_score,
                                         functools.partial(panel_interval, name))
            for sname, (picks, refs) in sim.items():
                if metric not in LABEL_METRICS:
                    continue
                draws = np.asarray(_score(metric, refs[:, idx], picks[:, idx], t))
                sc = float(draws.mean())
                sd = float(draws.std(ddof=1)) if draws.size > 1 else np.nan
                group_rows.append(dict(base, system=sname, role=sname, score=sc, sd=sd,
                                       ci_low=np.nan, ci_high=np.nan, p_random=np.nan,
                                       p_random_prior=np.nan))
            if hs:
                ref = float(np.mean(hs))
            else:  # H'-loo (default) or the self-inclusive H'
                ref = next((r["score"] for role in ("H'-loo", "H'") for r in group_rows
                            if r["role"] == role), np.nan)
            for r in rater_rows + group_rows:
                r["delta_expected"] = e - r["score"]
                r["delta_human"] = ref - r["score"]
            rows.extend(rater_rows + group_rows)
        if bar is not None:
            bar.update()
    out = pd.DataFrame(rows, columns=list(COLUMNS))
    # order: systems, humans, H, H', per stratum/metric as built; stable columns
    return out[list(COLUMNS)]
