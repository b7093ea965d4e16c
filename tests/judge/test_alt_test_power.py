"""The alt-test's exact power against enumeration and a seeded Monte Carlo of the model."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from labelvar.judge import AltTestPower
from labelvar.judge._power import comparison_law, rejections_law
from labelvar.judge._stats import by_rejections

DESIGNS = [  # theta, skill, weights, n_labels, epsilon, n_items, n_humans
    ((0.6, 0.9), 0.85, (0.5, 0.5), 2, 0.2, 50, 3),
    ((0.7,), 0.7, None, 3, 0.15, 40, 4),
    ((0.55, 0.75, 0.95), (0.6, 0.8, 0.95), (0.3, 0.3, 0.4), 4, 0.2, 30, 3),
    ((0.9,), 0.9, None, 2, 0.2, 30, 2),
    ((0.7,), 0.75, None, 3, 0.1, 80, 6),
    ((0.8,), 0.8, None, 2, 0.15, 35, 5),
]


@pytest.mark.parametrize("design", DESIGNS)
def test_exact_power_within_three_standard_errors_of_simulation(design):
    theta, skill, weights, L, eps, n, k = design
    d = AltTestPower(theta=theta, skill=skill, weights=weights, n_labels=L, epsilon=eps)
    exact = d.power(n_items=n, n_humans=k)
    est, se = d.simulate(n_items=n, n_humans=k, n_resamples=1500, seed=7)
    assert 0.02 < exact < 0.99  # designs where the check has teeth
    assert abs(est - exact) <= 3 * se, (exact, est, se)


def test_comparison_law_by_enumerating_every_vote():
    theta, skill, K, L = 0.65, 0.8, 4, 3
    want = np.zeros(3)
    ph = [theta] + [(1 - theta) / (L - 1)] * (L - 1)
    ps = [skill] + [(1 - skill) / (L - 1)] * (L - 1)
    for votes in itertools.product(range(L), repeat=K):  # votes[0] is the tested human
        for x in range(L):
            pr = np.prod([ph[v] for v in votes]) * ps[x]
            others = votes[1:]
            cs, ch = others.count(x), others.count(votes[0])
            want[0 if cs == ch else (1 if cs > ch else 2)] += pr
    got = comparison_law(theta, skill, n_humans=K, n_labels=L)
    np.testing.assert_allclose(got, want, atol=1e-14)


def test_rejections_law_by_enumerating_p_values():
    # 3 humans, p-values on 4 support points; BY over every combination
    support = np.array([0.001, 0.012, 0.02, 0.5])
    probs = np.array([0.2, 0.3, 0.1, 0.4])
    thr = 0.05 * np.arange(1, 4) / (3 * (1 + 1 / 2 + 1 / 3))
    want = np.zeros(4)
    for combo in itertools.product(range(4), repeat=3):
        want[by_rejections(support[list(combo)], q=0.05).sum()] += np.prod(probs[list(combo)])
    cdf = [probs[support <= c].sum() for c in thr]
    np.testing.assert_allclose(rejections_law(cdf), want, atol=1e-14)


def test_planner_returns_the_smallest_n():
    d = AltTestPower(theta=(0.6, 0.9), skill=0.85, weights=(0.5, 0.5), epsilon=0.2)
    plan = d.plan(n_humans=(3,), target=0.8, min_items=2)
    n = int(plan["n_items"].iloc[0])
    assert d.power(n_items=n, n_humans=3) >= 0.8
    assert all(d.power(n_items=m, n_humans=3) < 0.8 for m in range(2, n))
    # the power is not monotone in N (a discrete test): a scan, not a bisection
    pw = [d.power(n_items=m, n_humans=3) for m in range(20, 40)]
    assert any(b < a for a, b in zip(pw, pw[1:]))
    eps = d.supported_epsilon(n_items=50, n_humans=3, target=0.8)
    assert d.power(n_items=50, n_humans=3, epsilon=eps) >= 0.8
    assert d.power(n_items=50, n_humans=3, epsilon=round(eps - 0.01, 2)) < 0.8


@pytest.mark.parametrize("kwargs, match", [
    ({"theta": 1.2}, "theta must be"),
    ({"skill": (0.5, 0.6)}, "skill must be"),
    ({"epsilon": 1.0}, "epsilon must be in"),
    ({"n_labels": 1}, "n_labels must be"),
])
def test_bad_design(kwargs, match):
    base = {"theta": 0.7, "skill": 0.8}
    with pytest.raises(ValueError, match=match):
        AltTestPower(**{**base, **kwargs})
    with pytest.raises(ValueError, match="n_humans must be"):
        AltTestPower(**base).power(n_items=30, n_humans=1)
