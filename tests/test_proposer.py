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
    assert (proposal.rule.enforced.data, proposal.rule.enforced.loss) == ("identical", "within_tolerance")
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


def test_llm_first_uses_an_entrys_own_llm_remedy_before_its_codemods(profiled):
    state = _diagnosed(profiled, "transform_hotspot", proposer="llm", llm_url="http://127.0.0.1:9/v1")
    chosen = schedule(state)["next_remedy"]
    entry = next(e for e in load_entries() if e.id == "transform_hotspot")
    assert chosen.remedy in {r.id for r in entry.remedies if r.kind == "llm"}


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
