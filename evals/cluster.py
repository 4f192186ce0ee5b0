"""What verification blocks cost: a 3-candidate LLM remedy on a local Ray cluster of 1 and of 2 nodes, and here.

    python -m perfloop.evals.cluster [--nodes 1 2] [--steps 6] [--no-local] [--batch]

From a checkout (it uses the tests' tiny pipeline, tests/data/pipelines/tiny). For each node
count it starts a Ray cluster on this machine with Ray's own multi-node test support (a head
with no CPU, N worker nodes of one CPU each: blocks land only on the workers), profiles the
pipeline, asks a scripted OpenAI-compatible endpoint on 127.0.0.1 for three candidates of the
transform's LLM remedy (one fast, one that also shifts the labels, one that does more work for
the same sums), and verifies all three as blocks (``--executor ray --auto-approve``). The same
three are then verified here one after another (``--executor local``), for the cost per
candidate without blocks. It prints, per setting: the wall time of the verification, each
block's node-side seconds and runs, the node's own noise floor, the bytes shipped each way,
and which candidate was kept. ``--batch`` adds, per node count, a batch of three targets
(``perfloop run A B C --jobs 3 --executor ray --auto-approve``: each target's remedies for
its head go to the cluster side by side) with its wall time and every block of every run.

On one machine the "nodes" share its cores, so the 1-against-2 figure is the overhead of a
block and the scheduling, not the speed-up a real cluster gives; the verdicts must agree.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "tests" / "data" / "pipelines" / "tiny"

FAST = '''def frame_energy(values, width):
    """Sum of squares over a sliding window: every window at once, each summed left to right as before."""
    import numpy as np

    v = np.asarray(values, dtype=np.float64)
    window = (np.arange(len(v))[:, None] + np.arange(width)[None, :]) % len(v)
    return np.cumsum(v[window] ** 2, axis=1)[:, -1].tolist()
'''


def _answer() -> str:
    """The scripted model's one answer: three candidates, each passing replay of frame_energy."""
    source = (TINY / "train.py").read_text()
    old = source[source.index("def frame_energy"):source.index("class Frames")].rstrip("\n") + "\n"
    label = "        return features, self.labels[index]\n"
    append = "        out.append(total)\n"

    def edits(*pairs):
        return [{"file": "train.py", "search": a, "replace": b} for a, b in pairs]

    return json.dumps({"candidates": [
        {"summary": "vectorise the window sums", "edits": edits((old, FAST))},
        {"summary": "vectorise, and shift the labels",
         "edits": edits((old, FAST), (label, label.replace("self.labels[index]", "(self.labels[index] + 1) % 4")))},
        {"summary": "same sums, more work", "edits": edits((append, append + "        sum(range(3000))\n"))},
    ]})


def _repo(folder: Path) -> Path:
    repo = folder / "repo"
    shutil.copytree(TINY, repo, ignore=shutil.ignore_patterns("__pycache__"))
    (repo / ".gitignore").write_text("__pycache__/\n")
    ident = ["-c", "user.name=perfloop-eval", "-c", "user.email=eval@localhost"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "initial"]):
        subprocess.run(["git", *ident, *args], cwd=repo, check=True, capture_output=True)
    return repo


def _proposed(folder: Path, settings, steps: int):
    """The tiny pipeline prepared and profiled, its LLM remedy asked of the scripted endpoint; the state after optimize."""
    from perfloop.agent.nodes.optimize import optimize
    from perfloop.agent.nodes.prepare import prepare
    from perfloop.agent.nodes.profile import profile
    from perfloop.agent.runs import new_run_id
    from perfloop.agent.state import LoopState, RemedyRef
    from perfloop.evals.scripted_llm import ScriptedLLM
    from perfloop.knowledge_base import describe, load_entries
    from perfloop.sandbox.workspace import Workspace
    from perfloop.tools.contract.target import load_target

    target = load_target(_repo(folder), overrides={"steps": steps, "warmup_steps": 2, "noise_runs": 2,
                                                   "ab_runs": 2, "max_ab_runs": 3})
    run_id = new_run_id()
    with ScriptedLLM([_answer()]) as server:
        settings = settings.model_copy(update={"llm_base_url": server.base_url, "llm_model": "scripted"})
        state = LoopState(run_id=run_id, target=target, settings=settings,
                          state_dir=str(Workspace(target.repo_root, run_id).state_dir))
        state = state.model_copy(update=prepare(state))
        state = state.model_copy(update=profile(state))
        entry = next(e for e in load_entries() if e.id == "transform_hotspot")
        state = state.model_copy(update={"diagnoses": [describe(entry, state.profile.metrics())],
                                         "next_remedy": RemedyRef(diagnosis=entry.id, remedy="vectorize_hot_function")})
        return state.model_copy(update=optimize(state))


def _records(state, event: str) -> list[dict]:
    lines = (Path(state.state_dir) / "audit.jsonl").read_text().splitlines()
    return [r["data"] for r in map(json.loads, lines) if r["event"] == event]


def on_cluster(nodes: int, steps: int) -> dict:
    """Verify the three candidates as blocks on a fresh local cluster of ``nodes`` one-CPU workers."""
    import ray
    from ray.cluster_utils import Cluster

    from perfloop.agent.executors import ray_cluster, verify_node
    from perfloop.agent.state import Settings

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    try:
        for _ in range(nodes):
            cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        with tempfile.TemporaryDirectory(prefix="perfloop-cluster-") as folder:
            settings = Settings(auto_approve=True, executor="ray", ray_address=cluster.address)
            state = _proposed(Path(folder), settings, steps)
            started = time.monotonic()
            kept = verify_node(state)["history"][-1]
            wall = time.monotonic() - started
            blocks = _records(state, "block_ran")
            return {"setting": f"ray, {nodes} node(s)", "wall_s": wall, "kept": kept.proposal.change,
                    "verdict": f"{kept.verdict.verdict} at {kept.verdict.stage}",
                    "blocks": [{k: b[k] for k in ("block", "ran_on", "seconds", "runs", "noise_pct", "shipped_bytes",
                                                  "returned_bytes", "verdict")} for b in blocks]}
    finally:
        ray.shutdown()
        ray_cluster._connected = None
        cluster.shutdown()


def here(steps: int) -> dict:
    """Verify the same three candidates in this process, one after another (what local would cost for all three)."""
    from perfloop.agent.nodes.verify import verify
    from perfloop.agent.state import Settings
    from perfloop.evals.adversarial.run import undo_commit

    with tempfile.TemporaryDirectory(prefix="perfloop-cluster-local-") as folder:
        # executor ray only so that optimize keeps the alternatives; each is verified here.
        state = _proposed(Path(folder), Settings(auto_approve=True, executor="ray"), steps)
        rows, started = [], time.monotonic()
        for candidate in [state.proposal, *state.proposal.alternatives]:
            one = state.model_copy(update={"proposal": candidate.model_copy(update={"alternatives": []})})
            begun = time.monotonic()
            verdict = verify(one)["history"][-1].verdict
            rows.append({"block": candidate.id, "ran_on": "here", "seconds": time.monotonic() - begun,
                         "runs": None, "noise_pct": None, "shipped_bytes": 0, "returned_bytes": 0,
                         "verdict": f"{verdict.verdict} at {verdict.stage}"})
            undo_commit(state)
        return {"setting": "local, one after another", "wall_s": time.monotonic() - started, "kept": "-",
                "verdict": "-", "blocks": rows}


def batch_on_cluster(nodes: int, steps: int, targets: int = 3) -> dict:
    """``perfloop run A B C --jobs 3 --executor ray --auto-approve`` on a fresh cluster of ``nodes`` workers.

    Three copies of the tiny pipeline, each its own run (process, branch, audit log); each run's
    remedies for its head go to the cluster side by side (remedies_at_once, 3 by default there).
    """
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    try:
        for _ in range(nodes):
            cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        with tempfile.TemporaryDirectory(prefix="perfloop-cluster-batch-") as folder:
            repos = [_repo(Path(folder) / f"t{i}") for i in range(targets)]
            command = [sys.executable, "-m", "perfloop.agent.cli", "run", *map(str, repos), "--jobs", str(targets),
                       "--executor", "ray", "--ray-address", cluster.address, "--auto-approve", "--json",
                       "--max-iters", "3", "--steps", str(steps), "--warmup-steps", "2", "--noise-runs", "2",
                       "--ab-runs", "2", "--max-ab-runs", "3"]
            started = time.monotonic()
            done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=3600)
            wall = time.monotonic() - started
            if done.returncode != 0:
                raise RuntimeError(f"the batch exited {done.returncode}:\n{done.stderr[-3000:]}")
            rows = json.loads(done.stdout.strip().splitlines()[-1])["targets"]
            blocks = []
            for repo, row in zip(repos, rows):
                audit = repo / ".git" / "perfloop" / "runs" / row["run_id"] / "audit.jsonl"
                ran = [r["data"] for r in map(json.loads, audit.read_text().splitlines()) if r["event"] == "block_ran"]
                blocks += [{**{k: b[k] for k in ("block", "ran_on", "seconds", "runs", "noise_pct", "shipped_bytes",
                                                 "returned_bytes", "verdict")}, "block": f"{repo.parent.name}:{b['block']}"}
                           for b in ran]
            kept = "; ".join(f"{row['target'].split('/')[-2]} x{row['speedup']:.2f}" if row.get("speedup")
                             else f"{row['target'].split('/')[-2]} -" for row in rows)
            return {"setting": f"batch of {targets}, {nodes} node(s)", "wall_s": wall, "kept": kept,
                    "verdict": f"{sum(len(row['verdicts']) for row in rows)} verdicts", "blocks": blocks}
    finally:
        ray.shutdown()
        cluster.shutdown()


def render(results: list[dict]) -> str:
    lines = [f"{'setting':26} {'wall':>7}  kept", "-" * 70]
    for result in results:
        lines.append(f"{result['setting']:26} {result['wall_s']:6.1f}s  {result['kept']} ({result['verdict']})")
        for b in result["blocks"]:
            runs = "" if b["runs"] is None else f", {b['runs']} runs, node noise {b['noise_pct']:.1f}%"
            lines.append(f"    {b['block']:8} {b['seconds']:5.1f}s{runs}, shipped {b['shipped_bytes']} B, returned "
                         f"{b['returned_bytes']} B: {b['verdict']}  [{b['ran_on']}]")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m perfloop.evals.cluster", description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[1, 2], help="worker node counts to try")
    parser.add_argument("--steps", type=int, default=6, help="steady steps per pipeline run")
    parser.add_argument("--no-local", action="store_true", help="skip the same three verified here")
    parser.add_argument("--batch", action="store_true", help="also a batch of three targets (perfloop run A B C "
                        "--jobs 3) on each cluster size")
    args = parser.parse_args(argv)
    if not TINY.is_dir():
        print(f"evals.cluster runs from a checkout: {TINY} is missing", file=sys.stderr)
        return 2
    try:
        import ray  # noqa: F401
    except ImportError:
        print("evals.cluster needs Ray: pip install -e '.[ray]'", file=sys.stderr)
        return 2
    results = [on_cluster(n, args.steps) for n in args.nodes]
    if not args.no_local:
        results.append(here(args.steps))
    if args.batch:
        results += [batch_on_cluster(n, args.steps) for n in args.nodes]
    print(render(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
