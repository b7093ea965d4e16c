"""Panels drawn from a fitted or stated rater model: an expert's accuracy per agreement bin.

:func:`simulate_raters` draws, per replicate, ``n_items`` items from a
:class:`labelvar.RaterModel`: truth z ~ ``log_prior``, difficulty node g ~
``log_weights``, each panel rater j's vote ~ ``exp(log_conf[j, g, z])`` (a rater not in
the model: ``population_log_conf``), the expert's label the same way; the panel's
plurality (tie rule ``"random"`` or ``"drop"``, as :func:`labelvar.simulate`) is the
reference and the panel's agreement (top votes / K) the stratum. The kernel is
:func:`labelvar._kernels.rater_panels.rater_panels` (counter-based, identical on any
thread count); the ``expected`` column is :func:`labelvar.panel_ceilings`'
exact ``rater`` ceiling of the same panel and expert.
"""

from __future__ import annotations

import hashlib
import types

import numpy as np

from labelvar._base import _validate as V
from labelvar._base._seeding import as_seed
from labelvar._kernels import N_FIELDS, TIE_DROP, TIE_RANDOM
from labelvar._kernels import rater_panels as RK
from labelvar.engine._result import SimulationResult
from labelvar.votes import _panel

_PARALLEL_WORK = 2_000_000  # draws from which the parallel kernel is used (as simulate's)


def simulate_raters(model, panel, *, expert=None, skill=None, n_items=100, replicates=10_000,
                    seed=0, tie_rule="random", thresholds=(), raw=False, expected=True,
                    parallel=None) -> SimulationResult:
    r"""Simulate an expert against the plurality of a panel drawn from a rater model.

    Parameters
    ----------
    model : RaterModel or RaterFit
        Fitted (:func:`labelvar.fit_raters`, with item difficulty or without) or stated
        (:meth:`labelvar.RaterModel.from_skill`).
    panel : sequence of rater ids, or int K
        The panel raters (ids not in the model are population raters: fresh raters of
        the fitted population); an int is K population raters.
    expert : rater id, optional
        The expert: a fitted rater (not in ``panel``) or any other id (a population
        rater). Default: the population rater.
    skill : dict or array, optional
        A stated expert instead of ``expert``: ``{"sensitivity": s, "specificity": t}``,
        ``{"accuracy": a}`` or an L x L confusion matrix (rows: truth); with difficulty
        it is met as :meth:`RaterModel.rater_log_conf <labelvar.RaterModel>` does.
    n_items : int
        Items per replicate (>= 1).
    replicates : int
        Monte Carlo replicates (>= 1).
    seed : int, numpy.random.Generator or None
        As :func:`labelvar.simulate` (the int used is in the ``seed`` column).
    tie_rule : {"random", "drop"}
        A tied panel plurality goes to a random tied label, or the item is left out.
    thresholds : sequence of float
        Adds ``prob_accuracy_ge`` / ``prob_f1_ge`` rows, as :func:`labelvar.simulate`.
    raw : bool
        Also return the per-replicate table.
    expected : bool
        Fill ``expected`` (and ``z``) of the accuracy rows from
        :func:`labelvar.panel_ceilings` (exact; NaN when the panel's joint
        votes cannot be enumerated).
    parallel : bool or None
        The ``prange`` kernel (False: its serial twin; identical numbers). None: by size.

    Returns
    -------
    SimulationResult
        ``summary`` has :func:`labelvar.simulate`'s columns (``SUMMARY_COLUMNS``), so its
        summaries and plots read it: ``labeller`` = the expert (its id, ``"population"``
        or ``"skill"``), ``stratum`` = ``"all"`` or the panel's agreement (``"0.60"``),
        ``mode = "raters"``, ``panel_size`` = K, ``n_labels`` = L, ``positives =
        "bernoulli"`` (truth drawn per item), ``p_d`` and ``m`` NaN, ``theta_prior`` the
        panel's ids joined by commas, ``method = "explicit"``; no ``theta`` rows.

    Notes
    -----
    Given the number of items in a bin, they are i.i.d. from the bin's law, so the mean
    over replicates (with a non-empty bin) of the bin's accuracy estimates the exact
    :math:`E_b` of :func:`labelvar.panel_ceilings`; the ``all`` row (a fixed
    number of items with ``tie_rule="random"``) estimates :math:`\sum_b P(b) E_b`.

    Examples
    --------
    >>> from labelvar import RaterModel
    >>> m = RaterModel.from_skill([{"accuracy": 0.9}, {"accuracy": 0.8}, {"accuracy": 0.7},
    ...                            {"accuracy": 0.85}], raters=["a", "b", "c", "e"])
    >>> res = simulate_raters(m, ["a", "b", "c"], expert="e", n_items=200, replicates=400, seed=1)
    >>> acc = res.summary[res.summary.metric == "accuracy"].set_index("stratum")
    >>> bool(abs(acc.loc["all", "z"]) < 4), round(float(acc.loc["all", "expected"]), 4)
    (True, 0.7814)
    """
    from labelvar.engine._summary import _raw_table, _summarise, _summary_frame
    from labelvar.votes._ceilings import _panel_ids, panel_ceilings
    from labelvar.votes._raters import RaterFit

    if isinstance(model, RaterFit):
        model = model.model
    if not all(hasattr(model, a) for a in ("log_conf", "population_log_conf", "log_prior")):
        raise ValueError(f"model must be a RaterModel or RaterFit, got {type(model).__name__}")
    if expert is not None and skill is not None:
        raise ValueError("give expert (a rater id) or skill (a stated skill), not both")
    V.choice("tie_rule", tie_rule, ("random", "drop"))
    n_items = int(V.single("n_items", V.integer("n_items", n_items, lo=1)))
    replicates = int(V.single("replicates", V.integer("replicates", replicates, lo=1)))
    thr = tuple(float(t) for t in np.atleast_1d(V.probability("thresholds", list(thresholds))))
    seed = as_seed(seed)
    ids, same = _panel_ids(model, panel)
    if expert is not None and expert in ids:
        raise ValueError(f"expert {expert!r} is in the panel; the panel is the other raters")
    name = "skill" if skill is not None else "population" if expert is None else str(expert)
    L, K = len(model.labels), len(ids)
    labels, stratum_of_top = _panel.strata(K, L, tie_rule)
    n_strata = 1 + len(labels)
    V.memory(f"simulate_raters output ({replicates} replicates x {n_strata} strata)",
             8.0 * replicates * n_strata * N_FIELDS * (2 if raw else 1), "use fewer replicates")
    panel_conf = np.exp(np.stack([model.rater_log_conf(r) for r in ids]))  # (K, G, z, l)
    expert_conf = np.exp(model.rater_log_conf(expert, skill))  # (G, z, l)
    prior_cum = np.cumsum(np.exp(model.log_prior))
    weight_cum = np.cumsum(np.exp(model.log_weights))
    panel_cum = np.ascontiguousarray(np.cumsum(panel_conf, axis=-1))
    expert_cum = np.ascontiguousarray(np.cumsum(expert_conf, axis=-1))
    key = _key(seed, n_items, tie_rule, prior_cum, weight_cum, panel_cum, expert_cum)
    tie = TIE_RANDOM if tie_rule == "random" else TIE_DROP
    if parallel is None:
        parallel = replicates * n_items * (K + 4) >= _PARALLEL_WORK
    kern = RK.rater_panels if parallel else RK.rater_panels_serial
    out = np.empty((replicates, 1, n_strata, N_FIELDS))
    kern(np.uint64(key), replicates, n_items, prior_cum, weight_cum, panel_cum, expert_cum, tie,
         stratum_of_top, n_strata, out)
    strata = ["all"] + labels
    exp = None
    if expected and (same or _enumerable(K, L)):
        ceil = panel_ceilings(model, panel=list(ids) if not isinstance(panel, (int, np.integer))
                              else panel, target=expert, skill=skill, tie_rule=tie_rule).table
        rows = ceil[ceil.ceiling == "rater"].set_index("stratum")["expected"]
        exp = {(0, s, "accuracy", None): float(rows[st]) for s, st in enumerate(strata)
               if st in rows.index}
    spec = types.SimpleNamespace(thresholds=thr)
    table = _summarise(out, [name], strata, spec, exp, True, "explicit", theta_ok=False)
    params = {"p_d": np.nan, "m": np.nan, "n_items": n_items, "n_labels": L, "panel_size": K,
              "mode": "raters", "theta_prior": ",".join(map(str, ids)), "tie_rule": tie_rule,
              "positives": "bernoulli", "method": "explicit"}
    summary = _summary_frame([(table, params)], seed)
    raw_table = None
    if raw:
        raw_table = _raw_table(out, [name], strata, "explicit", theta=False)
        for c, v in params.items():
            if c != "method":
                raw_table[c] = v
    return SimulationResult(summary=summary, raw=raw_table, seed=seed)


def _enumerable(K, L) -> bool:
    try:
        _panel.check_enumerable(K, L, joint=True)
    except ValueError:
        return False
    return True


def _key(seed, n_items, tie_rule, *arrays) -> int:
    """Stable 64-bit key: the seed and everything that changes the draws."""
    h = hashlib.blake2b(repr(("labelvar.simulate_raters/1", seed, n_items, tie_rule)).encode(),
                        digest_size=8)
    for a in arrays:
        h.update(repr(a.shape).encode())
        h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
    return int.from_bytes(h.digest(), "little")


#: the arguments of :func:`labelvar.simulate` that apply to rater panels
_SIMULATE_SHARED = ("n_items", "replicates", "seed", "thresholds", "tie_rule", "raw", "expected",
                    "parallel")


def from_simulate(args: dict, defaults: dict) -> SimulationResult:
    """:func:`labelvar.simulate` with ``panel=``: refuse the arguments that do not apply, run.

    ``args`` are simulate's arguments (its ``locals()``), ``defaults`` its defaults; any
    other argument not at its default is refused (one line naming them), as is ``expert`` / ``panel_raters``
    without ``panel``.
    """
    if args["panel"] is None:
        raise ValueError("expert= and panel_raters= need panel=<RaterModel or RaterFit> "
                         "(the rater model the panels are drawn from)")
    shared = _SIMULATE_SHARED + ("panel", "panel_raters", "expert", "progress")
    bad = [k for k, v in args.items() if k in defaults and k not in shared
           and not _same(v, defaults[k])]
    if bad:
        raise ValueError(f"simulate(panel=<rater model>) draws items from the rater model; "
                         f"{', '.join(bad)} do not apply (only {', '.join(_SIMULATE_SHARED)})")
    model = args["panel"]
    model = getattr(model, "model", model)  # a RaterFit's RaterModel
    expert = args["expert"]
    skill = None
    if isinstance(expert, dict) or isinstance(expert, (list, np.ndarray)):
        skill, expert = expert, None
    raters = args["panel_raters"]
    if raters is None:
        raters = [r for r in getattr(model, "raters", ()) if r != expert]
        if not raters:
            raise ValueError("panel_raters is needed: the model has no fitted raters besides "
                             "the expert (give rater ids or a panel size K)")
    tie = args["tie_rule"]
    return simulate_raters(model, raters, expert=expert, skill=skill, n_items=args["n_items"],
                           replicates=args["replicates"], seed=args["seed"],
                           tie_rule=tie, thresholds=args["thresholds"], raw=args["raw"],
                           expected=args["expected"], parallel=args["parallel"])


def _same(value, default) -> bool:
    try:
        return bool(value == default) if not isinstance(value, np.ndarray) else False
    except (TypeError, ValueError):
        return False
