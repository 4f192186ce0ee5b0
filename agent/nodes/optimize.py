"""optimize: turn the chosen remedy into one patch against the branch head."""
from __future__ import annotations

from agent.console import say
from agent.nodes.diagnose import remedy_key
from agent.runtime import audit, workspace
from agent.state import LoopState, Proposal
from tools.patching import touched_paths
from tools.codemods import CodemodContext, DataLoaderSite, NotApplicable, apply_codemod


def _codemod_patch(state: LoopState, remedy) -> tuple[str, str]:
    """Run the codemod in the candidate worktree; return (one-line change, diff)."""
    ws = workspace(state)
    ws.reset_candidate()
    root = ws.target_dir(ws.candidate_tree)
    profile = state.profile
    sites = []
    if profile.loader is not None:
        loader = profile.loader
        sites.append(DataLoaderSite(file=loader.file, line=loader.line, kwargs={
            "num_workers": loader.num_workers, "batch_size": loader.batch_size, "pin_memory": loader.pin_memory,
            "persistent_workers": loader.persistent_workers, "prefetch_factor": loader.prefetch_factor}))
    ctx = CodemodContext(root=root, config_path=state.target.config, sites=sites,
                         metrics=profile.metrics(), params=dict(remedy.params))
    result = apply_codemod(remedy.codemod, ctx)
    try:
        for relative, text in result.files.items():
            (root / relative).write_text(text, encoding="utf-8")
        patch = ws.diff_candidate()
    finally:
        ws.reset_candidate()
    return result.summary, patch


def optimize(state: LoopState) -> dict:
    """Produce a Proposal, or record why the remedy yields no change and go back to diagnose."""
    log = audit(state)
    diagnosis_id, remedy_id = state.next_remedy.split(":", 1)
    diagnosis = next(d for d in state.diagnoses if d.entry_id == diagnosis_id)
    remedy = next(r for r in diagnosis.remedies if r.id == remedy_id)
    tried = state.tried + [remedy_key(state.head, diagnosis_id, remedy_id)]
    try:
        if remedy.kind == "codemod":
            change, patch = _codemod_patch(state, remedy)
            source = "codemod"
        else:
            from agent.llm import propose_with_llm

            change, patch = propose_with_llm(state, diagnosis, remedy)
            source = "llm"
    except NotApplicable as why:
        say(f"{remedy_id}: not applicable ({why})")
        log.append("remedy_not_applicable", "optimize", diagnosis=diagnosis_id, remedy=remedy_id, reason=str(why))
        skipped = state.skipped + [{"key": tried[-1], "reason": f"not applicable: {why}"}]
        return {"tried": tried, "proposal": None, "skipped": skipped}
    if not patch.strip():
        log.append("remedy_not_applicable", "optimize", diagnosis=diagnosis_id, remedy=remedy_id,
                   reason="the change produced an empty diff")
        return {"tried": tried, "proposal": None}
    ws = workspace(state)
    proposal = Proposal(
        id=f"p{len(state.history) + 1}-{len(tried)}", diagnosis=diagnosis_id, remedy=remedy_id, source=source,
        change=change, patch=patch, touched=touched_paths(patch), expected_speedup=diagnosis.expected_speedup,
        evidence=diagnosis.evidence, data_rule=remedy.verification.data, loss_rule=remedy.verification.loss,
        caveats=list(remedy.verification.caveats), base_head=ws.head())
    log.append("proposal", "optimize", proposal=proposal.model_dump(mode="json"))
    say(f"proposal {proposal.id} ({source}): {change}")
    return {"tried": tried, "proposal": proposal}
