"""A small synthetic binary panel in wide layout (examples and tutorials)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def synthetic_panel(n_items: int = 400, n_panel: int = 5, seed: int = 0) -> pd.DataFrame:
    """Generate a small synthetic binary dataset in wide layout, deterministically.

    Each item has a latent answer (positive with probability 0.3) and a
    difficulty: its annotators follow the latent answer with probability
    ``q`` drawn from {0.6, 0.8, 0.97} (30/30/40 %). The panel (``gt1`` ...)
    and two independent humans (``human1``, ``human2``) vote that way. Three
    systems: ``strong`` (follows the latent answer with probability 0.9 on every
    item), ``weak`` (0.7) and ``coin`` (a fair coin).

    Parameters
    ----------
    n_items : int
        Number of items (rows).
    n_panel : int
        Panel size (odd sizes avoid ties), >= 2.
    seed : int
        Seed of :func:`numpy.random.default_rng`; the same seed gives the same table.

    Returns
    -------
    pandas.DataFrame
        Columns ``item, gt1..gtK, human1, human2, strong, weak, coin``; labels 0/1.

    Examples
    --------
    >>> df = synthetic_panel(10, seed=1)
    >>> df.columns.tolist()[:3], df.shape
    (['item', 'gt1', 'gt2'], (10, 11))
    >>> bool((synthetic_panel(10, seed=1) == df).all().all())
    True
    """
    from labelvar._base import _validate as v

    n = v.single("n_items", v.integer("n_items", n_items, lo=1))
    k = v.single("n_panel", v.integer("n_panel", n_panel, lo=2))
    from labelvar._base._seeding import as_seed

    rng = np.random.default_rng(as_seed(seed))
    truth = (rng.random(n) < 0.3).astype(int)
    q = rng.choice([0.6, 0.8, 0.97], size=n, p=[0.3, 0.3, 0.4])

    def follow(p):
        agree = rng.random(n) < p
        return np.where(agree, truth, 1 - truth)

    cols = {"item": [f"item{i + 1:04d}" for i in range(n)]}
    for j in range(k):
        cols[f"gt{j + 1}"] = follow(q)
    cols["human1"] = follow(q)
    cols["human2"] = follow(q)
    cols["strong"] = follow(0.9)
    cols["weak"] = follow(0.7)
    cols["coin"] = (rng.random(n) < 0.5).astype(int)
    return pd.DataFrame(cols)
