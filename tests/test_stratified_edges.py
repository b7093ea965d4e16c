"""stratify() at the edges of its inputs: messages, blank cells and dtypes as a user sees them."""

from __future__ import annotations

import re

import pytest

from labelvar.stratified import stratify

PANEL = [[1, 1, 0], [0, 0, 0], [1, 0, 0], [1, 1, 1], [0, 1, 1]]
PRED = {"s": [1, 0, 1, 0, 1]}


@pytest.mark.parametrize("bins, shown", [([0.5], "[0.5]"), ([1, 0.5], "[1, 0.5]"),
                                         ([0.5, 0.5, 1], "[0.5, 0.5, 1]")])
def test_bad_bins_message_shows_the_edges_as_typed(bins, shown):
    with pytest.raises(ValueError) as info:
        stratify(PANEL, PRED, bins=bins, n_boot=0)
    msg = str(info.value)
    assert msg == f"bins must be at least 2 increasing edges in [0, 1], got {shown}"
    assert "np.float64" not in msg
