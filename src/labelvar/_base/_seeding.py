"""The one seed helper: every public function that draws takes ``seed`` and passes it here.

A seed is ``int | numpy.random.Generator | None``:

- an int in [0, 2**63 - 1] is used exactly (never through a float, so seeds
  above 2**53 stay distinct);
- a Generator gives one int drawn from it;
- None draws a fresh int from the operating system's entropy.

In every case :func:`as_seed` returns the int actually used, so a result can
record it and a rerun with that int reproduces the run.

Child streams are derived from (seed, parts...) by hashing, never from a position
in a loop, so a cell or a task gets the same numbers alone or inside a bigger run.

Examples
--------
>>> as_seed(2**63 - 1) == 2**63 - 1
True
>>> as_seed(2**53) != as_seed(2**53 + 1)
True
>>> derive(7, "bootstrap", "task-a") == derive(7, "bootstrap", "task-a")
True
>>> float(generator(7, "x").random()) == float(generator(7, "x").random())
True
"""

from __future__ import annotations

import hashlib
import operator

import numpy as np

#: largest seed accepted (seeds are kept in a signed 64-bit integer)
MAX_SEED = 2**63 - 1


def as_seed(seed, name: str = "seed") -> int:
    """Return the int seed to use for ``seed`` (int, numpy Generator or None).

    Parameters
    ----------
    seed : int, numpy.random.Generator or None
        An int in [0, 2**63 - 1] is returned unchanged; a Generator gives one
        draw; None a fresh value from the OS entropy.
    name : str
        Field name used in the error message.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        For a bool, a negative or too large int, a non-integral number or any
        other type.

    Examples
    --------
    >>> as_seed(12)
    12
    >>> as_seed(np.random.default_rng(0)) == as_seed(np.random.default_rng(0))
    True
    >>> as_seed(-1)
    Traceback (most recent call last):
    ...
    ValueError: seed must be an int in [0, 2**63 - 1], a numpy Generator or None; got -1
    """
    if seed is None:
        return int(np.random.SeedSequence().entropy) & MAX_SEED
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, MAX_SEED, endpoint=True))
    bad = ValueError(f"{name} must be an int in [0, 2**63 - 1], a numpy Generator or None; "
                     f"got {seed!r}")
    if isinstance(seed, (bool, np.bool_)):
        raise bad
    try:
        value = operator.index(seed)
    except TypeError:
        # whole floats such as 3.0 (e.g. from a YAML file) are accepted below 2**53,
        # where a float is exact
        if isinstance(seed, (float, np.floating)) and float(seed).is_integer() \
                and 0 <= seed < 2**53:
            value = int(seed)
        else:
            raise bad from None
    if not 0 <= value <= MAX_SEED:
        raise bad
    return int(value)


def derive(seed: int, *parts) -> int:
    """A child seed in [0, 2**63 - 1] for ``parts`` (a stable hash, not a position).

    Parameters
    ----------
    seed : int
        A seed returned by :func:`as_seed`.
    *parts
        Anything with a stable ``repr`` (strings, ints, floats, tuples of them).

    Returns
    -------
    int

    Examples
    --------
    >>> derive(0, "a") != derive(0, "b")
    True
    """
    text = repr((int(seed),) + tuple(parts)).encode()
    digest = hashlib.blake2b(text, digest_size=8, person=b"labelvar-seed").digest()
    return int.from_bytes(digest, "little") & MAX_SEED


def generator(seed, *parts) -> np.random.Generator:
    """A numpy Generator for ``(seed, *parts)``; ``seed`` as accepted by :func:`as_seed`.

    Examples
    --------
    >>> g = generator(3, "ties")
    >>> isinstance(g, np.random.Generator)
    True
    """
    return np.random.default_rng(derive(as_seed(seed), *parts))
