"""The engine's kernel sets: one build (parallel or serial) of each kernel, by name.

:data:`KERNELS` ``[True]`` holds the ``prange`` kernels, ``[False]`` their serial twins
(bit-identical results); a runner picks a set and calls ``kern.collapsed(...)``,
``kern.generic(...)`` and so on, never a position in a tuple.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from labelvar import _kernels as K


class Kernels(NamedTuple):
    """One build (parallel or serial) of each explicit/collapsed kernel, by name."""

    binary: Callable
    generic: Callable
    collapsed: Callable
    binary_fast: Callable
    symmetric: Callable
    item_model: Callable
    parallel: bool


#: the parallel (True) and serial (False) kernel sets
KERNELS = {
    True: Kernels(binary=K.explicit_binary, generic=K.explicit_generic, collapsed=K.collapsed,
                  binary_fast=K.explicit_binary_fast, symmetric=K.explicit_symmetric,
                  item_model=K.item_model, parallel=True),
    False: Kernels(binary=K.explicit_binary_serial, generic=K.explicit_generic_serial,
                   collapsed=K.collapsed_serial, binary_fast=K.explicit_binary_fast_serial,
                   symmetric=K.explicit_symmetric_serial, item_model=K.item_model_serial,
                   parallel=False),
}
