import json
import os

import numpy as np
import torch
from torch.utils.data import Dataset

from export import CLASSES


class MotorImageryTrials(Dataset):
    """Lazily reads each trial from disk: meta.json plus one .npy per channel."""

    def __init__(self, root, window, eps, seed):
        self.root = root
        self.trials = sorted(d for d in os.listdir(root) if d.startswith("trial_"))
        self.window = window
        self.eps = eps
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.trials)

    def __getitem__(self, idx):
        trial_dir = os.path.join(self.root, self.trials[idx])
        with open(os.path.join(trial_dir, "meta.json")) as fh:
            meta = json.load(fh)
        channels = [np.load(os.path.join(trial_dir, f"ch{c:02d}.npy")) for c in range(meta["n_channels"])]
        x = np.stack(channels)
        start = int(self.rng.integers(0, x.shape[1] - self.window + 1))
        x = x[:, start:start + self.window]
        x = (x - x.mean(axis=1, keepdims=True)) / (x.std(axis=1, keepdims=True) + self.eps)
        return torch.from_numpy(x.astype(np.float32)), CLASSES.index(meta["label"])
