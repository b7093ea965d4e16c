"""simulate(RaterPanel(...)): panels drawn from a rater model, against panel_ceilings' exact E_b."""

import numba
import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from labelvar.engine._items import RaterPanel
from labelvar.engine._simulate import simulate
from labelvar.engine._summary import SUMMARY_COLUMNS
from labelvar.votes._ceilings import panel_ceilings
from labelvar.votes._raters import RaterModel


def _difficulty_model(n_labels, abilities, sigma=1.2, n_nodes=5, prior=None):
    """A fitted-like model: logit^-1(a_{j,z} - beta_g) right, errors split unevenly, G nodes."""
    L = n_labels
    x, w = np.polynomial.hermite_e.hermegauss(n_nodes)
    w = w / w.sum()
    nodes = sigma * x
    a = np.asarray(abilities, dtype=float)  # (J, L)
    J = a.shape[0]
    conf = np.empty((J, n_nodes, L, L))
    share = np.arange(1, L + 1, dtype=float)  # wrong votes lean to higher labels
    for j in range(J):
        for z in range(L):
            err = share.copy()
            err[z] = 0.0
            err /= err.sum()
            right = expit(a[j, z] - nodes)
            conf[j, :, z, :] = (1 - right)[:, None] * err[None, :]
            conf[j, :, z, z] = right
    pri = np.full(L, 1.0 / L) if prior is None else np.asarray(prior, dtype=float)
    raters = tuple(f"r{j}" for j in range(J))
    return RaterModel(tuple(range(L)), raters, np.log(pri), nodes, np.log(w), np.log(conf),
                      np.log(conf.mean(axis=0)))


def _check_against_exact(res, model, panel, **target):
    acc = res.summary[res.summary.metric == "accuracy"].set_index("stratum")
    tie = res.summary.tie_rule.iloc[0]
    exact = panel_ceilings(model, raters=panel, tie_rule=tie, **target).table
    exact = exact[exact.ceiling == "rater"].set_index("stratum")["expected"]
    assert set(acc.index) == set(exact.index)
    for stratum, row in acc.iterrows():
        assert row.expected == pytest.approx(exact[stratum], abs=1e-12)
        assert row.replicates > 100
        assert abs(row.z) < 4, (stratum, row.mean, row.expected, row.z)
    return acc


def test_binary_difficulty_fitted_expert_matches_exact_bins():
    m = _difficulty_model(2, [[1.5, 2.5], [2.0, 1.0], [0.8, 1.2], [3.0, 2.0], [1.2, 1.8]],
                          prior=[0.7, 0.3])
    panel = ["r0", "r1", "r2", "r4"]
    res = simulate(RaterPanel(m, raters=panel, expert="r3", tie_rule="drop"), n_items=80,
                   replicates=3000, seed=11)
    acc = _check_against_exact(res, m, panel, target="r3")
    assert list(acc.index) == ["all", "0.75", "1.00"]
    # the bins differ by far more than the noise: the check can fail
    assert acc.loc["1.00", "expected"] - acc.loc["0.75", "expected"] > 10 * acc.loc["1.00", "se"]
    assert list(res.summary.columns) == list(SUMMARY_COLUMNS)
    assert (res.summary["mode"] == "raters").all() and (res.summary.panel_size == 4).all()


def test_binary_random_ties_population_panel_and_stated_expert():
    m = _difficulty_model(2, [[1.5, 2.5], [2.0, 1.0], [0.8, 1.2]])
    skill = {"sensitivity": 0.85, "specificity": 0.75}
    res = simulate(RaterPanel(m, raters=4, skill=skill), n_items=60, replicates=3000, seed=5)
    acc = _check_against_exact(res, m, 4, skill=skill)
    assert list(acc.index) == ["all", "0.50", "0.75", "1.00"]
    assert (acc.labeller == "skill").all()


def test_three_labels_difficulty_matches_exact_bins():
    m = _difficulty_model(3, [[1.5, 2.5, 1.0], [2.0, 1.0, 1.5], [0.8, 1.2, 2.0], [2.5, 2.0, 1.5]],
                          sigma=1.0, n_nodes=4, prior=[0.5, 0.3, 0.2])
    panel = ["r0", "r1", "r2"]
    res = simulate(RaterPanel(m, raters=panel, expert="r3"), n_items=80, replicates=3000, seed=2)
    acc = _check_against_exact(res, m, panel, target="r3")
    assert list(acc.index) == ["all", "0.33", "0.67", "1.00"]
    # an unseen expert (the population rater) and tie_rule="drop"
    res = simulate(RaterPanel(m, raters=panel, expert="newcomer", tie_rule="drop"), n_items=80,
                   replicates=3000, seed=3)
    acc = _check_against_exact(res, m, panel, target="newcomer")
    assert list(acc.index) == ["all", "0.67", "1.00"] and (acc.labeller == "newcomer").all()


def test_deterministic_serial_parallel_and_threads():
    m = _difficulty_model(3, [[1.5, 2.5, 1.0], [2.0, 1.0, 1.5], [0.8, 1.2, 2.0], [2.5, 2.0, 1.5]])
    items = RaterPanel(m, raters=["r0", "r1", "r2"], expert="r3")
    kw = dict(n_items=40, replicates=300, seed=9, outputs=["raw"])
    serial = simulate(items, parallel=False, **kw)
    threads = numba.get_num_threads()
    try:
        for n in {1, min(2, numba.config.NUMBA_NUM_THREADS)}:
            numba.set_num_threads(n)
            par = simulate(items, parallel=True, **kw)
            pd.testing.assert_frame_equal(par.raw, serial.raw, check_exact=True)
            pd.testing.assert_frame_equal(par.summary, serial.summary, check_exact=True)
    finally:
        numba.set_num_threads(threads)
    other = simulate(items, parallel=False, **{**kw, "seed": 10})
    assert not other.raw["correct"].equals(serial.raw["correct"])
    # the first replicates of a run are those of a shorter run
    short = simulate(items, parallel=False, **{**kw, "replicates": 50})
    first = serial.raw[serial.raw.replicate < 50].reset_index(drop=True)
    pd.testing.assert_frame_equal(short.raw, first, check_exact=True)


@pytest.mark.parametrize("panel, kw, message", [
    (dict(expert="r0", skill={"accuracy": 0.8}), {}, "expert .* or skill .*, not both"),
    (dict(expert="r1"), {}, "expert 'r1' is in the panel"),
    (dict(expert={"accuracy": 0.8}), {}, "RaterPanel.skill"),
    (dict(tie_rule="first"), {}, "tie_rule"),
    ({}, dict(n_items=0), "n_items"),
    ({}, dict(replicates=-1), "replicates"),
    ({}, dict(seed=-3), "seed"),
    ({}, dict(thresholds=[1.5]), "thresholds"),
    ({}, dict(outputs=["joint"]), "joint"),
    ({}, dict(labellers=["expert"]), "labellers do not apply"),
])
def test_bad_inputs_refused_in_one_line(panel, kw, message):
    m = _difficulty_model(2, [[1.5, 2.5], [2.0, 1.0], [0.8, 1.2]])
    with pytest.raises(ValueError, match=message) as err:
        simulate(RaterPanel(m, raters=["r1", "r2"], **panel),
                 **{"n_items": 5, "replicates": 5, **kw})
    assert "\n" not in str(err.value)


def test_huge_requests_refused_before_any_work():
    """n_items=1e7 x replicates=1e6 (issue 31): refused at once, naming both arguments."""
    import time

    m = _difficulty_model(2, [[1.5, 2.5], [2.0, 1.0], [0.8, 1.2]])
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"n_items=10000000 x replicates=1000000") as err:
        simulate(RaterPanel(m, raters=["r1", "r2"]), n_items=1e7, replicates=1e6)
    assert time.perf_counter() - t0 < 5 and "\n" not in str(err.value)


def test_bad_model_and_panel_refused():
    with pytest.raises(ValueError, match="model must be a RaterModel"):
        simulate(RaterPanel("model", raters=3), n_items=5, replicates=5)
    m = _difficulty_model(2, [[1.5, 2.5], [2.0, 1.0]])
    with pytest.raises(ValueError, match="panel"):
        simulate(RaterPanel(m, raters="r0"), n_items=5, replicates=5)
    with pytest.raises(ValueError, match="raters names a rater twice"):
        simulate(RaterPanel(m, raters=["r0", "r0"]), n_items=5, replicates=5)


def test_default_raters_are_the_fitted_ones_but_the_expert():
    m = _difficulty_model(2, [[1.5, 2.5], [2.0, 1.0], [0.8, 1.2], [3.0, 2.0]])
    kw = dict(n_items=30, replicates=200, seed=4)
    direct = simulate(RaterPanel(m, raters=["r0", "r1", "r2"], expert="r3", tie_rule="drop"), **kw)
    via = simulate(RaterPanel(m, expert="r3", tie_rule="drop"), **kw)
    pd.testing.assert_frame_equal(via.summary, direct.summary, check_exact=True)
    assert (via.summary["theta_prior"] == "r0,r1,r2").all()


def test_a_list_of_item_objects_stacks_their_rows():
    from labelvar.engine._items import Coin

    m = _difficulty_model(2, [[1.5, 2.5], [2.0, 1.0], [0.8, 1.2], [3.0, 2.0]])
    kw = dict(n_items=30, replicates=200, seed=4)
    both = simulate([RaterPanel(m, expert="r3"), Coin(p_d=0.8)], **kw).summary
    alone = [simulate(RaterPanel(m, expert="r3"), **kw).summary,
             simulate(Coin(p_d=0.8), ["expert", "random"], **kw).summary]
    pd.testing.assert_frame_equal(both, pd.concat(alone, ignore_index=True))
