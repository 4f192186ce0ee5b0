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


def verify_remotely(ctx, proposal: Proposal) -> Verdict:
    """Verify ``proposal`` as one block on the cluster; return its verdict (the caller commits an accepted one)."""
    return verify_blocks(ctx, [(proposal.id, proposal)])[0]


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
