r"""Agreement-stratified evaluation of real results (the paper's Tables 3-6).

:func:`stratify` bins the items by the *observed agreement* of the ground-truth
panel, ``agreement = (votes for the majority label) / K``, and reports per bin
(``stratum``) the sample size ``S``, the positive ratio ``m``, each system's score,
the independent human group ``H`` (mean and sd over humans), the expected score
``E`` of a labeller following the coin model at :math:`p_d` = the bin's agreement
(:mod:`labelvar.analytic`) and the gaps :math:`\Delta_{H-X}`, :math:`\Delta_{E-X}`,
plus a Wilson or bootstrap interval and the probability that a random labeller
scores at least as well. It returns a :class:`StratifiedResult`;
:func:`paper_table` lays its tidy table out as the paper's Table 3. The tests
between bins and between systems (Figures 3 and 4) are in
:mod:`labelvar.inference`.

Every score is computed by the one metrics definition the engine uses too (one
confusion matrix over the task's declared label set; macro-F1 averages over all its L
labels, 0/0 = 0), and every random draw comes from a random stream of its own per
(purpose, task, ...) derived from ``seed``, so a task gets the same numbers alone or
with other tasks.

Simulated humans
----------------
Without independent humans, ``simulated_human=D`` adds the paper's H' (Table 4):
for every item one of the panel's own votes is picked at random and compared
with the panel's majority; D draws, averaged (``sd`` over draws). Because the
picked vote is part of the majority it is compared with, H' matches E by
construction (expected accuracy exactly the bin's agreement). ``leave_one_out=True``
adds ``H'-loo``: the picked vote is removed and compared with the majority of
the *remaining* K-1 votes, i.e. a rater scored against a panel it is not part
of. That is what an independent rater drawn from the same population would
score against a (K-1)-panel, and it is much lower at low agreement (K = 5,
3-2 split: the majority voter meets a 2-2 tie, the minority voter a 3-1
majority against it: expected accuracy 0.3, not 0.6).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from labelvar._base import _metrics, _seeding
from labelvar._base import _validate as v
from labelvar._base._defaults import CONFIDENCE_LEVEL
from labelvar._base._format import count, result_html, short_repr
from labelvar._base._progress import progress_bar
from labelvar._base._warnings import DataNoteWarning, ExcludedItemsWarning  # noqa: F401 (public names)
from labelvar.evaluation._bins import _has, _index_dtype, _strata
from labelvar.evaluation._panel_loo import rater_majorities
from labelvar.evaluation._paper_layout import _as_table, _stratum_key, paper_table, stratum_order  # noqa: F401
from labelvar.evaluation._skill import SKILL_MODELS, skill_expectations
from labelvar.evaluation._tables import (  # noqa: F401 (AGREEMENT_COLUMNS: documented here)
    AGREEMENT_COLUMNS,
    COLUMNS,
    LABEL_METRICS,
    MIN_BIN_SIZE,
    _agreement_rows,
    _compare_rows,
    _task_table,
)
from labelvar.evaluation._tasks import _prepare, task_roles
from labelvar.io import _labels, _samples, _scales
from labelvar.io._labels import plain

__all__ = [
    "COLUMNS",
    "ExcludedItemsWarning",
    "StratifiedResult",
    "paper_table",
    "stratify",
    "stratum_order",
]

#: label metrics :func:`stratify` reports by default
METRICS = ("accuracy", "f1")
#: metrics of declared ordinal ratings (``ordinal=True``), against the panel
ORDINAL_METRICS = _metrics.ORDINAL_METRICS
#: metrics of probability outputs (``probabilities=``), against the soft labels and the majority
PROBABILITY_METRICS = _metrics.PROBABILITY_METRICS
#: every metric :func:`stratify` accepts
ALL_METRICS = LABEL_METRICS + tuple(m for m in ORDINAL_METRICS + PROBABILITY_METRICS
                                    if m not in LABEL_METRICS)
#: ground truth: the panel's plurality or the Dawid-Skene posterior mode
AGGREGATIONS = ("majority", "dawid_skene")
#: default bins of the Dawid-Skene posterior probability of the aggregated label
POSTERIOR_BINS = (0.0, 0.5, 0.8, 0.95, 0.99, 1.0)
#: columns of :attr:`StratifiedResult.comparisons`
COMPARISON_COLUMNS = ("task", "stratum", "S", "small_bin", "metric", "system_a", "system_b",
                      "score_a", "score_b", "diff", "ci_low", "ci_high", "test", "n_a_only",
                      "n_b_only", "p", "p_holm", "n_comparisons", "note")
#: tie rules of :func:`stratify`
TIE_RULES = ("random", "lowest", "first_vote", "drop")
#: H' draws when nothing else is scored (no systems, no humans) and simulated_human=None
DEFAULT_DRAWS = 5
#: most bootstrap resamples (``n_boot``): the percentile interval's Monte Carlo error at
#: 1e6 is far below any bin's sampling error; more only costs time
MAX_BOOT = 1_000_000
#: most H' draws (``simulated_human``; the paper uses 5)
MAX_DRAWS = 10_000
#: most H' draws x items of a task (each draw holds a vote and a reference per item)
MAX_DRAW_CELLS = 200_000_000


# --------------------------------------------------------------------------- result
@dataclass(frozen=True, eq=False)
class StratifiedResult:
    """What :func:`stratify` returns.

    Attributes
    ----------
    table : pandas.DataFrame
        The tidy table: one row per task x rater x stratum x metric, columns
        :data:`COLUMNS` (see :func:`stratify`).
    excluded : dict of str to dict of str to int
        Per task, the items left out: ``no_votes``, ``one_vote``, ``tied`` (with
        ``tie_rule="drop"``) and ``no_prediction`` (with ``missing="drop"``).
    seed : int
        The seed actually used (a drawn one when ``seed=None``); passing it again
        repeats the run.
    inputs : dict of str to dict
        Per task, what was read: ``items``, ``raters`` (None for count vectors),
        ``votes_min``, ``votes_max`` (votes per item), ``labels`` (label -> votes),
        ``systems``, ``humans``, ``small_bins`` (stratum -> S of the bins under
        ``min_bin_size``), with ``aggregation="dawid_skene"`` ``changed_vs_majority``
        (evaluated items whose Dawid-Skene label differs from the plurality label);
        :meth:`describe` gives one line per task.
    agreement : pandas.DataFrame or None
        The panel's agreement per task and stratum, tidy: columns
        :data:`AGREEMENT_COLUMNS`, one row per task x stratum x ``statistic``
        (``fleiss_kappa``, ``alpha_nominal`` and, for ordinal labels,
        ``alpha_ordinal``, ``alpha_interval``), ``score`` its value, a percentile
        bootstrap interval over items, ``n`` the items it uses (Fleiss' kappa: those
        with the task's most common number of votes). None with ``agreement=False``.
    comparisons : pandas.DataFrame or None
        With ``compare=(a, b)``: the two systems on the same items, per task x
        stratum x metric (columns :data:`COMPARISON_COLUMNS`): exact McNemar for
        accuracy, a paired bootstrap for the other metrics, ``diff = score_a -
        score_b`` with a paired bootstrap interval, and ``p_holm`` (Holm over the
        ``n_comparisons`` rows with a p-value). ``note`` says why a row has none:
        a small bin (fewer than ``min_bin_size`` items: no test, as in
        :func:`labelvar.bin_tests`), no discordant items, identical answers, an
        undefined score, or ``n_boot=0``.

    Examples
    --------
    >>> r = stratify([[1, 1, 0], [0, 0, 0], [1, 1, 1]], {"ai": [1, 0, 0]}, n_boot=0)
    >>> r
    StratifiedResult(tasks=['task'], systems=['ai'], metrics=['accuracy', 'f1'], rows=6, seed=0)
    >>> r.excluded
    {'task': {'no_votes': 0, 'one_vote': 0, 'tied': 0, 'no_prediction': 0}}
    """

    table: pd.DataFrame
    excluded: dict
    seed: int
    inputs: dict = field(default_factory=dict)
    agreement: pd.DataFrame | None = None
    comparisons: pd.DataFrame | None = None

    def to_html(self, path):
        """Write this result's report page, ``report.html`` (self-contained), to ``path``.

        The page ``labelvar.report`` writes into a report directory (every table and
        figure, the headline with its reference, the settings); returns the path.
        """
        import importlib  # (the report layer sits above this one: imported when asked)

        return importlib.import_module("labelvar.report._html_reports").to_html(self, path)

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

    def describe(self) -> str:
        """What was read, one line per task: items, raters, votes per item, labels, systems.

        Examples
        --------
        >>> print(stratify([[1, 1, 0], [0, 0, 0]], {"ai": [1, 0]}, n_boot=0,
        ...                min_bin_size=1).describe())
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
        >>> r = stratify([[1, 1, 0], [0, 0, 0], [1, 1, 1]], {"ai": [1, 0, 0]}, n_boot=0)
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
        if self.comparisons is not None:
            tables["comparisons"] = self.comparisons
        fields = {"humans": self.humans, "seed": self.seed}
        fields.update({f"excluded ({task})": ", ".join(f"{k} {n:,}" for k, n in ex.items() if n)
                       for task, ex in self.excluded.items() if any(ex.values())})
        lines = self.describe().splitlines()
        if len(self.systems) > 5:
            lines.append(f"paper tables of the first 5 of {len(self.systems)} systems; "
                         ".paper_table(system) gives any")
        return result_html("StratifiedResult", fields, tables, lines)


# --------------------------------------------------------------------------- public API
def stratify(panel, predictions=None, *, humans: Sequence[str] = (), pos_label=None,
             labels: Sequence | None = None, bins: Sequence[float] | None = None,
             metrics: Sequence[str] | None = None, simulated_human: int | None = None,
             leave_one_out: bool = True, panel_loo: bool = False,
             skill_model: str | None = None, p_d_one: float | None = None,
             human_round: int | None = None, tie_rule: str = "random",
             missing: str = "error", confidence_level: float = CONFIDENCE_LEVEL, n_boot: int = 1000,
             boot_raters: bool = False, seed: int | np.random.Generator | None = 0,
             task: str = "task", exact_limit: int = 4_000_000, panel_counts: bool | None = None,
             min_bin_size: int = MIN_BIN_SIZE, probabilities=None, ordinal: bool = False,
             aggregation: str = "majority", agreement: bool = True,
             compare: Sequence[str] | None = None,
             progress: bool | None = None, recode=None) -> StratifiedResult:
    r"""Score systems and humans per bin of the ground-truth panel's observed agreement.

    Parameters
    ----------
    panel : array_like, DataFrame, or mapping of task to (panel, predictions)
        Items x annotators votes of the ground-truth panel; missing votes as
        NaN/None (panels may differ in size per item). With ``panel_counts=True``
        items x L per-label vote counts instead. A mapping (as returned by the
        :mod:`labelvar.io` loaders) evaluates several tasks at once; then
        ``predictions`` must be None. The roles a :class:`labelvar.io.TaskData`
        carries are used: its ``humans``, ``counts`` (``panel_counts``),
        ``labels`` and ``raters_identified`` (list positions are not raters:
        no Dawid-Skene, no per-rater rows); an argument contradicting them is
        refused. A rater may not be both in the panel and among the predictions
        (it would be scored against a majority it voted in).
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
    pos_label : label, optional
        Positive class for F1 (binary; for multi-class, F1 of that class
        one-vs-rest). Default: 1 for 0/1 labels; macro-F1 over the declared
        labels for more than 2 labels. ``expected`` F1 (the coin model's closed
        form) is given for binary labels only; it is NaN for macro-F1 and for
        one-vs-rest F1 with more than 2 labels, where it would depend on how
        disagreements spread over the other labels.
    labels : sequence, optional
        The declared label set (default: inferred from the panel; {0, 1} if only
        0/1 occur). Macro-F1 averages over all of these labels, present in a bin
        or not (scikit-learn's ``labels=``, 0/0 = 0), so a label that never occurs
        in a bin counts there as an F1 of 0. Without it, a task's votes are all
        numbers, all text or all booleans and no ``inf``, however frequent the odd
        ones (``"yes"`` among 0/1 is refused, as in a file; ``"1"`` and ``1.0`` are
        the number 1); declared, text and numbers may mix and ``inf`` occur. Panel
        votes outside a declared set are refused, unless they are rare (under 0.5 %
        of the task's votes: treated as missing, with a :class:`DataNoteWarning`).
        Booleans never mix with other labels (``True`` would be the label 1), in
        the panel or the predictions. An inferred set is refused when it looks
        wrong: more than 20 distinct integers (counts read as votes?) or a rare
        label that looks stray (without it two labels are left, or it is 0.5 among
        integers, or an integer not next to the others); the message names both
        fixes. With ``panel_counts`` the labels name the count columns, in order
        (default: the DataFrame's column names).
    bins : sequence of float, optional
        Bin edges on the observed agreement (e.g. ``[0.5, 0.7, 0.9, 1.0]``);
        default one bin per observed value (0.60, 0.80, 1.00 for 5 votes).
    metrics : str or sequence of str
        Metrics to report (a string is one metric): label metrics ``accuracy``, ``precision``, ``recall``,
        ``f1``, ``kappa`` (Cohen's kappa against the majority); with ``ordinal``
        :data:`ORDINAL_METRICS` (``mae``, ``within1``, ``qwk``, ``spearman``,
        ``kendall``); with ``probabilities`` :data:`PROBABILITY_METRICS`
        (``cross_entropy``, ``total_variation``, ``auroc``, ``auprc``). Default
        ``accuracy, f1``, plus all ordinal metrics with ``ordinal=True`` and all
        probability metrics with ``probabilities``. ``expected`` and ``chance`` are
        given for accuracy and, for binary labels, precision, recall and F1; NaN
        for the others; ``p_random`` for accuracy and F1 only. Intervals: Wilson
        (accuracy), bootstrap over items (the others).
    simulated_human : int, optional
        Number of H' draws (the paper uses 5); 0 for none; at most
        :data:`MAX_DRAWS`, and :data:`MAX_DRAW_CELLS` draws x items per task. Default None: 5 when
        there is nothing else to score (no systems, no humans in any task), else
        0. See the module notes.
    leave_one_out : bool
        With H' drawn, report ``H'-loo`` (the drawn vote removed from the majority it
        is compared with: a rater scored against a panel it is not part of), the
        reference of ``delta_human`` when there are no humans (default True). The
        self-inclusive ``H'`` is reported beside it, labelled so (``H'
        (self-incl.)`` in :func:`paper_table`); False: ``H'`` alone, the
        reference, as in the paper's Table 4.
    panel_loo : bool
        With identified raters (one column per rater), score each panel rater
        against the majority of the *other* raters (role ``panel-loo``; ties among
        them by ``tie_rule``, ``"drop"`` leaving the item out for that rater) and,
        labelled as such, against the whole panel's majority, its own vote
        included (role ``panel-self``); ``S`` is the number of items scored. A
        panel rater may also be one of ``compare``: the evaluated rater and the
        panel member are then both scored against the majority of the panel
        without that member, on the items it voted on.
    skill_model : {"one_coin", "dawid_skene", "dawid_skene_difficulty"}, optional
        With identified raters: fit this rater model
        (:func:`labelvar.raters.fit_raters`) to the panel's votes and the humans'
        labels together, and give each human's accuracy row its skill-based
        expectation ``expected_skill``: the mean over the stratum's items of P(the
        human's label = the panel's plurality | the panel's votes), beside the
        exchangeable ``expected`` (E = p_d). Ties are averaged over the tied
        labels. Default None: not fitted (NaN).
    p_d_one : float, optional
        Coin-model :math:`p_d` used for ``expected`` where the observed agreement
        is 1 (the paper's Table 3 uses 0.97: unanimity of 5 raters does not mean a
        true agreement of exactly 1). Default None: the observed value.
    human_round : int, optional
        Round each human's score to this many decimals before taking the H mean
        and sd. The paper's Table 3 does this with 2 decimals (its H column is
        reproduced to the printed digit only that way); default None: exact scores.
    tie_rule : {"random", "lowest", "first_vote", "drop"}
        Majority label when several labels share the top count: one of them at
        random (seeded; default); the lowest in label order (``"lowest"``); the
        tied label voted first in the panel's rater (column) order
        (``"first_vote"``: the paper's code, ``Counter(votes).most_common(1)``, so a
        3-way split of 3 votes gives rater 1's label; refused for per-label counts,
        which have no vote order); or drop the item (counted in
        :attr:`StratifiedResult.excluded`; the paper's Table 5 leaves out the MNLI
        items with no 3-vote majority so). ``"first"`` is refused: it used to mean
        ``"lowest"`` and reads as ``"first_vote"``, so either reading would be wrong
        for someone. The table's ``tie_rule`` and ``n_tied`` (items of the bin whose
        label the rule chose) say how each bin was made.
    missing : {"error", "drop"}
        An evaluated item without a prediction from some system is an error
        (default), or is excluded from every system's scores (counted).
    confidence_level : float
        Confidence level of the intervals (Wilson for accuracy, percentile
        bootstrap over items with ``n_boot`` resamples for F1).
    n_boot : int
        Bootstrap resamples for F1 intervals (0 to skip), at most :data:`MAX_BOOT`.
        Resamples are drawn a block at a time (bounded memory, the same numbers
        for a seed whatever the block size).
    boot_raters : bool
        Bootstrap over raters too: every interval (accuracy and F1) becomes a
        percentile bootstrap whose replicates resample the bin's items and redraw
        each item's panel votes from its own votes (with replacement), recomputing
        the majority label. It adds the uncertainty of the ground truth itself.
        The bins stay those of the observed agreement.
    seed : int, numpy Generator or None
        Seed of the tie breaks, H' draws and bootstraps (an int in [0, 2**63 - 1]
        is used exactly; None draws one). Each (purpose, task) gets its own
        stream, and each bootstrap interval its own (task, rater, stratum, metric)
        stream, so a task's numbers do not depend on the other tasks or raters.
        The int used is :attr:`StratifiedResult.seed`.
    task : str
        Task name when ``panel`` is a single table.
    exact_limit : int
        Largest (approximate) size of the joint TP x FP support for which the random
        labeller's exact F1 tail is computed (NaN above; about 10^5 items per bin
        fit the default).
    panel_counts : bool, optional
        ``panel`` holds per-label vote counts (items x L, e.g. ChaosNLI's
        ``label_count``; :func:`labelvar.io.read_jsonl` / :func:`~labelvar.io.read_wide`
        with ``counts=True`` read them) instead of one column per rater; any number
        of votes per item. Majority, ties and agreement come from the counts; H'
        and the rater bootstrap draw votes from them. Counts are whole numbers >= 0:
        an empty or NaN count is refused (naming the item and label), not read as 0.
        Default None: False, or what a :class:`labelvar.io.TaskData` says
        (``counts``); a value contradicting the data is refused.
    min_bin_size : int
        Bins with fewer items are flagged (``small_bin``; marked in
        :func:`paper_table` and :meth:`StratifiedResult.describe`) and left out of
        :func:`labelvar.bin_tests`. Default 10.
    probabilities : mapping of str to array_like or DataFrame, optional
        Probability outputs of systems (a system may have labels, probabilities or
        both): items x L in label order (a DataFrame's columns name the labels),
        or, for a binary task, one probability of the positive class per item;
        matched to the panel's items as ``predictions`` are (pandas by index,
        arrays in panel order). Each is finite and in [0, 1] and a row sums to 1:
        within 0.01 (rounded outputs) it is normalised, with a note; further off,
        or ``inf``, is refused.
        They are scored by :data:`PROBABILITY_METRICS` against each item's soft
        label (its panel's vote shares: cross-entropy, total variation) and the
        majority (AUROC, AUPRC; macro one-vs-rest for L > 2). With a mapping of
        tasks, each task's ``TaskData.probabilities``.
    ordinal : bool
        The labels are ordered numeric ratings (e.g. 1-5): add
        :data:`ORDINAL_METRICS` (MAE and within-1 against the panel's mean rating,
        quadratic-weighted kappa against the majority, Spearman and Kendall
        against the panel mean) and ordinal and interval Krippendorff alpha.
    aggregation : {"majority", "dawid_skene"}
        Ground truth: the plurality label (default), or the mode of the
        Dawid-Skene posterior (:func:`labelvar.agreement.dawid_skene`; needs one
        column per rater). With Dawid-Skene the items are binned by the
        posterior probability of their label (default bins
        :data:`POSTERIOR_BINS`), ``agreement`` is the bin's mean posterior, and
        ``inputs[task]["changed_vs_majority"]`` counts the labels that differ from
        the plurality. Ties in the panel follow ``tie_rule`` for ``"drop"`` only.
    agreement : bool
        Compute :attr:`StratifiedResult.agreement` (Fleiss' kappa, Krippendorff's
        alpha per task and stratum, bootstrap intervals with ``n_boot`` resamples).
    compare : (str, str), optional
        Two systems (or a system and a panel rater, see ``panel_loo``) compared on
        the same items per task, stratum and metric
        (:attr:`StratifiedResult.comparisons`; :func:`labelvar.inference.mcnemar_exact`,
        :func:`labelvar.inference.paired_bootstrap`).
    progress : bool, optional
        Show a progress bar (tqdm, on stderr) over the bins of every task, scored and
        bootstrapped. Default None: only when stderr is a terminal; False: never.
    recode : mapping, str or sequence, optional
        Maps a system's (or, under ``"panel"``, the panel's) labels onto the panel's
        labels before anything is read: ``{"gpt4": {1: 1, 2: 3, 3: 5}}``, the text
        ``"gpt4:1=1,2=3,3=5"`` or a JSON/YAML file of such a mapping. A system label
        outside the panel's set is refused naming it; so is a system whose ratings on a scale of 3+ whole
        numbers start at its bottom and stop below its top, with 5 % or more of the
        panel's votes above them (G-Eval's 1-3 against 1-5), unless it has a map:
        onto the panel's scale, or the identity (``"gpt4:1=1,2=2,3=3"``: it rates on
        the panel's scale and never used the rest). Two spellings of one text label
        (``Entailment``, ``entailment``) are refused unless recoded or both declared
        in ``labels``.

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
        with every item at :math:`p_d` = its observed agreement (``p_d_one``
        where that is 1): the closed form at the bin's agreement and ``m`` for a
        bin of one agreement level;
        :func:`labelvar.analytic.stratified_expectation` over the agreement
        levels (each with its own ``m``) for ``all`` and for user ``bins``
        spanning several levels.
        ``chance`` is the expected score of a labeller guessing uniformly (the
        coin model at :math:`p_d = 1/L`: accuracy 1/L; binary F1 at the bin's
        ``m``; NaN for macro-F1). ``small_bin`` is ``S < min_bin_size``.
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
        ``tie_rule="drop"``, no prediction with ``missing="drop"``).
    DataNoteWarning
        Rare votes outside the declared labels treated as missing.

    Examples
    --------
    >>> panel = [[1, 1, 1], [1, 1, 0], [0, 0, 0], [0, 1, 0], [1, 1, 1], [0, 0, 0]]
    >>> preds = {"model": [1, 0, 0, 0, 1, 1], "dr": [1, 1, 0, 1, 1, 0]}
    >>> r = stratify(panel, preds, humans=["dr"], metrics=["accuracy"], n_boot=0)
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
    if tie_rule == "first":
        raise ValueError("tie_rule: 'first' is ambiguous; say 'lowest' (the lowest label "
                         "code, what 'first' meant before) or 'first_vote' (the tied label "
                         "voted first in rater order, the paper's rule)")
    v.choice("tie_rule", tie_rule, TIE_RULES)
    v.choice("missing", missing, ("error", "drop"))
    # systems given as sampled answers (TaskData.samples): modal answer + shares (_samples)
    panel, sampled, recode = _samples.expand(panel, labels, panel_counts,
                                             _scales.recode_map(recode))
    v.choice("aggregation", aggregation, AGGREGATIONS)
    has_probs = probabilities is not None or (isinstance(panel, Mapping) and any(
        len(td) > 2 and td[2] for td in panel.values()))
    asked = metrics is not None  # named metrics must be scored: none is dropped silently
    if metrics is None:
        metrics = METRICS + (ORDINAL_METRICS if ordinal else ()) + (
            PROBABILITY_METRICS if has_probs else ())
    metrics = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    for mtr in metrics:
        v.choice("metrics", mtr, ALL_METRICS)
        if mtr in ORDINAL_METRICS and mtr not in LABEL_METRICS and not ordinal:
            raise ValueError(f"metrics: {mtr!r} scores ordinal ratings; declare them "
                             "(ordinal=True)")
    if not metrics:
        raise ValueError("metrics must name at least one of 'accuracy', 'f1'")
    if compare is not None:
        compare = tuple(map(str, compare))
        if len(compare) != 2 or compare[0] == compare[1]:
            raise ValueError(f"compare takes two different systems A,B; got {list(compare)!r}")
    if ordinal and labels is not None and not isinstance(labels, str):
        vals = pd.to_numeric(pd.Series(list(labels)), errors="coerce").to_numpy(float)
        steps = np.diff(vals)
        if np.isfinite(vals).all() and not (np.all(steps > 0) or np.all(steps < 0)):
            raise ValueError(f"labels: ordinal ratings must be declared in order, got "
                             f"{[plain(x) for x in labels]!r} (quadratic-weighted kappa weighs "
                             "by position)")
    if aggregation == "dawid_skene" and boot_raters:
        raise ValueError("boot_raters: the rater bootstrap recomputes each replicate's panel "
                         "plurality, not the Dawid-Skene label (aggregation=dawid_skene), so "
                         "its intervals would be about another ground truth; use one of the two")
    if aggregation == "dawid_skene" and bins is None:
        bins = POSTERIOR_BINS
    confidence_level = v.single("confidence_level", v.probability(
        "confidence_level", confidence_level, open_lo=True, open_hi=True))
    n_boot = v.single("n_boot", v.integer("n_boot", n_boot, lo=0, hi=MAX_BOOT))
    n_draws = None if simulated_human is None else v.single(
        "simulated_human", v.integer("simulated_human", simulated_human, lo=0, hi=MAX_DRAWS))
    min_bin_size = v.single("min_bin_size", v.integer("min_bin_size", min_bin_size, lo=1))
    if p_d_one is not None:
        p_d_one = v.single("p_d_one", v.probability("p_d_one", p_d_one))
    if human_round is not None:
        human_round = v.single("human_round", v.integer("human_round", human_round, lo=0))
    humans = [humans] if isinstance(humans, str) else list(humans)
    if isinstance(panel, Mapping):
        if predictions is not None:
            raise ValueError("predictions must be None when panel is a mapping of tasks")
        tasks = [(str(name), td) for name, td in panel.items()]
        if not tasks:
            raise ValueError("panel: the mapping of tasks is empty")
    else:
        tasks = [(str(task), (panel, predictions, probabilities))]
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
        roles = task_roles(name, td, humans=humans, panel_counts=panel_counts, labels=labels)
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
    if compare is not None:
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
    if n_draws is None:  # nothing else to score: H' (and E, chance) per bin
        n_draws = 0 if any(t.preds or t.probs for t in prepared) else DEFAULT_DRAWS
    if n_draws == 0 and not any(t.preds or t.probs for t in prepared):
        raise ValueError("nothing to score: no systems, no humans and simulated_human=0; "
                         f"ask for H' (simulated_human={DEFAULT_DRAWS})")
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
            raise ValueError(f"simulated_human: {n_draws:,} draws x {t.k.size:,} items of task "
                             f"{t.name!r} is more than {MAX_DRAW_CELLS:.0e} draws x items; ask "
                             f"for at most {MAX_DRAW_CELLS // t.k.size:,} draws")
    if panel_loo and not any(t.raters_identified for t in prepared):
        raise ValueError("panel_loo: scoring each panel rater against the others needs "
                         "identified raters (one column per rater), not per-label counts or "
                         "lists of votes")
    if skill_model is not None:
        v.choice("skill_model", skill_model, SKILL_MODELS)
        if not any(t.raters_identified and t.humans for t in prepared):
            raise ValueError("skill_model: each human's skill-based expectation needs humans "
                             "and identified panel raters (one column per rater)")
    skills = {t.name: skill_expectations(t, skill_model, seed)
              if skill_model is not None and t.raters_identified else {} for t in prepared}
    refs = {}
    for t in prepared:  # each panel rater's reference: the majority of the other raters
        wanted = None if panel_loo else [c for c in (compare or ()) if c in t.raters
                                         and c not in t.preds]
        refs[t.name] = rater_majorities(t, tie_rule, seed, wanted) if panel_loo or wanted \
            else {}
    if not (n_draws or boot_raters):  # nothing draws from the votes themselves: let them go
        prepared = [dataclasses.replace(t, codes=None) for t in prepared]
    frames, excluded, inputs, agree, comps = [], {}, {}, [], []
    bar = progress_bar(progress, desc="stratify", unit="bin")
    for t in prepared:
        excluded[t.name] = t.excluded
        raters = list(dict.fromkeys(list(t.preds) + list(t.probs)))  # labels or probabilities
        inputs[t.name] = dict(t.inputs, systems=[s for s in raters if s not in t.humans],
                              humans=[h for h in raters if h in t.humans])
        n = t.k.size
        groups = _strata(t, bins) + [("all", np.arange(n, dtype=_index_dtype(n)))]
        frame = _task_table(t, t.humans, groups, metrics, n_draws, leave_one_out, p_d_one,
                            human_round, tie_rule, confidence_level, n_boot, boot_raters,
                            seed, exact_limit, min_bin_size, bar=bar,
                            panel=refs[t.name] if panel_loo else {}, skill=skills[t.name])
        if t.name in sampled:  # self-agreement, sample accuracy per bin (_samples)
            frame = _samples.sample_rows(frame, t, groups, sampled[t.name])
            inputs[t.name]["samples"] = sampled[t.name]
        small = frame.loc[frame["small_bin"], ["stratum", "S"]].drop_duplicates()
        inputs[t.name]["small_bins"] = {a: int(n) for a, n in small.to_numpy()}
        frames.append(frame)
        if agreement:
            agree.append(_agreement_rows(t, groups, n_boot, confidence_level, seed))
        if compare is not None and all(c in list(t.preds) + list(t.probs) + list(refs[t.name])
                                       for c in compare):
            comps.append(_compare_rows(t, groups, compare, metrics, n_boot, confidence_level,
                                       seed, min_bin_size, refs[t.name]))
    bar.close()
    for note in notes:
        warnings.warn(note, DataNoteWarning, stacklevel=2)
    bad = {k: e for k, e in excluded.items() if any(e.values())}
    if bad:
        msg = "; ".join(f"{k}: {e['no_votes']} with no votes, {e['one_vote']} with one vote"
                        + (f", {e['tied']} tied" if e["tied"] else "")
                        + (f", {e['no_prediction']} without a prediction"
                           if e["no_prediction"] else "") for k, e in bad.items())
        warnings.warn(f"excluded items ({msg})", ExcludedItemsWarning, stacklevel=2)
    comparisons = None
    if compare is not None:
        from labelvar.evaluation.inference import holm

        comps = [c for c in comps if len(c)]
        if not comps:  # nothing to compare: say so rather than print an empty table
            both = [t.name for t in prepared
                    if all(c in list(t.preds) + list(t.probs) for c in compare)]
            raise ValueError(
                f"compare: {compare[0]!r} and {compare[1]!r} "
                + (f"share no metric on task(s) {', '.join(map(repr, both))} (labels against "
                   "probabilities?)" if both else "are never evaluated on the same task")
                + "; nothing to compare")
        comparisons = pd.concat(comps, ignore_index=True)
        comparisons["p_holm"] = holm(comparisons["p"].to_numpy(float))
        comparisons["n_comparisons"] = int(comparisons["p"].notna().sum())
        comparisons = comparisons[list(COMPARISON_COLUMNS)]
    # a task nobody scores (no rater, no H') has no rows: its empty frame would make
    # every column of the concatenation an object column
    table = pd.concat([f for f in frames if len(f)] or frames, ignore_index=True)
    return StratifiedResult(table=table, excluded=excluded,
                            seed=seed, inputs=inputs,
                            agreement=pd.concat(agree, ignore_index=True) if agree else None,
                            comparisons=comparisons)
