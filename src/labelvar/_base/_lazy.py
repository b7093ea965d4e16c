"""A package face that loads its names on first use, read from the ``.pyi`` stub beside it.

The stub (``__init__.pyi``) is the one list of the face's names: type checkers and IDEs read
it as the package's interface, and :func:`attach_stub` reads the same ``from ... import``
lines to know which module defines each name (the pattern of scientific-python's
``lazy_loader``, used by scipy and scikit-image, written out here in a few lines).
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path


def _stub_names(stub: Path, package: str) -> tuple[dict[str, str], set[str]]:
    """``{name: defining module}`` and the submodules a stub imports (absolute imports only)."""
    names: dict[str, str] = {}
    submodules: set[str] = set()
    for node in ast.parse(stub.read_text(encoding="utf-8")).body:
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level or not node.module:
            raise ValueError(f"{stub}: write absolute imports (from {package}.x import y)")
        for alias in node.names:
            name = alias.asname or alias.name
            if node.module == package:
                submodules.add(name)
            else:
                names[name] = node.module
    return names, submodules


def attach_stub(package: str, init_file: str):
    """``(__getattr__, __dir__, __all__)`` for the package ``package`` from its ``__init__.pyi``.

    Examples
    --------
    >>> import labelvar
    >>> labelvar.expected_f1.__module__
    'labelvar.analytic._closed_forms'
    """
    names, submodules = _stub_names(Path(init_file).with_suffix(".pyi"), package)
    namespace = importlib.import_module(package).__dict__

    def __getattr__(name: str):
        if name == "__version__":  # single-sourced: pyproject.toml -> the installed metadata
            from labelvar._base._provenance import version

            value = version()
        elif name in names:
            value = getattr(importlib.import_module(names[name]), name)
        elif name in submodules:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        namespace[name] = value
        return value

    def __dir__():
        return sorted(set(names) | submodules)

    return __getattr__, __dir__, sorted(names)
