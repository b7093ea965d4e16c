"""Mean, sd and 5/50/95 % quantiles of many replicate series at once (:func:`summary_stats`)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

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
