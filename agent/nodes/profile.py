"""profile: run the pipeline at the branch head under the probe and say where each step's time goes."""
from __future__ import annotations

from perfloop.agent.context import RunContext
from perfloop.agent.events import NodeEntered, PipelineFailed, Profiled
from perfloop.agent.faults import fault_point
from perfloop.agent.state import LoopState
from perfloop.agent.ui.console import say
from perfloop.agent.ui.describe import describe_profile
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
        light = [ctx.run(ws.base_tree, "profile-light", role="baseline") for _ in range(target.noise_runs)]
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
    ctx.record(Profiled(head=state.head, profile=result.model_dump(mode="json"), metrics=result.metrics()))
    for line in describe_profile(result):
        say(line)
    updates = {"profile": result, "needs_diagnosis": True, "runs_used": ctx.runs_used}
    if state.first_profile is None:
        updates["first_profile"] = result
    return updates
