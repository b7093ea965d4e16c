"""Reading CSV/TSV tables for :mod:`labelvar.io`: whole, or the needed columns compactly.

A large wide file is read a block of rows at a time, keeping only the columns used:
votes and predictions as small integer codes (categoricals), ids as read, with no
block held once it is read. Item ids become text without a Python string per id
(:func:`as_text`) and are checked for repeats by sorting (:func:`has_repeats`).
Parser problems become one ValueError line naming the file (:func:`parsing`).
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
    return "\t" if path.suffix.lower() in (".tsv", ".tab") else ","


@contextlib.contextmanager
def parsing(path: Path):
    """Turn what the CSV parser refuses into one ValueError line naming the file."""
    try:
        with warnings.catch_warnings():  # a row longer than the header is an error, not an index
            warnings.simplefilter("error", pd.errors.ParserWarning)
            yield
    except pd.errors.ParserWarning:
        raise ValueError(f"cannot read {path} as a table: some rows have more cells than "
                         "the header") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read {path} as a table: {str(exc).splitlines()[0]}") from None


def read_table(path: Path, sep: str) -> pd.DataFrame:
    """A whole CSV/TSV file as strings-or-numbers, empty cells missing, names stripped."""
    with parsing(path):
        df = pd.read_csv(path, sep=sep, skipinitialspace=True, index_col=False)
    df.columns = [str(c).strip() for c in df.columns]
    return df


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
    opts = dict(sep=sep, skipinitialspace=True, index_col=False)
    with parsing(path):
        header = [str(c).strip() for c in pd.read_csv(path, nrows=0, **opts).columns]
    try:
        keep, plain = choose(header)
    except ValueError:
        return read_table(path, sep)
    at = [header.index(c) for c in keep]
    rows = _line_count(path)  # at least the rows, unless lines end in a lone carriage return
    columns = {c: _Plain(rows) if c in plain else _Coded(rows) for c in keep}
    n_rows = 0
    with parsing(path), pd.read_csv(path, chunksize=chunk_rows or _CHUNK_ROWS,
                                    **opts) as reader:
        for chunk in reader:
            n_rows += len(chunk)
            for c, j in zip(keep, at, strict=True):
                columns[c].add(chunk.iloc[:, j])
    if not n_rows:  # a header without rows
        return read_table(path, sep)
    return pd.DataFrame({c: col.column() for c, col in columns.items()})


def _line_count(path: Path) -> int:
    """Lines of a text file (newlines + 1), counted a megabyte at a time."""
    n = 1
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            n += block.count(b"\n")
    return n


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
