"""The live progress line: drawn on a terminal (through a pseudo-terminal here), plain lines elsewhere."""
from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

from conftest import ROOT, make_repo, perfloop

LIVE = re.compile(r"profiling run 1/2, full · step \d+/10 · \d+\.\d s")
PLAIN = re.compile(r"^perfloop: profiling run 1/2, full: 10 steps in \d+\.\d s$", re.M)
CLOSING = re.compile(r"perfloop: profiling run 1/2, full: 10 steps in \d+\.\d s")  # after the live line's erase codes


def _on_terminal(*args: str, timeout: float = 300) -> tuple[int, str]:
    """Run the CLI with stderr on a pseudo-terminal (stdout a pipe); return its exit code and what the terminal got."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "perfloop.agent.cli", *args], cwd=ROOT, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], timeout)
        if not ready:
            process.kill()
            raise AssertionError("no output on the terminal for %s s" % timeout)
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.stdout.read()
    os.close(leader)
    return process.wait(), b"".join(chunks).decode("utf-8", "replace")


def test_live_line_on_a_terminal(tmp_path):
    target = make_repo(tmp_path / "repo", "waiting")
    code, screen = _on_terminal("profile", str(target))
    assert code == 0, screen
    assert LIVE.search(screen), screen
    assert "stage ~" in screen  # the estimate, once steps or an earlier run give a pace
    assert CLOSING.search(screen), screen  # the run's closing line stays


def test_plain_lines_without_a_terminal(tmp_path):
    target = make_repo(tmp_path / "repo", "waiting")
    done = perfloop("profile", str(target))
    assert done.returncode == 0, done.stderr
    assert PLAIN.search(done.stderr), done.stderr
    assert " · step " not in done.stderr and "\x1b[" not in done.stderr


def test_plain_progress_on_stderr_under_json_on_a_terminal_or_not(tmp_path):
    # --json reserves stdout for the one JSON object; progress is plain lines on stderr, one per pipeline run.
    target = make_repo(tmp_path / "repo", "waiting")
    code, screen = _on_terminal("profile", str(target), "--json")
    assert code == 0, screen
    assert not LIVE.search(screen) and "\x1b[" not in screen, screen
    assert CLOSING.search(screen), screen
    assert "diagnosis dataloader_starved" in screen
    done = perfloop("profile", str(target), "--json")
    assert done.returncode == 0, done.stderr
    assert PLAIN.search(done.stderr) and " · step " not in done.stderr, done.stderr
    ended = re.findall(r"^perfloop: (profiling|headspace) run\b.*: \d+ steps in \d+\.\d s$", done.stderr, re.M)
    probes = list((Path(json.loads(done.stdout)["audit_log"]).parent / "probe").iterdir())
    assert len(ended) == len(probes), (done.stderr, probes)
    assert len(done.stdout.splitlines()) == 1 and json.loads(done.stdout)["diagnoses"], done.stdout


def test_a_long_run_says_it_is_still_running(tmp_path, monkeypatch, capsys):
    from types import SimpleNamespace

    from perfloop.agent.ui import console, progress

    monkeypatch.setattr(progress, "HEARTBEAT_S", 0.2)
    monkeypatch.setattr(console, "_JSON_MODE", True)
    (tmp_path / "progress.json").write_text('{"steps": 3}')
    with progress.run_progress("ab-candidate", "candidate", tmp_path, SimpleNamespace(ab_runs=2, max_ab_runs=4), 10):
        time.sleep(0.7)
    lines = capsys.readouterr().err.splitlines()
    still = [line for line in lines if "still running" in line]
    assert len(still) >= 2, lines
    assert re.fullmatch(r"perfloop: timing run \d+/\d+, candidate: still running, step 3/10 after \d+ s"
                        r"(, stage ~\d+ s left)?", still[0]), still
    assert re.fullmatch(r"perfloop: timing run \d+/\d+, candidate: 3 steps in 0\.\d s", lines[-1]), lines


def test_a_failed_run_is_told_even_under_json(tmp_path):
    target = make_repo(tmp_path / "repo", "waiting")
    done = perfloop("profile", str(target), "--cmd", "python -c 'import sys; sys.exit(3)'", "--json")
    assert done.returncode == 3, done.stderr
    assert re.search(r"^perfloop: profiling run 1/2, full: 0 steps in \d+\.\d s \(failed\)$", done.stderr, re.M), \
        done.stderr
    assert "the pipeline failed" in done.stderr
