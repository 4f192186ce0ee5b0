"""What else the machine did while the pipeline ran: CPU counters the probe reads between steps.

Standard library only (it runs inside the user's interpreter). A snapshot holds cumulative
counters; perfloop (``tools/measure/interference.py``) subtracts two of them:

- ``busy``, ``idle``, ``steal``: ticks of the CPUs this process may run on (its affinity:
  on a machine split by cpusets the other CPUs are not ours to lose), from ``/proc/stat``:
  busy is user + nice + system + irq + softirq, whoever ran; idle counts iowait; steal is
  time a hypervisor gave a virtual CPU's turn to another guest;
- ``tree``: CPU ticks of the pipeline's own process tree (this process and its descendants,
  each one's utime + stime + cutime + cstime, so a reaped worker's time is counted once, in
  its parent), plus the utime + stime of its ancestors up to the perfloop process that
  supervises the run (``Env.SUPERVISOR_PID``: the shell, the sandbox's guard and perfloop's
  own poll are the same on both sides of a comparison and no neighbour's);
- ``cpu_s``: this process's CPU time (all its threads);
- ``preempted``: its involuntary context switches (the scheduler took a CPU it still wanted);
- ``queue_ns``: time the calling thread (the training loop's) waited runnable on a run queue.

``busy - tree`` is what every other process took, short jobs that began and ended between
two snapshots and other containers' processes included. Reading a snapshot costs about
0.2 ms (the process tree is walked through ``/proc/<pid>/task/<tid>/children``), so the probe
takes one at the measured window's edges and otherwise at most every ``SAMPLE_EVERY_S``.
Where ``/proc`` is missing (not Linux) ``snapshot`` returns None and ``unavailable_reason``
says why.
"""
from __future__ import annotations

import os
import resource
import time

PROC = "/proc"
SAMPLE_EVERY_S = 0.1
"""Least time between two snapshots inside the measured window (its edges are always taken)."""


def _watched_cpus() -> set[int]:
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return set(range(os.cpu_count() or 1))


def clock_ticks() -> int:
    """Ticks per second of /proc's counters (USER_HZ, 100 on Linux)."""
    try:
        return int(os.sysconf("SC_CLK_TCK"))
    except (AttributeError, ValueError, OSError):
        return 100


class LoadReader:
    """Read load snapshots for one process; ``cpus`` is fixed at construction."""

    def __init__(self, proc: str = PROC, supervisor: int = 0) -> None:
        self.proc = proc
        self.supervisor = supervisor
        self.cpus = _watched_cpus()
        self.hz = clock_ticks()
        self._ancestors: list[int] | None = None
        self.unavailable_reason = ""
        if self.cpu_counters() is None:
            self.unavailable_reason = f"{proc}/stat is not readable here (not Linux?): no interference figures"

    def cpu_counters(self) -> tuple[int, int, int] | None:
        """(busy, idle, steal) ticks summed over the watched CPUs, or None where unreadable."""
        busy = idle = steal = 0
        seen = False
        try:
            with open(f"{self.proc}/stat", "rb") as handle:
                for line in handle:
                    if not line.startswith(b"cpu"):
                        break  # the per-CPU lines come first
                    name, *fields = line.split()
                    if name == b"cpu" or int(name[3:]) not in self.cpus:
                        continue
                    values = [int(v) for v in fields[:8]]
                    values += [0] * (8 - len(values))
                    user, nice, system, idle_t, iowait, irq, softirq, steal_t = values
                    busy += user + nice + system + irq + softirq
                    idle += idle_t + iowait
                    steal += steal_t
                    seen = True
        except (OSError, ValueError):
            return None
        return (busy, idle, steal) if seen else None

    def tree_ticks(self, root: int) -> int:
        """CPU ticks of ``root`` and every descendant it has now (their reaped children included)."""
        total = 0
        pending, seen = [root], set()
        while pending:
            pid = pending.pop()
            if pid in seen:
                continue
            seen.add(pid)
            try:
                fields = self._stat(pid)
                total += int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
                for tid in os.listdir(f"{self.proc}/{pid}/task"):
                    with open(f"{self.proc}/{pid}/task/{tid}/children", "rb") as handle:
                        pending.extend(int(child) for child in handle.read().split())
            except (OSError, ValueError, IndexError):
                continue  # gone meanwhile, or a kernel without the children file
        return total

    def _stat(self, pid: int) -> list[bytes]:
        """The fields of /proc/<pid>/stat after the command name (state first; utime is [11])."""
        with open(f"{self.proc}/{pid}/stat", "rb") as handle:
            raw = handle.read()
        return raw[raw.rfind(b")") + 2:].split()

    def ancestors(self) -> list[int]:
        """This process's ancestors up to the supervisor (inclusive); none when it is not one of them."""
        chain, pid = [], os.getpid()
        for _ in range(8):
            try:
                pid = int(self._stat(pid)[1])
            except (OSError, ValueError, IndexError):
                return []
            if pid <= 1:
                return []
            chain.append(pid)
            if pid == self.supervisor:
                return chain
        return []

    def ancestor_ticks(self, pids: list[int]) -> int:
        """utime + stime of ``pids`` (their children are the pipeline, counted in the tree)."""
        total = 0
        for pid in pids:
            try:
                fields = self._stat(pid)
                total += int(fields[11]) + int(fields[12])
            except (OSError, ValueError, IndexError):
                continue
        return total

    def queue_ns(self) -> int:
        """Run-queue wait of the calling thread so far (ns), 0 where schedstat is missing."""
        try:
            with open(f"{self.proc}/thread-self/schedstat", "rb") as handle:
                return int(handle.read().split()[1])
        except (OSError, ValueError, IndexError):
            return 0

    def snapshot(self, closed_steps: int) -> list | None:
        """[closed_steps, wall, busy, idle, steal, tree, cpu_s, preempted, queue_ns], or None where unreadable."""
        counters = self.cpu_counters()
        if counters is None:
            return None
        usage = resource.getrusage(resource.RUSAGE_SELF)
        if self._ancestors is None:
            self._ancestors = self.ancestors() if self.supervisor else []
        tree = self.tree_ticks(os.getpid()) + self.ancestor_ticks(self._ancestors)
        return [closed_steps, time.time(), *counters, tree, time.process_time(),
                usage.ru_nivcsw, self.queue_ns()]
