"""Shared fixtures: real git repositories in temp dirs holding real tiny pipelines."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PIPELINES = ROOT / "tests" / "data" / "pipelines"
GIT_ID = ["-c", "user.name=test", "-c", "user.email=test@example.invalid"]


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` and return stdout (raise on failure)."""
    return subprocess.run(["git", *GIT_ID, *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def make_repo(root: Path, pipeline: str = "tiny", subdir: str = "") -> Path:
    """Create a git repo at ``root`` with ``pipeline`` copied into ``subdir``; return the target folder."""
    target = root / subdir if subdir else root
    shutil.copytree(PIPELINES / pipeline, target, ignore=shutil.ignore_patterns("__pycache__"))
    (root / ".gitignore").write_text("__pycache__/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return target


def hot(name: str, file: str, line: int):
    """Profile facts naming ``name`` (``file``:``line``) as the hot function, for a codemod's context."""
    from perfloop.contracts.code import FunctionRef
    from perfloop.tools.change.codemods import ProfileFacts

    return ProfileFacts(hot_function=FunctionRef(name=name, file=file, line=line))


def user_view(repo: Path) -> tuple[str, str, str]:
    """What the user sees: HEAD, checked-out branch, and `git status --porcelain`."""
    return (git(repo, "rev-parse", "HEAD").strip(), git(repo, "branch", "--show-current").strip(),
            git(repo, "status", "--porcelain", "--untracked-files=all"))


@pytest.fixture(scope="session", autouse=True)
def _session_state(tmp_path_factory):
    """Keep module-scoped runs (set up before any per-test fixture) out of the real per-user state too."""
    import os

    os.environ["PERFLOOP_HOME"] = str(tmp_path_factory.mktemp("perfloop-home"))


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path, monkeypatch):
    """Keep perfloop's per-user run index inside the test's temp dir."""
    monkeypatch.setenv("PERFLOOP_HOME", str(tmp_path / "perfloop-home"))


@pytest.fixture
def tiny_repo(tmp_path) -> Path:
    """A committed repo whose root holds the tiny data-bound pipeline."""
    return make_repo(tmp_path / "repo")


def perfloop(*args: str, cwd: Path | None = None, stdin: str = "", timeout: float = 600,
             env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the real CLI in a subprocess."""
    return subprocess.run([sys.executable, "-m", "perfloop.agent.cli", *args], cwd=cwd or ROOT, input=stdin,
                          capture_output=True, text=True, timeout=timeout, env=env)
