"""Name the profile metrics the knowledge base may cite, and render sentences from them."""

import math
import re
import string
from collections.abc import Mapping
from typing import Literal, NamedTuple

MetricValue = float | int | str | None
Metrics = Mapping[str, MetricValue]


class Metric(NamedTuple):
    """Describe one profile metric."""

    kind: Literal["number", "text"]
    description: str


# Shares are fractions 0..1 of the median steady-state step time unless stated otherwise.
METRICS: dict[str, Metric] = {
    "step_ms": Metric("number", "median steady-state step time, ms"),
    "samples_per_s": Metric("number", "training throughput, samples per second"),
    "data_wait_share": Metric("number", "main process waiting for the next batch"),
    "h2d_share": Metric("number", "host-to-device copy of the batch"),
    "input_share": Metric("number", "data_wait_share + h2d_share (TF profiler's input %)"),
    "forward_share": Metric("number", "forward pass"),
    "backward_share": Metric("number", "backward pass"),
    "optimizer_share": Metric("number", "optimizer step, without the forward and backward its closure runs"),
    "compute_share": Metric("number", "forward + backward + optimizer"),
    "other_share": Metric("number", "main-process host time in no stage"),
    "num_workers": Metric("number", "DataLoader worker processes (0 = main process loads)"),
    "persistent_workers": Metric("number", "1 if workers survive across epochs, else 0"),
    "pin_memory": Metric("number", "1 if batches land in pinned host memory, else 0"),
    "prefetch_factor": Metric("number", "batches each worker prepares ahead"),
    "batch_size": Metric("number", "samples per batch"),
    "cpu_count": Metric("number", "CPU cores available to the run"),
    "worker_fetch_ms": Metric("number", "mean ms to build one batch (__getitem__ + collate)"),
    "collate_share": Metric("number", "collate time / batch build time"),
    "hot_function": Metric("text", 'hottest user function in batch build, "name (file:line)"'),
    "hot_function_share": Metric("number", "inclusive share of batch build time in hot_function"),
    "hot_function_source": Metric("text", "source lines of hot_function"),
    "build_wait_share": Metric(
        "number", "the part of data_wait_share that building batches explains (see tools/measure/models.py)"
    ),
    "hot_function_step_share": Metric("number", "build_wait_share × hot_function_share: the hot spot's share of the step"),
    "collate_step_share": Metric("number", "build_wait_share × collate_share: collate's share of the step"),
    "main_hot_function": Metric("text", "hottest user function in the main process"),
    "main_hot_function_share": Metric("number", "main_hot_function's share of step time"),
    "epoch_stall_share": Metric(
        "number", "share of measured time in epoch-start steps beyond the median step"
    ),
    "startup_s": Metric("number", "seconds from launch to the first step"),
    "noise_pct": Metric("number", "run-to-run noise of the step time, percent"),
    "workers_needed": Metric("number", "ceil(batch build ms / compute ms); the codemod bounds it by cpu_count"),
    "worker_scaling": Metric(
        "number", "min(workers_needed, cpu_count) / max(num_workers, 1): how much faster batches can arrive"
    ),
    "gpu_util_p50": Metric("number", "median NVML GPU utilization, percent (None without CUDA)"),
    "device": Metric("text", '"cpu" or "cuda"'),
    "step_time_cv": Metric("number", "coefficient of variation of the step time"),
    "torch_threads": Metric("number", "intra-op threads of the main process (torch.get_num_threads())"),
    "worker_torch_threads": Metric("number", "largest intra-op thread count in a DataLoader worker (torch sets 1)"),
    "cpu_demand": Metric("number", "torch_threads + busy workers × max(worker_torch_threads, 1); "
                                   "busy workers = min(num_workers, worker_fetch_ms / step_ms)"),
    "cpu_oversubscription": Metric("number", "cpu_demand / cpu_count; above 1 threads contend for cores"),
    "gc_share": Metric("number", "garbage-collection pauses in the main process per step / step_ms"),
    "build_cpu_share": Metric("number", "time the batch builders ran or waited for a core / their wall time; low means blocked on reads"),
    "build_blocked_share": Metric("number", "build_wait_share × (1 - build_cpu_share): the step's wait for blocked builds (I/O)"),
    "sync_calls_per_step": Metric("number", ".item()/.cpu()/.tolist() calls on device tensors per step (full run)"),
    "sync_wait_share": Metric("number", "time inside those calls per step / step_ms (host waits for the device)"),
    "autocast_used": Metric("number", "1 if the model ran under autocast, else 0 (None: no model call seen)"),
    "tf32_allowed": Metric("number", "1 if TF32 is allowed for float32 matmuls, else 0 (None without CUDA)"),
    "cuda_capability": Metric("number", "CUDA compute capability, e.g. 8.0 (None without CUDA)"),
    "gpu_busy_share": Metric("number", "GPU time of forward + backward + optimizer (CUDA events) / step_ms (None without CUDA)"),
    "gpu_idle_share": Metric("number", "1 - gpu_util_p50 / 100 (None without NVML)"),
    "gpu_memory_peak_share": Metric("number", "peak reserved device memory / device memory (None without CUDA)"),
    "gpu_alloc_retries": Metric("number", "caching-allocator retries during the run (None without CUDA)"),
    "headspace_share": Metric("number", "(step - step with free data) / step from replaying stored batches: "
                                        "the most a data-side change can gain (None: not measured)"),
    "world_size": Metric("number", "ranks whose probe records the profile found (1 for a single process)"),
    "rank_wait_spread_share": Metric("number", "the straggler rank's data wait beyond the median rank's / median "
                                               "step (tools/measure/ranks.py); None with one rank"),
}

# Times in ms read better in a sentence than shares, so every stage share gets one.
STAGES = ("data_wait", "h2d", "input", "forward", "backward", "optimizer", "compute", "other")
DERIVED: dict[str, Metric] = {
    f"{stage}_ms": Metric("number", f"{stage}_share × step_ms, ms (derived)") for stage in STAGES
}
KNOWN_METRICS: dict[str, Metric] = METRICS | DERIVED
TEMPLATE_NAMES: dict[str, Metric] = KNOWN_METRICS | {
    "expected_speedup": Metric("number", "the diagnosis's expected speedup, ×")
}


def is_number(value: object) -> bool:
    """Return whether value is a real number usable in arithmetic (not bool, not NaN)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and not math.isnan(value)


def with_derived(metrics: Metrics) -> dict[str, MetricValue]:
    """Return the metrics plus `<stage>_ms` for each stage share, where step_ms is known."""
    view = dict(metrics)
    step_ms = metrics.get("step_ms")
    for stage in STAGES:
        share = metrics.get(f"{stage}_share")
        if is_number(step_ms) and is_number(share):
            view.setdefault(f"{stage}_ms", share * step_ms)
    return view


class _Missing:
    def __format__(self, spec: str) -> str:
        return "n/a"


class _SummaryFormatter(string.Formatter):
    """Format by metric name; a missing or mistyped value never raises, the sentence still reads."""

    def get_value(self, key, args, kwargs):
        value = kwargs.get(key)
        return _Missing() if value is None else value

    def format_field(self, value, format_spec):
        try:
            return format(value, format_spec)
        except (TypeError, ValueError):
            return str(value)


_ASIDE = re.compile(r"\s?\(([^()]*\{[^()]*)\)")
"""A parenthetical aside of a template that holds at least one field."""


def render(template: str, values: Metrics) -> str:
    """Fill a summary template with metric values.

    An aside in parentheses is left out when a field it names has no value (a diagnosis made
    without a hot function does not read "(in n/a)"); elsewhere a missing value reads "n/a".
    """
    values = dict(values)

    def aside(match: re.Match) -> str:
        names = [name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(match.group(1)) if name]
        return "" if any(values.get(name) is None for name in names) else match.group(0)

    return _SummaryFormatter().vformat(_ASIDE.sub(aside, template), (), values)


def check_template(template: str) -> str:
    """Return the template if it names only known metrics with fitting format specs, else raise."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ValueError(f"{exc}; write literal braces as {{{{ and }}}}") from exc
    for _, name, spec, _ in parsed:
        if name is None:
            continue
        if name not in TEMPLATE_NAMES:
            raise ValueError(
                f"{{{name}}} is not a metric; use expected_speedup or a name "
                "from the table in knowledge_base/README.md"
            )
        # Counts such as num_workers may format as "d": a number spec passes if int or float fits.
        samples = (0.5, 2) if TEMPLATE_NAMES[name].kind == "number" else ("text",)
        if not any(_formats(sample, spec) for sample in samples):
            raise ValueError(f"format spec {spec!r} does not fit the {name!r} metric")
    return template


def _formats(value: object, spec: str) -> bool:
    try:
        format(value, spec)
    except (TypeError, ValueError):
        return False
    return True
