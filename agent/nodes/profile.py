"""profile: run the pipeline at the branch head under the probe and say where each step's time goes."""
from __future__ import annotations

from agent.console import say
from agent.describe import describe_profile
from agent.runtime import audit, probe_settings, run_in, runs_so_far, workspace
from agent.state import LoopState
from tools.profiler import PipelineError, build_profile


def profile(state: LoopState) -> dict:
    """Profile the current head: one full run (ledger, hot spots) and light runs (throughput, noise)."""
    log = audit(state)
    ws = workspace(state)
    target = state.target
    settings = probe_settings(state)
    number = state.runs_used
    say(f"profiling `{target.rendered_command()}` at {state.head[:10]}: 1 + {target.noise_runs} runs of "
        f"{target.warmup_steps} + {target.steps} steps")
    log.append("node_entered", "profile", head=state.head)
    try:
        full = run_in(state, ws.base_tree, f"{number:03d}-profile-full", mode="full", label="profile")
        light = [run_in(state, ws.base_tree, f"{number + 1 + i:03d}-profile-light", label="baseline")
                 for i in range(target.noise_runs)]
    except PipelineError as error:
        log.append("pipeline_failed", "profile", error=str(error))
        raise
    result = build_profile(full, light, target.rendered_command(), ws.target_dir(ws.base_tree), settings)
    log.append("profile", "profile", head=state.head, profile=result.model_dump(mode="json"),
               metrics=result.metrics())
    for line in describe_profile(result):
        say(line)
    updates = {"profile": result, "diagnoses": [], "runs_used": runs_so_far(state)}
    if state.first_profile is None:
        updates["first_profile"] = result
    return updates
