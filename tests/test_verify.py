"""The verify cascade: one function per stage, the list in docs/verification.md generated from them."""
from __future__ import annotations

import pytest

from perfloop.agent.nodes.verify import STAGES, cascade_markdown
from tests.conftest import ROOT


def test_readme_lists_the_stages_verify_runs():
    readme = (ROOT / "docs" / "verification.md").read_text()
    assert cascade_markdown() in readme, \
        "regenerate docs/verification.md's cascade list from perfloop.agent.nodes.verify.cascade_markdown()"
    names = [stage.name for stage in STAGES]
    assert len(names) == len(set(names)) and names[0] == "patch" and names[-1] == "speed"
    assert names.index("timing") < names.index("all_runs") < names.index("speed")


def test_an_unchecked_loss_is_said_in_the_reason():
    from perfloop.agent.nodes.verify import _Cascade, _caveat
    from perfloop.tools.check.datacheck import CheckResult

    cascade = _Cascade.__new__(_Cascade)
    cascade.notes = []
    cascade.loss = CheckResult(status="not_comparable", detail="no loss was recorded (no backward() on a scalar)")
    assert _caveat(cascade) == " (loss not checked: no loss was recorded (no backward() on a scalar))"
    cascade.loss = CheckResult(status="identical", detail="10 losses bit-identical")
    assert _caveat(cascade) == ""


def test_a_loss_within_tolerance_fails_an_exact_change_with_a_reason_that_says_why():
    """A bare "loss within_tolerance" read like a pass; the reason names the rule it broke."""
    from perfloop.agent.nodes.verify import _loss_failure
    from perfloop.knowledge_base import Verification
    from perfloop.tools.check.datacheck import CheckResult

    close = CheckResult(status="within_tolerance", detail="35 losses within rtol 0.0001 atol 1e-06 (max |diff| 1.19e-07)")
    exact, tolerant = Verification(data="identical", loss="identical"), Verification(data="identical",
                                                                                     loss="within_tolerance")
    assert _loss_failure(exact, close) == ("loss not bit-identical, as a change that should not touch the numerics "
                                           "must keep it: 35 losses within rtol 0.0001 atol 1e-06 (max |diff| 1.19e-07)")
    assert _loss_failure(exact, close, " in the timing runs").startswith("loss not bit-identical in the timing runs,")
    diverged = CheckResult(status="diverged", detail="candidate run 1, step 3: 0.5 vs 0.7")
    assert _loss_failure(tolerant, diverged) == "loss diverged: candidate run 1, step 3: 0.5 vs 0.7"


@pytest.mark.serial  # a speed decision decides it: timed alone, not beside the other worker
def test_a_tolerance_the_change_declares_is_the_class_enforced_and_the_run_length_is_judged(tmp_path):
    """The tiny pipeline's Python loop vectorised with a reordered sum, through the real nodes.

    The remedy (transform_hotspot/vectorize_loops) declares exact; the codemod, asked for
    exact: false, declares its own fp32 tolerance. The verdict must name the class enforced
    (reorder) and whose tolerance it was, and the whole-run length read from the config
    (epochs x batches per epoch) must reach the start-up judgement.
    """
    from perfloop.agent.nodes.optimize import optimize
    from perfloop.agent.nodes.prepare import prepare
    from perfloop.agent.nodes.profile import profile
    from perfloop.agent.nodes.verify import verify
    from perfloop.agent.runs import new_run_id
    from perfloop.agent.state import LoopState, RemedyRef, Settings
    from perfloop.knowledge_base import describe, load_entries
    from perfloop.sandbox.workspace import Workspace
    from perfloop.tools.contract.target import load_target
    from tests.conftest import make_repo

    target = load_target(make_repo(tmp_path / "repo"),
                         overrides={"steps": 24, "warmup_steps": 2, "noise_runs": 2, "ab_runs": 2, "max_ab_runs": 3})
    assert target.run_steps == 1000 * 32  # 1000 epochs of 512 samples in batches of 16
    run_id = new_run_id()
    state = LoopState(run_id=run_id, target=target, settings=Settings(auto_approve=True),
                      state_dir=str(Workspace(target.repo_root, run_id).state_dir))
    state = state.model_copy(update=prepare(state))
    state = state.model_copy(update=profile(state))
    entry = next(e for e in load_entries() if e.id == "transform_hotspot")
    diagnosis = describe(entry, state.profile.metrics())
    remedy = next(r for r in diagnosis.remedies if r.id == "vectorize_loops")
    assert remedy.verification.tolerance_class == "exact"
    reordering = remedy.model_copy(update={"params": {**remedy.params, "exact": False}})
    diagnosis = diagnosis.model_copy(update={"remedies": [reordering]})
    state = state.model_copy(update={"diagnoses": [diagnosis],
                                     "next_remedy": RemedyRef(diagnosis=entry.id, remedy=remedy.id)})
    state = state.model_copy(update=optimize(state))
    assert state.proposal is not None and state.proposal.atol == 1e-5, "the codemod declares a tolerance"
    verdict = verify(state)["history"][-1].verdict
    assert verdict.tolerance_class == "reorder", verdict.reason
    assert verdict.tolerance_source and "change's own declaration" in verdict.tolerance_source
    assert "the sum into `total` is reordered" in verdict.tolerance_source
    assert "atol 1e-05 rtol 1e-05, class reorder where the remedy declares exact" in verdict.tolerance_source
    assert verdict.tolerance_source in verdict.reason
    # A ~100x faster batch build: the timing decides this every time.
    assert verdict.verdict == "accepted" and verdict.stage == "commit", verdict.reason
    assert verdict.data.status in ("identical", "within_tolerance")  # float64 sums, rounded to float32
    assert verdict.startup.run_steps == 32000 and verdict.startup.projected_speedup > 1.0
    assert "whole run of 32000 steps" in verdict.reason
    # The smoke run matched row by row (within the tolerance): the timing runs hashed rows only, the smoke all of it.
    from perfloop.tools.measure.record import ProbeRecord

    kinds = {(ProbeRecord.read(run.probe_dir).fingerprint, "ab-candidate" in run.probe_dir)
             for run in verdict.candidate_runs}
    assert kinds == {("full", False), ("rows", True)}, kinds


@pytest.mark.serial  # a speed decision decides it: timed alone, not beside the other worker
def test_a_cache_is_timed_in_its_second_epoch_and_so_is_every_later_change_at_its_head(tmp_path):
    """The tiny pipeline's samples cached per index, through the real nodes.

    The cache fills during the first epoch (32 batches here), so timing runs that stop inside
    it see no gain: they must run through the first epoch and time the second, check every
    batch of both, and charge the first epoch to each run's start-up in the whole-run cost.
    A later change at the head that keeps the cache is timed there too.
    """
    from perfloop.agent.audit import AuditLog
    from perfloop.agent.nodes.optimize import optimize
    from perfloop.agent.nodes.prepare import prepare
    from perfloop.agent.nodes.profile import profile
    from perfloop.agent.nodes.verify import verify
    from perfloop.agent.runs import RunFolder, new_run_id
    from perfloop.agent.state import LoopState, RemedyRef, Settings
    from perfloop.knowledge_base import describe, load_entries
    from perfloop.sandbox.workspace import Workspace
    from perfloop.tools.contract.target import load_target
    from tests.conftest import make_repo

    target = load_target(make_repo(tmp_path / "repo"),
                         overrides={"steps": 12, "warmup_steps": 2, "noise_runs": 2, "ab_runs": 2, "max_ab_runs": 3})
    run_id = new_run_id()
    state = LoopState(run_id=run_id, target=target, settings=Settings(auto_approve=True),
                      state_dir=str(Workspace(target.repo_root, run_id).state_dir))
    state = state.model_copy(update=prepare(state))
    state = state.model_copy(update=profile(state))
    assert state.profile.loader.batches_per_epoch == 32  # 512 samples in batches of 16, len() as built
    entry = next(e for e in load_entries() if e.id == "transform_hotspot")
    diagnosis = describe(entry, state.profile.metrics())
    remedy = next(r for r in diagnosis.remedies if r.id == "cache_transformed_samples")
    assert remedy.verification.gain_from_epoch == 2
    state = state.model_copy(update={"diagnoses": [diagnosis.model_copy(update={"remedies": [remedy]})],
                                     "next_remedy": RemedyRef(diagnosis=entry.id, remedy=remedy.id)})
    state = state.model_copy(update=optimize(state))
    assert state.proposal is not None and "cache Frames's samples" in state.proposal.change
    verified = verify(state)
    verdict = verified["history"][-1].verdict
    assert verdict.verdict == "accepted", verdict.reason
    assert "start-up includes the first 34 steps" in verdict.reason
    # The reason leads with where the gain starts, and the summary carries it for the eval harness's re-measure.
    assert verdict.reason.startswith("from the second epoch (step 33 on, of 32000): "), verdict.reason
    from perfloop.agent.summary import IterationSummary

    assert verdict.timed_from_step == 34 and IterationSummary.of(verified["history"][-1]).timed_from_step == 34
    assert verdict.startup.run_steps == 32000 - 34
    timing = [r["data"] for r in AuditLog(RunFolder(state.state_dir).audit_log).records()
              if r["event"] == "verify_stage" and r["data"].get("stage") == "timing" and r["data"].get("passed")]
    assert timing[-1]["window"] == {"warmup_steps": 34, "steps": 12, "epoch_steps": 32}
    # The timing runs went through the second epoch (34 + 12 steps), and their batches were compared there too.
    through = [run for run in verdict.candidate_runs if len(run.losses) == 46]
    assert len(through) >= 2 and len(through) == len(verdict.candidate_runs) - 1  # all but the smoke run
    assert verdict.data.status == "identical" and verdict.data.rows_total >= len(through) * 46 * 16, verdict.data
    # The final check times the original and the head where the kept cache serves too.
    from perfloop.agent.nodes.final_check import final_check

    final_check(state.model_copy(update={**verified, "stop_reason": "max_iterations"}))
    checks = [r["data"] for r in AuditLog(RunFolder(state.state_dir).audit_log).records() if r["event"] == "final_check"]
    assert checks[-1]["timed_from_step"] == 34 and checks[-1]["speedup"] > 1.0, checks[-1]

    # A later change is judged against the head that keeps the cache, where the cache serves. Two loader
    # workers each fill a copy of it and lose it when they stop at the epoch's end: timed in the first
    # epoch they read as a gain (neither side is cached there), timed in the second they are the slower side.
    after = state.model_copy(update={**verified, "proposal": None})
    assert after.head != state.head  # the cache was committed: this is the head that keeps it
    starved_entry = next(e for e in load_entries() if e.id == "dataloader_starved")
    starved = describe(starved_entry, state.profile.metrics())
    workers = next(r for r in starved.remedies if r.id == "raise_num_workers")
    after = after.model_copy(update={"diagnoses": [starved.model_copy(update={"remedies": [workers]})],
                                     "next_remedy": RemedyRef(diagnosis=starved_entry.id, remedy=workers.id)})
    after = after.model_copy(update=optimize(after))
    assert after.proposal is not None and "num_workers 0 → 2" in after.proposal.change, after.proposal
    second = verify(after)["history"][-1].verdict
    assert (second.verdict, second.stage) == ("rejected", "speed"), second.reason
    assert second.timed_from_step == 34, second
    timing = [r["data"] for r in AuditLog(RunFolder(state.state_dir).audit_log).records()
              if r["event"] == "verify_stage" and r["data"].get("stage") == "timing" and r["data"].get("passed")]
    assert timing[-1]["window"] == {"warmup_steps": 34, "steps": 12, "epoch_steps": 32}, timing[-1]


def test_the_second_epoch_window_is_the_epoch_plus_the_warm_up_within_its_bounds():
    from types import SimpleNamespace as NS

    from perfloop.agent.nodes.verify import EPOCH_WINDOW_MAX_S, second_epoch_window

    def state(batches, step_ms=10.0):
        return NS(target=NS(warmup_steps=3, steps=20),
                  profile=NS(loader=NS(batches_per_epoch=batches), ledger=NS(step_ms=step_ms)))

    def record(epoch_starts):
        return NS(steps=[NS(epoch_start=i in epoch_starts) for i in range(40)])

    assert second_epoch_window(state(50), [], None)[0] == (53, 20)
    # No length (an IterableDataset): the step where a head's run started its second epoch.
    window, line = second_epoch_window(state(None), [record({0}), record({0, 17, 34})], 1000)
    assert window == (20, 20) and "timed from step 20" in line
    window, line = second_epoch_window(state(None), [record({0})], None)
    assert window is None and "no length and no run reached a second epoch" in line
    # One epoch longer than a timing run may take: not extended, and said.
    slow = EPOCH_WINDOW_MAX_S * 1000.0 / 40
    window, line = second_epoch_window(state(50, step_ms=slow), [], None)
    assert window is None and "longer than a timing run may take" in line
    window, line = second_epoch_window(state(50), [], 40)
    assert window is None and "the whole run is 40 steps and one epoch 50: it never serves" in line


@pytest.mark.serial  # whole pipeline runs through the real nodes, timed alone
def test_a_cache_in_a_run_shorter_than_two_epochs_is_rejected_for_that(tmp_path):
    """Run length unknown to perfloop (the loop reads `passes`), one epoch in all: the timing runs end before
    the second epoch, where the cache would start serving; the reason says so, not "a timing run failed"."""
    from perfloop.agent.nodes.optimize import optimize
    from perfloop.agent.nodes.prepare import prepare
    from perfloop.agent.nodes.profile import profile
    from perfloop.agent.nodes.verify import verify
    from perfloop.agent.runs import new_run_id
    from perfloop.agent.state import LoopState, RemedyRef, Settings
    from perfloop.knowledge_base import describe, load_entries
    from perfloop.sandbox.workspace import Workspace
    from perfloop.tools.contract.target import load_target
    from tests.conftest import git, make_repo

    repo = make_repo(tmp_path / "repo")
    train, config = repo / "train.py", repo / "configs" / "train.yaml"
    train.write_text(train.read_text().replace('range(cfg["epochs"])', 'range(cfg["passes"])'))
    config.write_text(config.read_text().replace("epochs: 1000", "passes: 1"))
    git(repo, "commit", "-qam", "one pass")
    target = load_target(repo, overrides={"steps": 12, "warmup_steps": 2, "noise_runs": 2, "ab_runs": 2})
    assert target.run_steps is None
    run_id = new_run_id()
    state = LoopState(run_id=run_id, target=target, settings=Settings(auto_approve=True),
                      state_dir=str(Workspace(target.repo_root, run_id).state_dir))
    state = state.model_copy(update=prepare(state))
    state = state.model_copy(update=profile(state))
    entry = next(e for e in load_entries() if e.id == "transform_hotspot")
    diagnosis = describe(entry, state.profile.metrics())
    remedy = next(r for r in diagnosis.remedies if r.id == "cache_transformed_samples")
    state = state.model_copy(update={"diagnoses": [diagnosis.model_copy(update={"remedies": [remedy]})],
                                     "next_remedy": RemedyRef(diagnosis=entry.id, remedy=remedy.id)})
    state = state.model_copy(update=optimize(state))
    verdict = verify(state)["history"][-1].verdict
    assert verdict.verdict == "rejected" and verdict.stage == "timing", verdict.reason
    # 32 batches, the last step still open when the process ended.
    assert verdict.reason.startswith("the run ends after 31 steps, before its second epoch (32 steps an epoch): a "
                                     "change that pays off from the second epoch gains nothing in it"), verdict.reason


def test_a_cache_that_would_never_serve_is_not_proposed_for_a_pipeline_run():
    """blind13 a4 and b1: a per-index cache was proposed, run and rejected because the whole run ended within the
    first epoch ("it never serves"). The optimize node says so before any pipeline run, with the same figures; a
    change that pays off at once, an unknown run length and a run long enough are proposed as before."""
    from types import SimpleNamespace as NS

    from perfloop.agent.nodes.optimize import never_serves

    def state(run_steps, batches=50, unseen=False):
        return NS(target=NS(warmup_steps=3, steps=20), run_steps=run_steps, second_epoch_unseen=unseen,
                  profile=NS(loader=NS(batches_per_epoch=batches), ledger=NS(step_ms=10.0)))

    def proposal(gain_from_epoch):
        return NS(rule=NS(enforced=NS(gain_from_epoch=gain_from_epoch)))

    why = never_serves(state(40), proposal(2))
    assert why is not None and "the whole run is 40 steps and one epoch 50: it never serves" in why
    assert never_serves(state(54), proposal(2)) is not None  # the second epoch's warm-up is all it would reach
    assert never_serves(state(55), proposal(2)) is None
    assert never_serves(state(40), proposal(1)) is None
    assert never_serves(state(None), proposal(2)) is None
    assert never_serves(state(40, batches=None), proposal(2)) is None
    # blind24 s3: a loader with no length, an earlier such change timed in the first epoch for it: the next one too.
    why = never_serves(state(None, batches=None, unseen=True), proposal(2))
    assert why is not None and "an earlier such change was timed in the first epoch" in why
    assert never_serves(state(None, batches=None, unseen=True), proposal(1)) is None
    assert never_serves(state(None, batches=50, unseen=True), proposal(2)) is None  # the epoch is known now


def test_a_change_timed_in_the_first_epoch_for_want_of_one_says_so_for_the_next():
    """The cascade marks a window it wanted and could not place (no epoch seen in the head's runs), which verify hands
    on as `second_epoch_unseen`; a window it could place, or a change that pays at once, marks nothing."""
    from types import SimpleNamespace as NS

    from perfloop.agent.nodes.verify import _epoch_window

    def cascade(gain_from_epoch, epoch_starts):
        state = NS(target=NS(warmup_steps=3, steps=20), history=[],
                   profile=NS(loader=NS(batches_per_epoch=None), ledger=NS(step_ms=10.0)))
        runs = [NS(steps=[NS(epoch_start=i in epoch_starts) for i in range(40)])]
        return NS(rule=NS(gain_from_epoch=gain_from_epoch), state=state, baseline=runs, record_of=lambda run: run,
                  run_steps=None, notes=[], epoch_unseen=False)

    unseen = cascade(2, {0})
    assert _epoch_window(unseen) is None and unseen.epoch_unseen and "no run reached a second epoch" in unseen.notes[0]
    seen = cascade(2, {0, 17})
    assert _epoch_window(seen) == (20, 20) and not seen.epoch_unseen
    at_once = cascade(1, {0})
    assert _epoch_window(at_once) is None and not at_once.epoch_unseen
