"""`perfloop report`: render a run's audit log as one self-contained HTML page."""
from __future__ import annotations

import html
import json
from pathlib import Path

from agent.events import Diagnosed, Logged, Profiled, ProposalMade, RunFinished, RunStarted, parse_record
from agent.runs import find_run

_STYLE = """body{font:14px/1.45 system-ui,sans-serif;max-width:70em;margin:2em auto;color:#222}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}
pre{background:#f6f6f6;padding:.6em;overflow-x:auto}.accepted{color:#070}.rejected{color:#a00}
.declined{color:#a60}.ok{color:#070}.bad{color:#a00}"""


def _esc(value) -> str:
    return html.escape(str(value))


def render(records: list[Logged], problems: list[str]) -> str:
    """Return the report page for these parsed audit records."""
    finished = next((r.event.summary for r in reversed(records) if isinstance(r.event, RunFinished)), None)
    out = [f"<!doctype html><meta charset=utf-8><title>perfloop report</title><style>{_STYLE}</style>"]
    start = next((r.event for r in records if isinstance(r.event, RunStarted)), None)
    if start is not None:
        out.append(f"<h1>perfloop run {_esc(start.run_id)}</h1>")
        out.append(f"<p>Command <code>{_esc(start.target.get('command', ''))}</code>, "
                   f"branch <code>{_esc(start.branch)}</code>, from {_esc(start.head[:10])}.</p>")
    chain = "<span class=ok>intact</span>" if not problems else "<span class=bad>BROKEN: " + _esc("; ".join(problems)) + "</span>"
    out.append(f"<p>Audit chain: {chain} ({len(records)} records).</p>")
    if finished:
        out.append(f"<h2>Result: {finished['speedup']:.2f}x</h2><p>{finished['baseline']['samples_per_s']:.1f} → "
                   f"{finished['final']['samples_per_s']:.1f} samples/s; stopped: {_esc(finished['stop_reason'])} "
                   f"({_esc(finished['stop_detail'])})</p>")
        out.append("<table><tr><th>proposal</th><th>diagnosis</th><th>change</th><th>verdict</th><th>speed-up</th>"
                   "<th>data</th><th>loss</th><th>reason</th><th>commit</th></tr>")
        for it in finished["iterations"]:
            speed = f"{it['speedup']:.2f}x [{it['ci'][0]:.2f}, {it['ci'][1]:.2f}]" if it["speedup"] else "–"
            out.append(f"<tr><td>{_esc(it['proposal_id'])}</td><td>{_esc(it['diagnosis'])}</td><td>{_esc(it['change'])}</td>"
                       f"<td class={it['verdict']}>{it['verdict']}</td><td>{speed}</td><td>{it['data_check']}</td>"
                       f"<td>{it['loss_check']}</td><td>{_esc(it['reason'])}</td><td>{_esc((it['commit'] or '–')[:10])}</td></tr>")
        out.append("</table>")
    out.append("<h2>Timeline</h2>")
    for record in records:
        event = record.event
        if isinstance(event, Profiled):
            out.append(f"<h3>#{record.seq} profile</h3><pre>{_esc(json.dumps(event.metrics, indent=1, default=str))}</pre>")
        elif isinstance(event, Diagnosed):
            items = "".join(f"<li><b>{_esc(d.entry_id)}</b> (up to {d.expected_speedup:.2f}x): {_esc(d.summary)}</li>"
                            for d in event.ranked) or "<li>none matched</li>"
            out.append(f"<h3>#{record.seq} diagnoses</h3><ul>{items}</ul>")
        elif isinstance(event, ProposalMade):
            p = event.proposal
            out.append(f"<h3>#{record.seq} proposal {_esc(p.id)}: {_esc(p.change)}</h3><pre>{_esc(p.patch)}</pre>")
        else:
            out.append(f"<p>#{record.seq} <b>{_esc(event.name or getattr(event, 'event', ''))}</b> ({_esc(record.node)}): "
                       f"{_esc(' '.join(event.lines())[:600])}</p>")
    return "\n".join(out)


def write_report(ref: str, output: str | None = None) -> Path:
    """Write the HTML report of run ``ref``; return its path."""
    from tools.audit import AuditLog

    state_dir = find_run(ref)
    log = AuditLog(state_dir / "audit.jsonl")
    path = Path(output) if output else state_dir / "report.html"
    path.write_text(render([parse_record(r) for r in log.records()], log.verify()), encoding="utf-8")
    return path
