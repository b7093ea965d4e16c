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
import numbers
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


def _seen_labels(column) -> list | None:
    """The canonical labels a column uses, in the reader's order (numbers, then text)."""
    from labelvar.io._labels import canon, sort_key

    seen = {canon(x) for x in pd.unique(column.dropna())}
    seen.discard(None)
    return sorted(seen, key=sort_key) if seen else None


def _read(votes, labels):
    """``io.read_votes`` (the one votes reader), its errors naming ``votes``."""
    from labelvar.io import Votes, read_votes

    if not isinstance(votes, (pd.DataFrame, Votes)):
        raise ValueError("votes must be a long DataFrame with columns item, rater, label "
                         f"(one row per vote) or an io.Votes, got {type(votes).__name__}")
    if isinstance(votes, pd.DataFrame) and "rater" in votes.columns and len(votes) and \
            votes["rater"].isna().all():
        raise ValueError("votes has no identified raters (the rater column is empty); the "
                         "alt-test leaves out one identified human at a time")
    if labels is None and isinstance(votes, pd.DataFrame) and "label" in votes.columns:
        # every value seen is a label (the published test compares labels by equality):
        # declaring them keeps the reader's stray-label and spelling heuristics from
        # refusing a rare but real label (Framing's 'n/a: problem is resolved', 8 votes)
        labels = _seen_labels(votes["label"])
    try:
        return read_votes(votes, labels=labels)
    except ValueError as exc:
        msg = str(exc)
        raise ValueError("votes" + msg[4:] if msg.startswith("data") else msg) from None


def _fold_name(name) -> str:
    """A system name without case and spacing differences (``' GPT '`` is ``'gpt'``)."""
    return "".join(str(name).split()).casefold()


def check_names(names, field: str = "system") -> None:
    """Refuse a system name given twice, also as ``0`` and ``'0'`` or in another case/spacing.

    Examples
    --------
    >>> check_names(["gpt", "llama"])
    >>> check_names(["gpt", " GPT"])
    Traceback (most recent call last):
    ...
    ValueError: system: the name 'gpt' is given twice (as 'gpt' and ' GPT'); give each system one name
    """
    seen: dict = {}
    for n in names:
        key = _fold_name(n)
        if key in seen:
            raise ValueError(f"{field}: the name {str(seen[key])!r} is given twice (as "
                             f"{str(seen[key])!r} and {str(n)!r}); give each system one name")
        seen[key] = n


def as_systems(system) -> dict:
    """``{name: Series}`` from a Series, a mapping item -> label or a DataFrame of systems."""
    if isinstance(system, pd.DataFrame):
        if system.shape[1] == 0:
            raise ValueError("system has no columns (one column per system)")
        check_names(list(system.columns))
        return {str(c): system.iloc[:, j] for j, c in enumerate(system.columns)}
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


def _kinds(values) -> set:
    """The kinds (:func:`labelvar.io._labels.kind`) of some label values, missing ones left out."""
    from labelvar.io._labels import kind

    return {k for k in map(kind, values) if k is not None}


def _check_system_labels(votes, human, items, raw, name, scoring) -> None:
    """Refuse a system label that is not finite, or of another kind than the humans' labels.

    ``'1'`` and ``1`` are one label (as in every table); ``True`` among numbers, ``'yes'``
    among numbers or ``3`` among text labels is a system on another scale (it could
    never match a human), refused naming the label and the item.
    """
    from labelvar.io._labels import kind, plain

    raw_h = pd.unique(votes["label"].dropna()) if isinstance(votes, pd.DataFrame) and \
        "label" in votes.columns else human
    h_kinds = _kinds(raw_h) | _kinds(human)
    who = "system" if name is None else f"system {name!r}"
    plural = {"number": "numbers", "text": "text", "boolean": "booleans"}
    checked: set = set()
    for i, x in enumerate(raw):
        k = kind(x)
        if k is None or (k, repr(x)) in checked:
            continue
        checked.add((k, repr(x)))
        item = f"item {plain(items[i])!r}"
        if k == "non-finite":
            raise ValueError(f"{who}: {item} has the label {plain(x)!r}; a label is text or a "
                             "finite number (give the item no label instead)")
        if k == "text" and x not in human:
            c = x.strip() if isinstance(x, str) else x
            twin = [h for h in human if isinstance(h, str) and h != c
                    and "".join(h.split()).casefold() == "".join(c.split()).casefold()]
            if twin:
                raise ValueError(f"{who}: {item} has the label {plain(x)!r}, which the humans "
                                 f"spell {twin[0]!r}; give the system's labels as the votes "
                                 "spell them")
        if k not in h_kinds and not (scoring == "neg_rmse" and k == "text"):  # (said below)
            raise ValueError(
                f"{who}: {item} has the label {plain(x)!r} ({plural.get(k, k)}), but the "
                f"humans' labels are {' and '.join(sorted(plural.get(h, h) for h in h_kinds))} "
                f"({', '.join(map(repr, human[:4]))}); give the system's labels on the votes' "
                "scale")


def prepare(votes, system, *, scoring, labels=None, name=None) -> Prepared:
    """Validate ``votes`` and one system (a Series) and return their codes.

    ``labels``: a declared label set (the humans' votes must lie in it).
    """
    from labelvar.io._labels import canon

    v = _read(votes, labels)
    sysser = system if isinstance(system, pd.Series) else as_systems(system)["system"]
    aligned = v.align(sysser, field="system")  # ids by value (text), unknown ids refused
    human = list(v.labels)
    raw = pd.Series(np.asarray(aligned, dtype=object))
    present = raw.notna().to_numpy()
    canon_of = {x: canon(x) for x in pd.unique(raw[present])}
    _check_system_labels(votes, human, v.items, raw, name, scoring)
    sys_vals = [canon_of[x] for x in raw[present]]
    extra = [x for x in dict.fromkeys(sys_vals) if x is not None and x not in human]
    all_labels = human + extra
    index = {lab: k for k, lab in enumerate(all_labels)}
    sys_codes = np.full(len(v.items), -1, dtype=np.int64)
    sys_codes[present] = [index[x] if x is not None else -1 for x in sys_vals]
    values = scale = None
    label_tuple = tuple(all_labels)
    if scoring == "neg_rmse":
        values = _numeric(label_tuple)
        if values is None:
            bad = next((x for x in label_tuple if _numeric((x,)) is None), label_tuple[0])
            raise ValueError(f"scoring='neg_rmse' needs numeric labels, got {bad!r}")
        scale = _common_scale(values)
    return Prepared(items=v.items, raters=v.raters, labels=label_tuple,
                    item=np.asarray(v.item_code, np.int64),
                    rater=np.asarray(v.rater_code, np.int64),
                    code=np.asarray(v.label_code, np.int64), system=sys_codes, values=values,
                    scale=scale, n_human_labels=len(human))


def check_q(q) -> None:
    """Refuse a false discovery rate ``q`` outside (0, 1) (a number; not a bool or text)."""
    if isinstance(q, (bool, np.bool_)) or not isinstance(q, numbers.Real) or \
            not 0.0 < float(q) < 1.0:
        raise ValueError(f"q must be in (0, 1), got {q!r}")


def check_options(*, scoring, epsilon, q, min_humans_per_item, min_items_per_human, test,
                  margin) -> None:
    """Refuse bad options with one line naming the argument."""
    from labelvar.judge._stats import MARGINS, TESTS

    if not (callable(scoring) or scoring in SCORINGS):
        raise ValueError(f"scoring must be 'accuracy', 'neg_rmse' or a callable, got {scoring!r}")
    try:
        eps = math.nan if isinstance(epsilon, (bool, np.bool_)) else float(epsilon)
    except (TypeError, ValueError):
        raise ValueError(f"epsilon must be a number in [0, 1), got {epsilon!r}") from None
    if not (0.0 <= eps < 1.0) or math.isnan(eps):
        raise ValueError(f"epsilon must be in [0, 1), got {epsilon!r}")
    check_q(q)
    for name, v, lo in (("min_humans_per_item", min_humans_per_item, 2),
                        ("min_items_per_human", min_items_per_human, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise ValueError(f"{name} must be a whole number >= {lo}, got {v!r}")
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}, got {test!r}")
    if margin not in MARGINS:
        raise ValueError(f"margin must be one of {', '.join(MARGINS)}, got {margin!r}")
