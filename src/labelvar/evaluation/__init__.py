"""Evaluation of real results: scores per agreement bin, tests, agreement statistics.

Top-level names (their one public path is :mod:`labelvar`): ``stratify`` ->
``StratifiedResult``, ``paper_table``, ``bin_tests`` -> ``BinTestResult``, ``paired_test``
-> ``PairedTestResult``, ``cross_replication`` -> ``CrossReplication``. This module holds
the rest: the warnings a stratified evaluation gives (:class:`DataNoteWarning`,
:class:`ExcludedItemsWarning`), the tie rules (:data:`TIE_RULES`), further tests
(:func:`expected_gap_test`, :func:`mcnemar_exact` -> :class:`McNemarResult`,
:func:`paired_bootstrap` -> :class:`PairedBootstrapResult`, :func:`holm`; the stars the
figures print for a p-value: :func:`stars`), and panel
agreement (:func:`fleiss_kappa`, :func:`krippendorff_alpha`, :func:`bootstrap_agreement`,
:func:`dawid_skene`, :func:`independent_normalized_kappa`).

The code lives in private modules: ``_stratified`` (stratify and its result) with
``_tables``, ``_paper_layout``, ``_tasks`` (a task's panel, systems and humans), ``_bins``
(the agreement bins and their expectations), ``_panel_loo`` (leave-one-rater-out) and
``_skill`` (a rater model's expectation per bin); ``_inference`` (tests per bin and paired
tests); ``_agreement`` (agreement statistics). May import the foundations,
``labelvar.analytic``, ``labelvar.io``, ``labelvar.metrics``, ``labelvar.votes``; never the
engine, planning, sweeps, figures, reports or the command line.
"""

from labelvar._base._warnings import DataNoteWarning, ExcludedItemsWarning
from labelvar.evaluation._agreement import (
    bootstrap_agreement,
    dawid_skene,
    fleiss_kappa,
    independent_normalized_kappa,
    krippendorff_alpha,
)
from labelvar.evaluation._analyses import Comparison, PanelAgreement
from labelvar.evaluation._inference import (
    McNemarResult,
    PairedBootstrapResult,
    expected_gap_test,
    holm,
    mcnemar_exact,
    paired_bootstrap,
    stars,
)
from labelvar.evaluation._stratified import TIE_RULES
from labelvar.evaluation._stratify_options import Intervals, Labels, Paper, Truth

__all__ = ["Comparison", "Intervals", "Labels", "PanelAgreement", "Paper", "Truth",
           "DataNoteWarning", "ExcludedItemsWarning", "McNemarResult", "PairedBootstrapResult",
           "TIE_RULES", "bootstrap_agreement", "dawid_skene", "expected_gap_test", "fleiss_kappa",
           "holm", "independent_normalized_kappa", "krippendorff_alpha", "mcnemar_exact",
           "paired_bootstrap", "stars"]
