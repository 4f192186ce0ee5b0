"""The run context: what a node works with besides the state, built once per node call."""
from __future__ import annotations

import json
import os
from pathlib import Path

from perfloop.agent.audit import AuditLog
from perfloop.agent.events import Event, IsolationObserved
from perfloop.agent.runs import RunFolder
from perfloop.agent.state import LoopState
from perfloop.agent.ui.progress import run_progress
from perfloop.sandbox.isolation import Isolation, ObservedIsolation, observe
from perfloop.sandbox.workspace import Workspace
from perfloop.tools.measure.folder import ProbeFolder
from perfloop.tools.measure.profiler import PipelineError, ProbeRun, ProbeSettings, run_probed, settings_for


class RunContext:
    """The run's workspace, audit log and probe settings, plus the numbering of its pipeline runs.

    Pipeline runs are numbered from ``state.runs_used``, so a node that re-runs after a
    crash reuses the same probe folders instead of counting leftovers on disk.
    """

    def __init__(self, state: LoopState, node: str) -> None:
        self.state = state
        self.node = node
        self.workspace = Workspace(state.target.repo_root, state.run_id, state.target.subdir)
        self.folder = RunFolder(state.state_dir)
        self.audit = AuditLog(self.folder.audit_log)
        self.probe: ProbeSettings = settings_for(state.target)
        self.runs_used = state.runs_used

    def record(self, event: Event) -> dict:
        """Append ``event`` to the audit log (durably) as this node's."""
        return self.audit.append(event.name, self.node, **event.model_dump(mode="json"))

    def next_run(self, label: str) -> ProbeFolder:
        """Return the probe folder for the next pipeline run, e.g. ``007-ab-candidate``."""
        folder = self.folder.probe(self.runs_used, label)
        self.runs_used += 1
        return folder

    def protected(self, tree: Path) -> ProbeSettings:
        """Return the probe settings with the user's linked inputs protected (read-only) for runs in ``tree``."""
        linked = [str(path) for path in self.workspace.linked_sources(tree)]
        return self.probe.model_copy(update={"limits": self.probe.limits.model_copy(
            update={"read_only_paths": linked})})

    def run(self, tree: Path, label: str, mode: str = "light", role: str = "",
            extra_env: dict[str, str] | None = None, window: tuple[int, int] | None = None) -> ProbeRun:
        """Run the pipeline once in ``tree`` (a worktree) under the probe.

        The tree's output folders are cleaned first. The user's ignored inputs linked
        into the tree are mounted read-only for the run where the OS allows (checked
        for changes otherwise); a write to them fails the run with a PipelineError
        naming the file. ``window``: (warmup_steps, steps) instead of the target's, for
        timing runs that measure a later epoch.
        """
        ws = self.workspace
        ws.clean_outputs(tree)
        folder = self.next_run(label)
        settings = self.protected(tree)
        if window is not None:
            settings = settings.model_copy(update={"warmup_steps": window[0], "steps": window[1]})
        with run_progress(label, role, folder, self.state.target, settings.warmup_steps + settings.steps):
            try:
                done = run_probed(self.state.target.rendered_command(), ws.target_dir(tree), folder,
                                  settings, mode=mode, label=role or label, extra_env=extra_env)
            except PipelineError as error:
                if error.result is not None:
                    self.observe_isolation(error.result.isolation, folder.name)
                raise
        self.observe_isolation(done.result.isolation, folder.name)
        return done

    def observe_isolation(self, isolation: Isolation | None, label: str) -> None:
        """Fold a run's reported isolation into ISOLATION_FILE; record it in the audit log when that changes."""
        if isolation is None:  # the command never started
            return
        path = self.folder.isolation
        seen = observed_isolation(self.folder.path)
        merged = observe(isolation, seen)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(merged.model_dump(mode="json"), indent=1))
        os.replace(tmp, path)
        kinds = ("network", "memory_limit", "inputs", "orphans_bound")
        if seen is None or any(getattr(seen, k) != getattr(merged, k) for k in kinds):
            self.record(IsolationObserved(label=label, run=isolation.model_dump(mode="json"),
                                          seen=merged.model_dump(mode="json")))


def observed_isolation(state_dir: Path) -> ObservedIsolation | None:
    """Return the weakest isolation the sandbox reported over the run's pipeline runs (None before any)."""
    path = RunFolder(state_dir).isolation
    if not path.exists():
        return None
    return ObservedIsolation.model_validate_json(path.read_text())
