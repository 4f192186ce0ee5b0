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
    ci: tuple[float, float] = Field(description="95% bootstrap interval of the ratio of means.")
    noise_pct: float = Field(description="Noise floor used: the larger of the profile's and these baseline runs'.")
    threshold_pct: float = Field(description="Gain required: max(noise_pct, min_gain_pct).")
    passed: bool
    reason: str


def bootstrap_ratio_ci(baseline: list[float], candidate: list[float], num_resamples: int = 4000,
                       seed: int = 0) -> tuple[float, float]:
    """Return the 2.5th and 97.5th percentiles of mean(candidate*)/mean(baseline*) over resamples."""
    return _percentiles(_resampled_means(np.array(baseline, dtype=float)[:, None], None, num_resamples, seed + 1),
                        _resampled_means(np.array(candidate, dtype=float)[:, None], None, num_resamples, seed + 2))


def steps_ratio_ci(baseline: list[RunSteps], candidate: list[RunSteps], num_resamples: int = 4000,
                   seed: int = 0) -> tuple[float, float]:
    """Interval of the throughput ratio by a two-level bootstrap: runs, then steps within each run.

    Resampling runs keeps run-to-run drift in the interval; resampling steps uses
    every measured step rather than one number per run.
    """
    def side(runs: list[RunSteps], offset: int) -> np.ndarray:
        length = min(len(run.step_ms) for run in runs)
        ms = np.array([run.step_ms[:length] for run in runs], dtype=float)
        samples = np.array([run.samples[:length] for run in runs], dtype=float)
        return _resampled_means(ms, samples, num_resamples, seed + offset)

    return _percentiles(side(baseline, 1), side(candidate, 2))


def _resampled_means(ms: np.ndarray, samples: np.ndarray | None, num_resamples: int, seed: int) -> np.ndarray:
    """Throughput of each resample: runs drawn with replacement, then steps within them."""
    rng = np.random.default_rng(seed)
    num_runs, num_steps = ms.shape
    runs = rng.integers(0, num_runs, size=(num_resamples, num_runs))
    steps = rng.integers(0, num_steps, size=(num_resamples, num_runs, num_steps))
    picked_ms = ms[runs[:, :, None], steps]
    if samples is None:  # one throughput value per run: average them
        return picked_ms.mean(axis=(1, 2))
    return samples[runs[:, :, None], steps].sum(axis=(1, 2)) / picked_ms.sum(axis=(1, 2)) * 1000.0


def _percentiles(base: np.ndarray, cand: np.ndarray) -> tuple[float, float]:
    ratios = cand / base
    return float(np.percentile(ratios, 2.5)), float(np.percentile(ratios, 97.5))


def spread_pct(values: list[float]) -> float:
    """Return (max - min) / median of repeated runs, in percent (0 for fewer than two)."""
    if len(values) < 2:
        return 0.0
    middle = statistics.median(values)
    return (max(values) - min(values)) / middle * 100.0 if middle else 0.0


def check_speed(baseline_runs: list[RunSteps], candidate_runs: list[RunSteps], profile_noise_pct: float,
                min_gain_pct: float) -> SpeedCheck:
    """Accept only if the interval excludes no gain and the gain beats the noise floor."""
    if not baseline_runs or not candidate_runs:
        raise ValueError("check_speed needs at least one run per side")
    baseline = [run.samples_per_s for run in baseline_runs]
    candidate = [run.samples_per_s for run in candidate_runs]
    speedup = statistics.median(candidate) / statistics.median(baseline)
    low, high = steps_ratio_ci(baseline_runs, candidate_runs)
    noise = max(profile_noise_pct, spread_pct(baseline))
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
