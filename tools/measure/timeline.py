"""Read the probe's timeline (full runs): each step's stage spans and each batch build's place in time."""
from __future__ import annotations

import statistics
from pathlib import Path

from perfloop.tools.measure.models import StageSpan, StepTimeline, WorkerFetch
from perfloop.tools.measure.record import ProbeRecord, Step, worker_fetches


def batch_builds(record: ProbeRecord, out_dir: Path) -> list[dict]:
    """Return every timed batch build of a run as ``{pid, start_wall, fetch_ms}``, workers' and the main process's."""
    builds = [{"pid": fetch.pid, "start_wall": fetch.start_wall, "fetch_ms": fetch.fetch_ms}
              for fetch in worker_fetches(out_dir) if fetch.start_wall is not None]
    for fetch in record.main_fetches:
        if fetch.start_wall is not None:
            builds.append({"pid": record.pid, "start_wall": fetch.start_wall, "fetch_ms": fetch.fetch_ms})
    return builds


def step_timeline(step: Step, builds: list[dict], main_pid: int) -> StepTimeline:
    """Lay out one step with the batch builds that overlap it or the step-long window before it."""
    start = step.start_wall
    window_ms = step.step_ms
    fetches = []
    for build in builds:
        offset_ms = (build["start_wall"] - start) * 1000.0
        if offset_ms < window_ms and offset_ms + build["fetch_ms"] > -window_ms:
            fetches.append(WorkerFetch(pid=build["pid"], start_ms=offset_ms, duration_ms=build["fetch_ms"]))
    return StepTimeline(index=step.index, start_wall=start, step_ms=step.step_ms, main_pid=main_pid,
                        spans=[StageSpan(stage=s, start_ms=o, duration_ms=d) for s, o, d in step.spans],
                        fetches=sorted(fetches, key=lambda f: (f.pid, f.start_ms)))


def median_step_timeline(record: ProbeRecord, out_dir: Path, measured: list[Step]) -> StepTimeline | None:
    """Return the measured step of median duration, laid out in time; None when the probe kept no timeline."""
    steps = [step for step in measured if step.timed]
    if not steps:
        return None
    median_ms = statistics.median_low(step.step_ms for step in steps)
    step = next(step for step in steps if step.step_ms == median_ms)
    return step_timeline(step, batch_builds(record, out_dir), record.pid)
