"""Packaging: configs as package data, the version, provenance, help texts, file modes.

The wheel itself (built, installed alone into a fresh venv, every command run from
outside the checkout) is exercised by ``scripts/wheel_smoke.sh``, which CI runs after
the test suite; the tests here check the pieces it relies on, fast.
"""

from __future__ import annotations

import argparse
import os
import shutil
import stat
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import labelvar
from labelvar import cli, sweep
from labelvar._base import _provenance
from labelvar.cli import _sweeps as sweep_cli
from labelvar.cli._main import build_parser
from labelvar.sweep import _config as config
from labelvar.sweep import _job as _sweep_job

REPO = Path(__file__).resolve().parents[1]
PACKAGE = Path(labelvar.__file__).resolve().parent
HAS_GIT = shutil.which("git") is not None


# --------------------------------------------------------------------------- configs
def test_sweep_configs_are_package_data(monkeypatch):
    monkeypatch.delenv("LABELVAR_CONFIG_DIR", raising=False)
    root = config.config_dir()
    assert root == PACKAGE / "configs"
    groups = sorted(p.name for p in root.iterdir() if p.is_dir())
    assert groups == ["experiment", "grid", "hydra", "labellers", "model"]  # no `design`
    assert not (REPO / "configs").exists()  # one copy, inside the package


def test_package_data_globs_cover_every_config_file():
    """pyproject's package-data globs ship every file of the config folders (all YAML)."""
    for folder in ("configs", "configs_design"):
        files = [p for p in (PACKAGE / folder).rglob("*") if p.is_file()
                 and "__pycache__" not in p.parts]
        assert files and all(p.suffix == ".yaml" for p in files), folder
    text = (REPO / "pyproject.toml").read_text()
    assert '"configs/**/*.yaml"' in text and '"configs_design/*.yaml"' in text
    assert not [p for p in (PACKAGE / "configs_design").iterdir() if p.is_dir()]


def test_config_dir_env_override(monkeypatch, tmp_path):
    mine = tmp_path / "mine"
    shutil.copytree(config.config_dir(), mine)
    (mine / "experiment" / "tiny.yaml").write_text(
        "# @package _global_\nname: tiny\nreplicates: 20\n")
    monkeypatch.setenv("LABELVAR_CONFIG_DIR", str(mine))
    assert config.config_dir() == mine.resolve()
    assert sweep_cli.check_overrides(["experiment=tiny"]) == 1
    monkeypatch.setenv("LABELVAR_CONFIG_DIR", str(tmp_path / "empty"))
    with pytest.raises(FileNotFoundError, match="LABELVAR_CONFIG_DIR points at a folder"):
        config.config_dir()


def test_design_config_by_name_or_path(tmp_path, monkeypatch):
    assert config.design_configs() == ["separability", "snli"]
    packaged = PACKAGE / "configs_design" / "separability.yaml"
    assert config.design_config("separability") == packaged
    assert config.design_config("separability.yaml") == packaged
    # an existing file wins over the packaged name
    monkeypatch.chdir(tmp_path)
    (tmp_path / "separability").write_text("design:\n  question: precision\n")
    assert config.design_config("separability") == Path("separability")
    with pytest.raises(FileNotFoundError, match=r"packaged: separability, snli"):
        config.design_config("configs/design/snli.yaml")  # the old path, outside a checkout


def test_design_config_name_on_the_command_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # not the checkout
    code = cli.main(["design", "--config", "separability", "--replicates", "0",
                     "--panel-sizes", "1,3", "--format", "csv"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    assert cap.out.startswith("panel_size,")
    code = cli.main(["design", "--config", "nope"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("labelvar: error: design config not found: 'nope'")


def test_packaged_snli_pilot_missing_says_pass_pilot(capsys, tmp_path, monkeypatch):
    """A packaged config whose relative pilot is not there asks for --pilot PATH."""
    fake = tmp_path / "site-packages" / "labelvar" / "configs_design"
    fake.mkdir(parents=True)
    shutil.copy(PACKAGE / "configs_design" / "snli.yaml", fake / "snli.yaml")
    code = cli.main(["design", "--config", str(fake / "snli.yaml")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "the pilot of --config" in err and "pass the pilot file with --pilot PATH" in err
    # --pilot replaces the config's pilot (here a tiny CSV of vote counts)
    pilot = tmp_path / "pilot.csv"
    pilot.write_text("a,b,c\n3,1,1\n5,0,0\n2,2,1\n4,1,0\n3,2,0\n5,0,0\n")
    code = cli.main(["design", "--config", str(fake / "snli.yaml"), "--pilot", str(pilot),
                     "--replicates", "0", "--panel-sizes", "3"])
    err = capsys.readouterr().err
    assert code in (0, 1), err
    assert err.startswith("pilot: 6 items, L = 3")


# --------------------------------------------------------------------------- version
def test_version_is_single_sourced(capsys):
    assert labelvar.__version__ == metadata.version("labelvar") == _provenance.version()
    with pytest.raises(SystemExit):
        cli.main(["--version"])
    assert capsys.readouterr().out == f"labelvar {labelvar.__version__}\n"


def test_sweep_version_is_labelvars_not_hydras(capsys):
    assert cli.main(["sweep", "--version"]) == 0
    out = capsys.readouterr().out
    assert out == f"labelvar {labelvar.__version__}\n"
    assert "Hydra" not in out


# --------------------------------------------------------------------------- provenance
def _git_init(path: Path) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "init"]):
        subprocess.run(["git", "-C", str(path), *cmd], check=True, env=env, capture_output=True)


def _fake_package(at: Path) -> Path:
    at.mkdir(parents=True)
    (at / "__init__.py").write_text("")
    return at


@pytest.mark.skipif(not HAS_GIT, reason="git not installed")
def test_no_vcs_info_for_an_install_inside_another_repository(tmp_path):
    """A venv inside an unrelated repository: its HEAD is not labelvar's revision."""
    repo = tmp_path / "other"
    pkg = _fake_package(repo / ".venv" / "lib" / "python3.11" / "site-packages" / "labelvar")
    (repo / "pyproject.toml").write_text('[project]\nname = "other"\nversion = "1"\n')
    _git_init(repo)
    assert _provenance.vcs_info(pkg) == {"source": "installed", "revision": None,
                                          "dirty_src": None}
    # a src layout of some other project is not a labelvar checkout either
    other_src = _fake_package(repo / "src" / "labelvar")
    assert _provenance.vcs_info(other_src)["revision"] is None


@pytest.mark.skipif(not HAS_GIT, reason="git not installed")
def test_vcs_info_for_a_labelvar_checkout(tmp_path):
    root = tmp_path / "labelvar-checkout"
    pkg = _fake_package(root / "src" / "labelvar")
    (root / "pyproject.toml").write_text('[project]\nname = "labelvar"\nversion = "9.9"\n')
    _git_init(root)
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    assert _provenance.vcs_info(pkg) == {"source": str(root.resolve()), "revision": head,
                                          "dirty_src": False}
    (pkg / "__init__.py").write_text("x = 1\n")
    assert _provenance.vcs_info(pkg)["dirty_src"] is True
    # a labelvar source tree copied *into* another repository: not the work tree's top
    outer = tmp_path / "outer"
    inner = outer / "vendored" / "labelvar"
    shutil.copytree(root, inner, ignore=shutil.ignore_patterns(".git"))
    _git_init(outer)
    assert _provenance.vcs_info(inner / "src" / "labelvar")["revision"] is None


def test_project_name_parser_without_tomllib(tmp_path, monkeypatch):
    py = tmp_path / "pyproject.toml"
    py.write_text('[build-system]\nrequires = []\n\n[project]\nname = "labelvar"\n')
    assert _provenance._project_name(py) == "labelvar"
    monkeypatch.setitem(sys.modules, "tomllib", None)  # Python 3.10
    assert _provenance._project_name(py) == "labelvar"
    py.write_text('[tool.x]\nname = "labelvar"\n[project]\nname = "other"\n')
    assert _provenance._project_name(py) == "other"


def test_sweep_metadata_records_this_checkouts_revision():
    meta_git = _sweep_job._git_revision()
    assert set(meta_git) == {"source", "revision", "dirty_src"}
    if _provenance.checkout_root() is not None and HAS_GIT:
        assert meta_git["source"] == str(_provenance.checkout_root())


# --------------------------------------------------------------------------- help texts
def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    return parser._subparsers._group_actions[0].choices


@pytest.mark.parametrize("command", ["expect", "tables", "collect", "stratify", "design"])
def test_every_option_has_help_and_states_its_default(command):
    sub = _subparsers()[command]
    text = sub.format_help()
    for action in sub._actions:
        if not action.option_strings or action.dest == "help":
            continue
        assert action.help, f"{command} {action.option_strings[0]} has no help"
        shown = sub._get_formatter()._get_help_string(action)
        if action.default not in (None, False, "", []) and not action.required:
            assert "default" in shown, f"{command} {action.option_strings[0]}: no default shown"
    assert "%(default)" not in text


def test_defaults_are_shown_as_typed():
    text = _subparsers()["tables"].format_help()
    assert "(default: markdown)" in text and "(default: all)" in text
    assert "(default: )" not in _subparsers()["stratify"].format_help()


def test_design_help_defaults_match_the_scenario():
    """The design flags default to the Scenario's fields (their help says which)."""
    from dataclasses import fields

    from labelvar.design._scenario import Scenario

    defaults = {f.name: f.default for f in fields(Scenario)}
    helps = {a.dest: a.help for a in _subparsers()["design"]._actions}
    for key, shown in (("question", "separability"), ("theta", "0.8"), ("power", "0.8"),
                       ("tie_rule", "random"), ("baseline", "random"), ("test", "paired"),
                       ("metric", "accuracy"), ("error_correlation", "0"),
                       ("cost_per_item", "0"), ("cost_per_annotation", "1")):
        assert f"default {shown}" in helps[key], key
        assert float(defaults[key]) == float(shown) if isinstance(defaults[key], float) \
            else str(defaults[key]) == shown, key


def test_sweep_help_lists_only_sweep_groups(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["sweep", "--help"]) == 0
    out = capsys.readouterr().out
    groups = out.split("== Configuration groups ==")[1].split("== Config ==")[0]
    assert "experiment: figure1" in groups and "model: coin" in groups
    assert "design" not in groups
    assert not list(tmp_path.iterdir())


def test_shell_completion_names_labelvar(capsys, monkeypatch):
    assert cli.main(["-sc", "install=bash"]) == 0
    out = capsys.readouterr().out
    assert "labelvar-sweep" not in out
    assert out.rstrip().endswith("-F hydra_bash_completion labelvar")
    assert cli.main(["sweep", "--hydra-help"]) == 0
    out = capsys.readouterr().out
    assert 'eval "$(labelvar -sc install=bash)"' in out and "labelvar-sweep" not in out
    monkeypatch.setenv("COMP_LINE", "labelvar sweep experiment=")
    assert cli.main(["-sc", "query=bash"]) == 0
    assert "experiment=table1" in capsys.readouterr().out.split()
    monkeypatch.setenv("COMP_LINE", "labelvar sweep grid.p_")
    assert cli.main(["-sc", "query=bash"]) == 0
    assert [w.rstrip(".") for w in capsys.readouterr().out.split()] == ["grid.p_d"]
    monkeypatch.setenv("COMP_LINE", "labelvar st")
    assert cli.main(["-sc", "query=bash"]) == 0
    assert capsys.readouterr().out.split() == ["stratify"]
    monkeypatch.setenv("COMP_LINE", "labelvar r")  # every subcommand, read from the parser
    assert cli.main(["-sc", "query=bash"]) == 0
    assert capsys.readouterr().out.split() == ["raters", "readers"]
    monkeypatch.setenv("COMP_LINE", "labelvar design --pi")
    assert cli.main(["-sc", "query=bash"]) == 0
    assert capsys.readouterr().out.strip() == ""  # the shell's default (file names)
    assert os.environ["COMP_LINE"] == "labelvar design --pi"


# --------------------------------------------------------------------------- file modes
def test_design_and_sweep_files_follow_the_umask(tmp_path, capsys):
    old = os.umask(0o022)
    try:
        code = cli.main(["design", "--config", "separability", "--replicates", "0",
                         "--panel-sizes", "1,3", "--out", str(tmp_path / "design")])
        assert code == 0, capsys.readouterr().err
        from labelvar.sweep._config import SweepConfig

        cfg = SweepConfig()
        cfg.grid.p_d, cfg.grid.n_items, cfg.replicates = [0.6, 0.9], [20], 50
        cfg.output.figure_formats, cfg.quiet = ["png"], True
        sweep.run_job(cfg, tmp_path / "sweep")
    finally:
        os.umask(old)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.suffix == ".png" for p in files) and any(p.name == "scenario.json"
                                                          for p in files)
    modes = {str(p.relative_to(tmp_path)): oct(stat.S_IMODE(p.stat().st_mode)) for p in files}
    assert set(modes.values()) == {"0o644"}, modes
