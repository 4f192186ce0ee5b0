"""Decide whether a candidate is faster than the baseline beyond the measured noise."""
from __future__ import annotations

import statistics

import numpy as np
from pydantic import BaseModel, Field


class RunSteps(BaseModel):
    """The measured steps of one run: wall time and samples of each."""

    step_ms: list[float]
    samples: list[int]

    @classmethod
    def of(cls, run) -> "RunSteps":
        """Take the measured steps of a RunMeasurement."""
        return cls(step_ms=run.step_ms, samples=run.step_samples)

    @property
    def samples_per_s(self) -> float:
        return sum(self.samples) / sum(self.step_ms) * 1000.0


class SpeedCheck(BaseModel):
    """Interleaved A/B throughput runs and the decision drawn from them."""

    baseline_samples_per_s: list[float] = Field(description="Unchanged pipeline, one value per run.")
    candidate_samples_per_s: list[float] = Field(description="Patched pipeline, one value per run.")
    speedup: float = Field(description="median(candidate) / median(baseline).")
    ci: tuple[float, float] = Field(description="95% two-level bootstrap interval of the speed-up.")
    noise_pct: float = Field(description="Noise floor used: the larger of the profile's and these baseline runs'.")
    threshold_pct: float = Field(description="Gain required: max(noise_pct, min_gain_pct).")
    passed: bool
    reason: str


def steps_ratio_ci(baseline: list[RunSteps], candidate: list[RunSteps], num_resamples: int = 4000,
                   seed: int = 0) -> tuple[float, float]:
    """Interval of the ratio of median run throughputs, by a two-level bootstrap: runs, then steps.

    Resampling runs keeps run-to-run drift in the interval; resampling steps within a
    run uses every measured step; the median over runs keeps one disturbed run (a busy
    neighbour, a throttled core) from deciding the outcome.
    """
    return _percentiles(_resampled_medians(baseline, num_resamples, seed + 1),
                        _resampled_medians(candidate, num_resamples, seed + 2))


def _resampled_medians(runs: list[RunSteps], num_resamples: int, seed: int) -> np.ndarray:
    """Median run throughput of each resample: runs drawn with replacement, then steps within them."""
    rng = np.random.default_rng(seed)
    length = min(len(run.step_ms) for run in runs)
    ms = np.array([run.step_ms[:length] for run in runs], dtype=float)
    samples = np.array([run.samples[:length] for run in runs], dtype=float)
    num_runs, num_steps = ms.shape
    picked_runs = rng.integers(0, num_runs, size=(num_resamples, num_runs))[:, :, None]
    picked_steps = rng.integers(0, num_steps, size=(num_resamples, num_runs, num_steps))
    throughput = samples[picked_runs, picked_steps].sum(axis=2) / ms[picked_runs, picked_steps].sum(axis=2)
    return np.median(throughput, axis=1) * 1000.0


def _percentiles(base: np.ndarray, cand: np.ndarray) -> tuple[float, float]:
    ratios = cand / base
    return float(np.percentile(ratios, 2.5)), float(np.percentile(ratios, 97.5))


def noise_pct(values: list[float]) -> float:
    """Return about two standard deviations of one run, in percent of the median, estimated robustly.

    The median absolute deviation (scaled by 1.4826 to estimate a standard deviation)
    ignores a single disturbed run, which the range (max - min) would make the floor.
    """
    if len(values) < 2:
        return 0.0
    middle = statistics.median(values)
    deviation = statistics.median(abs(v - middle) for v in values)
    return 2 * 1.4826 * deviation / middle * 100.0 if middle else 0.0


def check_speed(baseline_runs: list[RunSteps], candidate_runs: list[RunSteps], profile_noise_pct: float,
                min_gain_pct: float) -> SpeedCheck:
    """Accept only if the interval excludes no gain and the gain beats the noise floor."""
    if not baseline_runs or not candidate_runs:
        raise ValueError("check_speed needs at least one run per side")
    baseline = [run.samples_per_s for run in baseline_runs]
    candidate = [run.samples_per_s for run in candidate_runs]
    speedup = statistics.median(candidate) / statistics.median(baseline)
    low, high = steps_ratio_ci(baseline_runs, candidate_runs)
    noise = max(profile_noise_pct, noise_pct(baseline))
    threshold = max(noise, min_gain_pct)
    gain_pct = (speedup - 1.0) * 100.0
    if low <= 1.0:
        passed, reason = False, f"the 95% interval [{low:.3f}, {high:.3f}] does not exclude no gain"
    elif gain_pct <= threshold:
        passed, reason = False, f"gain {gain_pct:+.1f}% does not beat the noise floor {threshold:.1f}%"
    else:
        passed, reason = True, f"gain {gain_pct:+.1f}% beats the noise floor {threshold:.1f}%; 95% interval [{low:.3f}, {high:.3f}]"
    return SpeedCheck(baseline_samples_per_s=baseline, candidate_samples_per_s=candidate, speedup=speedup,
                      ci=(low, high), noise_pct=noise, threshold_pct=threshold, passed=passed, reason=reason)
