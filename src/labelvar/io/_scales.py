"""Recoding labels onto the panel's, and rating scales of another range.

A system (or the panel) whose labels are another spelling or another scale than the
panel's is mapped onto the panel's labels by an explicit recode map
(:func:`recode_map`, the one definition behind ``stratify(recode=...)`` and
``labelvar stratify --recode``): ``NAME:OLD=NEW,OLD=NEW`` (``gpt4:1=1,2=3,3=5``), a
mapping ``{name: {old: new}}``, or a JSON/YAML file holding that mapping; ``NAME`` is
a system's name or ``panel`` (the panel's votes). A system label outside the panel's
label set is refused naming that fix (:func:`outside_error`). Ratings on another range
(G-Eval's fluency, 1-3, against experts' 1-5) raise no such error, their labels being
in the panel's set: a label set of three or more whole numbers is taken as a rating
scale, and a system whose ratings (two or more distinct ones: a constant answer spans
no scale) start at the scale's bottom but stop below its top, with at least
:data:`RANGE_SHARE` of the panel's votes above them, is refused (:func:`check_scale`)
unless the system has a recode map: the map onto the panel's scale, or the identity map
(``gpt4:1=1,2=2,3=3``), which says that the system rates on the panel's scale and
never used the rest.

What a label value may be (kinds, label sets, spellings) is :mod:`labelvar.io._labels`'s;
these maps are applied by :func:`labelvar.stratify` (``recode=``) before those checks,
to the panel and systems of every task (:func:`recoded`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

from labelvar.io._labels import PANEL, _fold, canon

__all__ = ["RANGE_SHARE", "check_scale", "outside_error", "recode_column", "recode_map",
           "recoded"]

#: a system rating on a shorter span of the panel's scale is refused when at least this
#: share of the panel's votes lies above its span (see :func:`check_scale`)
RANGE_SHARE = 0.05


def recode_map(spec) -> dict:
    """A recode map as ``{name: {old: new}}`` of canonical labels (see the module's notes).

    ``spec``: None (no map); a mapping ``{name: {old: new}}``; a text
    ``NAME:OLD=NEW,OLD=NEW`` (labels holding ``,``, ``=`` or ``:`` need the file
    form), or a path to a ``.json``/``.yaml``/``.yml`` file holding the mapping; or a
    list of those (``--recode`` given several times). ``NAME`` is a system or
    ``panel``. Old and new labels are read as labels are (:func:`canon`: ``"1"`` is
    1); the map is applied once, all pairs at the same time (``1=2,2=3`` sends 1 to 2,
    not to 3); labels it does not name are kept.

    Examples
    --------
    >>> recode_map("gpt4:1=1,2=3,3=5")
    {'gpt4': {1: 1, 2: 3, 3: 5}}
    >>> recode_map(["panel:Entailment=entailment", {"bot": {"yes": 1, "no": 0}}])
    {'panel': {'Entailment': 'entailment'}, 'bot': {'yes': 1, 'no': 0}}
    >>> recode_map("gpt4:1=1,1=2")
    Traceback (most recent call last):
    ...
    ValueError: recode: 'gpt4' maps 1 twice; give each old label once
    """
    out: dict = {}
    if spec is None:
        return out
    specs = spec if isinstance(spec, (list, tuple)) else [spec]
    for one in specs:
        for name, pairs in _recode_entries(one):
            name = str(name).strip()
            if not name:
                raise ValueError("recode: a map without a name; write NAME:OLD=NEW,... (NAME: "
                                 f"a system, or {PANEL!r} for the panel's votes)")
            if name in out:
                raise ValueError(f"recode: {name!r} has two maps; give one map per name")
            table: dict = {}
            for old, new in pairs:
                a, b = canon(old), canon(new)
                if a is None or b is None:
                    raise ValueError(f"recode: {name!r} maps {old!r} to {new!r}; both sides "
                                     "must be labels (a missing value is not recoded)")
                if a in table:
                    raise ValueError(f"recode: {name!r} maps {a!r} twice; give each old "
                                     "label once")
                table[a] = b
            if not table:
                raise ValueError(f"recode: the map of {name!r} is empty; write "
                                 f"{name}:OLD=NEW,OLD=NEW")
            out[name] = table
    return out


def _recode_entries(one):
    """(name, [(old, new), ...]) of one recode spec (a mapping, a text, or a file)."""
    from pathlib import Path

    if isinstance(one, Mapping):
        for name, table in one.items():
            if not isinstance(table, Mapping):
                raise ValueError(f"recode: the map of {name!r} must be old -> new labels, "
                                 f"got {type(table).__name__}")
            yield name, list(table.items())
        return
    if isinstance(one, Path) or (isinstance(one, str) and one.strip().lower().endswith(
            (".json", ".yaml", ".yml"))):
        yield from _recode_entries(_recode_file(Path(one)))
        return
    if not isinstance(one, str):
        raise ValueError(f"recode must be NAME:OLD=NEW,..., a mapping or a file, got "
                         f"{type(one).__name__}")
    name, colon, rest = one.partition(":")
    if not colon:
        raise ValueError(f"recode must be NAME:OLD=NEW,OLD=NEW (or a .json/.yaml file), got "
                         f"{one!r}")
    pairs = []
    for pair in rest.split(","):
        old, eq, new = pair.partition("=")
        if not eq or not old.strip() or not new.strip() or "=" in new:
            raise ValueError(f"recode: {pair.strip()!r} in {one!r} is not OLD=NEW (one '=' per "
                             "pair, pairs separated by commas)")
        if re.fullmatch(r"[^\s:=,]+:[^\s:=,]+", old.strip()) and len(pairs):
            raise ValueError(f"recode: {pair.strip()!r} in {one!r} looks like a second map "
                             f"({old.split(':')[0].strip()!r}); give each map its own --recode "
                             "(recode=[...]) or write them in a .json/.yaml file")
        pairs.append((old.strip(), new.strip()))
    yield name, pairs


def _recode_file(path) -> Mapping:
    """The mapping in a recode file (JSON or YAML)."""
    from labelvar.io._reading import check_file

    try:
        check_file(path)
    except FileNotFoundError as exc:
        raise ValueError(f"recode: {exc}") from None
    text = path.read_text(encoding="utf-8-sig")
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except Exception as exc:  # noqa: BLE001 - any parser's error is one line here
        raise ValueError(f"recode: cannot read {path}: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, Mapping):
        raise ValueError(f"recode: {path} must hold a mapping name -> {{old: new}}, got "
                         f"{type(data).__name__}")
    return data


def recode_column(col, table: Mapping):
    """``col``'s labels mapped by ``table`` (canonical old -> new), as a categorical.

    Each distinct value is read once (:func:`canon`), mapped, and the column kept as
    small integer codes into the recoded labels (missing stays missing).
    """
    if isinstance(getattr(col, "dtype", None), pd.CategoricalDtype):
        cat = col.array if isinstance(col, pd.Series) else col
        codes, uniq = np.asarray(cat.codes), list(cat.categories)
    else:
        arr = col.to_numpy(dtype=object) if isinstance(col, (pd.Series, pd.Index)) \
            else np.asarray(col, dtype=object).ravel()
        try:
            codes, uniq = pd.factorize(arr, use_na_sentinel=True)
        except TypeError:  # unhashable cells: their texts
            codes, uniq = pd.factorize(np.array([None if x is None else str(x) for x in arr],
                                                dtype=object), use_na_sentinel=True)
        uniq = list(uniq)
    new = [canon(x) for x in uniq]
    new = [table.get(x, x) if x is not None else None for x in new]
    values = list(dict.fromkeys(x for x in new if x is not None))
    at = {x: i for i, x in enumerate(values)}
    remap = np.array([at[x] if x is not None else -1 for x in new] + [-1],
                     dtype=np.min_scalar_type(-max(len(values), 1)))
    return pd.Categorical.from_codes(remap[codes], dtype=pd.CategoricalDtype(
        pd.Index(values, dtype=object) if values else pd.Index([], dtype=float)))


def recoded(task: str, panel: pd.DataFrame, systems: dict, recode: Mapping | None,
            counts: bool = False):
    """``panel`` and ``systems`` (name -> column) with the recode maps applied.

    ``recode``: as returned by :func:`recode_map`; the panel's map (``panel``)
    applies to every panel column (not to ``counts``: a count panel's labels are
    named by ``labels``), a system's to its column.
    """
    if not recode:
        return panel, systems
    if counts and PANEL in recode:
        raise ValueError(f"recode: the panel of task {task!r} holds per-label counts; name "
                         "its labels by the label set (labels=...), not a recode map")
    if PANEL in recode and PANEL in systems:
        raise ValueError(f"recode: {PANEL!r} names the panel's votes, and task {task!r} has a "
                         f"system named {PANEL!r} too; rename that system")
    if PANEL in recode:
        panel = pd.DataFrame({c: recode_column(panel[c], recode[PANEL]) for c in panel.columns},
                             index=panel.index)
    systems = {n: (recode_column(v, recode[n]) if n in recode else v) for n, v in systems.items()}
    return panel, systems


def outside_error(task: str, name: str, outside: list, lab: list, declared_set: bool):
    """The error of a system's labels outside the panel's set, naming the fix (recode)."""
    folded = {_fold(x): x for x in lab}
    pairs = [(x, folded.get(_fold(x), "...")) for x in outside[:3]]
    spelling = [f"{x!r} is {folded[_fold(x)]!r} spelt otherwise" for x in outside
                if isinstance(x, str) and _fold(x) in folded][:1]
    hint = "" if declared_set else " (inferred from the panel; or declare it, labels=...)"
    example = ",".join(f"{x}={y}" for x, y in pairs)
    return ValueError(
        f"predictions[{name!r}] (task {task!r}) has labels outside the label set "
        f"{{{', '.join(map(repr, lab))}}}{hint}: {', '.join(map(repr, outside[:5]))}"
        f"{'; ' + spelling[0] if spelling else ''}; map them onto the panel's labels "
        f"(recode='{name}:{example}')")


def check_scale(task: str, name: str, used: list, lab: list, votes, mapped: bool) -> None:
    """Refuse a system rating on a shorter span of the panel's scale (another scale?).

    The span starts at the scale's bottom and stops below its top (1-3 of 1-5), with at
    least :data:`RANGE_SHARE` of the panel's votes above it.

    ``used``: the labels the system gave; ``lab``: the panel's labels; ``votes``: the
    panel's votes per label (in ``lab`` order); ``mapped``: the system has a recode map
    (its scale is stated, see the module's notes). Only label sets of three or more
    whole numbers are scales.

    Examples
    --------
    >>> check_scale("fluency", "gpt4", [1, 2, 3], [1, 2, 3, 4, 5], [2, 3, 10, 40, 45], False)
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: predictions['gpt4'] (task 'fluency') rate on 1-3, the panel on 1-5 (85 % ...
    >>> check_scale("fluency", "gpt4", [1, 2, 3], [1, 2, 3, 4, 5], [2, 3, 10, 40, 45], True)
    """
    if mapped or len(lab) < 3 or len(set(used)) < 2 or not all(
            isinstance(x, int) for x in list(lab) + list(used)):
        return  # (one answer throughout, a constant baseline, spans no scale)
    lo, hi, plo, phi = min(used), max(used), min(lab), max(lab)
    if lo != plo or hi >= phi:  # (a scale of another range starts where the panel's does)
        return
    votes = np.asarray(votes, dtype=float)
    out = np.array([x > hi for x in lab])
    share = float(votes[out].sum() / votes.sum()) if votes.sum() else 0.0
    if share < RANGE_SHARE:
        return
    onto = [plo + (x - lo) * (phi - plo) / (hi - lo) for x in range(lo, hi + 1)]
    target = ",".join(f"{x}={round(y)}" for x, y in zip(range(lo, hi + 1), onto, strict=True))
    fix = f"map it onto the panel's (recode='{name}:{target}'); if"
    ident = ",".join(f"{x}={x}" for x in range(lo, hi + 1))
    raise ValueError(
        f"predictions[{name!r}] (task {task!r}) rate on {lo}-{hi}, the panel on {plo}-{phi} "
        f"({100 * share:.0f} % of its votes above {hi}): another scale? {fix} it rates "
        f"on the panel's scale and never used the rest, say so with the identity map "
        f"(recode='{name}:{ident}')")
