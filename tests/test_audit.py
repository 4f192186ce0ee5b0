"""The audit log is append-only, hash-chained, and survives a torn write."""
import json

from tools.audit import AuditLog


def test_chain_and_reopen(tmp_path):
    log = AuditLog(tmp_path / "audit.jsonl")
    log.append("run_started", "prepare", run_id="r1")
    log.append("profile", "profile", samples_per_s=10.0)
    reopened = AuditLog(tmp_path / "audit.jsonl")
    third = reopened.append("verdict", "verify", verdict="accepted")
    records = list(reopened.records())
    assert [r["seq"] for r in records] == [1, 2, 3]
    assert third["prev_hash"] == records[1]["hash"]
    assert reopened.verify() == []


def test_tampering_is_detected(tmp_path):
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path)
    log.append("profile", "profile", samples_per_s=10.0)
    log.append("verdict", "verify", verdict="rejected")
    lines = path.read_text().splitlines()
    record = json.loads(lines[0])
    record["data"]["samples_per_s"] = 99.0
    path.write_text(json.dumps(record) + "\n" + lines[1] + "\n")
    problems = AuditLog(path).verify()
    assert any("record 1" in p and "hash" in p for p in problems)


def test_torn_last_line_is_cut_before_appending(tmp_path):
    path = tmp_path / "audit.jsonl"
    AuditLog(path).append("profile", "profile")
    with open(path, "a") as handle:
        handle.write('{"seq": 2, "event": "half')
    log = AuditLog(path)
    log.append("verdict", "verify")
    assert [r["seq"] for r in log.records()] == [1, 2]
    assert log.verify() == []


def test_two_writers_keep_one_chain(tmp_path):
    path = tmp_path / "audit.jsonl"
    first, second = AuditLog(path), AuditLog(path)
    first.append("a")
    second.append("b")
    first.append("c")  # must chain to "b", not to what `first` wrote last
    assert [r["event"] for r in first.records()] == ["a", "b", "c"]
    assert first.verify() == []


def test_long_records_still_chain(tmp_path):
    log = AuditLog(tmp_path / "audit.jsonl")
    log.append("profile", "profile", blob="x" * 20000)
    log.append("profile", "profile", blob="y" * 50000)
    log.append("verdict", "verify")
    assert log.verify() == [] and [r["seq"] for r in log.records()] == [1, 2, 3]
