"""diagnose: match the profile against the knowledge base and pick the next remedy to try."""
from __future__ import annotations

from agent.console import say
from agent.context import RunContext
from agent.events import Diagnosed, RemedyChosen, Stopped
from agent.state import LoopState, RemedyRef, Skip
from knowledge_base import diagnose as match_entries


def diagnose(state: LoopState) -> dict:
    """Rank diagnoses by expected gain; choose the first untried remedy the loop can produce."""
    ctx = RunContext(state, "diagnose")
    if len(state.history) >= state.settings.max_iters:
        ctx.record(Stopped(reason="max_iterations", iterations=len(state.history)))
        return {"stop_reason": "max_iterations", "next_remedy": None,
                "stop_detail": f"reached --max-iters {state.settings.max_iters}"}
    diagnoses = state.diagnoses
    if state.needs_diagnosis:
        diagnoses = match_entries(state.profile.metrics())
        ctx.record(Diagnosed(head=state.head, ranked=diagnoses))
        for d in diagnoses:
            say(f"diagnosis {d.entry_id} (up to {d.expected_speedup:.2f}x): {d.summary}")
        if not diagnoses:
            say("no known bottleneck matches this profile")
    updates: dict = {"diagnoses": diagnoses, "needs_diagnosis": False}
    if state.settings.profile_only:
        return updates | {"stop_reason": "profile_only", "next_remedy": None, "stop_detail": "profile only"}
    skipped: list[Skip] = []
    for d in diagnoses:
        for remedy in d.remedies:
            ref = RemedyRef(diagnosis=d.entry_id, remedy=remedy.id)
            if state.was_tried(ref) or any(s.remedy == ref for s in skipped):
                continue
            if remedy.kind == "llm" and not state.settings.llm_ready:
                skipped.append(Skip(head=state.head, remedy=ref,
                                    reason="needs an LLM (--llm-base-url/--llm-model)"))
                continue
            ctx.record(RemedyChosen(diagnosis=d.entry_id, remedy=remedy.id, expected_speedup=d.expected_speedup))
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
