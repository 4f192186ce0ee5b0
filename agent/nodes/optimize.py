"""optimize: resolve the chosen remedy once, ask its proposer for one change, make it a patch with its rule."""
from __future__ import annotations

import traceback
from pathlib import Path, PurePosixPath

from perfloop.agent.context import RunContext
from perfloop.agent.events import ProposalMade, RemedyNotApplicable
from perfloop.agent.faults import fault_point
from perfloop.agent.nodes.verify import CACHE_WHY, epoch_length
from perfloop.agent.proposers import proposer_for
from perfloop.agent.rule import decide_rule, resolve_remedy
from perfloop.agent.state import Attempt, LoopState, Proposal, Skip, ends_before_it_serves
from perfloop.agent.ui.console import say
from perfloop.tools.change.codemods import NotApplicable
from perfloop.tools.change.patching import touched_paths


def optimize(state: LoopState) -> dict:
    """Produce a Proposal, or record why the remedy yields no change and go back to schedule another.

    With ``also_remedies`` (remedies_at_once), each of the other remedies chosen for this head is
    asked too; the first that yields a change is the proposal, the others ride along as its
    alternatives, each verified in its own block.
    """
    ctx = RunContext(state, "optimize")
    refs = [state.next_remedy, *state.also_remedies]
    tried = [Attempt(head=state.head, remedy=ref) for ref in refs]
    skipped: list[Skip] = []
    made: list[Proposal] = []
    for ref in refs:
        proposal = _propose(ctx, state, ref, f"p{len(state.history) + 1}-{len(state.tried) + len(made) + 1}", skipped)
        if proposal is not None:
            made.append(proposal)
    if not made:
        return {"tried": tried, "proposal": None, "runs_used": ctx.runs_used, "skipped": skipped}
    proposal = made[0]
    alternatives = [*proposal.alternatives, *(p for other in made[1:] for p in (other, *other.alternatives))]
    proposal = proposal.model_copy(update={"alternatives": alternatives})
    ctx.record(ProposalMade(proposal=proposal))
    say(f"proposal {proposal.id} ({proposal.source}): {proposal.change}")
    for other in proposal.alternatives:
        say(f"  alternative {other.id} ({other.diagnosis}/{other.remedy}), verified beside it in its own block: "
            f"{other.change}")
    for note in proposal.notes:
        say(f"  note: {note}")
    return {"tried": tried, "proposal": proposal, "runs_used": ctx.runs_used, "skipped": skipped}


def _propose(ctx: RunContext, state: LoopState, ref, proposal_id: str, skipped: list[Skip]) -> Proposal | None:
    """Ask ``ref``'s proposer for its change as a Proposal (its other LLM candidates as alternatives where they
    are verified side by side); None, recorded, when the remedy yields no change here."""
    diagnosis, remedy = resolve_remedy(state, ref)
    proposer = proposer_for(remedy)
    try:
        try:
            proposed = proposer.propose(ctx, diagnosis, remedy)
        except NotApplicable:
            raise
        except Exception as error:
            if proposer.source != "codemod":
                raise
            # A deterministic rewrite that fails on code it was not written for is that remedy's failure, not the
            # run's: said with where it failed, and the next remedy is tried.
            where = traceback.extract_tb(error.__traceback__)[-1]
            raise NotApplicable(f"the codemod {remedy.codemod} failed on this code ({type(error).__name__}: "
                                f"{error}, at {Path(where.filename).name}:{where.lineno}); a bug of perfloop's, "
                                "worth reporting with the audit log") from error
        outside = [path for path in proposed.files if outside_target(path)]
        if outside:
            raise NotApplicable(f"the change would edit {outside}, outside the target's folder (an installed "
                                "package's file, say); only the target's own files may change")
        patch = ctx.workspace.diff_files(proposed.files) if proposed.files else ""
        twin = next((it for it in state.history if patch and it.proposal.patch == patch
                     and it.proposal.base_head == ctx.workspace.head()), None)
        if twin is not None:
            raise NotApplicable(f"the same patch as {twin.proposal.id} ({twin.proposal.diagnosis}/"
                                f"{twin.proposal.remedy}), already {twin.verdict.verdict} at this head")
    except NotApplicable as why:
        say(f"{ref.remedy}: not applicable ({why})")
        ctx.record(RemedyNotApplicable(diagnosis=ref.diagnosis, remedy=ref.remedy, reason=str(why)))
        skipped.append(Skip(head=state.head, remedy=ref, reason=f"not applicable: {why}"))
        return None
    fault_point("mid_optimize")
    if not patch.strip():
        ctx.record(RemedyNotApplicable(diagnosis=ref.diagnosis, remedy=ref.remedy,
                                       reason="the change produced an empty diff"))
        return None
    proposal = _proposal(ctx, proposal_id, ref, diagnosis, remedy, proposed, patch)
    never = never_serves(state, proposal)
    if never is not None:
        say(f"{ref.remedy}: not applicable ({never})")
        ctx.record(RemedyNotApplicable(diagnosis=ref.diagnosis, remedy=ref.remedy, reason=never))
        skipped.append(Skip(head=state.head, remedy=ref, reason=f"not applicable: {never}"))
        return None
    if parallel_candidates(state.settings):
        diffs = [(other, ctx.workspace.diff_files(other.files)) for other in proposed.alternatives]
        alternatives = [_proposal(ctx, f"{proposal_id}c{n}", ref, diagnosis, remedy, other, diff)
                        for n, (other, diff) in enumerate(((o, d) for o, d in diffs if d.strip()), 2)]
        proposal = proposal.model_copy(update={"alternatives": alternatives})
    return proposal


def never_serves(state: LoopState, proposal: Proposal) -> str | None:
    """Why a change that pays off from the second epoch (a cache that fills in the first) cannot pay in this run:
    the whole run ends before a second epoch's timed steps, as verify would find after running it (blind13 a4 and
    b1 spent a verification each on a cache that "never serves"), or no epoch's length is known and an earlier such
    change was timed in the first epoch for it (`second_epoch_unseen`: blind24 s3 spent three on memos so); None
    where it may, or where the run's or the epoch's length is unknown and nothing was timed yet."""
    if proposal.rule is None or proposal.rule.enforced.gain_from_epoch < 2:
        return None
    epoch, steps = epoch_length(state, []), state.run_steps
    if epoch is None and state.second_epoch_unseen:
        return (f"{CACHE_WHY}; an earlier such change was timed in the first epoch, where it does not serve yet (the "
                "loader has no length and no run reached a second epoch), and this one would be too: no pipeline "
                "was run for it")
    if epoch is None or not ends_before_it_serves(steps, epoch, state.target.warmup_steps):
        return None
    return (f"{CACHE_WHY}; the whole run is {steps} steps and one epoch {epoch}: it never serves, so no pipeline "
            "was run for it")


def outside_target(path: str) -> bool:
    """Whether a proposed file (relative to the target folder) is not inside it: absolute, or climbing out."""
    pure = PurePosixPath(path.replace("\\", "/"))
    return pure.is_absolute() or ".." in pure.parts or not pure.parts


def parallel_candidates(settings) -> bool:
    """Whether a remedy's other surviving candidates are verified beside the best one: only where blocks run
    in parallel (--executor ray) and nobody approves patches one by one (--auto-approve)."""
    return settings.executor == "ray" and settings.auto_approve


def _proposal(ctx: RunContext, proposal_id: str, ref, diagnosis, remedy, proposed, patch: str) -> Proposal:
    """One proposed change as a Proposal at the branch head, with its declared tolerance and its rule."""
    declared: dict = {}
    if proposed.tolerance is not None:
        declared = {"atol": proposed.tolerance.atol, "rtol": proposed.tolerance.rtol,
                    "tolerance_reason": proposed.tolerance.reason,
                    "data_rule": "within_tolerance", "loss_rule": "within_tolerance"}
    proposal = Proposal(
        id=proposal_id, diagnosis=ref.diagnosis, remedy=ref.remedy,
        source=proposed.source, change=proposed.change, patch=patch, touched=touched_paths(patch),
        expected_speedup=diagnosis.expected_speedup, evidence=diagnosis.evidence,
        data_rule=remedy.verification.data, loss_rule=remedy.verification.loss,
        caveats=list(remedy.verification.caveats), notes=proposed.notes, setting=proposed.setting,
        one_off_cost_s=proposed.one_off_cost_s, gain_from_epoch=proposed.gain_from_epoch,
        base_head=ctx.workspace.head()).model_copy(update=declared)
    return proposal.model_copy(update={"rule": decide_rule(remedy.verification, proposal)})
