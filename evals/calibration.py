"""Calibrate verify's speed decision: how often it accepts no gain, how often it finds a real one.

`python -m perfloop.evals.calibration` runs a real pipeline (evals/calibration_pipeline, whose
collate sleeps CALIBRATION_DELAY_MS per batch) under the real probe and through
the real probe and the real decision (perfloop.tools.check.stats.sequential_speed, the loop verify
runs), many times per arm:

- null arms: head and candidate are the same pipeline (0% delay difference): every
  accept is a false accept;
- gain arms: the head sleeps d ms per batch more than the candidate, so the candidate is
  5%, 10% or 20% faster: the share accepted is the detection rate.

It prints, per arm, decisions, accepts, and pipeline runs per decision (median: the
timing pairs plus verify's smoke run; the profile's noise runs, three per trial here,
are shared by every proposal in verify and not counted), plus a seeded simulation of
the same decision at 10% run-to-run noise. Flags: --trials N
(per arm, default 50), --arms 0,5,10,20, --steps, --warmup, --sim-trials.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from perfloop.tools.check.stats import RunSteps, SpeedPlan, candidate_first, sequential_speed
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

    @property
    def accept_rate(self) -> float:
        return self.accepts / self.trials if self.trials else 0.0

    def row(self) -> str:
        what = "false accepts" if self.gain_pct == 0 else "detected"
        runs = statistics.median(self.runs_per_decision) if self.runs_per_decision else 0
        return (f"{self.gain_pct:>5.0f}%  {self.trials:>6}  {self.accepts:>7}  {self.accept_rate * 100:>6.1f}% "
                f"{what:<13}  {runs:>4.0f}")


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


def run_real_arm(gain_pct: float, num_trials: int, work: Path, steps: int, warmup: int, base_delay_ms: float,
                 plan: SpeedPlan) -> ArmResult:
    """Decide ``num_trials`` times between the tiny pipeline and a copy made ``gain_pct`` faster by its delay."""
    from perfloop.tools.measure.profiler import ProbeSettings, run_probed

    settings = ProbeSettings(steps=steps, warmup_steps=warmup)
    command = COMMAND
    # The head sleeps base_delay_ms per batch; the candidate sleeps less, by what makes it gain_pct faster.
    head_step_ms = _measure_step_ms(work, settings, command, base_delay_ms)
    cand_delay = max(0.0, base_delay_ms - head_step_ms * (1 - 1 / (1 + gain_pct / 100)))
    counter = iter(range(10**9))

    def run(delay_ms: float) -> RunSteps:
        out = work / f"run-{next(counter):06d}"
        env_prefix = f"CALIBRATION_DELAY_MS={delay_ms:.3f} "
        measurement = run_probed(env_prefix + command, PIPELINE, out, settings).measurement
        return RunSteps.of(measurement)

    accepts, runs = 0, []
    for trial in range(num_trials):
        profile_noise = noise_pct([run(base_delay_ms).samples_per_s for _ in range(3)])

        def pair(number: int) -> tuple[RunSteps, RunSteps]:
            if candidate_first(number):
                cand = run(cand_delay)
                return run(base_delay_ms), cand
            head = run(base_delay_ms)
            return head, run(cand_delay)

        speed, pairs = sequential_speed(pair, profile_noise, plan)
        accepts += speed.passed
        runs.append(2 * pairs + 1)
        print(f"calibration: {gain_pct:.0f}% trial {trial + 1}/{num_trials}: "
              f"{'accept' if speed.passed else 'reject'} ({speed.reason})", file=sys.stderr, flush=True)
    return ArmResult(gain_pct=gain_pct, trials=num_trials, accepts=accepts, runs_per_decision=runs)


def _measure_step_ms(work: Path, settings, command: str, delay_ms: float) -> float:
    from perfloop.tools.measure.profiler import run_probed

    out = work / "sizing"
    run = run_probed(f"CALIBRATION_DELAY_MS={delay_ms:.3f} {command}", PIPELINE, out, settings)
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
    args = parser.parse_args(argv)
    plan = SpeedPlan()
    print(f"simulation at 10% run-to-run noise (ab_runs {plan.ab_runs}, max_ab_runs {plan.max_ab_runs}, "
          f"min_gain {plan.min_gain_pct}%, {args.sim_trials} decisions per arm):")
    print("  gain  trials  accepts  rate               runs/decision (median)")
    for gain in (0.0, 0.10, 0.20, 0.30):
        print("  " + simulate(args.sim_trials, run_noise=0.10, gain=gain, seed=1).row())
    if args.no_real:
        return 0
    arms = [float(a) for a in args.arms.split(",")]
    print(f"\nreal pipeline ({PIPELINE.name}, {args.steps} steps + {args.warmup} warm-up per run, "
          f"head delay {args.delay_ms} ms per batch, {args.trials} decisions per arm):")
    print("  gain  trials  accepts  rate               runs/decision (median)")
    with tempfile.TemporaryDirectory(prefix="perfloop-calibration-") as folder:
        for gain in arms:
            result = run_real_arm(gain, args.trials, Path(folder) / f"arm-{gain:g}", args.steps, args.warmup,
                                  args.delay_ms, plan)
            print("  " + result.row(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
