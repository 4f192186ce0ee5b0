"""Find targets, read their contract and expectations, and make the git checkouts the harness measures."""
from __future__ import annotations

import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from perfloop.evals import copy_target as bundled

GIT_IDENTITY = ["-c", "user.name=perfloop-evals", "-c", "user.email=evals@perfloop.invalid"]


@dataclass(frozen=True)
class Expected:
    """What a target's expected.toml says the agent should find (all optional)."""

    diagnosis: str | None = None
    also_acceptable: tuple[str, ...] = ()
    oracle_data: str | None = None  # identical | within_tolerance | changed: what the oracle does to the data
    raw: dict = field(default_factory=dict)  # the whole file, copied into the results as is


@dataclass(frozen=True)
class Contract:
    """How to run a target: its [tool.perfloop] command and config."""

    command: str
    config: str | None


def git(repo: Path, *args: str, stdin: str | None = None) -> str:
    """Run git in ``repo``; return stdout, raise RuntimeError with git's message on failure."""
    done = subprocess.run(["git", *GIT_IDENTITY, *args], cwd=repo, capture_output=True, text=True, input=stdin)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {repo}: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def target_names(targets_dir: Path) -> list[str]:
    """List the targets under ``targets_dir`` (folders holding a perfloop.toml)."""
    return bundled.target_names(targets_dir)


def copy_target(targets_dir: Path, name: str, dest: Path, with_oracle: bool = False) -> Path:
    """Copy target ``name`` from ``targets_dir`` into a new git repo at ``dest``; optionally commit the oracle."""
    return bundled.copy_target(name, dest, with_oracle, targets_dir=targets_dir)


def has_oracle(targets_dir: Path, name: str) -> bool:
    """Say whether target ``name`` ships an oracle.patch."""
    return (Path(targets_dir) / name / "oracle.patch").exists()


def read_contract(target_dir: Path) -> Contract:
    """Read command and config from the target's perfloop.toml ([tool.perfloop] or top level)."""
    path = Path(target_dir) / "perfloop.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    table = data.get("tool", {}).get("perfloop", data)
    if "command" not in table:
        raise ValueError(f"{path} has no command in [tool.perfloop]; add e.g. command = \"python train.py\"")
    return Contract(command=table["command"], config=table.get("config"))


def read_expected(targets_dir: Path, name: str) -> Expected:
    """Read target ``name``'s expected.toml; an absent file expects nothing."""
    path = Path(targets_dir) / name / "expected.toml"
    if not path.exists():
        return Expected()
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return Expected(diagnosis=data.get("diagnosis") or None, also_acceptable=tuple(data.get("also_acceptable", ())),
                    oracle_data=data.get("oracle_data"), raw=data)


def checkout(repo: Path, commit: str, dest: Path) -> Path:
    """Check ``commit`` of ``repo`` out into a new detached worktree at ``dest``."""
    git(repo, "worktree", "add", "-q", "--detach", str(dest), commit)
    return dest
