"""Rater models, one class per file, and the registry that names them.

``fit_raters(votes, model=...)`` takes a registered name or a model object
(:class:`~labelvar.votes._rater_models._base.RaterModelSpec`). Adding a model: one file
here with one subclass decorated with ``@register``, and its import below (or
``register(MyModel)`` from anywhere).
"""

from labelvar.votes._rater_models._base import RaterModelSpec
from labelvar.votes._rater_models._registry import REGISTRY, register, resolve
from labelvar.votes._rater_models.dawid_skene import DawidSkene
from labelvar.votes._rater_models.difficulty import DawidSkeneDifficulty
from labelvar.votes._rater_models.one_coin import OneCoin

__all__ = ["REGISTRY", "DawidSkene", "DawidSkeneDifficulty", "OneCoin", "RaterModelSpec",
           "register", "resolve"]
