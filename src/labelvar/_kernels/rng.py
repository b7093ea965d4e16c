"""Random numbers: the counter-based generator and the samplers built on it.

Each uniform is a pure function ``splitmix64(key + counter * GOLDEN)`` of a 64-bit key
and a counter (:func:`uniform`); binomial, gamma, beta, normal and categorical draws,
the packed alias tables of :func:`binomial_table` and :func:`alias_fill` are built on it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53

#: cells of the alias table of a tabulated binomial (:func:`binomial_table`): the last
#: one stands for "outside the window" (the tails), the others for window values
BINOMIAL_WINDOW = 64
_WIN_BITS = np.uint64(6)  # log2(BINOMIAL_WINDOW)
_WIN_SHIFT = np.uint64(58)  # 64 - _WIN_BITS: a hash's top bits pick the cell
_WIN_MASK = np.uint64((1 << 58) - 1)  # ... its other 58 bits are the uniform in the cell
#: largest n for which Binomial(n, 1/2) is a count of random bits (n / 64 hashes);
#: beyond, the ratio of uniforms costs less
HALF_BITS_MAX_N = 2048

# --------------------------------------------------------------------------- RNG primitives
@njit(cache=True, inline="always")
def splitmix64(x):
    """Finalise a 64-bit counter into a well-mixed 64-bit value (SplitMix64).

    Parameters
    ----------
    x : uint64
        The counter (already offset by the key).

    Returns
    -------
    uint64
        ``mix(x + GOLDEN)``; consecutive ``x`` give the SplitMix64 stream.
    """
    z = x + GOLDEN
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def uniform(key, counter):
    """Return the uniform in [0, 1) number ``counter`` of the stream ``key`` (53-bit).

    Parameters
    ----------
    key : uint64
        Stream key, e.g. from :func:`replicate_key`.
    counter : int or uint64
        Index of the draw inside the stream.

    Returns
    -------
    float
        A multiple of 2**-53 in [0, 1).
    """
    h = splitmix64(key + np.uint64(counter) * GOLDEN)
    return np.float64(np.int64(h >> _S11)) * _INV53  # < 2**53: exact, signed is cheaper


@njit(cache=True, inline="always")
def replicate_key(cell_key, replicate):
    """Key of replicate ``replicate`` of the grid cell with key ``cell_key``.

    Parameters
    ----------
    cell_key : uint64
        Stable 64-bit key of a grid cell (seed and parameter values).
    replicate : int
        Replicate index.

    Returns
    -------
    uint64
    """
    return splitmix64(splitmix64(cell_key ^ (np.uint64(replicate) * _M2)))


@njit(cache=True, inline="always")
def _popcount(x):
    """Number of set bits of a uint64 (LLVM turns this into one ``popcnt``)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def _binomial_half(n, key, ctr):
    """Binomial(n, 1/2) as the number of set bits among n random bits (exact)."""
    x = 0
    while n > 0:
        h = splitmix64(key + np.uint64(ctr) * GOLDEN)
        ctr += 1
        if n < 64:
            h >>= np.uint64(64 - n)
        x += _popcount(h)
        n -= 64
    return x, ctr


@njit(cache=True, inline="always")
def _stirling_tail(f):
    """lgamma(f) - ((f - 1/2) log f - f + log(2 pi) / 2), for f >= 16 (error < 1e-17)."""
    f2 = f * f
    return (1.0 / 12.0 - (1.0 / 360.0 - 1.0 / (1260.0 * f2)) / f2) / f


@njit(cache=True)
def _log_factorial_diff(a, b):
    """log(a!) - log(b!), accurate to a few ulp of the difference (not of log a!).

    For a, b >= 15 Stirling's series in a well-conditioned form,
    ``(a + 1/2) log1p((a - b) / (b + 1)) + (a - b) (log(b + 1) - 1)
    + tail(a + 1) - tail(b + 1)``; below, ``lgamma``.
    """
    if a < 15 or b < 15:
        return math.lgamma(a + 1.0) - math.lgamma(b + 1.0)
    d = a - b
    return ((a + 0.5) * math.log1p(d / (b + 1.0)) + d * (math.log(b + 1.0) - 1.0)
            + _stirling_tail(a + 1.0) - _stirling_tail(b + 1.0))


@njit(cache=True)
def _binomial_inversion(n, p, key, ctr):
    """Binomial(n, p) by sequential inversion from 0, for a small mean n p (p <= 1/2).

    ``P(0) = q**n`` is one ``exp``; the walk stops at n p + 10 sd + 10 and starts
    again with a new uniform (a truncation of probability below 1e-20).
    """
    q = 1.0 - p
    r = p / q
    bound = min(n, int(n * p + 10.0 * math.sqrt(n * p * q) + 10.0))
    p0 = math.exp(n * math.log1p(-p))
    while True:
        u = uniform(key, ctr)
        ctr += 1
        x = 0
        px = p0
        while u >= px and x < bound:
            u -= px
            px *= (n - x) * r / (x + 1)
            x += 1
        if u < px:
            return x, ctr


@njit(cache=True)
def _binomial_rou(n, p, key, ctr):
    """Binomial(n, p) by ratio of uniforms (Stadlober 1989), for p <= 1/2 and n p >= 8.

    Stadlober, E. (1989), "Ratio of uniforms as a convenient method for sampling
    from classical discrete distributions", Proc. Winter Simulation Conf.: with the
    mode ``m``, ``a = n p + 1/2`` and ``s = D1 sqrt(n p q + 1/2) + D2``
    (``D1 = 2 sqrt(2/e)``, ``D2 = 3 - 2 sqrt(3/e)``), ``K = floor(a + s (V - 1/2) / U)``
    is accepted when ``U**2 <= f(K) / f(m)``. The squeezes ``U (4 - U) - 3 <= t``
    (accept) and ``U (U - t) >= 1`` (reject), with ``t = log f(K)/f(m)``, spare the
    ``log U`` in ~86 % of the draws; about 1.5 pairs of uniforms per draw.
    """
    q = 1.0 - p
    lr = math.log(p / q)
    a = n * p + 0.5
    s = 1.7155277699214135 * math.sqrt(n * p * q + 0.5) + 0.8989161620588988
    m = int((n + 1) * p)
    while True:
        u = 1.0 - uniform(key, ctr)  # in (0, 1]
        v = uniform(key, ctr + 1)
        ctr += 2
        x = a + s * (v - 0.5) / u
        if x < 0.0 or x >= n + 1.0:
            continue
        k = int(x)
        t = _log_factorial_diff(m, k) + _log_factorial_diff(n - m, n - k) + (k - m) * lr
        if u * (4.0 - u) - 3.0 <= t:
            return k, ctr
        if u * (u - t) >= 1.0:
            continue
        if 2.0 * math.log(u) <= t:
            return k, ctr


@njit(cache=True)
def binomial(n, p, key, ctr):
    """Draw Binomial(n, p) from the counter stream ``key``, starting at draw ``ctr``.

    Exact for any n and p (to double precision): p = 1/2 and n up to
    ``HALF_BITS_MAX_N`` as a count of random bits, otherwise with
    ``p' = min(p, 1 - p)`` inversion from 0 when
    ``n p' < 8`` and ratio of uniforms above (:func:`_binomial_rou`), so the
    expected cost is bounded whatever ``n`` is. :func:`binomial_table` is the
    faster form for probabilities known in advance.

    Parameters
    ----------
    n : int
        Number of trials (>= 0).
    p : float
        Success probability in [0, 1].
    key : uint64
        Stream key.
    ctr : int
        Index of the first uniform to use.

    Returns
    -------
    (int, int)
        The draw and the next unused counter value.
    """
    if n <= 0 or p <= 0.0:
        return 0, ctr
    if p >= 1.0:
        return n, ctr
    if p == 0.5 and n <= HALF_BITS_MAX_N:
        return _binomial_half(n, key, ctr)
    flip = p > 0.5
    pp = 1.0 - p if flip else p
    if n * pp < 8.0:
        x, ctr = _binomial_inversion(n, pp, key, ctr)
    else:
        x, ctr = _binomial_rou(n, pp, key, ctr)
    return (n - x if flip else x), ctr


@njit(cache=True)
def _binomial_outside(n, p, lo, hi, u, ctr):
    """The tails of :func:`binomial_table`: Binomial(n, p) given X < lo or X > hi.

    ``u`` is uniform on [0, P(X < lo) + P(X > hi)); the lower tail is searched
    downwards from lo - 1, the upper one upwards from hi + 1, with the pmf
    recurrence started from ``f(k) = exp(log C(n, k) + k log p + (n - k) log q)``.
    Returns (-1, ctr) when rounding leaves ``u`` beyond both tails (the caller then
    draws afresh).
    """
    q = 1.0 - p
    r = p / q
    below = 0.0
    if lo > 0:  # P(X < lo), summed downwards
        k = lo - 1
        f0 = math.exp(_log_factorial_diff(n, k) - _log_factorial_diff(n - k, 0)
                      + k * math.log(p) + (n - k) * math.log(q))
        f = f0
        while k >= 0 and f > 0.0:
            below += f
            f *= k / ((n - k + 1) * r)
            k -= 1
        if u < below:
            k = lo - 1
            f = f0
            while k >= 0:
                if u < f:
                    return k, ctr
                u -= f
                f *= k / ((n - k + 1) * r)
                k -= 1
            return -1, ctr
        u -= below
    k = hi + 1
    if k <= n:
        f = math.exp(_log_factorial_diff(n, k) - _log_factorial_diff(n - k, 0)
                     + k * math.log(p) + (n - k) * math.log(q))
        while k <= n:
            if u < f:
                return k, ctr
            u -= f
            f *= (n - k) * r / (k + 1)
            k += 1
    return -1, ctr


@njit(cache=True)
def _binomial_tail(n, p, lo, hi, u, key, ctr):
    """:func:`_binomial_outside`, or a fresh :func:`binomial` draw after a rounding overshoot."""
    x, ctr = _binomial_outside(n, p, lo, hi, u, ctr)
    if x < 0:
        return binomial(n, p, key, ctr)
    return x, ctr


@njit(cache=True, inline="always")
def binomial_table(n, step, plan, key, ctr):
    """Draw Binomial(n, p) for the probability ``p`` number ``step`` of a binomial plan.

    A plan (built by ``labelvar.engine._tables.binomial_plan``) is a tuple
    ``(prob, row0, n_lo, n_hi, win_lo, table, outside)``. For trial counts
    ``n_lo[step] <= n <= n_hi[step]`` row ``row = row0[step] + n - n_lo[step]`` of
    ``table`` is a Walker alias table of W = ``BINOMIAL_WINDOW`` cells over the
    W - 1 values ``win_lo[row] + k`` (k < W - 1) and one more outcome, "outside the
    window", of probability ``outside[row]``. Each cell packs its acceptance
    threshold (58 bits) and its alias (6 bits) in one uint64: one hash gives the cell
    (its top 6 bits) and the uniform compared with the threshold (the other 58), so
    a draw is one hash, one load and a select, with no data-dependent branch. The
    outcome "outside" (at most 1 % of the mass, so rarely) draws X from the tails
    (:func:`_binomial_tail`) with a fresh uniform. p = 1/2 is a count of random bits
    (:func:`_binomial_half`, n <= ``HALF_BITS_MAX_N``); other counts go to
    :func:`binomial`. Every path is exact: the alias table reproduces the window's
    probabilities to 2**-58 per cell.

    The plan's arrays are indexed in place (``plan[5][row, i]``), never bound to local
    names: once inlined, a local array name costs two atomic reference-count updates
    per call, several times the draw itself.
    """
    if plan[0][step] == 0.5 and n <= HALF_BITS_MAX_N:
        return _binomial_half(n, key, ctr)
    if plan[2][step] <= n <= plan[3][step]:
        row = plan[1][step] + n - plan[2][step]
        h = splitmix64(key + np.uint64(ctr) * GOLDEN)
        i = h >> _WIN_SHIFT
        e = plan[5][row, i]
        k = i if (h & _WIN_MASK) < (e >> _WIN_BITS) else e & np.uint64(BINOMIAL_WINDOW - 1)
        if k < BINOMIAL_WINDOW - 1:
            return plan[4][row] + np.int64(k), ctr + 1
        lo = plan[4][row]
        return _binomial_tail(n, plan[0][step], lo, lo + BINOMIAL_WINDOW - 2,
                              uniform(key, ctr + 1) * plan[6][row], key, ctr + 2)
    return binomial(n, plan[0][step], key, ctr)


@njit(cache=True)
def binomial_alias_rows(q, table):
    """Fill ``table[row]`` with the packed alias table of ``q[row] = p * W / sum(p)``.

    The layout of :func:`binomial_table`: threshold ``floor(acceptance * 2**58)`` in
    the top 58 bits, alias in the low 6 (a cell that always accepts gets threshold 0
    and itself as alias). ``q`` is overwritten (:func:`alias_fill`).
    """
    w = q.shape[1]
    prob = np.empty(w)
    alias = np.empty(w, dtype=np.int64)
    scale = float(1 << 58)
    for row in range(q.shape[0]):
        alias_fill(q[row], prob, alias)
        for i in range(w):
            a = np.uint64(alias[i])
            thr = np.uint64(0)
            if prob[i] < 1.0:
                thr = np.uint64(prob[i] * scale)
            else:
                a = np.uint64(i)
            table[row, i] = (thr << _WIN_BITS) | a


@njit(cache=True)
def std_normal(key, ctr):
    """Standard normal by Box-Muller from two uniforms; returns (z, next ctr)."""
    u1 = 1.0 - uniform(key, ctr)  # in (0, 1]
    u2 = uniform(key, ctr + 1)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2), ctr + 2


@njit(cache=True)
def gamma(shape, key, ctr):
    """Gamma(shape, 1) by Marsaglia & Tsang (2000); shape < 1 via the U**(1/shape) boost.

    Returns (x, next ctr).
    """
    boost = 1.0
    if shape < 1.0:
        u = 1.0 - uniform(key, ctr)
        ctr += 1
        boost = u ** (1.0 / shape)
        shape += 1.0
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        z, ctr = std_normal(key, ctr)
        v = 1.0 + c * z
        if v <= 0.0:
            continue
        v = v * v * v
        u = uniform(key, ctr)
        ctr += 1
        if u < 1.0 - 0.0331 * z * z * z * z:
            return d * v * boost, ctr
        if u > 0.0 and math.log(u) < 0.5 * z * z + d * (1.0 - v + math.log(v)):
            return d * v * boost, ctr


@njit(cache=True)
def beta(a, b, key, ctr):
    """Beta(a, b) as X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b); returns (x, next ctr)."""
    x, ctr = gamma(a, key, ctr)
    y, ctr = gamma(b, key, ctr)
    return x / (x + y), ctr


@njit(cache=True)
def categorical(cum, u):
    """Index of the first ``cum[i] > u`` (inverse CDF of a cumulative probability vector)."""
    n = cum.shape[0]
    for i in range(n - 1):
        if u < cum[i]:
            return i
    return n - 1


@njit(cache=True)
def alias_fill(q, prob, alias):
    """Vose's alias method: fill ``prob`` (acceptance) and ``alias`` from ``q = p n / sum(p)``.

    Cells with q < 1 ("small") take the rest of their unit from a cell with q >= 1
    ("large"), last in first out; ``q`` is overwritten.
    """
    n = q.shape[0]
    small = np.empty(n, dtype=np.int64)
    large = np.empty(n, dtype=np.int64)
    n_small = 0
    n_large = 0
    for i in range(n):
        prob[i] = 1.0
        alias[i] = i
        if q[i] < 1.0:
            small[n_small] = i
            n_small += 1
        else:
            large[n_large] = i
            n_large += 1
    while n_small > 0 and n_large > 0:
        n_small -= 1
        n_large -= 1
        lo = small[n_small]
        hi = large[n_large]
        prob[lo] = q[lo]
        alias[lo] = hi
        q[hi] = q[hi] + q[lo] - 1.0
        if q[hi] < 1.0:
            small[n_small] = hi
            n_small += 1
        else:
            large[n_large] = hi
            n_large += 1
