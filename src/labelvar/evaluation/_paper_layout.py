"""The paper's Table 3 layout of :func:`labelvar.stratify`'s tidy table, and the order of strata."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from labelvar._base import _validate as v


def _as_table(result) -> pd.DataFrame:
    """The tidy table of a :class:`StratifiedResult` (or the DataFrame itself)."""
    table = getattr(result, "table", result)
    if not isinstance(table, pd.DataFrame):
        raise TypeError("expected a StratifiedResult or its table (a DataFrame), got "
                        f"{type(result).__name__}")
    return table


_BIN = re.compile(r"^\s*[\[(]\s*([-+0-9.eE]+)\s*,")


def _stratum_key(stratum) -> tuple:
    """Sort key of a stratum label: bins by agreement, then ``all``, then ``pooled``."""
    text = str(stratum)
    if text == "all":
        return (1, 0.0)
    if text == "pooled":
        return (2, 0.0)
    m = _BIN.match(text)
    try:
        return (0, float(m.group(1) if m else text))
    except ValueError:
        return (3, 0.0)  # unknown labels last, in their given order (the sort is stable)


def stratum_order(strata) -> list:
    """Distinct stratum labels in agreement order (numeric), then ``all`` and ``pooled``.

    Bins are ordered by their value (``"0.60"``) or lower edge (``"[0.50, 0.70)"``),
    never as text, so several tasks with different bins interleave correctly.

    Examples
    --------
    >>> stratum_order(["1.00", "all", "0.60", "[0.05, 0.50)", "0.60", "0.8"])
    ['[0.05, 0.50)', '0.60', '0.8', '1.00', 'all']
    """
    return sorted(dict.fromkeys(strata), key=_stratum_key)


def paper_table(table, system: str | None = None, *, metrics: Sequence[str] | None = None,
                digits: int | None = None) -> pd.DataFrame:
    r"""Lay the tidy table out as the paper's Table 3: numbers, or the printed text.

    Columns: ``task, agreement, S, m`` then per metric ``AI, H, E, Δ(H−AI), Δ(E−H),
    Δ(E−AI)``, where H is the human group or, without humans, H'-loo (``stratify``'s
    default) or H' (the paper heads the agreement column :math:`p_d`), its sd (over the
    humans, or the draws) in ``H sd`` (``H'-loo sd``, ...); the self-inclusive H' beside
    H'-loo is headed ``H' (self-incl.)``.
    Without a ``system`` only the ``H, E, Δ(E−H)`` columns are shown, and ``chance``
    (a uniform guesser's expected score). Rows: per task, the bins in increasing
    agreement, then ``all``; with a ``system``, only the tasks it has predictions
    for. When some bin is flagged ``small_bin``, a last column ``note`` says which.

    Parameters
    ----------
    table : StratifiedResult or DataFrame
        Output of :func:`stratify` (or its ``table``).
    system : str, optional
        The system shown in the AI columns.
    metrics : sequence of str, optional
        Metrics to show (default: those in the table, F1 first).
    digits : int, optional
        None (default): the cells are numbers (``S`` an int, scores floats, NaN where
        there is none). An int: the printed layout, every cell text with ``digits``
        decimals (``m`` one more), H as ``mean±sd`` (the ``H sd`` column folded in),
        blank cells where no reference exists: what ``labelvar stratify`` prints.
        The gaps are computed from the unrounded scores, so they may differ by one
        in the last digit from a difference of the printed values (the paper
        subtracts printed values).

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> from labelvar import stratify
    >>> from labelvar.evaluation import Intervals
    >>> panel = [[1, 1, 1], [1, 1, 0], [0, 0, 0], [0, 1, 0]]
    >>> r = stratify(panel, {"ai": [1, 0, 0, 0], "dr": [1, 1, 0, 1]}, humans=["dr"],
    ...              metrics=["accuracy"], intervals=Intervals(n_resamples=0))
    >>> t = paper_table(r, "ai")
    >>> t["accuracy E"].round(4).tolist(), t["S"].tolist()
    ([0.6667, 1.0, 0.8333], [2, 2, 4])
    >>> print(paper_table(r, "ai", digits=2).iloc[:, :7].to_string(index=False))
    task agreement S     m accuracy AI accuracy H accuracy E
    task      0.67 2 0.500        0.50       0.50       0.67
    task      1.00 2 0.500        1.00       1.00       1.00
    task       all 4 0.500        0.75       0.75       0.83
    """
    table = _as_table(table)
    lack = [c for c in ("task", "system", "role", "stratum", "S", "m", "metric", "score", "sd",
                        "expected", "delta_human", "delta_expected") if c not in table.columns]
    if lack:
        raise ValueError(f"paper_table: the table has no column {', '.join(map(repr, lack))}; "
                         "give the result of stratify (or its table)")
    if system is not None and system not in set(table["system"]):
        raise ValueError(f"system {system!r} not in the table; systems: "
                         f"{', '.join(map(str, dict.fromkeys(table['system'])))}")
    if digits is not None and (isinstance(digits, bool) or not isinstance(digits, (int, np.integer))
                               or not 0 <= digits <= 12):
        raise ValueError(f"digits must be None (numbers) or a whole number in [0, 12]; got {digits!r}")
    if metrics is None:
        metrics = [m for m in ("f1", "accuracy") if m in set(table["metric"])]
    else:
        metrics = v.names("metrics", metrics, "metric")
        have = list(dict.fromkeys(table["metric"]))
        odd = [m for m in metrics if m not in have]
        if odd:
            raise ValueError(f"metrics: {odd[0]!r} is not in the table; its metrics are "
                             f"{', '.join(map(repr, have))}")
    roles = set(table["role"])
    ref_role = next((r for r in ("H", "H'-loo", "H'") if r in roles), None)
    nan = float("nan")
    if system is not None:  # partial coverage: the tasks this system was evaluated on
        table = table[table["task"].isin(set(table.loc[table["system"] == system, "task"]))]
    small = table["small_bin"].astype(bool) if "small_bin" in table.columns else None
    task_pos = {task: i for i, task in enumerate(dict.fromkeys(table["task"]))}
    groups = sorted(table.groupby(["task", "stratum"], sort=False),
                    key=lambda kv: (task_pos[kv[0][0]], _stratum_key(kv[0][1])))
    hn = ref_role or "H"
    out = []
    for (task, stratum), g in groups:
        first = g.iloc[0]
        row = {"task": task, "agreement": stratum,
               "S": int(first.S), "m": float(first.m)}
        for metric in metrics:
            gm = g[g.metric == metric]
            if gm.empty:
                continue
            h = gm[gm.role == ref_role].iloc[0] if ref_role else None
            ai = gm[gm.system == system].iloc[0] if system is not None else None
            if ai is not None:
                row[f"{metric} AI"] = float(ai.score)
            row[f"{metric} {hn}"] = float(h.score) if h is not None else nan
            if h is not None:  # H's sd over the humans (H': over the draws)
                row[f"{metric} {hn} sd"] = float(h.sd)
            for role, head in (("H'-loo", "H'-loo"), ("H'", "H' (self-incl.)")):
                extra = gm[gm.role == role]  # beside the reference, labelled
                if role != ref_role and len(extra):
                    row[f"{metric} {head}"] = float(extra.iloc[0].score)
            row[f"{metric} E"] = float(gm.iloc[0].expected)
            if system is None and "chance" in gm.columns:
                row[f"{metric} chance"] = float(gm.iloc[0].chance)
            if ai is not None:  # no humans and no H': no reference (NaN)
                row[f"{metric} Δ({hn}−AI)"] = float(ai.delta_human) if h is not None else nan
            row[f"{metric} Δ(E−{hn})"] = float(h.delta_expected) if h is not None else nan
            if ai is not None:
                row[f"{metric} Δ(E−AI)"] = float(ai.delta_expected)
        if small is not None and small.any():
            row["note"] = "small bin: no test" if small[g.index].any() else ""
        out.append(row)
    numbers = pd.DataFrame(out)
    return numbers if digits is None else _as_text(numbers, metrics, hn, ref_role is not None, digits)


def _fixed(x: float, digits: int) -> str:
    """``x`` with ``digits`` decimals, never ``-0.00`` (a value that rounds to 0 is 0).

    Examples
    --------
    >>> _fixed(-0.001, 2), _fixed(-0.006, 2), _fixed(0.0, 1)
    ('0.00', '-0.01', '0.0')
    """
    text = f"{x:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def _as_text(numbers: pd.DataFrame, metrics, hn: str, has_ref: bool, digits: int) -> pd.DataFrame:
    """The printed layout of :func:`paper_table`'s numbers: text cells, ``mean±sd``."""

    def f(x, d=digits):
        return "NaN" if not np.isfinite(x) else _fixed(x, d)

    text = pd.DataFrame(index=numbers.index)
    refs = {f"{metric} {c}" for metric in metrics for c in (hn, f"Δ({hn}−AI)", f"Δ(E−{hn})")}
    for col in numbers.columns:
        values = numbers[col]
        if col.endswith(" sd"):
            continue
        if col in ("task", "agreement", "note"):
            text[col] = values
        elif col == "S":
            text[col] = values.astype(str)
        elif col == "m":
            text[col] = [f(x, digits + 1) for x in values]
        elif col in refs and not has_ref:  # no reference: blank, not NaN
            text[col] = ""
        elif f"{col} sd" in numbers.columns:  # H: mean±sd
            text[col] = [f(x) + (f"±{_fixed(sd, digits)}" if np.isfinite(sd) else "")
                         for x, sd in zip(values, numbers[f"{col} sd"])]
        else:
            text[col] = [f(x) for x in values]
    return text
