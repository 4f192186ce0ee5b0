"""Faults around a sandboxed run: perfloop killed, memory bursts, writes to protected inputs,
and isolation reported as it really was. Real processes, real namespaces."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import perfloop.sandbox.isolation as isolation
import perfloop.sandbox.runner as runner
from perfloop.sandbox.runner import HARD_LIMIT_SLACK_MB, RunLimits, namespace_prefix, run_command

ROOT = Path(__file__).resolve().parents[1]
FAST = RunLimits(timeout_s=60, kill_grace_s=1.0)


def alive(pid: int) -> bool:
    """Tell whether `pid` runs (a zombie counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


def wait_for(path: Path, timeout_s: float = 30.0) -> str:
    """Wait until `path` holds a line; return its text."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().endswith("\n"):
            return path.read_text()
        time.sleep(0.05)
    raise AssertionError(f"{path} never written")


def test_sigkilled_perfloop_takes_the_whole_pipeline_tree_with_it(tmp_path):
    # A direct child, a grandchild that left the session (setsid), and a daemon whose
    # parent exited at once (orphaned: re-parented to the guard, the subreaper).
    command = ("echo $PPID > guard.pid; sleep 300 & echo $! > child.pid; "
               "setsid sh -c 'sleep 300 & echo $! > setsid.pid; wait' & "
               "(sh -c 'sleep 300 & echo $! > daemon.pid' &); "
               "sleep 1; echo started > ready; sleep 300")
    driver = textwrap.dedent(f"""
        from pathlib import Path
        from perfloop.sandbox.runner import RunLimits, run_command
        run_command({command!r}, Path({str(tmp_path)!r}), None, RunLimits(timeout_s=600))
    """)
    perfloop = subprocess.Popen([sys.executable, "-c", driver], cwd=ROOT)
    try:
        wait_for(tmp_path / "ready")
        pids = {name: int(wait_for(tmp_path / f"{name}.pid"))
                for name in ("guard", "child", "setsid", "daemon")}
        assert all(alive(pid) for pid in pids.values()), pids
        perfloop.send_signal(signal.SIGKILL)
        perfloop.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in pids.values()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert {name: pid for name, pid in pids.items() if alive(pid)} == {}
    finally:
        if perfloop.poll() is None:
            perfloop.kill()


DATALOADER_FOREVER = textwrap.dedent("""
    import os, time
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    def note(worker_id):
        with open(f"worker{worker_id}.pid", "w") as f:
            f.write(f"{os.getpid()}\\n")

    with open("main.pid", "w") as f:
        f.write(f"{os.getpid()}\\n")
    loader = DataLoader(TensorDataset(torch.arange(10_000)), batch_size=4, num_workers=2,
                        worker_init_fn=note, persistent_workers=True)
    while True:
        for batch in loader:
            time.sleep(0.01)
""")


def test_sigkilled_perfloop_takes_dataloader_workers_with_it(tmp_path):
    pytest.importorskip("torch")
    (tmp_path / "train.py").write_text(DATALOADER_FOREVER)
    driver = textwrap.dedent(f"""
        from pathlib import Path
        from perfloop.sandbox.runner import RunLimits, run_command
        run_command("python train.py", Path({str(tmp_path)!r}), None, RunLimits(timeout_s=600))
    """)
    perfloop = subprocess.Popen([sys.executable, "-c", driver], cwd=ROOT)
    try:
        pids = [int(wait_for(tmp_path / f"{name}.pid", timeout_s=120))
                for name in ("main", "worker0", "worker1")]
        assert all(alive(pid) for pid in pids)
        perfloop.send_signal(signal.SIGKILL)
        perfloop.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [pid for pid in pids if alive(pid)] == []
    finally:
        if perfloop.poll() is None:
            perfloop.kill()


def test_memory_burst_between_polls_is_stopped_by_the_hard_limit(tmp_path):
    # ~1.1 GiB allocated in one go and released at once: far quicker than two polls of
    # the tree's memory, but past the per-process hard limit of 100 + 512 MiB.
    burst = "block = b'x' * (1100 << 20); del block"
    result = run_command(f'python -c "{burst}"', tmp_path, None,
                         RunLimits(timeout_s=60, memory_mb=100))
    assert result.isolation.memory_hard_limit_mb == 100 + HARD_LIMIT_SLACK_MB
    assert "rlimit_data" in result.isolation.memory
    assert "MemoryError" in result.stderr_tail
    assert result.returncode == 1 and result.memory_exceeded and not result.timed_out
    polled_only = runner.expected_isolation(RunLimits(memory_mb=100, memory_hard_limit=False))
    assert polled_only.memory_hard_limit_mb is None and polled_only.memory.startswith("tree PSS polled")


def test_work_within_the_limit_is_not_disturbed_by_the_hard_limit(tmp_path):
    hold = "block = b'x' * (300 << 20); print(len(block) >> 20)"
    result = run_command(f'python -c "{hold}"', tmp_path, None, RunLimits(timeout_s=60, memory_mb=400))
    assert result.returncode == 0 and not result.memory_exceeded, result.stderr_tail
    assert result.stdout_tail.strip() == "300"


def require_mount_namespace():
    if namespace_prefix(network=False, mount=True)[0] is None:
        pytest.skip("this OS refuses new mount namespaces (unshare --mount failed)")


@pytest.fixture
def user_and_tree(tmp_path) -> tuple[Path, Path]:
    """The user's tree with ignored inputs, and a worktree linking them as perfloop does."""
    torch = pytest.importorskip("torch")
    user, tree = tmp_path / "user", tmp_path / "tree"
    (user / "data").mkdir(parents=True)
    torch.save(torch.arange(8), user / "data" / "weights.pt")
    (user / "shards").mkdir()
    for name in ("a.bin", "b.bin"):
        (user / "shards" / name).write_bytes(name.encode() * 100)
    (tree / "data").mkdir(parents=True)
    os.symlink(user / "data" / "weights.pt", tree / "data" / "weights.pt")
    os.symlink(user / "shards", tree / "shards")  # a folder linked whole
    return user, tree


def user_bytes(user: Path) -> dict[str, bytes]:
    return {str(p.relative_to(user)): p.read_bytes() for p in sorted(user.rglob("*")) if p.is_file()}


def protected(user: Path) -> RunLimits:
    return FAST.model_copy(update={"read_only_paths": [str(user / "data" / "weights.pt"),
                                                       str(user / "shards")]})


TORCH_SAVE = "import torch\ntorch.save(torch.zeros(3), 'data/weights.pt')\n"
DELETE = "import os\nos.remove('shards/a.bin')\n"


def script(tree: Path, text: str) -> str:
    (tree / "step.py").write_text(text)
    return "python step.py"


def test_torch_save_onto_an_input_fails_the_run_and_keeps_the_users_bytes(user_and_tree):
    require_mount_namespace()
    user, tree = user_and_tree
    before = user_bytes(user)
    result = run_command(script(tree, TORCH_SAVE), tree, None, protected(user))
    assert result.returncode != 0
    assert result.input_writes == [str((user / "data" / "weights.pt").resolve())]
    assert result.isolation.inputs == "read-only mount"
    assert result.isolation.num_inputs_read_only == 2
    assert user_bytes(user) == before
    message = result.input_write_error()
    assert "tried to write your input file(s)" in message and "weights.pt" in message
    assert run_command("true", tree, None, protected(user)).input_write_error() is None


def test_delete_inside_a_linked_folder_fails_and_keeps_the_users_files(user_and_tree):
    require_mount_namespace()
    user, tree = user_and_tree
    before = user_bytes(user)
    result = run_command(script(tree, DELETE), tree, None, protected(user))
    assert result.returncode != 0
    assert result.input_writes == [str((user / "shards" / "a.bin").resolve())]
    assert user_bytes(user) == before
    # Outside the run the user's files stay writable: the mount was the run's alone.
    (user / "shards" / "c.bin").write_bytes(b"mine")


def test_thousands_of_protected_files_are_all_mounted(tmp_path):
    require_mount_namespace()
    files = []
    for n in range(3000):  # their paths together outgrow one argv string (128 KiB)
        path = tmp_path / f"sample-with-a-long-descriptive-name-{n:05d}.npy"
        path.write_bytes(b"x")
        files.append(str(path))
    result = run_command("true", tmp_path, None, FAST.model_copy(update={"read_only_paths": files}))
    assert result.returncode == 0, result.stderr_tail
    assert result.isolation.num_inputs_read_only == 3000 and result.isolation.inputs == "read-only mount"


def test_without_a_mount_namespace_a_write_is_caught_by_the_change_check(user_and_tree, monkeypatch):
    user, tree = user_and_tree
    real = namespace_prefix

    def no_mounts(network: bool, mount: bool):
        return (None, "unshare --mount refused (test)") if mount else real(network, False)

    monkeypatch.setattr(isolation, "namespace_prefix", no_mounts)
    result = run_command(script(tree, TORCH_SAVE), tree, None, protected(user))
    assert result.isolation.inputs.startswith("change check only")
    assert "refused (test)" in result.isolation.inputs
    assert (result.isolation.num_inputs_read_only, result.isolation.num_inputs_checked_only) == (0, 2)
    assert str((user / "data" / "weights.pt").resolve()) in result.input_writes


def test_network_allowed_is_not_reported_as_isolated(tmp_path):
    result = run_command("true", tmp_path, None, FAST.model_copy(update={"network": True}))
    assert not result.network_isolated and not result.isolation.network_cut
    assert result.isolation.network == "allowed (network = true)"
    assert result.isolation.orphans == "guard (subreaper + death signal)"


def test_refused_unshare_is_reported_not_hidden(tmp_path, monkeypatch):
    monkeypatch.setattr(isolation, "namespace_prefix",
                        lambda network, mount: (None, "unshare --net failed: Operation not permitted"))
    result = run_command("echo ran", tmp_path, None, FAST)
    assert result.returncode == 0 and result.stdout_tail == "ran\n"
    assert not result.network_isolated
    assert result.isolation.network == "NOT cut: unshare --net failed: Operation not permitted"
    assert runner.expected_isolation(FAST).network.startswith("NOT cut")


def test_pipeline_interrupting_its_own_group_does_not_break_the_guard(tmp_path):
    script = "import os, signal\nos.killpg(0, signal.SIGINT)\nimport time\ntime.sleep(30)\n"
    (tmp_path / "interrupt.py").write_text(script)
    result = run_command("python interrupt.py", tmp_path, None, FAST)
    assert result.returncode in (-signal.SIGINT, 128 + signal.SIGINT, 1), result
    assert "guard.py" not in result.stderr_tail, result.stderr_tail


def test_observed_isolation_keeps_the_weakest_run_whatever_the_order(user_and_tree, monkeypatch):
    """Two real runs, one with the read-only mount and network cut, one where the OS refused both:
    what a run may claim is the weaker of the two, in either order."""
    user, tree = user_and_tree
    strong = run_command("true", tree, None, protected(user)).isolation
    monkeypatch.setattr(isolation, "namespace_prefix", lambda network, mount: (None, "unshare refused (test)"))
    weak = run_command("true", tree, None, protected(user).model_copy(update={"memory_hard_limit": False})).isolation
    assert weak.inputs.startswith("change check only") and not weak.network_cut
    for first, second in ((strong, weak), (weak, strong)):
        seen = isolation.observe(second, isolation.observe(first))
        assert seen.runs == 2
        assert (seen.network, seen.memory_limit, seen.inputs) == ("not_cut", "pss_polling", "hash_check")
        assert seen.detail["network"] == "NOT cut: unshare refused (test)"
        assert seen.detail["inputs"] == weak.inputs and seen.orphans_bound
    alone = isolation.observe(strong)
    assert alone.memory_limit == "rlimit+pss_polling"
    assert alone.network == ("cut" if strong.network_cut else "not_cut")
    assert alone.inputs == ("read_only_mount" if strong.num_inputs_read_only == 2 else "hash_check")


def checked_only(user: Path, **update) -> RunLimits:
    """The protected inputs with the read-only mount turned off: the change check is all there is."""
    return protected(user).model_copy(update={"read_only_mount": False, **update})


def test_the_fallback_hashes_inputs_and_catches_a_write_stat_data_misses(user_and_tree, monkeypatch):
    """On a filesystem whose timestamps are too coarse (seconds, as simulated here), a same-size
    rewrite within the second leaves stat data unchanged: only the hash sees it."""
    import perfloop.sandbox.inputs as inputs

    user, tree = user_and_tree
    monkeypatch.setattr(inputs, "_stat", lambda path: (lambda st: st if st == inputs.MISSING else
                                                      (st[0], st[1] // 10**9 * 10**9, 0, st[3]))(real_stat(path)))
    target = user / "shards" / "a.bin"
    same_size = "import os, time\n" + (
        "st = os.stat('shards/a.bin')\n"
        "open('shards/a.bin', 'r+b').write(b'X' * st.st_size)\n"
        "os.utime('shards/a.bin', ns=(st.st_atime_ns, st.st_mtime_ns))\n")
    result = run_command(script(tree, same_size), tree, None, checked_only(user))
    assert result.returncode == 0, result.stderr_tail
    assert result.input_writes == [str(target.resolve())]
    assert result.isolation.num_inputs_read_only == 0 and result.isolation.num_inputs_checked_only == 2
    assert (result.isolation.num_inputs_hashed, result.isolation.num_inputs_stat_only) == (3, 0)
    assert "turned off" in result.isolation.inputs and "hashed 3 file(s)" in result.isolation.inputs
    assert "changed your input file(s)" in result.input_write_error()
    assert isolation.observe(result.isolation).inputs == "hash_check"


real_stat = __import__("perfloop.sandbox.inputs", fromlist=["_stat"])._stat


def test_the_fallback_names_a_file_created_inside_a_linked_folder(user_and_tree):
    user, tree = user_and_tree
    result = run_command(script(tree, "import os\nos.makedirs('shards/sub')\nopen('shards/sub/new.bin', 'wb').write(b'n')\n"),
                         tree, None, checked_only(user))
    assert result.returncode == 0, result.stderr_tail
    new = str((user / "shards" / "sub" / "new.bin").resolve())
    assert new in result.input_writes and new in result.input_write_error()
    assert run_command("true", tree, None, checked_only(user)).input_writes == []


def test_the_fallback_hashes_within_its_budget_and_says_what_it_only_stat_checked(user_and_tree):
    user, tree = user_and_tree
    (user / "shards" / "big.bin").write_bytes(b"b" * (3 << 20))  # past a 1 MiB budget
    result = run_command("true", tree, None, checked_only(user, input_hash_budget_mb=1))
    assert result.returncode == 0 and result.input_writes == []
    assert (result.isolation.num_inputs_hashed, result.isolation.num_inputs_stat_only) == (3, 1)
    assert "hashed 3 file(s) before and after, stat data only for 1 file(s) past the hash budget" in result.isolation.inputs
    assert isolation.observe(result.isolation).inputs == "hash_and_stat_check"
    # The stat check still sees a write to the file the budget left out.
    grow = run_command(script(tree, "open('shards/big.bin', 'ab').write(b'more')\n"), tree, None,
                       checked_only(user, input_hash_budget_mb=1))
    assert grow.input_writes == [str((user / "shards" / "big.bin").resolve())]


def test_the_fallback_switch_comes_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(runner.NO_MOUNT_ENV, "1")
    assert RunLimits().read_only_mount is False
    (tmp_path / "x").write_bytes(b"x")
    expected = runner.expected_isolation(RunLimits(read_only_paths=[str(tmp_path / "x")]))
    assert expected.num_inputs_checked_only == 1 and "turned off" in expected.inputs
    monkeypatch.delenv(runner.NO_MOUNT_ENV)
    assert RunLimits().read_only_mount is True
