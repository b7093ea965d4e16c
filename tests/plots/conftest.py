"""Figure-test helper: render a figure and check it is labelled."""

from __future__ import annotations

import io

import pytest
from matplotlib.figure import Figure


def _drawn(fig, *, legend: bool = True):
    """Render ``fig`` to PNG; every visible axes has x and y labels (shared y: the first)."""
    assert isinstance(fig, Figure)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    assert buf.getvalue().startswith(b"\x89PNG")
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.axison]
    assert axes
    for ax in axes:
        assert ax.get_xlabel(), ax
    assert axes[0].get_ylabel()
    if legend:
        legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
        assert legends and all(lg.get_texts() for lg in legends)
    return fig


@pytest.fixture
def drawn():
    """``drawn(fig, legend=True)``: render the figure, assert labels (and a legend)."""
    return _drawn
