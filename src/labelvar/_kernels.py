"""Every numba kernel of labelvar lives here.

Nothing outside this module is jitted; public functions validate their input,
then call a kernel.

Randomness
----------
All kernels draw from a counter-based generator: each uniform is a pure
function ``splitmix64(key + counter * GOLDEN)`` of a 64-bit key and a counter.
A grid cell has a key derived (in Python) from its parameter values and the
seed; a replicate's key is ``replicate_key(cell_key, r)``; inside a replicate
the counter is ``item * draws_per_item + draw`` (explicit path) or a running
counter (collapsed path). A replicate's result therefore depends on
(seed, cell parameters, replicate index) alone: it is bit-identical for any
number of threads, any chunking of the grid, and the serial and parallel
builds of a kernel. No kernel touches ``np.random``.

Kernels
-------
``explicit_generic``   per-item simulation, any L and K (coin or panel mode)
``explicit_binary``    the same for L = 2, K fixed at compile time (a K-tuple)
``explicit_symmetric`` any L, panel mode with a fixed theta and class counts:
                       an item's (stratum, truth) and predictions in one or a
                       few alias draws (exact in distribution)
``collapsed``          exchangeable items: counts drawn per replicate by chains
                       of conditional binomials from per-cell tables
                       (``binomial_table``), cost independent of the number of items
``summary_stats``      mean, sd and 5/50/95 % quantiles of many series at once

Each has a ``_serial`` twin compiled without ``parallel=True``; tests check
that both give bit-identical results.

Output layout (all kernels): ``out[r, j, s, f]`` for replicate ``r``, labeller
``j``, stratum ``s`` (0 = all items, 1.. = observed-p_d bins) and field ``f``
in :data:`FIELDS`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53

#: fields of the per-replicate output array, in order
FIELDS = ("n", "correct", "tp", "fp", "fn", "tn", "accuracy", "precision", "recall", "f1",
          "theta")
N_FIELDS = len(FIELDS)

# labeller kinds
EXPERT = 0   # one more annotator: modal label with probability theta, else another label
MATRIX = 1   # fixed prediction matrix P(pred = h | modal label = c)

# theta kinds (panel mode)
THETA_FIXED = 0
THETA_BETA = 1
THETA_DISCRETE = 2

#: cells of the alias table of a tabulated binomial (:func:`binomial_table`): the last
#: one stands for "outside the window" (the tails), the others for window values
BINOMIAL_WINDOW = 64
_WIN_BITS = np.uint64(6)  # log2(BINOMIAL_WINDOW)
_WIN_SHIFT = np.uint64(58)  # 64 - _WIN_BITS: a hash's top bits pick the cell
_WIN_MASK = np.uint64((1 << 58) - 1)  # ... its other 58 bits are the uniform in the cell
#: largest n for which Binomial(n, 1/2) is a count of random bits (n / 64 hashes);
#: beyond, the ratio of uniforms costs less
HALF_BITS_MAX_N = 2048

# tie rules
TIE_RANDOM = -1
TIE_DROP = -2


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
def _binomial_outside(n, p, lo, hi, u, key, ctr):
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
    x, ctr = _binomial_outside(n, p, lo, hi, u, key, ctr)
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


# --------------------------------------------------------------------------- metrics
@njit(cache=True, inline="always")
def _count_fields(out_r, j, s, n, correct, tp, fp, fn):
    """The count fields n, correct, tp, fp, fn, tn of ``out_r[j, s]`` (label 1 vs the rest)."""
    out_r[j, s, 0] = n
    out_r[j, s, 1] = correct
    out_r[j, s, 2] = tp
    out_r[j, s, 3] = fp
    out_r[j, s, 4] = fn
    out_r[j, s, 5] = n - tp - fn - fp


@njit(cache=True, error_model="numpy")
def _finish_replicate(conf, theta_sum, out_r):
    """Metrics of every labeller x stratum of one replicate into ``out_r[j, s, :]``.

    From the L x L confusion counts ``conf[j, s, truth, pred]``: n, correct and
    tp/fp/fn/tn of label 1 against the rest, then accuracy, precision, recall, F1
    and theta (= ``theta_sum[s] / n``). Binary (L = 2): precision, recall and F1 of
    the positive class (label 1); L > 2: macro averages over all L classes
    (:func:`_macro_metrics`). 0/0 counts as 0 (scikit-learn's
    ``zero_division=0``); F1 = 2 TP / (2 TP + FP + FN); an empty stratum (n = 0)
    gives NaN metrics.

    The binary case is one branch-free loop (guarded denominators, then selects),
    which the compiler keeps in registers; every division is guarded, so numpy's
    error model (no zero checks) gives the same numbers faster.
    """
    if conf.shape[2] != 2:
        for j in range(conf.shape[0]):
            for s in range(conf.shape[1]):
                _macro_metrics(conf, j, s, theta_sum[s], out_r)
        return
    for j in range(conf.shape[0]):
        for s in range(conf.shape[1]):
            tp = conf[j, s, 1, 1]
            fn = conf[j, s, 1, 0]
            fp = conf[j, s, 0, 1]
            correct = conf[j, s, 0, 0] + tp
            n = correct + fn + fp
            _count_fields(out_r, j, s, n, correct, tp, fp, fn)
            some = n > 0
            nn = n if some else 1
            accuracy = correct / nn
            precision = tp / (tp + fp if tp + fp > 0 else 1)
            recall = tp / (tp + fn if tp + fn > 0 else 1)
            f1 = 2.0 * tp / (2.0 * tp + fp + fn if tp + fp + fn > 0 else 1.0)
            theta = theta_sum[s] / nn
            out_r[j, s, 6] = accuracy if some else np.nan
            out_r[j, s, 7] = precision if some else np.nan
            out_r[j, s, 8] = recall if some else np.nan
            out_r[j, s, 9] = f1 if some else np.nan
            out_r[j, s, 10] = theta if some else np.nan


@njit(cache=True, error_model="numpy", inline="always")
def _macro_metrics(conf, j, s, theta_sum, out_r):
    """:func:`_finish_replicate` for L > 2 and one (labeller j, stratum s).

    Inlined: a call that takes arrays costs atomic reference-count updates per array,
    more than these few sums (one pass over the L x L counts per class).
    """
    n_lab = conf.shape[2]
    n = 0
    correct = 0
    sp = 0.0
    sr = 0.0
    sf = 0.0
    row1 = 0
    col1 = 0
    for c in range(n_lab):
        tpc = conf[j, s, c, c]
        predc = 0
        truec = 0
        for a in range(n_lab):
            predc += conf[j, s, a, c]
            truec += conf[j, s, c, a]
        n += truec
        correct += tpc
        if c == 1:
            row1 = truec
            col1 = predc
        sp += tpc / (predc if predc > 0 else 1)
        sr += tpc / (truec if truec > 0 else 1)
        sf += 2.0 * tpc / (predc + truec if predc + truec > 0 else 1)
    tp = conf[j, s, 1, 1]
    _count_fields(out_r, j, s, n, correct, tp, col1 - tp, row1 - tp)
    some = n > 0
    nn = n if some else 1
    out_r[j, s, 6] = correct / nn if some else np.nan
    out_r[j, s, 7] = sp / n_lab if some else np.nan
    out_r[j, s, 8] = sr / n_lab if some else np.nan
    out_r[j, s, 9] = sf / n_lab if some else np.nan
    out_r[j, s, 10] = theta_sum / nn if some else np.nan


@njit(cache=True)
def metrics_into(conf, theta_sum, res):
    """Fill ``res`` (length N_FIELDS) from one L x L confusion matrix ``conf[truth, pred]``.

    The metrics of :func:`_finish_replicate` (the one definition) for a lone matrix.
    """
    _finish_replicate(conf.reshape((1, 1) + conf.shape), np.full(1, theta_sum),
                      res.reshape((1, 1, res.shape[0])))


# --------------------------------------------------------------------------- explicit, any L
@njit(cache=True, inline="always")
def _other_label(c, n_lab, u):
    """A label other than ``c``, uniformly among the n_lab - 1 others."""
    k = int(u * (n_lab - 1))
    if k >= n_lab - 1:
        k = n_lab - 2
    return (c + 1 + k) % n_lab


@njit(cache=True, inline="always")
def _draw_theta(theta_kind, theta_par, theta_cum, key, ctr):
    """Per-item agreement level theta (panel mode); returns (theta, next ctr)."""
    if theta_kind == THETA_FIXED:
        return theta_par[0], ctr
    if theta_kind == THETA_BETA:
        b, ctr = beta(theta_par[0], theta_par[1], key, ctr)
        return theta_par[2] + (theta_par[3] - theta_par[2]) * b, ctr
    i = categorical(theta_cum, uniform(key, ctr))
    return theta_par[i], ctr + 1


@njit(cache=True, inline="always")
def _annotator_share(u, rho, expert):
    """Does a labeller answer this item like an annotator? (yes/no, ``u`` rescaled).

    An expert always does; a :class:`labelvar.models.Model` with correlation ``rho``
    does when ``u < rho`` (``u / rho`` is then a fresh uniform for the annotator-like
    answer), otherwise it answers from its matrix with ``(u - rho) / (1 - rho)``.
    """
    if expert:
        return True, u
    if rho > 0.0 and u < rho:
        return True, u / rho
    if rho > 0.0:
        return False, (u - rho) / (1.0 - rho)
    return False, u


@njit(cache=True, inline="always")
def _matrix_label(lab_cum, j, c, u, n_lab):
    """Labeller ``j``'s prediction for an item of (modal) label ``c`` from one uniform."""
    for a in range(n_lab - 1):
        if u < lab_cum[j, c, a]:
            return a
    return n_lab - 1


@njit(cache=True, inline="always")
def _count(conf, j, s, g, h):
    """Count (truth g, prediction h) for labeller j in stratum "all" and in stratum s."""
    conf[j, 0, g, h] += 1
    if s > 0:
        conf[j, s, g, h] += 1


@njit(cache=True, inline="always")
def _plurality(votes, n_lab, tie_rule, rkey, ctr):
    """Ground truth of one vote count vector: (label, top count); label -1 = dropped tie.

    The plurality label; ties go to a random tied label (one uniform at ``ctr``), to
    ``tie_rule`` when it is a tied label, or the item is dropped (``TIE_DROP``).
    """
    top = -1
    n_top = 0
    g = 0
    for a in range(n_lab):
        va = votes[a]
        if va > top:
            top = va
            n_top = 1
            g = a
        elif va == top:
            n_top += 1
    if n_top > 1:
        if tie_rule == TIE_DROP:
            return -1, top
        if tie_rule >= 0 and votes[tie_rule] == top:
            return tie_rule, top
        pick = int(uniform(rkey, ctr) * n_top)
        if pick >= n_top:
            pick = n_top - 1
        for a in range(n_lab):
            if votes[a] == top:
                if pick == 0:
                    g = a
                pick -= 1
    return g, top


@njit(cache=True)
def _explicit_generic_rep(rkey, n_items, n_lab, panel_k, panel, class_cum, class_counts,
                          bernoulli, theta_kind, theta_par, theta_cum, comp_prob, comp_alias,
                          comp_rel, comp_info, hetero, vote_cum, tie_rule, lab_kind, lab_cum,
                          lab_rho, stratum_of_top, n_strata, out_r):
    """One replicate of the per-item simulation (any L, K); fills ``out_r``.

    With a fixed theta and a composition table (``comp_rel[i, p]`` = votes for
    label (modal + p) mod L in composition i; ``comp_prob``/``comp_alias`` its
    multinomial probabilities as a Walker alias table; ``comp_info[i]`` = (top
    count, number of labels at the top, first position at the top)) the whole
    vote composition is drawn from one uniform: the votes of a homogeneous
    panel are exchangeable, so the composition carries all the information.
    Otherwise (a theta prior, per-annotator skills, or empty tables) each vote
    is drawn. ``hetero``: annotator k votes h with
    probability given by its own cumulative matrix ``vote_cum[k, modal, :]``
    (Dawid-Skene skills; theta is then only the expert's agreement).
    """
    n_j = lab_kind.shape[0]
    comp_n = comp_prob.shape[0]
    conf = np.zeros((n_j, n_strata, n_lab, n_lab), dtype=np.int64)
    theta_sum = np.zeros(n_strata)
    votes = np.zeros(n_lab, dtype=np.int64)
    # draws per item: class, K votes, tie-break, labellers (theta from a Beta needs a
    # variable number of draws: it has its own sub-stream per item). A vote or an
    # expert uses one uniform u: the modal label if u < theta, else other label
    # number floor((u - theta) / (1 - theta) * (L - 1)) (u given u >= theta is uniform).
    stride = np.uint64(panel_k + n_j + 3)
    theta = theta_par[0]
    n_other = n_lab - 1
    # a non-modal draw u >= theta picks other label number floor((u - theta) * scale)
    scale = n_other / (1.0 - theta) if theta < 1.0 else 0.0
    c = 0
    c_end = class_counts[0]
    for i in range(n_items):
        base = np.uint64(i) * stride
        # modal (coin mode: true) label
        if bernoulli:
            c = categorical(class_cum, uniform(rkey, base))
        else:
            while i >= c_end:  # items are laid out class by class
                c += 1
                c_end += class_counts[c]
        g = c
        if panel and comp_n > 0:
            # the whole vote composition from one uniform (alias method), then its
            # precomputed top count / number of tied labels / winner position
            x = uniform(rkey, base + np.uint64(1)) * comp_n
            idx = int(x)
            if idx >= comp_n:
                idx = comp_n - 1
            if x - idx >= comp_prob[idx]:
                idx = comp_alias[idx]
            top = comp_info[idx, 0]
            if comp_info[idx, 1] == 1:
                p = comp_info[idx, 2]
            else:
                if tie_rule == TIE_DROP:
                    continue
                p = -1
                if tie_rule >= 0:
                    rel = tie_rule - c
                    if rel < 0:
                        rel += n_lab
                    if comp_rel[idx, rel] == top:
                        p = rel
                if p < 0:
                    n_top = comp_info[idx, 1]
                    pick = int(uniform(rkey, base + np.uint64(panel_k + 2)) * n_top)
                    if pick >= n_top:
                        pick = n_top - 1
                    for q in range(n_lab):
                        if comp_rel[idx, q] == top:
                            if pick == 0:
                                p = q
                                break
                            pick -= 1
            g = c + p
            if g >= n_lab:
                g -= n_lab
            s = stratum_of_top[top]
        elif panel:
            if theta_kind != THETA_FIXED:
                theta, _ = _draw_theta(theta_kind, theta_par, theta_cum,
                                       splitmix64(rkey ^ (np.uint64(i) * _M1 + _M2)), 0)
                scale = n_other / (1.0 - theta) if theta < 1.0 else 0.0
            for a in range(n_lab):
                votes[a] = 0
            if hetero:
                for k in range(panel_k):
                    u = uniform(rkey, base + np.uint64(1 + k))
                    o = n_lab - 1
                    for a in range(n_lab - 1):
                        if u < vote_cum[k, c, a]:
                            o = a
                            break
                    votes[o] += 1
            else:
                for k in range(panel_k):
                    u = uniform(rkey, base + np.uint64(1 + k))
                    if u < theta:
                        votes[c] += 1
                    else:
                        o = int((u - theta) * scale)
                        if o >= n_other:
                            o = n_other - 1
                        o += c + 1
                        if o >= n_lab:
                            o -= n_lab
                        votes[o] += 1
            g, top = _plurality(votes, n_lab, tie_rule, rkey, base + np.uint64(panel_k + 2))
            if g < 0:
                continue  # a tie, dropped
            s = stratum_of_top[top]
        else:
            s = 0
        theta_sum[0] += theta
        if s > 0:
            theta_sum[s] += theta
        lbase = base + np.uint64(panel_k + 3)
        for j in range(n_j):
            like, u = _annotator_share(uniform(rkey, lbase + np.uint64(j)), lab_rho[j],
                                       lab_kind[j] == EXPERT)
            if like:
                if u < theta:
                    h = c
                else:
                    h = int((u - theta) * scale)
                    if h >= n_other:
                        h = n_other - 1
                    h += c + 1
                    if h >= n_lab:
                        h -= n_lab
            else:
                h = _matrix_label(lab_cum, j, c, u, n_lab)
            _count(conf, j, s, g, h)
    _finish_replicate(conf, theta_sum, out_r)


@njit(cache=True, parallel=True)
def explicit_generic(cell_key, n_rep, n_items, n_lab, panel_k, panel, class_cum, class_counts,
                     bernoulli, theta_kind, theta_par, theta_cum, comp_prob, comp_alias,
                     comp_rel, comp_info, hetero, vote_cum, tie_rule, lab_kind, lab_cum, lab_rho,
                     stratum_of_top, n_strata, out):
    """Per-item simulation of ``n_rep`` replicates of one grid cell (any L, K).

    Coin mode (``panel=False``): item i's true label is its class; labellers
    predict from it. Panel mode: item i has a modal label and an agreement
    level theta; K annotators vote (modal label with probability theta, else a
    uniform other label); the truth is the plurality with ``tie_rule``
    (TIE_RANDOM, TIE_DROP, or a label that wins the ties it takes part in);
    the stratum is ``stratum_of_top[top votes]``. Labellers: EXPERT (modal
    label with probability theta, else a uniform other label) or MATRIX
    (``lab_cum[j, modal]`` is the cumulative prediction distribution; with
    ``lab_rho[j] > 0`` the labeller answers like the expert on that share of the
    items, see :class:`labelvar.models.Model`). ``hetero``/``vote_cum``:
    per-annotator vote matrices (see :func:`_explicit_generic_rep`). Writes
    ``out[r, j, s, :]`` (fields
    :data:`FIELDS`). Replicates run in parallel (``prange``);
    :func:`explicit_generic_serial` is the serial twin.
    """
    for r in prange(n_rep):
        _explicit_generic_rep(replicate_key(cell_key, r), n_items, n_lab, panel_k, panel,
                              class_cum, class_counts, bernoulli, theta_kind, theta_par,
                              theta_cum, comp_prob, comp_alias, comp_rel, comp_info, hetero,
                              vote_cum, tie_rule, lab_kind, lab_cum, lab_rho, stratum_of_top,
                              n_strata, out[r])


@njit(cache=True)
def explicit_generic_serial(cell_key, n_rep, n_items, n_lab, panel_k, panel, class_cum,
                            class_counts, bernoulli, theta_kind, theta_par, theta_cum, comp_prob,
                            comp_alias, comp_rel, comp_info, hetero, vote_cum, tie_rule, lab_kind,
                            lab_cum, lab_rho, stratum_of_top, n_strata, out):
    """Serial twin of :func:`explicit_generic` (bit-identical results)."""
    for r in range(n_rep):
        _explicit_generic_rep(replicate_key(cell_key, r), n_items, n_lab, panel_k, panel,
                              class_cum, class_counts, bernoulli, theta_kind, theta_par,
                              theta_cum, comp_prob, comp_alias, comp_rel, comp_info, hetero,
                              vote_cum, tie_rule, lab_kind, lab_cum, lab_rho, stratum_of_top,
                              n_strata, out[r])


# --------------------------------------------------------------------------- explicit, any L, fixed theta
_SYM_BLOCK = 256  # items per block of the any-L fixed-theta kernel
_SYM_MAX_JOINT = 2  # labellers drawn together with the truth
_SYM_MAX_CELLS = 1 << 13  # cells of one alias table (draws use 64 - 13 = 51 bits or more)
_M21 = np.uint64((1 << 21) - 1)
_S21 = np.uint64(21)
_S42 = np.uint64(42)


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


@njit(cache=True, inline="always")
def _alias_outcome(x, tab, w, mask):
    """Outcome of the alias table ``tab`` (rows: threshold, outcome, alias outcome).

    ``x = b n`` for ``b`` the top w bits of a hash and n the table's cells: the
    cell is ``x >> w = floor(u n)`` and ``x mod 2**w`` a uniform on it, compared
    with the cell's acceptance threshold.
    """
    i = x >> w
    return tab[i, 1] if (x & mask) < tab[i, 0] else tab[i, 2]


@njit(cache=True)
def _explicit_symmetric_rep(rkey, class_counts, joint_n, joint_tab, n_joint, sep_tab, bits, rsum,
                            hist, conf, theta_sum, tbits, tcode, sbits, out_r):
    """One replicate of :func:`explicit_symmetric`; ``hist`` .. ``sbits`` are scratch.

    Items go class by class (modal label c) in blocks of ``_SYM_BLOCK``. Per block,
    branch-free passes that vectorise compute ``b n`` from every item's hashes
    (``tbits``: the joint draw; ``sbits[s]``: labeller s drawn separately); then
    one scalar pass per table makes the alias draws and counts them:
    ``hist[code] += 1`` for the joint labellers' codes, ``tcode`` = the truth's
    histogram row, ``hist[tcode + code] += 1`` for each separate labeller. A loop
    over the joint labellers inside the item loop is several times slower than
    one item loop per number of them, hence three. ``hist`` is ``conf`` flat:
    slot 0 gathers the dropped ties and becomes stratum "all" at the end.
    """
    n_lab = class_counts.shape[0]
    n_j = conf.shape[0]
    n_strata = conf.shape[1]
    n_sep = sep_tab.shape[0]
    cells = n_lab * n_lab
    w = np.uint64(bits)
    sh = np.uint64(64 - bits)
    mask = (np.uint64(1) << w) - np.uint64(1)
    lab_u = np.uint64(n_lab)
    stride_g = np.uint64(1 + n_sep) * GOLDEN
    hist[:] = 0
    start = 0
    for c in range(n_lab):
        lo = start
        hi = start + class_counts[c]
        start = hi
        n_c = np.uint64(joint_n[c])
        tab = joint_tab[c]
        for b0 in range(lo, hi, _SYM_BLOCK):
            nb = min(_SYM_BLOCK, hi - b0)
            nv = min(_SYM_BLOCK, (nb + 31) // 32 * 32)  # whole vector steps (no scalar tail)
            x0 = rkey + np.uint64(b0) * stride_g
            for t in range(nv):
                tbits[t] = (splitmix64(x0 + np.uint64(t) * stride_g) >> sh) * n_c
            for s in range(n_sep):
                xs = x0 + np.uint64(1 + s) * GOLDEN
                for t in range(nv):
                    sbits[s, t] = (splitmix64(xs + np.uint64(t) * stride_g) >> sh) * lab_u
            if n_joint == 2:
                for t in range(nb):
                    o = _alias_outcome(tbits[t], tab, w, mask)
                    hist[o & _M21] += 1
                    hist[(o >> _S21) & _M21] += 1
                    tcode[t] = o >> _S42
            elif n_joint == 1:
                for t in range(nb):
                    o = _alias_outcome(tbits[t], tab, w, mask)
                    hist[o & _M21] += 1
                    tcode[t] = o >> _S42
            else:
                for t in range(nb):
                    tcode[t] = _alias_outcome(tbits[t], tab, w, mask) >> _S42
            for s in range(n_sep):
                stab = sep_tab[s, c]
                for t in range(nb):
                    hist[tcode[t] + _alias_outcome(sbits[s, t], stab, w, mask)] += 1
    total = 0
    for j in range(n_j):
        a0 = j * n_strata * cells
        every = hist[a0:a0 + cells]  # slot 0: the dropped items; now stratum "all"
        every[:] = 0
        for s in range(1, n_strata):
            one = hist[a0 + s * cells:a0 + (s + 1) * cells]
            n_s = 0
            for i in range(cells):
                every[i] += one[i]
                n_s += one[i]
            if j == 0:
                theta_sum[s] = rsum[n_s]
                total += n_s
    theta_sum[0] = rsum[total]
    _finish_replicate(conf, theta_sum, out_r)


@njit(cache=True)
def _explicit_symmetric_chunk(cell_key, r0, r1, n_items, class_counts, joint_n, joint_tab,
                              n_joint, sep_tab, bits, theta, n_j, n_strata, out):
    """Replicates r0 <= r < r1 of :func:`explicit_symmetric`, sharing scratch arrays."""
    n_lab = class_counts.shape[0]
    conf = np.zeros((n_j, n_strata, n_lab, n_lab), dtype=np.int64)
    hist = conf.reshape(-1)  # the same counts, flat
    theta_sum = np.zeros(n_strata)
    tbits = np.empty(_SYM_BLOCK, dtype=np.uint64)
    tcode = np.empty(_SYM_BLOCK, dtype=np.uint64)
    sbits = np.empty((sep_tab.shape[0], _SYM_BLOCK), dtype=np.uint64)
    rsum = np.zeros(n_items + 1)  # rsum[k]: theta added k times in turn
    for k in range(n_items):
        rsum[k + 1] = rsum[k] + theta
    for r in range(r0, r1):
        _explicit_symmetric_rep(replicate_key(cell_key, r), class_counts, joint_n, joint_tab,
                                n_joint, sep_tab, bits, rsum, hist, conf, theta_sum,
                                tbits, tcode, sbits, out[r])


@njit(cache=True, parallel=True)
def explicit_symmetric(cell_key, n_rep, n_items, class_counts, joint_n, joint_tab, n_joint,
                       sep_tab, bits, theta, n_j, n_strata, out):
    """Per-item simulation, any L: panel mode, fixed theta, fixed class counts, homogeneous panel.

    Exact in distribution to :func:`explicit_generic`, not draw for draw. Given
    its modal label c, an item's stratum slot and truth (from its K votes and the
    tie rule) and each labeller's prediction are independent, with fixed
    distributions; so one alias draw gives the item's (slot, truth) together with
    the predictions of up to ``_SYM_MAX_JOINT`` labellers (from their product
    distribution, ``joint_n[c]`` cells, built from the exact vote enumeration by
    :func:`labelvar.engine._tables._symmetric_tables`), and one alias draw per
    other labeller its prediction. An alias draw is one hash, one multiply and
    one table row whatever the number of outcomes, where inverting a cdf by
    integer thresholds costs a compare per outcome (tens for L = 10), and the
    joint table saves a hash and a count pass per labeller it holds. Table reads
    do not vectorise here (LLVM cannot rule out that they alias the counts), so
    the hashes are computed in vectorised passes and the draws and counts in
    one scalar pass (see :func:`_explicit_symmetric_rep`).

    ``class_counts[c]`` items have modal label c (laid out class by class).
    ``joint_tab[c, i]`` = (acceptance threshold, outcome, alias outcome) of cell i,
    an outcome packing in 21-bit fields the histogram index
    ``((j S + slot) L + truth) L + h`` of each of the ``n_joint`` joint labellers and
    (bits 42..62) the truth's row ``(slot L + truth) L``; slot 0 = dropped tie.
    ``sep_tab[s, c]``: the same over the L predictions of the s-th other labeller
    (outcome ``j S L L + h``). Draws use the top ``bits`` bits of a hash: draw d of
    item i is ``splitmix64(rkey + (i (1 + n_sep) + d) GOLDEN)``, d = 0 the joint
    draw, d = 1 + s the s-th other labeller. The ``theta`` field is theta x count
    summed item by item. Chunks of ``_CHUNK`` replicates run in parallel;
    :func:`explicit_symmetric_serial` is the serial twin.
    """
    n_chunks = (n_rep + _CHUNK - 1) // _CHUNK
    for ch in prange(n_chunks):
        _explicit_symmetric_chunk(cell_key, ch * _CHUNK, min(n_rep, (ch + 1) * _CHUNK), n_items,
                                  class_counts, joint_n, joint_tab, n_joint, sep_tab, bits, theta,
                                  n_j, n_strata, out)


@njit(cache=True)
def explicit_symmetric_serial(cell_key, n_rep, n_items, class_counts, joint_n, joint_tab, n_joint,
                              sep_tab, bits, theta, n_j, n_strata, out):
    """Serial twin of :func:`explicit_symmetric` (bit-identical results)."""
    _explicit_symmetric_chunk(cell_key, 0, n_rep, n_items, class_counts, joint_n, joint_tab,
                              n_joint, sep_tab, bits, theta, n_j, n_strata, out)


# --------------------------------------------------------------------------- explicit, L = 2
@njit(cache=True)
def _explicit_binary_rep(rkey, n_items, ktuple, panel, n_pos, bernoulli, m, theta_kind,
                         theta_par, theta_cum, vote_thr, tie_rule, lab_kind, lab_p1, lab_rho,
                         stratum_of_top, n_strata, out_r):
    """One replicate, L = 2, K = len(ktuple) known at compile time.

    With a fixed theta the number of modal votes is drawn by inversion from one
    uniform (``vote_thr[t] = threshold53(P(Bin(K, theta) <= t))``): the votes of
    a homogeneous binary panel are exchangeable, so their count carries all the
    information. With a theta prior each vote is drawn.
    """
    n_j = lab_kind.shape[0]
    panel_k = len(ktuple)
    conf = np.zeros((n_j, n_strata, 2, 2), dtype=np.int64)
    theta_sum = np.zeros(n_strata)
    stride = np.uint64(panel_k + n_j + 2)
    for i in range(n_items):
        base = np.uint64(i) * stride
        if bernoulli:
            c = 1 if uniform(rkey, base) < m else 0
        else:
            c = 1 if i < n_pos else 0
        if panel:
            if theta_kind == THETA_FIXED:
                theta = theta_par[0]
            else:
                theta, _ = _draw_theta(theta_kind, theta_par, theta_cum,
                                       splitmix64(rkey ^ (np.uint64(i) * _M1 + _M2)), 0)
            v = 0
            if theta_kind == THETA_FIXED:
                bits = splitmix64(rkey + (base + np.uint64(1)) * GOLDEN) >> _S11
                for t in range(panel_k):
                    v += np.int64(bits >= vote_thr[t])
            else:
                for k in ktuple:  # unrolled: K is part of the type
                    v += np.int64(uniform(rkey, base + np.uint64(k + 1)) < theta)
            w = panel_k - v
            if 2 * v > panel_k:
                g = c
            elif 2 * v < panel_k:
                g = 1 - c
            else:
                if tie_rule == TIE_DROP:
                    continue
                if tie_rule >= 0:
                    g = tie_rule
                else:
                    g = 1 if uniform(rkey, base + np.uint64(panel_k + 1)) < 0.5 else 0
            s = stratum_of_top[v if v > w else w]
        else:
            theta = theta_par[0]
            g = c
            s = 0
        theta_sum[0] += theta
        if s > 0:
            theta_sum[s] += theta
        lbase = base + np.uint64(panel_k + 2)
        for j in range(n_j):
            like, u = _annotator_share(uniform(rkey, lbase + np.uint64(j)), lab_rho[j],
                                       lab_kind[j] == EXPERT)
            if like:
                h = c if u < theta else 1 - c
            else:
                h = 1 if u < lab_p1[j, c] else 0
            _count(conf, j, s, g, h)
    _finish_replicate(conf, theta_sum, out_r)


@njit(cache=True, parallel=True)
def explicit_binary(cell_key, n_rep, n_items, ktuple, panel, n_pos, bernoulli, m, theta_kind,
                    theta_par, theta_cum, vote_thr, tie_rule, lab_kind, lab_p1, lab_rho,
                    stratum_of_top, n_strata, out):
    """Per-item simulation for L = 2 with K = len(ktuple) fixed at compile time.

    ``ktuple`` is ``tuple(range(K))``: its length specialises (and caches) one
    compiled version per K so the vote loop unrolls. ``vote_thr`` (uint64,
    length K): thresholds of the Bin(K, theta) CDF for fixed theta (see
    :func:`vote_thresholds`). ``lab_p1[j, c]`` is
    P(prediction = 1 | modal label = c) for MATRIX labellers. Same model and
    output as :func:`explicit_generic`; :func:`explicit_binary_serial` is the
    serial twin.
    """
    for r in prange(n_rep):
        _explicit_binary_rep(replicate_key(cell_key, r), n_items, ktuple, panel, n_pos,
                             bernoulli, m, theta_kind, theta_par, theta_cum, vote_thr, tie_rule,
                             lab_kind, lab_p1, lab_rho, stratum_of_top, n_strata, out[r])


@njit(cache=True)
def explicit_binary_serial(cell_key, n_rep, n_items, ktuple, panel, n_pos, bernoulli, m,
                           theta_kind, theta_par, theta_cum, vote_thr, tie_rule, lab_kind, lab_p1,
                           lab_rho, stratum_of_top, n_strata, out):
    """Serial twin of :func:`explicit_binary` (bit-identical results)."""
    for r in range(n_rep):
        _explicit_binary_rep(replicate_key(cell_key, r), n_items, ktuple, panel, n_pos,
                             bernoulli, m, theta_kind, theta_par, theta_cum, vote_thr, tie_rule,
                             lab_kind, lab_p1, lab_rho, stratum_of_top, n_strata, out[r])


# --------------------------------------------------------------------------- explicit, L = 2, fast
_BLOCK = 255  # items per packed-counter block (8-bit lanes)
_CHUNK = 64  # replicates per parallel work item (scratch arrays are allocated per chunk)
_HALF53 = np.uint64(1) << np.uint64(52)


@njit(cache=True)
def threshold53(p):
    """Integer threshold T with ``uniform(key, ctr) < p``  <=>  ``bits53 < T``.

    ``bits53 = splitmix64(...) >> 11``; comparing integers skips the float
    conversion and vectorises.
    """
    if p <= 0.0:
        return np.uint64(0)
    if p >= 1.0:
        return np.uint64(1) << np.uint64(53)
    return np.uint64(math.ceil(p * 9007199254740992.0))


def vote_thresholds(theta, panel_k):
    """Thresholds ``threshold53(P(V <= t))``, t = 0..K-1, for V ~ Bin(K, theta) modal votes.

    ``V = sum_t (bits53 >= T_t)`` then draws V by inversion from one uniform.
    Plain Python (called once per grid cell).

    Examples
    --------
    >>> [int(t) for t in vote_thresholds(0.5, 2)] == [2**51, 3 * 2**51]
    True
    """
    out, cdf = [], 0.0
    for t in range(panel_k):
        cdf += math.comb(panel_k, t) * theta**t * (1.0 - theta) ** (panel_k - t)
        out.append(np.uint64(threshold53(min(cdf, 1.0))))
    return tuple(out)


@njit(cache=True)
def _explicit_binary_fast_rep(rkey, n_items, vote_thr, n_pos, theta, tie_rule, lab_thr,
                              lab_flip, stratum_of_top, n_strata, conf, theta_sum, cnt, ties,
                              pos, tie_pos, shift, tbit, out_r):
    """One replicate, L = 2, fixed theta, fixed class counts, K = len(vote_thr) <= 7.

    Same draws and the same counts as :func:`_explicit_binary_rep` (bit-identical;
    the modal vote count is drawn by inversion from one uniform), but items are
    processed in blocks whose per-item outcome is accumulated into 8-bit lanes
    of 64-bit counters (lane v = number of modal votes), so every inner loop is
    branch-free and vectorises. The first two labellers are drawn in the same
    pass as the votes, further ones in a pass each. The arrays after
    ``n_strata`` are scratch space (see :func:`_explicit_binary_fast_chunk`).
    """
    panel_k = len(vote_thr)
    even = panel_k % 2 == 0
    n_j = lab_thr.shape[1]
    stride_g = np.uint64(panel_k + n_j + 2) * GOLDEN
    conf[...] = 0
    theta_sum[:] = 0.0
    one = np.uint64(1)
    off0 = np.uint64(panel_k + 2) * GOLDEN
    off1 = np.uint64(panel_k + 3) * GOLDEN
    has1 = n_j > 1
    for c in range(2):
        lo = n_pos if c == 0 else 0
        hi = n_items if c == 0 else n_pos
        cnt[:] = 0
        ties[:] = 0
        pos[:, :] = 0
        tie_pos[:, :] = 0
        for b0 in range(lo, hi, _BLOCK):
            b1 = min(b0 + _BLOCK, hi)
            acc = np.uint64(0)
            acct = np.uint64(0)
            thr0, flip0 = lab_thr[c, 0], lab_flip[c, 0]
            thr1 = lab_thr[c, 1] if has1 else np.uint64(0)
            flip1 = lab_flip[c, 1] if has1 else np.uint64(0)
            accp0 = np.uint64(0)
            acctp0 = np.uint64(0)
            accp1 = np.uint64(0)
            acctp1 = np.uint64(0)
            for i in range(b0, b1):
                x = rkey + np.uint64(i) * stride_g
                bits = splitmix64(x + GOLDEN) >> _S11  # draw 1: the modal vote count
                v = np.uint64(0)
                for t in vote_thr:  # a tuple: unrolled, thresholds in registers
                    v += np.uint64(bits >= t)
                s = v * np.uint64(8)
                shift[i - b0] = s
                acc += one << s
                bit0 = np.uint64((splitmix64(x + off0) >> _S11) < thr0) ^ flip0
                accp0 += bit0 << s
                if has1:
                    bit1 = np.uint64((splitmix64(x + off1) >> _S11) < thr1) ^ flip1
                    accp1 += bit1 << s
                if even:
                    t = np.uint64((splitmix64(x + np.uint64(panel_k + 1) * GOLDEN) >> _S11)
                                  < _HALF53)
                    tbit[i - b0] = t
                    acct += t << s
                    acctp0 += (bit0 & t) << s
                    if has1:
                        acctp1 += (bit1 & t) << s
            for v in range(panel_k + 1):
                sh = np.uint64(8 * v)
                cnt[v] += np.int64((acc >> sh) & np.uint64(255))
                ties[v] += np.int64((acct >> sh) & np.uint64(255))
                pos[0, v] += np.int64((accp0 >> sh) & np.uint64(255))
                tie_pos[0, v] += np.int64((acctp0 >> sh) & np.uint64(255))
                if has1:
                    pos[1, v] += np.int64((accp1 >> sh) & np.uint64(255))
                    tie_pos[1, v] += np.int64((acctp1 >> sh) & np.uint64(255))
            for j in range(2, n_j):
                thr = lab_thr[c, j]
                flip = lab_flip[c, j]
                accp = np.uint64(0)
                acctp = np.uint64(0)
                off = np.uint64(panel_k + 2 + j) * GOLDEN
                for i in range(b0, b1):
                    x = rkey + np.uint64(i) * stride_g
                    bit = np.uint64((splitmix64(x + off) >> _S11) < thr) ^ flip
                    accp += bit << shift[i - b0]
                    if even:
                        acctp += (bit & tbit[i - b0]) << shift[i - b0]
                for v in range(panel_k + 1):
                    pos[j, v] += np.int64((accp >> np.uint64(8 * v)) & np.uint64(255))
                    tie_pos[j, v] += np.int64((acctp >> np.uint64(8 * v)) & np.uint64(255))
        # counts by modal votes v -> confusion counts by (stratum, truth, prediction)
        for v in range(panel_k + 1):
            n = cnt[v]
            if n == 0:
                continue
            if 2 * v == panel_k and tie_rule == TIE_DROP:
                continue
            top = v if 2 * v >= panel_k else panel_k - v
            s = stratum_of_top[top]
            theta_sum[0] += theta * n
            if s > 0:
                theta_sum[s] += theta * n
            for j in range(n_j):
                p1 = pos[j, v]
                if 2 * v != panel_k:
                    g = c if 2 * v > panel_k else 1 - c
                    conf[j, 0, g, 1] += p1
                    conf[j, 0, g, 0] += n - p1
                    if s > 0:
                        conf[j, s, g, 1] += p1
                        conf[j, s, g, 0] += n - p1
                elif tie_rule >= 0:
                    g = tie_rule
                    conf[j, 0, g, 1] += p1
                    conf[j, 0, g, 0] += n - p1
                    if s > 0:
                        conf[j, s, g, 1] += p1
                        conf[j, s, g, 0] += n - p1
                else:  # random tie-break: truth 1 for the items with tie bit set
                    t1 = ties[v]
                    tp1 = tie_pos[j, v]
                    for ss in range(2):
                        st = 0 if ss == 0 else s
                        if ss == 1 and s == 0:
                            break
                        conf[j, st, 1, 1] += tp1
                        conf[j, st, 1, 0] += t1 - tp1
                        conf[j, st, 0, 1] += p1 - tp1
                        conf[j, st, 0, 0] += (n - t1) - (p1 - tp1)
    _finish_replicate(conf, theta_sum, out_r)


@njit(cache=True)
def _explicit_binary_fast_chunk(cell_key, r0, r1, n_items, vote_thr, n_pos, theta, tie_rule,
                                lab_thr, lab_flip, stratum_of_top, n_strata, out):
    """Replicates r0 <= r < r1 of the vectorised kernel, sharing scratch arrays."""
    panel_k = len(vote_thr)
    n_j = lab_thr.shape[1]
    conf = np.zeros((n_j, n_strata, 2, 2), dtype=np.int64)
    theta_sum = np.zeros(n_strata)
    cnt = np.zeros(panel_k + 1, dtype=np.int64)
    ties = np.zeros(panel_k + 1, dtype=np.int64)
    pos = np.zeros((n_j, panel_k + 1), dtype=np.int64)
    tie_pos = np.zeros((n_j, panel_k + 1), dtype=np.int64)
    shift = np.empty(_BLOCK, dtype=np.uint64)
    tbit = np.zeros(_BLOCK, dtype=np.uint64)
    for r in range(r0, r1):
        _explicit_binary_fast_rep(replicate_key(cell_key, r), n_items, vote_thr, n_pos, theta,
                                  tie_rule, lab_thr, lab_flip, stratum_of_top, n_strata, conf,
                                  theta_sum, cnt, ties, pos, tie_pos, shift, tbit, out[r])


@njit(cache=True, parallel=True)
def explicit_binary_fast(cell_key, n_rep, n_items, vote_thr, n_pos, theta, tie_rule, lab_thr,
                         lab_flip, stratum_of_top, n_strata, out):
    """Vectorised per-item simulation: L = 2, fixed theta and class counts, K <= 7.

    Bit-identical to :func:`explicit_binary` with the same arguments (same
    draws); ``vote_thr`` is :func:`vote_thresholds` as a tuple of uint64 (its
    length K specialises the compiled code), ``lab_thr[c, j]`` the
    threshold of P(draw says "yes") for labeller j on class c and
    ``lab_flip[c, j]`` 1 where "yes" means predicting 0 (an expert on a
    negative item: it agrees, predicting 0). :func:`explicit_binary_fast_serial`
    is the serial twin.
    """
    n_chunks = (n_rep + _CHUNK - 1) // _CHUNK
    for ch in prange(n_chunks):
        _explicit_binary_fast_chunk(cell_key, ch * _CHUNK, min(n_rep, (ch + 1) * _CHUNK),
                                    n_items, vote_thr, n_pos, theta, tie_rule, lab_thr, lab_flip,
                                    stratum_of_top, n_strata, out)


@njit(cache=True)
def explicit_binary_fast_serial(cell_key, n_rep, n_items, vote_thr, n_pos, theta, tie_rule,
                                lab_thr, lab_flip, stratum_of_top, n_strata, out):
    """Serial twin of :func:`explicit_binary_fast` (bit-identical results)."""
    _explicit_binary_fast_chunk(cell_key, 0, n_rep, n_items, vote_thr, n_pos, theta, tie_rule,
                                lab_thr, lab_flip, stratum_of_top, n_strata, out)


# --------------------------------------------------------------------------- collapsed
@njit(cache=True)
def _collapsed_chunk(cell_key, r0, r1, n_items, groups, cats, blocks, plan, n_lab, n_strata,
                     out, joint):
    """Replicates r0 <= r < r1 of the collapsed path (each keyed by its own index).

    A replicate is one loop body: no helper that takes arrays is called per draw (each
    such call costs atomic reference-count updates per array); a zero count is added
    rather than skipped (cheaper than a mispredicted branch).
    """
    g_counts, g_order, g_step, g_len = groups
    c_order, c_step, c_len, c_stratum, c_truth, c_pred, c_theta, c_code = cats
    b_lab, b_pred, b_order, b_step, b_len, b_shared = blocks
    n_groups, n_cats = c_order.shape
    n_fold = c_pred.shape[1]
    n_blk = b_lab.shape[0]
    conf = np.zeros((out.shape[1], n_strata, n_lab, n_lab), dtype=np.int64)
    theta_sum = np.zeros(n_strata)
    sizes = np.zeros(n_groups, dtype=np.int64)
    counts = np.zeros((n_groups + 1, n_cats), dtype=np.int64)  # row n_groups: pooled
    for r in range(r0, r1):
        key = replicate_key(cell_key, r)
        want_joint = joint.shape[0] > 0
        conf[...] = 0
        theta_sum[:] = 0.0
        counts[...] = 0
        if want_joint:
            joint[r] = 0
        ctr = 0
        sizes[:] = g_counts
        if g_len[0] > 0:  # group sizes drawn: Multinomial(n_items, group prior)
            sizes[:] = 0
            left = n_items
            for i in range(g_len[0]):
                if i == g_len[0] - 1:
                    x = left
                else:
                    x, ctr = binomial_table(left, g_step[0, i], plan, key, ctr)
                sizes[g_order[0, i]] = x
                left -= x
                if left == 0:
                    break
        # (a) per group: items over categories (stratum slot, truth, folded predictions)
        for g in range(n_groups):
            left = sizes[g]
            n_c = c_len[g]
            for i in range(n_c):
                if left == 0:
                    break
                if i == n_c - 1:
                    x = left
                else:
                    x, ctr = binomial_table(left, c_step[g, i], plan, key, ctr)
                left -= x
                c = c_order[g, i]
                s = c_stratum[c]
                if s < 0:  # dropped (tied, tie rule "drop")
                    continue
                t = c_truth[c]
                counts[g, c] = x
                counts[n_groups, c] += x
                th = x * c_theta[g, c]
                theta_sum[0] += th
                if s > 0:
                    theta_sum[s] += th
                if want_joint:
                    joint[r, 0, c_code[c]] += x
                    if s > 0:
                        joint[r, s, c_code[c]] += x
                for j in range(n_fold):
                    h = c_pred[c, j]
                    conf[j, 0, t, h] += x
                    if s > 0:
                        conf[j, s, t, h] += x
        # (b) per labeller block: each category's count over the block's answers, per
        # group (chain row g) or pooled over the groups (shared blocks: chain row 0)
        for b in range(n_blk):
            shared = b_shared[b] != 0
            for g in range(1 if shared else n_groups):
                row = n_groups if shared else g
                n_out = b_len[b, g]
                for c in range(n_cats):
                    left = counts[row, c]
                    if left == 0:
                        continue
                    s = c_stratum[c]
                    t = c_truth[c]
                    for i in range(n_out):
                        if i == n_out - 1:
                            y = left
                        else:
                            y, ctr = binomial_table(left, b_step[b, g, i], plan, key, ctr)
                        left -= y
                        o = b_order[b, g, i]
                        for w in range(2):
                            j = b_lab[b, w]
                            if j >= 0:
                                h = b_pred[b, o, w]
                                conf[j, 0, t, h] += y
                                if s > 0:
                                    conf[j, s, t, h] += y
                        if left == 0:
                            break
        _finish_replicate(conf, theta_sum, out[r])


@njit(cache=True, parallel=True)
def collapsed(cell_key, n_rep, n_items, groups, cats, blocks, plan, n_lab, n_strata, out,
              joint):
    """Collapsed simulation of exchangeable items: cost independent of N.

    Items fall in groups g (modal classes, or one mixed group) of fixed sizes, or of
    sizes drawn per replicate as Multinomial(n_items, class prior). Per replicate and
    group the items are split over categories by a *chain of conditional binomials*
    (most probable category first: Binomial(left, P(c | not an earlier one)), the last
    takes the rest, the chain stops once nothing is left). A category fixes the stratum
    (-1 = dropped), the truth and the predictions of the "folded" labellers; then each
    labeller *block* splits every category's count over its answers by one more chain
    (per group, or pooled over groups when its answer probabilities do not depend on
    the group). Every binomial comes from :func:`binomial_table`.

    Parameters
    ----------
    cell_key : uint64
    n_rep, n_items : int
    groups : tuple
        ``(counts (G,), order (1, G), step (1, G), length (1,))``: fixed group sizes, or
        (``length[0] > 0``) the chain that draws them.
    cats : tuple
        ``(order (G, C), step (G, C), length (G,), stratum (C,), truth (C,),
        pred (C, J_folded), theta (G, C), code (C,))``: per group the chain over
        categories, per category its stratum, truth, folded predictions,
        E[theta | group, category] (the theta field) and joint output code.
    blocks : tuple
        ``(labellers (B, 2) (-1 = none), predictions (B, O, 2), order (B, G, O),
        step (B, G, O), length (B, G), shared (B,))``.
    plan : tuple
        The binomial plan of every chain step (:func:`binomial_table`).
    n_lab, n_strata : int
    out : ndarray
        ``(n_rep, J, n_strata, N_FIELDS)``, as :func:`explicit_generic`.
    joint : ndarray of int64
        ``(n_rep, n_strata, n_codes)`` (folded tables only) or ``(0, 0, 0)``: the drawn
        category counts per stratum and code, the same draws that make ``out``.

    Notes
    -----
    Two uses of the same kernel (``labelvar.engine._tables.collapsed_inputs``):
    *folded*, every labeller inside the categories (the joint outcome table; needed
    for ``joint`` and with a theta prior, where answers and votes share the item's
    theta), and *factorised*, categories = (stratum slot, truth) and one block per
    labeller (or ModelPair): given the group, a labeller's answer is independent of
    the votes, so the split is exact and needs far fewer draws. :func:`collapsed_serial`
    is the serial twin.
    """
    n_chunks = (n_rep + _CHUNK - 1) // _CHUNK
    for ch in prange(n_chunks):
        _collapsed_chunk(cell_key, ch * _CHUNK, min(n_rep, (ch + 1) * _CHUNK), n_items, groups,
                         cats, blocks, plan, n_lab, n_strata, out, joint)


@njit(cache=True)
def collapsed_serial(cell_key, n_rep, n_items, groups, cats, blocks, plan, n_lab, n_strata, out,
                     joint):
    """Serial twin of :func:`collapsed` (bit-identical results)."""
    _collapsed_chunk(cell_key, 0, n_rep, n_items, groups, cats, blocks, plan, n_lab, n_strata,
                     out, joint)


# --------------------------------------------------------------------------- summary statistics
_QS = (0.05, 0.5, 0.95)
_BUCKETS = 1024  # histogram buckets of the order-statistic search (ids fit in int16)


@njit(cache=True, inline="always")
def _lerp(a, b, t):
    """Interpolate as numpy's quantile does (``numpy.lib._function_base_impl._lerp``)."""
    d = b - a
    return b - d * (1.0 - t) if t >= 0.5 else a + d * t


@njit(cache=True)
def _select(a, left, right, k):
    """Put the k-th smallest of ``a[left:right + 1]`` at ``a[k]`` (quickselect, in place).

    Afterwards ``a[left:k] <= a[k] <= a[k + 1:right + 1]``; returns ``a[k]``.
    """
    while right > left:
        mid = (left + right) // 2
        # median of three as the pivot
        if a[mid] < a[left]:
            a[mid], a[left] = a[left], a[mid]
        if a[right] < a[left]:
            a[right], a[left] = a[left], a[right]
        if a[right] < a[mid]:
            a[right], a[mid] = a[mid], a[right]
        pivot = a[mid]
        i, j = left, right
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if k <= j:
            right = j
        elif k >= i:
            left = i
        else:
            return a[k]
    return a[k]


@njit(cache=True, inline="always")
def _bucket(v, lo, scale):
    """Histogram bucket of ``v``: non-decreasing in ``v`` (rounded subtraction and product)."""
    b = int((v - lo) * scale)
    return b if b < _BUCKETS else _BUCKETS - 1


@njit(cache=True)
def _quantiles(x, ids, lo, hi, counts, res):
    """``res[:] = (q05, q50, q95)`` of ``x`` (numpy's "linear" method; ``x`` is reordered).

    ``lo``, ``hi``: the minimum and maximum of ``x``; ``counts``: the histogram of
    ``x`` over :data:`_BUCKETS` buckets of [lo, hi] and ``ids`` each value's bucket
    (:func:`_bucket`), both empty when that range is zero or not finite. Each order
    statistic is found among the values of its bucket (gathered in one more pass):
    the bucket's value if they are all equal, else by selection; without a histogram,
    by quickselect on ``x``.
    """
    n = x.shape[0]
    ranks = np.empty(6, dtype=np.int64)  # order statistics k and k + 1 of each quantile
    for q in range(3):
        k = int(math.floor(_QS[q] * (n - 1)))
        ranks[2 * q] = k
        ranks[2 * q + 1] = min(k + 1, n - 1)
    order = np.argsort(ranks)  # ascending (for small n, k + 1 of one quantile > k of the next)
    vals = np.empty(6)
    if counts.shape[0] == 0:
        if hi == lo:  # every value equal
            vals[:] = lo
        else:
            start = 0
            for i in order:
                vals[i] = _select(x, start, n - 1, ranks[i])
                start = ranks[i]
    else:
        # bucket of each rank (ranks ascend) and the number of values below that bucket
        rank_bucket = np.empty(6, dtype=np.int64)
        first = np.empty(6, dtype=np.int64)
        below = 0
        b = 0
        for i in order:
            while below + counts[b] <= ranks[i]:
                below += counts[b]
                b += 1
            rank_bucket[i] = b
            first[i] = below
        # gather the values of those buckets (one region of y per distinct bucket), with
        # each region's smallest and largest value
        region = np.full(_BUCKETS, -1, dtype=np.int64)
        base = np.empty(6, dtype=np.int64)
        size = 0
        n_regions = 0
        for i in order:
            if region[rank_bucket[i]] < 0:
                region[rank_bucket[i]] = n_regions
                base[n_regions] = size
                size += counts[rank_bucket[i]]
                n_regions += 1
        fill = base[:n_regions].copy()
        rmin = np.full(n_regions, np.inf)
        rmax = np.full(n_regions, -np.inf)
        y = np.empty(size)
        for k in range(n):
            g = region[ids[k]]
            if g >= 0:
                v = x[k]
                y[fill[g]] = v
                fill[g] += 1
                rmin[g] = min(rmin[g], v)
                rmax[g] = max(rmax[g], v)
        last = -1  # position in y of the last order statistic selected (its region sorted
        for i in order:  # around it), or -1
            g = region[rank_bucket[i]]
            at = base[g] + ranks[i] - first[i]
            if rmin[g] == rmax[g]:  # one value in the bucket
                vals[i] = rmin[g]
                last = -1
            elif last >= base[g] and at == last:
                vals[i] = y[at]
            elif last >= base[g] and at == last + 1:  # the next one: the smallest of the rest
                right = base[g] + counts[rank_bucket[i]]
                m = at
                for k in range(at + 1, right):
                    if y[k] < y[m]:
                        m = k
                y[at], y[m] = y[m], y[at]
                vals[i] = y[at]
                last = at
            else:
                vals[i] = _select(y, base[g], base[g] + counts[rank_bucket[i]] - 1, at)
                last = at
    for q in range(3):
        v = _QS[q] * (n - 1)
        res[q] = _lerp(vals[2 * q], vals[2 * q + 1], v - math.floor(v))


@njit(cache=True)
def _series_stats(x, tot, lo, hi, res):
    """``res = (mean, sd, q05, q50, q95)`` of ``x`` (length >= 1; reordered in place).

    ``tot``, ``lo``, ``hi``: the sequential sum, minimum and maximum of ``x``. The sd
    (ddof 1) is a sequential sum over ``x`` in order; the quantiles are
    :func:`_quantiles` (with the histogram made in the same pass). A NaN in ``x``
    gives NaN quantiles (as numpy); one value gives sd NaN.
    """
    n = x.shape[0]
    mean = tot / n
    spread = hi - lo
    histogram = mean == mean and spread > 0.0 and spread < np.inf
    counts = np.zeros(_BUCKETS if histogram else 0, dtype=np.int64)
    ids = np.empty(n if histogram else 0, dtype=np.int16)
    scale = _BUCKETS / spread if histogram else 0.0
    ss = 0.0
    for k in range(n):
        d = x[k] - mean
        ss += d * d
        if histogram:
            b = _bucket(x[k], lo, scale)
            ids[k] = b
            counts[b] += 1
    res[0] = mean
    res[1] = math.sqrt(ss / (n - 1)) if n > 1 else np.nan
    if mean != mean:
        res[2:] = np.nan
    else:
        _quantiles(x, ids, lo, hi, counts, res[2:])


@njit(cache=True)
def _blocks_stats(out, fields, above, b0, b1, res, n_ok):
    """:func:`summary_stats` of blocks ``b0 .. b1 - 1`` (block b = labeller b // S, stratum b % S).

    Per block, one pass over ``out`` copies its series into one buffer (reused by the
    next block) with their sequential sums, minima and maxima; then
    :func:`_series_stats` of each series.
    """
    n_rep, n_strata = out.shape[0], out.shape[2]
    n_series = fields.shape[0]
    x = np.empty((n_series, n_rep))
    tot = np.empty(n_series)
    lo = np.empty(n_series)
    hi = np.empty(n_series)
    for b in range(b0, b1):
        j, s = b // n_strata, b % n_strata
        tot[:] = 0.0
        lo[:] = np.inf
        hi[:] = -np.inf
        n = 0
        for r in range(n_rep):
            if out[r, j, s, 0] > 0:
                for i in range(n_series):
                    v = out[r, j, s, fields[i]]
                    if above[i] == above[i]:
                        v = 1.0 if v >= above[i] else 0.0
                    x[i, n] = v
                    tot[i] += v
                    if v < lo[i]:  # (a NaN makes the mean NaN: no quantiles then)
                        lo[i] = v
                    if v > hi[i]:
                        hi[i] = v
                n += 1
        n_ok[j, s] = n
        for i in range(n_series):
            if n == 0:
                res[j, s, i, :] = np.nan
            else:
                _series_stats(x[i, :n], tot[i], lo[i], hi[i], res[j, s, i])


@njit(cache=True, parallel=True)
def summary_stats(out, fields, above, res, n_ok, n_groups):
    """Mean, sd (ddof 1) and 5/50/95 % quantiles of many series of a kernel's output.

    Series ``(j, s, i)`` is field ``fields[i]`` of ``out[:, j, s]`` (or, where
    ``above[i]`` is not NaN, the indicator ``field >= above[i]``, 1.0 / 0.0) over the
    replicates where stratum s of labeller j is non-empty (field 0, ``n``, > 0), in
    replicate order. ``res[j, s, i] = (mean, sd, q05, q50, q95)`` (NaN where
    ``n_ok[j, s] = 0``); ``n_ok[j, s]`` receives the number of those replicates. Mean
    and sd are sequential sums; the quantiles are numpy's default ("linear") method,
    exactly. The blocks (j, s) run in ``n_groups`` contiguous groups in parallel (one
    per thread); :func:`summary_stats_serial` is the serial twin.
    """
    n_blocks = out.shape[1] * out.shape[2]
    n_groups = max(1, min(n_blocks, n_groups))
    for g in prange(n_groups):
        _blocks_stats(out, fields, above, g * n_blocks // n_groups,
                      (g + 1) * n_blocks // n_groups, res, n_ok)


@njit(cache=True)
def summary_stats_serial(out, fields, above, res, n_ok):
    """Serial twin of :func:`summary_stats` (bit-identical results)."""
    _blocks_stats(out, fields, above, 0, out.shape[1] * out.shape[2], res, n_ok)


# --------------------------------------------------------------------------- item models
ITEM_DIRICHLET = 0  # rows of item_par: Dirichlet α of mixture components
ITEM_NODES = 1      # rows of item_par: label distributions π (empirical)


@njit(cache=True)
def _item_model_rep(rkey, n_items, n_lab, panel_k, item_kind, item_par, item_cum, tie_rule,
                    lab_kind, lab_cum, lab_rho, stratum_of_top, n_strata, out_r):
    """One replicate of the per-item simulation under an item model; fills ``out_r``.

    Per item (absolute labels): π from the item model (a component / row by its
    cumulative weight, then, for Dirichlet rows, independent Gamma(α_p) normalised), on
    its own sub-stream; modal label = argmax π (ties at random); K votes, each one
    categorical draw from π; the truth = plurality with ``tie_rule``; the stratum =
    ``stratum_of_top[top votes]``; EXPERT = one more draw from π, MATRIX =
    ``lab_cum[j, modal]`` (with ``lab_rho[j]`` the share answered like an annotator).
    ``theta`` = π of the modal label.
    """
    n_j = lab_kind.shape[0]
    conf = np.zeros((n_j, n_strata, n_lab, n_lab), dtype=np.int64)
    theta_sum = np.zeros(n_strata)
    votes = np.zeros(n_lab, dtype=np.int64)
    pi = np.zeros(n_lab)
    cum = np.zeros(n_lab)
    stride = np.uint64(panel_k + n_j + 3)
    for i in range(n_items):
        base = np.uint64(i) * stride
        sub = splitmix64(rkey ^ (np.uint64(i) * _M1 + _M2))
        row = categorical(item_cum, uniform(sub, 0))
        ctr = 1
        total = 0.0
        for a in range(n_lab):
            if item_kind == ITEM_DIRICHLET:
                x, ctr = gamma(item_par[row, a], sub, ctr)
            else:
                x = item_par[row, a]
            pi[a] = x
            total += x
        if total <= 0.0:  # every Gamma underflowed (tiny α): one label takes all
            pick = int(uniform(sub, ctr) * n_lab)
            ctr += 1
            for a in range(n_lab):
                pi[a] = 1.0 if a == min(pick, n_lab - 1) else 0.0
            total = 1.0
        acc = 0.0
        best = -1.0
        n_best = 0
        for a in range(n_lab):
            pi[a] /= total
            acc += pi[a]
            cum[a] = acc
            if pi[a] > best:
                best = pi[a]
                n_best = 1
            elif pi[a] == best:
                n_best += 1
        cum[n_lab - 1] = 1.0
        # modal label: argmax π, ties uniformly at random
        pick = 0
        if n_best > 1:
            pick = int(uniform(sub, ctr) * n_best)
            if pick >= n_best:
                pick = n_best - 1
        c = 0
        for a in range(n_lab):
            if pi[a] == best:
                if pick == 0:
                    c = a
                    break
                pick -= 1
        for a in range(n_lab):
            votes[a] = 0
        for k in range(panel_k):
            votes[categorical(cum, uniform(rkey, base + np.uint64(1 + k)))] += 1
        g, top = _plurality(votes, n_lab, tie_rule, rkey, base + np.uint64(panel_k + 2))
        if g < 0:
            continue  # a tie, dropped
        s = stratum_of_top[top]
        theta_sum[0] += best
        if s > 0:
            theta_sum[s] += best
        lbase = base + np.uint64(panel_k + 3)
        for j in range(n_j):
            like, u = _annotator_share(uniform(rkey, lbase + np.uint64(j)), lab_rho[j],
                                       lab_kind[j] == EXPERT)
            h = categorical(cum, u) if like else _matrix_label(lab_cum, j, c, u, n_lab)
            _count(conf, j, s, g, h)
    _finish_replicate(conf, theta_sum, out_r)


@njit(cache=True, parallel=True)
def item_model(cell_key, n_rep, n_items, n_lab, panel_k, item_kind, item_par, item_cum,
               tie_rule, lab_kind, lab_cum, lab_rho, stratum_of_top, n_strata, out):
    """Panel mode under an item model (see :func:`_item_model_rep`), replicates in parallel."""
    for r in prange(n_rep):
        _item_model_rep(replicate_key(cell_key, r), n_items, n_lab, panel_k, item_kind,
                        item_par, item_cum, tie_rule, lab_kind, lab_cum, lab_rho,
                        stratum_of_top, n_strata, out[r])


@njit(cache=True)
def item_model_serial(cell_key, n_rep, n_items, n_lab, panel_k, item_kind, item_par, item_cum,
                      tie_rule, lab_kind, lab_cum, lab_rho, stratum_of_top, n_strata, out):
    """Serial twin of :func:`item_model` (bit-identical results)."""
    for r in range(n_rep):
        _item_model_rep(replicate_key(cell_key, r), n_items, n_lab, panel_k, item_kind,
                        item_par, item_cum, tie_rule, lab_kind, lab_cum, lab_rho,
                        stratum_of_top, n_strata, out[r])
