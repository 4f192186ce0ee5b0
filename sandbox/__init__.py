"""Run pipelines in isolation and keep each run's checkouts in git worktrees."""

from perfloop.sandbox.inputs import changed_inputs, snapshot_inputs
from perfloop.sandbox.runner import RunLimits, RunResult, run_command, scrub_env
from perfloop.sandbox.workspace import PatchError, Workspace, user_tree_dirty

__all__ = [
    "PatchError", "RunLimits", "RunResult", "Workspace", "changed_inputs", "run_command",
    "scrub_env", "snapshot_inputs", "user_tree_dirty",
]
