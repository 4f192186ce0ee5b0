"""The probe record parsed once into a typed ProbeRecord: real runs, records of an older probe, malformed ones."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from perfloop.contracts.stages import Stage
from perfloop.tools.check.datacheck import compare_data
from perfloop.tools.measure.headspace import replay_env, why_no_replay
from perfloop.tools.measure.hotspots import batch_build_hotspots
from perfloop.tools.measure.profiler import PipelineError, ProbeSettings, build_profile, run_probed
from perfloop.tools.measure.ranks import read_ranks
from perfloop.tools.measure.record import (
    RECORD_NAME,
    Fetch,
    Loader,
    ProbeRecord,
    RecordError,
    Replay,
    Runtime,
    Seen,
    Step,
    worker_fetches,
)
from perfloop.tools.measure.timeline import median_step_timeline
from tests.conftest import ROOT

SETTINGS = ProbeSettings(steps=4, warmup_steps=1)
OLD = ROOT / "tests" / "data" / "records"  # written by the first probe (commit e123854), light and full mode
LEDGER = tuple(f"{stage}_ms" for stage in Stage)  # the ledger: each interval booked once

# The loop sleeps 20 ms a step so that the refill a step's batch requests is built by a worker
# inside that step's timeline window even on a loaded machine (a sub-millisecond step left the
# median step's window without a batch build now and then). The epoch is 64 batches long so that
# every measured step requests a refill: with 8 batches an epoch, the last four steps of it request
# none, and step 4's window held only step 3's refill, at its far edge (CI failed on it once).
PIPELINE = '''
import time
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
torch.set_num_threads(1)
data = TensorDataset(torch.randn(512, 4), torch.randint(0, 2, (512,)))
loader = DataLoader(data, batch_size=8, num_workers=int(__import__("sys").argv[1]))
model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(100):
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        time.sleep(0.02)
'''


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A full run with two DataLoader workers and a light run in-process, of the same tiny pipeline."""
    folder = tmp_path_factory.mktemp("record")
    (folder / "train.py").write_text(PIPELINE)
    full = run_probed("python train.py 2", folder, folder / "full", SETTINGS, mode="full")
    light = run_probed("python train.py 0", folder, folder / "light", SETTINGS)
    return folder, full, light


@pytest.mark.serial
def test_a_real_run_is_parsed_once_into_typed_fields(runs):
    folder, full, light = runs
    record = full.record
    assert isinstance(record, ProbeRecord) and record.probe_dir == full.measurement.probe_dir
    assert record.path == Path(full.measurement.probe_dir) / RECORD_NAME
    assert record.mode == "full" and record.exit_reason == "max_steps" and record.rank == 0
    assert record.step_source == "loader" and record.max_steps == 5
    assert len(record.steps) == 5 and all(isinstance(step, Step) for step in record.steps)
    for step in record.steps:
        assert sum(getattr(step, key) for key in LEDGER) == pytest.approx(step.step_ms, rel=1e-6)
        assert step.samples == 8 and len(step.row_hashes) == 8 and len(step.value_hashes) == 8
        assert step.timed and all(isinstance(span, tuple) and len(span) == 3 for span in step.spans)
        assert isinstance(step.loss, float) and step.fingerprint_error is None
    loader = record.step_loader_info()
    assert isinstance(loader, Loader) and loader.batch_size == 8 and loader.num_workers == 2
    assert loader.site.file.endswith("train.py") and loader.dataset == "TensorDataset"
    assert isinstance(record.seen, Seen) and record.seen.torch_imported and record.seen.dataloaders_constructed == 1
    assert isinstance(record.runtime, Runtime) and record.runtime.torch_threads == 1
    assert isinstance(record.replay, Replay) and record.replay.batches > 0 and Path(record.replay.path).is_file()
    assert replay_env(record) == {"PERFLOOP_REPLAY_FROM": record.replay.path}
    assert record.layout and record.nvml.available is False and record.cuda is None
    assert record.sampler in ("sigprof", "thread") and isinstance(record.stacks, dict)
    assert full.measurement.losses == [step.loss for step in record.steps]
    fetches = worker_fetches(Path(record.probe_dir))
    assert fetches and all(isinstance(f, Fetch) and f.pid and f.start_wall for f in fetches)
    timeline = median_step_timeline(record, Path(record.probe_dir), record.measured(1, 4))
    assert timeline is not None and timeline.main_pid == record.pid and timeline.fetches
    assert not light.record.replay and not any(step.timed for step in light.record.steps)
    assert light.record.main_fetches and all(f.runnable_ms is not None or f.cpu_ms is not None
                                             for f in light.record.main_fetches)
    profile = build_profile(full, [light], "python train.py", folder, SETTINGS)
    assert profile.loader.num_workers == 2 and profile.data_build.where == "workers"
    assert profile.torch_threads == 1 and profile.device == "cpu"


def test_the_model_types_every_field_the_probe_writes(runs):
    """A field the probe adds must be typed here too (extras are allowed, so nothing would break unseen)."""
    _, full, light = runs
    for run in (full, light):
        raw = json.loads(run.record.path.read_text())
        assert set(raw) <= set(ProbeRecord.model_fields) and not run.record.model_extra
        for step in raw["steps"]:
            assert set(step) <= set(Step.model_fields), set(step) - set(Step.model_fields)
        for fetch in raw["main_fetches"]:
            assert set(fetch) <= set(Fetch.model_fields)
        for loader in raw["loaders"]:
            assert set(loader) <= set(Loader.model_fields)
        assert set(raw["seen"]) <= set(Seen.model_fields)
        assert set(raw["runtime"]) <= set(Runtime.model_fields)
        assert set(raw.get("replay") or {}) <= set(Replay.model_fields)
        assert ProbeRecord.read(run.record.probe_dir) == run.record  # the same object as parsed by run_probed


def test_fields_of_a_newer_probe_are_kept_not_refused(runs):
    _, full, _ = runs
    raw = json.loads(full.record.path.read_text())
    raw["new_top_level"] = {"x": 1}
    raw["steps"][0]["new_step_field"] = 2.5
    raw["runtime"]["new_fact"] = "yes"
    record = ProbeRecord.parse(raw)
    assert record.model_extra == {"new_top_level": {"x": 1}}
    assert record.steps[0].model_extra == {"new_step_field": 2.5}
    assert record.runtime.model_extra == {"new_fact": "yes"}
    assert record.steps[0].step_ms == full.record.steps[0].step_ms and record.steps[1:] == full.record.steps[1:]


@pytest.mark.parametrize("mode", ["light", "full"])
def test_a_record_of_the_first_probe_still_parses_and_is_used(tmp_path, mode):
    path = OLD / f"e123854-{mode}.json"
    raw = json.loads(path.read_text())
    assert not {"seen", "runtime", "layout", "step_source", "replay"} & set(raw)  # an old shape indeed
    record = ProbeRecord.read(path)
    assert record.rank == 0 and record.exit_reason == "max_steps" and len(record.steps) == 4
    assert record.seen == Seen() and record.runtime == Runtime() and record.layout == [] and record.replay is None
    step = record.steps[0]
    assert step.gc_ms == 0.0 and step.sync_calls == 0 and step.value_hashes is None and not step.timed
    assert step.row_hashes == raw["steps"][0]["row_hashes"] and step.loss == raw["steps"][0]["loss"]
    assert record.step_loader_info().batch_size == 8
    assert "kept no batches" in why_no_replay(record) and replay_env(record) is None
    assert batch_build_hotspots(record.stacks, tmp_path, tmp_path) == []  # an older sampler format: no rows
    folder = tmp_path / "run"
    folder.mkdir()
    shutil.copy(path, folder / RECORD_NAME)
    assert compare_data([folder], [ProbeRecord.read(folder)], allow_tolerance=False).status == "identical"
    assert read_ranks(ProbeRecord.read(folder), folder, 1, 3) is None  # one rank only


def test_a_second_rank_is_read_the_first_is_not_read_again(tmp_path, monkeypatch):
    for rank in (0, 1):
        raw = json.loads((OLD / "e123854-light.json").read_text())
        raw["rank"] = str(rank)
        for step in raw["steps"]:
            step["data_ms"] += 10.0 * rank
        (tmp_path / f"main-rank{rank}.json").write_text(json.dumps(raw))
    main = ProbeRecord.read(tmp_path)
    reads = []
    original = ProbeRecord.read.__func__
    monkeypatch.setattr(ProbeRecord, "read", classmethod(lambda cls, path: reads.append(Path(path).name)
                                                         or original(cls, path)))
    report = read_ranks(main, tmp_path, 1, 3)
    assert reads == ["main-rank1.json"]
    assert [r.rank for r in report.ranks] == [0, 1] and report.slowest_rank == 1


def test_verification_reads_each_record_at_most_once(tmp_path, monkeypatch):
    """The cascade's data checks (smoke, then all timing runs) share the parsed records."""
    from perfloop.agent.nodes.verify import _Cascade
    from perfloop.tools.measure.models import RunMeasurement

    folder = tmp_path / "profile-run"
    folder.mkdir()
    shutil.copy(OLD / "e123854-light.json", folder / RECORD_NAME)
    measurement = RunMeasurement(mode="light", label="", samples_per_s=1.0, step_ms_median=1.0, startup_s=0.0,
                                 wall_s=1.0, num_steps_measured=3, exit_reason="max_steps", probe_dir=str(folder),
                                 data_digest="")
    reads = []
    original = ProbeRecord.read.__func__
    monkeypatch.setattr(ProbeRecord, "read", classmethod(lambda cls, path: reads.append(path) or original(cls, path)))
    cascade = _Cascade(ctx=None, proposal=None, rule=None)
    first = cascade.record_of(measurement)
    assert cascade.record_of(measurement) is first and reads == [str(folder)]
    assert compare_data([first], [cascade.record_of(measurement)], allow_tolerance=False).status == "identical"
    assert len(reads) == 1


def test_a_malformed_record_names_the_file_and_what_is_wrong(tmp_path):
    good = json.loads((OLD / "e123854-light.json").read_text())
    cases = {
        "truncated": (json.dumps(good)[:200], "is not JSON"),
        "list": ("[1, 2]", "expected a JSON object, got list"),
        "no-steps": (json.dumps({k: v for k, v in good.items() if k != "steps"}), "steps: Field required"),
        "bad-step": (json.dumps({**good, "steps": [{"index": 0, "step_ms": "fast"}]}), "steps.0.step_ms"),
        "bad-loader": (json.dumps({**good, "loaders": [{"site": {"line": "here"}}]}), "loaders.0.site.line"),
    }
    for name, (text, expected) in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(text)
        with pytest.raises(RecordError) as raised:
            ProbeRecord.read(path)
        assert isinstance(raised.value, ValueError)
        assert str(path) in str(raised.value) and expected in str(raised.value), str(raised.value)
    with pytest.raises(RecordError, match="cannot be read"):
        ProbeRecord.read(tmp_path / "absent")


def test_run_probed_turns_a_malformed_record_into_a_pipeline_error(tmp_path):
    # A process that writes a record without steps in the probe's place, then leaves without the probe's exit.
    (tmp_path / "bad.py").write_text("import os\n"
                                     "path = os.path.join(os.environ['PERFLOOP_PROBE_DIR'], 'main-rank0.json')\n"
                                     "open(path, 'w').write('{\"exit_reason\": \"max_steps\"}')\n"
                                     "os._exit(0)\n")
    with pytest.raises(PipelineError) as raised:
        run_probed("python bad.py", tmp_path, tmp_path / "out", SETTINGS)
    message = str(raised.value)
    assert str(tmp_path / "out" / RECORD_NAME) in message and "steps: Field required" in message


def test_a_record_from_a_cuda_run_gives_the_gpu_numbers():
    """The shape the probe writes when the pipeline initialised CUDA (no GPU here: written as the probe would)."""
    from perfloop.tools.measure.profiler import _gpu_stats

    raw = json.loads((OLD / "e123854-full.json").read_text())
    raw["cuda"] = {"device": "NVIDIA H200", "stage_events": 20}
    raw["nvml"] = {"available": True, "reason": "", "period_s": 0.2,
                   "samples": [[1.0 + i, util, 5] for i, util in enumerate([10, 60, 70, 80, 90])]}
    raw["runtime"] = {"torch_threads": 8, "autocast_seen": True, "gc_collections": 3, "major_faults": 0,
                      "cuda": {"capability": 9.0, "matmul_allow_tf32": False, "total_bytes": 1000,
                               "peak_reserved_bytes": 250, "alloc_retries": 2, "ooms": 0}}
    for step in raw["steps"]:
        step["gpu_ms"] = {"forward": 2.0, "backward": 4.0}
    record = ProbeRecord.parse(raw)
    gpu = _gpu_stats(record, record.measured(1, 3))
    assert gpu.available and gpu.device_name == "NVIDIA H200" and gpu.stage_gpu_ms == {"forward": 2.0, "backward": 4.0}
    assert (gpu.util_p5, gpu.util_p50, gpu.util_p95) == (10.0, 70.0, 90.0)
    assert gpu.capability == 9.0 and gpu.tf32_allowed is False and gpu.memory_peak_share == 0.25
    assert gpu.alloc_retries == 2
    cpu = _gpu_stats(ProbeRecord.read(OLD / "e123854-full.json"), [])
    assert not cpu.available and cpu.reason == "CUDA not initialised by the pipeline (CPU run)"
