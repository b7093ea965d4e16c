"""Input checks shared by every public function.

Each check raises :class:`ValueError` with one line that names the field and
says what is allowed, e.g. ``p_d must be in [0, 1], got 1.2``. The command line
turns that line into ``labelvar: error: ...`` and exit code 2.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np


def _show(value) -> str:
    arr = np.asarray(value)
    if arr.size == 1:
        return repr(arr.item())
    return np.array2string(arr.ravel()[:6], separator=", ") + ("..." if arr.size > 6 else "")


def as_float_array(name: str, value) -> np.ndarray:
    """Return ``value`` as a float array, refusing non-numbers and NaN."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number or an array of numbers, got {value!r}") from None
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not be NaN, got {_show(value)}")
    return arr


def probability(name: str, value, *, lo: float = 0.0, hi: float = 1.0,
                open_lo: bool = False, open_hi: bool = False) -> np.ndarray:
    """Check that every element of ``value`` lies in ``[lo, hi]`` (ends optionally open)."""
    arr = as_float_array(name, value)
    bad = (arr < lo) | (arr > hi)
    if open_lo:
        bad |= arr == lo
    if open_hi:
        bad |= arr == hi
    if bad.any():
        left = "(" if open_lo else "["
        right = ")" if open_hi else "]"
        raise ValueError(
            f"{name} must be in {left}{_num(lo)}, {_num(hi)}{right}, got {_show(arr[bad])}"
        )
    return arr


def integer(name: str, value, *, lo: int | None = None, hi=None) -> np.ndarray:
    """Check that ``value`` holds whole numbers in ``[lo, hi]``; return an int64 array.

    ``hi`` may be an array broadcastable with ``value`` (e.g. ``k <= n``).
    """
    arr = as_float_array(name, value)
    if np.isinf(arr).any() or (arr != np.round(arr)).any():
        raise ValueError(f"{name} must be a whole number, got {_show(value)}")
    out = arr.astype(np.int64)
    if lo is not None and (out < lo).any():
        raise ValueError(f"{name} must be >= {lo}, got {_show(out[out < lo])}")
    if hi is not None:
        hi_arr = np.asarray(hi)
        bad = out > hi_arr
        if np.any(bad):
            if hi_arr.ndim == 0:
                raise ValueError(f"{name} must be <= {int(hi_arr)}, got {_show(out[bad])}")
            raise ValueError(f"{name} must be in [0, n] (at most the number of items), "
                             f"got {_show(np.broadcast_to(out, bad.shape)[bad])}")
    return out


def n_labels(value, name: str = "n_labels") -> np.ndarray:
    """Check a number of labels L (a whole number >= 2)."""
    return integer(name, value, lo=2)


def choice(name: str, value, allowed: Iterable[str]) -> str:
    """Check that ``value`` is one of ``allowed``."""
    allowed = tuple(allowed)
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return value


def same_length(**arrays) -> int:
    """Check that the named 1-d arrays have one common, non-zero length."""
    lengths = {k: np.asarray(v).shape for k, v in arrays.items()}
    shapes = set(lengths.values())
    if len(shapes) != 1:
        desc = ", ".join(f"{k} has shape {s}" for k, s in lengths.items())
        raise ValueError(f"bin arrays must have the same length: {desc}")
    (shape,) = shapes
    if len(shape) != 1 or shape[0] == 0:
        raise ValueError(f"bin arrays must be non-empty 1-d sequences, got shape {shape}")
    return shape[0]


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() and not math.isinf(x) else repr(float(x))
