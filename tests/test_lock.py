"""One run per repository at a time: real processes holding, losing and taking over the lock."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from perfloop.sandbox.lock import RunLock, RunLocked, current_holder, lock_path
from tests.conftest import ROOT, git


@pytest.fixture
def repo(tmp_path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "a.txt").write_text("a\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    return root


def hold_lock(repo: Path, run_id: str) -> subprocess.Popen:
    """Start a process that takes the lock as `run_id`, says so on stdout, and sleeps."""
    code = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from perfloop.sandbox.lock import RunLock
        lock = RunLock(Path({str(repo)!r}), {run_id!r})
        lock.acquire()
        print("held", flush=True)
        time.sleep(300)
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_second_run_is_refused_with_the_running_runs_name(repo):
    holder = hold_lock(repo, "20261201-060000-aaaa")
    try:
        with pytest.raises(RunLocked) as refused:
            RunLock(repo, "20261201-060500-bbbb").acquire()
        message = str(refused.value)
        assert "20261201-060000-aaaa is already running" in message
        assert f"pid {holder.pid}" in message and "perfloop resume 20261201-060000-aaaa" in message
        assert current_holder(repo)["run_id"] == "20261201-060000-aaaa"
    finally:
        holder.kill()
        holder.wait()


def test_lock_of_a_killed_run_is_taken_over(repo):
    holder = hold_lock(repo, "20261201-060000-dead")
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    assert lock_path(repo).read_text()  # the dead run's record is still in the file
    assert current_holder(repo) is None  # but the kernel dropped its flock
    lock = RunLock(repo, "20261201-061000-next")
    previous = lock.acquire()
    try:
        assert previous["run_id"] == "20261201-060000-dead" and previous["pid"] == holder.pid
        assert current_holder(repo)["run_id"] == "20261201-061000-next"
    finally:
        lock.release()
    assert current_holder(repo) is None


def test_lock_is_shared_by_worktrees_and_not_reentrant(repo, tmp_path):
    git(repo, "worktree", "add", "-q", "--detach", str(tmp_path / "wt"))
    assert lock_path(tmp_path / "wt") == lock_path(repo)
    assert lock_path(repo).parent == (repo / ".git" / "perfloop").resolve()
    with RunLock(repo, "r1"):
        with pytest.raises(RunLocked, match="r1 is already running"):
            RunLock(tmp_path / "wt", "r2").acquire()
    with RunLock(tmp_path / "wt", "r2") as lock:
        assert lock.took_over is None  # released cleanly: nothing to take over


def test_pipelines_do_not_inherit_the_lock(repo, tmp_path):
    # A child left running must not keep the lock alive, even one started without close_fds.
    with RunLock(repo, "r1"):
        child = subprocess.Popen(["sleep", "30"], close_fds=False)
    try:
        assert current_holder(repo) is None
    finally:
        child.kill()
        child.wait()


def test_the_lock_record_keeps_no_url_credentials(repo, monkeypatch):
    """The holder's argv lands in .git/perfloop/run.lock, which outlives a SIGKILLed run."""
    monkeypatch.setattr(sys, "argv", ["perfloop", "run", ".", "--llm-base-url", "http://alice:hunter2@h:8/v1"])
    with RunLock(repo, "20261201-060000-cccc"):
        text = lock_path(repo).read_text()
        assert current_holder(repo)["argv"][-1] == "http://***@h:8/v1"
    assert "hunter2" not in text
