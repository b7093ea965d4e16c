"""Sizing a reader study from a pilot's OR variance components (Hillis, Obuchowski & Berbaum 2011).

The pilot's error variance and covariances scale with its number of cases: at ``c``
cases they are the pilot's times ``c_pilot / c``; ``var_tr`` (and ``var_r``) do not
depend on the cases. For two modalities differing by ``effect`` and ``r`` readers,

- ``E[MS(TR)] = var_tr + var_error - cov1 - cov2 + cov3`` (at ``c`` cases),
- ``denominator = E[MS(TR)] + r max(cov2 - cov3, 0)``,
- noncentrality ``lambda = r effect^2 / (2 denominator)``,
- ``ddf = denominator^2 / (E[MS(TR)]^2 / (r - 1))`` (Hillis' ddf at the expected mean squares),
- power ``= P(F(1, ddf; lambda) > F_{1 - alpha}(1, ddf))``.

For a standalone AI against readers (one treatment, ψ_j = θ_j − θ_AI): with the pilot's
``var_r`` of the ψ, its error variance ``var_error`` and ``cov2`` (covariances of two
readers' ψ), ``E[MS(R)] = var_r + var_error - cov2``, ``denominator = E[MS(R)] + r max(cov2,
0)``, ``lambda = r effect^2 / denominator``, ``ddf = denominator^2 / (E[MS(R)]^2 / (r - 1))``.

The formula is an approximation (the denominator's expected value in place of its
sampling distribution). Against a simulation of the same variance structure with
estimated covariances (``tests/readers/test_sizing.py``, 2,000 studies per design) it is
within 3 standard errors at 4-10 readers x 100-400 cases; at 3 readers x 60 cases it
gave 0.189 against a simulated 0.223 (conservative).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
from scipy import stats

from labelvar._base._format import markdown_table, shown


def _power(lam, ddf, alpha):
    crit = stats.f.isf(alpha, 1, ddf)
    return stats.ncf.sf(crit, 1, ddf, lam)


@shown
@dataclasses.dataclass(frozen=True, repr=False)
class Sizing:
    """Readers x cases that reach a target power (the smallest number of cases per readers).

    Attributes
    ----------
    table : DataFrame
        readers, cases (the fewest cases with power >= ``target``; NaN when more than
        ``max_cases`` would be needed), power (at those cases).
    target, effect, alpha : float
    question : str
    """

    table: pd.DataFrame
    target: float
    effect: float
    alpha: float
    question: str

    def describe(self) -> str:
        """The sizing table with its question."""
        return (f"{self.question}: readers x cases for power {self.target} at effect {self.effect}, "
                f"alpha {self.alpha}\n" + markdown_table(self.table))


@dataclasses.dataclass(frozen=True)
class _Base:
    def power(self, readers, cases, *, effect, alpha=0.05):
        """Power of the RRRC test at ``readers`` x ``cases`` (broadcast) for a true ``effect``."""
        r = np.asarray(readers, dtype=float)
        c = np.asarray(cases, dtype=float)
        if (r < 2).any():
            raise ValueError("readers must be at least 2")
        if (c < 2).any():
            raise ValueError("cases must be at least 2")
        lam, ddf = self._lambda_ddf(r, c, float(effect))
        return _power(lam, ddf, alpha)

    def sizes(self, *, effect, target=0.8, alpha=0.05, readers=range(3, 21), max_cases=100_000) -> Sizing:
        """For each number of readers, the fewest cases reaching ``target`` power (bisection)."""
        if not 0 < target < 1:
            raise ValueError(f"target must be in (0, 1), got {target!r}")
        rows = []
        for r in readers:
            lo, hi = 2, int(max_cases)
            if self.power(r, hi, effect=effect, alpha=alpha) < target:
                rows.append({"readers": r, "cases": np.nan, "power": float(self.power(
                    r, hi, effect=effect, alpha=alpha))})
                continue
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if self.power(r, mid, effect=effect, alpha=alpha) >= target:
                    hi = mid
                else:
                    lo = mid
            rows.append({"readers": r, "cases": float(hi),
                         "power": float(self.power(r, hi, effect=effect, alpha=alpha))})
        return Sizing(pd.DataFrame(rows), float(target), float(effect), float(alpha), self._question)


@dataclasses.dataclass(frozen=True)
class MRMCPower(_Base):
    """Power of the OR RRRC test of two modalities from a pilot's variance components.

    Parameters
    ----------
    var_tr, var_error, cov1, cov2, cov3 : float
        The pilot's OR components (``mrmc(...).components``); a negative ``var_tr`` is 0.
    n_cases : int
        The pilot's number of cases (its error terms scale as ``n_cases / cases``).

    Examples
    --------
    >>> p = MRMCPower(var_tr=0.0002, var_error=0.0008, cov1=0.00035, cov2=0.00034,
    ...               cov3=0.00024, n_cases=114)
    >>> round(float(p.power(5, 114, effect=0.05)), 3)
    0.624
    >>> p.sizes(effect=0.05, readers=[5, 10]).table["cases"].tolist()
    [208.0, 115.0]
    """

    var_tr: float
    var_error: float
    cov1: float
    cov2: float
    cov3: float
    n_cases: int
    _question = "OR RRRC, two modalities"

    @classmethod
    def from_result(cls, result) -> MRMCPower:
        """The components of an :class:`~labelvar.readers.MRMCResult` as a pilot."""
        c = result.components
        return cls(c["var_tr"], c["var_error"], c["cov1"], c["cov2"], c["cov3"], result.n_cases)

    def _lambda_ddf(self, r, c, effect):
        s = self.n_cases / c
        ms_tr = max(self.var_tr, 0.0) + s * (self.var_error - self.cov1 - self.cov2 + self.cov3)
        den = ms_tr + r * s * max(self.cov2 - self.cov3, 0.0)
        return r * effect ** 2 / (2 * den), den ** 2 / (ms_tr ** 2 / (r - 1))


@dataclasses.dataclass(frozen=True)
class StandalonePower(_Base):
    """Power of the 1T-RRRC test of readers against a standalone AI from a pilot.

    Parameters
    ----------
    var_r : float
        The readers' variance of ψ = θ_reader − θ_AI beyond the case noise (negative: 0).
    var_error, cov2 : float
        The pilot's error variance of one reader's ψ and covariance of two readers' ψ.
    n_cases : int
        The pilot's number of cases.

    Examples
    --------
    >>> p = StandalonePower(var_r=0.001, var_error=0.0015, cov2=0.0007, n_cases=100)
    >>> round(float(p.power(6, 200, effect=0.05)), 3)
    0.519
    """

    var_r: float
    var_error: float
    cov2: float
    n_cases: int
    _question = "1T-RRRC, readers against a standalone AI"

    @classmethod
    def from_result(cls, result) -> StandalonePower:
        """The ψ components of a :class:`~labelvar.readers.StandaloneResult` as a pilot."""
        c = result.components
        return cls(c["ms_r"] - c["var_error"] + c["cov2"], c["var_error"], c["cov2"], result.n_cases)

    def _lambda_ddf(self, r, c, effect):
        s = self.n_cases / c
        ms_r = max(self.var_r, 0.0) + s * (self.var_error - self.cov2)
        den = ms_r + r * s * max(self.cov2, 0.0)
        return r * effect ** 2 / den, den ** 2 / (ms_r ** 2 / (r - 1))
