import statistics

import numpy as np
import torch
from torch.utils.data import Dataset

RHYTHMS = ["sinus", "brady", "tachy", "irregular"]


def synth_record(rng, label, fs, seconds):
    n = fs * seconds
    t = np.arange(n) / fs
    rate = {0: 72, 1: 48, 2: 125, 3: 90}[label] * rng.uniform(0.9, 1.1)
    rr = 60.0 / rate
    beats = []
    pos = rng.uniform(0, rr)
    while pos < seconds:
        beats.append(pos)
        jitter = 0.35 if label == 3 else 0.04
        pos += rr * (1.0 + jitter * rng.standard_normal())
        pos = max(pos, beats[-1] + 0.25)
    beats = np.asarray(beats)
    sig = np.zeros(n)
    for width, amp, shift in ((0.012, 1.2, 0.0), (0.04, 0.25, -0.16), (0.06, 0.35, 0.25)):
        d = t[None, :] - (beats[:, None] + shift)
        sig += amp * np.exp(-0.5 * (d / width) ** 2).sum(0)
    wander = 0.4 * np.sin(2 * np.pi * rng.uniform(0.1, 0.5) * t + rng.uniform(0, 6.3))
    sig = sig * rng.uniform(0.5, 2.0) + wander + 0.05 * rng.standard_normal(n) + rng.uniform(-1, 1)
    return sig.astype(np.float32)


def median_filter(values, kernel):
    """Running median, window shrunk at the edges (scipy.signal.medfilt without zero padding)."""
    half = kernel // 2
    out = []
    for i in range(len(values)):
        window = sorted(values[max(0, i - half): i + half + 1])
        out.append(window[len(window) // 2])
    return out


def robust_scale(values):
    med = statistics.median(values)
    mad = statistics.median([abs(v - med) for v in values])
    scale = 1.4826 * mad + 1e-6
    return [(v - med) / scale for v in values]


class ECGWindows(Dataset):
    def __init__(self, cfg, seed):
        rng = np.random.default_rng(seed)
        self.labels = rng.integers(0, len(RHYTHMS), cfg["num_records"])
        self.records = np.stack([synth_record(rng, int(y), cfg["fs"], cfg["record_seconds"])
                                 for y in self.labels])
        self.window = cfg["window"]
        self.kernel = cfg["median_kernel"]
        self.crop_rng = np.random.default_rng(seed + 1)

    def __len__(self):
        return len(self.records)

    def __getitem__(self, idx):
        rec = self.records[idx]
        start = int(self.crop_rng.integers(0, rec.shape[0] - self.window + 1))
        x = rec[start:start + self.window].tolist()
        baseline = median_filter(x, self.kernel)
        x = [v - b for v, b in zip(x, baseline)]
        x = robust_scale(x)
        return torch.tensor(x, dtype=torch.float32).unsqueeze(0), int(self.labels[idx])
