"""approve: ask the user (a LangGraph interrupt) or auto-approve; record who decided, why, and any edit."""
from __future__ import annotations

from langgraph.types import interrupt

from agent.console import say
from agent.context import RunContext
from agent.events import Approval, ProposalEdited
from agent.faults import fault_point
from agent.memory import remember
from agent.state import DECISIONS, Iteration, LoopState, Verdict
from tools.patching import touched_paths


def approval_request(state: LoopState) -> dict:
    """Return what the user needs to decide: the diff, the evidence, the gain, how it is verified."""
    p = state.proposal
    diagnosis = next((d for d in state.diagnoses if d.entry_id == p.diagnosis), None)
    return {
        "proposal_id": p.id, "change": p.change, "source": p.source, "diff": p.patch,
        "diagnosis": p.diagnosis, "why": diagnosis.summary if diagnosis else "",
        "evidence": p.evidence, "expected_speedup": p.expected_speedup,
        "verification": (f"applied in an isolated worktree; batch data must be {p.data_rule.replace('_', ' ')}, "
                         f"loss {p.loss_rule.replace('_', ' ')}; {state.target.ab_runs} interleaved A/B runs "
                         f"must beat the noise floor ({state.profile.noise_pct:.1f}%) and "
                         f"{state.target.min_gain_pct:.0f}%"),
        "caveats": p.caveats + ([f"NOT EQUIVALENT: {rule.equivalence}; approve only if you accept that"]
                                if (rule := _remedy_verification(state)) is not None and rule.needs_explicit_approval
                                else []),
    }


def _remedy_verification(state: LoopState):
    p = state.proposal
    return next((r.verification for d in state.diagnoses if d.entry_id == p.diagnosis
                 for r in d.remedies if r.id == p.remedy), None)


def _needs_a_person(state: LoopState) -> bool:
    """A changes-data remedy is never auto-approved: a person must accept that the data change."""
    rule = _remedy_verification(state)
    return bool(rule is not None and rule.needs_explicit_approval)


def approve(state: LoopState) -> dict:
    """Get a decision; side effects come after interrupt() because the node re-runs on resume."""
    answer = {"decision": "approve", "by": "auto-approve"}
    if not state.settings.auto_approve or _needs_a_person(state):
        answer = interrupt(approval_request(state))
        # The driver only resumes with an answer it read; anything else is a bug, not user input.
        assert isinstance(answer, dict) and answer.get("decision") in DECISIONS, f"bad approval answer {answer!r}"
    decision, by, reason = answer["decision"], answer.get("by", "user"), answer.get("reason", "")
    ctx = RunContext(state, "approve")
    ctx.record(Approval(proposal=state.proposal.id, decision=decision, by=by, reason=reason))
    fault_point("at_approval")
    updates: dict = {"decision": decision, "decided_by": by}
    if decision == "approve":
        edited = answer.get("edited_patch")
        if edited:
            original = state.proposal
            ctx.record(ProposalEdited(proposal=original.id, original_patch=original.patch, edited_patch=edited))
            updates["proposal"] = original.model_copy(update={
                "patch": edited, "touched": touched_paths(edited), "change": f"{original.change} (edited by {by})"})
            say(f"proposal {original.id}: verifying your edited patch")
        return updates
    why = f": {reason}" if reason else ""
    say(f"proposal {state.proposal.id} {'declined' if decision == 'reject' else 'declined; quitting'} ({by}{why})")
    verdict = Verdict(proposal_id=state.proposal.id, verdict="declined", stage="approval",
                      reason=f"{'rejected' if decision == 'reject' else 'quit'} by {by}{why}")
    remember(state, state.proposal, verdict)
    updates["history"] = [Iteration(proposal=state.proposal, verdict=verdict)]
    updates["proposal"] = None
    if decision == "quit":
        updates.update(stop_reason="user_quit", stop_detail=f"the user quit at proposal {state.proposal.id}")
    return updates
