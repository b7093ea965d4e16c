"""Validated input of :func:`labelvar.engine.simulate`: one item object's grid and its cells.

A cell's random stream is keyed by :meth:`_Cell.key`, a hash of the seed and the
cell's parameter values (not its grid position).
"""

from __future__ import annotations

import hashlib
import itertools
import math

import numpy as np

from labelvar._base import _validate as v
from labelvar._base._counts import n_positives
from labelvar._base._seeding import as_seed
from labelvar.votes._models import as_labellers, labeller_columns
from labelvar.votes._priors import FixedTheta, ItemModel, as_theta_prior
from labelvar.votes._priors import class_prior as _class_prior

#: most simulated items (n_items x replicates) one call may ask for on the explicit path or
#: from a rater panel (hours of work beyond): refused before any work
MAX_ITEM_REPLICATES = 1e10
#: most simulated replicates over a whole grid (cells x replicates) one call may ask for
#: (from ~0.3 us per cell and replicate on the collapsed path: hours beyond): refused first
MAX_CELL_REPLICATES = 1e9


class _Spec:
    """Validated call parameters."""

    @classmethod
    def build(cls, items, labellers, n_items, replicates, seed, thresholds, method,
              joint=False):
        """Validate one :class:`Coin` or :class:`Panel` with :func:`simulate`'s options.

        Errors name the item object's field (``Panel.theta``, ``Coin.p_d``, ...).
        """
        self = cls()
        self.mode = items.mode
        panel = self.mode == "panel"
        kind = type(items).__name__
        p_d = items.theta if panel else items.p_d
        theta_prior = items.theta_prior if panel else None
        tie_rule = items.tie_rule if panel else "random"
        class_prior, skills = items.class_prior, getattr(items, "skills", None)
        self.method = v.choice("method", method, ("auto", "collapsed", "explicit"))
        self.n_labels = _axis(v.n_labels(items.n_labels, name=f"{kind}.n_labels"))
        self.theta_prior = as_theta_prior(theta_prior, name="Panel.theta_prior")
        item_model = isinstance(self.theta_prior, ItemModel)
        m, positives = items.m, items.positives
        if item_model:  # its label distributions define the classes: nothing to set them by
            given = [f for f, val in (("m", m), ("class_prior", class_prior),
                                      ("positives", positives)) if val is not None]
            if given:
                raise ValueError(f"Panel.{given[0]} does not apply under an item model "
                                 f"({self.theta_prior.describe()}): its label distributions "
                                 f"define the classes; leave {', '.join(given)} unset")
        if class_prior is not None and m is not None and not _default_m(m, class_prior):
            raise ValueError(f"{kind}.m and {kind}.class_prior both set the class prior; give "
                             f"one (class_prior's label-1 share is the m of the tables), got "
                             f"m={m!r}")
        m = 0.5 if m is None else m
        positives = "fixed" if positives is None else positives
        self.positives = v.choice(f"{kind}.positives", positives, ("fixed", "bernoulli"))
        self.m = _axis(v.probability(f"{kind}.m", m))
        self.n_items = _axis(v.integer("n_items", n_items, lo=1))
        self.panel_size = (_axis(v.integer("Panel.panel_size", items.panel_size, lo=1))
                           if panel else (0,))
        self.replicates = int(_scalar("replicates", v.integer("replicates", replicates, lo=1)))
        self.thresholds = tuple(float(t) for t in
                                np.atleast_1d(v.probability("thresholds", thresholds)))
        if len(set(self.thresholds)) < len(self.thresholds):
            raise ValueError(f"thresholds must be distinct (each gives its own rows), got "
                             f"{list(self.thresholds)}")
        # columns: one labeller per output column (a ModelPair gives two); pairs: where
        self.units = as_labellers(labellers)
        self.labellers, self.pairs = labeller_columns(self.units)
        if self.theta_prior is not None and p_d is not None:
            raise ValueError("Panel.theta must be None when Panel.theta_prior is given "
                             "(theta is drawn from the prior)")
        if self.theta_prior is not None:
            for lab in self.n_labels:
                self.theta_prior.check(lab, "Panel.theta_prior")
        if isinstance(self.theta_prior, FixedTheta):  # the same as theta
            p_d, self.theta_prior = self.theta_prior.value, None
        if self.theta_prior is not None:
            self.p_d = (None,)
        else:
            name = "Panel.theta" if panel else "Coin.p_d"
            if p_d is None:
                raise ValueError(f"{name} is required" + (" (or Panel.theta_prior)"
                                                          if panel else ""))
            self.p_d = _axis(v.probability(name, p_d))
            if panel:
                for lab in self.n_labels:
                    bad = [p for p in self.p_d if p < 1.0 / lab - 1e-12]
                    if bad:
                        raise ValueError(f"Panel.theta (the latent item agreement) must be in "
                                         f"[1/L, 1] = [{1 / lab:.4g}, 1] for n_labels={lab}, "
                                         f"got {bad[0]}")
        if isinstance(tie_rule, str):
            self.tie_rule = v.choice("Panel.tie_rule", tie_rule, ("random", "drop"))
        else:
            label = int(_scalar("Panel.tie_rule", v.integer("Panel.tie_rule", tie_rule, lo=0)))
            bad = [lab for lab in self.n_labels if label >= lab]
            if bad:
                raise ValueError(f"Panel.tie_rule must be 'random', 'drop' or a label in "
                                 f"[0, n_labels - 1]; got {label} with n_labels={bad[0]}")
            self.tie_rule = label
        if class_prior is not None:
            prior = v.probability(f"{kind}.class_prior", class_prior)
            if prior.ndim != 1:
                raise ValueError(f"{kind}.class_prior must be a 1-d sequence summing to 1, got "
                                 f"{prior.tolist()}")
            if any(lab != prior.size for lab in self.n_labels):
                raise ValueError(f"{kind}.class_prior has {prior.size} entries but n_labels is "
                                 f"{list(self.n_labels)}")
            prior = _class_prior(prior, prior.size, name=f"{kind}.class_prior")
            self.class_prior = tuple(float(x) for x in prior)
        else:
            self.class_prior = None
        n_cols = len(labeller_columns(self.labellers)) if self.labellers else 1
        big_l = max(self.n_labels)
        v.memory(f"labeller tables for n_labels={big_l}", 8.0 * 4 * (n_cols + 2) * big_l**2,
                 "use fewer labels")
        # per cell: the replicates x labellers x strata summary array (+ a raw table)
        n_strata = 2 + (max(self.panel_size) if self.mode == "panel" else 0)
        v.memory(f"replicates={self.replicates} x {n_cols} labellers x {n_strata} strata",
                 8.0 * 12 * 3 * self.replicates * n_cols * n_strata,
                 "use fewer replicates (or several runs with other seeds)")
        n_cells = math.prod(len(axis) for axis in (self.p_d, self.m, self.n_items,
                                                    self.n_labels, self.panel_size))
        if float(n_cells) * self.replicates > MAX_CELL_REPLICATES:
            raise ValueError(f"the grid's {n_cells:,} cells (p_d or theta x m x n_items x "
                             f"n_labels x panel_size) x replicates={self.replicates} is more "
                             f"than {MAX_CELL_REPLICATES:.0e} simulated replicates (hours of "
                             f"work); give fewer grid values or fewer replicates")
        # the explicit path simulates every item: refuse hours of work before any
        explicit = self.method == "explicit" or (
            self.method == "auto" and self.theta_prior is not None and not self.pairs
            and not joint)
        big_n = max(self.n_items)
        if explicit and float(big_n) * self.replicates > MAX_ITEM_REPLICATES:
            raise ValueError(f"n_items={big_n} x replicates={self.replicates} simulated items "
                             f"is more than {MAX_ITEM_REPLICATES:.0e} (hours of work on the "
                             f"explicit path); use fewer replicates or fewer n_items")
        for lab in self.labellers:  # labeller/L compatibility (e.g. Constant.label < L)
            for n_lab in self.n_labels:
                lab.matrix(n_lab, np.full(n_lab, 1.0 / n_lab), 0.5)
        self.seed = as_seed(seed)
        self.skills = _skills(skills, self)
        return self

    def skill_matrices(self, n_lab):
        """Per-annotator P(vote h | modal c), shape (K, L, L); None for a homogeneous panel."""
        if self.skills is None:
            return None
        if isinstance(self.skills[0], tuple):
            return np.array([[[spec, 1.0 - spec], [1.0 - sens, sens]]
                             for sens, spec in self.skills])
        eye = np.eye(n_lab)
        return np.array([eye * q + (1.0 - eye) * (1.0 - q) / (n_lab - 1) for q in self.skills])

    def cells(self):
        return [_Cell(*c) for c in itertools.product(self.p_d, self.m, self.n_items,
                                                      self.n_labels, self.panel_size)]


def _skills(skills, spec):
    """Validate ``Panel.skills``: K accuracies, or K (sensitivity, specificity) pairs."""
    if skills is None:
        return None
    if spec.theta_prior is not None:
        raise ValueError("Panel.skills applies without Panel.theta_prior (a fixed theta)")
    arr = v.probability("Panel.skills", skills)
    if arr.ndim == 1 and arr.size >= 1:
        skills = tuple(float(q) for q in arr)
    elif arr.ndim == 2 and arr.shape[1] == 2 and arr.shape[0] >= 1:
        if any(lab != 2 for lab in spec.n_labels):
            raise ValueError("Panel.skills as (sensitivity, specificity) pairs needs "
                             f"n_labels = 2, got {list(spec.n_labels)}")
        skills = tuple((float(a), float(b)) for a, b in arr)
    else:
        raise ValueError("Panel.skills must be K accuracies or K (sensitivity, specificity) "
                         f"pairs, got shape {arr.shape}")
    if any(k != len(skills) for k in spec.panel_size):
        raise ValueError(f"Panel.panel_size must equal len(Panel.skills) = {len(skills)}, got "
                         f"{list(spec.panel_size)}")
    return skills


def _default_m(m, class_prior) -> bool:
    """``m`` beside a class prior is its default 0.5 or the prior's label-1 share (no conflict).

    (The tables' ``m`` column is then the prior's label-1 share.)
    """
    try:
        values = np.ravel(np.asarray(m, dtype=float))
        share = float(np.ravel(np.asarray(class_prior, dtype=float))[1])
    except (TypeError, ValueError, IndexError):
        return False
    return values.size == 1 and (values[0] == 0.5 or abs(values[0] - share) <= 1e-12)


def _axis(arr):
    arr = np.atleast_1d(arr)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"grid axes must be scalars or non-empty 1-d sequences, got {arr!r}")
    return tuple(arr.tolist())


def _scalar(name, arr):
    if np.ndim(arr) != 0:
        raise ValueError(f"{name} must be a single value, got {np.asarray(arr).tolist()}")
    return arr


class _Cell:
    """One grid point."""

    def __init__(self, p_d, m, n_items, n_labels, panel_size):
        self.p_d, self.m = p_d, float(m)
        self.n_items, self.n_labels, self.panel_size = int(n_items), int(n_labels), int(panel_size)

    def key(self, spec) -> int:
        """Stable 64-bit key: seed + every value that changes the model (not grid position)."""
        panel = spec.mode == "panel"
        parts = ("labelvar.simulate/1", spec.seed, spec.mode,
                 None if self.p_d is None else float(self.p_d).hex(), self.m.hex(),
                 self.n_items, self.n_labels, self.panel_size if panel else 0,
                 spec.theta_prior.key() if spec.theta_prior is not None else None,
                 spec.tie_rule if panel else None, spec.positives,
                 None if spec.class_prior is None else tuple(x.hex() for x in spec.class_prior))
        if spec.skills is not None:  # (appended, so keys of homogeneous panels are unchanged)
            parts += (repr(spec.skills),)
        digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
        return int.from_bytes(digest, "little")

    def columns(self, spec) -> dict:
        value = np.nan if self.p_d is None else float(self.p_d)  # a Coin's p_d, a Panel's theta
        coin = spec.mode == "coin"
        # under a class prior the m column is its label-1 share (the key keeps 0.5)
        m = self.m if spec.class_prior is None else spec.class_prior[1]
        return {"p_d": value if coin else np.nan, "theta": np.nan if coin else value, "m": m,
                "n_items": self.n_items, "n_labels": self.n_labels,
                "panel_size": self.panel_size, "mode": spec.mode,
                "theta_prior": "" if spec.theta_prior is None else spec.theta_prior.key(),
                "tie_rule": str(spec.tie_rule), "positives": spec.positives}

    def class_prior(self, spec) -> np.ndarray:
        if spec.class_prior is not None:
            return np.asarray(spec.class_prior)
        return _class_prior(self.m, self.n_labels)

    def class_counts(self, spec) -> np.ndarray:
        prior = self.class_prior(spec)
        n = self.n_items
        if self.n_labels == 2:  # round(m n), halves up, as in analytic.exact_f1
            pos = int(n_positives(prior[1], n))
            return np.array([n - pos, pos], dtype=np.int64)
        raw = prior * n
        counts = np.floor(raw).astype(np.int64)
        order = np.argsort(-(raw - counts), kind="stable")
        counts[order[: n - counts.sum()]] += 1
        return counts


