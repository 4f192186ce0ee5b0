"""The target contract: where it is read from, and the errors for bad input."""
from __future__ import annotations

import pytest

from perfloop.tools.contract.target import TargetError, load_target
from tests.conftest import git, make_repo


def test_reads_perfloop_toml_and_renders_command(tiny_repo):
    target = load_target(tiny_repo)
    assert target.command == "python train.py --config {config}"
    assert target.rendered_command() == "python train.py --config configs/train.yaml"
    assert (target.steps, target.warmup_steps, target.contract_file) == (20, 4, "perfloop.toml")
    assert target.subdir == ""


def test_pyproject_table_and_cli_overrides(tmp_path):
    target_dir = make_repo(tmp_path / "repo")
    (target_dir / "perfloop.toml").unlink()
    (target_dir / "pyproject.toml").write_text('[tool.perfloop]\ncommand = "python train.py --config {config}"\n'
                                               'config = "configs/train.yaml"\nsteps = 12\n')
    git(target_dir, "add", "-A")
    git(target_dir, "commit", "-qm", "pyproject")
    target = load_target(target_dir, cmd="python other.py {config}", overrides={"steps": 9, "warmup_steps": None})
    assert target.contract_file == "pyproject.toml"
    assert target.command == "python other.py {config}"
    assert target.steps == 9 and target.warmup_steps == 5


def test_subfolder_target(tmp_path):
    target_dir = make_repo(tmp_path / "mono", subdir="pipelines/audio")
    target = load_target(target_dir)
    assert target.subdir == "pipelines/audio"
    assert target.repo_root == (tmp_path / "mono").resolve()


def test_not_a_git_repo(tmp_path):
    (tmp_path / "plain").mkdir()
    with pytest.raises(TargetError, match="not inside a git repository"):
        load_target(tmp_path / "plain")


def test_repo_without_commits(tmp_path):
    (tmp_path / "fresh").mkdir()
    git(tmp_path / "fresh", "init", "-q")
    with pytest.raises(TargetError, match="no commits"):
        load_target(tmp_path / "fresh")


def test_no_contract_and_no_cmd(tmp_path):
    target_dir = make_repo(tmp_path / "repo")
    git(target_dir, "rm", "-q", "perfloop.toml")
    git(target_dir, "commit", "-qm", "drop contract")
    with pytest.raises(TargetError, match=r"no pipeline command.*--cmd"):
        load_target(target_dir)


def test_missing_config_file(tiny_repo):
    with pytest.raises(TargetError, match=r"configs/nope.yaml does not exist.*--config"):
        load_target(tiny_repo, config="configs/nope.yaml")


def test_uncommitted_config_is_refused(tiny_repo):
    (tiny_repo / "configs" / "local.yaml").write_text("seed: 1\n")
    with pytest.raises(TargetError, match="not committed"):
        load_target(tiny_repo, config="configs/local.yaml")


def test_unknown_key_names_the_file(tiny_repo):
    with open(tiny_repo / "perfloop.toml", "a") as handle:
        handle.write("stesp = 3\n")
    with pytest.raises(TargetError, match=r"unknown key\(s\) \['stesp'\].*perfloop.toml"):
        load_target(tiny_repo)


def test_path_that_is_not_a_folder(tmp_path):
    with pytest.raises(TargetError, match="is not a folder"):
        load_target(tmp_path / "missing")


def test_the_llm_timeout_can_live_in_the_contract(tmp_path):
    target_dir = make_repo(tmp_path / "repo")
    contract = target_dir / "perfloop.toml"
    contract.write_text(contract.read_text() + "llm_timeout_s = 900\n")
    git(target_dir, "commit", "-qam", "a slow local model")
    assert load_target(target_dir).llm_timeout_s == 900
    contract.write_text(contract.read_text().replace("llm_timeout_s = 900", 'llm_timeout_s = "long"'))
    git(target_dir, "commit", "-qam", "not a number")
    with pytest.raises(TargetError, match="llm_timeout_s"):
        load_target(target_dir)
