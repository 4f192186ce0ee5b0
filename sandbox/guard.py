"""The first process of every sandboxed run: it sets up isolation, runs the command, and outlives nothing.

Started by ``perfloop.sandbox.runner`` as ``python -I -S guard.py SPEC.json`` (inside
``unshare --net/--mount`` where the OS allows), as perfloop's direct child. It:

1. sets ``PR_SET_PDEATHSIG`` = SIGTERM (then checks that perfloop did not die
   before), so it hears when perfloop dies, however it dies; caps ``RLIMIT_DATA``
   for itself and every descendant; and becomes a child subreaper, so every
   orphaned descendant (a DataLoader worker whose parent died, a ``setsid cmd &``
   daemon) is re-parented to it, not to init. (Done here rather than in a
   ``preexec_fn``: perfloop has threads, and Python warns that ``preexec_fn`` may
   deadlock in a forked child of a threaded process.)
2. in a fresh network namespace, brings its own loopback up;
3. in a fresh mount namespace, bind-mounts each protected input read-only (the
   user's files stay writable outside; only this run sees them read-only);
4. writes what it achieved to the report file (the runner reports isolation from
   that, never from what it asked for);
5. forks ``/bin/sh -c COMMAND`` (with its own death signal: SIGKILL if the guard
   dies), waits for it, kills whatever descendants remain, and exits with the
   command's status (re-raising the signal that killed it).

On SIGTERM while perfloop still lives (its normal group-wide stop), the guard
waits for the command like any other process; on SIGTERM after perfloop died
(the death signal), it SIGKILLs every descendant at once and exits.

Runs under ``-I -S``: imports only the standard library.
"""

import ctypes
import json
import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC = 1, 32, 4096, 16384

_libc = ctypes.CDLL(None, use_errno=True)


def prctl(option: int, value: int) -> None:
    """Call prctl(2); raise OSError on failure."""
    if _libc.prctl(option, value, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def bind_read_only(path: str) -> None:
    """Make `path` (a file or a folder, recursively) read-only in this mount namespace."""
    target = path.encode()
    if _libc.mount(target, target, None, MS_BIND | MS_REC, None) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"bind mount: {os.strerror(err)}")
    if _libc.mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY, None) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"read-only remount: {os.strerror(err)}")


def set_data_limit(limit_mb: int) -> int | None:
    """Cap RLIMIT_DATA (inherited by every descendant) at `limit_mb`; return the limit now in force, in MiB."""
    import resource

    limit = limit_mb * 2**20
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    try:
        if hard == resource.RLIM_INFINITY or hard > limit:
            resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
        else:
            resource.setrlimit(resource.RLIMIT_DATA, (hard, hard))
    except (OSError, ValueError):
        pass
    soft, _ = resource.getrlimit(resource.RLIMIT_DATA)
    return None if soft == resource.RLIM_INFINITY else soft // 2**20


def loopback_up() -> bool:
    """Bring `lo` up in this network namespace; tell whether it worked."""
    import fcntl
    import socket
    import struct

    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            flags = struct.unpack("16sH", fcntl.ioctl(s, 0x8913, struct.pack("16sH", b"lo", 0)))[1]
            fcntl.ioctl(s, 0x8914, struct.pack("16sH", b"lo", flags | 0x1))
        return True
    except OSError:
        return False


def namespace_id(kind: str) -> str:
    """Return this process's namespace of `kind` ('net', 'mnt') as the kernel names it."""
    try:
        return os.readlink(f"/proc/self/ns/{kind}")
    except OSError:
        return ""


def descendants(root: int) -> list[int]:
    """Return the live descendants of `root`, found through /proc parent links."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                raw = f.read().decode(errors="replace")
        except OSError:
            continue
        fields = raw[raw.rfind(")") + 2:].split()
        if fields[0] not in ("Z", "X"):
            children.setdefault(int(fields[1]), []).append(int(name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def stop_descendants(grace_s: float) -> None:
    """SIGTERM every descendant, give them ``grace_s`` to finish (a worker flushing its record), then SIGKILL."""
    deadline = time.monotonic() + grace_s
    pids = descendants(os.getpid())
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    while pids and time.monotonic() < deadline:
        time.sleep(0.02)
        reap()
        pids = descendants(os.getpid())
    kill_descendants()


def kill_descendants() -> None:
    """SIGKILL every descendant until none is left, reaping them (we are their subreaper)."""
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:
        pids = descendants(os.getpid())
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        reap()
        if not pids:
            return
        time.sleep(0.01)


def reap() -> None:
    """Collect every exited child without blocking."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def main() -> None:
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    perfloop_pid = spec["parent_pid"]

    def on_term(signum, frame):
        if os.getppid() != perfloop_pid:  # the death signal: perfloop is gone
            kill_descendants()
            os._exit(128 + signum)
        # Otherwise perfloop's group-wide stop: the command got it too; wait for it.

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)  # a `kill -INT 0` from the pipeline must not kill the guard first
    report: dict = {"subreaper": False, "death_signal": False, "net_namespace": False, "mount_namespace": False,
                    "loopback": False, "read_only": [], "read_only_failed": {}, "data_limit_mb": None}
    try:
        # SIGTERM, not SIGKILL: the guard must live long enough to kill the tree.
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        report["death_signal"] = True
    except OSError as error:
        report["death_signal_error"] = str(error)
    if os.getppid() != perfloop_pid:  # perfloop died before the death signal was armed
        sys.exit(1)
    if spec.get("data_limit_mb"):
        report["data_limit_mb"] = set_data_limit(spec["data_limit_mb"])
    try:
        prctl(PR_SET_CHILD_SUBREAPER, 1)
        report["subreaper"] = True
    except OSError as error:
        report["subreaper_error"] = str(error)
    report["net_namespace"] = namespace_id("net") != spec["parent_net_ns"]
    report["mount_namespace"] = namespace_id("mnt") != spec["parent_mnt_ns"]
    if report["net_namespace"]:
        report["loopback"] = loopback_up()
    for path in spec["read_only"]:
        if not report["mount_namespace"]:
            report["read_only_failed"][path] = "no mount namespace of its own"
            continue
        try:
            bind_read_only(path)
            report["read_only"].append(path)
        except OSError as error:
            report["read_only_failed"][path] = error.strerror or str(error)
    with open(spec["report"], "w") as f:
        json.dump(report, f)

    guard_pid = os.getpid()
    child = os.fork()
    if child == 0:
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != guard_pid:  # the guard died before the death signal was set
                os._exit(1)
            os.execv("/bin/sh", ["/bin/sh", "-c", spec["command"]])
        finally:
            os._exit(127)
    status = None
    while status is None:
        try:
            pid, wait_status = os.waitpid(-1, 0)
        except InterruptedError:
            continue
        except ChildProcessError:
            break
        if pid == child:
            status = wait_status
    stop_descendants(grace_s=1.0)
    if status is not None and os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    sys.exit(os.waitstatus_to_exitcode(status) if status is not None else 1)


if __name__ == "__main__":
    main()
