"""The alt-test's inputs as arrays: votes (item, rater, label) and one system's labels.

The public functions validate here, before any work: identified raters, the system's
ids among the votes' items (matched by value, never by position), numeric labels for
``neg_rmse``. The long table becomes integer codes: ``item``, ``rater`` and ``code``
per vote, and one code per item for the system (-1 where it gave no label). Label codes
index :attr:`Prepared.labels`, the humans' labels first, then labels only the system
used.

Examples
--------
>>> import pandas as pd
>>> votes = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b", "a", "b"],
...                       "label": ["x", "y", "x", "x"]})
>>> p = prepare(votes, pd.Series({1: "x", 2: "z"}), scoring="accuracy")
>>> p.labels, p.code.tolist(), p.system.tolist()
(('x', 'y', 'z'), [0, 1, 0, 0], [0, 2])
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

COLUMNS = ("item", "rater", "label")
SCORINGS = ("accuracy", "neg_rmse")


@dataclasses.dataclass(frozen=True)
class Prepared:
    """Votes and one system as codes (see the module docstring)."""

    items: pd.Index
    raters: pd.Index
    labels: tuple
    item: np.ndarray   # int64 per vote
    rater: np.ndarray  # int64 per vote
    code: np.ndarray   # int64 per vote
    system: np.ndarray  # int64 per item, -1: no label
    values: np.ndarray | None  # float per label code (neg_rmse)
    scale: int | None  # values * scale are whole numbers (exact comparison), or None
    n_human_labels: int  # codes below it are the humans' label set (or labels=)


def _id(x) -> str:
    """An id as written in a message: ``'a'``, ``3`` (no numpy type names)."""
    return repr(x.item() if isinstance(x, np.generic) else x)


def _frame(votes) -> pd.DataFrame:
    if hasattr(votes, "frame") and hasattr(votes, "codes"):  # an io.Votes
        votes = votes.frame
    if not isinstance(votes, pd.DataFrame):
        raise ValueError("votes must be a long DataFrame with columns item, rater, label "
                         f"(one row per vote), got {type(votes).__name__}")
    missing = [c for c in COLUMNS if c not in votes.columns]
    if missing:
        raise ValueError(f"votes lacks the column(s) {', '.join(missing)} "
                         "(a long table: item, rater, label)")
    if len(votes) == 0:
        raise ValueError("votes is empty")
    frame = votes[list(COLUMNS)]
    if frame["rater"].isna().all():
        raise ValueError("votes has no identified raters (the rater column is empty); the "
                         "alt-test leaves out one identified human at a time")
    if frame["rater"].isna().any():
        n = int(frame["rater"].isna().sum())
        raise ValueError(f"votes has {n} vote(s) without a rater id; the alt-test needs "
                         "identified raters")
    if frame["item"].isna().any():
        raise ValueError("votes has votes without an item id")
    if frame["label"].isna().any():
        bad = frame[frame["label"].isna()].iloc[0]
        raise ValueError(f"votes has missing labels (item {_id(bad['item'])}, rater "
                         f"{_id(bad['rater'])}); drop the rows without a vote")
    dup = frame.duplicated(["item", "rater"])
    if dup.any():
        bad = frame[dup].iloc[0]
        raise ValueError(f"votes has more than one vote of rater {_id(bad['rater'])} on item "
                         f"{_id(bad['item'])}")
    return frame


def as_systems(system) -> dict:
    """``{name: Series}`` from a Series, a mapping item -> label or a DataFrame of systems."""
    if isinstance(system, pd.DataFrame):
        if system.shape[1] == 0:
            raise ValueError("system has no columns (one column per system)")
        return {str(c): system[c] for c in system.columns}
    if isinstance(system, pd.Series):
        return {str(system.name) if system.name is not None else "system": system}
    if isinstance(system, Mapping):
        return {"system": pd.Series(dict(system), dtype=object)}
    raise ValueError("system must be a Series indexed by item, a mapping item -> label or a "
                     f"DataFrame with one column per system, got {type(system).__name__}")


def _numeric(labels: tuple) -> np.ndarray | None:
    try:
        vals = np.array([float(x) for x in labels if not isinstance(x, bool)])
    except (TypeError, ValueError):
        return None
    if len(vals) != len(labels) or not np.isfinite(vals).all():
        return None
    return vals


def _common_scale(values: np.ndarray) -> int | None:
    """The smallest of 1, 2, 4, 5, 10, … 1000 that makes every value whole (exact ties)."""
    for s in (1, 2, 4, 5, 8, 10, 20, 25, 50, 100, 1000):
        x = values * s
        if np.all(np.abs(x - np.round(x)) <= 1e-9 * np.maximum(1.0, np.abs(x))) and \
                np.abs(x).max(initial=0) < 2**20:
            return s
    return None


def prepare(votes, system, *, scoring, labels=None) -> Prepared:
    """Validate ``votes`` and one system (a Series) and return their codes.

    ``labels``: a declared label set (the humans' votes must lie in it).
    """
    frame = _frame(votes)
    sysser = system if isinstance(system, pd.Series) else as_systems(system)["system"]
    if sysser.index.has_duplicates:
        dupid = sysser.index[sysser.index.duplicated()][0]
        raise ValueError(f"system has item {_id(dupid)} more than once")
    item_codes, items = pd.factorize(frame["item"], sort=False)
    rater_codes, raters = pd.factorize(frame["rater"], sort=False)
    items = pd.Index(items)
    pos = items.get_indexer(sysser.index)
    if (pos < 0).any():
        lack = [x for x, p in zip(sysser.index, pos) if p < 0]
        raise ValueError(f"system has {len(lack)} item id(s) the votes lack (e.g. {_id(lack[0])}); "
                         "ids are matched by value")
    human = pd.Index(pd.unique(frame["label"]))
    if labels is not None:
        declared = pd.Index(list(labels))
        if declared.has_duplicates:
            raise ValueError("labels has repeated values")
        outside = human.difference(declared)
        if len(outside):
            raise ValueError(f"votes has label {_id(outside[0])} outside labels={list(labels)!r}")
        human = declared
    sysvals = sysser[sysser.notna()]
    extra = pd.Index(pd.unique(sysvals.to_numpy(dtype=object))).difference(human)
    all_labels = human.append(extra) if len(extra) else human
    code = all_labels.get_indexer(frame["label"])
    sys_codes = np.full(len(items), -1, dtype=np.int64)
    sys_codes[pos[sysser.notna().to_numpy()]] = all_labels.get_indexer(sysvals.to_numpy(dtype=object))
    values = scale = None
    label_tuple = tuple(all_labels.tolist())
    if scoring == "neg_rmse":
        values = _numeric(label_tuple)
        if values is None:
            bad = next((x for x in label_tuple if _numeric((x,)) is None), label_tuple[0])
            raise ValueError(f"scoring='neg_rmse' needs numeric labels, got {bad!r}")
        scale = _common_scale(values)
    return Prepared(items=items, raters=pd.Index(raters), labels=label_tuple,
                    item=np.asarray(item_codes, np.int64), rater=np.asarray(rater_codes, np.int64),
                    code=np.asarray(code, np.int64), system=sys_codes, values=values, scale=scale,
                    n_human_labels=len(human))


def check_options(*, scoring, epsilon, q, min_humans_per_item, min_items_per_human, test,
                  margin) -> None:
    """Refuse bad options with one line naming the argument."""
    from labelvar.judge._stats import MARGINS, TESTS

    if not (callable(scoring) or scoring in SCORINGS):
        raise ValueError(f"scoring must be 'accuracy', 'neg_rmse' or a callable, got {scoring!r}")
    try:
        eps = float(epsilon)
    except (TypeError, ValueError):
        raise ValueError(f"epsilon must be a number in [0, 1), got {epsilon!r}") from None
    if not (0.0 <= eps < 1.0) or math.isnan(eps):
        raise ValueError(f"epsilon must be in [0, 1), got {epsilon!r}")
    if not (isinstance(q, (int, float)) and 0.0 < float(q) < 1.0):
        raise ValueError(f"q must be in (0, 1), got {q!r}")
    for name, v, lo in (("min_humans_per_item", min_humans_per_item, 2),
                        ("min_items_per_human", min_items_per_human, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise ValueError(f"{name} must be a whole number >= {lo}, got {v!r}")
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}, got {test!r}")
    if margin not in MARGINS:
        raise ValueError(f"margin must be one of {', '.join(MARGINS)}, got {margin!r}")
