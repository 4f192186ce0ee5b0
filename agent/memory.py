"""Memory across runs: every remedy perfloop tried, on which repository and head, and how it ended.

A per-user SQLite file next to the run index (``$PERFLOOP_HOME/memory.sqlite``).
Migrations are numbered and applied on open; each write is one transaction. The loop
reads it to skip remedies already rejected on an unchanged repository (same repo,
same target folder, same head) and to try remedies with a better track record first;
`perfloop kb show ID` prints an entry's record.
"""
from __future__ import annotations

import sqlite3
import time
from contextlib import closing
from pathlib import Path

from pydantic import BaseModel, Field

from perfloop.agent.runs import state_home

MIGRATIONS = (
    """CREATE TABLE attempts (
        id INTEGER PRIMARY KEY,
        at REAL NOT NULL,
        run_id TEXT NOT NULL,
        repo TEXT NOT NULL,
        target TEXT NOT NULL,
        head TEXT NOT NULL,
        diagnosis TEXT NOT NULL,
        remedy TEXT NOT NULL,
        proposal TEXT NOT NULL,
        verdict TEXT NOT NULL,
        stage TEXT NOT NULL,
        reason TEXT NOT NULL,
        speedup REAL,
        UNIQUE (run_id, proposal))""",
    "CREATE INDEX attempts_by_place ON attempts (repo, target, head, diagnosis, remedy)",
)


class AttemptRecord(BaseModel):
    """One remedy tried once, as remembered."""

    at: float = Field(description="Unix time of the verdict.")
    run_id: str
    repo: str = Field(description="Repository top folder.")
    target: str = Field(description="Target folder relative to the repository ('' at the top).")
    head: str = Field(description="Branch head the patch was made against.")
    diagnosis: str
    remedy: str
    proposal: str
    verdict: str = Field(description="accepted, rejected or declined.")
    stage: str = Field(description="The verification stage that decided.")
    reason: str
    speedup: float | None = Field(None, description="Measured speed-up, when timed.")


class Memory:
    """The attempts table, opened (and migrated) per use."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path else state_home() / "memory.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=30)
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        for number, statement in enumerate(MIGRATIONS[version:], start=version + 1):
            with connection:
                connection.execute(statement)
                connection.execute(f"PRAGMA user_version = {number}")
        return connection

    def record(self, attempt: AttemptRecord) -> None:
        """Remember one verdict (a re-run of the same proposal replaces its row)."""
        fields = attempt.model_dump()
        names = ", ".join(fields)
        marks = ", ".join(f":{name}" for name in fields)
        with closing(self._connect()) as connection, connection:
            connection.execute(f"INSERT OR REPLACE INTO attempts ({names}) VALUES ({marks})", fields)

    def _select(self, where: str, args: tuple) -> list[AttemptRecord]:
        with closing(self._connect()) as connection:
            connection.row_factory = sqlite3.Row
            rows = connection.execute(f"SELECT * FROM attempts WHERE {where} ORDER BY at", args).fetchall()
        return [AttemptRecord.model_validate({k: row[k] for k in row.keys() if k != "id"}) for row in rows]

    def rejected_here(self, repo: str, target: str, head: str, diagnosis: str, remedy: str) -> AttemptRecord | None:
        """Return the latest rejection of this remedy at this very head of this target, if any."""
        found = self._select("repo = ? AND target = ? AND head = ? AND diagnosis = ? AND remedy = ? "
                             "AND verdict = 'rejected'", (repo, target, head, diagnosis, remedy))
        return found[-1] if found else None

    def track_record(self, diagnosis: str | None = None, remedy: str | None = None) -> list[AttemptRecord]:
        """Return every attempt of an entry (and remedy), oldest first."""
        clauses, args = ["1 = 1"], []
        if diagnosis:
            clauses.append("diagnosis = ?")
            args.append(diagnosis)
        if remedy:
            clauses.append("remedy = ?")
            args.append(remedy)
        return self._select(" AND ".join(clauses), tuple(args))

    def acceptance(self, diagnosis: str) -> dict[str, float]:
        """Return remedy -> share of its verified attempts that were accepted, for one entry."""
        rates: dict[str, list[int]] = {}
        for attempt in self.track_record(diagnosis):
            if attempt.verdict in ("accepted", "rejected"):
                rates.setdefault(attempt.remedy, []).append(attempt.verdict == "accepted")
        return {remedy: sum(flags) / len(flags) for remedy, flags in rates.items()}


def remember(state, proposal, verdict) -> None:
    """Record a proposal's verdict for later runs (called where the verdict is reached)."""
    Memory().record(AttemptRecord(
        at=time.time(), run_id=state.run_id, repo=str(state.target.repo_root), target=state.target.subdir,
        head=proposal.base_head, diagnosis=proposal.diagnosis, remedy=proposal.remedy, proposal=proposal.id,
        verdict=verdict.verdict, stage=verdict.stage, reason=verdict.reason,
        speedup=verdict.speed.speedup if verdict.speed else None))
