"""Synthetic keyword clips and the frame-energy front end."""
import math

import numpy as np
import torch
from torch.utils.data import Dataset


def make_clips(n_clips, clip_len, n_classes, seed):
    """Noise under a class-specific loudness envelope: the class lives in the energy contour."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n_classes, size=n_clips)
    t = np.linspace(0.0, 1.0, clip_len, dtype=np.float32)
    envelopes = np.stack([1.0 + 0.15 * np.sin(2 * np.pi * (c + 1) * t) for c in range(n_classes)])
    clips = rng.standard_normal((n_clips, clip_len), dtype=np.float32)
    clips *= envelopes[labels].astype(np.float32)
    return clips, labels


def frame_energy(signal, frame_len, hop):
    """RMS energy of each frame of `signal` (a list of floats)."""
    energies = []
    for start in range(0, len(signal) - frame_len + 1, hop):
        acc = 0.0
        for v in signal[start:start + frame_len]:
            acc += v * v
        energies.append(math.sqrt(acc / frame_len))
    return energies


class ClipDataset(Dataset):
    def __init__(self, n_clips, clip_len, frame_len, hop, n_classes, seed):
        self.clips, self.labels = make_clips(n_clips, clip_len, n_classes, seed)
        self.frame_len, self.hop = frame_len, hop
        self.n_frames = (clip_len - frame_len) // hop + 1

    def __len__(self):
        return len(self.clips)

    def __getitem__(self, i):
        feats = frame_energy(self.clips[i].tolist(), self.frame_len, self.hop)
        return torch.tensor(feats, dtype=torch.float32), int(self.labels[i])
