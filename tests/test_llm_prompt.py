"""What the model is shown: the bottleneck first, the checks as they really are, the files on the hot path,
and, after a rejection, what was measured, with one more try."""
from __future__ import annotations

import textwrap
from types import SimpleNamespace

from perfloop.agent.nodes.optimize import optimize
from perfloop.agent.nodes.schedule import schedule
from perfloop.agent.nodes.verify import verify
from perfloop.agent.proposers.llm_files import prompt_files
from perfloop.agent.rule import GENERAL_REMEDY
from perfloop.agent.state import Attempt, RemedyRef
from perfloop.tools.measure.models import HotFunction, HotHelper, LoaderInfo
from tests.fake_llm import ScriptedLLM
from tests.test_llm import _with_llm, edit, profiled  # noqa: F401 (profiled is a fixture)
from tests.test_llm_candidates import APPEND, SLOWER, candidates


def _apply(state, updates: dict):
    """A node's updates as the graph applies them: tried, skipped and history grow by their reducer."""
    grown = {k: getattr(state, k) + v for k, v in updates.items() if k in ("tried", "skipped", "history")}
    return state.model_copy(update={**updates, **grown})


def _prompt(server: ScriptedLLM, k: int = 0) -> str:
    return server.requests[k]["body"]["messages"][0]["content"]


def test_the_prompt_leads_with_the_bottleneck_and_states_the_real_checks(profiled):
    with ScriptedLLM([candidates(SLOWER)]) as server:
        optimize(_with_llm(profiled, server))
    prompt = _prompt(server)
    assert prompt.index("## The bottleneck: ") < prompt.index("## How perfloop checks your change") < prompt.index(
        "## A suggested approach (a hint, not a recipe)") < prompt.index("## Files")
    assert "Where a median step of" in prompt and "data wait" in prompt and "Headspace:" in prompt
    assert "The loop that owns the time: frame_energy (train.py:" in prompt
    # What each check really enforces: comparison at the model's input, layout free; draws; start-up; replay.
    for rule in ("at the model's input", "another container or layout", "Random draws: the same random numbers",
                 "start-up included", "Side outputs:", "The same values in another layout"):
        assert rule in prompt, rule
    assert "(values, shapes and dtypes)" not in prompt  # the old, stricter-than-true replay claim
    assert "### train.py (hot path: frame_energy holds" in prompt
    assert "### configs/train.yaml (the training config)" in prompt
    assert '{"file": "<path>", "diff": "<a unified diff of that file>"}' in prompt


def test_files_follow_the_hot_path_first_and_what_does_not_fit_is_named(tmp_path):
    files = {
        "train.py": "from model import Net\nfrom data import Clips\nimport torch\n" + "# loop\n" * 40,
        "data.py": "from features import band_energy\n\nclass Clips:\n    def __getitem__(self, i):\n        return 1\n",
        "features.py": "def band_energy(x):\n    return x\n" + "# helper\n" * 30,
        "model.py": "class Net:\n    pass\n" + "# model\n" * 400,
        "unrelated.py": "x = 1\n",
        "configs/run.json": "{}\n",
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    hot = HotFunction(name="band_energy", file="features.py", line=1, phase="batch_build", share=0.55,
                      helpers=[HotHelper(name="Clips.__getitem__", file="data.py", line=4, self_share=0.2)])
    getitem = HotFunction(name="Clips.__getitem__", file="data.py", line=4, phase="batch_build", share=0.9)
    profile = SimpleNamespace(hot_functions=[hot, getitem], main_hot_functions=[],
                              loader=LoaderInfo(file="train.py", line=12, num_workers=0))
    state = SimpleNamespace(profile=profile, target=SimpleNamespace(config="configs/run.json"))
    shown, left_out = prompt_files(state, tmp_path)
    assert [f.path for f in shown] == ["features.py", "data.py", "train.py", "configs/run.json", "model.py"]
    assert [f.hot_path for f in shown] == [True, True, False, False, False]
    assert "imported by train.py" in shown[-1].why
    # A budget that holds the hot path and the loop file only: the model file is left out and named.
    budget = sum(len(files[f]) for f in ("features.py", "data.py", "train.py", "configs/run.json")) + 10
    shown, left_out = prompt_files(state, tmp_path, budget=budget)
    assert [f.path for f in shown] == ["features.py", "data.py", "train.py", "configs/run.json"]
    assert len(left_out) == 1 and left_out[0].startswith("model.py (") and "over the prompt's budget" in left_out[0]
    # Under any budget, the hot path comes before everything else (never dropped for a file off it).
    shown, left_out = prompt_files(state, tmp_path, budget=1)
    assert [f.path for f in shown] == ["features.py"]


def test_a_rejected_change_goes_back_to_the_model_once_with_what_was_measured(profiled):
    # Same result with more work: replay passes, the pipeline is slower, verification rejects it at speed.
    slower = edit(APPEND, APPEND + "        sum(range(20000))\n", summary="same result, more work")
    # The second answer differs: the same patch again would be passed over at this head, unverified.
    still_slower = edit(APPEND, APPEND + "        sum(range(30000))\n", summary="same result, still more work")
    with ScriptedLLM([slower, still_slower]) as server:
        state = _with_llm(profiled, server)
        state = _apply(state, optimize(state))
        assert state.proposal is not None and state.proposal.source == "llm"
        state = state.model_copy(update={"decision": "approve"})
        state = _apply(state, verify(state))
        verdict = state.history[-1].verdict
        assert verdict.verdict == "rejected" and verdict.stage == "speed", verdict.reason
        ref = RemedyRef(diagnosis="transform_hotspot", remedy="vectorize_hot_function")
        others = [Attempt(head=state.head, remedy=RemedyRef(diagnosis="transform_hotspot", remedy=r.id))
                  for r in state.diagnoses[0].remedies if r.id != ref.remedy]
        others.append(Attempt(head=state.head, remedy=RemedyRef(diagnosis="transform_hotspot", remedy=GENERAL_REMEDY)))
        state = _apply(state, {"tried": others})
        chosen = schedule(state)
        assert chosen["next_remedy"] == ref  # one more try, with the verdict fed back
        state = state.model_copy(update={**chosen, "proposal": None, "decision": None})
        state = _apply(state, optimize(state))
        second = _prompt(server, 1)
        assert "## Earlier attempts in this run, and what was measured" in second
        assert "same result, more work" in second and "rejected at speed" in second
        assert "interval [" in second and "noise floor" in second and "Its diff:" in second
        # After that second try, the remedy is done at this head whatever its verdict.
        assert sum(1 for a in state.tried if a.remedy == ref) == 2
        state = state.model_copy(update={"decision": "approve"})
        state = _apply(state, verify(state))
        later = schedule(state)
        assert later["next_remedy"] != ref


def test_the_prompt_names_files_left_out_and_the_hot_path_file_is_never_cut_for_them(tmp_path):
    big = "# filler line\n" * 3000
    (tmp_path / "train.py").write_text("from model import Net\n" + big)
    (tmp_path / "model.py").write_text(textwrap.dedent("class Net:\n    pass\n") + big)
    hot = HotFunction(name="main", file="train.py", line=1, phase="main:other", share=0.6)
    profile = SimpleNamespace(hot_functions=[], main_hot_functions=[hot], loader=None)
    state = SimpleNamespace(profile=profile, target=SimpleNamespace(config=None))
    shown, left_out = prompt_files(state, tmp_path, host_first=True, budget=30_000)
    assert [f.path for f in shown] == ["train.py"] and shown[0].hot_path
    assert "characters left out" in shown[0].text  # one file's own cap, said where it cuts
    assert left_out and left_out[0].startswith("model.py")


def test_earlier_attempts_say_what_became_of_each_candidate_of_the_answer():
    from perfloop.agent.proposers.llm_context import candidate_fates
    from perfloop.agent.proposers.llm_proposer import earlier_verdicts

    def candidate(index, outcome, reason="", speedup=None):
        return {"event": "llm_candidate", "data": {"attempt": 1, "index": index, "summary": f"idea {index}",
                                                   "outcome": outcome, "reason": reason, "speedup": speedup}}

    records = [candidate(1, "failed_replay", "values differ at call 2: out[3] 1.5 != 1.25"),
               candidate(2, "dropped", "search text not found in data.py"),
               candidate(3, "chosen", "passed replay", 3.1), candidate(4, "survived", "passed replay", 2.0),
               {"event": "proposal", "data": {"proposal": {"id": "p1-1", "source": "llm"}}},
               candidate(1, "chosen", "not replayed"),
               {"event": "proposal", "data": {"proposal": {"id": "p2-2", "source": "llm"}}}]
    fates = candidate_fates(records)
    assert list(fates) == ["p1-1", "p2-2"] and len(fates["p1-1"]) == 4
    assert "failed replay (values differ at call 2" in fates["p1-1"][0]
    assert "not applied (search text not found" in fates["p1-1"][1]
    assert "verified (the change above), 3.10x on the captured calls" in fates["p1-1"][2]
    assert "not verified: another candidate of the same answer was chosen" in fates["p1-1"][3]
    verdict = SimpleNamespace(verdict="accepted", stage="commit", reason="gain +200%", speed=None, data=None,
                              loss=None)
    item = SimpleNamespace(proposal=SimpleNamespace(id="p1-1", diagnosis="d", source="llm", change="idea 3",
                                                    patch=""), verdict=verdict)
    single = SimpleNamespace(proposal=SimpleNamespace(id="p2-2", diagnosis="d", source="llm", change="idea 1",
                                                      patch=""), verdict=verdict)
    lines = earlier_verdicts(SimpleNamespace(history=[item, single]), "d", records)
    assert "Its answer's candidates: candidate 1.1 \"idea 1\": failed replay" in lines[0]
    assert "Its answer's candidates" not in lines[1]  # one candidate: its verdict says it all


def test_captured_arguments_are_described_in_the_pipelines_process(tmp_path, monkeypatch):
    # perfloop's own process cannot unpickle the pipeline's classes; the capture describes them where it can.
    import importlib
    import sys

    from perfloop.agent.proposers.llm_context import describe_calls
    from perfloop.tools.measure.profiler import PROBE_DIR

    (tmp_path / "pipe_mod.py").write_text(textwrap.dedent("""
        class Window:
            def __init__(self):
                self.rows = [[1.0, 2.0], [3.0, 4.0]]
                self.scale = 0.5

            def scaled(self, gain, *, bias=0.0):
                return [[v * gain * self.scale + bias for v in row] for row in self.rows]
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(PROBE_DIR))
    capture = importlib.import_module("perfloop_capture")
    module = importlib.import_module("pipe_mod")
    out = tmp_path / "calls"
    out.mkdir()
    hook = capture._Capture(str(tmp_path / "pipe_mod.py"), "Window.scaled", str(out), max_calls=2, max_bytes=10**6)
    sys.setprofile(hook.hook)
    try:
        module.Window().scaled(2.0, bias=1.0)
    finally:
        sys.setprofile(None)
    # The call's own arguments, its description, and the object once (a method's `self`, kept for all its calls).
    assert sorted(p.name.split("-")[0] + p.suffix for p in out.iterdir()) == ["call.pkl", "call.txt", "self.pkl"]
    del sys.modules["pipe_mod"]
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(tmp_path)])
    text = describe_calls(out)
    assert "arg 0: pipe_mod.Window with rows: list[len=2] of list, scale: float = 0.5" in text
    assert "arg 1: float = 2.0" in text and "bias: float = 1.0" in text
    (next(out.glob("*.txt"))).unlink()  # a capture made before descriptions: read back, and here it cannot be
    assert "could not be read back here (ModuleNotFoundError" in describe_calls(out)


def test_a_crash_on_a_self_built_by_the_old_init_is_left_to_the_data_check_when_init_changed():
    from perfloop.agent.proposers.llm_proposer import _edits_the_init

    old = textwrap.dedent("""
        class Clips:
            def __init__(self, rows):
                self.rows = rows

            def __getitem__(self, i):
                return [v * 2 for v in self.rows[i]]
    """)
    new_init = old.replace("self.rows = rows", "self.rows = rows\n        self.table = [[v * 2 for v in r] for r in rows]")
    new_method = old.replace("[v * 2 for v in self.rows[i]]", "list(map((2).__mul__, self.rows[i]))")
    assert _edits_the_init(old, new_init, "Clips.__getitem__")
    assert not _edits_the_init(old, new_method, "Clips.__getitem__")
    assert not _edits_the_init(old, new_init, "band_energy")  # a function has no captured self
    plain = textwrap.dedent("""
        class Clips:
            def __getitem__(self, i):
                return i
    """)
    assert _edits_the_init(plain, plain.replace("class Clips:\n", "class Clips:\n    def __init__(self):\n"
                                                "        self.x = 1\n\n", 1), "Clips.__getitem__")


def test_the_prompt_states_the_machine_the_versions_and_the_whole_runs_length():
    from perfloop.agent.proposers.llm_proposer import environment
    from perfloop.tools.measure.models import LoaderInfo

    profile = SimpleNamespace(cpu_count=2, device="cpu", versions={"python": "3.11.7", "torch": "2.13.0+cpu",
                                                                    "numpy": "2.3.1"},
                              loader=LoaderInfo(file="train.py", line=40, num_workers=0), startup_s=2.43)
    line = environment(SimpleNamespace(profile=profile, run_steps=1200))
    assert line == ("2 usable CPU core(s), device cpu; python 3.11.7, torch 2.13.0+cpu, numpy 2.3.1; the DataLoader "
                    "(train.py:40) uses 0 worker process(es); start-up (launch to the first batch) 2.4 s; a whole "
                    "run of this config is 1200 steps.")
    bare = SimpleNamespace(profile=SimpleNamespace(cpu_count=1, device="cpu", versions={}, loader=None, startup_s=0.5),
                           run_steps=None)
    assert "versions not recorded; no DataLoader was seen" in environment(bare)
    assert "the config does not say how many steps a whole run is" in environment(bare)
