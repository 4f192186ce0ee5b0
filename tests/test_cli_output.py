"""What the read-only commands print: `--version`, `--json` of log, runs and kb, readable log lines, wrapped kb
text, errors on stderr, and colour only where a terminal wants it. Each runs the real CLI in a subprocess."""
from __future__ import annotations

import io
import json
import os
import pty
import re
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

from tests.conftest import ROOT, perfloop

BEFORE = Path(__file__).parent / "data" / "audit" / "before_events.jsonl"


def _old_run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(BEFORE, run / "audit.jsonl")
    return run


def _home(tmp_path: Path) -> dict:
    return {**os.environ, "PERFLOOP_HOME": str(tmp_path / "home")}


def test_version_comes_from_the_package_metadata():
    done = perfloop("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"perfloop {version('perfloop')}\n" and done.stderr == ""


def test_log_reads_as_words_once(tmp_path):
    done = perfloop("log", str(_old_run(tmp_path)))
    assert done.returncode == 0, done.stderr
    assert "node_entered" not in done.stdout and "=None" not in done.stdout and "head=" not in done.stdout
    assert "profile: entered at head 08d046a6dc" in done.stdout and "verify: entered for proposal p1-1" in done.stdout
    # remedy_chosen's expected_speedup=1.9103… is said rounded
    assert "next remedy: dataloader_starved/raise_num_workers (up to 1.91x)" in done.stdout
    assert not re.search(r"\d\.\d{5,}", done.stdout), done.stdout
    assert done.stdout.rstrip().endswith(f"audit chain intact ({tmp_path / 'run' / 'audit.jsonl'})")


def test_replay_reason_is_not_said_twice():
    from perfloop.agent.events import ReplayChecked

    event = ReplayChecked(file="data.py", function="frame_energy", ok=True, verdict="identical",
                          reason="replay of frame_energy: 8 of 8 calls identical, 0 within tolerance", speedup=2.5)
    [line] = event.lines()
    assert line == "replay of frame_energy (data.py): identical, 2.5x on them: 8 of 8 calls identical, 0 within tolerance"


def test_log_json_gives_every_record_with_its_words(tmp_path):
    run = _old_run(tmp_path)
    done = perfloop("log", str(run), "--json")
    assert done.returncode == 0, done.stderr
    view = json.loads(done.stdout)
    records = [json.loads(line) for line in BEFORE.read_text().splitlines()]
    assert view["chain_intact"] is True and view["problems"] == []
    assert view["audit_log"] == str(run / "audit.jsonl")
    assert [e["seq"] for e in view["events"]] == [r["seq"] for r in records]
    assert [e["event"] for e in view["events"]] == [r["event"] for r in records]
    assert [e["data"] for e in view["events"]] == [r["data"] for r in records]
    verdict = next(e for e in view["events"] if e["event"] == "verdict")
    assert verdict["node"] == "verify" and verdict["text"][0].startswith("verdict p1-1: REJECTED at speed")


def test_runs_json_lists_the_index(tmp_path, monkeypatch):
    from perfloop.agent.runs import register_run

    env = _home(tmp_path)
    empty = perfloop("runs", "--json", env=env)
    assert empty.returncode == 0 and json.loads(empty.stdout)["runs"] == [], empty.stderr
    run = _old_run(tmp_path)
    monkeypatch.setenv("PERFLOOP_HOME", env["PERFLOOP_HOME"])
    register_run("20261201-061226-e6b4", run)
    done = perfloop("runs", "--json", env=env)
    assert done.returncode == 0, done.stderr
    listing = json.loads(done.stdout)
    assert listing["index"] == str(tmp_path / "home" / "runs.json")
    [line] = listing["runs"]
    assert line == {"run_id": "20261201-061226-e6b4", "folder": str(run), "target": "/tmp/oldrepo",
                    "started": "2026-12-01 06:12", "outcome": "unfinished", "speedup": None, "chain_intact": True}


def test_kb_json_lists_and_shows_entries(tmp_path):
    env = _home(tmp_path)
    listing = perfloop("kb", "--json", env=env)
    assert listing.returncode == 0, listing.stderr
    entries = json.loads(listing.stdout)["entries"]
    starved = next(e for e in entries if e["id"] == "dataloader_starved")
    assert starved["remedies"][0]["id"] == "raise_num_workers" and starved["symptoms"]["all_of"]
    shown = perfloop("kb", "show", "dataloader_starved", "--json", env=env)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == {"entry": starved, "track_record": []}
    missing = perfloop("kb", "show", "no_such_entry", "--json", env=env)
    assert missing.returncode == 2 and missing.stdout == "" and "known:" in missing.stderr


def _on_a_terminal(*args: str, env: dict) -> tuple[int, str]:
    """Run the CLI with stdout on a pseudo-terminal; return its exit code and what the terminal showed."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "perfloop.agent.cli", *args], cwd=ROOT, env=env,
                               stdin=subprocess.DEVNULL, stdout=follower, stderr=subprocess.PIPE)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    process.stderr.read()
    return process.wait(timeout=60), b"".join(chunks).decode().replace("\r\n", "\n")


def test_kb_show_wraps_to_the_terminal_width(tmp_path):
    env = {**_home(tmp_path), "COLUMNS": "72"}
    code, shown = _on_a_terminal("kb", "show", "transform_hotspot", env=env)
    assert code == 0, shown
    lines = shown.splitlines()
    assert max(map(len, lines)) <= 72, max(lines, key=len)
    assert "build_wait_share >= 0.2" in shown  # a condition is never cut in two
    assert "tolerance class reorder (equivalent within dtype tolerance" in " ".join(shown.split())
    code, listing = _on_a_terminal("kb", env={**env, "COLUMNS": "80"})
    assert code == 0 and max(map(len, listing.splitlines())) <= 80, listing
    assert "raise_num_workers (codemod, exact)" in listing
    piped = perfloop("kb", "show", "transform_hotspot", env=env)  # a pipe gets whole lines, whatever $COLUMNS says
    assert max(map(len, piped.stdout.splitlines())) > 200


def test_output_cut_short_by_a_closed_pipe_is_no_internal_error(tmp_path):
    # As `perfloop kb | head -1` once head has gone: the pipe has no reader left.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        cli = subprocess.run([sys.executable, "-m", "perfloop.agent.cli", "kb"], cwd=ROOT, env=_home(tmp_path),
                             stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    err = cli.stderr
    assert cli.returncode == 141, err
    assert "internal error" not in err and "Traceback" not in err, err
    assert not list((tmp_path / "home").glob("crash-*.txt"))


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


DIFF = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"


def test_the_diff_is_coloured_on_a_terminal_only_and_never_under_no_color(monkeypatch):
    from perfloop.agent.ui.approval import print_diff

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    screen = _Terminal()
    print_diff(DIFF, screen)
    assert "\x1b[32m+a = 2" in screen.getvalue() and "\x1b[31m-a = 1" in screen.getvalue()
    piped = io.StringIO()
    print_diff(DIFF, piped)
    assert "\x1b[" not in piped.getvalue() and DIFF.rstrip() in piped.getvalue()
    monkeypatch.setenv("NO_COLOR", "1")
    plain = _Terminal()
    print_diff(DIFF, plain)
    assert not re.search(r"\x1b\[3\dm", plain.getvalue()) and "+a = 2" in plain.getvalue()
