"""What isolation a run can get and really got: namespaces, read-only inputs, the guard's report.

``perfloop.sandbox.runner`` asks ``choose_namespaces`` for the ``unshare`` prefix the OS grants,
reads back what ``sandbox/guard.py`` achieved inside it, and reports it with
``describe_isolation``: isolation is claimed only where it happened.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from pydantic import BaseModel

# "[Errno 30] Read-only file system: 'data/x.npy'" (Python), "rm: cannot remove 'x': Read-only
# file system" (coreutils), "cannot create x: Read-only file system" (sh redirection).
_READ_ONLY_WRITE = (
    re.compile(r"Read-only file system: '([^'\n]+)'"),
    re.compile(r"'([^'\n]+)': Read-only file system"),
    re.compile(r"cannot create ([^:'\n]+): Read-only file system"),
)


class Isolation(BaseModel):
    """What isolation a run really had; each field from what happened, not what was asked."""

    network_cut: bool
    """True only when the command ran in its own network namespace (own loopback only)."""
    network: str
    """How the network stood: "cut", "allowed (network = true)" or "NOT cut: <why>"."""
    memory_hard_limit_mb: int | None
    """Per-process RLIMIT_DATA in MiB, None when none could be set."""
    memory: str
    """How memory was limited: "rlimit_data <N> MiB per process + tree PSS polled every 0.2 s"
    or "tree PSS polled every 0.2 s" (a burst between two polls escapes)."""
    num_inputs_read_only: int = 0
    """Protected paths mounted read-only for this run (writes fail with EROFS)."""
    num_inputs_checked_only: int = 0
    """Protected paths that could not be mounted read-only: only checked for changes after."""
    inputs: str = "none protected"
    """One line: "read-only mount", "change check only for N path(s): <why>; <how>", or "none protected"."""
    num_inputs_hashed: int = 0
    """Files under the checked-only paths hashed before and after the run."""
    num_inputs_stat_only: int = 0
    """Files under the checked-only paths compared by stat data only (past the hash budget)."""
    orphans: str = ""
    """How the tree is bound to perfloop's life: "guard (subreaper + death signal)", or why not."""


NETWORK_RANK = {"cut": 0, "allowed": 1, "not_cut": 2}
MEMORY_RANK = {"rlimit+pss_polling": 0, "pss_polling": 1}
INPUTS_RANK = {"none_protected": 0, "read_only_mount": 1, "hash_check": 2, "hash_and_stat_check": 3,
               "stat_check": 4}
"""Kinds of each isolation aspect, strongest first (a higher rank is weaker)."""


class ObservedIsolation(BaseModel):
    """The weakest isolation the sandbox reported over a run's pipeline runs: what a run may claim.

    Built from each RunResult.isolation (the guard's report), never from what was asked for.
    """

    runs: int = 0
    """Pipeline runs observed."""
    network: str = "cut"
    """"cut" (own network namespace), "allowed" (network = true in the contract) or "not_cut"."""
    memory_limit: str = "rlimit+pss_polling"
    """"rlimit+pss_polling" (RLIMIT_DATA per process and the tree's PSS polled) or "pss_polling" (polling
    only: a burst between two polls escapes). No cgroup is used."""
    inputs: str = "none_protected"
    """"read_only_mount" (bind mounted read-only); where no mount was possible, checked for changes after
    each run instead: "hash_check" (every file hashed before and after), "hash_and_stat_check" (files past
    the hash budget by stat data only) or "stat_check" (no file hashed); "none_protected" (no linked inputs)."""
    orphans_bound: bool = True
    """Every run's process tree was bound to perfloop's life (guard: subreaper + death signal)."""
    detail: dict[str, str] = {}
    """The sandbox's own words for the weakest run of each aspect: network, memory, inputs, orphans."""

    def line(self) -> str:
        """Say it in one line, for `perfloop log` and the report."""
        return (f"isolation over {self.runs} pipeline run(s): network {self.network}, memory "
                f"{self.memory_limit}, inputs {self.inputs}"
                + ("" if self.orphans_bound else ", process tree NOT bound to perfloop's life"))


def observe(isolation: Isolation, seen: ObservedIsolation | None = None) -> ObservedIsolation:
    """Fold one run's Isolation into what was seen so far, keeping the weakest of each aspect."""
    network = ("allowed" if isolation.network.startswith("allowed")
               else "cut" if isolation.network_cut else "not_cut")
    memory = "rlimit+pss_polling" if isolation.memory_hard_limit_mb else "pss_polling"
    if isolation.num_inputs_checked_only:
        hashed, stat_only = isolation.num_inputs_hashed, isolation.num_inputs_stat_only
        inputs = ("hash_check" if not stat_only else "hash_and_stat_check" if hashed else "stat_check")
    else:
        inputs = "read_only_mount" if isolation.num_inputs_read_only else "none_protected"
    orphans_bound = isolation.orphans.startswith("guard")
    now = ObservedIsolation(runs=1, network=network, memory_limit=memory, inputs=inputs,
                            orphans_bound=orphans_bound,
                            detail={"network": isolation.network, "memory": isolation.memory,
                                    "inputs": isolation.inputs, "orphans": isolation.orphans})
    if seen is None:
        return now
    pick = {
        "network": (NETWORK_RANK[now.network] > NETWORK_RANK[seen.network], "network"),
        "memory_limit": (MEMORY_RANK[now.memory_limit] > MEMORY_RANK[seen.memory_limit], "memory"),
        "inputs": (INPUTS_RANK[now.inputs] > INPUTS_RANK[seen.inputs], "inputs"),
    }
    merged = seen.model_copy(deep=True)
    merged.runs = seen.runs + 1
    for field, (weaker, key) in pick.items():
        if weaker:
            setattr(merged, field, getattr(now, field))
            merged.detail[key] = now.detail[key]
    if seen.orphans_bound and not now.orphans_bound:
        merged.orphans_bound = False
        merged.detail["orphans"] = now.detail["orphans"]
    return merged


def network_isolation_prefix() -> tuple[str, ...] | None:
    """Return the argv prefix that runs a program without network, or None if the OS refuses."""
    return namespace_prefix(network=True, mount=False)[0]


@functools.cache
def namespace_prefix(network: bool, mount: bool) -> tuple[tuple[str, ...] | None, str]:
    """Return (argv prefix giving the wanted new namespaces, "") or (None, why the OS refused)."""
    unshare = "/usr/bin/unshare" if os.path.exists("/usr/bin/unshare") else "unshare"
    flags = (("--net",) if network else ()) + (("--mount",) if mount else ())
    if not flags:
        return (), ""
    candidates = [(unshare, *flags), (unshare, *flags, "--map-root-user")]
    if os.geteuid() != 0:
        # Only root may create these namespaces directly; others need a user
        # namespace in which they are root.
        candidates = candidates[1:]
    why = "unshare refused"
    for prefix in candidates:
        try:
            probe = subprocess.run(
                [*prefix, sys.executable, "-I", "-S", "-c", "pass"],
                stdin=subprocess.DEVNULL, capture_output=True, timeout=30,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            why = f"{' '.join(prefix)} failed: {error}"
            continue
        if probe.returncode == 0:
            return prefix, ""
        why = f"{' '.join(prefix)} failed: {probe.stderr.decode(errors='replace').strip()[-300:]}"
    return None, why


def choose_namespaces(want_net: bool, want_mount: bool) -> tuple[tuple[str, ...], str]:
    """Return the best namespace prefix the OS grants of those wanted, and why any part is missing."""
    prefix, why = namespace_prefix(want_net, want_mount)
    if prefix is not None:
        return prefix, ""
    # Take what is granted of the two rather than nothing.
    for net, mount in ((want_net, False), (False, want_mount)):
        if net or mount:
            partial, _ = namespace_prefix(net, mount)
            if partial is not None:
                return partial, why
    return (), why


def namespace_id(kind: str) -> str:
    """Return perfloop's own namespace of `kind` ('net', 'mnt'), to tell the guard's apart."""
    try:
        return os.readlink(f"/proc/self/ns/{kind}")
    except OSError:
        return ""


def read_guard_report(path: str) -> dict:
    """Read what the guard achieved; {} when it never got that far."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def describe_isolation(network_allowed: bool, guard: dict, read_only: list[str], refused: str,
                       hard_limit_mb: int | None, poll_interval_s: float, snapshot=None) -> Isolation:
    """Turn the guard's report (and what the runner set itself) into the Isolation record.

    ``snapshot`` (perfloop.sandbox.inputs.InputSnapshot) says how the checked-only paths were compared.
    """
    network_cut = bool(guard.get("net_namespace"))
    if network_allowed:
        network = "allowed (network = true)"
    elif network_cut:
        network = "cut" if guard.get("loopback") else "cut (loopback could not be brought up)"
    else:
        network = f"NOT cut: {refused or 'the guard did not report a network namespace'}"
    mounted = list(guard.get("read_only", []))
    checked = [p for p in read_only if p not in mounted]
    if not read_only:
        inputs = "none protected"
    elif not checked:
        inputs = "read-only mount"
    else:
        failed = guard.get("read_only_failed") or {}
        why = refused or next(iter(failed.values()), "no mount namespace")
        inputs = f"change check only for {len(checked)} path(s): {why}"
        if snapshot is not None:
            hashed, stat_only = snapshot.coverage(checked)
            inputs += (f"; hashed {hashed} file(s) before and after" if hashed else "; no file hashed")
            inputs += (f", stat data only for {stat_only} file(s) past the hash budget" if stat_only and hashed
                       else ", stat data only" if stat_only else "")
    hard = hard_limit_mb
    memory = (f"rlimit_data {hard} MiB per process + tree PSS polled every {poll_interval_s} s"
              if hard else f"tree PSS polled every {poll_interval_s} s")
    if guard.get("subreaper") and guard.get("death_signal"):
        orphans = "guard (subreaper + death signal)"
    else:
        missing = [why for why in (guard.get("death_signal_error"), guard.get("subreaper_error")) if why]
        orphans = f"NOT bound to perfloop's life: {'; '.join(missing) or 'no guard report'}"
    return Isolation(network_cut=network_cut, network=network, memory_hard_limit_mb=hard,
                     memory=memory, num_inputs_read_only=len(mounted), num_inputs_checked_only=len(checked),
                     inputs=inputs, orphans=orphans,
                     num_inputs_hashed=hashed if checked and snapshot is not None else 0,
                     num_inputs_stat_only=stat_only if checked and snapshot is not None else 0)


def refused_writes(stderr_tail: str, cwd: Path, read_only: list[str]) -> list[str]:
    """Return the protected paths the command's "Read-only file system" errors point at."""
    if "Read-only file system" not in stderr_tail:
        return []
    found = set()
    for pattern in _READ_ONLY_WRITE:
        for name in pattern.findall(stderr_tail):
            real = os.path.realpath(os.path.join(cwd, name))
            if any(real == p or real.startswith(p.rstrip("/") + "/") for p in read_only):
                found.add(real)
    if not found:
        # Some writers (torch.save's C++ zip writer) do not name the file; the traceback's
        # source line usually does, by the protected file's name.
        found = {p for p in read_only if os.path.isfile(p) and os.path.basename(p) in stderr_tail}
    if not found:
        shown = ", ".join(read_only[:3]) + (", ..." if len(read_only) > 3 else "")
        found.add(f"one of the protected inputs ({shown}); the error did not name it")
    return sorted(found)
