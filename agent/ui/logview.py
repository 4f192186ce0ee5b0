"""`perfloop log` and `perfloop kb`: print the audit log and the knowledge base readably."""
from __future__ import annotations

import time

from perfloop.agent.events import parse_record
from perfloop.agent.runs import find_run
from perfloop.agent.ui.console import EXIT_OK, EXIT_TAMPERED
from perfloop.sandbox.errors import BadInput


def print_log(ref: str, show_diff: bool = False) -> int:
    """Print every record of a run's audit log, then whether its hash chain is intact."""
    from perfloop.agent.audit import AuditLog

    log = AuditLog(find_run(ref) / "audit.jsonl")
    for record in log.records():
        for line in parse_record(record).lines(show_diff):
            print(line)
    problems = log.verify()
    if problems:
        print("AUDIT LOG TAMPERED OR DAMAGED:\n  " + "\n  ".join(problems))
        return EXIT_TAMPERED
    print(f"audit chain intact ({log.path})")
    return EXIT_OK


def print_kb(entry_id: str | None) -> int:
    """List the knowledge base entries, or show one in full."""
    from perfloop.knowledge_base import load_entries

    entries = load_entries()
    if entry_id is None:
        for entry in entries:
            remedies = ", ".join(f"{r.id} ({r.kind}, {r.verification.tolerance_class})"
                                 for r in entry.remedies) or "none offline"
            print(f"{entry.id:28s} {entry.category:8s} {entry.title}\n{'':28s} remedies: {remedies}")
        return EXIT_OK
    match = [e for e in entries if e.id == entry_id]
    if not match:
        raise BadInput(f"no knowledge-base entry {entry_id!r}; known: {', '.join(e.id for e in entries)}")
    entry = match[0]
    print(f"{entry.id}: {entry.title} [{entry.category}]\n\n{entry.description.strip()}\n")

    def show(c) -> str:
        return f"{c.metric} {c.op} {c.value_from or c.value}"

    print("symptoms (all of): " + "; ".join(show(c) for c in entry.symptoms.all_of))
    if entry.symptoms.any_of:
        print("symptoms (any of): " + "; ".join(show(c) for c in entry.symptoms.any_of))
    for remedy in entry.remedies:
        check = remedy.verification
        approval = "; needs explicit approval" if check.needs_explicit_approval else ""
        print(f"remedy {remedy.id} ({remedy.kind}): {remedy.summary}; tolerance class {check.tolerance_class} "
              f"({check.equivalence}{approval}); verify data {check.data}, loss {check.loss}")
    print("references: " + "; ".join(entry.references))
    _print_track_record(entry.id)
    return EXIT_OK


def _print_track_record(entry_id: str) -> None:
    from perfloop.agent.memory import Memory

    attempts = Memory().track_record(entry_id)
    if not attempts:
        print("track record: never tried on this machine")
        return
    accepted = [a for a in attempts if a.verdict == "accepted"]
    print(f"track record: {len(attempts)} attempt(s), {len(accepted)} accepted")
    for a in attempts:
        speed = f" {a.speedup:.2f}x" if a.speedup else ""
        print(f"  {time.strftime('%Y-%m-%d %H:%M', time.localtime(a.at))} {a.remedy}: {a.verdict} at {a.stage}"
              f"{speed} ({a.repo}{'/' + a.target if a.target else ''}, run {a.run_id}): {a.reason}")
