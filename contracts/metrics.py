"""The metrics a profile gives the knowledge base: one typed field each, with its description and unit.

``ProfileMetrics`` is the single declaration. The profile builds one (a metric it cannot fill is
None, never absent); the knowledge base's allowed names, their kinds and README's table come
from its fields. Shares are fractions 0..1 of the median steady-state step time unless the
description says otherwise.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class ProfileMetrics(BaseModel):
    """Every metric the knowledge base may match on or cite, for one profile."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    step_ms: int | float | None = Field(
        description="median steady-state step time, ms",
        json_schema_extra={"unit": "ms"})
    samples_per_s: int | float | None = Field(
        description="training throughput, samples per second",
        json_schema_extra={"unit": "samples/s"})
    data_wait_share: int | float | None = Field(
        description="main process waiting for the next batch",
        json_schema_extra={"unit": "fraction"})
    h2d_share: int | float | None = Field(
        description="host-to-device copy of the batch",
        json_schema_extra={"unit": "fraction"})
    input_share: int | float | None = Field(
        description="data_wait_share + h2d_share (TF profiler's input %)",
        json_schema_extra={"unit": "fraction"})
    forward_share: int | float | None = Field(description="forward pass", json_schema_extra={"unit": "fraction"})
    backward_share: int | float | None = Field(description="backward pass", json_schema_extra={"unit": "fraction"})
    optimizer_share: int | float | None = Field(
        description="optimizer step, without the forward and backward its closure runs",
        json_schema_extra={"unit": "fraction"})
    compute_share: int | float | None = Field(
        description="forward + backward + optimizer",
        json_schema_extra={"unit": "fraction"})
    other_share: int | float | None = Field(
        description="main-process host time in no stage",
        json_schema_extra={"unit": "fraction"})
    num_workers: int | float | None = Field(
        description="DataLoader worker processes (0 = main process loads)",
        json_schema_extra={"unit": "count"})
    persistent_workers: int | float | None = Field(
        description="1 if workers survive across epochs, else 0",
        json_schema_extra={"unit": "0/1"})
    pin_memory: int | float | None = Field(
        description="1 if batches land in pinned host memory, else 0",
        json_schema_extra={"unit": "0/1"})
    prefetch_factor: int | float | None = Field(
        description="batches each worker prepares ahead",
        json_schema_extra={"unit": "count"})
    batch_size: int | float | None = Field(description="samples per batch", json_schema_extra={"unit": "count"})
    cpu_count: int | float | None = Field(
        description="CPU cores available to the run",
        json_schema_extra={"unit": "count"})
    worker_fetch_ms: int | float | None = Field(
        description="mean ms to build one batch (__getitem__ + collate)",
        json_schema_extra={"unit": "ms"})
    collate_share: int | float | None = Field(
        description="collate time / batch build time",
        json_schema_extra={"unit": "fraction"})
    hot_function: str | None = Field(description="hottest user function in batch build, \"name (file:line)\"")
    hot_function_share: int | float | None = Field(
        description="inclusive share of batch build time in hot_function",
        json_schema_extra={"unit": "fraction"})
    hot_function_source: str | None = Field(description="source lines of hot_function")
    build_wait_share: int | float | None = Field(
        description="the part of data_wait_share that building batches explains (see tools/measure/models.py)",
        json_schema_extra={"unit": "fraction"})
    hot_function_step_share: int | float | None = Field(
        description="build_wait_share × hot_function_share: the hot spot's share of the step",
        json_schema_extra={"unit": "fraction"})
    sample_path_function: str | None = Field(
        description="the dataset's __getitem__ (or __iter__) in batch build, \"name (file:line)\": the per-sample path")
    sample_path_share: int | float | None = Field(
        description="inclusive share of batch build time under sample_path_function (its helpers, conversions "
                    "and library calls included)",
        json_schema_extra={"unit": "fraction"})
    transform_share: int | float | None = Field(
        description="the larger of hot_function_share and sample_path_share, at most 1 - collate_share: what a "
                    "per-sample rewrite can remove",
        json_schema_extra={"unit": "fraction"})
    transform_step_share: int | float | None = Field(
        description="build_wait_share × transform_share: the per-sample path's share of the step",
        json_schema_extra={"unit": "fraction"})
    collate_step_share: int | float | None = Field(
        description="build_wait_share × collate_share: collate's share of the step",
        json_schema_extra={"unit": "fraction"})
    main_hot_function: str | None = Field(description="hottest user function in the main process")
    main_hot_function_share: int | float | None = Field(
        description="main_hot_function's share of step time",
        json_schema_extra={"unit": "fraction"})
    epoch_stall_share: int | float | None = Field(
        description="share of measured time in epoch-start steps beyond the median step",
        json_schema_extra={"unit": "fraction"})
    startup_s: int | float | None = Field(
        description="seconds from launch to the first step",
        json_schema_extra={"unit": "s"})
    noise_pct: int | float | None = Field(
        description="run-to-run noise of the step time, percent",
        json_schema_extra={"unit": "%"})
    workers_needed: int | float | None = Field(
        description="ceil(batch build ms / compute ms); the codemod bounds it by cpu_count",
        json_schema_extra={"unit": "count"})
    worker_scaling: int | float | None = Field(
        description="min(workers_needed, cpu_count) / max(num_workers, 1): how much faster batches can arrive",
        json_schema_extra={"unit": "ratio"})
    gpu_util_p50: int | float | None = Field(
        description="median NVML GPU utilization, percent (None without CUDA)",
        json_schema_extra={"unit": "%"})
    device: str | None = Field(description="\"cpu\" or \"cuda\"")
    step_time_cv: int | float | None = Field(
        description="coefficient of variation of the step time",
        json_schema_extra={"unit": "ratio"})
    torch_threads: int | float | None = Field(
        description="intra-op threads of the main process (torch.get_num_threads())",
        json_schema_extra={"unit": "count"})
    worker_torch_threads: int | float | None = Field(
        description="largest intra-op thread count in a DataLoader worker (torch sets 1)",
        json_schema_extra={"unit": "count"})
    cpu_demand: int | float | None = Field(
        description="torch_threads + busy workers × max(worker_torch_threads, 1); busy workers = "
                    "min(num_workers, worker_fetch_ms / step_ms)",
        json_schema_extra={"unit": "ratio"})
    cpu_oversubscription: int | float | None = Field(
        description="cpu_demand / cpu_count; above 1 threads contend for cores",
        json_schema_extra={"unit": "ratio"})
    gc_share: int | float | None = Field(
        description="garbage-collection pauses in the main process per step / step_ms",
        json_schema_extra={"unit": "fraction"})
    build_cpu_share: int | float | None = Field(
        description="time the batch builders ran or waited for a core / their wall time; low means blocked on "
                    "reads",
        json_schema_extra={"unit": "fraction"})
    build_blocked_share: int | float | None = Field(
        description="build_wait_share × (1 - build_cpu_share): the step's wait for blocked builds (I/O)",
        json_schema_extra={"unit": "fraction"})
    sync_calls_per_step: int | float | None = Field(
        description=".item()/.cpu()/.tolist() calls on device tensors per step (full run)",
        json_schema_extra={"unit": "calls/step"})
    sync_wait_share: int | float | None = Field(
        description="time inside those calls per step / step_ms (host waits for the device)",
        json_schema_extra={"unit": "fraction"})
    autocast_used: int | float | None = Field(
        description="1 if the model ran under autocast, else 0 (None: no model call seen)",
        json_schema_extra={"unit": "0/1"})
    tf32_allowed: int | float | None = Field(
        description="1 if TF32 is allowed for float32 matmuls, else 0 (None without CUDA)",
        json_schema_extra={"unit": "0/1"})
    cuda_capability: int | float | None = Field(
        description="CUDA compute capability, e.g. 8.0 (None without CUDA)",
        json_schema_extra={"unit": "version"})
    gpu_busy_share: int | float | None = Field(
        description="GPU time of forward + backward + optimizer (CUDA events) / step_ms (None without CUDA)",
        json_schema_extra={"unit": "fraction"})
    gpu_idle_share: int | float | None = Field(
        description="1 - gpu_util_p50 / 100 (None without NVML)",
        json_schema_extra={"unit": "fraction"})
    gpu_memory_peak_share: int | float | None = Field(
        description="peak reserved device memory / device memory (None without CUDA)",
        json_schema_extra={"unit": "fraction"})
    gpu_alloc_retries: int | float | None = Field(
        description="caching-allocator retries during the run (None without CUDA)",
        json_schema_extra={"unit": "count"})
    headspace_share: int | float | None = Field(
        description="(step - step with free data) / step from replaying stored batches: the most a data-side "
                    "change can gain (None: not measured)",
        json_schema_extra={"unit": "fraction"})
    world_size: int | float | None = Field(
        description="ranks whose probe records the profile found (1 for a single process)",
        json_schema_extra={"unit": "count"})
    rank_wait_spread_share: int | float | None = Field(
        description="the straggler rank's data wait beyond the median rank's / median step "
                    "(tools/measure/ranks.py); None with one rank",
        json_schema_extra={"unit": "fraction"})

    def values(self) -> dict[str, int | float | str | None]:
        """The metrics by name, as the knowledge base's conditions and templates read them."""
        return self.model_dump()


def kind(name: str) -> Literal["number", "text"]:
    """Whether metric ``name`` holds a number or a text."""
    annotation = str(ProfileMetrics.model_fields[name].annotation)
    return "text" if "str" in annotation else "number"


def unit(name: str) -> str:
    """The unit of metric ``name`` ("ms", "fraction", "count", ...; "" for a text)."""
    extra = ProfileMetrics.model_fields[name].json_schema_extra or {}
    return str(extra.get("unit", ""))


def transform_shares(hot_function_share, sample_path_share, build_wait_share, collate_share=None) -> tuple:
    """(transform_share, transform_step_share): the larger of the two shares, and its share of the step.

    The one formula behind both metrics: the profile computes them, and the knowledge base derives
    them for profiles recorded before the per-sample path was measured. Non-numbers count as absent.
    The timed collate share bounds it: per-sample work is what batch building spends outside the
    collate, so a hot loop inside a slow collate (its samples count in hot_function_share) reads as
    slow_collate, not as a transform hotspot.
    """
    def number(value):
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    shares = [v for v in (number(hot_function_share), number(sample_path_share)) if v is not None]
    share = max(shares) if shares else None
    collate = number(collate_share)
    if share is not None and collate is not None:
        share = min(share, max(0.0, 1.0 - collate))
    wait = number(build_wait_share)
    return share, (wait * share if share is not None and wait is not None else None)


def description(name: str) -> str:
    return ProfileMetrics.model_fields[name].description or ""


def metrics_table() -> str:
    """README's table of metrics (knowledge_base/README.md holds it verbatim)."""
    rows = ["| metric | kind | unit | meaning |", "|---|---|---|---|"]
    rows += [f"| `{name}` | {kind(name)} | {unit(name)} | {description(name)} |" for name in ProfileMetrics.model_fields]
    return "\n".join(rows)


__all__ = ["ProfileMetrics", "description", "kind", "metrics_table", "transform_shares", "unit"]
