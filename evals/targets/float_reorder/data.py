"""Heartbeat segments summarised by sliding-window level and line-length features."""
import numpy as np
import torch
from torch.utils.data import Dataset


def make_beats(n, length, n_classes, seed):
    """Classes differ in rhythm (spike spacing) and noise level."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n_classes, n)
    t = np.arange(length)
    period = np.array([40, 56, 72, 96])[labels % 4][:, None]
    phase = rng.integers(0, 96, (n, 1))
    spikes = np.exp(-(((t + phase) % period) - 8.0) ** 2 / 6.0)
    noise = rng.standard_normal((n, length)) * (0.1 + 0.05 * labels[:, None])
    return (spikes + noise).astype(np.float32), labels


def window_features(signal, window, stride):
    """Per window: mean level and mean absolute first difference (line length)."""
    levels, lengths = [], []
    for start in range(0, len(signal) - window + 1, stride):
        total = 0.0
        for v in signal[start:start + window]:
            total += v
        levels.append(total / window)
        total = 0.0
        for a, b in zip(signal[start:start + window - 1], signal[start + 1:start + window]):
            total += abs(b - a)
        lengths.append(total / (window - 1))
    return levels, lengths


class BeatDataset(Dataset):
    def __init__(self, n, length, window, stride, n_classes, seed):
        self.beats, self.labels = make_beats(n, length, n_classes, seed)
        self.window, self.stride = window, stride

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        levels, lengths = window_features(self.beats[i].tolist(), self.window, self.stride)
        return {
            "level": torch.tensor(levels, dtype=torch.float32),
            "line_length": torch.tensor(lengths, dtype=torch.float32),
            "label": int(self.labels[i]),
        }
