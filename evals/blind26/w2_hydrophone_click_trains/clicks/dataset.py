import numpy as np
import torch
from torch.utils.data import Dataset

from .features import click_features
from .simulate import simulate_clip


class ClickTrainDataset(Dataset):
    def __init__(self, audio_cfg, det_cfg, seed):
        self.sr = audio_cfg["sample_rate"]
        self.n = audio_cfg["clip_samples"]
        self.size = audio_cfg["n_clips"]
        self.det = det_cfg
        self.seed = seed

    def __len__(self):
        return self.size

    def __getitem__(self, idx):
        wave, label = simulate_clip(self.seed, idx, self.sr, self.n)
        pooled, ici, zc, n_clicks, noise = click_features(wave, self.det)
        return (
            torch.from_numpy(np.array(pooled, dtype=np.float32)),
            torch.tensor(ici + zc, dtype=torch.float32),
            torch.tensor([n_clicks, noise], dtype=torch.float64).float(),
            label,
        )
