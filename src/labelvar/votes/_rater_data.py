"""Votes read by the one reader (:func:`labelvar.io.read_votes`), laid out for the rater kernels.

:func:`encode` reads long votes through :func:`labelvar.io.read_votes` (every rule on
labels and ids is there: ids as written, labels canonical, stray / non-finite / mixed
labels and duplicates refused) and returns :class:`Encoded`: the votes as compressed
sparse rows by item, with rater and label codes.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from labelvar._base import _validate as V
from labelvar._kernels import raters as rk

#: bytes per vote of the fit (codes, two sparse orders, the reader's factorisation)
BYTES_PER_VOTE = 72


@dataclasses.dataclass(frozen=True)
class Encoded:
    """Votes as codes. ``rater`` codes index ``raters``; ``len(raters)`` = a rater not known."""

    items: pd.Index
    raters: tuple
    labels: tuple
    item_ptr: np.ndarray  # (n_items + 1,)
    rater: np.ndarray  # per vote, in item order
    label: np.ndarray  # per vote, in item order

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def n_votes(self) -> int:
        return int(self.rater.size)


def encode(votes, *, item="item", rater="rater", label="label", labels=None, raters=None,
           what: str = "votes", extra_bytes_per_item: int = 0) -> Encoded:
    """Read long votes with :func:`labelvar.io.read_votes` and lay them out by item.

    Parameters
    ----------
    votes : pandas.DataFrame, path or labelvar.io.Votes
        One row per vote.
    item, rater, label : column names
    labels : sequence or None
        The declared label set (a model's, or the user's); None: the labels seen.
    raters : sequence or None
        Known raters (a model's): others get the code ``len(raters)``; matched as text.
    what : str
        The argument's name in messages.
    extra_bytes_per_item : int
        Memory the caller will need per item (posteriors), for the size check.

    Returns
    -------
    Encoded
    """
    from labelvar.io import Votes, read_votes

    if not isinstance(votes, (pd.DataFrame, Votes)) and not hasattr(votes, "__fspath__") \
            and not isinstance(votes, str):
        raise ValueError(f"{what} must be a pandas DataFrame with one row per vote (columns item, "
                         f"rater, label), a votes file or labelvar.io.Votes, got "
                         f"{type(votes).__name__}")
    if isinstance(votes, pd.DataFrame):
        n_votes = len(votes)
        V.memory(f"rater models of {n_votes} votes", n_votes * BYTES_PER_VOTE
                 + n_votes * extra_bytes_per_item, "fit a sample of the items")
    try:
        v = read_votes(votes, item=item, rater=rater, label=label, labels=labels)
    except ValueError as e:  # the reader names its argument "data": here it is `what`
        msg = str(e)
        if msg.startswith("data: "):
            msg = f"{what}: {msg[len('data: '):]}"
        elif raters is not None and msg.startswith("labels: the votes use"):  # a model's labels
            msg = (f"{what}: {msg[len('labels: '):].split('; add')[0]}".replace(
                "the declared labels", "the model's labels") + "; the model knows no other label")
        raise ValueError(msg) from None
    if labels is None and len(v.labels) < 2:
        raise ValueError(f"{what}: the votes use one label only ({list(v.labels)!r}); declare the "
                         "label set with labels=[...] (at least 2 labels)")
    ptr, order = rk.csr(v.item_code, v.n_items)
    by_r, by_l = v.rater_code[order], v.label_code[order]
    rat = tuple(v.raters)
    if raters is not None:  # the known raters' codes; every other rater: len(raters)
        known = pd.Index([str(r) for r in raters]).get_indexer(pd.Index(rat, dtype=object))
        by_r = np.where(known < 0, len(raters), known)[by_r].astype(np.int64)
        rat = tuple(raters)
    return Encoded(items=v.items, raters=rat, labels=tuple(v.labels), item_ptr=ptr, rater=by_r,
                   label=by_l)
