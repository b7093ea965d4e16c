"""Typed configuration of a sweep: the schema behind the packaged ``labelvar/configs/``.

The dataclasses here are registered in Hydra's ``ConfigStore`` as
``base_config``; ``configs/config.yaml`` lists it first in its defaults, so
every YAML file and every command-line override is merged *into* this schema.
A misspelled key or a value of the wrong type is therefore a composition
error, never a silent ``None``.

The Hydra entry point (:mod:`labelvar.sweep`) converts the composed
``DictConfig`` into a :class:`SweepConfig` with ``OmegaConf.to_object`` and
calls :func:`validate`; nothing below it sees a ``DictConfig``.

Where the configs live
----------------------
The YAML files ship inside the package (package data, found with
:mod:`importlib.resources`), so an installed wheel runs from any directory:

* ``labelvar/configs/`` -- the Hydra sweep configs (``config.yaml`` and the groups
  ``experiment/``, ``grid/``, ``model/``, ``labellers/``, ``hydra/launcher/``);
  :func:`config_dir` returns it, or ``$LABELVAR_CONFIG_DIR`` when that is set (a
  copy of the folder with your own experiments);
* ``labelvar/configs_design/`` -- the study planner's configs (``labelvar design
  --config NAME``), kept outside Hydra's search path: they are not sweep configs.
  :func:`design_config` resolves a name or a path, :func:`design_configs` lists them.

Examples
--------
>>> cfg = SweepConfig()
>>> cfg.grid.p_d[:3], cfg.labellers.names, cfg.model.mode
([0.5, 0.55, 0.6], ['expert', 'random'], 'coin')
>>> validate(cfg).replicates
10000
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any, Optional, get_args, get_origin, get_type_hints

import numpy as np

from labelvar._base import _seeding, _validate

__all__ = [
    "GridConfig",
    "ModelConfig",
    "ThetaPriorConfig",
    "LabellersConfig",
    "ModelLabellerConfig",
    "OutputConfig",
    "SweepConfig",
    "CONFIG_DIR",
    "DESIGN_CONFIG_DIR",
    "MODES",
    "LABELLERS",
    "PLOTS",
    "register_configs",
    "config_dir",
    "design_config",
    "design_configs",
    "validate",
    "schema_keys",
    "theta_prior_arg",
    "model_labellers",
]

#: the packaged Hydra sweep configs (``labelvar/configs/``, shipped as package data);
#: ``LABELVAR_CONFIG_DIR`` overrides it (see :func:`config_dir`)
CONFIG_DIR = Path(__file__).resolve().parents[1] / "configs"
#: the packaged study-planner configs (``labelvar design --config NAME``; not on Hydra's path)
DESIGN_CONFIG_DIR = Path(__file__).resolve().parents[1] / "configs_design"

MODES = ("coin", "panel")
LABELLERS = ("expert", "random", "prior", "constant", "model")
TIE_RULES = ("random", "drop")
THETA_PRIOR_KINDS = ("beta", "discrete", "mixture", "fixed", "dirichlet")
PLOTS = ("figure1", "multiclass", "panel_bias", "table1")
FORMATS = ("csv", "parquet")
FIGURE_FORMATS = ("png", "pdf", "svg")


def _pd_grid() -> list[float]:
    return [round(0.5 + 0.05 * i, 2) for i in range(11)]


@dataclass
class GridConfig:
    """The Cartesian grid one job evaluates (every axis a list).

    Attributes
    ----------
    p_d : list of float
        ``model.mode=coin``: the probability that the expert matches the reference.
        Must be ``[]`` under ``model.mode=panel`` (whose axis is ``theta``).
    theta : list of float
        ``model.mode=panel``: the latent agreement θ of every item, in [1/L, 1] (``[]``
        with ``model.theta_prior``, and under ``model.mode=coin``).
    m : list of float
        Positive-class ratio (binary problems).
    n_items : list of int
        Number of items N per simulated study.
    n_labels : list of int
        Number of classes L (>= 2).
    panel_size : list of int
        Annotators per item K (panel mode; a coin model has no panel, its rows say 0).
    """

    p_d: list[float] = field(default_factory=_pd_grid)
    theta: list[float] = field(default_factory=list)
    m: list[float] = field(default_factory=lambda: [0.5])
    n_items: list[int] = field(default_factory=lambda: [1000])
    n_labels: list[int] = field(default_factory=lambda: [2])
    panel_size: list[int] = field(default_factory=lambda: [5])


#: config keys renamed to the one vocabulary: the old spelling is refused naming the new one
RENAMED_KEYS = {"model.theta_prior.alpha": "model.theta_prior.concentration"}


@dataclass
class ThetaPriorConfig:
    """Prior of the per-item agreement theta (panel mode); any kind of :mod:`labelvar.votes`.

    ``kind="beta"``: theta = lo + (hi - lo) Beta(a, b), ``lo = None`` meaning 1/L;
    ``kind="discrete"`` (or ``"mixture"``): theta takes ``values`` with ``weights``
    (equal when omitted); ``kind="fixed"``: theta = ``value`` for every item;
    ``kind="dirichlet"``: an item model, π ~ Dirichlet(``concentration``) per item, one α per
    label (:class:`labelvar.DirichletItems`). The
    fields of the other kinds are ignored. With a prior, ``grid.p_d`` must be ``[]``
    (theta is drawn).
    """

    kind: str = "beta"
    a: float = 2.0
    b: float = 1.0
    lo: Optional[float] = None
    hi: float = 1.0
    values: list[float] = field(default_factory=list)
    weights: Optional[list[float]] = None
    value: Optional[float] = None
    concentration: list[float] = field(default_factory=list)


@dataclass
class ModelConfig:
    """How items, annotators and the ground truth are simulated.

    Attributes
    ----------
    mode : {"coin", "panel"}
        ``coin``: the paper's section 3 model (an expert agrees with the ground
        truth with probability p_d). ``panel``: K annotators vote, the
        ground truth is their plurality, observed p_d = top votes / K.
    tie_rule : {"random", "drop"}
        How a tied panel vote is resolved (panel mode).
    theta_prior : ThetaPriorConfig or None
        ``None``: every item has agreement p_d; else theta is drawn per item.
    positives : {"fixed", "bernoulli"}
        round(m N) positives per study, or Bernoulli(m) labels.
    method : {"auto", "collapsed", "explicit"}
        The engine's computational path (``auto``: collapsed where it applies).
    """

    mode: str = "coin"
    tie_rule: str = "random"
    theta_prior: Optional[ThetaPriorConfig] = None
    positives: str = "fixed"
    method: str = "auto"


@dataclass
class ModelLabellerConfig:
    """A model labeller: accuracy q against the modal label, or (L = 2) sensitivity/specificity.

    Built as :class:`labelvar.Model`; its ``name`` is its ``labeller`` column value.
    """

    name: str = "model"
    accuracy: Optional[float] = None
    sensitivity: Optional[float] = None
    specificity: Optional[float] = None


@dataclass
class LabellersConfig:
    """The labellers scored on the same simulated items.

    Attributes
    ----------
    names : list of str
        Built-in labellers by name (:data:`LABELLERS`).
    models : list of ModelLabellerConfig
        Extra model labellers with their own accuracy or sensitivity/specificity.
    """

    names: list[str] = field(default_factory=lambda: ["expert", "random"])
    models: list[ModelLabellerConfig] = field(default_factory=list)


@dataclass
class OutputConfig:
    """What a job writes besides its chunk files.

    Attributes
    ----------
    format : {"csv", "parquet"}
        Format of the results table and the chunk files (parquet needs pyarrow).
    plots : list of str
        Figures drawn from the table (names in :data:`PLOTS`).
    figure_formats : list of str
        File formats of every figure.
    """

    format: str = "csv"
    plots: list[str] = field(default_factory=lambda: ["figure1"])
    figure_formats: list[str] = field(default_factory=lambda: ["png", "pdf"])


@dataclass
class SweepConfig:
    """The whole configuration of one sweep job.

    Attributes
    ----------
    name : str
        Experiment name (run directory and file names).
    replicates : int
        Monte Carlo replicates per grid cell.
    seed : int
        Base seed; each cell's stream is keyed by (seed, the cell's parameter values).
    thresholds : list of float
        Thresholds a for the P(accuracy >= a) and P(F1 >= a) rows.
    chunk_cells : int
        Target number of grid cells per chunk (one engine call, one file each).
    resume : bool
        Reuse complete chunk files found in ``chunk_dir``.
    chunk_dir : str or None
        Where chunk files live; ``None`` means ``<run dir>/chunks``.
    quiet : bool
        No progress bar (it is also off when stderr is not a terminal).
    """

    name: str = "figure1"
    model: ModelConfig = field(default_factory=ModelConfig)
    labellers: LabellersConfig = field(default_factory=LabellersConfig)
    grid: GridConfig = field(default_factory=GridConfig)
    replicates: int = 10_000
    seed: int = 0
    thresholds: list[float] = field(default_factory=list)
    chunk_cells: int = 16
    resume: bool = True
    chunk_dir: Optional[str] = None
    quiet: bool = False
    output: OutputConfig = field(default_factory=OutputConfig)


def register_configs() -> None:
    """Register :class:`SweepConfig` as ``base_config`` in Hydra's ConfigStore (idempotent).

    Examples
    --------
    >>> from hydra.core.config_store import ConfigStore
    >>> register_configs()
    >>> "base_config.yaml" in ConfigStore.instance().list("")
    True
    """
    from hydra.core.config_store import ConfigStore

    ConfigStore.instance().store(name="base_config", node=SweepConfig)


def _package_dir(name: str) -> Path:
    """A folder of package data as a file-system path (``importlib.resources``).

    The package is installed as files (a wheel or an editable install), so the
    resource is a real directory; Hydra needs a path, not a traversable.
    """
    from importlib.resources import files

    return Path(str(files("labelvar").joinpath(name)))


def config_dir() -> Path:
    """Return the directory holding the sweep's ``config.yaml``.

    ``$LABELVAR_CONFIG_DIR`` when set (a folder with your own ``config.yaml`` and
    groups, e.g. a copy of the packaged one), else the packaged ``labelvar/configs/``.

    Examples
    --------
    >>> (config_dir() / "config.yaml").is_file()
    True
    >>> sorted(p.name for p in config_dir().iterdir() if p.is_dir())
    ['experiment', 'grid', 'hydra', 'labellers', 'model']
    """
    import os

    env = os.environ.get("LABELVAR_CONFIG_DIR")
    path = Path(env).expanduser().resolve() if env else _package_dir("configs")
    if not (path / "config.yaml").is_file():
        where = ("$LABELVAR_CONFIG_DIR points at a folder without config.yaml; unset it to "
                 "use the packaged configs" if env else
                 "the installation is incomplete; reinstall labelvar")
        raise FileNotFoundError(f"labelvar configs not found: {path / 'config.yaml'} ({where})")
    return path


def design_configs() -> list[str]:
    """Names of the packaged study-planner configs (``labelvar design --config NAME``).

    Examples
    --------
    >>> design_configs()
    ['separability', 'snli']
    """
    return sorted(p.stem for p in _package_dir("configs_design").glob("*.yaml"))


def design_config(name: str | Path) -> Path:
    """Resolve ``labelvar design --config NAME``: an existing file, else a packaged config.

    A path to an existing file is used as given. Otherwise a bare name such as
    ``snli`` (or ``snli.yaml``) names the packaged ``labelvar/configs_design/snli.yaml``.
    Relative paths inside a config (``pilot:``) resolve against the config file's
    folder, wherever it is.

    Raises
    ------
    FileNotFoundError
        Neither a file nor a packaged config; the message lists the packaged names.

    Examples
    --------
    >>> design_config("snli").name, design_config("snli.yaml") == design_config("snli")
    ('snli.yaml', True)
    >>> design_config("nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    FileNotFoundError: design config not found: 'nope' is not a file nor a packaged ... snli)
    """
    path = Path(name).expanduser()
    if path.is_file():
        return path
    text = str(name)
    stem = text[:-5] if text.endswith(".yaml") else text
    if stem and "/" not in stem and "\\" not in stem:
        packaged = _package_dir("configs_design") / f"{stem}.yaml"
        if packaged.is_file():
            return packaged
    raise FileNotFoundError(f"design config not found: {text!r} is not a file nor a packaged "
                            f"config (packaged: {', '.join(design_configs())})")


def schema_keys(path: str) -> list[str] | None:
    """Return the keys allowed at a dotted config path, or ``None`` if it is not a node.

    Examples
    --------
    >>> schema_keys("grid")
    ['p_d', 'theta', 'm', 'n_items', 'n_labels', 'panel_size']
    >>> schema_keys("grid.p_d") is None
    True
    """
    node: Any = SweepConfig
    for part in [p for p in path.split(".") if p]:
        if not is_dataclass(node):
            return None
        types = {f.name: f for f in fields(node)}
        if part not in types:
            return None
        f = types[part]
        if f.default_factory is not MISSING:
            node = f.default_factory()
        else:
            node = ThetaPriorConfig if part == "theta_prior" else f.default
    if not is_dataclass(node):
        return None
    return [f.name for f in fields(node)]


def theta_prior_arg(cfg: SweepConfig):
    """The engine's ``theta_prior`` argument: None or a prior object of :mod:`labelvar.votes`.

    Built by :func:`labelvar.votes.as_theta_prior` (the one parser), unchecked
    against n_labels.

    Examples
    --------
    >>> cfg = SweepConfig()
    >>> cfg.model.theta_prior = ThetaPriorConfig(a=4.0, b=1.0)
    >>> theta_prior_arg(cfg)
    BetaPrior(a=4.0, b=1.0, lo=None, hi=1.0)
    """
    from labelvar.votes._priors import as_theta_prior

    tp = cfg.model.theta_prior
    if tp is None:
        return None
    kind = _validate.choice("model.theta_prior.kind", tp.kind, THETA_PRIOR_KINDS)
    if kind == "beta":
        spec = ("beta", float(tp.a), float(tp.b), None if tp.lo is None else float(tp.lo),
                float(tp.hi))
    elif kind == "dirichlet":
        spec = ("dirichlet", [float(x) for x in tp.concentration])
    elif kind == "fixed":
        if tp.value is None:
            raise ValueError("model.theta_prior.value is required with kind='fixed'")
        spec = ("fixed", float(tp.value))
    else:
        weights = None if tp.weights is None else [float(w) for w in tp.weights]
        spec = (kind, [float(x) for x in tp.values], weights)
    return as_theta_prior(spec, name="model.theta_prior")


def _list(values) -> str:
    """A grid list as an override spells it: ``[0.6,0.9]``."""
    return "[" + ",".join(f"{v:g}" for v in values) + "]"


def _validate_with_engine_models(cfg: SweepConfig) -> None:
    """Build the engine's prior and labeller objects: their checks name the problem."""
    from labelvar.votes import _models as models

    prefix = "model.theta_prior: "
    if cfg.model.theta_prior is not None:
        if cfg.model.mode != "panel":
            raise ValueError(f"model.theta_prior needs model.mode='panel', got "
                             f"mode={cfg.model.mode!r}")
        try:
            prior = theta_prior_arg(cfg)
            for n_labels in cfg.grid.n_labels:
                prior.check(int(n_labels), "theta_prior")
        except ValueError as exc:
            raise ValueError(prefix + str(exc)) from None
        from labelvar.votes._priors import ItemModel

        if isinstance(prior, ItemModel):  # its label distributions define the classes
            if list(cfg.grid.m) != [0.5] or cfg.model.positives != "fixed":
                what = ("grid.m" if list(cfg.grid.m) != [0.5] else "model.positives")
                fix = "grid.m=[0.5]" if what == "grid.m" else "model.positives=fixed"
                raise ValueError(f"{what} does not apply under an item model "
                                 f"(model.theta_prior.kind={cfg.model.theta_prior.kind}): its "
                                 f"label distributions define the classes; set {fix}")
    if cfg.model.mode == "panel":
        for n_labels in cfg.grid.n_labels:
            low = [p for p in cfg.grid.theta if p < 1.0 / n_labels - 1e-12]
            if low:
                raise ValueError(f"grid.theta must be >= 1/L = {1 / n_labels:.4g} (theta is "
                                 f"the modal label's probability), got {low[0]} with "
                                 f"n_labels={n_labels}")
    labs = list(models.as_labellers(tuple(cfg.labellers.names)))
    labs += model_labellers(cfg)
    names = [lab.name for lab in labs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"labellers must have unique names (labellers.names and "
                         f"labellers.models[].name); repeated: {', '.join(dup)}")
    big_l = max(int(n) for n in cfg.grid.n_labels)  # each check below builds L x L tables
    _validate.memory(f"a labeller table for grid.n_labels={big_l}", 8.0 * 4 * big_l**2,
                     "use fewer labels")
    for lab in labs:
        for n_labels in cfg.grid.n_labels:
            try:
                lab.matrix(int(n_labels), [1.0 / n_labels] * int(n_labels), 0.5)
            except ValueError as exc:
                raise ValueError(f"labellers: {exc}") from None


def model_labellers(cfg: SweepConfig) -> list:
    """Build the :class:`labelvar.Model` objects of ``cfg.labellers.models``.

    Examples
    --------
    >>> cfg = SweepConfig()
    >>> cfg.labellers.models = [ModelLabellerConfig(name="A", accuracy=0.7)]
    >>> model_labellers(cfg)
    [Model(accuracy=0.7, sensitivity=None, specificity=None, name='A')]
    """
    from labelvar.votes import _models as models

    out = []
    for i, mc in enumerate(cfg.labellers.models):
        try:
            out.append(models.Model(accuracy=mc.accuracy, sensitivity=mc.sensitivity,
                                    specificity=mc.specificity, name=mc.name))
        except ValueError as exc:
            raise ValueError(f"labellers.models[{i}] ({mc.name!r}): {exc}") from None
    return out


#: largest magnitude of an integer setting (replicates, grid sizes, chunk_cells): the value
#: checks work in floats, exact up to 2**53; ``seed`` (up to 2**63 - 1) is checked exactly
_INT_LIMIT = 2**53


def _typed_copy(obj: Any, cls: type, key: str = "") -> Any:
    """A copy of ``obj`` (a ``cls``) in plain Python types; a wrong type is a ValueError naming the key.

    Hydra's schema checks types on the command line; a :class:`SweepConfig` built in
    Python gets the same answer here, before any value check. Lists may be any
    sequence (tuple, 1-d array), numbers numpy scalars, an ``int`` setting a whole
    float (``1e4``); the copy holds lists, ints, floats, bools and strs, as OmegaConf
    (``config.yaml``) and JSON (``metadata.json``, chunk keys) need.
    """
    if not isinstance(obj, cls):
        raise ValueError(f"{key or 'the config'} must be a labelvar.sweep.{cls.__name__}, "
                         f"got {obj!r}")
    hints = get_type_hints(cls)
    return cls(**{f.name: _typed_value(f"{key}.{f.name}" if key else f.name,
                                       getattr(obj, f.name), hints[f.name])
                  for f in fields(cls)})


def _typed_value(key: str, value: Any, hint: Any) -> Any:
    args = get_args(hint)
    if type(None) in args:  # Optional[X]
        if value is None:
            return None
        (hint,) = [a for a in args if a is not type(None)]
    if is_dataclass(hint):
        return _typed_copy(value, hint, key)
    if get_origin(hint) is list:
        if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
            raise ValueError(f"{key} must be a list, got {value!r}")
        return [_typed_value(f"{key}[{i}]", item, get_args(hint)[0])
                for i, item in enumerate(value)]
    if hint is bool:
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{key} must be true or false, got {value!r}")
        return bool(value)
    if hint is str:
        if not isinstance(value, str):
            raise ValueError(f"{key} must be a string, got {value!r}")
        return str(value)
    if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{key} must be {'a whole number' if hint is int else 'a number'}, "
                         f"got {value!r}")
    if hint is float:
        return float(value)
    if key != "seed" and abs(value) > _INT_LIMIT:  # (NaN: refused below)
        raise ValueError(f"{key} must be at most 2**53 in absolute value, got {value!r}")
    if isinstance(value, numbers.Integral):
        return int(value)
    return int(value) if float(value).is_integer() else float(value)  # 2.5: refused below


def _check_plot(cfg: SweepConfig, plot: str) -> None:
    """Refuse a figure the job's table cannot give (it would fail after the whole run)."""
    names = set(cfg.labellers.names) | {mc.name for mc in cfg.labellers.models}
    drawn = ("expert",) if plot in ("panel_bias", "table1") else ("expert", "random")
    problem = None
    if plot == "panel_bias":
        if cfg.model.mode != "panel":
            problem = "needs model.mode='panel' (it draws the observed-p_d strata of panels)"
    elif cfg.model.theta_prior is not None:
        problem = "draws against grid.p_d, which model.theta_prior replaces"
    elif plot == "table1" and not cfg.thresholds:
        problem = "draws P(accuracy >= a): give thresholds, e.g. thresholds=[0.5,0.8]"
    if problem is None and not names & set(drawn):
        problem = f"draws the labeller {' or '.join(map(repr, drawn))}, not in labellers.names"
    if problem:
        raise ValueError(f"output.plots: {plot!r} {problem}; choose other plots or "
                         f"output.plots=[]")


def validate(cfg: SweepConfig) -> SweepConfig:
    """Check every value of ``cfg``; raise ValueError (one line naming the key) or return it.

    The returned config is a copy in plain Python types (lists, ints, floats), whatever
    sequences or numpy numbers ``cfg`` held: use it rather than ``cfg``.

    Examples
    --------
    >>> cfg = SweepConfig()
    >>> cfg.grid.p_d = [0.5, 1.2]
    >>> validate(cfg)
    Traceback (most recent call last):
    ...
    ValueError: grid.p_d must be in [0, 1], got 1.2
    """
    cfg = _typed_copy(cfg, SweepConfig)
    g = cfg.grid
    prior = cfg.model.theta_prior
    _validate.choice("model.mode", cfg.model.mode, MODES)
    panel = cfg.model.mode == "panel"
    if panel and g.p_d:  # the old spelling of the panel's axis
        raise ValueError(f"grid.p_d is the coin model's (the probability of matching the "
                         f"reference); model.mode='panel' varies the latent item agreement: "
                         f"grid.theta={_list(g.p_d)} grid.p_d=[]" if not g.theta and prior is None
                         else f"grid.p_d must be [] under model.mode='panel' (its axis is "
                         f"grid.theta), got {list(g.p_d)}")
    if not panel and g.theta:
        raise ValueError(f"grid.theta applies to model.mode='panel' (the coin model's axis is "
                         f"grid.p_d), got {list(g.theta)}")
    if not panel and list(g.panel_size) != [5]:
        raise ValueError(f"grid.panel_size applies to model.mode='panel' (a coin model has no "
                         f"panel), got {list(g.panel_size)}")
    for key in ("p_d", "theta", "m", "n_items", "n_labels", "panel_size"):
        if key == "theta" and prior is not None:
            if g.theta:
                raise ValueError("grid.theta must be [] when model.theta_prior is set (theta is "
                                 f"drawn from the prior), got {list(g.theta)}")
            continue
        if (key == "p_d") == panel or (key == "theta" and prior is not None):
            continue  # the other model's axis (checked above)
        if len(getattr(g, key)) == 0:
            raise ValueError(f"grid.{key} must list at least one value")
        values = getattr(g, key)
        if len(set(values)) != len(values):
            raise ValueError(f"grid.{key} must not repeat a value, got {list(values)}")
    _validate.probability("grid.p_d", g.p_d)
    _validate.probability("grid.theta", g.theta)
    _validate.probability("grid.m", g.m)
    _validate.integer("grid.n_items", g.n_items, lo=1)
    _validate.n_labels(g.n_labels, name="grid.n_labels")
    _validate.integer("grid.panel_size", g.panel_size, lo=1)
    _validate.choice("model.tie_rule", cfg.model.tie_rule, TIE_RULES)
    _validate.choice("model.positives", cfg.model.positives, ("fixed", "bernoulli"))
    _validate.choice("model.method", cfg.model.method, ("auto", "collapsed", "explicit"))
    if not cfg.labellers.names and not cfg.labellers.models:
        raise ValueError("labellers.names must list at least one labeller (or give "
                         "labellers.models)")
    for name in cfg.labellers.names:
        _validate.choice("labellers.names", name, LABELLERS)
    if len(set(cfg.labellers.names)) != len(cfg.labellers.names):
        raise ValueError(f"labellers.names must not repeat a labeller, got {cfg.labellers.names}")
    _validate_with_engine_models(cfg)
    _validate.integer("replicates", cfg.replicates, lo=2)
    try:  # exactly, up to 2**63 - 1 (never through a float)
        _seeding.as_seed(cfg.seed)
    except ValueError:
        raise ValueError(f"seed must be an int in [0, 2**63 - 1], got {cfg.seed!r}") from None
    _validate.probability("thresholds", cfg.thresholds)
    if len(set(cfg.thresholds)) != len(cfg.thresholds):  # (each would repeat its rows)
        raise ValueError(f"thresholds must not repeat a value, got {list(cfg.thresholds)}")
    _validate.integer("chunk_cells", cfg.chunk_cells, lo=1)
    _validate.choice("output.format", cfg.output.format, FORMATS)
    for plot in cfg.output.plots:
        _validate.choice("output.plots", plot, PLOTS)
        _check_plot(cfg, plot)
    for fmt in cfg.output.figure_formats:
        _validate.choice("output.figure_formats", fmt, FIGURE_FORMATS)
    if cfg.output.plots and not cfg.output.figure_formats:
        raise ValueError(f"output.figure_formats must list at least one of "
                         f"{', '.join(FIGURE_FORMATS)} when output.plots is set (or set "
                         f"output.plots=[]), got []")
    if cfg.output.format == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ValueError(
                "output.format='parquet' needs pyarrow (pip install 'labelvar[parquet]'); use 'csv'"
            ) from None
    if cfg.chunk_dir is not None and Path(cfg.chunk_dir).exists() \
            and not Path(cfg.chunk_dir).is_dir():
        raise ValueError(f"chunk_dir must be a directory, got the file {cfg.chunk_dir!r}")
    if cfg.name in ("", ".", "..") or any(c in cfg.name for c in "/\\\0"):
        raise ValueError(f"name must be a file name (not empty, '.' or '..'; no slashes), "
                         f"got {cfg.name!r}")
    return cfg
