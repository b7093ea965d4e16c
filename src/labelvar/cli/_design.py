"""``labelvar design``: study sizing (items and annotators per item), from flags or a pilot."""

from __future__ import annotations

import sys
from pathlib import Path

from labelvar._base._defaults import CONFIDENCE_LEVEL
from labelvar.cli._common import _floats, _ints

# --------------------------------------------------------------------------- design
#: keys of a design config file / flags, split into Scenario fields and planner settings
_DESIGN_SCENARIO_KEYS = ("question", "theta", "n_labels", "m", "tie_rule", "min_agreement",
                         "alpha", "confidence_level", "power", "baseline", "accuracy_a",
                         "accuracy_b", "delta", "error_correlation", "test", "metric",
                         "half_width", "cost_per_item", "cost_per_annotation")


_DESIGN_PLAN_KEYS = ("panel_sizes", "n_max", "n_rule", "replicates", "seed")


_DESIGN_PILOT_KEYS = ("pilot", "pilot_field", "pilot_columns", "pilot_method", "pilot_counts",
                      "pilot_labels", "pilot_selection")


def _add_design(sub) -> None:
    p = sub.add_parser(
        "design",
        help="study sizing: items N and annotators per item K for a target power",
        description="Plan a study: for each panel size K, the smallest number of items N "
        "meeting the target power, exact under the panel model (the first N reaching it "
        "and the N from which it stays reached), verified by simulation, priced. Values "
        "come from --config (a YAML file with a 'design:' block, or the name of a packaged "
        "one: separability, snli), overridden by flags. Exit code 1 when no plan "
        "in range meets the target.",
    )
    p.add_argument("--config", metavar="YAML|NAME",
                   help="design settings: a YAML file with a 'design:' block, or a packaged "
                   "config by name (separability, snli); a relative pilot path in it resolves "
                   "against the file's folder (outside a checkout give snli's data with --pilot)")
    p.add_argument("--question", type=lambda x: x.replace("-", "_"),
                   help="separability | two_systems | precision (default separability)")
    p.add_argument("--theta", metavar="SPEC",
                   help="item agreement: 0.8 | beta:A,B (on [1/L, 1]) | mixture:T1=W1,T2=W2 | "
                   "an item model: dirichlet:A1,A2,.. | dirichlet_mixture:W=A1,..;W=.. "
                   "(default 0.8)")
    p.add_argument("--pilot", metavar="FILE",
                   help="fit theta to pilot votes: CSV of per-label counts or JSONL label lists")
    p.add_argument("--pilot-field", help="JSONL field with the labels (annotator_labels)")
    p.add_argument("--pilot-columns", type=lambda x: [c for c in x.split(",") if c],
                   help="CSV vote-count columns, e.g. yes,no (default: all numeric columns)")
    p.add_argument("--pilot-method", help="beta | mixture | dirichlet | dirichlet_mixture | "
                   "empirical (default beta)")
    p.add_argument("--pilot-counts", action="store_true", default=None,
                   help="JSONL: --pilot-field holds per-label vote counts (e.g. ChaosNLI "
                   "label_count), not a list of labels")
    p.add_argument("--pilot-labels", type=lambda x: [c for c in x.split(",") if c],
                   help="with --pilot-counts: the label of each count position")
    p.add_argument("--pilot-selection", metavar="RULE",
                   help="the pilot's item selection, entering the likelihood: top=T (only "
                   "items whose top count is T, e.g. top=3 for ChaosNLI's old_labels) | top>=T")
    p.add_argument("--n-labels", type=int, help="number of labels L (default 2, or the pilot's)")
    p.add_argument("--m", type=_floats, help="class prior: positive ratio or L probabilities "
                   "(default: uniform)")
    p.add_argument("--tie-rule", help="tied panel votes: random | drop (default random)")
    p.add_argument("--min-agreement", type=float,
                   help="score only items with observed agreement >= this (default 0: all)")
    p.add_argument("--alpha", type=float, help="tests: significance level (default 0.05)")
    p.add_argument("--confidence-level", type=float,
                   help=f"precision: confidence level of the interval (default {CONFIDENCE_LEVEL:g})")
    p.add_argument("--power", type=float, help="target power (default 0.8)")
    p.add_argument("--baseline", help="separability: random | prior (default random)")
    p.add_argument("--accuracy-a", type=float,
                   help="separability/precision: system accuracy vs modal label (default: expert)")
    p.add_argument("--accuracy-b", type=float, help="two_systems: accuracy of B vs modal label "
                   "(required)")
    p.add_argument("--delta", type=float, help="two_systems: A's accuracy minus B's (required)")
    p.add_argument("--error-correlation", type=float,
                   help="two_systems: phi of A/B correctness (default 0)")
    p.add_argument("--test", help="two_systems: paired (McNemar) | unpaired (two-proportion) "
                   "(default paired)")
    p.add_argument("--metric", help="two_systems: accuracy | f1 (L = 2; delta-method z-test) "
                   "(default accuracy)")
    p.add_argument("--half-width", type=float,
                   help="precision: target CI half-width (required for precision)")
    p.add_argument("--cost-per-item", type=float, help="cost of one item (default 0)")
    p.add_argument("--cost-per-annotation", type=float,
                   help="cost of one annotation (default 1)")
    p.add_argument("--panel-sizes", type=_ints, metavar="K",
                   help="panel sizes K to plan for (default 1,3,5,7,9; 3,5,7,9 with "
                   "--min-agreement > 0)")
    p.add_argument("--n-max", type=int, help="largest N searched (default 10000)")
    p.add_argument("--n-rule", choices=("stable", "first"),
                   help="plan N: stable = smallest N from which the exact power stays >= the "
                   "target up to 2x the first crossing (default); first = first N reaching it")
    p.add_argument("--replicates", type=int,
                   help="simulated studies verifying each plan (default 1000; 0 = none)")
    p.add_argument("--seed", type=int, help="seed of the verification (default 0)")
    p.add_argument("--out", metavar="DIR", help="write design*.csv, scenario.json, power.png/pdf")
    p.add_argument("--format", choices=("markdown", "csv"), default="markdown",
                   help="table format on stdout")
    p.set_defaults(func=_run_design)


def _design_settings(args) -> dict:
    """Merge a design config file (if any) with the flags (flags win)."""
    allowed = _DESIGN_SCENARIO_KEYS + _DESIGN_PLAN_KEYS + _DESIGN_PILOT_KEYS
    settings: dict = {}
    if args.config:
        import yaml

        from labelvar.sweep._config import design_config

        path = design_config(args.config)  # a file, else a packaged config by name
        with open(path) as fh:
            doc = yaml.safe_load(fh) or {}
        block = doc.get("design", doc) if isinstance(doc, dict) else None
        if not isinstance(block, dict):
            raise ValueError(f"config {args.config} must be a mapping with a 'design:' block")
        unknown = sorted(set(block) - set(allowed))
        if unknown:
            raise ValueError(f"config {args.config}: unknown design key(s) {', '.join(unknown)}; "
                             f"allowed: {', '.join(allowed)}")
        settings.update(block)
        pilot = block.get("pilot")
        if pilot is not None and not Path(str(pilot)).is_absolute():
            # paths inside a config file are relative to that file, not to the working directory
            settings["pilot"] = str(path.resolve().parent / str(pilot))
        if pilot is not None and args.pilot is None and not Path(settings["pilot"]).is_file():
            raise FileNotFoundError(
                f"the pilot of --config {args.config} is not there: {settings['pilot']} "
                f"(its path is relative to {path.resolve().parent}); pass the pilot file with "
                "--pilot PATH")
    for key in allowed:
        val = getattr(args, key, None)
        if val is not None:
            settings[key] = val
    if isinstance(settings.get("m"), list) and len(settings["m"]) == 1:
        settings["m"] = settings["m"][0]
    return settings


def _run_design(args) -> int:
    from labelvar.design._planner import plan_study, plans_markdown
    from labelvar.design._questions import question_from

    st = _design_settings(args)
    pilot = st.pop("pilot", None)
    field = st.pop("pilot_field", None) or "annotator_labels"
    method = st.pop("pilot_method", None) or "beta"
    columns = st.pop("pilot_columns", None)
    counts = bool(st.pop("pilot_counts", None))
    labels = st.pop("pilot_labels", None)
    selection = st.pop("pilot_selection", None)
    plan_kw = {k: st.pop(k) for k in _DESIGN_PLAN_KEYS if k in st}
    if pilot is not None:
        if "theta" in st:
            raise ValueError("give either --theta or --pilot (or a config's theta or pilot), not both")
        from labelvar.votes._pilot import fit_pilot, read_pilot

        fit = fit_pilot(read_pilot(pilot, field=field, columns=columns, counts=counts,
                                   labels=labels),
                        method=method, n_labels=st.get("n_labels"), selection=selection)
        st["theta"] = fit.prior
        st.setdefault("n_labels", fit.n_labels)
        print(fit.summary(), file=sys.stderr)
    for key in ("cost_per_item", "cost_per_annotation"):  # the plan's, not the question's
        if key in st:
            plan_kw[key] = st.pop(key)
    result = plan_study(question_from(st), **plan_kw)
    if args.format == "csv":
        sys.stdout.write(result.table.to_csv(index=False))
        print(result.describe(), file=sys.stderr)
    else:
        print(plans_markdown(result))
    if args.out:
        from labelvar.report import _writers as report

        paths = report.write_design_report(result, args.out)
        print(f"labelvar: wrote {', '.join(str(p) for p in paths)}", file=sys.stderr)
    return 0 if result.found else 1
