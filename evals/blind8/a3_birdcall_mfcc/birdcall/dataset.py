import numpy as np
import torch
from torch.utils.data import Dataset

from .features import MFCC
from .synth import make_clips


class BirdcallDataset(Dataset):
    """Random 0.4 s crop of a 0.6 s clip (plus a random gain), then MFCCs."""

    def __init__(self, cfg, seed):
        d = cfg.data
        self.clips, self.labels = make_clips(d.num_clips, d.sample_rate, d.clip_seconds,
                                             d.num_species, d.snr_db_min, d.snr_db_max, seed)
        self.crop = int(round(d.sample_rate * d.crop_seconds))
        self.mfcc = MFCC(cfg.features, d.sample_rate)
        self.rng = np.random.default_rng(seed + 17)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        clip = self.clips[idx]
        start = int(self.rng.integers(0, clip.shape[0] - self.crop + 1))
        gain = float(self.rng.uniform(0.5, 1.5))
        samples = [gain * s for s in clip[start:start + self.crop].tolist()]
        feats = self.mfcc(samples)
        return torch.tensor(feats, dtype=torch.float32).t().contiguous(), int(self.labels[idx])
