"""Stack samplers for the probe: count samples per label and per user call path (file, function, line).

The preferred sampler is a SIGPROF handler on the process's CPU-time timer: it runs
between bytecodes of the sampled (main) thread, so a pure-Python loop is sampled as
fairly as a torch call. A sampler thread is the fallback (the pipeline owns SIGPROF,
or we are not on the main thread); it only gets the GIL when the sampled thread drops
it, which biases it towards code that calls into C.
"""
from __future__ import annotations

import os
import signal
import sys
import sysconfig
import threading
import time

_LIBRARY_ROOTS = tuple(
    os.path.realpath(p) for p in {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
) + (os.path.dirname(os.path.realpath(__file__)),)

STOP_CODES: set = set()
"""Code objects where a stack walk stops (the probe's batch fetch: frames below it belong to the
loop that forked the worker, not to building the batch)."""


_INSTALLED = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep)
"""Folders installed packages live in, wherever they are: another venv's on sys.path (a .pth), the user
site, a conda or Debian layout. Their code is never the user's, and the hot function is the first frame
of the pipeline's own code above them (a dataset's __getitem__, not torch's fetcher calling it)."""


def is_user_file(filename: str, cache: dict = {}) -> bool:
    """Tell whether ``filename`` is the user's code (not the standard library, installed packages or the probe)."""
    known = cache.get(filename)
    if known is None:
        real = os.path.realpath(filename) if not filename.startswith("<") else ""
        known = bool(real) and not real.startswith(_LIBRARY_ROOTS) and not any(part in real for part in _INSTALLED)
        cache[filename] = known
    return known


MAX_PATHS = 20000
"""Distinct call paths kept per process; samples on paths beyond it count only in ``totals`` and
``dropped`` (a pathological recursion must not grow the probe's memory without bound)."""

MAX_TIMED = 3000
"""Timestamped samples kept per process for the Chrome trace (the first ones; later ones are only counted)."""


class _Counts:
    """Sample counts per user call path; only the sampled thread writes, and snapshot copies in single C calls.

    Each sample with a user frame also keeps ``(perf_counter, label, innermost user frame)`` in ``timed``
    (up to MAX_TIMED), the instants the trace places on the process's track. The handler only appends
    the tuple; ``timed_samples`` turns the instants into wall time and the rows into JSON later.
    """

    def __init__(self, label_fn, anchor: tuple[float, float] | None = None) -> None:
        self.label_fn = label_fn  # returns the current label, or None to skip the sample
        self.paths: dict[tuple, int] = {}
        self.totals: dict[str, int] = {}
        self.dropped = 0
        self.timed: list[tuple] = []
        self.timed_dropped = 0
        # (wall, perf_counter) read together: perf_counter instants -> wall time, the timeline's clock.
        self.anchor = anchor or (time.time(), time.perf_counter())

    def record(self, frame) -> None:
        label = self.label_fn()
        if label is None:
            return
        frames = []  # user frames, innermost first
        while frame is not None:
            code = frame.f_code
            if code in STOP_CODES:
                break
            if is_user_file(code.co_filename):
                line = frame.f_lineno
                # CPython 3.11 can report no line (f_lineno None): book it to the function's first line.
                frames.append((code.co_filename, code.co_qualname, code.co_firstlineno,
                               code.co_firstlineno if line is None else line))
            frame = frame.f_back
        self.totals[label] = self.totals.get(label, 0) + 1
        if not frames:
            return
        if len(self.timed) < MAX_TIMED:
            self.timed.append((time.perf_counter(), label, frames[0]))
        else:
            self.timed_dropped += 1
        key = (label, tuple(frames))
        if key in self.paths or len(self.paths) < MAX_PATHS:
            self.paths[key] = self.paths.get(key, 0) + 1
        else:
            self.dropped += 1

    def snapshot(self) -> dict:
        """Return the counts as JSON-ready data: ``paths`` rows are [label, frames outermost first, count]."""
        return {"totals": dict(self.totals), "dropped": self.dropped,
                "paths": [[label, [list(f) for f in reversed(frames)], count]
                          for (label, frames), count in list(self.paths.items())]}

    def timed_samples(self) -> dict:
        """Return the timestamped samples as JSON-ready data: ``samples`` rows are
        [wall time, label, file, function, line] of the innermost user frame."""
        wall, perf = self.anchor
        rows = self.timed[:]  # one C call: the handler may append meanwhile
        return {"samples": [[wall + (instant - perf), label, frame[0], frame[1], frame[3]]
                            for instant, label, frame in rows],
                "dropped": self.timed_dropped}


class _SignalSampler(_Counts):
    def __init__(self, label_fn, period_s: float, anchor: tuple[float, float] | None = None) -> None:
        super().__init__(label_fn, anchor)
        self.kind = "sigprof"
        self.busy = False
        signal.signal(signal.SIGPROF, self._handle)
        signal.setitimer(signal.ITIMER_PROF, period_s, period_s)

    def _handle(self, signum, frame) -> None:
        if self.busy:  # a signal landing inside the handler itself
            return
        self.busy = True
        try:
            self.record(frame)
        finally:
            self.busy = False

    def stop(self) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)


class _ThreadSampler(_Counts):
    def __init__(self, label_fn, period_s: float, thread_id: int, anchor: tuple[float, float] | None = None) -> None:
        super().__init__(label_fn, anchor)
        self.kind = "thread"
        self.running = True
        threading.Thread(target=self._run, args=(period_s, thread_id), name="perfloop-sampler", daemon=True).start()

    def _run(self, period_s: float, thread_id: int) -> None:
        while self.running:
            time.sleep(period_s)
            frame = sys._current_frames().get(thread_id)
            if frame is None:
                return
            self.record(frame)

    def stop(self) -> None:
        self.running = False


def start_sampler(label_fn, period_s: float, anchor: tuple[float, float] | None = None):
    """Start sampling the main thread with SIGPROF where we may, else with a thread.

    ``anchor`` is a (wall time, perf_counter) pair read together, the clock of the process's timeline;
    by default the sampler reads its own.
    """
    main = threading.main_thread()
    handler = signal.getsignal(signal.SIGPROF)
    # A forked DataLoader worker inherits the parent's handler (ours) but not its timer.
    free = handler in (signal.SIG_DFL, None) or isinstance(getattr(handler, "__self__", None), _SignalSampler)
    if threading.current_thread() is main and free:
        return _SignalSampler(label_fn, period_s, anchor)
    return _ThreadSampler(label_fn, period_s, main.ident, anchor)
