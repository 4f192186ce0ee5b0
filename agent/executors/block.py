"""A verification block: what one candidate's verdict needs, run on one node, shipped both ways.

The driver packs the branch head's tree (a git pack of exactly that tree's objects: no
history, no other branch, no file outside git), the patch and the run's state; nothing else
leaves it. The node rebuilds a repository holding that one tree and checks the tree's id, then
runs, all on itself:

1. the head's own light runs (``noise_runs`` of them): the data checks' baseline and the noise
   floor, so speed is never compared across nodes and each node's floor is its own;
2. the cascade of ``agent/nodes/verify.py`` from the patch on (smoke, data, loss, side outputs,
   interleaved timing pairs, every run checked again, speed).

It ships back the verdict, the audit records its stages wrote and its runs' probe folders
(records, fingerprints, outputs) as one compressed tar. The node writes nothing the driver owns:
the driver appends the records to its own audit log, commits an accepted change on its branch
and holds the lock. The user's ignored inputs are not shipped: a node finds them at the path
they have on the driver (a shared filesystem), or the block fails saying which is missing.
"""
from __future__ import annotations

import io
import json
import os
import socket
import tarfile
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from perfloop.agent.state import LoopState, Proposal, Verdict
from perfloop.sandbox.errors import BadInput
from perfloop.sandbox.git import git, git_bytes

_IDENTITY = {"GIT_AUTHOR_NAME": "perfloop", "GIT_AUTHOR_EMAIL": "perfloop@localhost",
             "GIT_COMMITTER_NAME": "perfloop", "GIT_COMMITTER_EMAIL": "perfloop@localhost",
             "GIT_AUTHOR_DATE": "1970-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "1970-01-01T00:00:00Z"}


class BlockError(BadInput):
    """A block could not run on its node for a reason the user must fix (an input missing there)."""


class BlockSpec(BaseModel):
    """Everything a node needs for one candidate's block; serialised whole, so its size is what is shipped."""

    model_config = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")  # the pack is binary

    block: str = Field(description="The block's name in the audit log, e.g. 'p3' or 'p3/candidate-2'.")
    state: LoopState = Field(description="The run's state at the head (its history left out).")
    proposal: Proposal
    tree: str = Field(description="Id of the branch head's tree; the node checks the pack rebuilds exactly it.")
    pack: bytes = Field(description="git pack-objects of the tree's objects.")
    linked_inputs: list[str] = Field(default_factory=list, description="The user's ignored inputs linked into "
                                     "the driver's worktrees (absolute paths the node must see too).")

    def to_bytes(self) -> bytes:
        return self.model_dump_json().encode()


class BlockResult(BaseModel):
    """What a node ships back: the verdict (uncommitted), the stages' audit records, the probe folders."""

    model_config = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")  # the tar is binary

    block: str
    verdict: Verdict = Field(description="accepted here means every stage passed; the driver commits.")
    records: list[dict] = Field(description="The audit records the block wrote on the node, in order.")
    probes: bytes = Field(description="tar.gz of the node's probe folders.")
    probe_dir: str = Field(description="The node's folder of probe folders, which paths in verdict and records name.")
    runs: int = Field(description="Pipeline runs the block made.")
    host: str
    node_id: str = ""
    seconds: float
    noise_pct: float = Field(description="The node's own noise floor, from its light runs of the head.")

    def to_bytes(self) -> bytes:
        return self.model_dump_json().encode()


def pack_head(repo_root: Path, head: str) -> tuple[str, bytes]:
    """Return the id of ``head``'s tree and a pack of exactly the objects that tree holds."""
    tree = git("rev-parse", "--verify", f"{head}^{{tree}}", cwd=repo_root).strip()
    listing = git("ls-tree", "-r", "-t", "-z", tree, cwd=repo_root)
    objects = [tree] + [entry.split("\t", 1)[0].split()[2] for entry in listing.split("\0")
                        if entry and entry.split()[1] in ("blob", "tree")]  # a submodule's commit is not ours
    return tree, git_bytes("pack-objects", "--stdout", cwd=repo_root, stdin=("\n".join(objects) + "\n").encode())


def unpack_head(repo: Path, tree: str, pack: bytes) -> str:
    """Make ``repo`` a repository whose one commit holds ``tree`` from ``pack``; return the commit's id."""
    repo.mkdir(parents=True, exist_ok=True)
    git("init", "--quiet", cwd=repo)
    git_bytes("index-pack", "--stdin", cwd=repo, stdin=pack)
    if git("cat-file", "-t", tree, cwd=repo).strip() != "tree":
        raise BlockError(f"the shipped pack does not hold tree {tree}")
    sha = git("commit-tree", tree, "-m", "perfloop: the run's head as shipped", cwd=repo, env=_IDENTITY).strip()
    git("update-ref", "refs/heads/main", sha, cwd=repo)
    git("symbolic-ref", "HEAD", "refs/heads/main", cwd=repo)
    return sha


def make_spec(state: LoopState, proposal: Proposal, block: str, linked: list[str]) -> BlockSpec:
    """Build the block of ``proposal`` at the run's head (the history stays with the driver)."""
    tree, pack = pack_head(state.target.repo_root, state.head)
    shipped = state.model_copy(update={"history": [], "tried": [], "skipped": []})
    return BlockSpec(block=block, state=shipped, proposal=proposal, tree=tree, pack=pack, linked_inputs=linked)


def run_block(spec: BlockSpec, scratch: Path | None = None) -> BlockResult:
    """Run ``spec`` on this machine in a fresh scratch folder (removed after); return what goes back."""
    started = time.monotonic()
    missing = [path for path in spec.linked_inputs if not os.path.lexists(path)]
    if missing:
        raise BlockError(f"{len(missing)} of the pipeline's ignored inputs are missing on node {socket.gethostname()}, "
                         f"e.g. {missing[0]}: perfloop's nodes read them at the path they have on the driver "
                         "(a shared filesystem); mount it there, or use --executor local")
    with tempfile.TemporaryDirectory(prefix="perfloop-block-", dir=scratch) as tmp:
        root = Path(tmp)
        sha = unpack_head(root / "repo", spec.tree, spec.pack)
        state_dir = root / "run"
        state = spec.state
        target = state.target.model_copy(update={"repo_root": root / "repo"})
        node_state = state.model_copy(update={"target": target, "state_dir": str(state_dir), "head": sha})
        verdict, noise, runs = _judge_here(node_state, spec.proposal)
        log = state_dir / "audit.jsonl"
        records = [json.loads(line) for line in log.read_text().splitlines() if line.strip()] if log.exists() else []
        return BlockResult(block=spec.block, verdict=verdict, records=records, probes=_tar(state_dir / "probe"),
                           probe_dir=str(state_dir / "probe"), runs=runs, host=socket.gethostname(),
                           seconds=time.monotonic() - started, noise_pct=noise)


def _judge_here(state: LoopState, proposal: Proposal) -> tuple[Verdict, float, int]:
    """Prepare the node's checkouts, run the head's light runs, then the cascade; the verdict is not committed."""
    from perfloop.agent.context import RunContext
    from perfloop.agent.nodes.verify import judge_block

    ctx = RunContext(state, "verify")
    ctx.workspace.create()
    for tree in (ctx.workspace.base_tree, ctx.workspace.candidate_tree):
        ctx.workspace.link_ignored_inputs(state.target.target_dir, tree, state.target.inputs)
    verdict, noise = judge_block(ctx, proposal)
    return verdict, noise, ctx.runs_used - state.runs_used


def _tar(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        if folder.is_dir():
            for path in sorted(folder.iterdir()):
                tar.add(path, arcname=path.name)
    return buffer.getvalue()


def unpack_probes(result: BlockResult, probe_root: Path) -> list[str]:
    """Unpack a block's probe folders into the driver's ``probe_root`` (the block's own folder); return their names.

    Only plain files and folders under ``probe_root`` are written: a member with an absolute path,
    a ``..`` part, a link or a device is refused (the node is trusted less than the driver).
    """
    probe_root.mkdir(parents=True, exist_ok=True)
    names = set()
    with tarfile.open(fileobj=io.BytesIO(result.probes), mode="r:gz") as tar:
        members = tar.getmembers()
        for member in members:
            parts = Path(member.name).parts
            if member.name.startswith("/") or ".." in parts or not (member.isfile() or member.isdir()):
                raise BlockError(f"block {result.block} shipped back {member.name!r}, which is not a plain file "
                                 "inside its probe folders")
            names.add(parts[0])
        tar.extractall(probe_root, members=members, filter="data")
    return sorted(names)


def rebased(value, node_dir: str, driver_dir: str):
    """``value`` (JSON data) with every string naming the node's run folder pointed at the driver's."""
    if isinstance(value, str):
        return driver_dir + value[len(node_dir):] if value.startswith(node_dir) else value
    if isinstance(value, list):
        return [rebased(item, node_dir, driver_dir) for item in value]
    if isinstance(value, dict):
        return {key: rebased(item, node_dir, driver_dir) for key, item in value.items()}
    return value
