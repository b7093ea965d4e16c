"""The typed Hydra config: experiments compose, typos and bad values fail in one line."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from omegaconf import OmegaConf

from labelvar import cli
from labelvar.cli import _sweeps as sweep
from labelvar.sweep._config import SweepConfig, config_dir, register_configs, schema_keys, validate


@pytest.fixture
def composed():
    """compose(overrides) -> (DictConfig with hydra node, SweepConfig)."""
    register_configs()
    GlobalHydra.instance().clear()
    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
        def run(*overrides, hydra=False):
            dcfg = compose("config", overrides=list(overrides), return_hydra_config=hydra)
            if hydra:
                return dcfg
            return sweep._to_config(dcfg)
        yield run
    GlobalHydra.instance().clear()


def test_defaults_are_figure1(composed):
    cfg = composed()
    assert isinstance(cfg, SweepConfig)
    assert cfg == composed("experiment=figure1")
    assert cfg.name == "figure1" and cfg.model.mode == "coin"
    assert cfg.grid.p_d == [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0]
    assert cfg.grid.m == [0.05, 0.1, 0.25, 0.5]
    assert cfg.labellers.names == ["expert", "random"]
    assert cfg.replicates == 10_000 and cfg.output.plots == ["figure1"]


def test_experiments_compose_to_what_they_promise(composed):
    t1 = composed("experiment=table1")
    assert (t1.name, t1.thresholds, t1.grid.n_items, t1.labellers.names) == (
        "table1", [0.5, 0.8], [10, 100], ["expert"])
    assert {0.25, 0.5, 0.6, 0.9} <= set(t1.grid.p_d)  # the paper's Table 1 rows
    pb = composed("experiment=panel_bias")
    assert (pb.model.mode, pb.grid.panel_size, pb.output.plots) == (
        "panel", [3, 5, 7, 9], ["panel_bias"])
    mc = composed("experiment=multiclass")
    assert mc.grid.n_labels == [2, 3, 4, 5] and min(mc.grid.p_d) <= 1 / 5
    for cfg in (t1, pb, mc):
        validate(cfg)
    beta = composed("model=panel_beta", "model.theta_prior.a=4")
    assert (beta.model.mode, beta.model.theta_prior.a, beta.model.theta_prior.b) == ("panel", 4.0, 1.0)


def test_model_labellers_group(composed):
    from labelvar.sweep._config import model_labellers

    cfg = composed("labellers=with_models")
    labs = model_labellers(cfg)
    assert [(m.name, m.accuracy, m.sensitivity, m.specificity) for m in labs] == [
        ("A", 0.9, None, None), ("B", None, 0.9, 0.6)]
    assert cfg.labellers.names == ["expert", "random"]


def test_overrides_are_typed(composed):
    cfg = composed("grid.p_d=[0.6,1]", "replicates=500", "quiet=true")
    assert cfg.grid.p_d == [0.6, 1.0] and cfg.replicates == 500 and cfg.quiet is True
    assert sweep.check_overrides(["experiment=figure1,table1,multiclass", "seed=1,2"]) == 6


@pytest.mark.parametrize("override, message", [
    ("grid.pd=[0.5]", "Could not override 'grid.pd': Key 'pd' not in 'GridConfig' "
                      "(allowed keys in grid: p_d, theta, m, n_items, n_labels, panel_size)"),
    ("replicate=5", "Could not override 'replicate': Key 'replicate' not in 'SweepConfig'"),
    ("+grid.bogus=1", "unknown config key 'grid.bogus' (allowed keys in grid: p_d, theta, m,"),
    ("model=panel_beta model.theta_prior.alpha=[1,2]",
     "model.theta_prior.alpha is now model.theta_prior.concentration (the one name of that "),
    ("model=panel_beta +model.theta_prior.alpha=[1,2]",
     "model.theta_prior.alpha is now model.theta_prior.concentration (the one name of that "),
    ("experiment=figure2", "Could not find 'experiment/figure2'; available: "),
    ("replicates=many", "replicates=many: Value 'many' of type 'str' could not be converted "
                        "to Integer"),
    ("grid.m=[0.5,1.5]", "grid.m must be in [0, 1], got 1.5"),
    ("labellers.names=[expert,expert]", "labellers.names must not repeat a labeller"),
    ("grid.n_items=[0]", "grid.n_items must be >= 1, got 0"),
    ("grid.n_labels=[1]", "grid.n_labels must be >= 2, got 1"),
    ("model.mode=boat", "model.mode must be one of 'coin', 'panel'; got 'boat'"),
    ("labellers.names=[expert,oracle]", "labellers.names must be one of"),
    ("thresholds=[1.1]", "thresholds must be in [0, 1], got 1.1"),
    ("replicates=1", "replicates must be >= 2, got 1"),
    ("output.format=xlsx", "output.format must be one of 'csv', 'parquet'; got 'xlsx'"),
    ("labellers.models=[{name:C,accuracy:1.5}]",
     "labellers.models[0] ('C'): Model.accuracy must be in [0, 1], got 1.5"),
    ("labellers.models=[{name:expert,accuracy:0.5}]",
     "labellers must have unique names (labellers.names and labellers.models[].name); "
     "repeated: expert"),
    ("labellers=with_models grid.n_labels=[3]",
     "labellers: Model 'B' with sensitivity/specificity needs n_labels = 2, got 3"),
    ("labellers.models=[{name:C,acuracy:0.5}]",
     "Key 'acuracy' not in 'ModelLabellerConfig' (allowed keys in ModelLabellerConfig: "
     "name, accuracy, sensitivity, specificity)"),
    ("model.theta_prior.a=3", "a key below a node that is null in this config (e.g. "
                              "model.theta_prior.* needs model=panel_beta)"),
    ("model=panel_beta", "grid.p_d must be [] under model.mode='panel' (its axis is grid.theta)"),
    ("model=panel grid.p_d=[0.6,0.9]", "model.mode='panel' varies the latent item agreement: "
                                       "grid.theta=[0.6,0.9] grid.p_d=[]"),
    ("model=panel_beta grid.p_d=[] grid.theta=[0.7]", "grid.theta must be [] when "
                                                       "model.theta_prior is set"),
    ("model=panel grid.p_d=[] grid.theta=[0.3,0.6]", "grid.theta must be >= 1/L = 0.5 (theta is "
                                                      "the modal label's probability), got 0.3 "
                                                      "with n_labels=2"),
])
def test_bad_override_fails_in_one_line_exit_2(override, message, capsys, tmp_path):
    code = cli.main(["sweep", *override.split(), f"hydra.run.dir={tmp_path}/run"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("labelvar: error: ")
    assert message in err
    if override.startswith("experiment="):
        assert "figure1, multiclass, panel_bias, table1" in err
    assert not (tmp_path / "run").exists()  # nothing ran


def test_bad_value_inside_a_sweep_is_caught_before_launch(capsys, tmp_path):
    code = cli.main(["sweep", "-m", "grid.m=[0.5],[2.0]", f"hydra.sweep.dir={tmp_path}/ms"])
    assert code == 2
    assert "grid.m must be in [0, 1], got 2.0" in capsys.readouterr().err
    assert not (tmp_path / "ms").exists()


def test_console_script_from_another_directory(tmp_path):
    """The packaged configs are found whatever the working directory."""
    exe = Path(sys.executable).with_name("labelvar")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "labelvar.cli"]
    env = {k: v for k, v in os.environ.items() if k != "LABELVAR_CONFIG_DIR"}
    ok = subprocess.run(cmd + ["sweep", "--cfg", "job", "experiment=table1"], cwd=tmp_path,
                        capture_output=True, text=True, env=env, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert OmegaConf.create(ok.stdout).name == "table1"
    bad = subprocess.run(cmd + ["sweep", "grid.pd=[0.5]"], cwd=tmp_path, capture_output=True,
                         text=True, env=env, timeout=120)
    assert bad.returncode == 2
    assert bad.stderr.startswith("labelvar: error: Could not override 'grid.pd'")
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
    assert not list(tmp_path.iterdir())  # --cfg and a refused sweep write nothing


def test_slurm_example_launcher_leaves_partition_to_the_user(composed):
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    cfg = composed("hydra/launcher=slurm", "hydra.launcher.partition=short", hydra=True)
    launcher = cfg.hydra.launcher
    assert launcher._target_.endswith("SlurmLauncher")
    assert (launcher.partition, launcher.timeout_min, launcher.mem_gb) == ("short", 60, 4)
    bare = composed("hydra/launcher=slurm", hydra=True)
    assert bare.hydra.launcher.partition is None  # the cluster's default unless given


def test_schema_keys_and_config_dir_env(monkeypatch, tmp_path):
    assert schema_keys("") == ["name", "model", "labellers", "grid", "replicates", "seed",
                               "thresholds", "chunk_cells", "resume", "chunk_dir", "quiet",
                               "output"]
    assert schema_keys("model.theta_prior") == ["kind", "a", "b", "lo", "hi", "values", "weights",
                                                "value", "concentration"]
    monkeypatch.setenv("LABELVAR_CONFIG_DIR", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="labelvar configs not found"):
        config_dir()


def test_typo_inside_an_experiment_file_is_one_line(tmp_path, monkeypatch, capsys):
    import shutil

    shutil.copytree(config_dir(), tmp_path / "configs")
    exp = tmp_path / "configs" / "experiment" / "figure1.yaml"
    exp.write_text(exp.read_text().replace("replicates: 10000", "replicats: 10000"))
    monkeypatch.setenv("LABELVAR_CONFIG_DIR", str(tmp_path / "configs"))
    assert cli.main(["sweep", "experiment=figure1"]) == 2
    err = capsys.readouterr().err
    assert err == ("labelvar: error: In 'experiment/figure1': Key 'replicats' not in 'SweepConfig' "
                   "(allowed keys: name, model, labellers, grid, replicates, seed, thresholds, "
                   "chunk_cells, resume, chunk_dir, quiet, output)\n")


def test_sweep_schema_accepts_every_prior_kind_of_the_one_parser(composed):
    """The sweep schema knew only Beta; it now builds discrete and fixed priors too."""
    from labelvar.sweep._config import theta_prior_arg
    from labelvar.votes._priors import DiscretePrior, FixedTheta, as_theta_prior

    disc = composed("model=panel_beta", "grid.p_d=[]", "model.theta_prior.kind=discrete",
                    "model.theta_prior.values=[0.6,1.0]", "model.theta_prior.weights=[0.3,0.7]",
                    "output.plots=[panel_bias]")  # (figure1 draws against p_d: refused)
    validate(disc)
    assert theta_prior_arg(disc) == DiscretePrior((0.6, 1.0), (0.3, 0.7))
    assert theta_prior_arg(disc) == as_theta_prior("mixture:0.6=0.3,1=0.7")
    fixed = composed("model=panel_beta", "grid.p_d=[]", "model.theta_prior.kind=fixed",
                     "model.theta_prior.value=0.8")
    assert theta_prior_arg(fixed) == FixedTheta(0.8)
    bad = composed("model=panel_beta", "grid.p_d=[]", "model.theta_prior.kind=discrete",
                   "model.theta_prior.values=[0.2,1.0]")
    with pytest.raises(ValueError, match=r"model.theta_prior.*\[1/L, 1\]"):
        validate(bad)
    with pytest.raises(ValueError, match="model.theta_prior.kind must be one of"):
        validate(composed("model=panel_beta", "grid.p_d=[]", "model.theta_prior.kind=gamma"))


def _cfg_with(path: str, value) -> SweepConfig:
    cfg = SweepConfig()
    *parents, last = path.split(".")
    node = cfg
    for part in parents:
        node = getattr(node, part)
    setattr(node, last, value)
    return cfg


@pytest.mark.parametrize("path, value, message", [
    ("grid.p_d", 0.5, "grid.p_d must be a list, got 0.5"),
    ("grid.p_d", None, "grid.p_d must be a list, got None"),
    ("grid.p_d", [[0.5]], "grid.p_d[0] must be a number, got [0.5]"),
    ("grid.n_items", [10**30], "grid.n_items[0] must be at most 2**53 in absolute value, got "
                               "1000000000000000000000000000000"),
    ("grid", None, "grid must be a labelvar.sweep.GridConfig, got None"),
    ("labellers.models", [{"name": "A", "accuracy": 0.7}],
     "labellers.models[0] must be a labelvar.sweep.ModelLabellerConfig, got {'name': 'A', "
     "'accuracy': 0.7}"),
    ("labellers.models", None, "labellers.models must be a list, got None"),
    ("output.plots", None, "output.plots must be a list, got None"),
    ("thresholds", 0.5, "thresholds must be a list, got 0.5"),
    ("replicates", 10**30, "replicates must be at most 2**53 in absolute value, got "
                           "1000000000000000000000000000000"),
    ("replicates", True, "replicates must be a whole number, got True"),
    ("chunk_dir", 5, "chunk_dir must be a string, got 5"),
    ("resume", "no", "resume must be true or false, got 'no'"),
    ("name", 5, "name must be a string, got 5"),
    ("name", "..", "name must be a file name (not empty, '.' or '..'; no slashes), got '..'"),
    ("seed", None, "seed must be a whole number, got None"),
    ("seed", 2**63, "seed must be an int in [0, 2**63 - 1], got 9223372036854775808"),
    ("seed", -1, "seed must be an int in [0, 2**63 - 1], got -1"),
])
def test_python_configs_of_the_wrong_type_are_one_line_value_errors(path, value, message):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning on the way (huge ints)
        with pytest.raises(ValueError) as info:
            validate(_cfg_with(path, value))
    assert str(info.value) == message


def test_the_largest_seed_is_accepted_exactly():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert validate(_cfg_with("seed", 2**63 - 1)).seed == 2**63 - 1
        assert sweep.check_overrides([f"seed={2**63 - 1}"]) == 1
        with pytest.raises(ValueError, match=r"^seed must be an int in \[0, 2\*\*63 - 1\]"):
            sweep.check_overrides([f"seed={2**63}"])
    # numpy arrays and tuples are lists too; a whole float is an int
    cfg = _cfg_with("replicates", 1e4)
    cfg.grid.p_d = np.array([0.6, 0.9])
    cfg.grid.m = (0.5,)
    assert validate(cfg).replicates == 1e4


def test_a_bad_interpolation_names_the_key_it_is_in():
    with pytest.raises(ValueError) as info:
        sweep.check_overrides(["name=${oops}"])
    assert str(info.value) == "name: Interpolation key 'oops' not found"
    with pytest.raises(ValueError) as info:  # a message that names the key gets no prefix
        sweep.check_overrides(["grid.p_d=[a]"])
    assert str(info.value) == ("Error merging override grid.p_d=[a]: Value 'a' of type 'str' "
                               "could not be converted to Float")


def test_repeated_thresholds_and_figures_without_formats_are_refused():
    with pytest.raises(ValueError) as info:
        validate(_cfg_with("thresholds", [0.5, 0.5]))
    assert str(info.value) == "thresholds must not repeat a value, got [0.5, 0.5]"
    with pytest.raises(ValueError) as info:
        validate(_cfg_with("output.figure_formats", []))  # plots=[figure1]: nothing written
    assert str(info.value) == ("output.figure_formats must list at least one of png, pdf, svg "
                               "when output.plots is set (or set output.plots=[]), got []")
    cfg = _cfg_with("output.figure_formats", [])
    cfg.output.plots = []
    assert validate(cfg).output.figure_formats == []


def test_a_config_file_that_is_not_yaml_names_the_file_and_line(tmp_path, monkeypatch, capsys):
    import shutil

    mine = tmp_path / "configs"
    shutil.copytree(config_dir(), mine)
    (mine / "experiment" / "broken.yaml").write_text("# @package _global_\nname: [a\n")
    monkeypatch.setenv("LABELVAR_CONFIG_DIR", str(mine))
    assert cli.main(["sweep", "experiment=broken", "--quiet"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"labelvar: error: invalid YAML in {mine / 'experiment' / 'broken.yaml'}, line 3: "
        "expected ',' or ']', but got '<stream end>'; while parsing a flow sequence")


def test_cfg_job_reports_composition_errors_in_one_line_and_prints_the_rest(capsys):
    assert cli.main(["sweep", "--cfg", "job", "grid.pd=[1]"]) == 2
    assert capsys.readouterr().err.strip() == (
        "labelvar: error: Could not override 'grid.pd': Key 'pd' not in 'GridConfig' "
        "(allowed keys in grid: p_d, theta, m, n_items, n_labels, panel_size)")
    assert cli.main(["sweep", "--cfg", "job", "experiment=nope"]) == 2
    assert capsys.readouterr().err.strip().startswith(
        "labelvar: error: In 'config': Could not find 'experiment/nope'; available: figure1")
    # a value the run would refuse is still printed: --cfg shows, it does not run
    assert cli.main(["sweep", "--cfg", "job", "replicates=1"]) == 0
    assert "replicates: 1\n" in capsys.readouterr().out


def test_a_multirun_whose_jobs_share_one_folder_is_refused():
    overrides = ["grid=small", "seed=1,2", "hydra.sweep.subdir=job"]
    with pytest.raises(ValueError) as info:  # (job 2 overwrote job 1's results.csv)
        sweep.check_overrides(overrides, multirun=True)
    assert str(info.value) == ("hydra.sweep.subdir must differ between the jobs of a multirun "
                               "(e.g. ${hydra.job.num}_${name}), got 'job': the 2 jobs would "
                               "write over each other's results")
    assert sweep.check_overrides(["grid=small", "seed=1", "hydra.sweep.subdir=job"],
                                 multirun=True) == 1
    assert sweep.check_overrides(["grid=small", "seed=1,2", "hydra.sweep.subdir=s${seed}"],
                                 multirun=True) == 2


@pytest.mark.parametrize("override, name", [("grid.m=[0.3,0.5]", "grid.m"),
                                            ("model.positives=bernoulli", "model.positives")])
def test_an_item_model_refuses_the_class_settings_it_would_ignore(override, name):
    """Issue 31: m was silently ignored under an item model; the sweep refuses it by name."""
    base = ["model=panel_beta", "grid.p_d=[]", "model.theta_prior.kind=dirichlet",
            "model.theta_prior.concentration=[1,2,1]", "grid.n_labels=[3]", "grid.m=[0.5]",
            "output.plots=[]"]
    assert sweep.check_overrides(base) == 1
    with pytest.raises(ValueError, match=rf"^{name} does not apply under an item model"):
        sweep.check_overrides(base + [override])
