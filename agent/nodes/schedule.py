"""schedule: pick the next remedy to try at this head, or stop the run (budget spent, nothing left)."""
from __future__ import annotations

from functools import lru_cache

from perfloop.agent.context import RunContext
from perfloop.agent.events import RemedyChosen, RemedySkipped, Stopped
from perfloop.agent.faults import fault_point
from perfloop.agent.memory import Memory
from perfloop.agent.rule import GENERAL_REMEDY, resolve_remedy
from perfloop.agent.state import LoopState, RemedyRef, Skip
from perfloop.agent.ui.console import say
from perfloop.knowledge_base import Diagnosis, Remedy, load_entries


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


def _in_order(state: LoopState, diagnosis: Diagnosis, memory: Memory) -> list[tuple[RemedyRef, str]]:
    """The diagnosis's remedies as (ref, kind), in the order --proposer asks for.

    Within an entry, remedies that worked elsewhere go first and the entry's own order breaks
    ties. With an LLM, every diagnosis also gets the general "remove this bottleneck" remedy,
    asked before the entry's own LLM remedies (which it carries as hints): after the offline
    codemods and knobs by default, before them with --proposer llm.
    """
    track = memory.acceptance(diagnosis.entry_id)
    remedies: list[Remedy] = sorted(diagnosis.remedies, key=lambda r: -track.get(r.id, 0.5))
    ordered = [(RemedyRef(diagnosis=diagnosis.entry_id, remedy=r.id), r.kind) for r in remedies]
    if state.settings.proposer == "codemod":
        return ordered
    general = [(RemedyRef(diagnosis=diagnosis.entry_id, remedy=GENERAL_REMEDY), "llm")]
    llm = general + [item for item in ordered if item[1] == "llm"]
    offline = [item for item in ordered if item[1] != "llm"]
    return llm + offline if state.settings.proposer == "llm" else offline + llm


def _why_not(state: LoopState, memory: Memory, ref: RemedyRef, kind: str) -> str | None:
    """Say why ``ref`` is passed over at this head, or None when it can be tried."""
    twin = next((t for t in same_edit(ref)[1:] if state.was_tried(t)), None)
    if twin is not None:
        return f"the same edit as {twin}, already tried at this head"
    if kind == "llm" and not state.settings.llm_ready:
        if state.settings.proposer == "codemod":
            return "needs an LLM, and --proposer codemod asks none"
        return "needs an LLM (--llm-base-url/--llm-model)"
    if kind == "llm":
        refused = next((s for s in state.skipped if "refused the credentials" in s.reason), None)
        if refused is not None:
            return f"the LLM endpoint refused the credentials earlier in this run ({refused.remedy})"
    return _remembered_rejection(state, memory, ref)


def schedule(state: LoopState) -> dict:
    """Choose the first untried remedy the loop can produce, by expected gain; else stop with a typed reason.

    With ``remedies_at_once`` above 1 (--executor ray --auto-approve) the next ones in the same order
    come along (``also_remedies``): optimize proposes each, verify judges them side by side, one block
    each, and commits the fastest accepted. None of them waits for a person, and no two make the same edit.
    """
    ctx = RunContext(state, "schedule")
    # Checked after ranking, so the summary's bottleneck is the final profile's.
    if len(state.history) >= state.settings.max_iters:
        ctx.record(Stopped(reason="max_iterations", iterations=len(state.history)))
        return {"stop_reason": "max_iterations", "next_remedy": None, "also_remedies": [],
                "stop_detail": f"reached --max-iters {state.settings.max_iters}"}
    if state.settings.profile_only:
        return {"stop_reason": "profile_only", "next_remedy": None, "also_remedies": [], "stop_detail": "profile only"}
    skipped: list[Skip] = []
    chosen: dict[RemedyRef, float] = {}  # remedy -> its diagnosis's expected speed-up, in the order chosen
    wanted = min(state.settings.remedies_at_once, state.settings.max_iters - len(state.history))
    for d, ref in _candidates(ctx, state, Memory(), skipped):
        if chosen and (_needs_person(state, ref) or any(twin in chosen for twin in same_edit(ref))):
            continue
        chosen[ref] = d.expected_speedup
        if len(chosen) >= wanted:
            break
    if not chosen:
        retry = next(codemod_retries(state), None)
        if retry is None:
            return _nothing_actionable(ctx, state, skipped)
        d, ref = retry
        say(f"{ref}: tried again, leaving out what verification rejected")
        chosen[ref] = d.expected_speedup
    for ref, expected in chosen.items():
        ctx.record(RemedyChosen(diagnosis=ref.diagnosis, remedy=ref.remedy, expected_speedup=expected))
    first, *also = chosen
    if also:
        say(f"{len(chosen)} remedies for this head, verified side by side: " + ", ".join(map(str, chosen)))
    fault_point("after_diagnose")
    return {"next_remedy": first, "also_remedies": also, "skipped": skipped}


def _candidates(ctx: RunContext, state: LoopState, memory: Memory, skipped: list[Skip]):
    """Yield (diagnosis, remedy) the loop can try at this head, best first; record each one passed over and why.

    Unattended, a remedy that always waits for a person (it changes the data) comes after every one
    that --auto-approve can accept, across all diagnoses: the run never pauses while those are untried.
    """
    passes = (False, True) if state.settings.auto_approve else (None,)
    for needs_person in passes:
        for d in state.diagnoses:
            for ref, kind in _in_order(state, d, memory):
                if needs_person is not None and _needs_person(state, ref) != needs_person:
                    continue
                if (state.was_tried(ref) and not feedback_retry(state, ref)) or any(s.remedy == ref for s in skipped):
                    continue
                reason = _why_not(state, memory, ref, kind)
                if reason is not None:
                    if not reason.startswith("needs an LLM"):
                        say(f"{ref}: skipped, {reason}")
                        ctx.record(RemedySkipped(diagnosis=ref.diagnosis, remedy=ref.remedy, reason=reason))
                    skipped.append(Skip(head=state.head, remedy=ref, reason=reason))
                    continue
                yield d, ref


FEEDBACK_TRIES = 1
"""More tries an LLM remedy gets at one head after verification rejected its change, with the verdict fed back."""


def feedback_retry(state: LoopState, ref: RemedyRef) -> bool:
    """Whether ``ref`` gets one more try: its LLM change at this head was measured and rejected, and the
    model has not yet been shown why (the proposer puts the verdict and its numbers in the next prompt)."""
    return state.settings.llm_ready and _last_rejected(state, ref, "llm", FEEDBACK_TRIES) is not None


def _last_rejected(state: LoopState, ref: RemedyRef, source: str, limit: int):
    """The last proposal ``ref`` made at this head, where it came from ``source``, verification (not the user)
    rejected it, ``ref`` was tried at most ``limit`` times here and was never passed over: else None."""
    tries = sum(1 for attempt in state.tried if attempt.head == state.head and attempt.remedy == ref)
    mine = [item for item in state.history if item.proposal.base_head == state.head
            and (item.proposal.diagnosis, item.proposal.remedy) == (ref.diagnosis, ref.remedy)]
    if (0 < tries <= limit and mine and mine[-1].proposal.source == source
            and mine[-1].verdict.verdict == "rejected" and mine[-1].verdict.stage != "approval"
            and not any(s.head == state.head and s.remedy == ref for s in state.skipped)):
        return mine[-1].proposal
    return None


CODEMOD_TRIES = 2
"""More tries a codemod that rewrites one function of several (a memo, the training loop's per-step work) gets at
one head after verification rejected its change: each leaves out the functions rejected before."""
SKIPPING_CODEMODS = ("memoize_pure_helper", "vectorize_hot_function")


def codemod_retries(state: LoopState):
    """Yield (diagnosis, remedy), best first, whose codemod rewrote one function at this head and was rejected by
    verification, and which may try its next function (``params["skip"]``, agent/proposers/codemod.py): taken
    only once no untried remedy is left (blind13 b6: the training loop's rewrite of a comprehension it ran once
    was rejected, and the metric helper that held the time was never tried)."""
    for d in state.diagnoses:
        for remedy in d.remedies:
            if remedy.kind != "codemod" or remedy.codemod not in SKIPPING_CODEMODS or (
                    remedy.codemod == "vectorize_hot_function" and remedy.params.get("target") != "main"):
                continue
            ref = RemedyRef(diagnosis=d.entry_id, remedy=remedy.id)
            last = _last_rejected(state, ref, "codemod", CODEMOD_TRIES)
            if last is not None and last.setting is not None and last.setting.function:
                yield d, ref


def _needs_person(state: LoopState, ref: RemedyRef) -> bool:
    """Whether ``ref``'s remedy waits for a person under --auto-approve (it changes the data, or lowers the
    precision without --allow-precision)."""
    _, remedy = resolve_remedy(state, ref)
    return remedy.verification.needs_person(state.settings.allow_precision)


def _nothing_actionable(ctx: RunContext, state: LoopState, skipped: list[Skip]) -> dict:
    if state.diagnoses:
        top = state.diagnoses[0]
        detail = f"top diagnosis {top.entry_id}: {top.summary}; no untried remedy the loop can apply"
        if any(s.needs_llm for s in state.skipped + skipped) and not state.settings.llm_ready:
            detail += (" (LLM remedies were not asked: --proposer codemod)" if state.settings.proposer == "codemod"
                       else " offline (LLM remedies need --llm-base-url/--llm-model)")
    else:
        detail = "no knowledge-base entry matches the profile"
    all_skipped = [s.model_dump(mode="json") for s in state.skipped + skipped]
    ctx.record(Stopped(reason="nothing_actionable", detail=detail, skipped=all_skipped))
    return {"next_remedy": None, "also_remedies": [], "skipped": skipped, "stop_reason": "nothing_actionable",
            "stop_detail": detail}
