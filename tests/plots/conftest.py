"""Figure-test helper: render a figure and check it is labelled and legible."""

from __future__ import annotations

import io

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure


def overlapping_ticks(ax) -> list[tuple[str, str]]:
    """Pairs of visible x tick labels of ``ax`` whose drawn boxes intersect."""
    renderer = ax.figure.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in ax.get_xticklabels()
             if t.get_visible() and t.get_text()]
    return [(a, b) for i, (a, ba) in enumerate(boxes) for b, bb in boxes[i + 1:]
            if ba.overlaps(bb)]


def _drawn(fig, *, legend: bool = True):
    """Render ``fig`` (Agg); check labels, a title, a legend and no overlapping x ticks.

    Every visible axes has an x label and no x tick labels that overlap; the first has
    a y label; the figure has a title; with ``legend`` every legend has entries.
    """
    assert isinstance(fig, Figure)
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    assert buf.getvalue().startswith(b"\x89PNG")
    fig.canvas.draw()
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.axison]
    assert axes
    for ax in axes:
        assert ax.get_xlabel(), ax
        assert not overlapping_ticks(ax), (ax, overlapping_ticks(ax))
    assert axes[0].get_ylabel()
    assert fig.get_suptitle()
    if legend:
        legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
        assert legends and all(lg.get_texts() for lg in legends)
    return fig


def legend_texts(fig) -> list[str]:
    """Every legend entry of ``fig`` (figure and axes legends)."""
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    return [t.get_text() for lg in legends for t in lg.get_texts()]


@pytest.fixture
def drawn():
    """``drawn(fig, legend=True)``: render the figure, assert labels (and a legend)."""
    return _drawn
