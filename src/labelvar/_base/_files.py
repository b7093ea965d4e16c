"""The one atomic writer and the one results-table reader/writer.

Every file labelvar writes goes through :func:`atomic_write` (or the helpers built
on it): the content goes to a uniquely named temporary file in the target's
directory, is flushed to disk and renamed over the target, so an interrupted run
never leaves a half-written file and two concurrent writers never share a
temporary name. Files get the usual permissions (0666 less the umask), not the
0600 of :func:`tempfile.mkstemp`.

Results tables (simulation summaries, sweep tables, stratified reports, plans)
are written by :func:`write_results` as CSV or Parquet (by suffix) and read back
by :func:`read_results`, which keeps text columns as text (``"0.60"`` stays
``"0.60"``, ``""`` stays ``""``) and round-trips floats exactly.

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> t = pd.DataFrame({"stratum": ["all", "0.60"], "mean": [0.1, 1 / 3]})
>>> p = write_results(t, d / "t.csv")
>>> read_results(p).equals(t)
True
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import secrets
import shutil
from pathlib import Path

import pandas as pd

#: columns that are text in every results table (kept as str when read back)
TEXT_COLUMNS = frozenset({
    "mode", "theta_prior", "tie_rule", "positives", "method", "labeller", "stratum", "metric",
    "task", "system", "role", "experiment", "job",
})

#: suffixes of results tables
TABLE_SUFFIXES = (".csv", ".parquet")


def atomic_write(path, data: bytes | str) -> Path:
    """Write ``data`` (bytes, or text as UTF-8) to ``path`` atomically; return the path.

    The parent directory is created if needed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = atomic_write(pathlib.Path(tempfile.mkdtemp()) / "a" / "x.txt", "hello")
    >>> p.read_text()
    'hello'
    """
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    if path.is_dir():  # (the rename would fail naming the temporary file, not this one)
        raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def table_bytes(table: pd.DataFrame, suffix: str) -> bytes:
    r"""Serialise ``table`` as CSV or Parquet (``suffix`` ``.csv`` or ``.parquet``).

    Examples
    --------
    >>> table_bytes(pd.DataFrame({"a": [1]}), ".csv")
    b'a\n1\n'
    """
    if suffix == ".csv":
        return table.to_csv(index=False).encode("utf-8")
    if suffix == ".parquet":
        buf = io.BytesIO()
        table.to_parquet(buf, index=False)
        return buf.getvalue()
    raise ValueError(f"table file must end in .csv or .parquet, got {suffix!r}")


def write_results(table: pd.DataFrame, path) -> Path:
    """Write a results table atomically as CSV or Parquet (by the suffix); return the path.

    Examples
    --------
    >>> write_results(pd.DataFrame({"a": [1]}), "x.txt")
    Traceback (most recent call last):
    ...
    ValueError: table file must end in .csv or .parquet, got '.txt'
    """
    path = Path(path)
    if path.is_dir() and path.suffix not in (".csv", ".parquet"):  # (else: "Is a directory")
        raise ValueError(f"table file must end in .csv or .parquet, got the directory {path}; "
                         "give a file path ending in .csv or .parquet")
    return atomic_write(path, table_bytes(table, path.suffix))


def read_results(path, text_columns=()) -> pd.DataFrame:
    """Read a table written by :func:`write_results` (text columns stay text).

    Columns in :data:`TEXT_COLUMNS` or ``text_columns`` are read as strings.

    Examples
    --------
    >>> read_results("missing.csv")
    Traceback (most recent call last):
    ...
    FileNotFoundError: no such table: missing.csv
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such table: {path}")
    if path.suffix == ".parquet":
        return pd.read_parquet(path)
    if path.suffix != ".csv":
        raise ValueError(f"table file must end in .csv or .parquet, got {path.name!r}")
    header = pd.read_csv(path, nrows=0).columns
    dtype = {c: str for c in header if c in TEXT_COLUMNS or c in text_columns}
    na = {c: ["", "NaN", "nan"] for c in header if c not in dtype}
    kw = dict(dtype=dtype, keep_default_na=False, na_values=na)
    if int(pd.__version__.split(".")[0]) < 3:  # round-trip parsing is the default in pandas 3
        kw["float_precision"] = "round_trip"
    return pd.read_csv(path, **kw)


def check_replaceable(path, allowed=None) -> None:
    """Refuse a directory that :func:`replaced_directory` may not replace (FileExistsError).

    ``path`` may be missing; if it exists it must be a directory, and (when
    ``allowed`` is given) hold only entries for which ``allowed(name)`` is true.
    Callers run it before any work, so an unusable directory costs nothing.
    """
    path = Path(path)
    if not path.exists():
        return
    if not path.is_dir():
        raise FileExistsError(f"{path} exists and is not a directory")
    if allowed is not None:
        foreign = sorted(p.name for p in path.iterdir() if not allowed(p.name))
        if foreign:
            raise FileExistsError(
                f"{path} holds files that are not part of a labelvar report "
                f"({', '.join(foreign[:3])}{', ...' if len(foreign) > 3 else ''}); "
                "choose a new or empty directory")


@contextlib.contextmanager
def replaced_directory(path, *, allowed=None):
    """Build a directory's new contents aside, then swap them in as a whole.

    Yields a fresh temporary sibling of ``path``; when the block ends without an
    error that directory is renamed to ``path``. An existing ``path`` is kept
    until the new one is complete, then moved aside and removed, so a rerun
    replaces the previous set of files as a whole (no stale file of an earlier run
    survives) and an interrupted run leaves the previous set in place. On an error
    the temporary directory is removed and ``path`` is untouched.

    ``allowed(name) -> bool`` guards existing contents: if ``path`` holds an entry
    for which it is false (not a file this kind of directory is made of), nothing
    is written and :class:`FileExistsError` is raised, so a user's own files are
    never deleted.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "report"
    >>> for text in ("first", "second"):
    ...     with replaced_directory(out) as tmp:
    ...         _ = atomic_write(tmp / f"{text}.txt", text)
    >>> sorted(p.name for p in out.iterdir())
    ['second.txt']
    """
    path = Path(path)
    check_replaceable(path, allowed)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.mkdir()
    except OSError as exc:  # name the directory asked for, not the temporary one
        raise type(exc)(exc.errno, f"cannot create {path} ({exc.strerror})") from None
    old = None
    try:
        yield tmp
        if path.exists():
            old = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.old")
            os.replace(path, old)
        try:
            os.replace(tmp, path)
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
            raise FileExistsError(f"{path} was written by another run at the same time; its "
                                  "files are that run's (rerun to replace them)") from None
    except BaseException:
        if old is not None:
            if not path.exists():
                os.replace(old, path)  # put the previous set back
            else:  # another run's set took its place meanwhile: ours is stale
                shutil.rmtree(old, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def directory_lock(path):
    """Hold an exclusive lock on the directory ``path`` (created if needed) for one run.

    A second run that asks for the same directory while the first holds it gets a
    :class:`FileExistsError` at once (one line), so two runs never interleave their
    files (e.g. one run's metadata over the other's table). The lock is an
    ``flock`` on ``<path>/.lock``: it goes away with the process, even one killed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()) / "job"
    >>> with directory_lock(d):
    ...     try:
    ...         with directory_lock(d):
    ...             pass
    ...     except FileExistsError as exc:
    ...         print(str(exc).split(";")[0])  # doctest: +ELLIPSIS
    another run is writing to .../job
    """
    import fcntl

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    fd = os.open(path / ".lock", os.O_WRONLY | os.O_CREAT, 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise FileExistsError(f"another run is writing to {path}; wait for it or choose "
                                  "another output directory") from None
        yield path
    finally:
        os.close(fd)

