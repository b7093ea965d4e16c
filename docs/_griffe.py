"""A Griffe extension of the labelvar site (mkdocs.yml, mkdocstrings ``extensions:``).

The API pages are read by importing the modules (``force_inspection``), and an imported
dataclass field with a default, ``name: str = "expert"``, is the default value itself: Griffe
gives the field that value's docstring, so the page said "Create a new string object from
the given object..." under ``Expert.name`` (and ``int([x]) -> integer``, "Built-in immutable
sequence.", a NamedTuple's "Alias for field number 0", ...). This extension drops such a
borrowed docstring, so the field is not listed as a member of its own: its meaning is its
entry in the class's ``Parameters`` (a dataclass's fields are its parameters) or
``Attributes`` table, which the page shows once, with the class.
"""

from __future__ import annotations

import inspect

import griffe


def _builtin_doc(value) -> str | None:
    """The docstring a value lends a field that has none of its own, or None."""
    cls = type(value)
    doc = cls.__dict__.get("__doc__")
    if cls.__module__ == "builtins" and isinstance(doc, str):
        return inspect.cleandoc(doc)
    return None


class FieldDocs(griffe.Extension):
    """No docstring rather than a field's default value's type's docstring."""

    def on_class_members(self, *, node, cls, agent, **kwargs) -> None:
        """Drop the fields' borrowed docstrings (see the module docstring)."""
        _replace(node, cls)

    def on_module_members(self, *, node, mod, agent, **kwargs) -> None:
        """Drop the module constants' borrowed docstrings (``SUM_TOL``, ``MODELS``)."""
        _replace(node, mod)


def _replace(node, owner) -> None:
    """Drop the borrowed docstrings of the attributes of ``owner`` (a class or module)."""
    obj = getattr(node, "obj", None)
    if obj is None:
        return
    for name, member in owner.members.items():
        if member.is_alias or not member.is_attribute or member.docstring is None:
            continue
        doc = member.docstring.value.strip()
        if doc.startswith("Alias for field number") or doc == _builtin_doc(vars(obj).get(name)):
            member.docstring = None
