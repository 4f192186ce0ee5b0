"""Synthetic vibration windows, the per-frame feature front end and the LightningDataModule."""
import math

import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


def make_windows(n_windows, window_len, n_classes, seed):
    """Noise plus a class-specific tone: the class lives in the frame energy and peak contours."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n_classes, size=n_windows)
    t = np.arange(window_len, dtype=np.float32) / window_len
    tones = np.stack([0.4 * np.sin(2 * np.pi * (3 * c + 2) * t) for c in range(n_classes)]).astype(np.float32)
    windows = rng.standard_normal((n_windows, window_len), dtype=np.float32) * 0.5 + tones[labels]
    return windows, labels


def frame_features(signal, frame_len, hop):
    """RMS and peak absolute value of each frame of `signal` (a list of floats), RMS first."""
    rms, peak = [], []
    for start in range(0, len(signal) - frame_len + 1, hop):
        acc = 0.0
        top = 0.0
        for v in signal[start:start + frame_len]:
            acc += v * v
            if abs(v) > top:
                top = abs(v)
        rms.append(math.sqrt(acc / frame_len))
        peak.append(top)
    return rms + peak


class VibrationDataset(Dataset):
    def __init__(self, n_windows, window_len, frame_len, hop, n_classes, seed):
        self.windows, self.labels = make_windows(n_windows, window_len, n_classes, seed)
        self.frame_len, self.hop = frame_len, hop
        self.n_features = 2 * ((window_len - frame_len) // hop + 1)

    def __len__(self):
        return len(self.windows)

    def __getitem__(self, i):
        feats = frame_features(self.windows[i].tolist(), self.frame_len, self.hop)
        return torch.tensor(feats, dtype=torch.float32), int(self.labels[i])


class VibrationData(L.LightningDataModule):
    def __init__(self, cfg, seed):
        super().__init__()
        self.cfg, self.seed = cfg, seed
        d = cfg
        self.dataset = VibrationDataset(d["n_windows"], d["window_len"], d["frame_len"], d["hop"],
                                        d["n_classes"], seed)

    def train_dataloader(self):
        d = self.cfg
        return DataLoader(self.dataset, batch_size=d["batch_size"], shuffle=d["shuffle"],
                          num_workers=d["num_workers"], generator=torch.Generator().manual_seed(self.seed))
