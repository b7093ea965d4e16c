"""Pilot fitting: the item-agreement θ prior fitted to pilot votes by maximum likelihood.

:func:`read_pilot` turns a pilot file into an (items x labels) vote-count matrix;
:func:`fit_pilot` fits a :class:`labelvar.BetaPrior` or a nonparametric
:class:`labelvar.DiscretePrior` to it, with the likelihood of each vote pattern
from the enumeration of the panel's vote patterns and the prior's own quadrature; the
result (:class:`PilotFit`) goes into ``labelvar.Scenario(theta=fit.prior)``.

Item models (:func:`fit_item_model`) and what a fitted model predicts
(:func:`predictive`, :func:`predict_agreement`) live here too.
"""

# This module is the face: the code is in labelvar.votes._pilot_predict (the fit result
# PilotFit, the shared checks and the predictions), labelvar.votes._pilot_items (item models,
# built on it) and labelvar.votes._pilot_theta (the θ-prior fit, read_pilot, the vote
# selection; it hands item-model methods on); import from labelvar.votes._pilot. They may import the
# priors, the vote enumeration (labelvar.votes._panel), validation and the readers
# (labelvar.io), never planning, evaluation, figures or the command line.

from __future__ import annotations

from labelvar.votes._pilot_items import ITEM_METHODS, ItemModelFit, fit_item_model
from labelvar.votes._pilot_predict import (
    MAX_QUADRATURE_VOTES,  # noqa: F401  (a documented limit, kept at its old path)
    AgreementPrediction,
    PilotFit,
    Selection,
    predict_agreement,
    predictive,
)
from labelvar.votes._pilot_theta import as_selection, fit_pilot, read_pilot, selection_log_prob

__all__ = ["ITEM_METHODS", "AgreementPrediction", "ItemModelFit", "PilotFit", "Selection",
           "as_selection", "fit_item_model", "fit_pilot", "predict_agreement", "predictive",
           "read_pilot", "selection_log_prob"]
