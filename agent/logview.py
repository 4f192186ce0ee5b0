"""`perfloop log` and `perfloop kb`: print the audit log and the knowledge base readably."""
from __future__ import annotations

import time

from agent.cli import EXIT_OK, EXIT_TAMPERED
from agent.runs import find_run


def _line(record: dict, show_diff: bool) -> list[str]:
    data = record["data"]
    event = record["event"]
    head = f"#{record['seq']:<3} {time.strftime('%H:%M:%S', time.localtime(record['ts']))} {record['node']:>8}: "
    if event == "run_started":
        lines = [head + f"run {data.get('run_id')} on `{data.get('target', {}).get('command')}`, "
                 f"branch {data.get('branch', '-')}, head {str(data.get('head'))[:10]}"]
        if data.get("uncommitted_paths"):
            lines.append(f"      working from HEAD; {len(data['uncommitted_paths'])} uncommitted path(s) left alone")
        return lines
    if event == "profile":
        m = data["metrics"]
        return [head + f"profile: {m['samples_per_s']:.1f} samples/s (noise {m['noise_pct']:.1f}%), step "
                f"{m['step_ms']:.1f} ms, data wait {m['data_wait_share']:.0%}, compute {m['compute_share']:.0%}, "
                f"other {m['other_share']:.0%}, workers {m['num_workers']}, hot {m['hot_function']} "
                f"({(m['hot_function_share'] or 0):.0%})"]
    if event == "diagnoses":
        ranked = data["ranked"]
        if not ranked:
            return [head + "diagnoses: none matched"]
        return [head + "diagnoses:"] + [f"      {d['entry_id']} (up to {d['expected_speedup']:.2f}x): {d['summary']}"
                                       for d in ranked]
    if event == "proposal":
        p = data["proposal"]
        lines = [head + f"proposal {p['id']} ({p['source']}, {p['diagnosis']}/{p['remedy']}): {p['change']}"]
        return lines + (["      " + row for row in p["patch"].splitlines()] if show_diff else [])
    if event == "approval":
        return [head + f"{data['decision']} {data['proposal']} by {data['by']}"]
    if event == "verify_stage":
        result = data.get("result") or {}
        detail = result.get("detail") or result.get("reason") or ""
        return [head + f"  {data['stage']}: {'pass' if data['passed'] else 'FAIL'} {detail}".rstrip()]
    if event == "verdict":
        v = data["verdict"]
        commit = f" commit {v['commit'][:10]}" if v.get("commit") else ""
        return [head + f"verdict {v['proposal_id']}: {v['verdict'].upper()} at {v['stage']}: {v['reason']}{commit}"]
    if event == "run_finished":
        s = data["summary"]
        return [head + f"finished ({s['stop_reason']}): {s['baseline']['samples_per_s']:.1f} → "
                f"{s['final']['samples_per_s']:.1f} samples/s, {s['speedup']:.2f}x; {s['stop_detail']}"]
    short = ", ".join(f"{k}={v}" for k, v in data.items() if not isinstance(v, (dict, list)))
    return [head + f"{event} {short}".rstrip()]


def print_log(ref: str, show_diff: bool = False) -> int:
    """Print every record of a run's audit log, then whether its hash chain is intact."""
    from tools.audit import AuditLog

    log = AuditLog(find_run(ref) / "audit.jsonl")
    for record in log.records():
        for line in _line(record, show_diff):
            print(line)
    problems = log.verify()
    if problems:
        print("AUDIT LOG TAMPERED OR DAMAGED:\n  " + "\n  ".join(problems))
        return EXIT_TAMPERED
    print(f"audit chain intact ({log.path})")
    return EXIT_OK


def print_kb(entry_id: str | None) -> int:
    """List the knowledge base entries, or show one in full."""
    from knowledge_base import load_entries

    entries = load_entries()
    if entry_id is None:
        for entry in entries:
            remedies = ", ".join(f"{r.id} ({r.kind})" for r in entry.remedies) or "none offline"
            print(f"{entry.id:28s} {entry.category:8s} {entry.title}\n{'':28s} remedies: {remedies}")
        return EXIT_OK
    match = [e for e in entries if e.id == entry_id]
    if not match:
        raise ValueError(f"no knowledge-base entry {entry_id!r}; known: {', '.join(e.id for e in entries)}")
    entry = match[0]
    print(f"{entry.id}: {entry.title} [{entry.category}]\n\n{entry.description.strip()}\n")
    def show(c) -> str:
        return f"{c.metric} {c.op} {c.value_from or c.value}"

    print("symptoms (all of): " + "; ".join(show(c) for c in entry.symptoms.all_of))
    if entry.symptoms.any_of:
        print("symptoms (any of): " + "; ".join(show(c) for c in entry.symptoms.any_of))
    for remedy in entry.remedies:
        print(f"remedy {remedy.id} ({remedy.kind}): {remedy.summary}; verify data {remedy.verification.data}, "
              f"loss {remedy.verification.loss}")
    print("references: " + "; ".join(entry.references))
    return EXIT_OK
