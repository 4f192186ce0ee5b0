"""Windowed gait dataset, a class-balanced batch sampler and the batch type."""
from collections import namedtuple

import numpy as np
import torch
from torch.utils.data import Dataset, Sampler

from . import device
from .features import stride_features
from .signal import detect_steps, magnitude, moving_average

GaitBatch = namedtuple("GaitBatch", ["signal", "features", "label"])


class GaitWindows(Dataset):
    """Fixed-hop windows over binary recordings. Each fetch decodes the recording, applies a random
    gain (sensor calibration spread), and returns the smoothed magnitude plus stride features."""

    def __init__(self, recordings, labels, window, hop, taps, refractory_s, gain_jitter, seed):
        self.recordings = recordings
        self.labels = labels
        self.window, self.taps = window, taps
        self.refractory_ms = refractory_s * 1000.0
        self.gain_jitter = gain_jitter
        self.rng = np.random.default_rng(seed)
        self.index = []  # (recording, start)
        for r, blob in enumerate(recordings):
            _, _, n = device.read_header(blob)
            self.index.extend((r, s) for s in range(0, n - window + 1, hop))
        self.window_labels = [labels[r] for r, _ in self.index]

    def __len__(self):
        return len(self.index)

    def __getitem__(self, idx):
        r, start = self.index[idx]
        fs, lsb, ts, xs, ys, zs = device.decode(self.recordings[r])
        end = start + self.window
        gain = 1.0 + self.gain_jitter * (2.0 * self.rng.random() - 1.0)
        mag = magnitude(xs[start:end], ys[start:end], zs[start:end], gain / lsb)
        smooth = moving_average(mag, self.taps)
        t = ts[start:end]
        peaks = detect_steps(smooth, t, self.refractory_ms)
        feats = stride_features(smooth, t, peaks)
        return (torch.tensor(smooth, dtype=torch.float32).unsqueeze(0),
                torch.tensor(feats, dtype=torch.float32), self.window_labels[idx])


class ClassBalancedBatchSampler(Sampler):
    """Each batch draws batch_size // num_classes windows per class (with replacement)."""

    def __init__(self, labels, batch_size, batches_per_epoch, seed):
        classes = sorted(set(labels))
        self.by_class = {c: [i for i, y in enumerate(labels) if y == c] for c in classes}
        self.per_class = batch_size // len(classes)
        self.batches = batches_per_epoch
        self.generator = torch.Generator().manual_seed(seed)

    def __len__(self):
        return self.batches

    def __iter__(self):
        for _ in range(self.batches):
            batch = []
            for c, members in self.by_class.items():
                picks = torch.randint(len(members), (self.per_class,), generator=self.generator)
                batch.extend(members[p] for p in picks.tolist())
            yield batch


def collate_gait(samples):
    signal, feats, label = zip(*samples)
    return GaitBatch(torch.stack(signal), torch.stack(feats), torch.tensor(label))
