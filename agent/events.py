"""The audit log's events: one pydantic model per event, written and read through the same types.

A record on disk is ``{"seq", "ts", "event", "node", "data", "prev_hash", "hash"}``
(see agent/audit.py); ``event`` names one of the models below and ``data`` holds its
fields. Reading is lenient so that logs written by older versions still print: extra
keys are kept, and a record that no model accepts comes back as ``Unrecognised``.
"""
from __future__ import annotations

import time
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from perfloop.agent.state import Proposal, Verdict
from perfloop.knowledge_base import Diagnosis


def _pct(value: Any) -> str:
    return f"{value:.0%}" if isinstance(value, (int, float)) else "?"


def _plain(value: Any) -> str:
    """Spell a field's value for a person: floats to 3 significant digits, shas short."""
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, str) and len(value) == 40 and all(c in "0123456789abcdef" for c in value):
        return value[:10]
    return str(value)


def _fields(event: BaseModel, exclude: set[str] = frozenset(), raw: bool = False) -> str:
    """Say an event's scalar fields as "key value" pairs (``key=value`` when ``raw``), leaving out empty ones."""
    shown = {k: v for k, v in event.model_dump(exclude=exclude).items()
             if v not in (None, "", [], {}) and not isinstance(v, (dict, list))}
    if raw:
        return ", ".join(f"{k}={_plain(v)}" for k, v in shown.items())
    return ", ".join(f"{k.replace('_', ' ')} {_plain(v)}" for k, v in shown.items())


class Event(BaseModel):
    """One thing a node saw, decided or measured."""

    model_config = ConfigDict(extra="allow")
    name: ClassVar[str] = ""

    def lines(self, show_diff: bool = False) -> list[str]:
        """Say what happened, in a line or a few, for `perfloop log` and the report."""
        brief = _fields(self)
        return [f"{self.name.replace('_', ' ')}: {brief}" if brief else self.name.replace("_", " ")]


class RunStarted(Event):
    name: ClassVar[str] = "run_started"
    run_id: str
    branch: str = "-"
    head: str = ""
    target: dict = Field(default_factory=dict, description="The target contract as loaded.")
    settings: dict = Field(default_factory=dict)
    uncommitted_paths: list[str] = Field(default_factory=list, description="User's uncommitted paths, left alone.")
    linked_inputs: list[str] = Field(default_factory=list, description="Ignored inputs linked into the worktrees.")
    network_isolated: bool | None = None
    worktrees: list[str] = Field(default_factory=list)

    def lines(self, show_diff: bool = False) -> list[str]:
        command = str(self.target.get("command")).replace("{config}", str(self.target.get("config") or "{config}"))
        out = [f"run {self.run_id} on `{command}`, branch {self.branch}, head {self.head[:10]}"]
        if self.uncommitted_paths:
            out.append(f"working from HEAD; {len(self.uncommitted_paths)} uncommitted path(s) left alone")
        return out


class NodeEntered(Event):
    name: ClassVar[str] = "node_entered"
    head: str | None = None
    proposal: str | None = None

    def lines(self, show_diff: bool = False) -> list[str]:
        about = [f"at head {self.head[:10]}" if self.head else "", f"for proposal {self.proposal}" if self.proposal
                 else ""]
        return [" ".join(["entered", *filter(None, about)])]


class PipelineFailed(Event):
    name: ClassVar[str] = "pipeline_failed"
    error: str

    def lines(self, show_diff: bool = False) -> list[str]:
        return [f"the pipeline failed: {self.error.splitlines()[0] if self.error else ''}"]


class Profiled(Event):
    name: ClassVar[str] = "profile"
    head: str = ""
    profile: dict = Field(default_factory=dict, description="The Profile, as JSON.")
    metrics: dict[str, Any] = Field(default_factory=dict, description="Profile.metrics(): what diagnosis reads.")

    def lines(self, show_diff: bool = False) -> list[str]:
        m = self.metrics
        return [f"measured {m.get('samples_per_s', 0):.1f} samples/s (noise floor {m.get('noise_pct', 0):.1f}%), step "
                f"{m.get('step_ms', 0):.1f} ms, data wait {_pct(m.get('data_wait_share'))}, compute "
                f"{_pct(m.get('compute_share'))}, other {_pct(m.get('other_share'))}, workers "
                f"{m.get('num_workers')}, hot {m.get('hot_function')} ({_pct(m.get('hot_function_share') or 0)})"]


class Diagnosed(Event):
    name: ClassVar[str] = "diagnoses"
    head: str = ""
    ranked: list[Diagnosis] = Field(default_factory=list, description="Best expected gain first.")

    def lines(self, show_diff: bool = False) -> list[str]:
        if not self.ranked:
            return ["diagnoses: none matched"]
        return ["diagnoses:"] + [f"  {d.entry_id} (up to {d.expected_speedup:.2f}x): {d.summary}" for d in self.ranked]


class RemedyChosen(Event):
    name: ClassVar[str] = "remedy_chosen"
    diagnosis: str
    remedy: str
    expected_speedup: float | None = None

    def lines(self, show_diff: bool = False) -> list[str]:
        gain = f" (up to {self.expected_speedup:.2f}x)" if self.expected_speedup is not None else ""
        return [f"next remedy: {self.diagnosis}/{self.remedy}{gain}"]


class RemedyNotApplicable(Event):
    name: ClassVar[str] = "remedy_not_applicable"
    diagnosis: str
    remedy: str
    reason: str

    def lines(self, show_diff: bool = False) -> list[str]:
        return [f"{self.diagnosis}/{self.remedy} not applicable: {self.reason}"]


class Stopped(Event):
    name: ClassVar[str] = "stop"
    reason: str
    detail: str = ""
    iterations: int | None = None
    skipped: list[dict] = Field(default_factory=list, description="Remedies passed over, and why.")

    def lines(self, show_diff: bool = False) -> list[str]:
        return [f"stop ({self.reason}) {self.detail}".rstrip()]


class ProposalMade(Event):
    name: ClassVar[str] = "proposal"
    proposal: Proposal

    def lines(self, show_diff: bool = False) -> list[str]:
        p = self.proposal
        out = [f"proposal {p.id} ({p.source}, {p.diagnosis}/{p.remedy}): {p.change}"]
        return out + (["  " + row for row in p.patch.splitlines()] if show_diff else [])


class Approval(Event):
    name: ClassVar[str] = "approval"
    proposal: str
    decision: str
    by: str
    reason: str = Field("", description="What the user gave as the reason for rejecting.")

    def lines(self, show_diff: bool = False) -> list[str]:
        return [f"{self.decision} {self.proposal} by {self.by}" + (f": {self.reason}" if self.reason else "")]


class ProposalEdited(Event):
    name: ClassVar[str] = "proposal_edited"
    proposal: str
    original_patch: str
    edited_patch: str = Field(description="What the user saved in $EDITOR; this is what gets verified.")

    def lines(self, show_diff: bool = False) -> list[str]:
        out = [f"{self.proposal} edited by the user before verification"]
        return out + (["  " + row for row in self.edited_patch.splitlines()] if show_diff else [])


class ReplayChecked(Event):
    name: ClassVar[str] = "replay"
    file: str
    function: str
    ok: bool
    verdict: str = Field(description="identical, within_tolerance, different, no_calls or error.")
    reason: str
    num_calls: int = 0
    speedup: float | None = Field(None, description="Old over new time on the captured calls (rough).")

    def lines(self, show_diff: bool = False) -> list[str]:
        speed = f", {self.speedup:.1f}x on them" if self.speedup else ""
        reason = self.reason  # replay's reason names the function too: said once
        if reason.startswith(f"replay of {self.function}"):
            reason = reason.removeprefix(f"replay of {self.function}").lstrip(": ")
        return [f"replay of {self.function} ({self.file}): {self.verdict}{speed}: {reason}"]


class RemedySkipped(Event):
    name: ClassVar[str] = "remedy_skipped"
    diagnosis: str
    remedy: str
    reason: str

    def lines(self, show_diff: bool = False) -> list[str]:
        return [f"{self.diagnosis}/{self.remedy} skipped: {self.reason}"]


class VerifyStage(Event):
    name: ClassVar[str] = "verify_stage"
    stage: str
    passed: bool
    reason: str = Field("", description="Why the stage failed.")
    undecided: bool = False
    pairs: int | None = None
    result: dict | None = Field(None, description="The stage's check (CheckResult, SpeedCheck, …) as JSON.")

    def lines(self, show_diff: bool = False) -> list[str]:
        result = self.result or {}
        detail = self.reason or result.get("detail") or result.get("reason") or ""
        state = "pass" if self.passed else "undecided" if self.undecided else "FAIL"
        more = " (more pairs follow)" if self.undecided and not self.reason else ""
        return [f"  {self.stage}: {state}{more} {detail}".rstrip()]


class RunsContaminated(Event):
    """Runs left out because the machine's other work took CPU during their measured steps."""

    name: ClassVar[str] = "runs_contaminated"
    what: str = Field(description="What was left out: 'timing pair 2', 'noise run 1'.")
    cores: list[float | None] = Field(default_factory=list, description="Interference of each run left out (cores).")
    reruns_left: int = Field(0, description="Re-runs left in this decision's budget after this one.")
    detail: str = Field("", description="The runs' interference lines (others, steal, idle).")

    def lines(self, show_diff: bool = False) -> list[str]:
        cores = ", ".join("?" if c is None else f"{c:.2f}" for c in self.cores)
        return [f"{self.what} left out, the machine was busy (interference {cores} cores): run again, "
                f"{self.reruns_left} re-run(s) left" + (f"; {self.detail}" if self.detail else "")]


class VerdictReached(Event):
    name: ClassVar[str] = "verdict"
    verdict: Verdict

    def lines(self, show_diff: bool = False) -> list[str]:
        v = self.verdict
        commit = f" commit {v.commit[:10]}" if v.commit else ""
        out = [f"verdict {v.proposal_id}: {v.verdict.upper()} at {v.stage}: {v.reason}{commit}"]
        if v.speed is not None:
            out.append(f"interference: {v.speed.interference_line()}")
        return out


class FinalCheck(Event):
    name: ClassVar[str] = "final_check"
    original: str
    head: str
    original_samples_per_s: list[float]
    final_samples_per_s: list[float]
    speedup: float
    ci: list[float]
    pairs_rerun: int = Field(0, description="Pairs left out because the machine was busy, and run again.")
    contaminated_kept: int = Field(0, description="Contaminated pairs kept: the re-run budget was spent, or "
                                                  "interference = \"report\".")
    steps_dropped: int = Field(0, description="Measured steps left out of the kept runs (busy intervals).")
    timed_from_step: int | None = Field(None, description="Set when a kept change pays off from the second epoch "
                                                          "(a cache): both sides were timed from this step on.")

    def busy_line(self) -> str:
        """What the machine's other work cost this comparison, or "" when nothing was left out."""
        parts = []
        if self.pairs_rerun:
            parts.append(f"{self.pairs_rerun} contaminated pair(s) left out and run again")
        if self.contaminated_kept:
            parts.append(f"{self.contaminated_kept} contaminated pair(s) kept (not run again)")
        if self.steps_dropped:
            parts.append(f"{self.steps_dropped} step(s) in busy intervals left out")
        return "; ".join(parts)

    def lines(self, show_diff: bool = False) -> list[str]:
        busy = self.busy_line()
        window = f"; timed from step {self.timed_from_step} (the second epoch)" if self.timed_from_step else ""
        return [f"original {self.original[:10]} vs head {self.head[:10]}: {self.speedup:.2f}x "
                f"[{self.ci[0]:.2f}, {self.ci[1]:.2f}]" + window + (f"; {busy}" if busy else "")]


class RunFinished(Event):
    name: ClassVar[str] = "run_finished"
    summary: dict = Field(description="The --json summary (agent/summary.py RunSummary).")

    def lines(self, show_diff: bool = False) -> list[str]:
        s = self.summary
        return [f"finished ({s.get('stop_reason')}): {s['baseline']['samples_per_s']:.1f} → "
                f"{s['final']['samples_per_s']:.1f} samples/s, {s['speedup']:.2f}x; {s.get('stop_detail', '')}"]


class LlmExchange(Event):
    name: ClassVar[str] = "llm_exchange"
    model: str | None = None
    attempt: int = 1
    prompt: str = ""
    answer: str = ""
    finish_reason: str | None = None
    prompt_tokens: int | None = Field(None, description="As the endpoint reported.")
    completion_tokens: int | None = Field(None, description="As the endpoint reported.")
    latency_s: float | None = Field(None, description="First request to answer, retries included.")
    http_attempts: int | None = None

    def lines(self, show_diff: bool = False) -> list[str]:
        usage = (f", {self.prompt_tokens}+{self.completion_tokens} tokens in {self.latency_s:.1f} s"
                 if self.prompt_tokens is not None and self.latency_s is not None else "")
        return [f"LLM {self.model} attempt {self.attempt}{usage}: {len(self.prompt)} chars asked, "
                f"{len(self.answer)} answered"]


class LlmAnswerUnusable(Event):
    name: ClassVar[str] = "llm_answer_unusable"
    attempt: int = 1
    reason: str

    def lines(self, show_diff: bool = False) -> list[str]:
        return [f"LLM answer {self.attempt} unusable: {self.reason}"]


class LlmCandidateChecked(Event):
    """One of the K candidate edits the LLM answered, and what became of it before any pipeline run."""

    name: ClassVar[str] = "llm_candidate"
    attempt: int = 1
    index: int = Field(description="1-based position of the candidate in the answer.")
    function: str | None = Field(None, description="The hot function it was replayed against.")
    summary: str = ""
    outcome: str = Field(description="'chosen', 'survived' (not the best), 'failed_replay' or 'dropped'.")
    reason: str = Field("", description="Why dropped or failed, or the replay's one-line result.")
    replay_verdict: str | None = Field(None, description="Replay verdict when it edited the hot function.")
    speedup: float | None = Field(None, description="Old over new time on the captured calls (rough).")

    def lines(self, show_diff: bool = False) -> list[str]:
        speed = f", {self.speedup:.2f}x on the captured calls" if self.speedup else ""
        return [f"LLM candidate {self.attempt}.{self.index} ({self.summary}): {self.outcome}{speed}"
                + (f": {self.reason}" if self.reason else "")]


class LlmCallFailed(Event):
    """The LLM endpoint gave no usable reply; the remedy is skipped (recorded before LLMUnavailable is raised)."""

    name: ClassVar[str] = "llm_call_failed"
    model: str | None = None
    endpoint: str | None = Field(None, description="The base URL, credentials redacted.")
    attempt: int = 1
    reason: str = ""

    def lines(self, show_diff: bool = False) -> list[str]:
        return [f"LLM {self.model} call {self.attempt} failed: {self.reason}"]


class IsolationObserved(Event):
    """What the sandbox reported for a pipeline run, recorded when it changes what the run can claim
    (the first run, and any run weaker than those before it in network, memory or inputs)."""

    name: ClassVar[str] = "isolation_observed"
    label: str = Field("", description="The probe folder of the run that reported it.")
    run: dict = Field(default_factory=dict, description="That run's perfloop.sandbox.isolation.Isolation.")
    seen: dict = Field(default_factory=dict, description="The weakest of every run so far (ObservedIsolation).")

    def lines(self, show_diff: bool = False) -> list[str]:
        s = self.seen
        line = (f"isolation observed ({self.label}): network {s.get('network')}, memory {s.get('memory_limit')}, "
                f"inputs {s.get('inputs')}")
        return [line + ("" if s.get("orphans_bound", True) else ", process tree NOT bound to perfloop's life")]


class BlockRan(Event):
    """A candidate's verification block ran on one node of a cluster (--executor ray); its stages' records follow,
    each with ``ran_on``."""

    name: ClassVar[str] = "block_ran"
    block: str = Field(description="The block: the proposal's id, with the candidate's number when K ran at once.")
    executor: str = "ray"
    ran_on: str = Field(description="The node: its host and Ray node id.")
    attempt: int = Field(1, description="1, or more when earlier attempts lost their node.")
    lost_on: list[str] = Field(default_factory=list, description="Nodes lost mid-block before this attempt.")
    shipped_bytes: int = Field(0, description="What the driver sent: the tree's pack, the patch and the state.")
    returned_bytes: int = Field(0, description="What came back: verdict, records and probe folders.")
    seconds: float = 0.0
    runs: int = Field(0, description="Pipeline runs the block made on its node.")
    noise_pct: float = Field(0.0, description="The node's own noise floor, from its light runs of the head.")
    verdict: str = ""

    def lines(self, show_diff: bool = False) -> list[str]:
        again = f", attempt {self.attempt} after losing {', '.join(self.lost_on)}" if self.lost_on else ""
        return [f"block {self.block} ran on {self.ran_on}{again}: {self.verdict}, {self.runs} runs in "
                f"{self.seconds:.0f} s, node noise floor {self.noise_pct:.1f}%, shipped {self.shipped_bytes} B, "
                f"returned {self.returned_bytes} B"]


class BlockLost(Event):
    """A node was lost while it ran a block; the block runs again, whole, on another node (bounded)."""

    name: ClassVar[str] = "block_lost"
    block: str
    ran_on: str
    error: str = ""
    retries_left: int = 0


class CandidatesCompared(Event):
    """A remedy's candidates, each verified in its own block at the same head: their verdicts and the one kept.

    Each speed-up is its candidate's against the head on the candidate's own node (ratios, so
    nodes are never compared by raw speed); the kept one is the accepted one with the largest."""

    name: ClassVar[str] = "candidates_compared"
    candidates: list[dict] = Field(description="Per block: id, change, verdict, stage, speedup (None unless timed).")
    chosen: str | None = Field(None, description="The id committed; None when no candidate was accepted.")

    def lines(self, show_diff: bool = False) -> list[str]:
        head = (f"{len(self.candidates)} candidates verified side by side; kept {self.chosen}" if self.chosen
                else f"{len(self.candidates)} candidates verified side by side; none accepted")
        return [head] + [f"{c['id']} {c['verdict']} at {c['stage']}"
                         + (f", x{c['speedup']:.2f}" if c.get("speedup") else "") + f": {c['change']}"
                         for c in self.candidates]


class Unrecognised(Event):
    """A record no model accepts (an unknown name, or an older shape): shown as its raw fields."""

    event: str = ""

    def lines(self, show_diff: bool = False) -> list[str]:
        brief = _fields(self, exclude={"event"}, raw=True)
        return [f"{self.event} {brief}".rstrip()]


EVENTS: dict[str, type[Event]] = {cls.name: cls for cls in (
    RunStarted, NodeEntered, PipelineFailed, Profiled, Diagnosed, RemedyChosen, RemedyNotApplicable, Stopped,
    ProposalMade, Approval, ProposalEdited, RemedySkipped, ReplayChecked, VerifyStage, RunsContaminated,
    VerdictReached, FinalCheck,
    RunFinished, LlmExchange, LlmAnswerUnusable, LlmCallFailed,
    LlmCandidateChecked, IsolationObserved, BlockRan, BlockLost, CandidatesCompared)}


class Logged(BaseModel):
    """One audit record, parsed: where it sits in the chain and its typed event."""

    seq: int
    ts: float
    node: str
    event: Event

    def lines(self, show_diff: bool = False) -> list[str]:
        """Prefix the event's lines with its number, time and node."""
        head = f"#{self.seq:<3} {time.strftime('%H:%M:%S', time.localtime(self.ts))} {self.node:>8}: "
        first, *rest = self.event.lines(show_diff)
        return [head + first] + ["      " + line for line in rest]


def parse_event(name: str, data: dict) -> Event:
    """Return the typed event for one record's ``event`` and ``data``."""
    model = EVENTS.get(name)
    if model is not None:
        try:
            return model.model_validate(data)
        except ValidationError:
            pass
    return Unrecognised.model_validate({**data, "event": name})


def parse_record(record: dict) -> Logged:
    """Parse one raw audit record (as perfloop.agent.audit.AuditLog.records() yields it)."""
    return Logged(seq=record.get("seq", 0), ts=record.get("ts", 0.0), node=record.get("node", ""),
                  event=parse_event(record.get("event", ""), record.get("data") or {}))
