"""Synthetic IMU windows: each activity has its own dominant frequency per axis."""
import numpy as np
import torch
from torch.utils.data import Dataset


class IMUWindows(Dataset):
    def __init__(self, n_windows, channels, window, n_classes, seed):
        rng = np.random.default_rng(seed)
        self.labels = rng.integers(0, n_classes, n_windows)
        t = np.arange(window, dtype=np.float32) / 50.0
        freqs = rng.uniform(0.5, 4.0, (n_classes, channels)).astype(np.float32)
        phase = rng.uniform(0, 2 * np.pi, (n_windows, channels, 1)).astype(np.float32)
        clean = np.sin(2 * np.pi * freqs[self.labels][:, :, None] * t + phase)
        noise = rng.standard_normal((n_windows, channels, window), dtype=np.float32)
        self.windows = (clean + 0.8 * noise).astype(np.float32)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return torch.from_numpy(self.windows[i]), int(self.labels[i])


def collate_windows(samples):
    """Batch (window, label) pairs as a float tensor [batch, channels, window] and labels."""
    windows, labels = [], []
    for window, label in samples:
        windows.append([[float(v) for v in channel] for channel in window])
        labels.append(label)
    return torch.tensor(windows), torch.tensor(labels)
