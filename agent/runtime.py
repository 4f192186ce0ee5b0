"""What nodes rebuild from the checkpointed state: workspace, audit log, probe settings, runs."""
from __future__ import annotations

from pathlib import Path

from agent.state import LoopState
from sandbox.inputs import changed_inputs, snapshot_inputs
from sandbox.workspace import Workspace
from tools.audit import AuditLog
from tools.profiler import PipelineError, ProbeRun, ProbeSettings, run_probed, settings_for


def workspace(state: LoopState) -> Workspace:
    """Return the run's workspace (cheap; the worktrees already exist after prepare)."""
    return Workspace(state.target.repo_root, state.run_id, state.target.subdir)


def audit(state: LoopState) -> AuditLog:
    """Open the run's audit log for appending."""
    return AuditLog(Path(state.state_dir) / "audit.jsonl")


def probe_settings(state: LoopState) -> ProbeSettings:
    """Bound and limit each pipeline run as the target contract says."""
    return settings_for(state.target)


def run_in(state: LoopState, tree: Path, name: str, mode: str = "light", label: str = "") -> ProbeRun:
    """Run the pipeline once in ``tree`` (a worktree) under the probe; files go to the state dir."""
    ws = workspace(state)
    ws.clean_outputs(tree)
    out_dir = Path(state.state_dir) / "probe" / name
    linked = ws.linked_sources(tree)
    before = snapshot_inputs(linked)
    try:
        return run_probed(state.target.rendered_command(), ws.target_dir(tree), out_dir,
                          probe_settings(state), mode=mode, label=label)
    finally:
        written = changed_inputs(before)
        if written:
            raise PipelineError(f"the pipeline wrote through perfloop's links into your files: {written}. "
                                "List only read-only inputs in `inputs` of [tool.perfloop] (outputs must not "
                                "be linked), restore those files, and run again.")


def runs_so_far(state: LoopState) -> int:
    """Count the pipeline runs this run has made (one probe folder each, reused on a node re-run)."""
    folder = Path(state.state_dir) / "probe"
    return sum(1 for _ in folder.iterdir()) if folder.is_dir() else 0
