"""Evaluation of real results: scores per agreement bin, tests, agreement statistics.

``stratified`` (:func:`labelvar.stratify` and its result, with ``_tables``,
``_paper_layout``, ``_tasks`` (a task's panel, systems and humans), ``_bins`` (the
agreement bins and their expectations), ``_panel_loo`` (leave-one-rater-out) and
``_skill`` (a rater model's expectation per bin)), ``inference`` (tests per bin and paired
tests), ``agreement`` (Fleiss' κ, Krippendorff's α, Dawid–Skene, cross-replication κx).
Public paths: ``labelvar.stratified``, ``labelvar.inference``, ``labelvar.agreement``.

May import: ``labelvar._base``, ``labelvar.analytic``, ``labelvar.io``, ``labelvar.votes``.
Never the engine, planning, sweeps, figures, reports or the command line.
"""
