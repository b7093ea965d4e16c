"""Shared docstring pieces: each common parameter (or return value) is described once.

A line holding only ``{{name}}`` in a docstring is replaced by the description of
``name`` below, indented like the placeholder (crowd-kit documents its shared
parameters once in the same spirit).

Examples
--------
>>> @fill
... def f(p_d, n_items):
...     '''Example.
...
...     Parameters
...     ----------
...     {{p_d}}
...     {{n_items}}
...     '''
>>> print(f.__doc__.splitlines()[4])
    p_d : array_like
"""

from __future__ import annotations

import re

#: shared parameter descriptions (numpydoc "name : type" + indented description)
PARAMS = {
    "p_d": "p_d : array_like\n    Probability of agreeing with the majority label, in [0, 1].",
    "m": "m : array_like\n    Positive-class ratio of the majority labels, in [0, 1].",
    "n_items": "n_items : array_like\n    Number of items, a whole number >= 1.",
    "sep": "sep : str, optional\n    Field separator (default by extension: tab for .tsv/.tab, else comma).",
    "tasks": ("tasks : str or sequence of str, optional\n"
              "    Names or globs of the tasks to keep (default all), in every layout; a name\n"
              "    matching no task is refused. Only the tasks kept are checked and returned."),
    "tasks_returned": ("dict of str to TaskData\n"
                       "    Task name -> that task's panel votes and predictions, by item id."),
}

_PLACEHOLDER = re.compile(r"^(?P<indent>[ \t]*)\{\{(?P<name>\w+)\}\}[ \t]*$", re.MULTILINE)


def fill(func):
    """Replace the ``{{name}}`` lines of ``func.__doc__`` by :data:`PARAMS` entries."""

    def piece(match: re.Match) -> str:
        indent = match.group("indent")
        return "\n".join(indent + line for line in PARAMS[match.group("name")].splitlines())

    if func.__doc__:
        func.__doc__ = _PLACEHOLDER.sub(piece, func.__doc__)
    return func
