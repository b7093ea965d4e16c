"""Monte Carlo engine: simulate experts, random and model labellers over parameter grids.

:func:`simulate` validates its input, builds a stable 64-bit key per grid cell
(from the seed and the cell's parameter values, so a cell gives the same numbers
alone or inside any bigger grid), calls one kernel of :mod:`labelvar._kernels`
per cell and returns a tidy table with the closed-form expectation beside each
Monte Carlo mean.

Two models (``mode``):

``"coin"``
    The paper's coin model (section 3): N items with round(m N) positives
    (``positives="fixed"``) or Bernoulli(m) labels (``positives="bernoulli"``);
    for L > 2 class 1 has prior m and the other classes share 1 - m equally
    (or pass ``class_prior``). The true label is the item's class.
``"panel"``
    Each item has a modal label (drawn like the coin mode's class) and an
    agreement level theta (= ``p_d``, or drawn per item from ``theta_prior``);
    K = ``panel_size`` annotators vote (modal label with probability theta,
    else a uniformly chosen other label); the ground truth is the panel's
    plurality (ties: ``tie_rule``); observed p_d = top votes / K defines the
    strata.

Two computational paths (``method``): ``"explicit"`` simulates every item;
``"collapsed"`` draws the counts of each joint outcome (stratum, truth,
predictions) directly as multinomials, at a cost independent of N. It applies
to exchangeable items with a finite outcome table (coin mode; panel mode with
fixed theta). ``"auto"`` takes the collapsed path where it applies.
"""

from __future__ import annotations

import hashlib
import itertools

import numpy as np

from labelvar import _kernels as K
from labelvar import _panel
from labelvar import _validate as v
from labelvar._callable import make_module_callable
from labelvar._counts import ceil_count, n_positives
from labelvar.models import Model, as_labellers
from labelvar.priors import BetaPrior, DiscretePrior, FixedTheta, as_theta_prior
from labelvar.priors import class_prior as _class_prior

METRICS = ("accuracy", "precision", "recall", "f1")
PARAM_COLUMNS = ("p_d", "m", "n_items", "n_labels", "panel_size", "mode", "theta_prior",
                 "tie_rule", "positives", "method")
SUMMARY_COLUMNS = PARAM_COLUMNS + ("labeller", "stratum", "metric", "threshold", "mean", "sd",
                                   "se", "q05", "q50", "q95", "expected", "z", "replicates",
                                   "seed")
RAW_FIELDS = ("n", "correct", "tp", "fp", "fn", "tn", "accuracy", "precision", "recall", "f1")
_EPS = 1e-12            # metric >= t is evaluated as metric >= t - _EPS
_MAX_CELLS = 4096       # largest joint outcome table the collapsed path takes
_BINARY_MAX_K = 64      # K above this uses the generic kernel (one compile per K otherwise)
_PARALLEL_WORK = 2_000_000  # draws per cell from which parallel kernels are used
_FAST_MAX_K = 7         # the vectorised L = 2 kernel packs vote counts 0..K in 8-bit lanes


def simulate(p_d=None, m=0.5, n_items=100, n_labels=(2,), panel_size=(5,),
             labellers=("expert", "random"), mode="coin", replicates=10_000, seed=0,
             thresholds=(), theta_prior=None, tie_rule="random", positives="fixed",
             return_raw=False, progress=False, *, class_prior=None, panel_skills=None,
             method="auto", expected=True, parallel=None):
    """Simulate labellers against a (possibly disagreeing) ground truth over a parameter grid.

    Parameters
    ----------
    p_d : float or sequence of float
        Coin mode: probability that an annotator (the expert) gives the true
        label, in [0, 1]. Panel mode: the fixed agreement level theta of every
        item, in [1/L, 1]; leave as None when ``theta_prior`` is given.
    m : float or sequence of float
        Prior of the positive class (label 1), in [0, 1].
    n_items : int or sequence of int
        Items per replicate (>= 1).
    n_labels : int or sequence of int
        Number of labels L (>= 2).
    panel_size : int or sequence of int
        Annotators per item K (>= 1); panel mode only (ignored in coin mode,
        where each value still gets its rows, with identical numbers).
    labellers : sequence of str or labeller objects
        ``"expert"``, ``"random"``, ``"prior"``, ``"constant"`` (always label
        1), ``"model"`` (accuracy 0.8) or objects from :mod:`labelvar.models`
        (e.g. ``Model(accuracy=0.7, name="A")``); names must be unique. All
        labellers label the same simulated items.
    mode : {"coin", "panel"}
        The item model (see the module docstring).
    replicates : int
        Monte Carlo replicates per grid cell (>= 1).
    seed : int, numpy.random.Generator or None
        Seed (int >= 0). A Generator or None draws one int seed, reported in
        the ``seed`` column so the run can be repeated.
    thresholds : sequence of float
        Values t in [0, 1]: adds rows ``prob_accuracy_ge`` and ``prob_f1_ge``
        estimating P(metric >= t).
    theta_prior : prior object, str, tuple, dict or None
        Panel mode: per-item theta drawn from this prior (support inside
        [1/L, 1]), any spelling of :func:`labelvar.priors.as_theta_prior`: e.g.
        ``("beta", 4, 1)`` or ``"beta:4,1"`` = 1/L + (1 - 1/L) Beta(4, 1),
        ``("mixture", [0.6, 1], [0.3, 0.7])``. A fixed theta
        (:class:`labelvar.priors.FixedTheta` or a number) is the same as ``p_d``.
    tie_rule : {"random", "drop"} or int
        Panel mode: ties of the plurality go to a random tied label, drop the
        item, or go to the given label when it is among the tied ones (random
        among the tied otherwise).
    positives : {"fixed", "bernoulli"}
        Class (coin) or modal-label (panel) counts: fixed at the rounded
        expected counts (binary: round(m N) positives; L > 2: largest
        remainders) or drawn per item.
    return_raw : bool
        Also return the per-replicate table.
    progress : bool
        Show a progress bar over grid cells (tqdm).
    class_prior : sequence of float, optional
        L > 2: the class (modal-label) prior, overriding ``m``; every n_labels
        in the grid must equal its length.
    panel_skills : sequence, optional
        Panel mode, a heterogeneous panel (Dawid-Skene skills), one entry per
        annotator (``panel_size`` must equal its length): an accuracy q_k
        (one-coin: the modal label with probability q_k, else a uniformly
        chosen other label) or, for L = 2, a pair (sensitivity_k,
        specificity_k) against the modal label (two-coin). ``p_d`` is then the
        expert's agreement only; no ``theta`` rows.
    method : {"auto", "collapsed", "explicit"}
        Computational path (see the module docstring).
    expected : bool
        Compute the ``expected`` column (imports scipy; False keeps a small
        call cheap).
    parallel : bool or None
        Use the ``prange`` kernels (False: their serial twins; the numbers are
        identical). None: parallel unless a cell's work is small (a serial
        kernel starts faster).

    Returns
    -------
    pandas.DataFrame or (pandas.DataFrame, pandas.DataFrame)
        The summary: one row per grid cell x labeller x stratum x metric, with
        columns ``p_d, m, n_items, n_labels, panel_size, mode, theta_prior,
        tie_rule, positives, method, labeller, stratum, metric, threshold,
        mean, sd, se, q05, q50, q95, expected, z, replicates, seed``.
        ``metric`` is accuracy, precision, recall, f1 (binary: positive class
        = label 1; L > 2: macro averages over all L classes; 0/0 counts as 0),
        ``prob_accuracy_ge`` / ``prob_f1_ge`` (with ``threshold``) and, in
        panel mode, ``theta`` (mean true theta of the items in the stratum).
        ``stratum`` is ``"all"`` or, in panel mode, the observed p_d
        (top votes / K) formatted like ``"0.60"``; summaries of a stratum use
        the replicates where it is non-empty (``replicates`` says how many).
        ``expected`` is exact where known (see Notes), else NaN;
        ``z = (mean - expected) / se``. With ``return_raw`` a second table has
        one row per cell x labeller x stratum x replicate with ``n, correct,
        tp, fp, fn, tn`` (tp..tn: label 1 against the rest) and the metrics.

    Notes
    -----
    ``expected`` is exact, not a ratio of expectations: accuracy, precision,
    recall (and theta) are ratios ``sum(A_i B_i) / sum(A_i)`` over
    independent items, whose mean is
    ``sum_g n_g P(A B | g) * integral_0^1 prod_d (1 - a_d (1 - t))^(n_d - [d = g]) dt``
    (groups g of n_g exchangeable items, a_d = P(A | d)), computed by
    Gauss-Legendre quadrature; 0/0 counts as 0 and strata are conditioned on
    being non-empty. The F1 mean and P(F1 >= t) are exact in binary coin mode
    with fixed positives (:func:`labelvar.analytic.exact_binary_metrics`; L > 2
    coin mode: mean of the one-vs-rest F1s) and NaN elsewhere.
    P(accuracy >= t) is exact for the ``all`` stratum when no item is dropped.
    Panel-mode tables enumerate the vote counts (up to 200,000 vote
    compositions); beyond that ``expected`` is NaN.

    A cell's random stream is keyed by the seed and the cell's parameter
    values, so a cell gives bit-identical numbers alone or in any grid, with
    any thread count, serial or parallel. Numbers do depend on the labeller
    list (labellers share the items and the draws are laid out per labeller
    slot) and on the path.

    Examples
    --------
    >>> df = simulate(p_d=0.9, m=0.1, n_items=100, replicates=2000, seed=1)
    >>> row = df.query("labeller == 'expert' and metric == 'accuracy'").iloc[0]
    >>> bool(abs(row["z"]) < 4), round(float(row["expected"]), 3)
    (True, 0.9)
    >>> sorted(df["metric"].unique())
    ['accuracy', 'f1', 'precision', 'recall']
    """
    import pandas as pd

    spec = _Spec.build(p_d, m, n_items, n_labels, panel_size, labellers, mode, replicates, seed,
                       thresholds, theta_prior, tie_rule, positives, class_prior, method,
                       panel_skills)
    kern = None if parallel is None else _KERNELS[bool(parallel)]
    cells = spec.cells()
    if progress:
        from tqdm.auto import tqdm

        cells = tqdm(cells, desc="simulate", unit="cell")
    rows, raws = [], []
    done: dict[int, tuple] = {}
    for cell in cells:
        key = cell.key(spec)
        if key not in done:
            done[key] = _run_cell(cell, spec, key, kern, expected, return_raw)
        summary, raw = done[key]
        params = cell.columns(spec)
        rows.append(summary.assign(**params))
        if return_raw:
            raws.append(raw.assign(**params))
    table = pd.concat(rows, ignore_index=True)
    table["seed"] = spec.seed
    table = table[list(SUMMARY_COLUMNS)]
    if not return_raw:
        return table
    raw = pd.concat(raws, ignore_index=True)
    raw["seed"] = spec.seed
    first = list(PARAM_COLUMNS) + ["labeller", "stratum", "replicate"]
    raw = raw[first + [c for c in raw.columns if c not in first]]
    return table, raw


# --------------------------------------------------------------------------- input
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
        self.labellers = as_labellers(labellers)
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
        for lab in self.labellers:  # labeller/L compatibility (e.g. Constant.label < L)
            for n_lab in self.n_labels:
                lab.matrix(n_lab, np.full(n_lab, 1.0 / n_lab), 0.5)
        self.seed = _seed(seed)
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


def _seed(seed) -> int:
    if seed is None:
        return int(np.random.SeedSequence().entropy % (2**63))
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**63 - 1))
    if isinstance(seed, (bool, np.bool_)):
        raise ValueError(f"seed must be an int >= 0, a numpy Generator or None, got {seed!r}")
    return int(_scalar("seed", v.integer("seed", seed, lo=0, hi=2**63 - 1)))


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


# --------------------------------------------------------------------------- item tables
class _Table:
    """Exact per-item outcome probabilities of one cell.

    ``groups``: fixed item counts per group (classes / modal labels; or one
    group of N items with ``positives="bernoulli"``). ``A[g, node, s, t]`` is
    P(stratum slot s, truth t | group g, theta node) with slots 0 = no bins
    (coin), 1..S = observed-p_d bins, S + 1 = dropped. ``M[j][g, node, h]`` is
    P(labeller j predicts h | group g, theta node); ``w`` and ``theta`` are the
    nodes' weights and values.
    """

    def __init__(self, cell, spec):
        lab = cell.n_labels
        self.n_lab = lab
        prior = cell.class_prior(spec)
        self.prior = prior
        if spec.mode == "coin":
            self.labels = []
            self.stratum_of_top = np.zeros(1, dtype=np.int64)
            theta = np.array([float(cell.p_d)])
            w = np.ones(1)
            a_mod = np.zeros((lab, 1, 2, lab))
            for c in range(lab):
                a_mod[c, 0, 0, c] = 1.0
        else:
            kk = cell.panel_size
            labels, self.stratum_of_top = _panel.strata(kk, lab, spec.tie_rule)
            self.labels = labels
            if spec.theta_prior is None:
                theta, w = np.array([float(cell.p_d)]), np.ones(1)
            else:
                theta, w = spec.theta_prior.nodes(lab, kk + 2)
            a_mod = _vote_table(lab, kk, theta, spec.tie_rule, self.stratum_of_top,
                                len(labels), skills=spec.skill_matrices(lab))
        self.n_slots = a_mod.shape[2]
        self.theta, self.w = theta, w
        mats = [np.asarray(lb.matrix(lab, prior, theta)) for lb in spec.labellers]  # (node, c, h)
        if spec.positives == "fixed":
            self.groups = cell.class_counts(spec)
            self.A = a_mod
            self.M = [np.transpose(mt, (1, 0, 2)) for mt in mats]  # (g, node, h)
            self.group_weights = None
        else:
            # one group; the modal class is part of the outcome, mixed in with its prior
            self.groups = np.array([cell.n_items], dtype=np.int64)
            self.A = a_mod
            self.M = [np.transpose(mt, (1, 0, 2)) for mt in mats]
            self.group_weights = prior

    # joint of (slot, truth, prediction) per labeller, per group: (G, S+2, L, L)
    def labeller_joint(self, j) -> np.ndarray:
        joint = np.einsum("n,cnst,cnh->csth", self.w, self.A, self.M[j])
        return self._mix(joint)

    def theta_joint(self) -> np.ndarray:
        """E[theta 1{slot s}] per group: (G, S+2)."""
        joint = np.einsum("n,n,cnst->cs", self.w, self.theta, self.A)
        return self._mix(joint)

    def _mix(self, joint):
        if self.group_weights is None:
            return joint
        return np.tensordot(self.group_weights, joint, axes=1)[None]

    def cells(self, n_labellers):
        """Joint outcome table for the collapsed kernel, or None if too large."""
        lab, slots = self.n_lab, self.n_slots
        n_cells = slots * lab ** (1 + n_labellers)
        if n_cells > _MAX_CELLS:
            return None
        x = np.einsum("n,cnst->cnst", self.w, self.A)  # (c, node, s, t)
        y = np.einsum("n,n,cnst->cnst", self.w, self.theta, self.A)
        for mt in self.M:
            x = x[..., None] * mt.reshape(mt.shape[:2] + (1,) * (x.ndim - 2) + (lab,))
            y = y[..., None] * mt.reshape(mt.shape[:2] + (1,) * (y.ndim - 2) + (lab,))
        x = x.sum(axis=1).reshape(len(self.A), -1)  # (c, cells)
        y = y.sum(axis=1).reshape(len(self.A), -1)
        if self.group_weights is not None:
            x = (self.group_weights @ x)[None]
            y = (self.group_weights @ y)[None]
        with np.errstate(invalid="ignore", divide="ignore"):
            theta = np.where(x > 0, y / np.where(x > 0, x, 1.0), 0.0)
        idx = np.unravel_index(np.arange(x.shape[1]), (slots, lab) + (lab,) * n_labellers)
        stratum = idx[0].astype(np.int64)
        stratum[stratum == slots - 1] = -1  # dropped
        truth = idx[1].astype(np.int64)
        pred = np.ascontiguousarray(np.stack(idx[2:], axis=1).astype(np.int64))
        keep = x.sum(axis=0) > 0  # impossible outcomes cost a loop step per replicate
        return (np.ascontiguousarray(x[:, keep]), stratum[keep], truth[keep],
                np.ascontiguousarray(pred[keep]), np.ascontiguousarray(theta[:, keep]))


def _alias_table(p):
    """Walker/Vose alias table of probabilities ``p``: (acceptance, alias)."""
    n = len(p)
    q = np.asarray(p, dtype=float) * n / np.sum(p)
    prob, alias = np.ones(n), np.arange(n, dtype=np.int64)
    small = [i for i in range(n) if q[i] < 1.0]
    large = [i for i in range(n) if q[i] >= 1.0]
    while small and large:
        lo, hi = small.pop(), large.pop()
        prob[lo], alias[lo] = q[lo], hi
        q[hi] = q[hi] + q[lo] - 1.0
        (small if q[hi] < 1.0 else large).append(hi)
    return prob, alias


def _composition_tables(lab, kk, theta):
    """Tables for drawing a homogeneous panel's vote composition in one step.

    Returns (acceptance, alias, comp, info) with info[i] = (top count, number
    of labels at the top, first relative position at the top), or None if
    there are more than ``_panel.MAX_COMPOSITIONS`` compositions.
    """
    if _panel.n_compositions(kk, lab) > _panel.MAX_COMPOSITIONS:
        return None
    comp, prob = _panel.symmetric_composition_probs(kk, lab, [theta])
    prob, alias = _alias_table(prob[0])
    top, n_tied = _panel.plurality(comp)
    info = np.stack([top, n_tied, np.argmax(comp == top[:, None], axis=1)],
                    axis=1).astype(np.int64)
    return prob, alias, np.ascontiguousarray(comp, dtype=np.int64), info


def _vote_table(lab, kk, theta, tie_rule, stratum_of_top, n_bins, skills=None):
    """P(slot, truth | modal label c, theta node): shape (L, nodes, n_bins + 2, L).

    Enumerates every vote composition of the K annotators with :mod:`labelvar._panel`
    (position 0 = modal label, position p >= 1 = label (c + p) mod L, as in the
    kernels). With ``skills`` (K x L x L, P(vote h | modal c) per annotator) the
    composition probabilities come from enumerating all L**K joint votes, one node.
    """
    try:
        _panel.check_enumerable(kk, lab, joint=skills is not None)
    except ValueError:
        raise _Infeasible from None
    comp, prob = _panel.symmetric_composition_probs(kk, lab, theta)
    n_nodes = prob.shape[0]
    if skills is not None:
        prob_c = _panel.skill_composition_probs(skills, kk, lab, comp)[:, None, :]  # (c, 1, comp)
    top, _ = _panel.plurality(comp)
    slot = stratum_of_top[top]
    out = np.zeros((lab, n_nodes, n_bins + 2, lab))
    for c in range(lab):
        if skills is not None:
            prob = prob_c[c]
        truth, drop = _panel.truth_weights(comp, tie_rule, modal=c)  # over relative positions
        absolute = (c + np.arange(lab)) % lab
        for s in range(1, n_bins + 1):
            sel = slot == s
            out[c, :, s, absolute] = (prob[:, sel] @ truth[sel]).T
        out[c, :, n_bins + 1, 0] = prob @ drop  # dropped mass, truth slot unused
    return out


class _Infeasible(Exception):
    """The vote enumeration is too large."""


# --------------------------------------------------------------------------- running a cell
def _kernels_tuple(parallel):
    if parallel:
        return K.explicit_binary, K.explicit_generic, K.collapsed, K.explicit_binary_fast
    return (K.explicit_binary_serial, K.explicit_generic_serial, K.collapsed_serial,
            K.explicit_binary_fast_serial)


_KERNELS = {True: _kernels_tuple(True), False: _kernels_tuple(False)}


def _run_cell(cell, spec, key, kern, want_expected, return_raw, fast=True):
    import pandas as pd

    lab, kk = cell.n_labels, cell.panel_size
    panel = spec.mode == "panel"
    n_j = len(spec.labellers)
    try:
        table = _Table(cell, spec)
    except _Infeasible:
        table = None
    if table is not None:
        labels = table.labels
        stratum_of_top = table.stratum_of_top
    else:  # strata without the enumeration
        labels, stratum_of_top = _panel.strata(kk, lab, spec.tie_rule)
    n_strata = 1 + len(labels)
    prior = cell.class_prior(spec)
    exchangeable = not panel or spec.theta_prior is None
    skills = spec.skill_matrices(lab) if panel else None
    cells = table.cells(n_j) if table is not None else None
    path = spec.method
    if path == "auto":
        path = "collapsed" if exchangeable and cells is not None else "explicit"
    if path == "collapsed" and cells is None:
        raise ValueError(f"method='collapsed' is not available for this cell (outcome table "
                         f"of {lab}**{n_j + 1} x strata cells is too large, or the vote "
                         f"enumeration is); use method='explicit'")
    out = np.empty((spec.replicates, n_j, n_strata, K.N_FIELDS))
    if kern is None:  # small work: the serial twin (same numbers, no thread start-up)
        work = spec.replicates * (cell.n_items * (kk + n_j) if path == "explicit" else 200)
        kern = _KERNELS[work >= _PARALLEL_WORK]
    ckey = np.uint64(key)
    theta_kind, theta_par, theta_cum = _theta_args(cell, spec)
    tie = {"random": K.TIE_RANDOM, "drop": K.TIE_DROP}.get(spec.tie_rule, spec.tie_rule)
    tie = int(tie) if panel else K.TIE_RANDOM
    # prediction matrices at the fixed theta (a correlated Model's mixture folded in); with a
    # theta prior the kernels mix per item: own matrix + lab_rho
    if spec.theta_prior is None:
        mats = [np.asarray(lb.matrix(lab, prior, float(cell.p_d))) for lb in spec.labellers]
        lab_rho = np.zeros(n_j)
    else:
        mats = [np.asarray(lb.own_matrix(lab) if isinstance(lb, Model)
                           else lb.matrix(lab, prior, 0.5)) for lb in spec.labellers]
        lab_rho = np.array([getattr(lb, "correlation", 0.0) for lb in spec.labellers])
    lab_kind = np.array([K.EXPERT if type(lb).__name__ == "Expert" else K.MATRIX
                         for lb in spec.labellers], dtype=np.int64)
    counts = cell.class_counts(spec)
    bern = spec.positives == "bernoulli"
    if path == "collapsed":
        probs, c_stratum, c_truth, c_pred, c_theta = cells
        if bern:
            group_counts = np.array([cell.n_items], dtype=np.int64)
        else:
            group_counts = table.groups
        kern[2](ckey, spec.replicates, group_counts, np.empty(0), np.ascontiguousarray(probs),
                c_stratum, c_truth, c_pred, np.ascontiguousarray(c_theta), lab, n_strata, out)
    elif (lab == 2 and panel and kk <= _FAST_MAX_K and spec.theta_prior is None
          and not bern and fast and skills is None):
        # vectorised kernel; bit-identical to the branch below
        theta = float(cell.p_d)
        lab_thr = np.empty((2, n_j), dtype=np.uint64)
        lab_flip = np.zeros((2, n_j), dtype=np.uint64)
        for j, mt in enumerate(mats):
            for c in range(2):
                if lab_kind[j] == K.EXPERT:
                    lab_thr[c, j] = K.threshold53(theta)
                    lab_flip[c, j] = 1 if c == 0 else 0
                else:
                    lab_thr[c, j] = K.threshold53(float(mt[c, 1]))
        kern[3](ckey, spec.replicates, cell.n_items, K.vote_thresholds(theta, kk),
                int(counts[1]), theta, tie, lab_thr, lab_flip, stratum_of_top, n_strata, out)
    elif lab == 2 and (not panel or kk <= _BINARY_MAX_K) and skills is None:
        lab_p1 = np.ascontiguousarray(np.stack([mt[:, 1] for mt in mats]))
        ktuple = tuple(range(kk)) if panel else (0,)
        vote_thr = np.array(K.vote_thresholds(float(theta_par[0]), kk) if panel
                            and theta_kind == K.THETA_FIXED else [0], dtype=np.uint64)
        kern[0](ckey, spec.replicates, cell.n_items, ktuple, panel, int(counts[1]), bern,
                float(prior[1]), theta_kind, theta_par, theta_cum, vote_thr, tie, lab_kind,
                lab_p1, lab_rho, stratum_of_top, n_strata, out)
    else:
        lab_cum = np.ascontiguousarray(np.cumsum(np.stack(mats), axis=2))
        hetero = skills is not None
        comp = _composition_tables(lab, kk, float(theta_par[0])) if (
            panel and theta_kind == K.THETA_FIXED and not hetero) else None
        if comp is None:
            comp = (np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros((0, lab), dtype=np.int64),
                    np.zeros((0, 3), dtype=np.int64))
        vote_cum = (np.ascontiguousarray(np.cumsum(skills, axis=2)) if hetero
                    else np.zeros((1, lab, lab)))
        kern[1](ckey, spec.replicates, cell.n_items, lab, kk if panel else 0, panel,
                np.cumsum(prior), counts, bern, theta_kind, theta_par, theta_cum, *comp, hetero,
                vote_cum, tie, lab_kind, lab_cum, lab_rho, stratum_of_top, n_strata, out)
    names = [lb.name for lb in spec.labellers]
    strata = ["all"] + labels
    exp = None
    if want_expected and table is not None:
        exp = _expected(table, cell, spec, labels)
    summary = _summarise(out, names, strata, spec, exp, panel, path,
                         theta_ok=panel and skills is None
                         and (path == "explicit" or spec.theta_prior is None))
    summary["method"] = path
    raw = None
    if return_raw:
        r, j, s = np.meshgrid(np.arange(spec.replicates), np.arange(n_j), np.arange(n_strata),
                              indexing="ij")
        flat = out.reshape(-1, K.N_FIELDS)
        raw = pd.DataFrame({"labeller": np.asarray(names, dtype=object)[j.ravel()],
                            "stratum": np.asarray(strata, dtype=object)[s.ravel()],
                            "replicate": r.ravel()})
        for f, name in enumerate(K.FIELDS):
            if name == "theta" and (not panel or skills is not None):
                continue
            col = flat[:, f]
            raw[name] = col.astype(np.int64) if f < 6 else col
        raw["method"] = path
    return summary, raw


def _theta_args(cell, spec):
    prior = spec.theta_prior
    if prior is None:
        return K.THETA_FIXED, np.array([float(cell.p_d)]), np.ones(1)
    if isinstance(prior, BetaPrior):
        lo, hi = prior.support(cell.n_labels)
        return K.THETA_BETA, np.array([prior.a, prior.b, lo, hi]), np.ones(1)
    assert isinstance(prior, DiscretePrior)
    return (K.THETA_DISCRETE, np.asarray(prior.values, dtype=float),
            np.cumsum(np.asarray(prior.weights, dtype=float)))


def _summarise(out, names, strata, spec, exp, panel, path, theta_ok):
    import pandas as pd

    metric_fields = [("accuracy", 6), ("precision", 7), ("recall", 8), ("f1", 9)]
    if theta_ok:
        metric_fields.append(("theta", 10))
    recs = []
    qs = np.array([0.05, 0.5, 0.95])
    for j, name in enumerate(names):
        for s, stratum in enumerate(strata):
            vals = out[:, j, s, :]
            ok = vals[:, 0] > 0
            n_ok = int(ok.sum())
            if n_ok == 0:
                continue
            labels = [(metric, np.nan) for metric, _ in metric_fields]
            cols = [vals[ok][:, [f for _, f in metric_fields]]]
            for t in spec.thresholds:
                labels += [("prob_accuracy_ge", t), ("prob_f1_ge", t)]
                cols.append((vals[ok][:, [6, 9]] >= t - _EPS).astype(float))
            x = np.concatenate(cols, axis=1)  # (replicates, series): one pass per statistic
            means = x.mean(axis=0)
            sds = x.std(axis=0, ddof=1) if n_ok > 1 else np.full(x.shape[1], np.nan)
            quants = np.quantile(x, qs, axis=0)
            for i, (metric, t) in enumerate(labels):
                e = np.nan if exp is None else exp.get((j, s, metric, None if t != t else t),
                                                        np.nan)
                recs.append((name, stratum, metric, t, float(means[i]), float(sds[i]),
                             *map(float, quants[:, i]), e, n_ok))
    df = pd.DataFrame.from_records(recs, columns=["labeller", "stratum", "metric", "threshold",
                                                  "mean", "sd", "q05", "q50", "q95",
                                                  "expected", "replicates"])
    with np.errstate(divide="ignore", invalid="ignore"):
        df["se"] = df["sd"] / np.sqrt(df["replicates"])
        diff = df["mean"] - df["expected"]
        z = diff / df["se"]
        # no spread beyond rounding noise (e.g. theta when fixed, constant labellers)
        flat = (df["sd"] <= 1e-9) | df["se"].isna()
        z[flat & (diff.abs() <= 1e-9)] = 0.0
        z[flat & (diff.abs() > 1e-12)] = np.nan  # no spread seen: z undefined
    df["z"] = z
    return df


# --------------------------------------------------------------------------- expected values
_GL = {}


def _ratio_mean(n, a, ab):
    """E[sum_i A_i B_i / sum_i A_i; sum A > 0] for independent items in groups.

    ``n[g]`` items in group g, each with P(A) = a[g], P(A and B) = ab[g]
    (B may be a [0, 1]-valued variable; ab is then E[A B]).
    """
    n = np.asarray(n, dtype=float)
    a = np.clip(np.asarray(a, dtype=float), 0.0, 1.0)
    ab = np.asarray(ab, dtype=float)
    keep = (n > 0) & (a > 0)
    if not keep.any():
        return 0.0
    n, a, ab = n[keep], a[keep], ab[keep]
    mu = float(n @ a)
    lo = max(0.0, 1.0 - 80.0 / mu)
    if 200 not in _GL:
        _GL[200] = np.polynomial.legendre.leggauss(200)
    x, w = _GL[200]
    t = lo + (1.0 - lo) * (x + 1.0) / 2.0
    w = w * (1.0 - lo) / 2.0
    base = 1.0 - a[:, None] * (1.0 - t[None, :])  # (g, nodes)
    with np.errstate(divide="ignore"):
        logb = np.log(base)
    full = (n[:, None] * logb).sum(axis=0)  # log prod_d base_d^n_d
    total = 0.0
    for g in range(len(n)):
        integrand = np.exp(full - logb[g])
        total += n[g] * ab[g] * float(integrand @ w)
    return total


def _p_nonempty(n, a):
    n = np.asarray(n, dtype=float)
    a = np.clip(np.asarray(a, dtype=float), 0.0, 1.0)
    with np.errstate(divide="ignore"):
        log_empty = np.where(a < 1.0, n * np.log1p(-np.minimum(a, 1.0)), -np.inf)
    log_empty = np.where(n == 0, 0.0, log_empty)
    return float(-np.expm1(log_empty.sum()))


def _expected(table, cell, spec, labels):
    """Exact expectations keyed by (labeller index, stratum index, metric, threshold)."""
    lab = cell.n_labels
    n_bins = len(labels)
    groups = table.groups
    res = {}
    # slot sets for output strata: 0 = all (every slot but "dropped"), s = bin s
    slot_sets = [list(range(0, n_bins + 1))] + [[s] for s in range(1, n_bins + 1)]
    theta_j = table.theta_joint()  # (G, slots)
    for j in range(len(spec.labellers)):
        joint = table.labeller_joint(j)  # (G, slots, t, h)
        for s, slots in enumerate(slot_sets):
            pj = joint[:, slots].sum(axis=1)  # (G, t, h)
            p_in = pj.sum(axis=(1, 2))
            nonempty = _p_nonempty(groups, p_in)
            if nonempty <= 0:
                continue
            diag = np.einsum("gtt->g", pj)
            res[(j, s, "accuracy", None)] = _ratio_mean(groups, p_in, diag) / nonempty
            if spec.mode == "panel" and spec.skills is None:
                res[(j, s, "theta", None)] = (_ratio_mean(groups, p_in, theta_j[:, slots]
                                                            .sum(axis=1)) / nonempty)
            classes = [1] if lab == 2 else range(lab)
            rec = [_ratio_mean(groups, pj[:, c, :].sum(axis=1), pj[:, c, c]) for c in classes]
            prec = [_ratio_mean(groups, pj[:, :, c].sum(axis=1), pj[:, c, c]) for c in classes]
            res[(j, s, "recall", None)] = float(np.mean(rec)) / nonempty
            res[(j, s, "precision", None)] = float(np.mean(prec)) / nonempty
            if s == 0 and not (spec.mode == "panel" and spec.tie_rule == "drop"):
                for t in spec.thresholds:
                    res[(j, s, "prob_accuracy_ge", t)] = _prob_correct_ge(groups, diag, t,
                                                                          cell.n_items)
        if spec.mode == "coin" and spec.positives == "fixed":
            _coin_f1(res, j, table, groups, spec)
    return {k: float(x) for k, x in res.items()}


def _prob_correct_ge(groups, q, t, n_items):
    """P(sum_g Binomial(n_g, q_g) >= smallest k with k / N >= t)."""
    from scipy import stats

    if n_items > 20_000 and len(groups) > 1:
        return np.nan
    k_min = int(ceil_count(t, n_items))  # robust ceil(t N), as in the closed forms
    if len(groups) == 1:
        return float(stats.binom.sf(k_min - 1, groups[0], q[0]))
    pmf = np.ones(1)
    for n_g, q_g in zip(groups, q):
        pmf = np.convolve(pmf, stats.binom.pmf(np.arange(n_g + 1), n_g, q_g))
    return float(min(1.0, pmf[k_min:].sum()))


def _coin_f1(res, j, table, groups, spec):
    """Exact F1 (and P(F1 >= t)) in coin mode with fixed class counts."""
    from labelvar import analytic

    lab = table.n_lab
    mat = table.M[j][:, 0, :]  # (c, h): P(pred h | true c)
    n = int(groups.sum())
    classes = [1] if lab == 2 else range(lab)
    means, dists = [], []
    for c in classes:
        others = [d for d in range(lab) if d != c]
        fp_rate = mat[others, c]
        if np.ptp(fp_rate) > 1e-12:  # not a single binomial: leave it
            return
        dist = analytic.exact_binary_metrics(int(groups[c]), n - int(groups[c]),
                                             float(mat[c, c]), 1.0 - float(fp_rate[0]))
        means.append(dist.f1.mean)
        dists.append(dist)
    res[(j, 0, "f1", None)] = float(np.mean(means))
    if lab == 2:
        for t in spec.thresholds:
            res[(j, 0, "prob_f1_ge", t)] = float(dists[0].f1.sf(t - _EPS))


make_module_callable(__name__, "simulate")  # labelvar.simulate(...) however it was imported
