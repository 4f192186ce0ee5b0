"""Find a run's state folder by id: the per-user index (kept under a lock), the current repo, or a path."""
from __future__ import annotations

import fcntl
import json
import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from perfloop.sandbox.errors import BadInput
from perfloop.tools.measure.folder import ProbeFolder


class RunFolder:
    """Where one run keeps its things (in the repository's git dir, never the working tree), by name."""

    AUDIT_LOG = "audit.jsonl"
    CHECKPOINTS = "checkpoints.sqlite"
    SUMMARY = "summary.json"
    PROFILE = "profile.json"
    ISOLATION = "isolation.json"
    REPORT = "report.html"

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)

    def __fspath__(self) -> str:
        return str(self.path)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunFolder) and other.path == self.path

    def __hash__(self) -> int:
        return hash(self.path)

    def __repr__(self) -> str:
        return f"RunFolder({str(self.path)!r})"

    @property
    def audit_log(self) -> Path:
        """The hash-chained audit log."""
        return self.path / self.AUDIT_LOG

    @property
    def checkpoints(self) -> Path:
        """LangGraph's SQLite checkpoints (what `perfloop resume` continues from)."""
        return self.path / self.CHECKPOINTS

    @property
    def summary(self) -> Path:
        """The --json summary of a finished run."""
        return self.path / self.SUMMARY

    @property
    def profile_summary(self) -> Path:
        """What `perfloop profile` found (a run that only profiled)."""
        return self.path / self.PROFILE

    @property
    def isolation(self) -> Path:
        """The weakest isolation the sandbox reported over the run's pipeline runs."""
        return self.path / self.ISOLATION

    @property
    def report(self) -> Path:
        return self.path / self.REPORT

    def probe(self, number: int, label: str) -> ProbeFolder:
        """The folder of the run's pipeline run ``number`` (e.g. ``007-ab-candidate``)."""
        return ProbeFolder(self.path / "probe" / f"{number:03d}-{label}")


def state_home() -> Path:
    """Return perfloop's per-user state folder ($PERFLOOP_HOME, else $XDG_STATE_HOME/perfloop)."""
    if os.environ.get("PERFLOOP_HOME"):
        return Path(os.environ["PERFLOOP_HOME"])
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "perfloop"


def new_run_id() -> str:
    """Return a sortable, unique run id such as 20261130-141502-3fa2."""
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:4]}"


@contextmanager
def _index_locked(home: Path) -> Iterator[None]:
    """Hold the run index's lock file (an exclusive ``flock``; the kernel drops it if the holder dies)."""
    home.mkdir(parents=True, exist_ok=True)
    with open(home / "runs.json.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def register_run(run_id: str, state_dir: Path) -> None:
    """Remember where a run keeps its things, so `perfloop log RUN` works from anywhere.

    Read, change and rewrite happen under the index's lock, so runs started at once (two repositories,
    two terminals) each keep their entry; readers need no lock, since the file is replaced whole.
    """
    home = state_home()
    index_path = home / "runs.json"
    with _index_locked(home):
        index = json.loads(index_path.read_text()) if index_path.exists() else {}
        index[run_id] = str(state_dir)
        tmp = index_path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(index, indent=1))
        os.replace(tmp, index_path)


def find_run(ref: str) -> Path:
    """Resolve a run id or a run folder path to its state folder; BadInput says where it looked."""
    path = Path(ref).expanduser()
    if (path / "audit.jsonl").exists():
        return path.resolve()
    if path.name == "audit.jsonl" and path.exists():
        return path.parent.resolve()
    index_path = state_home() / "runs.json"
    index = json.loads(index_path.read_text()) if index_path.exists() else {}
    if ref in index and Path(index[ref]).is_dir():
        return Path(index[ref])
    from perfloop.sandbox.git import find_repo

    repo = find_repo(Path.cwd())
    if repo is not None:
        local = repo.common_dir / "perfloop" / "runs" / ref
        if local.is_dir():
            return local
    recent = ", ".join(sorted(index)[-5:]) or "none recorded"
    raise BadInput(f"no run {ref!r} found (looked in {index_path} and this repo's .git/perfloop/runs). "
                     f"Recent runs: {recent}. Pass a run id or the run's folder.")
