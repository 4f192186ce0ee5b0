"""Headspace: the step time with free data, from replaying the batches a full run stored.

The full run keeps its step loader's batches (``replay`` in its record, the file
``replay-rank0.pt``); a replay run feeds them back from memory to the same training loop with
the DataLoader bypassed (tools/measure/probe/perfloop_replay.py); where a thread of its own reads the
DataLoader for the loop (a prefetcher), that thread gets the stored batches instead. Then
``headspace = (step - step_with_free_data) / step`` bounds what any data-side change can gain,
whether the wait shows in the ledger or hides as contention in forward and backward.
"""
from __future__ import annotations

import statistics
from pathlib import Path

from perfloop.contracts.layout import Env
from perfloop.tools.measure.models import RunMeasurement
from perfloop.tools.measure.record import ProbeRecord


def replay_env(full_record: ProbeRecord) -> dict[str, str] | None:
    """Return the environment for a replay run of a full run's batches, or None when it kept none."""
    replay = full_record.replay
    if replay is None or not replay.batches or not replay.path or not Path(replay.path).is_file():
        return None
    return {Env.REPLAY_FROM: replay.path}


def why_no_replay(full_record: ProbeRecord) -> str:
    """Say why a full run left nothing to replay."""
    if full_record.step_source == "optimizer" and not full_record.loader_threads:
        return "no DataLoader drives the steps (the script draws its own batches), so they cannot be replayed"
    return (full_record.replay.why_not if full_record.replay else "") or "the full run kept no batches to replay"


def headspace_fields(full, light: list, replay) -> dict:
    """Return the Profile's headspace fields; ``replay`` is the replay ProbeRun or why there is none."""
    if replay is None:
        return {"headspace_note": "not measured (no replay run)"}
    if isinstance(replay, str):
        return {"headspace_note": f"not measured: {replay}"}
    step, against = baseline_step_ms([run.measurement for run in light] or [full.measurement])
    free = replay.measurement.step_ms_median
    if step <= 0:
        return {"headspace_note": "not measured: the baseline step time is zero"}
    headspace = max(0.0, (step - free) / step)
    return {"headspace": headspace, "step_ms_free_data": free,
            "headspace_note": f"replayed {len(replay.record.steps)} steps of "
                              f"stored batches: {free:.1f} ms a step with free data vs {step:.1f} ms ({against})"}


def baseline_step_ms(runs: list[RunMeasurement]) -> tuple[float, str]:
    """The step time the free-data step is held against, and how it was chosen.

    Other work on the machine only ever adds time to a run, so the fastest of the runs that fed the
    loop from its DataLoader is the best estimate of their true step: one slow run (a busy minute)
    must not make the stored batches look 20% faster and name a compute-bound loop input-bound
    (hidden_input_contention). Runs flagged as contaminated are left out while a clean one remains.
    """
    clean = [m for m in runs if not m.contaminated] or runs
    steps = [m.step_ms_median for m in clean if m.step_ms_median > 0]
    if not steps:
        return 0.0, "no run with the DataLoader timed a step"
    if len(steps) == 1:
        return steps[0], "the one run with the DataLoader"
    return min(steps), (f"the fastest of {len(steps)} runs with the DataLoader; their median "
                        f"{statistics.median(steps):.1f} ms")
