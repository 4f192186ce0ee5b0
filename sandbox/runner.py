"""Run one shell command in isolation: time and memory limits, scrubbed env, no network.

The command runs as ``/bin/sh -c COMMAND`` in its own session (so its own process
group), with stdin closed and stdout/stderr written to files, never pipes, so a chatty
pipeline cannot block on a full pipe. The whole process tree is polled from ``/proc``
every ~0.2 s for its memory; on timeout, on a memory overrun and after the main
process exits, whatever remains of the tree (DataLoader workers, stray ``&`` jobs)
is killed.

Limits of the isolation: this is not a security boundary against a determined
attacker. It keeps secrets out of the environment and the network away, and it
kills what it started; it does not hide the filesystem (``HOME`` stays readable).
"""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, NamedTuple

from pydantic import BaseModel, Field

from sandbox.procs import ProcessTree

TAIL_CHARS = 4000
POLL_INTERVAL_S = 0.2

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

# Run inside the new network namespace before the command: bring loopback up so a
# pipeline can still talk to itself (torchrun rendezvous, gloo on 127.0.0.1), then
# become the shell. Loopback of a fresh namespace reaches nothing outside it.
_LOOPBACK_UP_THEN_EXEC = """
import fcntl, os, socket, struct, sys
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    flags = struct.unpack('16sH', fcntl.ioctl(s, 0x8913, struct.pack('16sH', b'lo', 0)))[1]
    fcntl.ioctl(s, 0x8914, struct.pack('16sH', b'lo', flags | 0x1))
except OSError:
    pass
os.execv('/bin/sh', ['/bin/sh', '-c', sys.argv[1]])
"""


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
    """Killed because the tree's memory went past RunLimits.memory_mb."""
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
    """True when it ran in its own network namespace."""
    started_at: float
    """time.time() just before the process was started."""


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


@functools.cache
def network_isolation_prefix() -> tuple[str, ...] | None:
    """Return the argv prefix that runs a program without network, or None if the OS refuses."""
    unshare = "/usr/bin/unshare" if os.path.exists("/usr/bin/unshare") else "unshare"
    candidates = [(unshare, "--net"), (unshare, "--net", "--map-root-user")]
    if os.geteuid() != 0:
        # Only root may create a network namespace directly; others need a user
        # namespace in which they are root.
        candidates = candidates[1:]
    for prefix in candidates:
        try:
            probe = subprocess.run(
                [*prefix, sys.executable, "-I", "-S", "-c", "pass"],
                stdin=subprocess.DEVNULL, capture_output=True, timeout=30,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if probe.returncode == 0:
            return prefix
    return None


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
    argv = ["/bin/sh", "-c", command]
    prefix = None if limits.network else network_isolation_prefix()
    if prefix is not None:
        argv = [*prefix, sys.executable, "-I", "-S", "-c", _LOOPBACK_UP_THEN_EXEC, command]
    with _output_file(stdout_path) as out, _output_file(stderr_path) as err:
        started_at = time.time()
        outcome = _supervise(argv, cwd, sandbox_env(extra_env), limits, out, err)
        return RunResult(
            command=command, cwd=str(cwd), returncode=outcome.returncode,
            timed_out=outcome.timed_out, memory_exceeded=outcome.memory_exceeded,
            peak_rss_mb=round(outcome.peak_mb, 1), wall_s=round(outcome.wall_s, 3),
            stdout_tail=_tail(out), stderr_tail=_tail(err),
            network_isolated=prefix is not None, started_at=started_at,
        )


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
    "RunLimits", "RunResult", "network_isolation_prefix", "run_command", "sandbox_env",
    "scrub_env",
]
