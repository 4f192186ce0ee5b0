"""--proposer and the proposer seam: who is asked first, and one answer shape whoever answers."""
from __future__ import annotations

import json

from perfloop.agent.nodes.optimize import optimize
from perfloop.agent.nodes.schedule import schedule
from perfloop.agent.rule import GENERAL_REMEDY
from perfloop.agent.state import Attempt, LoopState, RemedyRef
from perfloop.knowledge_base import describe, load_entries
from perfloop.sandbox.workspace import Workspace
from tests.conftest import git, make_repo
from tests.fake_llm import ScriptedLLM
from tests.test_llm import _events, edit, profiled  # noqa: F401  (a module-scoped profiled run of the tiny pipeline)


def _diagnosed(state: LoopState, *entry_ids: str, proposer: str, llm_url: str | None = None) -> LoopState:
    entries = {e.id: e for e in load_entries()}
    settings = state.settings.model_copy(update={"proposer": proposer, "llm_base_url": llm_url,
                                                 "llm_model": "scripted" if llm_url else None})
    return state.model_copy(update={
        "settings": settings, "tried": [], "skipped": [], "history": [], "next_remedy": None,
        "diagnoses": [describe(entries[e], state.profile.metrics()) for e in entry_ids]})


def test_llm_first_asks_the_model_where_the_entry_lists_only_knobs(profiled):
    entry = next(e for e in load_entries() if e.id == "dataloader_starved")
    assert {r.kind for r in entry.remedies} == {"codemod"}  # knobs only: offline, the LLM is never asked
    hoisted = "    size = len(values)\n    for i in range(size):\n"
    answer = edit("    for i in range(len(values)):\n", hoisted, summary="hoist len()")
    with ScriptedLLM([answer]) as server:
        state = _diagnosed(profiled, "dataloader_starved", proposer="llm", llm_url=server.base_url)
        chosen = schedule(state)
        assert chosen["next_remedy"] == RemedyRef(diagnosis="dataloader_starved", remedy=GENERAL_REMEDY)
        updates = optimize(state.model_copy(update=chosen))
    prompt = server.requests[0]["body"]["messages"][0]["content"]
    assert "Make the change that removes this bottleneck" in prompt and "dataloader_starved" in prompt
    proposal = updates["proposal"]
    assert proposal.source == "llm" and "+    size = len(values)" in proposal.patch
    # The proposal carries the rule it will be held to, decided here once.
    # An input-side bottleneck's general remedy is exact: batches and loss bit-identical.
    assert (proposal.rule.enforced.data, proposal.rule.enforced.loss) == ("identical", "identical")
    recorded = _events(profiled, "proposal")[-1]["data"]["proposal"]
    assert recorded["rule"]["policy"]["data"]["rule"] == "identical"
    # The diff came from a private index: the candidate worktree is as the head left it.
    ws = Workspace(profiled.target.repo_root, profiled.run_id)
    assert git(ws.candidate_tree, "status", "--porcelain") == ""


def test_llm_first_falls_back_to_the_entrys_codemods(profiled):
    state = _diagnosed(profiled, "dataloader_starved", proposer="llm", llm_url="http://127.0.0.1:9/v1")
    general = RemedyRef(diagnosis="dataloader_starved", remedy=GENERAL_REMEDY)
    state = state.model_copy(update={"tried": [Attempt(head=state.head, remedy=general)]})
    assert schedule(state)["next_remedy"] == RemedyRef(diagnosis="dataloader_starved", remedy="raise_num_workers")


def _order(state: LoopState) -> list[str]:
    """Every remedy schedule would choose, in turn, marking each tried."""
    chosen = []
    while (ref := schedule(state)["next_remedy"]) is not None:
        chosen.append(f"{ref.diagnosis}/{ref.remedy}")
        state = state.model_copy(update={"tried": state.tried + [Attempt(head=state.head, remedy=ref)]})
    return chosen


def test_llm_first_asks_the_general_remedy_then_the_entrys_own_llm_remedy_then_its_codemods(profiled):
    state = _diagnosed(profiled, "transform_hotspot", proposer="llm", llm_url="http://127.0.0.1:9/v1")
    entry = next(e for e in load_entries() if e.id == "transform_hotspot")
    llm = [f"transform_hotspot/{r.id}" for r in entry.remedies if r.kind == "llm"]
    codemods = [f"transform_hotspot/{r.id}" for r in entry.remedies if r.kind == "codemod"]
    assert _order(state) == [f"transform_hotspot/{GENERAL_REMEDY}", *llm, *codemods]


def test_by_default_the_offline_codemods_go_first_then_the_general_remedy(profiled):
    state = _diagnosed(profiled, "transform_hotspot", proposer="default", llm_url="http://127.0.0.1:9/v1")
    order = _order(state)
    assert order.index(f"transform_hotspot/{GENERAL_REMEDY}") == len(
        [r for r in next(e for e in load_entries() if e.id == "transform_hotspot").remedies if r.kind == "codemod"])
    assert order[-1] == "transform_hotspot/vectorize_hot_function"


def test_unattended_runs_ask_remedies_that_need_a_person_after_every_other_one(profiled):
    # decode_at_reduced_size changes the data, so --auto-approve would pause on it: it goes last, after the
    # general remedies and the other diagnosis' remedies too.
    from perfloop.knowledge_base import describe

    entries = {e.id: e for e in load_entries()}
    metrics = profiled.profile.metrics() | {"hot_function_source": "    img = Image.open(p).convert('RGB')"}
    state = _diagnosed(profiled, proposer="default", llm_url="http://127.0.0.1:9/v1")
    state = state.model_copy(update={"diagnoses": [describe(entries["decode_heavy_samples"], metrics),
                                                   describe(entries["transform_hotspot"], metrics)]})
    attended = _order(state.model_copy(update={"settings": state.settings.model_copy(
        update={"auto_approve": False})}))
    assert attended.index("decode_heavy_samples/decode_at_reduced_size") < attended.index(
        "transform_hotspot/vectorize_loops")
    unattended = _order(state.model_copy(update={"settings": state.settings.model_copy(
        update={"auto_approve": True})}))
    assert unattended[-1] == "decode_heavy_samples/decode_at_reduced_size"
    assert sorted(unattended) == sorted(attended)


def test_codemod_only_never_asks_the_llm_even_with_an_endpoint(profiled):
    state = _diagnosed(profiled, "transform_hotspot", proposer="codemod", llm_url="http://127.0.0.1:9/v1")
    entry = next(e for e in load_entries() if e.id == "transform_hotspot")
    codemods = [RemedyRef(diagnosis="transform_hotspot", remedy=r.id) for r in entry.remedies if r.kind == "codemod"]
    assert schedule(state)["next_remedy"] in codemods
    done = state.model_copy(update={"tried": [Attempt(head=state.head, remedy=ref) for ref in codemods]})
    stopped = schedule(done)
    assert stopped["next_remedy"] is None and stopped["stop_reason"] == "nothing_actionable"
    assert "--proposer codemod" in stopped["stop_detail"]
    assert all("--proposer codemod" in s.reason for s in stopped["skipped"])


def test_diff_files_matches_a_worktree_diff_and_touches_nothing(tmp_path):
    repo = make_repo(tmp_path / "repo", subdir="pipeline")
    ws = Workspace(tmp_path / "repo", "diff-test", "pipeline")
    ws.create()
    text = (repo / "train.py").read_text().replace("torch.set_num_threads(1)", "torch.set_num_threads(2)")
    patch = ws.diff_files({"train.py": text, "extra.py": "x = 1\n"})
    assert "--- a/pipeline/train.py" in patch and "+++ b/pipeline/extra.py" in patch
    assert git(ws.candidate_tree, "status", "--porcelain") == "" and git(tmp_path / "repo", "status", "--porcelain") == ""
    # It applies to the head as the verify stage applies patches.
    assert sorted(ws.apply_to_candidate(patch)) == ["pipeline/extra.py", "pipeline/train.py"]
    assert json.loads((ws.state_dir / "candidate.json").read_text())["patch"] == patch


def test_the_general_remedys_hints_carry_what_each_can_break_and_bar_what_changes_the_data():
    """A live model followed 'raise num_workers' into the random-draw check: the hint now says so."""
    from perfloop.agent.rule import general_remedy
    from perfloop.knowledge_base import describe

    entries = {e.id: e for e in load_entries()}
    starved = general_remedy(describe(entries["dataloader_starved"], {"data_wait_share": 0.6, "num_workers": 0}))
    hint = next(line for line in starved.instructions.splitlines() if line.startswith("- ") and "num_workers" in line)
    assert "[caveat: changes random augmentation streams when workers draw random numbers" in hint, hint
    decode = general_remedy(describe(entries["decode_heavy_samples"], {
        "data_wait_share": 0.6, "hot_function_source": "    img = Image.open(p).convert('RGB')"}))
    reduced = next(line for line in decode.instructions.splitlines() if "reduced-size" in line)
    assert reduced.endswith("[changes the data: not allowed under this instruction]") and "caveat" not in reduced


def test_a_codemod_that_breaks_on_unseen_code_fails_its_remedy_not_the_run(profiled, monkeypatch):
    """blind6: two codemods raised on code they were not written for (a SyntaxError from an invalid name, a git
    error from a path outside the repository) and each ended the run as an internal error. The remedy fails, said
    with where, the run goes on; the candidate worktree is as the head left it."""
    from perfloop.agent.proposers import codemod as codemod_proposer

    def broken(name, ctx):
        raise SyntaxError("invalid decimal literal")

    monkeypatch.setattr(codemod_proposer, "apply_codemod", broken)
    state = _diagnosed(profiled, "transform_hotspot", proposer="codemod")
    chosen = schedule(state)
    updates = optimize(state.model_copy(update=chosen))
    assert updates["proposal"] is None
    reason = updates["skipped"][-1].reason
    assert "failed on this code (SyntaxError: invalid decimal literal, at test_proposer.py:" in reason, reason
    assert "worth reporting" in reason
    recorded = [e["data"] for e in _events(profiled, "remedy_not_applicable")]
    assert any("failed on this code" in e["reason"] for e in recorded), recorded
    ws = Workspace(profiled.target.repo_root, profiled.run_id)
    assert git(ws.candidate_tree, "status", "--porcelain") == ""


def test_a_patch_already_verified_at_this_head_is_not_verified_again(profiled):
    """blind6 jigsaw: one vectorisation, offered by two diagnoses with different parameters, was verified twice
    (x0.05 both times), using two of three iterations. The same patch at the same head is passed over, named."""
    from perfloop.agent.state import Iteration, Verdict

    state = _diagnosed(profiled, "transform_hotspot", proposer="codemod")
    first = optimize(state.model_copy(update=schedule(state)))["proposal"]
    assert first is not None
    rejected = Verdict(proposal_id=first.id, verdict="rejected", reason="the 98.8% interval [0.05, 0.06] ...",
                       stage="speed")
    again = state.model_copy(update={"history": [Iteration(proposal=first, verdict=rejected)]})
    updates = optimize(again.model_copy(update=schedule(again)))
    assert updates["proposal"] is None
    assert f"the same patch as {first.id} (transform_hotspot/{first.remedy}), already rejected at this head" in \
        updates["skipped"][-1].reason
    # Another head: the same patch may be worth another try there.
    moved = first.model_copy(update={"base_head": "0" * 40})
    elsewhere = state.model_copy(update={"history": [Iteration(proposal=moved, verdict=rejected)]})
    assert optimize(elsewhere.model_copy(update=schedule(elsewhere)))["proposal"] is not None


def test_a_rejected_rewrite_of_one_function_is_tried_again_without_it_once_nothing_else_is_left(profiled):
    """blind14 b6 (and blind13 b6 before it): the training loop's rewrite of one function was rejected by
    verification, and the function that held the time was never tried. A codemod that rewrites one function of
    several (a memo; the training loop's per-step work) is tried again at the same head, leaving out what was
    rejected, once no untried remedy is left; where nothing else is left, the remedy is passed over, said why."""
    from perfloop.agent.nodes.schedule import CODEMOD_TRIES, codemod_retries
    from perfloop.agent.proposers.codemod import rejected_functions
    from perfloop.agent.state import Iteration, Verdict

    state = _diagnosed(profiled, "transform_hotspot", proposer="codemod")
    [diagnosis] = state.diagnoses
    memo = next(r for r in diagnosis.remedies if r.codemod == "memoize_pure_helper")
    ref = RemedyRef(diagnosis=diagnosis.entry_id, remedy=memo.id)
    first = optimize(state.model_copy(update={"next_remedy": ref, "also_remedies": []}))["proposal"]
    assert first is not None and first.setting.function == "frame_energy", first
    everything = [Attempt(head=state.head, remedy=RemedyRef(diagnosis=diagnosis.entry_id, remedy=r.id))
                  for r in diagnosis.remedies]
    rejected = Verdict(proposal_id=first.id, verdict="rejected", reason="the 98.8% interval [0.8, 1.1] ...",
                       stage="speed")
    after = state.model_copy(update={"tried": everything, "history": [Iteration(proposal=first, verdict=rejected)]})
    assert rejected_functions(after, diagnosis.entry_id, memo.id) == ["frame_energy"]
    assert [r for _, r in codemod_retries(after)] == [ref]
    chosen = schedule(after)
    assert chosen["next_remedy"] == ref
    # The tiny pipeline has no other pure function on the path: the retry is passed over, and said why.
    updates = optimize(after.model_copy(update=chosen))
    assert updates["proposal"] is None
    assert "frame_energy: tried before at this head, and refused" in updates["skipped"][-1].reason
    done = after.model_copy(update={"tried": after.tried + updates["tried"], "skipped": updates["skipped"]})
    assert list(codemod_retries(done)) == [] and schedule(done)["next_remedy"] is None
    # Not at another head, not after an accepted change, not past CODEMOD_TRIES, not for a knob.
    moved = after.model_copy(update={"history": [Iteration(proposal=first.model_copy(update={"base_head": "0" * 40}),
                                                           verdict=rejected)]})
    assert list(codemod_retries(moved)) == []
    kept = rejected.model_copy(update={"verdict": "accepted"})
    assert list(codemod_retries(after.model_copy(update={"history": [Iteration(proposal=first, verdict=kept)]}))) == []
    spent = after.model_copy(update={"tried": everything + [Attempt(head=state.head, remedy=ref)] * CODEMOD_TRIES})
    assert list(codemod_retries(spent)) == []
