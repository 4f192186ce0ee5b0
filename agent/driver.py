"""Drive the graph for `perfloop run` and `perfloop resume`: checkpoints, approval prompts, summary."""
from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from contextlib import contextmanager
from pathlib import Path

from agent.cli import EXIT_OK, emit_json, target_overrides
from agent.console import say
from agent.runs import find_run, new_run_id, register_run
from agent.state import LoopState, Settings
from tools.profiler import PipelineError


def checkpoint_types(model=LoopState, found: set | None = None) -> set[tuple[str, str]]:
    """List (module, class) of every pydantic model the state holds, for the checkpointer's allowlist."""
    import typing

    from pydantic import BaseModel

    found = set() if found is None else found
    key = (model.__module__, model.__name__)
    if key in found:
        return found
    found.add(key)
    pending = [field.annotation for field in model.model_fields.values()]
    while pending:
        annotation = pending.pop()
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            checkpoint_types(annotation, found)
        pending.extend(typing.get_args(annotation))
    return found


@contextmanager
def _compiled(state_dir: Path):
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    from langgraph.checkpoint.sqlite import SqliteSaver

    from agent.graph import build_graph

    connection = sqlite3.connect(state_dir / "checkpoints.sqlite", check_same_thread=False)
    # Only our own state types may be revived from a checkpoint file.
    serde = JsonPlusSerializer(allowed_msgpack_modules=sorted(checkpoint_types()))
    try:
        yield build_graph(SqliteSaver(connection, serde=serde))
    finally:
        connection.close()


def _config(run_id: str) -> dict:
    from agent.graph import RECURSION_LIMIT

    return {"configurable": {"thread_id": run_id}, "recursion_limit": RECURSION_LIMIT}


def ask_user(request: dict, stream_in=None) -> dict | None:
    """Show a proposal on stderr and read approve / reject / quit from stdin; None when stdin is closed."""
    stream_in = stream_in or sys.stdin
    err = sys.stderr
    print("\n" + "=" * 72, file=err)
    print(f"Proposal {request['proposal_id']} ({request['source']}): {request['change']}", file=err)
    print(f"Why: {request['diagnosis']}: {request['why']}", file=err)
    print(f"Expected gain: up to {request['expected_speedup']:.2f}x", file=err)
    print("Evidence: " + ", ".join(f"{k}={_fmt(v)}" for k, v in request["evidence"].items()), file=err)
    print(f"Verification: {request['verification']}", file=err)
    for caveat in request.get("caveats", []):
        print(f"Caveat: {caveat}", file=err)
    print("-" * 72 + "\n" + request["diff"].rstrip() + "\n" + "-" * 72, file=err)
    while True:
        print("[a]pprove / [r]eject / [q]uit? ", end="", file=err, flush=True)
        line = stream_in.readline()
        if not line:
            return None
        choice = {"a": "approve", "r": "reject", "q": "quit"}.get(line.strip().lower()[:1])
        if choice:
            return {"decision": choice, "by": "user"}


def _fmt(value) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def _drive(state_dir: Path, run_id: str, graph_input, as_json: bool) -> int:
    from langgraph.types import Command

    config = _config(run_id)
    with _compiled(state_dir) as graph:
        result = graph.invoke(graph_input, config)
        while result.get("__interrupt__"):
            request = result["__interrupt__"][0].value
            answer = ask_user(request)
            if answer is None:
                return _paused(state_dir, run_id, request, as_json)
            result = graph.invoke(Command(resume=answer), config)
    _release_worktrees(result)
    summary = json.loads((state_dir / "summary.json").read_text())
    for item in summary["iterations"]:
        speed = f"{item['speedup']:.2f}x" if item["speedup"] else "not timed"
        say(f"  {item['proposal_id']} {item['verdict']:8s} {item['change']} — {speed}, data "
            f"{item['data_check']}, loss {item['loss_check']}: {item['reason']}")
    if summary.get("bottleneck"):
        say(f"bottleneck now: {summary['bottleneck']}: {summary['bottleneck_summary']}")
    say(f"audit log: {summary['audit_log']} (perfloop log {run_id})")
    if as_json:
        emit_json(summary)
    return EXIT_OK


def _paused(state_dir: Path, run_id: str, request: dict, as_json: bool) -> int:
    """Leave the run waiting for a decision (stdin closed); `perfloop resume` asks again."""
    say(f"no answer on stdin: run {run_id} is paused at proposal {request['proposal_id']}; "
        f"`perfloop resume {run_id}` asks again (add --auto-approve to accept proposals unattended)")
    if as_json:
        emit_json({"run_id": run_id, "branch": f"perfloop/{run_id}", "audit_log": str(state_dir / "audit.jsonl"),
                   "stop_reason": "awaiting_approval", "pending": request})
    return EXIT_OK


def _release_worktrees(result: dict) -> None:
    """Remove the finished run's worktrees so the user can check out perfloop/<run_id> anywhere."""
    from agent.runtime import workspace

    workspace(LoopState.model_validate({k: v for k, v in result.items() if not k.startswith("__")})).cleanup()


def start_run(args: argparse.Namespace) -> int:
    """Start a new run of the loop on the target at args.path."""
    from sandbox.workspace import Workspace
    from tools.target import load_target

    target = load_target(args.path, args.config, args.cmd, target_overrides(args))
    if bool(args.llm_base_url) != bool(args.llm_model):
        raise ValueError("--llm-base-url and --llm-model go together: give both, or neither for codemods only")
    settings = Settings(auto_approve=args.auto_approve, max_iters=args.max_iters,
                        llm_base_url=args.llm_base_url, llm_model=args.llm_model)
    run_id = new_run_id()
    state_dir = Workspace(target.repo_root, run_id, target.subdir).state_dir
    register_run(run_id, state_dir)
    state = LoopState(run_id=run_id, target=target, settings=settings, state_dir=str(state_dir))
    try:
        return _drive(state_dir, run_id, state, args.json)
    except PipelineError:
        _discard_failed_start(target, run_id)
        raise


def _discard_failed_start(target, run_id: str) -> None:
    """A pipeline that fails before anything was accepted leaves no branch behind (the audit log stays)."""
    from sandbox.workspace import Workspace

    ws = Workspace(target.repo_root, run_id, target.subdir)
    if ws.head() == _user_head(target.repo_root):
        ws.cleanup()
        ws.delete_branch()
        say(f"nothing was changed; the failed run's audit log stays at {ws.state_dir / 'audit.jsonl'}")


def _user_head(repo_root: Path) -> str:
    import subprocess

    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo_root, capture_output=True, text=True).stdout.strip()


def resume_run(args: argparse.Namespace) -> int:
    """Continue a run from its last checkpoint (after a crash, Ctrl-C or a pending approval)."""
    state_dir = find_run(args.run)
    run_id = state_dir.name
    with _compiled(state_dir) as graph:
        snapshot = graph.get_state(_config(run_id))
        if not snapshot.values:
            raise ValueError(f"run {run_id} has no checkpoint to resume in {state_dir}")
        if args.auto_approve:
            settings = LoopState.model_validate(snapshot.values).settings.model_copy(update={"auto_approve": True})
            graph.update_state(_config(run_id), {"settings": settings})
        finished = not snapshot.next
    if finished:
        say(f"run {run_id} already finished")
        if args.json:
            emit_json(json.loads((state_dir / "summary.json").read_text()))
        return EXIT_OK
    pending = [t.interrupts[0].value for t in snapshot.tasks if t.interrupts]
    if pending and not args.auto_approve:
        from langgraph.types import Command

        return _drive(state_dir, run_id, Command(resume=ask_user(pending[0])), args.json)
    if pending:
        from langgraph.types import Command

        return _drive(state_dir, run_id, Command(resume={"decision": "approve", "by": "auto-approve"}), args.json)
    say(f"resuming run {run_id} at {', '.join(snapshot.next)}")
    return _drive(state_dir, run_id, None, args.json)
