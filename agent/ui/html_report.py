"""`perfloop report`: render a run's audit log as one self-contained HTML page.

Everything shown is read back from the typed audit events (agent/events.py), so logs
written by older versions render too: parts they lack (a step's timeline, say) are
named as missing rather than drawn. This module gathers each section's data as plain
dicts and lists; templates/report.html.j2 lays them out (jinja2, autoescaped, so text
from the log is escaped there). Charts are inline SVG from report_charts.py, the only
markup passed in as it is (they escape their own text; see _Chart).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
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

TEMPLATES = Path(__file__).with_name("templates")


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


class _Chart(str):
    """An SVG chart from report_charts.py: markup already (it escapes its own text), so autoescape leaves it as it is.

    ``__html__`` is the protocol jinja2's autoescape (markupsafe.escape) honours, as it does for ``Markup``; perfloop
    does not import markupsafe itself, which is jinja2's dependency and not one of its own."""

    def __html__(self) -> str:
        return str(self)


@lru_cache(maxsize=1)
def _template():
    import jinja2  # here, not at the top: `perfloop --help` and the rest of the CLI never pay for it

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, trim_blocks=True,
                             lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    env.filters["fmt"] = format  # {{ x|fmt(".1f") }}: Python's format spec, as the f-strings had it
    return env.get_template("report.html.j2")


def render(raw: list[dict], problems: list[str], traces: list[tuple[str, str]] = ()) -> str:
    """Return the report page for these raw audit records (as AuditLog.records() yields them)."""
    records, profiles, proposals = gather(raw)
    start = next((r.event for r in records if isinstance(r.event, RunStarted)), None)
    finished = next((r.event.summary for r in reversed(records) if isinstance(r.event, RunFinished)), None)
    page = {"start": _start(start) if start is not None else None, "problems": list(problems),
            "record_count": len(records), "result": _result(finished) if finished else None,
            "traces": [(str(label), str(href)) for label, href in traces],
            "ledger": None, "headspace": [], "hot": [], "spread": None, "workers": [], "timelines": [],
            "speed": None, "diagnoses": _diagnoses(records), "proposals": [_proposal(view) for view in proposals],
            "records": _raw_records(raw, records)}
    if profiles:
        spread = _step_spread(profiles)
        page.update(ledger=_Chart(ledger_bars([(label, _ledger_parts(r.event.profile)) for label, r in profiles])),
                    headspace=_headspace(profiles), hot=_hot_functions(profiles), workers=_workers(profiles),
                    spread=_Chart(spread) if spread else None,
                    timelines=[{"label": label, "svg": _Chart(svg) if svg else None}
                               for label, svg in _timelines(profiles)])
    rows = [{"label": v.proposal["id"], "speedup": v.speed["speedup"], "ci": list(v.speed["ci"]),
             "confidence": v.speed.get("confidence"),
             "threshold_pct": v.speed.get("threshold_pct", 0.0), "verdict": (v.verdict or {}).get("verdict", "")}
            for v in proposals if v.speed and v.speed.get("speedup")]
    if rows:
        page["speed"] = _Chart(speed_intervals(rows))
    return _template().render(page)


def _start(start: RunStarted) -> dict:
    command = str(start.target.get("command", "")).replace("{config}", str(start.target.get("config") or ""))
    return {"run_id": start.run_id, "command": command, "branch": start.branch, "head": start.head[:10]}


def _result(summary: dict) -> dict:
    """The run's outcome from its summary: the speed-up, its interval, why it stopped, and what it saw on the way."""
    ci = summary.get("speedup_ci")
    return {"speedup": summary["speedup"], "ci": list(ci) if ci else None, "busy": summary.get("final_check_busy", ""),
            "baseline": summary["baseline"]["samples_per_s"], "final": summary["final"]["samples_per_s"],
            "stop_reason": summary["stop_reason"], "stop_detail": summary.get("stop_detail", ""),
            "base_moved": _base_moved(summary), "isolation": _isolation(summary)}


def _base_moved(summary: dict) -> dict | None:
    """That the user's HEAD moved during the run (None when it did not)."""
    if not summary.get("base_moved"):
        return None
    return {"branch": summary.get("branch", ""), "base": str(summary.get("base") or "")[:10],
            "now": str(summary.get("base_now") or "")[:10]}


_ISOLATION_WORDS = {"none_protected": "none linked into the run, so none to protect",
                    "cut": "cut (own network namespace)"}


def _isolation(summary: dict) -> dict | None:
    """The isolation the sandbox reported over the run's pipeline runs (None for older logs)."""
    seen = summary.get("isolation")
    if not seen:
        return None
    detail = seen.get("detail") or {}

    def item(name: str, key: str, words: str) -> dict:
        value = str(seen.get(key, ""))
        shown = _ISOLATION_WORDS.get(value, value)
        more = str(detail.get(words, "") or "")
        if more.replace("_", " ").strip() in (value.replace("_", " "), shown):  # "cut cut"
            more = ""
        return {"name": name, "shown": shown, "more": more}

    return {"runs": str(seen.get("runs")), "seen": [item(*names) for names in (
        ("network", "network", "network"), ("memory limit", "memory_limit", "memory"),
        ("your inputs", "inputs", "inputs"))]}


def _ledger_parts(profile: dict) -> dict[str, float]:
    ledger = profile.get("ledger") or {}
    return {stage: float(ledger.get(f"{stage}_ms") or 0.0) for stage in LEDGER_STAGES}


def _mean_step(profile: dict) -> float:
    return float((profile.get("ledger") or {}).get("step_ms") or 0.0)


def _timeline(profile: dict) -> dict | None:
    full = next((run for run in profile.get("runs", []) if run.get("mode") == "full"), None)
    return (full or {}).get("timeline")


def _headspace(profiles: list[tuple[str, Logged]]) -> list[dict]:
    """One row per profile: the step with free data (stored batches replayed), the headspace, and how measured."""
    rows = []
    for label, record in profiles:
        profile = record.event.profile
        share, free = profile.get("headspace"), profile.get("step_ms_free_data")
        rows.append({"label": label, "step": _mean_step(profile), "measured": share is not None and free is not None,
                     "free": free, "share": share,
                     "note": profile.get("headspace_note", "") or "recorded by an older perfloop"})
    return rows


def _timelines(profiles: list[tuple[str, Logged]]) -> list[tuple[str, str | None]]:
    """The first and last profile's Gantt of one step, on one time scale (None for a profile without a timeline)."""
    shown = [profiles[0]] + ([profiles[-1]] if len(profiles) > 1 else [])
    timelines = [_timeline(record.event.profile) for _, record in shown]
    span = max((gantt_span_ms(t) for t in timelines if t), default=None)
    out = []
    for (label, record), timeline in zip(shown, timelines):
        if timeline:
            mean = _mean_step(record.event.profile)
            out.append((label, step_gantt(timeline, f"{label}: step {timeline['index']}, the full run's median step, "
                                                    f"{timeline['step_ms']:.1f} ms (mean step {mean:.1f} ms)",
                                          span_ms=span)))
        else:
            out.append((label, None))
    return out


def _hot_functions(profiles: list[tuple[str, Logged]]) -> list[dict]:
    """The profile's hot functions: where batch building and the loop's host code spend their samples."""
    rows = []
    for label, record in profiles:
        profile = record.event.profile
        for phase, key in (("batch build", "hot_functions"), ("main process", "main_hot_functions")):
            for hot in (profile.get(key) or [])[:5]:
                rows.append({"label": label, "phase": phase, "name": hot.get("name"), "file": hot.get("file"),
                             "line": hot.get("line"), "share": hot.get("share", 0),
                             "self_share": hot.get("self_share", 0), "loop_line": hot.get("loop_line"),
                             "loop_share": hot.get("loop_share", 0)})
    return rows


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
    return step_distribution(rows) if any(ms for _, ms in rows) else ""


def _workers(profiles: list[tuple[str, Logged]]) -> list[dict]:
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
            rows.append({"label": label, "number": number, "pid": pid, "builds": len(ms), "median": ms[len(ms) // 2],
                         "slowest": ms[-1], "total": sum(ms)})
    return rows


def _diagnoses(records: list[Logged]) -> list[dict]:
    return [{"head": record.event.head[:10], "seq": record.seq,
             "ranked": [{"entry_id": d.entry_id, "expected_speedup": d.expected_speedup, "summary": d.summary}
                        for d in record.event.ranked]}
            for record in records if isinstance(record.event, Diagnosed)]


def _raw_records(raw: list[dict], records: list[Logged]) -> list[dict]:
    return [{"seq": r.seq, "event": data.get("event", ""), "node": r.node, "line": " ".join(r.event.lines())[:160],
             "json": json.dumps(data, indent=1)} for data, r in zip(raw, records)]


def _proposal(view: ProposalView) -> dict:
    """One proposal's section: what it was, how it was approved and verified, its side outputs and its diff."""
    p, v = view.proposal, view.verdict or {}
    a, speed, edited = view.approval, view.speed, view.edited
    out = {"id": p["id"], "change": p["change"], "verdict": v.get("verdict", "pending"),
           "diagnosis": p["diagnosis"], "remedy": p["remedy"], "source": p["source"],
           "expected_speedup": p.get("expected_speedup", 0), "data_rule": str(p.get("data_rule")),
           "loss_rule": str(p.get("loss_rule")),
           "approval": {"decision": a.decision, "by": a.by, "reason": a.reason} if a is not None else None,
           "decided": bool(v), "stage": str(v.get("stage")), "reason": v.get("reason", ""),
           "data": _check(v.get("data")) if v else None, "loss": _check(v.get("loss")) if v else None,
           "speed": _speed(speed) if speed else None, "commit": v.get("commit") or None,
           "stages": [_stage(s) for s in view.stages], "side_outputs": None,
           "patch": _diff(edited.edited_patch if edited is not None else p.get("patch", "")),
           "proposed_patch": _diff(edited.original_patch) if edited is not None else None}
    if v.get("side_outputs"):
        out["side_outputs"] = _side_outputs(v["side_outputs"])
    return out


def _check(result: dict | None) -> dict | None:
    return {"status": result.get("status", ""), "detail": result.get("detail", "")} if result else None


def _speed(speed: dict) -> dict:
    """A decision's timing (a SpeedCheck as JSON): the speed-up, medians, and the machine's other work meanwhile."""
    base = sorted(speed.get("baseline_samples_per_s") or [0])
    cand = sorted(speed.get("candidate_samples_per_s") or [0])
    return {"speedup": speed["speedup"], "ci": list(speed["ci"]), "threshold_pct": speed.get("threshold_pct", 0),
            "baseline": base[len(base) // 2], "candidate": cand[len(cand) // 2], "runs": (len(base), len(cand)),
            "interference": None if "interference_measured" not in speed else {
                "measured": bool(speed["interference_measured"]), "cores": speed.get("interference_cores") or [0.0],
                "dropped": len(speed.get("dropped") or []), "busy": bool(speed.get("busy"))}}


def _stage(stage: VerifyStage) -> dict:
    """A verification stage: pass, FAIL, or undecided for an interim sequential look that called for more pairs."""
    word = "pass" if stage.passed else "undecided" if getattr(stage, "undecided", False) else "FAIL"
    result = stage.result or {}
    return {"stage": stage.stage, "word": word, "css": {"pass": "ok", "undecided": "undecided"}.get(word, "bad"),
            "detail": str(result.get("detail") or result.get("reason") or "")}


def _diff(patch: str) -> list[tuple[str, str]]:
    """The patch's lines as (kind, text): kind hunk, add, del, or "" for context and file headers."""
    return [("hunk" if row.startswith("@@") else "add" if row.startswith("+") and not row.startswith("+++")
             else "del" if row.startswith("-") and not row.startswith("---") else "", row)
            for row in patch.splitlines()]


_SIDE_FIELDS = (("compared", "compared"), ("lines_compared", "lines compared"),
                ("numbers_masked", "numbers masked (they vary between the baseline's runs)"),
                ("differences", "differences"), ("declared", "declared by the remedy"),
                ("not_compared", "not compared"))


def _side_outputs(value) -> dict:
    """A verdict's side-output check (perfloop.tools.check.sideoutputs.SideOutputCheck as JSON) as its fields, lists
    joined; other shapes row by row. Folded when there was nothing to compare."""
    folded = isinstance(value, dict) and not value.get("lines_compared") and not value.get("differences")
    out = {"folded": folded, "status": value.get("status", "") if folded else "", "check": None, "rows": []}
    if isinstance(value, dict) and "status" in value:
        fields = []
        for key, title in _SIDE_FIELDS:
            item = value.get(key)
            if isinstance(item, list):
                item = "; ".join(str(part) for part in item) or "none"
            if item not in (None, ""):
                fields.append((title, item))
        out["check"] = {"status": value["status"], "detail": value.get("detail", ""), "fields": fields}
        return out
    items = value.items() if isinstance(value, dict) else enumerate(value if isinstance(value, list) else [value])
    for key, item in items:
        if isinstance(item, dict):
            out["rows"].append({"name": item.get("name") or item.get("path") or key, "wide": False,
                                "status": item.get("status", item.get("passed", "")), "detail": item.get("detail", "")})
        else:
            out["rows"].append({"name": key, "wide": True, "status": item, "detail": ""})
    return out


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
