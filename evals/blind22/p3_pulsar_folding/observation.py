"""A stream of synthetic filterbank-collapsed time series: noise, a slow baseline wander, maybe a pulsar."""
import math
from dataclasses import dataclass

import numpy as np
from torch.utils.data import IterableDataset

from folding import FoldedCandidate, fold_subints, profile_snr


@dataclass
class Candidate:
    series: np.ndarray  # float32 time series
    period: float       # s
    tsamp: float        # s
    is_pulsar: bool


def simulate(rng, obs):
    n, tsamp = obs["n_samples"], obs["tsamp"]
    period = float(rng.uniform(*obs["period_range"]))
    series = rng.standard_normal(n, dtype=np.float32)
    # red noise: a few slow sinusoids, evaluated on a coarse grid and held (they are slow anyway)
    hold = 64
    t_coarse = np.arange(n // hold, dtype=np.float64) * (hold * tsamp)
    wander = np.zeros(n // hold, dtype=np.float64)
    for k in range(1, 4):
        wander += obs["red_noise"] / k * np.sin(2 * math.pi * k * t_coarse / (n * tsamp) + rng.uniform(0, 2 * math.pi))
    series += np.repeat(wander.astype(np.float32), hold)
    # impulsive RFI: a few bright spikes
    n_spikes = int(rng.poisson(obs["rfi_spikes"]))
    series[rng.integers(0, n, size=n_spikes)] += rng.uniform(6.0, 30.0, size=n_spikes).astype(np.float32)
    is_pulsar = bool(rng.random() < obs["pulsar_fraction"])
    if is_pulsar:
        duty = rng.uniform(*obs["duty_cycle_range"])
        amp = rng.uniform(*obs["amplitude_range"])
        phase0 = rng.uniform()
        grid = np.linspace(0.0, 1.0, 1024, endpoint=False)
        dist = np.minimum(grid, 1.0 - grid)
        template = (amp * np.exp(-0.5 * (dist / (duty / 2.355)) ** 2)).astype(np.float32)
        phase = np.arange(n, dtype=np.float64) * (tsamp / period) + phase0
        series += template[((phase - np.floor(phase)) * 1024).astype(np.int64)]
    return Candidate(series, period, tsamp, is_pulsar)


def trial_periods(period, n_trials, step):
    """The search period is only approximate: refine it on a small grid of fractional offsets."""
    half = n_trials // 2
    return [period * (1.0 + k * step) for k in range(-half, n_trials - half)]


class CandidateStream(IterableDataset):
    def __init__(self, cfg):
        self.seed = cfg["seed"]
        self.obs = cfg["observation"]
        self.fold_cfg = cfg["folding"]

    def __iter__(self):
        for k in range(self.obs["n_candidates"]):
            cand = simulate(np.random.default_rng([self.seed, k]), self.obs)
            best = None
            for period in trial_periods(cand.period, self.fold_cfg["n_trials"], self.fold_cfg["trial_step"]):
                mean, std = fold_subints(cand.series, period, cand.tsamp, self.fold_cfg["n_bins"],
                                         self.fold_cfg["n_subints"], clip=self.fold_cfg["clip_sigma"])
                snr = profile_snr(mean.mean(axis=0))
                if best is None or snr > best[0]:
                    best = (snr, mean, std)
            yield FoldedCandidate.from_subints(best[1], best[2], cand.is_pulsar).as_dict()
