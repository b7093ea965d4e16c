"""Let a submodule that shares its name with its main function be called as that function.

``labelvar.simulate`` and ``labelvar.stratify`` are both submodules and the public
functions inside them. Once ``import labelvar.simulate`` has run, Python binds the
package attribute to the *module*, so ``labelvar.simulate(...)`` would fail; making
the module callable keeps both spellings working whatever was imported first.
"""

from __future__ import annotations

import sys
import types


def make_module_callable(module_name: str, function_name: str) -> None:
    """Make ``sys.modules[module_name](...)`` call the module's ``function_name``."""

    class _CallableModule(types.ModuleType):
        def __call__(self, *args, **kwargs):
            return getattr(self, function_name)(*args, **kwargs)

    _CallableModule.__call__.__doc__ = f"Call :func:`{module_name}.{function_name}`."
    sys.modules[module_name].__class__ = _CallableModule
