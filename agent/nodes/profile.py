"""profile: run the pipeline at the branch head under the probe and say where each step's time goes."""
from __future__ import annotations

from perfloop.agent.context import RunContext
from perfloop.agent.events import NodeEntered, PipelineFailed, Profiled, RunsContaminated
from perfloop.agent.faults import fault_point
from perfloop.agent.state import LoopState
from perfloop.agent.ui.console import say
from perfloop.agent.ui.describe import describe_profile
from perfloop.tools.check.stats import rerun_contaminated
from perfloop.tools.measure.headspace import replay_env, why_no_replay
from perfloop.tools.measure.profiler import PipelineError, build_profile


def profile(state: LoopState) -> dict:
    """Profile the current head: one full run (ledger, hot spots) and light runs (throughput, noise)."""
    ctx = RunContext(state, "profile")
    ws = ctx.workspace
    target = state.target
    say(f"profiling `{target.rendered_command()}` at {state.head[:10]}: 1 + {target.noise_runs} runs of "
        f"{target.warmup_steps} + {target.steps} steps")
    ctx.record(NodeEntered(head=state.head))
    try:
        full = ctx.run(ws.base_tree, "profile-full", mode="full", role="profile")
        fault_point("mid_profile")
        light, kept_busy = noise_runs(ctx, target)
        # Headspace: the same loop fed the full run's batches from memory, the DataLoader bypassed.
        env = replay_env(full.record)
        replay = why_no_replay(full.record)
        if env:
            try:
                replay = ctx.run(ws.base_tree, "headspace-free-data", role="free data", extra_env=env)
            except PipelineError as error:  # headspace is evidence, not a requirement: fall back to the bound
                replay = f"the replay run failed: {str(error).splitlines()[0]}"
    except PipelineError as error:
        ctx.record(PipelineFailed(error=str(error)))
        raise
    result = build_profile(full, light, target.rendered_command(), ws.target_dir(ws.base_tree), ctx.probe,
                           replay=replay)
    if kept_busy:
        result.warnings.append(f"the noise floor was measured on a busy machine: {kept_busy} of {len(light)} runs "
                               f"were contaminated and kept once the re-run budget ({target.busy_reruns}) was spent")
    if full.measurement.contaminated:
        result.warnings.append(f"the full run was disturbed by other work ({full.measurement.interference.summary()}): "
                               "its stage shares may be off")
    ctx.record(Profiled(head=state.head, profile=result.model_dump(mode="json"), metrics=result.metrics()))
    for line in describe_profile(result):
        say(line)
    updates = {"profile": result, "needs_diagnosis": True, "runs_used": ctx.runs_used}
    if state.first_profile is None:
        updates["first_profile"] = result
    return updates


def noise_runs(ctx: RunContext, target) -> tuple[list, int]:
    """The light runs of the noise floor; a contaminated one is run again while the re-run budget lasts.

    Returns the runs kept and how many of them are contaminated (kept once the budget was spent,
    or all of them with ``interference = "report"``).
    """
    def dropped(run, number: int, left: int) -> None:
        seen = run.measurement.interference
        ctx.record(RunsContaminated(what=f"noise run {number}", cores=[seen.cores], reruns_left=left,
                                    detail=seen.summary()))
        say(f"noise run {number} left out, the machine was busy ({seen.summary()}); running it again, "
            f"{left} re-run(s) left")

    budget = target.busy_reruns if target.rerun_contaminated else 0
    light = rerun_contaminated(lambda: ctx.run(ctx.workspace.base_tree, "profile-light", role="baseline"),
                               target.noise_runs, budget, lambda run: run.measurement.contaminated, dropped)
    return light, sum(run.measurement.contaminated for run in light)
