import numpy as np
import torch
from torch.utils.data import Dataset

from .synth import render_plate


class PlateCropDataset(Dataset):
    """Plate crops rendered on the fly; label = number of glyphs - min_chars."""

    def __init__(self, num_plates, height, width, min_chars, max_chars, seed, transform=None):
        self.height, self.width = height, width
        self.seed = seed
        self.transform = transform
        rng = np.random.default_rng(seed)
        self.n_chars = rng.integers(min_chars, max_chars + 1, size=num_plates)
        self.min_chars = min_chars
        self.epoch = 0
        # "Scan" the plates once, stored as 8-bit crops like the JPEG crops of a real dump.
        self.crops = np.empty((num_plates, height, width), dtype=np.uint8)
        for i, n in enumerate(self.n_chars):
            plate = render_plate(np.random.default_rng((seed, i)), height, width, int(n))
            self.crops[i] = np.round(plate * 255.0).astype(np.uint8)

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return len(self.n_chars)

    def __getitem__(self, idx):
        rng = np.random.default_rng((self.seed, self.epoch, idx))
        n = int(self.n_chars[idx])
        img = self.crops[idx].astype(np.float64) / 255.0
        feats = self.transform(img, rng) if self.transform is not None else torch.from_numpy(img)
        return feats, n - self.min_chars
