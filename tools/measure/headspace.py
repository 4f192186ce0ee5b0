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
    baseline: list[RunMeasurement] = [run.measurement for run in light] or [full.measurement]
    step = statistics.median(m.step_ms_median for m in baseline)
    free = replay.measurement.step_ms_median
    if step <= 0:
        return {"headspace_note": "not measured: the baseline step time is zero"}
    headspace = max(0.0, (step - free) / step)
    return {"headspace": headspace, "step_ms_free_data": free,
            "headspace_note": f"replayed {len(replay.record.steps)} steps of "
                              f"stored batches: {free:.1f} ms a step with free data vs {step:.1f} ms"}
