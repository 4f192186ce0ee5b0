"""Write a full profile run's timeline as a Chrome trace (JSON), which Perfetto and chrome://tracing open.

One track per process (the pipeline's main process, each DataLoader worker); on the main
track a ``perfloop:step`` slice per step holding its stage slices, named like the probe's
NVTX ranges (``perfloop:<stage>``); on worker tracks a ``perfloop:batch_build`` slice per
batch. The stack sampler's timestamped samples are instant events (``ph: "i"``, thread
scope) on the track of the process and lane they were taken in, named after the innermost
user frame. Times are microseconds from the probe's install in the main process.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from perfloop.agent.ui.console import say
from perfloop.contracts.layout import RECORD_NAME
from perfloop.sandbox.errors import BadInput
from perfloop.tools.measure.models import Profile
from perfloop.tools.measure.record import HotSamples, ProbeRecord, worker_hot_samples
from perfloop.tools.measure.timeline import batch_builds


def _us(wall: float, origin: float) -> float:
    return round((wall - origin) * 1e6, 1)


def _instants(samples: HotSamples, pid: int, tid_of, origin: float) -> list[dict]:
    """One thread-scoped instant event per timestamped sample; ``tid_of(label)`` picks its lane."""
    return [{"ph": "i", "s": "t", "name": f"{function} ({os.path.basename(file)}:{line})", "cat": "sample",
             "pid": pid, "tid": tid_of(label), "ts": _us(wall, origin),
             "args": {"label": label, "file": file, "line": line}}
            for wall, label, file, function, line in samples.samples]


def chrome_trace(record: ProbeRecord, probe_dir: Path, hot_functions: list[dict] | None = None) -> dict:
    """Return the Chrome trace of one full probe run (``record`` is its parsed main-rank0.json)."""
    origin = record.install_wall or 0.0
    main_pid = record.pid
    events: list[dict] = [
        {"ph": "M", "name": "process_name", "pid": main_pid, "tid": 0, "args": {"name": f"main (pid {main_pid})"}},
        {"ph": "M", "name": "process_sort_index", "pid": main_pid, "tid": 0, "args": {"sort_index": 0}},
        {"ph": "M", "name": "thread_name", "pid": main_pid, "tid": 0, "args": {"name": "training loop"}},
    ]
    timed_steps = [step for step in record.steps if step.timed]
    for step in timed_steps:
        start = _us(step.start_wall, origin)
        events.append({"ph": "X", "name": "perfloop:step", "cat": "step", "pid": main_pid, "tid": 0, "ts": start,
                       "dur": round(step.step_ms * 1000.0, 1),
                       "args": {"index": step.index, "samples": step.samples, "epoch_start": step.epoch_start}})
        for stage, offset_ms, duration_ms in step.spans:
            events.append({"ph": "X", "name": f"perfloop:{stage}", "cat": "stage", "pid": main_pid, "tid": 0,
                           "ts": round(start + offset_ms * 1000.0, 1), "dur": round(duration_ms * 1000.0, 1)})
    workers: set[int] = set()

    def worker_track(pid: int) -> None:
        if pid not in workers:
            workers.add(pid)
            events.extend([
                {"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                 "args": {"name": f"DataLoader worker (pid {pid})"}},
                {"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0, "args": {"sort_index": len(workers)}},
                {"ph": "M", "name": "thread_name", "pid": pid, "tid": 0, "args": {"name": "batch builds"}},
            ])

    builds = batch_builds(record, probe_dir)
    main_samples = record.hot_samples or HotSamples()
    in_process = any(build["pid"] == main_pid for build in builds)
    if in_process or any(label == "fetch" for _, label, *_ in main_samples.samples):
        # num_workers=0: batches are built inside the main process's data wait, on a lane of their own
        events.append({"ph": "M", "name": "thread_name", "pid": main_pid, "tid": 1,
                       "args": {"name": "batch builds (in process)"}})
    for build in builds:
        pid = build["pid"]
        if pid != main_pid:
            worker_track(pid)
        events.append({"ph": "X", "name": "perfloop:batch_build", "cat": "data", "pid": pid,
                       "tid": 1 if pid == main_pid else 0,
                       "ts": _us(build["start_wall"], origin), "dur": round(build["fetch_ms"] * 1000.0, 1)})
    events += _instants(main_samples, main_pid, lambda label: 1 if label == "fetch" else 0, origin)
    dropped = main_samples.dropped
    for pid, samples in worker_hot_samples(probe_dir).items():
        if samples.samples:
            worker_track(pid)
            events += _instants(samples, pid, lambda label: 0, origin)
        dropped += samples.dropped
    return {"traceEvents": events, "displayTimeUnit": "ms",
            "otherData": {"source": "perfloop probe", "main_pid": main_pid, "num_steps": len(timed_steps),
                          "num_workers": len(workers), "origin_wall_s": origin,
                          "samples_not_placed": dropped, "hot_functions": hot_functions or []}}


def write_trace(probe_dir: Path, path: Path, hot_functions: list[dict] | None = None) -> Path:
    """Write the Chrome trace of the full run kept in ``probe_dir`` to ``path``; return ``path``."""
    record_path = probe_dir / RECORD_NAME
    if not record_path.exists():
        raise BadInput(f"no probe record in {probe_dir}: the full run's files are gone, so there is no trace")
    trace = chrome_trace(ProbeRecord.read(record_path), probe_dir, hot_functions)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(trace), encoding="utf-8")
    return path


TRACE_POINTER = "trace_path.txt"
"""File in a run folder naming the trace written for it (the report links to it)."""


def write_profile_trace(profile: Profile, state_dir: Path, path: Path) -> Path:
    """Write ``profile``'s full run as a Chrome trace at ``path`` and note it in the run folder for the report."""
    full = next(run for run in profile.runs if run.mode == "full")
    hot = [f.model_dump(mode="json", include={"name", "file", "line", "share", "phase"})
           for f in profile.hot_functions + profile.main_hot_functions]
    written = write_trace(Path(full.probe_dir), path.resolve(), hot)
    (state_dir / TRACE_POINTER).write_text(str(written) + "\n", encoding="utf-8")
    say(f"trace: {written} (open it in https://ui.perfetto.dev or chrome://tracing)")
    return written
