"""labelvar: evaluation when the ground-truth annotators disagree.

Which function answers which question (``help(labelvar.<name>)`` for one name):

What score does a labeller get, in closed form?  (the paper's coin model; ``labelvar.analytic``)
    expected_accuracy, expected_precision, expected_recall, expected_f1,
    expected_confusion, accuracy_se, random_accuracy, stratified_expectation;
    exact distributions on N items: exact_f1, exact_binary_metrics,
    DiscreteDistribution, prob_correct_at_least, prob_correct_at_least_heterogeneous,
    prob_accuracy_at_least, prob_accuracy_between, prob_random_accuracy_at_least

How do the scores spread, by simulation?  (``labelvar.engine``, ``labelvar.sweep``)
    simulate(Coin | Panel | RaterPanel) -> SimulationResult; labellers Expert, Random, Prior,
    Constant, Model, CorrelatedModel, ModelPair; item models FixedTheta, BetaPrior,
    DiscretePrior, DirichletItems, DirichletMixture, EmpiricalItems, as_theta_prior;
    sweeps of many grids: SweepConfig, run_job, collect

How do my systems and humans score per agreement bin?  (real results; ``labelvar.stratified``)
    stratify -> StratifiedResult (.table, .describe(), .paper_table()), paper_table;
    tests: bin_tests -> BinTestResult, paired_test -> PairedTestResult,
    expected_gap_test; DataNoteWarning, ExcludedItemsWarning;
    panel agreement: fleiss_kappa, krippendorff_alpha, dawid_skene;
    systems answering several samples per item (LLM judges): modal_answer,
    sample_shares, parse_answer

How good is each rater, and what can a panel reach?  (rater models; ``labelvar.raters``)
    fit_raters -> RaterFit, RaterModel; panel_ceilings -> Ceilings, coin_model;
    two rater groups: cross_replication -> CrossReplication,
    independent_normalized_kappa

How many items and annotators does a study need?  (planning; ``labelvar.design``)
    Scenario, plan_study -> DesignResult; compare_raters -> RaterComparison;
    panel_accuracy, cheapest_panel -> PanelChoice; from a pilot: fit_pilot,
    read_pilot -> PilotFit, ItemModelFit, predict_agreement

May this judge replace my annotators?  (the alt-test; ``labelvar.judge``)
    alt_test -> AltTestResult (with its references); judge.AltTestPower

How do I read my data?  (``labelvar.io``)
    io.load_tasks (any layout), io.read_wide, io.read_long, io.read_jsonl,
    io.read_rater_files, io.attach_predictions, io.attach_probabilities ->
    a dict of io.TaskData; io.synthetic_panel (a dataset with no download)

Figures and reports  (``labelvar.plots``, ``labelvar.report``)
    plots.plot_stratified_scores, plots.plot_delta_by_bin, plots.plot_gap_to_expected,
    plots.plot_system_vs_system, plots.plot_figure1, plots.plot_power_curves, ...;
    report.write_stratify_report, report.write_design_report, report.write_raters_report

The command line  (``labelvar --help``)
    labelvar stratify (real results per bin), expect (closed forms), tables (the
    paper's Tables 1-2), sweep / collect (simulation grids), design (study size),
    raters (rater skills and ceilings)

Every name above is importable from ``labelvar`` (``from labelvar import stratify``)
except the ``io.``, ``plots.`` and ``report.`` ones, which live in those modules.
Names load on first use, so ``import labelvar`` is cheap.

>>> import labelvar
>>> round(float(labelvar.expected_f1(0.9, 0.1)), 4)
0.6429
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
    **dict.fromkeys(("simulate", "Coin", "Panel", "RaterPanel", "SimulationResult"),
                    "labelvar.engine"),
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
    "alt_test": "labelvar.judge",  # may this judge replace the annotators? (issue 29)
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
