"""verify: the cascade, cheapest first: patch scope, smoke run, data, loss, interleaved speed; then commit."""
from __future__ import annotations

from agent.console import say
from agent.context import RunContext
from agent.events import NodeEntered, VerdictReached, VerifyStage, parse_record
from agent.faults import fault_point
from agent.memory import remember
from agent.state import Iteration, LoopState, Proposal, Verdict
from sandbox.workspace import PROPOSAL_TRAILER, PatchError
from tools.datacheck import CheckResult, compare_data, compare_losses
from tools.patching import adds_symlink, forbidden_paths
from tools.profiler import PipelineError
from tools.stats import RunSteps, SpeedCheck, check_speed

DATA_OK = {"identical": ("identical",), "within_tolerance": ("identical", "within_tolerance")}
LOSS_OK = {"identical": ("identical", "not_comparable"),
           "within_tolerance": ("identical", "within_tolerance", "not_comparable")}


class _Rejected(Exception):
    """A verification stage failed; carries the stage and the verdict's fields."""

    def __init__(self, stage: str, reason: str, **fields) -> None:
        super().__init__(reason)
        self.stage, self.reason, self.fields = stage, reason, fields


def _undecided(speed: SpeedCheck) -> bool:
    """More runs could still change the verdict: the interval reaches past the required gain."""
    return speed.ci[1] > 1.0 + speed.threshold_pct / 100.0


def _check_scope(state: LoopState, proposal: Proposal) -> None:
    bad = forbidden_paths(proposal.touched, state.target.subdir, state.target.editable)
    if adds_symlink(proposal.patch):
        raise _Rejected("patch", "the patch creates a symbolic link; perfloop only accepts plain file edits")
    if bad:
        raise _Rejected("patch", f"the patch touches files it may not: {bad} (editable: {state.target.editable}"
                        f"{', inside ' + state.target.subdir if state.target.subdir else ''})")


def _run_cascade(ctx: RunContext, proposal: Proposal) -> dict:
    state = ctx.state
    ws = ctx.workspace
    _check_scope(state, proposal)
    try:
        ws.apply_to_candidate(proposal.patch)
    except PatchError as error:
        raise _Rejected("patch", f"the patch does not apply: {error}") from None
    ctx.record(VerifyStage(stage="patch", passed=True, touched=proposal.touched))

    baseline = [run for run in state.profile.runs if run.mode == "light"] or state.profile.runs
    try:
        smoke = ctx.run(ws.candidate_tree, "candidate-smoke", role="candidate")
    except PipelineError as error:
        raise _Rejected("smoke", f"the patched pipeline failed: {error}") from None
    ctx.record(VerifyStage(stage="smoke", passed=True, measurement=smoke.measurement.model_dump(mode="json")))

    allow_tolerance = proposal.data_rule == "within_tolerance"
    data = compare_data([r.probe_dir for r in baseline], [smoke.measurement.probe_dir], allow_tolerance)
    ctx.record(VerifyStage(stage="data", passed=data.status in DATA_OK[proposal.data_rule],
                           result=data.model_dump(mode="json")))
    if data.status not in DATA_OK[proposal.data_rule]:
        raise _Rejected("data", f"batch data {data.status}: {data.detail}", data=data)
    loss = compare_losses([r.losses for r in baseline], [smoke.measurement.losses])
    ctx.record(VerifyStage(stage="loss", passed=loss.status in LOSS_OK[proposal.loss_rule],
                           result=loss.model_dump(mode="json")))
    if loss.status not in LOSS_OK[proposal.loss_rule]:
        raise _Rejected("loss", f"loss {loss.status}: {loss.detail}", data=data, loss=loss)

    base_runs, cand_runs = [], [smoke.measurement]
    target = state.target
    say(f"timing: {target.ab_runs} interleaved runs each of the head and the candidate "
        f"(up to {target.max_ab_runs} while undecided)")
    for pair in range(target.max_ab_runs):
        try:
            base_runs.append(ctx.run(ws.base_tree, "ab-base", role="baseline").measurement)
            cand_runs.append(ctx.run(ws.candidate_tree, "ab-candidate", role="candidate").measurement)
        except PipelineError as error:
            raise _Rejected("speed", f"a timing run failed: {error}", data=data, loss=loss) from None
        fault_point("between_ab_pairs")
        if pair + 1 < target.ab_runs:
            continue
        speed = check_speed([RunSteps.of(r) for r in base_runs], [RunSteps.of(r) for r in cand_runs[1:]],
                            state.profile.noise_pct, target.min_gain_pct)
        if speed.passed or not _undecided(speed) or pair + 1 == target.max_ab_runs:
            break
        ctx.record(VerifyStage(stage="speed", passed=False, undecided=True, pairs=pair + 1,
                               result=speed.model_dump(mode="json")))
    data = compare_data([r.probe_dir for r in baseline + base_runs], [r.probe_dir for r in cand_runs],
                        allow_tolerance)
    if data.status not in DATA_OK[proposal.data_rule]:
        raise _Rejected("data", f"batch data {data.status} in the timing runs: {data.detail}", data=data, loss=loss,
                        candidate_runs=cand_runs)
    ctx.record(VerifyStage(stage="speed", passed=speed.passed, pairs=len(base_runs),
                           result=speed.model_dump(mode="json")))
    if not speed.passed:
        raise _Rejected("speed", speed.reason, data=data, loss=loss, speed=speed, candidate_runs=cand_runs)
    return {"data": data, "loss": loss, "speed": speed, "candidate_runs": cand_runs}


def _recovered(ctx: RunContext, proposal: Proposal, sha: str) -> Verdict:
    """Rebuild the verdict of a proposal committed before a crash, from the stages the audit log kept."""
    results: dict[str, dict] = {}
    entered = False
    for logged in map(parse_record, ctx.audit.records()):
        event = logged.event
        entered = entered or (isinstance(event, NodeEntered) and event.proposal == proposal.id)
        if entered and isinstance(event, VerifyStage) and event.passed and event.result:
            results[event.stage] = event.result
    speed = SpeedCheck.model_validate(results["speed"])
    return Verdict(proposal_id=proposal.id, verdict="accepted", stage="commit", reason=speed.reason, commit=sha,
                   speed=speed, data=CheckResult.model_validate(results["data"]),
                   loss=CheckResult.model_validate(results["loss"]))


def verify(state: LoopState) -> dict:
    """Apply, check and time the proposal; commit it on the run's branch or roll it back."""
    ctx = RunContext(state, "verify")
    proposal = state.proposal
    ws = ctx.workspace
    committed = ws.committed(proposal.id)  # a crash after the commit: the verdict was accepted
    ctx.record(NodeEntered(proposal=proposal.id))
    try:
        if committed:
            return _finish(ctx, proposal, _recovered(ctx, proposal, committed))
        result = _run_cascade(ctx, proposal)
    except _Rejected as rejection:
        verdict = Verdict(proposal_id=proposal.id, verdict="rejected", stage=rejection.stage,
                          reason=rejection.reason, **rejection.fields)
    else:
        speed = result["speed"]
        message = f"perfloop: {proposal.change}\n\n{proposal.diagnosis}: {speed.reason}."
        trailers = {"Perfloop-Run": state.run_id, "Perfloop-Diagnosis": proposal.diagnosis,
                    "Perfloop-Speedup": f"{speed.speedup:.3f}x", PROPOSAL_TRAILER: proposal.id}
        fault_point("before_commit")
        sha = ws.commit(proposal.patch, message, trailers)
        fault_point("after_commit")
        verdict = Verdict(proposal_id=proposal.id, verdict="accepted", stage="commit",
                          reason=speed.reason, commit=sha, **result)
    finally:
        ws.reset_candidate()
    return _finish(ctx, proposal, verdict)


def _finish(ctx: RunContext, proposal: Proposal, verdict: Verdict) -> dict:
    ctx.record(VerdictReached(verdict=verdict))
    remember(ctx.state, proposal, verdict)
    say(f"proposal {proposal.id} {verdict.verdict} at {verdict.stage}: {verdict.reason}"
        + (f" (commit {verdict.commit[:10]})" if verdict.commit else ""))
    updates = {"history": [Iteration(proposal=proposal, verdict=verdict)], "proposal": None,
               "runs_used": ctx.runs_used}
    if verdict.verdict == "accepted":
        updates.update(head=verdict.commit, needs_diagnosis=True)
    return updates
