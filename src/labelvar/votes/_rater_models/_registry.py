"""The registry of rater models: name -> class (:func:`register`, :func:`resolve`)."""

from __future__ import annotations

from labelvar.votes._rater_models._base import RaterModelSpec

#: registered rater models, by name, in registration order
REGISTRY: dict[str, type] = {}


def register(cls: type) -> type:
    """Register a rater model class under its ``name`` (usable as a decorator).

    A name already registered by another class is refused.
    """
    if not (isinstance(cls, type) and issubclass(cls, RaterModelSpec)):
        raise ValueError(f"register: a rater model is a subclass of RaterModelSpec, got {cls!r}")
    name = getattr(cls, "name", "")
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"register: {cls.__name__}.name must be an identifier, got {name!r}")
    if REGISTRY.get(name, cls) is not cls:
        raise ValueError(f"register: the name {name!r} is taken by {REGISTRY[name].__name__}")
    REGISTRY[name] = cls
    return cls


def resolve(model, what: str = "model") -> RaterModelSpec:
    """A model object from a registered name or a model object (checked)."""
    if isinstance(model, RaterModelSpec):
        return model
    if isinstance(model, str) and model in REGISTRY:
        return REGISTRY[model]()
    if isinstance(model, type) and issubclass(model, RaterModelSpec):
        raise ValueError(f"{what}: give a model object ({model.__name__}()) or its name "
                         f"{model.name!r}, not the class")
    raise ValueError(f"{what} must be one of {', '.join(map(repr, REGISTRY))} or a rater model "
                     f"object, got {model!r}")
