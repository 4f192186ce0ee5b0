"""Instrument a PyTorch pipeline from outside: step ledger, worker timings, stacks, data fingerprints.

Loaded by this folder's ``sitecustomize`` when ``Env.PROBE_DIR`` is set. It uses
only the standard library and torch (pynvml when present), because it runs inside
the user's interpreter. Nothing here may crash the pipeline: failures are written
to ``errors`` in the output instead. Its helpers that hold no probe state live beside
it: ``perfloop_sampler`` (stack samples), ``perfloop_fingerprint`` (row hashes of
batches, walked through their structure) and ``perfloop_gpu`` (CUDA events, NVML).

Its environment variables, output files and defaults are declared in ``perfloop_layout``
(set by perfloop's profiler; ``PROBE_MODE`` "light" keeps data wait, step boundaries,
fingerprints and loss only). In light runs each DataLoader batch, and the model's input, is copied in its
step and hashed when the record is written (``_Hasher``); a full run hashes in the step.

A *step* is the interval between two ``next()`` calls on the first DataLoader the
pipeline iterates; time blocked in ``next()`` (or in starting a new epoch's
iterator) is data wait; for accelerate's loader wrappers, which read their inner
DataLoader a batch ahead, the wrapper's own ``next()`` is the boundary. A pipeline
that completes an optimizer step before any DataLoader batch gets one step per
``Optimizer.step()`` instead (one per accumulation cycle under gradient
accumulation): the tensors passed to the model (the module of
the first outermost ``nn.Module`` call) are fingerprinted as its batch, and all host
time outside forward, backward, optimizer and h2d is data wait (the script's own
``get_batch``). So does a loop whose DataLoader is read by a thread of its own (a
background prefetcher handing batches over a queue): its wait is the loop's, not the
thread's ``next()``; that thread's batch builds are profiled (``perfloop_threadprof``), one
in four, since a sampler that needs the GIL cannot see inside them. Either way the outermost
``nn.Module`` call is forward; backward and optimizer step are timed by their own hooks; the
rest of the interval is "other". Stages
are timed on the loop's thread only: the main thread, or the thread that makes the first
model call when that is not the main thread (a trainer that runs its loop in a thread).
Stage times are exclusive: forward and backward run by an optimizer's closure
(``optimizer.step(closure)``, as LBFGS, Lightning and accelerate do) are booked as forward and
backward, the closure's own code as other, and the optimizer keeps the remainder.
"""
from __future__ import annotations

import atexit
import json
import multiprocessing.util
import os
import signal
import sys
import threading
import time
import traceback

from perfloop_fingerprint import (
    Unfingerprintable,
    count_rows,
    fingerprint,
    freeze,
    hex_digests,
    last_layout,
    new_batch,
)
from perfloop_gpu import CudaTimers, NvmlSampler
from perfloop_layout import (
    PROGRESS_NAME,
    ROW_DIGEST,
    TIMED_STAGES,
    Defaults,
    Env,
    Fingerprint,
    Stage,
    kept_batches_name,
    probe_error_name,
    record_name,
    samples_name,
    stacks_name,
    worker_facts_name,
    worker_log_name,
)
from perfloop_load import SAMPLE_EVERY_S, LoadReader
from perfloop_replay import keep_for_replay, replay_iterator, replays, save_replay
from perfloop_runtime import (
    install_gc_timer,
    note_autocast,
    patch_sync_points,
    runnable_ms,
    runtime_facts,
    worker_facts,
)
from perfloop_sampler import STOP_CODES, is_user_file, start_sampler
from perfloop_threadprof import BuildProfiler

_OUT_DIR = os.environ.get(Env.PROBE_DIR, "")
_MAX_STEPS = int(os.environ.get(Env.MAX_STEPS, "0") or 0)
_MODE = os.environ.get(Env.PROBE_MODE, "full")
_ROWS_ONLY = os.environ.get(Env.FINGERPRINT, Fingerprint.FULL) == Fingerprint.ROWS
"""Fingerprint row and leaf hashes only: no layout-free value hashes, no model-input hashes (Env.FINGERPRINT)."""
_SAMPLE_S = float(os.environ.get(Env.SAMPLE_MS, str(Defaults.SAMPLE_MS))) / 1000.0
_KEEP_ELEMENTS = int(float(os.environ.get(Env.KEEP_ELEMENTS, str(Defaults.KEEP_ELEMENTS))))
_DEFER_HASH_BYTES = int(float(os.environ.get(Env.DEFER_HASH_BYTES, str(Defaults.DEFER_HASH_BYTES))))
_FIRST_STEP_TIMEOUT_S = float(os.environ.get(Env.FIRST_STEP_TIMEOUT_S, str(Defaults.FIRST_STEP_TIMEOUT_S)) or 0)
_WARMUP_STEPS = int(os.environ.get(Env.WARMUP_STEPS, "0") or 0)
_SUPERVISOR_PID = int(os.environ.get(Env.SUPERVISOR_PID, "0") or 0)
_RANK = os.environ.get("RANK", "0")
_STAGES = tuple(str(stage) for stage in TIMED_STAGES)
_DATA = str(Stage.DATA_WAIT)
_INTERRUPTS = {
    # running stage -> stages that may start inside it and take their time from it
    "optimizer": ("closure", "forward", "backward"),  # optimizer.step(closure): LBFGS, Lightning
    "closure": ("forward", "backward"),
    "forward": ("backward",),
}


class _Probe:
    """All mutable probe state of one process."""

    def __init__(self) -> None:
        self.main_pid = os.getpid()
        self.loop_thread = threading.main_thread().ident  # the thread whose stages the ledger times
        self.loop_thread_known = False  # True once a model call or optimizer step confirmed it
        self.loader_threads: dict[int, str] = {}  # threads other than the loop's that read the DataLoader
        self.thread_loader: int | None = None  # the loader those threads read, kept for replay
        self.install_wall = time.time()
        self.install_perf = time.perf_counter()  # pairs with install_wall: perf_counter instants -> wall time
        self.progress_written = 0.0  # perf_counter of the last progress file
        self.first_batch_wall: float | None = None
        self.errors: list[str] = []
        self.loaders: list[dict] = []
        self.step_loader: int | None = None
        self.loader_sites: dict[int, tuple[str, int]] = {}  # loader id -> where it was built (file, line)
        self.step_source: str | None = None  # "loader" or "optimizer", whichever ends a step first
        self.model_id: int | None = None  # the module whose inputs are the batch in optimizer steps
        self.layout: list[str] | None = None  # leaves of the first batch, for the data check's message
        self.step_tensors: list = []  # model inputs of the open optimizer step, kept at its close
        self.step_calls = 0  # model calls recorded in the open optimizer step
        self.num_module_calls = 0
        self.num_optimizers = 0
        self.num_optimizer_steps = 0
        self.steps: list[dict] = []
        self.current: dict | None = None
        self.wrapper_depth = 0  # > 0 while a library's loader wrapper reads its inner DataLoader
        self.stages: list[list] = []  # [stage, depth, start of its running segment], innermost last
        self.main_fetches: list[dict] = []
        self.kept_batches: list = []
        self.kept_elements = 0
        self.step_copies: dict = {}  # the open step's batch copies by tensor id (freeze()), for its model input
        self.losses_pending: list = []
        self.finished = False
        self.sampler = None  # perfloop_sampler's sampler in full mode
        self.cuda = None  # CudaTimers when CUDA is in use
        self.nvml = None  # NvmlSampler
        self.nvml_reason = ""
        self.cuda_checked = False
        self.worker_file = None
        self.load: LoadReader | None = None  # machine load snapshots (perfloop_load), made at the first step
        self.load_samples: list[list] = []
        self.load_taken = 0.0  # perf_counter of the last snapshot

    # -- step ledger ---------------------------------------------------------
    def on_loop_thread(self) -> bool:
        """Tell whether the calling thread is the training loop's (the only one whose stages are timed)."""
        return threading.get_ident() == self.loop_thread

    @property
    def active_stage(self) -> str | None:
        """Return the ledger stage being timed now (None outside stages and in a closure's own code)."""
        stage = self.stages[-1][0] if self.stages else None
        return stage if stage in _STAGES else None

    def enter(self, stage: str) -> bool:
        """Start timing ``stage``; True means call leave().

        The same stage nests (a module calling submodules). A stage listed in ``_INTERRUPTS`` for the
        running one pauses it, so each interval is booked once, to the innermost stage. Any other
        stage inside a running one is not timed separately (a transform module inside data loading).
        """
        if threading.get_ident() != self.loop_thread:
            return False  # a loader thread's work overlaps the loop's; the ledger times only the loop
        stages = self.stages
        if stages and stages[-1][0] == stage:
            stages[-1][1] += 1
            return True
        now = time.perf_counter()
        if stages:
            if stage not in _INTERRUPTS.get(stages[-1][0], ()):
                return False
            self._book(stages[-1], now, accumulate=True)
        stages.append([stage, 1, now])
        if self.cuda is not None and stage in _STAGES:
            self.cuda.push(stage)
        return True

    def stage(self, stage: str) -> "_Stage":
        """Return a context manager that times its block as ``stage`` (see enter())."""
        return _Stage(self, stage)

    def leave(self, stage: str, accumulate: bool = True) -> None:
        """Stop timing ``stage`` (when it is the innermost one) and resume the stage it paused."""
        stages = self.stages
        if not stages or stages[-1][0] != stage or threading.get_ident() != self.loop_thread:
            return
        stages[-1][1] -= 1
        if stages[-1][1] > 0:
            return
        now = time.perf_counter()
        self._book(stages.pop(), now, accumulate)
        if stages:
            stages[-1][2] = now
            if self.cuda is not None and stages[-1][0] in _STAGES:
                self.cuda.push(stages[-1][0])

    def _book(self, running: list, now: float, accumulate: bool) -> None:
        """Add the running segment of a stage to the current step; close its CUDA range."""
        stage = running[0]
        if stage not in _STAGES:
            return  # an optimizer closure's own code: left to "other"
        if self.cuda is not None:
            self.cuda.pop(stage)
        if accumulate and self.current is not None:
            self.current[stage + "_ms"] += (now - running[2]) * 1000.0
            self.span(stage, running[2], now)

    # -- timeline (full mode) --------------------------------------------------
    def span(self, stage: str, start: float, end: float) -> None:
        """Add ``[stage, start_offset_ms, duration_ms]`` to the open step's timeline (full mode only)."""
        spans = self.current.get("spans") if self.current is not None else None
        if spans is not None:
            spans.append([stage, round((start - self.current["start"]) * 1000.0, 3),
                          round((end - start) * 1000.0, 3)])

    def wall(self, instant: float) -> float:
        """Return the wall-clock time of a perf_counter ``instant``."""
        return self.install_wall + (instant - self.install_perf)

    def own_start(self) -> tuple[float, float, float]:
        """Mark the start of the probe's own work in the open step (see own_time)."""
        step = self.current
        return time.perf_counter(), (step.get("gc_ms", 0.0) if step is not None else 0.0), time.thread_time()

    def own_time(self, mark: tuple[float, float, float], waits_to: str | None = None) -> None:
        """Leave the probe's own work since ``mark`` (fingerprints, kept batches) out of the open step.

        Hashing a batch of many small leaves costs milliseconds the pipeline never spends
        without the probe; booked as the loop's "other" time it would make a data-bound step
        look host-bound. The step's clock starts that much later instead (``probe_ms`` says how
        much), so the ledger and the timeline stay consistent; a garbage collection that ran
        meanwhile leaves ``gc_ms`` too, which stays a part of the step. Time inside a stage is
        left alone.

        Where a thread of the pipeline builds batches beside the loop, only the probe's CPU time is
        left out: the wall time of its work also holds waits for the GIL that the loop would have
        had anyway, at its next torch call, while the thread builds. Those waits are booked to
        ``waits_to``, the stage that call starts (forward, for the probe's work before a model call).
        """
        step = self.current
        if step is None or self.stages:
            return
        started, gc_before, cpu_started = mark
        elapsed = time.perf_counter() - max(started, step["start"])
        if self.loader_threads:
            wall, elapsed = elapsed, min(elapsed, time.thread_time() - cpu_started)
            if waits_to is not None:
                step[waits_to + "_ms"] += (wall - elapsed) * 1000.0
        step["start"] += elapsed
        step["probe_ms"] += elapsed * 1000.0
        if step.get("gc_ms", 0.0) > gc_before:
            step["gc_ms"] = gc_before

    def open_step(self, start: float, loader_id: int, snapshot: bool = True) -> None:
        """Open a step at ``start``; ``snapshot`` False: the caller takes the load snapshot in its own-time block."""
        self.step_calls = 0
        new_batch()  # tensors hashed for the last step are not this step's
        self.current = {"index": len(self.steps), "loader": loader_id, "start": start,
                        "epoch_start": False, "samples": 0, "row_hashes": [], "leaf_hashes": {}, "probe_ms": 0.0,
                        "loss": None, **{s + "_ms": 0.0 for s in _STAGES}}
        if _MODE == "full":
            self.current.update(start_wall=self.wall(start), spans=[])
        if not self.cuda_checked:
            self.cuda_checked = True
            self._arm_cuda()
        if self.cuda is not None:
            self.cuda.step_start(self.current["index"])
        self.current["cpu_start"] = time.process_time()
        taken = time.perf_counter()
        if snapshot and self._load_snapshot(taken):
            # The snapshot is the probe's own work: the step's clock starts after it.
            elapsed = time.perf_counter() - taken
            self.current["start"] += elapsed
            self.current["probe_ms"] += elapsed * 1000.0

    def _load_snapshot(self, now: float, final: bool = False) -> bool:
        """Take a load snapshot at the measured window's edges and at most every SAMPLE_EVERY_S inside it."""
        closed = len(self.steps)
        if self.load is None:
            self.load = LoadReader(supervisor=_SUPERVISOR_PID)
        if self.load.unavailable_reason:
            return False
        edge = final or closed == _WARMUP_STEPS
        if not edge and (closed < _WARMUP_STEPS or now - self.load_taken < SAMPLE_EVERY_S):
            return False
        if self.load_samples and self.load_samples[-1][0] == closed:
            return False
        sample = self.load.snapshot(closed)
        if sample is None:
            return False
        self.load_samples.append(sample)
        self.load_taken = now
        return True

    def _arm_cuda(self) -> None:
        """Use CUDA events and NVML only when the pipeline itself initialised CUDA."""
        torch = sys.modules.get("torch")
        if _MODE != "full" or torch is None:
            return
        if not torch.cuda.is_initialized():
            self.nvml_reason = "CUDA not initialised by the pipeline (CPU run)"
            return
        self.cuda = CudaTimers(torch)
        self.nvml = NvmlSampler()
        self.nvml.start()

    def close_step(self, end: float) -> None:
        step = self.current
        if step is None:
            return
        step.pop("inputs_seen", None)
        step["step_ms"] = (end - step.pop("start")) * 1000.0
        step["cpu_ms"] = (time.process_time() - step.pop("cpu_start", time.process_time())) * 1000.0
        counted = sum(step[s + "_ms"] for s in _STAGES)
        if self.step_source == "optimizer":
            # Without a DataLoader the script draws its own batches between model calls.
            step[_DATA + "_ms"] += max(0.0, step["step_ms"] - counted)
            counted = step["step_ms"]
            self._keep(step["index"], self.step_tensors)
            self.step_tensors = []
        step["other_ms"] = max(0.0, step["step_ms"] - counted)
        self.steps.append(step)
        self.current = None
        _write_progress(self, end)
        if _MAX_STEPS and len(self.steps) >= _MAX_STEPS:
            self._load_snapshot(time.perf_counter(), final=True)
            self.finish("max_steps")
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)

    def _keep(self, index: int, tensors: list, copied: bool = False) -> None:
        """Keep a copy of a step's batch tensors for tolerance checks while within the element budget
        (``copied``: the tensors are the probe's own copies already, freeze()'s)."""
        size = sum(t.numel() for _, t in tensors)
        if tensors and self.kept_elements + size <= _KEEP_ELEMENTS:
            self.kept_elements += size
            self.kept_batches.append((index, [(path, tensor if copied else tensor.clone()) for path, tensor in tensors]))

    def timing(self) -> bool:
        """Tell whether stages are timed now: always in full mode; in light mode unless a DataLoader drives steps."""
        return _MODE == "full" or self.step_source != "loader"

    def seen(self) -> dict:
        """Summarise what the pipeline did so far, for a run that never reached a step."""
        return {"torch_imported": "torch" in sys.modules, "module_calls": self.num_module_calls,
                "optimizers_constructed": self.num_optimizers, "optimizer_steps": self.num_optimizer_steps,
                "dataloaders_constructed": len(self.loaders), "elapsed_s": time.time() - self.install_wall}

    # -- output --------------------------------------------------------------
    def finish(self, reason: str) -> None:
        """Write this process's record once (main process only)."""
        if self.finished or _is_worker_process(self):
            return
        self.finished = True
        try:
            self._write_main(reason)
        except Exception:  # the pipeline must not fail because the probe could not write
            _write_text(probe_error_name(os.getpid()), traceback.format_exc())

    def _write_main(self, reason: str) -> None:
        if self.sampler is not None:
            self.sampler.stop()
        if self.steps and self.load is not None:
            self._load_snapshot(time.perf_counter(), final=True)  # the pipeline ended on its own
        _HASHER.drain(self)  # every batch's row hashes are in its step before the record is written
        for step, loss in self.losses_pending:
            try:
                step["loss"] = float(loss)
            except (TypeError, ValueError, RuntimeError) as error:
                self.errors.append(f"loss of step {step['index']}: {error}")
        for step in self.steps:
            step["row_hashes"] = hex_digests(step["row_hashes"])
        record = {
            "version": 1, "pid": self.main_pid, "rank": _RANK, "mode": _MODE,
            "fingerprint": Fingerprint.ROWS if _ROWS_ONLY else Fingerprint.FULL,
            "row_digest": ROW_DIGEST,
            "exit_reason": reason, "install_wall": self.install_wall,
            "first_batch_wall": self.first_batch_wall, "max_steps": _MAX_STEPS,
            "loaders": self.loaders, "step_loader": self.step_loader, "step_source": self.step_source,
            "seen": self.seen(), "steps": self.steps,
            "main_fetches": self.main_fetches, "errors": self.errors,
            "stacks": self.sampler.snapshot() if self.sampler else None,
            "hot_samples": self.sampler.timed_samples() if self.sampler else None,
            "thread_builds": _BUILDS.snapshot(_SAMPLE_S) if _MODE == "full" else None,
            "loader_threads": sorted(set(self.loader_threads.values())),
            "layout": self.layout,
            "sampler": self.sampler.kind if self.sampler else None,
            "cuda": self.cuda.summary(self.steps) if self.cuda else None,
            "nvml": self.nvml.summary() if self.nvml else {"available": False, "reason": self.nvml_reason},
            "cpu_count": _usable_cpus(),
            "load": self._load_record(),
            "runtime": runtime_facts(),
        }
        if self.kept_batches:
            import torch

            torch.save(self.kept_batches, os.path.join(_OUT_DIR, kept_batches_name(_RANK)))
        if _MODE == "full" and "torch" in sys.modules:
            record["replay"] = save_replay(_OUT_DIR, _RANK)
        _write_text(record_name(_RANK), json.dumps(record))


    def _load_record(self) -> dict:
        reader = self.load
        if reader is None:
            return {"available": False, "reason": "no step was taken"}
        if reader.unavailable_reason:
            return {"available": False, "reason": reader.unavailable_reason}
        return {"available": True, "hz": reader.hz, "cpus": len(reader.cpus), "warmup_steps": _WARMUP_STEPS,
                "samples": self.load_samples}


class _Stage:
    """Time a block as one stage of the step ledger (a no-op where the running stage keeps the time)."""

    __slots__ = ("probe", "name", "started")

    def __init__(self, probe: _Probe, name: str) -> None:
        self.probe = probe
        self.name = name
        self.started = False

    def __enter__(self) -> None:
        self.started = self.probe.enter(self.name)

    def __exit__(self, *exc_info) -> None:
        if self.started:
            self.probe.leave(self.name)


_PROBE: _Probe | None = None


def _usable_cpus() -> int:
    """CPUs this process may run on (a container or taskset may allow fewer than the machine has)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _write_progress(probe: _Probe, now: float) -> None:
    """Write the steps so far to ``progress.json`` (at most every 0.25 s) for perfloop's live progress line."""
    if now - probe.progress_written < 0.25 and not (_MAX_STEPS and len(probe.steps) >= _MAX_STEPS):
        return
    probe.progress_written = now
    try:
        _write_text(PROGRESS_NAME, json.dumps({"steps": len(probe.steps), "max_steps": _MAX_STEPS,
                                                 "wall": time.time()}))
    except OSError as error:  # progress is a courtesy; the run goes on
        if not any(e.startswith("progress file") for e in probe.errors):
            probe.errors.append(f"progress file: {error}")


def _write_text(name: str, text: str) -> None:
    path = os.path.join(_OUT_DIR, name)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)


# -- patches ---------------------------------------------------------------------
def _call_site() -> dict:
    frame = sys._getframe(2)
    while frame is not None and not is_user_file(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return {"file": "", "line": 0}
    return {"file": frame.f_code.co_filename, "line": frame.f_lineno}


def _patch_torch(torch) -> None:
    probe = _PROBE
    _patch_loader_init(probe, torch)
    _patch_loader_iter(probe)
    _patch_next_batch(probe)
    _patch_fetchers(probe)
    _patch_backward(torch, probe)
    # Light runs need these too: without a DataLoader they define the steps and the data.
    _patch_module_call(torch, probe)
    _patch_optimizer(torch, probe)
    if _MODE == "full":
        _patch_tensor_to(torch, probe)
        patch_sync_points(torch, lambda: probe.current, lambda: _is_worker_process(probe))
    _start_watchdog(probe)


def _patch_loader_init(probe: _Probe, torch) -> None:
    """Record each DataLoader's construction site and settings."""
    from torch.utils.data import dataloader as dl

    original_init = dl.DataLoader.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        if _is_worker_process(probe):
            return
        self._perfloop_id = len(probe.loaders)
        site = _call_site()
        if site["file"]:
            self._perfloop_site = probe.loader_sites[self._perfloop_id] = (site["file"], site["line"])
        probe.loaders.append({
            "id": self._perfloop_id, "site": site,
            "num_workers": self.num_workers, "batch_size": self.batch_size,
            "pin_memory": bool(self.pin_memory), "persistent_workers": bool(self.persistent_workers),
            "prefetch_factor": self.prefetch_factor, "dataset": type(self.dataset).__name__,
            "iterable": isinstance(self.dataset, torch.utils.data.IterableDataset),
            "collate_fn": getattr(self.collate_fn, "__qualname__", repr(self.collate_fn)),
            "batches_per_epoch": _batches_per_epoch(self),
        })

    dl.DataLoader.__init__ = init


def _batches_per_epoch(loader) -> int | None:
    """len(loader) as the DataLoader computes it (its sampler and drop_last), or None where it has none."""
    try:
        return int(len(loader))
    except Exception:  # an IterableDataset without __len__, a sampler without one
        return None


def _patch_loader_iter(probe: _Probe) -> None:
    """Book starting an epoch's iterator (worker start-up) as data wait and flag the epoch start."""
    from torch.utils.data import dataloader as dl

    original_iter = dl.DataLoader.__iter__

    def loader_iter(self):
        with probe.stage(_DATA):
            replay = not _is_worker_process(probe) and replays(self)
            iterator = replay_iterator(self) if replay else original_iter(self)
        iterator._perfloop_loader = getattr(self, "_perfloop_id", -1)
        iterator._perfloop_fresh = True
        if probe.current is not None and _is_step_loader(probe, iterator._perfloop_loader):
            probe.current["epoch_start"] = True
        return iterator

    dl.DataLoader.__iter__ = loader_iter


def _patch_next_batch(probe: _Probe) -> None:
    """Make each batch of the step loader a step boundary; its wait is data time of the step it opens."""
    from torch.utils.data import dataloader as dl

    original_next = dl._BaseDataLoaderIter.__next__

    def next_batch(self):
        if not probe.wrapper_depth:
            return _next_step_batch(probe, self, original_next)
        # A library's loader wrapper reads this batch for one it hands out (see _patch_accelerate_loaders).
        batch = original_next(self)
        if _MODE == "full" and _is_step_loader(probe, getattr(self, "_perfloop_loader", -1)):
            _guarded(probe, keep_for_replay, batch)  # a replay run stands in for this loader, not the wrapper
        return batch

    dl._BaseDataLoaderIter.__next__ = next_batch


def _is_step_loader(probe: _Probe, loader_id: int) -> bool:
    """Whether ``loader_id`` drives the steps: the step loader, or one built where it was (a loop that builds
    its DataLoader every epoch or fold: the same loader, rebuilt)."""
    if loader_id == probe.step_loader:
        return True
    site = probe.loader_sites.get(loader_id)
    return site is not None and site == probe.loader_sites.get(probe.step_loader)


def _next_step_batch(probe: _Probe, iterator, original_next, replay: bool = True):
    """Return ``original_next(iterator)``; for the step loader, close the open step and open the batch's step.

    ``replay`` False: the batch is a loader wrapper's, whose inner DataLoader's batches are kept for replay.
    """
    loader_id = getattr(iterator, "_perfloop_loader", -1)
    if not probe.on_loop_thread():
        return _thread_batch(probe, iterator, original_next, loader_id)
    if probe.step_source is None:
        probe.step_source = "loader"
        probe.step_loader = loader_id
        probe.current = None  # a step opened by an earlier model call: the DataLoader defines steps
        probe.step_tensors = []
        probe.first_batch_wall = None
    is_step = probe.step_source == "loader" and _is_step_loader(probe, loader_id)
    fresh = getattr(iterator, "_perfloop_fresh", False)
    iterator._perfloop_fresh = False
    started = probe.enter(_DATA)
    call_start = time.perf_counter()
    try:
        batch = original_next(iterator)
    except BaseException:
        # StopIteration (end of epoch) keeps the current step open across the boundary,
        # so this wait belongs to it.
        if started:
            probe.leave(_DATA)
        raise
    if started:
        # A batch starts a new step at this call: its wait is added to the new step below.
        probe.leave(_DATA, accumulate=not is_step)
    if is_step:
        wait_ms = (time.perf_counter() - call_start) * 1000.0
        if probe.current is not None:
            probe.close_step(call_start)
        probe.open_step(call_start, loader_id, snapshot=False)
        probe.current[_DATA + "_ms"] += wait_ms
        probe.span(_DATA, call_start, call_start + wait_ms / 1000.0)
        probe.current["epoch_start"] = probe.current["epoch_start"] or fresh
        own = probe.own_start()
        probe._load_snapshot(time.perf_counter())  # its time is the probe's own, left out with the rest
        _guarded(probe, _record_batch, probe, batch)  # a probe bug must never break the pipeline
        if _MODE == "full" and replay:
            _guarded(probe, keep_for_replay, batch)
        probe.own_time(own)
    return batch


def _thread_batch(probe: _Probe, iterator, original_next, loader_id: int):
    """Return the next batch for a thread that reads a DataLoader for the loop (a background prefetcher).

    The loop's steps are not this thread's ``next()`` calls: they end at optimizer steps, and the
    loop's wait is what it spends outside its stages (taking the batch off the thread's queue).
    The first loader read this way is kept for replay, since a replay run hands its batches to the
    same thread, which then builds nothing and no longer takes the GIL or a core from the loop.
    """
    ident = threading.get_ident()
    if ident not in probe.loader_threads:
        probe.loader_threads[ident] = threading.current_thread().name
        if 0 <= loader_id < len(probe.loaders):
            probe.loaders[loader_id].setdefault("read_by_thread", threading.current_thread().name)
    if probe.thread_loader is None:
        probe.thread_loader = loader_id
    batch = original_next(iterator)
    if _MODE == "full" and loader_id == probe.thread_loader and probe.step_source != "loader":
        _guarded(probe, keep_for_replay, batch)
    return batch


class _WrapperIteration:
    """The step-boundary state of one epoch of a library's loader wrapper (see _patch_accelerate_loaders)."""

    __slots__ = ("_perfloop_loader", "_perfloop_fresh", "batches")

    def __init__(self, loader_id: int, batches) -> None:
        self._perfloop_loader = loader_id
        self._perfloop_fresh = True
        self.batches = batches


def _patch_accelerate_loaders(module) -> None:
    """Put the step boundary at the batches accelerate's loader wrappers hand out, not at their inner reads.

    ``DataLoaderShard`` (what ``Accelerator.prepare`` and the HF Trainer return) reads one batch
    ahead of the one it yields, to know which is last. Timed at its inner DataLoader, a step would
    hold the next batch's wait and the previous batch's training, the first step of each epoch no
    training at all and the last one two. The wrapper's own ``next()`` is the loop's boundary: its
    wait (the inner read and the wrapper's move to the device, a copy inside another stage) is the
    step's data wait, and the batch it yields (what the model gets, copied back to the host when
    it is on the GPU) is the step's fingerprinted batch. Replay keeps the inner DataLoader's
    batches, since a replay run stands in for that loader.
    """
    probe = _PROBE
    for name in ("DataLoaderShard", "DataLoaderDispatcher", "SkipDataLoader"):
        cls = getattr(module, name, None)
        original_iter = vars(cls).get("__iter__") if isinstance(cls, type) else None
        if original_iter is None:
            continue

        def wrapper_iter(self, _original_iter=original_iter):
            if _is_worker_process(probe):
                return _original_iter(self)
            loader_id = getattr(self, "_perfloop_id", -1)  # the inner DataLoader's, through the wrapper's __getattr__
            return _wrapper_batches(probe, _WrapperIteration(loader_id, _original_iter(self)))

        cls.__iter__ = wrapper_iter


def _wrapper_batches(probe: _Probe, iteration: _WrapperIteration):
    """Yield a loader wrapper's batches, each fetched as a step boundary (inner DataLoader reads are not)."""
    batches = iteration.batches

    def read(state):
        probe.wrapper_depth += 1
        try:
            return next(state.batches)
        finally:
            probe.wrapper_depth -= 1

    try:
        while True:
            if probe.wrapper_depth:  # a wrapper around a wrapper: the outermost one has the boundary
                batch = read(iteration)
            else:
                batch = _next_step_batch(probe, iteration, read, replay=False)
            yield batch
    except StopIteration:
        return
    finally:
        close = getattr(batches, "close", None)
        if close is not None:
            close()


def _patch_fetchers(probe: _Probe) -> None:
    """Time each batch build (and its collate) wherever it runs: main process or worker."""
    from torch.utils.data._utils import fetch

    for fetcher_cls in (fetch._MapDatasetFetcher, fetch._IterableDatasetFetcher):
        fetcher_cls.fetch = _timed_fetch(probe, fetcher_cls.fetch)


def _patch_module_call(torch, probe: _Probe) -> None:
    """Book the outermost ``nn.Module`` call as forward; without a DataLoader, its inputs are the batch."""
    original_call = torch.nn.Module.__call__

    def module_call(self, *args, **kwargs):
        if threading.get_ident() != probe.loop_thread and not _adopt_loop_thread(probe):
            return original_call(self, *args, **kwargs)  # a loader thread's transform, not the model
        if _MODE != "full" and probe.step_source == "loader":
            # Rows-only runs hash no model inputs: every module call goes straight through.
            if not _ROWS_ONLY and not probe.stages and probe.current is not None \
                    and not probe.current.get("inputs_seen"):
                own = probe.own_start()
                _guarded(probe, _model_inputs, probe, self, args, kwargs)
                probe.own_time(own)
            return original_call(self, *args, **kwargs)  # a timing run with DataLoader steps: nothing more
        if not probe.stages:
            own = probe.own_start()
            _guarded(probe, note_autocast, torch)
            _guarded(probe, _outermost_call, probe, self, args, kwargs)
            probe.own_time(own, "forward" if probe.timing() else None)
        if not probe.timing():
            return original_call(self, *args, **kwargs)
        with probe.stage("forward"):
            return original_call(self, *args, **kwargs)

    torch.nn.Module.__call__ = module_call


def _adopt_loop_thread(probe: _Probe) -> bool:
    """Take the calling thread as the loop's when it makes the first model call outside a batch build."""
    ident = threading.get_ident()
    if probe.loop_thread_known or ident in _FETCHING or _is_worker_process(probe):
        return False
    probe.loop_thread_known, probe.loop_thread = True, ident
    probe.loader_threads.pop(ident, None)  # it reads its own loader: not a prefetcher
    return True


def _guarded(probe: _Probe, function, *args) -> None:
    """Call a probe hook body; an error of ours is recorded (once per hook), never raised into the pipeline."""
    try:
        function(*args)
    except Exception:
        name = getattr(function, "__name__", repr(function))
        if not any(error.startswith(f"{name} failed") for error in probe.errors):
            probe.errors.append(f"{name} failed:\n{traceback.format_exc()}")


def _outermost_call(probe: _Probe, module, args, kwargs) -> None:
    """Count a model call outside every stage; until a DataLoader defines steps, record its inputs."""
    probe.num_module_calls += 1
    probe.loop_thread_known = True
    if probe.step_source == "loader":
        if probe.current is not None and not probe.current.get("inputs_seen"):
            _model_inputs(probe, module, args, kwargs)
        return
    if _is_worker_process(probe):
        return
    if probe.model_id is None:
        probe.model_id = id(module)  # later outermost calls of other modules (a loss, a metric) are not data
    if id(module) != probe.model_id:
        return
    if probe.current is None:
        probe.open_step(time.perf_counter(), -1)
    try:
        _record_batch(probe, (args, kwargs) if kwargs else args, root=f"inputs[{probe.step_calls}]")
    finally:
        probe.step_calls += 1


def _model_inputs(probe: _Probe, module, args, kwargs) -> None:
    """With DataLoader steps, hash what the step's first outermost module call was given (the model's input).

    The data check falls back on these when a change rearranges the loader's output but the
    model still sees the same tensors (a cheaper collate, a normalisation moved into the loop).
    """
    if _is_worker_process(probe) or _ROWS_ONLY:
        return
    if probe.model_id is None:
        probe.model_id = id(module)
    if id(module) != probe.model_id:
        return
    step = probe.current
    step["inputs_seen"] = True
    inputs = (args, kwargs) if kwargs else args
    if _DEFERRING:
        try:
            frozen, size = freeze(inputs, "inputs", probe.step_copies)
        except Exception as error:
            step["input_hashes_error"] = f"{type(error).__name__}: {error}"
            return
        _HASHER.submit(probe, "inputs", step, frozen, size)
        return
    try:
        _, hashes, _ = fingerprint(inputs, "inputs")
    except Exception as error:  # the loader-output check still applies; this fallback is just unavailable
        step["input_hashes_error"] = f"{type(error).__name__}: {error}"
        return
    step["input_hashes"] = hashes


def _patch_optimizer(torch, probe: _Probe) -> None:
    """Book optimizer steps as optimizer, minus the forward and backward their closures run.

    torch's global step hooks see every ``Optimizer`` subclass, and so the inner optimizer of a
    wrapper whose ``step`` calls it (accelerate's AcceleratedOptimizer, Lightning's
    LightningOptimizer and precision plugins); ``GradScaler.step`` adds its unscale and inf checks.
    """
    from torch.optim import optimizer as optim_module

    def before_step(optimizer, args, kwargs):
        if probe.timing():
            probe.enter("optimizer")
        try:
            if callable(kwargs.get("closure")):
                return args, {**kwargs, "closure": _staged_closure(probe, kwargs["closure"])}
            if len(args) > 1 and callable(args[1]):
                return (args[0], _staged_closure(probe, args[1]), *args[2:]), kwargs
        except Exception:  # leave the step as the pipeline wrote it; the ledger just books less
            probe.errors.append("wrapping an optimizer closure failed:\n" + traceback.format_exc())
        return None

    def after_step(*_):
        probe.leave("optimizer")
        _guarded(probe, _optimizer_step_done, probe)

    optim_module.register_optimizer_step_pre_hook(before_step)
    optim_module.register_optimizer_step_post_hook(after_step)
    original_init = optim_module.Optimizer.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        probe.num_optimizers += 1

    optim_module.Optimizer.__init__ = init
    scaler_cls = getattr(getattr(torch, "amp", None), "GradScaler", None)
    if scaler_cls is None:
        return
    original_scaler_step = scaler_cls.step

    def scaler_step(self, optimizer, *args, **kwargs):
        started = probe.timing() and probe.enter("optimizer")
        try:
            return original_scaler_step(self, optimizer, *args, **kwargs)
        finally:
            if started:
                probe.leave("optimizer")
            _guarded(probe, _optimizer_step_done, probe)

    scaler_cls.step = scaler_step


def _optimizer_step_done(probe: _Probe) -> None:
    """After the outermost optimizer step (a wrapper's, not its inner one's), end the step if no DataLoader does."""
    if threading.get_ident() != probe.loop_thread and not _adopt_loop_thread(probe):
        return
    probe.loop_thread_known = True
    if any(frame[0] == "optimizer" for frame in probe.stages):
        return
    probe.num_optimizer_steps += 1
    if probe.step_source is None:
        probe.step_source = "optimizer"
    if probe.step_source != "optimizer" or _is_worker_process(probe):
        return
    now = time.perf_counter()
    if probe.current is not None:
        probe.close_step(now)
    probe.open_step(now, -1)


def _staged_closure(probe: _Probe, closure):
    """Wrap an optimizer closure so that its forward and backward are booked as such, not as optimizer."""
    if getattr(closure, "_perfloop_staged", False):
        return closure  # a wrapper optimizer handed its inner one the closure we already wrapped

    def staged(*args, **kwargs):
        with probe.stage("closure"):
            return closure(*args, **kwargs)

    staged._perfloop_staged = True
    return staged


def _patch_tensor_to(torch, probe: _Probe) -> None:
    """Book host-to-device ``Tensor.to`` calls as h2d."""
    original_to = torch.Tensor.to

    def tensor_to(self, *args, **kwargs):
        target = kwargs.get("device", args[0] if args else None)
        if self.device.type == "cpu" and "cuda" in str(target):
            with probe.stage("h2d"):
                return original_to(self, *args, **kwargs)
        return original_to(self, *args, **kwargs)

    torch.Tensor.to = tensor_to


def _patch_backward(torch, probe: _Probe) -> None:
    """Book ``torch.autograd.backward`` as backward (when timing) and keep each step's scalar loss."""
    original_backward = torch.autograd.backward

    def backward(tensors, *args, **kwargs):
        try:
            if not probe.timing():
                return original_backward(tensors, *args, **kwargs)
            with probe.stage("backward"):
                return original_backward(tensors, *args, **kwargs)
        finally:
            loss = tensors[0] if isinstance(tensors, (list, tuple)) and tensors else tensors
            if probe.current is not None and isinstance(loss, torch.Tensor) and loss.numel() == 1:
                probe.losses_pending.append((probe.current, loss.detach()))

    torch.autograd.backward = backward


def _record_batch(probe: _Probe, batch, root: str = "batch") -> None:
    """Fingerprint a batch row by row into the open step and keep its tensors for tolerance checks.

    A DataLoader batch is the whole step's data; model inputs (``root`` "inputs[...]") add to
    it, one call per micro-batch under gradient accumulation. In a light run a DataLoader batch is
    copied here and hashed after the steps (see _Hasher): the step pays for the copy, not for the
    hashing, and the record still holds every batch's hashes.
    """
    if probe.first_batch_wall is None:
        probe.first_batch_wall = time.time()
    step = probe.current
    if root == "batch" and _DEFERRING:
        probe.step_copies = {}
        try:
            frozen, size = freeze(batch, root, probe.step_copies)
        except Exception as error:
            _fingerprint_failed(probe, step, batch, error)
            return
        _HASHER.submit(probe, "batch", step, frozen, size)
        return
    _hash_into(probe, step, batch, root)


def _hash_into(probe: _Probe, step: dict, batch, root: str, walked: bool = False) -> None:
    """Hash ``batch`` (freeze()'s leaves when ``walked``) into ``step``; see _record_batch."""
    values: list[str] = []
    leaves: dict[str, str] = {}
    try:
        # The row hashes stay a uint64 array until the record is written: their text costs the step nothing.
        rows, hashes, tensors = fingerprint(batch, root, values if root == "batch" and not _ROWS_ONLY else None, leaves,
                                            raw_digests=True, walked=walked)
    except Exception as error:  # keep timing; the data check treats this step as not comparable
        _fingerprint_failed(probe, step, batch, error)
        return
    step["samples"] += rows
    if "fingerprint_error" not in step:
        step["row_hashes"].append(hashes)
        step["leaf_hashes"].update(leaves)  # model inputs' paths start "inputs[k]": no clash across calls
    if root == "batch":
        step["value_hashes"] = values
        if probe.layout is None:
            probe.layout = last_layout()
        probe._keep(step["index"], tensors, copied=walked)
    else:
        probe.step_tensors.extend(tensors)


def _fingerprint_failed(probe: _Probe, step: dict, batch, error: Exception) -> None:
    """Mark ``step`` as not fingerprintable (the data check then calls it not comparable), once in the errors."""
    why = str(error) if isinstance(error, Unfingerprintable) else f"{type(error).__name__}: {error}"
    step["fingerprint_error"] = why
    step["row_hashes"] = []
    step["samples"] += _safe_count_rows(batch)
    message = f"batches cannot be fingerprinted (first at step {step['index']}): {why}"
    if not any(e.startswith("batches cannot be fingerprinted") for e in probe.errors):
        probe.errors.append(message)


class _Hasher:
    """Hash light runs' batches and model inputs after the measured steps, not during them.

    Smoke, noise-floor, timing and final-check runs need every batch's hashes (and in full
    fingerprints its value and model-input hashes), but not while the step runs: the loop copies
    each batch and the model's input where it is not the batch's own unchanged tensor (freeze(): a
    memory copy, a few microseconds for a batch of a few hundred rows, against 0.1-1 ms to hash it
    in the step) and hashes the copies when the record is written. At most ``budget`` bytes of
    copies wait (Env.DEFER_HASH_BYTES); a copy that would pass it is hashed at once, after every
    one waiting before it, so that steps are hashed and kept in their order. That catch-up is the
    probe's own time, left out of the step like any hashing in the step. Full runs (the profile)
    hash in the step.

    Hashing on a thread of its own was tried first and cost the loop more than hashing in it: the
    digest's Python between NumPy calls contends for the GIL with a loop of small torch calls
    (1.49 against 1.40 ms a step, 256 x 64 batches, 1.1 ms bare).
    """

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.pending: list[tuple[str, dict, list]] = []
        self.pending_bytes = 0

    def submit(self, probe: _Probe, kind: str, step: dict, frozen: list, size: int) -> None:
        """Hash ``frozen`` into ``step`` later: ``kind`` "batch" (the step's batch) or "inputs" (its model input)."""
        if self.pending_bytes + size > self.budget:
            self.drain(probe)
            _guarded(probe, _hash_job, probe, kind, step, frozen)
            return
        self.pending.append((kind, step, frozen))
        self.pending_bytes += size

    def drain(self, probe: _Probe) -> None:
        """Hash every waiting copy into its step, in order."""
        pending, self.pending, self.pending_bytes = self.pending, [], 0
        for kind, step, frozen in pending:
            _guarded(probe, _hash_job, probe, kind, step, frozen)


def _hash_job(probe: _Probe, kind: str, step: dict, frozen: list) -> None:
    """Hash one of _Hasher's copies: a step's batch (first: its copies are the reuse keys of what follows)
    or its model input."""
    if kind == "batch":
        new_batch()
        _hash_into(probe, step, frozen, "batch", walked=True)
        return
    try:
        _, hashes, _ = fingerprint(frozen, "inputs", walked=True)
    except Exception as error:  # the loader-output check still applies; this fallback is just unavailable
        step["input_hashes_error"] = f"{type(error).__name__}: {error}"
        return
    step["input_hashes"] = hashes


_HASHER = _Hasher(_DEFER_HASH_BYTES)
_DEFERRING = _MODE != "full" and _DEFER_HASH_BYTES > 0
"""Light runs copy DataLoader batches and model inputs in the step and hash them after the steps (_Hasher)."""


def _safe_count_rows(batch) -> int:
    """Count an unfingerprintable batch's rows where its walk gets that far; else count the batch as one."""
    try:
        return count_rows(batch) or 1
    except Exception:  # a container whose own methods fail: keep samples/s defined
        return 1


def _timed_fetch(probe: _Probe, original):
    def fetch(self, possibly_batched_index):
        in_main = not _is_worker_process(probe)
        if not in_main and probe.worker_file is None:
            _start_worker(probe)
        if not getattr(self, "_perfloop_wrapped", False):
            self.collate_fn = _timed_collate(self.collate_fn)
            self._perfloop_wrapped = True
        ident = threading.get_ident()
        _FETCHING[ident] = 0.0  # this thread is building a batch; its collate time so far
        # A thread of the training process that builds batches (a prefetcher) is profiled, not sampled.
        profiled = _BUILDS.begin() if _MODE == "full" and in_main and ident != threading.main_thread().ident else None
        start, cpu_start = time.perf_counter(), time.thread_time()
        wanted_start = runnable_ms() if _MODE == "full" else None
        try:
            return original(self, possibly_batched_index)
        finally:
            if profiled is not None:
                _BUILDS.end(profiled)
            collate_ms = _FETCHING.pop(ident, 0.0)
            # CPU time well below wall time means the build blocked (file reads, locks), not computed.
            record = {"fetch_ms": (time.perf_counter() - start) * 1000.0,
                      "cpu_ms": (time.thread_time() - cpu_start) * 1000.0,
                      "collate_ms": collate_ms, "end_wall": time.time()}
            wanted_end = runnable_ms() if wanted_start is not None else None
            if wanted_end is not None:
                record["runnable_ms"] = wanted_end - wanted_start  # on a core or queued for one
            if _MODE == "full":  # the timeline's worker lanes, on the clock of the steps and the stack samples
                record.update(start_wall=probe.wall(start), pid=os.getpid())
            if profiled is not None:
                record["profiled"] = True  # under cProfile: slower than the others
            if in_main:
                probe.main_fetches.append(record)
            else:
                probe.worker_file.write(json.dumps(record) + "\n")
                probe.worker_file.flush()

    STOP_CODES.add(fetch.__code__)
    return fetch


_BUILDS = BuildProfiler()
_FETCHING: dict[int, float] = {}
"""Threads building a batch now (their ident), each with the collate time of that build so far."""


def _fetch_label(ident: int) -> str | None:
    return "fetch" if ident in _FETCHING else None


def _timed_collate(collate_fn):
    def collate(data):
        start = time.perf_counter()
        try:
            return collate_fn(data)
        finally:
            ident = threading.get_ident()
            if ident in _FETCHING:
                _FETCHING[ident] += (time.perf_counter() - start) * 1000.0

    collate.__qualname__ = getattr(collate_fn, "__qualname__", "collate")
    return collate


def _start_worker(probe: _Probe) -> None:
    """Open this worker's record file and start its sampler (threads do not survive fork)."""
    pid = os.getpid()
    probe.worker_file = open(os.path.join(_OUT_DIR, worker_log_name(pid)), "a", encoding="utf-8")
    _write_text(worker_facts_name(pid), json.dumps(worker_facts()))
    if _MODE != "full":
        return
    # perf_counter is the system's monotonic clock, so the install anchor a forked worker inherits still holds.
    sampler = start_sampler(lambda: _fetch_label(threading.main_thread().ident), _SAMPLE_S,
                            (probe.install_wall, probe.install_perf))

    written = [-1]  # timestamped samples in the last samples-<pid>.json: rewrite it only when they grew

    def dump() -> None:
        _write_text(stacks_name(pid), json.dumps(sampler.snapshot()))
        if len(sampler.timed) != written[0]:
            written[0] = len(sampler.timed)
            _write_text(samples_name(pid), json.dumps(sampler.timed_samples()))

    def dump_every_quarter_second() -> None:
        while True:
            time.sleep(0.25)
            dump()

    # Workers that live less than a dump period (one short epoch without persistent_workers)
    # still leave their samples: multiprocessing runs its finalizers when a worker exits cleanly.
    multiprocessing.util.Finalize(None, dump, exitpriority=10)
    threading.Thread(target=dump_every_quarter_second, name="perfloop-dump", daemon=True).start()

    def dump_and_exit(signum, frame) -> None:
        # The sandbox stops leftover workers with SIGTERM (then SIGKILL) once the main process ends.
        dump()
        os._exit(0)

    signal.signal(signal.SIGTERM, dump_and_exit)


def _is_worker_process(probe: _Probe) -> bool:
    """Tell DataLoader workers (forked, or spawned with --multiprocessing-fork) from the main process."""
    return os.getpid() != probe.main_pid or "--multiprocessing-fork" in sys.argv


def _main_label() -> str | None:
    probe = _PROBE
    if probe is None or probe.current is None:
        return None
    if threading.main_thread().ident in _FETCHING:
        return "fetch"
    return probe.active_stage or "other"


# -- import hook -----------------------------------------------------------------
class _ImportHook:
    """Patch a module right after its import finishes, before user code holds references."""

    def __init__(self, name: str, patch) -> None:
        self.name = name
        self.patch = patch

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        original_exec = spec.loader.exec_module
        patch = self.patch

        def exec_module(module):
            original_exec(module)
            patch(module)

        spec.loader.exec_module = exec_module
        return spec


def _safe_patch(torch) -> None:
    try:
        _patch_torch(torch)
    except Exception:  # an unknown torch version must not break the pipeline
        _PROBE.errors.append("patching torch failed:\n" + traceback.format_exc())


def _safe_patch_accelerate(module) -> None:
    try:
        _patch_accelerate_loaders(module)
    except Exception:  # an unknown accelerate version: its loaders keep the inner DataLoader's boundaries
        _PROBE.errors.append("patching accelerate's loaders failed:\n" + traceback.format_exc())


def _start_watchdog(probe: _Probe) -> None:
    """Stop a process that imported torch but reached no step within the bound, recording what it saw."""
    if _FIRST_STEP_TIMEOUT_S <= 0 or _is_worker_process(probe):
        return

    def watch() -> None:
        time.sleep(max(0.0, probe.install_wall + _FIRST_STEP_TIMEOUT_S - time.time()))
        if probe.step_source is not None or probe.finished:
            return
        sys.stderr.write(f"perfloop: no DataLoader batch and no optimizer step within {_FIRST_STEP_TIMEOUT_S:g} s "
                         "of start; stopping the run\n")
        sys.stderr.flush()
        probe.finish("no_step")
        os._exit(Defaults.NO_STEP_EXIT_CODE)

    threading.Thread(target=watch, name="perfloop-watchdog", daemon=True).start()


def _is_launcher() -> bool:
    """Tell torchrun's launcher (it starts the ranks and trains nothing) from a training process."""
    if "RANK" in os.environ:
        return False
    program = sys.argv[0] if sys.argv else ""
    return os.path.basename(program) == "torchrun" or program.replace(os.sep, "/").endswith("torch/distributed/run.py")


def install() -> None:
    """Arm the probe in this process (idempotent); the ranks of a torchrun job each get their own."""
    global _PROBE
    if _PROBE is not None or not _OUT_DIR or _is_launcher():
        return
    _PROBE = _Probe()
    for name, patch in (("torch", _safe_patch), ("accelerate.data_loader", _safe_patch_accelerate)):
        if name in sys.modules:
            patch(sys.modules[name])
        else:
            sys.meta_path.insert(0, _ImportHook(name, patch))
    if _MODE == "full":
        _PROBE.sampler = start_sampler(_main_label, _SAMPLE_S, (_PROBE.install_wall, _PROBE.install_perf))
    install_gc_timer(lambda: _PROBE.current)
    atexit.register(_PROBE.finish, "exit")
