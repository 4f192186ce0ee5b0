"""diagnose: match the profile against the knowledge base and pick the next remedy to try."""
from __future__ import annotations

from functools import lru_cache

from perfloop.agent.context import RunContext
from perfloop.agent.events import Diagnosed, RemedyChosen, RemedySkipped, Stopped
from perfloop.agent.faults import fault_point
from perfloop.agent.memory import Memory
from perfloop.agent.state import LoopState, RemedyRef, Skip
from perfloop.agent.ui.console import say
from perfloop.knowledge_base import Diagnosis, bottleneck_moved, compare, load_entries
from perfloop.knowledge_base import diagnose as match_entries


def same_edit(ref: RemedyRef) -> list[RemedyRef]:
    """Return ``ref`` and every codemod remedy of another entry that makes the same edit (codemod and params).

    "Tried" and memory are per (entry, remedy); an edit two entries offer (e.g. vectorize_hot_function
    under transform_hotspot and hidden_input_contention) must still be tried once per head.
    """
    edits = _codemod_edits()
    key = edits.get((ref.diagnosis, ref.remedy))
    if key is None:
        return [ref]
    return [ref] + [RemedyRef(diagnosis=entry, remedy=rid) for (entry, rid), k in edits.items()
                    if k == key and (entry, rid) != (ref.diagnosis, ref.remedy)]


@lru_cache(maxsize=1)
def _codemod_edits() -> dict[tuple[str, str], str]:
    """(entry, remedy) -> the edit a codemod remedy makes: its codemod and params."""
    return {(e.id, r.id): f"{r.codemod} {sorted(r.params.items())}"
            for e in load_entries() for r in e.remedies if r.kind == "codemod"}


def _remembered_rejection(state: LoopState, memory: Memory, ref: RemedyRef) -> str | None:
    """Say why an earlier run's rejection of ``ref`` at this head still holds, or None."""
    if state.settings.retry_rejected:
        return None
    for same in same_edit(ref):
        earlier = memory.rejected_here(str(state.target.repo_root), state.target.subdir, state.head,
                                       same.diagnosis, same.remedy)
        if earlier is None or earlier.run_id == state.run_id:
            continue
        as_ = "" if same == ref else f" as {same}"
        return (f"rejected{as_} at {earlier.stage} by run {earlier.run_id} on this same commit ({earlier.reason}); "
                "--retry-rejected tries it again")
    return None


def _after_accepted_change(state: LoopState, diagnoses: list[Diagnosis]) -> tuple[str | None, list[Skip]]:
    """Say whether the last accepted change moved the dominant bottleneck; if not, hold back more of its kind.

    The diagnoses still in the state are those of the head before the change (``needs_diagnosis``
    is set), so their top one, with the shares it kept, is the "before".
    """
    if not state.history or state.history[-1].verdict.verdict != "accepted" or not state.diagnoses:
        return None, []
    before_top, after_top = state.diagnoses[0], (diagnoses[0] if diagnoses else None)
    text = compare(before_top.shares, state.profile.metrics(), before_top, after_top)
    if bottleneck_moved(before_top, after_top):
        return text, []
    accepted = state.history[-1].proposal
    reason = (f"the accepted {accepted.diagnosis}/{accepted.remedy} did not move the dominant bottleneck "
              f"({text}); not trying more of the same")
    same_kind = [RemedyRef(diagnosis=d.entry_id, remedy=r.id)
                 for d in diagnoses if d.entry_id == accepted.diagnosis for r in d.remedies]
    return text, [Skip(head=state.head, remedy=ref, reason=reason) for ref in same_kind]


def diagnose(state: LoopState) -> dict:
    """Rank diagnoses by expected gain; choose the first untried remedy the loop can produce."""
    ctx = RunContext(state, "diagnose")
    diagnoses = state.diagnoses
    skipped: list[Skip] = []
    if state.needs_diagnosis:
        diagnoses = match_entries(state.profile.metrics())
        change, skipped = _after_accepted_change(state, diagnoses)
        extra = {"bottleneck_change": change} if change else {}
        ctx.record(Diagnosed(head=state.head, ranked=diagnoses, **extra))
        if change:
            say(change)
        for skip in skipped:
            say(f"{skip.remedy}: skipped, {skip.reason}")
            ctx.record(RemedySkipped(diagnosis=skip.remedy.diagnosis, remedy=skip.remedy.remedy, reason=skip.reason))
        for d in diagnoses:
            say(f"diagnosis {d.entry_id} (up to {d.expected_speedup:.2f}x, {d.confidence} confidence): {d.summary}")
        if not diagnoses:
            say("no known bottleneck matches this profile")
    updates: dict = {"diagnoses": diagnoses, "needs_diagnosis": False}
    # Checked after ranking, so the summary's bottleneck is the final profile's.
    if len(state.history) >= state.settings.max_iters:
        ctx.record(Stopped(reason="max_iterations", iterations=len(state.history)))
        return updates | {"stop_reason": "max_iterations", "next_remedy": None,
                          "stop_detail": f"reached --max-iters {state.settings.max_iters}"}
    if state.settings.profile_only:
        return updates | {"stop_reason": "profile_only", "next_remedy": None, "stop_detail": "profile only"}
    memory = Memory()
    for d in diagnoses:
        track = memory.acceptance(d.entry_id)
        # Within an entry, remedies that worked elsewhere go first; the entry's own order breaks ties.
        for remedy in sorted(d.remedies, key=lambda r: -track.get(r.id, 0.5)):
            ref = RemedyRef(diagnosis=d.entry_id, remedy=remedy.id)
            if state.was_tried(ref) or any(s.remedy == ref for s in skipped):
                continue
            twin = next((t for t in same_edit(ref)[1:] if state.was_tried(t)), None)
            if twin is not None:
                reason = f"the same edit as {twin}, already tried at this head"
                say(f"{ref}: skipped, {reason}")
                ctx.record(RemedySkipped(diagnosis=ref.diagnosis, remedy=ref.remedy, reason=reason))
                skipped.append(Skip(head=state.head, remedy=ref, reason=reason))
                continue
            if remedy.kind == "llm" and not state.settings.llm_ready:
                skipped.append(Skip(head=state.head, remedy=ref,
                                    reason="needs an LLM (--llm-base-url/--llm-model)"))
                continue
            remembered = _remembered_rejection(state, memory, ref)
            if remembered:
                say(f"{ref}: skipped, {remembered}")
                ctx.record(RemedySkipped(diagnosis=ref.diagnosis, remedy=ref.remedy, reason=remembered))
                skipped.append(Skip(head=state.head, remedy=ref, reason=remembered))
                continue
            ctx.record(RemedyChosen(diagnosis=d.entry_id, remedy=remedy.id, expected_speedup=d.expected_speedup))
            fault_point("after_diagnose")
            return updates | {"next_remedy": ref, "skipped": skipped}
    if diagnoses:
        top = diagnoses[0]
        detail = f"top diagnosis {top.entry_id}: {top.summary}; no untried remedy the loop can apply"
        if any(s.needs_llm for s in state.skipped + skipped):
            detail += " offline (LLM remedies need --llm-base-url/--llm-model)"
    else:
        detail = "no knowledge-base entry matches the profile"
    all_skipped = [s.model_dump(mode="json") for s in state.skipped + skipped]
    ctx.record(Stopped(reason="nothing_actionable", detail=detail, skipped=all_skipped))
    return updates | {"next_remedy": None, "skipped": skipped, "stop_reason": "nothing_actionable",
                      "stop_detail": detail}
