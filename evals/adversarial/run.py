"""Serve each mutant through a scripted OpenAI-compatible server and the real optimize and verify nodes.

Per target: copy it into a fresh git repo, prepare and profile it once (the real nodes),
then for each of its mutants: diagnose ``transform_hotspot`` (its LLM remedy declares the
most lenient rules: data and loss within tolerance), let ``optimize`` ask the scripted
server, which answers with the mutant's edit, and run ``verify`` on the proposal. A row
says where the mutant was stopped (or that it was accepted).
"""
from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from perfloop.evals.adversarial.corpus import MUTANTS, Mutant, oracle_control
from perfloop.evals.copy_target import copy_target

# Small bounded runs keep the corpus affordable; per_step_metrics logs every 40 steps, so its
# runs go past the first log line.
RUN_OVERRIDES = {"steps": 10, "warmup_steps": 2, "noise_runs": 2, "ab_runs": 2, "max_ab_runs": 3}
TARGET_OVERRIDES = {"per_step_metrics": {"steps": 40}}
ENTRY, REMEDY = "transform_hotspot", "vectorize_hot_function"
# Correct changes run alongside the mutants: verify must still keep them.
CONTROLS = ["float_reorder"]


@dataclass
class MutantRow:
    """Where one mutant ended."""

    name: str
    target: str
    kind: str
    verdict: str  # accepted | rejected | not_proposed | error
    stage: str
    reason: str
    data_check: str = ""  # e.g. "within_tolerance (compared 96 of 96 differing rows)"
    max_abs_diff: float | None = None


def answer(mutant: Mutant) -> str:
    """The scripted LLM's answer: the mutant's edit in the answer format agent/proposers/llm.py parses."""
    return json.dumps({"summary": f"faster: {mutant.kind}",
                       "edits": [{"file": mutant.file, "search": mutant.search, "replace": mutant.replace}]})


def _profiled(target: str, work_dir: Path):
    from perfloop.agent.nodes.prepare import prepare
    from perfloop.agent.nodes.profile import profile
    from perfloop.agent.runs import new_run_id
    from perfloop.agent.state import LoopState, Settings
    from perfloop.knowledge_base import describe, load_entries
    from perfloop.sandbox.workspace import Workspace
    from perfloop.tools.contract.target import load_target

    repo = copy_target(target, work_dir / target / "repo")
    loaded = load_target(repo, overrides={**RUN_OVERRIDES, **TARGET_OVERRIDES.get(target, {})})
    run_id = new_run_id()
    state = LoopState(run_id=run_id, target=loaded, settings=Settings(auto_approve=True),
                      state_dir=str(Workspace(repo, run_id).state_dir))
    state = state.model_copy(update=prepare(state))
    state = state.model_copy(update=profile(state))
    entry = next(e for e in load_entries() if e.id == ENTRY)
    return state.model_copy(update={"diagnoses": [describe(entry, state.profile.metrics())]})


def run_mutant(state, mutant: Mutant) -> MutantRow:
    """Propose the mutant through the LLM path and verify it; return where it ended."""
    from perfloop.agent.nodes.optimize import optimize
    from perfloop.agent.nodes.verify import verify
    from perfloop.agent.state import RemedyRef

    # The scripted server the tests use: a real HTTP server on 127.0.0.1.
    from perfloop.evals.scripted_llm import ScriptedLLM

    with ScriptedLLM([answer(mutant)] * 3) as server:
        settings = state.settings.model_copy(update={"llm_base_url": server.base_url, "llm_model": "scripted"})
        state = state.model_copy(update={"settings": settings, "tried": [], "skipped": [],
                                         "next_remedy": RemedyRef(diagnosis=ENTRY, remedy=REMEDY)})
        state = state.model_copy(update=optimize(state))
    if state.proposal is None:
        why = state.skipped[-1].reason if state.skipped else "the edit produced no change"
        return MutantRow(mutant.name, mutant.target, mutant.kind, "not_proposed", "optimize", why)
    verdict = verify(state)["history"][-1].verdict
    if verdict.verdict == "accepted":
        undo_commit(state)
    return MutantRow(mutant.name, mutant.target, mutant.kind, verdict.verdict, verdict.stage, verdict.reason,
                     verdict.data.label if verdict.data else "not_run",
                     verdict.data.max_abs_diff if verdict.data else None)


def undo_commit(state) -> None:
    """Put the run's branch back at the profiled head, so the next mutant starts from the same code."""
    from perfloop.sandbox.git import git
    from perfloop.sandbox.workspace import Workspace

    ws = Workspace(state.target.repo_root, state.run_id, state.target.subdir)
    git("reset", "--quiet", "--hard", state.head, cwd=ws.base_tree)
    ws.reset_candidate()


def run_adversarial(work_dir: Path, names: list[str] | None = None) -> list[MutantRow]:
    """Run the mutants named (by mutant or target name; all when empty); return one row each."""
    everything = MUTANTS + [oracle_control(target) for target in CONTROLS]
    chosen = [m for m in everything if not names or m.name in names or m.target in names]
    rows = []
    for target in dict.fromkeys(m.target for m in chosen):
        print(f"adversarial: profiling {target}", file=sys.stderr, flush=True)
        try:
            state = _profiled(target, work_dir)
        except Exception as error:  # one broken target must not hide the other rows
            rows += [MutantRow(m.name, target, m.kind, "error", "profile", str(error)[:300])
                     for m in chosen if m.target == target]
            continue
        for mutant in (m for m in chosen if m.target == target):
            print(f"adversarial: {mutant.name}", file=sys.stderr, flush=True)
            rows.append(run_mutant(state, mutant))
    return rows


def format_rows(rows: list[MutantRow]) -> str:
    """One line per mutant, then the count accepted."""
    lines = [f"{'mutant':<22} {'target':<17} {'kind':<24} {'verdict':<12} {'stage':<13} reason", "-" * 120]
    for row in rows:
        reason = " ".join(row.reason.split())
        if row.kind.endswith("(control)"):
            reason = f"data {row.data_check}, max |diff| {row.max_abs_diff}; {reason}"
        lines.append(f"{row.name:<22} {row.target:<17} {row.kind:<24} {row.verdict:<12} {row.stage:<13} "
                     f"{reason[:180]}")
    mutants = [row for row in rows if not row.kind.endswith("(control)")]
    accepted = sum(row.verdict == "accepted" for row in mutants)
    lines.append(f"{len(mutants)} mutants, {accepted} accepted; {len(rows) - len(mutants)} control(s)")
    return "\n".join(lines)


def rows_json(rows: list[MutantRow]) -> list[dict]:
    return [asdict(row) for row in rows]
