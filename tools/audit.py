"""Append-only audit log: one JSON record per event, each chained to the previous by hash."""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any, Iterator

GENESIS = "0" * 64


def _digest(record: dict) -> str:
    body = {k: v for k, v in record.items() if k != "hash"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()


class AuditLog:
    """The run's record of what each node saw, decided and measured.

    Any number of AuditLog objects (and processes) may append to the same file: each
    append locks the file and chains to the last record actually in it.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def append(self, event: str, node: str = "", **data: Any) -> dict:
        """Write one event durably (fsync) before returning it."""
        with open(self.path, "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                last = _last_record(handle)
                record = {"seq": last["seq"] + 1 if last else 1, "ts": time.time(), "event": event, "node": node,
                          "data": data, "prev_hash": last["hash"] if last else GENESIS}
                record["hash"] = _digest(record)
                handle.write((json.dumps(record, default=str, sort_keys=True) + "\n").encode())
                handle.flush()
                os.fsync(handle.fileno())
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
        return record

    def records(self) -> Iterator[dict]:
        """Yield the records in order; a torn last line (crash mid-write) is skipped."""
        if not self.path.exists():
            return
        with open(self.path, encoding="utf-8") as handle:
            for line in handle:
                if not line.endswith("\n"):
                    break
                yield json.loads(line)

    def verify(self) -> list[str]:
        """Return the problems found in the hash chain (empty when intact)."""
        problems = []
        previous = GENESIS
        for number, record in enumerate(self.records(), start=1):
            if record.get("prev_hash") != previous:
                problems.append(f"record {number}: prev_hash does not match the record before it")
            if _digest(record) != record.get("hash"):
                problems.append(f"record {number} ({record.get('event')}): content does not match its hash")
            previous = record.get("hash")
        return problems


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
    return json.loads(lines[-1]) if lines else None
