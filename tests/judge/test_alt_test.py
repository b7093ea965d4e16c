"""The alt-test as published: every convention pinned on cases computed by hand."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from labelvar import alt_test
from labelvar.judge import References, joint_winning_rates
from labelvar.judge._stats import by_rejections, by_thresholds, t_test_pvalues


def _votes(rows):
    return pd.DataFrame(rows, columns=["item", "rater", "label"])


def _block(n_items, labels_per_rater, start=0):
    """n_items items, each voted by the raters with the given labels."""
    return [(start + i, r, lab) for i in range(n_items) for r, lab in labels_per_rater.items()]


def test_ties_count_for_both_and_strict_wins_for_one():
    # item 0: a=x b=x c=y; system y. a: others (x, y): sys y 1 vote, a's x 1 vote -> tie.
    # c: others (x, x): sys y 0, c's y 0 -> tie. b: like a -> tie.
    # item 1: a=x b=x c=x; system y: every human strictly better.
    # item 2: a=x b=y c=y; system y: a: others (y, y): sys 2 > a's 0 -> system better.
    votes = _votes([(0, "a", "x"), (0, "b", "x"), (0, "c", "y"),
                    (1, "a", "x"), (1, "b", "x"), (1, "c", "x"),
                    (2, "a", "x"), (2, "b", "y"), (2, "c", "y")])
    res = alt_test(votes, pd.Series({0: "y", 1: "y", 2: "y"}), min_items_per_human=1,
                   references=None)
    t = res.table.set_index("rater")
    # a: tie, human, system; b: tie, human, (others a=x c=y: sys 1 vs b's y 1) tie
    assert t.loc["a", ["n_ties", "n_system_better", "n_human_better"]].tolist() == [1, 1, 1]
    assert t.loc["b", ["n_ties", "n_system_better", "n_human_better"]].tolist() == [2, 0, 1]
    assert t.loc["c", ["n_ties", "n_system_better", "n_human_better"]].tolist() == [2, 0, 1]
    assert t.loc["a", "rho_system"] == pytest.approx(2 / 3)
    assert t.loc["a", "rho_human"] == pytest.approx(2 / 3)
    assert t.loc["b", "rho_system"] == pytest.approx(2 / 3)
    assert t.loc["b", "rho_human"] == pytest.approx(1.0)
    assert res.advantage_probability == pytest.approx(2 / 3)


def test_sd_zero_rules():
    # d constant: -1 (system always strictly better) -> p 0; +1 -> p 1; 0 = epsilon -> NaN
    p = t_test_pvalues(np.array([[0, 40, 0], [0, 0, 40], [40, 0, 0], [40, 0, 0]]), epsilon=0.0)
    assert p[0] == 0.0 and p[1] == 1.0 and np.isnan(p[2])
    assert t_test_pvalues(np.array([[40, 0, 0]]), epsilon=0.2)[0] == 0.0  # 0 < 0.2
    # end to end: all ties at epsilon 0 -> never rejected, winning rate 0
    votes = _votes(_block(30, {"a": 1, "b": 1, "c": 1}))
    res = alt_test(votes, pd.Series(1, index=range(30)), epsilon=0.0, references=None)
    assert res.table["p_value"].isna().all() and res.winning_rate == 0.0 and not res.passed
    res = alt_test(votes, pd.Series(1, index=range(30)), epsilon=0.1, references=None)
    assert (res.table["p_value"] == 0.0).all() and res.winning_rate == 1.0 and res.passed


def test_t_test_matches_scipy_on_counts():
    rng = np.random.default_rng(3)
    for _ in range(30):
        c = rng.integers(0, 20, size=3)
        c[rng.integers(3)] += 2
        eps = float(rng.choice([0.0, 0.1, 0.2]))
        d = np.repeat([0.0, -1.0, 1.0], c)
        if d.std() == 0:
            continue
        want = stats.ttest_1samp(d, eps, alternative="less").pvalue
        assert t_test_pvalues(c[None], epsilon=eps)[0] == pytest.approx(want, rel=1e-10)


def test_by_thresholds_and_step_up():
    c = by_thresholds(3, 0.05)
    assert c.tolist() == pytest.approx([0.05 / 3 / (11 / 6) * j for j in (1, 2, 3)])
    # step-up: p_(1) above its threshold but p_(2) below its own -> both rejected
    p = np.array([c[1] * 0.999, c[0] * 1.5, 0.9])
    assert by_rejections(p, q=0.05).tolist() == [True, True, False]
    # exactly at the threshold counts as below (<=)
    assert by_rejections(np.array([c[0], 0.5, 0.9]), q=0.05).tolist() == [True, False, False]
    assert by_rejections(np.array([c[0] * 1.01, c[1] * 1.01, c[2] * 1.01]), q=0.05).sum() == 0
    assert by_rejections(np.array([c[2], c[2], c[2]]), q=0.05).all()


def test_filters_items_and_humans():
    # 30 items by a, b, c; 5 items by d (+a, b); 3 items with only a; 2 items without system
    rows = _block(30, {"a": 0, "b": 0, "c": 1}) + _block(5, {"a": 0, "b": 0, "d": 0}, 100)
    rows += [(200 + k, "a", 1) for k in range(3)]
    rows += _block(2, {"a": 0, "b": 1, "c": 1}, 300)
    system = pd.Series(0, index=list(range(30)) + list(range(100, 105)) + [200, 201, 202])
    res = alt_test(_votes(rows), system, references=None)
    assert res.n_items == 35 and res.n_items_excluded == 5  # 3 single-human + 2 unlabelled
    assert res.n_humans == 3 and res.n_humans_excluded == 1
    assert res.excluded.to_dict("list") == {"rater": ["d"], "n_items": [5]}
    t = res.table.set_index("rater")
    assert t["n_items"].to_dict() == {"a": 35, "b": 35, "c": 30}
    # d's votes stay in the references of a and b: on items 100-104 a's others are (0, 0)
    assert t.loc["a", "n_ties"] == 35


def test_neg_rmse_hand_cases_and_exact_ties():
    # others {1, 5}: SS(3) = 8, SS(1) = 16, SS(2) = 10, SS(5) = 16
    votes = _votes([(0, "a", 1), (0, "b", 5), (0, "h", 3),
                    (1, "a", 1), (1, "b", 5), (1, "h", 1)])
    sys = pd.Series({0: 2, 1: 5})
    res = alt_test(votes, sys, scoring="neg_rmse", min_items_per_human=1, references=None)
    h = res.table.set_index("rater").loc["h"]
    assert (h["n_human_better"], h["n_ties"]) == (1, 1)  # 8 < 10; 16 = 16
    # labels on a 0.1 step: ties exact although the floats are not whole numbers
    rng = np.random.default_rng(5)
    rows, sysd = [], {}
    for i in range(60):
        for r in "abcd":
            rows.append((i, r, round(0.1 * int(rng.integers(0, 6)), 1)))
        sysd[i] = round(0.1 * int(rng.integers(0, 6)), 1)
    votes = _votes(rows)
    res = alt_test(votes, pd.Series(sysd), scoring="neg_rmse", references=None)
    for r in "abcd":
        want = [0, 0, 0]
        for i in range(60):
            vals = votes[votes["item"] == i].set_index("rater")["label"]
            others = [Fraction(str(v)) for k, v in vals.items() if k != r]
            s_sys, s_h = (sum((Fraction(str(x)) - y) ** 2 for y in others)
                          for x in (sysd[i], vals[r]))
            want[0 if s_sys == s_h else (1 if s_sys < s_h else 2)] += 1
        got = res.table.set_index("rater").loc[r, ["n_ties", "n_system_better", "n_human_better"]]
        assert got.tolist() == want


def test_neg_rmse_refuses_text_labels():
    votes = _votes(_block(30, {"a": "x", "b": "y"}))
    with pytest.raises(ValueError, match="neg_rmse.*numeric"):
        alt_test(votes, pd.Series("x", index=range(30)), scoring="neg_rmse")


def _naive(votes, system, eps, q=0.05, min_h=2, min_i=30):
    """The procedure written out with loops, scipy's t-test and the BY formula."""
    by_item = {i: dict(zip(g["rater"], g["label"])) for i, g in votes.groupby("item")}
    keep = {i for i, v in by_item.items() if len(v) >= min_h and i in system.index}
    ps, rhos = [], []
    for h in pd.unique(votes["rater"]):
        items = [i for i in keep if h in by_item[i]]
        if len(items) < min_i:
            continue
        ws, wh = [], []
        for i in items:
            others = [v for r, v in by_item[i].items() if r != h]
            s_sys = sum(o == system[i] for o in others)
            s_h = sum(o == by_item[i][h] for o in others)
            ws.append(s_sys >= s_h)
            wh.append(s_h >= s_sys)
        d = np.array(wh, float) - np.array(ws, float)
        ps.append(stats.ttest_1samp(d, eps, alternative="less").pvalue)
        rhos.append(np.mean(ws))
    ps = np.array(ps)
    m = len(ps)
    hm = sum(1 / j for j in range(1, m + 1))
    srt = np.sort(np.nan_to_num(ps, nan=2.0))
    ks = [j for j in range(1, m + 1) if srt[j - 1] <= j * q / (m * hm)]
    return (max(ks) if ks else 0) / m, float(np.mean(rhos))


def test_matches_the_procedure_written_out():
    rng = np.random.default_rng(11)
    for trial in range(6):
        n_items, raters = 80, [f"r{k}" for k in range(5)]
        truth = rng.integers(0, 3, n_items)
        rows = [(i, r, int(truth[i]) if rng.random() < 0.7 else int(rng.integers(0, 3)))
                for i in range(n_items) for r in raters if rng.random() < 0.8]
        votes = _votes(rows)
        sk = [0.9, 0.7, 0.5, 0.8, 0.6, 0.95][trial]
        sys = pd.Series({i: int(truth[i]) if rng.random() < sk else int(rng.integers(0, 3))
                         for i in range(n_items)})
        for eps in (0.1, 0.2):
            res = alt_test(votes, sys, epsilon=eps, references=None)
            wr, rho = _naive(votes, sys, eps)
            assert res.winning_rate == wr
            assert res.advantage_probability == pytest.approx(rho, abs=1e-12)


def test_options_beyond_the_paper():
    votes = _votes(_block(20, {"a": 0, "b": 0, "c": 1}) + _block(10, {"a": 1, "b": 0, "c": 1}, 50))
    sys = pd.Series(0, index=list(range(20)) + list(range(50, 60)))
    res = alt_test(votes, sys, test="signed_rank", epsilon=0.2, references=None)
    for _, row in res.table.set_index("rater").iterrows():
        d = np.repeat([0.0, -1.0, 1.0], row[["n_ties", "n_system_better", "n_human_better"]]
                      .to_numpy(int)) - 0.2
        assert row["p_value"] == pytest.approx(
            stats.wilcoxon(d, alternative="less").pvalue, rel=1e-12)
    res_m = alt_test(votes, sys, margin="multiplicative", epsilon=0.2, references=None)
    for _, row in res_m.table.iterrows():
        c = row[["n_ties", "n_system_better", "n_human_better"]].to_numpy(int)
        d = np.repeat([1 - 1 / 0.8, -1 / 0.8, 1.0], c)
        want = stats.ttest_1samp(d, 0.0, alternative="less").pvalue if d.std() > 0 else \
            (0.0 if d[0] < 0 else 1.0)
        assert row["p_value"] == pytest.approx(want, rel=1e-10)
    res_c = alt_test(votes, sys, scoring=lambda x, ys: float(np.mean([x == y for y in ys])),
                     references=None)
    res_a = alt_test(votes, sys, references=None)
    pd.testing.assert_frame_equal(res_c.table, res_a.table)
    joint = joint_winning_rates({"t1": res_a, "t2": res_m}, q=0.05)
    pooled = by_rejections(np.r_[res_a.table["p_value"], res_m.table["p_value"]], q=0.05)
    assert joint["n_rejected"].tolist() == [pooled[:3].sum(), pooled[3:].sum()]


def test_several_systems_give_a_dict():
    votes = _votes(_block(30, {"a": 0, "b": 0, "c": 1}))
    systems = pd.DataFrame({"good": 0, "bad": 1}, index=range(30))
    res = alt_test(votes, systems, references=None)
    assert set(res) == {"good", "bad"}
    assert res["good"].advantage_probability == pytest.approx(1.0)
    # bad says 1: a, b others (0,1): tie with a's 0? a's 0: 1 vote, sys 1: 1 vote -> tie;
    # c: others (0, 0): c's 1 = sys 1 -> tie: every comparison is a tie
    assert res["bad"].advantage_probability == pytest.approx(1.0)
    assert res["bad"].table["n_ties"].tolist() == [30, 30, 30]


@pytest.mark.parametrize("kwargs, match", [
    ({"epsilon": 1.0}, "epsilon must be in \\[0, 1\\)"),
    ({"epsilon": -0.1}, "epsilon must be in \\[0, 1\\)"),
    ({"q": 0.0}, "q must be in"),
    ({"min_items_per_human": 31}, "min_items_per_human=31"),
    ({"scoring": "f1"}, "scoring must be"),
    ({"test": "z"}, "test must be"),
])
def test_bad_options(kwargs, match):
    votes = _votes(_block(30, {"a": 0, "b": 0}))
    with pytest.raises(ValueError, match=match):
        alt_test(votes, pd.Series(0, index=range(30)), **kwargs)


def test_bad_votes_and_system():
    votes = _votes(_block(30, {"a": 0, "b": 0}))
    with pytest.raises(ValueError, match="no identified raters"):
        alt_test(votes.assign(rater=None), pd.Series(0, index=range(30)))
    with pytest.raises(ValueError, match="system: item id '99' is not among the votes' 30"):
        alt_test(votes, pd.Series(0, index=list(range(30)) + [99]))
    with pytest.raises(ValueError, match="system: item id '0' is not among"):  # '0000' != '0'
        alt_test(votes.assign(item=votes["item"].map("{:04d}".format)),
                 pd.Series(0, index=range(30)))
    with pytest.raises(ValueError, match="votes: item '0' has votes from rater 'a' with "
                                         "different labels"):
        alt_test(pd.concat([votes, votes.iloc[:1].assign(label=1)]), pd.Series(0, index=range(30)))
    with pytest.raises(ValueError, match="votes: no column 'rater'"):
        alt_test(votes.drop(columns="rater"), pd.Series(0, index=range(30)))


def test_references_exact_rho_by_brute_force():
    rng = np.random.default_rng(2)
    rows = [(i, r, int(rng.integers(0, 3))) for i in range(40) for r in "abcd"]
    votes = _votes(rows)
    sys = pd.Series(rng.integers(0, 3, 40))
    res = alt_test(votes, sys, references=References(n_resamples=0))
    by_item = {i: dict(zip(g["rater"], g["label"])) for i, g in votes.groupby("item")}
    want = {"uniform": [], "exchangeable": [], "plurality": [], "prevalence": []}
    prev = votes["label"].value_counts(normalize=True)
    for h in "abcd":
        acc = {k: [] for k in want}
        for v in by_item.values():
            others = [lab for r, lab in v.items() if r != h]

            def cnt(x, others=others):
                return sum(o == x for o in others)

            ge = {x: cnt(x) >= cnt(v[h]) for x in range(3)}
            acc["uniform"].append(np.mean([ge[x] for x in range(3)]))
            acc["prevalence"].append(sum(prev[x] * ge[x] for x in range(3)))
            acc["exchangeable"].append(np.mean([ge[o] for o in others]))
            top = max(cnt(x) for x in range(3))
            acc["plurality"].append(np.mean([ge[x] for x in range(3) if cnt(x) == top]))
        for k in want:
            want[k].append(np.mean(acc[k]))
    got = res.references.set_index("reference")["advantage_probability"]
    for k in want:
        assert got[k] == pytest.approx(np.mean(want[k]), abs=1e-12)
    assert got["plurality"] == 1.0
    assert got["system"] == res.advantage_probability


def test_reference_winning_rate_monte_carlo_and_exact():
    votes = _votes(_block(40, {"a": 0, "b": 0, "c": 0}) + _block(20, {"a": 1, "b": 0, "c": 1}, 100))
    sys = pd.Series(0, index=list(range(40)) + list(range(100, 120)))
    res = alt_test(votes, sys, references=References(kinds=("uniform", "plurality"),
                                                     n_resamples=300, seed=1))
    refs = res.references.set_index("reference")
    # the plurality follower: one label per comparison except where the others tie
    assert refs.loc["plurality", "advantage_probability"] == 1.0
    # a coin over {0, 1}: on the 40 unanimous items W_sys = 1/2; on the 20 split items
    # for a (others b=0, c=1) W_sys = 1; for b (others 1, 1): label 1 ties b's 0? no, 2 > 0
    # for b: E = 1; c like a: 1 -> rho = (40 * 0.5 + 20) / 60 for each human
    assert refs.loc["uniform", "advantage_probability"] == pytest.approx(40 / 60)
    assert refs.loc["uniform", "winning_rate_method"] == "monte carlo (300 runs)"
    assert 0.0 <= refs.loc["uniform", "pass_probability"] <= 1.0
    assert res.by_bin["n_comparisons"].sum() == 180


def _naive_reference_rates(votes, kind, runs, rng, eps=0.2):
    """The reference's winning rate, drawn label by label (uniform: one per item)."""
    by_item = {i: dict(zip(g["rater"], g["label"])) for i, g in votes.groupby("item")}
    labels = sorted(votes["label"].unique())
    raters = list(pd.unique(votes["rater"]))
    rates = []
    for _ in range(runs):
        item_lab = {i: labels[rng.integers(len(labels))] for i in by_item}
        counts = []
        for h in raters:
            c = [0, 0, 0]
            for i, v in by_item.items():
                if h not in v:
                    continue
                others = [lab for r, lab in v.items() if r != h]
                x = item_lab[i] if kind == "uniform" else others[rng.integers(len(others))]
                cs, ch = others.count(x), others.count(v[h])
                c[0 if cs == ch else (1 if cs > ch else 2)] += 1
            counts.append(c)
        rates.append(by_rejections(t_test_pvalues(np.array(counts), epsilon=eps), q=0.05).mean())
    return np.array(rates)


@pytest.mark.parametrize("kind", ["uniform", "exchangeable"])
def test_reference_monte_carlo_matches_drawing_label_by_label(kind):
    rng = np.random.default_rng(4)
    truth = rng.integers(0, 2, 60)
    rows = [(i, r, int(truth[i]) if rng.random() < q_r else 1 - int(truth[i]))
            for i in range(60) for r, q_r in zip("abcd", (0.95, 0.9, 0.75, 0.6))]
    votes = _votes(rows)
    eps = 0.45 if kind == "uniform" else 0.05
    res = alt_test(votes, pd.Series(truth), epsilon=eps,
                   references=References(kinds=(kind,), n_resamples=400, seed=3))
    got = res.references.set_index("reference").loc[kind]
    want = _naive_reference_rates(votes, kind, 300, rng, eps=eps)
    # per item (shared by the 4 humans): Monte Carlo; per comparison: exact
    exact = got["winning_rate_method"] == "exact"
    assert exact == (kind == "exchangeable")
    se = np.sqrt(want.var(ddof=1) / 300 + (0 if exact else got["winning_rate_sd"] ** 2 / 400))
    assert 0.05 < want.mean() < 0.95  # a case where the winning rate is random
    assert abs(got["winning_rate_mean"] - want.mean()) <= 3 * se + 1e-12
    p_pass = (want >= 0.5).mean()
    assert abs(got["pass_probability"] - p_pass) <= 3 * np.sqrt(p_pass * (1 - p_pass) / 300) + 0.01


def test_exact_rejections_law_of_independent_humans_by_enumeration():
    import itertools

    from labelvar.judge._exact_rates import rejections_law

    m = 3
    thr = by_thresholds(m, 0.05)
    support = np.array([thr[0] * 0.5, thr[1] * 0.9, thr[2] * 0.95, 0.5])  # one per interval
    laws = np.array([[0.3, 0.2, 0.1, 0.4], [0.05, 0.5, 0.15, 0.3], [0.0, 0.1, 0.6, 0.3]])
    want = np.zeros(m + 1)
    for combo in itertools.product(range(4), repeat=m):
        pr = np.prod([laws[h, c] for h, c in enumerate(combo)])
        want[by_rejections(support[list(combo)], q=0.05).sum()] += pr
    cdfs = np.cumsum(laws[:, :m], axis=1)
    np.testing.assert_allclose(rejections_law(cdfs), want, atol=1e-14)


def test_rater_reference_from_a_fitted_model():
    import labelvar

    rng = np.random.default_rng(0)
    truth = rng.integers(0, 2, 120)
    rows = [(i, r, int(truth[i]) if rng.random() < 0.8 else 1 - int(truth[i]))
            for i in range(120) for r in "abcd"]
    votes = _votes(rows)
    fit = labelvar.fit_raters(votes, model="dawid_skene", n_resamples=0)
    res = alt_test(votes, pd.Series(truth), references=References(
        kinds=(), model=fit, skills=(0.7,), n_resamples=0))
    post = fit.truth.loc[[str(i) for i in range(120)], [0, 1]].to_numpy()  # ids read as text
    law = post @ np.array([[0.7, 0.3], [0.3, 0.7]])  # P(label) per item
    by_item = {i: dict(zip(g["rater"], g["label"])) for i, g in votes.groupby("item")}
    rhos = []
    for h in "abcd":
        w = []
        for i, v in by_item.items():
            others = [lab for r, lab in v.items() if r != h]
            w.append(sum(law[i, x] for x in (0, 1) if others.count(x) >= others.count(v[h])))
        rhos.append(np.mean(w))
    got = res.references.set_index("reference").loc["rater (skill 0.7)", "advantage_probability"]
    assert got == pytest.approx(np.mean(rhos), abs=1e-12)


def test_neg_rmse_references_plurality_follows_the_mean():
    rng = np.random.default_rng(9)
    rows = [(i, r, int(rng.integers(1, 6))) for i in range(50) for r in "abcde"]
    votes = _votes(rows)
    res = alt_test(votes, pd.Series(rng.integers(1, 6, 50)), scoring="neg_rmse",
                   references=References(n_resamples=0))
    refs = res.references.set_index("reference")["advantage_probability"]
    assert refs["plurality"] == 1.0
    # the uniform labeller over the scale's values seen (1..5), by brute force
    by_item = {i: dict(zip(g["rater"], g["label"])) for i, g in votes.groupby("item")}
    rhos = []
    for h in "abcde":
        w = []
        for v in by_item.values():
            others = [lab for r, lab in v.items() if r != h]
            ss = {x: sum((x - y) ** 2 for y in others) for x in range(1, 6)}
            w.append(np.mean([ss[x] <= ss[v[h]] for x in range(1, 6)]))
        rhos.append(np.mean(w))
    assert refs["uniform"] == pytest.approx(np.mean(rhos), abs=1e-12)
