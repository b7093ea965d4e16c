"""A package face that loads its names on first use, read from the ``.pyi`` stub beside it.

The stub (``__init__.pyi``) is the one list of the face's names: type checkers and IDEs read
it as the package's interface, and :func:`attach_stub` reads the same ``from ... import``
lines to know which module defines each name (the pattern of scientific-python's
``lazy_loader``, used by scipy and scikit-image, written out here in a few lines with
nothing but builtins, so ``import labelvar`` stays a few milliseconds).
"""

import sys


def _stub_names(stub, package: str) -> tuple[dict[str, str], set[str]]:
    """``{name: defining module}`` and the submodules a stub imports (absolute imports only).

    Each statement reads ``from module import a as a, b as b`` (parentheses and line breaks
    allowed); comments and the other lines (``__all__: list[str]``) are skipped.
    """
    with open(stub, encoding="utf-8") as f:
        lines = [line.split("#", 1)[0].strip() for line in f]
    statements, current = [], ""
    for line in lines:  # join a parenthesised import onto one line
        current = f"{current} {line}" if current else line
        if current.startswith("from ") and current.count("(") > current.count(")"):
            continue
        statements.append(current)
        current = ""
    names: dict[str, str] = {}
    submodules: set[str] = set()
    for statement in statements:
        if not statement.startswith("from "):
            continue
        module, _, imported = statement[5:].partition(" import ")
        module = module.strip()
        if module.startswith("."):
            raise ValueError(f"{stub}: write absolute imports (from {package}.x import y)")
        for item in imported.replace("(", " ").replace(")", " ").split(","):
            if item.strip():
                name = item.split(" as ")[-1].strip()
                if module == package:
                    submodules.add(name)
                else:
                    names[name] = module
    return names, submodules


def _import(module: str):
    __import__(module)
    return sys.modules[module]


def attach_stub(package: str, init_file: str):
    """``(__getattr__, __dir__, __all__)`` for the package ``package`` from its ``__init__.pyi``.

    Examples
    --------
    >>> import labelvar
    >>> labelvar.expected_f1.__module__
    'labelvar.analytic._closed_forms'
    """
    names, submodules = _stub_names(init_file[: -len(".py")] + ".pyi", package)
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str):
        if name == "__version__":  # single-sourced: pyproject.toml -> the installed metadata
            from labelvar._base._provenance import version

            value = version()
        elif name in names:
            value = getattr(_import(names[name]), name)
        elif name in submodules:
            value = _import(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        namespace[name] = value
        return value

    def __dir__():
        return sorted(set(names) | submodules)

    return __getattr__, __dir__, sorted(names)
