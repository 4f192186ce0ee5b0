"""The per-user run index (runs.json): runs registered at the same moment all keep their entry."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import ROOT

REGISTER = """
import sys, time
from pathlib import Path
from perfloop.agent.runs import register_run
name, count, start_at = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
time.sleep(max(0.0, start_at - time.time()))  # both writers start together
for n in range(count):
    register_run(f"{name}-{n:04d}", Path("/runs") / name / str(n))
"""


def test_two_processes_registering_at_once_lose_no_run(tmp_path):
    env = {**os.environ, "PERFLOOP_HOME": str(tmp_path / "home")}
    start_at = f"{__import__('time').time() + 2.0}"
    writers = [subprocess.Popen([sys.executable, "-c", REGISTER, name, "150", start_at], cwd=ROOT, env=env,
                                stderr=subprocess.PIPE, text=True) for name in ("left", "right")]
    for writer in writers:
        _, err = writer.communicate(timeout=300)
        assert writer.returncode == 0, err
    index = json.loads((tmp_path / "home" / "runs.json").read_text())
    assert len(index) == 300
    assert index["left-0149"] == "/runs/left/149" and index["right-0000"] == "/runs/right/0"
    assert not list((tmp_path / "home").glob("runs.tmp*"))  # every rewrite landed by rename
