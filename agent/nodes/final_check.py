"""final_check: re-time the original against the final head (interleaved), then write the summary and end."""
from __future__ import annotations

import json
import statistics
from pathlib import Path

from perfloop.agent.context import RunContext, observed_isolation
from perfloop.agent.events import FinalCheck, RunFinished, RunsContaminated
from perfloop.agent.faults import fault_point
from perfloop.agent.nodes.verify import head_keeps_a_cache, second_epoch_window
from perfloop.agent.runs import RunFolder
from perfloop.agent.state import LoopState
from perfloop.agent.summary import Numbers, build_summary
from perfloop.agent.ui.console import say
from perfloop.sandbox.git import head_of
from perfloop.tools.check.stats import RunSteps, candidate_first, rerun_contaminated, steps_ratio_ci
from perfloop.tools.measure.models import RunMeasurement
from perfloop.tools.measure.record import ProbeRecord


def _final_comparison(ctx: RunContext) -> tuple[Numbers, float, list[float] | None, str]:
    """Time the original commit and the final head in pairs, order alternating, so drift cancels.

    The same interference rule as verify's: a pair with a contaminated run is left out and run
    again while the target's ``busy_reruns`` last (then kept, and the record says so), and the
    steps that closed in a busy interval are left out of each kept run's throughput.
    """
    state = ctx.state
    ws = ctx.workspace
    target = state.target
    accepted = [item for item in state.history if item.verdict.verdict == "accepted"]
    if not accepted:
        latest = state.profile
        return Numbers.of_profile(latest, noise_pct=None), 1.0, None, ""
    original = accepted[0].proposal.base_head
    say(f"final check: {target.ab_runs} interleaved pairs of the original {original[:10]} and the final "
        f"{state.head[:10]}, order alternating")
    window = None
    if head_keeps_a_cache(state):
        # A kept cache serves from the second epoch: time both where it does, as verify did.
        records = [ProbeRecord.read(run.probe_dir) for run in state.profile.runs if run.mode == "light"]
        window, line = second_epoch_window(state, records, state.run_steps)
        say(f"final check: {line}")
    pair_number = 0  # the next pair's number: a pair left out is run again under its own number (same order)
    rerun = 0

    def run_pair() -> tuple[RunMeasurement, RunMeasurement]:
        nonlocal pair_number
        def first() -> RunMeasurement:
            return ctx.run(ws.candidate_tree, "final-original", role="original", window=window).measurement

        def last() -> RunMeasurement:
            return ctx.run(ws.base_tree, "final-head", role="final", window=window).measurement

        if candidate_first(pair_number):
            after = last()
            before = first()
        else:
            before = first()
            after = last()
        pair_number += 1
        return before, after

    def dropped(pair: tuple[RunMeasurement, RunMeasurement], number: int, left: int) -> None:
        nonlocal pair_number, rerun
        pair_number -= 1
        rerun += 1
        lines = "; ".join(f"{who} {run.interference.summary()}" for who, run in zip(("original", "final"), pair)
                          if run.interference is not None)
        cores = [run.interference.cores if run.interference is not None else None for run in pair]
        ctx.record(RunsContaminated(what=f"final check pair {pair_number}", cores=cores, reruns_left=left,
                                    detail=lines))
        say(f"final check: pair {pair_number} left out, the machine was busy ({lines}); running it again, "
            f"{left} re-run(s) left")

    budget = target.busy_reruns if target.rerun_contaminated else 0
    try:
        ws.checkout_candidate(original)
        pairs = rerun_contaminated(run_pair, target.ab_runs, budget,
                                   lambda pair: any(run.contaminated for run in pair), dropped)
    finally:
        ws.reset_candidate()
    before = [RunSteps.of(b, leave_out_busy_steps=target.rerun_contaminated) for b, _ in pairs]
    after = [RunSteps.of(a, leave_out_busy_steps=target.rerun_contaminated) for _, a in pairs]
    speedup = statistics.median(r.samples_per_s for r in after) / statistics.median(r.samples_per_s for r in before)
    low, high = steps_ratio_ci(before, after)
    # The latest profile is of the final head (an accepted change is always profiled again).
    final = Numbers.of_profile(state.profile, samples_per_s=statistics.median(r.samples_per_s for r in after),
                               startup_s=statistics.median(r.startup_s for r in after), noise_pct=None)
    check = FinalCheck(original=original, head=state.head, original_samples_per_s=[r.samples_per_s for r in before],
                       final_samples_per_s=[r.samples_per_s for r in after], speedup=speedup, ci=[low, high],
                       pairs_rerun=rerun,
                       contaminated_kept=sum(any(run.contaminated for run in pair) for pair in pairs),
                       steps_dropped=sum(r.steps_dropped for r in before + after),
                       timed_from_step=window[0] if window else None)
    ctx.record(check)
    if check.busy_line():
        say(f"final check: the machine was busy: {check.busy_line()}")
    return final, speedup, [low, high], check.busy_line()


def final_check(state: LoopState) -> dict:
    """Re-time original and final head, write summary.json next to the audit log, record the end of the run."""
    ctx = RunContext(state, "final_check")
    final, speedup, ci, busy = _final_comparison(ctx)
    fault_point("mid_report")
    state = state.model_copy(update={"runs_used": ctx.runs_used})
    summary = build_summary(state, str(ctx.audit.path), final, speedup, ci, head_of(state.target.repo_root),
                            observed_isolation(Path(state.state_dir)), final_check_busy=busy)
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
