r"""Agreement-stratified evaluation of real results (the paper's Tables 3-6).

:func:`stratify` bins the items by the *observed agreement* of the ground-truth
panel, ``agreement = (votes for the majority label) / K``, and reports per bin
(``stratum``) the sample size ``S``, the positive ratio ``m``, each system's score,
the independent human group ``H`` (mean and sd over humans), the expected score
``E`` of a labeller following the coin model at :math:`p_d` = the bin's agreement
(:mod:`labelvar.analytic`) and the gaps :math:`\Delta_{H-X}`, :math:`\Delta_{E-X}`,
plus a Wilson or bootstrap interval and the probability that a random labeller
scores at least as well. It returns a :class:`StratifiedResult`, whose methods give
the optional analyses: :meth:`~StratifiedResult.compare` (two systems on the same
items), :meth:`~StratifiedResult.agreement` (the panel's Fleiss' kappa and
Krippendorff's alpha), :meth:`~StratifiedResult.leave_one_rater_out` (each panel
rater against the others) and :meth:`~StratifiedResult.expected_skill` (a rater
model's expectation per human). :func:`paper_table` lays its tidy table out as the
paper's Table 3. What is asked is said by small objects, not flags: :class:`Labels`,
:class:`Truth`, :class:`Intervals` and :class:`Paper`.

Every score is computed by the one metrics definition the engine uses too (one
confusion matrix over the task's declared label set; macro-F1 averages over all its L
labels, 0/0 = 0), and every random draw comes from a random stream of its own per
(purpose, task, ...) derived from ``seed``, so a task gets the same numbers alone or
with other tasks, and a method called later gives the numbers the same seed gives.

Simulated humans
----------------
Without independent humans, ``Paper(replicates=D)`` adds the paper's H' (Table 4):
for every item one of the panel's own votes is picked at random and compared
with the panel's majority; D draws, averaged (``sd`` over draws). Because the
picked vote is part of the majority it is compared with, the self-inclusive H'
matches E by construction (expected accuracy exactly the bin's agreement); it is
labelled ``H' (self-incl.)`` wherever it is shown. ``H'-loo`` (the default
reference, ``Paper(leave_one_out=True)``): the picked vote is removed and compared
with the majority of the *remaining* K-1 votes, i.e. a rater scored against a panel
it is not part of. That is what an independent rater drawn from the same population
would score against a (K-1)-panel, and it is much lower at low agreement (K = 5, 3-2
split: the majority voter meets a 2-2 tie, the minority voter a 3-1 majority against
it: expected accuracy 0.3, not 0.6).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from labelvar._base import _seeding
from labelvar._base import _validate as v
from labelvar._base._format import count, report_page, result_html, short_repr
from labelvar._base._progress import progress_bar
from labelvar._base._warnings import DataNoteWarning, ExcludedItemsWarning  # noqa: F401 (public names)
from labelvar.evaluation._analyses import (  # noqa: F401 (COMPARISON_COLUMNS: documented here)
    COMPARISON_COLUMNS,
    Comparison,
    PanelAgreement,
    compare_systems,
    panel_agreement,
)
from labelvar.evaluation._bins import _has, _index_dtype, _strata
from labelvar.evaluation._panel_loo import rater_majorities
from labelvar.evaluation._paper_layout import _as_table, _stratum_key, paper_table, stratum_order  # noqa: F401
from labelvar.evaluation._skill import SKILL_MODELS, skill_expectations
from labelvar.evaluation._stratify_options import (  # noqa: F401 (limits documented here)
    MAX_DRAWS,
    MAX_RESAMPLES,
    TIE_RULES,
    Intervals,
    Labels,
    Paper,
    Truth,
    as_option,
)
from labelvar.evaluation._tables import (  # noqa: F401 (AGREEMENT_COLUMNS: documented here)
    AGREEMENT_COLUMNS,
    COLUMNS,
    LABEL_METRICS,
    _task_table,
)
from labelvar.evaluation._tasks import _prepare, task_roles
from labelvar.io import _common, _labels, _samples, _scales
from labelvar.io._labels import plain
from labelvar.metrics import _scores as _metrics

__all__ = [
    "COLUMNS",
    "Comparison",
    "ExcludedItemsWarning",
    "Intervals",
    "Labels",
    "PanelAgreement",
    "Paper",
    "StratifiedResult",
    "Truth",
    "paper_table",
    "stratify",
    "stratum_order",
]

#: label metrics :func:`stratify` reports by default
METRICS = ("accuracy", "f1")
#: metrics of declared ordinal ratings (``Labels(ordinal=True)``), against the panel
ORDINAL_METRICS = _metrics.ORDINAL_METRICS
#: metrics of probability outputs, against the soft labels and the majority
PROBABILITY_METRICS = _metrics.PROBABILITY_METRICS
#: every metric :func:`stratify` accepts
ALL_METRICS = LABEL_METRICS + tuple(m for m in ORDINAL_METRICS + PROBABILITY_METRICS
                                    if m not in LABEL_METRICS)
#: default bins of the Dawid-Skene posterior probability of the aggregated label
POSTERIOR_BINS = (0.0, 0.5, 0.8, 0.95, 0.99, 1.0)
#: H' draws when nothing else is scored (no systems, no humans) and Paper.replicates=None
DEFAULT_DRAWS = 5
#: most H' draws x items of a task (each draw holds a vote and a reference per item)
MAX_DRAW_CELLS = 200_000_000
#: largest (approximate) size of the joint TP x FP support for which the random
#: labeller's exact F1 tail is computed (NaN above; about 10^5 items per bin fit)
EXACT_LIMIT = 4_000_000


@dataclass(frozen=True)
class _Setup:
    """Everything read and asked, kept by the result so its methods give the same numbers."""

    prepared: list      # the tasks (labelvar.evaluation._tasks._Task)
    groups: dict        # task -> [(stratum, item indices)], the strata then "all"
    sampled: dict       # task -> sampled systems' info (io._samples)
    metrics: tuple
    seed: int
    truth: Truth
    intervals: Intervals
    paper: Paper
    n_draws: int
    panel_loo: bool = False
    skill_model: str | None = None


def _score(setup: _Setup, progress=None) -> tuple[pd.DataFrame, dict]:
    """The tidy table of every task, and per task its small bins (and sampled systems)."""
    iv, pp, tie_rule, seed = setup.intervals, setup.paper, setup.truth.tie_rule, setup.seed
    frames, extra = [], {}
    bar = progress_bar(progress, desc="stratify", unit="bin")
    for t in setup.prepared:
        groups = setup.groups[t.name]
        refs = rater_majorities(t, tie_rule, seed) if setup.panel_loo else {}
        skill = (skill_expectations(t, setup.skill_model, seed)
                 if setup.skill_model is not None and t.raters_identified else {})
        frame = _task_table(t, t.humans, groups, setup.metrics, setup.n_draws,
                            pp.leave_one_out, pp.p_d_one, pp.human_round, tie_rule,
                            iv.confidence_level, iv.n_resamples, iv.resample_raters, seed,
                            EXACT_LIMIT, iv.min_bin_size, bar=bar, panel=refs, skill=skill)
        info = {}
        if t.name in setup.sampled:  # self-agreement, sample accuracy per bin (_samples)
            frame = _samples.sample_rows(frame, t, groups, setup.sampled[t.name])
            info["samples"] = setup.sampled[t.name]
        small = frame.loc[frame["small_bin"], ["stratum", "S"]].drop_duplicates()
        info["small_bins"] = {a: int(n) for a, n in small.to_numpy()}
        extra[t.name] = info
        frames.append(frame)
    bar.close()
    # a task nobody scores (no rater, no H') has no rows: its empty frame would make
    # every column of the concatenation an object column
    return pd.concat([f for f in frames if len(f)] or frames, ignore_index=True), extra


# --------------------------------------------------------------------------- result
@dataclass(frozen=True, eq=False)
class StratifiedResult:
    """What :func:`stratify` returns: the tidy table, and the optional analyses as methods.

    Attributes
    ----------
    table : pandas.DataFrame
        The tidy table: one row per task x rater x stratum x metric, columns
        :data:`COLUMNS` (see :func:`stratify`).
    excluded : dict of str to dict of str to int
        Per task, the items left out: ``no_votes``, ``one_vote``, ``tied`` (with
        ``Truth(tie_rule="drop")``) and ``no_prediction`` (with ``missing="drop"``).
    seed : int
        The seed actually used (a drawn one when ``seed=None``); passing it again
        repeats the run.
    inputs : dict of str to dict
        Per task, what was read: ``items``, ``raters`` (None for count vectors),
        ``votes_min``, ``votes_max`` (votes per item), ``labels`` (label -> votes),
        ``systems``, ``humans``, ``small_bins`` (stratum -> S of the bins under
        ``min_bin_size``), with ``Truth("dawid_skene")`` ``changed_vs_majority``
        (evaluated items whose Dawid-Skene label differs from the plurality label);
        :meth:`describe` gives one line per task.

    Examples
    --------
    >>> r = stratify([[1, 1, 0], [0, 0, 0], [1, 1, 1]], {"ai": [1, 0, 0]},
    ...              intervals=Intervals(n_resamples=0))
    >>> r
    StratifiedResult(tasks=['task'], systems=['ai'], metrics=['accuracy', 'f1'], rows=6, seed=0)
    >>> r.excluded
    {'task': {'no_votes': 0, 'one_vote': 0, 'tied': 0, 'no_prediction': 0}}
    """

    table: pd.DataFrame
    excluded: dict
    seed: int
    inputs: dict = field(default_factory=dict)
    _setup: _Setup | None = field(default=None, repr=False)

    to_html = report_page

    @property
    def tasks(self) -> list[str]:
        """Task names, in table order."""
        return list(dict.fromkeys(self.table["task"]))

    @property
    def systems(self) -> list[str]:
        """Evaluated systems (``role == "system"``), in table order."""
        return list(dict.fromkeys(self.table.loc[self.table["role"] == "system", "system"]))

    @property
    def humans(self) -> list[str]:
        """The independent humans (``role == "human"``) forming H, in table order."""
        return list(dict.fromkeys(self.table.loc[self.table["role"] == "human", "system"]))

    @property
    def metrics(self) -> list[str]:
        """Metrics reported, in table order."""
        return list(dict.fromkeys(self.table["metric"]))

    def _need_setup(self, what: str) -> _Setup:
        if self._setup is None:
            raise ValueError(f"{what}: this result was not made by stratify (no data kept)")
        return self._setup

    def agreement(self) -> PanelAgreement:
        """The panel's agreement per task and stratum: Fleiss' kappa, Krippendorff's alpha.

        Tidy (columns :data:`AGREEMENT_COLUMNS`), one row per task x stratum x
        ``statistic`` (``fleiss_kappa``, ``alpha_nominal`` and, for ordinal labels,
        ``alpha_ordinal``, ``alpha_interval``), ``score`` its value, a percentile
        bootstrap interval over items (``Intervals.n_resamples``), ``n`` the items it
        uses (Fleiss' kappa: those with the task's most common number of votes).

        Examples
        --------
        >>> r = stratify([[1, 1, 0], [0, 0, 0], [1, 1, 1], [0, 1, 0]], {"ai": [1, 0, 1, 0]},
        ...              intervals=Intervals(n_resamples=0))
        >>> a = r.agreement().table
        >>> round(float(a.loc[(a.stratum == "all") & (a.statistic == "fleiss_kappa"), "score"]
        ...             .iloc[0]), 4)
        0.3333
        """
        return panel_agreement(self._need_setup("agreement"))

    def compare(self, a: str, b: str) -> Comparison:
        """Two systems (or a system and a panel rater) on the same items.

        Per task x stratum x metric (columns :data:`COMPARISON_COLUMNS`): exact
        McNemar for accuracy, a paired bootstrap for the other metrics, ``diff = score_a
        - score_b`` with a paired bootstrap interval, and ``p_holm`` (Holm over the
        ``n_comparisons`` rows with a p-value). ``note`` says why a row has none: a
        small bin (no test, as in :func:`labelvar.evaluation._inference.bin_tests`), no
        discordant items, identical answers, an undefined score, or no resamples. A
        panel rater is scored with the other against the majority of the *other* panel
        raters, on the items it voted on.

        Examples
        --------
        >>> panel = [[1, 1, 0], [0, 0, 0], [1, 1, 1], [0, 1, 0]]
        >>> r = stratify(panel, {"a": [1, 0, 1, 1], "b": [1, 0, 0, 0]},
        ...              intervals=Intervals(n_resamples=0), metrics=["accuracy"])
        >>> c = r.compare("a", "b").table
        >>> c.loc[c.stratum == "all", ["score_a", "score_b", "p"]].round(3).to_numpy().tolist()
        [[0.75, 0.75, 1.0]]
        """
        return compare_systems(self._need_setup("compare"), a, b)

    def leave_one_rater_out(self) -> StratifiedResult:
        """The result with each panel rater also scored against the majority of the *others*.

        With identified raters (one column per rater) each panel rater gets rows of role
        ``panel-loo`` (against the plurality of the other raters; ties among them by the
        tie rule, ``"drop"`` leaving the item out for that rater) and, labelled as
        such, ``panel-self`` (against the whole panel's majority, its own vote
        included); ``S`` is the number of items scored. The other rows are unchanged.

        Examples
        --------
        >>> panel = {"r1": [1, 1, 0, 0], "r2": [1, 0, 0, 1], "r3": [1, 1, 0, 1]}
        >>> import pandas as pd
        >>> r = stratify(pd.DataFrame(panel), {"ai": [1, 1, 0, 0]},
        ...              intervals=Intervals(n_resamples=0), metrics=["accuracy"])
        >>> t = r.leave_one_rater_out().table
        >>> print(t[(t.role == "panel-loo") & (t.stratum == "all")][["system", "S", "score"]
        ...       ].to_string(index=False))
        system  S  score
            r1  4   0.75
            r2  4   0.50
            r3  4   1.00
        """
        setup = self._need_setup("leave_one_rater_out")
        if not any(t.raters_identified for t in setup.prepared):
            raise ValueError("leave_one_rater_out: scoring each panel rater against the others "
                             "needs identified raters (one column per rater), not per-label "
                             "counts or lists of votes")
        return self._rescored(dataclasses.replace(setup, panel_loo=True))

    def expected_skill(self, model: str = "dawid_skene") -> StratifiedResult:
        """The result with each human's skill-based expectation ``expected_skill`` filled in.

        E = p_d assumes a human is exchangeable with the panel's annotators. With
        identified raters, the rater model ``model`` (one of ``"one_coin"``,
        ``"dawid_skene"``, ``"dawid_skene_difficulty"``;
        :func:`labelvar.fit_raters`) is fitted to the panel's votes and the
        humans' labels together; each human's accuracy row gets the mean over the
        stratum's items of P(its label = the panel's plurality | the panel's votes)
        (ties averaged over the tied labels) beside the exchangeable ``expected``.
        """
        setup = self._need_setup("expected_skill")
        from labelvar._base import _validate as v

        v.choice("model", model, SKILL_MODELS)
        if not any(t.raters_identified and t.humans for t in setup.prepared):
            raise ValueError("expected_skill: each human's skill-based expectation needs humans "
                             "and identified panel raters (one column per rater)")
        return self._rescored(dataclasses.replace(setup, skill_model=model))

    def _rescored(self, setup: _Setup) -> StratifiedResult:
        table, extra = _score(setup)
        inputs = {k: dict(d, **extra.get(k, {})) for k, d in self.inputs.items()}
        return dataclasses.replace(self, table=table, inputs=inputs, _setup=setup)

    def describe(self) -> str:
        """What was read, one line per task: items, raters, votes per item, labels, systems.

        Examples
        --------
        >>> print(stratify([[1, 1, 0], [0, 0, 0]], {"ai": [1, 0]},
        ...                intervals=Intervals(n_resamples=0, min_bin_size=1)).describe())
        task: 2 items, 3 raters, 3 votes per item, labels 0 (4), 1 (2); systems ai
        """
        lines = []
        for task, d in self.inputs.items():
            k = (f"{d['votes_min']}" if d["votes_min"] == d["votes_max"]
                 else f"{d['votes_min']}-{d['votes_max']}")
            who = ("count vectors" if d.get("counts", d["raters"] is None) else
                   "unidentified raters" if d["raters"] is None else f"{d['raters']} raters")
            labs = ", ".join(f"{lab} ({n:,})" for lab, n in d["labels"].items())
            line = f"{task}: {count(d['items'], 'item')}, {who}, {k} votes per item, labels {labs}"
            sy = d["systems"]
            line += "; systems " + (", ".join(sy[:3]) + (f", ... ({len(sy)})" if len(sy) > 3
                                                         else "") if sy else "none")
            if d["humans"]:
                line += "; humans " + ", ".join(d["humans"])
            if d.get("tied"):
                line += (f"; {d['tied']:,} tied items " + (
                    "left out (tie_rule 'drop')" if d["tie_rule"] == "drop" else
                    f"labelled by tie_rule {d['tie_rule']!r}"))
            if d.get("changed_vs_majority") is not None:
                line += (f"; Dawid-Skene changes {d['changed_vs_majority']:,} of "
                         f"{d['evaluated']:,} majority labels")
            if d.get("small_bins"):
                line += "; small bins (no bin test) " + ", ".join(
                    f"{a} ({n})" for a, n in d["small_bins"].items())
            lines.append(line)
        return "\n".join(lines)

    def paper_table(self, system: str | None = None, metrics: Sequence[str] | None = None,
                    digits: int | None = None) -> pd.DataFrame:
        """The paper's Table 3 layout of :attr:`table`: numbers, or text with ``digits``.

        See :func:`paper_table`.

        Examples
        --------
        >>> r = stratify([[1, 1, 0], [0, 0, 0], [1, 1, 1]], {"ai": [1, 0, 0]},
        ...              intervals=Intervals(n_resamples=0))
        >>> r.paper_table("ai")["f1 AI"].round(3).tolist()
        [1.0, 0.0, 0.667]
        """
        return paper_table(self.table, system, metrics=metrics, digits=digits)

    def _shown(self) -> dict:
        return {"tasks": self.tasks, "systems": self.systems, "metrics": self.metrics,
                "rows": len(self.table), "seed": self.seed}

    def __repr__(self) -> str:
        return short_repr("StratifiedResult", self._shown())

    def _repr_html_(self) -> str:
        """The notebook view: what was read, then the paper-layout table per system."""
        tables = {f"paper_table({s!r})": paper_table(self, s, digits=3) for s in self.systems[:5]}
        if not tables:
            tables["paper_table()"] = paper_table(self, None, digits=3)
        fields = {"humans": self.humans, "seed": self.seed}
        fields.update({f"excluded ({task})": ", ".join(f"{k} {n:,}" for k, n in ex.items() if n)
                       for task, ex in self.excluded.items() if any(ex.values())})
        lines = self.describe().splitlines()
        if len(self.systems) > 5:
            lines.append(f"paper tables of the first 5 of {len(self.systems)} systems; "
                         ".paper_table(system) gives any")
        return result_html("StratifiedResult", fields, tables, lines)


# --------------------------------------------------------------------------- public API
def stratify(panel, predictions=None, *, humans: Sequence[str] = (),
             labels: Sequence | Labels | None = None, bins: Sequence[float] | None = None,
             metrics: Sequence[str] | None = None, truth: Truth | None = None,
             intervals: Intervals | None = None, paper: Paper | None = None,
             missing: str = "error", recode=None,
             seed: int | np.random.Generator | None = 0) -> StratifiedResult:
    r"""Score systems and humans per bin of the ground-truth panel's observed agreement.

    Parameters
    ----------
    panel : array_like, DataFrame, TaskData, or mapping of task to TaskData
        Items x annotators votes of the ground-truth panel; missing votes as
        NaN/None (panels may differ in size per item). A
        :class:`labelvar.io.TaskData` (one task, named ``task``) or a mapping of task
        name to TaskData (as :func:`labelvar.io.load_tasks` returns; several tasks at
        once) carries its own predictions, so ``predictions`` must then be None; it
        also carries the panel as per-label vote counts (``counts=True``, items x L,
        e.g. ChaosNLI's ``label_count``: majority, ties and agreement come from the
        counts, H' and the rater bootstrap draw votes from them; a count is a whole
        number >= 0, an empty or NaN count is refused), systems' probability outputs
        (``probabilities``: items x L in label order, or the positive class's
        probability for a binary task; each row in [0, 1] summing to 1 within 0.01,
        normalised with a note, else refused) and the roles it was loaded with:
        ``humans``, ``labels`` and ``raters_identified`` (list positions are not
        raters: no Dawid-Skene, no per-rater rows); an argument contradicting them is
        refused. A rater may not be both in the panel and among the predictions (it
        would be scored against a majority it voted in).
    predictions : mapping of str to array_like, or DataFrame, optional
        One label per item for every evaluated rater (systems and the humans
        named in ``humans``). A pandas Series or DataFrame is matched to the
        panel's items **by its index** (the item ids; a panel given as an array
        has ids 0 .. n-1): its index must hold every panel item once (an item
        without a prediction is NaN), and ids the panel lacks or duplicates are
        refused. A list or array is read in panel order.
    humans : str or sequence of str
        Names in ``predictions`` forming the independent human group H (a
        string is one name).
    labels : sequence or Labels, optional
        The declared label set (default: inferred from the panel; {0, 1} if only
        0/1 occur); a :class:`Labels` adds the positive class of F1 (``pos_label``;
        default 1 for 0/1 labels, macro-F1 over the labels for more than 2; the
        coin model's ``expected`` F1 is given for binary labels only) and whether the
        labels are an ordinal scale (``ordinal=True``: adds :data:`ORDINAL_METRICS`
        and ordinal and interval Krippendorff alpha). Macro-F1 averages over all the
        declared labels, present in a bin or not (scikit-learn's ``labels=``, 0/0 =
        0). Without it, a task's votes are all numbers, all text or all booleans and
        no ``inf``, however frequent the odd ones (``"yes"`` among 0/1 is refused, as
        in a file; ``"1"`` and ``1.0`` are the number 1); declared, text and numbers
        may mix and ``inf`` occur. Panel votes outside a declared set are refused,
        unless they are rare (under 0.5 % of the task's votes, or one vote among 10 or
        more: treated as missing, with a :class:`DataNoteWarning`). Booleans never mix
        with other labels. An
        inferred set is refused when it looks wrong: more than 20 distinct integers
        (counts read as votes?) or a rare label that looks stray; the message names
        both fixes. With per-label counts the labels name the count columns, in
        order (default: the DataFrame's column names).
    bins : sequence of float, optional
        Bin edges on the observed agreement (e.g. ``[0.5, 0.7, 0.9, 1.0]``);
        default one bin per observed value (0.60, 0.80, 1.00 for 5 votes).
    metrics : str or sequence of str
        Metrics to report (a string is one metric): label metrics ``accuracy``,
        ``precision``, ``recall``, ``f1``, ``kappa`` (Cohen's kappa against the
        majority); for ordinal labels :data:`ORDINAL_METRICS` (``mae``, ``within1``,
        ``qwk``, ``spearman``, ``kendall``); with probability outputs
        :data:`PROBABILITY_METRICS` (``cross_entropy``, ``total_variation``,
        ``auroc``, ``auprc``). Default ``accuracy, f1``, plus all ordinal metrics for
        ordinal labels and all probability metrics when there are probability
        outputs. ``expected`` and ``chance`` are given for accuracy and, for binary
        labels, precision, recall and F1; NaN for the others; ``p_random`` for
        accuracy and F1 only. Intervals: Wilson (accuracy), bootstrap over items (the
        others).
    truth : Truth, optional
        The ground truth and its tie rule (default ``Truth()``: the plurality label,
        ties broken at random, seeded). With ``Truth("dawid_skene")`` the items are
        binned by the posterior probability of their label (default bins
        :data:`POSTERIOR_BINS`), ``agreement`` is the bin's mean posterior, and
        ``inputs[task]["changed_vs_majority"]`` counts the labels that differ from
        the plurality; ties in the panel then follow the tie rule for ``"drop"``
        only. ``"first_vote"`` is refused for per-label counts (no vote order). The
        table's ``tie_rule`` and ``n_tied`` say how each bin was made.
    intervals : Intervals, optional
        How intervals and tests are made (default ``Intervals()``: 1,000 bootstrap
        resamples, 95 %, items resampled, bins of fewer than 10 items flagged
        ``small_bin`` and left out of the tests). Resamples are drawn a block at a
        time (bounded memory, the same numbers for a seed whatever the block size).
        ``resample_raters=True`` (refused with Dawid-Skene, whose replicates it could
        not recompute) redraws each item's panel votes in every replicate.
    paper : Paper, optional
        The paper's reproduction knobs: the simulated human H' (``replicates``
        draws; default 5 when there is nothing else to score, else none; see the
        module notes), ``p_d_one`` (p_d for E where the agreement is 1) and
        ``human_round``.
    missing : {"error", "drop"}
        An evaluated item without a prediction from some system is an error
        (default), or is excluded from every system's scores (counted).
    recode : mapping, str or sequence, optional
        Maps a system's (or, under ``"panel"``, the panel's) labels onto the panel's
        labels before anything is read: ``{"gpt4": {1: 1, 2: 3, 3: 5}}``, the text
        ``"gpt4:1=1,2=3,3=5"`` or a JSON/YAML file of such a mapping. A system label
        outside the panel's set is refused naming it; so is a system whose ratings on
        a scale of 3+ whole numbers start at its bottom and stop below its top, with
        5 % or more of the panel's votes above them (G-Eval's 1-3 against 1-5),
        unless it has a map (onto the panel's scale, or the identity). Two spellings
        of one text label (``Entailment``, ``entailment``) are refused unless recoded
        or both declared in ``labels``.
    seed : int, numpy Generator or None
        Seed of the tie breaks, H' draws and bootstraps (an int in [0, 2**63 - 1]
        is used exactly; None draws one). Each (purpose, task) gets its own
        stream, and each bootstrap interval its own (task, rater, stratum, metric)
        stream, so a task's numbers do not depend on the other tasks or raters.
        The int used is :attr:`StratifiedResult.seed`.

    Returns
    -------
    StratifiedResult
        ``table``: tidy, one row per task x rater x stratum x metric with the
        columns ``task, system, role, stratum, agreement, S, small_bin, m,
        n_labels, metric, score, sd, ci_low, ci_high, expected, chance,
        delta_expected, delta_human, p_random, p_random_prior``. ``role`` is ``system``, ``human`` (each
        human), ``H`` (mean over humans, ``sd`` across them, ddof=1), ``H'`` or
        ``H'-loo``. ``stratum`` is ``"0.60"``-style (or ``"[0.50, 0.70)"`` for
        user bins) or ``"all"``; strata come in increasing agreement, ``all``
        last. ``agreement`` is the bin's mean observed agreement (NaN for
        ``all``). ``expected`` is the coin model's expectation
        with every item at :math:`p_d` = its observed agreement (``Paper.p_d_one``
        where that is 1): the closed form at the bin's agreement and ``m`` for a
        bin of one agreement level;
        :func:`labelvar.analytic.stratified_expectation` over the agreement
        levels (each with its own ``m``) for ``all`` and for user ``bins``
        spanning several levels.
        ``chance`` is the expected score of a labeller guessing uniformly (the
        coin model at :math:`p_d = 1/L`: accuracy 1/L; binary F1 at the bin's
        ``m``; NaN for macro-F1). ``small_bin`` is ``S < Intervals.min_bin_size``.
        ``delta_expected = expected - score`` (on the H row: Δ(E−H));
        ``delta_human = H - score`` (H' when there are no humans). ``p_random``
        and ``p_random_prior`` are the probabilities that a labeller guessing
        uniformly (1/L) or with the bin's label frequencies scores at least
        ``score`` on the bin's items (exact; for F1 from distributions that leave
        out outcomes of probability below 1e-22 each, so an F1 tail under about
        1e-20 reads 0). ``excluded`` counts the excluded items per task; ``seed``
        is the seed used.

    Raises
    ------
    ValueError
        Misaligned predictions, labels of mixed kinds or ``inf`` (see ``labels``),
        labels outside the label set, an empty count, a positive label that never
        occurs, a 1-column panel, bins not covering the data, ...

    Warns
    -----
    ExcludedItemsWarning
        When items are excluded (fewer than 2 votes, ties with
        ``Truth(tie_rule="drop")``, no prediction with ``missing="drop"``).
    DataNoteWarning
        Rare votes outside the declared labels treated as missing.

    Examples
    --------
    >>> panel = [[1, 1, 1], [1, 1, 0], [0, 0, 0], [0, 1, 0], [1, 1, 1], [0, 0, 0]]
    >>> preds = {"model": [1, 0, 0, 0, 1, 1], "dr": [1, 1, 0, 1, 1, 0]}
    >>> r = stratify(panel, preds, humans=["dr"], metrics=["accuracy"], intervals=Intervals(n_resamples=0))
    >>> t = r.table
    >>> print(t[t.role != "human"][["system", "stratum", "S", "score", "expected"]]
    ...       .round(3).to_string(index=False))
    system stratum  S  score  expected
     model    0.67  2  0.500     0.667
         H    0.67  2  0.500     0.667
     model    1.00  4  0.750     1.000
         H    1.00  4  1.000     1.000
     model     all  6  0.667     0.889
         H     all  6  0.833     0.889
    """
    truth = as_option(truth, Truth, "truth")
    intervals = as_option(intervals, Intervals, "intervals")
    paper = as_option(paper, Paper, "paper")
    if labels is not None and not isinstance(labels, Labels):
        labels = Labels(labels)
    labels = labels or Labels()
    pos_label, ordinal, labels = labels.pos_label, labels.ordinal, labels.values
    tie_rule, aggregation = truth.tie_rule, truth.aggregation
    boot_raters = intervals.resample_raters
    v.choice("missing", missing, ("error", "drop"))
    if isinstance(panel, _common.TaskData):  # one task with its roles: named "task"
        if predictions is not None:
            raise ValueError("predictions must be None when panel is a TaskData (it carries "
                             "its predictions)")
        panel = {"task": panel}
    # systems given as sampled answers (TaskData.samples): modal answer + shares (_samples)
    panel, sampled, recode = _samples.expand(panel, labels, None, _scales.recode_map(recode))
    has_probs = isinstance(panel, Mapping) and any(
        len(td) > 2 and td[2] for td in panel.values())
    asked = metrics is not None  # named metrics must be scored: none is dropped silently
    if metrics is None:
        metrics = METRICS + (ORDINAL_METRICS if ordinal else ()) + (
            PROBABILITY_METRICS if has_probs else ())
    metrics = tuple(v.names("metrics", metrics, "metric"))
    for mtr in metrics:
        v.choice("metrics", mtr, ALL_METRICS)
        if mtr in ORDINAL_METRICS and mtr not in LABEL_METRICS and not ordinal:
            raise ValueError(f"metrics: {mtr!r} scores ordinal ratings; declare them "
                             "(ordinal=True)")
    if not metrics:
        raise ValueError("metrics must name at least one of 'accuracy', 'f1'")
    if ordinal and labels is not None and not isinstance(labels, str):
        vals = pd.to_numeric(pd.Series(list(labels)), errors="coerce").to_numpy(float)
        steps = np.diff(vals)
        if np.isfinite(vals).all() and not (np.all(steps > 0) or np.all(steps < 0)):
            raise ValueError(f"labels: ordinal ratings must be declared in order, got "
                             f"{[plain(x) for x in labels]!r} (quadratic-weighted kappa weighs "
                             "by position)")
    if aggregation == "dawid_skene" and boot_raters:
        raise ValueError("resample_raters: the rater bootstrap recomputes each replicate's "
                         "panel plurality, not the Dawid-Skene label (aggregation=dawid_skene), so "
                         "its intervals would be about another ground truth; use one of the two")
    if aggregation == "dawid_skene" and bins is None:
        bins = POSTERIOR_BINS
    n_draws = paper.replicates
    humans = v.names("humans", humans)
    if isinstance(panel, Mapping):
        if predictions is not None:
            raise ValueError("predictions must be None when panel is a mapping of tasks")
        tasks = [(str(name), td) for name, td in panel.items()]
        if not tasks:
            raise ValueError("panel: the mapping of tasks is empty")
    else:
        tasks = [("task", (panel, predictions, None))]
    recode = _scales.recode_map(recode)
    rated = sorted({str(n) for _, td in tasks for n in (
        td[1].columns if isinstance(td[1], pd.DataFrame) else td[1] or ())})
    unknown = [n for n in recode if n != _labels.PANEL and n not in rated]
    if unknown:  # (a map for no system: a typo, which would leave that system unmapped)
        raise ValueError(f"recode: {unknown[0]!r} is no evaluated rater of any task "
                         f"({', '.join(map(repr, rated)) or 'none'}; 'panel': the panel's votes)")
    seed = _seeding.as_seed(seed)
    notes: list[str] = []
    prepared = []
    for name, td in tasks:
        roles = task_roles(name, td, humans=humans, panel_counts=None, labels=labels)
        t = _prepare(name, td[0], td[1], labels=roles.labels, pos_label=pos_label,
                     tie_rule=tie_rule, missing=missing,
                     rng=_seeding.generator(seed, "ties", name), panel_counts=roles.counts,
                     notes=notes, probabilities=td[2] if len(td) > 2 else None,
                     aggregation=aggregation, ordinal=ordinal, recode=recode,
                     raters_identified=roles.raters_identified)
        t.humans = tuple(h for h in roles.humans)
        absent = [h for h in t.humans if h not in t.preds and h not in t.probs]
        if absent:
            raise ValueError(f"humans: {absent[0]!r} is not among the predictions of task "
                             f"{name!r} ({', '.join(map(repr, t.preds)) or 'none'})")
        prepared.append(t)
    if paper.human_round is not None and not any(t.humans for t in prepared):
        raise ValueError("human_round rounds each human's score before H's mean; there are no "
                         "humans (humans=...): leave it out or name the humans")
    if n_draws is None:  # nothing else to score: H' (and E, chance) per bin
        n_draws = 0 if any(t.preds or t.probs for t in prepared) else DEFAULT_DRAWS
    if n_draws == 0 and not any(t.preds or t.probs for t in prepared):
        raise ValueError("nothing to score: no systems, no humans and replicates=0; "
                         f"ask for H' draws (Paper), replicates={DEFAULT_DRAWS}")
    for mtr in metrics if asked else ():
        if any(_has(mtr, t, r) for t in prepared for r in list(t.preds) + list(t.probs)) \
                or (mtr in LABEL_METRICS and n_draws):
            continue
        if mtr in PROBABILITY_METRICS:
            raise ValueError(f"metrics: {mtr!r} scores probability outputs and no system has "
                             "any; give them (probabilities=...) or leave it out")
        raise ValueError(f"metrics: {mtr!r} scores label predictions and no rater has any "
                         "(only probability outputs); leave it out")
    for t in prepared:  # refused before drawing (each draw holds 2 codes per item)
        if n_draws * t.k.size > MAX_DRAW_CELLS:
            raise ValueError(f"replicates: {n_draws:,} draws x {t.k.size:,} items of task "
                             f"{t.name!r} is more than {MAX_DRAW_CELLS:.0e} draws x items; ask "
                             f"for at most {MAX_DRAW_CELLS // t.k.size:,} draws")
    groups = {}
    for t in prepared:
        n = t.k.size
        groups[t.name] = _strata(t, bins) + [("all", np.arange(n, dtype=_index_dtype(n)))]
    setup = _Setup(prepared=prepared, groups=groups, sampled=sampled, metrics=metrics,
                   seed=seed, truth=truth, intervals=intervals, paper=paper, n_draws=n_draws)
    table, extra = _score(setup)
    excluded, inputs = {}, {}
    for t in prepared:
        excluded[t.name] = t.excluded
        raters = list(dict.fromkeys(list(t.preds) + list(t.probs)))  # labels or probabilities
        inputs[t.name] = dict(t.inputs, systems=[s for s in raters if s not in t.humans],
                              humans=[h for h in raters if h in t.humans], **extra[t.name])
    for note in notes:
        warnings.warn(note, DataNoteWarning, stacklevel=2)
    bad = {k: e for k, e in excluded.items() if any(e.values())}
    if bad:
        msg = "; ".join(f"{k}: {e['no_votes']} with no votes, {e['one_vote']} with one vote"
                        + (f", {e['tied']} tied" if e["tied"] else "")
                        + (f", {e['no_prediction']} without a prediction"
                           if e["no_prediction"] else "") for k, e in bad.items())
        warnings.warn(f"excluded items ({msg})", ExcludedItemsWarning, stacklevel=2)
    return StratifiedResult(table=table, excluded=excluded, seed=seed, inputs=inputs,
                            _setup=setup)
