"""Interference: the probe's load snapshots, the contamination rule, and the decision that survives a busy machine.

The decision logic is tested on recorded interference figures (RunSteps with the cores a run
saw), never on timings; the snapshots are read from the real /proc of real processes; the end
to end case (a real run beside two CPU burners) is in tests/test_busy_machine.py.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

from perfloop.tools.check.stats import RunSteps, SpeedPlan, candidate_first, check_speed, sequential_speed
from perfloop.tools.measure.interference import BUSY_CORES, IDLE_MARGIN_CORES, MIN_WINDOW_S, interference_of
from perfloop.tools.measure.models import RunMeasurement
from perfloop.tools.measure.probe.perfloop_load import LoadReader
from perfloop.tools.measure.record import Load

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")


def _sample(closed: int, wall: float, busy: int, idle: int, steal: int = 0, tree: int = 0) -> list[float]:
    return [closed, wall, busy, idle, steal, tree, 0.0, 0, 0]


def _load(*samples: list[float], cpus: int = 2) -> Load:
    return Load(available=True, hz=100, cpus=cpus, warmup_steps=1, samples=list(samples))


# -- the rule, on recorded counters ------------------------------------------------------------

def test_a_quiet_machine_is_clean_and_the_pipelines_own_cpu_is_not_interference():
    # One second, 2 CPUs: the pipeline used 190 ticks of the 200, nothing else ran.
    seen = interference_of(_load(_sample(1, 0.0, 0, 0), _sample(7, 1.0, 190, 10, tree=190)), 1, 6)
    assert seen.available and not seen.contaminated
    assert (round(seen.pipeline_cores, 2), seen.others_cores, round(seen.idle_cores, 2)) == (1.9, 0.0, 0.1)


def test_other_processes_on_a_saturated_machine_contaminate_the_run():
    # The pipeline got 1.2 cores, something else 0.75, with 0.05 idle.
    seen = interference_of(_load(_sample(1, 0.0, 0, 0), _sample(7, 1.0, 195, 5, tree=120)), 1, 6)
    assert seen.contaminated and round(seen.others_cores, 2) == 0.75 and seen.cores == seen.others_cores
    assert "contaminated" in seen.summary()


def test_other_processes_beside_spare_cpu_do_not_count_but_steal_always_does():
    # Another process used 0.6 cores, yet 0.9 stayed idle: it ran beside the pipeline, not instead of it.
    beside = interference_of(_load(_sample(1, 0.0, 0, 0), _sample(7, 1.0, 110, 90, tree=50)), 1, 6)
    assert beside.others_cores > BUSY_CORES and beside.idle_cores >= IDLE_MARGIN_CORES
    assert not beside.contaminated and beside.cores == 0.0
    stolen = interference_of(_load(_sample(1, 0.0, 0, 0), _sample(7, 1.0, 60, 110, steal=30, tree=60)), 1, 6)
    assert stolen.contaminated and round(stolen.cores, 2) == 0.3


def test_a_window_too_short_or_without_its_edges_is_not_judged():
    short = interference_of(_load(_sample(1, 0.0, 0, 0), _sample(7, MIN_WINDOW_S / 2, 25, 0, tree=0)), 1, 6)
    assert short.available and not short.contaminated and "not judged" in short.note
    missing = interference_of(_load(_sample(1, 0.0, 0, 0), _sample(5, 1.0, 200, 0)), 1, 6)
    assert not missing.available and "edge" in missing.note
    old = interference_of(Load(reason="recorded by a probe before load snapshots"), 1, 6)
    assert not old.available and "before load snapshots" in old.summary()


def test_the_peak_comes_from_the_interval_where_the_neighbour_ran():
    samples = [_sample(1, 0.0, 0, 0), _sample(3, 0.5, 100, 0, tree=100), _sample(5, 1.0, 200, 0, tree=150),
               _sample(7, 1.5, 300, 0, tree=250)]
    seen = interference_of(_load(*samples), 1, 6)
    assert round(seen.peak_others_cores, 2) == 1.0 and round(seen.others_cores, 2) == 0.33


# -- the real counters ---------------------------------------------------------------------------

@linux
def test_the_probes_reader_sees_a_child_burning_cpu_as_part_of_the_tree():
    reader = LoadReader()
    assert reader.unavailable_reason == "" and reader.cpus
    child = subprocess.Popen([sys.executable, "-c", "import time\nend = time.time() + 0.6\nwhile time.time() < end: pass"])
    try:
        before = reader.snapshot(0)
        time.sleep(0.5)
        after = reader.snapshot(1)
    finally:
        child.wait()
    assert len(before) == len(after) == 9 and after[0] == 1
    tree_cores = (after[5] - before[5]) / reader.hz / (after[1] - before[1])
    # The child's spinning counts as the pipeline's own (about 1 core; 0 if it did not). Two test workers share
    # two cores, so it may get half of one.
    assert tree_cores > 0.25, tree_cores
    assert after[2] - before[2] >= after[5] - before[5] - 5  # the machine was at least that busy


@linux
def test_the_supervisors_chain_counts_as_the_pipelines_own():
    parent = os.getppid()
    assert LoadReader(supervisor=parent).ancestors() == [parent]
    assert LoadReader(supervisor=os.getpid() + 10**6).ancestors() == []  # not an ancestor: nothing is added
    reader = LoadReader(supervisor=parent)
    assert reader.snapshot(0)[5] >= reader.tree_ticks(os.getpid())


def test_without_proc_the_reader_says_why():
    reader = LoadReader(proc="/nonexistent-proc")
    assert "not readable" in reader.unavailable_reason and reader.snapshot(0) is None


# -- the decision, on recorded interference figures ------------------------------------------------

def _runs(rng, speed: float, cores: float, num_steps: int = 10) -> RunSteps:
    step_ms = 100.0 / speed * np.exp(rng.normal(0.0, 0.03, num_steps))
    return RunSteps(step_ms=step_ms.tolist(), samples=[10] * num_steps, interference_cores=cores,
                    contaminated=cores >= BUSY_CORES)


def test_a_contaminated_pair_is_dropped_whole_and_run_again_in_the_same_order():
    rng = np.random.default_rng(0)
    calls: list[int] = []
    dirty = {1}  # the second call (pair 1, candidate first) is disturbed on the head's side only

    def pair(number: int):
        calls.append(number)
        hit = len(calls) - 1 in dirty
        return _runs(rng, 1.0, 0.9 if hit else 0.0), _runs(rng, 2.0, 0.0)

    heard = []
    speed, pairs = sequential_speed(pair, 3.0, SpeedPlan(ab_runs=3, max_ab_runs=6), on_dropped=lambda d, left: heard.append((d.pair, left)))
    assert calls == [0, 1, 1, 2]  # pair 1 again, so it still runs the candidate first
    assert candidate_first(1) and heard == [(1, 4)]
    assert speed.passed and pairs == 4 and len(speed.baseline_samples_per_s) == 3
    assert [(d.pair, d.head_cores, d.candidate_cores) for d in speed.dropped] == [(1, 0.9, 0.0)]
    assert speed.runs_repeated == 2 and "1 contaminated pair(s) left out" in speed.interference_line()


def test_when_the_budget_is_spent_the_outcome_is_undecided_busy_not_a_rejection():
    rng = np.random.default_rng(1)
    plan = SpeedPlan(ab_runs=3, max_ab_runs=6, busy_reruns=2)
    speed, pairs = sequential_speed(lambda n: (_runs(rng, 1.0, 1.1), _runs(rng, 2.0, 0.0)), 3.0, plan)
    assert speed.busy and not speed.passed and pairs == 3  # three contaminated pairs: two re-runs, then stop
    assert speed.reason.startswith("undecided: the machine was busy: 3 of 3 pairs were contaminated")
    assert "1.10 cores" in speed.reason and "all 6 runs, contaminated included" in speed.reason
    # Clean pairs already in: the figures come from them alone.
    calls = []

    def later_busy(number: int):
        calls.append(number)
        return _runs(rng, 1.0, 0.0 if len(calls) <= 1 else 0.5), _runs(rng, 2.0, 0.0)

    speed, _ = sequential_speed(later_busy, 3.0, plan)
    assert speed.busy and "on 1 clean pair(s)" in speed.reason and len(speed.baseline_samples_per_s) == 1


def test_report_mode_keeps_contaminated_runs_in_the_decision():
    rng = np.random.default_rng(2)
    plan = SpeedPlan(ab_runs=3, max_ab_runs=3, rerun_contaminated=False)
    speed, pairs = sequential_speed(lambda n: (_runs(rng, 1.0, 0.8), _runs(rng, 2.0, 0.8)), 3.0, plan)
    assert pairs == 3 and not speed.dropped and not speed.busy and speed.passed
    assert speed.interference_measured and max(speed.interference_cores) == 0.8


def test_a_check_without_interference_figures_says_so():
    rng = np.random.default_rng(3)
    speed = check_speed([_runs(rng, 1.0, 0.0)] * 3, [_runs(rng, 1.0, 0.0)] * 3, 3.0, 5.0)
    assert speed.interference_line() == "interference not measured"


def test_dropping_contaminated_pairs_keeps_the_null_honest():
    """Null decisions on a machine whose neighbour halves a random run's speed: with contaminated
    pairs dropped, none is accepted, and nearly all end decided (the budget rarely runs out)."""
    rng = np.random.default_rng(4)
    plan = SpeedPlan(num_resamples=1000)
    accepts = busy = 0
    for _ in range(60):
        def run() -> RunSteps:
            hit = rng.random() < 0.15  # the neighbour's burst overlaps 15% of the runs (28% of the pairs)
            level = float(np.exp(rng.normal(0.0, 0.03))) * (0.5 if hit else 1.0)
            return RunSteps(step_ms=(100.0 / level * np.exp(rng.normal(0.0, 0.03, 10))).tolist(), samples=[10] * 10,
                            interference_cores=0.9 if hit else 0.0, contaminated=hit)

        speed, _ = sequential_speed(lambda n: (run(), run()), 6.0, plan)
        accepts += speed.passed
        busy += speed.busy
    assert accepts == 0 and busy <= 8, (accepts, busy)  # about 5% of decisions spend the budget


def test_a_short_burst_costs_its_interval_steps_not_the_run():
    # Six steps in three 0.2 s intervals; the middle one had a neighbour holding a core with nothing idle.
    samples = [_sample(1, 0.0, 0, 0, tree=0), _sample(3, 0.2, 40, 0, tree=40), _sample(5, 0.4, 80, 0, tree=60),
               _sample(7, 0.6, 120, 0, tree=100)]
    seen = interference_of(_load(*samples), 1, 6)
    assert seen.busy_steps == [2, 3] and not seen.contaminated and seen.residual_cores == 0.0
    assert round(seen.cores, 2) == 0.33 and "2 of 6 steps in busy intervals" in seen.summary()
    run = RunMeasurement(mode="light", samples_per_s=0, step_ms_median=10, startup_s=0, wall_s=1,
                         num_steps_measured=6, exit_reason="max_steps", probe_dir="", data_digest="",
                         step_ms=[10, 10, 30, 30, 10, 10], step_samples=[4] * 6, interference=seen)
    kept = RunSteps.of(run, leave_out_busy_steps=True)
    assert kept.step_ms == [10, 10, 10, 10] and kept.steps_dropped == 2 and not kept.contaminated
    assert RunSteps.of(run).step_ms == run.step_ms  # report mode keeps every step
    # Half the steps busy: the run is contaminated, and keeps its steps (the whole pair goes).
    heavy = [_sample(1, 0.0, 0, 0), _sample(4, 0.3, 60, 0, tree=20), _sample(7, 0.6, 120, 0, tree=80)]
    worse = interference_of(_load(*heavy), 1, 6)
    assert worse.busy_steps == [0, 1, 2] and worse.contaminated


def test_runs_of_different_lengths_are_resampled_on_their_own_steps():
    rng = np.random.default_rng(5)
    base = [_runs(rng, 1.0, 0.0, num_steps=n) for n in (10, 4, 10)]
    cand = [_runs(rng, 2.0, 0.0, num_steps=n) for n in (10, 10, 7)]
    speed = check_speed(base, cand, 3.0, 5.0, num_resamples=500)
    assert speed.passed and 1.8 < speed.ci[0] < 2.0 < speed.ci[1] < 2.2, speed.ci
