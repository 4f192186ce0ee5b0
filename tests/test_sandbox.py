"""Tests for perfloop.sandbox.runner: real subprocesses, real limits, real namespaces."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from perfloop.sandbox.runner import RunLimits, network_isolation_prefix, run_command, scrub_env

FAST = RunLimits(timeout_s=60, kill_grace_s=1.0)


def is_gone(pid: int) -> bool:
    """Tell whether `pid` no longer runs (a zombie nobody reaped counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rfind(")") + 2] in "ZX"


def wait_gone(pid: int, timeout_s: float = 3.0) -> bool:
    """Wait until `pid` is gone; tell whether it went."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if is_gone(pid):
            return True
        time.sleep(0.05)
    return is_gone(pid)


def test_failing_command_is_reported_not_raised(tmp_path):
    result = run_command("echo out; echo err >&2; exit 3", tmp_path, None, FAST)
    assert result.returncode == 3
    assert result.stdout_tail == "out\n"
    assert result.stderr_tail == "err\n"
    assert not result.timed_out and not result.memory_exceeded
    assert result.cwd == str(tmp_path)
    assert abs(result.started_at - time.time()) < 30


def test_command_runs_in_cwd_and_writes_given_output_files(tmp_path):
    out, err = tmp_path / "logs" / "out.txt", tmp_path / "logs" / "err.txt"
    result = run_command("pwd; ls >&2", tmp_path, None, FAST, stdout_path=out, stderr_path=err)
    assert result.returncode == 0
    assert out.read_text().strip() == str(tmp_path)
    assert "logs" in err.read_text()


def test_tails_keep_the_last_4000_characters(tmp_path):
    script = "import sys; sys.stdout.write('a' * 10000 + 'END'); sys.stderr.write('b' * 9000)"
    result = run_command(f'python -c "{script}"', tmp_path, None, FAST)
    assert len(result.stdout_tail) == 4000 and result.stdout_tail.endswith("aEND")
    assert result.stderr_tail == "b" * 4000


def test_missing_cwd_raises_value_error(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        run_command("true", tmp_path / "nope", None, FAST)


def test_timeout_kills_the_whole_process_group(tmp_path):
    command = "sleep 300 & echo $! > child.pid; sleep 300"
    started = time.monotonic()
    result = run_command(command, tmp_path, None, RunLimits(timeout_s=1, kill_grace_s=1))
    assert time.monotonic() - started < 10
    assert result.timed_out and result.returncode is not None and result.returncode < 0
    assert 1 <= result.wall_s < 10
    assert wait_gone(int((tmp_path / "child.pid").read_text()))


def test_process_ignoring_sigterm_is_killed_after_the_grace(tmp_path):
    command = "trap '' TERM; sleep 300 & echo $! > child.pid; while :; do sleep 0.1; done"
    result = run_command(command, tmp_path, None, RunLimits(timeout_s=1, kill_grace_s=0.5))
    assert result.timed_out
    assert wait_gone(int((tmp_path / "child.pid").read_text()))


def test_children_left_running_after_exit_are_killed(tmp_path):
    result = run_command("sleep 300 & echo $! > child.pid", tmp_path, None, FAST)
    assert result.returncode == 0
    assert wait_gone(int((tmp_path / "child.pid").read_text()))


def test_child_that_left_the_session_is_still_killed(tmp_path):
    # setsid takes the sleep out of the process group; a poll must have seen it.
    command = "setsid sleep 300 & echo $! > child.pid; sleep 1"
    result = run_command(command, tmp_path, None, FAST)
    assert result.returncode == 0
    assert wait_gone(int((tmp_path / "child.pid").read_text()))


def test_interrupting_perfloop_kills_the_command_too(tmp_path):
    # Python's Ctrl-C handler, as on a terminal: a shell's background job (`cmd &`, nohup)
    # starts with SIGINT ignored, and Python then keeps it ignored.
    driver = textwrap.dedent(f"""
        import signal
        signal.signal(signal.SIGINT, signal.default_int_handler)
        from pathlib import Path
        from perfloop.sandbox.runner import RunLimits, run_command
        run_command("sleep 300 & echo $! > child.pid; sleep 300", Path({str(tmp_path)!r}),
                    None, RunLimits(kill_grace_s=1))
    """)
    repo_root = Path(__file__).parents[1]
    perfloop = subprocess.Popen([sys.executable, "-c", driver], cwd=repo_root)
    child_pid_file = tmp_path / "child.pid"
    deadline = time.monotonic() + 30
    while not child_pid_file.exists() or not child_pid_file.read_text().strip():
        assert time.monotonic() < deadline and perfloop.poll() is None
        time.sleep(0.05)
    time.sleep(0.3)
    perfloop.send_signal(signal.SIGINT)
    assert perfloop.wait(timeout=30) != 0
    assert wait_gone(int(child_pid_file.read_text()))


def test_memory_limit_kills_a_growing_process(tmp_path):
    grow = "chunks = []\nwhile True: chunks.append(b'x' * (10 << 20))"
    (tmp_path / "grow.py").write_text(grow)
    result = run_command("python grow.py", tmp_path, None, RunLimits(timeout_s=60, memory_mb=200))
    assert result.memory_exceeded and not result.timed_out
    assert result.returncode == -9
    assert result.peak_rss_mb > 200


def test_peak_memory_is_measured_below_the_limit(tmp_path):
    hold = "import time; block = b'x' * (100 << 20); time.sleep(1)"
    result = run_command(f'python -c "{hold}"', tmp_path, None, RunLimits(memory_mb=1000))
    assert result.returncode == 0 and not result.memory_exceeded
    assert 95 < result.peak_rss_mb < 1000


def test_scrub_env_drops_secrets_and_unknown_variables():
    base = {
        "PATH": "/usr/bin", "HOME": "/home/u", "LC_ALL": "C.UTF-8", "CUDA_VISIBLE_DEVICES": "0",
        "PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "4", "OPENAI_API_KEY": "sk-1",
        "AWS_SECRET_ACCESS_KEY": "x", "HF_TOKEN": "hf_1", "TORCH_HUB_TOKEN": "t",
        "PYTHONPATH": "/evil", "PYTHONSTARTUP": "/evil.py", "GITHUB_TOKEN": "g",
        "SOME_TOOL_SETTING": "1", "SSH_AUTH_SOCK": "/tmp/agent",
    }
    assert scrub_env(base) == {
        "PATH": "/usr/bin", "HOME": "/home/u", "LC_ALL": "C.UTF-8",
        "CUDA_VISIBLE_DEVICES": "0", "PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "4",
    }


def test_command_sees_scrubbed_env_extra_env_and_our_python(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret")
    command = "env; python -c 'import sys; print(\"EXE=\" + sys.executable)'"
    result = run_command(command, tmp_path, {"PERFLOOP_PROBE": "1"}, FAST)
    env = dict(line.split("=", 1) for line in result.stdout_tail.splitlines() if "=" in line)
    assert "OPENAI_API_KEY" not in env and "AWS_SECRET_ACCESS_KEY" not in env
    assert "secret" not in result.stdout_tail
    assert env["PERFLOOP_PROBE"] == "1"
    assert env["PATH"].split(os.pathsep)[0] == os.path.dirname(sys.executable)
    assert os.path.dirname(env["EXE"]) == os.path.dirname(sys.executable)


CONNECT = """
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3).close()
    print("connected")
except OSError as exc:
    print("blocked", exc)
"""


@pytest.fixture
def listening_port():
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server.getsockname()[1]


def require_isolation():
    if network_isolation_prefix() is None:
        pytest.skip("this OS refuses new network namespaces (unshare --net failed)")


def test_no_network_blocks_the_hosts_loopback(tmp_path, listening_port):
    require_isolation()
    (tmp_path / "connect.py").write_text(CONNECT)
    isolated = run_command(f"python connect.py {listening_port}", tmp_path, None, FAST)
    assert isolated.network_isolated
    assert isolated.stdout_tail.startswith("blocked"), isolated
    with_network = FAST.model_copy(update={"network": True})
    allowed = run_command(f"python connect.py {listening_port}", tmp_path, None, with_network)
    assert not allowed.network_isolated
    assert allowed.stdout_tail.startswith("connected"), allowed


def test_no_network_keeps_a_working_loopback_of_its_own(tmp_path):
    require_isolation()
    script = textwrap.dedent("""
        import socket
        with socket.create_server(("127.0.0.1", 0)) as server:
            socket.create_connection(server.getsockname(), timeout=3).close()
        print("ok")
    """)
    (tmp_path / "self.py").write_text(script)
    result = run_command("python self.py", tmp_path, None, FAST)
    assert result.network_isolated
    assert result.stdout_tail == "ok\n", result.stderr_tail


def test_dataloader_with_workers_runs_without_network(tmp_path):
    pytest.importorskip("torch")
    script = textwrap.dedent("""
        import torch
        from torch.utils.data import DataLoader, TensorDataset
        data = TensorDataset(torch.arange(64, dtype=torch.float32))
        loader = DataLoader(data, batch_size=8, num_workers=2, persistent_workers=True)
        print("sum", int(sum(batch[0].sum() for batch in loader)))
    """)
    (tmp_path / "load.py").write_text(script)
    result = run_command("python load.py", tmp_path, None, RunLimits(timeout_s=300))
    assert result.returncode == 0, result.stderr_tail
    assert result.stdout_tail.strip() == f"sum {sum(range(64))}"
    assert result.network_isolated == (network_isolation_prefix() is not None)


def test_sandbox_imports_neither_agent_nor_tools():
    import ast

    for source in (Path(__file__).parents[1] / "sandbox").glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] not in ("agent", "tools"), f"{source.name} imports {name}"
