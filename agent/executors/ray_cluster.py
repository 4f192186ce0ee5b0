"""Blocks on an existing Ray cluster: connect, place one block per node at a time, re-run a block whose node is lost.

Placement is the driver's, not Ray's: each block is pinned to one idle node (a hard node
affinity) so that its timing pairs share that node with nothing else perfloop sends, and a
block's runs are never split across nodes. Ray's own task retries are off (``max_retries=0``):
a block whose node dies is sent again, whole, to another node, at most ``retries`` times, and
each loss is reported to the caller (the audit log's ``block_lost``). Ray is imported here only.
"""
from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from perfloop.agent.executors.block import BlockError, BlockResult, BlockSpec, run_block
from perfloop.sandbox.errors import BadInput

CONNECT_TIMEOUT_S = 5.0
_RAY_CURRENT = Path(os.environ.get("RAY_TMPDIR", "/tmp")) / "ray" / "ray_current_cluster"


class ClusterError(BadInput):
    """The cluster cannot be reached or used; the message names the address and what to do."""


@dataclass
class Outcome:
    """One block's result, the nodes lost before it and the bytes each way."""

    result: BlockResult
    lost_on: list[str] = field(default_factory=list)
    shipped_bytes: int = 0
    returned_bytes: int = 0


def resolve_address(address: str | None) -> str:
    """The cluster address to connect to: ``address``, or for ``auto``/None $RAY_ADDRESS, else this machine's
    running cluster (``ray start --head`` writes it); ClusterError when there is none."""
    if address in (None, "", "auto"):
        found = os.environ.get("RAY_ADDRESS") or (_RAY_CURRENT.read_text().strip() if _RAY_CURRENT.is_file() else "")
        if not found:
            raise ClusterError("--executor ray with --ray-address auto found no cluster: $RAY_ADDRESS is unset and "
                               f"no cluster was started on this machine ({_RAY_CURRENT} is missing). Start one "
                               "(`ray start --head`), give --ray-address HOST:PORT or ray://HOST:10001, or use "
                               "--executor local")
        return found
    return address


def _reachable(address: str) -> None:
    """Raise ClusterError unless something listens at ``address``'s host and port (Ray itself would wait minutes)."""
    parts = urlsplit(address if "://" in address else f"gcs://{address}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host, port = None, None
    if not host or not port:
        raise ClusterError(f"--ray-address {address!r} is not HOST:PORT or ray://HOST:PORT")
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S):
            pass
    except OSError as error:
        raise ClusterError(f"the Ray cluster at {address} cannot be reached ({error.strerror or error}): check "
                           "that its head is running (`ray status` there) and that this machine can reach that "
                           "port, or use --executor local") from None


class Cluster:
    """A connection to a running Ray cluster, and the blocks sent to it."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.placed: dict[str, str] = {}
        """Block name -> id of the node it was last sent to (what a fault test kills)."""

    def nodes(self) -> list[dict]:
        import ray

        return [node for node in ray.nodes() if node.get("Alive") and node.get("Resources", {}).get("CPU", 0) >= 1]

    def describe(self) -> str:
        nodes = self.nodes()
        return f"{len(nodes)} node(s): " + ", ".join(f"{n['NodeManagerAddress']} ({n['NodeID'][:12]})" for n in nodes)

    def run_blocks(self, specs: list[BlockSpec], retries: int,
                   lost: Callable[[str, str, str, int], None]) -> list[Outcome]:
        """Run every block, each on one node, one block per node at a time; return the outcomes in order."""
        import ray
        from ray.exceptions import RayTaskError
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        remote = ray.remote(num_cpus=1, max_retries=0)(_run_block_bytes)
        payloads = [spec.to_bytes() for spec in specs]
        outcomes: list[Outcome | None] = [None] * len(specs)
        lost_on: list[list[str]] = [[] for _ in specs]
        waiting = list(range(len(specs)))
        running: dict = {}  # ObjectRef -> (block index, node id, node name)
        while waiting or running:
            busy = {node_id for _, node_id, _ in running.values()}
            for node in self.nodes():
                if not waiting:
                    break
                if node["NodeID"] in busy:
                    continue
                index = waiting.pop(0)
                strategy = NodeAffinitySchedulingStrategy(node_id=node["NodeID"], soft=False)
                ref = remote.options(scheduling_strategy=strategy).remote(payloads[index])
                running[ref] = (index, node["NodeID"], f"{node['NodeManagerAddress']} ({node['NodeID'][:12]})")
                self.placed[specs[index].block] = node["NodeID"]
                busy.add(node["NodeID"])
            if not running:
                raise ClusterError(f"the Ray cluster at {self.address} has no live node with a CPU left to run "
                                   f"{len(waiting)} block(s)")
            done, _ = ray.wait(list(running), num_returns=1)
            index, _, name = running.pop(done[0])
            try:
                returned = ray.get(done[0])
            except RayTaskError as error:  # the block itself raised on its node
                raise _task_error(error, name) from None
            except ray.exceptions.RayError as error:  # the node, its worker or the object was lost
                left = retries - len(lost_on[index])
                lost(specs[index].block, name, type(error).__name__, max(left, 0))
                if left <= 0:
                    raise ClusterError(f"block {specs[index].block} lost its node {1 + len(lost_on[index])} "
                                       f"time(s) ({type(error).__name__}); --block-retries {retries} were spent")
                lost_on[index].append(name)
                waiting.insert(0, index)
                time.sleep(0.5)  # let the cluster notice the node is gone before placing again
                continue
            result = BlockResult.model_validate_json(returned)
            outcomes[index] = Outcome(result=result, lost_on=lost_on[index], shipped_bytes=len(payloads[index]),
                                      returned_bytes=len(returned))
        return [outcome for outcome in outcomes if outcome is not None]


def _task_error(error, node: str) -> Exception:
    cause = getattr(error, "cause", None)
    if isinstance(cause, BadInput):
        return type(cause)(str(cause))
    if isinstance(cause, ModuleNotFoundError) or "No module named 'perfloop" in str(error):
        return ClusterError(f"perfloop is not importable on node {node}: install it there with the Ray extra "
                            "(`pip install perfloop[ray]`, the same version as here)")
    return RuntimeError(f"a verification block failed on node {node}: {error}")


def _run_block_bytes(payload: bytes) -> bytes:
    """The remote function: one block, in and out as JSON bytes (what the byte counts measure)."""
    import ray

    result = run_block(BlockSpec.model_validate_json(payload))
    return result.model_copy(update={"node_id": ray.get_runtime_context().get_node_id()}).to_bytes()


_connected: Cluster | None = None


def connect(address: str | None) -> Cluster:
    """Connect this process to the cluster (once); ClusterError naming the address when it cannot."""
    global _connected
    if _connected is not None:
        return _connected
    resolved = resolve_address(address)
    _reachable(resolved)
    try:
        import ray
    except ImportError:
        raise ClusterError("--executor ray needs Ray on this machine: `pip install perfloop[ray]`") from None
    try:
        ray.init(address=resolved, log_to_driver=False, logging_level="ERROR", configure_logging=False)
    except (ConnectionError, RuntimeError, SystemExit) as error:  # ray.init exits the process on some failures
        raise ClusterError(f"could not join the Ray cluster at {resolved}: {error or type(error).__name__}; "
                           "check `ray status` there, or use --executor local") from None
    _connected = Cluster(resolved)
    if not _connected.nodes():
        raise ClusterError(f"the Ray cluster at {resolved} has no live node with a CPU")
    return _connected


__all__ = ["BlockError", "Cluster", "ClusterError", "connect", "resolve_address"]
