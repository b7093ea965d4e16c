"""Shared figure style: the palette, a pyplot-free figure factory and the one saver.

Figures are :class:`matplotlib.figure.Figure` objects made directly (no pyplot),
so drawing needs no backend and importing this module changes no global state
(backend, rcParams, warning filters).
"""

from __future__ import annotations

import io
from pathlib import Path

from matplotlib.figure import Figure

from labelvar._files import atomic_write

__all__ = ["PALETTE", "new_figure", "save"]

#: one color per series, color-blind safe (Okabe & Ito), used consistently across figures
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")


def new_figure(nrows: int = 1, ncols: int = 1, *, width: float = 4.2, height: float = 3.4,
               sharey: bool = False) -> tuple[Figure, object]:
    """Create a figure without pyplot's global state; return ``(fig, axes)``.

    Rows come before columns, as in :meth:`matplotlib.figure.Figure.subplots`;
    ``width`` and ``height`` are per panel; ``axes`` is always 2-D.

    Examples
    --------
    >>> fig, axes = new_figure(1, 2)
    >>> axes.shape, fig.get_size_inches().tolist()
    ((1, 2), [8.4, 3.4])
    """
    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, sharey=sharey, squeeze=False)
    return fig, axes


def save(fig: Figure, stem: str | Path, formats: tuple[str, ...] = ("png", "pdf"),
         dpi: int = 150) -> list[Path]:
    """Write ``fig`` as ``stem.<format>`` for each format (atomically); return the paths.

    Each format is rendered to memory and written with
    :func:`labelvar._files.atomic_write`, so no half-written figure is ever seen.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> fig, _ = new_figure()
    >>> [p.name for p in save(fig, pathlib.Path(tempfile.mkdtemp()) / "f", formats=("svg",))]
    ['f.svg']
    """
    stem = Path(stem)
    paths = []
    for fmt in formats:
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, dpi=dpi)
        paths.append(atomic_write(stem.with_name(f"{stem.name}.{fmt}"), buf.getvalue()))
    return paths
