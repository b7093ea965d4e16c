"""pilot.py: fitting the theta prior to pilot votes, incl. the SNLI votes in ../shared/data."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import shared_data
from scipy import integrate, stats

from labelvar import plan_study
from labelvar.design._scenario import Scenario
from labelvar.votes._panel import log_pattern_likelihood
from labelvar.votes._pilot import Selection, as_selection, fit_pilot, read_pilot
from labelvar.votes._priors import BetaPrior, DiscretePrior

SNLI = "snli_dev_subset/snli_1.0_dev_first1288.jsonl"


def _simulate_pilot(a, b, L, ks, seed):
    rng = np.random.default_rng(seed)
    th = 1 / L + (1 - 1 / L) * rng.beta(a, b, size=len(ks))
    out = np.zeros((len(ks), L), dtype=int)
    for i, (t, k) in enumerate(zip(th, ks)):
        modal = rng.integers(L)
        p = np.full(L, (1 - t) / (L - 1))
        p[modal] = t
        out[i] = rng.multinomial(k, p)
    return out


def _loglik(counts, a, b, L):
    """Independent marginal log-likelihood by numerical integration (scipy.integrate.quad)."""
    dens = stats.beta(a, b, loc=1 / L, scale=1 - 1 / L).pdf
    total = 0.0
    for c in counts:
        k = c.sum()

        def f(t, c=c, k=k):
            return np.mean([stats.multinomial.pmf(c, k, np.where(np.arange(L) == j, t,
                                                                 (1 - t) / (L - 1)))
                            for j in range(L)]) * dens(t)

        total += math.log(integrate.quad(f, 1 / L, 1, limit=200)[0])
    return total


def test_pattern_likelihood_matches_quad():
    counts = np.array([[3, 2, 0], [5, 0, 0], [2, 2, 1], [1, 1, 2]])
    a, b = 3.0, 1.7
    fit_ll = 0.0
    th, w = BetaPrior(a, b).nodes(3, 2 * 5 + 2)
    for c in counts:
        fit_ll += math.log(np.exp(log_pattern_likelihood(c[None, :], th, 3))[0] @ w)
    assert fit_ll == pytest.approx(_loglik(counts, a, b, 3), rel=1e-8)


def test_beta_fit_recovers_simulated_prior():
    ks = np.r_[np.full(2500, 5), np.full(500, 3)]
    counts = _simulate_pilot(4.0, 1.5, 3, ks, seed=7)
    fit = fit_pilot(counts, method="beta")
    true = BetaPrior(4.0, 1.5)
    # the MLE is at least as likely as the truth, and close to it
    th, w = true.nodes(3, 12)
    pats = counts
    ll_true = float(np.sum(np.log(np.exp(log_pattern_likelihood(pats, th, 3)) @ w)))
    assert fit.loglik >= ll_true - 1e-6
    assert fit.prior.mean(3) == pytest.approx(true.mean(3), abs=0.015)
    assert fit.p_value > 0.001  # the model is true: the goodness-of-fit test does not reject
    assert fit.table["observed"].sum() == len(ks)
    for k in (3, 5):
        sub = fit.table[fit.table["votes"] == k]
        assert sub["expected"].sum() <= (ks == k).sum() + 1e-6


def test_mixture_fit_is_at_least_as_likely_on_a_finite_mixture():
    rng = np.random.default_rng(3)
    th = rng.choice([0.55, 0.95], size=1500, p=[0.4, 0.6])
    votes = rng.binomial(5, th)
    counts = np.c_[votes, 5 - votes]
    beta = fit_pilot(counts, method="beta")
    mix = fit_pilot(counts, method="mixture")
    assert mix.loglik >= beta.loglik - 0.5
    assert mix.prior.mean(2) == pytest.approx(0.4 * 0.55 + 0.6 * 0.95, abs=0.02)
    sc = Scenario("separability", theta=mix.prior)
    assert isinstance(sc.theta, DiscretePrior) and sc.theta is mix.prior


def test_items_with_one_vote_are_left_out_with_a_note():
    fit = fit_pilot([[3, 2], [1, 0], [4, 1], [5, 0]])
    assert fit.n_items == 3
    assert fit.notes == ["1 item(s) with fewer than 2 votes left out (one vote carries no "
                         "information about theta)"]
    assert "note: 1 item(s) with fewer than 2 votes left out" in fit.summary()


@pytest.mark.parametrize("votes,match", [
    ([[1, 0], [0, 1], [1, 0]], "every one of the 3 items has fewer than 2 votes"),
    ([[3, 2]], "a single item"),
    ([[5, 0], [0, 5], [3, 0]], "every one of the 3 items is unanimous"),
    ([[4, 1], [1, 4], [4, 1]], r"all 3 items show one vote pattern \(4-1\)"),
    ([[3, 1, 1], [3, 2, 0], [0, 2, 3]], "every one of the 3 items has its top label at exactly 3"),
])
def test_unidentifiable_pilots_are_refused_in_one_line(votes, match):
    with pytest.raises(ValueError, match=match) as err:
        fit_pilot(votes)
    assert "\n" not in str(err.value)


def test_selection_rule_refusals():
    with pytest.raises(ValueError, match="do not satisfy the declared selection top=3"):
        fit_pilot([[3, 2], [4, 1]], selection="top=3")
    with pytest.raises(ValueError, match="admits one vote pattern per number of votes"):
        fit_pilot([[3, 2], [2, 3], [3, 2], [2, 3], [3, 3]], selection="top=3")
    with pytest.raises(ValueError, match="selection must be 'top=T'"):
        fit_pilot([[3, 2], [4, 1]], selection="most=3")
    # a top count below 1 selects nothing or everything (top>=-1 was fitted and printed
    # as "selected by top>=-1"; top=0 blamed the items)
    for rule in ("top>=0", "top>=-1", "top=0", "top=-2,3", "top="):
        with pytest.raises(ValueError, match=r"selection must be .* T >= 1, got '"):
            fit_pilot([[3, 2], [4, 1], [5, 0]], selection=rule)
    assert as_selection("top=0003,4") == Selection(tops=(3, 4))


def test_selection_probability_is_the_enumerated_one():
    from labelvar.votes._pilot import as_selection, selection_log_prob

    th = np.array([0.4, 0.7, 1.0])
    for K, L, rule in ((5, 3, "top=3"), (4, 2, "top>=3"), (6, 3, "top=2,4")):
        sel = as_selection(rule)
        want = np.zeros(len(th))
        for votes in __import__("itertools").product(range(L), repeat=K):
            cnt = np.bincount(votes, minlength=L)
            if sel.admits(cnt.max()):
                want += np.prod([np.where(v == 0, th, (1 - th) / (L - 1)) for v in votes], axis=0)
        with np.errstate(divide="ignore"):
            np.testing.assert_allclose(selection_log_prob(sel, K, th, L), np.log(want))


def test_selected_fit_maximises_the_conditional_likelihood():
    """With a selection the fit maximises sum_i log [P(c_i) / P(selected | K_i)] (by quad)."""
    counts = _simulate_pilot(3.0, 1.5, 3, np.full(3000, 5), seed=5)
    keep = counts.max(axis=1) >= 3
    fit = fit_pilot(counts[keep], selection="top>=3")
    from labelvar.votes._pilot import as_selection, selection_log_prob

    sel = as_selection("top>=3")

    def cond_ll(a, b):
        dens = stats.beta(a, b, loc=1 / 3, scale=2 / 3).pdf
        p_sel = integrate.quad(lambda t: np.exp(selection_log_prob(sel, 5, [t], 3))[0] * dens(t),
                               1 / 3, 1)[0]
        return _loglik(counts[keep][:20], a, b, 3) - 20 * math.log(p_sel)

    assert fit.prior.mean(3) == pytest.approx(BetaPrior(3.0, 1.5).mean(3), abs=0.03)
    a, b = fit.prior.a, fit.prior.b
    # the quadrature likelihood agrees with the fitted one on a subset
    sub = fit_pilot(counts[keep][:20], selection="top>=3")
    assert sub.loglik == pytest.approx(cond_ll(sub.prior.a, sub.prior.b), rel=1e-6)
    assert cond_ll(sub.prior.a, sub.prior.b) >= cond_ll(a, b) - 1e-9


CHAOS = "chaosnli/chaosNLI_v1.0/chaosNLI_snli.jsonl"


def test_mixture_with_a_selection_that_never_admits_theta_1():
    # every item at 3 of 5 (ChaosNLI's old_labels): P(top = 3 | theta = 1) = 0, so the
    # grid node theta = 1 gave -inf - (-inf) = NaN and the fit ended in "DiscretePrior.values
    # must be a non-empty 1-d sequence"
    votes = np.array([[3, 1, 1]] * 30 + [[3, 2, 0]] * 120)
    fit = fit_pilot(votes, method="mixture", selection="top=3")
    assert 1.0 not in fit.prior.values and math.isfinite(fit.loglik)
    # the expected pattern counts are the population law's, conditioned on the selection:
    # enumerate every labelled 5-vote composition (modal label 0; scipy's multinomial)
    pat = {"3-1-1": 0.0, "3-2-0": 0.0}
    sel = 0.0
    for th, w in zip(fit.prior.values, fit.prior.weights):
        pi = [th, (1 - th) / 2, (1 - th) / 2]
        for a in range(6):
            for b in range(6 - a):
                c = (a, b, 5 - a - b)
                pr = w * stats.multinomial.pmf(c, 5, pi)
                key = "-".join(map(str, sorted(c, reverse=True)))
                if key in pat:
                    pat[key] += pr
                    sel += pr
    table = fit.table.set_index("pattern")["expected"]
    for key, pr in pat.items():
        assert table[key] == pytest.approx(150 * pr / sel, rel=1e-9)
    # one free proportion: as good as the one-theta fit the beta method reduces to
    fixed = fit_pilot(votes, selection="top=3")
    assert fixed.method == "fixed" and fit.loglik == pytest.approx(fixed.loglik, abs=0.05)
    assert fit.prior.mean(3) == pytest.approx(fixed.prior.value, abs=0.01)


def test_chaosnli_original_votes_need_the_selection_declared():
    """Done-when: ChaosNLI's original 5 votes (every item 3 of 5) get a one-line explanation."""
    path = shared_data(CHAOS)
    votes = read_pilot(path, field="old_labels")
    assert votes.shape == (1514, 3) and (votes.max(axis=1) == 3).all()
    with pytest.raises(ValueError, match=r"every one of the 1514 items has its top label at "
                                         r"exactly 3 votes \(of 4/5\), never unanimous: the "
                                         r"pilot looks selected by agreement") as err:
        fit_pilot(votes)
    assert "selection='top=3'" in str(err.value) and "\n" not in str(err.value)
    fit = fit_pilot(votes, selection="top=3")  # RuntimeWarnings are errors in this suite
    assert fit.method == "fixed" and 0.5 < fit.prior.mean(3) < 1
    text = fit.summary()
    assert "\n" not in text and "selected by top=3" in text
    assert "goodness of fit not testable (0 df)" in text and "nan" not in text
    assert "too few for a Beta" in text and "cannot produce these shares" in text


def test_chaosnli_counts_read_with_the_counts_option():
    counts = read_pilot(shared_data(CHAOS), field="label_count", counts=True)
    assert counts.shape == (1514, 3) and set(counts.sum(axis=1)) == {100}
    fit = fit_pilot(counts[:300])
    assert 0.6 < fit.prior.mean(3) < 0.95 and "nan" not in fit.summary()


def test_read_pilot_csv_and_jsonl(tmp_path):
    p = tmp_path / "votes.csv"
    p.write_text("item,a,b,c\nx,3,1,1\ny,0,5,0\n")
    # the non-numeric id column is ignored; every numeric column is a label
    np.testing.assert_array_equal(read_pilot(p), [[3, 1, 1], [0, 5, 0]])
    q = tmp_path / "ids.csv"
    q.write_text("id,yes,no\n101,3,2\n102,4,1\n")
    np.testing.assert_array_equal(read_pilot(q, columns=["yes", "no"]), [[3, 2], [4, 1]])
    with pytest.raises(ValueError, match="pilot CSV .* has no column\\(s\\) maybe"):
        read_pilot(q, columns=["yes", "maybe"])
    j = tmp_path / "votes.jsonl"
    j.write_text('{"annotator_labels": ["b", "a", "b"]}\n{"annotator_labels": ["a", "a"]}\n')
    np.testing.assert_array_equal(read_pilot(j), [[1, 2], [2, 0]])
    with pytest.raises(ValueError, match="pilot line 1 has no field 'labels'"):
        read_pilot(j, field="labels")
    with pytest.raises(FileNotFoundError, match="pilot file not found"):
        read_pilot(tmp_path / "missing.csv")


@pytest.mark.parametrize("value", ['null', '"aab"', '["a", null, "a"]', '[["a"], "b"]',
                                   '{"a": 2}'])
def test_read_pilot_jsonl_refuses_what_is_not_a_list_of_labels(tmp_path, value):
    # before: null crashed with TypeError, a string was split into its characters (votes
    # a, a, b), a null vote became a label "None", a nested list the label "['a']"
    j = tmp_path / "votes.jsonl"
    j.write_text('{"annotator_labels": ["a", "b", "b"]}\n{"annotator_labels": %s}\n' % value)
    with pytest.raises(ValueError, match="pilot line 2: field 'annotator_labels' must be a "
                                         "list of labels .*, got "):
        read_pilot(j)
    # strings and numbers together: refused (they were read as one set, "1" and 1 merged)
    j.write_text('{"annotator_labels": ["a", "b", "b"]}\n{"annotator_labels": [1, "1", 2]}\n')
    with pytest.raises(ValueError, match=r"^pilot: the labels of a pilot mix strings and numbers: "
                                         r"field 'annotator_labels' holds 1 \(.*votes\.jsonl:2; 2 "
                                         r"of 6 labels\), field 'annotator_labels' holds \"a\" "
                                         r"\(line 1\)"):
        read_pilot(j)


@pytest.mark.parametrize("votes, match", [
    ('[1, NaN, 0]', r"^pilot: .*p\.jsonl:2: field 'v' holds NaN, which is not JSON and no "
                    r"label; write null for a missing label$"),
    ('[1, Infinity, 0]', r"^pilot: .*p\.jsonl:2: field 'v' holds Infinity, which is not JSON"),
    ('[1, true, 0]', r"^pilot: the labels of a pilot mix numbers and booleans: field 'v' holds "
                     r"true \(.*p\.jsonl:2; 1 of 6 labels\), field 'v' holds 1 \(line 1\); they "
                     r"must be all numbers, all strings or all booleans \(null: missing\): "
                     r"booleans do not mix with other labels$"),
    ('["1", "0", "1"]', r"^pilot: the labels of a pilot mix numbers and strings: field 'v' holds "
                        r"\"1\" \(.*p\.jsonl:2; 3 of 6 labels\), field 'v' holds 1 \(line 1\); "
                        r".*\(null: missing\)$"),
])
def test_read_pilot_jsonl_refuses_nan_infinity_and_mixed_kinds(tmp_path, votes, match):
    # before: NaN and Infinity became labels "nan" and "inf", true a label "True" beside
    # "1", and "1" was merged with 1, whatever their frequency
    p = tmp_path / "p.jsonl"
    p.write_text('{"v": [1, 0, 1]}\n{"v": %s}\n' % votes)
    with pytest.raises(ValueError, match=match):
        read_pilot(p, field="v")


def test_read_pilot_jsonl_valid_files_read_as_before(tmp_path):
    p = tmp_path / "p.jsonl"
    for text, counts in (('{"v": [1, 0, 1]}\n{"v": [2, 2]}\n', [[1, 2, 0], [0, 0, 2]]),
                         ('{"v": ["e", "n"]}\n\n{"v": ["c", "c", "e"]}\n', [[0, 1, 1], [2, 1, 0]]),
                         ('{"v": [true, false]}\n{"v": [true, true]}\n', [[1, 1], [0, 2]]),
                         # 1.0 is the label 1 (it was a fourth label "1.0")
                         ('{"v": [1.0, 0, 1]}\n{"v": [0.5, 1]}\n', [[1, 0, 2], [0, 1, 1]])):
        p.write_text(text)
        np.testing.assert_array_equal(read_pilot(p, field="v"), counts)


def test_read_pilot_csv_count_column_with_text_refused(tmp_path):
    # before: the column holding "3x" was left out silently (a pilot with labels a and c)
    p = tmp_path / "votes.csv"
    p.write_text("item,a,b,c\nx,3,1,1\ny,0,3x,0\nz,1,1,3\n")
    with pytest.raises(ValueError, match=r"^pilot CSV .*votes\.csv: column 'b' mixes numbers and "
                                         r"text \('3x' in data row 2\); a vote count is a whole "
                                         r"number >= 0 \(give the count columns with columns="):
        read_pilot(p)
    p.write_text("item,a,b\nx,3,1\ny,0,inf\n")
    with pytest.raises(ValueError, match=r"^pilot vote counts must be a whole number, got"):
        read_pilot(p)


def _snli():
    return read_pilot(shared_data(SNLI))


def test_snli_pilot_gives_a_plan():
    counts = _snli()
    assert counts.shape == (1289, 3)
    assert set(counts.sum(axis=1)) == {4, 5}
    fit = fit_pilot(counts)
    # 684 of 1289 items are unanimous (5/5): the fitted prior puts most mass near theta = 1
    assert (counts.max(axis=1) == 5).sum() == 684
    assert type(fit.prior).__name__ == "BetaPrior"
    assert 0.8 < fit.prior.mean(3) < 0.95
    row = fit.table.set_index("pattern").loc["5-0-0"]
    assert row["expected"] == pytest.approx(row["observed"], rel=0.05)
    sc = Scenario("separability", theta=fit.prior, n_labels=3, min_agreement=0.8)
    res = plan_study(sc, panel_sizes=[3, 5], replicates=300, seed=1)
    assert res.found
    rec = res.recommended
    assert rec["power_analytic"] >= 0.8 and abs(rec["power_z"]) < 4
    assert "recommended: K = " in res.describe()


def test_snli_two_systems_plan_brackets_target():
    fit = fit_pilot(_snli())
    sc = Scenario("two_systems", theta=fit.prior, n_labels=3, accuracy_b=0.85, delta=0.05,
                  error_correlation=0.3, min_agreement=0.8)
    res = plan_study(sc, panel_sizes=[3, 5, 7], replicates=2000, seed=2)
    from labelvar.design import _power as P

    for _, row in res.table.iterrows():
        cell = P.cell_probabilities(sc, int(row["panel_size"]))
        first = int(row["n_items_first"])
        below, at = P.exact_power(sc, cell, np.array([first - 1, first]))
        assert below < 0.8 <= at and row["power_analytic"] >= 0.8
    assert (res.evaluated["power_z"].abs() < 4).all()


# --------------------------------------------------------------------------- limits (fuzz)
def _pilot_with_a_big_item(votes):
    c = _simulate_pilot(3, 1, 2, [5] * 40, seed=4)
    c[0] = [votes - 3, 3]
    return c


@pytest.mark.parametrize("votes", [10**4, 10**12])
def test_a_pilot_item_with_1e4_to_1e12_votes_fits_a_mixture_exactly(votes):
    """Fuzz: an item with 1e4-1e12 votes hung (its vote patterns were enumerated one by one,
    its log k! tabulated up to k = 1e12). The mixture's likelihood of that item is exact:
    the same fit as the likelihood computed independently with scipy's multinomial."""
    c = _pilot_with_a_big_item(votes)
    fit = fit_pilot(c, method="mixture")
    th, w = np.array(fit.prior.values), np.array(fit.prior.weights)
    from scipy.special import logsumexp

    ll = 0.0
    for row in c:  # (1/L) sum_j Multinomial(c; theta on j) per grid point, scipy's logpmf
        lj = [np.logaddexp(stats.multinomial.logpmf(row, row.sum(), [t, 1 - t]),
                           stats.multinomial.logpmf(row, row.sum(), [1 - t, t])) for t in th]
        ll += float(logsumexp(np.array(lj) - math.log(2), b=w))
    # (the reported log-likelihood is the EM's, before support points of weight < 1e-4 are
    # dropped and the rest renormalised: equal to ~1e-8)
    assert fit.loglik == pytest.approx(ll, rel=1e-7)
    big = c[:1]
    for t in (0.6, 0.9, 0.99):  # the big item's likelihood itself, to 1e-12
        want = np.logaddexp(stats.multinomial.logpmf(big[0], votes, [t, 1 - t]),
                            stats.multinomial.logpmf(big[0], votes, [1 - t, t])) - math.log(2)
        assert log_pattern_likelihood(big, [t], 2)[0, 0] == pytest.approx(want, rel=1e-12)


def test_a_beta_fit_refuses_an_item_beyond_its_quadrature():
    with pytest.raises(ValueError, match=r"^pilot vote counts: method='beta' takes items with "
                                         r"at most 1000 votes .*got an item with 1000000000000; "
                                         r"use method='mixture'"):
        fit_pilot(_pilot_with_a_big_item(10**12), method="beta")


def test_a_theta_prior_with_a_1e6_vote_item_is_refused_or_exact():
    """Fuzz: a Beta theta prior with a 1e6-vote item built 5e5 Gauss-Jacobi nodes (hang)."""
    from labelvar.votes._pilot import predict_agreement

    with pytest.raises(ValueError, match=r"^counts: a Beta theta prior .* at most 1000 votes"):
        predict_agreement("beta:2,1", [[10**6 - 3, 3], [3, 2]])
    # a discrete prior needs no quadrature: exact posterior over its two points
    ts, n, c0 = np.array([0.6, 0.6005]), 10**6, 600_000
    p = predict_agreement(("mixture", ts.tolist(), [0.5, 0.5]), [[c0, n - c0]])
    # posterior over (theta, modal label j): Binomial(c_j; n, theta), scipy's logpmf
    lj = np.stack([stats.binom.logpmf(c0, n, ts), stats.binom.logpmf(n - c0, n, ts)])
    post = np.exp(lj - lj.max())
    post /= post.sum()
    want = float(post[0] @ ts + post[1] @ (1 - ts))  # P(next vote = label 0, the plurality)
    assert 0.6 < want < 0.6005
    assert p.items["predicted"].iloc[0] == pytest.approx(want, rel=1e-9)


def test_n_starts_below_one_is_refused_in_one_line():
    """Fuzz: fit_pilot(n_starts=0) raised AttributeError ('NoneType' has no attribute 'x')."""
    votes = [[3, 2], [4, 1], [5, 0], [2, 3]]
    for method in ("dirichlet_mixture", "beta"):
        with pytest.raises(ValueError, match=r"^n_starts must be >= 1, got 0$"):
            fit_pilot(votes, method=method, n_starts=0)


def test_predicted_agreement_bins_are_in_numeric_order():
    from labelvar.votes._pilot import predict_agreement

    p = predict_agreement("dirichlet:1,1,2", [[2, 0, 0], [1, 1, 0], [3, 0, 0], [2, 1, 0],
                                                [10, 1, 0], [3, 3, 3]])
    assert p.bins["bin"].tolist() == ["0.33", "0.50", "0.67", "0.91", "1.00"]
    assert p.bins["n_items"].tolist() == [1, 1, 1, 1, 2]
