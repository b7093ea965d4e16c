"""Item models: the per-item agreement θ priors, their one parser, and the class prior.

In panel mode every item has a modal label and an agreement level θ, the
probability that one annotator votes the modal label (the other L - 1 labels
share 1 - θ equally). θ is fixed or drawn per item from a prior:

- :class:`FixedTheta` -- every item has the same θ;
- :class:`BetaPrior` -- θ = lo + (hi - lo) Beta(a, b), lo = 1/L by default;
- :class:`DiscretePrior` -- a finite mixture: θ = values[i] with probability weights[i].

The support must lie in [1/L, 1] (the modal label gets at least 1/L of the votes);
:meth:`ThetaPrior.check` says so in one line. :func:`as_theta_prior` is the one parser
of the spellings accepted by :func:`labelvar.simulate`, :class:`labelvar.design.Scenario`,
the sweep configuration and the command line; :func:`class_prior` is the one definition
of the class (modal-label) prior.

Every prior offers the same methods: ``support``, ``mean``, ``nodes`` (a quadrature
rule exact for polynomials in θ of a given degree, so exact expectations of panel
outcomes, which are polynomials of degree K in θ, are finite sums), ``label_nodes``
(the same nodes as per-vote label distributions π), ``check``, ``key``
(stable text: the simulation's random streams are keyed on it), ``describe`` and
``spec`` (text that :func:`as_theta_prior` parses back to an equal prior, for
configuration files).

Adding an item model
--------------------
Consumers of the exact calculation use the item model only through
:meth:`ThetaPrior.label_nodes`: nodes π (per-vote label probabilities in positions
relative to the modal label: position 0 is the modal label) and weights, with
P(composition) = sum_n w_n Multinomial(composition; π_n). A later model of per-item
label distributions (a Dirichlet with one α per label, Dirichlet mixtures, empirical
resampling of pilot items) plugs in as another subclass: it returns its own π nodes
from ``label_nodes`` (an empirical model: the resampled items' π with equal weights),
and a Dirichlet, whose compositions are Dirichlet-multinomial, can in addition give
the exact composition probabilities directly (log P(c) = log K! - sum log c_p! +
log Γ(α_0) - log Γ(K + α_0) + sum_p [log Γ(c_p + α_p) - log Γ(α_p)]) instead of
quadrature nodes. A model whose π is not symmetric in the non-modal labels keeps the
relative-position convention (position p = label (c + p) mod L) so the tie rules and
strata of the symmetric models apply unchanged.

The item models that exist (:class:`ItemModel`: :class:`DirichletItems`,
:class:`DirichletMixture`, :class:`EmpiricalItems`) work in *absolute* labels instead,
since their π has no symmetry: they give P(votes, modal label argmax π) directly
(:meth:`ItemModel.modal_composition_probs`; Dirichlet-multinomial closed form times the
posterior probability that label j is largest), so ``nodes``/``kernel_args`` raise
TypeError for them and the engine and planner branch on ``isinstance(.., ItemModel)``.

Examples
--------
>>> p = as_theta_prior("beta:2,1")
>>> p, p.describe(2), round(p.mean(2), 4)
(BetaPrior(a=2.0, b=1.0, lo=None, hi=1.0), 'Beta(2, 1) on [1/2, 1]', 0.8333)
>>> as_theta_prior(("mixture", [0.6, 1], [0.3, 0.7])).key()
'discrete(values=(0.6, 1.0),weights=(0.3, 0.7))'
>>> class_prior(0.2, 3).tolist()
[0.4, 0.2, 0.4]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from labelvar._base import _validate as v
from labelvar._base._format import exact_float as _exact
from labelvar._base._format import short_float as _g
from labelvar._base._validate import SUM_TOL
from labelvar.votes import _panel
from labelvar.votes._item_priors import (
    DirichletItems,
    DirichletMixture,
    EmpiricalItems,
    ItemModel,
    _parse_rows,
)

#: Slack of the lower support bound 1/L (1/3 written as 0.3333333333333333 is fine).
_SUPPORT_TOL = 1e-12

_FORMS = ("a number, 'beta:A,B' (or 'beta:A,B,LO,HI'), 'mixture:T1=W1,T2=W2,...', ('beta', a, b[, lo, hi]), "
          "('mixture', values[, weights]), ('fixed', θ), {'beta': [a, b]}, "
          "{'mixture': {'theta': [...], 'weight': [...]}}, {'fixed': θ}, an item model "
          "'dirichlet:A1,A2,...', 'dirichlet_mixture:W1=A1,A2,..;W2=...', 'empirical:P1,P2,..;...', "
          "('dirichlet', concentration), ('dirichlet_mixture', concentrations[, weights]), "
          "('empirical', distributions[, weights]), {'dirichlet': concentration}, or a "
          "FixedTheta / BetaPrior / "
          "DiscretePrior / DirichletItems / DirichletMixture / EmpiricalItems")
_ITEM_KINDS = ("dirichlet", "dirichlet_mixture", "empirical")
#: item-model keys renamed to the one vocabulary: the old spelling is refused naming the new one
RENAMED_KEYS = {"alpha": "concentration", "alphas": "concentrations"}


def n_nodes(degree: int) -> int:
    """Number of Gauss nodes used for polynomials of ``degree`` (the one rule).

    n Gauss nodes integrate polynomials of degree 2n - 1 exactly; degree // 2 + 2
    nodes leave a margin of at least one degree.

    Examples
    --------
    >>> n_nodes(7)
    5
    """
    return int(degree) // 2 + 2


class ThetaPrior:
    """Base class of the θ priors (see the module docstring for the method contract).

    Subclasses implement ``support``, ``mean``, ``nodes``, ``key``,
    ``describe`` and ``spec``; ``check`` and ``label_nodes`` are shared.

    Examples
    --------
    >>> isinstance(FixedTheta(0.8), ThetaPrior)
    True
    """

    def support(self, n_labels: int) -> tuple[float, float]:
        """Return (lowest, highest) θ with positive probability."""
        raise NotImplementedError

    def mean(self, n_labels: int) -> float:
        """Return E[θ]."""
        raise NotImplementedError

    def nodes(self, n_labels: int, degree: int) -> tuple[np.ndarray, np.ndarray]:
        """Return (theta, weights): weights sum to 1, exact for polynomials of ``degree``."""
        raise NotImplementedError

    def key(self) -> str:
        """Stable text for random-stream keys and the ``theta_prior`` column."""
        raise NotImplementedError

    def describe(self, n_labels: int | None = None) -> str:
        """Human-readable one-liner."""
        raise NotImplementedError

    def spec(self, n_labels: int | None = None) -> str:
        """The prior as text that :func:`as_theta_prior` parses back to an equal prior."""
        raise NotImplementedError

    def kernel_args(self, n_labels: int) -> tuple[str, np.ndarray, np.ndarray]:
        """Return (kind, parameters, cumulative weights) for the engine's θ draw.

        ``kind`` is ``"fixed"`` (parameters [θ]), ``"beta"`` ([a, b, lo, hi]) or
        ``"discrete"`` (the values; cumulative weights beside them); the numba
        kernels of the engine draw θ from these arrays.
        """
        raise NotImplementedError

    def check(self, n_labels: int, name: str = "theta"):
        """Raise ValueError unless the support lies in [1/L, 1]; return self.

        Parameters
        ----------
        n_labels : int
            L.
        name : str
            The field named in the message (``"theta"``, ``"theta_prior"``, ...).

        Examples
        --------
        >>> FixedTheta(0.4).check(3)
        FixedTheta(value=0.4)
        >>> FixedTheta(0.4).check(2)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: theta must be in [1/L, 1] = [0.5, 1] for n_labels=2 (the modal label ..., got 0.4
        """
        L = int(v.n_labels(n_labels))
        lo, hi = self.support(L)
        floor = 1.0 / L - _SUPPORT_TOL
        if lo < floor or hi < floor or lo > 1.0 or hi > 1.0 or lo > hi:
            got = _g(lo) if lo == hi else f"support [{_g(lo)}, {_g(hi)}]"
            raise ValueError(f"{name} must be in [1/L, 1] = [{_g(1.0 / L)}, 1] for n_labels={L} "
                             f"(the modal label gets at least 1/L of the votes), got {got}")
        return self

    def label_nodes(self, n_labels: int, degree: int) -> tuple[np.ndarray, np.ndarray]:
        """The item model as per-vote label distributions π, in relative positions.

        Parameters
        ----------
        n_labels : int
            L.
        degree : int
            Exact for polynomials of this degree in θ (e.g. K for a K-vote panel).

        Returns
        -------
        pi : ndarray, shape (nodes, L)
            Position 0 = the modal label (θ), the others (1 - θ) / (L - 1) each.
        weights : ndarray, shape (nodes,)
            Summing to 1.

        Examples
        --------
        >>> pi, w = FixedTheta(0.7).label_nodes(3, 5)
        >>> pi.round(2).tolist(), w.tolist()
        ([[0.7, 0.15, 0.15]], [1.0])
        """
        theta, w = self.nodes(n_labels, degree)
        return _panel.symmetric_probs(theta, n_labels), w


@dataclass(frozen=True)
class FixedTheta(ThetaPrior):
    """Every item has agreement θ = ``value``.

    Parameters
    ----------
    value : float
        θ, in [0, 1].

    Examples
    --------
    >>> p = FixedTheta(0.8)
    >>> p.describe(), p.key(), p.nodes(2, 10)
    ('theta = 0.8', 'fixed(value=0.8)', (array([0.8]), array([1.])))
    """

    value: float

    def __post_init__(self):
        val = v.probability("FixedTheta.value", self.value)
        if np.ndim(val) != 0:
            raise ValueError(f"FixedTheta.value must be a single number, got {self.value!r}")
        object.__setattr__(self, "value", float(val))

    def support(self, n_labels: int) -> tuple[float, float]:
        """Return (value, value)."""
        return self.value, self.value

    def mean(self, n_labels: int) -> float:
        """Return the value."""
        return self.value

    def nodes(self, n_labels: int, degree: int) -> tuple[np.ndarray, np.ndarray]:
        """One node, weight 1."""
        return np.array([self.value]), np.array([1.0])

    def key(self) -> str:
        """Return ``fixed(value=...)``."""
        return f"fixed(value={self.value!r})"

    def describe(self, n_labels: int | None = None) -> str:
        """Return ``theta = 0.8``."""
        return f"theta = {_g(self.value)}"

    def spec(self, n_labels: int | None = None) -> str:
        """Return the value as text, e.g. ``"0.8"`` (exact: shortest round-trip digits).

        Examples
        --------
        >>> FixedTheta(0.8).spec(), as_theta_prior(FixedTheta(1 / 3).spec()) == FixedTheta(1 / 3)
        ('0.8', True)
        """
        return _exact(self.value)

    def kernel_args(self, n_labels: int) -> tuple[str, np.ndarray, np.ndarray]:
        """Return ``("fixed", [θ], [1])``."""
        return "fixed", np.array([self.value]), np.ones(1)


@dataclass(frozen=True)
class BetaPrior(ThetaPrior):
    """Per-item agreement θ = lo + (hi - lo) Beta(a, b); ``lo=None`` means 1/L.

    Parameters
    ----------
    a, b : float
        The Beta shape parameters (> 0).
    lo : float or None
        Lower end of θ (default None: 1/L, the agreement of random votes).
    hi : float
        Upper end of θ (default 1).

    Examples
    --------
    >>> p = BetaPrior(4, 1)
    >>> p.support(2), round(p.mean(2), 4), p.describe(3)
    ((0.5, 1.0), 0.9, 'Beta(4, 1) on [1/3, 1]')
    >>> p.key()
    'beta(a=4.0,b=1.0,lo=None,hi=1.0)'
    """

    a: float
    b: float
    lo: float | None = None
    hi: float = 1.0

    def __post_init__(self):
        for fld in ("a", "b"):
            value = v.as_float_array(f"BetaPrior.{fld}", getattr(self, fld))
            if np.ndim(value) != 0 or not value > 0 or not np.isfinite(value):
                raise ValueError(f"BetaPrior.{fld} must be a number > 0, got "
                                 f"{getattr(self, fld)!r}")
            object.__setattr__(self, fld, float(value))
        if self.lo is not None:
            object.__setattr__(self, "lo", v.single("BetaPrior.lo",
                                                    v.probability("BetaPrior.lo", self.lo)))
        object.__setattr__(self, "hi", v.single("BetaPrior.hi",
                                                v.probability("BetaPrior.hi", self.hi)))
        if self.lo is not None and not self.lo < self.hi:
            raise ValueError(f"BetaPrior.lo must be < hi, got lo={self.lo}, hi={self.hi}")

    def support(self, n_labels: int) -> tuple[float, float]:
        """Return (lo, hi) for ``n_labels`` labels."""
        lo = 1.0 / n_labels if self.lo is None else self.lo
        return lo, self.hi

    def mean(self, n_labels: int) -> float:
        """Return E[θ] = lo + (hi - lo) a / (a + b)."""
        lo, hi = self.support(n_labels)
        return lo + (hi - lo) * self.a / (self.a + self.b)

    def nodes(self, n_labels: int, degree: int) -> tuple[np.ndarray, np.ndarray]:
        """Gauss-Jacobi nodes and weights integrating polynomials of ``degree`` exactly.

        Notes
        -----
        With x = (θ - lo) / (hi - lo) ~ Beta(a, b) and t = 2x - 1, the density is
        proportional to (1 - t)^(b - 1) (1 + t)^(a - 1): the Jacobi weight with
        α = b - 1, β = a - 1. :func:`n_nodes` (degree) nodes; weights normalised to 1.

        Examples
        --------
        >>> th, w = BetaPrior(2, 2, lo=0.0).nodes(2, 2)
        >>> round(float(w @ th**2), 12)  # E[x^2] of Beta(2, 2) = 0.3
        0.3
        """
        from scipy.special import roots_jacobi

        with np.errstate(over="ignore", invalid="ignore"):
            t, w = roots_jacobi(n_nodes(degree), self.b - 1.0, self.a - 1.0)
        if not np.isfinite(w).all():  # a + b in the hundreds: scipy's total mass overflows
            t, w = _golub_welsch_jacobi(n_nodes(degree), self.b - 1.0, self.a - 1.0)
        lo, hi = self.support(n_labels)
        x = (1.0 + t) / 2.0
        return lo + (hi - lo) * x, w / w.sum()

    def key(self) -> str:
        """Return ``beta(a=...,b=...,lo=...,hi=...)``."""
        return f"beta(a={self.a!r},b={self.b!r},lo={self.lo!r},hi={self.hi!r})"

    def describe(self, n_labels: int | None = None) -> str:
        """Return e.g. ``Beta(2, 1) on [1/2, 1]``."""
        if self.lo is None:
            low = f"1/{int(n_labels)}" if n_labels is not None else "1/L"
        else:
            low = _g(self.lo)
        return f"Beta({_g(self.a)}, {_g(self.b)}) on [{low}, {_g(self.hi)}]"

    def spec(self, n_labels: int | None = None) -> str:
        """Return ``"beta:A,B"`` (on [1/L, 1]) or ``"beta:A,B,LO,HI"``, digits exact.

        A prior with ``lo=None`` (1/L) but ``hi < 1`` has no text form without L: give
        ``n_labels`` and LO is written as 1/L.

        Examples
        --------
        >>> BetaPrior(7.963, 2).spec(), BetaPrior(2, 2, lo=0.6, hi=0.95).spec()
        ('beta:7.963,2', 'beta:2,2,0.6,0.95')
        >>> p = BetaPrior(1 / 3, 2.5)
        >>> as_theta_prior(p.spec()) == p
        True
        """
        ab = f"beta:{_exact(self.a)},{_exact(self.b)}"
        if self.lo is None and self.hi == 1.0:
            return ab
        lo = self.lo
        if lo is None:
            if n_labels is None:
                raise ValueError(f"{self!r} has lo = 1/L and hi < 1: its text form needs "
                                 "n_labels")
            lo = 1.0 / int(v.n_labels(n_labels))
        return f"{ab},{_exact(lo)},{_exact(self.hi)}"

    def kernel_args(self, n_labels: int) -> tuple[str, np.ndarray, np.ndarray]:
        """Return ``("beta", [a, b, lo, hi], [1])``."""
        lo, hi = self.support(n_labels)
        return "beta", np.array([self.a, self.b, lo, hi]), np.ones(1)


def _golub_welsch_jacobi(n: int, alpha: float, beta: float) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Jacobi nodes and relative weights (weight (1 - t)^alpha (1 + t)^beta) by Golub-Welsch.

    The eigenvalues of the monic recurrence's Jacobi matrix are the nodes; the squared
    first components of its eigenvectors are the weights (no total mass, so no overflow
    for large alpha + beta).
    """
    from scipy.linalg import eigh_tridiagonal

    j = np.arange(n, dtype=float)
    s = 2.0 * j + alpha + beta
    with np.errstate(divide="ignore", invalid="ignore"):
        diag = np.where(s * (s + 2.0) != 0, (beta**2 - alpha**2) / (s * (s + 2.0)),
                        (beta - alpha) / (alpha + beta + 2.0))
    k = j[1:]
    sk = 2.0 * k + alpha + beta
    off = np.sqrt(4.0 * k * (k + alpha) * (k + beta) * (k + alpha + beta)
                  / (sk**2 * (sk + 1.0) * (sk - 1.0)))
    t, vec = eigh_tridiagonal(diag, off)
    w = vec[0] ** 2
    return t, w / w.sum()


@dataclass(frozen=True)
class DiscretePrior(ThetaPrior):
    """Per-item agreement θ drawn from ``values`` with probabilities ``weights``.

    ``weights`` must be >= 0 and sum to 1 within :data:`SUM_TOL` (equal weights when
    omitted); relative weights are refused rather than rescaled, so a typo cannot
    silently change the prior. Stored as tuples of floats.

    Parameters
    ----------
    values : sequence of float
        The θ values, in [0, 1].
    weights : sequence of float or None
        Their probabilities (default None: equal).

    Examples
    --------
    >>> p = DiscretePrior((0.6, 1.0))
    >>> p, p.mean(2), p.describe()
    (DiscretePrior(values=(0.6, 1.0), weights=(0.5, 0.5)), 0.8, 'mixture 0.6:0.5, 1:0.5')
    """

    values: tuple
    weights: tuple | None = None

    def __post_init__(self):
        vals = v.probability("DiscretePrior.values", self.values)
        if vals.ndim != 1 or vals.size == 0:
            raise ValueError("DiscretePrior.values must be a non-empty 1-d sequence")
        if self.weights is None:
            w = np.full(vals.size, 1.0 / vals.size)
        else:
            w = v.as_float_array("DiscretePrior.weights", self.weights)
            if w.shape != vals.shape or (w < 0).any() or abs(w.sum() - 1.0) > SUM_TOL:
                raise ValueError("DiscretePrior.weights must be >= 0, one per value, and sum "
                                 f"to 1; got {self.weights!r}")
            w = w / w.sum()  # remove rounding only (the sum is 1 within SUM_TOL)
        object.__setattr__(self, "values", tuple(float(x) for x in vals))
        object.__setattr__(self, "weights", tuple(float(x) for x in w))

    def support(self, n_labels: int) -> tuple[float, float]:
        """Return (min, max) of the values with positive weight."""
        vals = [x for x, w in zip(self.values, self.weights) if w > 0]
        return min(vals), max(vals)

    def mean(self, n_labels: int) -> float:
        """Return E[θ] = sum_i w_i θ_i."""
        return float(np.dot(self.values, self.weights))

    def nodes(self, n_labels: int, degree: int) -> tuple[np.ndarray, np.ndarray]:
        """Return the values and their weights (exact for any degree)."""
        return np.asarray(self.values), np.asarray(self.weights)

    def key(self) -> str:
        """Return ``discrete(values=(...),weights=(...))``."""
        return f"discrete(values={self.values!r},weights={self.weights!r})"

    def describe(self, n_labels: int | None = None) -> str:
        """Return e.g. ``mixture 0.6:0.3, 1:0.7``."""
        return "mixture " + ", ".join(f"{_g(x)}:{_g(w)}" for x, w in zip(self.values, self.weights))

    def spec(self, n_labels: int | None = None) -> str:
        """Return ``"mixture:T1=W1,T2=W2,..."``, digits exact.

        Examples
        --------
        >>> p = DiscretePrior((0.6, 1.0), (0.3, 0.7))
        >>> p.spec(), as_theta_prior(p.spec()) == p
        ('mixture:0.6=0.3,1=0.7', True)
        """
        return "mixture:" + ",".join(f"{_exact(x)}={_exact(w)}"
                                     for x, w in zip(self.values, self.weights))

    def kernel_args(self, n_labels: int) -> tuple[str, np.ndarray, np.ndarray]:
        """Return ``("discrete", values, cumsum(weights))``."""
        return ("discrete", np.asarray(self.values, dtype=float),
                np.cumsum(np.asarray(self.weights, dtype=float)))


# --------------------------------------------------------------------------- parser
def _error(spec, name: str) -> ValueError:
    return ValueError(f"{name} must be {_FORMS}; got {spec!r}")


def _show(spec) -> str:
    return repr(spec) if isinstance(spec, str) else f"{spec!r}"


def _build(kind: str, args: tuple, kwargs: dict, spec, name: str) -> ThetaPrior:
    cls = {"fixed": FixedTheta, "beta": BetaPrior, "discrete": DiscretePrior,
           "mixture": DiscretePrior, "dirichlet": DirichletItems,
           "dirichlet_mixture": DirichletMixture, "empirical": EmpiricalItems}.get(kind)
    if cls is None:
        raise _error(spec, name)
    if cls is DiscretePrior:
        args = tuple(None if x is None else tuple(np.ravel(x).tolist()) for x in args)
    try:
        return cls(*args, **kwargs)
    except TypeError:
        raise _error(spec, name) from None


def _parse_text(text: str, spec, name: str) -> ThetaPrior:
    kind, sep, rest = text.strip().lower().partition(":")
    try:
        if not sep:
            return FixedTheta(float(kind))
        if kind in _ITEM_KINDS:
            rows, weights = _parse_rows(rest)
            if kind == "dirichlet" and len(rows) == 1 and weights is None:
                return DirichletItems(tuple(rows[0]))
            if kind == "dirichlet_mixture":
                return DirichletMixture(tuple(map(tuple, rows)), weights)
            if kind == "empirical":
                return EmpiricalItems(tuple(map(tuple, rows)), weights)
            raise _error(spec, name)
        items = [x.strip() for x in rest.split(",") if x.strip()]
        if kind == "beta":
            return _build(kind, tuple(float(x) for x in items), {}, spec, name)
        if kind in ("mixture", "discrete"):
            pairs = [x.split("=") for x in items]
            if all(len(p) == 1 for p in pairs):
                return DiscretePrior(tuple(float(p[0]) for p in pairs))
            if any(len(p) != 2 for p in pairs):
                raise _error(spec, name)
            return DiscretePrior(tuple(float(p[0]) for p in pairs),
                                 tuple(float(p[1]) for p in pairs))
        if kind == "fixed" and len(items) == 1:
            return FixedTheta(float(items[0]))
    except ValueError as exc:
        if str(exc).startswith(("FixedTheta", "BetaPrior", "DiscretePrior", "Dirichlet",
                                "EmpiricalItems", name)):
            raise
        raise _error(spec, name) from None
    raise _error(spec, name)


def _parse_mapping(spec: Mapping, name: str) -> ThetaPrior:
    if len(spec) != 1:
        raise _error(spec, name)
    ((kind, val),) = spec.items()
    kind = str(kind).lower()
    if kind == "fixed":
        return _build(kind, (val,), {}, spec, name)
    if kind == "beta":
        if isinstance(val, Mapping):
            return _build(kind, (), dict(val), spec, name)
        return _build(kind, tuple(val), {}, spec, name)
    if kind in ("mixture", "discrete"):
        if isinstance(val, Mapping):
            extra = set(val) - {"theta", "values", "weight", "weights"}
            if extra:
                raise _error(spec, name)
            values = val.get("theta", val.get("values"))
            weights = val.get("weight", val.get("weights"))
            return _build(kind, (values, weights), {}, spec, name)
        return _build(kind, (val,), {}, spec, name)
    if kind in _ITEM_KINDS:
        if isinstance(val, Mapping):
            for key in set(map(str, val)) & set(RENAMED_KEYS):
                raise ValueError(f"{name} {_show(spec)}: {key!r} is now "
                                 f"{RENAMED_KEYS[key]!r} (a Dirichlet's concentration; "
                                 "alpha is only a significance level)")
            return _build(kind, (), dict(val), spec, name)
        return _build(kind, (val,), {}, spec, name)
    raise _error(spec, name)


def as_theta_prior(spec, n_labels: int | None = None,
                   name: str = "theta") -> ThetaPrior | ItemModel | None:
    """Turn any accepted θ-prior or item-model spelling into its object (the one parser).

    Parameters
    ----------
    spec : None, float, str, tuple, list, dict or ThetaPrior
        ``None`` (no prior: returned as None); a number or ``"0.8"`` (:class:`FixedTheta`);
        ``"beta:2,1"`` / ``"beta:2,1,0.5,1"`` / ``("beta", a, b[, lo, hi])`` /
        ``{"beta": [a, b]}`` / ``{"beta": {"a": .., "b": .., "lo": .., "hi": ..}}``
        (:class:`BetaPrior`); ``"mixture:0.6=0.3,1=0.7"`` / ``("mixture", values[, weights])``
        / ``{"mixture": {"theta": [...], "weight": [...]}}`` (:class:`DiscretePrior`;
        ``discrete`` is a synonym of ``mixture``, ``values``/``weights`` of
        ``theta``/``weight``); ``("fixed", θ)`` / ``{"fixed": θ}``; an item model:
        ``"dirichlet:2,1,0.5"`` / ``("dirichlet", concentration)`` / ``{"dirichlet": concentration}``
        (:class:`DirichletItems`), ``"dirichlet_mixture:0.7=5,1,1;0.3=1,1,5"`` /
        ``("dirichlet_mixture", concentrations[, weights])`` (:class:`DirichletMixture`),
        ``"empirical:0.3,0.7,0;0.1,0.8,0.1"`` / ``("empirical", distributions[, weights])``
        (:class:`EmpiricalItems`); or a prior / item-model object (returned as is).
    n_labels : int, optional
        If given, the support must lie in [1/L, 1] (:meth:`ThetaPrior.check`).
    name : str
        The field named in error messages.

    Returns
    -------
    ThetaPrior, ItemModel or None

    Raises
    ------
    ValueError
        One line naming ``name`` and listing the accepted forms.

    Examples
    --------
    >>> as_theta_prior(0.8)
    FixedTheta(value=0.8)
    >>> as_theta_prior({"beta": {"a": 2, "b": 1, "lo": 0.6}}) == BetaPrior(2, 1, 0.6)
    True
    >>> as_theta_prior("mixture:0.6=0.3,1=0.7") == as_theta_prior(("discrete", [0.6, 1], [0.3, 0.7]))
    True
    >>> as_theta_prior("dirichlet:2,1,0.5", n_labels=3)
    DirichletItems(concentration=(2.0, 1.0, 0.5))
    >>> as_theta_prior("beta:2,1,0.3,1", n_labels=2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: theta must be in [1/L, 1] = [0.5, 1] for n_labels=2 (...), got support [0.3, 1]
    """
    if spec is None:
        return None
    try:
        if isinstance(spec, (ThetaPrior, ItemModel)):
            prior = spec
        elif isinstance(spec, (bool, np.bool_)):
            raise _error(spec, name)
        elif isinstance(spec, (int, float, np.integer, np.floating)):
            prior = FixedTheta(float(spec))
        elif isinstance(spec, str):
            prior = _parse_text(spec, spec, name)
        elif isinstance(spec, (tuple, list)) and spec and isinstance(spec[0], str):
            prior = _build(spec[0].lower(), tuple(spec[1:]), {}, spec, name)
        elif isinstance(spec, Mapping):
            prior = _parse_mapping(spec, name)
        else:
            raise _error(spec, name)
    except ValueError as exc:  # a constructor's field error: say which spec it was
        msg = str(exc)
        if msg.startswith(name):
            raise
        for cls, word in (("FixedTheta.", ""), ("BetaPrior.", "beta "),
                          ("DiscretePrior.", "mixture "), ("DirichletItems.", "dirichlet "),
                          ("DirichletMixture.", "dirichlet_mixture "),
                          ("EmpiricalItems.", "empirical ")):
            msg = msg.replace(cls, word)
        raise ValueError(f"{name} {_show(spec)}: {msg}") from None
    if n_labels is not None:
        prior.check(n_labels, name)
    return prior


# --------------------------------------------------------------------------- class prior
def class_prior(m, n_labels: int, name: str = "m") -> np.ndarray:
    """The class (modal-label) prior as a length-L probability vector (the one definition).

    Parameters
    ----------
    m : float, sequence of float or None
        A number: the share of label 1 (L = 2: [1 - m, m]; L > 2: label 1 gets m and
        the other labels share 1 - m equally). A sequence: the L probabilities (>= 0,
        summing to 1 within :data:`SUM_TOL`). None: uniform.
    n_labels : int
        L.
    name : str
        The field named in error messages.

    Returns
    -------
    ndarray, shape (L,)

    Examples
    --------
    >>> class_prior(0.3, 2).tolist(), class_prior(None, 4).tolist()
    ([0.7, 0.3], [0.25, 0.25, 0.25, 0.25])
    >>> class_prior([0.2, 0.3, 0.5], 3).tolist()
    [0.2, 0.3, 0.5]
    >>> class_prior([0.2, 0.3, 0.6], 3)
    Traceback (most recent call last):
    ...
    ValueError: m must sum to 1 (within 1e-09), got 1.1
    """
    L = int(v.n_labels(n_labels))
    if m is None:
        return np.full(L, 1.0 / L)
    arr = v.probability(name, m)
    if arr.ndim == 0:
        out = np.full(L, (1.0 - float(arr)) / (L - 1))
        out[1] = float(arr)
        return out
    if arr.ndim != 1 or arr.size != L:
        raise ValueError(f"{name} must be one number or n_labels={L} class probabilities, got "
                         f"{arr.size} values")
    if abs(arr.sum() - 1.0) > SUM_TOL:
        raise ValueError(f"{name} must sum to 1 (within {SUM_TOL:g}), got {arr.sum():.6g}")
    return arr.astype(float)

__all__ = ["SUM_TOL", "BetaPrior", "DiscretePrior", "DirichletItems", "DirichletMixture",
           "EmpiricalItems", "FixedTheta", "ItemModel", "ThetaPrior", "as_theta_prior",
           "class_prior", "n_nodes"]
