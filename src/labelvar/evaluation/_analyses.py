"""The optional analyses of a :class:`labelvar.evaluation._stratified.StratifiedResult`.

:func:`compare_systems` (two raters on the same items: exact McNemar, paired bootstrap,
Holm) and :func:`panel_agreement` (Fleiss' kappa, Krippendorff's alpha per stratum),
each computed from the tasks the result kept, with the seed and intervals it was made
with, so the numbers are those the same call always gives.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from labelvar._base._format import result_html, short_repr
from labelvar.evaluation._panel_loo import rater_majorities
from labelvar.evaluation._tables import AGREEMENT_COLUMNS, _agreement_rows, _compare_rows

#: columns of :attr:`Comparison.table`
COMPARISON_COLUMNS = ("task", "stratum", "S", "small_bin", "metric", "system_a", "system_b",
                      "score_a", "score_b", "diff", "ci_low", "ci_high", "test", "n_a_only",
                      "n_b_only", "p", "p_holm", "n_comparisons", "note")


@dataclass(frozen=True, eq=False)
class Comparison:
    """Two raters on the same items, per task x stratum x metric (:meth:`StratifiedResult.compare`).

    Attributes
    ----------
    table : pandas.DataFrame
        Columns :data:`COMPARISON_COLUMNS`.
    systems : (str, str)
        The two raters, A then B (``diff = score_a - score_b``).
    """

    table: pd.DataFrame
    systems: tuple

    def describe(self) -> str:
        """How many comparisons were tested, and the smallest Holm-adjusted p-value."""
        a, b = self.systems
        n = int(self.table["n_comparisons"].iloc[0]) if len(self.table) else 0
        p = self.table["p_holm"].min()
        return (f"{a} vs {b}: {len(self.table)} rows, {n} tested (Holm over them)"
                + (f"; smallest p_holm {p:.3g}" if n else ""))

    def __repr__(self) -> str:
        return short_repr("Comparison", {"systems": list(self.systems), "rows": len(self.table)})

    def _repr_html_(self) -> str:
        return result_html("Comparison", {"systems": list(self.systems)}, {"table": self.table},
                           [self.describe()])


@dataclass(frozen=True, eq=False)
class PanelAgreement:
    """The panel's agreement per task and stratum (:meth:`StratifiedResult.agreement`).

    Attributes
    ----------
    table : pandas.DataFrame
        Columns ``task, stratum, agreement, S, n, statistic, score, ci_low, ci_high,
        note``.
    """

    table: pd.DataFrame

    def describe(self) -> str:
        """Fleiss' kappa over all items, per task."""
        t = self.table
        rows = t[(t["stratum"] == "all") & (t["statistic"] == "fleiss_kappa")]
        return "\n".join(f"{r.task}: Fleiss' kappa {r.score:.3f} over {r.n:,} items"
                         for r in rows.itertuples())

    def __repr__(self) -> str:
        return short_repr("PanelAgreement", {"rows": len(self.table)})

    def _repr_html_(self) -> str:
        return result_html("PanelAgreement", {}, {"table": self.table},
                           self.describe().splitlines())


def panel_agreement(setup) -> PanelAgreement:
    """Fleiss' kappa and Krippendorff's alpha of every task, per stratum."""
    iv = setup.intervals
    rows = [_agreement_rows(t, setup.groups[t.name], iv.n_resamples, iv.confidence_level,
                            setup.seed) for t in setup.prepared]
    return PanelAgreement(table=pd.concat(rows, ignore_index=True)
                          if rows else pd.DataFrame(columns=list(AGREEMENT_COLUMNS)))


def compare_systems(setup, a, b) -> Comparison:
    """Raters ``a`` and ``b`` on the same items of every task that has both."""
    from labelvar.evaluation._inference import holm

    compare = (str(a), str(b))
    if compare[0] == compare[1]:
        raise ValueError(f"compare takes two different systems A,B; got {list(compare)!r}")
    prepared, iv, seed = setup.prepared, setup.intervals, setup.seed
    named = {n for t in prepared for n in list(t.preds) + list(t.probs)}
    panel_named = {n for t in prepared if t.raters_identified for n in t.raters}
    if sum(c in panel_named and c not in named for c in compare) > 1:
        raise ValueError("compare: two panel raters have no common reference (each is "
                         "compared against the majority of the others); compare a panel "
                         "rater with an evaluated one")
    named |= panel_named
    for c in compare:
        if c not in named:
            raise ValueError(f"compare: system {c!r} is not among the evaluated raters "
                             f"({', '.join(map(repr, sorted(named))) or 'none'})")
    comps = []
    for t in prepared:
        wanted = [c for c in compare if c in t.raters and c not in t.preds]
        refs = rater_majorities(t, setup.truth.tie_rule, seed, wanted) if wanted else {}
        if all(c in list(t.preds) + list(t.probs) + list(refs) for c in compare):
            comps.append(_compare_rows(t, setup.groups[t.name], compare, setup.metrics,
                                       iv.n_resamples, iv.confidence_level, seed,
                                       iv.min_bin_size, refs))
    comps = [c for c in comps if len(c)]
    if not comps:  # nothing to compare: say so rather than print an empty table
        both = [t.name for t in prepared if all(c in list(t.preds) + list(t.probs)
                                                for c in compare)]
        raise ValueError(
            f"compare: {compare[0]!r} and {compare[1]!r} "
            + (f"share no metric on task(s) {', '.join(map(repr, both))} (labels against "
               "probabilities?)" if both else "are never evaluated on the same task")
            + "; nothing to compare")
    table = pd.concat(comps, ignore_index=True)
    table["p_holm"] = holm(table["p"].to_numpy(float))
    table["n_comparisons"] = int(table["p"].notna().sum())
    return Comparison(table=table[list(COMPARISON_COLUMNS)], systems=compare)
