"""Synthetic three-component event waveforms: noise, or a P and an S arrival with coda."""
import numpy as np
import torch
from torch.utils.data import Dataset

CLASSES = ("noise", "local", "regional")


def _wavelet(rng, n, f0, fs):
    t = np.arange(n) / fs
    env = t * np.exp(-t * f0 * rng.uniform(0.6, 1.4))
    return np.sin(2 * np.pi * f0 * t + rng.uniform(0, 2 * np.pi)) * env / max(env.max(), 1e-9)


def synth_trace(rng, n_samples, fs):
    """Return (counts int32 (3, n), label): digitiser counts of a noisy 3C record."""
    noise_std = rng.lognormal(np.log(180.0), 0.4)
    counts = rng.normal(0.0, noise_std, size=(3, n_samples))
    # microseism: a slow swell on all components
    t = np.arange(n_samples) / fs
    counts += noise_std * 0.8 * np.sin(2 * np.pi * rng.uniform(0.15, 0.3) * t + rng.uniform(0, 6.3))
    label = int(rng.choice(3, p=[0.3, 0.4, 0.3]))
    if label:
        sp = rng.uniform(2.0, 8.0) if label == 1 else rng.uniform(12.0, 22.0)
        p_at = int(rng.uniform(0.15, 0.35) * n_samples)
        s_at = min(n_samples - 50, p_at + int(sp * fs))
        amp = noise_std * rng.lognormal(np.log(25.0), 0.8)
        for comp, (p_gain, s_gain) in enumerate(((1.0, 0.5), (0.4, 1.2), (0.35, 1.1))):
            wp = _wavelet(rng, n_samples - p_at, rng.uniform(4.0, 9.0), fs)
            ws = _wavelet(rng, n_samples - s_at, rng.uniform(1.5, 4.0), fs)
            counts[comp, p_at:] += amp * p_gain * wp
            counts[comp, s_at:] += amp * s_gain * 1.8 * ws
    counts = np.clip(np.rint(counts), -(2 ** 19), 2 ** 19 - 1).astype(np.int32)
    return counts, label


class SyntheticEventDataset(Dataset):
    """Map-style dataset of raw records stored as big-endian int32 bytes (SAC-like payloads)."""

    def __init__(self, n_traces, n_samples, fs, seed, transform=None):
        rng = np.random.default_rng(seed)
        self.n_samples = n_samples
        self.records = []
        for _ in range(n_traces):
            counts, label = synth_trace(rng, n_samples, fs)
            self.records.append((counts.astype(">i4").tobytes(), label))
        self.transform = transform

    def __len__(self):
        return len(self.records)

    def __getitem__(self, idx):
        payload, label = self.records[idx]
        counts = np.frombuffer(payload, dtype=">i4").reshape(3, self.n_samples).astype(np.int64)
        sample = {"counts": counts, "label": label, "index": idx}
        if self.transform is not None:
            sample = self.transform(sample)
        return sample


def collate_traces(batch):
    xs, ys = zip(*batch)
    return torch.stack(xs), torch.tensor(ys, dtype=torch.long)
