"""Append-only audit log: one JSON record per event, each chained to the previous by hash."""
from __future__ import annotations

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
    """The run's record of what each node saw, decided and measured."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._seq, self._last_hash = 0, GENESIS
        self._drop_torn_tail()
        for record in self.records():
            self._seq, self._last_hash = record["seq"], record["hash"]

    def _drop_torn_tail(self) -> None:
        """Cut a last line left half-written by a crash, so new records start on a clean line."""
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            with open(self.path, "r+b") as handle:
                handle.truncate(data.rfind(b"\n") + 1)

    def append(self, event: str, node: str = "", **data: Any) -> dict:
        """Write one event durably (fsync) before returning it."""
        record = {"seq": self._seq + 1, "ts": time.time(), "event": event, "node": node,
                  "data": data, "prev_hash": self._last_hash}
        record["hash"] = _digest(record)
        line = json.dumps(record, default=str, sort_keys=True)
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        self._seq, self._last_hash = record["seq"], record["hash"]
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
