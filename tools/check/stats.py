"""Decide whether a candidate is faster than the baseline beyond the measured noise.

The decision, in words one can quote:
- pairs of runs (head, candidate) alternate their order (head first in even pairs,
  candidate first in odd ones), so a drift in the machine's speed falls on both sides;
- the noise floor is about two standard deviations of one run: the sample standard
  deviation while there are fewer than ``ROBUST_FROM`` runs (the median absolute
  deviation collapses on three: [100, 101, 80] would give 3%), the scaled median
  absolute deviation from then on (one disturbed run no longer sets the floor);
- two intervals of the speed-up must both exclude no gain: a two-level bootstrap of the
  ratio of median run throughputs (one disturbed run does not decide), and Welch's t
  interval of the ratio of geometric mean run throughputs (the bootstrap alone is too
  narrow on three runs: with 10% run-to-run noise it accepted about 3% of no-gain
  candidates in simulation);
- each time more pairs are added the intervals are looked at again, so the error rate
  is spent across the planned looks (Bonferroni: each look uses alpha / number of looks);
- accept only if both intervals exclude no gain and the gain beats the floor;
- a pair in which either run was contaminated (other work took the machine during its
  measured steps, by tools/measure/interference.py's rule) is left out of the decision and
  run again under the same pair number, so the order still alternates; both of its runs go,
  whichever was hit, so what the machine did falls on both sides alike. At most
  ``busy_reruns`` pairs are re-run per decision; when the budget is spent with the machine
  still busy the outcome is *undecided: the machine was busy*, with the figures, never a
  rejection of the change. Steps that closed in a busy ~0.1 s interval are left out of a
  kept run's throughput by the caller (``RunSteps.of(run, leave_out_busy_steps=True)``), the
  same rule on both sides; runs that then differ in length are resampled on their own steps.
"""
from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from typing import TypeVar

import numpy as np
from pydantic import BaseModel, Field

from perfloop.tools.measure.interference import BUSY_CORES
from perfloop.tools.measure.noise import noise_pct

T = TypeVar("T")


class RunSteps(BaseModel):
    """The measured steps of one run: wall time and samples of each, and the machine's interference."""

    step_ms: list[float]
    samples: list[int]
    startup_s: float = Field(0.0, description="Process launch to the first batch (s).")
    interference_cores: float | None = Field(None, description="Interference over the measured steps (cores); "
                                                               "None where it could not be measured.")
    contaminated: bool = Field(False, description="The interference reached the rule's threshold.")
    steps_dropped: int = Field(0, description="Measured steps left out because they closed in a busy interval.")

    @classmethod
    def of(cls, run, leave_out_busy_steps: bool = False) -> "RunSteps":
        """Take the measured steps and the interference of a RunMeasurement.

        ``leave_out_busy_steps``: drop the steps that closed in a busy interval (a contaminated
        run keeps them all: the whole pair goes).
        """
        seen = run.interference if run.interference is not None and run.interference.available else None
        busy = set(seen.busy_steps) if seen and leave_out_busy_steps and not seen.contaminated else set()
        keep = [i for i in range(len(run.step_ms)) if i not in busy] or list(range(len(run.step_ms)))
        return cls(step_ms=[run.step_ms[i] for i in keep], samples=[run.step_samples[i] for i in keep],
                   startup_s=run.startup_s, interference_cores=seen.cores if seen else None,
                   contaminated=bool(seen and seen.contaminated), steps_dropped=len(run.step_ms) - len(keep))

    @property
    def step_s(self) -> float:
        """Mean wall time of one measured step (s)."""
        return sum(self.step_ms) / len(self.step_ms) / 1000.0 if self.step_ms else 0.0

    @property
    def samples_per_s(self) -> float:
        return sum(self.samples) / sum(self.step_ms) * 1000.0


class DroppedPair(BaseModel):
    """A timing pair left out of the decision because the machine was busy during it."""

    pair: int = Field(description="Pair number (its order: candidate first when odd).")
    head_cores: float | None = Field(description="Interference during the head's run (cores).")
    candidate_cores: float | None = Field(description="Interference during the candidate's run (cores).")


class SpeedCheck(BaseModel):
    """Interleaved A/B throughput runs and the decision drawn from them."""

    baseline_samples_per_s: list[float] = Field(description="Unchanged pipeline, one value per run.")
    candidate_samples_per_s: list[float] = Field(description="Patched pipeline, one value per run.")
    speedup: float = Field(description="median(candidate) / median(baseline).")
    ci: tuple[float, float] = Field(description="Two-level bootstrap interval of the speed-up, at `confidence`.")
    t_ci: tuple[float, float] | None = Field(None, description="Welch t interval of the ratio of geometric mean "
                                                               "run throughputs, at `confidence`.")
    noise_pct: float = Field(description="Noise floor used: the larger of the profile's and these baseline runs'.")
    threshold_pct: float = Field(description="Gain required: max(noise_pct, min_gain_pct).")
    passed: bool
    reason: str
    confidence: float = Field(0.95, description="Two-sided level of this look's interval: 1 - alpha / num_looks.")
    num_looks: int = Field(1, description="Looks planned (ab_runs .. max_ab_runs pairs) the error rate is spent over.")
    busy: bool = Field(False, description="Undecided: the machine was busy (the re-run budget was spent on "
                                          "contaminated pairs); not a verdict on the change.")
    dropped: list[DroppedPair] = Field(default_factory=list, description="Contaminated pairs left out and re-run.")
    interference_cores: list[float] = Field(default_factory=list, description="Interference of every timing run "
                                                                              "measured, dropped ones included (cores).")
    steps_dropped: int = Field(0, description="Measured steps left out of the kept runs (busy intervals).")
    interference_measured: bool = Field(False, description="False where no run's interference could be measured "
                                                           "(and in checks made before it was).")

    @property
    def runs_repeated(self) -> int:
        """Timing runs made again because their pair was contaminated."""
        return 2 * len(self.dropped)

    def interference_line(self) -> str:
        """How much interference the decision saw, and what was re-run, in one line."""
        if not self.interference_measured:
            return "interference not measured"
        peak = max(self.interference_cores, default=0.0)
        steps = f"; {self.steps_dropped} step(s) in busy intervals left out" if self.steps_dropped else ""
        if not self.dropped:
            return f"no contaminated run (interference at most {peak:.2f} cores){steps}"
        return (f"{len(self.dropped)} contaminated pair(s) left out and re-run ({self.runs_repeated} runs; "
                f"interference up to {peak:.2f} cores){steps}")


def steps_ratio_ci(baseline: list[RunSteps], candidate: list[RunSteps], num_resamples: int = 4000,
                   seed: int = 0, confidence: float = 0.95) -> tuple[float, float]:
    """Interval of the ratio of median run throughputs, by a two-level bootstrap: runs, then steps.

    Resampling runs keeps run-to-run drift in the interval; resampling steps within a
    run uses every measured step; the median over runs keeps one disturbed run (a busy
    neighbour, a throttled core) from deciding the outcome.
    """
    return _percentiles(_resampled_medians(baseline, num_resamples, seed + 1),
                        _resampled_medians(candidate, num_resamples, seed + 2), confidence)


def _resampled_medians(runs: list[RunSteps], num_resamples: int, seed: int) -> np.ndarray:
    """Median run throughput of each resample: runs drawn with replacement, then steps within them."""
    rng = np.random.default_rng(seed)
    if len({len(run.step_ms) for run in runs}) > 1:
        return _resampled_medians_ragged(runs, num_resamples, rng)
    length = min(len(run.step_ms) for run in runs)
    ms = np.array([run.step_ms[:length] for run in runs], dtype=float)
    samples = np.array([run.samples[:length] for run in runs], dtype=float)
    num_runs, num_steps = ms.shape
    picked_runs = rng.integers(0, num_runs, size=(num_resamples, num_runs))[:, :, None]
    picked_steps = rng.integers(0, num_steps, size=(num_resamples, num_runs, num_steps))
    throughput = samples[picked_runs, picked_steps].sum(axis=2) / ms[picked_runs, picked_steps].sum(axis=2)
    return np.median(throughput, axis=1) * 1000.0


def _resampled_medians_ragged(runs: list[RunSteps], num_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """The same two-level resample where runs kept different numbers of steps (busy steps left out).

    Each slot of each resample draws a run, then that run's own steps with replacement, as many
    as it has: a run that lost steps to a busy interval is no longer cut to the shortest run.
    """
    num_runs = len(runs)
    picked_runs = rng.integers(0, num_runs, size=(num_resamples, num_runs))
    throughput = np.empty((num_resamples, num_runs))
    for index, run in enumerate(runs):
        ms, samples = np.asarray(run.step_ms, dtype=float), np.asarray(run.samples, dtype=float)
        slots = picked_runs == index
        count = int(slots.sum())
        if not count:
            continue
        steps = rng.integers(0, len(ms), size=(count, len(ms)))
        throughput[slots] = samples[steps].sum(axis=1) / ms[steps].sum(axis=1)
    return np.median(throughput, axis=1) * 1000.0


def _percentiles(base: np.ndarray, cand: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    ratios = cand / base
    tail = (1.0 - confidence) / 2 * 100.0
    return float(np.percentile(ratios, tail)), float(np.percentile(ratios, 100.0 - tail))



def check_speed(baseline_runs: list[RunSteps], candidate_runs: list[RunSteps], profile_noise_pct: float,
                min_gain_pct: float, num_looks: int = 1, alpha: float = 0.05,
                num_resamples: int = 4000) -> SpeedCheck:
    """Accept only if the interval (at 1 - alpha / num_looks) excludes no gain and the gain beats the noise floor."""
    if not baseline_runs or not candidate_runs:
        raise ValueError("check_speed needs at least one run per side")
    baseline = [run.samples_per_s for run in baseline_runs]
    candidate = [run.samples_per_s for run in candidate_runs]
    speedup = statistics.median(candidate) / statistics.median(baseline)
    if num_looks < 1 or not 0 < alpha < 1:
        raise ValueError(f"num_looks must be >= 1 and alpha in (0, 1); got {num_looks}, {alpha}")
    confidence = 1.0 - alpha / num_looks
    low, high = steps_ratio_ci(baseline_runs, candidate_runs, num_resamples=num_resamples, confidence=confidence)
    t_low, t_high = welch_ratio_ci(baseline, candidate, confidence)
    noise = max(profile_noise_pct, noise_pct(baseline))
    level = f"{confidence * 100:.1f}%"
    threshold = max(noise, min_gain_pct)
    gain_pct = (speedup - 1.0) * 100.0
    if low <= 1.0:
        passed, reason = False, f"the {level} interval [{low:.3f}, {high:.3f}] does not exclude no gain"
    elif t_low <= 1.0:
        passed, reason = False, (f"the {level} t interval over runs [{t_low:.3f}, {t_high:.3f}] does not exclude "
                                 "no gain")
    elif gain_pct <= threshold:
        passed, reason = False, f"gain {gain_pct:+.1f}% does not beat the noise floor {threshold:.1f}%"
    else:
        passed, reason = True, (f"gain {gain_pct:+.1f}% beats the noise floor {threshold:.1f}%; {level} interval "
                                f"[{low:.3f}, {high:.3f}]")
    return SpeedCheck(baseline_samples_per_s=baseline, candidate_samples_per_s=candidate, speedup=speedup,
                      ci=(low, high), noise_pct=noise, threshold_pct=threshold, passed=passed, reason=reason,
                      confidence=confidence, num_looks=num_looks, t_ci=(t_low, t_high))


def welch_ratio_ci(baseline: list[float], candidate: list[float], confidence: float = 0.95) -> tuple[float, float]:
    """Welch's t interval of mean(log candidate) - mean(log baseline), as a ratio; (0, inf) below 2 runs a side."""
    if len(baseline) < 2 or len(candidate) < 2:
        return 0.0, math.inf
    log_base, log_cand = np.log(baseline), np.log(candidate)
    var_base = float(np.var(log_base, ddof=1)) / len(baseline)
    var_cand = float(np.var(log_cand, ddof=1)) / len(candidate)
    centre = float(log_cand.mean() - log_base.mean())
    se = math.sqrt(var_base + var_cand)
    if se == 0.0:
        return math.exp(centre), math.exp(centre)
    dof = (var_base + var_cand) ** 2 / (var_base ** 2 / (len(baseline) - 1) + var_cand ** 2 / (len(candidate) - 1))
    half = t_quantile(1.0 - (1.0 - confidence) / 2, dof) * se
    return math.exp(centre - half), math.exp(centre + half)


def t_quantile(probability: float, dof: float) -> float:
    """Return the Student t quantile (probability in (0.5, 1)) for any real ``dof`` > 0, to about 1e-13.

    The upper tail is P(T > t) = I_x(dof/2, 1/2) / 2 with x = dof / (dof + t²), the regularized
    incomplete beta function, evaluated by its continued fraction (``_incomplete_beta``). Newton
    steps on that tail (its derivative is minus the t density) find t, each kept inside a bracket
    that shrinks as they go (a step leaving it bisects instead), starting from the Cornish-Fisher
    expansion around the normal quantile (Abramowitz & Stegun 26.7.5), which alone is the answer
    once ``dof`` is past 1e5. tests/test_stats.py checks it against a table of quantiles to 1e-9.
    """
    assert 0.5 < probability < 1.0 and dof > 0
    tail = 1.0 - probability
    guess = _cornish_fisher_t(probability, dof)
    if dof > 1e5:
        return guess
    log_scale = math.lgamma((dof + 1) / 2) - math.lgamma(dof / 2) - 0.5 * math.log(dof * math.pi)

    centre = probability - 0.5  # exact in floating point

    def excess(t: float) -> float:  # P(T > t) - tail, or centre - P(0 < T < t) near the middle: decreasing in t
        square = t * t
        x, one_minus_x = dof / (dof + square), square / (dof + square)
        if centre < tail:  # the smaller side, so neither difference cancels
            return centre - 0.5 * _incomplete_beta(0.5, dof / 2, one_minus_x, x)
        return 0.5 * _incomplete_beta(dof / 2, 0.5, x, one_minus_x) - tail

    low, high = 0.0, max(guess, 1.0)
    while excess(high) > 0:
        low, high = high, 2 * high
        assert high < 1e300, f"no t quantile for p={probability}, dof={dof}"
    t = guess if low < guess < high else (low + high) / 2
    for _ in range(200):
        gap = excess(t)
        if gap == 0:
            return t
        low, high = (t, high) if gap > 0 else (low, t)
        density = math.exp(log_scale - (dof + 1) / 2 * math.log1p(t * t / dof))
        step = gap / density
        moved = t + step if low < t + step < high else (low + high) / 2
        if abs(moved - t) <= 1e-14 * t or high - low <= 1e-15 * high:
            return moved
        t = moved
    raise AssertionError(f"t quantile did not converge for p={probability}, dof={dof}")


def _cornish_fisher_t(probability: float, dof: float) -> float:
    """The t quantile from the normal one, to the 1/dof⁴ term (A&S 26.7.5): exact as dof grows, rough below 5."""
    z = statistics.NormalDist().inv_cdf(probability)
    terms = ((z ** 3 + z) / 4, (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96,
             (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384,
             (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160)
    return z + sum(term / dof ** power for power, term in enumerate(terms, 1))


def _incomplete_beta(a: float, b: float, x: float, one_minus_x: float) -> float:
    """Return the regularized incomplete beta I_x(a, b), given x and 1 - x each computed without cancellation.

    The continued fraction converges fast for x < (a + 1) / (a + b + 2); past that the symmetry
    I_x(a, b) = 1 - I_{1-x}(b, a) is used (Numerical Recipes, 3rd ed., section 6.4).
    """
    if x <= 0.0:
        return 0.0
    if one_minus_x <= 0.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x)
                     + b * math.log(one_minus_x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, one_minus_x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    """Evaluate the incomplete beta function's continued fraction by the modified Lentz method."""
    tiny = 1e-300

    def nonzero(value: float) -> float:
        return value if abs(value) > tiny else tiny

    c, d = 1.0, 1.0 / nonzero(1.0 - (a + b) * x / (a + 1))
    fraction = d
    for m in range(1, 100_000):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 / nonzero(1.0 + numerator * d)
            c = nonzero(1.0 + numerator / c)
            fraction *= d * c
        if abs(d * c - 1.0) < 4e-16:
            return fraction
    raise AssertionError(f"the incomplete beta fraction did not converge for a={a}, b={b}, x={x}")


class SpeedPlan(BaseModel):
    """How many interleaved pairs to run, what gain to require, and how contaminated pairs are handled."""

    ab_runs: int = Field(3, ge=1, description="Pairs run before the first look.")
    max_ab_runs: int = Field(6, ge=1, description="Most pairs while the verdict is undecided.")
    busy_reruns: int = Field(4, ge=0, description="Most contaminated pairs re-run per decision.")
    rerun_contaminated: bool = Field(True, description="False: contaminated runs are reported and kept "
                                                       "(interference = 'report').")
    min_gain_pct: float = Field(5.0, description="Smallest gain worth a commit, whatever the noise (%).")
    alpha: float = Field(0.05, description="Two-sided error rate spent over all looks.")
    num_resamples: int = Field(4000, ge=100, description="Bootstrap resamples per look.")

    @property
    def num_looks(self) -> int:
        """One look at ab_runs pairs, then one per added pair up to max_ab_runs."""
        return max(1, self.max_ab_runs - self.ab_runs + 1)


def candidate_first(pair: int) -> bool:
    """Tell whether pair number ``pair`` (from 0) runs the candidate before the head: odd pairs do."""
    return pair % 2 == 1


def undecided(speed: SpeedCheck) -> bool:
    """More runs could still change the verdict: it failed, yet the interval reaches past the required gain."""
    return not speed.passed and speed.ci[1] > 1.0 + speed.threshold_pct / 100.0


def sequential_speed(run_pair: Callable[[int], tuple[RunSteps, RunSteps]], profile_noise_pct: float,
                     plan: SpeedPlan,
                     on_undecided: Callable[[SpeedCheck, int], None] | None = None,
                     on_dropped: Callable[[DroppedPair, int], None] | None = None) -> tuple[SpeedCheck, int]:
    """Run pairs until the verdict is decided or max_ab_runs clean pairs are in; return it and the pairs run.

    ``run_pair(pair)`` runs one (head, candidate) pair, in the order candidate_first(pair)
    says, and returns their measured steps as (head, candidate). A contaminated pair is
    dropped and ``run_pair`` called again with the same number (``on_dropped`` hears of it,
    with the re-runs left); once ``busy_reruns`` are spent, the next contaminated pair ends
    the decision as busy. The count returned includes dropped pairs.
    """
    base: list[RunSteps] = []
    cand: list[RunSteps] = []
    dropped: list[DroppedPair] = []
    seen: list[RunSteps] = []
    pair = 0
    while True:
        head, candidate = run_pair(pair)
        seen += [head, candidate]
        if plan.rerun_contaminated and (head.contaminated or candidate.contaminated):
            dropped.append(DroppedPair(pair=pair, head_cores=head.interference_cores,
                                       candidate_cores=candidate.interference_cores))
            if len(dropped) > plan.busy_reruns:
                return _busy(base, cand, seen, dropped, profile_noise_pct, plan), len(base) + len(dropped)
            if on_dropped is not None:
                on_dropped(dropped[-1], plan.busy_reruns - len(dropped) + 1)
            continue
        base.append(head)
        cand.append(candidate)
        pair += 1
        if pair < plan.ab_runs:
            continue
        speed = _with_interference(check_speed(base, cand, profile_noise_pct, plan.min_gain_pct, plan.num_looks,
                                               plan.alpha, plan.num_resamples), seen, dropped, base + cand)
        if not undecided(speed) or pair >= plan.max_ab_runs:
            return speed, len(base) + len(dropped)
        if on_undecided is not None:
            on_undecided(speed, pair)


def rerun_contaminated(run: Callable[[], T], wanted: int, budget: int, contaminated: Callable[[T], bool],
                       on_dropped: Callable[[T, int, int], None] | None = None) -> list[T]:
    """``wanted`` runs of ``run()``; a contaminated one is run again while ``budget`` re-runs last.

    Once the budget is spent, contaminated runs are kept (the caller says so). ``on_dropped(run,
    number, left)`` hears of each one left out: its number (from 1) among the kept and the
    re-runs left after it. The profile's noise runs and the calibration's use it.
    """
    kept: list[T] = []
    reruns = 0
    while len(kept) < wanted:
        result = run()
        if contaminated(result) and reruns < budget:
            reruns += 1
            if on_dropped is not None:
                on_dropped(result, len(kept) + 1, budget - reruns)
            continue
        kept.append(result)
    return kept


def _with_interference(speed: SpeedCheck, seen: list[RunSteps], dropped: list[DroppedPair],
                       kept: list[RunSteps] = ()) -> SpeedCheck:
    measured = [run.interference_cores for run in seen if run.interference_cores is not None]
    return speed.model_copy(update=dict(dropped=dropped, interference_cores=measured,
                                        interference_measured=bool(measured),
                                        steps_dropped=sum(run.steps_dropped for run in kept)))


def _busy(base: list[RunSteps], cand: list[RunSteps], seen: list[RunSteps], dropped: list[DroppedPair],
          profile_noise_pct: float, plan: SpeedPlan) -> SpeedCheck:
    """The undecided outcome: the re-run budget went on contaminated pairs before the decision was reached.

    Its figures come from the clean pairs when there are any, else from every run measured,
    contaminated included; either way they decide nothing.
    """
    clean = bool(base)
    heads = base if clean else seen[0::2]
    cands = cand if clean else seen[1::2]
    figures = check_speed(heads, cands, profile_noise_pct, plan.min_gain_pct, plan.num_looks, plan.alpha,
                          plan.num_resamples)
    cores = [c for d in dropped for c in (d.head_cores, d.candidate_cores) if c is not None]
    which = f"{len(base)} clean pair(s)" if clean else f"all {len(seen)} runs, contaminated included"
    reason = (f"undecided: the machine was busy: {len(dropped)} of {len(base) + len(dropped)} pairs were "
              f"contaminated (interference up to {max(cores, default=0.0):.2f} cores, threshold {BUSY_CORES:g}) "
              f"and the re-run budget ({plan.busy_reruns} pairs) is spent; on {which} the "
              f"speed-up reads {figures.speedup:.3f}x, which decides nothing. Run again when the machine is "
              "quieter: the next run tries this change again")
    return _with_interference(figures, seen, dropped).model_copy(update=dict(passed=False, busy=True, reason=reason))


# Smallest start-up change (fraction of the head's start-up) that counts as more than noise.
STARTUP_NOISE_FLOOR = 0.10


class StartupCheck(BaseModel):
    """Start-up judged together with steady state: whole-run cost."""

    baseline_startup_s: float = Field(description="Median start-up (launch to first batch) of the head's runs (s).")
    candidate_startup_s: float = Field(description="Median start-up of the candidate's runs (s).")
    noise_s: float = Field(description="Start-up change that counts as noise (s).")
    run_steps: int | None = Field(None, description="Steps of the whole run when known (from the config).")
    projected_speedup: float | None = Field(None, description="Whole-run time of the head / of the candidate.")
    break_even_steps: float | None = Field(None, description="Steps after which a declared one-off cost pays off.")
    passed: bool
    reason: str


def check_startup(baseline_runs: list[RunSteps], candidate_runs: list[RunSteps], threshold_pct: float,
                  run_steps: int | None = None, one_off_cost: str | None = None) -> StartupCheck:
    """Judge start-up with steady state: by projected whole-run time when the run length is known.

    Known length: the whole run (start-up + run_steps x mean step) must be faster by more
    than ``threshold_pct``; a start-up change within its noise counts as none (a launch jitters by 10-15% whatever
    the change does: l6 of blind20 lost a x1.52 steady-state gain to a 0.30 s start-up jitter under 0.64 s of
    noise). Unknown: a start-up slower by more than its noise (the larger side's
    spread, at least STARTUP_NOISE_FLOOR of the head's start-up and 0.1 s) rejects,
    unless the remedy declares a one-off cost; then the break-even step count is stated.
    """
    base_up = statistics.median(run.startup_s for run in baseline_runs)
    cand_up = statistics.median(run.startup_s for run in candidate_runs)
    base_step = statistics.median(run.step_s for run in baseline_runs)
    cand_step = statistics.median(run.step_s for run in candidate_runs)
    # The spread of either side: with two runs a side one side's runs can agree by chance.
    spread = max(noise_pct([run.startup_s for run in baseline_runs]) / 100.0 * base_up,
                 noise_pct([run.startup_s for run in candidate_runs]) / 100.0 * cand_up)
    # Launch to first batch is mostly interpreter and library import (torch: 2 s here), which
    # jitters by 10-15% from run to run on a 2-core VM whatever the pipeline does.
    noise_s = max(spread, STARTUP_NOISE_FLOOR * base_up, 0.1)
    delta = cand_up - base_up
    saved_per_step = base_step - cand_step
    break_even = delta / saved_per_step if delta > 0 and saved_per_step > 0 else None
    common = dict(baseline_startup_s=base_up, candidate_startup_s=cand_up, noise_s=noise_s, run_steps=run_steps,
                  break_even_steps=break_even)
    if run_steps is not None:
        if run_steps < 1:
            raise ValueError(f"run_steps must be >= 1, got {run_steps}")
        # A start-up change within its noise is not taken as a cost (or a saving) of the change: the whole run is
        # projected with the head's start-up, and the steady-state difference still has to beat the noise floor.
        within = abs(delta) <= noise_s
        projected = (base_up + run_steps * base_step) / ((base_up if within else cand_up) + run_steps * cand_step)
        gain = (projected - 1.0) * 100.0
        passed = gain > threshold_pct
        verdict = "beats" if passed else "does not beat"
        startup = f"start-up {base_up:.2f} s -> {cand_up:.2f} s" + (
            f", within its noise {noise_s:.2f} s: taken as unchanged" if within else "")
        return StartupCheck(**common, projected_speedup=projected, passed=passed,
                            reason=f"whole run of {run_steps} steps: {gain:+.1f}% ({startup}) {verdict} the noise "
                                   f"floor {threshold_pct:.1f}%")
    if delta <= noise_s:
        return StartupCheck(**common, passed=True,
                            reason=f"start-up {base_up:.2f} s -> {cand_up:.2f} s, within its noise {noise_s:.2f} s")
    if one_off_cost:
        steps = f"{break_even:.0f} steps" if break_even is not None else "never (no steady-state saving)"
        return StartupCheck(**common, passed=break_even is not None,
                            reason=f"start-up {delta:+.2f} s for {one_off_cost} (declared one-off cost); "
                                   f"breaks even after {steps}")
    return StartupCheck(**common, passed=False,
                        reason=f"start-up slower by {delta:.2f} s ({base_up:.2f} s -> {cand_up:.2f} s), beyond its "
                               f"noise {noise_s:.2f} s; the steady-state gain is not judged against an unknown run "
                               "length")
