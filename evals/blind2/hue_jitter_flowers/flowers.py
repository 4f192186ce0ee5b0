"""Synthetic 'flowers': radial petal patterns whose petal count and hue depend on the class."""
import numpy as np
from torch.utils.data import Dataset


def render_flowers(n, size, n_classes, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n_classes, size=n)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    images = np.empty((n, size, size, 3), dtype=np.uint8)
    base_hues = np.linspace(0.0, 1.0, n_classes, endpoint=False)
    for i in range(n):
        c = labels[i]
        cy, cx = size / 2 + rng.normal(0, 1.5, size=2)
        radius = np.hypot(yy - cy, xx - cx)
        angle = np.arctan2(yy - cy, xx - cx) + rng.uniform(0, 2 * np.pi)
        petals = 3 + c
        petal = (np.cos(petals * angle) * 0.5 + 0.5) * np.exp(-radius / (size * 0.35))
        hue = (base_hues[c] + rng.normal(0, 0.03)) % 1.0
        rgb = np.stack([np.cos(2 * np.pi * (hue + k / 3)) * 0.5 + 0.5 for k in range(3)], axis=-1)
        background = rng.uniform(0.1, 0.4, size=3)
        img = petal[..., None] * rgb + (1 - petal[..., None]) * background
        img += rng.normal(0, 0.04, size=img.shape)
        images[i] = np.clip(img * 255, 0, 255).astype(np.uint8)
    return images, labels.astype(np.int64)


class FlowerDataset(Dataset):
    def __init__(self, images, labels, transform, seed):
        self.images = images
        self.labels = labels
        self.transform = transform
        self.seed = seed
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        rng = np.random.default_rng([self.seed, self.epoch, idx])
        return self.transform(self.images[idx], rng), int(self.labels[idx])
