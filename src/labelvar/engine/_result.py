"""The result object of :func:`labelvar.simulate`."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from labelvar._base._format import count, result_html


@dataclass(frozen=True, repr=False)
class SimulationResult:
    """Tables of one :func:`labelvar.simulate` call.

    Attributes
    ----------
    summary : pandas.DataFrame
        One row per grid cell x labeller x stratum x metric (Monte Carlo mean,
        spread, quantiles, exact expectation and z).
    raw : pandas.DataFrame or None
        With ``outputs=["raw"]``: one row per grid cell x labeller x stratum x replicate
        (confusion counts and metrics of that replicate).
    joint : pandas.DataFrame or None
        With ``outputs=["joint"]``: one row per grid cell x stratum x replicate x joint
        outcome (truth, each labeller's prediction) with its ``count``.
    seed : int
        The seed actually used; passing it again repeats the run.

    Examples
    --------
    >>> from labelvar import simulate
    >>> from labelvar import Coin
    >>> res = simulate(Coin(p_d=0.8), n_items=50, replicates=20, seed=3, expected=False)
    >>> res
    SimulationResult(summary: 8 rows, raw: None, joint: None, seed=3)
    """

    summary: pd.DataFrame
    raw: pd.DataFrame | None = None
    joint: pd.DataFrame | None = None
    seed: int = 0

    def __repr__(self) -> str:
        def size(table):
            return "None" if table is None else count(len(table), "row")

        return (f"SimulationResult(summary: {size(self.summary)}, raw: {size(self.raw)}, "
                f"joint: {size(self.joint)}, seed={self.seed})")

    def _repr_html_(self) -> str:
        """The notebook view: the seed and the first rows of each table."""
        return result_html("SimulationResult", {"seed": self.seed},
                           {"summary": self.summary, "raw": self.raw, "joint": self.joint})
