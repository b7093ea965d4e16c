"""The public :func:`simulate`: validate, dispatch each grid cell to a kernel, summarise.

Every random draw happens in :mod:`labelvar._kernels`; this module picks the
kernel for a cell, lays out its inputs and turns its per-replicate output into
tables (:class:`labelvar.engine.SimulationResult`). The exact tables and
expectations are in :mod:`labelvar.engine._tables`, the validated input in
:mod:`labelvar.engine._spec`.
"""

from __future__ import annotations

import numpy as np

from labelvar import _kernels as K
from labelvar.engine._result import SimulationResult
from labelvar.engine._spec import _Spec
from labelvar.engine._summary import (
    _PARALLEL_WORK,
    PARAM_COLUMNS,
    _raw_table,
    _summarise,
    _summary_frame,
)
from labelvar.engine._tables import (
    _composition_tables,
    _expected,
    _Infeasible,
    _symmetric_tables,
    _Table,
    collapsed_inputs,
)
from labelvar.metrics import _scores as _metrics
from labelvar.votes import _panel
from labelvar.votes._models import Model
from labelvar.votes._priors import ItemModel

#: the per-replicate metrics (the one definition: :mod:`labelvar.metrics`)
METRICS = _metrics.METRICS
RAW_FIELDS = ("n", "correct", "tp", "fp", "fn", "tn") + METRICS
_BINARY_MAX_K = 64      # K above this uses the generic kernel (one compile per K otherwise)
_FAST_MAX_K = 7         # the vectorised L = 2 kernel packs vote counts 0..K in 8-bit lanes
# "auto" picks the path with the lower cost per replicate (both are exact). Measured on one
# thread with scripts/bench.py's time_kernel (2-core reference machine, N = 200, two
# labellers, panel K = 5..15 x L = 2..5 and coin mode; least squares over the cells):
# collapsed = _NS_REPLICATE + _NS_DRAW * draws + _NS_METRICS[L > 2] * labellers * strata (ns;
# draws = the expected binomial draws per replicate, from the cell's chains), explicit =
# n_items * (a + b * (K + labellers)) with (a, b) = _NS_ITEM_FAST for the vectorised L = 2
# kernel (K <= 7), _NS_ITEM_SYMMETRIC for the any-L fixed-theta kernel (L > 2) and _NS_ITEM
# for the others. The choice depends on the cell, never on the number of replicates, so a
# run's first R replicates are those of a shorter run.
_NS_REPLICATE = 20.0
_NS_DRAW = 13.0
_NS_METRICS = (7.0, 15.0)
_NS_ITEM_FAST = (0.9, 0.3)
_NS_ITEM_SYMMETRIC = (2.0, 0.27)
_NS_ITEM = (14.0, 0.4)
_THETA_KIND = {"fixed": K.THETA_FIXED, "beta": K.THETA_BETA, "discrete": K.THETA_DISCRETE}


def simulate(p_d=None, m=0.5, n_items=100, n_labels=(2,), panel_size=(5,),
             labellers=("expert", "random"), mode="coin", replicates=10_000, seed=0,
             thresholds=(), theta_prior=None, tie_rule="random", positives="fixed",
             raw=False, progress=False, *, joint=False, class_prior=None, panel_skills=None,
             method="auto", expected=True, parallel=None, panel=None, panel_raters=None,
             expert=None) -> SimulationResult:
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
        1), ``"model"`` (accuracy 0.8) or objects from :mod:`labelvar.votes`
        (e.g. ``Model(accuracy=0.7, name="A")``); names must be unique. All
        labellers label the same simulated items. A
        :class:`labelvar.ModelPair` gives two columns (its ``names``)
        with correlated errors; it takes the collapsed path.
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
        [1/L, 1]), any spelling of :func:`labelvar.votes.as_theta_prior`: e.g.
        ``("beta", 4, 1)`` or ``"beta:4,1"`` = 1/L + (1 - 1/L) Beta(4, 1),
        ``("mixture", [0.6, 1], [0.3, 0.7])``. A fixed theta
        (:class:`labelvar.FixedTheta` or a number) is the same as ``p_d``.
        An item model (:class:`labelvar.votes.ItemModel`, e.g. ``"dirichlet:2,1,0.5"``
        or a ``fit_pilot(..., method="dirichlet")`` fit's ``prior``) draws a label
        distribution π per item instead (absolute labels; votes ~ Multinomial(K, π),
        expert = one more draw, models against argmax π): ``m``, ``class_prior`` and
        ``positives`` are then ignored (π defines the classes), the path is explicit
        (see the item models in :mod:`labelvar.votes`).
    tie_rule : {"random", "drop"} or int
        Panel mode: ties of the plurality go to a random tied label, drop the
        item, or go to the given label when it is among the tied ones (random
        among the tied otherwise).
    positives : {"fixed", "bernoulli"}
        Class (coin) or modal-label (panel) counts: fixed at the rounded
        expected counts (binary: round(m N) positives; L > 2: largest
        remainders) or drawn per item.
    raw : bool
        Also return the per-replicate table (``SimulationResult.raw``).
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
    joint : bool
        Also return the per-replicate counts of each joint outcome (truth and
        every labeller's prediction) per stratum (``SimulationResult.joint``,
        see Returns). Collapsed path only: these are the multinomial counts
        the kernel draws; ``method="auto"`` then takes the collapsed path
        (also with a ``theta_prior``) and ``method="explicit"`` is refused.
    method : {"auto", "collapsed", "explicit"}
        Computational path (see :mod:`labelvar.engine`). ``"auto"``: collapsed
        whenever a ``ModelPair`` or ``joint=True`` needs it; for exchangeable
        items (coin mode, or a fixed theta) the path with the lower modelled
        cost per replicate (collapsed: its expected binomial draws; explicit:
        N times a per-item cost; e.g. binary panels with K <= 7 go explicit up
        to N ~ 150, panels with L = 3 up to N ~ 400); explicit otherwise.
    expected : bool
        Compute the ``expected`` column (imports scipy; False keeps a small
        call cheap).
    parallel : bool or None
        Use the ``prange`` kernels (False: their serial twins; the numbers are
        identical). None: parallel unless a cell's work is small (a serial
        kernel starts faster).
    panel, panel_raters, expert : optional
        Panels drawn from a rater model (:func:`labelvar.simulate_raters`, which see):
        ``panel`` a :class:`labelvar.RaterModel` or :class:`labelvar.RaterFit`,
        ``panel_raters`` its panel (rater ids or K; default: every fitted rater but the
        expert), ``expert`` a rater id or a stated skill (a dict or an L x L matrix;
        default: the population rater). Only ``n_items``, ``replicates``, ``seed``,
        ``thresholds``, ``tie_rule``, ``raw``, ``expected`` and ``parallel`` apply then.

    Returns
    -------
    SimulationResult
        ``summary``: one row per grid cell x labeller x stratum x metric, with
        columns ``p_d, m, n_items, n_labels, panel_size, mode, theta_prior,
        tie_rule, positives, method, labeller, stratum, metric, threshold,
        mean, sd, se, q05, q50, q95, expected, z, replicates, seed``.
        ``metric`` is accuracy, precision, recall, f1 (the metric definitions of
        :func:`labelvar.stratify`:
        binary, positive class = label 1; L > 2: macro averages over all L
        classes; 0/0 counts as 0), ``prob_accuracy_ge`` / ``prob_f1_ge`` (with
        ``threshold``) and, in panel mode, ``theta`` (mean true theta of the
        items in the stratum). ``stratum`` is ``"all"`` or, in panel mode, the
        observed p_d (top votes / K) formatted like ``"0.60"``; summaries of a
        stratum use the replicates where it is non-empty (``replicates`` says
        how many). ``expected`` is exact where known (see Notes), else NaN;
        ``z = (mean - expected) / se``.

        ``raw`` (with ``raw=True``, else None): one row per cell x labeller x
        stratum x replicate with ``n, correct, tp, fp, fn, tn`` (tp..tn: label 1
        against the rest) and the metrics.

        ``joint`` (with ``joint=True``, else None): one row per cell x stratum x
        replicate x possible joint outcome, columns ``PARAM_COLUMNS``, then
        ``stratum, replicate, truth``, one column per labeller (its
        prediction) and ``count`` (zeros included; outcomes of probability 0,
        e.g. another label of a ``Constant``, are left out). Per cell,
        stratum and replicate the counts sum to the raw table's ``n`` and
        their margins over (truth, labeller j) are labeller j's confusion
        counts. Dropped items (``tie_rule="drop"``) are in no stratum.

        ``seed``: the int seed used (also the ``seed`` column).

    Notes
    -----
    ``expected`` is exact, not a ratio of expectations: accuracy, precision,
    recall (and theta) are ratios ``sum(A_i B_i) / sum(A_i)`` over
    independent items, whose mean is
    ``sum_g n_g P(A B | g) * integral_0^1 prod_d (1 - a_d (1 - t))^(n_d - [d = g]) dt``
    (groups g of n_g exchangeable items, a_d = P(A | d)), computed by
    Gauss-Legendre quadrature; 0/0 counts as 0 and strata are conditioned on
    being non-empty. F1 of a class, ``2 TP / (2 TP + FP + FN)``, is such a ratio
    with a denominator term of 2 on a true positive; its mean is
    ``sum_g n_g 2 P(TP | g) * integral_0^1 t prod_d phi_d(t)^(n_d - [d = g]) dt``
    with ``phi_d(t) = 1 - P(FP or FN | d) (1 - t) - P(TP | d) (1 - t^2)``, exact
    in every mode (macro-F1 for L > 2: the mean over classes). P(F1 >= t) is
    exact in binary coin mode with fixed positives
    (:func:`labelvar.analytic.exact_binary_metrics`) and NaN elsewhere.
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
    >>> res = simulate(p_d=0.9, m=0.1, n_items=100, replicates=2000, seed=1)
    >>> row = res.summary.query("labeller == 'expert' and metric == 'accuracy'").iloc[0]
    >>> bool(abs(row["z"]) < 4), round(float(row["expected"]), 3)
    (True, 0.9)
    >>> sorted(res.summary["metric"].unique()), res.raw is None, res.seed
    (['accuracy', 'f1', 'precision', 'recall'], True, 1)

    Two systems with correlated errors, paired on the same items (McNemar's
    discordant pairs per replicate from the joint counts):

    >>> from labelvar import ModelPair
    >>> res = simulate(p_d=0.8, m=0.3, n_items=200, mode="panel", panel_size=3,
    ...                labellers=[ModelPair(0.85, 0.75, error_correlation=0.2)],
    ...                positives="bernoulli", replicates=500, seed=2, joint=True)
    >>> j = res.joint[res.joint["stratum"] == "all"]
    >>> a_only = j[(j["A"] == j["truth"]) & (j["B"] != j["truth"])]
    >>> n10 = a_only.groupby("replicate")["count"].sum()
    >>> len(n10), bool(n10.mean() > 0)
    (500, True)
    """
    import pandas as pd

    # ---- rater panels: a separate runner (labelvar.engine._rater_panels) ----
    if panel is not None or panel_raters is not None or expert is not None:
        from labelvar.engine._rater_panels import from_simulate

        return from_simulate(dict(locals()), _simulate_defaults())
    # ---- end rater panels ----
    spec = _Spec.build(p_d, m, n_items, n_labels, panel_size, labellers, mode, replicates, seed,
                       thresholds, theta_prior, tie_rule, positives, class_prior, method,
                       panel_skills)
    kern = None if parallel is None else _KERNELS[bool(parallel)]
    cells = spec.cells()
    if progress:
        from tqdm.auto import tqdm

        cells = tqdm(cells, desc="simulate", unit="cell")
    want = {"raw": bool(raw), "joint": bool(joint)}
    parts: dict[str, list] = {"summary": [], "raw": [], "joint": []}
    done: dict[int, dict] = {}
    for cell in cells:
        key = cell.key(spec)
        if key not in done:
            done[key] = _run_cell(cell, spec, key, kern, expected, want)
        params = cell.columns(spec)
        for name, table in done[key].items():
            if name == "summary":  # plain columns: one DataFrame at the end (cheaper)
                parts[name].append((table, params))
            else:
                parts[name].append(table.assign(**params))
    summary = _summary_frame(parts["summary"], spec.seed)
    tables = {}
    for name, lead in (("raw", ("labeller", "stratum", "replicate")),
                       ("joint", ("stratum", "replicate"))):
        if not want[name]:
            tables[name] = None
            continue
        table = pd.concat(parts[name], ignore_index=True)
        table["seed"] = spec.seed
        first = list(PARAM_COLUMNS) + list(lead)
        tables[name] = table[first + [c for c in table.columns if c not in first]]
    return SimulationResult(summary=summary, raw=tables["raw"], joint=tables["joint"],
                            seed=spec.seed)


def _simulate_defaults() -> dict:
    """:func:`simulate`'s argument defaults (the rater-panel runner refuses the others)."""
    import inspect

    return {k: p.default for k, p in inspect.signature(simulate).parameters.items()}


def _kernels_tuple(parallel):
    if parallel:
        return (K.explicit_binary, K.explicit_generic, K.collapsed, K.explicit_binary_fast,
                K.explicit_symmetric)
    return (K.explicit_binary_serial, K.explicit_generic_serial, K.collapsed_serial,
            K.explicit_binary_fast_serial, K.explicit_symmetric_serial)


_KERNELS = {True: _kernels_tuple(True), False: _kernels_tuple(False)}


def _run_cell(cell, spec, key, kern, want_expected, want, fast=True):
    """Simulate one grid cell; return its tables ({"summary", and "raw"/"joint" if wanted})."""
    if isinstance(spec.theta_prior, ItemModel):  # a label distribution per item
        from labelvar.engine._item_models import run_item_model_cell

        return run_item_model_cell(cell, spec, key, None if kern is None else kern[0] is
                                   K.explicit_binary, want_expected, want)
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
    needs = ("a ModelPair" if spec.pairs else "joint=True" if want["joint"] else None)
    coll = None  # the collapsed kernel's inputs (None: its outcome table is too large)
    if table is not None and (spec.method == "collapsed" or needs
                              or (spec.method == "auto" and exchangeable)):
        coll = collapsed_inputs(table, spec, cell, joint=want["joint"])
    path = spec.method
    bern = spec.positives == "bernoulli"
    # the vectorised L = 2 kernel applies (same conditions as its branch below)
    fast_binary = (lab == 2 and panel and kk <= _FAST_MAX_K and spec.theta_prior is None
                   and not bern and fast and skills is None)
    # the any-L fixed-theta kernel applies (its branch below also needs its tables)
    symmetric = (panel and (lab > 2 or kk > _BINARY_MAX_K) and spec.theta_prior is None
                 and skills is None and table is not None and not bern and fast)
    if path == "auto":
        path = "collapsed" if (exchangeable or needs) and coll is not None else "explicit"
        if path == "collapsed" and not needs and _collapsed_ns(coll, lab, n_j, n_strata) > (
                cell.n_items * _explicit_item_ns(fast_binary, symmetric, kk if panel else 1,
                                                 n_j)):
            path = "explicit"  # a few ns per item beat the collapsed draws per replicate
    if path == "explicit" and needs:
        raise ValueError(f"{needs} needs the collapsed path, which is not available for this "
                         f"cell (outcome table of {lab}**{n_j + 1} x strata cells too large, or "
                         f"the vote enumeration is)" if coll is None else
                         f"{needs} needs method='collapsed' (or 'auto'), got method='explicit'")
    if path == "collapsed" and coll is None:
        raise ValueError(f"method='collapsed' is not available for this cell (outcome table "
                         f"of {lab}**{n_j + 1} x strata cells is too large, or the vote "
                         f"enumeration is); use method='explicit'")
    out = np.empty((spec.replicates, n_j, n_strata, K.N_FIELDS))
    if kern is None:  # small work: the serial twin (same numbers, no thread start-up)
        work = spec.replicates * (cell.n_items * (kk + n_j) if path == "explicit" else 200)
        kern = _KERNELS[work >= _PARALLEL_WORK]
    ckey = np.uint64(key)
    theta_kind, theta_par, theta_cum = _theta_args(cell, spec)
    joint = np.zeros((0, 0, 0), dtype=np.int64)
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
    if path == "collapsed":
        codes = coll.codes
        if want["joint"]:
            joint = np.zeros((spec.replicates, n_strata, len(codes)), dtype=np.int64)
        kern[2](ckey, spec.replicates, cell.n_items, coll.groups, coll.cats, coll.blocks,
                coll.plan, lab, n_strata, out, joint)
    elif fast_binary:
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
    elif symmetric and (sym := _symmetric_tables(table.A[:, 0], mats)) is not None:
        # any L, fixed theta: one alias draw of (stratum, truth, two predictions) per item
        kern[4](ckey, spec.replicates, cell.n_items, counts, *sym, float(theta_par[0]), n_j,
                n_strata, out)
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
    summary["method"] = [path] * len(summary["mean"])
    tables = {"summary": summary}
    if want["joint"]:
        tables["joint"] = _joint_table(joint, codes, names, strata, lab, path)
    if want["raw"]:
        tables["raw"] = _raw_table(out, names, strata, path,
                                   theta=panel and skills is None)
    return tables


def _collapsed_ns(coll, n_lab, n_labellers, n_strata):
    """Cost model of a collapsed replicate, ns on one thread (see ``_NS_REPLICATE``)."""
    return (_NS_REPLICATE + _NS_DRAW * coll.draws
            + _NS_METRICS[n_lab > 2] * n_labellers * n_strata)


def _explicit_item_ns(fast_binary, symmetric, panel_size, n_labellers):
    """Cost model of one item on the explicit path, ns on one thread (see ``_NS_ITEM``)."""
    a, b = _NS_ITEM_FAST if fast_binary else _NS_ITEM_SYMMETRIC if symmetric else _NS_ITEM
    return a + b * (panel_size + n_labellers)




def _joint_table(joint, codes, names, strata, n_lab, path):
    """Tidy table of the joint outcome counts ``joint[r, s, i]`` of outcome ``codes[i]``."""
    import pandas as pd

    n_rep, n_strata, _ = joint.shape
    r, s, c = np.meshgrid(np.arange(n_rep), np.arange(n_strata), np.arange(len(codes)),
                          indexing="ij")
    outcome = np.unravel_index(codes, (n_lab,) * (1 + len(names)))
    table = pd.DataFrame({"stratum": np.asarray(strata, dtype=object)[s.ravel()],
                          "replicate": r.ravel(),
                          "truth": outcome[0][c.ravel()]})
    for j, name in enumerate(names):
        table[name] = outcome[1 + j][c.ravel()]
    table["count"] = joint.ravel()
    table["method"] = path
    return table


def _theta_args(cell, spec):
    """The kernels' theta arguments: (kind code, parameters, cumulative weights)."""
    if spec.theta_prior is None:
        return K.THETA_FIXED, np.array([float(cell.p_d)]), np.ones(1)
    kind, par, cum = spec.theta_prior.kernel_args(cell.n_labels)
    return _THETA_KIND[kind], par, cum

