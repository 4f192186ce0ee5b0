"""`perfloop runs [PATH]`: the runs in the per-user index, one line each."""
from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, Field

from perfloop.agent.events import RunStarted, parse_record
from perfloop.agent.runs import RunFolder, state_home
from perfloop.agent.ui.console import EXIT_OK, emit_json


class RunLine(BaseModel):
    """One run at a glance."""

    run_id: str
    folder: str = Field("", description="The run's state folder (audit log, checkpoints, summary).")
    target: str = Field(description="The pipeline folder the run worked on ('?' when its log does not say).")
    started: str = Field(description="Local start time, YYYY-MM-DD HH:MM, read from the run id.")
    outcome: str = Field(description="The stop reason of a finished run; 'profile', 'unfinished' or 'no records'.")
    speedup: float | None = Field(description="The final check's speed-up of a finished run.")
    chain_intact: bool | None = Field(description="Whether the audit log's hash chain verifies; None when empty.")

    def render(self) -> str:
        speed = f"{self.speedup:.2f}x" if self.speedup is not None else "-"
        chain = {True: "intact", False: "BROKEN", None: "-"}[self.chain_intact]
        return f"{self.run_id:30s} {self.started:16s} {self.outcome:20s} {speed:>7s}  chain {chain:6s}  {self.target}"


def _line(run_id: str, folder: Path) -> RunLine:
    from perfloop.agent.audit import AuditLog

    log = AuditLog(RunFolder(folder).audit_log)
    records = list(log.records()) if log.path.exists() else []
    start = next((e for e in (parse_record(r).event for r in records[:3]) if isinstance(e, RunStarted)), None)
    target = start.target.get("target_dir", "?") if start else "?"
    summary_path = RunFolder(folder).summary
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else None
    if summary:
        outcome, speedup = summary["stop_reason"], summary.get("speedup")
    elif RunFolder(folder).profile_summary.exists():
        outcome, speedup = "profile", None
    else:
        outcome, speedup = "unfinished" if records else "no records", None
    stamp = run_id.removeprefix("profile-")
    started = f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]} {stamp[9:11]}:{stamp[11:13]}" if len(stamp) >= 13 else "?"
    return RunLine(run_id=run_id, folder=str(folder), target=target, started=started, outcome=outcome, speedup=speedup,
                   chain_intact=(not log.verify()) if records else None)


def list_runs(path: str | None = None) -> list[RunLine]:
    """Return the indexed runs (of the target at ``path`` and below, when given), oldest first."""
    index_path = state_home() / "runs.json"
    index = json.loads(index_path.read_text()) if index_path.exists() else {}
    wanted = Path(path).expanduser().resolve() if path else None
    lines = []
    for run_id, folder in sorted(index.items()):
        if not Path(folder).is_dir():
            continue  # the repository was deleted or moved since
        line = _line(run_id, Path(folder))
        if wanted is None or (line.target != "?" and Path(line.target).is_relative_to(wanted)):
            lines.append(line)
    return lines


def print_runs(path: str | None = None, as_json: bool = False) -> int:
    """Print one line per run: id, start, outcome, speed-up, audit chain, target (or them all as JSON)."""
    lines = list_runs(path)
    if as_json:
        emit_json({"index": str(state_home() / "runs.json"), "runs": [line.model_dump(mode="json") for line in lines]})
        return EXIT_OK
    if not lines:
        where = f" for {path}" if path else ""
        print(f"no runs recorded{where} in {state_home() / 'runs.json'}")
        return EXIT_OK
    print(f"{'run':30s} {'started':16s} {'outcome':20s} {'speedup':>7s}  {'audit':12s}  target")
    for line in lines:
        print(line.render())
    return EXIT_OK
