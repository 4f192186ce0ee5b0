"""Load the target contract: ``[tool.perfloop]`` in pyproject.toml or perfloop.toml, CLI flags on top."""
from __future__ import annotations

import ast
import json
import math
import os
import shlex
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from perfloop.contracts.executors import REMEDIES_AT_ONCE_MAX
from perfloop.contracts.interference import INTERFERENCE_ENV, INTERFERENCE_MODES, InterferenceMode
from perfloop.contracts.layout import Defaults
from perfloop.sandbox.errors import BadInput
from perfloop.sandbox.git import find_repo, git_ok
from perfloop.sandbox.runner import RunLimits
from perfloop.tools.contract.runlength import read_run_epochs, read_run_steps

CONTRACT_KEYS = {"command", "config", "editable", "steps", "warmup_steps", "timeout_s", "memory_mb",
                 "network", "inputs", "noise_runs", "ab_runs", "max_ab_runs", "min_gain_pct", "first_step_timeout_s",
                 "busy_reruns", "interference", "llm_timeout_s", "executor", "ray_address",
                 "remedies_at_once"}
MAX_CONTRACT_BYTES = 1 << 20
"""A contract file past this is refused unread: it cannot be a hand-written contract."""
MAX_CONFIG_BYTES = 16 << 20
"""A training config past this is refused unread (perfloop parses and may rewrite it)."""
# What each contract key must hold, as (check, what to say).
_KINDS = {
    "command": (lambda v: isinstance(v, str), "a string"),
    "config": (lambda v: isinstance(v, str), "a string (a path)"),
    "editable": (lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a list of glob strings"),
    "inputs": (lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a list of glob strings"),
    "network": (lambda v: isinstance(v, bool), "true or false"),
    **{key: (lambda v: isinstance(v, int) and not isinstance(v, bool), "a whole number")
       for key in ("steps", "warmup_steps", "memory_mb", "noise_runs", "ab_runs", "max_ab_runs", "busy_reruns",
                   "remedies_at_once")},
    "interference": (lambda v: v in INTERFERENCE_MODES, f"one of {', '.join(INTERFERENCE_MODES)}"),
    "executor": (lambda v: v in ("local", "ray"), "local or ray"),
    "ray_address": (lambda v: isinstance(v, str) and bool(v), "a string: auto, HOST:PORT or ray://HOST:PORT"),
    **{key: (lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v), "a number")
       for key in ("timeout_s", "min_gain_pct", "first_step_timeout_s", "llm_timeout_s")},
}


def _default_interference() -> str:
    value = os.environ.get(INTERFERENCE_ENV, "rerun")
    if value not in INTERFERENCE_MODES:
        raise TargetError(f"{INTERFERENCE_ENV}={value!r} is not one of {', '.join(INTERFERENCE_MODES)}.")
    return value


class TargetError(BadInput):
    """The target folder or its contract is unusable; the message says what to fix."""


class Target(BaseModel):
    """A pipeline perfloop may change, and how to run it."""

    repo_root: Path = Field(description="Top of the git repository holding the target.")
    target_dir: Path = Field(description="The target folder in the user's tree (absolute).")
    subdir: str = Field(description="target_dir relative to repo_root, '' at the top.")
    command: str = Field(description="Command template; {config} is replaced by the config path.")
    config: str | None = Field(None, description="Training config path, relative to target_dir.")
    editable: list[str] = Field(description="Globs (relative to target_dir) of files patches may touch.")
    inputs: list[str] | None = Field(None, description="Globs of ignored input files to link into worktrees.")
    steps: int = Field(30, ge=2, description="Steady-state steps measured per run.")
    warmup_steps: int = Field(5, ge=0, description="Steps run before measuring.")
    timeout_s: float = Field(RunLimits.model_fields["timeout_s"].default, gt=0, allow_inf_nan=False,
                             description="Wall-clock limit of one pipeline run.")
    memory_mb: int = Field(RunLimits.model_fields["memory_mb"].default, ge=64,
                           description="Memory limit of one pipeline run's process tree.")
    network: bool = Field(False, description="Let the pipeline use the network.")
    noise_runs: int = Field(3, ge=1, description="Light runs of the unchanged pipeline per profile (noise floor).")
    ab_runs: int = Field(3, ge=1, description="Interleaved runs per side when verifying a candidate.")
    max_ab_runs: int = Field(6, ge=1, description="Runs per side while the speed verdict is still undecided.")
    min_gain_pct: float = Field(5.0, ge=0, allow_inf_nan=False,
                                description="Smallest speed-up worth a commit, whatever the noise.")
    busy_reruns: int = Field(4, ge=0, description="Most contaminated pairs (and profile runs) re-run per "
                                                  "decision while the machine is busy.")
    interference: InterferenceMode = Field(default_factory=_default_interference,
                                           description="rerun: contaminated runs are left out and run again "
                                                       "(default); report: measured and reported, kept in the "
                                                       "decision.")
    first_step_timeout_s: float = Field(Defaults.FIRST_STEP_TIMEOUT_S, gt=0, allow_inf_nan=False,
                                        description="Stop a run that reached no training step in this long.")
    llm_timeout_s: float | None = Field(None, gt=0, allow_inf_nan=False,
                                        description="Seconds one LLM request may take (a slow local model needs "
                                                    "minutes); --llm-timeout overrides it; None: Settings' default.")
    executor: Literal["local", "ray"] | None = Field(None, description="Where verification blocks run; "
                                                     "--executor overrides it; None: Settings' default (local).")
    ray_address: str | None = Field(None, description="The Ray cluster for executor ray; --ray-address overrides it.")
    remedies_at_once: int | None = Field(None, ge=1, le=REMEDIES_AT_ONCE_MAX,
                                         description="Remedies verified side by side at one head (executor ray, "
                                                     "--auto-approve); --remedies-at-once overrides it; None: "
                                                     "REMEDIES_AT_ONCE_ON_CLUSTER there, else 1.")
    contract_file: str = Field(description="Where the contract came from ('cli' when only flags).")
    run_steps: int | None = Field(None, ge=1, description="Optimizer steps of a whole training run, read by "
                                  "perfloop.tools.contract.runlength from the command, config, trainer calls or flag defaults; "
                                  "None when unknown.")
    run_epochs: int | None = Field(None, ge=1, description="Epochs of a whole run where the sources give epochs but "
                                   "no step count (the dataset's size is not in the config); LoopState.run_steps "
                                   "multiplies them by the batches of an epoch the probe measured. None otherwise.")

    def model_post_init(self, _context) -> None:
        # The ceiling of an undecided comparison can never be below its minimum.
        self.max_ab_runs = max(self.max_ab_runs, self.ab_runs)

    @property
    def rerun_contaminated(self) -> bool:
        """Whether runs the machine's other work disturbed are left out and run again (interference = rerun)."""
        return self.interference == "rerun"

    def rendered_command(self) -> str:
        """Return the command with {config} filled in, ready for /bin/sh."""
        if "{config}" in self.command:
            return self.command.replace("{config}", shlex.quote(self.config or ""))
        return self.command


def _read_contract(target_dir: Path) -> tuple[dict, str]:
    for name, table_path in (("pyproject.toml", ("tool", "perfloop")), ("perfloop.toml", ("tool", "perfloop"))):
        path = target_dir / name
        if not path.exists():
            continue
        try:
            data = tomllib.loads(_read_text(path, MAX_CONTRACT_BYTES, "contract"))
        except tomllib.TOMLDecodeError as error:
            raise TargetError(f"{path} is not valid TOML: {error}. Fix the file and run again.") from None
        table = data
        for key in table_path:
            table = table.get(key, {}) if isinstance(table, dict) else {}
        if not isinstance(table, dict):
            raise TargetError(f"[tool.perfloop] in {path} must be a table of settings, not "
                              f"{type(table).__name__} {str(table)[:60]!r}. Write it as a [tool.perfloop] section.")
        if not table and name == "perfloop.toml":
            table = {k: v for k, v in data.items() if k in CONTRACT_KEYS}
        if table:
            return table, name
    return {}, "cli"


def _read_text(path: Path, limit: int, what: str) -> str:
    """Return the UTF-8 text of `path`; TargetError naming it when unreadable, too big or not UTF-8."""
    try:
        size = path.stat().st_size
        if size > limit:
            raise TargetError(f"{path} is {size / 2**20:.1f} MiB; a {what} file over {limit >> 20} MiB is "
                              "refused. Point perfloop at the right file.")
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise TargetError(f"{path} is not UTF-8 text (byte {error.start}: {error.object[error.start:error.start + 4]!r}); "
                          "save it as UTF-8 and run again.") from None
    except OSError as error:
        raise TargetError(f"cannot read {path}: {error.strerror}") from None
    return text


def _check_config(path: Path) -> None:
    """Refuse a training config that is too big, not UTF-8, or not valid YAML/JSON/TOML/Python for its extension."""
    text = _read_text(path, MAX_CONFIG_BYTES, "training config")
    suffix = path.suffix.lower()
    try:
        if suffix in (".yaml", ".yml"):
            import yaml

            yaml.safe_load(text)
        elif suffix == ".json":
            json.loads(text)
        elif suffix == ".toml":
            tomllib.loads(text)
        elif suffix == ".py":
            compile(text, str(path), "exec", dont_inherit=True, flags=ast.PyCF_ONLY_AST)
    except SyntaxError as error:
        raise TargetError(f"config file {path} is not valid Python: {_one_line(error)}. "
                          "Fix it (the pipeline exec's it too) and run again.") from None
    except (ValueError, ImportError) as error:  # TOMLDecodeError and JSONDecodeError are ValueErrors
        raise TargetError(f"config file {path} is not valid {suffix[1:].upper()}: {_one_line(error)}. "
                          "Fix it (the pipeline reads it too) and run again.") from None
    except Exception as error:  # yaml.YAMLError has no common base with the above
        if type(error).__module__.split(".")[0] != "yaml":
            raise
        raise TargetError(f"config file {path} is not valid YAML: {_one_line(error)}. "
                          "Fix it (the pipeline reads it too) and run again.") from None


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())[:300]


def _check_kinds(settings: dict, where: str) -> None:
    """Raise TargetError naming the first contract value of the wrong type."""
    for key, value in settings.items():
        check, kind = _KINDS.get(key, (None, ""))
        if check is not None and not check(value):
            raise TargetError(f"`{key}` in {where} must be {kind}, not {type(value).__name__} {str(value)[:60]!r}.")
    command = settings.get("command")
    if isinstance(command, str) and "\0" in command:
        raise TargetError(f"`command` in {where} holds a NUL byte, which no shell command can: {command[:80]!r}.")


def load_target(path: str | Path, config: str | None = None, cmd: str | None = None,
                overrides: dict | None = None) -> Target:
    """Resolve the target at ``path``; raise TargetError with a fix for every bad input."""
    target_dir = Path(path).expanduser().resolve()
    if not target_dir.is_dir():
        raise TargetError(f"{path} is not a folder. Point perfloop at the folder holding your training pipeline.")
    repo = find_repo(target_dir)
    if repo is None:
        raise TargetError(f"{target_dir} is not inside a git repository. perfloop commits each accepted change "
                          "on its own branch: run `git init && git add -A && git commit -m init` there first.")
    repo_root = repo.top
    if not repo.has_head:
        raise TargetError(f"the repository at {repo_root} has no commits yet: commit your pipeline first "
                          "(perfloop works from HEAD).")
    table, source = _read_contract(target_dir)
    unknown = sorted(set(table) - CONTRACT_KEYS)
    if unknown:
        raise TargetError(f"unknown key(s) {unknown} in [tool.perfloop] of {target_dir / source}; "
                          f"known keys: {sorted(CONTRACT_KEYS)}.")
    _check_kinds(table, f"[tool.perfloop] of {target_dir / source}")
    settings = {**table, **{k: v for k, v in (overrides or {}).items() if v is not None}}
    if cmd:
        settings["command"] = cmd
    if config:
        settings["config"] = config
    _check_kinds(settings, "the command-line flags")
    if not settings.get("command"):
        raise TargetError(f"no pipeline command for {target_dir}: add [tool.perfloop] with "
                          "command = \"python train.py --config {config}\" to its pyproject.toml or a "
                          "perfloop.toml, or pass --cmd.")
    config_rel = settings.get("config")
    if "{config}" in settings["command"] and not config_rel:
        raise TargetError(f"the command `{settings['command']}` uses {{config}} but no config is set: "
                          "add config = \"...\" to [tool.perfloop] or pass --config.")
    if config_rel:
        config_path = (target_dir / config_rel).resolve()
        if not config_path.is_file():
            raise TargetError(f"config file {config_path} does not exist (from "
                              f"{'--config' if config else source}). Pass the training config's path "
                              "relative to the target folder.")
        config_rel = str(config_path.relative_to(target_dir)) if config_path.is_relative_to(target_dir) else None
        if config_rel is None:
            raise TargetError(f"config file {config_path} lies outside the target folder {target_dir}; "
                              "perfloop only reads and edits files inside it.")
        if not git_ok("ls-files", "--error-unmatch", str(config_path), cwd=repo_root):
            raise TargetError(f"config file {config_path} is not committed to git; perfloop works on a "
                              "checkout of HEAD, so commit it first.")
        _check_config(config_path)
    editable = settings.get("editable") or ["**/*.py"] + ([config_rel] if config_rel else [])
    subdir = "" if target_dir == repo_root else str(target_dir.relative_to(repo_root))
    fields = {k: settings[k] for k in ("inputs", "steps", "warmup_steps", "timeout_s", "memory_mb", "network",
                                      "noise_runs", "ab_runs", "max_ab_runs", "min_gain_pct",
                                      "first_step_timeout_s", "busy_reruns", "interference", "llm_timeout_s",
                                      "executor", "ray_address", "remedies_at_once")
              if k in settings}
    try:
        return Target(repo_root=repo_root, target_dir=target_dir, subdir=subdir, command=settings["command"],
                      config=config_rel, editable=list(editable), contract_file=source,
                      run_steps=read_run_steps(target_dir, config_rel, settings["command"]),
                      run_epochs=read_run_epochs(target_dir, config_rel, settings["command"]), **fields)
    except ValidationError as error:
        first = error.errors()[0]
        key = ".".join(map(str, first["loc"]))
        raise TargetError(f"bad value for `{key}` ({first.get('input')!r}) in [tool.perfloop] of "
                          f"{target_dir / source} or the flags: {first['msg']}.") from None
