"""Run one shell command in isolation: time and memory limits, scrubbed env, no network.

The command runs as ``/bin/sh -c COMMAND`` under ``sandbox/guard.py`` (see there), in
its own session (so its own process group), with stdin closed and stdout/stderr
written to files, never pipes, so a chatty pipeline cannot block on a full pipe. The
whole process tree is polled from ``/proc`` every ~0.2 s for its memory; on timeout,
on a memory overrun and after the main process exits, whatever remains of the tree
(DataLoader workers, stray ``&`` jobs) is killed. If perfloop itself dies (even by
SIGKILL), the guard hears it through ``PR_SET_PDEATHSIG`` and kills the whole tree:
as a child subreaper it has inherited every orphan.

Each process also gets a hard per-process data limit (``RLIMIT_DATA``) a little
above the tree's limit, so a burst that comes and goes between two polls is still
stopped. What isolation was really in force is reported in ``RunResult.isolation``,
from what the guard achieved, never from what was asked for.

Limits of the isolation: this is not a security boundary against a determined
attacker. It keeps secrets out of the environment and the network away, and it
kills what it started; it does not hide the filesystem (``HOME`` stays readable).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, NamedTuple

from pydantic import BaseModel, Field

from perfloop.sandbox.inputs import HASH_BUDGET_BYTES, changed_inputs, snapshot_inputs
from perfloop.sandbox.isolation import (
    Isolation,
    choose_namespaces,
    describe_isolation,
    namespace_id,
    namespace_prefix,
    network_isolation_prefix,
    read_guard_report,
    refused_writes,
)
from perfloop.sandbox.procs import ProcessTree

TAIL_CHARS = 4000
POLL_INTERVAL_S = 0.2
NO_MOUNT_ENV = "PERFLOOP_NO_READONLY_MOUNT"
"""Set to 1 to check protected inputs for changes instead of mounting them read-only."""
HARD_LIMIT_SLACK_MB = 512
"""RLIMIT_DATA is memory_mb plus this: reserved-but-untouched memory (thread stacks,
allocator arenas) counts toward it, so the exact tree limit is left to the PSS poll."""
GUARD = Path(__file__).resolve().parent / "guard.py"
# What Python, numpy, torch and C++ say when an allocation is refused.
_OUT_OF_MEMORY = re.compile(
    r"MemoryError|Cannot allocate memory|can't allocate memory|Unable to allocate|std::bad_alloc"
    r"|out of memory", re.IGNORECASE)
# Kept only when also free of the secret markers below. Allowlisting (rather than
# blocklisting known secrets) means an unfamiliar variable holding a credential is
# dropped by default; what is kept is what a training process plausibly needs:
# locale, temp dirs, the interpreter's own knobs, the GPU stack and thread pools.
_ALLOWED_NAMES = frozenset({
    "PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP", "TMP", "USER",
    "LOGNAME", "SHELL", "TERM", "LD_LIBRARY_PATH", "VIRTUAL_ENV", "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV", "HF_HOME", "HF_DATASETS_CACHE", "XDG_CACHE_HOME",
    "CUBLAS_WORKSPACE_CONFIG", "TOKENIZERS_PARALLELISM",
})
_ALLOWED_PREFIXES = (
    "LC_", "PYTHON", "CUDA_", "NVIDIA_", "NCCL_", "CUDNN_", "OMP_", "MKL_", "KMP_",
    "OPENBLAS_", "TORCH_", "PYTORCH_", "TRITON_",
)
# PYTHONPATH is perfloop's to set (the profiler bootstrap arrives through extra_env);
# inheriting the caller's could shadow modules. PYTHONSTARTUP runs arbitrary code.
_DENIED_NAMES = frozenset({"PYTHONPATH", "PYTHONSTARTUP"})
_SECRET_MARKERS = (
    "KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE",
    "SESSION",
)



class RunLimits(BaseModel):
    """Limits one command runs under."""

    timeout_s: float = Field(900.0, gt=0)
    """Wall-clock limit; past it the whole process group gets SIGTERM, then SIGKILL."""
    memory_mb: int = Field(16384, gt=0)
    """Memory of the whole process tree in MiB (see RunResult.peak_rss_mb); past it, killed."""
    network: bool = False
    """False: run in a fresh network namespace (only its own loopback) where the OS allows."""
    kill_grace_s: float = Field(5.0, ge=0)
    """Time between SIGTERM and SIGKILL when the tree is stopped."""
    memory_hard_limit: bool = True
    """Also cap each process's data segment (RLIMIT_DATA) at memory_mb + HARD_LIMIT_SLACK_MB,
    so a burst between two polls fails its allocation. Off: the PSS poll alone."""
    read_only_paths: list[str] = Field(default_factory=list)
    """The user's files and folders the command must not change (the targets of the
    input links): mounted read-only in the run's own mount namespace where the OS
    allows, else checked for changes before and after (stat data of every path, a hash
    of the files within input_hash_budget_mb, new files in linked folders)."""
    read_only_mount: bool = Field(default_factory=lambda: os.environ.get(NO_MOUNT_ENV, "") not in ("1", "true"))
    """False: never mount the inputs read-only, always use the change check (the fallback).
    Defaults from the environment: PERFLOOP_NO_READONLY_MOUNT=1 turns mounts off."""
    input_hash_budget_mb: int = Field(HASH_BUDGET_BYTES >> 20, ge=0)
    """Bytes of protected files (MiB, smallest first) the change check hashes; the rest by stat."""


class RunResult(BaseModel):
    """What happened when a command ran; a failing command is reported here, not raised."""

    command: str
    """The shell command line as given."""
    cwd: str
    """Directory it ran in."""
    returncode: int | None
    """Exit status; -N when killed by signal N; None when it could not be started."""
    timed_out: bool
    """Killed because it ran past RunLimits.timeout_s."""
    memory_exceeded: bool
    """Killed because the tree's memory went past RunLimits.memory_mb, or failed on an
    allocation the hard per-process limit refused (an out-of-memory error on stderr)."""
    peak_rss_mb: float
    """Peak memory of the whole tree, in MiB, as sampled: summed PSS (shared pages of
    forked DataLoader workers counted once), RSS where PSS is unreadable."""
    wall_s: float
    """Seconds from start until the main process exited or was killed."""
    stdout_tail: str
    """Last ~4000 characters of stdout."""
    stderr_tail: str
    """Last ~4000 characters of stderr."""
    network_isolated: bool
    """True when it ran in its own network namespace (same as isolation.network_cut)."""
    started_at: float
    """time.time() just before the process was started."""
    isolation: Isolation | None = None
    """What isolation was really in force (None only when the command could not start)."""
    input_writes: list[str] = Field(default_factory=list)
    """Protected paths the command changed (change check) or tried to write (a read-only
    mount refused it): the run must be failed, naming these files."""

    def input_write_error(self) -> str | None:
        """Return the message to fail the run with when it wrote (or tried to) a protected input."""
        if not self.input_writes:
            return None
        refused = bool(self.isolation and self.isolation.num_inputs_read_only)
        what = ("tried to write your input file(s)" if refused
                else "changed your input file(s) through perfloop's links")
        outcome = ("the read-only mount refused it, so they are unchanged" if refused
                   else "restore them from your backup")
        return (f"`{self.command}` {what}: {', '.join(self.input_writes)}; {outcome}. A pipeline must "
                "write its outputs elsewhere (out/, checkpoints/); list only read-only inputs in `inputs` "
                "of [tool.perfloop].")


def scrub_env(base: Mapping[str, str]) -> dict[str, str]:
    """Keep only the allowlisted variables of `base` whose names do not look secret."""
    kept = {}
    for name, value in base.items():
        allowed = name in _ALLOWED_NAMES or name.startswith(_ALLOWED_PREFIXES)
        if not allowed or name in _DENIED_NAMES:
            continue
        # Checked after the allowlist on purpose: TORCH_HUB_TOKEN or HF_TOKEN match a
        # prefix yet must never reach untrusted code.
        if any(marker in name.upper() for marker in _SECRET_MARKERS):
            continue
        kept[name] = value
    return kept


def sandbox_env(extra_env: Mapping[str, str] | None) -> dict[str, str]:
    """Build the environment: scrubbed os.environ, then extra_env, our interpreter first on PATH."""
    env = scrub_env(os.environ)
    env.update(extra_env or {})
    # `python` in the user's command must be the interpreter perfloop runs under (and
    # whose profiler bootstrap it sets up), not whichever python is first on PATH.
    # sys.executable is not resolved: in a venv its directory is the venv's bin/.
    interpreter_dir = os.path.dirname(sys.executable)
    env["PATH"] = os.pathsep.join([interpreter_dir, env.get("PATH", os.defpath)])
    return env


def run_command(
    command: str,
    cwd: Path,
    extra_env: Mapping[str, str] | None,
    limits: RunLimits,
    stdout_path: Path | None = None,
    stderr_path: Path | None = None,
) -> RunResult:
    """Run `command` under `limits` and report how it went; raise only for a missing cwd.

    The environment is scrub_env(os.environ) plus `extra_env` (trusted, not scrubbed),
    with the directory of sys.executable first on PATH, so `python` in the command
    is the interpreter perfloop runs under. Output goes to `stdout_path` and
    `stderr_path` (truncated first), or to temp files when None.
    """
    cwd = Path(cwd)
    if not cwd.is_dir():
        raise ValueError(f"cannot run {command!r}: working directory {cwd} does not exist")
    read_only = sorted({os.path.realpath(p) for p in limits.read_only_paths if os.path.exists(p)})
    prefix, refused = choose_namespaces(not limits.network, bool(read_only) and limits.read_only_mount)
    mounting = "--mount" in prefix
    with tempfile.TemporaryDirectory(prefix="perfloop-guard-") as scratch, \
            _output_file(stdout_path) as out, _output_file(stderr_path) as err:
        report_path = os.path.join(scratch, "guard.json")
        hard_limit_mb = limits.memory_mb + HARD_LIMIT_SLACK_MB if limits.memory_hard_limit else None
        spec = {"command": command, "read_only": read_only if mounting else [], "report": report_path,
                "parent_pid": os.getpid(), "parent_net_ns": namespace_id("net"),
                "parent_mnt_ns": namespace_id("mnt"), "data_limit_mb": hard_limit_mb}
        # A file, not an argument: thousands of protected paths outgrow one argv string (128 KiB).
        spec_path = os.path.join(scratch, "spec.json")
        with open(spec_path, "w") as f:
            json.dump(spec, f)
        argv = [*prefix, sys.executable, "-I", "-S", str(GUARD), spec_path]
        # Hashed only where no mount will protect them: a mount makes a write fail outright.
        before = snapshot_inputs(read_only, 0 if mounting else limits.input_hash_budget_mb << 20)
        started_at = time.time()
        outcome = _supervise(argv, cwd, sandbox_env(extra_env), limits, out, err)
        stderr_tail = _tail(err)
        if outcome.returncode is None:
            return RunResult(
                command=command, cwd=str(cwd), returncode=None, timed_out=False,
                memory_exceeded=False, peak_rss_mb=0.0, wall_s=round(outcome.wall_s, 3),
                stdout_tail=_tail(out), stderr_tail=stderr_tail, network_isolated=False,
                started_at=started_at)
        guard = read_guard_report(report_path)
        hard_limit_mb = guard.get("data_limit_mb")  # what the guard could set, not what was asked
        isolation = describe_isolation(limits.network, guard, read_only, _why_no_mount(limits, refused),
                                       hard_limit_mb, POLL_INTERVAL_S, before)
        writes = set(changed_inputs(before))
        if isolation.num_inputs_read_only:  # refused even if the command carried on regardless
            writes.update(refused_writes(stderr_tail, cwd, read_only))
        memory_exceeded = outcome.memory_exceeded or (
            hard_limit_mb is not None and outcome.returncode not in (0, None) and not outcome.timed_out
            and bool(_OUT_OF_MEMORY.search(stderr_tail)))
        return RunResult(
            command=command, cwd=str(cwd), returncode=outcome.returncode,
            timed_out=outcome.timed_out, memory_exceeded=memory_exceeded,
            peak_rss_mb=round(outcome.peak_mb, 1), wall_s=round(outcome.wall_s, 3),
            stdout_tail=_tail(out), stderr_tail=stderr_tail,
            network_isolated=isolation.network_cut, started_at=started_at,
            isolation=isolation, input_writes=sorted(writes),
        )


def expected_isolation(limits: RunLimits) -> Isolation:
    """Say what isolation a run under `limits` would get here (for the run's first audit record).

    Probes the namespaces without running anything; each RunResult.isolation then says
    what a run really had.
    """
    read_only = sorted({os.path.realpath(p) for p in limits.read_only_paths if os.path.exists(p)})
    prefix, refused = choose_namespaces(not limits.network, bool(read_only) and limits.read_only_mount)
    guard = {"subreaper": True, "death_signal": True, "net_namespace": "--net" in prefix,
             "mount_namespace": "--mount" in prefix,
             "read_only": read_only if "--mount" in prefix else [],
             "read_only_failed": {} if "--mount" in prefix else {p: "no mount namespace" for p in read_only}}
    hard_limit_mb = limits.memory_mb + HARD_LIMIT_SLACK_MB if limits.memory_hard_limit else None
    return describe_isolation(limits.network, guard, read_only, _why_no_mount(limits, refused), hard_limit_mb,
                              POLL_INTERVAL_S)


def _why_no_mount(limits: RunLimits, refused: str) -> str:
    """Say why the inputs are not mounted when the mounts were turned off, else what the OS said."""
    if limits.read_only_mount or refused:
        return refused
    return f"read-only mounts turned off ({NO_MOUNT_ENV}=1 or RunLimits.read_only_mount=False)"


class _Outcome(NamedTuple):
    """How a supervised command ended."""

    returncode: int | None
    timed_out: bool
    memory_exceeded: bool
    peak_mb: float
    wall_s: float


def _supervise(
    argv: list[str], cwd: Path, env: dict[str, str], limits: RunLimits,
    out: IO[bytes], err: IO[bytes],
) -> _Outcome:
    """Start argv, poll it until it exits or breaks a limit, then kill what remains."""
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
            start_new_session=True,
        )
    except OSError as exc:
        err.write(f"[perfloop] could not start {argv[0]}: {exc}\n".encode())
        return _Outcome(None, False, False, 0.0, time.monotonic() - start)
    tree = ProcessTree(proc.pid)
    timed_out = memory_exceeded = False
    peak_mb = 0.0
    try:
        while proc.poll() is None:
            tree.refresh()
            peak_mb = max(peak_mb, tree.memory_mb())
            if peak_mb > limits.memory_mb:
                # No grace: memory grows fast and the host's OOM killer would be worse.
                memory_exceeded = True
                tree.kill(proc, grace_s=0.0)
                break
            remaining_s = limits.timeout_s - (time.monotonic() - start)
            if remaining_s <= 0:
                timed_out = True
                tree.kill(proc, grace_s=limits.kill_grace_s)
                break
            try:
                proc.wait(timeout=min(POLL_INTERVAL_S, remaining_s))
            except subprocess.TimeoutExpired:
                pass
        returncode = proc.wait()
        wall_s = time.monotonic() - start
    finally:
        # Whatever outlived the main process (workers, `cmd &`) must not keep running,
        # nor may the tree outlive perfloop when it is interrupted (Ctrl-C reaches only
        # perfloop: the command has its own session).
        tree.refresh()
        tree.kill(proc, grace_s=min(limits.kill_grace_s, 1.0))
    return _Outcome(returncode, timed_out, memory_exceeded, peak_mb, wall_s)


@contextlib.contextmanager
def _output_file(path: Path | None) -> Iterator[IO[bytes]]:
    """Open `path` for the command's output, or an anonymous temp file when None."""
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    with (tempfile.TemporaryFile() if path is None else open(path, "w+b")) as file:
        yield file


def _tail(file: IO[bytes]) -> str:
    """Return the last TAIL_CHARS characters written to `file`."""
    file.flush()
    size = file.seek(0, os.SEEK_END)
    file.seek(max(0, size - 4 * TAIL_CHARS))
    return file.read().decode("utf-8", errors="replace")[-TAIL_CHARS:]


__all__ = [
    "Isolation", "RunLimits", "RunResult", "expected_isolation", "namespace_prefix",
    "network_isolation_prefix", "run_command", "sandbox_env", "scrub_env",
]
