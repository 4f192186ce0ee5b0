"""Memory across runs: a remedy rejected on this commit is not proposed again, and `kb show` tells its record."""
from __future__ import annotations

import json

from perfloop.agent.memory import AttemptRecord, Memory
from tests.conftest import make_repo, perfloop

RUN = ["--auto-approve", "--json", "--max-iters", "1"]


def _summary(stdout: str) -> dict:
    return json.loads(stdout.strip().splitlines()[-1])


def test_second_run_skips_what_the_first_rejected_and_says_so(tmp_path):
    repo = make_repo(tmp_path / "repo", "augmented")
    first = perfloop("run", str(repo), *RUN)
    assert first.returncode == 0, first.stderr
    [item] = _summary(first.stdout)["iterations"]
    assert item["verdict"] == "rejected" and item["stage"] == "data"  # the augmentation changes with workers

    second = perfloop("run", str(repo), *RUN)
    assert second.returncode == 0, second.stderr
    summary = _summary(second.stdout)
    assert summary["iterations"] == []
    assert f"rejected at data by run {_summary(first.stdout)['run_id']} on this same commit" in second.stderr
    assert summary["stop_reason"] == "nothing_actionable"
    events = [json.loads(line)["event"] for line in open(summary["audit_log"])]
    assert "remedy_skipped" in events

    shown = perfloop("kb", "show", "dataloader_starved")
    assert shown.returncode == 0, shown.stderr
    assert "track record: 1 attempt(s), 0 accepted" in shown.stdout
    assert "raise_num_workers: rejected at data" in shown.stdout

    listed = perfloop("runs", str(repo))
    assert listed.returncode == 0 and _summary(first.stdout)["run_id"] in listed.stdout
    assert "nothing_actionable" in listed.stdout and "chain intact" in listed.stdout


def test_track_record_orders_remedies_and_survives_reopening(tmp_path):
    memory = Memory(tmp_path / "memory.sqlite")
    for n, verdict in enumerate(["accepted", "rejected", "accepted"]):
        memory.record(AttemptRecord(at=float(n), run_id=f"r{n}", repo="/r", target="", head="h", diagnosis="d",
                                    remedy="a" if n != 1 else "b", proposal="p1-1", verdict=verdict,
                                    stage="commit" if verdict == "accepted" else "speed", reason="x", speedup=1.5))
    again = Memory(tmp_path / "memory.sqlite")
    assert again.acceptance("d") == {"a": 1.0, "b": 0.0}
    assert again.rejected_here("/r", "", "h", "d", "b").run_id == "r1"
    assert again.rejected_here("/r", "", "other-head", "d", "b") is None
    assert [a.run_id for a in again.track_record("d")] == ["r0", "r1", "r2"]
