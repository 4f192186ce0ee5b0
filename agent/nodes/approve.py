"""approve: ask the user (a LangGraph interrupt) or auto-approve; record who decided."""
from __future__ import annotations

from langgraph.types import interrupt

from agent.console import say
from agent.context import RunContext
from agent.events import Approval
from agent.state import DECISIONS, Iteration, LoopState, Verdict


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
        "caveats": p.caveats,
    }


def approve(state: LoopState) -> dict:
    """Get a decision; side effects come after interrupt() because the node re-runs on resume."""
    if state.settings.auto_approve:
        decision, by = "approve", "auto-approve"
    else:
        answer = interrupt(approval_request(state))
        decision = answer.get("decision") if isinstance(answer, dict) else answer
        by = answer.get("by", "user") if isinstance(answer, dict) else "user"
        # The driver only resumes with an answer it read; anything else is a bug, not user input.
        assert decision in DECISIONS, f"approval answer must be one of {DECISIONS}, got {decision!r}"
    RunContext(state, "approve").record(Approval(proposal=state.proposal.id, decision=decision, by=by))
    updates: dict = {"decision": decision, "decided_by": by}
    if decision == "approve":
        return updates
    say(f"proposal {state.proposal.id} {'declined' if decision == 'reject' else 'declined; quitting'} ({by})")
    verdict = Verdict(proposal_id=state.proposal.id, verdict="declined", stage="approval",
                      reason=f"{'rejected' if decision == 'reject' else 'quit'} by {by}")
    updates["history"] = [Iteration(proposal=state.proposal, verdict=verdict)]
    updates["proposal"] = None
    if decision == "quit":
        updates.update(stop_reason="user_quit", stop_detail=f"the user quit at proposal {state.proposal.id}")
    return updates
