"""approve: ask the user (a LangGraph interrupt) or auto-approve; record who decided, why, and any edit."""
from __future__ import annotations

from langgraph.types import interrupt

from perfloop.agent.context import RunContext
from perfloop.agent.events import Approval, ProposalEdited
from perfloop.agent.faults import fault_point
from perfloop.agent.memory import remember
from perfloop.agent.rule import rule_of
from perfloop.agent.state import (
    ApprovalAnswer,
    ApprovalRequest,
    EnforcedPolicy,
    Iteration,
    LoopState,
    Proposal,
    Verdict,
)
from perfloop.agent.ui.console import say
from perfloop.tools.change.patching import touched_paths


def approval_request(state: LoopState) -> ApprovalRequest:
    """Return what the user needs to decide: the diff, the evidence, the gain, how it is verified."""
    p = state.proposal
    rule = rule_of(state, p)
    diagnosis = next((d for d in state.diagnoses if d.entry_id == p.diagnosis), None)
    caveats = list(p.caveats)
    if rule.needs_explicit_approval:
        caveats.append(f"NOT EQUIVALENT: {rule.enforced.equivalence}; approve only if you accept that")
    elif rule.enforced.tolerance_class == "precision":
        caveats.append(f"LOWER PRECISION: {rule.enforced.equivalence}; --auto-approve accepts this class only "
                       "with --allow-precision")
    return ApprovalRequest(
        proposal_id=p.id, change=p.change, source=p.source, diff=p.patch, diagnosis=p.diagnosis,
        why=diagnosis.summary if diagnosis else "", evidence=p.evidence, expected_speedup=p.expected_speedup,
        verification=policy_lines(rule.policy, state), policy=rule.policy, caveats=caveats, notes=p.notes,
        where=_where(p))


def _where(p: Proposal) -> str:
    setting = p.setting
    if setting is None or not setting.location:
        return ""
    return f"{setting.location} ({setting.knob}: {setting.old_value!r} → {setting.new_value!r})"


def policy_lines(policy: EnforcedPolicy, state: LoopState) -> list[str]:
    """Say the verification policy in plain lines, with the tolerances it enforces."""
    data, loss, side = policy.data, policy.loss, policy.side_outputs
    if data.rule == "identical":
        data_line = "batch data: bit-identical to the baseline's, row for row"
    else:
        data_line = f"batch data: within atol {data.atol:g} rtol {data.rtol:g} of the baseline's ({data.source})"
    slack = f"rtol {loss.rtol:g} atol {loss.atol:g}"
    if loss.rule == "identical":
        loss_line = (f"loss: bit-identical to the baseline's at every step (when the baseline's own runs differ, "
                     f"inside their spread widened by {slack})")
    else:
        loss_line = (f"loss: within {slack} of the baseline's at every step"
                     + (" (the default loss tolerance)" if loss.default else ""))
        if loss.mean_rtol is not None:
            loss_line += (f"; the precision rule: the running mean of the first k losses within atol {loss.atol:g} + "
                          f"max({loss.mean_rtol:g}, {loss.rtol:g}/sqrt(k)) of the baseline's, at every step")
    numbers = f"printed numbers within rtol {side.rtol:g}" if side.rtol else "printed numbers to the digit"
    side_line = (f"side outputs: {', '.join(side.compared[:-1])} and {side.compared[-1]} compared with the "
                 f"baseline's ({numbers})")
    if side.may_change:
        side_line += "; may change: " + ", ".join(side.may_change)
    lines = [data_line, loss_line, side_line,
             f"speed: in an isolated worktree, {state.target.ab_runs} interleaved A/B runs must beat the noise floor "
             f"({state.profile.noise_pct:.1f}%) and {state.target.min_gain_pct:.0f}%"]
    if not policy.enforced:
        lines.append("not equivalent by design: the data, loss and side-output checks are reported, not enforced")
    return lines


def approve(state: LoopState) -> dict:
    """Get a decision; side effects come after interrupt() because the node re-runs on resume."""
    answer = ApprovalAnswer(decision="approve", by="auto-approve")
    if not state.settings.auto_approve or rule_of(state, state.proposal).needs_person(state.settings.allow_precision):
        # The driver only resumes with an answer it read; one that does not validate is a bug, not user input.
        answer = ApprovalAnswer.model_validate(interrupt(approval_request(state).model_dump(mode="json")))
    decision, by, reason = answer.decision, answer.by, answer.reason
    ctx = RunContext(state, "approve")
    ctx.record(Approval(proposal=state.proposal.id, decision=decision, by=by, reason=reason))
    fault_point("at_approval")
    updates: dict = {"decision": decision, "decided_by": by}
    if decision == "approve":
        edited = answer.edited_patch
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
