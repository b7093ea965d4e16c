"""labelvar: evaluation when the ground-truth annotators disagree.

The public names are imported lazily, so ``import labelvar`` stays cheap
(scipy.stats alone costs ~0.4 s to import) until a function is used.

>>> import labelvar
>>> round(float(labelvar.expected_f1(0.9, 0.1)), 4)
0.6429
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

# public name -> submodule that defines it
_EXPORTS = {
    "analytic": "labelvar.analytic",
    "expected_accuracy": "labelvar.analytic",
    "accuracy_se": "labelvar.analytic",
    "prob_correct_at_least": "labelvar.analytic",
    "prob_accuracy_at_least": "labelvar.analytic",
    "prob_accuracy_between": "labelvar.analytic",
    "expected_confusion": "labelvar.analytic",
    "expected_precision": "labelvar.analytic",
    "expected_recall": "labelvar.analytic",
    "expected_f1": "labelvar.analytic",
    "stratified_expectation": "labelvar.analytic",
    "random_accuracy": "labelvar.analytic",
    "exact_f1": "labelvar.analytic",
    "exact_binary_metrics": "labelvar.analytic",
    "prob_correct_at_least_heterogeneous": "labelvar.analytic",
    "simulate": "labelvar.engine",
    "SimulationResult": "labelvar.engine",
    "Expert": "labelvar.models",
    "Random": "labelvar.models",
    "Prior": "labelvar.models",
    "Constant": "labelvar.models",
    "Model": "labelvar.models",
    "CorrelatedModel": "labelvar.models",
    "ModelPair": "labelvar.models",
    "BetaPrior": "labelvar.priors",
    "DiscretePrior": "labelvar.priors",
    "FixedTheta": "labelvar.priors",
    "sweep": "labelvar.sweep",
    "SweepConfig": "labelvar.config",
    "stratify": "labelvar.stratified",
    "paper_table": "labelvar.stratified",
    "StratifiedResult": "labelvar.stratified",
    "ExcludedItemsWarning": "labelvar.stratified",
    "bin_tests": "labelvar.inference",
    "paired_test": "labelvar.inference",
    "BinTestResult": "labelvar.inference",
    "PairedTestResult": "labelvar.inference",
    "design": "labelvar.design",
    "Scenario": "labelvar.design",
    "plan_study": "labelvar.design",
    "fit_pilot": "labelvar.pilot",
    "read_pilot": "labelvar.pilot",
    "PilotFit": "labelvar.pilot",
    "DesignResult": "labelvar.design",
}

# Exports that are submodules; every other name is an object inside its module.
# ``simulate`` and ``stratify`` stay modules here: ``import labelvar.simulate as sim``
# resolves through this attribute, and the two modules are callable as their
# functions (labelvar._callable), so ``labelvar.simulate(...)`` works either way.
_MODULES = {"analytic", "design", "sweep"}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str):
    try:
        module_name = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'labelvar' has no attribute {name!r}") from None
    module = importlib.import_module(module_name)
    value = module if name in _MODULES else getattr(module, name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
