"""Reading CSV/TSV tables for :mod:`labelvar.io`: whole, or the needed columns compactly.

A large wide file is read a block of rows at a time, keeping only the columns used:
votes and predictions as small integer codes (categoricals), ids as read, with no
block held once it is read. Item ids become text without a Python string per id
(:func:`as_text`) and are checked for repeats by sorting (:func:`has_repeats`).
Parser problems become one ValueError line naming the file (:func:`parsing`), and so
do what the parser would take silently: two columns of one name (:func:`header`; pandas
would rename the second ``weak.1``) and a row with fewer cells than the header (a file
cut mid-row, a cell left out: pandas would pad it with missing cells, shifting nothing
back; :func:`_check_rows`). Id columns (``text=``) are read as text, exactly as written:
``0001``, ``01`` and ``1.0`` are three ids, not the number 1.
"""

from __future__ import annotations

import contextlib
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

#: rows of a wide file parsed at a time (its vote and system columns kept as label codes)
_CHUNK_ROWS = 1 << 16
#: item ids converted to text at a time
_TEXT_ROWS = 1 << 15


def separator(path: Path, sep: str | None) -> str:
    """The field separator: ``sep``, else tab for ``.tsv``/``.tab`` files, else comma."""
    if sep is not None:
        return sep
    suffixes = [x.lower() for x in Path(path).suffixes]
    if suffixes and suffixes[-1] in _COMPRESSED:  # votes.tsv.gz
        suffixes = suffixes[:-1]
    return "\t" if suffixes and suffixes[-1] in (".tsv", ".tab") else ","


#: suffixes pandas reads compressed CSV/TSV from (``compression="infer"``)
_COMPRESSED = (".gz", ".bz2", ".zip", ".xz", ".zst", ".tar")


def _binary_kind(path: Path, head: bytes) -> str | None:
    """What a file that is no UTF-8 text table is, and the fix; None for text.

    A compressed file named for its compression (``.csv.gz``, ``.zip``, ...) is text to
    pandas, which decompresses it: None.
    """
    if path.suffix.lower() in _COMPRESSED:
        return None
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "it is UTF-16 text; save it as UTF-8"
    if b"\0" not in head:
        return None
    if head.startswith(b"\x1f\x8b"):
        return ("it is gzip-compressed; name it .gz (e.g. votes.csv.gz) or decompress it "
                "(gunzip)")
    if head.startswith(b"PAR1") or path.suffix.lower() in (".parquet", ".pq"):
        return ("it is a parquet file, and this reader reads CSV/TSV text (parquet: "
                "labelvar.io.read_votes); save it as CSV")
    if head.startswith(b"PK"):
        return "it is a zip archive (an Excel workbook?); save the sheet as CSV (UTF-8)"
    return "it holds binary data, not CSV/TSV text; save it as CSV (UTF-8)"


@contextlib.contextmanager
def parsing(path: Path):
    """Turn what the CSV parser refuses into one ValueError line naming the file.

    A file holding NUL bytes (an Excel workbook, a zip, parquet) or no UTF-8 text is
    said to be no text table; an empty file is said to be empty.
    """
    head = b""
    with contextlib.suppress(OSError), open(path, "rb") as fh:
        head = fh.read(4096)
    what = _binary_kind(Path(path), head)
    if what:
        raise ValueError(f"cannot read {path} as a table: {what}")
    try:
        with warnings.catch_warnings():  # a row longer than the header is an error, not an index
            warnings.simplefilter("error", pd.errors.ParserWarning)
            yield
    except pd.errors.ParserWarning:
        raise ValueError(f"cannot read {path} as a table: some rows have more cells than "
                         "the header") from None
    except pd.errors.EmptyDataError:
        raise ValueError(f"cannot read {path} as a table: the file is empty (no header row); "
                         "write a header row of column names, then one row per line") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"cannot read {path} as a table: it is not UTF-8 text ({exc.reason} at "
                         f"byte {exc.start}); save it as CSV/TSV in UTF-8") from None
    except pd.errors.ParserError as exc:
        raise ValueError(f"cannot read {path} as a table: {str(exc).splitlines()[0]}") from None


def header(path: Path, sep: str) -> list[str]:
    """The column names of a CSV/TSV file (stripped), as written; a repeated name refused.

    (Read as the file's first row, so that pandas' renaming of a repeated name,
    ``weak`` and ``weak.1``, cannot hide it.)
    """
    with parsing(path):
        first = pd.read_csv(path, sep=sep, header=None, nrows=1, dtype=str,
                            keep_default_na=False, skipinitialspace=True, index_col=False)
    names = [str(c).strip() for c in first.iloc[0]] if len(first) else []
    if len(names) == 1 and sep in (",", "\t"):
        other = next((c for c in (";", "\t", ",", "|") if c != sep and c in names[0]), None)
        if other is not None:
            said = {"\t": "tabs", ",": "commas", ";": "semicolons", "|": "'|'"}
            raise ValueError(f"cannot read {path} as a table: its header {names[0][:60]!r} is "
                             f"one column, its names separated by {said[other]} where this "
                             f"reader expects {said[sep]}; save it "
                             f"{'comma separated (.csv)' if sep == ',' else 'tab separated'}"
                             f"{' or name it .tsv' if other == chr(9) else ''}")
    seen: dict[str, int] = {}
    for j, name in enumerate(names):
        if name and name in seen:
            raise ValueError(f"cannot read {path} as a table: columns {seen[name] + 1} and "
                             f"{j + 1} are both named {name!r}; give every column its own name")
        seen.setdefault(name, j)
    return names


def read_table(path: Path, sep: str, text=()) -> pd.DataFrame:
    """A whole CSV/TSV file as strings-or-numbers, empty cells missing, names stripped.

    The columns named in ``text`` (ids) are read as text, exactly as written.
    """
    names = header(path, sep)
    _check_rows(path, sep, len(names))
    with parsing(path):
        df = pd.read_csv(path, sep=sep, skipinitialspace=True, index_col=False,
                         dtype=_text_dtypes(names, text))
    df.columns = [str(c).strip() for c in df.columns]
    return df


def _text_dtypes(names: list[str], text) -> dict | None:
    """``read_csv``'s ``dtype`` reading the columns ``text`` (stripped names) as text."""
    want = set(text)
    # (read_csv keys dtypes by the names as written, before they are stripped)
    return {j: str for j, n in enumerate(names) if n in want} or None


def read_columns(path: Path, sep: str, choose, chunk_rows: int | None = None) -> pd.DataFrame:
    """The columns ``choose(header)`` names of a CSV/TSV file, read a block of rows at a time.

    ``choose`` gets the (stripped) column names and returns the columns to keep, in
    file order, and those of them to keep as read (ids, tasks); the others (votes,
    predictions) are kept as categoricals (a small integer code per row into the
    column's distinct values). The file is parsed :data:`_CHUNK_ROWS` rows at a time
    (``chunk_rows``: another block size); every column is parsed, so a row longer than
    the header is refused as by :func:`read_table`. Each block's columns are typed by
    pandas on their own, as pandas types the internal blocks of any large file (``1``
    in one block and ``"1"`` in another are one label to :func:`labelvar.stratify`).
    When ``choose`` raises ValueError the whole file is read by :func:`read_table`,
    and the caller names the problem as from the whole table.
    """
    names = header(path, sep)
    try:
        keep, plain = choose(names)
    except ValueError:
        return read_table(path, sep)
    # at least the rows, unless lines end in a lone carriage return; ids an integer
    # would not spell as written are read as text, the others as numbers (compact)
    rows, as_text_at = _check_rows(path, sep, len(names), [names.index(c) for c in plain])
    text = [names[j] for j in as_text_at]
    columns, n_rows, again = _read_blocks(path, sep, names, keep, plain, text, rows, chunk_rows)
    while again is not None:  # an id column parsed as numbers it does not spell: as text
        text.append(again)
        columns, n_rows, again = _read_blocks(path, sep, names, keep, plain, text, rows,
                                              chunk_rows)
    if not n_rows:  # a header without rows
        return read_table(path, sep, plain)
    return pd.DataFrame({c: col.column() for c, col in columns.items()})


def _read_blocks(path: Path, sep: str, names: list[str], keep: list[str], plain, text: list,
                 rows: int, chunk_rows: int | None):
    """The columns ``keep`` read block by block: ``(columns, rows read, None)``.

    Or ``(None, 0, name)`` at the first id column (in ``plain``, not yet in ``text``)
    that a block parses as floats or booleans: ids such as ``1.0``, ``1e3`` or ``true``
    must be read as text, exactly as written, from the start.
    """
    at = [names.index(c) for c in keep]
    columns = {c: _Plain(rows) if c in plain else _Coded(rows) for c in keep}
    n_rows = 0
    opts = dict(sep=sep, skipinitialspace=True, index_col=False, dtype=_text_dtypes(names, text))
    with parsing(path), pd.read_csv(path, chunksize=chunk_rows or _CHUNK_ROWS,
                                    **opts) as reader:
        for chunk in reader:
            n_rows += len(chunk)
            for c, j in zip(keep, at, strict=True):
                col = chunk.iloc[:, j]
                if c in plain and c not in text and col.dtype.kind in "fb":
                    return None, 0, c
                columns[c].add(col)
    return columns, n_rows, None


def _line_count(path: Path) -> int:
    """Lines of a text file (newlines + 1), counted a megabyte at a time."""
    n = 1
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            n += block.count(b"\n")
    return n


_BLANK = np.zeros(256, dtype=bool)
_BLANK[list(b" \t\r\n")] = True


def _check_rows(path: Path, sep: str, n_cols: int, text_at=()) -> tuple[int, set]:
    """Refuse a row with fewer cells than the header's; the line count, and ids to read as text.

    A row cut short (a file truncated mid-row, a cell left out) would be padded with
    missing cells by the parser, its values read into the wrong columns or as missing
    votes. Cells are counted by separators outside double quotes (RFC 4180 quoting:
    a quoted separator or line break is part of a cell), :data:`_ROW_BLOCK` bytes of
    whole rows at a time; blank lines are skipped as the parser skips them. Longer rows are refused
    by the parser (:func:`parsing`). With a separator of several characters (a
    regular expression) only the lines are counted.

    ``text_at``: positions of id columns; returned are those of them holding a cell
    an integer would not spell as written (``0001``, ``+1``, ``-0``, a leading
    space), which must be read as text (the others are parsed as numbers, compactly,
    and turned to text exactly).
    """
    if len(sep.encode()) != 1 or n_cols < 2:
        return _line_count(path), set(text_at)
    sep_code = sep.encode()[0]
    lines = 1  # physical lines before this block (newlines + 1)
    header_seen = False
    needs_text: set = set()
    for b, final in _row_blocks(path):
        if b is None:  # a line beyond any block: count the lines only
            return _line_count(path), set(text_at)
        is_nl = b == _NL
        if (b == _QUOTE).any():  # after an odd number of quotes: inside a cell
            out = (np.cumsum(b == _QUOTE, dtype=np.int32) & 1) == 0
            ends = np.flatnonzero(is_nl & out)
            seps = np.flatnonzero((b == sep_code) & out)
        else:
            ends = np.flatnonzero(is_nl)
            seps = np.flatnonzero(b == sep_code)
        if final and (not ends.size or ends[-1] != b.size - 1):
            ends = np.append(ends, b.size)  # the last row, without a newline
        if not ends.size:
            continue
        starts = np.concatenate([[0], ends[:-1] + 1])
        cells = np.diff(np.searchsorted(seps, ends), prepend=0) + 1
        if header_seen and (cells >= n_cols).all():  # (the common case: no blank line)
            rows = np.arange(ends.size)
        else:  # blank lines are no rows
            filled = np.concatenate([[0], np.cumsum(~_BLANK[b], dtype=np.int32)])
            rows = np.flatnonzero(filled[ends] > filled[starts])
        if rows.size and not header_seen:
            header_seen, rows = True, rows[1:]
        short = rows[cells[rows] < n_cols]
        if short.size:
            k = int(short[0])
            _short_row(path, lines + int(np.count_nonzero(is_nl[:starts[k]])), int(cells[k]),
                       n_cols, last=final and k == ends.size - 1 and ends[-1] == b.size)
        for j in set(text_at) - needs_text:
            at = starts[rows] if j == 0 else seps[np.searchsorted(seps, starts[rows]) + j - 1] + 1
            if _odd_number(b, at):
                needs_text.add(j)
        lines += int(np.count_nonzero(is_nl))
    return lines, needs_text


def _odd_number(b: np.ndarray, at: np.ndarray) -> bool:
    """Whether a cell starting at ``at`` is a number not spelt as its integer would be."""
    pad = np.concatenate([b, np.zeros(3, dtype=np.uint8)])
    first, second = pad[at], pad[at + 1]
    quoted = first == _QUOTE
    first, second = np.where(quoted, second, first), np.where(quoted, pad[at + 2], second)
    digit = (second >= ord("0")) & (second <= ord("9"))
    return bool(((first == ord("0")) & digit | (first == ord("+")) | (first == ord(" "))
                 | (first == ord("\t")) | (first == ord("-")) & (second == ord("0"))).any())


_NL, _QUOTE = ord("\n"), ord('"')
#: bytes of a file checked at a time (small: the temporaries are a few times this)
_ROW_BLOCK = 1 << 18
#: a row longer than this is not checked (a file whose lines end in a lone carriage return)
_MAX_ROW = 1 << 24


def _row_blocks(path: Path):
    """The bytes of a file, whole rows at a time (about :data:`_ROW_BLOCK`), and if the block is last.

    A block ends after the last line break outside quotes; (None, True) when no line
    break comes for :data:`_MAX_ROW` bytes.
    """
    carry = b""
    with path.open("rb") as fh:
        while True:
            chunk = fh.read(_ROW_BLOCK)
            data = carry + chunk
            if not chunk:
                if data:
                    yield np.frombuffer(data, dtype=np.uint8), True
                return
            b = np.frombuffer(data, dtype=np.uint8)
            nl = np.flatnonzero(b == _NL)
            if nl.size and ((b == _QUOTE).any()):
                par = np.cumsum(b == _QUOTE, dtype=np.int32) & 1
                nl = nl[par[nl] == 0]
            if not nl.size:
                if len(data) > _MAX_ROW:
                    yield None, True
                    return
                carry = data
                continue
            cut = int(nl[-1]) + 1
            yield b[:cut], False
            carry = data[cut:]


def _short_row(path, line: int, cells: int, n_cols: int, last: bool) -> None:
    why = ("the file ends mid-row (cut short?)" if last
           else "a row cut short, or a cell left out")
    raise ValueError(f"cannot read {path} as a table: line {line} has {cells} cell(s), the "
                     f"header {n_cols}: {why}; write an empty cell for a missing value")


class _Plain:
    """One column of a file read a block of rows at a time, as pandas concatenates the blocks.

    While the blocks share one numpy dtype their values go straight into one array
    (sized for ``capacity`` rows, grown if needed); other blocks are concatenated.
    """

    def __init__(self, capacity: int):
        self.capacity = max(capacity, 1)
        self.values: np.ndarray | None = None
        self.parts: list[pd.Series] = []
        self.n = 0

    def add(self, col: pd.Series) -> None:
        fits = isinstance(col.dtype, np.dtype) and (self.values is None
                                                    or col.dtype == self.values.dtype)
        if self.parts or not fits:
            if self.values is not None:
                self.parts.append(pd.Series(self.values[:self.n]))
                self.values = None
            self.parts.append(col.reset_index(drop=True))
            return
        end = self.n + len(col)
        if self.values is None or end > self.values.size:
            grown = np.empty(max(end, self.capacity if self.values is None
                                 else 2 * self.values.size), dtype=col.dtype)
            if self.values is not None:
                grown[:self.n] = self.values[:self.n]
            self.values = grown
        self.values[self.n:end] = col.to_numpy()
        self.n = end

    def column(self) -> pd.Series:
        """The column read so far."""
        if self.parts:
            return pd.concat(self.parts, ignore_index=True)
        values = self.values[:self.n]
        return pd.Series(values.copy() if self.values.size > 1.25 * self.n else values)


class _Coded:
    """One column of a file read a block of rows at a time, kept as small integer codes.

    Each block's values are pooled in order of appearance, as pandas pools the values
    of concatenated blocks (integers and floats as floats; other mixes as objects);
    missing cells get code -1. The codes go straight into one array (sized for
    ``capacity`` rows, grown if needed), so no block is held after it was read.
    """

    def __init__(self, capacity: int):
        self.codes = np.empty(max(capacity, 1), dtype=np.int8)
        self.values: pd.Index | None = None
        self.n = 0

    def add(self, col: pd.Series) -> None:
        cat = col.astype("category")
        cats = cat.cat.categories
        if len(cats):
            self.values = cats if self.values is None else self.values.append(cats).unique()
        size = 0 if self.values is None else len(self.values)
        dtype = np.promote_types(np.min_scalar_type(-max(size, 1)), self.codes.dtype)
        end = self.n + len(col)
        if end > self.codes.size or dtype != self.codes.dtype:
            grown = np.empty(max(end, self.codes.size * (2 if end > self.codes.size else 1)),
                             dtype=dtype)
            grown[:self.n] = self.codes[:self.n]
            self.codes = grown
        table = np.append(self.values.get_indexer(cats) if size else [], -1).astype(dtype)
        self.codes[self.n:end] = table[cat.cat.codes.to_numpy()]  # -1 (missing) stays -1
        self.n = end

    def column(self) -> pd.Categorical:
        """The column read so far, as a categorical."""
        codes = self.codes[:self.n]
        if self.codes.size > 1.25 * self.n:  # the file had far fewer rows than lines
            codes = codes.copy()
        values = self.values if self.values is not None else pd.Index([], dtype=float)
        return pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(values))


def has_repeats(values: pd.Series) -> bool:
    """Whether some value occurs twice (missing ones included), found by sorting.

    Integers and pyarrow-backed text are sorted (no hash table of every id, which
    for text means a Python string per id); other values are hashed.
    """
    if isinstance(values.dtype, np.dtype) and values.dtype.kind in "iu":
        v = np.sort(values.to_numpy())
        return bool((v[1:] == v[:-1]).any())
    if getattr(values.dtype, "storage", None) == "pyarrow":
        import pyarrow as pa
        import pyarrow.compute as pc

        arr = pa.array(values.array)
        if arr.null_count > 1:
            return True
        v = arr.take(pc.sort_indices(arr))
        return len(v) > 1 and bool(pc.any(pc.equal(v[1:], v[:-1])).as_py())
    return bool(values.duplicated().any())


def as_text(col: pd.Series) -> pd.Series:
    """``col.astype(str)``, without a Python string for every id at once.

    Integer ids (when pandas' text dtype is pyarrow-backed) become one pyarrow
    string array built from numpy buffers: the digits and 8 bytes of offset per id,
    with no allocator slack; other columns are converted :data:`_TEXT_ROWS` rows at
    a time.
    """
    if (isinstance(col.dtype, np.dtype) and col.dtype.kind == "i" and len(col) > _TEXT_ROWS
            and getattr(pd.Series([0]).astype(str).dtype, "storage", None) == "pyarrow"):
        return pd.Series(pd.array(_int_text(col.to_numpy(np.int64)), dtype="str"),
                         index=col.index)
    if pd.api.types.is_string_dtype(col.dtype) and not pd.api.types.is_object_dtype(col.dtype):
        return col  # ids read as text: as written
    if len(col) <= _TEXT_ROWS:
        return col.astype(str)
    return pd.concat([col.iloc[i:i + _TEXT_ROWS].astype(str)
                      for i in range(0, len(col), _TEXT_ROWS)])


def _int_text(v: np.ndarray):
    """The decimal text of int64 ``v`` as a pyarrow ``large_string`` array (numpy buffers)."""
    import pyarrow as pa

    blocks = range(0, v.size, _TEXT_ROWS)
    offsets = np.zeros(v.size + 1, dtype=np.int64)
    for s in blocks:  # each id's length: sign and digits
        x = v[s:s + _TEXT_ROWS]
        width = offsets[s + 1:s + 1 + x.size]
        width[:] = 1 + (x < 0)
        magnitude = np.abs(x).view(np.uint64)  # the int64 minimum wraps to 2**63: right
        for d in range(1, 20):
            width += magnitude >= np.uint64(10 ** d)
    np.cumsum(offsets, out=offsets)
    data = np.empty(int(offsets[-1]), dtype=np.uint8)
    for s in blocks:  # digits from the last, while any id has more
        x = v[s:s + _TEXT_ROWS]
        magnitude = np.abs(x).view(np.uint64)
        at = offsets[s + 1:s + 1 + x.size] - 1
        while at.size:
            data[at] = 48 + magnitude % np.uint64(10)
            magnitude //= np.uint64(10)
            more = magnitude > 0
            magnitude, at = magnitude[more], at[more] - 1
        data[offsets[s:s + x.size][x < 0]] = ord("-")
    return pa.LargeStringArray.from_buffers(v.size, pa.py_buffer(offsets), pa.py_buffer(data))
