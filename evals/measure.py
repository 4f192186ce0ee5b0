"""Re-measure checkouts of a target with plain subprocesses, interleaved, trusting only evalkit's line."""
from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from perfloop.evals.checks import median, spread

EVALKIT_PREFIX = "EVALKIT "


class PipelineFailed(RuntimeError):
    """A pipeline run ended without an EVALKIT line; the message is one line saying why."""


def last_line(text: str) -> str:
    """Return the last non-empty line of ``text`` (a traceback's last line names the error)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def render_command(command: str, config: str | None) -> str:
    """Fill {config} into the target's command, shell-quoted."""
    return command.replace("{config}", shlex.quote(config or "")) if "{config}" in command else command


def pipeline_env(max_steps: int | None, warmup: int | None) -> dict[str, str]:
    """Return the environment of a measured run: ours, without PYTHONPATH, our interpreter first on PATH.

    ``max_steps`` None runs the pipeline to its own end (EVAL_MAX_STEPS unset).
    """
    env = dict(os.environ)
    # PYTHONPATH is how perfloop's probe gets in; the harness measures the bare pipeline.
    env.pop("PYTHONPATH", None)
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", os.defpath)])
    env.pop("EVAL_MAX_STEPS", None)
    if max_steps is not None:
        env["EVAL_MAX_STEPS"] = str(max_steps)
    if warmup is not None:
        env["EVAL_WARMUP"] = str(warmup)
    return env


def run_and_wait(argv: list[str], cwd: Path, env: dict[str, str], timeout_s: float) -> subprocess.CompletedProcess:
    """Run ``argv`` in its own process group; on timeout kill that group and raise TimeoutError."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        # DataLoader workers live in the same group: kill them with the main process.
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise TimeoutError(f"{shlex.join(argv)} ran past {timeout_s:.0f} s in {cwd}") from None
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def run_pipeline(cwd: Path, command: str, max_steps: int | None, warmup: int | None, timeout_s: float) -> dict:
    """Run the rendered ``command`` once in ``cwd``; return its EVALKIT record or raise PipelineFailed."""
    try:
        done = run_and_wait(["/bin/sh", "-c", command], cwd, pipeline_env(max_steps, warmup), timeout_s)
    except TimeoutError as error:
        raise PipelineFailed(str(error)) from None
    records = [line[len(EVALKIT_PREFIX):] for line in done.stdout.splitlines() if line.startswith(EVALKIT_PREFIX)]
    if done.returncode != 0 or not records:
        why = last_line(done.stderr) or last_line(done.stdout) or "no output"
        raise PipelineFailed(f"`{command}` in {cwd.name} exited {done.returncode} without an EVALKIT line: {why}")
    return json.loads(records[-1])


def measure_interleaved(checkouts: dict[str, Path], command: str, runs: int, max_steps: int | None,
                        warmup: int | None, timeout_s: float) -> dict[str, list[dict]]:
    """Run every checkout ``runs`` times, one of each per round, so drift hits all variants alike.

    Each entry is the EVALKIT record, or {"error": why} for a run that failed, plus when it
    started (epoch seconds) and its wall seconds.
    """
    results: dict[str, list[dict]] = {name: [] for name in checkouts}
    for _ in range(runs):
        for name, cwd in checkouts.items():
            started_at = time.time()
            try:
                record = run_pipeline(cwd, command, max_steps, warmup, timeout_s)
            except PipelineFailed as error:
                record = {"error": str(error)}
            results[name].append({**record, "started_at": started_at, "wall_s": time.time() - started_at})
    return results


def summarize(records: list[dict]) -> dict:
    """Reduce one variant's runs to the raw throughputs, their median and spread, and the first good run's data."""
    good = [r for r in records if "error" not in r and r.get("steady_samples_per_s") is not None]
    values = [r["steady_samples_per_s"] for r in good]
    first = good[0] if good else {}
    return {
        "samples_per_s": values,
        "median_samples_per_s": median(values),
        "spread": spread(values),
        "errors": [r["error"] for r in records if "error" in r],
        "batch_digest": first.get("batch_digest"),
        # Same seed, same code: differing digests mean the pipeline itself is not reproducible.
        "digest_stable": len({r.get("batch_digest") for r in good}) <= 1,
        "final_loss": first.get("final_loss"),
        "losses": first.get("losses"),
        "extra": first.get("extra"),
        "steps": first.get("steps"),
    }
