"""Panels drawn from a fitted or stated rater model: an expert's accuracy per agreement bin.

:func:`labelvar.engine.simulate` with a :class:`labelvar.engine.RaterPanel` draws, per
replicate, ``n_items`` items from a :class:`labelvar.votes._raters.RaterModel`: truth
z ~ ``log_prior``, difficulty node g ~ ``log_weights``, each panel rater j's vote ~
``exp(log_conf[j, g, z])`` (a rater not in
the model: ``population_log_conf``), the expert's label the same way; the panel's
plurality (tie rule ``"random"`` or ``"drop"``) is the
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
from labelvar.engine._spec import MAX_ITEM_REPLICATES
from labelvar.votes import _panel

_PARALLEL_WORK = 2_000_000  # draws from which the parallel kernel is used (as simulate's)


def simulate_rater_panel(items, *, n_items, replicates, seed, thresholds, raw, expected,
                         parallel) -> SimulationResult:
    r""":func:`labelvar.engine.simulate` for a :class:`labelvar.engine.RaterPanel`.

    Validates the panel (model, raters, expert or skill, tie rule) and the options, refuses
    a request over :data:`MAX_ITEM_REPLICATES` simulated items before any work, then runs
    the kernel. The ``summary`` has :func:`simulate`'s columns: ``labeller`` = the expert
    (its id, ``"population"`` or ``"skill"``), ``stratum`` = ``"all"`` or the panel's
    agreement (``"0.60"``), ``mode = "raters"``, ``panel_size`` = K, ``n_labels`` = L,
    ``positives = "bernoulli"`` (truth drawn per item), ``p_d``, ``theta`` and ``m`` NaN,
    ``theta_prior`` the panel's ids joined by commas, ``method = "explicit"``; no
    ``theta`` rows.

    Notes
    -----
    Given the number of items in a bin, they are i.i.d. from the bin's law, so the mean
    over replicates (with a non-empty bin) of the bin's accuracy estimates the exact
    :math:`E_b` of :func:`labelvar.votes._ceilings.panel_ceilings`; the ``all`` row (a
    fixed number of items with ``tie_rule="random"``) estimates :math:`\sum_b P(b) E_b`.

    Examples
    --------
    >>> from labelvar import RaterPanel, simulate
    >>> from labelvar.votes._raters import RaterModel
    >>> m = RaterModel.from_skill([{"accuracy": 0.9}, {"accuracy": 0.8}, {"accuracy": 0.7},
    ...                            {"accuracy": 0.85}], raters=["a", "b", "c", "e"])
    >>> res = simulate(RaterPanel(m, raters=["a", "b", "c"], expert="e"), n_items=200,
    ...                replicates=400, seed=1)
    >>> acc = res.summary[res.summary.metric == "accuracy"].set_index("stratum")
    >>> bool(abs(acc.loc["all", "z"]) < 4), round(float(acc.loc["all", "expected"]), 4)
    (True, 0.7814)
    """
    model, raters, expert = items.model, items.raters, items.expert
    skill, tie_rule = items.skill, items.tie_rule
    from labelvar.engine._summary import _raw_table, _summarise, _summary_frame
    from labelvar.votes._ceilings import _panel_ids, panel_ceilings
    from labelvar.votes._raters import RaterFit

    if isinstance(model, RaterFit):
        model = model.model
    if not all(hasattr(model, a) for a in ("log_conf", "population_log_conf", "log_prior")):
        raise ValueError(f"RaterPanel.model must be a RaterModel or RaterFit, got "
                         f"{type(model).__name__}")
    if isinstance(expert, (dict, list, tuple, np.ndarray)):
        raise ValueError("RaterPanel.expert is a rater id; a stated skill (a dict or an L x L "
                         "matrix) goes in RaterPanel.skill")
    if expert is not None and skill is not None:
        raise ValueError("RaterPanel takes expert (a rater id) or skill (a stated skill), "
                         "not both")
    V.choice("RaterPanel.tie_rule", tie_rule, ("random", "drop"))
    n_items = int(V.single("n_items", V.integer("n_items", n_items, lo=1)))
    replicates = int(V.single("replicates", V.integer("replicates", replicates, lo=1)))
    if float(n_items) * replicates > MAX_ITEM_REPLICATES:
        raise ValueError(f"n_items={n_items} x replicates={replicates} simulated items is more "
                         f"than {MAX_ITEM_REPLICATES:.0e} (hours of work); use fewer replicates "
                         f"or fewer n_items")
    thr = tuple(float(t) for t in np.atleast_1d(V.probability("thresholds", list(thresholds))))
    seed = as_seed(seed)
    if raters is None:
        raters = [r for r in getattr(model, "raters", ()) if r != expert]
        if not raters:
            raise ValueError("RaterPanel.raters is needed: the model has no fitted raters "
                             "besides the expert (give rater ids or a panel size K)")
    ids, same = _panel_ids(model, raters)
    if expert is not None and expert in ids:
        raise ValueError(f"RaterPanel.expert {expert!r} is in the panel; the panel is the "
                         f"other raters")
    name = "skill" if skill is not None else "population" if expert is None else str(expert)
    L, K = len(model.labels), len(ids)
    labels, stratum_of_top = _panel.strata(K, L, tie_rule)
    n_strata = 1 + len(labels)
    V.memory(f"the RaterPanel output ({replicates} replicates x {n_strata} strata)",
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
        ceil = panel_ceilings(model, raters=list(ids) if not isinstance(raters, (int, np.integer))
                              else raters, target=expert, skill=skill, tie_rule=tie_rule).table
        rows = ceil[ceil.ceiling == "rater"].set_index("stratum")["expected"]
        exp = {(0, s, "accuracy", None): float(rows[st]) for s, st in enumerate(strata)
               if st in rows.index}
    spec = types.SimpleNamespace(thresholds=thr)
    table = _summarise(out, [name], strata, spec, exp, True, "explicit", theta_ok=False)
    params = {"p_d": np.nan, "theta": np.nan, "m": np.nan, "n_items": n_items, "n_labels": L, "panel_size": K,
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
    # (the old function name stays in the key: the same streams as before)
    h = hashlib.blake2b(repr(("labelvar.simulate_raters/1", seed, n_items, tie_rule)).encode(),
                        digest_size=8)
    for a in arrays:
        h.update(repr(a.shape).encode())
        h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
    return int.from_bytes(h.digest(), "little")
