"""Records that cross a boundary: what a pipeline run measured and the profile built from runs."""
from __future__ import annotations

from pydantic import BaseModel, Field

from perfloop.contracts.code import FunctionRef
from perfloop.contracts.metrics import ProfileMetrics, transform_shares
from perfloop.contracts.stages import Stage
from perfloop.tools.measure.interference import Interference
from perfloop.tools.measure.ranks import RankReport

STAGES: tuple[str, ...] = tuple(str(stage) for stage in Stage)
"""The ledger's stages, in reading order (contracts.stages.Stage)."""


class StageLedger(BaseModel):
    """Mean steady-state step split into stages; each interval is counted once, parts sum to step_ms."""

    step_ms: float = Field(description="Mean wall time of one measured step (ms).")
    data_wait_ms: float = Field(description="Blocked in the DataLoader iterator, epoch starts included (ms).")
    h2d_ms: float = Field(0.0, description="Host-to-device copies outside other stages (ms); 0 on CPU.")
    forward_ms: float = Field(description="Outermost nn.Module calls, loss modules included (ms).")
    backward_ms: float = Field(description="Inside torch.autograd.backward (ms).")
    optimizer_ms: float = Field(description="Inside Optimizer.step and GradScaler.step, excluding the forward and "
                                            "backward an optimizer.step(closure) runs: those count as forward "
                                            "and backward, the closure's own code as other (ms).")
    other_ms: float = Field(description="Host code of the loop not in any stage above (ms).")

    def share(self, stage: str) -> float:
        """Return the fraction of the step spent in ``stage`` (one of STAGES)."""
        return getattr(self, f"{stage}_ms") / self.step_ms if self.step_ms > 0 else 0.0


class HotHelper(FunctionRef):
    """A leaf user function sampled under a hot function: evidence of where its loop spends time."""

    self_share: float = Field(description="Fraction of the phase's samples with this function as the innermost "
                                          "user frame, under the hot function.")


class HotFunction(FunctionRef):
    """A user function seen by the stack sampler, with its inclusive and self shares of a phase.

    The first one of a list owns the hot loop: the innermost user function whose own loops hold
    most of the phase's samples, its user callees' time counted in it (see tools/measure/hotspots.py).
    """

    share: float = Field(description="Inclusive share: fraction of the phase's samples with this function on "
                                     "the stack (its callees counted in it).")
    phase: str = Field(description="'batch_build' (worker or in-process __getitem__+collate) or 'main:<stage>'.")
    hot_lines: list[int] = Field(default_factory=list, description="Its most sampled lines (callees counted), "
                                                                   "hottest first.")
    source: str = Field("", description="Source text of the hottest lines.")
    self_share: float = Field(0.0, description="Self share: fraction of the phase's samples with this function "
                                               "as the innermost user frame.")
    loop_share: float = Field(0.0, description="Fraction of the phase's samples spent inside this function's own "
                                               "for/while/comprehension loops, callees counted.")
    loop_line: int | None = Field(None, description="Header line of its hottest loop; None when it has no "
                                                    "sampled loop (or its source could not be parsed).")
    helpers: list[HotHelper] = Field(default_factory=list, description="Leaf user functions sampled under it, "
                                                                        "by self share: the evidence.")


class LoaderInfo(BaseModel):
    """The training DataLoader as the probe saw it constructed."""

    file: str = Field(description="File of the DataLoader(...) call, relative to the target folder.")
    line: int = Field(description="Line of the call.")
    num_workers: int
    batch_size: int | None = None
    pin_memory: bool = False
    persistent_workers: bool = False
    prefetch_factor: int | None = None
    dataset: str = Field("", description="Dataset class name.")
    iterable: bool = Field(False, description="True for an IterableDataset.")
    collate_fn: str = ""
    read_by_thread: str | None = Field(None, description="Name of the thread other than the loop's that reads it "
                                                         "(a prefetcher handing batches to the loop), if any.")
    batches_per_epoch: int | None = Field(None, description="len(loader) as constructed: the steps of one epoch; "
                                                           "None where the loader has no length.")
    built: int = Field(1, description="Loader objects the run built at this call site: more than 1 when the loop "
                                      "builds its DataLoader anew every epoch or fold.")


class DataBuild(BaseModel):
    """How long building one batch takes, wherever it runs."""

    where: str = Field(description="'workers', 'main process', or \"main process's thread 'NAME'\".")
    num_batches: int
    build_ms: float = Field(description="Median time to build one batch: __getitem__ calls + collate (ms).")
    collate_ms: float = Field(description="Median collate time per batch (ms).")
    collate_share: float = Field(description="Total collate time / total build time.")
    cpu_share: float | None = Field(None, description="Time the building thread ran or waited for a core (CPU time "
                                                      "alone where Linux schedstat is missing) / its wall time, over "
                                                      "all batches; low means it blocked on reads, not computed.")


class GpuStats(BaseModel):
    """GPU-side numbers; absent parts say why (no CUDA, no NVML)."""

    available: bool
    reason: str = ""
    device_name: str = ""
    util_p5: float | None = None
    util_p50: float | None = None
    util_p95: float | None = None
    stage_gpu_ms: dict[str, float] = Field(default_factory=dict, description="Mean GPU ms per stage from CUDA events.")
    capability: float | None = Field(None, description="CUDA compute capability, e.g. 8.0 (TF32/BF16 from 8.0).")
    tf32_allowed: bool | None = Field(None, description="TF32 allowed for float32 matmuls.")
    memory_peak_share: float | None = Field(None, description="Peak reserved device memory / device memory.")
    alloc_retries: int | None = Field(None, description="Caching-allocator retries (cudaMalloc failed, cache "
                                                        "flushed, tried again): memory pressure.")


class StageSpan(BaseModel):
    """One stretch of a step spent in one stage, as the probe timed it."""

    stage: str = Field(description="A timed stage (contracts.stages.TIMED_STAGES): 'data_wait', 'h2d', 'forward', "
                                   "'backward' or 'optimizer'.")
    start_ms: float = Field(description="Offset from the step's start (ms).")
    duration_ms: float


class WorkerFetch(BaseModel):
    """One batch built by a DataLoader worker (or the main process), placed on a step's clock."""

    pid: int = Field(description="Process that built the batch.")
    start_ms: float = Field(description="Offset from the step's start (ms); negative when it began before the step.")
    duration_ms: float = Field(description="__getitem__ calls + collate (ms).")


class StepTimeline(BaseModel):
    """One measured step laid out in time: the main process's stages and the batch builds around it."""

    index: int = Field(description="Step number in the run (warm-up included).")
    start_wall: float = Field(description="Wall-clock start of the step (s since the epoch).")
    step_ms: float
    main_pid: int = 0
    spans: list[StageSpan] = Field(default_factory=list, description="Main-process stages in time order; "
                                                                     "uncovered time is 'other'.")
    fetches: list[WorkerFetch] = Field(default_factory=list, description="Batch builds overlapping the step "
                                                                         "or the step-long window before it.")


class RunMeasurement(BaseModel):
    """One bounded pipeline run under the probe."""

    mode: str = Field(description="'full' (stage timers, sampler) or 'light' (timing, fingerprints, loss).")
    label: str = Field("", description="What the run was for, e.g. 'baseline' or 'candidate'.")
    samples_per_s: float = Field(description="Samples of measured steps / their wall time.")
    step_ms_median: float
    startup_s: float = Field(description="Process launch to the first batch returned (s).")
    wall_s: float = Field(description="Whole process wall time (s).")
    num_steps_measured: int
    exit_reason: str = Field(description="'max_steps' when the probe bounded the run, 'exit' when the pipeline ended.")
    probe_dir: str = Field(description="Where the raw probe files of this run are kept.")
    losses: list[float | None] = Field(default_factory=list, description="Loss per step (all steps, warm-up included).")
    data_digest: str = Field(description="Hash over the row hashes of every step's batch, in order.")
    step_ms: list[float] = Field(default_factory=list, description="Wall time of each measured step (ms).")
    step_samples: list[int] = Field(default_factory=list, description="Samples in each measured step.")
    timeline: StepTimeline | None = Field(None, description="The median measured step laid out in time (full "
                                                            "runs of probes that record a timeline; else None).")
    interference: Interference | None = Field(None, description="What else ran on the machine during the measured "
                                                                "steps (tools/measure/interference.py); None from "
                                                                "perfloop before it.")

    @property
    def contaminated(self) -> bool:
        """Other work took enough of the machine during the measured steps to re-measure this run."""
        return self.interference is not None and self.interference.contaminated


class Profile(BaseModel):
    """Where each millisecond of a step goes, from one full run plus light runs for throughput and noise."""

    command: str
    samples_per_s: float = Field(description="Median over the light runs.")
    noise_pct: float = Field(description="About two standard deviations of one light run's samples/s (robust), in %.")
    startup_s: float = Field(description="Median start-up time to the first batch (s).")
    ledger: StageLedger
    loader: LoaderInfo | None = None
    data_build: DataBuild | None = None
    hot_functions: list[HotFunction] = Field(default_factory=list, description="Batch-build hot spots, hottest first.")
    main_hot_functions: list[HotFunction] = Field(default_factory=list, description="Main-process 'other' hot spots.")
    epoch_stall_share: float = 0.0
    step_time_cv: float = 0.0
    torch_threads: int | None = Field(None, description="Intra-op threads of the main process (torch.get_num_threads).")
    worker_torch_threads: int | None = Field(None, description="Largest intra-op thread count seen in a DataLoader "
                                                               "worker (torch sets 1 unless the pipeline changes it).")
    gc_ms_per_step: float = Field(0.0, description="Mean garbage-collection pause per measured step, main process (ms).")
    sync_calls_per_step: float | None = Field(None, description="Mean .item()/.cpu()/.tolist() calls on device "
                                                                "tensors per step (full run; None when not measured).")
    sync_ms_per_step: float | None = Field(None, description="Mean time inside those calls per step (ms).")
    autocast_used: bool | None = Field(None, description="Whether the model ran under autocast (None: no model call seen).")
    headspace: float | None = Field(None, description="(step - step with free data) / step: the most any data-side "
                                                      "change can gain, from replaying stored batches; None when not "
                                                      "measured (see headspace_note).")
    step_ms_free_data: float | None = Field(None, description="Median step time of the replay run, where the "
                                                              "loader was bypassed (ms).")
    headspace_note: str = Field("", description="How headspace was measured, or why it could not be.")
    cpu_count: int = 1
    versions: dict[str, str] = Field(default_factory=dict, description="Python and the numeric libraries the "
                                                                       "pipeline imported (torch, numpy, ...).")
    device: str = "cpu"
    gpu: GpuStats
    runs: list[RunMeasurement]
    warnings: list[str] = Field(default_factory=list)
    ranks: RankReport | None = Field(None, description="Every rank of a multi-process (torchrun) job; None for one.")

    def metrics(self) -> dict[str, float | int | str | None]:
        """The metrics by name, as the knowledge base's conditions and templates read them."""
        return self.typed_metrics().values()

    def build_hot_functions(self) -> list[HotFunction]:
        """The hot functions of batch building: the loader's, or in a loop without a DataLoader (its own
        get_batch()) the main process's, since there the batches are built inline."""
        if self.loader is None and self.data_build is None:
            return self.main_hot_functions
        return self.hot_functions

    def transform_hot_function(self) -> HotFunction | None:
        """The function the knowledge base calls ``hot_function``: what a data-side rewrite changes: the hottest
        of ``build_hot_functions``."""
        functions = self.build_hot_functions()
        return functions[0] if functions else None

    def sample_path(self) -> HotFunction | None:
        """The dataset's `__getitem__` (or `__iter__`/`__next__`) among batch build's hot functions, by share.

        Its inclusive share is the per-sample path: the loop owner's helpers, its caller's
        conversions (`tolist()`, `torch.tensor(list)`) and per-row draws all count, where the
        loop owner's own share sees only its part.
        """
        if self.loader is None and self.data_build is None:
            return None
        paths = [h for h in self.hot_functions
                 if h.name.rsplit(".", 1)[-1] in ("__getitem__", "__getitems__", "__iter__", "__next__")]
        return max(paths, key=lambda h: h.share) if paths else None

    def typed_metrics(self) -> ProfileMetrics:
        """Flatten into ProfileMetrics, the names the knowledge base's conditions use."""
        led = self.ledger
        compute_ms = max(led.step_ms - led.data_wait_ms - led.h2d_ms, 1e-3)
        build = self.data_build
        hot = self.hot_functions[0] if self.hot_functions else None
        main_hot = self.main_hot_functions[0] if self.main_hot_functions else None
        loader = self.loader
        workers_needed = None
        build_wait_share = None
        if build is not None and loader is not None:
            # In the main process every build is waited for; with N workers building in
            # parallel with the model, only what N of them cannot hide is.
            hidden_ms = 0.0 if loader.num_workers == 0 else compute_ms
            per_batch_ms = build.build_ms / max(loader.num_workers, 1)
            build_wait_share = min(led.data_wait_ms, max(0.0, per_batch_ms - hidden_ms)) / led.step_ms
        if build is not None:
            workers_needed = max(1, -(-int(build.build_ms * 1000) // int(compute_ms * 1000)))
        hot_share = hot.share if hot else None
        # Batch building shows up in the step only as the wait it causes, so a hot spot's
        # share of the step is its share of building times that wait.
        hot_step_share = build_wait_share * hot.share if hot and build_wait_share is not None else None
        if loader is None and build is None:
            # No DataLoader: the loop builds its own batches (a get_batch()), so the whole data wait is
            # batch building, and the main process's hot loop owner is the transform to change. Its
            # samples are a share of the whole step; of batch building it is that over the wait.
            build_wait_share = led.share("data_wait")
            hot, hot_share, hot_step_share = main_hot, None, None
            if main_hot is not None:
                hot_step_share = min(main_hot.share, build_wait_share)
                hot_share = hot_step_share / build_wait_share if build_wait_share > 0 else None
        path = self.sample_path()
        path_share = path.share if path is not None else None
        transform_share, transform_step_share = transform_shares(hot_share, path_share, build_wait_share,
                                                                      build.collate_share if build else None)
        return ProfileMetrics(**{
            "sample_path_function": path.where() if path is not None else None,
            "sample_path_share": path_share,
            "transform_share": transform_share,
            "transform_step_share": transform_step_share,
            "step_ms": led.step_ms,
            "samples_per_s": self.samples_per_s,
            "data_wait_share": led.share("data_wait"),
            "h2d_share": led.share("h2d"),
            "input_share": led.share("data_wait") + led.share("h2d"),
            "forward_share": led.share("forward"),
            "backward_share": led.share("backward"),
            "optimizer_share": led.share("optimizer"),
            "compute_share": led.share("forward") + led.share("backward") + led.share("optimizer"),
            "other_share": led.share("other"),
            "num_workers": loader.num_workers if loader else None,
            "persistent_workers": int(loader.persistent_workers) if loader else None,
            "pin_memory": int(loader.pin_memory) if loader else None,
            "prefetch_factor": loader.prefetch_factor if loader else None,
            "batch_size": loader.batch_size if loader else None,
            "cpu_count": self.cpu_count,
            "worker_fetch_ms": build.build_ms if build else None,
            "collate_share": build.collate_share if build else None,
            "hot_function": hot.where() if hot else None,
            "hot_function_share": hot_share,
            "hot_function_source": hot.source if hot else None,
            "build_wait_share": build_wait_share,
            "hot_function_step_share": hot_step_share,
            "collate_step_share": (build_wait_share * build.collate_share
                                   if build and build_wait_share is not None else None),
            "main_hot_function": main_hot.where() if main_hot else None,
            "main_hot_function_share": main_hot.share if main_hot else None,
            "epoch_stall_share": self.epoch_stall_share,
            "startup_s": self.startup_s,
            "noise_pct": self.noise_pct,
            "workers_needed": workers_needed,
            "worker_scaling": (min(workers_needed, self.cpu_count) / max(loader.num_workers, 1)
                               if workers_needed and loader else None),
            "device": self.device,
            "step_time_cv": self.step_time_cv,
            "gpu_util_p50": self.gpu.util_p50,
            **self._runtime_metrics(build_wait_share),
        })

    def _runtime_metrics(self, build_wait_share: float | None) -> dict[str, float | int | str | None]:
        """Threads, GC, syncs, precision and device memory, as knowledge-base metrics."""
        led, gpu, loader, build = self.ledger, self.gpu, self.loader, self.data_build
        step_ms = led.step_ms if led.step_ms > 0 else None
        demand = None
        if self.torch_threads is not None and loader is not None:
            # Workers idle once their prefetch queue is full: on average build_ms / step_ms of them
            # are busy, since every step consumes one batch.
            busy = loader.num_workers
            if build is not None and step_ms:
                busy = min(busy, build.build_ms / step_ms)
            demand = self.torch_threads + busy * max(self.worker_torch_threads or 1, 1)
        compute_gpu_ms = sum(gpu.stage_gpu_ms.get(s, 0.0) for s in ("forward", "backward", "optimizer"))
        return {
            "torch_threads": self.torch_threads,
            "worker_torch_threads": self.worker_torch_threads,
            "cpu_demand": demand,
            "cpu_oversubscription": demand / max(self.cpu_count, 1) if demand is not None else None,
            "gc_share": self.gc_ms_per_step / step_ms if step_ms else None,
            "build_cpu_share": build.cpu_share if build else None,
            "build_blocked_share": (build_wait_share * (1.0 - build.cpu_share)
                                    if build and build.cpu_share is not None and build_wait_share is not None
                                    else None),
            "sync_calls_per_step": self.sync_calls_per_step,
            "sync_wait_share": (self.sync_ms_per_step / step_ms
                                if self.sync_ms_per_step is not None and step_ms else None),
            "autocast_used": int(self.autocast_used) if self.autocast_used is not None else None,
            "tf32_allowed": int(gpu.tf32_allowed) if gpu.tf32_allowed is not None else None,
            "cuda_capability": gpu.capability,
            "gpu_busy_share": (min(compute_gpu_ms / step_ms, 1.0)
                               if gpu.available and gpu.stage_gpu_ms and step_ms else None),
            "gpu_idle_share": 1.0 - gpu.util_p50 / 100.0 if gpu.util_p50 is not None else None,
            "gpu_memory_peak_share": gpu.memory_peak_share,
            "gpu_alloc_retries": gpu.alloc_retries,
            "headspace_share": self.headspace,
            "world_size": len(self.ranks.ranks) if self.ranks else 1,
            # The straggler's data wait beyond the median rank's: the others wait that long in all-reduce.
            "rank_wait_spread_share": self.ranks.excess_pct / 100.0 if self.ranks else None,
        }
