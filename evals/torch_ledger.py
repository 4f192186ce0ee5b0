"""The stage ledger as torch.profiler sees it: run a target under evals/accuracy_probe, then book its ranges."""
from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from perfloop.tools.measure.models import STAGES

PROBE = Path(__file__).resolve().parent / "accuracy_probe"
_TIMED = ("data_wait", "forward", "backward", "optimizer")


class AccuracyRunError(RuntimeError):
    """A target run for the accuracy check failed; the message says which command and why."""


def python_command(command: str) -> list[str]:
    """Split a target's rendered command, with a leading `python` replaced by this interpreter."""
    argv = shlex.split(command)
    if argv and argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    return argv


def run_torch_profiler(command: str, target_dir: Path, out_dir: Path, num_steps: int,
                       timeout_s: float = 900.0) -> dict:
    """Run ``command`` under torch.profiler for ``num_steps`` DataLoader batches; return the raw ranges."""
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / "torch_profiler.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(PROBE), os.environ.get("PYTHONPATH")])),
           "ACCURACY_TORCHPROF_OUT": str(out), "ACCURACY_MAX_STEPS": str(num_steps), "PYTHONUNBUFFERED": "1"}
    env.pop("EVAL_MAX_STEPS", None)  # the wrapper bounds the run itself, at the same step as perfloop's probe
    done = subprocess.run(python_command(command), cwd=target_dir, env=env, capture_output=True, text=True,
                          timeout=timeout_s)
    (out_dir / "torch_profiler.stderr").write_text(done.stderr)
    if not out.exists():
        raise AccuracyRunError(f"`{command}` in {target_dir} under torch.profiler exited {done.returncode} "
                               f"without reaching {num_steps} DataLoader batches; stderr tail:\n{done.stderr[-1500:]}")
    return json.loads(out.read_text())


def book_stages(raw: dict, warmup_steps: int) -> dict[str, float]:
    """Mean ms per stage over the measured steps, each instant booked to the innermost open range.

    Ranges nest on the main thread (forward and backward inside an optimizer closure, say), so the
    latest-started open range owns each instant; what no range covers is "other".
    """
    bounds = raw["boundaries"]
    if len(bounds) < warmup_steps + 2:
        raise AccuracyRunError(f"torch.profiler saw {len(bounds) - 1} steps, fewer than warm-up {warmup_steps} + 1")
    lo, hi = bounds[warmup_steps], bounds[-1]
    edges = sorted({lo, hi, *bounds[warmup_steps:],
                    *(t for _, start, end in raw["intervals"] for t in (start, end) if lo < t < hi)})
    intervals = sorted(raw["intervals"], key=lambda item: item[1])
    booked = dict.fromkeys(_TIMED, 0.0)
    for left, right in zip(edges, edges[1:]):
        owner = None
        for stage, start, end in intervals:
            if start > left:
                break
            if end >= right:
                owner = stage  # sorted by start: the last one found is the innermost
        if owner is not None:
            booked[owner] += right - left
    num_steps = len(bounds) - 1 - warmup_steps
    step_us = (hi - lo) / num_steps
    ledger = {"step_ms": step_us / 1000.0, "h2d_ms": 0.0}
    for stage in _TIMED:
        ledger[f"{stage}_ms"] = booked[stage] / num_steps / 1000.0
    ledger["other_ms"] = max(0.0, ledger["step_ms"] - sum(ledger[f"{s}_ms"] for s in _TIMED))
    return ledger


def shares(ledger: dict[str, float]) -> dict[str, float]:
    """Fraction of the step per stage, in STAGES order."""
    step = ledger["step_ms"] or 1.0
    return {stage: ledger[f"{stage}_ms"] / step for stage in STAGES}
