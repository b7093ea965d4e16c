r"""Systems that give several sampled answers per item (an LLM judge asked n times).

G-Eval asks GPT-4 20 times per summary (``all_responses``); an LLM labeller run at a
temperature above 0 gives a spread of answers rather than one. Such a system is an
items x samples table (:attr:`labelvar.io.TaskData.samples`: system -> a DataFrame on
the panel's item index, NaN where an item has fewer samples). From it:

- the **modal answer** (:func:`modal_answer`), scored like any system's label. Tie
  rule ``"first_sample"`` (the default, and the paper's: Python's
  ``Counter(samples).most_common(1)``): among the labels sampled most often, the one
  sampled first; ``"label_order"``: the first in the task's label order;
- the **sample shares** (:func:`sample_shares`): each item's distribution of the
  system's answers, scored as a probability output against the panel's vote shares
  (cross-entropy, total variation: the probability scores of :func:`labelvar.stratify`);
- per bin, the system taken as **one more annotator panel** (:func:`sample_rows`):
  ``self_agreement``, the mean share of its samples at its own mode (its observed
  agreement, as the panel's is top count / K), and ``sample_accuracy``, the mean share
  of its samples that equal the panel's majority label (the expected accuracy of one
  sampled answer; against it ``expected`` is the coin model's E). "The LLM agrees with
  itself 0.9 but with the experts' majority 0.3 in unanimous items" reads
  ``self_agreement`` 0.9 and ``sample_accuracy`` 0.3 in the bin at agreement 1.

:func:`labelvar.stratify` does all of this for every system of a task's ``samples``
(:func:`expand` before it reads the tasks, :func:`sample_rows` per task); the
answers are read by :func:`labelvar.io.attach_predictions` (a list field, repeated
rows per item, or one column per sample), and a free-text answer (``" 4"``, ``"4 -
the summary ..."``) becomes its leading number with ``parse="number"``
(:func:`parse_answer`).

Examples
--------
>>> s = pd.DataFrame([[4, 3, 3, 4], [2, 2, 2, 5]], index=["a", "b"])
>>> modal_answer(s).tolist()
[4, 2]
>>> sample_shares(s, [2, 3, 4, 5]).to_numpy().tolist()
[[0.0, 0.5, 0.5, 0.0], [0.75, 0.0, 0.0, 0.25]]
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from labelvar.io._labels import PANEL, canon, kind, sort_key

__all__ = ["PARSERS", "SAMPLE_METRICS", "SAMPLE_TIE_RULES", "modal_answer", "parse_answer",
           "recode_samples", "sample_shares"]

#: how a sampled answer is read: as it is, or as the number it starts with
PARSERS = ("none", "number")
#: tie rules of :func:`modal_answer`
SAMPLE_TIE_RULES = ("first_sample", "label_order")
#: rows :func:`sample_rows` adds to a stratify table, per sampled system and bin
SAMPLE_METRICS = ("self_agreement", "sample_accuracy")
#: the tie rule :func:`labelvar.stratify` uses for a sampled system's modal answer
STRATIFY_TIE_RULE = "first_sample"

#: a leading number read whole: sign, digits, decimals, exponent, then no letter, digit or
#: point, and no comma, slash or dash before a digit (``"1e3"`` is 1000; ``"4abc"``,
#: ``"4.5.6"``, ``"1,000"``, ``"4, 5"``, the fraction ``"1/2"`` and the range ``"4-5"`` are
#: no number it could read whole: reading ``1`` of ``"1/2"`` would read a part of it)
_LEADING_NUMBER = re.compile(
    r"^\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)"
    r"(?![\w.]|\s*[,/\u2044\u2215:\-\u2010-\u2015\u2212]\s*\d)")


def parse_answer(x, parse: str = "number"):
    r"""One sampled answer as a label: as it is (``"none"``), or its leading number.

    ``"number"`` reads the number a free-text answer starts with, after white space
    (G-Eval's answers are ``" 4"``, sometimes ``"4\n\nThe summary ..."``): an
    integral number is an int. The number is read whole (``"1e3"`` is 1000, not 1) and
    must end where a word would (``"4abc"``, ``"4.5.6"`` read no number); a fraction,
    range, ratio or list (``"1/2"``, ``"4-5"``, ``"3:4"``, ``"1, 2"``) is no one number.
    An answer that starts with no number so read (``"Score: 4"``, ``""``), or whose number is not
    finite (``"1e999"``), is missing (None); :func:`labelvar.io.attach_predictions`
    counts them. Numbers (JSON) are kept as they are (non-finite ones: missing).

    Examples
    --------
    >>> [parse_answer(x) for x in (" 4", "3.5 points", "2\n\nThe summary", 5, "Score: 4", None)]
    [4, 3.5, 2, 5, None, None]
    >>> [parse_answer(x) for x in ("1e3", "1/2", "4, fluent", "4abc", "1,000", "1e999")]
    [1000, None, 4, None, None, None]
    >>> parse_answer(" 4", "none")
    ' 4'
    """
    if parse not in PARSERS:
        raise ValueError(f"parse must be one of {', '.join(PARSERS)}; got {parse!r}")
    if parse == "none" or x is None:
        return x
    if isinstance(x, (bool, np.bool_)):
        return None
    if isinstance(x, (int, float, np.integer, np.floating)):
        c = canon(x)
        return c if c is None or kind(c) == "number" else None
    m = _LEADING_NUMBER.match(str(x))
    if not m:
        return None
    c = canon(m.group(1))
    return c if kind(c) == "number" else None


def _first_mode(values, order) -> object:
    """The modal value of ``values`` (None skipped); ties by first sample or by ``order``."""
    got = [v for v in values if v is not None]
    if not got:
        return None
    counts = Counter(got)  # insertion order: most_common breaks ties by first appearance
    if order is None:
        return counts.most_common(1)[0][0]
    top = max(counts.values())
    return min((v for v, c in counts.items() if c == top), key=order)


def _rows(samples: pd.DataFrame) -> list[list]:
    """The canonical labels of each item's samples (missing ones left out)."""
    if not isinstance(samples, pd.DataFrame):
        raise ValueError("samples must be a DataFrame, items x samples (one row per item, one "
                         f"column per sampled answer), got {type(samples).__name__}")
    return [[c for c in map(canon, row) if c is not None]
            for row in samples.to_numpy(dtype=object)]


def modal_answer(samples: pd.DataFrame, tie_rule: str = "first_sample") -> pd.Series:
    """Each item's most frequent sampled answer.

    Parameters
    ----------
    samples : pandas.DataFrame
        Items x samples, in the order sampled (NaN/None: no answer).
    tie_rule : {"first_sample", "label_order"}
        Among labels sampled equally often: the one sampled first (Python's
        ``Counter.most_common``, the paper's rule), or the first in label order
        (numbers ascending, then text).

    Returns
    -------
    pandas.Series
        On ``samples``' index; None where an item has no answer.

    Examples
    --------
    >>> s = pd.DataFrame([[3, 4, 4, 3], ["b", "a", None, None]])
    >>> modal_answer(s).tolist(), modal_answer(s, "label_order").tolist()
    ([3, 'b'], [3, 'a'])
    """
    if tie_rule not in SAMPLE_TIE_RULES:
        raise ValueError(f"tie_rule must be one of {', '.join(SAMPLE_TIE_RULES)}; "
                         f"got {tie_rule!r}")
    order = None if tie_rule == "first_sample" else sort_key
    return pd.Series([_first_mode(r, order) for r in _rows(samples)], index=samples.index,
                     dtype=object)


def _tied(rows: list[list]) -> int:
    """Items whose most frequent answer is shared by several labels."""
    n = 0
    for r in rows:
        if r:
            top = Counter(r).most_common(2)
            n += len(top) == 2 and top[0][1] == top[1][1]
    return n


def sample_shares(samples: pd.DataFrame, labels: Sequence, where: str = "samples",
                  name: str | None = None) -> pd.DataFrame:
    """Each item's distribution of sampled answers over ``labels`` (rows sum to 1).

    An item without an answer has a row of NaN; an answer outside ``labels`` is
    refused, naming it (no share of it would be scored) and, for the system ``name``,
    the recode map that would send it onto the labels.

    Examples
    --------
    >>> sample_shares(pd.DataFrame([[1, 1, 0, None]]), [0, 1]).round(3).to_numpy().tolist()
    [[0.333, 0.667]]
    """
    labels = list(labels)
    pos = {lab: j for j, lab in enumerate(labels)}
    out = np.full((len(samples), len(labels)), np.nan)
    for i, r in enumerate(_rows(samples)):
        if not r:
            continue
        odd = [x for x in r if x not in pos]
        if odd:
            fix = "" if name is None else (f"; map it onto them (recode='{name}:{odd[0]}="
                                           f"{labels[0]},...')")
            raise ValueError(f"{where}: item {samples.index[i]!r} has the answer {odd[0]!r}, "
                             f"outside the label set {labels!r}{fix}"
                             + ("; free-text answers are read as their leading number with "
                                "parse='number'" if isinstance(odd[0], str) else ""))
        out[i] = np.bincount([pos[x] for x in r], minlength=len(labels)) / len(r)
    return pd.DataFrame(out, index=samples.index, columns=labels)


# --------------------------------------------------------------------------- stratify hooks
def _label_set(panel: pd.DataFrame, labels, counts: bool, table: Mapping | None = None) -> list:
    """The labels the shares are over: declared, the count columns, else those the panel uses.

    (As :func:`labelvar.stratify` infers them, after the panel's recode map ``table``:
    a sampled answer outside is refused.)
    """
    if labels is not None and not isinstance(labels, str):
        return [canon(x) for x in labels]
    if counts:
        return [canon(c) for c in panel.columns]
    seen = {canon(x) for x in pd.unique(panel.to_numpy(dtype=object).ravel())}
    seen.discard(None)
    if table:
        seen = {table.get(x, x) for x in seen}
    return [0, 1] if seen <= {0, 1} else sorted(seen, key=sort_key)


def recode_samples(samples: pd.DataFrame, table: Mapping) -> pd.DataFrame:
    """Every sampled answer mapped by ``table`` (canonical old -> new); others kept.

    Applied before the modal answer and the sample shares, so that every sample-based
    score is on the recoded scale.

    Examples
    --------
    >>> s = pd.DataFrame([[" 1", "2", None], [3, 3, 1]])
    >>> recode_samples(s, {1: 1, 2: 3, 3: 5}).to_numpy().tolist()
    [[1, 3, None], [5, 5, 1]]
    """
    def one(x):
        c = canon(x)
        return None if c is None else table.get(c, c)

    return pd.DataFrame([[one(x) for x in row] for row in samples.to_numpy(dtype=object)],
                        index=samples.index, columns=samples.columns, dtype=object)


def expand(data, labels=None, panel_counts: bool = False, recode: Mapping | None = None):
    """Tasks whose ``samples`` systems get their modal answer and sample shares; and what was done.

    For :func:`labelvar.stratify`: each sampled system becomes a prediction (its
    modal answer, tie rule :data:`STRATIFY_TIE_RULE`) and a probability output (its
    sample shares) of the same name. ``recode`` (as :func:`labelvar.io._scales.recode_map`
    returns it): a sampled system's map is applied to every sampled answer first, so its
    modal answer, shares, ``self_agreement`` and ``sample_accuracy`` are all on the
    recoded scale (and raw answers outside the panel's labels that the map sends into
    them are accepted); the shares are over the panel's labels after its own map.

    Returns ``(data, info, recode)``: ``info`` per task and system: ``samples_min``,
    ``samples_max`` (answers per item), ``tied`` (items whose mode was a tie) and
    ``tie_rule``; ``recode`` with each applied map replaced by the identity on its new
    labels (the modal answer is recoded already; the identity keeps it marked as
    mapped for :func:`labelvar.io._scales.check_scale`). Anything but a mapping of tasks
    with samples is returned as it is.
    """
    recode = dict(recode or {})
    if not isinstance(data, Mapping) or not any(getattr(td, "samples", None)
                                                for td in data.values()):
        return data, {}, recode
    out, info, applied = {}, {}, set()
    for name, td in data.items():
        samples = getattr(td, "samples", None) or {}
        if not samples:
            out[name] = td
            continue
        pred = td.predictions.copy() if td.predictions is not None else \
            pd.DataFrame(index=td.panel.index)
        probs = dict(td.probabilities or {})
        counts = panel_counts or td.counts
        lab = _label_set(td.panel, labels if labels is not None else td.labels, counts,
                         None if counts else recode.get(PANEL))
        info[str(name)] = {}
        for sys_name, s in samples.items():
            if sys_name in pred.columns or sys_name in probs:
                raise ValueError(f"samples: system {sys_name!r} of task {name!r} has sampled "
                                 "answers and also a label or probabilities; give one of the two "
                                 "(or name them apart)")
            if not s.index.equals(td.panel.index):
                raise ValueError(f"samples: the answers of {sys_name!r} (task {name!r}) are not on "
                                 "the panel's item index; build them with "
                                 "labelvar.io.attach_predictions")
            if str(sys_name) in recode and str(sys_name) != PANEL:
                s = recode_samples(s, recode[str(sys_name)])
                applied.add(str(sys_name))
            rows = _rows(s)
            n = np.array([len(r) for r in rows])
            pred[sys_name] = modal_answer(s, STRATIFY_TIE_RULE).to_numpy()
            probs[sys_name] = sample_shares(s, lab, f"samples of {sys_name!r} (task {name!r})",
                                            name=str(sys_name))
            info[str(name)][str(sys_name)] = dict(
                samples_min=int(n[n > 0].min()) if (n > 0).any() else 0,
                samples_max=int(n.max()) if n.size else 0, tied=_tied(rows),
                tie_rule=STRATIFY_TIE_RULE)
        out[name] = td._replace(predictions=pred, probabilities=probs, samples=None)
    for n in applied:
        plain = [t for t, td in data.items() if td.predictions is not None
                 and n in map(str, td.predictions.columns)]
        if plain:  # (its map would be applied to one and not to the other)
            raise ValueError(f"recode: {n!r} gives sampled answers in one task and one label "
                             f"per item in task {plain[0]!r}; give the two systems two names")
        recode[n] = {x: x for x in recode[n].values()}
    return out, info, recode


def sample_rows(frame: pd.DataFrame, t, groups, systems) -> pd.DataFrame:
    """``frame`` (one task's stratify rows) with the :data:`SAMPLE_METRICS` rows of ``systems``.

    ``t`` is the prepared task (its ``probs[system]`` are the sample shares of the
    evaluated items, ``majority`` their ground truth), ``groups`` the (stratum, item
    indices) pairs. ``sample_accuracy`` gets the bin's expected accuracy E and
    ``delta_expected = E - sample_accuracy``; intervals, p-values and the human gap
    are not computed for these rows (NaN).
    """
    systems = [s for s in systems if s in t.probs]
    if not systems or frame.empty:
        return frame
    acc = frame[frame["metric"] == "accuracy"]
    base = (acc if len(acc) else frame).drop_duplicates("stratum").set_index("stratum")
    rows = []
    for s in systems:
        shares = t.probs[s]
        own = np.nanmax(shares, axis=1)
        hit = shares[np.arange(shares.shape[0]), t.majority.astype(np.intp)]
        for name, idx in groups:
            if name not in base.index:
                continue
            b = base.loc[name]
            common = dict(task=t.name, system=s, role="system", stratum=name,
                          agreement=b["agreement"], S=int(b["S"]), small_bin=b["small_bin"],
                          m=b["m"], n_labels=b["n_labels"], sd=np.nan, ci_low=np.nan,
                          ci_high=np.nan, chance=np.nan, delta_human=np.nan, p_random=np.nan,
                          p_random_prior=np.nan)
            # the bin's own descriptors (e.g. its tie rule and ties), as on its other rows
            common.update({c: b[c] for c in frame.columns if c not in common
                           and c not in ("metric", "score", "expected", "delta_expected")})
            e = b["expected"] if len(acc) else np.nan
            sa = float(own[idx].mean()) if idx.size else np.nan
            sc = float(hit[idx].mean()) if idx.size else np.nan
            rows.append(dict(common, metric="self_agreement", score=sa, expected=np.nan,
                             delta_expected=np.nan))
            rows.append(dict(common, metric="sample_accuracy", score=sc, expected=e,
                             delta_expected=e - sc))
    extra = pd.DataFrame(rows, columns=list(frame.columns))
    return pd.concat([frame, extra], ignore_index=True)
