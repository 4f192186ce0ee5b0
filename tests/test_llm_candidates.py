"""K candidates from a real scripted endpoint: each replayed on captured calls, the best survivor verified."""
from __future__ import annotations

import json
import subprocess

from perfloop.agent.nodes.optimize import optimize
from perfloop.agent.nodes.verify import verify
from perfloop.evals.adversarial.run import undo_commit
from perfloop.evals.oracle_proposer import OracleLLM, patch_to_edits
from tests.fake_llm import ScriptedLLM
from tests.test_llm import SLOW_LINE, _events, _with_llm, profiled  # noqa: F401 (profiled is a fixture)

LOOP = "    for i in range(len(values)):\n"
APPEND = "        out.append(total)\n"


def candidate(search: str, replace: str, summary: str) -> dict:
    return {"summary": summary, "edits": [{"file": "train.py", "search": search, "replace": replace}]}


def candidates(*items: dict) -> str:
    return json.dumps({"candidates": list(items)})


CUBE = candidate(SLOW_LINE, SLOW_LINE.replace("** 2", "** 3"), "cube it")
SLOWER = candidate(APPEND, APPEND + "        sum(range(20000))\n", "same result, more work")
HOIST = candidate(LOOP, "    size = len(values)\n    for i in range(size):\n", "hoist len()")
MISSING = candidate("this text is nowhere\n", "x = 1\n", "edit a line that does not exist")


def _candidate_events(state, attempt_from: int = 0) -> list[dict]:
    return [e["data"] for e in _events(state, "llm_candidate")][attempt_from:]


def test_best_survivor_is_the_one_verified(profiled):
    before = len(_candidate_events(profiled))
    with ScriptedLLM([candidates(CUBE, SLOWER, HOIST)]) as server:
        state = _with_llm(profiled, server)
        state = state.model_copy(update=optimize(state))
    assert len(server.requests) == 1
    outcomes = {e["index"]: e for e in _candidate_events(profiled, before)}
    assert outcomes[1]["outcome"] == "failed_replay" and outcomes[1]["replay_verdict"] == "different"
    assert outcomes[2]["outcome"] == "survived" and outcomes[3]["outcome"] == "chosen"
    assert outcomes[3]["speedup"] > outcomes[2]["speedup"]  # ~20x apart: the extra work is 20000 adds per element
    assert state.proposal.change == "hoist len()" and "+    size = len(values)" in state.proposal.patch
    assert "sum(range(20000))" not in state.proposal.patch
    try:
        verdict = verify(state.model_copy(update={"decision": "approve"}))["history"][-1].verdict
    finally:
        undo_commit(profiled)  # the next test starts from the profiled code again
    assert verdict.data.status == "identical" and verdict.stage in ("speed", "commit")


def test_all_candidates_failing_skip_the_remedy_with_the_reasons(profiled):
    answer = candidates(CUBE, MISSING)
    with ScriptedLLM([answer, answer]) as server:
        updates = optimize(_with_llm(profiled, server))
    assert updates["proposal"] is None
    reason = updates["skipped"][-1].reason
    assert "candidate 1 (cube it) failed replay" in reason
    assert "candidate 2 (edit a line that does not exist) cannot be applied" in reason and "does not occur" in reason
    retry = server.requests[1]["body"]["messages"][-1]["content"]
    assert "None of those candidates can be used" in retry and "failed replay" in retry


def test_prompt_shows_callers_captured_shapes_and_an_earlier_failure(profiled):
    with ScriptedLLM([candidates(CUBE), candidates(CUBE)]) as server:
        optimize(_with_llm(profiled, server))
    prompt = server.requests[0]["body"]["messages"][0]["content"]
    assert "## The hot function: frame_energy in train.py" in prompt and "def frame_energy(values, width):" in prompt
    assert "Frames.__getitem__" in prompt and "frame_energy(self.frames[index].tolist(), self.width)" in prompt
    assert "arg 0: list[len=32] of float" in prompt and "arg 1: int" in prompt
    assert "up to 3 alternative candidates" in prompt
    with ScriptedLLM([candidates(HOIST)]) as server:
        optimize(_with_llm(profiled, server))
    later = server.requests[0]["body"]["messages"][0]["content"]
    assert "## An earlier candidate failed replay" in later and "cube it" in later


VECTORIZED = '''def frame_energy(values, width):
    """Sum of squares over a sliding window, as one numpy expression (same order of additions)."""
    import numpy as np

    v = np.asarray(values, dtype=np.float64)
    index = (np.arange(len(v))[:, None] + np.arange(width)[None, :]) % len(v)
    return np.cumsum(v[index] ** 2, axis=1)[:, -1].tolist()
'''


def test_oracle_proposer_serves_the_oracle_patch_and_the_loop_verifies_it(profiled, tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    root = profiled.target.repo_root
    original = (root / "train.py").read_text()
    start = original.index("def frame_energy")
    end = original.index("\n\n\nclass Frames")
    (target / "train.py").write_text(original)
    subprocess.run(["git", "init", "-q"], cwd=target, check=True)
    subprocess.run(["git", "add", "-A"], cwd=target, check=True)
    (target / "train.py").write_text(original[:start] + VECTORIZED.rstrip("\n") + original[end:])
    patch = subprocess.run(["git", "diff"], cwd=target, check=True, capture_output=True, text=True).stdout
    (target / "train.py").write_text(original)
    (target / "oracle.patch").write_text(patch)
    assert patch_to_edits(patch, target).unsayable == []
    with OracleLLM(target) as server:
        state = _with_llm(profiled, server)
        state = state.model_copy(update=optimize(state))
    assert server.diagnoses_asked() == ["transform_hotspot"]
    assert "np.cumsum(v[index] ** 2" in state.proposal.patch
    assert _candidate_events(profiled)[-1]["outcome"] == "chosen"
    try:
        verdict = verify(state.model_copy(update={"decision": "approve"}))["history"][-1].verdict
    finally:
        undo_commit(profiled)
    assert verdict.data.status == "identical" and verdict.loss.status == "identical"


def test_the_scripts_entry_point_is_not_replayed():
    import ast

    from perfloop.agent.proposers.llm_proposer import _is_entry_point

    script = ast.parse("def main():\n    run()\n\n\ndef run():\n    pass\n\n\nclass T:\n    def main(self):\n        main()\n\n\n"
                       "if __name__ == '__main__':\n    main()\n")
    assert _is_entry_point(script, "main")
    assert not _is_entry_point(script, "run")  # called only from inside a function
    assert not _is_entry_point(script, "T.main")
    assert _is_entry_point(ast.parse("import sys\nsys.exit(main())\n"), "main")
