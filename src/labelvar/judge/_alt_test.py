"""The alternative annotator test (Calderon, Reichart & Dror, ACL 2025) and its result."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np
import pandas as pd

from labelvar._base._format import count, report_page, setting, short_float, shown
from labelvar.judge import _data, _pairs, _stats
from labelvar.judge._references import References, reference_tables

#: the reference labellers run by default (all four, 100 Monte Carlo runs, seed 0)
DEFAULT_REFERENCES = References()
#: the per-human table's columns
HUMAN_COLUMNS = ("rater", "n_items", "n_ties", "n_system_better", "n_human_better",
                 "rho_system", "rho_human", "p_value", "rejected")


@shown
@dataclasses.dataclass(frozen=True, repr=False)
class AltTestResult:
    """The verdict of :func:`alt_test` for one system.

    Attributes
    ----------
    system : str
        The system's name.
    winning_rate : float
        Rejected humans / tested humans (Benjamini–Yekutieli at ``q``).
    advantage_probability : float
        rho: the mean over tested humans of the share of items where the system scores
        at least as well as the human (``W_sys``).
    passed : bool
        ``winning_rate >= 0.5``.
    epsilon, q : float
    scoring, test, margin : str
    n_items : int
        Items kept (at least ``min_humans_per_item`` humans and a system label);
        ``n_items_excluded`` the others.
    n_humans : int
        Humans tested (at least ``min_items_per_human`` kept items);
        ``n_humans_excluded`` the others (listed in :attr:`excluded`).
    table : pandas.DataFrame
        One row per tested human: ``rater``, ``n_items``, the outcome counts
        (``n_ties``, ``n_system_better``, ``n_human_better``), ``rho_system``
        (mean ``W_sys``), ``rho_human`` (mean ``W_h``), ``p_value``, ``rejected``.
    references : pandas.DataFrame
        What reference labellers reach on the same comparisons (see
        :class:`References`): ``reference``, ``advantage_probability`` (exact
        expectation), ``rho_method``, ``winning_rate_mean``, ``winning_rate_sd``,
        ``pass_probability`` and their ``winning_rate_method``; the system first.
    by_bin : pandas.DataFrame
        rho per agreement bin of the remaining humans: ``bin``, ``n_comparisons``, then
        one column per row of ``references``.
    excluded : pandas.DataFrame
        The humans not tested: ``rater``, ``n_items`` (kept items they annotated).
    settings : dict
        ``q``, ``scoring``, ``test``, ``margin`` and the counts ``n_items``,
        ``n_items_excluded``, ``n_humans``, ``n_humans_excluded`` (each also an attribute).
    """

    system: str
    winning_rate: float
    advantage_probability: float
    passed: bool
    epsilon: float
    table: pd.DataFrame
    references: pd.DataFrame
    by_bin: pd.DataFrame
    excluded: pd.DataFrame
    settings: dict

    q = setting("q", "The Benjamini-Yekutieli level.")
    scoring = setting("scoring", "The scoring (``accuracy``, ``neg_rmse`` or a callable's name).")
    test = setting("test", "The per-human test (``t`` or ``signed_rank``).")
    margin = setting("margin", "How epsilon enters (``additive`` or ``multiplicative``).")
    n_items = setting("n_items", "Items kept.")
    n_items_excluded = setting("n_items_excluded", "Items not kept.")
    n_humans = setting("n_humans", "Humans tested.")
    n_humans_excluded = setting("n_humans_excluded", "Humans not tested.")

    to_html = report_page

    def _shown(self) -> dict:
        return {"system": self.system, "passed": self.passed,
                "winning_rate": round(self.winning_rate, 4),
                "advantage_probability": round(self.advantage_probability, 4),
                "epsilon": self.epsilon, "n_humans": self.n_humans, "n_items": self.n_items}

    def _shown_tables(self) -> dict:
        return {"humans": self.table, "references": self.references, "by_bin": self.by_bin}

    def _shown_lines(self) -> list:
        return [self.describe()]

    def describe(self) -> str:
        """One paragraph: the verdict, rho and what the references reach."""
        verdict = "passes" if self.passed else "fails"
        rej = int(self.table["rejected"].sum())
        text = (f"{self.system} {verdict} the alt-test at epsilon = {short_float(self.epsilon)} "
                f"({self.scoring}): winning rate {short_float(self.winning_rate)} ({rej} of "
                f"{count(self.n_humans, 'human')} rejected by Benjamini-Yekutieli at q = "
                f"{short_float(self.q)}), advantage probability rho = "
                f"{short_float(self.advantage_probability)} on {count(self.n_items, 'item')}")
        refs = self.references[self.references["reference"] != "system"]
        if len(refs):
            parts = [f"{r} {short_float(a)}" for r, a in
                     zip(refs["reference"], refs["advantage_probability"])]
            text += "; expected rho of the references: " + ", ".join(parts)
        return text + "."


def _human_table(prep, pairs, counts, p, rejected) -> pd.DataFrame:
    idx = np.nonzero(pairs.tested)[0]
    c = counts[idx]
    n = c.sum(axis=1)
    return pd.DataFrame({
        "rater": prep.raters[idx].to_numpy(dtype=object), "n_items": n,
        "n_ties": c[:, 0], "n_system_better": c[:, 1], "n_human_better": c[:, 2],
        "rho_system": (c[:, 0] + c[:, 1]) / n, "rho_human": (c[:, 0] + c[:, 2]) / n,
        "p_value": p, "rejected": rejected})


def verdict_from_counts(counts, *, epsilon, q, test, margin):
    """p-values, BY rejections, winning rate and rho from ``(m, 3)`` outcome counts."""
    p = _stats.pvalues(counts, epsilon=epsilon, margin=margin, test=test)
    rejected = _stats.by_rejections(p, q=q)
    n = counts.sum(axis=1)
    rho = float(np.mean((counts[:, 0] + counts[:, 1]) / n))
    return p, rejected, float(rejected.mean()), rho


def _one(votes, name, series, *, scoring, epsilon, q, min_humans_per_item,
         min_items_per_human, test, margin, references) -> AltTestResult:
    kind = scoring if isinstance(scoring, str) else "callable"
    labels = references.labels if references is not None else None
    prep = _data.prepare(votes, series, scoring=kind, labels=labels, name=name)
    pairs = _pairs.make_pairs(prep, min_humans_per_item=min_humans_per_item,
                              min_items_per_human=min_items_per_human)
    if not pairs.kept.any():
        raise ValueError(f"no item has {min_humans_per_item} humans and a label of system "
                         f"{name!r} (min_humans_per_item={min_humans_per_item})")
    if not pairs.tested.any():
        raise ValueError(f"no human has {min_items_per_human} kept items for system {name!r} "
                         f"(min_items_per_human={min_items_per_human}; the most is "
                         f"{int(pairs.n_kept.max())})")
    score = scoring if callable(scoring) else kind
    codes = _pairs.outcome(prep, pairs, prep.system[pairs.item], score)
    counts = _pairs.per_rater_counts(pairs.rater, codes, len(prep.raters))
    p, rejected, wr, rho = verdict_from_counts(counts[pairs.tested], epsilon=epsilon, q=q,
                                               test=test, margin=margin)
    table = _human_table(prep, pairs, counts, p, rejected)
    refs, by_bin = reference_tables(prep, pairs, codes, score, references=references,
                                    epsilon=epsilon, q=q, test=test, margin=margin,
                                    system_rate=wr)
    not_tested = np.nonzero(~pairs.tested)[0]
    excluded = pd.DataFrame({"rater": prep.raters[not_tested].to_numpy(dtype=object),
                             "n_items": pairs.n_kept[not_tested]})
    return AltTestResult(
        system=name, winning_rate=wr, advantage_probability=rho, passed=bool(wr >= 0.5),
        epsilon=float(epsilon), table=table, references=refs, by_bin=by_bin, excluded=excluded,
        settings=dict(q=float(q), scoring=kind, test=test, margin=margin,
                      n_items=int(pairs.kept.sum()), n_items_excluded=int((~pairs.kept).sum()),
                      n_humans=int(pairs.tested.sum()), n_humans_excluded=len(not_tested)))


def alt_test(votes, system, *, scoring="accuracy", epsilon: float = 0.2, q: float = 0.05,
             min_humans_per_item: int = 2, min_items_per_human: int = 30, test: str = "t",
             margin: str = "additive", references: References | None = DEFAULT_REFERENCES):
    r"""Run the alternative annotator test (may this system replace the human annotators?).

    Leave one human out at a time; on each item that human annotated, score the
    system's label and the human's label against the other humans' labels; the system
    "wins" against that human when a one-sided t-test shows that the human beats the
    system on fewer than ``epsilon`` more items than the reverse (Benjamini–Yekutieli
    over the humans at ``q``). The system passes when it wins against at least half of
    the tested humans. As published by Calderon, Reichart & Dror (ACL 2025), with what
    reference labellers (a coin, an exchangeable annotator, the plurality follower)
    reach on the same comparisons.

    Parameters
    ----------
    votes : pandas.DataFrame or io.Votes
        One row per vote with columns ``item``, ``rater`` (identified humans), ``label``.
    system : pandas.Series, mapping or pandas.DataFrame
        The system's label per item (indexed by item id, matched by value); a
        DataFrame of several systems (one column each) gives one result per system.
    scoring : {"accuracy", "neg_rmse"} or callable
        ``accuracy``: the share of the other humans' labels equal to a label;
        ``neg_rmse`` (numeric labels): minus the root mean squared difference to them;
        a callable ``scoring(label, other_labels) -> float`` (compared as floats, one
        Python call per comparison: slow; beyond the paper).
    epsilon : float
        The margin in [0, 1) granted to the system (the authors: 0.2 experts, 0.15
        skilled annotators, 0.1 crowd workers).
    q : float
        The false discovery rate of the Benjamini–Yekutieli step-up.
    min_humans_per_item, min_items_per_human : int
        The paper's filters: items with fewer humans (or no system label) are dropped;
        humans with fewer kept items are not tested (counted in the result).
    test : {"t", "signed_rank"}
        ``"t"`` the paper's one-sided one-sample t-test on n - 1 df; ``"signed_rank"``
        a one-sided Wilcoxon signed-rank test (for few items; beyond the paper).
    margin : {"additive", "multiplicative"}
        ``"additive"`` (the paper): H0: E[W_h - W_sys] >= epsilon;
        ``"multiplicative"``: H0: E[W_h - W_sys / (1 - epsilon)] >= 0 (beyond the paper).
    references : References or None
        The reference labellers and how their winning rates are estimated; None: none.

    Returns
    -------
    AltTestResult or dict
        One result; for a DataFrame of systems a dict ``{column: AltTestResult}``.

    Notes
    -----
    For a tested human h and a kept item i, ``W_sys = 1[s(system) >= s(h)]`` and
    ``W_h = 1[s(h) >= s(system)]`` (a tie counts for both), ``d = W_h - W_sys``. The
    p-value of H0: E[d] >= epsilon is :math:`T_{n-1}((\bar d - \varepsilon) / (s_d / \sqrt{n}))`;
    when sd(d) = 0 it is 0 if mean(d) < epsilon, 1 if above, and undefined (never
    rejected) if equal. BY rejects the k smallest p-values, ``k = max{j : p_(j) <= j q /
    (m H_m)}``. The winning rate is rejected / m; rho = mean over humans of mean W_sys.
    Scores are compared exactly: counts under ``accuracy``, sums of squares (in whole
    numbers for labels on a common step) under ``neg_rmse``.

    Examples
    --------
    >>> import pandas as pd
    >>> votes = pd.DataFrame({"item": [i for i in range(40) for _ in range(3)],
    ...                       "rater": ["a", "b", "c"] * 40,
    ...                       "label": [0, 0, 0] * 30 + [1, 1, 0] * 10})
    >>> system = pd.Series([0] * 30 + [2] * 10)  # a label no human gave, on 10 items
    >>> res = alt_test(votes, system, epsilon=0.2, references=None)
    >>> res.passed, round(res.winning_rate, 4), round(res.advantage_probability, 4)
    (False, 0.3333, 0.8333)
    >>> res.table[["rater", "rho_system", "rejected"]].to_dict("list")
    {'rater': ['a', 'b', 'c'], 'rho_system': [0.75, 0.75, 1.0], 'rejected': [False, False, True]}
    """
    _data.check_options(scoring=scoring, epsilon=epsilon, q=q,
                        min_humans_per_item=min_humans_per_item,
                        min_items_per_human=min_items_per_human, test=test, margin=margin)
    if references is not None and not isinstance(references, References):
        raise ValueError(f"references must be a labelvar.judge.References or None, got "
                         f"{type(references).__name__}")
    systems = _data.as_systems(system)
    opts = dict(scoring=scoring, epsilon=float(epsilon) + 0.0, q=float(q),  # (-0.0 is 0)
                min_humans_per_item=int(min_humans_per_item),
                min_items_per_human=int(min_items_per_human), test=test, margin=margin,
                references=references)
    results = {name: _one(votes, name, s, **opts) for name, s in systems.items()}
    if isinstance(system, pd.DataFrame):
        return results
    return next(iter(results.values()))


def joint_winning_rates(results, *, q: float = 0.05) -> pd.DataFrame:
    """Benjamini–Yekutieli over the humans of several tasks together (beyond the paper).

    The authors' FAQ: when a judge must serve several domains, control the false
    discovery rate over all the comparisons at once, and report the winning rate per
    domain. ``results`` maps a task name to its :class:`AltTestResult` (each computed
    with its own epsilon); the p-values are pooled, BY runs once at ``q``.

    Returns
    -------
    pandas.DataFrame
        One row per task: ``task``, ``n_humans``, ``n_rejected``, ``winning_rate``,
        ``passed``.

    Examples
    --------
    >>> import pandas as pd
    >>> votes = pd.DataFrame({"item": [i for i in range(30) for _ in range(3)],
    ...                       "rater": ["a", "b", "c"] * 30, "label": [0, 0, 1] * 30})
    >>> res = alt_test(votes, pd.Series([0] * 30), references=None)
    >>> joint_winning_rates({"x": res, "y": res})[["task", "n_rejected", "passed"]]
      task  n_rejected  passed
    0    x           3    True
    1    y           3    True
    """
    _data.check_q(q)
    if not isinstance(results, Mapping):
        raise ValueError("results must be a mapping task name -> AltTestResult (a dict), got "
                         f"{type(results).__name__}")
    names = list(results)
    if not names or not all(isinstance(results[n], AltTestResult) for n in names):
        raise ValueError("results must map task names to AltTestResult objects")
    p = np.concatenate([results[n].table["p_value"].to_numpy(dtype=float) for n in names])
    rejected = _stats.by_rejections(p, q=float(q))
    rows, start = [], 0
    for n in names:
        m = results[n].n_humans
        k = int(rejected[start:start + m].sum())
        start += m
        rows.append({"task": n, "n_humans": m, "n_rejected": k, "winning_rate": k / m,
                     "passed": k / m >= 0.5})
    return pd.DataFrame(rows)
