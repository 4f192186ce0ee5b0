"""Many targets in one command: `perfloop run A B C` or `perfloop run --targets FILE`.

Each target is its own run, exactly as if `perfloop run PATH` had been typed alone: its own
perfloop process, run id, branch, audit log and lock, and the same flags. One target failing
(a pipeline that crashes, a config missing) does not stop the others. They run one after another
by default; ``--jobs K`` runs K at once (their profiles then share this machine, so keep K at 1
unless the targets' verification goes to a cluster with ``--executor ray``, where each block has a
node of its own). At the end one table (or, under ``--json``, one JSON object) gives each target's
run, exit status and result.

A targets file lists one target per line, ``PATH`` or ``PATH CONFIG`` (relative to the file's
folder; ``#`` starts a comment).
"""
from __future__ import annotations

import json
import shlex
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from perfloop.sandbox.errors import BadInput

SKIPPED_FLAGS = {"path", "targets", "jobs", "json", "command"}
"""Run options that are the batch's own, not passed to each target's run."""


@dataclass
class TargetSpec:
    path: str
    config: str | None = None


@dataclass
class TargetOutcome:
    """One target's run as the batch saw it: its exit status and, when it ended normally, its summary."""

    target: TargetSpec
    code: int
    summary: dict = field(default_factory=dict)
    error: str = ""

    def row(self) -> dict:
        s = self.summary
        accepted = [i for i in s.get("iterations", []) if i.get("verdict") == "accepted"]
        return {"target": self.target.path, "config": self.target.config, "exit": self.code,
                "run_id": s.get("run_id"), "branch": s.get("branch"), "stop_reason": s.get("stop_reason"),
                "speedup": s.get("speedup"), "speedup_ci": s.get("speedup_ci"), "accepted": len(accepted),
                "verdicts": [f"{i['proposal_id']} {i['verdict']} at {i['stage']}" for i in s.get("iterations", [])],
                "error": self.error}


def read_targets(path: str) -> list[TargetSpec]:
    """Parse a targets file; BadInput naming the file and line for anything else than PATH [CONFIG]."""
    file = Path(path)
    if not file.is_file():
        raise BadInput(f"--targets {path}: no such file (one target per line: PATH or PATH CONFIG)")
    specs = []
    for number, line in enumerate(file.read_text().splitlines(), 1):
        words = shlex.split(line, comments=True)
        if not words:
            continue
        if len(words) > 2:
            raise BadInput(f"{path}:{number}: expected PATH or PATH CONFIG, got {line.strip()!r}")
        target = words[0] if Path(words[0]).is_absolute() else str((file.parent / words[0]).resolve())
        specs.append(TargetSpec(target, words[1] if len(words) == 2 else None))
    if not specs:
        raise BadInput(f"--targets {path} lists no target (one per line: PATH or PATH CONFIG)")
    return specs


def passed_flags(parser, args) -> list[str]:
    """The run flags given, as arguments again (the batch's own left out), for each target's run."""
    out: list[str] = []
    for action in parser._actions:  # argparse keeps no public list of a parser's options
        if not action.option_strings or action.dest in SKIPPED_FLAGS or action.dest == "help":
            continue
        value = getattr(args, action.dest, None)
        if value is None or value is False:
            continue
        if action.dest == "config":
            continue  # per target: the flag's value is each target's default (see run_batch)
        out += [action.option_strings[-1]] if value is True else [action.option_strings[-1], str(value)]
    return out


def _run_one(spec: TargetSpec, flags: list[str], prefix: str | None) -> TargetOutcome:
    """Run ``perfloop run`` on one target in its own process; stream its progress (prefixed when in parallel)."""
    command = [sys.executable, "-m", "perfloop.agent.cli", "run", spec.path, *flags, "--json"]
    if spec.config:
        command += ["--config", spec.config]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE if prefix else None, text=True)
    if prefix:
        def relay() -> None:
            for line in child.stderr:
                sys.stderr.write(f"{prefix} {line}")
        relayer = threading.Thread(target=relay, daemon=True)
        relayer.start()
    out = child.stdout.read()  # not communicate(): that would read stderr too, from under the relay
    child.wait()
    if prefix:
        relayer.join(timeout=10)
    last = out.strip().splitlines()[-1] if out.strip() else ""
    try:
        summary = json.loads(last) if last.startswith("{") else {}
    except json.JSONDecodeError:
        summary = {}
    error = "" if summary else f"no summary (exit {child.returncode}); its messages are above"
    return TargetOutcome(spec, child.returncode, summary, error)


def run_batch(specs: list[TargetSpec], flags: list[str], config: str | None, jobs: int, as_json: bool) -> int:
    """Run every target; print one table (or JSON object); exit 0 when every run ended normally, else the
    first failing target's exit status."""
    from perfloop.agent.ui.console import say

    if jobs < 1:
        raise BadInput(f"--jobs must be 1 or more, got {jobs}")
    specs = [TargetSpec(s.path, s.config or config) for s in specs]
    say(f"{len(specs)} targets, {'one after another' if jobs == 1 else f'{jobs} at a time'}; each its own run")
    outcomes: list[TargetOutcome | None] = [None] * len(specs)
    pending = list(range(len(specs)))
    lock = threading.Lock()

    def worker() -> None:
        while True:
            with lock:
                if not pending:
                    return
                index = pending.pop(0)
            spec = specs[index]
            say(f"target {index + 1}/{len(specs)}: {spec.path}" + (f" ({spec.config})" if spec.config else ""))
            outcomes[index] = _run_one(spec, flags, f"[{index + 1}]" if jobs > 1 else None)

    threads = [threading.Thread(target=worker) for _ in range(min(jobs, len(specs)))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    rows = [outcome.row() for outcome in outcomes if outcome is not None]
    if as_json:
        print(json.dumps({"targets": rows}))
    else:
        print(render(rows))
    failed = [row["exit"] for row in rows if row["exit"] != 0]
    return failed[0] if failed else 0


def render(rows: list[dict]) -> str:
    """The batch's table: a line per target."""
    lines = [f"{'target':40} {'exit':>4}  {'run':24} {'speed-up':>9}  result", "-" * 100]
    for row in rows:
        speed = f"x{row['speedup']:.2f}" if row.get("speedup") else "-"
        result = "; ".join(row["verdicts"]) or row.get("stop_reason") or row["error"]
        name = row["target"] if len(row["target"]) <= 40 else "..." + row["target"][-37:]
        lines.append(f"{name:40} {row['exit']:>4}  {row['run_id'] or '-':24} {speed:>9}  {result}")
    return "\n".join(lines)
