"""Each identified panel rater against the majority of the *other* raters (used by :func:`labelvar.stratify`).

A panel rater scored against a majority that contains its own vote looks better than
it is (on CheXpert a panel radiologist scores 0.906 so, 0.894 against the other four (their ties dropped),
while the benchmark radiologists score 0.896). :func:`rater_majorities` gives, per
panel rater j, the plurality label of the other K-1 votes of every item j voted on
(ties by the task's tie rule; with ``"drop"`` a tied item is not scored for j);
:func:`panel_rows` scores each rater against it (role ``panel-loo``) and, labelled as
such, against the whole panel's majority (role ``panel-self``). The same (K-1)
majority is the reference when an evaluated rater is compared with a panel member
(``stratify(...).compare(expert, panel_rater)``), so both are scored on the same items
against the same labels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from labelvar._base import _seeding
from labelvar.evaluation._tasks import _blocks, _Task, first_vote

#: role of a panel rater against the majority of the other raters
LOO_ROLE = "panel-loo"
#: role of a panel rater against the whole panel's majority, its own vote included
SELF_ROLE = "panel-self"


@dataclass(frozen=True)
class RaterReference:
    """A panel rater's votes and the majority of the other raters (-1: not scored)."""

    votes: np.ndarray  #: the rater's label code per kept item (-1: no vote)
    ref: np.ndarray    #: the others' majority per kept item (-1: none, or tied with "drop")


def rater_majority(t: _Task, j: int, tie_rule: str, seed: int) -> RaterReference:
    """The plurality label of the votes other than rater ``j``'s, per item.

    An item is scored for j when j voted on it and another rater did; ties among the
    other votes follow ``tie_rule`` (``"random"``: seeded per task and rater;
    ``"lowest"``; ``"first_vote"``: the first other rater, in panel order, voting a
    tied label; ``"drop"``: not scored).
    """
    n, L = t.counts.shape
    votes = t.codes[:, j]
    ref = np.full(n, -1, dtype=votes.dtype)
    rng = _seeding.generator(seed, "panel_loo", t.name, t.raters[j])
    u = rng.random(n) if tie_rule == "random" else None
    for b in _blocks(n):
        v = votes[b].astype(np.intp)
        voted = v >= 0
        rest = t.counts[b].astype(np.int64)
        rows = np.flatnonzero(voted)
        rest[rows, v[rows]] -= 1
        top = rest.max(axis=1)
        is_top = rest == top[:, None]
        tied = is_top.sum(axis=1) > 1
        maj = np.argmax(is_top, axis=1)  # lowest label among the tied
        if tie_rule == "random" and tied.any():
            pick = np.floor(u[b] * is_top.sum(axis=1)).astype(np.int64)
            maj = np.argmax(np.cumsum(is_top, axis=1) > pick[:, None], axis=1)
        elif tie_rule == "first_vote" and tied.any():
            others = t.codes[b][tied].copy()
            others[:, j] = -1
            maj[tied] = first_vote(others, is_top[tied])
        ok = voted & (top > 0)
        if tie_rule == "drop":
            ok &= ~tied
        ref[b] = np.where(ok, maj, -1)
    return RaterReference(votes=votes, ref=ref)


def rater_majorities(t: _Task, tie_rule: str, seed: int, names=None) -> dict:
    """:func:`rater_majority` of every panel rater (or of ``names``), by rater name."""
    if t.codes is None or not t.raters or not t.raters_identified:
        return {}
    return {name: rater_majority(t, j, tie_rule, seed) for j, name in enumerate(t.raters)
            if names is None or name in names}


def panel_rows(t: _Task, refs: dict, idx: np.ndarray, metric: str, base: dict, score, interval):
    """Rows of each panel rater on the items ``idx``: against the others, then the whole panel.

    ``score(metric, truth, pred)`` and ``interval(metric, truth, pred, key)`` compute the
    score and its interval on 1-d label codes (``key``: (role, rater), for the interval's
    random stream); ``S`` is the number of items scored.
    """
    rows = []
    for role in (LOO_ROLE, SELF_ROLE):
        for name, r in refs.items():
            if role == LOO_ROLE:
                sel = idx[r.ref[idx] >= 0]
                truth = r.ref[sel]
            else:
                sel = idx[r.votes[idx] >= 0]
                truth = t.majority[sel]
            if sel.size == 0:
                continue
            pred = r.votes[sel]
            lo, hi = interval(metric, truth, pred, (role, name))
            rows.append(dict(base, system=name, role=role, S=int(sel.size),
                             score=float(score(metric, truth, pred)), sd=np.nan, ci_low=lo,
                             ci_high=hi, p_random=np.nan, p_random_prior=np.nan))
    return rows
