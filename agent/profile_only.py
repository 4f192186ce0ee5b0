"""`perfloop profile`: profile and diagnose the committed pipeline in a throwaway worktree."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from agent.cli import EXIT_OK, emit_json, target_overrides
from agent.console import say
from agent.describe import describe_profile
from agent.runs import new_run_id, register_run


def profile_only(args: argparse.Namespace) -> int:
    """Profile + diagnose; print the profile (JSON with --json); leave no branch or worktree behind."""
    from knowledge_base import diagnose
    from sandbox.workspace import Workspace
    from tools.audit import AuditLog
    from tools.profiler import build_profile, run_probed, settings_for
    from tools.target import load_target

    target = load_target(args.path, args.config, args.cmd, target_overrides(args))
    run_id = f"profile-{new_run_id()}"
    ws = Workspace(target.repo_root, run_id, target.subdir)
    register_run(run_id, ws.state_dir)
    log = AuditLog(ws.state_dir / "audit.jsonl")
    settings = settings_for(target)
    try:
        ws.create()
        ws.link_ignored_inputs(target.target_dir, ws.base_tree, target.inputs)
        folder = ws.target_dir(ws.base_tree)
        command = target.rendered_command()
        log.append("run_started", "profile", run_id=run_id, target=target.model_dump(mode="json"), head=ws.head())
        say(f"profiling `{command}`: 1 + {target.noise_runs} runs of {target.warmup_steps} + {target.steps} steps")
        probe_root = ws.state_dir / "probe"
        full = run_probed(command, folder, probe_root / "000-profile-full", settings, mode="full", label="profile")
        light = [run_probed(command, folder, probe_root / f"{i + 1:03d}-profile-light", settings, label="baseline")
                 for i in range(target.noise_runs)]
        result = build_profile(full, light, command, folder, settings)
    finally:
        ws.cleanup()
        ws.delete_branch()
    diagnoses = diagnose(result.metrics())
    for line in describe_profile(result):
        say(line)
    for d in diagnoses:
        say(f"diagnosis {d.entry_id} (up to {d.expected_speedup:.2f}x): {d.summary}")
    payload = {"run_id": run_id, "audit_log": str(log.path), **result.model_dump(mode="json"),
               "metrics": result.metrics(), "diagnoses": [d.model_dump(mode="json") for d in diagnoses]}
    log.append("profile", "profile", profile=result.model_dump(mode="json"), metrics=result.metrics())
    log.append("diagnoses", "profile", ranked=[d.model_dump(mode="json") for d in diagnoses])
    Path(ws.state_dir, "profile.json").write_text(json.dumps(payload, indent=2))
    if args.json:
        emit_json(payload)
    return EXIT_OK
