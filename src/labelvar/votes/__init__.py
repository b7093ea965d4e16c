"""Models of how votes arise: what an item's votes look like and who casts them.

``priors`` (the per-item agreement θ: fixed, Beta, discrete, Dirichlet item models, with
``_item_priors``), ``models`` (labellers: experts following p_d, random, prior-matched,
constant and model labellers), ``raters`` (identified raters: one-coin, Dawid–Skene and
Dawid–Skene with item difficulty, with ``_rater_data`` and ``_rater_em``), ``ceilings``
(the three ceilings of a rater against a panel majority), ``pilot`` (per-item label
distributions fitted from a pilot and the agreement they predict, with ``_pilot_items``,
``_pilot_predict``, ``_pilot_theta``). Public paths: ``labelvar.priors``,
``labelvar.models``, ``labelvar.raters``, ``labelvar.ceilings``, ``labelvar.pilot``.

May import: ``labelvar._base``, ``labelvar._kernels``, ``labelvar.analytic``,
``labelvar.io`` (reading pilot files). Never the engine, evaluation, planning, figures or
the command line.
"""
