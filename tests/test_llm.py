"""The LLM path against a real HTTP server on 127.0.0.1 replaying scripted answers, good and bad."""
from __future__ import annotations

import json
from pathlib import Path

import jinja2
import pytest

from perfloop.agent.nodes.optimize import optimize
from perfloop.agent.nodes.prepare import prepare
from perfloop.agent.nodes.profile import profile
from perfloop.agent.nodes.verify import verify
from perfloop.agent.proposers.llm import BadAnswer, EditAnswer, apply_edits, parse_candidates, render_prompt
from perfloop.agent.runs import new_run_id
from perfloop.agent.state import LoopState, RemedyRef, Settings
from perfloop.knowledge_base import describe, load_entries
from perfloop.sandbox.workspace import Workspace
from perfloop.tools.contract.target import load_target
from tests.fake_llm import Reply, ScriptedLLM

SLOW_LINE = "            total += values[(i + j) % len(values)] ** 2\n"


def edit(search: str, replace: str, file: str = "train.py", summary: str = "edit") -> str:
    return json.dumps({"summary": summary, "edits": [{"file": file, "search": search, "replace": replace}]})


def parse_answer(content: str) -> EditAnswer:
    """One answer, as the proposer reads it (a bare answer is one candidate)."""
    return parse_candidates(content, 1)[0]


def test_parse_answer_accepts_fenced_json_and_rejects_prose():
    answer = parse_answer("Here you go:\n```json\n" + edit("a", "b") + "\n```")
    assert answer.edits[0].search == "a"
    with pytest.raises(BadAnswer, match="neither one JSON object nor a unified diff"):
        parse_answer("I would vectorize it.")
    with pytest.raises(BadAnswer, match="answer format"):
        parse_answer(json.dumps({"summary": "x", "edits": []}))


def test_apply_edits_refuses_missing_ambiguous_and_forbidden_files(tmp_path):
    (tmp_path / "train.py").write_text("x = 1\nx = 1\ny = 2\n")
    (tmp_path / "evalkit.py").write_text("z = 3\n")

    def answer(file: str, search: str) -> EditAnswer:
        return parse_answer(edit(search, "w = 0\n", file=file))

    assert apply_edits(tmp_path, answer("train.py", "y = 2\n"), ["train.py"]) == {"train.py": "x = 1\nx = 1\nw = 0\n"}
    with pytest.raises(BadAnswer, match="does not exist"):
        apply_edits(tmp_path, answer("data.py", "y"), ["*.py"])
    with pytest.raises(BadAnswer, match="occurs 2 times"):
        apply_edits(tmp_path, answer("train.py", "x = 1\n"), ["train.py"])
    with pytest.raises(BadAnswer, match="may not be edited"):
        apply_edits(tmp_path, answer("evalkit.py", "z"), ["train.py"])
    with pytest.raises(BadAnswer, match="may not be edited"):
        apply_edits(tmp_path, answer("../outside.py", "z"), ["**/*.py"])


def test_prompt_template_is_strict():
    with pytest.raises(jinja2.UndefinedError):
        render_prompt(diagnosis=None)


@pytest.fixture(scope="module")
def profiled(tmp_path_factory):
    """A prepared and profiled run of the tiny pipeline, ready for the LLM remedy of transform_hotspot."""
    from tests.conftest import make_repo

    repo = make_repo(tmp_path_factory.mktemp("llm") / "repo")
    target = load_target(repo, overrides={"steps": 8, "warmup_steps": 2, "noise_runs": 1, "ab_runs": 1})
    run_id = new_run_id()
    state = LoopState(run_id=run_id, target=target, settings=Settings(auto_approve=True),
                      state_dir=str(Workspace(repo, run_id).state_dir))
    state = state.model_copy(update=prepare(state))
    state = state.model_copy(update=profile(state))
    entry = next(e for e in load_entries() if e.id == "transform_hotspot")
    return state.model_copy(update={"diagnoses": [describe(entry, state.profile.metrics())],
                                    "next_remedy": RemedyRef(diagnosis="transform_hotspot",
                                                                    remedy="vectorize_hot_function")})


def _with_llm(state: LoopState, server: ScriptedLLM) -> LoopState:
    settings = state.settings.model_copy(update={"llm_base_url": server.base_url, "llm_model": "scripted"})
    return state.model_copy(update={"settings": settings, "tried": [], "skipped": []})


def _events(state: LoopState, name: str) -> list[dict]:
    lines = (Path(state.state_dir) / "audit.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["event"] == name]


def test_bad_answers_are_retried_then_skipped(profiled, monkeypatch):
    monkeypatch.setenv("PERFLOOP_LLM_API_KEY", "sk-test-123")
    before = len(_events(profiled, "llm_exchange"))
    with ScriptedLLM(["not json at all", edit("x", "y", file="nowhere.py")]) as server:
        updates = optimize(_with_llm(profiled, server))
    assert updates["proposal"] is None
    assert "no usable answer" in updates["skipped"][-1].reason
    first, second = server.requests
    assert "frame_energy" in first["body"]["messages"][0]["content"]  # the hot function's source went along
    assert "neither one JSON object" in second["body"]["messages"][-1]["content"]  # the error was fed back
    assert first["authorization"] == "Bearer sk-test-123"
    exchanges = _events(profiled, "llm_exchange")
    assert len(exchanges) == before + 2
    usage = exchanges[-1]["data"]
    assert (usage["prompt_tokens"], usage["completion_tokens"], usage["http_attempts"]) == (11, 7, 1)
    assert usage["latency_s"] >= 0 and usage["finish_reason"] == "stop"


def test_failing_endpoint_skips_the_remedy_and_leaks_no_secret(profiled, monkeypatch):
    monkeypatch.setenv("PERFLOOP_LLM_API_KEY", "sk-very-secret-42")
    echo = b'{"error": "bad key sk-very-secret-42 for user bob:pa55word"}'
    with ScriptedLLM([Reply(status=401, body=echo)]) as server:
        state = _with_llm(profiled, server)
        url = server.base_url.replace("http://", "http://bob:pa55word@")
        state = state.model_copy(update={"settings": state.settings.model_copy(update={"llm_base_url": url})})
        updates = optimize(state)
    assert updates["proposal"] is None
    reason = updates["skipped"][-1].reason
    assert reason.startswith("not applicable: the LLM endpoint http://127.0.0.1:") and "HTTP 401" in reason
    failed = _events(profiled, "llm_call_failed")[-1]["data"]
    assert failed["endpoint"].startswith("http://127.0.0.1:")
    log_text = (Path(profiled.state_dir) / "audit.jsonl").read_text()
    for secret in ("sk-very-secret-42", "pa55word"):
        assert secret not in log_text and secret not in reason


def test_data_breaking_edit_is_caught_by_replay_before_any_pipeline_run(profiled):
    cube = edit(SLOW_LINE, SLOW_LINE.replace("** 2", "** 3"), summary="cube it")
    with ScriptedLLM([cube, cube]) as server:
        updates = optimize(_with_llm(profiled, server))
    assert updates["proposal"] is None
    reason = updates["skipped"][-1].reason
    assert "failed replay" in reason and "frame_energy" in reason
    assert "failed replay" in server.requests[1]["body"]["messages"][-1]["content"]  # fed back once
    ws = Workspace(profiled.target.repo_root, profiled.run_id)
    assert ws.head() == profiled.head  # nothing committed


def test_harmless_edit_keeps_data_identical(profiled):
    hoisted = "    size = len(values)\n    for i in range(size):\n"
    with ScriptedLLM([edit("    for i in range(len(values)):\n", hoisted, summary="hoist len()")]) as server:
        state = _with_llm(profiled, server)
        state = state.model_copy(update=optimize(state))
    assert "+    size = len(values)" in state.proposal.patch
    verdict = verify(state)["history"][-1].verdict
    assert verdict.data.status == "identical" and verdict.loss.status == "identical"
    assert verdict.stage in ("speed", "commit")  # whether it is faster is the timing's call
