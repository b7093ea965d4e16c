"""Validated input of :func:`labelvar.simulate`: the call's parameters and its grid cells.

A cell's random stream is keyed by :meth:`_Cell.key`, a hash of the seed and the
cell's parameter values (not its grid position).
"""

from __future__ import annotations

import hashlib
import itertools

import numpy as np

from labelvar._base import _validate as v
from labelvar._base._counts import n_positives
from labelvar._base._seeding import as_seed
from labelvar.votes._models import as_labellers, labeller_columns
from labelvar.votes._priors import FixedTheta, ItemModel, as_theta_prior
from labelvar.votes._priors import class_prior as _class_prior


class _Spec:
    """Validated call parameters."""

    @classmethod
    def build(cls, p_d, m, n_items, n_labels, panel_size, labellers, mode, replicates, seed,
              thresholds, theta_prior, tie_rule, positives, class_prior, method,
              panel_skills=None):
        self = cls()
        self.mode = v.choice("mode", mode, ("coin", "panel"))
        self.method = v.choice("method", method, ("auto", "collapsed", "explicit"))
        self.positives = v.choice("positives", positives, ("fixed", "bernoulli"))
        self.n_labels = _axis(v.n_labels(n_labels))
        self.m = _axis(v.probability("m", m))
        self.n_items = _axis(v.integer("n_items", n_items, lo=1))
        self.panel_size = _axis(v.integer("panel_size", panel_size, lo=1))
        self.replicates = int(_scalar("replicates", v.integer("replicates", replicates, lo=1)))
        self.thresholds = tuple(float(t) for t in
                                np.atleast_1d(v.probability("thresholds", thresholds)))
        if len(set(self.thresholds)) < len(self.thresholds):
            raise ValueError(f"thresholds must be distinct (each gives its own rows), got "
                             f"{list(self.thresholds)}")
        # columns: one labeller per output column (a ModelPair gives two); pairs: where
        self.units = as_labellers(labellers)
        self.labellers, self.pairs = labeller_columns(self.units)
        self.theta_prior = as_theta_prior(theta_prior, name="theta_prior")
        if self.theta_prior is not None and self.mode != "panel":
            raise ValueError("theta_prior applies to mode='panel' only")
        if self.theta_prior is not None and p_d is not None:
            raise ValueError("p_d must be None when theta_prior is given (theta is drawn "
                             "from the prior)")
        if self.theta_prior is not None:
            for lab in self.n_labels:
                self.theta_prior.check(lab, "theta_prior")
        if isinstance(self.theta_prior, FixedTheta):  # the same as p_d
            p_d, self.theta_prior = self.theta_prior.value, None
        if self.theta_prior is not None:
            self.p_d = (None,)
        else:
            if p_d is None:
                raise ValueError("p_d is required (or, in panel mode, theta_prior)")
            self.p_d = _axis(v.probability("p_d", p_d))
            if self.mode == "panel":
                for lab in self.n_labels:
                    bad = [p for p in self.p_d if p < 1.0 / lab - 1e-12]
                    if bad:
                        raise ValueError(f"p_d (the panel's agreement theta) must be in [1/L, 1]"
                                         f" = [{1 / lab:.4g}, 1] for n_labels={lab}, got {bad[0]}")
        if isinstance(tie_rule, str):
            self.tie_rule = v.choice("tie_rule", tie_rule, ("random", "drop"))
        else:
            label = int(_scalar("tie_rule", v.integer("tie_rule", tie_rule, lo=0)))
            bad = [lab for lab in self.n_labels if label >= lab]
            if bad:
                raise ValueError(f"tie_rule must be 'random', 'drop' or a label in "
                                 f"[0, n_labels - 1]; got {label} with n_labels={bad[0]}")
            self.tie_rule = label
        if isinstance(self.theta_prior, ItemModel):  # its label distributions define the
            class_prior = None                       # classes: m and class_prior are ignored
        if class_prior is not None:
            prior = v.probability("class_prior", class_prior)
            if prior.ndim != 1:
                raise ValueError(f"class_prior must be a 1-d sequence summing to 1, got "
                                 f"{prior.tolist()}")
            if any(lab != prior.size for lab in self.n_labels):
                raise ValueError(f"class_prior has {prior.size} entries but n_labels is "
                                 f"{list(self.n_labels)}")
            prior = _class_prior(prior, prior.size, name="class_prior")
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
        for lab in self.labellers:  # labeller/L compatibility (e.g. Constant.label < L)
            for n_lab in self.n_labels:
                lab.matrix(n_lab, np.full(n_lab, 1.0 / n_lab), 0.5)
        self.seed = as_seed(seed)
        self.skills = _skills(panel_skills, self)
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


def _skills(panel_skills, spec):
    """Validate ``panel_skills``: K accuracies, or K (sensitivity, specificity) pairs."""
    if panel_skills is None:
        return None
    if spec.mode != "panel" or spec.theta_prior is not None:
        raise ValueError("panel_skills applies to mode='panel' without theta_prior")
    arr = v.probability("panel_skills", panel_skills)
    if arr.ndim == 1 and arr.size >= 1:
        skills = tuple(float(q) for q in arr)
    elif arr.ndim == 2 and arr.shape[1] == 2 and arr.shape[0] >= 1:
        if any(lab != 2 for lab in spec.n_labels):
            raise ValueError("panel_skills as (sensitivity, specificity) pairs needs "
                             f"n_labels = 2, got {list(spec.n_labels)}")
        skills = tuple((float(a), float(b)) for a, b in arr)
    else:
        raise ValueError("panel_skills must be K accuracies or K (sensitivity, specificity) "
                         f"pairs, got shape {arr.shape}")
    if any(k != len(skills) for k in spec.panel_size):
        raise ValueError(f"panel_size must equal len(panel_skills) = {len(skills)}, got "
                         f"{list(spec.panel_size)}")
    return skills


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
        return {"p_d": np.nan if self.p_d is None else float(self.p_d), "m": self.m,
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


