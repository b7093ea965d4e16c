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


def count(n, word: str, plural: str | None = None, *, sep: str = ",") -> str:
    """``n`` and ``word``, plural unless ``n`` is 1 (``"1 chunk"``, ``"3 chunks"``).

    ``sep`` groups the thousands (``""``: none, beside numbers printed without).

    Examples
    --------
    >>> count(1, "annotator"), count(1500, "item"), count(2, "entry", "entries")
    ('1 annotator', '1,500 items', '2 entries')
    >>> count(2340, "annotation", sep="")
    '2340 annotations'
    """
    n = int(n)
    return f"{n:,}".replace(",", sep) + " " + (word if n == 1 else plural or word + "s")


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


# --------------------------------------------------------------------------- result objects
#: longest repr of one field value before it is abbreviated
BRIEF_WIDTH = 60
#: rows of each table a notebook shows (head and tail beyond it)
HTML_ROWS = 12


def brief(value) -> str:
    """A short text of one field value, for a result object's repr.

    Tables and arrays give their shape, long sequences their first items and length,
    floats 4 significant digits; anything else its repr, abbreviated past
    :data:`BRIEF_WIDTH` characters.

    Examples
    --------
    >>> import pandas as pd
    >>> brief(pd.DataFrame({"a": range(500), "b": 0})), brief(np.zeros((5, 2, 2)))
    ('DataFrame(500 rows x 2 columns)', 'array(shape (5, 2, 2))')
    >>> brief(["bc1", "bc2"]), brief(list(range(100))), brief(2 / 3)
    ("['bc1', 'bc2']", '[0, 1, 2, ... (100)]', '0.6667')
    """
    kind = type(value).__name__
    if hasattr(value, "shape") and hasattr(value, "ndim") and value.ndim == 2 and hasattr(value, "columns"):
        return f"{kind}({count(value.shape[0], 'row')} x {count(value.shape[1], 'column')})"
    if hasattr(value, "shape") and hasattr(value, "index"):  # a Series
        return f"{kind}({count(len(value), 'row')})"
    if isinstance(value, np.ndarray):
        if value.size <= 6 and value.ndim <= 1:
            return "[" + ", ".join(brief(x) for x in value.tolist()) + "]"
        return f"array(shape {value.shape})"
    if isinstance(value, (float, np.floating)) and not isinstance(value, bool):
        return short_float(value)
    if isinstance(value, dict) and len(value) > 6:
        return f"dict({count(len(value), 'entry', 'entries')})"
    if isinstance(value, (list, tuple)) and (len(value) > 6 or len(repr(value)) > BRIEF_WIDTH):
        head = ", ".join(repr(x) if len(repr(x)) < 20 else type(x).__name__ for x in value[:3])
        open_, close = ("[", "]") if isinstance(value, list) else ("(", ")")
        return f"{open_}{head}, ... ({len(value):,}){close}"
    text = repr(value)
    if len(text) > BRIEF_WIDTH:
        name = type(value).__name__
        return f"{name}(...)" if text.startswith(name + "(") else text[:BRIEF_WIDTH - 3] + "..."
    return text


class Text(str):
    """Text a repr shows as it is, without quotes (``panel=5 raters [...]``)."""

    def __repr__(self) -> str:
        return str(self)


def short_repr(name: str, fields: dict) -> str:
    """``name(field=value, ...)`` with each value :func:`brief`.

    Examples
    --------
    >>> short_repr("Fit", {"kind": "one_coin", "log_lik": -1234.56789, "raters": ("a", "b")})
    "Fit(kind='one_coin', log_lik=-1235, raters=('a', 'b'))"
    """
    return f"{name}(" + ", ".join(f"{k}={brief(v)}" for k, v in fields.items()) + ")"


def html_table(table, max_rows: int = HTML_ROWS) -> str:
    """A DataFrame as a compact HTML table (numbers as :func:`format_cell` prints them).

    Examples
    --------
    >>> import pandas as pd
    >>> "<td>0.3333</td>" in html_table(pd.DataFrame({"p": [1 / 3]}))
    True
    """
    return table.to_html(max_rows=max_rows, border=0, index=False, na_rep="",
                         formatters=None, float_format=format_cell, notebook=False)


def result_html(name: str, fields: dict, tables: dict | None = None, lines=()) -> str:
    """The notebook view of a result object: its fields, text lines and tables.

    Parameters
    ----------
    name : str
        The class name (the heading).
    fields : dict
        Field -> value, shown as :func:`brief` text in a two-column table.
    tables : dict of str to DataFrame, optional
        Title -> table, each shown after the fields (at most :data:`HTML_ROWS` rows).
    lines : sequence of str
        Text lines shown under the heading (a ``describe()``).

    Examples
    --------
    >>> import pandas as pd
    >>> html = result_html("Fit", {"kind": "one_coin"}, {"skills": pd.DataFrame({"a": [1]})})
    >>> html.startswith("<div") and "<th>kind</th>" in html and "skills" in html
    True
    """
    from html import escape

    parts = [f"<div><strong>{escape(name)}</strong>"]
    parts += [f"<p>{escape(line)}</p>" for line in lines]
    if fields:
        parts.append("<table border=\"0\">" + "".join(
            f"<tr><th>{escape(str(k))}</th><td>{escape(brief(v))}</td></tr>"
            for k, v in fields.items()) + "</table>")
    for title, table in (tables or {}).items():
        if table is None:
            continue
        parts.append(f"<p><em>{escape(str(title))}</em> ({count(len(table), 'row')})</p>")
        parts.append(html_table(table))
    return "\n".join(parts) + "\n</div>"


def _fields_shown(self) -> dict:
    import dataclasses

    return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.repr}


def _tables_shown(self) -> dict:
    return {k: v for k, v in self._shown().items() if hasattr(v, "columns") and hasattr(v, "to_html")}


def _lines_shown(self) -> list:
    return []


def _short_repr(self) -> str:
    return short_repr(type(self).__name__, self._shown())


def _repr_html(self) -> str:
    return result_html(type(self).__name__, self._shown(), self._shown_tables(), self._shown_lines())


def shown(cls):
    """Class decorator: a short ``repr`` and a notebook ``_repr_html_`` for a result dataclass.

    ``_shown()`` gives the fields of the repr (default: the dataclass fields with
    ``repr=True``), ``_shown_tables()`` the tables of the HTML view (default: the
    DataFrame fields), ``_shown_lines()`` text lines above them (default none); a class
    defines its own to choose. Declare the dataclass with ``repr=False`` (under this
    decorator) so that this ``__repr__`` is kept. A decorator, not a base class: the
    public classes' bases stay their own.

    Examples
    --------
    >>> import dataclasses, pandas as pd
    >>> @shown
    ... @dataclasses.dataclass(frozen=True, repr=False)
    ... class Result:
    ...     table: pd.DataFrame
    ...     seed: int
    >>> Result(pd.DataFrame({"a": [1, 2]}), 0)
    Result(table=DataFrame(2 rows x 1 column), seed=0)
    >>> Result.__bases__
    (<class 'object'>,)
    """
    for name, default in (("_shown", _fields_shown), ("_shown_tables", _tables_shown),
                          ("_shown_lines", _lines_shown)):
        if not hasattr(cls, name):
            setattr(cls, name, default)
    if "__repr__" not in cls.__dict__ or getattr(cls.__repr__, "__qualname__", "").endswith(
            "__create_fn__.<locals>.__repr__"):
        cls.__repr__ = _short_repr
    cls._repr_html_ = _repr_html
    return cls


def setting(name: str, doc: str = "") -> property:
    """A read-only attribute kept in a result's ``settings`` record.

    Results keep how they were computed (the options, the counts) in one mapping, so
    their constructors stay small while every value keeps its attribute name.

    Examples
    --------
    >>> import dataclasses
    >>> @dataclasses.dataclass(frozen=True)
    ... class R:
    ...     value: float
    ...     settings: dict
    ...     alpha = setting("alpha", "The significance level.")
    >>> R(0.5, {"alpha": 0.05}).alpha
    0.05
    """
    return property(lambda self: self.settings[name], doc=doc or f"``settings[{name!r}]``.")


def report_page(self, path):
    """Write this result's report page, ``report.html`` (self-contained), to ``path``.

    The page ``labelvar.report`` writes into a report directory (every table and figure,
    the headline with its reference, the settings); returns the path. Results are
    computed below the report layer, so it is imported here, when asked.
    """
    import importlib

    return importlib.import_module("labelvar.report._html_reports").to_html(self, path)
