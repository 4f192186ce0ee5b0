import csv

import numpy as np
import torch
from torch.utils.data import Dataset


class FER2013(Dataset):
    """Reads the Kaggle FER2013 layout: one row per face, pixels as a space-separated string."""

    def __init__(self, csv_file, usage, image_size, crop_size, flip_prob, mean, std, seed):
        with open(csv_file, newline="") as f:
            self.rows = [r for r in csv.DictReader(f) if r["Usage"] == usage]
        self.image_size = image_size
        self.crop_size = crop_size
        self.flip_prob = flip_prob
        self.mean, self.std = mean, std
        self.seed = seed
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, idx):
        row = self.rows[idx]
        pixels = [int(p) for p in row["pixels"].split()]
        face = np.asarray(pixels, dtype=np.uint8).reshape(self.image_size, self.image_size)
        img = torch.from_numpy(face).float().div_(255.0)

        g = torch.Generator().manual_seed((self.seed * 100_000 + self.epoch) * 100_000 + idx)
        top, left = torch.randint(0, self.image_size - self.crop_size + 1, (2,), generator=g).tolist()
        img = img[top:top + self.crop_size, left:left + self.crop_size]
        if torch.rand(1, generator=g).item() < self.flip_prob:
            img = img.flip(-1)
        img = (img - self.mean) / self.std
        return img.unsqueeze(0), int(row["emotion"])
