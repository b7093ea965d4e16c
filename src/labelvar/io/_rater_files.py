"""One file per annotator or system, one column per task, joined on an item key (CheXpert)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from labelvar._base._docs import fill
from labelvar.io._common import (
    TaskData,
    _checked,
    _chosen,
    _evaluated,
    _index,
    _no_overlap,
    _roles,
    _same_ids,
    read_frame,
    select_columns,
)


@fill
def read_rater_files(files: Mapping[str, str | Path] | Sequence[str | Path], *, panel,
                     systems=(), humans=(), item: str, tasks=None, sep: str | None = None,
                     labels: Sequence | None = None) -> dict[str, TaskData]:
    r"""Load one file per annotator/system (rows = items, columns = tasks), joined on ``item``.

    This is the CheXpert layout: ``bc1_gt.csv`` ... each with a ``Study`` column
    and one column per finding. Column order may differ between files; columns
    are matched by name. A system file may cover only some tasks (e.g. models
    that predict 5 of 14 findings): it is used for the tasks it has.

    Parameters
    ----------
    files : mapping of name to path, or sequence of paths
        Rater name -> file; a sequence uses each file's stem as the name.
    panel, systems, humans : str or sequence of str
        Names or globs of the raters (file names) forming the panel / evaluated as
        systems / the independent human raters (named in :attr:`TaskData.humans`).
    item : str
        Item id column present in every file.
    tasks : str or sequence of str, optional
        Names or globs of the task columns (default: every column of the first
        panel file except ``item``); a name matching none is refused.
    {{sep}}
    labels : sequence, optional
        The declared label set (see :func:`read_wide`).

    Returns
    -------
    {{tasks_returned}}

    Raises
    ------
    ValueError
        If the files do not hold the same set of item ids (the message counts the ids
        a file lacks and those it adds, naming a few), or ids repeat; labels as
        :func:`read_wide` refuses them.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> for name, rows in {"r1": "a,1,0\nb,0,0", "r2": "b,1,0\na,1,1", "r3": "a,1,0\nb,0,1",
    ...                    "m": "a,0\nb,1"}.items():
    ...     cols = "id,Cardio,Edema" if name != "m" else "id,Cardio"
    ...     _ = open(os.path.join(d, name + ".csv"), "w").write(cols + "\n" + rows + "\n")
    >>> data = read_rater_files([os.path.join(d, n + ".csv") for n in ("r1", "r2", "r3", "m")],
    ...                         panel="r*", systems="m", item="id")
    >>> sorted(data), data["Cardio"].panel.loc["b"].tolist(), data["Edema"].predictions.shape
    (['Cardio', 'Edema'], [0, 1, 0], (2, 0))
    """
    if isinstance(files, Mapping):
        named = {str(k): Path(v) for k, v in files.items()}
    else:
        named = {}
        for f in files:
            p = Path(f)
            if p.stem in named:
                raise ValueError(f"files: two files named {p.stem!r} (a rater is named by its "
                                 "file's stem); rename one, or pass a mapping name -> path")
            named[p.stem] = p
    names = list(named)
    pnames = select_columns(names, panel, "panel")
    snames, hum = _evaluated(names, systems, humans)
    snames = _no_overlap(pnames, snames, hum)
    frames = {n: _index(read_frame(named[n], sep, text=[item]), item, str(named[n]))
              for n in pnames + snames}
    ref = frames[pnames[0]]
    task_names = _chosen(ref.columns, tasks)
    order = ref.index
    for n, f in frames.items():
        if not f.index.equals(order) and set(f.index) != set(order):
            _same_ids(f.index, order, named[n], named[pnames[0]])
    out = {}
    for t in task_names:
        for n in pnames:
            if t not in frames[n].columns:
                raise ValueError(
                    f"tasks: column {t!r} missing from panel file {named[n]}" if tasks is not None
                    else f"files: panel file {named[n]} has no column {t!r}, which "
                    f"{named[pnames[0]]} has; give every panel file the same task columns, "
                    "or choose the tasks (tasks=...)")
        pan = pd.DataFrame({n: frames[n].loc[order, t].to_numpy() for n in pnames}, index=order)
        pred = pd.DataFrame({n: frames[n].loc[order, t].to_numpy() for n in snames
                             if t in frames[n].columns}, index=order)
        out[t] = TaskData(pan, pred, humans=tuple(h for h in hum if h in pred.columns),
                          **_roles(labels))
    return _checked(out, "the rater files", labels)
