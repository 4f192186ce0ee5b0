"""The ⚑ --json summary: what the run found, changed and measured."""
from __future__ import annotations

from pydantic import BaseModel, Field

from perfloop.agent.state import ApprovalRequest, Iteration, LoopState, StopReason
from perfloop.sandbox.isolation import ObservedIsolation
from perfloop.tools.measure.models import Profile


class Numbers(BaseModel):
    """Throughput and start-up of one version of the pipeline."""

    samples_per_s: float
    startup_s: float
    noise_pct: float | None = None
    headspace: float | None = Field(None, description="(step - step with free data) / step of this version's "
                                                      "profile: the most any data-side change could still gain.")
    headspace_note: str = Field("", description="How the headspace was measured, or why it was not.")

    @classmethod
    def of_profile(cls, profile: Profile, **numbers) -> "Numbers":
        """Numbers of a profiled version; ``numbers`` override the profile's own throughput and start-up."""
        values = dict(samples_per_s=profile.samples_per_s, startup_s=profile.startup_s, noise_pct=profile.noise_pct)
        return cls(**{**values, **numbers}, headspace=profile.headspace, headspace_note=profile.headspace_note)


class InterferenceSummary(BaseModel):
    """How much of the machine other work took during one decision's timing runs."""

    measured: bool = Field(description="False where no run's interference could be read (not Linux).")
    runs: int = Field(description="Timing runs measured, re-runs included.")
    contaminated_pairs: int = Field(description="Pairs left out because a run of theirs was contaminated.")
    runs_repeated: int = Field(description="Runs made again in their place.")
    max_cores: float = Field(description="The highest interference of any timing run (cores).")
    busy: bool = Field(description="The re-run budget ran out: the verdict is undecided.")

    @classmethod
    def of(cls, speed) -> "InterferenceSummary":
        return cls(measured=speed.interference_measured, runs=len(speed.interference_cores) if
                   speed.interference_measured else 2 * (len(speed.baseline_samples_per_s) + len(speed.dropped)),
                   contaminated_pairs=len(speed.dropped), runs_repeated=speed.runs_repeated,
                   max_cores=max(speed.interference_cores, default=0.0), busy=speed.busy)


class IterationSummary(BaseModel):
    """One proposal as the summary lists it."""

    proposal_id: str
    diagnosis: str
    evidence: dict
    change: str
    source: str
    verdict: str
    stage: str = Field(description="The verification stage that decided.")
    reason: str
    expected_speedup: float
    speedup: float | None
    ci: list[float] | None
    data_check: str = Field(description="identical | within_tolerance | changed | not_comparable | not_run.")
    data_detail: str = Field("", description="The data check's label, e.g. 'within_tolerance (compared R of T rows)'.")
    loss_check: str = Field(description="identical | within_tolerance | within_envelope | diverged | "
                                        "not_comparable | not_run.")
    side_outputs_check: str = Field("not_run", description="same | declared | changed | not_run.")
    tolerance_class: str | None = Field(None, description="exact | reorder | precision | changes-data.")
    interference: InterferenceSummary | None = Field(None, description="The machine's other work during the "
                                                                       "timing runs (None when none ran).")
    timed_from_step: int | None = Field(None, description="Set when the change pays off from the second epoch (a "
                                                          "cache): timed from this step, the first epoch charged to "
                                                          "start-up; a run of one epoch gains nothing from it.")
    commit: str | None

    @classmethod
    def of(cls, item: Iteration) -> "IterationSummary":
        p, v = item.proposal, item.verdict
        return cls(proposal_id=p.id, diagnosis=p.diagnosis, evidence=p.evidence, change=p.change, source=p.source,
                   verdict=v.verdict, stage=v.stage, reason=v.reason, expected_speedup=p.expected_speedup,
                   speedup=v.speed.speedup if v.speed else None, ci=list(v.speed.ci) if v.speed else None,
                   data_check=v.data.status if v.data else "not_run", data_detail=v.data.label if v.data else "",
                   loss_check=v.loss.status if v.loss else "not_run",
                   side_outputs_check=v.side_outputs.status if v.side_outputs else "not_run",
                   tolerance_class=v.tolerance_class, commit=v.commit, timed_from_step=v.timed_from_step,
                   interference=InterferenceSummary.of(v.speed) if v.speed else None)


class RunSummary(BaseModel):
    """The last stdout line of `perfloop run --json`."""

    run_id: str
    branch: str
    audit_log: str
    baseline: Numbers
    final: Numbers
    speedup: float = Field(description="Final vs original, from interleaved re-runs when anything was accepted.")
    speedup_ci: list[float] | None = None
    final_check_busy: str = Field("", description="What the machine's other work cost the final check (pairs "
                                                  "re-run, steps left out); empty when nothing was.")
    stop_reason: StopReason
    stop_detail: str
    bottleneck: str | None = Field(None, description="Top diagnosis of the final profile.")
    bottleneck_summary: str = ""
    iterations: list[IterationSummary]
    runs_used: int
    base: str = Field("", description="The user's HEAD the run started from.")
    base_moved: bool = Field(False, description="The user's HEAD moved during the run (the run's branch is "
                                                "unaffected; rebase or cherry-pick its commits onto the new HEAD).")
    base_now: str | None = Field(None, description="The user's HEAD at the end, when it moved.")
    isolation: ObservedIsolation | None = Field(None, description="The weakest isolation the sandbox reported "
                                                "over the run's pipeline runs (network, memory limit kind, "
                                                "protected inputs), not what was asked for.")


def build_summary(state: LoopState, audit_log: str, final: Numbers, speedup: float,
                  speedup_ci: list[float] | None, user_head: str | None = None,
                  isolation: ObservedIsolation | None = None, final_check_busy: str = "") -> RunSummary:
    """Assemble the summary from the state and the final measurement."""
    first = state.first_profile
    top = state.diagnoses[0] if state.diagnoses else None
    return RunSummary(
        run_id=state.run_id, branch=f"perfloop/{state.run_id}", audit_log=audit_log,
        baseline=Numbers.of_profile(first),
        final=final, speedup=speedup, speedup_ci=speedup_ci, final_check_busy=final_check_busy,
        stop_reason=state.stop_reason, stop_detail=state.stop_detail,
        bottleneck=top.entry_id if top else None, bottleneck_summary=top.summary if top else "",
        iterations=[IterationSummary.of(item) for item in state.history], runs_used=state.runs_used,
        base=state.base, base_moved=bool(user_head and state.base and user_head != state.base),
        base_now=user_head if user_head and user_head != state.base else None, isolation=isolation)


class PausedSummary(BaseModel):
    """The last stdout line of `perfloop run --json` when the run waits for an approval."""

    run_id: str
    branch: str
    audit_log: str
    stop_reason: StopReason = "awaiting_approval"
    pending: ApprovalRequest = Field(description="The approval request: proposal, diff, evidence, verification.")
