"""Where a candidate's verification runs: here (``local``, the default) or as a block on a Ray cluster (``ray``).

``local`` is today's loop, in this process, nothing to install. ``ray`` (``--executor ray
--ray-address auto|HOST:PORT|ray://HOST:PORT``, or ``executor``/``ray_address`` in
``[tool.perfloop]``) sends each candidate's block (agent/executors/block.py) to one node of an
existing cluster: Ray is the optional extra ``perfloop[ray]``, imported only here and only
when chosen. The driver (this process) stays the single writer of the audit log, the lock
and the branch; it appends what each block recorded, tagged with the node that ran it.
"""
from __future__ import annotations

from pathlib import Path

from perfloop.agent.state import Proposal, Verdict

EXECUTORS = ("local", "ray")


def verify_node(state) -> dict:
    """The graph's ``verify`` node: the cascade here (local), or as a block on the cluster (ray)."""
    from perfloop.agent.nodes.verify import verify

    return verify(state) if state.settings.executor == "local" else verify(state, remote=verify_remotely)


def verify_remotely(ctx, proposal: Proposal) -> tuple[Proposal, Verdict, list[tuple[Proposal, Verdict]]]:
    """Verify ``proposal`` and each of its alternatives as a block of its own, at once; return the one kept.

    The kept one is the accepted candidate with the largest speed-up (each measured against the
    head on its own node); when none is accepted, the first (replay's best) with its verdict.
    The caller commits an accepted one. Also returned: each other remedy's own outcome (its
    best candidate), for the history.
    """
    candidates = [proposal, *proposal.alternatives]
    verdicts = verify_blocks(ctx, [(c.id, c.model_copy(update={"alternatives": []})) for c in candidates])
    if len(candidates) == 1:
        return proposal, verdicts[0], []
    kept, verdict = choose(ctx, candidates, verdicts)
    return kept, verdict, other_remedies(candidates, verdicts, kept, verdict)


def other_remedies(candidates: list[Proposal], verdicts: list[Verdict], kept: Proposal,
                   kept_verdict: Verdict) -> list[tuple[Proposal, Verdict]]:
    """Each remedy other than the kept one's, with its best candidate's verdict.

    One change per head: an accepted one that was not the fastest is not committed; its verdict
    says rejected at ``commit``, with both speed-ups, and the loop may try it again after re-profiling.
    """
    def key(p: Proposal) -> tuple[str, str]:
        return p.diagnosis, p.remedy

    out = []
    for group in dict.fromkeys(key(c) for c in candidates):
        if group == key(kept):
            continue
        mine = [(c, v) for c, v in zip(candidates, verdicts) if key(c) == group]
        accepted = [(c, v) for c, v in mine if v.verdict == "accepted"]
        proposal, verdict = max(accepted, key=lambda cv: cv[1].speed.speedup) if accepted else mine[0]
        if verdict.verdict == "accepted":
            ours, theirs = verdict.speed.speedup, kept_verdict.speed.speedup
            verdict = verdict.model_copy(update={"verdict": "rejected", "stage": "commit", "reason": (
                f"passed every check (x{ours:.2f}) but {kept.id} ({kept.diagnosis}/{kept.remedy}, x{theirs:.2f}) was "
                "kept, verified beside it at the same head: one change a head, tried again after re-profiling if "
                f"still diagnosed; {verdict.reason}")})
        out.append((proposal, verdict))
    return out


def choose(ctx, candidates: list[Proposal], verdicts: list[Verdict]) -> tuple[Proposal, Verdict]:
    """The accepted candidate with the largest speed-up, its reason saying what it was chosen over."""
    from perfloop.agent.events import CandidatesCompared
    from perfloop.agent.ui.console import say

    def speedup(verdict: Verdict) -> float | None:
        return verdict.speed.speedup if verdict.speed is not None else None

    accepted = [i for i, v in enumerate(verdicts) if v.verdict == "accepted"]
    kept = max(accepted, key=lambda i: (speedup(verdicts[i]) or 0.0, -i)) if accepted else 0
    table = [{"id": c.id, "change": c.change, "verdict": v.verdict, "stage": v.stage, "speedup": speedup(v)}
             for c, v in zip(candidates, verdicts)]
    ctx.record(CandidatesCompared(candidates=table, chosen=candidates[kept].id if accepted else None))
    others = "; ".join(f"{row['id']} {row['verdict']} at {row['stage']}"
                       + (f" (x{row['speedup']:.2f})" if row["speedup"] else "")
                       for i, row in enumerate(table) if i != kept)
    say(f"{len(candidates)} candidates verified side by side: kept {candidates[kept].id}; {others}")
    verdict = verdicts[kept]
    what = "kept as the fastest accepted" if accepted else "none accepted"
    return candidates[kept], verdict.model_copy(update={"reason": f"{verdict.reason} ({what} of {len(candidates)} "
                                                        f"candidates verified side by side; {others})"})


def verify_blocks(ctx, proposals: list[tuple[str, Proposal]]) -> list[Verdict]:
    """Verify each (block name, proposal) as its own block, at once, one block per node at a time.

    Each block's records go to the audit log after a ``block_ran`` record naming its node; its
    probe folders land under the run's ``probe/<block>/``; the verdicts come back in order.
    """
    from perfloop.agent.events import BlockLost, BlockRan
    from perfloop.agent.executors.block import make_spec, rebased, unpack_probes
    from perfloop.agent.executors.ray_cluster import connect
    from perfloop.agent.ui.console import say

    state = ctx.state
    linked = [str(path) for path in ctx.workspace.linked_sources(ctx.workspace.base_tree)]
    specs = [make_spec(state, proposal, block, linked) for block, proposal in proposals]
    cluster = connect(state.settings.ray_address)
    say(f"verifying {len(specs)} block(s) on the Ray cluster at {cluster.address} ({cluster.describe()})")

    def lost(block: str, node: str, error: str, left: int) -> None:
        ctx.record(BlockLost(block=block, ran_on=node, error=error, retries_left=left))
        say(f"block {block}: node {node} was lost ({error}); " + (f"running the block again elsewhere, {left} "
            "re-run(s) left" if left else "no re-run left"))

    verdicts = []
    for spec, outcome in zip(specs, cluster.run_blocks(specs, state.settings.block_retries, lost)):
        result = outcome.result
        probe_dir = Path(ctx.folder.path) / "probe" / spec.block
        unpack_probes(result, probe_dir)
        node = f"{result.host} ({result.node_id[:12]})" if result.node_id else result.host
        verdict = Verdict.model_validate(rebased(result.verdict.model_dump(mode="json"), result.probe_dir,
                                                 str(probe_dir)))
        ctx.record(BlockRan(block=spec.block, ran_on=node, attempt=len(outcome.lost_on) + 1, lost_on=outcome.lost_on,
                            shipped_bytes=outcome.shipped_bytes, returned_bytes=outcome.returned_bytes,
                            seconds=result.seconds, runs=result.runs, noise_pct=result.noise_pct,
                            verdict=f"{verdict.verdict} at {verdict.stage}"))
        for record in result.records:
            data = rebased(record.get("data") or {}, result.probe_dir, str(probe_dir))
            ctx.audit.append(record.get("event", ""), record.get("node", "verify"), **data, ran_on=node)
        ctx.runs_used += result.runs
        if outcome.lost_on:
            verdict = verdict.model_copy(update={"reason": verdict.reason + f" (run on {node} after losing "
                                                 f"{', '.join(outcome.lost_on)} mid-block)"})
        verdicts.append(verdict)
    return verdicts
