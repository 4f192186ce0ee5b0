import numpy as np
from torch.utils.data import Dataset

from .scenes import render_frame


class SyntheticRGBD(Dataset):
    """Indoor RGB-D frames; frames are rendered once, augmentation is per epoch."""

    def __init__(self, cfg, transform=None, seed=0):
        self.cfg = cfg
        self.transform = transform
        self.seed = seed
        self.epoch = 0
        self.frames = [
            render_frame(i, cfg["height"], cfg["width"], cfg["intrinsics"], cfg["dropout"], seed)
            for i in range(cfg["num_frames"])
        ]

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return len(self.frames)

    def __getitem__(self, idx):
        rgb, depth, label = self.frames[idx]
        sample = {
            "rgb": rgb,
            "depth": depth,
            "label": label,
            "K": tuple(self.cfg["intrinsics"]),
            "rng": np.random.default_rng([self.seed, 1000 + self.epoch, idx]),
        }
        if self.transform is not None:
            sample = self.transform(sample)
        return sample
