"""Every numba kernel of labelvar lives in this package, one module per family.

Nothing outside it is jitted; public functions validate their input,
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
``raters``             the rater models' E-step, EM statistics and checks
                       (:mod:`labelvar._kernels.raters`: ``csr``, ``e_step``,
                       ``em_pass``, ``count_hist``, ``plurality_hist``, ...)

Each has a ``_serial`` twin compiled without ``parallel=True``; tests check
that both give bit-identical results.

Output layout (all kernels): ``out[r, j, s, f]`` for replicate ``r``, labeller
``j``, stratum ``s`` (0 = all items, 1.. = observed-p_d bins) and field ``f``
in :data:`FIELDS`.
"""


from __future__ import annotations

from labelvar._kernels.collapsed import (  # noqa: F401
    _collapsed_chunk,
    collapsed,
    collapsed_serial,
)
from labelvar._kernels.explicit import (  # noqa: F401
    _BLOCK,
    _HALF53,
    _annotator_share,
    _count,
    _draw_theta,
    _explicit_binary_fast_chunk,
    _explicit_binary_fast_rep,
    _explicit_binary_rep,
    _explicit_generic_rep,
    _matrix_label,
    _plurality,
    explicit_binary,
    explicit_binary_fast,
    explicit_binary_fast_serial,
    explicit_binary_serial,
    explicit_generic,
    explicit_generic_serial,
    threshold53,
    vote_thresholds,
)
from labelvar._kernels.item_models import (  # noqa: F401
    ITEM_DIRICHLET,
    ITEM_NODES,
    _item_model_rep,
    item_model,
    item_model_serial,
)
from labelvar._kernels.layout import (  # noqa: F401
    _CHUNK,
    EXPERT,
    FIELDS,
    MATRIX,
    N_FIELDS,
    THETA_BETA,
    THETA_DISCRETE,
    THETA_FIXED,
    TIE_DROP,
    TIE_RANDOM,
)
from labelvar._kernels.metrics import (  # noqa: F401
    _count_fields,
    _finish_replicate,
    _macro_metrics,
    metrics_into,
)
from labelvar._kernels.raters import (  # noqa: F401
    count_hist,
    csr,
    e_step,
    em_pass,
    first_duplicate,
    int_codes,
    plurality_hist,
    share_stats,
)
from labelvar._kernels.rng import (  # noqa: F401
    _INV53,
    _M1,
    _M2,
    _S11,
    _S27,
    _S30,
    _S31,
    _WIN_BITS,
    _WIN_MASK,
    _WIN_SHIFT,
    BINOMIAL_WINDOW,
    GOLDEN,
    HALF_BITS_MAX_N,
    _binomial_half,
    _binomial_inversion,
    _binomial_outside,
    _binomial_rou,
    _binomial_tail,
    _log_factorial_diff,
    _popcount,
    _stirling_tail,
    alias_fill,
    beta,
    binomial,
    binomial_alias_rows,
    binomial_table,
    categorical,
    gamma,
    replicate_key,
    splitmix64,
    std_normal,
    uniform,
)
from labelvar._kernels.summaries import (  # noqa: F401
    _BUCKETS,
    _QS,
    _blocks_stats,
    _bucket,
    _lerp,
    _quantiles,
    _select,
    _series_stats,
    summary_stats,
    summary_stats_serial,
)
from labelvar._kernels.symmetric import (  # noqa: F401
    _M21,
    _S21,
    _S42,
    _SYM_BLOCK,
    _SYM_MAX_CELLS,
    _SYM_MAX_JOINT,
    _alias_outcome,
    _explicit_symmetric_chunk,
    _explicit_symmetric_rep,
    explicit_symmetric,
    explicit_symmetric_serial,
)

__all__ = [
    "BINOMIAL_WINDOW",
    "EXPERT",
    "FIELDS",
    "GOLDEN",
    "HALF_BITS_MAX_N",
    "ITEM_DIRICHLET",
    "ITEM_NODES",
    "MATRIX",
    "N_FIELDS",
    "THETA_BETA",
    "THETA_DISCRETE",
    "THETA_FIXED",
    "TIE_DROP",
    "TIE_RANDOM",
    "alias_fill",
    "beta",
    "binomial",
    "binomial_alias_rows",
    "binomial_table",
    "categorical",
    "collapsed",
    "collapsed_serial",
    "count_hist",
    "csr",
    "e_step",
    "em_pass",
    "explicit_binary",
    "explicit_binary_fast",
    "explicit_binary_fast_serial",
    "explicit_binary_serial",
    "explicit_generic",
    "explicit_generic_serial",
    "explicit_symmetric",
    "explicit_symmetric_serial",
    "first_duplicate",
    "gamma",
    "int_codes",
    "item_model",
    "item_model_serial",
    "metrics_into",
    "plurality_hist",
    "replicate_key",
    "share_stats",
    "splitmix64",
    "std_normal",
    "summary_stats",
    "summary_stats_serial",
    "threshold53",
    "uniform",
    "vote_thresholds",
]
