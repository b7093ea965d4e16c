"""labelvar: evaluation when the ground-truth annotators disagree.

The flat public API holds functions and classes only (``__all__``); each lives in a
private implementation module or a topic module and is re-exported here, so its
signature and help are the real ones (scipy's pattern). Names are imported lazily, so
``import labelvar`` stays cheap (scipy.stats alone costs ~0.4 s) until one is used.
Topic modules (``labelvar.analytic``, ``labelvar.design``, ``labelvar.plots``,
``labelvar.priors``, ...) are reachable as attributes too. ``labelvar.__version__`` is
the installed distribution's version (written once, in ``pyproject.toml``).

>>> import labelvar
>>> round(float(labelvar.expected_f1(0.9, 0.1)), 4)
0.6429
>>> import inspect
>>> list(inspect.signature(labelvar.simulate).parameters)[:3]
['p_d', 'm', 'n_items']
"""

from __future__ import annotations

import importlib

#: public name -> the module that defines it
_EXPORTS = {
    # closed forms and exact distributions
    **dict.fromkeys(
        ("expected_accuracy", "accuracy_se", "prob_correct_at_least", "prob_accuracy_at_least",
         "prob_accuracy_between", "prob_random_accuracy_at_least", "expected_confusion",
         "expected_precision", "expected_recall", "expected_f1", "stratified_expectation",
         "random_accuracy", "exact_f1", "exact_binary_metrics",
         "prob_correct_at_least_heterogeneous", "DiscreteDistribution"), "labelvar.analytic"),
    # item models and labellers
    **dict.fromkeys(("FixedTheta", "BetaPrior", "DiscretePrior", "DirichletItems",
                     "DirichletMixture", "EmpiricalItems", "as_theta_prior"), "labelvar.priors"),
    **dict.fromkeys(("Expert", "Random", "Prior", "Constant", "Model", "CorrelatedModel",
                     "ModelPair"), "labelvar.models"),
    # the Monte Carlo engine
    **dict.fromkeys(("simulate", "simulate_raters", "SimulationResult"), "labelvar.engine"),
    # sweeps
    **dict.fromkeys(("run_job", "collect"), "labelvar.sweep"),
    "SweepConfig": "labelvar.config",
    # stratified evaluation of real results
    **dict.fromkeys(("stratify", "paper_table", "StratifiedResult", "DataNoteWarning",
                     "ExcludedItemsWarning"), "labelvar.stratified"),
    **dict.fromkeys(("bin_tests", "paired_test", "expected_gap_test", "BinTestResult",
                     "PairedTestResult"), "labelvar.inference"),
    # systems that give several sampled answers per item (LLM judges)
    **dict.fromkeys(("modal_answer", "sample_shares", "parse_answer"), "labelvar.io._samples"),
    **dict.fromkeys(("fleiss_kappa", "krippendorff_alpha", "dawid_skene", "cross_replication",
                     "independent_normalized_kappa", "CrossReplication"), "labelvar.agreement"),
    # rater models (identified raters: skill, item difficulty)
    **dict.fromkeys(("fit_raters", "RaterFit", "RaterModel"), "labelvar.raters"),
    **dict.fromkeys(("panel_ceilings", "coin_model", "Ceilings"), "labelvar.ceilings"),
    # study design and pilots
    **dict.fromkeys(("Scenario", "plan_study", "DesignResult", "compare_raters", "panel_accuracy",
                     "cheapest_panel", "RaterComparison", "PanelChoice"), "labelvar.design"),
    **dict.fromkeys(("fit_pilot", "read_pilot", "PilotFit", "ItemModelFit", "predict_agreement"),
                    "labelvar.pilot"),
}

#: topic modules reachable as ``labelvar.<name>`` without an import statement
_SUBMODULES = {"agreement", "analytic", "ceilings", "cli", "config", "design", "engine", "inference", "io",
               "models", "pilot", "plots", "priors", "raters", "report", "stratified", "sweep"}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str):
    if name == "__version__":  # single-sourced: pyproject.toml -> the installed metadata
        from labelvar._base._provenance import version

        value = version()
    elif name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"labelvar.{name}")
    else:
        raise AttributeError(f"module 'labelvar' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(__all__) | _SUBMODULES)
