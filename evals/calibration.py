"""Calibrate verify's speed decision: how often it accepts no gain, how often it finds a real one.

`python -m perfloop.evals.calibration` runs a real pipeline (evals/calibration_pipeline, whose
collate sleeps CALIBRATION_DELAY_MS per batch) under the real probe and through
the real probe and the real decision (perfloop.tools.check.stats.sequential_speed, the loop verify
runs), many times per arm:

- null arms: head and candidate are the same pipeline (0% delay difference): every
  accept is a false accept;
- gain arms: the head sleeps d ms per batch more than the candidate, so the candidate is
  5%, 10% or 20% faster: the share accepted is the detection rate.

It prints, per arm, decisions, accepts, undecided ("the machine was busy") outcomes and
pipeline runs per decision (median: the timing pairs, re-runs included, plus verify's smoke
run; the profile's noise runs, three per trial here, are shared by every proposal in verify
and not counted), plus a seeded simulation of the same decision at 10% run-to-run noise.
Flags: --trials N (per arm, default 50), --arms 0,5,10,20, --steps, --warmup, --sim-trials.

``--neighbour`` adds the noisy-neighbour arm's conditions: a background process, started and
stopped by the harness, burns one core in random bursts (50-300 ms on, 0.2-2 s off, seeded),
and the pipeline's per-batch cost becomes CPU work in two DataLoader workers
(``--spin --workers 2``), so the bursts take CPU the pipeline wants. Each arm's candidate is
sized on measured steps before the neighbour starts (the gain is the pipeline's, on a quiet
box); with ``--size-beside`` it is sized with the neighbour running (four runs a try, medians of
their median steps), so that "20% faster" is what the candidate gains where it is judged: one sized
on the quiet box was about 12% faster beside the neighbour, whose bursts take the CPU both sides'
workers want. A null arm runs the head's own delay either way. Contaminated runs are
left out and re-run as verify does (``SpeedPlan.busy_reruns``); the noise runs too.
"""
from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from perfloop.tools.check.stats import RunSteps, SpeedPlan, candidate_first, rerun_contaminated, sequential_speed
from perfloop.tools.measure.noise import noise_pct

PIPELINE = Path(__file__).resolve().parent / "calibration_pipeline"
COMMAND = "python train.py --config configs/train.json"


@dataclass
class ArmResult:
    """Decisions made in one arm and what they cost."""

    gain_pct: float
    trials: int
    accepts: int
    runs_per_decision: list[int]
    undecided: int = 0
    pairs_dropped: int = 0

    @property
    def accept_rate(self) -> float:
        return self.accepts / self.trials if self.trials else 0.0

    def row(self) -> str:
        what = "false accepts" if self.gain_pct == 0 else "detected"
        runs = statistics.median(self.runs_per_decision) if self.runs_per_decision else 0
        return (f"{self.gain_pct:>5.0f}%  {self.trials:>6}  {self.accepts:>7}  {self.accept_rate * 100:>6.1f}% "
                f"{what:<13}  {runs:>4.0f}  {self.undecided:>9}  {self.pairs_dropped:>7}")


def simulate(num_trials: int, run_noise: float = 0.10, gain: float = 0.0, seed: int = 0,
             plan: SpeedPlan | None = None, noise_runs: int = 3, num_steps: int = 20,
             step_jitter: float = 0.05, num_resamples: int = 4000) -> ArmResult:
    """Run the real sequential decision on simulated runs: each run's speed varies by ``run_noise`` (sd).

    The candidate is faster by ``gain`` (0 for the null). The profile's noise floor comes
    from ``noise_runs`` simulated runs of the head, as the profile's light runs do.
    """
    plan = plan or SpeedPlan(num_resamples=num_resamples)
    rng = np.random.default_rng(seed)

    def one_run(speed: float) -> RunSteps:
        level = speed * float(np.exp(rng.normal(0.0, run_noise)))
        step_ms = 100.0 / level * np.exp(rng.normal(0.0, step_jitter, num_steps))
        return RunSteps(step_ms=step_ms.tolist(), samples=[10] * num_steps)

    accepts, runs = 0, []
    for _ in range(num_trials):
        profile_noise = noise_pct([one_run(1.0).samples_per_s for _ in range(noise_runs)])
        speed, pairs = sequential_speed(lambda pair: (one_run(1.0), one_run(1.0 + gain)), profile_noise, plan)
        accepts += speed.passed
        runs.append(2 * pairs + 1)  # the pairs plus the candidate's smoke run
    return ArmResult(gain_pct=gain * 100, trials=num_trials, accepts=accepts, runs_per_decision=runs)


def size_arm(gain_pct: float, work: Path, steps: int, warmup: int, base_delay_ms: float, env: str = "",
             workers: int = 0, beside: bool = False) -> float:
    """The candidate's per-batch delay for an arm ``gain_pct`` faster than the head (candidate_delay), sized on
    this machine as it is now. Called before a neighbour starts, by median steps: the gain is the quiet box's.
    ``beside`` (called with the neighbour running): by the figure the decision reads, the mean step over a
    run's steps that closed outside busy intervals, median of four runs of the head and of four runs a try;
    short runs beside it size badly (once 20.33 ms, more than the head's 20, for a "20% faster" candidate
    at 8 steps a run)."""
    from perfloop.tools.measure.profiler import ProbeSettings

    settings = ProbeSettings(steps=steps, warmup_steps=warmup)
    command = env + COMMAND
    repeats = 4 if beside else 1

    def head_step() -> float:
        return statistics.median(_measure_step_ms(work, settings, command, base_delay_ms, beside)
                                 for _ in range(repeats))

    head_step_ms = head_step() if gain_pct else 0.0
    return candidate_delay(gain_pct, base_delay_ms, head_step_ms, workers,
                           lambda target: _size_delay(work, settings, command, target, base_delay_ms,
                                                      4 if beside else 2, beside))


def run_real_arm(gain_pct: float, num_trials: int, work: Path, steps: int, warmup: int, base_delay_ms: float,
                 plan: SpeedPlan, env: str = "", workers: int = 0, cand_delay: float | None = None) -> ArmResult:
    """Decide ``num_trials`` times between the tiny pipeline and a copy made ``gain_pct`` faster by its delay.

    ``env`` prefixes the command (the neighbour arm's CALIBRATION_SPIN/CALIBRATION_WORKERS); ``cand_delay``:
    the candidate's delay sized beforehand (size_arm), else sized here.
    """
    from perfloop.tools.measure.profiler import ProbeSettings, run_probed

    settings = ProbeSettings(steps=steps, warmup_steps=warmup)
    command = env + COMMAND
    # The head costs base_delay_ms per batch; the candidate less, by what makes it gain_pct faster.
    if cand_delay is None:
        cand_delay = size_arm(gain_pct, work, steps, warmup, base_delay_ms, env, workers)
    counter = iter(range(10**9))

    def run(delay_ms: float) -> RunSteps:
        out = work / f"run-{next(counter):06d}"
        env_prefix = f"CALIBRATION_DELAY_MS={delay_ms:.3f} "
        measurement = run_probed(env_prefix + command, PIPELINE, out, settings).measurement
        return RunSteps.of(measurement, leave_out_busy_steps=plan.rerun_contaminated)

    accepts, undecided, dropped, runs = 0, 0, 0, []
    for trial in range(num_trials):
        # The noise runs as the profile makes them: a contaminated one run again while the budget lasts.
        noise_runs = rerun_contaminated(lambda: run(base_delay_ms), 3,
                                        plan.busy_reruns if plan.rerun_contaminated else 0,
                                        lambda steps: steps.contaminated)
        profile_noise = noise_pct([steps.samples_per_s for steps in noise_runs])

        def pair(number: int) -> tuple[RunSteps, RunSteps]:
            if candidate_first(number):
                cand = run(cand_delay)
                return run(base_delay_ms), cand
            head = run(base_delay_ms)
            return head, run(cand_delay)

        speed, pairs = sequential_speed(pair, profile_noise, plan)
        accepts += speed.passed
        undecided += speed.busy
        dropped += len(speed.dropped)
        runs.append(2 * pairs + 1)
        outcome = "accept" if speed.passed else "undecided" if speed.busy else "reject"
        print(f"calibration: {gain_pct:.0f}% trial {trial + 1}/{num_trials}: {outcome} ({speed.reason}; "
              f"{speed.interference_line()})", file=sys.stderr, flush=True)
    return ArmResult(gain_pct=gain_pct, trials=num_trials, accepts=accepts, runs_per_decision=runs,
                     undecided=undecided, pairs_dropped=dropped)


class Neighbour:
    """A background process burning one core in random bursts (50-300 ms on, 0.2-2 s off), seeded."""

    SCRIPT = """
import random, sys, time
rng = random.Random(int(sys.argv[1]))
while True:
    end = time.perf_counter() + rng.uniform(0.05, 0.3)
    while time.perf_counter() < end:
        pass
    time.sleep(rng.uniform(0.2, 2.0))
"""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> "Neighbour":
        self.process = subprocess.Popen([sys.executable, "-c", self.SCRIPT, str(self.seed)])
        return self

    def __exit__(self, *exc) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()


def candidate_delay(gain_pct: float, base_delay_ms: float, head_step_ms: float, workers: int,
                    size: Callable[[float], float]) -> float:
    """The candidate's per-batch delay: the head's own in a null arm (the same pipeline, exactly); with
    workers, ``size(target_step_ms)`` on measured steps (they overlap, so a step is not a sum); else the
    head's delay less the share of the step that makes it ``gain_pct`` faster."""
    if gain_pct == 0:
        # Sizing on measured steps would make the null a noisy guess: once 23.4 ms against the head's 20,
        # a candidate 15% slower, biasing the arm towards rejecting.
        return base_delay_ms
    if workers:
        return size(head_step_ms / (1 + gain_pct / 100))
    return max(0.0, base_delay_ms - head_step_ms * (1 - 1 / (1 + gain_pct / 100)))


def _size_delay(work: Path, settings, command: str, target_step_ms: float, head_delay_ms: float,
                repeats: int = 2, decided: bool = False) -> float:
    """The per-batch delay whose step is about ``target_step_ms`` (median of ``repeats`` runs per try; see
    _measure_step_ms for ``decided``)."""
    if target_step_ms <= 0:
        return head_delay_ms
    delay = head_delay_ms
    for _ in range(3):
        step = statistics.median(_measure_step_ms(work, settings, command, delay, decided) for _ in range(repeats))
        delay = max(0.0, delay * target_step_ms / step)
    print(f"calibration: candidate delay {delay:.2f} ms for a {target_step_ms:.2f} ms step", file=sys.stderr, flush=True)
    return delay


def _measure_step_ms(work: Path, settings, command: str, delay_ms: float, decided: bool = False) -> float:
    """One run's median step (ms); ``decided``: its mean step over the steps the decision keeps (those that
    closed outside busy intervals), which is what samples/s reads."""
    from perfloop.tools.measure.profiler import run_probed

    out = work / "sizing"
    run = run_probed(f"CALIBRATION_DELAY_MS={delay_ms:.3f} {command}", PIPELINE, out, settings)
    if decided:
        return RunSteps.of(run.measurement, leave_out_busy_steps=True).step_s * 1000.0
    return run.measurement.step_ms_median


def main(argv: list[str] | None = None) -> int:
    """Run the calibration and print its table."""
    parser = argparse.ArgumentParser(prog="python -m perfloop.evals.calibration", description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=50, help="decisions per arm (default 50)")
    parser.add_argument("--arms", default="0,5,10,20", help="candidate gains in percent (default 0,5,10,20)")
    parser.add_argument("--steps", type=int, default=8, help="measured steps per run")
    parser.add_argument("--warmup", type=int, default=2, help="warm-up steps per run")
    parser.add_argument("--delay-ms", type=float, default=20.0, help="per-batch delay of the head (ms)")
    parser.add_argument("--sim-trials", type=int, default=2000, help="simulated decisions per arm")
    parser.add_argument("--no-real", action="store_true", help="only the simulation")
    parser.add_argument("--neighbour", action="store_true", help="run beside a process burning one core in bursts, "
                                                                  "the pipeline's cost as CPU work in 2 workers")
    parser.add_argument("--spin", action="store_true", help="the per-batch cost as CPU work, not a sleep")
    parser.add_argument("--workers", type=int, default=0, help="DataLoader workers of the pipeline")
    parser.add_argument("--size-beside", action="store_true", help="with --neighbour: size each arm's candidate with "
                                                                    "the neighbour running (its gain where it is judged)")
    args = parser.parse_args(argv)
    if args.neighbour:
        args.spin, args.workers = True, args.workers or 2
    plan = SpeedPlan()
    print(f"simulation at 10% run-to-run noise (ab_runs {plan.ab_runs}, max_ab_runs {plan.max_ab_runs}, "
          f"min_gain {plan.min_gain_pct}%, {args.sim_trials} decisions per arm):")
    print("  gain  trials  accepts  rate               runs/decision (median)  undecided  dropped pairs")
    for gain in (0.0, 0.10, 0.20, 0.30):
        print("  " + simulate(args.sim_trials, run_noise=0.10, gain=gain, seed=1).row())
    if args.no_real:
        return 0
    arms = [float(a) for a in args.arms.split(",")]
    env = (f"CALIBRATION_SPIN={int(args.spin)} CALIBRATION_WORKERS={args.workers} "
           if args.spin or args.workers else "")
    cost = "CPU work" if args.spin else "sleep"
    print(f"\nreal pipeline ({PIPELINE.name}, {args.steps} steps + {args.warmup} warm-up per run, head {cost} "
          f"{args.delay_ms} ms per batch, {args.workers} workers, {args.trials} decisions per arm"
          f"{', beside a noisy neighbour (one core, 50-300 ms bursts every 0.2-2 s)' if args.neighbour else ''}):")
    beside = args.neighbour and args.size_beside
    with tempfile.TemporaryDirectory(prefix="perfloop-calibration-") as folder, contextlib.ExitStack() as stack:
        if beside:
            stack.enter_context(Neighbour())
        # Each arm's candidate is sized before the neighbour starts (the gain is the pipeline's, on a quiet box),
        # or beside it with --size-beside (the gain where it is judged).
        delays = {gain: size_arm(gain, Path(folder) / f"arm-{gain:g}", args.steps, args.warmup, args.delay_ms, env,
                                 args.workers, beside) for gain in arms}
        print(f"  candidate delays ({'sized beside the neighbour' if beside else 'sized on the quiet box'}): "
              + ", ".join(f"{gain:g}%: {delay:.2f} ms" for gain, delay in delays.items()), flush=True)
        print("  gain  trials  accepts  rate               runs/decision (median)  undecided  dropped pairs")
        with Neighbour() if args.neighbour and not beside else contextlib.nullcontext():
            for gain in arms:
                result = run_real_arm(gain, args.trials, Path(folder) / f"arm-{gain:g}", args.steps, args.warmup,
                                      args.delay_ms, plan, env, args.workers, cand_delay=delays[gain])
                print("  " + result.row(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
