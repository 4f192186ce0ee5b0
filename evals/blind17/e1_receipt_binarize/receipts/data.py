"""The receipt-line dataset: scans are rendered once, every draw runs the document pipeline."""
import random

import numpy as np
import torch
from torch.utils.data import Dataset

from .synth import STORES, render_receipt
from .transforms import (AdaptiveBinarize, Compose, ProjectionDeskew, RandomLineCrop, RandomShade,
                         ToGrayscale, ToTensor)


def build_transform(cfg):
    return Compose([
        RandomShade(*cfg["shade"]),
        ToGrayscale(),
        AdaptiveBinarize(radius=cfg["binarize_radius"], offset=cfg["binarize_offset"]),
        ProjectionDeskew(max_angle=cfg["deskew_max_angle"], step=cfg["deskew_step"]),
        RandomLineCrop(height=cfg["crop_height"], min_ink=cfg["min_ink"]),
        ToTensor(),
    ])


class ReceiptScans(Dataset):
    """Map-style dataset of scanned receipts; the label is the store chain that printed the slip."""

    def __init__(self, n_scans, height, width, transform, seed):
        gen = np.random.default_rng(seed)
        self.scans, self.labels = [], []
        for _ in range(n_scans):
            store = int(gen.integers(0, STORES))
            self.scans.append(render_receipt(gen, height, width, store))
            self.labels.append(store)
        self.transform = transform
        self.rng = random.Random(seed + 1)

    def __len__(self):
        return len(self.scans)

    def __getitem__(self, idx):
        sample = {"image": self.scans[idx].copy(), "label": self.labels[idx]}
        sample = self.transform(sample, self.rng)
        return sample["image"], torch.tensor(sample["label"], dtype=torch.long), sample["n_lines"]
