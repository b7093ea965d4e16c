"""Shared figure style: palettes, fonts, grid, legends, a pyplot-free figure factory, the saver.

Every figure of :mod:`labelvar.plots` is made by :func:`new_figure`, titled by
:func:`title`, and gets its legend from :func:`legend`, so fonts, sizes, grid and
legend placement are the same everywhere. Colors are colour-blind safe: Okabe & Ito
for up to 7 series, Paul Tol's *muted* scheme for 8-9 (:func:`series_colors`); each
series also gets its own marker (:data:`MARKERS`), so series stay apart in grey print.

Figures are :class:`matplotlib.figure.Figure` objects made directly (no pyplot),
and the style is applied to each figure's own artists (never through rcParams), so
drawing needs no backend and importing this module changes no global state
(backend, rcParams, warning filters).
"""

from __future__ import annotations

import io
import textwrap
from pathlib import Path

from matplotlib.figure import Figure

from labelvar._base._files import atomic_write

__all__ = ["HUMAN_COLOR", "LINESTYLES", "MARKERS", "PALETTE", "TOL_MUTED", "legend",
           "metric_label", "new_figure", "save", "series_colors", "series_style", "title"]

#: Okabe & Ito (2008): blue, vermillion, bluish green, reddish purple, orange, sky blue,
#: yellow, black; colour-blind safe. The first 7 are series colors, black is reserved
#: for references (humans, closed forms shared by every series).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")
#: Paul Tol's *muted* scheme (9 colors, colour-blind safe): used when 8 or 9 series are drawn
TOL_MUTED = ("#CC6677", "#332288", "#DDCC77", "#117733", "#88CCEE", "#882255", "#44AA99",
             "#999933", "#AA4499")
#: one marker per series (after the colors, the second cue; the 10th series repeats)
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", "h", ">")
#: line styles per series where lines would otherwise coincide (e.g. power per K)
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 1)))
#: the reference series (human group, shared closed forms)
HUMAN_COLOR = "#000000"

#: font sizes (points): figure title (and its subtitle line), panel title, axis label, tick label, legend
FONT = {"title": 10, "panel": 9, "label": 9, "tick": 8, "legend": 7.5}
GRID = {"alpha": 0.3, "linewidth": 0.5}


def series_colors(n: int) -> tuple[str, ...]:
    """``n`` distinct colour-blind-safe colors: Okabe & Ito up to 7, Tol muted up to 9.

    Beyond 9 the colors repeat (the markers of :func:`series_style` still differ).

    Examples
    --------
    >>> series_colors(3)
    ('#0072B2', '#D55E00', '#009E73')
    >>> len(set(series_colors(8))), series_colors(8)[0]
    (8, '#CC6677')
    """
    base = PALETTE[:7] if n <= 7 else TOL_MUTED
    return tuple(base[i % len(base)] for i in range(n))


def series_style(i: int, n: int) -> dict:
    """Color and marker of series ``i`` of ``n`` (keyword arguments for ``ax.plot``).

    Examples
    --------
    >>> series_style(1, 3)
    {'color': '#D55E00', 'marker': 's'}
    """
    return {"color": series_colors(n)[i], "marker": MARKERS[i % len(MARKERS)]}


_METRIC_LABELS = {"accuracy": "accuracy", "precision": "precision", "recall": "recall",
                  "f1": "$F_1$", "kappa": "Cohen's $\\kappa$"}


def metric_label(metric: str, n_labels=()) -> str:
    """Axis text of a metric; F1 is macro-F1 for L > 2 labels (as :mod:`labelvar.metrics`).

    Examples
    --------
    >>> metric_label("f1", [2]), metric_label("f1", [3, 4]), metric_label("f1", [2, 3])
    ('$F_1$', 'macro-$F_1$', '$F_1$ (macro-$F_1$ for $L$ > 2)')
    """
    ls = {int(v) for v in n_labels if v == v}
    if metric == "f1" and ls and min(ls) > 2:
        return "macro-$F_1$"
    if metric == "f1" and ls and max(ls) > 2:
        return "$F_1$ (macro-$F_1$ for $L$ > 2)"
    return _METRIC_LABELS.get(metric, metric)


def _style_axes(ax) -> None:
    ax.tick_params(labelsize=FONT["tick"])
    ax.xaxis.label.set_size(FONT["label"])
    ax.yaxis.label.set_size(FONT["label"])
    ax.title.set_size(FONT["panel"])
    ax.grid(True, **GRID)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def new_figure(nrows: int = 1, ncols: int = 1, *, width: float = 4.2, height: float = 3.4,
               sharey: bool = False) -> tuple[Figure, object]:
    """Create a styled figure without pyplot's global state; return ``(fig, axes)``.

    Rows come before columns, as in :meth:`matplotlib.figure.Figure.subplots`;
    ``width`` and ``height`` are per panel; ``axes`` is always 2-D. Every axes gets
    the shared style: tick and label sizes, a light grid below the data, no top or
    right spine.

    Examples
    --------
    >>> fig, axes = new_figure(1, 2)
    >>> axes.shape, fig.get_size_inches().tolist()
    ((1, 2), [8.4, 3.4])
    """
    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, sharey=sharey, squeeze=False)
    for ax in axes.ravel():
        _style_axes(ax)
    return fig, axes


def title(fig: Figure, text: str, subtitle: str | None = None) -> None:
    """Set the figure title (and a second line saying what was run: the scenario, the data).

    Examples
    --------
    >>> fig, _ = new_figure()
    >>> title(fig, "Power", "two systems, alpha = 0.05")
    >>> fig.get_suptitle().splitlines()
    ['Power', 'two systems, alpha = 0.05']
    """
    if subtitle:  # wrapped to the figure's width (about 12 characters per inch at 10 pt),
        width = max(40, int(fig.get_figwidth() * 12))  # at "; " where it can
        lines = []
        for part in subtitle.split("; "):
            if lines and len(lines[-1]) + 2 + len(part) <= width:
                lines[-1] += "; " + part
            else:
                lines.extend(textwrap.wrap(part, width=width, break_on_hyphens=False) or [""])
        subtitle = "\n".join(lines)
    fig.suptitle(f"{text}\n{subtitle}" if subtitle else text, fontsize=FONT["title"],
                 linespacing=1.4)


def legend(fig: Figure, handles, *, ncol: int | None = None, ax=None, loc: str | None = None,
           title: str | None = None):
    """The one legend placement: below the panels, centered, no frame.

    With ``ax`` the legend goes into that axes instead (``loc``, default ``"best"``),
    e.g. a free panel of a grid.

    Examples
    --------
    >>> from matplotlib.lines import Line2D
    >>> fig, _ = new_figure()
    >>> lg = legend(fig, [Line2D([], [], label="a"), Line2D([], [], label="b")])
    >>> [t.get_text() for t in lg.get_texts()]
    ['a', 'b']
    """
    handles = list(handles)
    kw = dict(handles=handles, fontsize=FONT["legend"], frameon=False,
              title=title, title_fontsize=FONT["legend"])
    if ax is not None:
        return ax.legend(loc=loc or "best", ncol=ncol or 1, **kw)
    return fig.legend(loc=loc or "outside lower center", ncol=ncol or min(len(handles), 4),
                      **kw)


def checked_table(table, columns, *, name: str = "table", what: str = "a table"):
    """``table`` (a DataFrame, or a result's ``.table``) with ``columns``; one line otherwise.

    Examples
    --------
    >>> import pandas as pd
    >>> checked_table(pd.DataFrame({"a": [1]}), ("a",)).shape
    (1, 1)
    >>> checked_table(None, ("a",))
    Traceback (most recent call last):
    ...
    ValueError: table must be a pandas DataFrame (a table), got NoneType
    >>> checked_table(pd.DataFrame({"a": []}), ("a", "b"), what="a stratify table")
    Traceback (most recent call last):
    ...
    ValueError: table lacks the column(s) b of a stratify table (needs a, b)
    """
    import pandas as pd

    table = getattr(table, "table", table)
    if not isinstance(table, pd.DataFrame):
        raise ValueError(f"{name} must be a pandas DataFrame ({what}), got "
                         f"{type(table).__name__}")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"{name} lacks the column(s) {', '.join(missing)} of {what} "
                         f"(needs {', '.join(columns)})")
    if table.empty:
        raise ValueError(f"{name} has no rows (nothing to draw)")
    return table


def save(fig: Figure, stem: str | Path, formats: tuple[str, ...] = ("png", "pdf"),
         dpi: int = 150) -> list[Path]:
    """Write ``fig`` as ``stem.<format>`` for each format (atomically); return the paths.

    Each format is rendered to memory and written with
    an atomic replace, so no half-written figure is ever seen.
    The layout (constrained) is computed once, by the first format; the other
    formats reuse it (each ``savefig`` with a layout engine draws the figure twice:
    once to lay it out, once to render).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> fig, _ = new_figure()
    >>> [p.name for p in save(fig, pathlib.Path(tempfile.mkdtemp()) / "f", formats=("svg",))]
    ['f.svg']
    """
    if not isinstance(fig, Figure):
        raise ValueError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    formats = (formats,) if isinstance(formats, str) else tuple(formats)
    known = fig.canvas.get_supported_filetypes()
    bad = [f for f in formats if f not in known]
    if bad or not formats:
        raise ValueError(f"formats must name figure formats ({', '.join(sorted(known))}), got "
                         f"{bad[0] if bad else 'none'!r}")
    stem = Path(stem)
    paths = []
    import matplotlib

    # savefig draws twice whenever the figure has a layout engine (even the placeholder
    # that set_layout_engine("none") leaves): the first format lays the figure out, the
    # next ones draw once each with the engine removed (None, with the rc layouts off so
    # that None means none), and the figure gets its engine back at the end
    no_rc_layout = {"figure.autolayout": False, "figure.constrained_layout.use": False}
    engine = fig.get_layout_engine()
    try:
        for fmt in formats:
            buf = io.BytesIO()
            fig.savefig(buf, format=fmt, dpi=dpi)
            paths.append(atomic_write(stem.with_name(f"{stem.name}.{fmt}"), buf.getvalue()))
            with matplotlib.rc_context(no_rc_layout):
                fig.set_layout_engine(None)
    finally:
        with matplotlib.rc_context(no_rc_layout):
            fig.set_layout_engine(engine)
    return paths
