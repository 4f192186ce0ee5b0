"""diagnose: match the profile against the knowledge base and pick the next remedy to try."""
from __future__ import annotations

from agent.console import say
from agent.runtime import audit
from agent.state import LoopState
from knowledge_base import diagnose as match_entries


def remedy_key(head: str, diagnosis: str, remedy: str) -> str:
    """Identify one remedy tried at one head."""
    return f"{head}:{diagnosis}:{remedy}"


def diagnose(state: LoopState) -> dict:
    """Rank diagnoses by expected gain; choose the first untried remedy the loop can produce."""
    log = audit(state)
    if len(state.history) >= state.settings.max_iters:
        log.append("stop", "diagnose", reason="max_iterations", iterations=len(state.history))
        return {"stop_reason": "max_iterations", "next_remedy": None,
                "stop_detail": f"reached --max-iters {state.settings.max_iters}"}
    fresh = not state.diagnoses
    diagnoses = state.diagnoses or match_entries(state.profile.metrics())
    if fresh:
        log.append("diagnoses", "diagnose", head=state.head,
                   ranked=[d.model_dump(mode="json") for d in diagnoses])
        for d in diagnoses:
            say(f"diagnosis {d.entry_id} (up to {d.expected_speedup:.2f}x): {d.summary}")
        if not diagnoses:
            say("no known bottleneck matches this profile")
    llm_ready = bool(state.settings.llm_base_url and state.settings.llm_model)
    skipped = list(state.skipped)
    for d in diagnoses:
        for remedy in d.remedies:
            key = remedy_key(state.head, d.entry_id, remedy.id)
            if key in state.tried or any(s["key"] == key for s in skipped):
                continue
            if remedy.kind == "llm" and not llm_ready:
                skipped.append({"key": key, "reason": "needs an LLM (--llm-base-url/--llm-model)"})
                continue
            log.append("remedy_chosen", "diagnose", diagnosis=d.entry_id, remedy=remedy.id,
                       expected_speedup=d.expected_speedup)
            return {"diagnoses": diagnoses, "next_remedy": f"{d.entry_id}:{remedy.id}", "skipped": skipped}
    if diagnoses:
        top = diagnoses[0]
        detail = f"top diagnosis {top.entry_id}: {top.summary}; no untried remedy the loop can apply"
        if any(s["reason"].startswith("needs an LLM") for s in skipped):
            detail += " offline (LLM remedies need --llm-base-url/--llm-model)"
    else:
        detail = "no knowledge-base entry matches the profile"
    log.append("stop", "diagnose", reason="nothing_actionable", detail=detail, skipped=skipped)
    return {"diagnoses": diagnoses, "next_remedy": None, "skipped": skipped,
            "stop_reason": "nothing_actionable", "stop_detail": detail}
