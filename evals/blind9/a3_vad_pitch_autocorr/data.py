"""Synthetic int16 utterances with one of four intonation contours."""
import numpy as np
import torch
from torch.utils.data import Dataset

CONTOURS = ("rising", "falling", "flat", "vibrato")


def synth_clip(rng, contour, sr, n):
    t = np.arange(n) / sr
    base = rng.uniform(100.0, 240.0)
    if contour == "rising":
        f0 = base * (1.0 + rng.uniform(0.3, 0.6) * t / t[-1])
    elif contour == "falling":
        f0 = base * (1.0 + rng.uniform(0.3, 0.6) * (1.0 - t / t[-1]))
    elif contour == "flat":
        f0 = np.full(n, base * 1.2)
    else:
        f0 = base * 1.2 * (1.0 + 0.12 * np.sin(2 * np.pi * rng.uniform(4.0, 7.0) * t))
    phase = 2 * np.pi * np.cumsum(f0) / sr
    voiced = sum(a * np.sin(k * phase) for k, a in enumerate((1.0, 0.6, 0.35, 0.2, 0.1), start=1))
    # syllable envelope: voiced stretches separated by pauses and fricative noise
    env = np.zeros(n)
    pos = int(rng.integers(0, sr // 20))
    while pos < n:
        length = int(rng.integers(sr // 8, sr // 3))
        env[pos:pos + length] = np.hanning(min(length, n - pos) + 2)[1:-1] ** 0.5
        pos += length + int(rng.integers(sr // 15, sr // 5))
    fricative = rng.normal(0.0, 1.0, n) * (env == 0) * (rng.random(n) < 0.6)
    signal = 6000.0 * env * voiced + 900.0 * fricative + rng.normal(0.0, 40.0, n)
    signal += rng.uniform(-200, 200)  # DC offset of a cheap microphone
    return np.clip(np.round(signal), -32768, 32767).astype(np.int16)


class IntonationClips(Dataset):
    """Returns (frame features [T, 5], label); a random crop of the clip on each access."""

    def __init__(self, num_clips, sr, clip_seconds, crop_seconds, analyzer, seed):
        rng = np.random.default_rng(seed)
        n = int(sr * clip_seconds)
        self.labels = rng.integers(0, len(CONTOURS), num_clips)
        self.clips = [synth_clip(rng, CONTOURS[c], sr, n) for c in self.labels]
        self.crop = int(sr * crop_seconds)
        self.analyzer = analyzer
        self.rng = np.random.default_rng(seed + 1)

    def __len__(self):
        return len(self.clips)

    def __getitem__(self, idx):
        pcm = self.clips[idx]
        start = int(self.rng.integers(0, len(pcm) - self.crop + 1))
        feats = self.analyzer(pcm[start:start + self.crop])
        return feats, torch.tensor(int(self.labels[idx]))
