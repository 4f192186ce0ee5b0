"""optimize: turn the chosen remedy into one patch against the branch head."""
from __future__ import annotations

from perfloop.agent.context import RunContext
from perfloop.agent.events import ProposalMade, RemedyNotApplicable, ReplayChecked
from perfloop.agent.faults import fault_point
from perfloop.agent.state import Attempt, LoopState, Proposal, Skip
from perfloop.agent.ui.console import say
from perfloop.tools.change.codemods import CodemodContext, DataLoaderSite, NotApplicable, apply_codemod
from perfloop.tools.change.codemods.base import ProfileFacts
from perfloop.tools.change.patching import touched_paths
from perfloop.tools.measure.models import Profile


def _replayed(ctx: RunContext, result, root) -> None:
    """Replay a source rewrite on captured real calls of the function it changed; NotApplicable when it differs.

    A rewrite that fails replay is never run in the pipeline. Where no call could be captured
    (a method whose ``self`` is too large to keep), the data check of the pipeline runs decides.
    """
    from perfloop.tools.check.replay import check_rewrite
    from perfloop.tools.measure.profiler import ProbeSettings

    settings = ProbeSettings(steps=2, warmup_steps=0, limits=ctx.protected(ctx.workspace.candidate_tree).limits,
                             first_step_timeout_s=ctx.state.target.first_step_timeout_s)
    outcome = check_rewrite(result, root, ctx.state.target.rendered_command(), ctx.next_run("replay"), settings)
    ctx.record(ReplayChecked(file=result.replay.file, function=result.replay.function, ok=outcome.ok,
                             verdict=outcome.verdict, reason=outcome.reason, num_calls=outcome.num_calls,
                             speedup=outcome.speedup))
    say(f"replay of {result.replay.function}: {outcome.reason}")
    if not outcome.ok and outcome.verdict != "no_calls":
        raise NotApplicable(f"function-level replay failed, so the pipeline was not run: {outcome.reason}")


def codemod_facts(profile: Profile) -> ProfileFacts:
    """The slice of the profile a codemod reads: the hot function as an object, the loader's numbers."""
    metrics = profile.typed_metrics()
    return ProfileFacts(hot_function=profile.transform_hot_function(), num_workers=metrics.num_workers,
                        workers_needed=metrics.workers_needed, cpu_count=profile.cpu_count)


def _codemod_patch(ctx: RunContext, remedy):
    """Run the codemod in the candidate worktree; return (one-line change, diff, the codemod's result)."""
    ws = ctx.workspace
    ws.reset_candidate()
    root = ws.target_dir(ws.candidate_tree)
    profile = ctx.state.profile
    sites = []
    if profile.loader is not None:
        loader = profile.loader
        sites.append(DataLoaderSite(file=loader.file, line=loader.line, kwargs={
            "num_workers": loader.num_workers, "batch_size": loader.batch_size, "pin_memory": loader.pin_memory,
            "persistent_workers": loader.persistent_workers, "prefetch_factor": loader.prefetch_factor}))
    codemod_ctx = CodemodContext(root=root, config_path=ctx.state.target.config, sites=sites,
                                 profile=codemod_facts(profile), params=dict(remedy.params))
    result = apply_codemod(remedy.codemod, codemod_ctx)
    if result.replay is not None:
        _replayed(ctx, result, root)
    try:
        for relative, text in result.files.items():
            (root / relative).write_text(text, encoding="utf-8")
        patch = ws.diff_candidate()
    finally:
        ws.reset_candidate()
    return result.summary, patch, result


def optimize(state: LoopState) -> dict:
    """Produce a Proposal, or record why the remedy yields no change and go back to diagnose."""
    ctx = RunContext(state, "optimize")
    ref = state.next_remedy
    diagnosis = next(d for d in state.diagnoses if d.entry_id == ref.diagnosis)
    remedy = next(r for r in diagnosis.remedies if r.id == ref.remedy)
    attempt = Attempt(head=state.head, remedy=ref)
    try:
        declared: dict = {}
        notes: list[str] = []
        if remedy.kind == "codemod":
            change, patch, result = _codemod_patch(ctx, remedy)
            source = "codemod"
            if result.tolerance is not None:  # the change itself needs a tolerance (a reordered reduction)
                declared = {"atol": result.tolerance.atol, "rtol": result.tolerance.rtol,
                            "tolerance_reason": f"codemod {remedy.codemod}: {result.tolerance.reason}",
                            "data_rule": "within_tolerance", "loss_rule": "within_tolerance"}
            if result.one_off_cost_s is not None:
                declared["one_off_cost_s"] = result.one_off_cost_s
            notes = list(result.notes)
        else:
            from perfloop.agent.proposers.llm_proposer import propose_with_llm

            change, patch = propose_with_llm(ctx, diagnosis, remedy)
            source = "llm"
    except NotApplicable as why:
        say(f"{ref.remedy}: not applicable ({why})")
        ctx.record(RemedyNotApplicable(diagnosis=ref.diagnosis, remedy=ref.remedy, reason=str(why)))
        return {"tried": [attempt], "proposal": None, "runs_used": ctx.runs_used,
                "skipped": [Skip(head=state.head, remedy=ref, reason=f"not applicable: {why}")]}
    fault_point("mid_optimize")
    if not patch.strip():
        ctx.record(RemedyNotApplicable(diagnosis=ref.diagnosis, remedy=ref.remedy,
                                       reason="the change produced an empty diff"))
        return {"tried": [attempt], "proposal": None, "runs_used": ctx.runs_used}
    proposal = Proposal(
        id=f"p{len(state.history) + 1}-{len(state.tried) + 1}", diagnosis=ref.diagnosis, remedy=ref.remedy,
        source=source, change=change, patch=patch, touched=touched_paths(patch),
        expected_speedup=diagnosis.expected_speedup, evidence=diagnosis.evidence,
        data_rule=remedy.verification.data, loss_rule=remedy.verification.loss,
        caveats=list(remedy.verification.caveats), notes=notes,
        base_head=ctx.workspace.head()).model_copy(update=declared)
    ctx.record(ProposalMade(proposal=proposal))
    say(f"proposal {proposal.id} ({source}): {change}")
    for note in notes:
        say(f"  note: {note}")
    return {"tried": [attempt], "proposal": proposal, "runs_used": ctx.runs_used}
