"""Follow a pipeline run while it runs: a live line on a terminal, one plain line per run elsewhere.

The probe writes ``progress.json`` (steps so far) into the run's folder at most every
0.25 s; a thread here reads it and redraws the line ("timing run 3/6, candidate · step
7/10 · 4.2 s · stage ~12 s left"). The live line is drawn with rich on stderr, only when
stderr is a terminal and ``--json`` was not given. Otherwise (a pipe, a log file, or
``--json``, whose stdout is the summary alone) progress is plain ``perfloop:`` lines on
stderr: one when each run ends, and one every HEARTBEAT_S while a run lasts longer, so a
caller never waits long in silence.
"""
from __future__ import annotations

import json
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from perfloop.agent.ui import console
from perfloop.contracts.layout import PROGRESS_NAME

POLL_S = 0.25
HEARTBEAT_S = 10.0  # without the live line, a run still going says so this often
_KINDS = {"profile": "profiling", "headspace": "headspace", "ab": "timing", "candidate": "smoke", "final": "final check"}


@dataclass
class _Stage:
    """Runs of one stage in a row (the profile's runs, a proposal's timing pairs), for numbering and estimates."""

    kind: str = ""
    count: int = 0
    durations_s: dict[str, list[float]] = field(default_factory=dict)  # per kind, over the whole process


_STAGE = _Stage()


def stage_kind(label: str) -> str:
    """Name the stage a run's label belongs to: 'profiling', 'headspace', 'timing', 'smoke' or 'final check'."""
    return _KINDS.get(label.split("-", 1)[0], label)


def planned_runs(kind: str, count: int, target) -> int | None:
    """Return how many runs the stage will make (it may grow: undecided timing runs more pairs)."""
    if kind == "profiling":
        return 1 + target.noise_runs
    if kind == "timing":
        return 2 * (target.ab_runs if count <= 2 * target.ab_runs else target.max_ab_runs)
    if kind == "final check":
        return 2 * target.ab_runs
    return None


def _read_steps(folder: Path) -> int:
    try:
        return int(json.loads((folder / PROGRESS_NAME).read_text())["steps"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0  # not written yet, or caught mid-replace on a filesystem without atomic rename


class RunProgress:
    """The state of one run's progress line: what it is, how far it got, and what is left."""

    def __init__(self, title: str, kind: str, folder: Path, max_steps: int, runs_left: int) -> None:
        self.title, self.kind, self.folder, self.max_steps, self.runs_left = title, kind, folder, max_steps, runs_left
        self.started = time.monotonic()
        self.steps = 0

    def line(self) -> str:
        """Say where the run is: its name, steps so far, elapsed time and the stage's estimate."""
        self.steps = _read_steps(self.folder)
        elapsed = time.monotonic() - self.started
        parts = [self.title, f"step {self.steps}/{self.max_steps}", f"{elapsed:.1f} s"]
        left = self.left_s(elapsed)
        if left is not None:
            parts.append(f"stage ~{left:.0f} s left")
        return " · ".join(parts)

    def still_running(self) -> str:
        """Say, in one plain line, that the run is still going and how far it got."""
        self.steps = _read_steps(self.folder)
        elapsed = time.monotonic() - self.started
        left = self.left_s(elapsed)
        estimate = f", stage ~{left:.0f} s left" if left is not None else ""
        return f"{self.title}: still running, step {self.steps}/{self.max_steps} after {elapsed:.0f} s{estimate}"

    def left_s(self, elapsed: float) -> float | None:
        """Estimate the seconds left in the stage from earlier runs of its kind (else this run's pace)."""
        earlier = _STAGE.durations_s.get(self.kind, [])
        if earlier:
            per_run = sum(earlier) / len(earlier)
        elif self.steps >= 2:
            per_run = elapsed / self.steps * self.max_steps  # start-up folded into the pace: a rough first guess
        else:
            return None
        return max(0.0, per_run - elapsed) + per_run * self.runs_left


def live_allowed() -> bool:
    """Draw a live line only on a terminal, and never under --json."""
    return sys.stderr.isatty() and not console.json_mode()


@contextmanager
def run_progress(label: str, role: str, folder: Path, target, max_steps: int):
    """Show the progress of the pipeline run writing into ``folder`` while the block runs."""
    kind = stage_kind(label)
    if kind != _STAGE.kind:
        _STAGE.kind, _STAGE.count = kind, 0
    _STAGE.count += 1
    planned = planned_runs(kind, _STAGE.count, target)
    title = f"{kind} run {_STAGE.count}/{planned}" if planned else f"{kind} run"
    shown = "full" if label.endswith("-full") else role  # the profile's one run with stage timers and sampler
    title += f", {shown}" if shown and shown != kind else ""
    progress = RunProgress(title, kind, folder, max_steps, max(0, (planned or 0) - _STAGE.count))
    ok = False
    try:
        with _live(progress) if live_allowed() else _heartbeat(progress):
            yield progress
        ok = True
    finally:
        elapsed = time.monotonic() - progress.started
        if ok:
            _STAGE.durations_s.setdefault(kind, []).append(elapsed)
        progress.steps = _read_steps(folder)
        console.say(f"{title}: {progress.steps} steps in {elapsed:.1f} s" + ("" if ok else " (failed)"))


@contextmanager
def _heartbeat(progress: RunProgress):
    """Say ``progress.still_running()`` on stderr every HEARTBEAT_S until the block ends."""
    done = threading.Event()

    def beat() -> None:
        while not done.wait(HEARTBEAT_S):
            console.say(progress.still_running())

    thread = threading.Thread(target=beat, name="perfloop-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


@contextmanager
def _live(progress: RunProgress):
    """Redraw ``progress``'s line every POLL_S on stderr with rich until the block ends."""
    from rich.console import Console
    from rich.live import Live
    from rich.text import Text

    done = threading.Event()
    with Live(Text(progress.line()), console=Console(stderr=True), transient=True, auto_refresh=False) as live:
        def redraw() -> None:
            while not done.wait(POLL_S):
                live.update(Text(progress.line()), refresh=True)

        thread = threading.Thread(target=redraw, name="perfloop-progress", daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()
