"""prepare: create the run's branch and worktrees, link ignored inputs, open the audit log."""
from __future__ import annotations

from perfloop.agent.context import RunContext
from perfloop.agent.events import RunStarted
from perfloop.agent.faults import fault_point
from perfloop.agent.redact import redacted_url
from perfloop.agent.state import LoopState
from perfloop.agent.ui.console import say
from perfloop.sandbox.runner import expected_isolation
from perfloop.sandbox.workspace import user_tree_dirty


def prepare(state: LoopState) -> dict:
    """Set up the isolated checkouts (idempotent: a resumed run reuses them)."""
    ctx = RunContext(state, "prepare")
    ws = ctx.workspace
    ws.create()
    target = state.target
    linked: list[str] = []
    for tree in (ws.base_tree, ws.candidate_tree):
        linked = ws.link_ignored_inputs(target.target_dir, tree, target.inputs)
    dirty = user_tree_dirty(target.repo_root)
    head = ws.head()
    if dirty:
        say(f"your working tree has {len(dirty)} uncommitted change(s); perfloop works from HEAD "
            f"{head[:10]} and leaves them as they are")
    isolation = expected_isolation(ctx.protected(ws.base_tree).limits)
    if not isolation.network_cut and not target.network:
        say(f"note: the pipeline keeps network access ({isolation.network})")
    if isolation.num_inputs_checked_only:
        say(f"note: your ignored inputs cannot be mounted read-only here ({isolation.inputs}); "
            "they are checked for changes after each run instead")
    settings = state.settings.model_dump(mode="json") | {"llm_base_url": redacted_url(state.settings.llm_base_url)}
    ctx.record(RunStarted(run_id=state.run_id, branch=ws.branch, head=head, target=target.model_dump(mode="json"),
                          settings=settings, uncommitted_paths=dirty, linked_inputs=linked,
                          network_isolated=isolation.network_cut, isolation=isolation.model_dump(mode="json"),
                          worktrees=[str(ws.base_tree), str(ws.candidate_tree)]))
    say(f"run {state.run_id}: branch {ws.branch}, audit log {ctx.audit.path}")
    fault_point("after_prepare")
    return {"head": head, "base": state.base or head}
