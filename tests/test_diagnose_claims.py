"""Diagnose after an accepted change: say whether the bottleneck moved; hold back the accepted remedy if not."""
from __future__ import annotations

import json
from pathlib import Path

from perfloop.agent.nodes.diagnose import diagnose
from perfloop.agent.nodes.schedule import schedule
from perfloop.agent.state import ChangedSetting, Iteration, LoopState, Proposal, Settings, Verdict
from perfloop.knowledge_base import diagnose as match_entries
from perfloop.tools.contract.target import load_target
from tests.conftest import make_repo
from tests.test_models import profile


def _profile(**kwargs):
    # No hot function: the wait is the DataLoader's to fix, not a transform's.
    return profile(**kwargs).model_copy(update={"cpu_count": 8, "hot_functions": []})


def _state(tmp_path: Path, before, after, accepted: str = "dataloader_starved/raise_num_workers") -> LoopState:
    diagnosis, remedy = accepted.split("/")
    target = load_target(make_repo(tmp_path / "repo"))
    setting = ChangedSetting(knob="num_workers", old_value=2, new_value=4, location="train.py:9") \
        if remedy == "raise_num_workers" else ChangedSetting(knob="cache_samples", old_value="computed every access",
                                                             new_value="cached per index", location="data.py:9")
    proposal = Proposal(id="p1-1", diagnosis=diagnosis, remedy=remedy, source="codemod", change="num_workers 2 → 4",
                        patch="", touched=[], expected_speedup=2.0, base_head="h0", setting=setting)
    verdict = Verdict(proposal_id="p1-1", verdict="accepted", reason="faster", stage="commit", commit="h1")
    (tmp_path / "state").mkdir()
    return LoopState(run_id="r1", target=target, settings=Settings(auto_approve=True), state_dir=str(tmp_path / "state"),
                     head="h1", profile=after, diagnoses=match_entries(before.metrics()), needs_diagnosis=True,
                     history=[Iteration(proposal=proposal, verdict=verdict)])


def diagnose_and_schedule(state: LoopState) -> dict:
    """Run the two nodes as the graph does (skips from both, by the state's reducer); return the merged updates."""
    ranked = diagnose(state)
    after = state.model_copy(update={**ranked, "skipped": state.skipped + ranked["skipped"]})
    chosen = schedule(after)
    return {**ranked, **chosen, "skipped": ranked["skipped"] + chosen.get("skipped", [])}


def _diagnoses_event(state: LoopState) -> dict:
    lines = (Path(state.state_dir) / "audit.jsonl").read_text().splitlines()
    return next(r for r in map(json.loads, lines) if r["event"] == "diagnoses")["data"]


def test_a_change_that_left_the_bottleneck_in_place_is_not_followed_by_more_of_it(tmp_path, capsys):
    # Input-bound before (16 of 20 ms waiting) and after (12 of 16 ms): more workers helped but did not move it.
    before = _profile(num_workers=2, data_wait_ms=16.0, build_ms=40.0)
    after = _profile(num_workers=4, data_wait_ms=12.0, build_ms=40.0, step_ms=16.0).model_copy(
        update={"epoch_stall_share": 0.2})
    state = _state(tmp_path, before, after)
    updates = diagnose_and_schedule(state)
    assert updates["next_remedy"] is not None
    assert str(updates["next_remedy"]) == "worker_startup_every_epoch/keep_workers_alive"
    held = [s for s in updates["skipped"] if "did not move the dominant bottleneck" in s.reason]
    assert [str(s.remedy) for s in held] == ["dataloader_starved/raise_num_workers"]
    change = _diagnoses_event(state)["bottleneck_change"]
    assert change.startswith("bottleneck stayed: still input-bound, 80% -> 75% of the step")
    assert change in capsys.readouterr().err


def test_a_cache_that_left_the_first_epoch_input_bound_is_followed_by_the_entrys_other_remedies(tmp_path):
    # A first-access cache serves from the second epoch: the profile (the first) still waits for the same
    # transform. Vectorising it is a different change, and the one the first epoch needs.
    before = profile(num_workers=0, data_wait_ms=16.0, build_ms=40.0)
    after = profile(num_workers=0, data_wait_ms=15.0, build_ms=39.0)
    state = _state(tmp_path, before, after, accepted="transform_hotspot/cache_transformed_samples")
    updates = diagnose_and_schedule(state)
    # A rewrite of code (no option set) is not held back either: it may apply at the next hot function.
    assert not [s for s in updates["skipped"] if "did not move the dominant bottleneck" in s.reason]
    skipped = {str(s.remedy) for s in updates["skipped"]}
    assert {"transform_hotspot/vectorize_loops", "transform_hotspot/hoist_transform_invariants"}.isdisjoint(skipped)


def test_a_change_that_moved_the_bottleneck_leaves_every_remedy_open(tmp_path):
    before = _profile(num_workers=2, data_wait_ms=16.0, build_ms=40.0)
    # After: Python in the loop dominates (host), the wait is smaller but still there.
    after = _profile(num_workers=4, data_wait_ms=5.0, build_ms=40.0, step_ms=20.0)
    ledger = after.ledger.model_copy(update={"forward_ms": 2.0, "backward_ms": 2.0, "other_ms": 11.0})
    state = _state(tmp_path, before, after.model_copy(update={"ledger": ledger}))
    updates = diagnose_and_schedule(state)
    change = _diagnoses_event(state)["bottleneck_change"]
    assert change.startswith("bottleneck moved: was input-bound 80% (dataloader_starved), now host-bound 55% (per_step_python_overhead)")
    assert not any("did not move" in s.reason for s in updates["skipped"])
    # The new top bottleneck's own offline remedy comes first; nothing was skipped for not moving.
    assert str(updates["next_remedy"]) == "per_step_python_overhead/hoist_step_invariants"


def test_no_accepted_change_means_no_comparison(tmp_path):
    before = _profile(num_workers=2, data_wait_ms=16.0, build_ms=40.0)
    state = _state(tmp_path, before, before)
    history = [state.history[0].model_copy(update={"verdict": state.history[0].verdict.model_copy(
        update={"verdict": "rejected", "commit": None})})]
    state = state.model_copy(update={"history": history})
    updates = diagnose_and_schedule(state)
    assert "bottleneck_change" not in _diagnoses_event(state)
    assert str(updates["next_remedy"]) == "dataloader_starved/raise_num_workers"


def test_an_edit_tried_under_one_entry_is_not_tried_again_under_another(tmp_path, capsys):
    # hidden_input_contention and transform_hotspot both offer the vectoriser: once tried at a head, under
    # either entry, the loop does not verify the same edit again there.
    from perfloop.agent.state import Attempt, RemedyRef
    from tests.test_knowledge_base import fixture

    before = _profile(num_workers=2, data_wait_ms=2.0, build_ms=40.0)
    state = _state(tmp_path, before, before)
    contention = match_entries(fixture("hidden_input_contention")["triggers"])
    assert contention[0].entry_id == "hidden_input_contention"
    tried = Attempt(head="h1", remedy=RemedyRef(diagnosis="transform_hotspot", remedy="vectorize_loops"))
    state = state.model_copy(update={"diagnoses": contention[:1], "needs_diagnosis": False, "history": [],
                                     "tried": [tried]})
    updates = diagnose_and_schedule(state)
    assert updates["next_remedy"] is None  # the LLM remedy is left, and no LLM is configured
    reasons = {str(s.remedy): s.reason for s in updates["skipped"]}
    assert reasons["hidden_input_contention/vectorize_batch_building"] == (
        "the same edit as transform_hotspot/vectorize_loops, already tried at this head")
    # Untried anywhere, it is the entry's first choice.
    fresh = state.model_copy(update={"tried": []})
    assert str(diagnose_and_schedule(fresh)["next_remedy"]) == "hidden_input_contention/vectorize_batch_building"
