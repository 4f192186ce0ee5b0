"""verify: the cascade, cheapest first: patch scope, smoke run, data, loss, interleaved speed; then commit."""
from __future__ import annotations

from agent.console import say
from agent.runtime import audit, run_in, runs_so_far, workspace
from agent.state import Iteration, LoopState, Proposal, Verdict
from sandbox.workspace import PROPOSAL_TRAILER, PatchError
from tools.audit import AuditLog
from tools.datacheck import compare_data, compare_losses
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


def _run_cascade(state: LoopState, proposal: Proposal, log: AuditLog) -> dict:
    ws = workspace(state)
    _check_scope(state, proposal)
    try:
        ws.apply_to_candidate(proposal.patch)
    except PatchError as error:
        raise _Rejected("patch", f"the patch does not apply: {error}") from None
    log.append("verify_stage", "verify", stage="patch", passed=True, touched=proposal.touched)

    number = state.runs_used
    baseline = [run for run in state.profile.runs if run.mode == "light"] or state.profile.runs
    try:
        smoke = run_in(state, ws.candidate_tree, f"{number:03d}-candidate-smoke", label="candidate")
    except PipelineError as error:
        raise _Rejected("smoke", f"the patched pipeline failed: {error}") from None
    log.append("verify_stage", "verify", stage="smoke", passed=True, measurement=smoke.measurement.model_dump())

    allow_tolerance = proposal.data_rule == "within_tolerance"
    data = compare_data([r.probe_dir for r in baseline], [smoke.measurement.probe_dir], allow_tolerance)
    log.append("verify_stage", "verify", stage="data", passed=data.status in DATA_OK[proposal.data_rule],
               result=data.model_dump())
    if data.status not in DATA_OK[proposal.data_rule]:
        raise _Rejected("data", f"batch data {data.status}: {data.detail}", data=data)
    loss = compare_losses([r.losses for r in baseline], [smoke.measurement.losses])
    log.append("verify_stage", "verify", stage="loss", passed=loss.status in LOSS_OK[proposal.loss_rule],
               result=loss.model_dump())
    if loss.status not in LOSS_OK[proposal.loss_rule]:
        raise _Rejected("loss", f"loss {loss.status}: {loss.detail}", data=data, loss=loss)

    base_runs, cand_runs = [], [smoke.measurement]
    target = state.target
    say(f"timing: {target.ab_runs} interleaved runs each of the head and the candidate "
        f"(up to {target.max_ab_runs} while undecided)")
    for pair in range(target.max_ab_runs):
        try:
            base_runs.append(run_in(state, ws.base_tree, f"{number + 1 + 2 * pair:03d}-ab-base",
                                    label="baseline").measurement)
            cand_runs.append(run_in(state, ws.candidate_tree, f"{number + 2 + 2 * pair:03d}-ab-candidate",
                                    label="candidate").measurement)
        except PipelineError as error:
            raise _Rejected("speed", f"a timing run failed: {error}", data=data, loss=loss) from None
        if pair + 1 < target.ab_runs:
            continue
        speed = check_speed([RunSteps.of(r) for r in base_runs], [RunSteps.of(r) for r in cand_runs[1:]],
                            state.profile.noise_pct, target.min_gain_pct)
        if speed.passed or not _undecided(speed) or pair + 1 == target.max_ab_runs:
            break
        log.append("verify_stage", "verify", stage="speed", passed=False, undecided=True, pairs=pair + 1,
                   result=speed.model_dump())
    data = compare_data([r.probe_dir for r in baseline + base_runs], [r.probe_dir for r in cand_runs],
                        allow_tolerance)
    if data.status not in DATA_OK[proposal.data_rule]:
        raise _Rejected("data", f"batch data {data.status} in the timing runs: {data.detail}", data=data, loss=loss,
                        candidate_runs=cand_runs)
    log.append("verify_stage", "verify", stage="speed", passed=speed.passed, pairs=len(base_runs),
               result=speed.model_dump())
    if not speed.passed:
        raise _Rejected("speed", speed.reason, data=data, loss=loss, speed=speed, candidate_runs=cand_runs)
    return {"data": data, "loss": loss, "speed": speed, "candidate_runs": cand_runs}


def verify(state: LoopState) -> dict:
    """Apply, check and time the proposal; commit it on the run's branch or roll it back."""
    log = audit(state)
    proposal = state.proposal
    ws = workspace(state)
    log.append("node_entered", "verify", proposal=proposal.id)
    try:
        result = _run_cascade(state, proposal, log)
    except _Rejected as rejection:
        verdict = Verdict(proposal_id=proposal.id, verdict="rejected", stage=rejection.stage,
                          reason=rejection.reason, **rejection.fields)
    else:
        speed = result["speed"]
        message = f"perfloop: {proposal.change}\n\n{proposal.diagnosis}: {speed.reason}."
        trailers = {"Perfloop-Run": state.run_id, "Perfloop-Diagnosis": proposal.diagnosis,
                    "Perfloop-Speedup": f"{speed.speedup:.3f}x", PROPOSAL_TRAILER: proposal.id}
        sha = ws.commit(proposal.patch, message, trailers)
        verdict = Verdict(proposal_id=proposal.id, verdict="accepted", stage="commit",
                          reason=speed.reason, commit=sha, **result)
    finally:
        ws.reset_candidate()
    log.append("verdict", "verify", verdict=verdict.model_dump(mode="json"))
    say(f"proposal {proposal.id} {verdict.verdict} at {verdict.stage}: {verdict.reason}"
        + (f" (commit {verdict.commit[:10]})" if verdict.commit else ""))
    updates = {"history": state.history + [Iteration(proposal=proposal, verdict=verdict)], "proposal": None,
               "runs_used": runs_so_far(state)}
    if verdict.verdict == "accepted":
        updates.update(head=verdict.commit, diagnoses=[])
    return updates
