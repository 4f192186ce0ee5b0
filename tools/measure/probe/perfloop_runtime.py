"""Cheap facts about the process the knowledge base needs: threads, GC pauses, syncs, precision, memory.

Each function here is self-contained and holds its own small state; ``perfloop_probe`` calls them
at a few points (install, patch, worker start, record writing). Per-step cost is at most a clock
read per garbage collection, and, in full mode only, per ``.item()``/``.cpu()``/``.tolist()`` call
on a device tensor. Like the rest of the probe this imports only the standard library and torch,
and never raises into the pipeline.
"""
from __future__ import annotations

import gc
import os
import sys
import time
from collections.abc import Callable

_STATE = {"autocast_seen": False, "autocast_checked": False, "gc_start": None, "gc_collections": 0}


def install_gc_timer(current_step: Callable[[], dict | None]) -> None:
    """Add each garbage collection's wall time to the open step as ``gc_ms`` (main process only)."""
    main_pid = os.getpid()

    def on_gc(phase: str, info: dict) -> None:
        if os.getpid() != main_pid:
            return  # a forked DataLoader worker inherits the callback; its pauses are not the loop's
        if phase == "start":
            _STATE["gc_start"] = time.perf_counter()
            return
        started, _STATE["gc_start"] = _STATE["gc_start"], None
        step = current_step()
        if started is None or step is None:
            return
        _STATE["gc_collections"] += 1
        step["gc_ms"] = step.get("gc_ms", 0.0) + (time.perf_counter() - started) * 1000.0

    gc.callbacks.append(on_gc)


def patch_sync_points(torch, current_step: Callable[[], dict | None], in_worker: Callable[[], bool]) -> None:
    """Count and time ``.item()``, ``.cpu()`` and ``.tolist()`` on device tensors per step (host syncs)."""
    for name in ("item", "cpu", "tolist"):
        original = getattr(torch.Tensor, name)
        setattr(torch.Tensor, name, _sync_wrapper(original, current_step, in_worker))


def _sync_wrapper(original, current_step, in_worker):
    def synced(self, *args, **kwargs):
        step = current_step()
        if step is None or self.device.type == "cpu" or in_worker() or _called_by_probe():
            return original(self, *args, **kwargs)
        start = time.perf_counter()
        try:
            return original(self, *args, **kwargs)
        finally:
            step["sync_calls"] = step.get("sync_calls", 0) + 1
            step["sync_ms"] = step.get("sync_ms", 0.0) + (time.perf_counter() - start) * 1000.0

    synced.__name__ = original.__name__
    return synced


def _called_by_probe() -> bool:
    """Tell the probe's own copies (fingerprinting a device batch) from the pipeline's syncs."""
    return os.path.basename(sys._getframe(2).f_code.co_filename).startswith("perfloop_")


def note_autocast(torch) -> None:
    """Remember whether any outermost model call ran under autocast (CUDA or CPU)."""
    if _STATE["autocast_seen"]:
        return
    _STATE["autocast_checked"] = True
    try:
        seen = torch.is_autocast_enabled("cuda") or torch.is_autocast_enabled("cpu")
    except TypeError:  # torch < 2.4 takes no device argument
        seen = torch.is_autocast_enabled() or torch.is_autocast_cpu_enabled()
    _STATE["autocast_seen"] = bool(seen)


_SCHED: dict = {"pid": None, "file": None}


def runnable_ms() -> float | None:
    """Return the calling thread's CPU time plus run-queue wait (ms) so far, None where Linux does not say.

    Wall time minus this is time the thread was blocked (reads, locks, sleeps), not time it lost
    to other busy threads: on a crowded machine thread CPU time alone would call that blocking too.
    """
    pid = os.getpid()
    if _SCHED["pid"] != pid:  # a forked worker must not read its parent's thread
        _SCHED["pid"] = pid
        try:
            _SCHED["file"] = open("/proc/thread-self/schedstat", "rb", buffering=0)
        except OSError:
            _SCHED["file"] = None
    handle = _SCHED["file"]
    if handle is None:
        return None
    try:
        handle.seek(0)
        on_cpu, waiting = handle.read().split()[:2]
        return (int(on_cpu) + int(waiting)) / 1e6
    except (OSError, ValueError):
        return None


def worker_facts() -> dict:
    """Return what a DataLoader worker runs with: its intra-op threads (torch sets 1 unless changed)."""
    torch = sys.modules.get("torch")
    return {"pid": os.getpid(), "torch_threads": torch.get_num_threads() if torch is not None else None}


def runtime_facts() -> dict:
    """Return the main process's threads, precision settings, memory pressure and GC counts."""
    facts: dict = {"torch_threads": None, "autocast_seen": _STATE["autocast_seen"] if _STATE["autocast_checked"]
                   else None, "gc_collections": _STATE["gc_collections"], "major_faults": _major_faults(),
                   "versions": _versions()}
    torch = sys.modules.get("torch")
    if torch is None:
        return facts
    facts["torch_threads"] = torch.get_num_threads()
    facts["float32_matmul_precision"] = torch.get_float32_matmul_precision()
    facts["cudnn_allow_tf32"] = bool(torch.backends.cudnn.allow_tf32)
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        device = torch.cuda.current_device()
        major, minor = torch.cuda.get_device_capability(device)
        stats = torch.cuda.memory_stats(device)
        facts["cuda"] = {
            "capability": major + minor / 10.0,
            "matmul_allow_tf32": bool(torch.backends.cuda.matmul.allow_tf32),
            "total_bytes": torch.cuda.get_device_properties(device).total_memory,
            "peak_reserved_bytes": stats.get("reserved_bytes.all.peak", 0),
            "alloc_retries": stats.get("num_alloc_retries", 0),
            "ooms": stats.get("num_ooms", 0),
        }
    return facts


def _versions() -> dict:
    """Python's version and that of the numeric libraries the pipeline imported (what a rewrite may rely on)."""
    found = {"python": sys.version.split()[0]}
    for name in ("torch", "numpy", "torchvision", "torchaudio", "transformers", "pandas"):
        version = getattr(sys.modules.get(name), "__version__", None)
        if isinstance(version, str):
            found[name] = version
    return found


def _major_faults() -> int | None:
    try:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_majflt
    except (ImportError, OSError):
        return None
