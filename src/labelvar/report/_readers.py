"""The ``labelvar readers`` report directory: tables, the per-reader figure, ``report.json``."""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path

from labelvar._base._files import atomic_write, replaced_directory, write_results

#: files of a readers report (``labelvar readers --out``)
READERS_FILES = ("report.json", "table.md", "fom.csv", "tests.csv", "components.csv", "modalities.csv",
                 "differences.csv", "readers.csv", "dbm.csv", "standalone.csv", "points.csv",
                 "readers.png", "readers.pdf", "report.html")


def write_readers_report(result, out_dir, markdown: str, *, figure: bool = True) -> list[Path]:
    """Write a reader-study report directory; return the paths written (under ``out_dir``).

    For an :class:`~labelvar.readers.MRMCResult`: ``fom.csv``, ``tests.csv``,
    ``components.csv``, ``modalities.csv``, ``differences.csv``, ``readers.csv`` (per-reader
    tests), ``dbm.csv`` (the pseudovalue ANOVA, when there is one); for a
    :class:`~labelvar.readers.StandaloneResult`: ``standalone.csv`` (the test) and
    ``readers.csv`` (per-reader FOMs); both: ``points.csv`` and the figure
    ``readers.png``/``.pdf`` (per-reader FOM with CIs, the AI and the readers' mean, the
    truth used), ``table.md`` (what was printed) and ``report.json``. The directory is
    replaced as a whole.

    Examples
    --------
    >>> import tempfile, pathlib, numpy as np, pandas as pd
    >>> from labelvar import mrmc
    >>> rng = np.random.default_rng(0)
    >>> y = pd.Series(np.arange(40) % 2)
    >>> rows = [(j, k, y[k] + rng.normal()) for j in range(3) for k in range(40)]
    >>> res = mrmc(pd.DataFrame(rows, columns=["reader", "case", "rating"]), truth=y)
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "r"
    >>> [p.name for p in write_readers_report(res, out, "text", figure=False)][:3]
    ['fom.csv', 'tests.csv', 'components.csv']
    """
    import pandas as pd

    out = Path(out_dir)
    allowed = lambda name: any(fnmatch.fnmatchcase(name, p) for p in READERS_FILES)  # noqa: E731
    with replaced_directory(out, allowed=allowed) as tmp:
        files = []
        if hasattr(result, "tests"):
            comp = pd.DataFrame({"component": list(result.components),
                                 "value": list(result.components.values())})
            tables = {"fom": result.fom, "tests": result.table, "components": comp,
                      "modalities": result.modalities, "differences": result.differences,
                      "readers": result.readers,
                      "dbm": None if result.dbm is None else result.dbm.anova}
            fom_name = result.fom_name
        else:
            tables = {"standalone": result.table, "readers": result.readers_fom}
            fom_name = result.fom_name
        tables["points"] = result.points
        for name, table in tables.items():
            if table is not None and len(table):
                files.append(write_results(table, tmp / f"{name}.csv"))
        files.append(atomic_write(tmp / "table.md", markdown))
        if figure:
            from labelvar.plots._readers import plot_readers
            from labelvar.plots._style import save

            files += save(plot_readers(result.points, fom=fom_name), tmp / "readers")
        from labelvar.report._html_reports import readers_html

        files += readers_html(tmp, files, result)  # report.html: the one page
        from labelvar import __version__

        meta = {"kind": "readers", "labelvar": __version__, "files": sorted(p.name for p in files)}
        files.append(atomic_write(tmp / "report.json", json.dumps(meta, indent=2, default=str)))
    return [out / p.name for p in files]
