import numpy as np
import torch
from torch.utils.data import Dataset

import codec


def build_shard(n_records, n_channels, length, seed):
    """Quantised multichannel telemetry (int counts + a scale), encoded record by record."""
    rng = np.random.default_rng(seed)
    blobs = []
    for _ in range(n_records):
        label = int(rng.integers(0, 3))
        t = np.arange(length)
        walk = np.cumsum(rng.normal(0, 1.0 + label, size=(n_channels, length)), axis=1)
        periodic = (label + 1) * 20 * np.sin(2 * np.pi * t / (16 + 8 * label))[None, :]
        counts = np.round(walk * 10 + periodic).astype(np.int64)
        scale = float(np.float32(0.01 * (1 + rng.integers(0, 4))))
        blobs.append(codec.encode(counts, scale, label))
    return blobs


class TelemetryShard(Dataset):
    def __init__(self, blobs):
        self.blobs = blobs

    def __len__(self):
        return len(self.blobs)

    def __getitem__(self, k):
        channels, label = codec.decode(self.blobs[k])
        x = torch.tensor(channels, dtype=torch.float32)
        x = x - x.mean(dim=1, keepdim=True)
        return x, label
