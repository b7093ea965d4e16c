"""Any L, panel mode with a fixed theta and class counts.

An item's (stratum, truth) and predictions in one or a few alias draws
(:func:`explicit_symmetric`, exact in distribution).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from labelvar._kernels.layout import _CHUNK
from labelvar._kernels.metrics import _finish_replicate
from labelvar._kernels.rng import GOLDEN, replicate_key, splitmix64

# --------------------------------------------------------------------------- explicit, any L, fixed theta
_SYM_BLOCK = 256  # items per block of the any-L fixed-theta kernel
_SYM_MAX_JOINT = 2  # labellers drawn together with the truth
_SYM_MAX_CELLS = 1 << 13  # cells of one alias table (draws use 64 - 13 = 51 bits or more)
_M21 = np.uint64((1 << 21) - 1)
_S21 = np.uint64(21)
_S42 = np.uint64(42)


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
