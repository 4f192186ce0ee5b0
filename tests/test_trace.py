"""`perfloop profile --trace`: the full run's timeline as Chrome trace JSON, with worker tracks."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import pytest
from conftest import git, make_repo, perfloop
from pydantic import BaseModel, ConfigDict

from perfloop.tools.measure.record import HotSamples


class Complete(BaseModel):
    """A ``ph: "X"`` complete event, as the Chrome trace event format defines it."""

    model_config = ConfigDict(extra="forbid", strict=True)
    ph: Literal["X"]
    name: str
    cat: str
    pid: int
    tid: int
    ts: float
    dur: float
    args: dict = {}


class Metadata(BaseModel):
    """A ``ph: "M"`` metadata event naming or ordering a process or thread."""

    model_config = ConfigDict(extra="forbid", strict=True)
    ph: Literal["M"]
    name: Literal["process_name", "process_sort_index", "thread_name"]
    pid: int
    tid: int
    args: dict


class Instant(BaseModel):
    """A ``ph: "i"`` instant event scoped to its thread (``s: "t"``): one stack sample."""

    model_config = ConfigDict(extra="forbid", strict=True)
    ph: Literal["i"]
    s: Literal["t"]
    name: str
    cat: Literal["sample"]
    pid: int
    tid: int
    ts: float
    args: dict


class Trace(BaseModel):
    model_config = ConfigDict(extra="forbid")
    traceEvents: list[Complete | Metadata | Instant]
    displayTimeUnit: Literal["ms", "ns"]
    otherData: dict


@pytest.fixture(scope="module")
def profiled(tmp_path_factory) -> Path:
    """Profile the tiny pipeline (a Python transform: its workers are on a core, so the CPU-time sampler
    samples them) with 2 DataLoader workers and write its trace; return the folder."""
    root = tmp_path_factory.mktemp("trace")
    target = make_repo(root / "repo", "tiny")
    config = target / "configs" / "train.yaml"
    config.write_text(config.read_text().replace("num_workers: 0", "num_workers: 2"))
    git(target, "commit", "-qam", "two workers")
    path = root / "out" / "run.trace.json"
    done = perfloop("profile", str(target), "--trace", str(path), "--warmup-steps", "2", "--steps", "8",
                    "--noise-runs", "1")
    assert done.returncode == 0, done.stderr
    assert str(path) in done.stderr
    return root


@pytest.fixture(scope="module")
def trace(profiled) -> dict:
    return json.loads((profiled / "out" / "run.trace.json").read_text())


def _probe_folder(profiled: Path, suffix: str) -> Path:
    (folder,) = (profiled / "repo" / ".git" / "perfloop" / "runs").glob(f"profile-*/probe/*-{suffix}")
    return folder


def test_full_run_records_its_timeline_light_runs_do_not(profiled):
    full = _probe_folder(profiled, "profile-full")
    record = json.loads((full / "main-rank0.json").read_text())
    for step in record["steps"]:
        for stage in ("data_wait", "forward", "backward", "optimizer"):  # the spans are the ledger, laid out
            booked = sum(duration for name, _, duration in step["spans"] if name == stage)
            assert booked == pytest.approx(step[f"{stage}_ms"], abs=0.01)
        assert all(0 <= offset <= step["step_ms"] + 0.01 for _, offset, _ in step["spans"])
    fetches = [json.loads(line) for path in full.glob("worker-*.jsonl") for line in path.read_text().splitlines()]
    assert fetches and all({"start_wall", "pid"} <= set(f) for f in fetches)
    light = _probe_folder(profiled, "profile-light")
    light_record = json.loads((light / "main-rank0.json").read_text())
    assert not any("spans" in step or "start_wall" in step for step in light_record["steps"])
    assert not any("start_wall" in line for path in light.glob("worker-*.jsonl") for line in path.read_text().splitlines())
    for folder in (full, light):  # the live progress line's source, written in every mode
        assert json.loads((folder / "progress.json").read_text())["steps"] == 10


def test_trace_is_chrome_trace_json_with_worker_tracks(trace):
    parsed = Trace.model_validate(trace)
    names = {(e.pid, e.args["name"]) for e in parsed.traceEvents if isinstance(e, Metadata) and e.name == "process_name"}
    main_pid = trace["otherData"]["main_pid"]
    workers = {pid for pid, name in names if name.startswith("DataLoader worker")}
    assert (main_pid, f"main (pid {main_pid})") in names
    assert len(workers) == 2 and main_pid not in workers
    slices = [e for e in parsed.traceEvents if isinstance(e, Complete)]
    builds = [e for e in slices if e.name == "perfloop:batch_build"]
    assert {e.pid for e in builds} == workers
    steps = [e for e in slices if e.name == "perfloop:step"]
    assert len(steps) == 10 and all(e.pid == main_pid for e in steps)  # warmup_steps 2 + steps 8
    stages = {e.name for e in slices if e.cat == "stage"}
    assert {"perfloop:data_wait", "perfloop:forward", "perfloop:backward", "perfloop:optimizer"} <= stages
    for step in steps:  # each stage slice lies inside its step, so the tracks nest
        inside = [e for e in slices if e.cat == "stage" and step.ts - 5 <= e.ts < step.ts + step.dur - 5]
        assert inside and all(e.ts + e.dur <= step.ts + step.dur + 5 for e in inside)  # µs of clock rounding
    assert trace["otherData"]["hot_functions"]  # the ranked list stays in the metadata too


@pytest.mark.serial  # whether the sampler caught the main thread outside a fetch: a second busy worker can starve it
def test_stack_samples_are_instant_events_on_the_track_they_were_taken(profiled, trace):
    parsed = Trace.model_validate(trace)
    main_pid = trace["otherData"]["main_pid"]
    instants = [e for e in parsed.traceEvents if isinstance(e, Instant)]
    builds = [e for e in parsed.traceEvents if isinstance(e, Complete) and e.name == "perfloop:batch_build"]
    workers = {e.pid for e in builds}
    on_workers = [e for e in instants if e.pid in workers]
    assert on_workers, "the workers' samples are placed on their own tracks"
    for sample in on_workers:  # a worker samples only while it builds a batch, and the clocks agree
        assert sample.tid == 0 and sample.args["label"] == "fetch"
        own = [b for b in builds if b.pid == sample.pid]
        # The build in progress when the run stopped is never logged: its samples come after the last one.
        assert (any(b.ts - 50 <= sample.ts <= b.ts + b.dur + 50 for b in own)
                or sample.ts > max(b.ts + b.dur for b in own)), sample
        assert sample.args["file"].endswith("train.py")
    on_main = [e for e in instants if e.pid == main_pid]
    assert on_main and all(e.tid == 0 and e.args["label"] != "fetch" for e in on_main)
    steps = [e for e in parsed.traceEvents if isinstance(e, Complete) and e.name == "perfloop:step"]
    first, last = min(e.ts for e in steps), max(e.ts + e.dur for e in steps)
    # Samples are taken only while a step is open (its slice starts later by the probe's own work, so allow some).
    outside = [(e.ts - first, e.args) for e in on_main if not first - 50_000 <= e.ts <= last + 50_000]
    assert not outside, (first, last, outside)  # µs from the first step's start, and what the sample saw
    assert all(f"({Path(e.args['file']).name}:{e.args['line']})" in e.name for e in instants)
    full = _probe_folder(profiled, "profile-full")
    kept = [HotSamples.model_validate_json(path.read_text()) for path in full.glob("samples-*.json")]
    assert sum(len(k.samples) for k in kept) == len(on_workers) and not any(k.model_extra for k in kept)
    light = _probe_folder(profiled, "profile-light")
    assert not list(light.glob("samples-*.json"))
    assert json.loads((light / "main-rank0.json").read_text())["hot_samples"] is None
