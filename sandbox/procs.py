"""Follow a process tree through /proc: who belongs to it, its memory, killing it whole."""

from __future__ import annotations

import os
import signal
import subprocess
import time

_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


class ProcessTree:
    """The processes a command started: its group, its session and every descendant seen.

    Membership is remembered across refreshes, so a child that left the process group
    (setsid, then its parent exited) is still killed, provided one poll saw it. Each
    member is identified by (pid, start time) so a reused pid is never signalled.
    """

    def __init__(self, root_pid: int):
        self.root_pid = root_pid
        self.members: dict[int, int] = {}
        """pid -> start time (clock ticks since boot) of every process seen in the tree."""

    def refresh(self) -> None:
        """Add the processes that joined the tree since the last call."""
        table = _process_table()
        if self.root_pid in table:
            self.members.setdefault(self.root_pid, table[self.root_pid][3])
        root_reused = (
            self.root_pid in table and table[self.root_pid][3] != self.members.get(self.root_pid)
        )
        # Once the root's pid belongs to a new process, a group or session of that id
        # is the newcomer's, not ours.
        for pid, (_, pgid, sid, start) in table.items():
            if not root_reused and self.root_pid in (pgid, sid):
                self.members.setdefault(pid, start)
        # Children of live members, to any depth: repeat until none is added, since
        # the table is not ordered parent first.
        live = {pid for pid, start in self.members.items() if table.get(pid, (0,) * 4)[3] == start}
        grew = True
        while grew:
            grew = False
            for pid, (ppid, _, _, start) in table.items():
                if pid not in self.members and ppid in live:
                    self.members[pid] = start
                    live.add(pid)
                    grew = True

    def alive(self) -> list[int]:
        """Return the members still running (zombies count as gone)."""
        return [pid for pid, start in self.members.items() if _is_running(pid, start)]

    def memory_mb(self) -> float:
        """Return the tree's memory in MiB: summed PSS, or RSS where PSS is unreadable."""
        return sum(_memory_bytes(pid) for pid in self.alive()) / 2**20

    def kill(self, root: subprocess.Popen, grace_s: float) -> None:
        """Stop every member: SIGTERM, then SIGKILL after `grace_s` (at once when 0)."""
        first = signal.SIGTERM if grace_s > 0 else signal.SIGKILL
        self._signal_all(first)
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline:
            root.poll()  # reap the main process so it stops counting as running
            self.refresh()  # catch children forked while dying
            if not self.alive():
                return
            time.sleep(0.05)
        self._signal_all(signal.SIGKILL)
        deadline = time.monotonic() + 2.0
        while self.alive() and time.monotonic() < deadline:
            root.poll()
            time.sleep(0.02)

    def _signal_all(self, signum: int) -> None:
        """Send `signum` to the process group and to every live member outside it."""
        try:
            os.killpg(self.root_pid, signum)
        except (ProcessLookupError, PermissionError):
            pass
        for pid in self.alive():
            try:
                os.kill(pid, signum)
            except (ProcessLookupError, PermissionError):
                pass


def _read_stat(pid: int) -> tuple[str, int, int, int, int] | None:
    """Return (state, ppid, pgid, sid, start time) of `pid`, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode(errors="replace")
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    fields = raw[raw.rfind(")") + 2:].split()
    return fields[0], int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19])


def _process_table() -> dict[int, tuple[int, int, int, int]]:
    """Return pid -> (ppid, pgid, sid, start time) for every live process."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        stat = _read_stat(int(name))
        if stat is not None and stat[0] not in ("Z", "X"):
            table[int(name)] = stat[1:]
    return table


def _is_running(pid: int, start: int) -> bool:
    """Tell whether `pid` is the same, not yet dead, process first seen at `start`."""
    stat = _read_stat(pid)
    return stat is not None and stat[4] == start and stat[0] not in ("Z", "X")


def _memory_bytes(pid: int) -> int:
    """Return the PSS of `pid` in bytes, falling back to RSS, 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE_SIZE
    except (OSError, IndexError, ValueError):
        return 0
