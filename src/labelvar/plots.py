"""Figures. Every function takes a tidy table and returns a ``matplotlib.figure.Figure``.

Plot functions never call ``plt.show()`` and never write files; :func:`save`
writes a figure as PNG and PDF. Tests use the Agg backend.

Sections: shared style (here), Figure 1 / panel bias / Table 1 tails (sweeps),
stratified reports (stratify), power curves (design).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg", force=False)  # headless unless the user chose a backend  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

#: one colour per series, colour-blind safe (Okabe & Ito), used consistently across figures
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")


def new_figure(ncols: int = 1, nrows: int = 1, *, width: float = 4.2, height: float = 3.4,
               sharey: bool = False) -> tuple[Figure, object]:
    """Create a figure without pyplot's global state; return ``(fig, axes)``."""
    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, sharey=sharey, squeeze=False)
    return fig, axes


def save(fig: Figure, stem: str | Path, formats: tuple[str, ...] = ("png", "pdf"),
         dpi: int = 150) -> list[Path]:
    """Write ``fig`` as ``stem.png`` and ``stem.pdf`` (atomically); return the paths."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        path = stem.with_suffix("." + fmt)
        tmp = path.with_name(f".{path.name}.tmp")
        fig.savefig(tmp, format=fmt, dpi=dpi)
        tmp.replace(path)
        paths.append(path)
    return paths


# --------------------------------------------------------------------------- sweeps (issue 4)

# --------------------------------------------------------------------------- stratify (issue 5)

# --------------------------------------------------------------------------- design (issue 6)
