"""Models of how votes arise: what an item's votes look like and who casts them.

Top-level names (their one public path is :mod:`labelvar`): the item models
``FixedTheta``, ``BetaPrior``, ``DiscretePrior``, ``DirichletItems``, ``DirichletMixture``,
``EmpiricalItems``; the labellers ``Expert``, ``Random``, ``Prior``, ``Constant``,
``Model``, ``CorrelatedModel``, ``ModelPair``; the rater models ``fit_raters`` ->
``RaterFit`` (``RaterModel``) and ``panel_ceilings`` -> ``Ceilings``; pilots
``read_pilot``, ``fit_pilot`` -> ``PilotFit``. This module holds the rest:
:class:`ItemModel` and :class:`ThetaPrior` (the two kinds of item model),
:func:`as_theta_prior`, :func:`correlation_bounds` (what a ``CorrelatedModel`` allows),
:class:`RaterCheck` (a rater model against held-out votes), :func:`coin_model` (the
coin model a rater fit implies), and from a pilot :func:`fit_item_model` ->
:class:`ItemModelFit`, :func:`predictive`, :func:`predict_agreement` ->
:class:`AgreementPrediction`.

The code lives in private modules: ``_priors`` with ``_item_priors`` (item models),
``_models`` (labellers), ``_raters`` with ``_rater_data`` and ``_rater_em`` (rater models),
``_ceilings``, ``_pilot`` with ``_pilot_items``, ``_pilot_predict``, ``_pilot_theta``, and
``_panel`` (the vote compositions of a panel and their probabilities). May import
the foundations and the kernels, ``labelvar.analytic``, ``labelvar.io`` and
``labelvar.metrics``; never the engine, evaluation, planning, figures or the command line.
"""

from labelvar.votes._ceilings import coin_model
from labelvar.votes._models import Labeller, correlation_bounds
from labelvar.votes._pilot import (
    AgreementPrediction,
    ItemModelFit,
    fit_item_model,
    predict_agreement,
    predictive,
)
from labelvar.votes._priors import ItemModel, ThetaPrior, as_theta_prior
from labelvar.votes._raters import (
    DawidSkene,
    DawidSkeneDifficulty,
    OneCoin,
    RaterCheck,
    RaterModelSpec,
    register_rater_model,
)

__all__ = ["DawidSkene", "DawidSkeneDifficulty", "Labeller", "OneCoin",
           "RaterModelSpec", "register_rater_model", "AgreementPrediction", "ItemModel",
           "ItemModelFit", "RaterCheck", "ThetaPrior",
           "as_theta_prior", "coin_model", "correlation_bounds", "fit_item_model",
           "predict_agreement", "predictive"]
