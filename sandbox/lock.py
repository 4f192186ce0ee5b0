"""One perfloop run per repository at a time: an flock under ``<git dir>/perfloop/``.

Two runs on one repository would skew each other's timings and race on its
branches, so the second one stops with a message naming the first. The lock is a
``flock`` on ``<git common dir>/perfloop/run.lock``: the kernel drops it when its
holder dies, however it dies, so a lock left by a dead process is never in the way
(no pid guessing; a reused pid cannot fool it). The file also holds who took it
(run id, pid, start time, command line), for the message and for the record of a
takeover. The descriptor is close-on-exec, so no pipeline or git child inherits it.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import socket
import sys
import time
from pathlib import Path

from perfloop.sandbox.errors import BadInput
from perfloop.sandbox.git import find_repo

LOCK_NAME = "run.lock"
_URL_CREDENTIALS = re.compile(r"(\w[\w+.-]*://)[^/@\s]*@")


class RunLocked(BadInput):
    """Another live perfloop run holds the repository; the message names it and what to do."""

    def __init__(self, message: str, holder: dict) -> None:
        super().__init__(message)
        self.holder = holder
        """What the running run recorded: run_id, pid, host, started_at, argv."""


class RunLock:
    """Hold the repository's run lock for as long as one `perfloop run`/`resume` lives.

    Use as a context manager, or acquire()/release(). Not re-entrant: a second
    RunLock on the same repository fails even in the same process.
    """

    def __init__(self, repo_root: Path, run_id: str) -> None:
        self.repo_root = Path(repo_root)
        self.run_id = run_id
        self.path = lock_path(self.repo_root)
        self._fd: int | None = None
        self.took_over: dict | None = None
        """What the previous holder recorded when it died holding the lock (None if none)."""

    def acquire(self) -> dict | None:
        """Take the lock or raise RunLocked; return the dead previous holder's record, if any."""
        assert self._fd is None, "RunLock acquired twice"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            holder = _read(fd)
            os.close(fd)
            if error.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise
            raise RunLocked(_busy_message(self.repo_root, holder), holder) from None
        previous = _read(fd)
        # The kernel released the flock, so whoever wrote `previous` is gone (or closed
        # it without clearing the record: a crash between the two).
        self.took_over = previous or None
        record = {"run_id": self.run_id, "pid": os.getpid(), "host": socket.gethostname(),
                  "started_at": time.time(), "argv": [_without_credentials(arg) for arg in sys.argv]}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(record) + "\n").encode(), 0)
        os.fsync(fd)
        self._fd = fd
        return self.took_over

    def release(self) -> None:
        """Clear the record and drop the lock (harmless when not held)."""
        if self._fd is None:
            return
        try:
            os.ftruncate(self._fd, 0)
        finally:
            os.close(self._fd)  # closing drops the flock
            self._fd = None

    def __enter__(self) -> "RunLock":
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def _without_credentials(arg: str) -> str:
    """Return a command-line word with any URL's user:password@ replaced by ***@ (the record is a file)."""
    return _URL_CREDENTIALS.sub(r"\1***@", arg)


def lock_path(repo_root: Path) -> Path:
    """Return where the run lock of the repository at `repo_root` lives (shared by its worktrees)."""
    repo = find_repo(Path(repo_root))
    if repo is None:
        raise BadInput(f"{repo_root} is not inside a git repository")
    return repo.common_dir / "perfloop" / LOCK_NAME


def current_holder(repo_root: Path) -> dict | None:
    """Return the record of the live run holding the repository, None when it is free."""
    path = lock_path(repo_root)
    if not path.exists():
        return None
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read(fd) or {}
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _read(fd: int) -> dict:
    """Return the record in the lock file, {} when empty or unreadable."""
    try:
        data = os.pread(fd, 65536, 0)
        return json.loads(data) if data.strip() else {}
    except (OSError, ValueError):
        return {}


def _busy_message(repo_root: Path, holder: dict) -> str:
    """Say which run holds `repo_root` and what the user can do."""
    if not holder:
        return (f"another perfloop run is using {repo_root} (it is just starting); wait for it to "
                "finish, then run again")
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(holder.get("started_at", 0)))
    return (f"perfloop run {holder.get('run_id')} is already running on {repo_root} (pid "
            f"{holder.get('pid')} on {holder.get('host')}, since {started}); two runs on one "
            f"repository would skew each other's timings. Wait for it to finish, or stop it "
            f"(Ctrl-C, or `kill {holder.get('pid')}`) and `perfloop resume {holder.get('run_id')}` later.")
