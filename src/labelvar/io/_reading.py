"""Opening input files: the one readable-file check and the JSON-lines record reader.

Shared by :mod:`labelvar.io` (every loader) and :func:`labelvar.read_pilot`;
CSV/TSV tables are parsed by :mod:`labelvar.io._csv`, label values checked by
:mod:`labelvar.io._labels`.
"""

from __future__ import annotations

import json
from pathlib import Path


def check_file(path: Path) -> None:
    """A readable regular file, or one line saying what it is instead."""
    if path.is_dir():
        raise ValueError(f"{path} is a directory; give the data file(s) inside it")
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")


def _lines(fh, path):
    """The lines of a text file, a decoding error named with the file and line."""
    lineno = 0
    try:
        for lineno, line in enumerate(fh, 1):  # noqa: B007 - lineno is used below
            yield line
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}:{lineno + 1}: not UTF-8 text ({exc.reason}); "
                         "save the file as UTF-8") from None


class _RepeatedKey(Exception):
    """A JSON object with a key twice (``json`` would keep the last value unseen)."""


def _one_value_per_key(pairs):
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set = set()
        raise _RepeatedKey(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return obj


_DECODER = json.JSONDecoder(object_pairs_hook=_one_value_per_key)


def _decode(path, decode, line_of):
    """``decode()``, its failures as one line naming the file and line (``line_of(position)``)."""
    try:
        return decode()
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{line_of(exc.pos)}: not valid JSON ({exc.msg})") from None
    except _RepeatedKey as exc:
        raise ValueError(f"{path}:{line_of(None)}: field {exc.args[0]!r} appears twice in one "
                         "object; give every field its own name") from None


def read_jsonl_records(path, lines: list | None = None) -> list[dict]:
    r"""The objects of a JSON-lines file (blank lines skipped); their line numbers into ``lines``.

    An object with a field twice (``{"gpt": "e", "gpt": "n"}``, which ``json`` reads as
    its last value) is refused, naming the file, line and field.
    A file holding one JSON array of objects (G-Eval's results, ``json.dump`` of a
    list) is read as well: its objects in order, each with the line it starts on.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "r.jsonl")
    >>> _ = open(p, "w").write('{"v": [1, 0]}\n\n{"v": [1]}\n')
    >>> lines = []
    >>> read_jsonl_records(p, lines), lines
    ([{'v': [1, 0]}, {'v': [1]}], [1, 3])
    >>> _ = open(p, "w").write('{"v": [1], "v": [0]}\n')
    >>> read_jsonl_records(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ...r.jsonl:1: field 'v' appears twice in one object; give every field its own name
    >>> _ = open(p, "w").write('[\n  {"v": 1},\n  {"v": 2}\n]\n')
    >>> lines = []
    >>> read_jsonl_records(p, lines), lines
    ([{'v': 1}, {'v': 2}], [2, 3])
    """
    path = Path(path)
    check_file(path)
    if _is_array(path):
        return _array_records(path, lines)
    rows = []
    # utf-8-sig: a byte order mark (Windows editors) is read past, as read_csv does
    with path.open(encoding="utf-8-sig", errors="strict") as fh:
        for lineno, line in enumerate(_lines(fh, path), 1):
            if not line.strip():
                continue
            obj = _decode(path, lambda t=line: _DECODER.decode(t.strip()), lambda _, n=lineno: n)
            if not isinstance(obj, dict):
                raise ValueError(f"{path}:{lineno}: expected a JSON object per line")
            rows.append(obj)
            if lines is not None:
                lines.append(lineno)
    return rows


def _is_array(path: Path) -> bool:
    """Whether the file's first character past white space (and a byte order mark) is ``[``."""
    with path.open("rb") as fh:
        head = fh.read(4096)
    text = head.decode("utf-8-sig", errors="ignore").lstrip()
    return text.startswith("[")


def _array_records(path: Path, lines: list | None) -> list[dict]:
    """The objects of a file holding one JSON array, each with the line it starts on."""
    import bisect

    try:
        text = path.read_text(encoding="utf-8-sig", errors="strict")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc.reason}); save the file as UTF-8") from None
    breaks = [i for i, c in enumerate(text) if c == "\n"]

    def line_of(pos: int) -> int:
        return bisect.bisect_right(breaks, pos - 1) + 1

    pos = text.index("[") + 1
    rows: list[dict] = []
    expect_value = True
    while True:
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        if pos >= len(text):
            raise ValueError(f"{path}:{line_of(pos)}: not valid JSON (the array is not closed "
                             "with ']'; a file cut short?)")
        if text[pos] == "]":
            if rows and expect_value:
                raise ValueError(f"{path}:{line_of(pos)}: not valid JSON (a ',' before ']')")
            pos += 1
            break
        if not expect_value:
            if text[pos] != ",":
                raise ValueError(f"{path}:{line_of(pos)}: not valid JSON (expected ',' or ']' "
                                 "between the array's objects)")
            pos += 1
            expect_value = True
            continue
        obj, end = _decode(path, lambda p=pos: _DECODER.raw_decode(text, p),
                           lambda at, p=pos: line_of(p if at is None else at))
        if not isinstance(obj, dict):
            raise ValueError(f"{path}:{line_of(pos)}: expected an array of JSON objects, record "
                             f"{len(rows) + 1} is a {type(obj).__name__}")
        rows.append(obj)
        if lines is not None:
            lines.append(line_of(pos))
        pos, expect_value = end, False
    if text[pos:].strip():
        raise ValueError(f"{path}:{line_of(pos)}: not valid JSON (text after the array's ']')")
    return rows
