"""The collapsed path draws exactly the distribution of the item-by-item model.

Means against the exact ``expected`` column, variances and covariances of the
confusion counts against exact sums over the items' groups, against the explicit
kernel, and serial == parallel for the factorised kernel (labeller blocks, pooled
blocks, ModelPair blocks, class sizes drawn per replicate).
"""

import numpy as np
import pandas as pd
import pytest

from labelvar._kernels import BINOMIAL_WINDOW
from labelvar.engine._items import Coin, Panel
from labelvar.engine._simulate import simulate
from labelvar.engine._spec import _Spec
from labelvar.engine._tables import _Table, collapsed_inputs
from labelvar.votes._models import Model, ModelPair
from labelvar.votes._priors import BetaPrior

ASYM = Model(sensitivity=0.9, specificity=0.55, name="asym")
CASES = [  # (items, labellers)
    (Panel(theta=0.7, m=0.35, n_labels=2, panel_size=5), ["expert", "random", ASYM]),
    (Panel(theta=0.7, m=0.2, n_labels=2, panel_size=4, tie_rule="drop"),
     ["expert", ModelPair(0.85, 0.7, 0.3, names=("A", "B"))]),
    (Panel(theta=0.7, m=0.35, n_labels=3, panel_size=4, tie_rule=1, positives="bernoulli"),
     ["expert", "random", "prior", "constant"]),
    (Panel(theta=0.7, m=0.35, n_labels=3, panel_size=5), ["expert", Model(accuracy=0.6)]),
    (Panel(theta=0.7, m=0.35, n_labels=2, panel_size=3, skills=[0.9, 0.7, 0.6]), ["expert", ASYM]),
    (Coin(p_d=0.7, m=0.35, n_labels=2, positives="bernoulli"), ["expert", "random", ASYM]),
    (Coin(p_d=0.7, m=0.35, n_labels=3), ["expert", "prior"]),
]


def _run(case, **args):
    items, labellers = case
    return simulate(items, labellers, **{"n_items": 150, **args})


def _spec(case, n_items=150, replicates=3000):
    items, labellers = case
    return _Spec.build(items, labellers, n_items, replicates, 0, (), "collapsed")


@pytest.mark.parametrize("kw", CASES)
def test_means_match_the_exact_expectations(kw):
    df = _run(kw, replicates=3000, seed=4, method="collapsed").summary
    ok = df["expected"].notna() & (df["sd"] > 1e-9)
    assert ok.sum() >= 8 and (df["method"] == "collapsed").all()
    worst = df[ok].loc[df[ok]["z"].abs().idxmax()]
    assert abs(worst["z"]) < 4.5, worst[["labeller", "stratum", "metric", "z"]].tolist()


def _exact_moments(spec):
    """Exact E, Var of each labeller's correct count (stratum "all") and their covariances.

    Given its group (modal class) an item's (stratum, truth) and every labeller block's
    answer are independent; items are independent, in groups of fixed size (or, with
    positives="bernoulli", each item's group drawn from the class prior).
    """
    cell = spec.cells()[0]
    table = _Table(cell, spec)
    n_j = len(spec.labellers)
    a = table.A[:, 0, :-1].sum(axis=1)  # P(truth t, scored | group g): (G, L)
    ok = np.stack([np.einsum("gt,gt->g", a, table.M[j][:, 0]) for j in range(n_j)])  # (J, G)
    both = np.einsum("gt,jgt,kgt->jkg", a, [table.M[j][:, 0] for j in range(n_j)],
                     [table.M[j][:, 0] for j in range(n_j)])
    for ja, jb, _ in spec.pairs:  # a pair's two answers are drawn together
        pair = np.asarray(table.pair_at[ja])[:, 0]  # (g, a, b)
        p11 = np.einsum("gt,gtt->g", a, pair)
        both[ja, jb] = both[jb, ja] = p11
    for j in range(n_j):
        both[j, j] = ok[j]
    if table.group_weights is None:  # fixed group sizes: sums of independent groups
        n_g = table.groups
        mean = ok @ n_g
        cov = np.einsum("g,jkg->jk", n_g, both - ok[:, None, :] * ok[None, :, :])
    else:  # N i.i.d. items, group drawn per item
        w, n = table.group_weights, cell.n_items
        p1, p2 = ok @ w, np.einsum("g,jkg->jk", w, both)
        mean = n * p1
        cov = n * (p2 - np.outer(p1, p1))
    return mean, cov


@pytest.mark.parametrize("kw", [CASES[0], CASES[1], CASES[2], CASES[5]])
def test_count_variances_and_covariances_are_exact(kw):
    """Var and Cov of the labellers' correct counts: the joint draw, not just its means."""
    reps = 20_000
    spec = _spec(kw, replicates=reps)
    raw = _run(kw, replicates=reps, seed=5, method="collapsed", outputs=["raw"],
               expected=False).raw
    raw = raw[raw["stratum"] == "all"]
    names = [lb.name for lb in spec.labellers]
    x = np.stack([raw[raw["labeller"] == nm].sort_values("replicate")["correct"].to_numpy(float)
                  for nm in names])  # (J, R)
    mean, cov = _exact_moments(spec)
    if getattr(kw[0], "tie_rule", None) == "drop":  # a dropped item is in no count: means only
        assert np.all(np.abs(x.mean(axis=1) - mean) < 4.5 * x.std(axis=1) / np.sqrt(reps))
        return
    d = x - x.mean(axis=1, keepdims=True)
    for j in range(len(names)):
        assert abs(x[j].mean() - mean[j]) < 4.5 * np.sqrt(cov[j, j] / reps), names[j]
        for k in range(j, len(names)):
            prod = d[j] * d[k]
            se = prod.std() / np.sqrt(reps)
            assert abs(prod.mean() - cov[j, k]) < 4.5 * se, (names[j], names[k], prod.mean(),
                                                              cov[j, k])


def test_collapsed_and_explicit_variances_agree():
    items = Panel(theta=0.7, m=0.3, n_labels=3, panel_size=5)
    kw = dict(n_items=120, replicates=6000, expected=False)
    col = simulate(items, ["expert", "random"], method="collapsed", seed=1, **kw).summary
    exp = simulate(items, ["expert", "random"], method="explicit", seed=2, **kw).summary
    key = ["labeller", "stratum", "metric"]
    both = col.merge(exp, on=key, suffixes=("_c", "_e"))
    both = both[both["sd_c"] > 0]
    assert len(both) >= 30
    # sd of a sample sd ~ sd / sqrt(2 R) for near-normal metrics
    se = np.hypot(both["sd_c"] / np.sqrt(2 * both["replicates_c"]),
                  both["sd_e"] / np.sqrt(2 * both["replicates_e"]))
    z = (both["sd_c"] - both["sd_e"]) / se
    assert z.abs().max() < 4.5, both.loc[z.abs().idxmax(), key].tolist()


@pytest.mark.parametrize("kw", [CASES[1], CASES[2], CASES[5]])
def test_factorised_serial_equals_parallel(kw):
    args = dict(n_items=90, replicates=300, seed=8, method="collapsed", outputs=["raw"],
                expected=False)
    a = _run(kw, parallel=True, **args).raw
    b = _run(kw, parallel=False, **args).raw
    pd.testing.assert_frame_equal(a, b)


def test_factorised_and_folded_inputs():
    """Fixed theta: one block per labeller (a pair: one block), the random one pooled."""
    spec = _spec((CASES[1][0], ["expert", "random", ModelPair(0.8, 0.7, names=("A", "B"))]))
    cell = spec.cells()[0]
    table = _Table(cell, spec)
    coll = collapsed_inputs(table, spec, cell)
    b_lab, b_pred, _, _, _, b_shared = coll.blocks
    assert b_lab.tolist() == [[0, -1], [1, -1], [2, 3]] and b_shared.tolist() == [0, 1, 0]
    assert coll.cats[5].shape[1] == 0  # no folded predictions
    # categories: (stratum slot, truth); dropped ties are stratum -1
    order, _, length, stratum = coll.cats[:4]
    reached = np.concatenate([order[g, :length[g]] for g in range(len(length))])
    assert set(stratum[reached].tolist()) == {-1, 1, 2}
    assert coll.draws > 0 and coll.plan[5].shape[1] == BINOMIAL_WINDOW
    # joint output or a theta prior: the joint outcome table, no blocks
    assert collapsed_inputs(table, spec, cell, joint=True).blocks[0].shape[0] == 0
    prior = _Spec.build(Panel(theta_prior=BetaPrior(3, 1), m=0.35, panel_size=4), ["expert"],
                        150, 10, 0, (), "collapsed")
    pcell = prior.cells()[0]
    assert collapsed_inputs(_Table(pcell, prior), prior, pcell).blocks[0].shape[0] == 0


@pytest.mark.parametrize("mode", ["coin", "panel"])
@pytest.mark.parametrize("p_d", [0.0, 1.0])
def test_cells_without_a_random_draw(mode, p_d):
    """p_d = 0 or 1 with a lone expert: no binomial step at all (an empty plan), exact."""
    if mode == "panel" and p_d == 0.0:
        p_d = 0.5  # panel mode needs theta >= 1/L
    items = Coin(p_d=p_d) if mode == "coin" else Panel(theta=p_d, panel_size=3)
    res = simulate(items, ("expert",), n_items=10, replicates=50, method="collapsed")
    acc = res.summary[(res.summary["metric"] == "accuracy") & (res.summary["stratum"] == "all")]
    assert acc["method"].eq("collapsed").all()
    if mode == "coin":  # accuracy is p_d itself, every replicate
        assert acc["mean"].iloc[0] == p_d and acc["sd"].iloc[0] == 0.0
    else:
        assert acc["mean"].iloc[0] == pytest.approx(acc["expected"].iloc[0], abs=0.1)


@pytest.mark.parametrize("method", ["collapsed", "auto"])
def test_classes_without_items_are_simulated(method):
    """N = 10 items over L = 10 classes: most classes have no item (a crash before)."""
    with np.errstate(all="raise"):
        res = simulate(Panel(theta=0.7, panel_size=5, n_labels=10, m=0.5), n_items=10,
                       replicates=4000, seed=3, method=method)
    acc = res.summary[res.summary["metric"] == "accuracy"]
    assert len(acc) and acc["expected"].notna().all()
    assert (acc["z"].abs() < 4.5).all(), acc[["labeller", "stratum", "mean", "expected", "z"]]
