"""Append-only audit log: one JSON record per event, each chained to the previous by hash.

Damage it detects (``verify``): an edited record (hash), a removed or reordered one
(prev_hash, seq), a garbage line (named by line number), and truncation: after each
append the last record's (seq, hash) is written to ``<log>.tip``, and a caller may
keep its own copy of ``tip()`` (e.g. in the run's checkpointed state) and pass it as
``verify(expected_tip=...)``; a log that no longer holds that record was cut.

A failed append (disk full) is undone: the file is cut back to the last whole
record and AuditWriteError says so.
"""
from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any, Iterator, NamedTuple

GENESIS = "0" * 64
REQUIRED_FIELDS = {"seq": int, "ts": (int, float), "event": str, "node": str, "data": dict,
                   "prev_hash": str, "hash": str}


def _digest(record: dict) -> str:
    body = {k: v for k, v in record.items() if k != "hash"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()


class AuditTip(NamedTuple):
    """Where a log ended: its last record's sequence number and hash."""

    seq: int
    hash: str


class AuditWriteError(OSError):
    """An append failed (disk full, quota, I/O error); the log was left intact up to its last whole record."""


class AuditLogDamaged(AuditWriteError):
    """The log's last line is not a record (garbage, not a torn write): nothing may chain onto it."""


class AuditLog:
    """The run's record of what each node saw, decided and measured.

    Any number of AuditLog objects (and processes) may append to the same file: each
    append locks the file and chains to the last record actually in it.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)

    @property
    def tip_path(self) -> Path:
        """The sidecar holding the last appended record's seq and hash."""
        return self.path.with_name(self.path.name + ".tip")

    def append(self, event: str, node: str = "", **data: Any) -> dict:
        """Write one event durably (fsync) before returning it; AuditWriteError if it could not be."""
        with open(self.path, "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                last = _last_record(handle)
                record = {"seq": last["seq"] + 1 if last else 1, "ts": time.time(), "event": event, "node": node,
                          "data": data, "prev_hash": last["hash"] if last else GENESIS}
                record["hash"] = _digest(record)
                line = (json.dumps(record, default=str, sort_keys=True) + "\n").encode()
                _write_whole(handle, line, self.path, last)
                self._write_tip(AuditTip(record["seq"], record["hash"]))
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
        return record

    def tip(self) -> AuditTip | None:
        """Return (seq, hash) of the last whole record, None for an empty log: store it to detect truncation."""
        last = None
        for last in self.records():
            pass
        return AuditTip(last["seq"], last["hash"]) if last else None

    def records(self) -> Iterator[dict]:
        """Yield the well-formed records in order; garbage lines and a torn last line are skipped (verify names them)."""
        for _, record, problem in self._scan():
            if problem is None:
                yield record

    def verify(self, expected_tip: AuditTip | tuple[int, str] | None = None) -> list[str]:
        """Return the problems found (empty when intact), the first bad record first.

        `expected_tip` is a tip() the caller stored; without it the ``.tip`` sidecar is
        used when present. Either way the log must still hold that record.
        """
        problems = []
        previous, previous_seq = GENESIS, 0
        by_seq: dict[int, str] = {}
        for number, record, problem in self._scan():
            if problem is not None:
                problems.append(f"line {number}: {problem}")
                continue
            where = f"record {record['seq']} (line {number}, {record['event']})"
            if record["seq"] != previous_seq + 1:
                problems.append(f"{where}: sequence number follows {previous_seq}; records are missing or moved")
            if record["prev_hash"] != previous:
                problems.append(f"{where}: prev_hash does not match the record before it")
            if _digest(record) != record["hash"]:
                problems.append(f"{where}: content does not match its hash")
            previous, previous_seq = record["hash"], record["seq"]
            by_seq[record["seq"]] = record["hash"]
        tip = AuditTip(*expected_tip) if expected_tip is not None else self._read_tip()
        if tip is not None:
            if tip.seq not in by_seq:
                problems.append(f"truncated: the log ends at record {previous_seq}, but record {tip.seq} "
                                f"(hash {tip.hash[:12]}…) was written to it")
            elif by_seq[tip.seq] != tip.hash:
                problems.append(f"record {tip.seq}: hash differs from the one recorded when it was written "
                                f"({tip.hash[:12]}…); the log was rewritten")
        return problems

    def _scan(self) -> Iterator[tuple[int, dict | None, str | None]]:
        """Yield (line number, record, None) or (line number, None, what is wrong) for each whole line."""
        if not self.path.exists():
            return
        with open(self.path, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.endswith(b"\n"):
                    return  # torn by a crash mid-write; the next append cuts it
                yield number, *_parse(raw)

    def _read_tip(self) -> AuditTip | None:
        try:
            data = json.loads(self.tip_path.read_text())
            return AuditTip(int(data["seq"]), str(data["hash"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _write_tip(self, tip: AuditTip) -> None:
        # Best effort: the record is already durable, and a stale tip (one behind) is
        # still a valid lower bound for the truncation check.
        scratch = self.tip_path.with_name(self.tip_path.name + ".tmp")
        try:
            scratch.write_text(json.dumps(tip._asdict()))
            os.replace(scratch, self.tip_path)
        except OSError:
            scratch.unlink(missing_ok=True)


def _parse(raw: bytes) -> tuple[dict | None, str | None]:
    """Return (record, None) for a well-formed line, else (None, what is wrong with it)."""
    try:
        record = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return None, "not UTF-8 text (garbage in the log)"
    except json.JSONDecodeError as error:
        return None, f"not a JSON record ({error.msg} at column {error.colno}): {raw[:60]!r}"
    if not isinstance(record, dict):
        return None, f"not a JSON object: {raw[:60]!r}"
    for field, kind in REQUIRED_FIELDS.items():
        if not isinstance(record.get(field), kind) or isinstance(record.get(field), bool):
            return None, f"not an audit record: field {field!r} missing or of the wrong type"
    return record, None


def _write_whole(handle, line: bytes, path: Path, last: dict | None) -> None:
    """Append `line` and fsync it, or cut the file back to where it was and raise AuditWriteError."""
    fd = handle.fileno()
    start = os.lseek(fd, 0, os.SEEK_END)
    try:
        view = memoryview(line)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
    except OSError as error:
        try:
            os.ftruncate(fd, start)
            os.fsync(fd)
        except OSError:
            pass  # the torn tail is cut by the next append or skipped by readers
        upto = f"record {last['seq']}" if last else "its start (it is empty)"
        why = error.strerror or os.strerror(error.errno or errno.EIO)
        raise AuditWriteError(error.errno, f"could not append to the audit log {path}: {why}. The log is "
                              f"intact up to {upto}; free some space, then `perfloop resume` the run") from error


def _last_record(handle) -> dict | None:
    """Return the last complete record of the open log, cutting a torn last line left by a crash."""
    handle.seek(0, os.SEEK_END)
    size = handle.tell()
    block = 4096
    data = b""
    while size > len(data):
        start = max(0, size - len(data) - block)
        handle.seek(start)
        data = handle.read(size - start)
        if data.count(b"\n") >= 2 or start == 0:
            break
        block *= 4
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        handle.truncate(size - len(data) + cut)
        data = data[:cut]
    lines = data.splitlines()
    if not lines:
        return None
    record, problem = _parse(lines[-1])
    if problem is not None:
        raise AuditLogDamaged(errno.EINVAL, f"the audit log {handle.name} ends with a damaged line ({problem}); "
                              "`perfloop log` shows where; refusing to chain onto it")
    return record
