"""The audit log is append-only, hash-chained, and survives a torn write."""
import json

from perfloop.agent.audit import AuditLog


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


def three_records(path):
    log = AuditLog(path)
    for event in ("node_entered", "measured", "decided"):
        log.append(event, "node", value=event)
    return log


def test_garbage_line_is_named_and_the_rest_still_reads(tmp_path):
    path = tmp_path / "audit.jsonl"
    three_records(path)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(lines[0] + b"\x00\xffgarbage{{\n" + b"".join(lines[1:]))
    log = AuditLog(path)
    assert [r["event"] for r in log.records()] == ["node_entered", "measured", "decided"]
    problems = log.verify()
    assert problems[0] == "line 2: not UTF-8 text (garbage in the log)"
    path.write_bytes(lines[0] + b'{"seq": 2}\n' + b"".join(lines[1:]))
    assert AuditLog(path).verify()[0].startswith("line 2: not an audit record: field 'ts'")


def test_nothing_chains_onto_a_garbage_last_line(tmp_path):
    import pytest

    from perfloop.agent.audit import AuditLogDamaged

    path = tmp_path / "audit.jsonl"
    three_records(path)
    with open(path, "ab") as handle:
        handle.write(b"rm -rf /\n")
    before = path.read_bytes()
    with pytest.raises(AuditLogDamaged, match="ends with a damaged line"):
        AuditLog(path).append("more", "node")
    assert path.read_bytes() == before


def test_cut_tail_is_detected_by_the_tip(tmp_path):
    path = tmp_path / "audit.jsonl"
    log = three_records(path)
    stored = log.tip()
    assert stored.seq == 3
    whole = path.read_bytes()
    path.write_bytes(b"".join(whole.splitlines(keepends=True)[:2]))  # two whole records left
    assert AuditLog(path).verify() == [
        f"truncated: the log ends at record 2, but record 3 (hash {stored.hash[:12]}…) was written to it"]
    # The caller's own copy of the tip works without the sidecar, which a cut could take too.
    log.tip_path.unlink()
    assert log.verify() == []  # nothing left to tell the cut
    assert log.verify(expected_tip=stored)[0].startswith("truncated: the log ends at record 2")
    log.append("other", "node")  # a new record 3 in place of the cut one
    assert "the log was rewritten" in log.verify(expected_tip=stored)[0]


def test_disk_full_mid_append_leaves_the_last_whole_record(tmp_path, monkeypatch):
    import errno
    import os

    import pytest

    import perfloop.agent.audit as audit

    path = tmp_path / "audit.jsonl"
    log = three_records(path)
    before = path.read_bytes()
    calls = []

    def half_then_full(fd, data):
        calls.append(len(data))
        if len(calls) == 1:
            return os.write(fd, bytes(data[: len(data) // 2]))  # a short write lands half the line
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(audit.os, "write", half_then_full)
    with pytest.raises(audit.AuditWriteError, match="No space left on device. The log is intact up to record 3"):
        log.append("proposal", "optimize", diff="x" * 1000)
    monkeypatch.undo()
    assert path.read_bytes() == before and log.verify() == []
    assert log.append("proposal", "optimize")["seq"] == 4


def test_real_full_disk_leaves_the_log_intact(tmp_path):
    """A 64 KiB tmpfs, mounted in a private mount namespace, filled by appends."""
    import json as json_
    import subprocess
    import sys

    import pytest

    from perfloop.sandbox.runner import namespace_prefix
    from tests.conftest import ROOT

    prefix, why = namespace_prefix(network=False, mount=True)
    if prefix is None:
        pytest.skip(f"no private mount namespace here: {why}")
    script = f"""
import ctypes, json, pathlib
from perfloop.agent.audit import AuditLog, AuditWriteError
disk = pathlib.Path({str(tmp_path / 'disk')!r}); disk.mkdir()
assert ctypes.CDLL(None).mount(b"tmpfs", str(disk).encode(), b"tmpfs", 0, b"size=64k") == 0
log = AuditLog(disk / "audit.jsonl")
error = None
for n in range(1000):
    try:
        log.append("stage", "verify", blob="y" * 3000)
    except AuditWriteError as exc:
        error = str(exc)
        break
print(json.dumps({{"error": error, "problems": log.verify(), "tip": log.tip(),
                   "whole": (disk / "audit.jsonl").read_bytes().endswith(b"\\n")}}))
"""
    done = subprocess.run([*prefix, sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    result = json_.loads(done.stdout)
    assert "No space left on device" in result["error"]
    assert f"intact up to record {result['tip'][0]}" in result["error"]
    assert result["problems"] == [] and result["whole"]


def test_perfloop_log_exits_4_naming_the_first_bad_record(tmp_path):
    from tests.conftest import perfloop

    run = tmp_path / "run"
    three_records(run / "audit.jsonl")
    assert perfloop("log", str(run)).returncode == 0
    lines = (run / "audit.jsonl").read_text().splitlines(keepends=True)
    (run / "audit.jsonl").write_text(lines[0] + "not json\n" + "".join(lines[1:]))
    garbage = perfloop("log", str(run))
    assert garbage.returncode == 4, garbage.stderr
    assert "line 2: not a JSON record" in garbage.stderr  # the problem on stderr; the good records on stdout
    (run / "audit.jsonl").write_text(lines[0])
    truncated = perfloop("log", str(run))
    assert truncated.returncode == 4 and "truncated: the log ends at record 1" in truncated.stderr
