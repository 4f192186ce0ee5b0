"""final_check: re-time the original against the final head (interleaved), then write the summary and end."""
from __future__ import annotations

import json
import statistics
from pathlib import Path

from perfloop.agent.context import RunContext, observed_isolation
from perfloop.agent.events import FinalCheck, RunFinished
from perfloop.agent.faults import fault_point
from perfloop.agent.runs import RunFolder
from perfloop.agent.state import LoopState
from perfloop.agent.summary import Numbers, build_summary
from perfloop.agent.ui.console import say
from perfloop.sandbox.git import head_of
from perfloop.tools.check.stats import RunSteps, steps_ratio_ci


def _final_comparison(ctx: RunContext) -> tuple[Numbers, float, list[float] | None]:
    """Time the original commit and the final head in turns, so drift cancels."""
    state = ctx.state
    ws = ctx.workspace
    accepted = [item for item in state.history if item.verdict.verdict == "accepted"]
    if not accepted:
        latest = state.profile
        return Numbers.of_profile(latest, noise_pct=None), 1.0, None
    original = accepted[0].proposal.base_head
    say(f"final check: {state.target.ab_runs} interleaved runs each of the original "
        f"{original[:10]} and the final {state.head[:10]}")
    before, after = [], []
    try:
        ws.checkout_candidate(original)
        for _ in range(state.target.ab_runs):
            before.append(ctx.run(ws.candidate_tree, "final-original", role="original").measurement)
            after.append(ctx.run(ws.base_tree, "final-head", role="final").measurement)
    finally:
        ws.reset_candidate()
    speedup = statistics.median(r.samples_per_s for r in after) / statistics.median(r.samples_per_s for r in before)
    low, high = steps_ratio_ci([RunSteps.of(r) for r in before], [RunSteps.of(r) for r in after])
    # The latest profile is of the final head (an accepted change is always profiled again).
    final = Numbers.of_profile(state.profile, samples_per_s=statistics.median(r.samples_per_s for r in after),
                               startup_s=statistics.median(r.startup_s for r in after), noise_pct=None)
    ctx.record(FinalCheck(original=original, head=state.head, original_samples_per_s=[r.samples_per_s for r in before],
                          final_samples_per_s=[r.samples_per_s for r in after], speedup=speedup, ci=[low, high]))
    return final, speedup, [low, high]


def final_check(state: LoopState) -> dict:
    """Re-time original and final head, write summary.json next to the audit log, record the end of the run."""
    ctx = RunContext(state, "final_check")
    final, speedup, ci = _final_comparison(ctx)
    fault_point("mid_report")
    state = state.model_copy(update={"runs_used": ctx.runs_used})
    summary = build_summary(state, str(ctx.audit.path), final, speedup, ci, head_of(state.target.repo_root),
                            observed_isolation(Path(state.state_dir)))
    if summary.base_moved:
        say(f"note: your HEAD moved during the run ({summary.base[:10]} → {summary.base_now[:10]}); "
            f"{summary.branch} still grows from {summary.base[:10]}: rebase or cherry-pick its commits")
    RunFolder(state.state_dir).summary.write_text(json.dumps(summary.model_dump(mode="json"), indent=2))
    ctx.record(RunFinished(summary=summary.model_dump(mode="json")))
    accepted = [i for i in summary.iterations if i.verdict == "accepted"]
    say(f"done ({summary.stop_reason}): {len(accepted)} change(s) accepted on {summary.branch}; "
        f"{summary.baseline.samples_per_s:.1f} → {summary.final.samples_per_s:.1f} samples/s "
        f"({summary.speedup:.2f}x)")
    if summary.isolation:
        say(summary.isolation.line())
    before, after = summary.baseline.headspace, summary.final.headspace
    if before is not None and after is not None and accepted:
        say(f"headspace (the most a data-side change could gain): {before:.0%} at the start, {after:.0%} now")
    return {"runs_used": summary.runs_used}
