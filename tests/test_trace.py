"""`perfloop profile --trace`: the full run's timeline as Chrome trace JSON, with worker tracks."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict

from conftest import git, make_repo, perfloop


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


class Trace(BaseModel):
    model_config = ConfigDict(extra="forbid")
    traceEvents: list[Complete | Metadata]
    displayTimeUnit: Literal["ms", "ns"]
    otherData: dict


@pytest.fixture(scope="module")
def profiled(tmp_path_factory) -> Path:
    """Profile the data-waiting pipeline with 2 DataLoader workers and write its trace; return the folder."""
    root = tmp_path_factory.mktemp("trace")
    target = make_repo(root / "repo", "waiting")
    config = target / "configs" / "train.yaml"
    config.write_text(config.read_text().replace("num_workers: 0", "num_workers: 2"))
    git(target, "commit", "-qam", "two workers")
    path = root / "out" / "run.trace.json"
    done = perfloop("profile", str(target), "--trace", str(path))
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
        for stage in ("data", "forward", "backward", "optimizer"):  # the spans are the ledger, laid out
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
    assert {"perfloop:data", "perfloop:forward", "perfloop:backward", "perfloop:optimizer"} <= stages
    for step in steps:  # each stage slice lies inside its step, so the tracks nest
        inside = [e for e in slices if e.cat == "stage" and step.ts - 5 <= e.ts < step.ts + step.dur - 5]
        assert inside and all(e.ts + e.dur <= step.ts + step.dur + 5 for e in inside)  # µs of clock rounding
    assert "without timestamps" in trace["otherData"]["hot_function_samples"]
