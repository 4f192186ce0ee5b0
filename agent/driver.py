"""Drive the graph for `perfloop run`, `perfloop resume` and `perfloop profile`: checkpoints, prompts, summary."""
from __future__ import annotations

import json
import logging
import sqlite3
from contextlib import contextmanager
from pathlib import Path

from perfloop.agent.audit import AuditWriteError
from perfloop.agent.runs import RunFolder, find_run, new_run_id, register_run
from perfloop.agent.state import ApprovalAnswer, ApprovalRequest, LoopState, Settings
from perfloop.agent.summary import PausedSummary
from perfloop.agent.ui.approval import ask_user
from perfloop.agent.ui.console import EXIT_OK, InternalError, emit_json, save_traceback, say
from perfloop.sandbox.errors import BadInput
from perfloop.tools.contract.target import Target
from perfloop.tools.measure.profiler import PipelineError

PASSED_THROUGH = (BadInput, PipelineError, AuditWriteError, KeyboardInterrupt)
"""What a run may end with on purpose (exit 2, 3, 4/5 for the audit log, 130); anything else is a bug."""


@contextmanager
def _bugs_reported(state_dir: Path, run_id: str):
    """Turn an unexpected exception into InternalError; user-facing errors pass through unchanged.

    Only ``BadInput`` counts as the user's mistake: a ``ValueError`` of any other kind raised
    inside a run (a pydantic ValidationError, a JSONDecodeError, ...) is perfloop's own bug.
    """
    try:
        yield
    except PASSED_THROUGH:
        raise
    except Exception as error:
        raise InternalError(run_id, state_dir, save_traceback(state_dir)) from error


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


LEGACY_MODULES = ("agent.", "tools.", "sandbox.", "knowledge_base.")
"""Where perfloop's types lived before the one import name: checkpoints of older runs name them."""


class _LegacyTypesRevivedFromData(logging.Filter):
    """Keep quiet about older runs' state types: the checkpointer hands back their data, which LoopState validates
    into today's types (a resumed run carries on); a type of any other module is still reported."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        return not (args and isinstance(args[0], str) and args[0].startswith(LEGACY_MODULES))


@contextmanager
def _compiled(state_dir: Path):
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    from langgraph.checkpoint.sqlite import SqliteSaver

    from perfloop.agent.graph import build_graph

    quiet = logging.getLogger("langgraph.checkpoint.serde.jsonplus")
    if not any(isinstance(f, _LegacyTypesRevivedFromData) for f in quiet.filters):
        quiet.addFilter(_LegacyTypesRevivedFromData())
    connection = sqlite3.connect(RunFolder(state_dir).checkpoints, check_same_thread=False)
    # Only our own state types may be revived from a checkpoint file.
    serde = JsonPlusSerializer(allowed_msgpack_modules=sorted(checkpoint_types()))
    try:
        yield build_graph(SqliteSaver(connection, serde=serde))
    finally:
        connection.close()


def _config(run_id: str) -> dict:
    from perfloop.agent.graph import RECURSION_LIMIT

    return {"configurable": {"thread_id": run_id}, "recursion_limit": RECURSION_LIMIT}


def _drive(state_dir: Path, run_id: str, graph_input, as_json: bool, answer_pending: bool = False) -> int:
    """Invoke the graph until it ends or waits for an answer stdin cannot give."""
    from langgraph.types import Command

    config = _config(run_id)
    with _bugs_reported(state_dir, run_id):
        with _compiled(state_dir) as graph:
            if answer_pending:  # resuming at a proposal: ask first
                snapshot = graph.get_state(config)
                request = ApprovalRequest.model_validate(
                    next(t.interrupts[0].value for t in snapshot.tasks if t.interrupts))
                answer = ask_user(request)
                if answer is None:
                    return _paused(state_dir, run_id, request, as_json)
                graph_input = Command(resume=answer.model_dump(mode="json"))
            # durability="sync": each node's checkpoint is on disk before the next node starts, so a kill
            # inside a node resumes from the node before it (with "async", a kill could land before the
            # previous checkpoint was written, and the run would look finished).
            result = graph.invoke(graph_input, config, durability="sync")
            while result.get("__interrupt__"):
                request = ApprovalRequest.model_validate(result["__interrupt__"][0].value)
                answer = ask_user(request)
                if answer is None:
                    return _paused(state_dir, run_id, request, as_json)
                result = graph.invoke(Command(resume=answer.model_dump(mode="json")), config, durability="sync")
        state = LoopState.model_validate({k: v for k, v in result.items() if not k.startswith("__")})
        _release_worktrees(state)
        summary = json.loads(RunFolder(state_dir).summary.read_text())
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


def _paused(state_dir: Path, run_id: str, request: ApprovalRequest, as_json: bool) -> int:
    """Leave the run waiting for a decision (stdin closed); `perfloop resume` asks again."""
    say(f"no answer on stdin: run {run_id} is paused at proposal {request.proposal_id}; "
        f"`perfloop resume {run_id}` asks again (add --auto-approve to accept proposals unattended)")
    if as_json:
        emit_json(PausedSummary(run_id=run_id, branch=f"perfloop/{run_id}", audit_log=str(RunFolder(state_dir).audit_log),
                                pending=request).model_dump(mode="json"))
    return EXIT_OK


def _release_worktrees(state: LoopState) -> None:
    """Remove the finished run's worktrees so the user can check out perfloop/<run_id> anywhere."""
    from perfloop.sandbox.workspace import Workspace

    Workspace(state.target.repo_root, state.run_id, state.target.subdir).cleanup()


def _new_state(target: Target, settings: Settings, run_id: str) -> LoopState:
    from perfloop.sandbox.workspace import Workspace

    state_dir = Workspace(target.repo_root, run_id, target.subdir).state_dir
    register_run(run_id, state_dir)
    return LoopState(run_id=run_id, target=target, settings=settings, state_dir=str(state_dir))


def start_run(target: Target, settings: Settings, as_json: bool) -> int:
    """Start a new run of the loop on ``target`` (one run per repository at a time)."""
    from perfloop.sandbox.lock import RunLock

    run_id = new_run_id()
    with RunLock(target.repo_root, run_id):
        state = _new_state(target, settings, run_id)
        try:
            return _drive(Path(state.state_dir), state.run_id, state, as_json)
        except PipelineError:
            _discard_failed_start(target, state.run_id)
            raise


def _discard_failed_start(target: Target, run_id: str) -> None:
    """A pipeline that fails before anything was accepted leaves no branch behind (the audit log stays)."""
    from perfloop.sandbox.git import head_of
    from perfloop.sandbox.workspace import Workspace

    ws = Workspace(target.repo_root, run_id, target.subdir)
    if ws.head() == head_of(target.repo_root):
        ws.cleanup()
        ws.delete_branch()
        say(f"nothing was changed; the failed run's audit log stays at {RunFolder(ws.state_dir).audit_log}")


def resume_run(ref: str, auto_approve: bool, as_json: bool, allow_precision: bool = False) -> int:
    """Continue a run from its last checkpoint (after a crash, Ctrl-C or a pending approval).

    A pending approval is answered unattended only with ``auto_approve`` and only where the proposal
    does not need a person (a changes-data change always does; a precision one without
    ``allow_precision``): otherwise it is asked again.
    """
    from langgraph.types import Command

    from perfloop.agent.rule import rule_of
    from perfloop.sandbox.lock import RunLock

    state_dir = find_run(ref)
    run_id = state_dir.name
    with _bugs_reported(state_dir, run_id), _compiled(state_dir) as graph:
        snapshot = graph.get_state(_config(run_id))
        if not snapshot.values:
            raise BadInput(f"run {run_id} has no checkpoint to resume in {state_dir}")
        state = LoopState.model_validate(snapshot.values)
        update = {name: True for name, given in (("auto_approve", auto_approve),
                                                 ("allow_precision", allow_precision)) if given}
        settings = state.settings.model_copy(update=update)
        if update:
            graph.update_state(_config(run_id), {"settings": settings})
        # A checkpoint whose tasks ran but whose successor was never written (a run killed by an older
        # perfloop's asynchronous checkpointing) has no next node yet pending writes: not finished.
        finished = not snapshot.next and not snapshot.tasks
        repo_root = state.target.repo_root
        needs_person = state.proposal is not None and rule_of(state, state.proposal).needs_person(
            settings.allow_precision)
    if finished:
        say(f"run {run_id} already finished")
        if as_json:
            emit_json(json.loads(RunFolder(state_dir).summary.read_text()))
        return EXIT_OK
    pending = any(t.interrupts for t in snapshot.tasks)
    with RunLock(repo_root, run_id):
        if pending and (not auto_approve or needs_person):
            return _drive(state_dir, run_id, None, as_json, answer_pending=True)
        if pending:
            unattended = ApprovalAnswer(decision="approve", by="auto-approve")
            return _drive(state_dir, run_id, Command(resume=unattended.model_dump(mode="json")), as_json)
        say(f"resuming run {run_id} at {', '.join(snapshot.next)}")
        return _drive(state_dir, run_id, None, as_json)


def profile_target(target: Target, as_json: bool, trace: str | None = None) -> int:
    """`perfloop profile`: the loop's prepare, profile and diagnose nodes; leave no branch or worktree.

    With ``trace``, also write the full run's timeline there as a Chrome trace.
    """
    from perfloop.agent.graph import build_graph
    from perfloop.sandbox.lock import RunLock

    run_id = f"profile-{new_run_id()}"
    with RunLock(target.repo_root, run_id), _profile_scope(target, run_id):
        state = _new_state(target, Settings(profile_only=True), run_id)
        with _bugs_reported(Path(state.state_dir), state.run_id):
            result = build_graph().invoke(state, {"recursion_limit": 20})
            final = LoopState.model_validate(result)
            payload = {"run_id": state.run_id, "audit_log": str(RunFolder(state.state_dir).audit_log),
                       **final.profile.model_dump(mode="json"), "metrics": final.profile.metrics(),
                       "diagnoses": [d.model_dump(mode="json") for d in final.diagnoses],
                       "isolation": _observed(Path(state.state_dir))}
            RunFolder(state.state_dir).profile_summary.write_text(json.dumps(payload, indent=2))
            if trace:
                from perfloop.agent.ui.trace import write_profile_trace

                write_profile_trace(final.profile, Path(state.state_dir), Path(trace))
    if as_json:
        emit_json(payload)
    return EXIT_OK


def _observed(state_dir: Path) -> dict | None:
    """The weakest isolation the sandbox reported over the run's pipeline runs, as JSON."""
    from perfloop.agent.context import observed_isolation

    seen = observed_isolation(state_dir)
    return seen.model_dump(mode="json") if seen else None


@contextmanager
def _profile_scope(target: Target, run_id: str):
    """Leave no branch or worktree behind a `perfloop profile`, however it ends."""
    from perfloop.sandbox.workspace import Workspace

    try:
        yield
    finally:
        ws = Workspace(target.repo_root, run_id, target.subdir)
        ws.cleanup()
        ws.delete_branch()
