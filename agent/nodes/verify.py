"""verify: the cascade, cheapest first, one function per stage (STAGES); then commit or roll back."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from perfloop.agent.context import RunContext
from perfloop.agent.events import NodeEntered, RunsContaminated, VerdictReached, VerifyStage, parse_record
from perfloop.agent.faults import fault_point
from perfloop.agent.memory import remember
from perfloop.agent.rule import rule_of
from perfloop.agent.state import Iteration, LoopState, Proposal, Verdict, ends_before_it_serves
from perfloop.agent.ui.console import say
from perfloop.contracts.layout import Env, Fingerprint
from perfloop.knowledge_base import Verification
from perfloop.sandbox.workspace import PROPOSAL_TRAILER, PatchError
from perfloop.tools.change.patching import scope_problems
from perfloop.tools.check.datacheck import CheckResult, compare_data, compare_losses, compare_ranks
from perfloop.tools.check.sideoutputs import SideOutputCheck, compare_side_outputs
from perfloop.tools.check.stats import (
    DroppedPair,
    RunSteps,
    SpeedCheck,
    SpeedPlan,
    StartupCheck,
    candidate_first,
    check_startup,
    sequential_speed,
)
from perfloop.tools.measure.models import RunMeasurement
from perfloop.tools.measure.noise import noise_pct
from perfloop.tools.measure.profiler import PipelineError, ProbeRun
from perfloop.tools.measure.record import ProbeRecord

DATA_OK = {"identical": ("identical",), "within_tolerance": ("identical", "within_tolerance")}
# within_envelope: the baseline's own loss differs run to run and the candidate stays inside it;
# not_comparable: no loss recorded on either side, which the verdict then states.
LOSS_OK = {"identical": ("identical", "within_envelope", "not_comparable"),
           "within_tolerance": ("identical", "within_tolerance", "within_envelope", "not_comparable")}
SIDE_OK = ("same", "declared")


class _Rejected(Exception):
    """A verification stage failed (or could not decide); carries the stage, the reason and the verdict."""

    def __init__(self, stage: str, reason: str, verdict: str = "rejected") -> None:
        super().__init__(reason)
        self.stage, self.reason, self.verdict = stage, reason, verdict


@dataclass
class _Cascade:
    """What the stages share: the proposal, its declared rule, the runs made and the checks so far."""

    ctx: RunContext
    proposal: Proposal
    rule: Verification
    # Where the enforced data tolerance came from when the change declared its own (else None).
    tolerance_source: str | None = None
    # Whole-run length in steps when known (Target.run_steps, read from the training config or
    # command line by tools/contract/runlength.py); None judges start-up alone.
    run_steps: int | None = None
    baseline: list[RunMeasurement] = field(default_factory=list)
    smoke: RunMeasurement | None = None
    base_runs: list[RunMeasurement] = field(default_factory=list)
    cand_runs: list[RunMeasurement] = field(default_factory=list)
    data: CheckResult | None = None
    loss: CheckResult | None = None
    side_outputs: SideOutputCheck | None = None
    speed: SpeedCheck | None = None
    startup: StartupCheck | None = None
    notes: list[str] = field(default_factory=list)
    # Each run's parsed record by probe folder: the runs made here as run_probed parsed them, the
    # profile's runs read from disk on first use; the data checks of every stage share them.
    records: dict[str, ProbeRecord] = field(default_factory=dict)
    other_ranks: dict[str, dict[int, ProbeRecord]] = field(default_factory=dict)
    # The noise floor speed is judged against: the profile's here, a remote block's own light runs there.
    noise_pct: float = 0.0
    # (warmup_steps, steps) of timing runs that measure the second epoch (a cache's gain starts there);
    # None: the target's window. The first `warmup_steps` of such a run count as its start-up.
    window: tuple[int, int] | None = None
    epoch_unseen: bool = False  # such a window was wanted, and no run showed where the second epoch starts

    def keep(self, run: ProbeRun) -> RunMeasurement:
        """Keep a run's parsed record for the data checks; return its measurement."""
        self.records[run.measurement.probe_dir] = run.record
        return run.measurement

    def record_of(self, run: RunMeasurement) -> ProbeRecord:
        """Return a run's parsed record, reading it (a profile run's) at most once per verification."""
        if run.probe_dir not in self.records:
            self.records[run.probe_dir] = ProbeRecord.read(run.probe_dir)
        return self.records[run.probe_dir]

    def ranks_of(self, run: RunMeasurement) -> dict[int, ProbeRecord]:
        """Every rank's record of a run, by rank: rank 0's alone for one process, each rank's under torchrun."""
        if run.probe_dir not in self.other_ranks:
            self.other_ranks[run.probe_dir] = ProbeRecord.read_other_ranks(run.probe_dir)
        return {0: self.record_of(run), **self.other_ranks[run.probe_dir]}

    @property
    def state(self) -> LoopState:
        return self.ctx.state

    def passed(self, stage: str, **numbers) -> None:
        self.ctx.record(VerifyStage(stage=stage, passed=True, **numbers))

    def failed(self, stage: str, reason: str, **numbers) -> _Rejected:
        self.ctx.record(VerifyStage(stage=stage, passed=False, reason=reason, **numbers))
        return _Rejected(stage, reason)

    def undecided(self, stage: str, reason: str, **numbers) -> _Rejected:
        """The stage could not decide (the machine was busy): the verdict is undecided, not rejected."""
        self.ctx.record(VerifyStage(stage=stage, passed=False, undecided=True, reason=reason, **numbers))
        return _Rejected(stage, reason, verdict="undecided")


@dataclass(frozen=True)
class Stage:
    """One verification stage: its name (a verdict's `stage`), what it checks, and the function doing it."""

    name: str
    checks: str
    run: Callable[[_Cascade], None]


def _check_patch(c: _Cascade) -> None:
    target = c.state.target
    try:
        problems = scope_problems(c.proposal.patch, target.subdir, target.editable)
    except ValueError as error:
        raise c.failed("patch", str(error)) from None
    if problems:
        raise c.failed("patch", "the patch is refused: " + "; ".join(problems))
    try:
        c.ctx.workspace.apply_to_candidate(c.proposal.patch)
    except PatchError as error:
        raise c.failed("patch", f"the patch does not apply: {error}") from None
    c.passed("patch", touched=c.proposal.touched)


def _check_smoke(c: _Cascade) -> None:
    try:
        c.smoke = c.keep(c.ctx.run(c.ctx.workspace.candidate_tree, "candidate-smoke", role="candidate"))
    except PipelineError as error:
        raise c.failed("smoke", f"the patched pipeline failed: {error}") from None
    c.cand_runs = [c.smoke]
    c.passed("smoke", measurement=c.smoke.model_dump(mode="json"))


def _data(c: _Cascade, baseline: list[RunMeasurement], candidate: list[RunMeasurement]) -> CheckResult:
    """Every batch of every run, on every rank (each against the same rank of the baseline)."""
    tolerant = c.rule.data == "within_tolerance"
    return compare_ranks(
        [c.ranks_of(r) for r in baseline], [c.ranks_of(r) for r in candidate],
        lambda base, cand: compare_data(base, cand, tolerant, atol=c.rule.atol if tolerant else None,
                                        rtol=c.rule.rtol if tolerant else None), "record")


def _loss(c: _Cascade, baseline: list[RunMeasurement], candidate: list[RunMeasurement]) -> CheckResult:
    """Every step's loss of every run, on every rank."""
    def losses(run: RunMeasurement) -> dict[int, list[float | None]]:
        return {rank: [step.loss for step in record.steps] for rank, record in c.ranks_of(run).items()}

    return compare_ranks(
        [losses(r) for r in baseline], [losses(r) for r in candidate],
        lambda base, cand: compare_losses(base, cand, rtol=c.rule.loss_rtol, atol=c.rule.loss_atol,
                                          mean_rtol=c.rule.loss_mean_rtol if c.rule.loss == "within_tolerance"
                                          else None), "loss")


def _side(c: _Cascade, baseline: list[RunMeasurement], candidate: list[RunMeasurement]) -> SideOutputCheck:
    rtol = c.rule.loss_rtol if c.rule.loss == "within_tolerance" else 0.0
    return compare_side_outputs([r.probe_dir for r in baseline], [r.probe_dir for r in candidate],
                                declared=c.rule.side_output_changes, rtol=rtol)


def _check_data(c: _Cascade) -> None:
    c.data = _data(c, c.baseline, [c.smoke])
    if c.data.status not in DATA_OK[c.rule.data] and not _changes_data(c):
        raise c.failed("data", f"batch data {c.data.status}: {c.data.detail}", result=c.data.model_dump())
    c.passed("data", result=c.data.model_dump())


def _check_loss(c: _Cascade) -> None:
    c.loss = _loss(c, c.baseline, [c.smoke])
    if c.loss.status not in LOSS_OK[c.rule.loss] and not _changes_data(c):
        raise c.failed("loss", _loss_failure(c.rule, c.loss), result=c.loss.model_dump())
    c.passed("loss", result=c.loss.model_dump())


def _whole_run(c: _Cascade, run: RunMeasurement) -> RunSteps:
    """A run's steps for the whole-run judgement; with a second-epoch window, its start-up runs to the end of
    the steps left out (launch to first batch, then the first epoch and the warm-up)."""
    steps = RunSteps.of(run)
    if c.window is None:
        return steps
    first = sum(step.step_ms for step in c.record_of(run).steps[:c.window[0]]) / 1000.0
    return steps.model_copy(update={"startup_s": run.startup_s + first})


def _loss_failure(rule: Verification, loss: CheckResult, where: str = "") -> str:
    """The loss stage's reason; a curve within tolerance fails only a change that must keep it bit-identical,
    and the reason says so (a bare "loss within_tolerance" read as a pass)."""
    if loss.status == "within_tolerance" and rule.loss == "identical":
        return (f"loss not bit-identical{where}, as a change that should not touch the numerics must keep it: "
                f"{loss.detail}")
    return f"loss {loss.status}{where}: {loss.detail}"


def _check_side_outputs(c: _Cascade) -> None:
    c.side_outputs = _side(c, c.baseline, [c.smoke])
    if c.side_outputs.status not in SIDE_OK and not _changes_data(c):
        raise c.failed("side_outputs", f"side outputs {c.side_outputs.status}: {c.side_outputs.detail}",
                       result=c.side_outputs.model_dump())
    c.passed("side_outputs", result=c.side_outputs.model_dump())


# Timing runs that measure a cache's second epoch may take this long each (s, by the profile's step time);
# a longer epoch is timed in the first, and the verdict says so.
EPOCH_WINDOW_MAX_S = 90.0


def epoch_length(state: LoopState, records: list[ProbeRecord]) -> int | None:
    """Steps of one epoch: len() of the step loader as the probe saw it built, else where one of ``records``
    (the head's runs) started a second epoch; None where neither tells."""
    loader = state.profile.loader if state.profile else None
    if loader is not None and loader.batches_per_epoch:
        return loader.batches_per_epoch
    for record in records:
        starts = [i for i, step in enumerate(record.steps) if step.epoch_start and i > 0]
        if starts:
            return starts[0]
    return None


CACHE_WHY = "the change pays off from the second epoch (a cache that fills in the first)"
KEPT_CACHE_WHY = ("the head keeps a cache an earlier change added, which serves from the second epoch (a change "
                  "timed in the first would not see what it costs the cache)")


def second_epoch_window(state: LoopState, records: list[ProbeRecord], run_steps: int | None,
                        why: str = CACHE_WHY) -> tuple[tuple[int, int] | None, str]:
    """The timing window for changes that pay off from the second epoch, or that are judged against a head whose
    kept cache does: (warmup_steps, steps) with the first epoch and the usual warm-up left out, and a line saying
    so; (None, why) where it cannot be afforded."""
    target = state.target
    epoch = epoch_length(state, records)
    if epoch is None:
        return None, f"{why}, but the loader has no length and no run reached a second epoch: timed in the first"
    warmup = epoch + target.warmup_steps
    step_s = state.profile.ledger.step_ms / 1000.0 if state.profile else 0.0
    if (warmup + target.steps) * step_s > EPOCH_WINDOW_MAX_S:
        return None, (f"{why}; one epoch is {epoch} steps (about {epoch * step_s:.0f} s), longer than a timing run "
                      f"may take ({EPOCH_WINDOW_MAX_S:.0f} s): timed in the first epoch, where it does not serve yet")
    if ends_before_it_serves(run_steps, epoch, target.warmup_steps):
        return None, f"{why}; the whole run is {run_steps} steps and one epoch {epoch}: it never serves"
    return (warmup, target.steps), (f"{why}: each run takes {warmup + target.steps} steps and is timed from step "
                                    f"{warmup} (one epoch, {epoch} steps, and the warm-up after it)")


def head_keeps_a_cache(state: LoopState) -> bool:
    """Whether a change this run kept (so the head carries it) pays off from the second epoch."""
    return any(item.verdict.verdict == "accepted" and rule_of(state, item.proposal).enforced.gain_from_epoch > 1
               for item in state.history)


def _epoch_window(c: _Cascade) -> tuple[int, int] | None:
    """The cascade's timing window (None: the target's); a window that cannot be had is noted in the verdict.

    A change that pays off from the second epoch is timed there; so is any change judged against a head that
    keeps such a change: timed in the first epoch, where the kept cache has not served yet, a change that defeats it
    (worker processes that each fill their own copy and lose it at the epoch's end) reads as a gain it is not."""
    if c.rule.gain_from_epoch >= 2:
        why = CACHE_WHY
    elif head_keeps_a_cache(c.state):
        why = KEPT_CACHE_WHY
    else:
        return None
    records = [c.record_of(run) for run in c.baseline]
    window, line = second_epoch_window(c.state, records, c.run_steps, why)
    c.epoch_unseen = window is None and epoch_length(c.state, records) is None
    if window is None:
        c.notes.append(line)
    else:
        say(f"timing: {line}; the first epoch counts as start-up")
    return window


def _timing_fingerprint(c: _Cascade) -> dict[str, str] | None:
    """Env.FINGERPRINT "rows" for the timing runs when the smoke run's batches matched the head's as the loader
    gave them (row by row, or row by row within the tolerance): the layout-free value hashes and the model-input
    hashes, the probe's costliest per-step work after the row hashes, could only be needed where the rows
    differ, and a timing run whose rows differ fails the all-runs check either way. None: everything hashed."""
    data = c.data
    if data is None or data.rule != "loader_output" or data.status not in ("identical", "within_tolerance"):
        return None
    return {Env.FINGERPRINT: Fingerprint.ROWS}


def _run_timing(c: _Cascade) -> None:
    target, ws = c.state.target, c.ctx.workspace
    c.window = _epoch_window(c)
    say(f"timing: {target.ab_runs} interleaved pairs of the head and the candidate, order alternating "
        f"(up to {target.max_ab_runs} while undecided)")
    for note in c.notes:
        say(f"timing: {note}")

    fingerprint = _timing_fingerprint(c)

    def run_pair(pair: int) -> tuple[RunSteps, RunSteps]:
        def head() -> RunMeasurement:
            return c.keep(c.ctx.run(ws.base_tree, "ab-base", role="baseline", window=c.window, extra_env=fingerprint))

        def candidate() -> RunMeasurement:
            return c.keep(c.ctx.run(ws.candidate_tree, "ab-candidate", role="candidate", window=c.window,
                                    extra_env=fingerprint))

        try:
            if candidate_first(pair):
                cand = candidate()
                base = head()
            else:
                base = head()
                cand = candidate()
        except PipelineError as error:
            if c.window is not None and error.steps is not None and error.steps <= c.window[0]:
                raise c.failed("timing", f"the run ends after {error.steps} steps, before its second epoch "
                                         f"({_epoch_steps(c)} steps an epoch): a change that pays off from the "
                                         "second epoch gains nothing in it") from None
            raise c.failed("timing", f"a timing run failed: {error}") from None
        c.base_runs.append(base)
        c.cand_runs.append(cand)
        fault_point("between_ab_pairs")
        return (RunSteps.of(base, leave_out_busy_steps=target.rerun_contaminated),
                RunSteps.of(cand, leave_out_busy_steps=target.rerun_contaminated))

    def undecided(speed: SpeedCheck, pairs: int) -> None:
        c.ctx.record(VerifyStage(stage="speed", passed=False, undecided=True, pairs=pairs,
                                 result=speed.model_dump(mode="json")))

    def dropped(pair: DroppedPair, left: int) -> None:
        head, cand = c.base_runs[-1], c.cand_runs[-1]
        lines = "; ".join(f"{who} {run.interference.summary()}" for who, run in (("head", head), ("candidate", cand))
                          if run.interference is not None)
        c.ctx.record(RunsContaminated(what=f"timing pair {pair.pair}", cores=[pair.head_cores, pair.candidate_cores],
                                      reruns_left=left - 1, detail=lines))
        say(f"timing: pair {pair.pair} left out, the machine was busy ({lines}); running it again, "
            f"{left - 1} re-run(s) left")

    plan = SpeedPlan(ab_runs=target.ab_runs, max_ab_runs=target.max_ab_runs, min_gain_pct=target.min_gain_pct,
                     busy_reruns=target.busy_reruns, rerun_contaminated=target.rerun_contaminated)
    c.speed, pairs = sequential_speed(run_pair, c.noise_pct, plan, undecided, dropped)
    extra = {"window": {"warmup_steps": c.window[0], "steps": c.window[1],
                        "epoch_steps": _epoch_steps(c)}} if c.window else {}
    c.passed("timing", pairs=pairs, **extra)


def _compared_runs(c: _Cascade) -> tuple[list[RunMeasurement], list[RunMeasurement]]:
    """The head's and the candidate's runs the all-runs checks and start-up compare: every one; with a
    second-epoch window only the timing runs, which are the ones that long (and the ones through epoch 2)."""
    if c.window is None:
        return c.baseline + c.base_runs, c.cand_runs
    return c.base_runs, [run for run in c.cand_runs if run is not c.smoke]


def _check_all_runs(c: _Cascade) -> None:
    baseline, candidate = _compared_runs(c)
    data, loss, side = _data(c, baseline, candidate), _loss(c, baseline, candidate), _side(c, baseline, candidate)
    c.data, c.loss, c.side_outputs = data, loss, side
    numbers = dict(data=data.model_dump(), loss=loss.model_dump(), side_outputs=side.model_dump())
    if _changes_data(c):
        pass  # not equivalent by declaration: the human approved it as such; the checks are reported
    elif data.status not in DATA_OK[c.rule.data]:
        raise c.failed("all_runs", f"batch data {data.status} in the timing runs: {data.detail}", **numbers)
    elif loss.status not in LOSS_OK[c.rule.loss]:
        raise c.failed("all_runs", _loss_failure(c.rule, loss, " in the timing runs"), **numbers)
    elif side.status not in SIDE_OK:
        raise c.failed("all_runs", f"side outputs {side.status} in the timing runs: {side.detail}", **numbers)
    c.passed("all_runs", **numbers)


def _check_speed(c: _Cascade) -> None:
    speed = c.speed
    numbers = dict(pairs=len(c.base_runs), result=speed.model_dump())
    if speed.busy:
        raise c.undecided("speed", speed.reason, **numbers)
    if not speed.passed:
        raise c.failed("speed", speed.reason, **numbers)
    # Every run of each side counts for start-up (the profile's and the smoke run too): it is
    # one number per run, and its noise needs as many runs as there are.
    baseline, candidate = _compared_runs(c)
    run_steps = c.run_steps
    if c.window is not None and run_steps is not None:
        run_steps -= c.window[0]  # the first epoch is in each run's start-up
    c.startup = check_startup([_whole_run(c, r) for r in baseline], [_whole_run(c, r) for r in candidate],
                              speed.threshold_pct, run_steps=run_steps, one_off_cost=c.rule.one_off_cost)
    if c.window is not None:
        c.startup = c.startup.model_copy(update={"reason": f"{c.startup.reason} (start-up includes the first "
                                                           f"{c.window[0]} steps: the epoch the cache fills in)"})
    numbers["startup"] = c.startup.model_dump()
    if not c.startup.passed:
        raise c.failed("speed", f"whole-run cost: {c.startup.reason}", **numbers)
    c.passed("speed", **numbers)


STAGES: list[Stage] = [
    Stage("patch", "git's own reading of the patch (`git apply --numstat --summary`): only content edits of "
                   "`editable` files inside the target folder; no mode change, rename, copy, binary or link; no "
                   "mention of the probe (`sitecustomize`, a `perfloop_*` module) or `PERFLOOP_*`; "
                   "then it must apply to the branch head", _check_patch),
    Stage("smoke", "one bounded run of the patched pipeline succeeds", _check_smoke),
    Stage("data", "the smoke run against the profile's runs: same steps, samples and exit, then every row of "
                  "every batch (see `data_check` below)", _check_data),
    Stage("loss", "the smoke run's loss at every step (see `loss_check` below)", _check_loss),
    Stage("side_outputs", "the smoke run's stdout, stderr and written files (see `side_outputs` below)",
          _check_side_outputs),
    Stage("timing", "interleaved pairs of runs of the head and the candidate, order alternating", _run_timing),
    Stage("all_runs", "data, loss and side outputs again, of every timing run against every run of the head",
          _check_all_runs),
    Stage("speed", "the speed-up beats the noise (see `speed` below), and start-up is judged with steady "
                   "state (whole-run cost)", _check_speed),
]


def cascade_markdown() -> str:
    """Render STAGES as docs/verification.md's numbered list (tests/test_verify.py checks that file holds it)."""
    lines = [f"{number}. `{stage.name}`: {stage.checks};" for number, stage in enumerate(STAGES, start=1)]
    return "\n".join(lines + [f"{len(STAGES) + 1}. `commit`: accepted."])


def _start(ctx: RunContext, proposal: Proposal, baseline: list[ProbeRun] | None = None) -> _Cascade:
    """The cascade of ``proposal``: against the profile's runs, or against ``baseline`` (a block's own head runs)."""
    state = ctx.state
    rule = rule_of(state, proposal)
    c = _Cascade(ctx=ctx, proposal=proposal, rule=rule.enforced, tolerance_source=rule.tolerance_source,
                 run_steps=state.run_steps, noise_pct=state.profile.noise_pct,
                 baseline=[run for run in state.profile.runs if run.mode == "light"] or list(state.profile.runs))
    if baseline is not None:
        c.baseline = [c.keep(run) for run in baseline]
        c.noise_pct = noise_pct([run.measurement.samples_per_s for run in baseline])
    return c


def _judge(c: _Cascade) -> Verdict:
    """Run every stage; the verdict is rejected or undecided at the first that fails, else accepted (uncommitted)."""
    try:
        for stage in STAGES:
            stage.run(c)
    except _Rejected as rejection:
        return Verdict(proposal_id=c.proposal.id, verdict=rejection.verdict, stage=rejection.stage,
                       reason=rejection.reason + _caveat(c), **_verdict_fields(c))
    return Verdict(proposal_id=c.proposal.id, verdict="accepted", stage="commit",
                   reason=f"{_from_epoch_two(c)}{c.speed.reason}; {c.startup.reason}{_caveat(c)}", **_verdict_fields(c))


def _epoch_steps(c: _Cascade) -> int:
    """Steps of one epoch, where a second-epoch window is set: the window's warm-up less the usual warm-up."""
    return c.window[0] - c.ctx.state.target.warmup_steps


def _from_epoch_two(c: _Cascade) -> str:
    """Lead an accepted cache's reason with where its gain starts, so a one-epoch user is not misled."""
    if c.window is None:
        return ""
    epoch = _epoch_steps(c)
    if c.rule.gain_from_epoch < 2:
        return f"timed from the second epoch (step {epoch + 1} on), where the head's kept cache serves: "
    if c.run_steps is None:
        return (f"from the second epoch (step {epoch + 1} on; the run's length is unknown, so a run of one epoch "
                f"gains nothing): ")
    return f"from the second epoch (step {epoch + 1} on, of {c.run_steps}): "


def judge_block(ctx: RunContext, proposal: Proposal) -> tuple[Verdict, float]:
    """A verification block on its node (agent/executors/block.py): the head's own light runs, then the
    cascade against them; return the uncommitted verdict and the node's noise floor."""
    from perfloop.agent.nodes.profile import noise_runs

    say(f"block {proposal.id}: {ctx.state.target.noise_runs} light runs of the head here (this node's noise floor)")
    try:
        light, _ = noise_runs(ctx, ctx.state.target)
    except PipelineError as error:
        reason = f"the head's own runs failed on this node: {error}"
        ctx.record(VerifyStage(stage="smoke", passed=False, reason=reason))
        return Verdict(proposal_id=proposal.id, verdict="rejected", stage="smoke", reason=reason), 0.0
    c = _start(ctx, proposal, baseline=light)
    try:
        return _judge(c), c.noise_pct
    finally:
        ctx.workspace.reset_candidate()


def _changes_data(c: _Cascade) -> bool:
    """A changes-data remedy (batch size, subsampling) is not equivalent by design: its data, loss and
    side-output checks are reported, not gates; only explicit approval lets it this far."""
    return c.rule.tolerance_class == "changes-data"


def _verdict_fields(c: _Cascade) -> dict:
    return dict(tolerance_class=c.rule.tolerance_class, tolerance_source=c.tolerance_source, data=c.data,
                loss=c.loss, side_outputs=c.side_outputs, speed=c.speed, startup=c.startup,
                timed_from_step=c.window[0] if c.window else None,
                candidate_runs=c.cand_runs if c.base_runs else [])


def _caveat(c: _Cascade) -> str:
    """What was not checked, and a tolerance the change declared for itself, said in the reason."""
    notes = [f" ({note})" for note in c.notes]
    if c.loss is not None and c.loss.status == "not_comparable":
        notes.append(f" (loss not checked: {c.loss.detail})")
    if c.tolerance_source:
        notes.append(f" ({c.tolerance_source})")
    return "".join(notes)


def _recovered(ctx: RunContext, proposal: Proposal, sha: str) -> Verdict:
    """Rebuild the verdict of a proposal committed before a crash, from the stages the audit log kept."""
    stages: dict[str, VerifyStage] = {}
    entered = False
    for logged in map(parse_record, ctx.audit.records()):
        event = logged.event
        entered = entered or (isinstance(event, NodeEntered) and event.proposal == proposal.id)
        if entered and isinstance(event, VerifyStage) and event.passed:
            stages[event.stage] = event
    speed, checks = stages["speed"].model_dump(), stages["all_runs"].model_dump()
    speed_check = SpeedCheck.model_validate(speed["result"])
    startup = StartupCheck.model_validate(speed["startup"]) if speed.get("startup") else None
    timing = stages["timing"].model_dump() if "timing" in stages else {}
    window = timing.get("window") or {}
    return Verdict(proposal_id=proposal.id, verdict="accepted", stage="commit", commit=sha,
                   timed_from_step=window.get("warmup_steps"),
                   reason=f"{speed_check.reason}; {startup.reason if startup else ''} (recovered after a restart)",
                   speed=speed_check, startup=startup, data=CheckResult.model_validate(checks["data"]),
                   loss=CheckResult.model_validate(checks["loss"]),
                   side_outputs=SideOutputCheck.model_validate(checks["side_outputs"]))


Remote = Callable[[RunContext, Proposal], tuple[Proposal, Verdict, list[tuple[Proposal, Verdict]]]]
"""Judge a proposal and its alternatives elsewhere: the one kept, its uncommitted verdict, and each other
remedy's proposal and final verdict (for the history)."""


def verify(state: LoopState, remote: Remote | None = None) -> dict:
    """Apply, check and time the proposal; commit it on the run's branch or roll it back.

    ``remote`` judges the proposal, and its alternatives when it has any, elsewhere
    (agent/executors: a block on a cluster node each) and returns the one chosen with its
    uncommitted verdict, and the other remedies' outcomes, each recorded as its own verdict;
    the commit, the audit log and the state stay here.
    """
    ctx = RunContext(state, "verify")
    proposal = state.proposal
    ws = ctx.workspace
    ctx.record(NodeEntered(proposal=proposal.id))
    for candidate in [proposal, *proposal.alternatives]:
        committed = ws.committed(candidate.id)  # a crash after the commit: the verdict was accepted
        if committed:
            return _finish(ctx, candidate, _recovered(ctx, candidate, committed))
    if remote is not None:
        chosen, verdict, others = remote(ctx, proposal)
        verdict = _committed(ctx, chosen, verdict)  # first: a resume after the commit finds it, never a second one
        earlier = [_finish(ctx, other, other_verdict) for other, other_verdict in others]
        updates = _finish(ctx, chosen, verdict)
        updates["history"] = [item for step in earlier for item in step["history"]] + updates["history"]
        return updates
    c = _start(ctx, proposal)
    try:
        verdict = _committed(ctx, proposal, _judge(c))
    finally:
        ws.reset_candidate()
    updates = _finish(ctx, proposal, verdict)  # a later change paying from the second epoch: timed in the first too
    return {**updates, "second_epoch_unseen": True} if c.epoch_unseen else updates


def _committed(ctx: RunContext, proposal: Proposal, verdict: Verdict) -> Verdict:
    """Commit an accepted verdict's patch on the run's branch (the driver alone does); others pass through."""
    if verdict.verdict != "accepted":
        return verdict
    message = f"perfloop: {proposal.change}\n\n{proposal.diagnosis}: {verdict.reason}."
    trailers = {"Perfloop-Run": ctx.state.run_id, "Perfloop-Diagnosis": proposal.diagnosis,
                "Perfloop-Speedup": f"{verdict.speed.speedup:.3f}x", PROPOSAL_TRAILER: proposal.id}
    fault_point("before_commit")
    sha = ctx.workspace.commit(proposal.patch, message, trailers)
    fault_point("after_commit")
    return verdict.model_copy(update={"commit": sha})


def _finish(ctx: RunContext, proposal: Proposal, verdict: Verdict) -> dict:
    ctx.record(VerdictReached(verdict=verdict))
    remember(ctx.state, proposal, verdict)
    say(f"proposal {proposal.id} {verdict.verdict} at {verdict.stage}: {verdict.reason}"
        + (f" (commit {verdict.commit[:10]})" if verdict.commit else ""))
    if verdict.speed is not None:
        say(f"interference during timing: {verdict.speed.interference_line()}")
    updates = {"history": [Iteration(proposal=proposal, verdict=verdict)], "proposal": None,
               "runs_used": ctx.runs_used}
    if verdict.verdict == "accepted":
        updates.update(head=verdict.commit, needs_diagnosis=True)
    return updates
