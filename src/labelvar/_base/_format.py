"""The one table printer: DataFrames as aligned markdown (or CSV) text.

Examples
--------
>>> import pandas as pd
>>> print(markdown_table(pd.DataFrame({"K": [3, 5], "power": [0.81234, float("nan")],
...                                    "ok": [True, False]})))
| K | power  | ok  |
|---|--------|-----|
| 3 | 0.8123 | yes |
| 5 |        |  no |
"""

from __future__ import annotations

import numpy as np


def short_float(x) -> str:
    """A number in 4 significant digits, for messages and titles (``0.33333`` -> ``0.3333``).

    Examples
    --------
    >>> short_float(2 / 3), short_float(12345.6), short_float(2)
    ('0.6667', '1.235e+04', '2')
    """
    return f"{float(x):.4g}"


def exact_float(x) -> str:
    """The shortest text that reads back as the same float (``2.0`` -> ``"2"``).

    Examples
    --------
    >>> exact_float(2.0), exact_float(0.1), float(exact_float(1 / 3)) == 1 / 3
    ('2', '0.1', True)
    """
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def format_cell(value) -> str:
    """Text of one table cell.

    Booleans print as yes/no, NaN as an empty cell, whole floats as integers,
    other floats with 4 decimals (3 significant digits below 1e-3, 6 from 100 up).

    Examples
    --------
    >>> [format_cell(x) for x in (1.0, 0.123456, 1.27e-30, 1234.5678, "a", np.bool_(True))]
    ['1', '0.1235', '1.27e-30', '1234.57', 'a', 'yes']
    >>> format_cell(99.99996)  # not 100.0000
    '100'
    """
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if v != v:
            return ""
        if v.is_integer() and abs(v) < 1e9:
            return str(int(v))
        if abs(v) >= 99.99995:  # (from 99.99995 on, 4 decimals would print 100.0000)
            return f"{v:.6g}"
        return f"{v:.3g}" if abs(v) < 1e-3 else f"{v:.4f}"
    return str(value)


class _Records:
    """A list of row dicts seen through the two DataFrame features the printers use."""

    def __init__(self, rows):
        self.columns = list(rows[0]) if rows else []
        self._rows = rows

    def itertuples(self, index=False):
        return (tuple(r[c] for c in self.columns) for r in self._rows)

    def to_csv(self, index=False):
        """CSV as pandas writes it (repr of floats, NaN as an empty field)."""
        import csv
        import io

        def cell(x):
            if isinstance(x, (float, np.floating)):
                return "" if x != x else repr(float(x))
            return x

        buf = io.StringIO()
        out = csv.writer(buf, lineterminator="\n")
        out.writerow(self.columns)
        out.writerows([cell(x) for x in row] for row in self.itertuples())
        return buf.getvalue()


def markdown_table(table) -> str:
    """Render a DataFrame (or a list of row dicts) as an aligned markdown table.

    Examples
    --------
    >>> import pandas as pd
    >>> markdown_table(pd.DataFrame({"a": ["x"]})).splitlines()[1]
    '|---|'
    """
    if isinstance(table, list):
        table = _Records(table)
    cols = [str(c) for c in table.columns]
    rows = [[format_cell(v) for v in row] for row in table.itertuples(index=False)]
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(cols)]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(cols, widths)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines += ["| " + " | ".join(v.rjust(w) for v, w in zip(r, widths)) + " |" for r in rows]
    return "\n".join(lines)


def render_table(table, fmt: str = "markdown") -> str:
    r"""The table as ``"markdown"`` or ``"csv"`` text (ending in a newline).

    Examples
    --------
    >>> import pandas as pd
    >>> render_table(pd.DataFrame({"a": [1]}), "csv")
    'a\n1\n'
    """
    if isinstance(table, list):  # row dicts: printed without importing pandas
        table = _Records(table)
    if fmt == "csv":
        return table.to_csv(index=False)
    if fmt != "markdown":
        raise ValueError(f"format must be 'markdown' or 'csv'; got {fmt!r}")
    return markdown_table(table) + "\n"


#: ASCII spellings of the symbols in printed tables (for a terminal that cannot show them)
ASCII = {"Δ": "D", "−": "-", "±": "+/-", "′": "'", "…": "...", "×": "x", "≥": ">=", "≤": "<=",
         "→": "->", "—": "--", "–": "-", "κ": "kappa", "α": "alpha"}


def for_stream(text: str, stream) -> str:
    """``text`` as ``stream`` can write it: unchanged, or with ASCII spellings.

    When the stream's encoding cannot encode a character (an ASCII terminal and the
    Δ of the table headers), :data:`ASCII` replaces the known symbols and ``?`` any
    other.

    Examples
    --------
    >>> import io
    >>> stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    >>> for_stream("f1 Δ(E−AI) 0.50±0.02", stream)
    'f1 D(E-AI) 0.50+/-0.02'
    """
    enc = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(enc)
        return text
    except UnicodeEncodeError:
        pass
    except LookupError:  # an encoding Python does not know: assume ASCII
        enc = "ascii"
    for sym, plain_text in ASCII.items():
        text = text.replace(sym, plain_text)
    return text.encode(enc, errors="replace").decode(enc)
