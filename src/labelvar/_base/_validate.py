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


def _short(value) -> str:
    """The repr of ``value`` on one line of at most 80 characters."""
    text = " ".join(repr(value).split())
    return text if len(text) <= 80 else text[:77] + "..."


def as_float_array(name: str, value) -> np.ndarray:
    """Return ``value`` as a float array, refusing non-numbers and NaN."""
    try:
        if value is None:  # (numpy would read None as NaN)
            raise TypeError
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a number or an array of numbers, got {_short(value)}") from None
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not be NaN, got {_show(value)}")
    return arr


def _is_bool(value) -> bool:
    """A bool, a bool array or a non-empty list of bools (``True`` is not a number here)."""
    return isinstance(value, (bool, np.bool_)) or (
        isinstance(value, np.ndarray) and value.dtype.kind == "b") or (
        isinstance(value, (list, tuple)) and bool(value)
        and all(isinstance(x, (bool, np.bool_)) for x in value))


def probability(name: str, value, *, lo: float = 0.0, hi: float = 1.0,
                open_lo: bool = False, open_hi: bool = False) -> np.ndarray:
    """Check that every element of ``value`` lies in ``[lo, hi]`` (ends optionally open).

    Booleans are refused (``p_d=True`` is not a probability).
    """
    if _is_bool(value):
        raise ValueError(f"{name} must be a number in [{_num(lo)}, {_num(hi)}], got "
                         f"{_short(value)}")
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

    ``hi`` may be an array broadcastable with ``value`` (e.g. ``k <= n``). Booleans
    are refused (``n_boot=True`` is not a count).
    """
    if _is_bool(value):
        raise ValueError(f"{name} must be a whole number, got {_short(value)}")
    arr = as_float_array(name, value)
    if np.isinf(arr).any() or (arr != np.round(arr)).any():
        raise ValueError(f"{name} must be a whole number, got {_show(value)}")
    big = np.abs(arr) >= 2.0**63  # (would wrap around in int64)
    if big.any():
        allowed = f">= {lo} and" if lo is not None else "a whole number"
        raise ValueError(f"{name} must be {allowed} below 2**63, got {_show(arr[big])}")
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


def single(name: str, arr):
    """The one value of a checked 0-d array (a Python float or int); arrays are refused.

    Examples
    --------
    >>> single("p_d", probability("p_d", 0.5))
    0.5
    >>> single("p_d", probability("p_d", [0.5, 0.6]))
    Traceback (most recent call last):
    ...
    ValueError: p_d must be a single number, got [0.5, 0.6] (shape (2,))
    """
    arr = np.asarray(arr)
    if arr.ndim != 0:
        raise ValueError(f"{name} must be a single number, got {_show(arr)} (shape {arr.shape})")
    return arr.item()


def broadcast(**arrays) -> None:
    """Check that the named (checked) arrays broadcast against each other, like numpy's.

    Examples
    --------
    >>> broadcast(p_d=np.zeros((3, 1)), m=np.zeros(4))
    >>> broadcast(p_d=np.zeros(2), m=np.zeros(3))
    Traceback (most recent call last):
    ...
    ValueError: p_d and m must broadcast against each other, got shapes (2,) and (3,)
    """
    shapes = [np.shape(a) for a in arrays.values()]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        names = list(arrays)
        raise ValueError(f"{', '.join(names[:-1])} and {names[-1]} must broadcast against each "
                         f"other, got shapes {', '.join(map(str, shapes[:-1]))} and {shapes[-1]}"
                         ) from None


def n_labels(value, name: str = "n_labels") -> np.ndarray:
    """Check a number of labels L (a whole number >= 2)."""
    return integer(name, value, lo=2)


def choice(name: str, value, allowed: Iterable[str]) -> str:
    """Check that ``value`` is one of ``allowed``."""
    allowed = tuple(allowed)
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return value


def names(name: str, value, what: str = "name") -> list[str]:
    """A string or a sequence of distinct strings, as a list (a string is one name).

    Examples
    --------
    >>> names("humans", "dr"), names("humans", ("a", "b"))
    (['dr'], ['a', 'b'])
    >>> names("humans", 3)
    Traceback (most recent call last):
    ...
    ValueError: humans must be a name or a list of names, got int 3
    >>> names("metrics", ["f1", "f1"], "metric")
    Traceback (most recent call last):
    ...
    ValueError: metrics: 'f1' is given twice; give each metric once
    """
    if isinstance(value, str):
        return [value]
    if isinstance(value, (bytes, dict)) or not isinstance(value, Iterable):
        raise ValueError(f"{name} must be a {what} or a list of {what}s, got "
                         f"{type(value).__name__} {_short(value)}")
    out = list(value)
    bad = next((x for x in out if not isinstance(x, str)), None)
    if bad is not None:
        raise ValueError(f"{name} must be a {what} or a list of {what}s (strings), got "
                         f"{type(bad).__name__} {_short(bad)} among them")
    seen: set = set()
    for x in out:
        if x in seen:
            raise ValueError(f"{name}: {x!r} is given twice; give each {what} once")
        seen.add(x)
    return out


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


#: Tolerance of "sums to 1" for mixture weights and class priors (rounding only;
#: relative weights are refused, not rescaled).
SUM_TOL = 1e-9
#: environment variable that sets the memory limit (bytes, or with a unit: "8GB", "500MB")
MEMORY_ENV = "LABELVAR_MEMORY_LIMIT"
#: the largest memory limit accepted (1 EB: beyond any machine, and an int64 still)
_MEMORY_MAX = 1e18
_UNITS = {"": 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
          "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40}


def memory_limit() -> int:
    """The largest allocation a computation may plan, in bytes.

    ``$LABELVAR_MEMORY_LIMIT`` (e.g. ``"8GB"``) if set, else half of the machine's
    physical memory (4 GB where that cannot be read).

    Examples
    --------
    >>> memory_limit() > 0
    True
    """
    import os
    import re

    text = os.environ.get(MEMORY_ENV, "").strip()
    if text:
        match = re.fullmatch(r"([0-9.]+(?:[eE][0-9]+)?)\s*([A-Za-z]*)", text)
        unit = match.group(2).upper() if match else None
        size = float(match.group(1)) * _UNITS[unit] if match and unit in _UNITS else math.nan
        if not 1 <= size <= _MEMORY_MAX:  # (NaN, inf: 1e400GB; 0; beyond 1 EB)
            raise ValueError(f"{MEMORY_ENV} must be a size such as 8GB or 500MB, from 1 B to "
                             f"1000 PB, got {text!r}")
        return int(size)
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2)
    except (ValueError, OSError, AttributeError):
        return 4 * 10**9


def _size(n_bytes: float) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.3g} {unit}"
    return f"{int(n_bytes)} B"


def memory(what: str, n_bytes: float, way_out: str) -> None:
    """Refuse, before allocating, a computation estimated to need more than the limit.

    Parameters
    ----------
    what : str
        The computation and the input that sizes it, e.g. ``"the exact F1 distribution
        for n_items=1000000000"``.
    n_bytes : float
        Estimated peak memory in bytes.
    way_out : str
        What the user can do instead.

    Examples
    --------
    >>> memory("a table", 1e30, "use fewer rows")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: a table needs about 1e+18 TB of memory, more than the limit of ...; use fewer rows ...
    """
    limit = memory_limit()
    if not n_bytes <= limit:
        raise ValueError(f"{what} needs about {_size(n_bytes)} of memory, more than the limit of "
                         f"{_size(limit)}; {way_out} (or raise {MEMORY_ENV})")
