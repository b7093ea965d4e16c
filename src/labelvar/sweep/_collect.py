"""Collecting a multirun: every job's table and metadata merged into one results table.

:func:`collect`, re-exported by :mod:`labelvar.sweep._job` and :mod:`labelvar.sweep`.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd

from labelvar._base._files import read_results, write_results
from labelvar.sweep._chunks import _as_path, _sha256


def _job_sort_key(path: Path):
    """Job order: by folder (several multiruns under one directory), then job number."""
    head = path.name.split("_", 1)[0]
    return (str(path.parent),) + ((0, int(head), path.name) if head.isdigit()
                                  else (1, 0, path.name))


def collect(sweep_dir: str | Path, *, out: str | Path | None = None,
            allow_missing: bool = False) -> tuple[pd.DataFrame, Path]:
    """Merge the results tables of every job under ``sweep_dir`` into one table.

    Adds the columns ``experiment`` (the job's ``name``) and ``job`` (its directory
    relative to ``sweep_dir``) in front, in job order, and writes the merged table
    atomically to ``out`` (default ``<sweep_dir>/collected.csv``).

    Parameters
    ----------
    sweep_dir : path
        A multirun directory (or a single job's directory).
    out : path, optional
        Output file (``.csv`` or ``.parquet``).
    allow_missing : bool
        Merge even if some job directories (with a ``.hydra/`` folder) have no
        results, or a job is still marked ``running`` in its ``metadata.json``;
        by default that is an error, so nothing is dropped silently. A results
        table whose row count or SHA-256 differs from the one its job recorded in
        ``metadata.json`` (truncated, edited) is always an error.

    Returns
    -------
    (pandas.DataFrame, pathlib.Path)
        The merged table and where it was written.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = write_results(pd.DataFrame({"mean": [0.5]}), d / "0_a" / "results.csv")
    >>> _ = write_results(pd.DataFrame({"mean": [0.7]}), d / "1_b" / "results.csv")
    >>> table, path = collect(d)
    >>> table.to_dict("list"), path.name
    ({'experiment': ['0_a', '1_b'], 'job': ['0_a', '1_b'], 'mean': [0.5, 0.7]}, 'collected.csv')
    """
    sweep_dir = _as_path("sweep_dir", sweep_dir)
    if sweep_dir.exists() and not sweep_dir.is_dir():
        raise ValueError(f"sweep_dir must be a directory (a multirun's), got the file {sweep_dir}")
    if not sweep_dir.is_dir():
        raise FileNotFoundError(f"sweep directory not found: {sweep_dir}")
    tables = [p for pattern in ("results.csv", "results.parquet")
              for p in sweep_dir.rglob(pattern)
              if "chunks" not in p.relative_to(sweep_dir).parts]
    found = {}
    for p in tables:
        found.setdefault(p.parent, p)
    job_dirs = {p.parent for p in sweep_dir.rglob(".hydra") if p.is_dir()}
    path = _as_path("out", out) if out is not None else sweep_dir / "collected.csv"
    if path.is_dir():
        raise ValueError(f"out must be a file ending in .csv or .parquet, got the directory "
                         f"{path}")
    if path.suffix not in (".csv", ".parquet"):
        raise ValueError(f"out must end in .csv or .parquet, got {path.name!r}")
    if path.resolve() in {p.resolve() for p in tables}:
        raise ValueError(f"out must not be a job's results table (it would be overwritten), "
                         f"got {path}")
    infos = {job_dir: _job_metadata(job_dir, sweep_dir) for job_dir in found}
    for job_dir, info in infos.items():  # the table the job says it wrote (csv or parquet)
        named = info.get("results", {}).get("file") if isinstance(info.get("results"),
                                                                   dict) else None
        if isinstance(named, str) and (job_dir / named).is_file():
            found[job_dir] = job_dir / named
    for job_dir in list(found):  # a job rerun and killed: old table, status "running"
        if infos[job_dir].get("status") == "running":
            del found[job_dir]
            job_dirs.add(job_dir)
    missing = sorted((d for d in job_dirs if d not in found), key=_job_sort_key)
    if missing and not allow_missing:
        names = ", ".join(str(d.relative_to(sweep_dir)) or "." for d in missing[:5])
        raise ValueError(f"{len(missing)} job(s) under {sweep_dir} have no complete results "
                         f"table ({names}); rerun them or pass --allow-missing")
    if not found:
        raise FileNotFoundError(f"no results.csv or results.parquet under {sweep_dir}")
    frames = []
    for job_dir in sorted(found, key=_job_sort_key):
        info = infos[job_dir]
        name = info.get("name", job_dir.name)
        record = info.get("results") if isinstance(info.get("results"), dict) else {}
        rel = found[job_dir].relative_to(sweep_dir)
        if not record.get("sha256") and job_dir in job_dirs:  # a job's table, unverifiable
            raise ValueError(f"{rel}: its job's metadata.json (the table's row count and "
                             "checksum) is missing, so a truncated table cannot be told from a "
                             "whole one; rerun the job")
        if not record.get("sha256"):  # a bare table: refuse one cut mid-row
            _check_whole(found[job_dir], rel)
        if record.get("sha256") and record["sha256"] != _sha256(found[job_dir]):
            raise ValueError(f"{rel} is not the table its job wrote (checksum differs from "
                             f"metadata.json: truncated or edited); rerun the job")
        try:
            table = read_results(found[job_dir])
        except (ValueError, OSError, ImportError) as exc:  # pandas' parser errors are ValueErrors
            detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ValueError(f"{rel} is not a readable results table ({detail}); rerun the "
                             "job") from None
        if "rows" in record and len(table) != record["rows"]:
            raise ValueError(f"{found[job_dir].relative_to(sweep_dir)} has {len(table)} rows, "
                             f"its job wrote {record['rows']}; rerun the job")
        rel = job_dir.relative_to(sweep_dir).as_posix() or "."
        frames.append(table.assign(experiment=name, job=rel))
    merged = pd.concat(frames, ignore_index=True)
    front = ["experiment", "job"]
    merged = merged[front + [c for c in merged.columns if c not in front]]
    for c in front:
        merged[c] = merged[c].astype(str)
    write_results(merged, path)
    return merged, path


def _check_whole(path: Path, rel) -> None:
    """Refuse a CSV results table without a record that is cut (no final newline, short rows)."""
    if path.suffix != ".csv":
        return  # Parquet checks its own footer when read
    import csv

    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        raise ValueError(f"{rel} ends mid-row (no final newline): a truncated table; rerun the job")
    rows = csv.reader(io.StringIO(data.decode("utf-8", errors="replace")))
    width = None
    for line, row in enumerate(rows, start=1):
        width = len(row) if width is None else width
        if row and len(row) != width:
            raise ValueError(f"{rel} line {line} has {len(row)} fields, the header {width}: a "
                             "truncated or edited table; rerun the job")


def _job_metadata(job_dir: Path, sweep_dir: Path) -> dict:
    """A job's ``metadata.json`` as a dict ({} when absent); unreadable is a ValueError naming it."""
    path = job_dir / "metadata.json"
    if not path.is_file():
        return {}
    try:
        info = json.loads(path.read_text())
    except (OSError, ValueError) as exc:  # (UnicodeDecodeError, JSONDecodeError)
        info = exc
    if not isinstance(info, dict):
        raise ValueError(f"{path.relative_to(sweep_dir)} is not a job's metadata (unreadable or "
                         "not a JSON object); rerun the job")
    return info
