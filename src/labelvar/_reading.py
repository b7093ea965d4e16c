"""Opening input files: the one readable-file check and the JSON-lines record reader.

Shared by :mod:`labelvar.io` (every loader) and :func:`labelvar.pilot.read_pilot`;
CSV/TSV tables are parsed by :mod:`labelvar._csv`, label values checked by
:mod:`labelvar._labels`.
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


def read_jsonl_records(path, lines: list | None = None) -> list[dict]:
    r"""The objects of a JSON-lines file (blank lines skipped); their line numbers into ``lines``.

    An object with a field twice (``{"gpt": "e", "gpt": "n"}``, which ``json`` reads as
    its last value) is refused, naming the file, line and field.

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
    """
    path = Path(path)
    check_file(path)
    rows = []
    # utf-8-sig: a byte order mark (Windows editors) is read past, as read_csv does
    with path.open(encoding="utf-8-sig", errors="strict") as fh:
        for lineno, line in enumerate(_lines(fh, path), 1):
            if not line.strip():
                continue
            try:
                obj = _DECODER.decode(line.strip())
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
            except _RepeatedKey as exc:
                raise ValueError(f"{path}:{lineno}: field {exc.args[0]!r} appears twice in one "
                                 "object; give every field its own name") from None
            if not isinstance(obj, dict):
                raise ValueError(f"{path}:{lineno}: expected a JSON object per line")
            rows.append(obj)
            if lines is not None:
                lines.append(lineno)
    return rows
