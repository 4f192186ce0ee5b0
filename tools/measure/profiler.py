"""Run a pipeline under the probe and turn the probe's files into measurements and a Profile."""
from __future__ import annotations

import hashlib
import os
import shutil
import statistics
from pathlib import Path

from pydantic import BaseModel, Field

from perfloop.contracts.layout import RECORD_NAME, WORKER_FACTS_GLOB, WORKER_LOG_GLOB, Defaults, Env
from perfloop.sandbox.runner import RunLimits, RunResult, run_command
from perfloop.tools.contract.target import Target
from perfloop.tools.measure import written
from perfloop.tools.measure.folder import ProbeFolder
from perfloop.tools.measure.headspace import headspace_fields
from perfloop.tools.measure.hotspots import batch_build_hotspots, main_hotspots, relative_to_target, worker_json
from perfloop.tools.measure.interference import interference_of
from perfloop.tools.measure.models import (
    DataBuild,
    GpuStats,
    LoaderInfo,
    Profile,
    RunMeasurement,
    StageLedger,
)
from perfloop.tools.measure.noise import noise_pct
from perfloop.tools.measure.ranks import read_ranks
from perfloop.tools.measure.record import Fetch, ProbeRecord, RecordError, Step, worker_fetches
from perfloop.tools.measure.thread_builds import thread_build_stacks
from perfloop.tools.measure.timeline import median_step_timeline

PROBE_DIR = Path(__file__).resolve().parent / "probe"


class ProbeSettings(BaseModel):
    """How each profiled run is bounded and sampled."""

    steps: int = Field(Target.model_fields["steps"].default, description="Steady-state steps measured per run.")
    warmup_steps: int = Field(Target.model_fields["warmup_steps"].default,
                              description="Steps run first and left out of the numbers.")
    sample_ms: float = Field(Defaults.SAMPLE_MS, description="Stack sampler period in the full run (ms).")
    first_step_timeout_s: float = Field(Defaults.FIRST_STEP_TIMEOUT_S, description="Stop a run whose process imported torch but saw "
                                        "neither a DataLoader batch nor an optimizer step this long after start "
                                        "(s); 0 waits for the run's time limit.")
    limits: RunLimits = Field(default_factory=RunLimits, description="Time, memory and network limits per run.")

    def model_post_init(self, _context) -> None:
        if self.steps < 2:
            raise ValueError(f"steps must be at least 2 (got {self.steps}): set `steps` in [tool.perfloop]")
        if self.warmup_steps < 0:
            raise ValueError(f"warmup_steps must be >= 0 (got {self.warmup_steps})")


def settings_for(target: Target) -> ProbeSettings:
    """Bound and limit each pipeline run as the target contract says."""
    return ProbeSettings(steps=target.steps, warmup_steps=target.warmup_steps,
                         first_step_timeout_s=target.first_step_timeout_s,
                         limits=RunLimits(timeout_s=target.timeout_s, memory_mb=target.memory_mb, network=target.network))


class PipelineError(RuntimeError):
    """The pipeline failed or never reached a DataLoader batch; the message carries its stderr tail."""

    def __init__(self, message: str, result: RunResult | None = None, steps: int | None = None) -> None:
        super().__init__(message)
        self.result = result
        self.steps = steps  # set when the run ended by itself after this many steps, too few to measure


class ProbeRun(BaseModel):
    """A finished run: its measurement plus the main-process record, parsed once (tools/measure/record.py)."""

    measurement: RunMeasurement
    record: ProbeRecord
    result: RunResult


def run_probed(command: str, target_dir: Path, out_dir: Path, settings: ProbeSettings,
               mode: str = "light", label: str = "", extra_env: dict[str, str] | None = None) -> ProbeRun:
    """Run ``command`` in ``target_dir`` with the probe attached; raise PipelineError on failure.

    ``extra_env`` adds probe settings, e.g. Env.REPLAY_FROM for a headspace run (tools/measure/headspace.py).
    """
    if out_dir.exists():
        shutil.rmtree(out_dir)  # a re-run after a crash must not mix in the earlier attempt's files
    out_dir.mkdir(parents=True)
    env = {
        # The probe's folder first; the user's own PYTHONPATH (if any) still applies after it.
        "PYTHONPATH": os.pathsep.join(filter(None, [str(PROBE_DIR), os.environ.get("PYTHONPATH", "")])),
        Env.PROBE_DIR: str(out_dir),
        Env.MAX_STEPS: str(settings.warmup_steps + settings.steps),
        Env.WARMUP_STEPS: str(settings.warmup_steps),
        Env.SUPERVISOR_PID: str(os.getpid()),
        Env.PROBE_MODE: mode,
        Env.SAMPLE_MS: str(settings.sample_ms),
        Env.FIRST_STEP_TIMEOUT_S: str(settings.first_step_timeout_s),
        "PYTHONUNBUFFERED": "1",
        **(extra_env or {}),
    }
    before = written.snapshot(target_dir)
    result = run_command(command, cwd=target_dir, extra_env=env, limits=settings.limits,
                         stdout_path=ProbeFolder(out_dir).stdout, stderr_path=ProbeFolder(out_dir).stderr)
    written.record_written(target_dir, before, out_dir)  # files the run wrote, for the side-output check
    record_path = out_dir / RECORD_NAME
    write_error = result.input_write_error()
    if write_error:
        raise PipelineError(write_error, result)
    if result.timed_out or result.memory_exceeded:
        why = "ran past its time limit" if result.timed_out else "exceeded its memory limit"
        raise PipelineError(f"`{command}` {why} ({result.wall_s:.0f} s, peak {result.peak_rss_mb:.0f} MB) "
                            f"in {target_dir}.\nstderr tail:\n{result.stderr_tail}", result)
    record = _read_record(record_path, result) if record_path.exists() else None
    if record is not None:
        _raise_if_no_step(record, command, target_dir, settings, result)
    if result.returncode != 0:
        raise PipelineError(f"`{command}` failed with exit code {result.returncode} in {target_dir}.\n"
                            f"stderr tail:\n{result.stderr_tail}", result)
    if record is None:
        raise PipelineError(f"`{command}` exited without the probe recording anything in {target_dir}: "
                            "is it a Python process importing torch? (it must run under `python`)", result)
    steps = record.steps
    if len(steps) <= settings.warmup_steps:
        source = "optimizer" if record.step_source == "optimizer" else "DataLoader"
        raise PipelineError(f"`{command}` ran only {len(steps)} {source} steps; perfloop needs more than "
                            f"warmup_steps={settings.warmup_steps}. Make the pipeline run longer or lower "
                            "warmup_steps/steps in [tool.perfloop].", result, steps=len(steps))
    return ProbeRun(measurement=_measure(record, result, settings, out_dir, mode, label), record=record, result=result)


def _read_record(record_path: Path, result: RunResult) -> ProbeRecord:
    """Parse the run's record, the one time it is read; a malformed one is a PipelineError naming the file."""
    try:
        return ProbeRecord.read(record_path)
    except RecordError as error:
        raise PipelineError(f"{error}\nstderr tail:\n{result.stderr_tail}", result) from None


def _raise_if_no_step(record: ProbeRecord, command: str, target_dir: Path, settings: ProbeSettings,
                      result: RunResult) -> None:
    """Explain a run the probe stopped because it never reached a step."""
    if record.exit_reason != "no_step":
        return
    seen = record.seen
    what = (f"torch {'imported' if seen.torch_imported else 'never imported'}, "
            f"{seen.module_calls} nn.Module calls, "
            f"{seen.optimizers_constructed} optimizer(s) constructed, "
            f"{seen.dataloaders_constructed} DataLoader(s) constructed")
    raise PipelineError(
        f"`{command}` in {target_dir} drew no DataLoader batch and took no optimizer step within "
        f"{settings.first_step_timeout_s:g} s, so perfloop stopped it. Seen: {what}. perfloop counts a step per "
        "DataLoader batch, or per Optimizer.step() when no DataLoader is used: point `command` at the training "
        "entry point, or, if start-up really takes longer, raise first_step_timeout_s.", result)


def _measured(record: ProbeRecord, settings: ProbeSettings) -> list[Step]:
    return record.measured(settings.warmup_steps, settings.steps)


def samples_per_s(steps: list[Step]) -> float:
    """Samples of ``steps`` over their step times (which leave the probe's clocked work out): a run's
    throughput as every speed decision reads it; 0.0 without measured time."""
    total_ms = sum(s.step_ms for s in steps)
    return sum(s.samples for s in steps) / total_ms * 1000.0 if total_ms else 0.0


def _measure(record: ProbeRecord, result: RunResult, settings: ProbeSettings, out_dir: Path,
             mode: str, label: str) -> RunMeasurement:
    steps = _measured(record, settings)
    digest = hashlib.sha256()
    for step in record.steps:
        digest.update(",".join(step.row_hashes).encode() + b";")
    startup = (record.first_batch_wall or result.started_at) - result.started_at
    return RunMeasurement(
        mode=mode, label=label,
        samples_per_s=samples_per_s(steps),
        step_ms_median=statistics.median(s.step_ms for s in steps),
        startup_s=max(0.0, startup), wall_s=result.wall_s, num_steps_measured=len(steps),
        exit_reason=record.exit_reason, probe_dir=str(out_dir),
        losses=[s.loss for s in record.steps], data_digest=digest.hexdigest(),
        step_ms=[s.step_ms for s in steps], step_samples=[s.samples for s in steps],
        timeline=median_step_timeline(record, out_dir, steps) if mode == "full" else None,
        interference=interference_of(record.load, settings.warmup_steps, len(steps)),
    )


def build_profile(full: ProbeRun, light: list[ProbeRun], command: str, target_dir: Path,
                  settings: ProbeSettings, replay: ProbeRun | str | None = None) -> Profile:
    """Combine one full run (where time goes) with light runs (throughput, noise) into a Profile.

    ``replay`` is the headspace run (tools/measure/headspace.py), or the reason there is none.
    """
    record = full.record
    steps = _measured(record, settings)
    count = len(steps)

    def mean(key: str) -> float:
        return sum(getattr(s, key) for s in steps) / count

    ledger = StageLedger(step_ms=mean("step_ms"), data_wait_ms=mean("data_wait_ms"), h2d_ms=mean("h2d_ms"),
                         forward_ms=mean("forward_ms"), backward_ms=mean("backward_ms"),
                         optimizer_ms=mean("optimizer_ms"), other_ms=mean("other_ms"))
    step_times = [s.step_ms for s in steps]
    median_step = statistics.median(step_times)
    stall = sum(max(0.0, s.step_ms - median_step) for s in steps if s.epoch_start)
    loader = _loader_info(record, target_dir)
    out_dir = Path(full.measurement.probe_dir)
    build = _data_build(record, out_dir, loader)
    throughput = [run.measurement.samples_per_s for run in light] or [full.measurement.samples_per_s]
    warnings = list(record.errors)
    ranks = read_ranks(record, out_dir, settings.warmup_steps, settings.steps)
    if full.measurement.exit_reason != "max_steps":
        warnings.append(f"the pipeline ended after {len(record.steps)} steps, before the "
                        f"{settings.warmup_steps + settings.steps} perfloop asked for")
    return Profile(
        command=command,
        samples_per_s=statistics.median(throughput),
        noise_pct=noise_pct(throughput),
        startup_s=statistics.median(run.measurement.startup_s for run in (light or [full])),
        ledger=ledger, loader=loader, data_build=build,
        hot_functions=batch_build_hotspots(record.stacks, out_dir, target_dir,
                                           thread_build_stacks(record.thread_builds)),
        main_hot_functions=main_hotspots(record.stacks, target_dir),
        epoch_stall_share=stall / sum(step_times) if step_times else 0.0,
        step_time_cv=statistics.pstdev(step_times) / statistics.mean(step_times) if count > 1 else 0.0,
        cpu_count=record.cpu_count or os.cpu_count() or 1,
        device="cuda" if record.cuda is not None else "cpu",
        gpu=_gpu_stats(record, steps),
        runs=[full.measurement] + [run.measurement for run in light],
        warnings=warnings,
        ranks=ranks,
        **_runtime_fields(record, steps, out_dir),
        **headspace_fields(full, light, replay),
    )



def _runtime_fields(record: ProbeRecord, steps: list[Step], out_dir: Path) -> dict:
    """Threads, GC pauses, host syncs and autocast from the probe's ``runtime`` facts and step records."""
    facts = record.runtime
    worker_threads = [facts.get("torch_threads") for facts in worker_json(out_dir, WORKER_FACTS_GLOB)
                      if isinstance(facts, dict)]
    worker_threads = [t for t in worker_threads if isinstance(t, int)]
    count = max(len(steps), 1)
    full = record.mode == "full"
    autocast = facts.autocast_seen
    return {
        "torch_threads": facts.torch_threads,
        "versions": dict(facts.versions),
        "worker_torch_threads": max(worker_threads) if worker_threads else None,
        "gc_ms_per_step": sum(s.gc_ms for s in steps) / count,
        "sync_calls_per_step": sum(s.sync_calls for s in steps) / count if full else None,
        "sync_ms_per_step": sum(s.sync_ms for s in steps) / count if full else None,
        "autocast_used": bool(autocast) if autocast is not None else None,
    }


def _loader_info(record: ProbeRecord, target_dir: Path) -> LoaderInfo | None:
    raw = record.step_loader_info()
    if raw is None:  # steps end at optimizer steps: a loader a prefetcher thread reads for the loop
        raw = next((loader for loader in record.loaders if loader.read_by_thread), None)
    if raw is None:
        return None
    return LoaderInfo(file=relative_to_target(raw.site.file, target_dir), line=raw.site.line,
                      num_workers=raw.num_workers, batch_size=raw.batch_size,
                      pin_memory=raw.pin_memory, persistent_workers=raw.persistent_workers,
                      prefetch_factor=raw.prefetch_factor, dataset=raw.dataset,
                      iterable=raw.iterable, collate_fn=raw.collate_fn,
                      read_by_thread=raw.read_by_thread, batches_per_epoch=raw.batches_per_epoch,
                      built=sum(1 for other in record.loaders if other.site == raw.site) if raw.site.file else 1)


def _data_build(record: ProbeRecord, out_dir: Path, loader: LoaderInfo | None) -> DataBuild | None:
    # Builds a prefetcher thread ran under cProfile (tools/measure/probe/perfloop_threadprof.py) took longer.
    fetches = [fetch for fetch in record.main_fetches if not fetch.profiled]
    where = f"main process's thread '{loader.read_by_thread}'" if loader and loader.read_by_thread else "main process"
    if any(out_dir.glob(WORKER_LOG_GLOB)):
        where = "workers"
        fetches = worker_fetches(out_dir)
    if not fetches:
        return None
    total_build = sum(f.fetch_ms for f in fetches)
    return DataBuild(where=where, num_batches=len(fetches),
                     build_ms=statistics.median(f.fetch_ms for f in fetches),
                     collate_ms=statistics.median(f.collate_ms for f in fetches),
                     collate_share=sum(f.collate_ms for f in fetches) / total_build if total_build else 0.0,
                     cpu_share=_cpu_share(fetches, total_build))


def _cpu_share(fetches: list[Fetch], total_build: float) -> float | None:
    """Time the builders were on a core or queued for one, over their wall time (1 - blocked share)."""
    key = "runnable_ms" if all(f.runnable_ms is not None for f in fetches) else "cpu_ms"
    values = [getattr(f, key) for f in fetches]
    if not total_build or any(value is None for value in values):
        return None
    return min(1.0, sum(values) / total_build)


def _gpu_stats(record: ProbeRecord, steps: list[Step]) -> GpuStats:
    cuda = record.cuda
    nvml = record.nvml
    if cuda is None:
        return GpuStats(available=False, reason=nvml.reason or "no CUDA device used by the pipeline")
    stage_ms: dict[str, float] = {}
    for step in steps:
        for stage, value in step.gpu_ms.items():
            stage_ms[stage] = stage_ms.get(stage, 0.0) + value / max(len(steps), 1)
    utils = sorted(sample[1] for sample in nvml.samples)
    def pct(q: float) -> float | None:
        return float(utils[min(len(utils) - 1, int(q * len(utils)))]) if utils else None
    device = record.runtime.cuda
    total = device.total_bytes if device else None
    return GpuStats(available=True, reason=nvml.reason, device_name=cuda.device,
                    util_p5=pct(0.05), util_p50=pct(0.5), util_p95=pct(0.95), stage_gpu_ms=stage_ms,
                    capability=device.capability if device else None,
                    tf32_allowed=device.matmul_allow_tf32 if device else None,
                    memory_peak_share=device.peak_reserved_bytes / total if total else None,
                    alloc_retries=device.alloc_retries if device else None)
