"""labelvar.engine._tables: exact outcome tables, alias tables, expectations, ModelPair cells."""

import itertools

import numpy as np
import pytest

from labelvar.engine._items import Coin, Panel
from labelvar.engine._spec import _Spec
from labelvar.engine._tables import _alias_table, _composition_tables, _ratio_means, _Table
from labelvar.votes._models import ModelPair


def test_alias_table_reproduces_probabilities():
    rng = np.random.default_rng(0)
    for n in (1, 2, 7, 56, 500):
        p = rng.dirichlet(np.ones(n) * 0.3)
        prob, alias = _alias_table(p)
        implied = prob.copy()
        np.add.at(implied, alias, 1.0 - prob)
        assert np.allclose(implied / n, p, atol=1e-12)
    acc, alias, comp, info = _composition_tables(3, 4, 0.6)
    assert (comp.sum(axis=1) == 4).all() and len(comp) == 15
    top = comp.max(axis=1)
    assert (info[:, 0] == top).all()
    assert (info[:, 1] == (comp == top[:, None]).sum(axis=1)).all()
    assert (comp[np.arange(len(comp)), info[:, 2]] == top).all()


def _table(labellers, **kw):
    """A one-cell spec (a Panel unless ``mode="coin"``; ``p_d`` is the coin's or the theta)."""
    args = dict(p_d=None, m=0.3, n_labels=2, panel_size=3, theta_prior=("beta", 3, 1),
                tie_rule="random", positives="bernoulli")
    args.update(kw)
    n_items = args.pop("n_items", 100)
    if args.pop("mode", "panel") == "coin":
        items = Coin(p_d=args["p_d"], m=args["m"], n_labels=args["n_labels"],
                     positives=args["positives"])
    else:
        items = Panel(theta=args.pop("p_d"), **args)
    spec = _Spec.build(items, labellers, n_items, 1, 0, (), "auto")
    table = _Table(spec.cells()[0], spec)
    return spec, table, table.cells(len(spec.labellers))


def _dense(cells, n_lab, n_cols):
    """P(truth, predictions...) summed over strata (dropped excluded), shape (L,) * (1 + J)."""
    probs, stratum, _, _, _, code = cells
    out = np.zeros(n_lab ** (1 + n_cols))
    keep = stratum >= 0
    np.add.at(out, code[keep], probs.sum(axis=0)[keep])
    return out.reshape((n_lab,) * (1 + n_cols))


@pytest.mark.parametrize("n_labels,rho", [(2, 0.0), (2, 0.35), (3, -0.2)])
def test_pair_cells_have_the_pair_joint_and_model_marginals(n_labels, rho):
    pair = ModelPair(0.8, 0.65, error_correlation=rho, names=("A", "B"))
    spec, table, cells = _table([pair], n_labels=n_labels)
    assert [lb.name for lb in spec.labellers] == ["A", "B"]
    joint = _dense(cells, n_labels, 2)  # (truth, A, B)
    assert joint.sum() == pytest.approx(1.0, abs=1e-12)
    # each member's margin is what a lone Model gives (the exact expectations use it)
    for j, member in enumerate(pair.members):
        _, _, lone = _table([member], n_labels=n_labels)
        assert np.allclose(joint.sum(axis=2 - j), _dense(lone, n_labels, 1), atol=1e-12)
    # against the modal label (not the truth): P(both right) and the phi coefficient
    _, _, modal = _table([pair], n_labels=n_labels, theta_prior=1.0)  # truth = modal label
    jm = _dense(modal, n_labels, 2)
    both = sum(jm[c, c, c] for c in range(n_labels))
    assert both == pytest.approx(pair.p_both_correct, abs=1e-12)
    qa, qb = 0.8, 0.65
    phi = (both - qa * qb) / np.sqrt(qa * (1 - qa) * qb * (1 - qb))
    assert phi == pytest.approx(rho, abs=1e-12)


def test_codes_number_truth_and_predictions():
    spec, table, cells = _table(["expert", "random"], n_labels=3, theta_prior=None, p_d=0.6)
    _, _, truth, pred, _, code = cells
    want = np.ravel_multi_index((truth, pred[:, 0], pred[:, 1]), (3, 3, 3))
    assert (code == want).all()


def test_ratio_means_match_enumeration():
    """E[sum A B / sum A; sum A > 0] of independent items, by enumerating every outcome."""
    n = np.array([3, 2, 0])  # items per group (an empty group too)
    a = np.array([[0.3, 0.8, 0.5], [0.0, 0.6, 0.5], [1.0, 0.2, 0.5], [0.0, 0.0, 0.5]])
    ab = a * np.array([[0.5, 0.25, 1.0], [0.0, 0.9, 1.0], [0.7, 1.0, 1.0], [0.0, 0.0, 1.0]])
    group = np.repeat(np.arange(3), n)
    for row, got in enumerate(_ratio_means(n, a, ab)):
        want = 0.0
        # per item: A = 0, (A, not B), (A, B)
        for outcome in itertools.product(range(3), repeat=len(group)):
            p = np.prod([(1 - a[row, g], a[row, g] - ab[row, g], ab[row, g])[o]
                         for g, o in zip(group, outcome)])
            n_a = sum(o > 0 for o in outcome)
            want += p * (sum(o == 2 for o in outcome) / n_a if n_a else 0.0)
        assert got == pytest.approx(want, rel=1e-12, abs=1e-15), row


def test_ratio_means_with_double_terms_match_enumeration():
    """F1's form, 2 TP / (2 TP + FP + FN): D = 2 (N = 2) on TP, D = 1 (N = 0) on FP or FN."""
    n = np.array([2, 3, 0])
    tp = np.array([[0.3, 0.1, 0.5], [0.0, 0.6, 0.5], [0.5, 0.0, 0.2], [1.0, 0.25, 0.0]])
    err = np.array([[0.2, 0.6, 0.1], [0.7, 0.0, 0.1], [0.5, 0.3, 0.2], [0.0, 0.75, 0.0]])
    zero = np.zeros(tp.shape)
    got = _ratio_means(n, err, zero, tp, 2.0 * tp)
    group = np.repeat(np.arange(3), n)
    for row in range(len(tp)):
        want = 0.0
        for outcome in itertools.product(range(3), repeat=len(group)):  # none, error, TP
            p = np.prod([(1 - tp[row, g] - err[row, g], err[row, g], tp[row, g])[o]
                         for g, o in zip(group, outcome)])
            n_tp, n_err = outcome.count(2), outcome.count(1)
            want += p * (2 * n_tp / (2 * n_tp + n_err) if n_tp + n_err else 0.0)
        assert got[row] == pytest.approx(want, rel=1e-12, abs=1e-15), row


def _macro_f1(conf):
    """Macro F1 of an L x L confusion matrix as the kernels score it (0/0 = 0)."""
    tp, pred, true = np.diag(conf), conf.sum(axis=0), conf.sum(axis=1)
    den = pred + true
    return float(np.mean(np.where(den > 0, 2.0 * tp / np.where(den > 0, den, 1), 0.0)))


@pytest.mark.parametrize("kw", [dict(n_labels=3, positives="fixed", m=0.4),
                                dict(n_labels=2, positives="bernoulli", m=0.3),
                                dict(n_labels=3, positives="bernoulli", theta_prior=("beta", 3, 1),
                                     p_d=None, tie_rule="drop")])
def test_expected_f1_matches_enumeration_of_every_item_outcome(kw):
    """E[F1 | stratum non-empty] per labeller and stratum, by enumerating 4 items' outcomes."""
    from labelvar.engine._tables import _expected

    args = dict(theta_prior=None, p_d=0.65, n_items=4, panel_size=3, tie_rule="random")
    args.update(kw)
    spec, table, _ = _table(["expert", "random"], **args)
    cell = spec.cells()[0]
    exp = _expected(table, cell, spec, table.labels)
    lab, n_slots = table.n_lab, table.A.shape[2]
    group = np.repeat(np.arange(len(table.groups)), table.groups)
    checked = 0
    for j in range(len(spec.labellers)):
        joint = np.einsum("n,cnst,cnh->csth", table.w, table.A, table.M[j])
        if table.group_weights is not None:
            joint = np.tensordot(table.group_weights, joint, axes=1)[None]
        for s, slots in enumerate([list(range(n_slots - 1))]
                                  + [[b] for b in range(1, n_slots - 1)]):
            inside = joint[:, slots].sum(axis=1).reshape(len(joint), -1)  # (g, t * L + h)
            probs = np.concatenate([inside, 1.0 - inside.sum(axis=1, keepdims=True)], axis=1)
            num = den = 0.0
            for outcome in itertools.product(range(lab * lab + 1), repeat=len(group)):
                p = np.prod([probs[g, o] for g, o in zip(group, outcome)])
                cells = [o for o in outcome if o < lab * lab]
                if p == 0.0 or not cells:
                    continue
                conf = np.bincount(cells, minlength=lab * lab).reshape(lab, lab)
                num += p * (_macro_f1(conf) if lab > 2 else
                            2 * conf[1, 1] / max(1, 2 * conf[1, 1] + conf[0, 1] + conf[1, 0]))
                den += p
            if den == 0.0:
                continue
            assert exp[(j, s, "f1", None)] == pytest.approx(num / den, rel=1e-11, abs=1e-14)
            checked += 1
    assert checked >= 4


def test_expected_f1_equals_the_exact_coin_distribution():
    """Coin mode, fixed positives: the quadrature F1 = analytic.exact_binary_metrics' mean."""
    from labelvar import analytic

    # 1e8 items: phi's log taken with log1p (with log(1 - x) the error was 2e-9 here)
    for n_pos, n_neg, sens, spec_ in [(30, 170, 0.7, 0.8), (1, 9, 0.9, 0.5), (250, 750, 0.55, 0.95),
                                      (10**7, 9 * 10**7, 0.7, 0.9)]:
        groups = np.array([n_neg, n_pos])
        tp = np.array([[0.0, sens]])
        err = np.array([[1.0 - spec_, 1.0 - sens]])  # FP among negatives, FN among positives
        got = _ratio_means(groups, err, np.zeros((1, 2)), tp, 2.0 * tp)[0]
        exact = analytic.exact_binary_metrics(n_pos, n_neg, sens, spec_)
        assert got == pytest.approx(exact.f1.mean, rel=1e-11)
        # precision, sum A B / sum A with A = "predicted positive", B = "is positive"
        got = _ratio_means(groups, np.array([[1.0 - spec_, sens]]), np.array([[0.0, sens]]))[0]
        assert got == pytest.approx(exact.precision.mean, rel=1e-11)


@pytest.mark.parametrize("tie_rule", ["random", "drop", 1])
def test_any_l_kernel_tables_draw_the_exact_joint_distribution(tie_rule):
    """Decoded alias tables = P(slot, truth | c) (the enumeration) x the labellers' rows."""
    from labelvar.engine._tables import _symmetric_tables
    from labelvar.votes._models import Model

    n_lab, labs = 3, ("expert", "prior", Model(accuracy=0.6, name="A"))
    spec = _Spec.build(Panel(theta=0.7, m=0.3, n_labels=n_lab, panel_size=4, tie_rule=tie_rule),
                       labs, 50, 1, 0, (), "explicit")
    table = _Table(spec.cells()[0], spec)
    vote = table.A[:, 0]  # (modal c, slot, truth): slots 1..S strata, S + 1 dropped
    mats = [np.asarray(lb.matrix(n_lab, table.prior, 0.7)) for lb in spec.labellers]
    joint_n, joint_tab, n_joint, sep_tab, bits = _symmetric_tables(vote, mats)
    assert (n_joint, len(sep_tab)) == (2, 1)
    n_slots = vote.shape[1] - 1  # kernel slots: 0 = dropped, 1..S strata
    per_j = n_slots * n_lab * n_lab

    def decoded(tab, n):
        out = {}
        for thr, o1, o2 in tab[:n]:
            acc = int(thr) / 2.0**bits
            out[int(o1)] = out.get(int(o1), 0.0) + acc / n
            out[int(o2)] = out.get(int(o2), 0.0) + (1.0 - acc) / n
        return {k: p for k, p in out.items() if p > 1e-300}

    for c in range(n_lab):
        want = {}
        for slot in range(n_slots):
            for g in range(n_lab):
                p = vote[c, slot, g] if slot else (vote[c, -1].sum() if g == c else 0.0)
                for h0 in range(n_lab):
                    for h1 in range(n_lab):
                        q = p * mats[0][c, h0] * mats[1][c, h1]
                        if q > 0:
                            row = (slot * n_lab + g) * n_lab
                            key = row << 42 | (per_j + row + h1) << 21 | (row + h0)
                            want[key] = want.get(key, 0.0) + q
        got = decoded(joint_tab[c], joint_n[c])
        assert set(got) == set(want)
        assert all(abs(got[k] - want[k]) < 1e-12 for k in want)
        got = decoded(sep_tab[0, c], n_lab)
        assert all(abs(got.get(2 * per_j + h, 0.0) - mats[2][c, h]) < 1e-12
                   for h in range(n_lab))


@pytest.mark.parametrize("kw", [dict(n_labels=3, panel_size=4, tie_rule="drop"),
                                dict(n_labels=2, positives="fixed", theta_prior=None, p_d=0.7),
                                dict(n_labels=4, mode="coin", theta_prior=None, p_d=0.6,
                                     positives="fixed")])
def test_labeller_margins_are_the_margins_of_the_joint(kw):
    """The expectations' margins equal those of the (G, slots, L, L) joint they replace."""
    spec, table, _ = _table(["expert", "random"], **kw)
    n_slots = table.A.shape[2]
    for j in range(len(spec.labellers)):
        joint = np.einsum("n,cnst,cnh->csth", table.w, table.A, table.M[j])
        if table.group_weights is not None:
            joint = np.tensordot(table.group_weights, joint, axes=1)[None]
        for slots in ([0], list(range(n_slots - 1)), [n_slots - 1]):
            pj = joint[:, slots].sum(axis=1)
            true, pred, hit = table.labeller_margins(j, slots)
            assert np.allclose(true, pj.sum(axis=2), rtol=1e-13, atol=1e-16)
            assert np.allclose(pred, pj.sum(axis=1), rtol=1e-13, atol=1e-16)
            assert np.allclose(hit, np.einsum("gcc->gc", pj), rtol=1e-13, atol=1e-16)


def test_many_labels_with_few_items_keep_exact_expectations():
    """L = 300 labels, 12 items (most classes empty): E(accuracy) = p_d in coin mode.

    The expectations used a (G, slots, L, L) joint: 300^3 x 2 doubles here, 24 GB at
    L = 1000 (the process was killed); now O(G x L) margins.
    """
    from labelvar.engine._simulate import simulate

    res = simulate(Coin(p_d=0.8, m=0.5, n_labels=300), ["expert"], n_items=12, replicates=200,
                   seed=4)
    acc = res.summary[(res.summary["metric"] == "accuracy")]
    assert acc["expected"].iloc[0] == pytest.approx(0.8, abs=1e-12)
    assert abs(acc["z"].iloc[0]) < 4.5
