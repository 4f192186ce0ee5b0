"""`python -m perfloop.evals.gpu` and the GPU targets, on a machine without a GPU.

Without CUDA the script must exit 0 saying it needs one; each GPU target must run here (slowly)
and its oracle.patch apply; the pieces that judge a GPU profile are checked on hand-made records;
one dry run exercises the script's CPU flow end to end.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from perfloop.evals import gpu, harness, measure, workspace
from perfloop.evals.copy_target import TARGETS_DIR, copy_target
from perfloop.tools.measure.profiler import PROBE_DIR
from perfloop.tools.measure.record import ProbeRecord

ROOT = Path(__file__).resolve().parents[1]
GPU_TARGETS = gpu.gpu_targets()
KB = ROOT / "knowledge_base" / "entries"


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()


def test_the_five_gpu_targets_are_found_in_run_order():
    assert GPU_TARGETS == list(gpu.ORDER)


@pytest.mark.skipif(_cuda(), reason="this machine has a GPU: the script would run for real")
def test_without_cuda_the_script_says_it_needs_a_gpu_and_exits_0(tmp_path):
    done = subprocess.run([sys.executable, "-m", "perfloop.evals.gpu"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1
    assert "needs a CUDA GPU" in lines[0] and "--dry-run" in lines[0]
    for name in GPU_TARGETS:
        assert name in lines[0]
    assert not list(tmp_path.iterdir())  # nothing written


def test_bad_flags_exit_2(capsys):
    assert gpu.main(["--only", "data_bound"]) == 2
    assert "unknown GPU target(s) ['data_bound']" in capsys.readouterr().err
    assert gpu.main(["--budget-s", "0"]) == 2


@pytest.mark.parametrize("name", GPU_TARGETS)
def test_gpu_target_runs_on_cpu_and_its_oracle_applies(name, tmp_path):
    expected = tomllib.loads((TARGETS_DIR / name / "expected.toml").read_text())
    assert expected["gpu"] is True
    entry = yaml.safe_load((KB / f"{expected['diagnosis']}.yaml").read_text())
    remedies = {remedy["id"] for remedy in entry["remedies"]}
    assert {expected["remedy"], *expected.get("also_acceptable_remedies", [])} <= remedies

    repo = copy_target(name, tmp_path / name)
    source = (TARGETS_DIR / name / "train.py").read_text()
    assert 'torch.device("cuda" if torch.cuda.is_available() else "cpu")' in source
    assert "torch.set_num_threads(1)" in source and "evalkit.Meter()" in source
    subprocess.run(["git", "apply", "--check", "-"], cwd=repo, check=True, capture_output=True,
                   input=(TARGETS_DIR / name / "oracle.patch").read_text(), text=True)

    contract = workspace.read_contract(repo)
    record = measure.run_pipeline(repo, measure.render_command(contract.command, contract.config), 2, 1, 300)
    assert record["steps"] == 2 and record["samples"] > 0
    assert len(record["losses"]) == 2 and all(loss == loss for loss in record["losses"])  # floats, not NaN
    assert record["steady_samples_per_s"] > 0


def test_the_default_suite_skips_gpu_targets_without_cuda(monkeypatch, capsys):
    monkeypatch.setattr(harness, "cuda_available", lambda: False)
    names = harness.default_targets(TARGETS_DIR)
    assert not set(GPU_TARGETS) & set(names) and "data_bound" in names
    assert "skipping 5 GPU target(s), no CUDA device here" in capsys.readouterr().err
    monkeypatch.setattr(harness, "cuda_available", lambda: True)
    assert set(GPU_TARGETS) <= set(harness.default_targets(TARGETS_DIR))


# -- evalkit on a CUDA loss: no sync per step ---------------------------------------------------

def _load_evalkit():
    spec = importlib.util.spec_from_file_location("evalkit_under_test", TARGETS_DIR / "_evalkit.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_meter_keeps_cuda_losses_on_the_device_until_report(monkeypatch, capsys):
    import torch

    class FakeCuda(torch.Tensor):
        """A CPU tensor that says it lives on CUDA: the meter's device branch without a GPU."""

        @property
        def device(self):
            return torch.device("cuda")

    syncs = []
    evalkit = _load_evalkit()
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a: syncs.append(meter.steps))
    monkeypatch.setenv("EVAL_MAX_STEPS", "6")
    monkeypatch.setenv("EVAL_WARMUP", "2")
    meter = evalkit.Meter()
    values = [2.5, 2.25, 2.125, 1.75, 1.5, 1.25]
    for value in values:
        meter.batch(torch.arange(4))
        loss = torch.tensor(value, dtype=torch.float32).as_subclass(FakeCuda)
        meter.step(loss)
        assert isinstance(meter.losses[-1], torch.Tensor)  # not read back: float() would wait for the GPU
    assert syncs == [2, 6]  # where the clock reads: the end of warm-up and EVAL_MAX_STEPS
    meter.report()
    assert syncs == [2, 6, 6]
    record = json.loads(capsys.readouterr().out.split("EVALKIT ", 1)[1])
    assert record["losses"] == values and record["final_loss"] == 1.25
    assert all(type(loss) is float for loss in meter.losses)
    assert record["steps"] == 6 and record["samples"] == 24 and record["steady_samples_per_s"] > 0


def test_meter_on_cpu_reads_each_loss_at_once(monkeypatch):
    import torch

    evalkit = _load_evalkit()
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a: pytest.fail("synchronize on a CPU run"))
    monkeypatch.delenv("EVAL_MAX_STEPS", raising=False)
    meter = evalkit.Meter()
    meter.step(torch.tensor(0.5))
    meter.step(0.25)
    assert meter.losses == [0.5, 0.25]
    meter.report()


# -- torch.profiler's ledgers, on hand-made ranges -------------------------------------------------

def _raw():
    """Warm-up step [0, 100) and two measured steps [100, 200), [200, 300) µs, the same stages in each."""
    intervals, device = [], []
    for base in (0, 100, 200):
        intervals += [["data_wait", base, base + 10], ["h2d", base + 10, base + 30], ["forward", base + 30, base + 60],
                      ["backward", base + 60, base + 90], ["optimizer", base + 90, base + 95]]
        device += [[base + 12, base + 15, base + 28, "memcpy"],  # the copy, launched in h2d
                   [base + 35, base + 40, base + 50, "kernel"], [base + 45, base + 52, base + 60, "kernel"],
                   [base + 70, base + 70, base + 85, "kernel"], [base + 91, base + 92, base + 94, "kernel"],
                   [base + 97, base + 97, base + 99, "memcpy"]]  # a read-back in "other"
    device.append([None, 5, 6, "kernel"])  # its launching op not seen
    return {"boundaries": [0, 100, 200, 300], "intervals": intervals, "gpu": device, "cuda": True}


def test_book_host_books_h2d_like_every_other_stage():
    ledger = gpu.book_host(_raw(), warmup_steps=1)
    assert ledger["step_ms"] == pytest.approx(0.1)
    assert ledger["h2d_ms"] == pytest.approx(0.020) and ledger["forward_ms"] == pytest.approx(0.030)
    assert ledger["optimizer_ms"] == pytest.approx(0.005) and ledger["other_ms"] == pytest.approx(0.005)


def test_book_gpu_books_each_activity_to_the_stage_that_launched_it():
    booked = gpu.book_gpu(_raw(), warmup_steps=1)
    assert booked["span_ms"]["h2d"] == pytest.approx(0.013)
    assert booked["span_ms"]["forward"] == pytest.approx(0.020)  # 40 to 60: first start to last end
    assert booked["busy_ms"]["forward"] == pytest.approx(0.018)  # 10 + 8 µs of kernels
    assert booked["span_ms"]["other"] == pytest.approx(0.002)
    assert booked["activities"] == 12 and booked["unattributed"] == 1
    assert booked["busy_share"] == pytest.approx((13 + 18 + 15 + 2 + 2) / 100)


def test_gpu_stages_compared_within_the_stated_bounds():
    torch_gpu = {"span_ms": {"h2d": 1.0, "forward": 2.0, "backward": 0.01}}
    ok = gpu.compare_gpu_stages({"h2d": 1.2, "forward": 1.6, "backward": 0.5}, torch_gpu)
    assert ok.status == gpu.OK  # backward's span is under 0.05 ms: not compared
    bad = gpu.compare_gpu_stages({"h2d": 1.3, "forward": 2.0}, torch_gpu)
    assert bad.status == gpu.FAIL and "h2d 1.30 vs 1.00 ms" in bad.detail
    assert gpu.compare_gpu_stages({}, {"span_ms": {}}).status == gpu.FAIL
    assert gpu.compare_gpu_stages({"forward": 0.05}, {"span_ms": {"forward": 0.2}}).status == gpu.OK  # 0.2 ms floor


def test_nvml_and_host_comparisons():
    assert gpu.compare_nvml(60.0, 4, 0.6).status == gpu.SKIP
    assert gpu.compare_nvml(60.0, 5, 0.45).status == gpu.OK
    assert gpu.compare_nvml(90.0, 8, 0.45).status == gpu.FAIL
    shares = {"data_wait": 0.1, "h2d": 0.4, "forward": 0.2, "backward": 0.2, "optimizer": 0.05, "other": 0.05}
    near = {**shares, "h2d": 0.3, "other": 0.15}
    assert gpu.compare_host(shares, near, 10.0, 9.0).status == gpu.OK
    assert gpu.compare_host(shares, near, 10.0, 6.0).status == gpu.FAIL  # the step 67% off
    assert gpu.compare_host(shares, {**shares, "h2d": 0.2, "other": 0.25}, 10.0, 10.0).status == gpu.FAIL
    assert gpu.compare_host(shares, near, 10.0, 6.0, judged=False).status == gpu.SKIP


# -- the GPU assertions, on hand-made records -----------------------------------------------------

def _record(steps=4, stage_events=12, nvml=True):
    runtime = {"cuda": {"capability": 9.0, "matmul_allow_tf32": False, "total_bytes": 100, "peak_reserved_bytes": 40}}
    return ProbeRecord.model_validate({
        "mode": "full", "cuda": {"device": "NVIDIA H200", "stage_events": stage_events},
        "nvml": {"available": nvml, "reason": "" if nvml else "NVMLError: driver", "period_s": 0.2,
                 "samples": [[1000.1 + 0.2 * i, 50 + i, 10] for i in range(8)] if nvml else []},
        "runtime": runtime,
        "steps": [{"index": i, "step_ms": 200.0, "start_wall": 1000.0 + 0.2 * i,
                   "gpu_ms": {"forward": 2.0, "backward": 3.0, "optimizer": 1.0}} for i in range(steps)]})


def _profile(**gpu_fields):
    fields = {"available": True, "reason": "", "device_name": "NVIDIA H200", "util_p50": 53.0,
              "stage_gpu_ms": {"forward": 2.0, "backward": 3.0, "optimizer": 1.0}, "capability": 9.0,
              "memory_peak_share": 0.4, **gpu_fields}
    return SimpleNamespace(device="cuda", gpu=SimpleNamespace(**fields), ledger=SimpleNamespace(step_ms=10.0))


def test_cuda_event_check():
    settings = SimpleNamespace(warmup_steps=1, steps=3)
    assert gpu.check_events(_profile(), _record(), settings).status == gpu.OK
    assert gpu.check_events(_profile(), _record(stage_events=5), settings).status == gpu.FAIL
    assert "step bound" in gpu.check_events(_profile(stage_gpu_ms={"forward": 20.0}), _record(), settings).detail
    cpu = SimpleNamespace(device="cpu", gpu=SimpleNamespace(available=False, reason="no CUDA device used"))
    assert gpu.check_events(cpu, _record(), settings).status == gpu.FAIL


def test_nvml_check_and_the_measured_window():
    settings = SimpleNamespace(warmup_steps=1, steps=3)
    check, util, inside = gpu.check_nvml(_profile(), _record(), settings)
    assert check.status == gpu.OK and check.detail == "8 p50 53%"
    assert inside == 3 and util == 52  # the samples within the measured steps [1000.2, 1000.8] only
    assert gpu.check_nvml(_profile(), _record(nvml=False), settings)[0].status == gpu.FAIL
    assert gpu.check_nvml(_profile(memory_peak_share=None), _record(), settings)[0].status == gpu.FAIL


def test_nvtx_check():
    counts = {"armed": True, "push": 30, "pop": 30, "mark": 10, "depth_min": -2,
              "names": {"perfloop:forward": 10, "perfloop:backward": 10, "perfloop:optimizer": 10}}
    check = gpu.check_nvtx(counts, recorded_steps=10)
    assert check.status == gpu.OK and "no tool attached" in check.detail
    assert gpu.check_nvtx({**counts, "pop": 29}, 10).status == gpu.FAIL
    assert gpu.check_nvtx({**counts, "names": {"perfloop:forward": 30}}, 10).status == gpu.FAIL
    assert gpu.check_nvtx({**counts, "mark": 9}, 10).status == gpu.OK  # one step may open before the timers
    assert gpu.check_nvtx({**counts, "mark": 8}, recorded_steps=10).status == gpu.FAIL
    assert gpu.check_nvtx(counts, recorded_steps=12).status == gpu.FAIL  # 30 ranges < 3 x 12
    assert gpu.check_nvtx({**counts, "armed": False}, 10).status == gpu.FAIL
    assert gpu.check_nvtx(None, 10).status == gpu.FAIL


def test_nvtx_counter_counts_what_the_probes_timers_call(tmp_path):
    site = gpu.write_site(tmp_path / "site", gpu.NVTX_SITE)
    out = tmp_path / "nvtx.json"
    script = """
import os, types
import perfloop_gpu
calls = []
nvtx = types.SimpleNamespace(range_push=lambda m: calls.append(m) or -2, range_pop=lambda: 0,
                             mark=lambda m: calls.append(m))
class Event:
    def __init__(self, enable_timing=False): pass
    def record(self): pass
fake = types.SimpleNamespace(cuda=types.SimpleNamespace(nvtx=nvtx, Event=Event))
timers = perfloop_gpu.CudaTimers(fake)
timers.step_start(0)
timers.push("forward"); timers.pop("forward")
timers.push("backward"); timers.pop("backward")
assert calls == ["perfloop step 0", "perfloop:forward", "perfloop:backward"], calls
os._exit(0)
"""
    env = {**os.environ, "PYTHONPATH": str(site), "GPUCHECK_NVTX_OUT": str(out),
           "GPUCHECK_PROBE_GPU": str(PROBE_DIR / "perfloop_gpu.py")}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    counts = json.loads(out.read_text())
    assert counts["armed"] and counts["push"] == counts["pop"] == 2 and counts["mark"] == 1
    assert counts["names"] == {"perfloop:forward": 1, "perfloop:backward": 1} and counts["depth_min"] == -2


# -- the table and RESULTS.md -----------------------------------------------------------------------

def test_table_and_results_section(tmp_path):
    row = {"target": "gpu_item_sync", "wall_s": 61.0,
           "profile": {"checks": [gpu.Check("cuda events", gpu.OK, "210"), gpu.Check("nvtx", gpu.FAIL, "1 push != 0 pop")],
                       "perfloop": {"gpu_idle_share": 0.25}},
           "loop": {"expected_diagnosis": "host_sync_every_step", "top_diagnosis": "host_sync_every_step",
                    "diagnosis_ok": True, "verdicts": "A", "agent_speedup": 1.5, "oracle_speedup": 1.6,
                    "data_identical": True, "false_accept": False}}
    table = gpu.format_table([row], 100.0, 480.0)
    assert "host_sync_every_step ✓" in table and "1.50x" in table and "25%" in table
    assert "checks 1 ok, 1 failed, 0 skipped · diagnosis 1/1" in table
    assert "gpu_item_sync: nvtx: 1 push != 0 pop" in table
    results = tmp_path / "RESULTS.md"
    results.write_text("# Eval results\n\nintro\n\n## 2026-12-02 — older\n\nold table\n")
    device = {"name": "NVIDIA H200", "capability": "9.0", "memory_gib": 140.0, "torch": "2.13.0", "cuda": "12.8"}
    gpu.add_to_results(results, gpu.results_section(table, ["--budget-s", "480"], device, "2026-12-03"))
    text = results.read_text()
    assert text.index("## 2026-12-03 — the CUDA path on NVIDIA H200") < text.index("## 2026-12-02 — older")
    assert text.startswith("# Eval results\n\nintro\n\n## 2026-12-03") and "--budget-s 480" in text


def test_budget_shares_what_is_left():
    now = [0.0]
    budget = gpu.Budget(300.0, clock=lambda: now[0])
    assert budget.share(3) == 100.0
    now[0] = 200.0
    assert budget.share(2) == 50.0 and budget.left() == 100.0
    now[0] = 400.0
    assert budget.left() == 0.0


def test_the_hard_stop_finds_what_the_script_started():
    child = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        assert child.pid in gpu._descendants(os.getpid())
    finally:
        child.kill()
        child.wait()
    assert issubclass(gpu.HardStop, BaseException) and not issubclass(gpu.HardStop, Exception)


@pytest.mark.slow
def test_dry_run_exercises_the_cpu_flow(tmp_path):
    """Profile check (perfloop's probe + torch.profiler) and the re-measure of one target, tiny steps, on CPU."""
    results = tmp_path / "RESULTS.md"
    out = tmp_path / "rows.json"
    done = subprocess.run([sys.executable, "-m", "perfloop.evals.gpu", "--dry-run", "--only", "gpu_item_sync",
                           "--no-agent", "--work-dir", str(tmp_path / "work"), "--json-out", str(out),
                           "--results", str(results)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "gpu_item_sync" in done.stdout and "checks 0 ok, 0 failed, 6 skipped" in done.stdout
    assert not results.exists()  # a dry run writes no RESULTS.md section
    [row] = json.loads(out.read_text())["rows"]
    checks = {c["name"]: c for c in row["profile"]["checks"]}
    assert checks["host vs torch"]["status"] == "skip" and "pp" in checks["host vs torch"]["detail"]
    assert checks["cuda events"]["detail"] == "no CUDA"
    assert row["profile"]["perfloop"]["device"] == "cpu" and row["profile"]["torch"]["step_ms"] > 0
    assert row["profile"]["nvtx_counts"] == {"push": 0, "pop": 0, "mark": 0, "names": {}, "depth_min": None,
                                             "depth_max": None, "armed": False}  # chain-loaded, never armed on CPU
    measured = row["loop"]["measured"]
    assert measured["original"]["batch_digest"] == measured["oracle"]["batch_digest"]
    assert measured["original"]["extra"] == measured["oracle"]["extra"]  # the oracle prints the same sums
