import numpy as np
import torch
from torch.utils.data import Dataset

from features import onset_features


def synth_clips(n, sr, seconds, n_classes, seed):
    rng = np.random.default_rng(seed)
    length = int(sr * seconds)
    clips = np.zeros((n, length), dtype=np.float32)
    labels = rng.integers(0, n_classes, size=n)
    t = np.arange(length) / sr
    for i in range(n):
        period = 0.09 + 0.07 * labels[i] + rng.uniform(-0.01, 0.01)
        onset = rng.uniform(0, period)
        y = 0.02 * rng.standard_normal(length)
        pitch = 200 + 150 * labels[i] + rng.uniform(-30, 30)
        while onset < seconds:
            s = int(onset * sr)
            n_tail = min(length - s, 800)
            env = np.exp(-np.arange(n_tail) / (120 + 40 * labels[i]))
            burst = rng.standard_normal(n_tail) * 0.5 + np.sin(2 * np.pi * pitch * t[:n_tail])
            y[s:s + n_tail] += env * burst
            onset += period * rng.uniform(0.85, 1.15)
        clips[i] = y
    return clips, labels.astype(np.int64)


class PercussionClips(Dataset):
    def __init__(self, cfg, seed):
        d, f = cfg["data"], cfg["features"]
        self.clips, self.labels = synth_clips(d["n_clips"], d["sample_rate"], d["clip_seconds"],
                                              d["n_classes"], seed)
        self.n_fft, self.hop, self.n_bands = f["n_fft"], f["hop"], f["n_bands"]
        self.rng = np.random.default_rng(seed + 1)

    def __len__(self):
        return len(self.clips)

    def __getitem__(self, idx):
        y = self.clips[idx].astype(np.float64)
        gain = self.rng.uniform(0.5, 1.5)
        shift = int(self.rng.integers(0, 400))
        y = np.roll(y, shift) * gain
        feats = onset_features(y, self.n_fft, self.hop, self.n_bands)
        return {"feats": torch.from_numpy(feats), "label": int(self.labels[idx])}
