"""A real run beside two CPU burners: contaminated runs are re-run, the verdict is undecided, a later run decides.

The planted pipeline's vectorised transform is about five times faster (tests/test_faults.py
accepts it on every run). With two processes spinning on the two cores for the whole run,
every pipeline run finds less than half a core idle while the burners hold more than a core:
each is contaminated by the rule in tools/measure/interference.py, whatever the timings.
With a re-run budget of one pair, verify leaves the first pair out, runs it again, finds it
contaminated too and ends undecided (not rejected). The same change is then tried again by a
second run on the quiet machine and accepted: an undecided verdict is not held against it.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from tests.conftest import perfloop
from tests.test_faults import _repo

pytestmark = [pytest.mark.slow, pytest.mark.serial,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="interference is read from /proc")]
RUN = ["--auto-approve", "--json", "--max-iters", "1", "--interference", "rerun", "--busy-reruns", "1"]
BURN = "import time\nend = time.time() + 600\nwhile time.time() < end: pass"


def _summary(done) -> dict:
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_busy_machine_gives_undecided_then_a_quiet_run_accepts(tmp_path):
    repo = _repo(tmp_path / "repo")
    burners = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(2)]
    try:
        time.sleep(0.5)
        busy = _summary(perfloop("run", str(repo), *RUN))
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    [item] = busy["iterations"]
    assert (item["diagnosis"], item["verdict"], item["stage"]) == ("transform_hotspot", "undecided", "speed"), item
    assert item["reason"].startswith("undecided: the machine was busy: 2 of 2 pairs were contaminated"), item
    assert item["commit"] is None and item["data_check"] == "identical"
    seen = item["interference"]
    assert seen["busy"] and seen["contaminated_pairs"] == 2 and seen["runs_repeated"] == 4 and seen["runs"] == 4
    assert seen["max_cores"] >= 0.5, seen

    log = perfloop("log", busy["run_id"])
    assert log.returncode == 0 and "audit chain intact" in log.stdout
    assert "noise run 1 left out, the machine was busy" in log.stdout  # the profile's noise run too
    assert "timing pair 0 left out, the machine was busy" in log.stdout
    assert "UNDECIDED at speed" in log.stdout and "2 contaminated pair(s) left out and re-run" in log.stdout
    report = tmp_path / "report.html"
    done = perfloop("report", busy["run_id"], "--output", str(report))
    assert done.returncode == 0, done.stderr
    page = report.read_text()
    assert "UNDECIDED" in page and "the re-run budget ran out: undecided, the machine was busy" in page

    quiet = _summary(perfloop("run", str(repo), *RUN))
    [again] = quiet["iterations"]
    assert again["change"] == item["change"]  # not skipped as "rejected by an earlier run"
    assert (again["verdict"], again["stage"]) == ("accepted", "commit"), again
    assert not again["interference"]["busy"]
