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
    lam, ddf, crit = np.broadcast_arrays(lam, ddf, crit)
    # (scipy's ncf.sf is wrong at noncentrality 0, where the power is alpha: the central F)
    with np.errstate(invalid="ignore"):
        return np.where(lam > 0, stats.ncf.sf(crit, 1, ddf, np.where(lam > 0, lam, 1.0)),
                        stats.f.sf(crit, 1, ddf))


#: the most reader counts one :meth:`sizes` call bisects
MAX_READER_COUNTS = 10_000


def _effect(effect) -> float:
    from labelvar._base import _validate as V

    return float(V.single("effect", V.probability("effect", effect, lo=-1.0, hi=1.0)))


def _alpha(alpha) -> float:
    from labelvar._base import _validate as V

    return float(V.single("alpha", V.probability("alpha", alpha, open_lo=True, open_hi=True)))


def _finite(obj, names) -> None:
    for name in names:
        value = getattr(obj, name)
        try:
            ok = (not isinstance(value, (bool, np.bool_, str)) and np.ndim(value) == 0
                  and np.isfinite(float(value)))
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError(f"{name} must be a finite number (a pilot's variance component), "
                             f"got {value!r}")


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
    def __post_init__(self):
        from labelvar._base import _validate as V

        _finite(self, [f.name for f in dataclasses.fields(self) if f.name != "n_cases"])
        if self.var_error < 0:
            raise ValueError(f"var_error must be >= 0 (a variance), got {self.var_error!r}")
        V.single("n_cases", V.integer("n_cases", self.n_cases, lo=2))
        noise, floor = self._noise()
        if noise < -1e-15 or (noise <= 0 and floor <= 0):
            also = "" if noise < 0 else f" and {self._floor_text} <= 0"
            raise ValueError(f"{type(self).__name__}: the components give no error variance "
                             f"({self._noise_text} = {noise:.4g}{also}); "
                             "they are not a pilot's variance components")

    def power(self, readers, cases, *, effect, alpha=0.05):
        """Power of the RRRC test at ``readers`` x ``cases`` (broadcast) for a true ``effect``."""
        from labelvar._base import _validate as V

        r = V.integer("readers", readers, lo=2).astype(float)
        c = V.integer("cases", cases, lo=2).astype(float)
        V.broadcast(readers=r, cases=c)
        lam, ddf = self._lambda_ddf(r, c, _effect(effect))
        return _power(lam, ddf, _alpha(alpha))

    def sizes(self, *, effect, target=0.8, alpha=0.05, readers=range(3, 21), max_cases=100_000) -> Sizing:
        """For each number of readers, the fewest cases reaching ``target`` power (bisection)."""
        from labelvar._base import _validate as V

        target = float(V.single("target", V.probability("target", target, open_lo=True, open_hi=True)))
        effect = _effect(effect)
        if effect == 0:
            raise ValueError("effect must be a difference other than 0 to size a study for "
                             "(at effect 0 the power is alpha at any size)")
        alpha = _alpha(alpha)
        if isinstance(readers, (str, bytes)):
            raise ValueError(f"readers must be a sequence of numbers of readers, got {readers!r}")
        if hasattr(readers, "__len__") and len(readers) > MAX_READER_COUNTS:  # (before listing them)
            raise ValueError(f"readers lists {len(readers):,} numbers of readers; at most "
                             f"{MAX_READER_COUNTS:,} are sized in one call")
        if np.ndim(readers) > 1:
            raise ValueError(f"readers must be a sequence of numbers of readers, got {readers!r}")
        rs = V.integer("readers", list(np.atleast_1d(readers)) if np.ndim(readers) == 0 else list(readers),
                       lo=2)
        if rs.size == 0:
            raise ValueError("readers must list at least one number of readers")
        if rs.size > MAX_READER_COUNTS:
            raise ValueError(f"readers lists {rs.size:,} numbers of readers; at most "
                             f"{MAX_READER_COUNTS:,} are sized in one call")
        top = int(V.single("max_cases", V.integer("max_cases", max_cases, lo=2, hi=2**62)))
        r = rs.astype(float)
        at_top = self.power(r, top, effect=effect, alpha=alpha)
        reached = at_top >= target
        lo = np.full(r.shape, 2, dtype=np.int64)
        hi = np.full(r.shape, top, dtype=np.int64)
        while True:  # one bisection over every number of readers at once
            open_ = reached & (hi - lo > 1)
            if not open_.any():
                break
            mid = (lo + hi) // 2
            ok = self.power(r, mid, effect=effect, alpha=alpha) >= target
            hi = np.where(open_ & ok, mid, hi)
            lo = np.where(open_ & ~ok, mid, lo)
        power = np.where(reached, self.power(r, hi, effect=effect, alpha=alpha), at_top)
        table = pd.DataFrame({"readers": rs, "cases": np.where(reached, hi.astype(float), np.nan),
                              "power": power.astype(float)})
        return Sizing(table, target, effect, alpha, self._question)


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
    _noise_text = "var_error - cov1 - cov2 + cov3"
    _floor_text = "var_tr"

    def _noise(self):
        return self.var_error - self.cov1 - self.cov2 + self.cov3, self.var_tr

    @classmethod
    def from_result(cls, result) -> MRMCPower:
        """The components of an :class:`~labelvar.readers.MRMCResult` as a pilot."""
        c = result.components
        if result.fom["modality"].nunique() < 2:
            raise ValueError("result: MRMCPower sizes a comparison of two modalities; the pilot "
                             "has one (use StandalonePower.from_result for an AI against readers)")
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
    _noise_text = "var_error - cov2"
    _floor_text = "var_r"

    def _noise(self):
        return self.var_error - self.cov2, self.var_r

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
