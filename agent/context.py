"""The run context: what a node works with besides the state, built once per node call."""
from __future__ import annotations

from pathlib import Path

from agent.events import Event
from agent.state import LoopState
from sandbox.inputs import changed_inputs, snapshot_inputs
from sandbox.workspace import Workspace
from tools.audit import AuditLog
from tools.profiler import PipelineError, ProbeRun, ProbeSettings, run_probed, settings_for


class RunContext:
    """The run's workspace, audit log and probe settings, plus the numbering of its pipeline runs.

    Pipeline runs are numbered from ``state.runs_used``, so a node that re-runs after a
    crash reuses the same probe folders instead of counting leftovers on disk.
    """

    def __init__(self, state: LoopState, node: str) -> None:
        self.state = state
        self.node = node
        self.workspace = Workspace(state.target.repo_root, state.run_id, state.target.subdir)
        self.audit = AuditLog(Path(state.state_dir) / "audit.jsonl")
        self.probe: ProbeSettings = settings_for(state.target)
        self.runs_used = state.runs_used

    def record(self, event: Event) -> dict:
        """Append ``event`` to the audit log (durably) as this node's."""
        return self.audit.append(event.name, self.node, **event.model_dump(mode="json"))

    def next_run(self, label: str) -> Path:
        """Return the probe folder for the next pipeline run, e.g. ``007-ab-candidate``."""
        folder = Path(self.state.state_dir) / "probe" / f"{self.runs_used:03d}-{label}"
        self.runs_used += 1
        return folder

    def run(self, tree: Path, label: str, mode: str = "light", role: str = "") -> ProbeRun:
        """Run the pipeline once in ``tree`` (a worktree) under the probe.

        The tree's output folders are cleaned first, and a run that wrote through the
        links to the user's ignored inputs fails with a PipelineError naming them.
        """
        ws = self.workspace
        ws.clean_outputs(tree)
        out_dir = self.next_run(label)
        linked = ws.linked_sources(tree)
        before = snapshot_inputs(linked)
        try:
            return run_probed(self.state.target.rendered_command(), ws.target_dir(tree), out_dir,
                              self.probe, mode=mode, label=role or label)
        finally:
            written = changed_inputs(before)
            if written:
                raise PipelineError(f"the pipeline wrote through perfloop's links into your files: {written}. "
                                    "List only read-only inputs in `inputs` of [tool.perfloop] (outputs must not "
                                    "be linked), restore those files, and run again.")
