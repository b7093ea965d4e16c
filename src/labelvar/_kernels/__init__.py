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

# The engine calls the kernels through this face (``from labelvar import _kernels as K``);
# the rater models import ``labelvar._kernels.raters`` and ``.rater_panels`` directly.
from labelvar._kernels.collapsed import collapsed, collapsed_serial
from labelvar._kernels.explicit import (
    explicit_binary,
    explicit_binary_fast,
    explicit_binary_fast_serial,
    explicit_binary_serial,
    explicit_generic,
    explicit_generic_serial,
    threshold53,
    vote_thresholds,
)
from labelvar._kernels.item_models import item_model, item_model_serial
from labelvar._kernels.layout import (
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
from labelvar._kernels.rng import (
    BINOMIAL_WINDOW,
    alias_fill,
    beta,
    binomial,
    binomial_alias_rows,
    binomial_table,
    uniform,
)
from labelvar._kernels.summaries import summary_stats, summary_stats_serial
from labelvar._kernels.symmetric import (  # with the engine's size limits of the kernel
    _SYM_MAX_CELLS,
    _SYM_MAX_JOINT,
    explicit_symmetric,
    explicit_symmetric_serial,
)

__all__ = [
    "_SYM_MAX_CELLS", "_SYM_MAX_JOINT",
    "BINOMIAL_WINDOW", "EXPERT", "FIELDS", "MATRIX", "N_FIELDS", "THETA_BETA", "THETA_DISCRETE",
    "THETA_FIXED", "TIE_DROP", "TIE_RANDOM", "alias_fill", "beta", "binomial",
    "binomial_alias_rows", "binomial_table", "collapsed", "collapsed_serial", "explicit_binary",
    "explicit_binary_fast", "explicit_binary_fast_serial", "explicit_binary_serial",
    "explicit_generic", "explicit_generic_serial", "explicit_symmetric",
    "explicit_symmetric_serial", "item_model", "item_model_serial",
    "summary_stats", "summary_stats_serial", "threshold53", "uniform", "vote_thresholds",
]
