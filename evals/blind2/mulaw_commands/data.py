import numpy as np
import torch
from torch.utils.data import Dataset

import g711

COMMANDS = ["up", "down", "left", "right", "stop", "go"]


def synth_corpus(n_clips, sample_rate, duration, seed):
    """Each command is a two-tone chirp pattern with its own pitch contour, plus noise."""
    rng = np.random.default_rng(seed)
    n = int(sample_rate * duration)
    t = np.arange(n) / sample_rate
    clips, labels = [], []
    for _ in range(n_clips):
        c = int(rng.integers(len(COMMANDS)))
        f0 = 300 + 110 * c + rng.normal(0, 15)
        slope = (-1) ** c * (150 + 40 * c)
        onset = rng.uniform(0.0, 0.15)
        env = np.clip((t - onset) * 20, 0, 1) * np.exp(-np.maximum(t - onset, 0) * (3 + c))
        wave = np.sin(2 * np.pi * (f0 * t + 0.5 * slope * t ** 2)) + 0.4 * np.sin(2 * np.pi * 2.5 * f0 * t)
        pcm = (env * wave * rng.uniform(0.2, 0.6) + rng.normal(0, 0.02, n)) * 32767
        clips.append(g711.linear2ulaw(np.clip(pcm, -32768, 32767)).tobytes())
        labels.append(c)
    return clips, labels


class MuLawCommands(Dataset):
    """Clips are kept as they arrive from the telephony capture: raw mu-law payloads."""

    def __init__(self, payloads, labels, frontend):
        self.payloads = payloads
        self.labels = labels
        self.frontend = frontend

    def __len__(self):
        return len(self.payloads)

    def __getitem__(self, index):
        wav = g711.decode(self.payloads[index])
        feats = self.frontend(wav)
        return torch.from_numpy(feats), torch.tensor(self.labels[index])
