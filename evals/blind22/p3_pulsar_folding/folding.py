"""Phase folding at a known period, and the usual candidate diagnostics (profile, S/N)."""
from typing import NamedTuple

import numpy as np
import torch


def accumulate(series, period, tsamp, n_bins, start_index=0, clip=None):
    """Per-phase-bin sum, sum of squares and count of the samples; |x| > clip is dropped as RFI."""
    sums = [0.0] * n_bins
    sumsq = [0.0] * n_bins
    counts = [0] * n_bins
    for i, x in enumerate(series.tolist(), start_index):
        if clip is not None and (x > clip or x < -clip):
            continue
        phase = (i * tsamp / period) % 1.0
        b = int(phase * n_bins)
        sums[b] += x
        sumsq[b] += x * x
        counts[b] += 1
    return np.array(sums), np.array(sumsq), np.array(counts, dtype=np.int64)


def fold(series, period, tsamp, n_bins, start_index=0, clip=None):
    """Mean and scatter of the samples in each pulse-phase bin (empty bins read 0)."""
    sums, sumsq, counts = accumulate(series, period, tsamp, n_bins, start_index, clip)
    mean = np.divide(sums, counts, out=np.zeros_like(sums), where=counts > 0)
    var = np.divide(sumsq, counts, out=np.zeros_like(sums), where=counts > 0) - mean * mean
    return mean, np.sqrt(np.maximum(var, 0.0))


def fold_subints(series, period, tsamp, n_bins, n_subints, clip=None):
    """Time-vs-phase diagram: fold each sub-integration separately (absolute sample time kept)."""
    step = len(series) // n_subints
    folds = [fold(series[s * step:(s + 1) * step], period, tsamp, n_bins, start_index=s * step, clip=clip)
             for s in range(n_subints)]
    return np.stack([m for m, _ in folds]), np.stack([sd for _, sd in folds])


def profile_snr(profile):
    """Boxcar-free S/N: peak above the median, in units of the robust off-pulse scatter."""
    med = np.median(profile)
    mad = np.median(np.abs(profile - med)) * 1.4826
    return float((profile.max() - med) / mad) if mad > 0 else 0.0


class FoldedCandidate(NamedTuple):
    subints: np.ndarray
    scatter: np.ndarray
    profile: np.ndarray
    snr: float
    label: float

    @classmethod
    def from_subints(cls, subints, scatter, is_pulsar):
        profile = subints.mean(axis=0)
        return cls(subints, scatter, profile, profile_snr(profile), float(is_pulsar))

    def as_dict(self):
        sub = self.subints - self.subints.mean(axis=1, keepdims=True)
        scale = sub.std() or 1.0
        return {
            "subints": torch.from_numpy((sub / scale).astype(np.float32)).unsqueeze(0),
            "profile": torch.from_numpy(((self.profile - np.median(self.profile)) / scale).astype(np.float32)),
            "scatter": torch.from_numpy(self.scatter.mean(axis=0).astype(np.float32)),
            "snr": torch.tensor(self.snr, dtype=torch.float32),
            "label": torch.tensor(self.label, dtype=torch.float32),
        }
