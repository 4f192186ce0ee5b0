"""`perfloop report`: render a run's audit log as one self-contained HTML page.

Everything shown is read back from the typed audit events (agent/events.py), so logs
written by older versions render too: parts they lack (a step's timeline, say) are
named as missing rather than drawn. Charts are inline SVG from report_charts.py.
"""
from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path

from perfloop.agent.events import (
    Approval,
    Diagnosed,
    Logged,
    Profiled,
    ProposalEdited,
    ProposalMade,
    RunFinished,
    RunStarted,
    VerdictReached,
    VerifyStage,
    parse_record,
)
from perfloop.agent.runs import RunFolder, find_run
from perfloop.agent.ui.report_charts import (
    LEDGER_STAGES,
    gantt_span_ms,
    ledger_bars,
    speed_intervals,
    step_distribution,
    step_gantt,
)
from perfloop.contracts.layout import RECORD_NAME

_STYLE = """body{font:14px/1.45 system-ui,sans-serif;max-width:72em;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}
pre{background:#f6f6f6;padding:.6em;overflow-x:auto;font-size:12px}.accepted{color:#070}.rejected{color:#a00}
.declined{color:#a60}.ok{color:#070}.bad{color:#a00}.add{color:#070}.del{color:#a00}.hunk{color:#36c}
section.proposal{border-left:4px solid #ccc;padding-left:1em;margin:1.5em 0}section.v-accepted{border-color:#070}
section.v-rejected{border-color:#a00}section.v-declined{border-color:#a60}section.v-undecided{border-color:#a60}
.undecided{color:#a60}svg.chart{max-width:100%;height:auto;display:block;margin:.5em 0}
details>summary{cursor:pointer}.muted{color:#777}"""


def _esc(value) -> str:
    return html.escape(str(value))


@dataclass
class ProposalView:
    """One proposal and what became of it, gathered from its events."""

    seq: int
    proposal: dict
    approval: Approval | None = None
    edited: ProposalEdited | None = None
    stages: list[VerifyStage] = field(default_factory=list)
    verdict: dict | None = None  # raw, so fields newer than this reader (side_outputs) still show

    @property
    def speed(self) -> dict | None:
        """Return the speed check: the verdict's, else the speed stage's result (older logs)."""
        if self.verdict and self.verdict.get("speed"):
            return self.verdict["speed"]
        return next((s.result for s in self.stages if s.stage == "speed" and s.result), None)


def _profile_label(index: int, accepted_before: list[str]) -> str:
    return "before" if index == 0 or not accepted_before else f"after {accepted_before[-1]}"


def gather(raw: list[dict]) -> tuple[list[Logged], list[tuple[str, Logged]], list[ProposalView]]:
    """Parse the records; return them, the labelled profiles and the proposals in order."""
    records = [parse_record(r) for r in raw]
    profiles: list[tuple[str, Logged]] = []
    proposals: dict[str, ProposalView] = {}
    accepted: list[str] = []
    for raw_record, record in zip(raw, records):
        event = record.event
        if isinstance(event, Profiled):
            profiles.append((_profile_label(len(profiles), accepted), record))
        elif isinstance(event, ProposalMade):
            proposals[event.proposal.id] = ProposalView(record.seq, event.proposal.model_dump(mode="json"))
        elif isinstance(event, Approval) and event.proposal in proposals:
            proposals[event.proposal].approval = event
        elif isinstance(event, ProposalEdited) and event.proposal in proposals:
            proposals[event.proposal].edited = event
        elif isinstance(event, VerifyStage) and proposals:  # stages follow the proposal they verify
            list(proposals.values())[-1].stages.append(event)
        elif isinstance(event, VerdictReached):
            verdict = (raw_record.get("data") or {}).get("verdict") or event.verdict.model_dump(mode="json")
            view = proposals.get(event.verdict.proposal_id)
            if view is not None:
                view.verdict = verdict
            if event.verdict.verdict == "accepted":
                accepted.append(event.verdict.proposal_id)
    return records, profiles, list(proposals.values())


def _ledger_parts(profile: dict) -> dict[str, float]:
    ledger = profile.get("ledger") or {}
    return {stage: float(ledger.get(f"{stage}_ms") or 0.0) for stage in LEDGER_STAGES}


def _timeline(profile: dict) -> dict | None:
    full = next((run for run in profile.get("runs", []) if run.get("mode") == "full"), None)
    return (full or {}).get("timeline")


def _diff(patch: str) -> str:
    out = []
    for row in patch.splitlines():
        kind = ("hunk" if row.startswith("@@") else "add" if row.startswith("+") and not row.startswith("+++")
                else "del" if row.startswith("-") and not row.startswith("---") else "")
        out.append(f"<span class={kind}>{_esc(row)}</span>" if kind else _esc(row))
    return "<pre class=diff>" + "\n".join(out) + "</pre>"


def _check(result: dict | None) -> str:
    if not result:
        return "–"
    return f"<b>{_esc(result.get('status', ''))}</b> {_esc(result.get('detail', ''))}"


_SIDE_FIELDS = (("compared", "compared"), ("lines_compared", "lines compared"),
                ("numbers_masked", "numbers masked (they vary between the baseline's runs)"),
                ("differences", "differences"), ("declared", "declared by the remedy"),
                ("not_compared", "not compared"))


def _side_outputs(value) -> str:
    """Render a verdict's side-output check (perfloop.tools.check.sideoutputs.SideOutputCheck as JSON); other shapes row by row."""
    if isinstance(value, dict) and "status" in value:
        rows = [f"<tr><td>result</td><td><b>{_esc(value['status'])}</b> {_esc(value.get('detail', ''))}</td></tr>"]
        for key, title in _SIDE_FIELDS:
            item = value.get(key)
            if isinstance(item, list):
                item = "; ".join(str(part) for part in item) or "none"
            if item not in (None, ""):
                rows.append(f"<tr><td>{_esc(title)}</td><td>{_esc(item)}</td></tr>")
        return "<table><tr><th>side outputs</th><th></th></tr>" + "".join(rows) + "</table>"
    items = value.items() if isinstance(value, dict) else enumerate(value if isinstance(value, list) else [value])
    rows = []
    for key, item in items:
        if isinstance(item, dict):
            name = item.get("name") or item.get("path") or key
            status = item.get("status", item.get("passed", ""))
            rows.append(f"<tr><td>{_esc(name)}</td><td>{_esc(status)}</td><td>{_esc(item.get('detail', ''))}</td></tr>")
        else:
            rows.append(f"<tr><td>{_esc(key)}</td><td colspan=2>{_esc(item)}</td></tr>")
    return "<table><tr><th>side output</th><th>result</th><th>detail</th></tr>" + "".join(rows) + "</table>"


def _stage_word(stage: VerifyStage) -> str:
    """pass, FAIL, or undecided for an interim sequential look that called for more pairs."""
    return "pass" if stage.passed else "undecided" if getattr(stage, "undecided", False) else "FAIL"


def _stage_class(stage: VerifyStage) -> str:
    return {"pass": "ok", "undecided": "undecided"}.get(_stage_word(stage), "bad")


def _stage_detail(stage: VerifyStage) -> str:
    result = stage.result or {}
    return str(result.get("detail") or result.get("reason") or "")


def _interference(speed: dict) -> str:
    """The machine's other work during a decision's timing runs, from its SpeedCheck as JSON."""
    if "interference_measured" not in speed:
        return "not recorded (a log from before interference was measured)"
    if not speed["interference_measured"]:
        return "not measured on this machine"
    cores = speed.get("interference_cores") or [0.0]
    dropped = speed.get("dropped") or []
    line = (f"{len(cores)} timing runs, interference at most {max(cores):.2f} cores; {len(dropped)} contaminated "
            f"pair(s) left out and re-run ({2 * len(dropped)} runs repeated)")
    return line + ("; the re-run budget ran out: undecided, the machine was busy" if speed.get("busy") else "")


def _proposal_section(view: ProposalView) -> str:
    p, v = view.proposal, view.verdict or {}
    verdict = v.get("verdict", "pending")
    out = [f"<section class='proposal v-{_esc(verdict)}' id='{_esc(p['id'])}'>",
           f"<h3>{_esc(p['id'])}: {_esc(p['change'])} <span class={_esc(verdict)}>{_esc(verdict.upper())}</span></h3>",
           f"<p>{_esc(p['diagnosis'])}/{_esc(p['remedy'])} ({_esc(p['source'])}), expected up to "
           f"{p.get('expected_speedup', 0):.2f}x; data must be {_esc(p.get('data_rule'))}, loss "
           f"{_esc(p.get('loss_rule'))}.</p><table>"]
    if view.approval is not None:
        a = view.approval
        out.append(f"<tr><th>approval</th><td>{_esc(a.decision)} by {_esc(a.by)}"
                   f"{': ' + _esc(a.reason) if a.reason else ''}</td></tr>")
    if v:
        out.append(f"<tr><th>verdict</th><td class={_esc(verdict)}>{_esc(verdict)} at stage <b>{_esc(v.get('stage'))}"
                   f"</b>: {_esc(v.get('reason', ''))}</td></tr>")
        out.append(f"<tr><th>data</th><td>{_check(v.get('data'))}</td></tr><tr><th>loss</th><td>{_check(v.get('loss'))}"
                   "</td></tr>")
    speed = view.speed
    if speed:
        base = sorted(speed.get("baseline_samples_per_s") or [0])
        cand = sorted(speed.get("candidate_samples_per_s") or [0])
        out.append(f"<tr><th>speed</th><td>{speed['speedup']:.3f}x [{speed['ci'][0]:.3f}, {speed['ci'][1]:.3f}] "
                   f"(noise floor {speed.get('threshold_pct', 0):.1f}%); median {base[len(base) // 2]:.1f} → "
                   f"{cand[len(cand) // 2]:.1f} samples/s over {len(base)} + {len(cand)} runs</td></tr>")
        out.append(f"<tr><th>interference</th><td>{_esc(_interference(speed))}</td></tr>")
    if v.get("commit"):
        out.append(f"<tr><th>commit</th><td><code>{_esc(v['commit'])}</code></td></tr>")
    out.append("</table>")
    if view.stages:
        items = "".join(f"<li>{_esc(s.stage)}: <span class={_stage_class(s)}>{_stage_word(s)}</span> "
                        f"{_esc(_stage_detail(s))}</li>" for s in view.stages)
        out.append(f"<p>Verification stages:</p><ol>{items}</ol>")
    if v.get("side_outputs"):
        side = v["side_outputs"]
        empty = isinstance(side, dict) and not side.get("lines_compared") and not side.get("differences")
        table = _side_outputs(side)
        out.append(f"<details class=side><summary>side outputs: {_esc(side.get('status', ''))}, nothing printed or "
                   f"written to compare</summary>{table}</details>" if empty else table)
    if view.edited is not None:
        out.append("<p>Edited by the user before verification; the verified patch:</p>" + _diff(view.edited.edited_patch))
        out.append("<details><summary>the proposed patch</summary>" + _diff(view.edited.original_patch) + "</details>")
    else:
        out.append(_diff(p.get("patch", "")))
    return "".join(out) + "</section>"


def render(raw: list[dict], problems: list[str], traces: list[tuple[str, str]] = ()) -> str:
    """Return the report page for these raw audit records (as AuditLog.records() yields them)."""
    records, profiles, proposals = gather(raw)
    out = [f"<!doctype html><html lang=en><meta charset=utf-8><title>perfloop report</title><style>{_STYLE}</style>"]
    start = next((r.event for r in records if isinstance(r.event, RunStarted)), None)
    if start is not None:
        out.append(f"<h1>perfloop run {_esc(start.run_id)}</h1>")
        command = str(start.target.get("command", "")).replace("{config}", str(start.target.get("config") or ""))
        out.append(f"<p>Command <code>{_esc(command)}</code>, "
                   f"branch <code>{_esc(start.branch)}</code>, from {_esc(start.head[:10])}.</p>")
    chain = ("<span class=ok>intact</span>" if not problems
             else "<span class=bad>BROKEN: " + _esc("; ".join(problems)) + "</span>")
    out.append(f"<p id=chain>Audit chain: {chain} ({len(records)} records).</p>")
    finished = next((r.event.summary for r in reversed(records) if isinstance(r.event, RunFinished)), None)
    if finished:
        ci = finished.get("speedup_ci")
        interval = (f" <span class=muted>[{ci[0]:.2f}, {ci[1]:.2f}], the final check's interval</span>"
                    if ci else " <span class=muted>(nothing accepted: no final check)</span>")
        out.append(f"<h2>Result: {finished['speedup']:.2f}x{interval}</h2>"
                   f"<p>{finished['baseline']['samples_per_s']:.1f} → "
                   f"{finished['final']['samples_per_s']:.1f} samples/s; stopped: {_esc(finished['stop_reason'])} "
                   f"({_esc(finished.get('stop_detail', ''))})</p>")
        out.append(_base_moved(finished) + _isolation(finished))
    if traces:
        links = ", ".join(f"<a href='{_esc(href)}'>{_esc(label)}</a>" for label, href in traces)
        out.append(f"<p>Trace (Chrome trace JSON; open it in <a href='https://ui.perfetto.dev'>Perfetto</a> or "
                   f"chrome://tracing): {links}</p>")
    if profiles:
        out.append("<h2>Where a step's time goes</h2><p>The mean measured step of each profile, split into the "
                   "probe's stages (each interval counted once).</p>")
        out.append(ledger_bars([(label, _ledger_parts(r.event.profile)) for label, r in profiles]))
        out.append(_headspace(profiles))
        out.append(_hot_functions(profiles))
        out.append(_step_spread(profiles))
        out.append(_workers(profiles))
    rows = [{"label": v.proposal["id"], "speedup": v.speed["speedup"], "ci": list(v.speed["ci"]),
             "confidence": v.speed.get("confidence"),
             "threshold_pct": v.speed.get("threshold_pct", 0.0), "verdict": (v.verdict or {}).get("verdict", "")}
            for v in proposals if v.speed and v.speed.get("speedup")]
    if rows:
        out.append("<h2>Throughput per proposal</h2><p>Speed-up of each timed proposal (median candidate over median "
                   "baseline samples/s in interleaved runs), the interval its verdict quoted (bar; its level, "
                   "Bonferroni-adjusted over the sequential looks, beside it) and the noise floor it had to beat "
                   "(grey band; dashed: the gain required).</p>" + speed_intervals(rows))
    if profiles:
        out.append(_timelines(profiles))
    out.append(_diagnoses(records))
    if proposals:
        out.append("<h2>Proposals</h2>" + "".join(_proposal_section(v) for v in proposals))
    out.append(_raw_records(raw, records))
    return "\n".join(out) + "</html>"


def _base_moved(summary: dict) -> str:
    """Say that the user's HEAD moved during the run, and what to do (empty when it did not)."""
    if not summary.get("base_moved"):
        return ""
    base, now, branch = str(summary.get("base") or ""), str(summary.get("base_now") or ""), summary.get("branch", "")
    return (f"<p id=base-moved class=bad>Your HEAD moved during the run: {_esc(branch)} grows from "
            f"<code>{_esc(base[:10])}</code>, your HEAD is now <code>{_esc(now[:10])}</code>. Rebase or "
            "cherry-pick the run's commits onto it.</p>")


_ISOLATION_WORDS = {"none_protected": "none linked into the run, so none to protect",
                    "cut": "cut (own network namespace)"}


def _isolation(summary: dict) -> str:
    """One line on the isolation the sandbox reported over the run's pipeline runs (empty for older logs)."""
    seen = summary.get("isolation")
    if not seen:
        return ""
    detail = seen.get("detail") or {}
    def item(name: str, key: str, words: str) -> str:
        value = str(seen.get(key, ""))
        shown = _ISOLATION_WORDS.get(value, value)
        more = str(detail.get(words, "") or "")
        if more.replace("_", " ").strip() in (value.replace("_", " "), shown):  # "cut cut"
            more = ""
        return f"<li>{_esc(name)}: <b>{_esc(shown)}</b> <span class=muted>{_esc(more)}</span></li>"

    items = "".join(item(*names) for names in (("network", "network", "network"),
                                                ("memory limit", "memory_limit", "memory"),
                                                ("your inputs", "inputs", "inputs")))
    return (f"<p id=isolation>Isolation the sandbox reported over {_esc(seen.get('runs'))} pipeline run(s) "
            f"(the weakest of each):</p><ul>{items}</ul>")


def _headspace(profiles: list[tuple[str, Logged]]) -> str:
    """One row per profile: the step with free data (stored batches replayed), the headspace, and how measured."""
    rows = []
    for label, record in profiles:
        profile = record.event.profile
        share, free = profile.get("headspace"), profile.get("step_ms_free_data")
        measured = share is not None and free is not None
        free_cell, share_cell = (f"{free:.1f} ms", f"{share:.0%}") if measured else ("–", "–")
        step = float((profile.get("ledger") or {}).get("step_ms") or 0.0)
        rows.append(f"<tr><td>{_esc(label)}</td><td>{step:.1f} ms</td><td>{free_cell}</td><td>{share_cell}</td>"
                    f"<td class=muted>{_esc(profile.get('headspace_note', '') or 'recorded by an older perfloop')}</td></tr>")
    return ("<h3>Headspace</h3><p>The same loop fed the profile's stored batches from memory, the data loading "
            "bypassed: the step it leaves is the step with free data, and <b>headspace</b> = (step − step with free "
            "data) / step is the most any data-side change can gain.</p><table class=headspace><tr><th>profile</th>"
            "<th>mean step (the ledger's)</th><th>step with free data</th><th>headspace</th><th>how measured</th></tr>" + "".join(rows)
            + "</table>")


def _timelines(profiles: list[tuple[str, Logged]]) -> str:
    shown = [profiles[0]] + ([profiles[-1]] if len(profiles) > 1 else [])
    out = ["<h2>One step, laid out in time</h2><p>The median measured step of the profile's full run: the main "
           "process's stages, and the batch builds (DataLoader workers, or the main process itself) during it and "
           "in the step-long window before it. Red is the model waiting for data. Every chart has the same time "
           "scale (ticks in ms), so equal times are equally wide.</p>"]
    timelines = [_timeline(record.event.profile) for _, record in shown]
    span = max((gantt_span_ms(t) for t in timelines if t), default=None)
    for (label, record), timeline in zip(shown, timelines):
        if timeline:
            mean = float((record.event.profile.get("ledger") or {}).get("step_ms") or 0.0)
            out.append(step_gantt(timeline, f"{label}: step {timeline['index']}, the full run's median step, "
                                            f"{timeline['step_ms']:.1f} ms (mean step {mean:.1f} ms)", span_ms=span))
        else:
            out.append(f"<p class=muted>{_esc(label)}: no timeline in this profile (recorded by an older perfloop).</p>")
    return "".join(out)


def _hot_functions(profiles: list[tuple[str, Logged]]) -> str:
    """The profile's hot functions: where batch building and the loop's host code spend their samples."""
    rows = []
    for label, record in profiles:
        profile = record.event.profile
        for kind, key in (("batch build", "hot_functions"), ("main process", "main_hot_functions")):
            for hot in (profile.get(key) or [])[:5]:
                loop = f"line {hot['loop_line']} ({hot.get('loop_share', 0):.0%})" if hot.get("loop_line") else "–"
                rows.append(f"<tr><td>{_esc(label)}</td><td>{kind}</td><td><code>{_esc(hot.get('name'))}</code> "
                            f"{_esc(hot.get('file'))}:{_esc(hot.get('line'))}</td><td>{hot.get('share', 0):.0%}</td>"
                            f"<td>{hot.get('self_share', 0):.0%}</td><td>{_esc(loop)}</td></tr>")
    if not rows:
        return ""
    return ("<h3>Hot functions</h3><p>From the stack sampler: the share of the phase's samples with the function on "
            "the stack (callees counted), its self share, and its hottest loop.</p><table class=hot><tr><th>profile"
            "</th><th>phase</th><th>function</th><th>share</th><th>self</th><th>hottest loop</th></tr>"
            + "".join(rows) + "</table>")


def _step_spread(profiles: list[tuple[str, Logged]]) -> str:
    """A box per run of each profile: how its measured steps spread (the full run costs more: its probe samples)."""
    rows = []
    for label, record in profiles:
        light = 0
        for run in record.event.profile.get("runs", []):
            if run.get("mode") == "full":
                name = f"{label}: full run"
            else:
                light += 1
                name = f"{label}: light run {light}"
            rows.append((name, [float(ms) for ms in run.get("step_ms") or []]))
    if not any(ms for _, ms in rows):
        return ""
    return ("<h3>Step times per run</h3><p>Each profile run's measured steps: box from the first to the third "
            "quartile, mark at the median, whiskers from the 5th to the 95th percentile. Light runs (what timing "
            "uses) and the full run (stage timers and the sampler on) side by side.</p>" + step_distribution(rows))


def _workers(profiles: list[tuple[str, Logged]]) -> str:
    """Per DataLoader worker of each profile's full run (while its probe files are on disk): builds and their times."""
    from perfloop.tools.measure.record import RecordError, worker_fetches

    rows = []
    for label, record in profiles:
        full = next((run for run in record.event.profile.get("runs", []) if run.get("mode") == "full"), None)
        if not full or not Path(full.get("probe_dir", "")).is_dir():
            continue
        try:
            fetches = worker_fetches(Path(full["probe_dir"]))
        except RecordError:
            continue
        by_pid: dict[int, list[float]] = {}
        for fetch in fetches:
            by_pid.setdefault(fetch.pid or 0, []).append(fetch.fetch_ms)
        for number, (pid, ms) in enumerate(sorted(by_pid.items()), start=1):
            ms.sort()
            rows.append(f"<tr><td>{_esc(label)}</td><td>worker {number} (pid {pid})</td><td>{len(ms)}</td>"
                        f"<td>{ms[len(ms) // 2]:.1f} ms</td><td>{ms[-1]:.1f} ms</td><td>{sum(ms):.0f} ms</td></tr>")
    if not rows:
        return ""
    return ("<h3>DataLoader workers</h3><p>Every batch each worker built in the profile's full run.</p><table "
            "class=workers><tr><th>profile</th><th>worker</th><th>batches</th><th>median build</th><th>slowest</th>"
            "<th>total</th></tr>" + "".join(rows) + "</table>")


def _diagnoses(records: list[Logged]) -> str:
    out = []
    for record in records:
        if isinstance(record.event, Diagnosed):
            items = "".join(f"<li><b>{_esc(d.entry_id)}</b> (up to {d.expected_speedup:.2f}x): {_esc(d.summary)}</li>"
                            for d in record.event.ranked) or "<li>no known bottleneck matched</li>"
            out.append(f"<p>At {_esc(record.event.head[:10])} (record #{record.seq}):</p><ul>{items}</ul>")
    return "<h2>Diagnoses</h2>" + "".join(out) if out else ""


def _raw_records(raw: list[dict], records: list[Logged]) -> str:
    items = "".join(f"<details><summary>#{r.seq} {_esc(data.get('event', ''))} ({_esc(r.node)}): "
                    f"{_esc(' '.join(r.event.lines())[:160])}</summary><pre>{_esc(json.dumps(data, indent=1))}</pre>"
                    "</details>" for data, r in zip(raw, records))
    return f"<h2>Audit records</h2><details><summary>all {len(raw)} raw records</summary>{items}</details>"


def trace_links(state_dir: Path, raw: list[dict], page_dir: Path) -> list[tuple[str, str]]:
    """Return the run's traces to link: `perfloop profile --trace`'s, and one per profile still on disk, written
    next to the page (``page_dir``: the run folder, or where ``-o`` put it) and linked relatively."""
    from perfloop.agent.ui.trace import TRACE_POINTER, write_trace

    links = []
    pointer = state_dir / TRACE_POINTER
    if pointer.exists() and Path(pointer.read_text().strip()).exists():
        links.append(("--trace file", Path(pointer.read_text().strip())))
    for data in raw:
        if data.get("event") != "profile":
            continue
        full = next((run for run in (data.get("data") or {}).get("profile", {}).get("runs", [])
                     if run.get("mode") == "full"), None)
        if full and (Path(full["probe_dir"]) / RECORD_NAME).exists():
            profile = (data.get("data") or {}).get("profile", {})
            hot = [{k: f.get(k) for k in ("name", "file", "line", "share", "phase")}
                   for f in (profile.get("hot_functions") or []) + (profile.get("main_hot_functions") or [])]
            links.append((f"profile #{data['seq']}",
                          write_trace(Path(full["probe_dir"]), page_dir / f"trace-profile-{data['seq']}.json", hot)))
    return [(label, _href(path, page_dir)) for label, path in links]


def _href(path: Path, page_dir: Path) -> str:
    path = path.resolve()
    try:
        return path.relative_to(page_dir.resolve()).as_posix()
    except ValueError:
        return path.as_uri()


def write_report(ref: str, output: str | None = None) -> Path:
    """Write the HTML report of run ``ref`` (and a trace per profile still on disk); return its path."""
    from perfloop.agent.audit import AuditLog

    state_dir = find_run(ref)
    log = AuditLog(RunFolder(state_dir).audit_log)
    path = Path(output) if output else RunFolder(state_dir).report
    raw = list(log.records())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(raw, log.verify(), trace_links(state_dir, raw, path.parent)), encoding="utf-8")
    return path
