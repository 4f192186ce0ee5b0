"""Fuzz the front door: malformed contracts, configs, commands and pipelines end with exit 2
(bad input) or 3 (the pipeline failed) and a message naming the file or value, never a
traceback of perfloop's own, and the user's repository is left exactly as it was."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from perfloop.tools.contract.target import MAX_CONFIG_BYTES, MAX_CONTRACT_BYTES, TargetError, load_target
from tests.conftest import git, make_repo, perfloop, user_view

GOOD_CONTRACT = ('[tool.perfloop]\ncommand = "python train.py --config {config}"\n'
                 'config = "configs/train.yaml"\nsteps = 4\nwarmup_steps = 1\nnoise_runs = 1\ntimeout_s = 60\n')

# Values of the wrong type for each contract key, as TOML literals: generated per kind.
WRONG = {
    "string": ["5", "[1, 2]", "{ a = 1 }", "true"],
    "list": ['"**/*.py"', "[1, 2]", "3", "{ a = 1 }"],
    "whole": ['"ten"', "1.5", "true", "[]", "nan"],
    "number": ['"fast"', "true", "nan", "inf", "-inf", "[1]"],
    "bool": ['"yes"', "1", "[]"],
}
KIND_OF = {"command": "string", "config": "string", "editable": "list", "inputs": "list", "network": "bool",
           "steps": "whole", "warmup_steps": "whole", "memory_mb": "whole", "noise_runs": "whole",
           "ab_runs": "whole", "max_ab_runs": "whole", "timeout_s": "number", "min_gain_pct": "number"}
OUT_OF_RANGE = [("steps", "1"), ("steps", "-3"), ("warmup_steps", "-1"), ("timeout_s", "0"),
                ("timeout_s", "-5.0"), ("memory_mb", "0"), ("noise_runs", "0"), ("ab_runs", "0"),
                ("min_gain_pct", "-1.0")]


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    return make_repo(tmp_path_factory.mktemp("front") / "repo")


def with_value(key: str, literal: str) -> str:
    lines = [line for line in GOOD_CONTRACT.splitlines() if not line.startswith(f"{key} =")]
    return "\n".join(lines + [f"{key} = {literal}"]) + "\n"


@pytest.mark.parametrize("key, literal", [(key, literal) for key, kind in KIND_OF.items() for literal in WRONG[kind]]
                         + OUT_OF_RANGE)
def test_every_contract_key_refuses_wrong_values_by_name(repo, key, literal):
    (repo / "perfloop.toml").write_text(with_value(key, literal))
    try:
        with pytest.raises(TargetError) as refused:
            load_target(repo)
    finally:
        git(repo, "checkout", "--", "perfloop.toml")
    message = str(refused.value)
    assert f"`{key}`" in message, message
    assert "\n" not in message.strip()


def commit_all(repo: Path) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", "fuzz case")


def write(repo: Path, name: str, content: str | bytes) -> None:
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content if isinstance(content, bytes) else content.encode())


HANG = "import time\ntime.sleep(600)\n"
GARBAGE = "import os, sys\nsys.stdout.buffer.write(os.urandom(3000))\nsys.stderr.buffer.write(os.urandom(3000))\n"


def case_files(case: str, repo: Path) -> tuple[list[str], int, str]:
    """Damage `repo` for `case`; return (extra CLI args, expected exit code, expected text in stderr)."""
    if case == "contract_bad_toml":
        write(repo, "perfloop.toml", '[tool.perfloop]\ncommand = "python train.py\n[[[')
        return [], 2, "perfloop.toml is not valid TOML"
    if case == "contract_not_utf8":
        write(repo, "perfloop.toml", b'[tool.perfloop]\ncommand = "python \xff\xfe train.py"\n')
        return [], 2, "perfloop.toml is not UTF-8 text"
    if case == "contract_huge":
        write(repo, "perfloop.toml", GOOD_CONTRACT + "# padding\n" * (MAX_CONTRACT_BYTES // 10 + 1))
        return [], 2, "perfloop.toml is 1.0 MiB"
    if case == "contract_wrong_type":
        write(repo, "perfloop.toml", with_value("command", "5"))
        return [], 2, "`command` in [tool.perfloop] of"
    if case == "contract_not_a_table":
        os.unlink(repo / "perfloop.toml")
        write(repo, "pyproject.toml", "[tool]\nperfloop = 3\n")
        return [], 2, "[tool.perfloop] in"
    if case == "contract_nul_in_command":
        write(repo, "perfloop.toml", with_value("command", '"python\\u0000 train.py"'))
        return [], 2, "NUL byte"
    if case == "config_bad_yaml":
        write(repo, "configs/train.yaml", "data: [unclosed\n  seed: 1\n")
        return [], 2, "configs/train.yaml is not valid YAML"
    if case == "config_not_utf8":
        write(repo, "configs/train.yaml", b"seed: 1\nname: \xc3\x28\n")
        return [], 2, "configs/train.yaml is not UTF-8 text"
    if case == "config_huge":
        write(repo, "configs/train.yaml", "# pad\n" * (MAX_CONFIG_BYTES // 6 + 1))
        return [], 2, "configs/train.yaml is 16.0 MiB"
    if case == "config_bad_json":
        write(repo, "configs/train.json", '{"seed": 1,')
        return ["--config", "configs/train.json"], 2, "configs/train.json is not valid JSON"
    if case == "config_bad_toml":
        write(repo, "configs/train.toml", "seed = \n")
        return ["--config", "configs/train.toml"], 2, "configs/train.toml is not valid TOML"
    if case == "config_wrong_types":
        text = (repo / "configs/train.yaml").read_text().replace("num_workers: 0", "num_workers: two")
        assert "num_workers: two" in text
        write(repo, "configs/train.yaml", text)
        return [], 3, "num_workers"
    if case == "flag_out_of_range":
        return ["--steps", "1"], 2, "`steps`"
    if case == "cmd_missing_interpreter":
        return ["--cmd", "nosuchpython3 train.py --config {config}"], 3, "nosuchpython3"
    if case == "cmd_shell_syntax_error":
        return ["--cmd", "python train.py --config {config} && ("], 3, "exit code 2"
    if case == "pipeline_binary_garbage":
        write(repo, "garbage.py", GARBAGE + "sys.exit(1)\n")
        return ["--cmd", "python garbage.py"], 3, "`python garbage.py` failed with exit code 1"
    if case == "pipeline_garbage_without_torch":
        write(repo, "garbage.py", GARBAGE)
        return ["--cmd", "python garbage.py"], 3, "`python garbage.py` ran only 0 DataLoader steps"
    if case == "pipeline_hangs_before_torch":
        write(repo, "hang.py", HANG)
        write(repo, "perfloop.toml", with_value("timeout_s", "3").replace(
            "python train.py --config {config}", "python hang.py"))
        return [], 3, "ran past its time limit"
    raise AssertionError(case)


CASES = ["contract_bad_toml", "contract_not_utf8", "contract_huge", "contract_wrong_type", "contract_not_a_table",
         "contract_nul_in_command", "config_bad_yaml", "config_not_utf8", "config_huge", "config_bad_json",
         "config_bad_toml", "config_wrong_types", "flag_out_of_range", "cmd_missing_interpreter",
         "cmd_shell_syntax_error", "pipeline_binary_garbage", "pipeline_garbage_without_torch",
         "pipeline_hangs_before_torch"]


@pytest.mark.parametrize("case", CASES)
def test_front_door_fault_ends_with_a_named_cause(tmp_path, case):
    repo = make_repo(tmp_path / "repo")
    write(repo, "perfloop.toml", GOOD_CONTRACT)
    commit_all(repo)
    args, code, expected = case_files(case, repo)
    commit_all(repo)
    before = user_view(repo)
    done = perfloop("run", str(repo), "--auto-approve", "--json", *args, timeout=300)
    assert done.returncode == code, done.stderr[-3000:]
    assert expected in done.stderr, done.stderr[-3000:]
    # The pipeline's own traceback may be quoted after "stderr tail:"; perfloop's never.
    own = done.stderr.split("stderr tail:")[0]
    assert "Traceback" not in own, done.stderr[-3000:]
    assert done.stdout.strip() == ""
    assert user_view(repo) == before
    assert "perfloop/" not in git(repo, "branch", "--list")
