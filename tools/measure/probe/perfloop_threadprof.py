"""Deterministic profiles of the batch builds that threads other than the main one run (a prefetcher).

The stack sampler runs Python, so it needs the GIL, and it can look at another thread only
when that thread lets the GIL go: at a torch call, a queue wait, a file read, never inside its
pure-Python loops. Sampled that way, a prefetcher thread's time all seems to go to the line
that calls ``torch.tensor``. So every ``every``-th batch build of such a thread is profiled
with cProfile instead, which hooks only the thread that enables it and counts every call and
its time. The probe saves the call graph of the user's functions (``snapshot``); perfloop's
tools/measure/thread_builds.py turns it into sampler-like call paths for the batch-build ranking.

Profiling slows the builds it covers (function calls most), so those builds are flagged in
the fetch records and their call graph gives shares of build time, not absolute times.
Standard library only: this runs inside the user's interpreter.
"""
from __future__ import annotations

import cProfile
import sys
import threading
import time

from perfloop_sampler import is_user_file

EVERY = 4
"""Profile one batch build in this many, per thread."""


class BuildProfiler:
    """One cProfile per thread that builds batches, enabled on every ``every``-th of its builds."""

    def __init__(self, every: int = EVERY) -> None:
        self.every = every
        self.threads: dict[int, list] = {}  # ident -> [cProfile.Profile, builds seen, builds profiled, seconds]

    def begin(self):
        """Start profiling the calling thread's build when one is due; return the token for end(), or None."""
        ident = threading.get_ident()
        state = self.threads.get(ident)
        if state is None:
            state = self.threads[ident] = [cProfile.Profile(), 0, 0, 0.0]
        state[1] += 1
        if (state[1] - 1) % self.every or sys.getprofile() is not None:
            return None  # not due, or the pipeline profiles this thread itself
        try:
            state[0].enable()
        except ValueError:  # another profiler is active (3.12+: sys.monitoring's profiler slot)
            return None
        return state, time.perf_counter()

    def end(self, token) -> None:
        state, start = token
        state[0].disable()
        state[2] += 1
        state[3] += time.perf_counter() - start

    def snapshot(self, period_s: float) -> dict | None:
        """Return the user functions' call graph over all profiled builds, or None when none was profiled.

        ``functions`` rows are ``[file, qualified name, first line, calls, own seconds, library seconds,
        library calls, callees]``: own seconds is time in the function's own bytecode, library
        seconds the time in the non-user functions it called (builtins, numpy, torch), and
        ``callees`` rows are ``[file, qualified name, first line, calls, seconds]`` of user functions
        it called. ``builds`` and ``profiled`` count the builds seen and profiled, ``profiled_s``
        their time under the profiler, ``period_s`` the sampler's period (for sample-like counts).
        """
        functions: dict[tuple, list] = {}
        builds = profiled = 0
        seconds = 0.0
        for profiler, seen, done, spent in list(self.threads.values()):
            builds, profiled, seconds = builds + seen, profiled + done, seconds + spent
            if not done:
                continue
            try:
                entries = profiler.getstats()
            except Exception:  # a profiler still enabled in a thread stopped mid-build
                continue
            for entry in entries:
                key = _key(entry.code)
                if key is None:
                    continue
                row = functions.setdefault(key, [*key, 0, 0.0, 0.0, 0, {}])
                row[3] += entry.callcount
                row[4] += entry.inlinetime
                for call in entry.calls or ():
                    callee = _key(call.code)
                    if callee is None:
                        row[5] += call.totaltime
                        row[6] += call.callcount
                    else:
                        edge = row[7].setdefault(callee, [*callee, 0, 0.0])
                        edge[3] += call.callcount
                        edge[4] += call.totaltime
        if not profiled:
            return None
        rows = [[*row[:7], list(row[7].values())] for row in functions.values()]
        return {"builds": builds, "profiled": profiled, "profiled_s": seconds, "period_s": period_s,
                "functions": rows}


def _key(code) -> tuple | None:
    """(file, qualified name, first line) of a user function's code object; None for anything else."""
    filename = getattr(code, "co_filename", None)
    if not isinstance(filename, str) or not is_user_file(filename):
        return None
    return filename, getattr(code, "co_qualname", code.co_name), code.co_firstlineno
