"""`perfloop log` and `perfloop kb`: print the audit log and the knowledge base readably, or as JSON."""
from __future__ import annotations

import re
import shutil
import sys
import textwrap
import time

from pydantic import BaseModel, Field

from perfloop.agent.events import parse_record
from perfloop.agent.runs import find_run
from perfloop.agent.ui.console import EXIT_OK, EXIT_TAMPERED, emit_json
from perfloop.sandbox.errors import BadInput


class LoggedEvent(BaseModel):
    """One audit record as `perfloop log --json` gives it."""

    seq: int = Field(description="Its place in the hash chain, from 1.")
    ts: float = Field(description="Unix time it was written.")
    node: str = Field(description="The graph node that wrote it.")
    event: str = Field(description="The event's name (agent/events.py), e.g. 'verdict'.")
    text: list[str] = Field(description="What `perfloop log` prints for it, line by line.")
    data: dict = Field(description="The record's fields as written.")


class LogView(BaseModel):
    """`perfloop log RUN --json`: every record, and whether the hash chain is intact."""

    audit_log: str
    chain_intact: bool
    problems: list[str] = Field(description="What verify() found, the first bad record first; empty when intact.")
    events: list[LoggedEvent]


def print_log(ref: str, show_diff: bool = False, as_json: bool = False) -> int:
    """Print every record of a run's audit log, then whether its hash chain is intact (exit 4 if not)."""
    from perfloop.agent.audit import AuditLog

    log = AuditLog(find_run(ref) / "audit.jsonl")
    records = list(log.records())
    problems = log.verify()
    if as_json:
        events = []
        for record in records:
            parsed = parse_record(record)
            events.append(LoggedEvent(seq=parsed.seq, ts=parsed.ts, node=parsed.node, event=record.get("event", ""),
                                      text=parsed.event.lines(show_diff), data=record.get("data") or {}))
        emit_json(LogView(audit_log=str(log.path), chain_intact=not problems, problems=problems,
                          events=events).model_dump(mode="json"))
    else:
        for record in records:
            for line in parse_record(record).lines(show_diff):
                print(line)
    if problems:
        print(f"perfloop: AUDIT LOG TAMPERED OR DAMAGED ({log.path}):\n  " + "\n  ".join(problems), file=sys.stderr)
        return EXIT_TAMPERED
    if not as_json:
        print(f"audit chain intact ({log.path})")
    return EXIT_OK


_KEEP = "\xa0"  # joins the words of one item (a condition, a remedy's id and class) so no line break splits it


def _width() -> int | None:
    """The terminal's width ($COLUMNS first); None, no wrapping, when stdout is a pipe or a file (grep gets whole lines).

    $COLUMNS alone does not ask for wrapping: readline exports it into every child's environment.
    """
    if not sys.stdout.isatty():
        return None
    return max(40, shutil.get_terminal_size((100, 24)).columns)


def _whole(item: str) -> str:
    """Keep ``item`` on one line when wrapped."""
    return item.replace(" ", _KEEP)


def _wrapped(text: str, indent: str = "", first: str = "") -> str:
    """Wrap one paragraph to the terminal, ``first`` on its first line and ``indent`` on the rest."""
    width, text = _width(), re.sub(r"[ \t\r\n]+", " ", text.strip())  # str.split() would split at _KEEP too
    if width is None:
        return (first or indent) + text.replace(_KEEP, " ")
    return textwrap.fill(text, width=width, initial_indent=first or indent,
                         subsequent_indent=indent, break_on_hyphens=False,
                         break_long_words=False).replace(_KEEP, " ")


def print_kb(entry_id: str | None, as_json: bool = False) -> int:
    """List the knowledge base entries, or show one in full with its track record on this machine."""
    from perfloop.agent.memory import Memory
    from perfloop.knowledge_base import load_entries

    entries = load_entries()
    if entry_id is None:
        if as_json:
            emit_json({"entries": [entry.model_dump(mode="json") for entry in entries]})
            return EXIT_OK
        for entry in entries:
            remedies = ", ".join(_whole(f"{r.id} ({r.kind}, {r.verification.tolerance_class})")
                                 for r in entry.remedies) or "none offline"
            print(_wrapped(entry.title, " " * 38, f"{entry.id:28s} {entry.category:8s} "))
            print(_wrapped(f"remedies: {remedies}", " " * 31, " " * 29))
        return EXIT_OK
    match = [e for e in entries if e.id == entry_id]
    if not match:
        raise BadInput(f"no knowledge-base entry {entry_id!r}; known: {', '.join(e.id for e in entries)}")
    entry, attempts = match[0], Memory().track_record(match[0].id)
    if as_json:
        emit_json({"entry": entry.model_dump(mode="json"),
                   "track_record": [a.model_dump(mode="json") for a in attempts]})
        return EXIT_OK
    _print_entry(entry)
    _print_track_record(attempts)
    return EXIT_OK


def _print_entry(entry) -> None:
    print(_wrapped(f"{entry.id}: {entry.title} [{entry.category}]") + "\n")
    for paragraph in entry.description.strip().split("\n\n"):
        print(_wrapped(paragraph) + "\n")

    def show(c) -> str:
        return _whole(f"{c.metric} {c.op} {c.value_from or c.value}")

    print(_wrapped("symptoms (all of): " + "; ".join(show(c) for c in entry.symptoms.all_of), "    ", "  "))
    if entry.symptoms.any_of:
        print(_wrapped("symptoms (any of): " + "; ".join(show(c) for c in entry.symptoms.any_of), "    ", "  "))
    for remedy in entry.remedies:
        check = remedy.verification
        approval = "; needs explicit approval" if check.needs_explicit_approval else ""
        print(_wrapped(f"remedy {remedy.id} ({remedy.kind}): {remedy.summary.rstrip('.')}; tolerance class "
                       f"{check.tolerance_class} ({check.equivalence}{approval}); verify data {check.data}, "
                       f"loss {check.loss}", "    ", "  "))
    print("references:")
    for reference in entry.references:
        print(_wrapped(reference, "    ", "  - "))


def _print_track_record(attempts) -> None:
    if not attempts:
        print("track record: never tried on this machine")
        return
    accepted = [a for a in attempts if a.verdict == "accepted"]
    print(f"track record: {len(attempts)} attempt(s), {len(accepted)} accepted")
    for a in attempts:
        speed = f" {a.speedup:.2f}x" if a.speedup else ""
        print(_wrapped(f"{time.strftime('%Y-%m-%d %H:%M', time.localtime(a.at))} {a.remedy}: {a.verdict} at "
                       f"{a.stage}{speed} ({a.repo}{'/' + a.target if a.target else ''}, run {a.run_id}): "
                       f"{a.reason}", "    ", "  "))
