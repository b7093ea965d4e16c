"""What a label value may be: its kind, and the checks every input path shares.

The one home of "which label values are allowed, and what kind are they". It is used
by the readers (:mod:`labelvar.io`: wide, long and rater CSV files, JSON lines,
prediction files), by :func:`labelvar.read_pilot`, and by
:func:`labelvar.stratify` for the tables it is given, read or not
(:mod:`labelvar.evaluation._tasks`), so a table passed straight to ``stratify`` is refused exactly
as the same table in a file.

Kinds (:func:`kind`)
--------------------
A label is a *number*, *text* or a *boolean*. Every label of a task is of one kind:
else ``"1"`` and ``1``, or ``True`` and ``1``, would be merged into one label unseen,
and ``"yes"`` among numbers taken for a label however often it occurs. A number is
finite: ``inf`` is no label. Where the source types its values (JSON) a string is text
whatever it spells; in a table (a CSV cell, an object in a frame) a value is what
:func:`canon` makes of it, so ``"1"``, ``1`` and ``1.0`` are the number 1 and ``"yes"``
is text. Missing (a vote not given): None, NaN and pandas' NA, and in tables the
texts ``""``, ``"nan"``, ``"NA"``, ``"none"``, ``"null"``, ``"n/a"``; JSON's null (NaN
and Infinity are not JSON and are refused there, not read as missing).

Label sets
----------
A declared label set (``labels=``) lets text and numbers (and ``inf``) mix: values
outside it are stray (:func:`check_declared`: rare ones, under :data:`RARE_SHARE` of
the task's votes, are missing with a note; common ones are refused). Booleans never
mix: ``True`` is the label 1 to :func:`canon`, and no label set can tell them apart.
An inferred label set is refused when it looks wrong (:func:`check_inferred`). A
label list (``labels``, count labels, prediction classes) names each label once
(:func:`distinct`). Two text labels of one task that differ only in case or spacing
(``Entailment`` among ``entailment``) are one label spelt two ways, and are refused
(:func:`check_spellings`) unless the declared label set lists both spellings (then
they are two labels).

Recoding a system's labels onto the panel's, and rating scales of another range, are
:mod:`labelvar.io._scales`'s.

Examples
--------
>>> [kind(x) for x in (1, "1", 1.5, "yes", True, "inf", "", None)]
['number', 'number', 'number', 'text', 'boolean', 'non-finite', None, None]
>>> [kind(x, typed=True) for x in (1, "1", float("nan"))]
['number', 'text', 'non-finite']
>>> table = pd.DataFrame({"r1": [0, 1, 1], "r2": [1, "yes", 0]})
>>> check_table("t", table, None, labels=None)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: panel: the labels of task 't' mix numbers and text: column 'r2' holds 'yes' (item 1; ...
>>> check_table("t", table, None, labels=[0, 1])  # declared: 'yes' is a stray value
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

#: texts that are a missing value in a table cell (case-insensitive, stripped)
MISSING_TEXT = frozenset({"", "nan", "none", "null", "na", "n/a"})
#: a label with a smaller share of a task's votes is *rare* (see :func:`labelvar.stratify`, ``labels``)
RARE_SHARE = 0.005
#: a label of a single vote among at least this many votes is *rare* too, whatever its share
#: (one ``0.5`` among 18 votes 0/1 is a stray value, not a third class)
RARE_SINGLE_MIN = 10
#: an inferred label set of more integers than this is refused (counts given as votes?)
MAX_INT_LABELS = 20
#: the name in a recode map (:mod:`labelvar.io._scales`) that stands for the panel's votes
PANEL = "panel"

_PLURAL = {"number": "numbers", "text": "text", "boolean": "booleans",
           "non-finite": "non-finite numbers"}


# --------------------------------------------------------------------------- one value
def plain(x):
    """Numpy scalars as Python scalars (for readable messages)."""
    return x.item() if isinstance(x, np.generic) else x


def canon(x):
    """The label a table value stands for: None when missing, integral numbers as int.

    Booleans become 0/1 (which is why they never mix with numbers), strings are
    stripped and read as numbers when they spell one (``"1"`` and ``1`` are one label);
    a non-finite number stays a float (``inf``), its text stays text (``"inf"``).

    Examples
    --------
    >>> [canon(x) for x in (True, 2.0, " 3 ", "1.5", "NA", float("nan"), "yes")]
    [1, 2, 3, 1.5, None, None, 'yes']
    """
    if x is None or x is pd.NA:
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
    if s.lower() in MISSING_TEXT:
        return None
    try:  # "1" and 1 are one label (CSV cells, command-line values)
        f = float(s)
    except ValueError:
        return s
    if not np.isfinite(f):
        return s
    return int(f) if f.is_integer() else f


def kind(x, *, typed: bool = False) -> str | None:
    """``"number"``, ``"text"``, ``"boolean"`` or ``"non-finite"``; None when missing.

    ``typed``: the source types its values (JSON), so a string is text whatever it
    spells, and NaN is a non-finite number (JSON has no NaN: it is not a missing vote
    there). Otherwise (table cells) a value is of the kind of :func:`canon`'s label, a
    boolean staying a boolean. Arrays and objects (JSON) are ``"structure"``.
    """
    if x is None or x is pd.NA:
        return None
    if isinstance(x, (bool, np.bool_)):
        return "boolean"
    if isinstance(x, (int, np.integer)):
        return "number"
    if isinstance(x, (float, np.floating)):
        if math.isfinite(x):
            return "number"
        return "non-finite" if typed or x == x else None
    if typed:
        return "text" if isinstance(x, str) else "structure"
    c = canon(x)
    if c is None:
        return None
    if isinstance(c, str):  # text, or the text of a non-finite number ("inf")
        try:
            float(c)
        except ValueError:
            return "text"
        return "non-finite"
    return "number"


def _form(label) -> str | None:
    """Finer than :func:`kind` for a canonical label: ``"whole"`` numbers apart from others."""
    k = kind(label)
    return "whole" if k == "number" and isinstance(label, int) else k


# --------------------------------------------------------------------------- label sets
def sort_key(x):
    """Numbers first, in order, then text (the order of an inferred label set)."""
    return (0, x, "") if isinstance(x, (int, float)) else (1, 0, str(x))


def fmt_labels(labels) -> str:
    """``[0, 1, 'yes']``: a label list as typed in ``labels=[...]``."""
    return "[" + ", ".join(map(repr, labels)) + "]"


def distinct(values, field: str = "labels") -> list:
    """The canonical labels of a label list (``labels``, count labels, classes), each once.

    A label given twice (``e,n,e`` for ``e,n,c``) or a missing one is refused, naming
    ``field``: a repeated count label would lose the counts of the label it stood for.

    Examples
    --------
    >>> distinct(["e", "n", "c"])
    ['e', 'n', 'c']
    >>> distinct(["e", "n", "e"], "pred_classes")
    Traceback (most recent call last):
    ...
    ValueError: pred_classes: 'e' is given twice in ['e', 'n', 'e']; name each label once
    """
    values = list(values)
    lab = [canon(x) for x in values]
    for i, x in enumerate(lab):
        if x is None:
            raise ValueError(f"{field}: {plain(values[i])!r} is a missing value, not a label "
                             f"(in {[plain(v) for v in values]!r})")
        if x in lab[:i]:
            raise ValueError(f"{field}: {plain(values[i])!r} is given twice in "
                             f"{[plain(v) for v in values]!r}; name each label once")
    return lab


def declared(labels) -> list:
    """The canonical labels of a declared set; distinct and non-missing, else ValueError."""
    return distinct(labels, "labels")


def _fold(x):
    """A text label without case and spacing differences (other labels as they are)."""
    return "".join(x.split()).casefold() if isinstance(x, str) else x


def check_spellings(task: str, seen: dict, lab=None) -> None:
    """Refuse two text labels of one task that differ only in case or spacing.

    ``seen`` maps the labels found to their number of votes (or labels); ``lab`` is
    the declared label set, which may list both spellings (they are then two labels).
    The message names both spellings and the recode map folding the rarer into the
    commoner.

    Examples
    --------
    >>> check_spellings("snli", {"entailment": 900, "neutral": 800, "Entailment": 3})
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: panel of task 'snli': labels 'entailment' and 'Entailment' differ only in case ...
    >>> check_spellings("t", {"A": 5, "a": 4}, lab=["A", "a"])  # declared: two labels
    """
    known = set(lab or ())
    pool = dict(seen)
    for x in known:
        pool.setdefault(x, 0)
    first: dict = {}
    for x in pool:
        if not isinstance(x, str):
            continue
        k = _fold(x)
        y = first.setdefault(k, x)
        if y != x and not (x in known and y in known):
            # fold the rarer spelling (or the undeclared one) into the other
            a, b = sorted((y, x), key=lambda z: (z not in known, -pool[z]))
            raise ValueError(
                f"panel of task {task!r}: labels {a!r} and {b!r} differ only in case or "
                f"spacing ({pool[a]:,} and {pool[b]:,} votes): one label spelt two ways? recode "
                f"one into the other (recode='{PANEL}:{b}={a}'), or declare both in the label "
                "set (labels=...) if they are two labels")


def match_label(value, labels: list, field: str):
    """Find ``value`` among ``labels`` (exact, or by its text, so ``"1"`` finds ``1``)."""
    c = canon(value)
    if c in labels:
        return c
    for lab in labels:
        if str(lab) == str(value).strip():
            return lab
    raise ValueError(f"{field}: {value!r} is not in the label set "
                     f"{{{', '.join(map(repr, labels))}}}")


def check_inferred(task: str, seen: dict, total: int) -> None:
    """Refuse an inferred label set that looks wrong: counts given as votes, a stray value.

    ``seen`` maps each canonical label to its number of votes. More than
    :data:`MAX_INT_LABELS` distinct integers look like per-label counts read as votes.
    A rare label (:func:`is_rare`) looks like a stray value
    when, without it, two labels are left, or it is of another form than the others
    (0.5 among integers; other kinds were refused by :func:`check_table`), or an
    integer not next to the others (9 among 1-5). A rare rating next to the others
    (16 ones among 1-5) is kept.
    """
    labels = sorted(seen, key=sort_key)
    if looks_like_counts(labels):
        raise ValueError(
            f"panel of task {task!r} holds {len(labels)} distinct integers "
            f"({labels[0]} to {labels[-1]}): these look like per-label vote counts read as "
            "votes; give count vectors as panel_counts=..., or the label set (labels=...)")
    x = stray_label(seen, total)
    if x is not None:
        rest = [y for y in labels if y != x]
        raise ValueError(
            f"panel of task {task!r}: label {x!r} occurs in {seen[x]} of {total:,} votes "
            f"({100 * seen[x] / total:.2f} %), which looks like a stray value; pass "
            f"labels={fmt_labels(rest)} to drop it as missing or "
            f"labels={fmt_labels(labels)} to keep it")


def looks_like_counts(labels) -> bool:
    """Whether ``labels`` are more than :data:`MAX_INT_LABELS` integers (counts read as votes)."""
    return len(labels) > MAX_INT_LABELS and all(_form(x) == "whole" for x in labels)


def is_rare(n: int, total: int) -> bool:
    """Whether ``n`` of ``total`` votes are rare.

    Rare: under :data:`RARE_SHARE` of them, or a single vote among at least
    :data:`RARE_SINGLE_MIN`.

    Examples
    --------
    >>> is_rare(1, 2000), is_rare(1, 18), is_rare(1, 3), is_rare(2, 18)
    (True, True, False, False)
    """
    return n < RARE_SHARE * total or (n == 1 and total >= RARE_SINGLE_MIN)


def stray_label(seen: dict, total: int):
    """The first label of an inferred set that looks like a stray value, or None.

    ``seen`` maps each canonical label to its number of votes (of ``total``). A rare
    label (:func:`is_rare`: less than :data:`RARE_SHARE` of the votes, or a single vote
    among :data:`RARE_SINGLE_MIN` or more) looks stray when, without it,
    two labels are left, or it is of another form than the others (0.5 among
    integers), or an integer not next to the others (9 among 1-5). A rare rating next
    to the others (16 ones among 1-5) is kept.

    Examples
    --------
    >>> stray_label({0: 1000, 1: 999, 2: 1}, 2000), stray_label({1: 16, 2: 900, 3: 900}, 1816)
    (2, None)
    >>> stray_label({0: 8, 0.5: 1, 1: 9}, 18)
    0.5
    """
    labels = sorted(seen, key=sort_key)
    form = [_form(x) for x in labels]  # (once per label: linear in the number of labels)
    n_form: dict = {}
    for f in form:
        n_form[f] = n_form.get(f, 0) + 1
    for i, x in enumerate(labels):
        if not is_rare(seen[x], total):
            continue
        forms = {f for f, n in n_form.items() if n - (f == form[i]) > 0}  # of the others
        if len(labels) - 1 == 2 or form[i] not in forms:
            return x
        if form[i] == "whole" and forms == {"whole"}:  # all whole, in order: the neighbours
            gaps = [abs(x - labels[j]) for j in (i - 1, i + 1) if 0 <= j < len(labels)]
            if min(gaps) > 1:
                return x
    return None


def check_declared(task: str, seen: dict, total: int, lab: list, notes: list) -> None:
    """Votes outside the declared set ``lab``: common ones refused, rare ones a note.

    Rare (together, :func:`is_rare` of the ``total`` votes): they become
    missing votes, said in one line appended to ``notes``.
    """
    bad = sorted((x for x in seen if x not in lab), key=sort_key)
    n_bad = sum(seen[x] for x in bad)
    if bad and not is_rare(n_bad, total):
        raise ValueError(f"panel of task {task!r} has labels outside the label set "
                         f"{{{', '.join(map(repr, lab))}}}: {', '.join(map(repr, bad[:5]))}"
                         f" ({n_bad} of {total:,} votes); add them to labels=...")
    if bad:
        notes.append(f"task {task!r}: {n_bad} of {total:,} votes outside the label set "
                     f"({', '.join(f'{x!r}: {seen[x]}' for x in bad[:5])}) "
                     "treated as missing")


# --------------------------------------------------------------------------- mixed kinds
def _mixed_kinds(role: str, whole: str, odd: str, other: str, *, n_odd: int, total: int,
                 what: str, odd_at: tuple[str, str], other_at: tuple[str, str],
                 strings: bool, missing: str, hint: str) -> ValueError:
    """The one message for labels of two kinds in one task (JSON or table alike).

    ``odd_at``/``other_at``: (where the value is, what it holds), e.g.
    ``("column 'r2'", "'yes'")``, and the place in parentheses after it.
    """
    plural = dict(_PLURAL, text="strings" if strings else "text")
    (odd_where, odd_value, odd_place), (other_where, other_value, other_place) = odd_at, other_at
    return ValueError(
        f"{role}: the labels of {whole} mix {plural[other]} and {plural[odd]}: {odd_where} "
        f"holds {odd_value} ({odd_place}; {n_odd:,} of {total:,} {what}), {other_where} holds "
        f"{other_value} ({other_place}); they must be all numbers, all {plural['text']} or "
        f"all booleans ({missing}){hint}")


def _hint(kinds, declarable: bool) -> str:
    if "boolean" in kinds:
        return ": booleans do not mix with other labels"
    if declarable:
        return (": correct them, or declare the label set (labels=...): values outside it are "
                "then treated as stray (rare ones dropped as missing, with a note)")
    return ""


def json_token(x) -> str:
    """How a non-finite float is spelled in a JSON file (json's tokens)."""
    return "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")


class JsonLabels:
    """The JSON labels of one task, checked as they are read (JSON lines, the pilot).

    :meth:`add` refuses, with the file, line and field, a label that is an array or
    object, NaN or Infinity; :meth:`check` refuses labels of more than one kind
    (:func:`kind` with ``typed=True``: strings, numbers, booleans), unless
    ``allow_text_and_numbers`` (a declared label set decides which strings and numbers
    are labels); booleans never mix. ``declarable``: the caller takes a label set (the
    message then says so); ``whole``: what the labels are of, in the message.

    Examples
    --------
    >>> seen = JsonLabels("v.jsonl", whole="task 'v'")
    >>> seen.add([1, 0, None], "panel", "votes", 1)
    >>> seen.add(["1"], "panel", "votes", 2)
    >>> seen.check()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: panel: the labels of task 'v' mix numbers and strings: field 'votes' holds "1" ...
    """

    def __init__(self, path, allow_text_and_numbers: bool = False, declarable: bool = True,
                 whole: str = "a task"):
        self.path = path
        self.whole = whole
        self.allow = allow_text_and_numbers
        self.declarable = declarable
        self.first: dict = {}  # kind -> (role, field, line, value) of its first label
        self.count: dict = {}  # kind -> number of labels

    def add(self, values, role: str, field: str, line: int) -> None:
        """Check the labels ``values`` of field ``field`` on line ``line``; null is missing."""
        for x in values:
            k = kind(x, typed=True)
            if k is None:
                continue
            if k == "structure":
                raise ValueError(f"{role}: {self.path}:{line}: field {field!r} holds "
                                 f"{json.dumps(x)[:40]} where a label goes; a label is a "
                                 "string, a number or a boolean (null: missing)")
            if k == "non-finite":
                raise ValueError(f"{role}: {self.path}:{line}: field {field!r} holds "
                                 f"{json_token(x)}, which is not JSON and no label; write "
                                 "null for a missing label")
            if k in self.count:
                self.count[k] += 1
            else:
                self.count[k] = 1
                self.first[k] = (role, field, line, x)

    def check(self) -> None:
        """Refuse labels of more than one kind (see the class)."""
        kinds = sorted(self.count, key=lambda k: (-self.count[k], self.first[k][2]))
        if len(kinds) < 2 or (self.allow and "boolean" not in kinds):
            return
        odd = kinds[-1]  # the rarest kind, then the one seen last
        role, field, line, x = self.first[odd]
        _, field0, line0, x0 = self.first[kinds[0]]
        raise _mixed_kinds(role, self.whole, odd, kinds[0], n_odd=self.count[odd],
                           total=sum(self.count.values()), what="labels",
                           odd_at=(f"field {field!r}", json.dumps(x), f"{self.path}:{line}"),
                           other_at=(f"field {field0!r}", json.dumps(x0), f"line {line0}"),
                           strings=True, missing="null: missing",
                           hint=_hint((odd, kinds[0]), self.declarable))


# --------------------------------------------------------------------------- tables
def column_kinds(col) -> dict:
    """Per kind (:func:`kind`) one value of that kind in ``col`` and its number of cells.

    Categoricals by their categories, numeric columns by their dtype; object columns
    by their distinct values (booleans counted apart: hashing would make ``True`` and
    ``1`` one value).
    """
    col = col if isinstance(col, pd.Series) else pd.Series(col)
    if isinstance(col.dtype, pd.CategoricalDtype):
        # (Categorical.codes: np.asarray of the Series .cat.codes would materialise a
        # text index as Python strings, 200 MB at 2e6 items)
        codes = col.array.codes
        n = np.bincount(codes[codes >= 0].astype(np.intp), minlength=len(col.cat.categories))
        values = [(v, int(k)) for v, k in zip(col.cat.categories, n, strict=True) if k]
    elif isinstance(col.dtype, np.dtype) and col.dtype.kind in "biuf":
        arr = col.to_numpy()
        if arr.dtype.kind == "b":
            return {"boolean": (bool(arr[0]), arr.size)} if arr.size else {}
        if arr.dtype.kind == "f":
            bad = np.isinf(arr)
            ok = ~bad & ~np.isnan(arr)
            finite = int(ok.sum())
            out = {"number": (float(arr[ok][0]), finite)} if finite else {}
            if bad.any():
                out["non-finite"] = (float(arr[bad][0]), int(bad.sum()))
            return out
        return {"number": (plain(arr[0]), arr.size)} if arr.size else {}
    else:  # objects (pivoted long tables, JSON lists, frames given by the caller) or text
        arr = col.to_numpy(dtype=object)
        values = []
        inferred = pd.api.types.infer_dtype(arr, skipna=True)  # (a scan in C)
        if inferred == "boolean":
            is_bool = pd.notna(arr)
        elif inferred in ("mixed", "mixed-integer", "unknown-array"):
            is_bool = np.fromiter((isinstance(x, (bool, np.bool_)) for x in arr), bool, arr.size)
        else:
            is_bool = np.zeros(arr.size, dtype=bool)
        if is_bool.any():
            values.append((bool(arr[is_bool][0]), int(is_bool.sum())))
            arr = arr[~is_bool]
        try:
            codes, uniq = pd.factorize(arr, use_na_sentinel=True)
        except TypeError:  # unhashable cells (lists, ...): their texts
            codes, uniq = pd.factorize(np.array([None if x is None else str(x) for x in arr],
                                                dtype=object), use_na_sentinel=True)
        n = np.bincount(codes[codes >= 0], minlength=len(uniq))
        values += [(v, int(k)) for v, k in zip(uniq, n, strict=True)]
    out: dict = {}
    for v, k in values:
        kd = kind(v)
        if kd is not None:
            first, total = out.get(kd, (v, 0))
            out[kd] = (first, total + k)
    return out


def _first_of_kind(frame: Mapping, index: pd.Index, col, k: str,
                   row_numbers: bool) -> tuple[object, str]:
    """The first cell of ``frame[col]`` of kind ``k``, and where it is.

    Where: ``item 'x'``, or ``data row n`` (1-based) when ``row_numbers``.
    """
    s = frame[col]
    s = s if isinstance(s, pd.Series) else pd.Series(s)
    if isinstance(s.dtype, pd.CategoricalDtype):
        of_kind = np.array([kind(c) == k for c in s.cat.categories] + [False])
        hit = of_kind[s.array.codes]  # (code -1, missing, picks the last slot)
    else:
        hit = np.fromiter((kind(x) == k for x in s.to_numpy(dtype=object)), bool, len(s))
    i = int(np.flatnonzero(hit)[0])
    at = f"data row {i + 1}" if row_numbers else f"item {plain(index[i])!r}"
    return plain(s.iloc[i]), at


def check_table(task: str, panel, systems, *, labels, where: str | None = None,
                roles: tuple[str, str] = ("panel", "systems"), row_numbers: bool = False,
                items: pd.Index | None = None) -> None:
    """Refuse what no label set can hold in one task's table: mixed kinds, ``inf``.

    The votes (``panel``, a DataFrame; None for count panels) are all numbers, all text
    or all booleans, and no ``inf`` (:func:`kind`); the systems' labels (``systems``, a
    DataFrame or a mapping name -> column on the panel's items) are booleans only
    with boolean votes (:func:`canon` would take ``True`` for 1); any other label of
    theirs outside the panel's set is refused by :func:`labelvar.stratify`. With a
    declared label set (``labels``) text and numbers may mix and ``inf`` may occur:
    values outside the set are then stray values (rare ones missing, with a note).

    ``where`` (a file) is named after the item; ``roles`` name the two parts in the
    message; ``row_numbers``: items are named by data row (numbered items), else by
    ``items`` (default: the index of ``panel``, or of ``systems``).
    """
    parts = [(roles[1], systems)] if panel is None else [(roles[0], panel), (roles[1], systems)]
    found: dict = {}  # kind -> [(role, column, cells)]
    index = items
    for role, frame in parts:
        if frame is None:
            continue
        if index is None and isinstance(frame, pd.DataFrame):
            index = frame.index
        for c in (frame.columns if isinstance(frame, pd.DataFrame) else frame):
            for k, (_, n) in column_kinds(frame[c]).items():
                if role == roles[0] or k == "boolean" or "boolean" in found:
                    found.setdefault(k, []).append((role, frame, c, n))
    if labels is not None:  # a declared set decides about text, numbers and inf
        if "boolean" not in found or len(found) < 2:
            return
    elif len(found) < 2 and "non-finite" not in found:
        return
    if index is None:  # systems only, given as a mapping of columns
        first = next(iter(found.values()))[0]
        index = pd.RangeIndex(len(first[1][first[2]]))
    total = sum(n for hits in found.values() for *_, n in hits)
    counts = {k: sum(n for *_, n in hits) for k, hits in found.items()}
    what = "labels" if any(r != roles[0] for hits in found.values() for r, *_ in hits) \
        else "votes"
    of = f" of {where}" if where else ""
    if "non-finite" in found and labels is None:
        role, frame, col, _ = found["non-finite"][0]
        v, at = _first_of_kind(frame, index, col, "non-finite", row_numbers)
        raise ValueError(f"{role}: column {col!r} of task {task!r} holds {v!r} "
                         f"({at}{of}; {counts['non-finite']:,} of {total:,} {what}): a label "
                         "is text or a finite number (empty and NaN cells are missing); "
                         "correct them, or declare the label set (labels=...) to treat it as "
                         "a stray value")
    ranked = sorted(found, key=lambda k: -counts[k])
    odd, other = ranked[-1], ranked[0]
    role, frame, col, _ = found[odd][0]
    v, at = _first_of_kind(frame, index, col, odd, row_numbers)
    _, frame0, col0, _ = found[other][0]
    v0, at0 = _first_of_kind(frame0, index, col0, other, row_numbers)
    raise _mixed_kinds(role, f"task {task!r}", odd, other, n_odd=counts[odd], total=total,
                       what=what, odd_at=(f"column {col!r}", repr(v), at + of),
                       other_at=(f"column {col0!r}", repr(v0), at0), strings=False,
                       missing="empty and NaN cells: missing",
                       hint=_hint((odd, other), declarable=True))


# --------------------------------------------------------------------------- probabilities
def probability_column(col, where: str) -> np.ndarray:
    """A column of probabilities as floats; text that is no number refused (empty: missing).

    Examples
    --------
    >>> probability_column(pd.Series(["0.2", None, 1]), "p").tolist()
    [0.2, nan, 1.0]
    >>> probability_column(pd.Series([0.2, "high"]), "p")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: p: 'high' (row 2) is no probability; a probability is a number in [0, 1] ...
    """
    col = col if isinstance(col, pd.Series) else pd.Series(col)
    num = pd.to_numeric(col, errors="coerce")
    bad = num.isna().to_numpy() & np.array([canon(x) is not None for x in col.to_numpy(object)],
                                           dtype=bool)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{where}: {plain(col.iloc[i])!r} (row {i + 1}) is no probability; a "
                         "probability is a number in [0, 1] (empty or NaN: missing)")
    return num.to_numpy(dtype=float)
