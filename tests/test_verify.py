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
