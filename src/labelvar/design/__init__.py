"""Study design: how many items N and annotators per item K a new evaluation needs.

A :class:`Scenario` says what the study looks like (the distribution of item
agreement θ, the number of labels L, the tie rule, the stratum that is scored)
and what it must show (one *question*, a significance level α and a target
power). :func:`labelvar.plan_study` searches panel sizes K and item counts N, and for
every K reports the smallest N that meets the target, priced, with the power
from an exact calculation under the model *and* from a per-item simulation with
its Monte Carlo standard error.

The model (the engine's *panel* mode)
-------------------------------------
Each item has a modal label and an agreement level θ, drawn independently per
item from the prior (a fixed value, a Beta(a, b) on [1/L, 1] or a discrete
mixture). Each of the K panel annotators votes for the modal label with
probability θ and otherwise for one of the other L - 1 labels uniformly. The
ground truth (GT) is the plurality of the panel; ties are broken uniformly at
random (``tie_rule="random"``) or the item is dropped (``"drop"``). The
observed agreement (``agreement``) of an item is (top votes) / K; ``min_agreement`` restricts
scoring to items whose observed agreement is at least that value (the
top-certainty bin(s)). Labellers scored against the GT:

- *expert*: one more annotator drawn like the panel;
- *model* with accuracy q: picks the modal label with probability q, else a
  uniformly chosen other label (two models A and B have correlated errors:
  the phi coefficient of their modal-label correctness is ``error_correlation``;
  when both are wrong they pick their wrong labels independently);
- *random*: uniform over the L labels; *prior*: predicts class c with the class
  prior m_c (the modal label's class is drawn from m).

Because the items are independent and identically distributed, the number of
scored items is Binomial(N, π) and, given it, every correctness count is
binomial (or multinomial) with probabilities obtained by enumerating all K-vote
count vectors and integrating over θ with Gauss-Jacobi quadrature (exact for
these polynomials in θ). The powers are therefore exact under the model, except
for the F1 comparison (a Wald test: normal approximation) and the unpaired test
beyond 2,000,000 terms per N or, with every item scored, beyond 5,000 items (each pair of
scored counts computed once per scan), and the paired test beyond 10,000 items.

Questions
---------
``separability``
    One-sided exact binomial test of H0: the labeller's accuracy equals the
    baseline's (1/L for the random labeller, sum_c m_c P(GT = c) for the
    prior-matched one). The critical number correct r_c(n) is the smallest k with
    P(Binomial(n, baseline) >= k) <= α, i.e. the paper's Table 1 tail: the baseline
    reaches r_c with probability at most α. Power = P(labeller's correct >= r_c).
``two_systems``
    Systems A (accuracy ``accuracy_b + delta``) and B (``accuracy_b``) against the
    modal label. ``test="paired"``: both score the same items; two-sided exact
    McNemar test (binomial test of the discordant pairs, p = 1/2, scipy's
    ``binomtest``). ``test="unpaired"``: each system scores its own N items;
    two-sided pooled two-proportion z-test, its power summed exactly over both
    systems' binomials.
``precision``
    The Wilson interval (``confidence_level``) of the labeller's accuracy in the
    stratum has half-width at most ``half_width``; "power" is the probability
    (assurance) that it does.

Pilot fitting is :func:`labelvar.fit_pilot`.
"""

# Layout: _scenario.py (Scenario), _power.py (per-item cell probabilities from
# labelvar.votes._panel, exact power of each test, critical values, the F1 delta-method variance),
# _binom.py (binomial and normal tails from scipy.special), _simulated.py (simulated power),
# _planner.py (plan_study, DesignResult), _raters.py (rater questions: compare_raters,
# panel_accuracy, cheapest_panel).

from labelvar.design._kappa import kappa_sample_size
from labelvar.design._questions import Precision, Separability, TwoSystems
from labelvar.design._raters import (
    PanelChoice,
    RaterComparison,
    cheapest_panel,
    compare_raters,
    panel_accuracy,
)

# plan_study and DesignResult are top-level names (labelvar.plan_study is their one public path)
__all__ = ["PanelChoice", "Precision", "RaterComparison", "Separability", "TwoSystems",
           "cheapest_panel", "compare_raters", "kappa_sample_size", "panel_accuracy"]
