"""Interference: how much of the machine other work took during a run's measured steps.

The probe reads cumulative CPU counters at the edges of the measured window and every
0.1 s inside it (probe/perfloop_load.py); this module subtracts them. Over the window:

- ``others_cores``: CPU other processes used, in cores (the watched CPUs' busy time minus
  the pipeline's own process tree and the shell, guard and perfloop process above it),
  whatever they were: a neighbour's job, a short-lived command, another container's processes;
- ``steal_cores``: CPU a hypervisor gave to other guests while this one's CPUs wanted it;
- ``idle_cores``: CPU left idle.

The rule, stated once (``INTERFERENCE_RULE``), interval by interval (between two snapshots):
*interference* is steal plus the other processes' CPU, the latter counted only when less
than ``IDLE_MARGIN_CORES`` of the watched CPUs stayed idle (with CPU to spare, another
process ran beside the pipeline, not instead of it).

- An interval with at least ``STEP_BUSY_CORES`` of interference is *busy*: the measured steps
  that closed in it are left out of the run's throughput (a short burst costs a few steps,
  not the run).
- A run is *contaminated* when the interference over the rest of its window is at least
  ``BUSY_CORES`` (a steady neighbour), or when busy intervals took half its measured steps
  or more. A window shorter than ``MIN_WINDOW_S`` is not judged: a few clock ticks of
  rounding would decide it.

The decision applies the same rule to both sides (verify drops a whole pair when either run
of it is contaminated, and leaves busy steps out of every run; see tools/check/stats.py).
"""
from __future__ import annotations

from pydantic import BaseModel, Field

from perfloop.tools.measure.record import Load

BUSY_CORES = 0.25
"""Interference (cores, over the measured window) from which a run is contaminated.

On a quiet 2-core VM a pipeline that keeps both cores busy reads 0.0-0.13 cores of "others"
(perfloop's own poll, and the machine's and the processes' clocks rounding differently)."""
IDLE_MARGIN_CORES = 0.5
"""Other processes count only when less than this much CPU stayed idle."""
STEP_BUSY_CORES = 0.6
"""Interference (cores, over one ~0.1 s interval) from which the interval's steps are left out.

Higher than BUSY_CORES: over 0.1 s a 10 ms clock tick is 0.1 cores, and a quiet interval of a
saturated 2-core VM read up to about 0.45 from rounding alone; a neighbour holding a core
for the whole interval reads about 1."""
MIN_INTERVAL_S = 0.05
"""Shorter intervals (the last one, cut at the final step) never make their steps busy."""
MIN_WINDOW_S = 0.25
"""Shorter measured windows are not judged (10 ms clock ticks would decide them)."""
INTERFERENCE_RULE = (f"steal plus other processes' CPU (counted when under {IDLE_MARGIN_CORES:g} cores stayed idle): "
                     f"steps in a ~0.1 s interval with {STEP_BUSY_CORES:g} cores of it are left out; a run with "
                     f"{BUSY_CORES:g} cores over the rest of its measured steps, or half its steps left out, is "
                     f"contaminated (windows under {MIN_WINDOW_S:g} s not judged)")


class Interference(BaseModel):
    """What else ran on the machine during one run's measured steps."""

    available: bool = Field(description="False where the counters could not be read (see note).")
    note: str = Field("", description="Why there are no figures, or why the window was not judged.")
    window_s: float = Field(0.0, description="Length of the measured window the figures cover (s).")
    cpus: int = Field(1, description="CPUs watched: those the pipeline may run on.")
    pipeline_cores: float = Field(0.0, description="Mean CPU the pipeline's own process tree used (cores).")
    others_cores: float = Field(0.0, description="Mean CPU every other process used (cores).")
    steal_cores: float = Field(0.0, description="Mean CPU stolen by the hypervisor (cores).")
    idle_cores: float = Field(0.0, description="Mean CPU left idle (cores).")
    peak_others_cores: float = Field(0.0, description="Highest other-process CPU over one ~0.1 s interval (cores).")
    cores: float = Field(0.0, description="Interference by the rule over the whole window: steal, plus other "
                                          "processes' CPU where the watched CPUs had under IDLE_MARGIN_CORES idle "
                                          "(cores).")
    residual_cores: float = Field(0.0, description="The same over the window's intervals that were not busy.")
    num_steps: int = Field(0, description="Measured steps of the run.")
    busy_steps: list[int] = Field(default_factory=list, description="Measured steps (from 0) that closed in a busy "
                                                                    "interval (>= STEP_BUSY_CORES): left out.")
    main_cpu_share: float | None = Field(None, description="CPU time of the main process / wall time over the "
                                                           "window (several threads can exceed 1).")
    preempted: int = Field(0, description="Involuntary context switches of the main process in the window.")
    queue_ms: float = Field(0.0, description="Time the training loop's thread waited runnable for a CPU (ms).")
    contaminated: bool = Field(False, description="residual_cores >= BUSY_CORES, or half the steps busy, over a "
                                                  "judged window.")

    def summary(self) -> str:
        """One line: what others took, and the verdict on the run."""
        if not self.available:
            return f"interference not measured ({self.note})"
        state = "contaminated" if self.contaminated else "clean"
        busy = f", {len(self.busy_steps)} of {self.num_steps} steps in busy intervals" if self.busy_steps else ""
        return (f"{state}: others {self.others_cores:.2f} cores, steal {self.steal_cores:.2f}, idle "
                f"{self.idle_cores:.2f} of {self.cpus} over {self.window_s:.2f} s{busy}")


def interference_of(load: Load, warmup_steps: int, measured_steps: int) -> Interference:
    """Interference over the measured steps (closed steps warmup .. warmup + measured) of one run."""
    if not load.available:
        return Interference(available=False, note=load.reason or "no load samples")
    end_step = warmup_steps + measured_steps
    window = [s for s in load.samples if len(s) >= 9 and warmup_steps <= s[0] <= end_step]
    if len(window) < 2 or window[0][0] != warmup_steps or window[-1][0] != end_step:
        return Interference(available=False, cpus=load.cpus,
                            note="the probe took no load snapshot at an edge of the measured steps")
    first, last = window[0], window[-1]
    seconds = last[1] - first[1]
    if seconds <= 0:
        return Interference(available=False, cpus=load.cpus, note="the measured window has no length")
    hz = float(load.hz or 100)

    def cores(index: int, a: list[float] = first, b: list[float] = last, span: float = seconds) -> float:
        return (b[index] - a[index]) / hz / span

    busy, idle, steal, tree = cores(2), cores(3), cores(4), cores(5)
    others = max(0.0, busy - tree)
    peak = 0.0
    weighted = residual = clean_s = 0.0
    busy_steps: list[int] = []
    for a, b in zip(window, window[1:]):
        span = b[1] - a[1]
        if span <= 0:
            continue
        # Unclamped: clock rounding makes some intervals read a little below zero, others above;
        # clamping each would add the rounding up. Only the sums are clamped.
        others_i = cores(2, a, b, span) - cores(5, a, b, span)
        counted_i = cores(4, a, b, span) + (others_i if cores(3, a, b, span) < IDLE_MARGIN_CORES else 0.0)
        peak = max(peak, others_i)
        weighted += counted_i * span
        # An interval of a few ms (the last, cut at the final step) is a clock tick or two: not judged alone.
        if counted_i >= STEP_BUSY_CORES and span >= MIN_INTERVAL_S:
            busy_steps += range(int(a[0]) - warmup_steps, int(b[0]) - warmup_steps)
        else:
            residual += counted_i * span
            clean_s += span
    judged = seconds >= MIN_WINDOW_S
    residual_cores = max(0.0, residual / clean_s) if clean_s else 0.0
    if not judged:
        busy_steps = []
    contaminated = judged and (residual_cores >= BUSY_CORES or 2 * len(busy_steps) >= measured_steps)
    return Interference(
        available=True, window_s=seconds, cpus=load.cpus, pipeline_cores=tree, others_cores=others,
        steal_cores=steal, idle_cores=idle, peak_others_cores=peak, cores=max(0.0, weighted / seconds),
        residual_cores=residual_cores, num_steps=measured_steps, busy_steps=busy_steps,
        main_cpu_share=(last[6] - first[6]) / seconds, preempted=int(last[7] - first[7]),
        queue_ms=(last[8] - first[8]) / 1e6, contaminated=contaminated,
        note="" if judged else f"window {seconds:.2f} s is under {MIN_WINDOW_S:g} s: not judged")
