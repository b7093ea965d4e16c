"""``labelvar sweep`` and ``labelvar collect``: where a sweep's config becomes engine calls.

``labelvar sweep [hydra args and overrides]`` (:func:`cli_main`) checks the overrides
(:func:`check_overrides`: every job of a ``-m`` sweep is composed and validated before
anything runs), then hands them to the Hydra app (:func:`_hydra_app`). Its task function
converts the composed ``DictConfig`` into a typed :class:`labelvar.sweep.SweepConfig`
(``OmegaConf.to_object``) and calls :func:`labelvar.sweep.run_job`; nothing below this
module sees a ``DictConfig``. ``labelvar -sc install=bash`` is Hydra's shell completion
(:func:`shell_completion`). ``labelvar collect DIR`` merges a multirun's tables
(:func:`labelvar.sweep.collect`).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import functools
import gc
import itertools
import logging
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import fields, is_dataclass
from pathlib import Path

# the sweep package (numpy, the engine) is imported inside the functions that run a sweep:
# building `labelvar`'s parser imports none of it


# --------------------------------------------------------------------------- sweep / collect
def _add_sweep(sub) -> None:
    # Every argument after `sweep` goes to the Hydra app unchanged (-m, hydra/launcher=...,
    # --cfg job, overrides); prefix_chars no user types keeps argparse out of the way.
    p = sub.add_parser(
        "sweep",
        help="run a Hydra sweep (e.g. `labelvar sweep experiment=figure1`; `sweep --help`)",
        description="Hydra app: labelvar sweep [-m] [--quiet] [key=value ...]",
        prefix_chars="\x00", add_help=False,
    )
    p.add_argument("hydra_args", nargs=argparse.REMAINDER)
    p.set_defaults(func=_run_sweep)


def _run_sweep(args) -> int:
    return cli_main(args.hydra_args)


def _add_collect(sub) -> None:
    p = sub.add_parser(
        "collect",
        help="merge the results tables of a multirun directory into one table",
        description="Merge every job's results table under DIR (adds experiment and job "
        "columns) into DIR/collected.csv or --out.",
    )
    p.add_argument("sweep_dir", metavar="DIR", help="a multirun (or single run) directory")
    p.add_argument("--out", default=None, help="output file, .csv or .parquet "
                   "(default DIR/collected.csv)")
    p.add_argument("--allow-missing", action="store_true",
                   help="merge even if some job directories have no results table")
    p.set_defaults(func=_run_collect)


def _run_collect(args) -> int:
    from labelvar.sweep._collect import collect

    table, path = collect(args.sweep_dir, out=args.out, allow_missing=args.allow_missing)
    from labelvar._base._format import count

    print(f"{path} ({count(len(table), 'row')} from {count(table['job'].nunique(), 'job')})")
    return 0


# --------------------------------------------------------------------------- Hydra entry
def _unknown_keys(node, prefix: str = "") -> list[str]:
    """Keys of a composed config that the schema does not have (``+key=...`` additions)."""
    from omegaconf import DictConfig

    from labelvar.sweep._config import schema_keys

    allowed = schema_keys(prefix)
    out = []
    for key in node.keys():
        path = f"{prefix}.{key}" if prefix else str(key)
        if allowed is not None and key not in allowed:
            out.append(path)
        elif isinstance(node[key], DictConfig) and schema_keys(path) is not None:
            out += _unknown_keys(node[key], path)
    return out


def _to_config(dcfg):
    """Convert the composed config to :class:`SweepConfig`, refusing keys outside the schema."""
    from omegaconf import OmegaConf

    from labelvar.sweep._config import RENAMED_KEYS, schema_keys

    unknown = _unknown_keys(dcfg)
    if unknown and unknown[0] in RENAMED_KEYS:
        raise ValueError(_renamed_key(unknown[0]))
    if unknown:
        parent = unknown[0].rsplit(".", 1)[0] if "." in unknown[0] else ""
        allowed = ", ".join(schema_keys(parent) or [])
        raise ValueError(f"unknown config key {unknown[0]!r} "
                         f"(allowed keys{' in ' + parent if parent else ''}: {allowed})")
    return OmegaConf.to_object(dcfg)


def _task(dcfg) -> str:
    """Hydra task function: DictConfig -> SweepConfig -> :func:`run_job`.

    Exit codes: 2 for bad input (one line; nothing written is lost), 1 when the figures
    failed after the complete table was written (``metadata.json`` says ``figures_failed``).
    """
    from hydra.core.hydra_config import HydraConfig
    from hydra.errors import CompactHydraException
    from hydra.types import RunMode

    from labelvar.sweep._config import validate
    from labelvar.sweep._job import run_job, stop_with_parent

    stop_with_parent()  # a launcher's worker process stops when `labelvar sweep` dies
    cfg = _to_config(dcfg)
    try:
        validate(cfg)
    except ValueError as exc:
        print(f"labelvar: error: {exc}", file=sys.stderr)
        sys.exit(2)
    hc = HydraConfig.get()
    try:
        res = run_job(cfg, hc.runtime.output_dir, overrides=list(hc.overrides.task))
    except OSError as exc:  # an output or chunk directory that cannot be written; the lock
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"labelvar: error: {cfg.name}: {where}{exc.strerror or exc}", file=sys.stderr)
        sys.exit(2)
    except ValueError as exc:  # the engine refused a cell (checked per cell, at run time)
        print(f"labelvar: error: {cfg.name}: {exc}", file=sys.stderr)
        sys.exit(2)
    print(f"{cfg.name}: table {res.results}", file=sys.stdout)
    for f in res.figures:
        if f.suffix == ".png":
            print(f"{cfg.name}: figure {f}", file=sys.stdout)
    if res.figure_error:  # a run-time failure after the table was written: exit code 1
        print(f"labelvar: error: {cfg.name}: figures failed ({res.figure_error}); the table "
              f"is complete: {res.results}", file=sys.stderr)
        if hc.mode != RunMode.MULTIRUN:
            sys.exit(1)
        if _figure_failures is not None and _figure_failures[0] == os.getpid():
            _figure_failures[1] += 1  # cli_main exits 1 once every job has run
        else:  # a job in a launcher's own process: Hydra runs the other jobs, then prints
            raise CompactHydraException(_FIGURES_FAILED)  # this line (and its own) and exits 1
    return str(res.results)


#: while :func:`cli_main` runs Hydra: [its process id, jobs of a multirun whose figures
#: failed]; a job in that process counts itself here and the other jobs still run
_figure_failures: list | None = None
#: what Hydra prints last when a multirun's job in another process had failed figures
_FIGURES_FAILED = ("labelvar: error: figures failed in the job(s) named above; their tables "
                   "are complete")


def _hydra_app():
    """Return the ``@hydra.main``-decorated entry point (config dir from :func:`config_dir`)."""
    import hydra

    from labelvar.sweep._config import config_dir, register_configs

    register_configs()
    return hydra.main(version_base="1.3", config_path=str(config_dir()),
                      config_name="config")(_task)


# --------------------------------------------------------------------------- checks before Hydra
#: flags that print a config instead of running it: only the composition is checked
_PRINT_FLAGS = {"-c", "--cfg", "-i", "--info"}
_NO_CHECK_FLAGS = {"-h", "--help", "--hydra-help", "--version", "-c", "--cfg", "-i", "--info",
                   "-sc", "--shell-completion", "-cp", "--config-path", "-cn", "--config-name",
                   "-cd", "--config-dir", "--experimental-rerun"}


def _renamed_key(key: str) -> str:
    """The line refusing a config key renamed to the one vocabulary, naming the new key."""
    from labelvar.sweep._config import RENAMED_KEYS

    return f"{key} is now {RENAMED_KEYS[key]} (the one name of that quantity)"


def _one_line_error(exc: BaseException) -> str:
    """Condense a Hydra/OmegaConf composition error into one line naming the key."""
    from labelvar.sweep._config import RENAMED_KEYS, schema_keys

    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    cause = exc.__cause__
    cause_lines = [ln.strip() for ln in str(cause).splitlines() if ln.strip()] if cause else []
    full_key = next((ln.split(":", 1)[1].strip() for ln in lines + cause_lines
                     if ln.startswith("full_key:")), None)
    first = lines[0] if lines else type(exc).__name__
    if "Could not find" in first or "Could not load" in first:
        options = []
        if any(ln.startswith("Available options") for ln in lines):
            start = next(i for i, ln in enumerate(lines) if ln.startswith("Available options"))
            for ln in lines[start + 1:]:
                if ln.startswith("Config search path"):
                    break
                options.append(ln)
        return first + (f"; available: {', '.join(options)}" if options else "")
    detail = next((ln for ln in lines[1:] + cause_lines
                   if not ln.startswith(("full_key", "object_type", "reference_type",
                                         "To append", "Set the environment"))), "")
    msg = first.rstrip(".") + (f": {detail}" if detail and detail not in first else "")
    msg = re.sub(r"\w+ raised while composing config:+\s*", "", msg)
    if full_key and re.sub(r"\[\d+\]$", "", full_key) not in msg:  # e.g. a bad interpolation
        msg = f"{full_key}: {msg}"
    if full_key in RENAMED_KEYS:
        return _renamed_key(full_key)
    if full_key and ("not in struct" in msg or "not in '" in msg):
        parent = full_key.rsplit(".", 1)[0] if "." in full_key else ""
        allowed = schema_keys(parent)
        schema = re.search(r"not in '(\w+)'", msg)
        if schema:  # the schema class the message names (e.g. a list item's class)
            from labelvar.sweep import _config as config_module

            cls = getattr(config_module, schema.group(1), None)
            if cls is not None and is_dataclass(cls):
                named = [f.name for f in fields(cls)]
                if allowed != named:
                    allowed, parent = named, schema.group(1)
        if allowed:
            msg += f" (allowed keys{' in ' + parent if parent else ''}: {', '.join(allowed)})"
    return msg


def _config_groups() -> set[str]:
    """Config group names (folders under the config directory, e.g. ``model``)."""
    from labelvar.sweep._config import config_dir

    root = config_dir()
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_dir()}


def _expand(overrides: Sequence[str]) -> tuple[list[list], list[list]]:
    """Split overrides into group choices and value settings, each expanded over its sweep.

    Returns ``(groups, values)``: per override, its alternatives; a group alternative is
    override text (composed by Hydra), a value alternative a parsed single-value
    override (applied to the composed config directly, which is fast).
    """
    from hydra.core.override_parser.overrides_parser import OverridesParser

    parser = OverridesParser.create()
    parsed = parser.parse_overrides(list(overrides))
    group_names = _config_groups()
    sweeper = any(o.key_or_group == "hydra/sweeper" for o in parsed)
    groups, values = [], []
    for o, text in zip(parsed, overrides):
        if o.is_sweep_override():
            try:
                alts = [f"{o.get_key_element()}={v}" for v in o.sweep_string_iterator()]
            except Exception:  # interval sweeps etc.: only a chosen sweeper plugin takes them
                if not sweeper:
                    raise ValueError(f"{text}: Hydra's basic sweeper takes values (a,b,c or "
                                     "range(start,stop,step)), not an interval") from None
                continue
        else:
            alts = [text]
        name = o.key_or_group
        if (name in group_names or name.split(".")[0] == "hydra" or o.is_add()
                or o.is_delete() or o.is_force_add()):
            groups.append(alts)
        else:
            values.append(parser.parse_overrides(alts))
    return groups, values


def _parse(overrides: Sequence[str]) -> list:
    """Hydra's parsed form of each override."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    return OverridesParser.create().parse_overrides(list(overrides))


def _apply(dcfg, values):
    """A copy of the composed config with single-value overrides applied (as Hydra does)."""
    from omegaconf import OmegaConf

    cfg = dcfg.copy()
    for o in values:
        OmegaConf.update(cfg, o.key_or_group, o.value(), merge=True)
    return cfg


def _compose_job(compose, combo: list[str]):
    """Compose one job's config with Hydra; errors become one line naming the key."""
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    try:
        return _to_config(compose("config", overrides=combo))
    except (HydraException, OmegaConfBaseException) as exc:
        raise ValueError(_one_line_error(exc)) from None
    except ValueError:
        raise
    except Exception as exc:  # e.g. OmegaConf asserts on a key below a null node
        detail = _one_line_error(exc)
        if "NoneType" in detail:
            detail = ("a key below a node that is null in this config (e.g. "
                      "model.theta_prior.* needs model=panel_beta)")
        raise ValueError(f"could not apply the overrides {' '.join(combo)}: {detail}") from None


def _check_output_dir(path: str, key: str) -> None:
    """Refuse an output directory that cannot be created: a file on its way, no write access.

    Hydra creates the run (or sweep) directory before the job starts and reports a
    failure there with a traceback; this says it in one line first.
    """
    target = Path(path).absolute()
    existing = next(p for p in (target, *target.parents) if p.exists() or p == p.parent)
    why = ("is a file" if not existing.is_dir() else
           "is not writable" if not os.access(existing, os.W_OK | os.X_OK) else None)
    if why:
        raise ValueError(f"{key} cannot be created: {existing} {why}"
                         + (f" (got {path})" if existing != target else ""))


def check_overrides(overrides: Sequence[str], *, multirun: bool | None = None,
                    check_values: bool = True) -> int:
    """Compose and validate every job a command line would launch; return how many.

    Every combination of a ``-m`` sweep is checked before anything runs, however many:
    Hydra composes each combination of config-group choices once, and the plain value
    overrides are applied to that composed config. Raises ValueError with one line
    (naming the key and the job's overrides) for an unknown key, a wrong type, an
    unknown config group option or an out-of-range value. With ``multirun`` True
    (False), the first job's ``hydra.sweep.dir`` (``hydra.run.dir``) must be a directory
    that can be created. With ``check_values`` False only the composition is checked
    (unknown keys, types, config group options), as for ``--cfg``, which prints a
    config without running it.

    Examples
    --------
    >>> check_overrides(["experiment=figure1,table1", "replicates=100"])
    2
    >>> check_overrides(["grid.pd=[0.5]"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: Could not override 'grid.pd': Key 'pd' not in ... (allowed keys in grid: p_d, theta, m, ...)
    >>> check_overrides(["grid.m=[1.5]"])
    Traceback (most recent call last):
    ...
    ValueError: grid.m must be in [0, 1], got 1.5
    """
    import yaml
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.errors import HydraException
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    from labelvar.sweep._config import config_dir, register_configs, validate
    from labelvar.sweep._job import check_engine_limits

    register_configs()
    if isinstance(overrides, str) or not all(isinstance(o, str) for o in overrides):
        raise ValueError(f"overrides must be a list of 'key=value' strings, got {overrides!r}")
    try:
        groups, values = _expand(overrides)
    except (HydraException, OmegaConfBaseException) as exc:
        raise ValueError(_one_line_error(exc)) from None
    if multirun is False:
        swept = [text for text, alts in zip(overrides, _parse(overrides))
                 if alts.is_sweep_override()]
        if swept:
            raise ValueError(f"{swept[0]} gives several values: add -m to run a job for each "
                             "(labelvar sweep -m ...), or write a list as key=[a,b]")
    n_jobs = 0
    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(version_base="1.3", config_dir=str(config_dir()),
                                   job_name="labelvar_check"):
            for group_combo in itertools.product(*groups):
                try:
                    base = compose("config", overrides=list(group_combo))
                except (HydraException, OmegaConfBaseException) as exc:
                    raise ValueError(_one_line_error(exc)) from None
                if multirun is not None and check_values and not n_jobs:
                    key = "hydra.sweep.dir" if multirun else "hydra.run.dir"
                    hcfg = compose("config", overrides=list(group_combo),
                                   return_hydra_config=True)
                    _check_output_dir(str(OmegaConf.select(hcfg, key)), key)
                    subdir = str(OmegaConf.to_container(hcfg.hydra.sweep)["subdir"])
                for value_combo in itertools.product(*values):
                    combo = list(group_combo) + [o.input_line for o in value_combo]
                    try:
                        cfg = _to_config(_apply(base, value_combo))
                    except (HydraException, OmegaConfBaseException):  # (some are ValueErrors)
                        cfg = _compose_job(compose, combo)  # Hydra's message names the key
                    except ValueError:
                        raise
                    except Exception:
                        cfg = _compose_job(compose, combo)
                    try:
                        if check_values:
                            validate(cfg)
                            check_engine_limits(cfg)
                    except ValueError as exc:
                        if len(combo) > len(overrides) or n_jobs:  # a sweep: name the job
                            raise ValueError(f"{exc} (in the job {' '.join(combo)})") from None
                        raise
                    n_jobs += 1
        if multirun and check_values and n_jobs > 1 and "${" not in subdir:
            raise ValueError(f"hydra.sweep.subdir must differ between the jobs of a multirun "
                             f"(e.g. ${{hydra.job.num}}_${{name}}), got {subdir!r}: the "
                             f"{n_jobs} jobs would write over each other's results")
    except yaml.YAMLError as exc:  # a config file of LABELVAR_CONFIG_DIR that is not YAML
        mark = getattr(exc, "problem_mark", None)
        where = f" in {mark.name}, line {mark.line + 1}" if mark is not None else ""
        what = "; ".join(x for x in (getattr(exc, "problem", None), getattr(exc, "context", None))
                         if x) or str(exc).splitlines()[0]
        raise ValueError(f"invalid YAML{where}: {what}") from None
    finally:
        GlobalHydra.instance().clear()
    return n_jobs


@contextlib.contextmanager
def _fewer_collections(threshold: int = 10_000):
    """Run the garbage collector's youngest generation every ``threshold`` allocations.

    A sweep imports pandas, Hydra, numba and matplotlib: ~250,000 objects that live
    until the process ends. With the default threshold (700) the collector walks all
    of them about five times during a Figure 1 run (~0.3 s); with 10,000 about once.
    The old thresholds are restored afterwards.
    """
    old = gc.get_threshold()
    gc.set_threshold(max(threshold, old[0]), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


@functools.cache  # once per process
def _exit_without_collecting() -> None:
    """At exit, leave the objects alive then out of the interpreter's final collections.

    ``gc.freeze()`` as an exit handler: the interpreter's shutdown otherwise walks the
    ~250,000 objects of a sweep's imports again (~0.4 s after the work is done). The
    other exit handlers (logging's flush, temporary directories) still run; only
    reference cycles still alive at exit are no longer collected (the sweep writes
    and closes its files before it returns).
    """
    atexit.register(gc.freeze)


@_fewer_collections()
def cli_main(args: Sequence[str]) -> int:
    """``labelvar sweep ARGS``: check the overrides, then run the Hydra app with ARGS.

    ``--quiet`` becomes the override ``quiet=true``; every other argument (``-m``,
    ``hydra/launcher=joblib``, ``--cfg job``, ...) goes to Hydra unchanged. Returns the
    exit code: 0, 2 for bad input, 1 when a job's figures failed after its complete
    table was written (a multirun runs its other jobs first).
    """
    from hydra.core.global_hydra import GlobalHydra
    from hydra.core.override_parser.overrides_parser import OverridesParser  # noqa: F401
    from hydra.main import get_args_parser

    from labelvar.sweep._job import PARENT_ENV

    args = list(args)
    _exit_without_collecting()
    if "--version" in args:  # labelvar's version, not Hydra's
        from labelvar._base._provenance import version

        print(f"labelvar {version()}")
        return 0
    if "--quiet" in args:
        args = [a for a in args if a != "--quiet"] + ["quiet=true"]
    multirun = [a for a in args if a in ("-m", "--multirun")]
    if multirun:  # Hydra reads options before the overrides only: `sweep a=1,2 -m` works too
        args = multirun[:1] + [a for a in args if a not in multirun]
    parser = get_args_parser()

    def one_line_error(message: str):  # argparse would print its usage and exit
        raise ValueError(f"{message} (labelvar sweep [-m] [--cfg job] [key=value ...]: "
                         "options go before the overrides)")

    parser.error = one_line_error
    parsed = parser.parse_args(args)
    if not (set(args) & _NO_CHECK_FLAGS):
        check_overrides(parsed.overrides, multirun=parsed.multirun)
    elif not (set(args) & (_NO_CHECK_FLAGS - _PRINT_FLAGS)):  # --cfg job: prints, runs nothing
        check_overrides(parsed.overrides, multirun=parsed.multirun, check_values=False)
    saved_line = os.environ.get("COMP_LINE")
    if _is_query(args) and saved_line is not None:
        os.environ["COMP_LINE"] = _hydra_completion_line(saved_line)
    saved = sys.argv
    # Hydra names the program after argv[0] (shell completion, --hydra-help): the console
    # script is `labelvar`, and `labelvar -sc ...` reaches this app (see shell_completion)
    sys.argv = ["labelvar", *args]
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    GlobalHydra.instance().clear()
    global _figure_failures
    _figure_failures = [os.getpid(), 0]
    saved_parent = os.environ.get(PARENT_ENV)
    os.environ[PARENT_ENV] = str(os.getpid())  # its launcher's workers watch this process
    try:
        _hydra_app()()
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except BrokenPipeError:  # e.g. `labelvar sweep --help | head`
        sys.stdout = open(os.devnull, "w")  # silence the flush at exit
        return 0
    finally:
        failed, _figure_failures = _figure_failures[1], None
        if saved_parent is None:
            os.environ.pop(PARENT_ENV, None)
        else:
            os.environ[PARENT_ENV] = saved_parent
        sys.argv = saved
        if saved_line is not None:
            os.environ["COMP_LINE"] = saved_line
        GlobalHydra.instance().clear()
        for handler in [h for h in root.handlers if h not in saved_handlers]:
            root.removeHandler(handler)  # Hydra's job logging (console + <run dir>/sweep.log)
            handler.close()
        root.setLevel(saved_level)
    return 1 if failed else 0  # 1: some job's figures failed (each job said so in one line)


def shell_completion(args: Sequence[str], commands: Sequence[str]) -> int:
    """``labelvar -sc install=bash|query=bash|...``: Hydra's shell completion, for ``labelvar sweep``.

    ``eval "$(labelvar -sc install=bash)"`` installs Hydra's completion function for
    the ``labelvar`` command; on each TAB it runs ``labelvar -sc query=bash`` with the
    line in ``COMP_LINE``. A line ``labelvar sweep ...`` is completed by Hydra (config
    groups and keys) as if the app were called without the word ``sweep``; the word after
    ``labelvar`` completes to a subcommand; other subcommands get the shell's default
    (file names). ``commands`` are the subcommands of ``labelvar`` (read from its parser).

    Examples
    --------
    >>> import os
    >>> os.environ["COMP_LINE"] = "labelvar s"
    >>> shell_completion(["-sc", "query=bash"], ["expect", "stratify", "sweep"])
    stratify sweep
    0
    >>> del os.environ["COMP_LINE"]
    """
    args = list(args)
    words = os.environ.get("COMP_LINE", "").split() if _is_query(args) else ["", "sweep"]
    if len(words) >= 2 and words[1] == "sweep":
        return cli_main(args)
    line = os.environ.get("COMP_LINE", "")
    if len(words) <= 1 or (len(words) == 2 and not line.endswith(" ")):
        current = words[1] if len(words) == 2 else ""
        print(" ".join(c for c in commands if c.startswith(current)))
    else:
        print("")
    return 0


def _is_query(args: Sequence[str]) -> bool:
    return any(a.startswith("query=") for a in args) and bool({"-sc", "--shell-completion"}
                                                               & set(args))


def _hydra_completion_line(line: str) -> str:
    """``labelvar sweep REST`` -> ``labelvar REST``: Hydra strips one word, the app's name."""
    head, sep, rest = line.partition(" sweep")
    if sep and " " not in head.strip() and (not rest or rest[0].isspace()):
        return head + rest
    return line

