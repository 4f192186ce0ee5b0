"""The GPU script's instruments and checks: the helpers run inside the pipeline (NVTX counter,
torch.profiler ledger), the ledgers read from them, and the assertions (pure functions of what the
instruments wrote). Bounds and what each checks: the docstring of perfloop.evals.gpu."""
from __future__ import annotations

import bisect
import json
import os
import statistics
from dataclasses import dataclass
from pathlib import Path

GPU_STAGE_REL = 0.25
GPU_STAGE_ABS_MS = 0.2
GPU_STAGE_MIN_MS = 0.05
NVML_GAP_PP = 30.0
MIN_NVML_SAMPLES = 5
HOST_GAP_PP = 15.0
STEP_REL = 0.30
EVENTS_PER_STEP = 3
GPU_SUM_SLACK = 1.2
GPU_SUM_SLACK_MS = 0.5

COMPUTE = ("forward", "backward", "optimizer")
GPU_STAGES = ("h2d", "forward", "backward", "optimizer")

OK, FAIL, SKIP = "ok", "FAIL", "skip"


@dataclass
class Check:
    """One assertion: ``status`` ok, FAIL or skip, and what was seen."""

    name: str
    status: str
    detail: str = ""

    def cell(self) -> str:
        return self.status if not self.detail else f"{self.status} {self.detail}"


# -- the two helpers that run inside the pipeline's interpreter ---------------------------------
# Written into the work dir as sitecustomize.py files; standard library and torch only.

NVTX_SITE = '''"""Count the probe's torch.cuda.nvtx calls (perfloop.evals.gpu); inert unless GPUCHECK_NVTX_OUT is set.

perfloop's probe chain-loads this sitecustomize before it installs itself; the probe's CudaTimers
is wrapped so that, once it is created (the pipeline initialised CUDA), range_push, range_pop and
mark are counted; the counts are written when the process ends (also by os._exit).
"""
import importlib.util
import json
import os

_OUT = os.environ.pop("GPUCHECK_NVTX_OUT", "")
_PROBE_GPU = os.environ.pop("GPUCHECK_PROBE_GPU", "")


def _install():
    counts = {"push": 0, "pop": 0, "mark": 0, "names": {}, "depth_min": None, "depth_max": None, "armed": False}
    main_pid = os.getpid()

    def dump():
        if os.getpid() != main_pid:
            return
        try:
            with open(_OUT, "w") as handle:
                json.dump(counts, handle)
        except OSError:
            pass

    real_exit = os._exit

    def exit_dumping(code):
        dump()
        real_exit(code)

    os._exit = exit_dumping
    import atexit

    atexit.register(dump)
    spec = importlib.util.spec_from_file_location("perfloop_gpu", _PROBE_GPU)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import sys

    sys.modules["perfloop_gpu"] = module
    original_init = module.CudaTimers.__init__

    def counting_init(self, torch):
        original_init(self, torch)
        nvtx = torch.cuda.nvtx
        if getattr(nvtx, "_gpucheck_counted", False):
            return
        push, pop, mark = nvtx.range_push, nvtx.range_pop, nvtx.mark

        def range_push(msg):
            depth = push(msg)
            counts["push"] += 1
            counts["names"][msg] = counts["names"].get(msg, 0) + 1
            if isinstance(depth, int):
                low, high = counts["depth_min"], counts["depth_max"]
                counts["depth_min"] = depth if low is None else min(low, depth)
                counts["depth_max"] = depth if high is None else max(high, depth)
            return depth

        def range_pop():
            counts["pop"] += 1
            return pop()

        def mark_counted(msg):
            counts["mark"] += 1
            return mark(msg)

        nvtx.range_push, nvtx.range_pop, nvtx.mark = range_push, range_pop, mark_counted
        nvtx._gpucheck_counted = True
        counts["armed"] = True

    module.CudaTimers.__init__ = counting_init


if _OUT and _PROBE_GPU:
    _install()
'''

TORCHPROF_SITE = '''"""Run a pipeline under torch.profiler, CPU and CUDA activity (perfloop.evals.gpu).

Inert unless GPUCHECK_TORCHPROF_OUT is set.

The stage ranges of evals/accuracy_probe (outermost nn.Module call: forward; torch.autograd.backward:
backward; the profiler's own DataLoader __next__ and Optimizer.step ranges), plus h2d (Tensor.to from
the host to CUDA on the loop's thread, the probe's hook point), and every GPU activity with the start
of the CPU op that launched it. After warm-up + steps batches of the first DataLoader it synchronises,
stops the profiler, writes JSON (the profiler's clock, in us) and exits.
"""
import json
import os
import threading

_OUT = os.environ.pop("GPUCHECK_TORCHPROF_OUT", "")
_MAX_STEPS = int(os.environ.pop("GPUCHECK_MAX_STEPS", "0") or 0)
_STAGE_OF = (("enumerate(DataLoader)", "data_wait"), ("gpucheck::forward", "forward"),
             ("gpucheck::backward", "backward"), ("Optimizer.step#", "optimizer"), ("gpucheck::h2d", "h2d"))


def _arm():
    import torch
    from torch.autograd.profiler import record_function
    from torch.utils.data import dataloader as dl

    main_thread = threading.get_ident()
    main_pid = os.getpid()
    state = {"depth": 0, "dataset": None, "returned": 0, "done": False, "calls": []}
    cuda = torch.cuda.is_available()
    activities = [torch.profiler.ProfilerActivity.CPU]
    if cuda:
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    profiler = torch.profiler.profile(activities=activities)

    original_call = torch.nn.Module.__call__

    def module_call(self, *args, **kwargs):
        if state["depth"] or threading.get_ident() != main_thread:
            return original_call(self, *args, **kwargs)
        state["depth"] += 1
        try:
            with record_function("gpucheck::forward"):
                return original_call(self, *args, **kwargs)
        finally:
            state["depth"] -= 1

    original_backward = torch.autograd.backward

    def backward(*args, **kwargs):
        with record_function("gpucheck::backward"):
            return original_backward(*args, **kwargs)

    original_to = torch.Tensor.to

    def tensor_to(self, *args, **kwargs):
        target = kwargs.get("device", args[0] if args else None)
        if self.device.type == "cpu" and "cuda" in str(target) and threading.get_ident() == main_thread:
            with record_function("gpucheck::h2d"):
                return original_to(self, *args, **kwargs)
        return original_to(self, *args, **kwargs)

    original_next = dl._BaseDataLoaderIter.__next__

    def next_batch(self):
        if state["dataset"] is None:
            state["dataset"] = id(self._dataset)
        if id(self._dataset) != state["dataset"] or state["done"] or os.getpid() != main_pid:
            return original_next(self)
        with record_function("gpucheck::next"):
            try:
                batch = original_next(self)
            except BaseException:
                state["calls"].append(False)
                raise
        state["calls"].append(True)
        state["returned"] += 1
        if state["returned"] > _MAX_STEPS:
            _finish(torch, profiler, state, cuda)
        return batch

    torch.nn.Module.__call__ = module_call
    torch.autograd.backward = backward
    torch.Tensor.to = tensor_to
    dl._BaseDataLoaderIter.__next__ = next_batch
    profiler.start()


def _finish(torch, profiler, state, cuda):
    state["done"] = True
    if cuda:
        torch.cuda.synchronize()
    profiler.stop()
    from torch.autograd import DeviceType

    events = profiler.profiler.kineto_results.events()
    device, wanted = [], set()
    for event in events:
        if event.device_type() == DeviceType.CUDA:
            name = event.name()
            kind = "memcpy" if name.startswith("Memcpy") else "memset" if name.startswith("Memset") else "kernel"
            link = event.linked_correlation_id()
            device.append([link, event.start_ns() / 1000.0, event.end_ns() / 1000.0, kind])
            wanted.add(link)
    intervals, nexts, launched = [], [], {}
    for event in events:
        if event.device_type() != DeviceType.CPU:
            continue
        name = event.name()
        start = event.start_ns() / 1000.0
        if event.linked_correlation_id() == 0 and event.correlation_id() in wanted:
            launched.setdefault(event.correlation_id(), start)
        if name == "gpucheck::next":
            nexts.append(start)
            continue
        for prefix, stage in _STAGE_OF:
            if name.startswith(prefix):
                intervals.append([stage, start, event.end_ns() / 1000.0])
                break
    nexts.sort()
    # A step opens where a __next__ that returned a batch was called, as in perfloop's probe.
    boundaries = [start for start, returned in zip(nexts, state["calls"]) if returned]
    gpu = [[launched.get(link), start, end, kind] for link, start, end, kind in device]
    with open(_OUT, "w") as handle:
        json.dump({"intervals": intervals, "boundaries": boundaries, "gpu": gpu, "cuda": cuda,
                   "device_name": torch.cuda.get_device_name() if cuda else ""}, handle)
    os._exit(0)


if _OUT and _MAX_STEPS > 0:
    _arm()
'''


def write_site(folder: Path, text: str) -> Path:
    """Write ``text`` as ``folder``/sitecustomize.py; return the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(text, encoding="utf-8")
    return folder


# -- torch.profiler's ledgers -------------------------------------------------------------------

def _segments(intervals: list, lo: float, hi: float, bounds: list[float]) -> tuple[list[float], list]:
    """Cut [lo, hi] at every range edge and step boundary; each piece goes to the innermost open range.

    The rule of evals/torch_ledger.book_stages: ranges nest on the loop's thread, so the latest-started
    range open over a piece owns it; None where no range is open ("other").
    """
    edges = sorted({lo, hi, *(b for b in bounds if lo <= b <= hi),
                    *(t for _, start, end in intervals for t in (start, end) if lo < t < hi)})
    ordered = sorted(intervals, key=lambda item: item[1])
    owners = []
    for left, right in zip(edges, edges[1:]):
        owner = None
        for stage, start, end in ordered:
            if start > left:
                break
            if end >= right:
                owner = stage
        owners.append(owner)
    return edges, owners


def book_host(raw: dict, warmup_steps: int) -> dict[str, float]:
    """Mean host ms per stage over the measured steps (torch_ledger.book_stages' rule, h2d included)."""
    from perfloop.tools.measure.models import STAGES

    bounds = raw["boundaries"]
    if len(bounds) < warmup_steps + 2:
        raise ValueError(f"torch.profiler saw {len(bounds) - 1} steps, fewer than warm-up {warmup_steps} + 1")
    lo, hi = bounds[warmup_steps], bounds[-1]
    edges, owners = _segments(raw["intervals"], lo, hi, bounds)
    booked = {stage: 0.0 for stage in STAGES}
    for left, right, owner in zip(edges, edges[1:], owners):
        if owner is not None:
            booked[owner] += right - left
    num_steps = len(bounds) - 1 - warmup_steps
    ledger = {"step_ms": (hi - lo) / num_steps / 1000.0}
    for stage in STAGES:
        if stage != "other":
            ledger[f"{stage}_ms"] = booked[stage] / num_steps / 1000.0
    ledger["other_ms"] = max(0.0, ledger["step_ms"] - sum(v for k, v in ledger.items() if k != "step_ms"))
    return ledger


def book_gpu(raw: dict, warmup_steps: int) -> dict:
    """torch.profiler's GPU side over the measured steps.

    Each GPU activity goes to the step and stage its launching CPU op started in. Per stage: the mean
    per-step span from the first activity's start to the last one's end (what a pair of CUDA events
    around the stage measures) and the mean per-step busy time; overall, the share of the measured
    window in which any activity ran.
    """
    bounds = raw["boundaries"]
    if len(bounds) < warmup_steps + 2:
        raise ValueError(f"torch.profiler saw {len(bounds) - 1} steps, fewer than warm-up {warmup_steps} + 1")
    lo, hi = bounds[warmup_steps], bounds[-1]
    edges, owners = _segments(raw["intervals"], lo, hi, bounds)
    spans: dict[tuple[int, str], list[float]] = {}
    measured = []
    unattributed = 0
    for host_us, start, end, _kind in raw.get("gpu", []):
        if host_us is None:
            unattributed += 1
            continue
        if not lo <= host_us < hi:
            continue
        step = bisect.bisect_right(bounds, host_us) - 1
        piece = min(max(bisect.bisect_right(edges, host_us) - 1, 0), len(owners) - 1)
        stage = owners[piece] or "other"
        span = spans.setdefault((step, stage), [start, end, 0.0])
        span[0], span[1] = min(span[0], start), max(span[1], end)
        span[2] += end - start
        measured.append((start, end))
    num_steps = len(bounds) - 1 - warmup_steps
    span_ms: dict[str, float] = {}
    busy_ms: dict[str, float] = {}
    for (_, stage), (first, last, busy) in spans.items():
        span_ms[stage] = span_ms.get(stage, 0.0) + (last - first) / num_steps / 1000.0
        busy_ms[stage] = busy_ms.get(stage, 0.0) + busy / num_steps / 1000.0
    return {"span_ms": span_ms, "busy_ms": busy_ms, "activities": len(measured), "unattributed": unattributed,
            "busy_share": _union(measured, lo, hi) / (hi - lo) if hi > lo else None}


def _union(intervals: list[tuple[float, float]], lo: float, hi: float) -> float:
    """Length of the union of ``intervals`` clipped to [lo, hi]."""
    total, reach = 0.0, lo
    for start, end in sorted(intervals):
        start, end = max(start, reach), min(end, hi)
        if end > start:
            total += end - start
            reach = end
    return total


def run_torch_profiler(command: str, target_dir: Path, out_dir: Path, num_steps: int, timeout_s: float) -> dict:
    """Run ``command`` under TORCHPROF_SITE for ``num_steps`` DataLoader batches; return its JSON."""
    from perfloop.evals import measure
    from perfloop.evals.torch_ledger import python_command

    site = write_site(out_dir / "site", TORCHPROF_SITE)
    out = out_dir / "torch_profiler.json"
    env = {**os.environ, "PYTHONPATH": str(site), "GPUCHECK_TORCHPROF_OUT": str(out),
           "GPUCHECK_MAX_STEPS": str(num_steps), "PYTHONUNBUFFERED": "1"}
    env.pop("EVAL_MAX_STEPS", None)
    done = measure.run_and_wait(python_command(command), target_dir, env, timeout_s)
    (out_dir / "torch_profiler.stderr").write_text(done.stderr)
    if not out.exists():
        raise RuntimeError(f"`{command}` under torch.profiler exited {done.returncode} before {num_steps} "
                           f"batches: {measure.last_line(done.stderr) or 'no output'}")
    return json.loads(out.read_text())


# -- the checks (pure functions of what the instruments wrote) ------------------------------------

def check_events(profile, record, settings) -> Check:
    """CUDA events: present, enough of them, in every measured step, and no more GPU time than the step."""
    if profile.device != "cuda" or not profile.gpu.available or record.cuda is None:
        return Check("cuda events", FAIL, f"no CUDA in the profile ({profile.gpu.reason or profile.device})")
    steps = record.measured(settings.warmup_steps, settings.steps)
    need = EVENTS_PER_STEP * len(steps)
    missing = [s.index for s in steps if any(s.gpu_ms.get(stage, 0.0) <= 0.0 for stage in COMPUTE)]
    total = sum(profile.gpu.stage_gpu_ms.values())
    limit = GPU_SUM_SLACK * profile.ledger.step_ms + GPU_SUM_SLACK_MS
    if record.cuda.stage_events < need:
        return Check("cuda events", FAIL, f"{record.cuda.stage_events} events < {need}")
    if missing:
        return Check("cuda events", FAIL, f"steps {missing[:3]} lack forward/backward/optimizer GPU time")
    if total > limit:
        return Check("cuda events", FAIL, f"GPU {total:.2f} ms > {limit:.2f} ms step bound")
    return Check("cuda events", OK, f"{record.cuda.stage_events}")


def check_nvtx(counts: dict | None, recorded_steps: int) -> Check:
    """NVTX ranges: balanced, per stage, per step; and whether a tool received them."""
    if not counts or not counts.get("armed"):
        return Check("nvtx", FAIL, "the probe never created its CUDA timers" if counts else "no counts written")
    names = counts.get("names", {})
    lacking = [stage for stage in COMPUTE if not names.get(f"perfloop:{stage}")]
    if counts["push"] != counts["pop"]:
        return Check("nvtx", FAIL, f"{counts['push']} push != {counts['pop']} pop")
    if lacking:
        return Check("nvtx", FAIL, f"no perfloop:{lacking[0]} range")
    # One mark per step the probe opened once it saw CUDA (at the first step): all but at most one.
    if counts["push"] < EVENTS_PER_STEP * recorded_steps or counts["mark"] < recorded_steps - 1:
        return Check("nvtx", FAIL, f"{counts['push']} ranges, {counts['mark']} marks for {recorded_steps} steps")
    # nvtxRangePush returns the nesting depth when a tool (Nsight) records the ranges, a negative value when none does.
    depth = counts.get("depth_min")
    tool = "no depth" if depth is None else ("a tool records them" if depth >= 0 else "no tool attached")
    return Check("nvtx", OK, f"{counts['push']} ({tool})")


def measured_window(record, settings) -> tuple[float, float] | None:
    """Wall-clock start and end of the measured steps (full runs time each step)."""
    steps = [s for s in record.measured(settings.warmup_steps, settings.steps) if s.start_wall is not None]
    if not steps:
        return None
    return steps[0].start_wall, steps[-1].start_wall + steps[-1].step_ms / 1000.0


def check_nvml(profile, record, settings) -> tuple[Check, float | None, int]:
    """NVML samples present and sane; return the check, the median utilisation over the measured steps and n."""
    gpu = profile.gpu
    samples = record.nvml.samples
    if not record.nvml.available or not samples:
        return Check("nvml", FAIL, record.nvml.reason or "no samples"), None, 0
    bad = [s for s in samples if not (0 <= s[1] <= 100 and 0 <= s[2] <= 100)]
    if bad:
        return Check("nvml", FAIL, f"{len(bad)} samples outside 0-100 %"), None, 0
    if gpu.memory_peak_share is None or not 0 < gpu.memory_peak_share <= 1:
        return Check("nvml", FAIL, f"peak memory share {gpu.memory_peak_share}"), None, 0
    if gpu.capability is None:
        return Check("nvml", FAIL, "no compute capability"), None, 0
    window = measured_window(record, settings)
    inside = [s[1] for s in samples if window and window[0] <= s[0] <= window[1]]
    util = statistics.median(inside) if inside else None
    return Check("nvml", OK, f"{len(samples)} p50 {gpu.util_p50:.0f}%"), util, len(inside)


def compare_gpu_stages(perfloop_ms: dict[str, float], torch_gpu: dict) -> Check:
    """Each stage's CUDA-event ms against torch.profiler's GPU span of that stage."""
    worst, worst_stage, failed = 0.0, "", []
    compared = 0
    for stage in GPU_STAGES:
        theirs = torch_gpu["span_ms"].get(stage, 0.0)
        if theirs < GPU_STAGE_MIN_MS:
            continue
        compared += 1
        mine = perfloop_ms.get(stage, 0.0)
        gap = abs(mine - theirs)
        rel = gap / theirs
        if rel > worst:
            worst, worst_stage = rel, stage
        if gap > max(GPU_STAGE_REL * theirs, GPU_STAGE_ABS_MS):
            failed.append(f"{stage} {mine:.2f} vs {theirs:.2f} ms")
    if not compared:
        return Check("gpu vs torch", FAIL, "torch.profiler saw no GPU activity in any stage")
    if failed:
        return Check("gpu vs torch", FAIL, "; ".join(failed))
    return Check("gpu vs torch", OK, f"{worst:.0%} {worst_stage}")


def compare_nvml(util_p50: float | None, samples: int, busy_share: float | None) -> Check:
    """NVML's median utilisation against torch.profiler's busy share of the measured window."""
    if util_p50 is None or samples < MIN_NVML_SAMPLES or busy_share is None:
        return Check("nvml vs torch", SKIP, f"{samples} samples in the window")
    gap = abs(util_p50 - 100.0 * busy_share)
    status = OK if gap <= NVML_GAP_PP else FAIL
    return Check("nvml vs torch", status, f"{util_p50:.0f}% vs {100 * busy_share:.0f}%")


def compare_host(perfloop_shares: dict[str, float], torch_shares: dict[str, float], perfloop_step_ms: float,
                 torch_step_ms: float, judged: bool = True) -> Check:
    """Host stage shares (points) and the mean step (relative) against torch.profiler's."""
    gaps = {stage: abs(perfloop_shares[stage] - torch_shares[stage]) * 100.0 for stage in perfloop_shares}
    stage = max(gaps, key=gaps.get)
    step_rel = (perfloop_step_ms - torch_step_ms) / torch_step_ms if torch_step_ms > 0 else float("inf")
    detail = f"{gaps[stage]:.1f}pp {stage}, step {step_rel:+.0%}"
    if not judged:
        return Check("host vs torch", SKIP, detail)
    status = OK if gaps[stage] <= HOST_GAP_PP and abs(step_rel) <= STEP_REL else FAIL
    return Check("host vs torch", status, detail)
