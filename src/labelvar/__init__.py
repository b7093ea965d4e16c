"""labelvar: evaluation when the ground-truth annotators disagree.

Which name answers which question (``help(labelvar.<name>)`` for one of them):

What score does a labeller get under the coin model, in closed form?
    expected_accuracy, expected_precision, expected_recall, expected_f1;
    tails, exact distributions and the paper's tables: ``labelvar.analytic``
How do the scores spread, by simulation?
    simulate(items, labellers) -> SimulationResult; items Coin, Panel, RaterPanel;
    item models FixedTheta, BetaPrior, DiscretePrior,
    DirichletItems, DirichletMixture, EmpiricalItems; labellers Expert, Random, Prior,
    Constant, Model, CorrelatedModel, ModelPair; more in ``labelvar.engine``,
    ``labelvar.votes``; grids from a config: ``labelvar.sweep``
How do my systems and humans score per agreement bin?
    stratify -> StratifiedResult, paper_table; bin_tests -> BinTestResult,
    paired_test -> PairedTestResult; agreement statistics and further tests:
    ``labelvar.evaluation``
How good is each rater, and what can a panel reach?
    fit_raters -> RaterFit (RaterModel), panel_ceilings -> Ceilings,
    cross_replication -> CrossReplication
May this judge replace my annotators?  (the alternative annotator test)
    alt_test -> its verdict beside a coin, an exchangeable annotator and the plurality
    follower; power and planning: ``labelvar.judge``
Is the AI as good as the readers?  (reader studies, MRMC)
    mrmc (Obuchowski-Rockette, DBM), standalone_vs_readers; sizing: ``labelvar.readers``
How many items and annotators does a study need?
    plan_study -> DesignResult; from a pilot: read_pilot, fit_pilot -> PilotFit;
    the questions and rater panels: ``labelvar.design``
Reading data, scoring, figures, report files
    ``labelvar.io`` (every input layout), ``labelvar.metrics`` (what a score is),
    ``labelvar.plots``, ``labelvar.report``; the command line: ``labelvar --help``

Every object has one public path: the names above at the top, the rest in the
module named beside them. Names load on first use, so ``import labelvar`` is cheap.

>>> import labelvar
>>> round(float(labelvar.expected_f1(0.9, 0.1)), 4)
0.6429
"""

from labelvar._base._lazy import attach_stub as _attach_stub

# the names and the modules that define them are listed once, in __init__.pyi
__getattr__, __dir__, __all__ = _attach_stub(__name__, __file__)
