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
from labelvar._base._seeding import as_seed
from labelvar._kernels.layout import Labellers, Strata, ThetaDraw
from labelvar.engine._items import Coin, Panel, RaterPanel, as_items  # noqa: F401
from labelvar.engine._kernel_sets import KERNELS, Kernels  # noqa: F401
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


def simulate(items, labellers=None, *, n_items=100, replicates=10_000, seed=0,
             thresholds=(), outputs=(), method="auto", parallel=None, expected=True,
             progress=False) -> SimulationResult:
    """Simulate labellers against a (possibly disagreeing) reference over a parameter grid.

    Parameters
    ----------
    items : Coin, Panel, RaterPanel, or a list of them
        What generates the items and their reference (:mod:`labelvar.engine`):
        :class:`Coin` (the paper's coin model, ``p_d``), :class:`Panel` (a voting panel:
        latent agreement ``theta`` or a ``theta_prior`` / item model, ``panel_size``,
        ``n_labels``, ``tie_rule`` ...), :class:`RaterPanel` (a panel drawn from a rater
        model, an expert scored against it). The grid rule: a field given as a list
        is an axis and the cells are the Cartesian product of the axes; a list of
        objects runs each in turn and stacks their rows.
    labellers : sequence of str or labeller objects, optional
        ``"expert"``, ``"random"``, ``"prior"``, ``"constant"`` (always label 1),
        ``"model"`` (accuracy 0.8) or labeller objects (:mod:`labelvar.votes`,
        e.g. ``Model(accuracy=0.7, name="A")``, or your own: see
        :class:`labelvar.votes.Labeller`); names must be unique. All label the
        same simulated items. A ``ModelPair`` gives two columns (its ``names``) with
        correlated errors (collapsed path). Default ``("expert", "random")``; a
        :class:`RaterPanel` scores its own expert and takes none.
    n_items : int or list of int
        Items per replicate (>= 1); a list is a grid axis.
    replicates : int
        Monte Carlo replicates per grid cell (>= 1).
    seed : int, numpy.random.Generator or None
        Seed (int >= 0). A Generator or None draws one int seed, reported in
        the ``seed`` column so the run can be repeated.
    thresholds : sequence of float
        Values t in [0, 1]: adds rows ``prob_accuracy_ge`` and ``prob_f1_ge``
        estimating P(metric >= t).
    outputs : sequence of {"raw", "joint"}
        Tables besides the summary: ``"raw"`` the per-replicate table
        (``SimulationResult.raw``), ``"joint"`` the per-replicate counts of each joint
        outcome (collapsed path only; ``method="auto"`` then takes it and
        ``"explicit"`` is refused).
    method : {"auto", "collapsed", "explicit"}
        Computational path (see :mod:`labelvar.engine`). ``"auto"``: collapsed
        whenever a ``ModelPair`` or the joint output needs it; for exchangeable
        items (coin model, or a fixed theta) the path with the lower modelled
        cost per replicate (collapsed: its expected binomial draws; explicit:
        N times a per-item cost; e.g. binary panels with K <= 7 go explicit up
        to N ~ 150, panels with L = 3 up to N ~ 400); explicit otherwise.
    parallel : bool or None
        Use the ``prange`` kernels (False: their serial twins; the numbers are
        identical). None: parallel unless a cell's work is small (a serial
        kernel starts faster).
    expected : bool
        Compute the ``expected`` column (imports scipy; False keeps a small
        call cheap).
    progress : bool
        Show a progress bar over grid cells (tqdm).

    Returns
    -------
    SimulationResult
        ``summary``: one row per grid cell x labeller x stratum x metric, with
        columns ``p_d, theta, m, n_items, n_labels, panel_size, mode, theta_prior,
        tie_rule, positives, method, labeller, stratum, metric, threshold,
        mean, sd, se, q05, q50, q95, expected, z, replicates, seed`` (``mode`` is
        ``"coin"``, ``"panel"`` or ``"raters"``; ``p_d`` is a :class:`Coin`'s, NaN
        otherwise; ``theta`` a :class:`Panel`'s fixed theta, NaN otherwise; under a
        :class:`Coin` ``panel_size`` is 0, there being no panel).
        ``metric`` is accuracy, precision, recall, f1 (the metric definitions of
        :func:`labelvar.evaluation.stratify`:
        binary, positive class = label 1; L > 2: macro averages over all L
        classes; 0/0 counts as 0), ``prob_accuracy_ge`` / ``prob_f1_ge`` (with
        ``threshold``) and, under a panel, ``theta`` (mean true theta of the
        items in the stratum). ``stratum`` is ``"all"`` or, under a panel, the
        observed agreement (top votes / K) formatted like ``"0.60"``; summaries of a
        stratum use the replicates where it is non-empty (``replicates`` says
        how many). ``expected`` is exact where known (see Notes), else NaN;
        ``z = (mean - expected) / se``.

        ``raw`` (with ``"raw"`` in ``outputs``, else None): one row per cell x
        labeller x stratum x replicate with ``n, correct, tp, fp, fn, tn`` (tp..tn:
        label 1 against the rest) and the metrics (the ``theta`` metric, the stratum's
        mean true theta, as ``mean_theta``: ``theta`` is the parameter column).

        ``joint`` (with ``"joint"`` in ``outputs``, else None): one row per cell x
        stratum x replicate x possible joint outcome, columns ``PARAM_COLUMNS``, then
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
    exact for a binary :class:`Coin` with fixed positives
    (:func:`labelvar.analytic.exact_binary_metrics`) and NaN elsewhere.
    P(accuracy >= t) is exact for the ``all`` stratum when no item is dropped.
    Panel tables enumerate the vote counts (up to 200,000 vote
    compositions); beyond that ``expected`` is NaN. Under a :class:`RaterPanel`
    the accuracy rows' ``expected`` is the exact rater ceiling of
    :func:`labelvar.votes._ceilings.panel_ceilings`.

    A cell's random stream is keyed by the seed and the cell's parameter
    values, so a cell gives bit-identical numbers alone or in any grid, with
    any thread count, serial or parallel. Numbers do depend on the labeller
    list (labellers share the items and the draws are laid out per labeller
    slot) and on the path.

    Examples
    --------
    >>> res = simulate(Coin(p_d=0.9, m=0.1), n_items=100, replicates=2000, seed=1)
    >>> row = res.summary.query("labeller == 'expert' and metric == 'accuracy'").iloc[0]
    >>> bool(abs(row["z"]) < 4), round(float(row["expected"]), 3)
    (True, 0.9)
    >>> sorted(res.summary["metric"].unique()), res.raw is None, res.seed
    (['accuracy', 'f1', 'precision', 'recall'], True, 1)

    Two systems with correlated errors, paired on the same items (McNemar's
    discordant pairs per replicate from the joint counts):

    >>> from labelvar import ModelPair
    >>> res = simulate(Panel(theta=0.8, m=0.3, panel_size=3, positives="bernoulli"),
    ...                [ModelPair(0.85, 0.75, error_correlation=0.2)], n_items=200,
    ...                replicates=500, seed=2, outputs=["joint"])
    >>> j = res.joint[res.joint["stratum"] == "all"]
    >>> a_only = j[(j["A"] == j["truth"]) & (j["B"] != j["truth"])]
    >>> n10 = a_only.groupby("replicate")["count"].sum()
    >>> len(n10), bool(n10.mean() > 0)
    (500, True)
    """
    import pandas as pd

    objs = as_items(items)
    want = _outputs(outputs)
    for name, flag in (("parallel", parallel), ("expected", expected), ("progress", progress)):
        if not (isinstance(flag, (bool, np.bool_)) or (flag is None and name == "parallel")):
            allowed = "True, False or None" if name == "parallel" else "True or False"
            raise ValueError(f"{name} must be {allowed}, got {flag!r}")
    seed = as_seed(seed)  # one int for every object of a list (a Generator draws it once)
    if labellers is not None and any(isinstance(x, RaterPanel) for x in objs):
        raise ValueError("labellers do not apply to a RaterPanel (it scores its expert: "
                         "RaterPanel(expert=...) or skill=...); leave labellers unset")
    labellers = ("expert", "random") if labellers is None else labellers
    results = []
    for obj in objs:
        if isinstance(obj, RaterPanel):
            from labelvar.engine._rater_panels import simulate_rater_panel

            if want["joint"]:
                raise ValueError("outputs: 'joint' needs the collapsed path, which a "
                                 "RaterPanel does not have")
            if method not in ("auto", "explicit"):  # (it simulates every item)
                raise ValueError(f"method must be 'auto' or 'explicit' for a RaterPanel (it "
                                 f"has no collapsed path), got {method!r}")
            results.append(simulate_rater_panel(
                obj, n_items=n_items, replicates=replicates, seed=seed, thresholds=thresholds,
                raw=want["raw"], expected=expected, parallel=parallel))
        else:
            spec = _Spec.build(obj, labellers, n_items, replicates, seed, thresholds, method,
                               joint=want["joint"])
            results.append(_run_spec(spec, want, parallel=parallel, expected=expected,
                                     progress=progress))
    if len(results) == 1:
        return results[0]
    tables = {name: [getattr(r, name) for r in results if getattr(r, name) is not None]
              for name in ("summary", "raw", "joint")}
    return SimulationResult(
        **{name: pd.concat(t, ignore_index=True) if t else None for name, t in tables.items()},
        seed=seed)


def _outputs(outputs) -> dict:
    """``outputs`` as {"raw": bool, "joint": bool}; anything else refused naming it."""
    if outputs is None:
        return {"raw": False, "joint": False}
    if isinstance(outputs, str):
        names = [outputs]
    else:
        try:
            names = list(outputs)
        except TypeError:
            raise ValueError(f"outputs must list 'raw' and/or 'joint', got {outputs!r}") from None
    bad = [x for x in names if x not in ("raw", "joint")]
    if bad:
        raise ValueError(f"outputs must list 'raw' and/or 'joint', got {bad[0]!r}")
    return {"raw": "raw" in names, "joint": "joint" in names}


def _run_spec(spec, want, *, parallel, expected, progress) -> SimulationResult:
    """Every cell of one validated :class:`Coin` / :class:`Panel` grid."""
    import pandas as pd

    kern = None if parallel is None else KERNELS[bool(parallel)]
    cells = spec.cells()
    if progress:
        from tqdm.auto import tqdm

        cells = tqdm(cells, desc="simulate", unit="cell")
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


def _run_cell(cell, spec, key, kern, want_expected, want, fast=True):
    """Simulate one grid cell; return its tables ({"summary", and "raw"/"joint" if wanted})."""
    if isinstance(spec.theta_prior, ItemModel):  # a label distribution per item
        from labelvar.engine._item_models import run_item_model_cell

        return run_item_model_cell(cell, spec, key, None if kern is None else kern.parallel,
                                   want_expected, want)
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
        kern = KERNELS[work >= _PARALLEL_WORK]
    ckey = np.uint64(key)
    strata = Strata(stratum_of_top, n_strata)
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
        mats = [np.asarray(lb.own_matrix(lab, prior)) for lb in spec.labellers]
        lab_rho = np.array([lb.correlation for lb in spec.labellers])
    lab_kind = labeller_kinds(spec.labellers)
    counts = cell.class_counts(spec)
    if path == "collapsed":
        codes = coll.codes
        if want["joint"]:
            joint = np.zeros((spec.replicates, n_strata, len(codes)), dtype=np.int64)
        kern.collapsed(ckey, spec.replicates, cell.n_items, coll.groups, coll.cats, coll.blocks,
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
        kern.binary_fast(ckey, spec.replicates, cell.n_items, K.vote_thresholds(theta, kk),
                int(counts[1]), theta, tie, lab_thr, lab_flip, stratum_of_top, n_strata, out)
    elif lab == 2 and (not panel or kk <= _BINARY_MAX_K) and skills is None:
        lab_p1 = np.ascontiguousarray(np.stack([mt[:, 1] for mt in mats]))
        ktuple = tuple(range(kk)) if panel else (0,)
        vote_thr = np.array(K.vote_thresholds(float(theta_par[0]), kk) if panel
                            and theta_kind == K.THETA_FIXED else [0], dtype=np.uint64)
        kern.binary(ckey, spec.replicates, cell.n_items, ktuple, panel, int(counts[1]), bern,
                    float(prior[1]), ThetaDraw(theta_kind, theta_par, theta_cum), vote_thr, tie,
                    Labellers(lab_kind, lab_p1, lab_rho), strata, out)
    elif symmetric and (sym := _symmetric_tables(table.A[:, 0], mats)) is not None:
        # any L, fixed theta: one alias draw of (stratum, truth, two predictions) per item
        kern.symmetric(ckey, spec.replicates, cell.n_items, counts, *sym, float(theta_par[0]), n_j,
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
        kern.generic(ckey, spec.replicates, cell.n_items, lab, kk if panel else 0, panel,
                     np.cumsum(prior), counts, bern, ThetaDraw(theta_kind, theta_par, theta_cum),
                     comp, hetero, vote_cum, tie, Labellers(lab_kind, lab_cum, lab_rho), strata,
                     out)
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


def labeller_kinds(labellers) -> np.ndarray:
    """The kernels' labeller kinds, from :attr:`labelvar.votes.Labeller.annotator`.

    ``EXPERT``: drawn per item like one more annotator; ``MATRIX``: from its matrix.
    """
    return np.array([K.EXPERT if lb.annotator else K.MATRIX for lb in labellers],
                    dtype=np.int64)


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

