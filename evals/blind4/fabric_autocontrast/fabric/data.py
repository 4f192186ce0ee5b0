import random

import numpy as np
from torch.utils.data import Dataset


def make_fabric(n, size, n_classes, seed):
    """Low-contrast woven textures; the class is the weave direction."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    images = np.empty((n, size, size, 3), dtype=np.uint8)
    labels = rng.integers(0, n_classes, size=n)
    for i in range(n):
        theta = np.pi * labels[i] / n_classes + rng.normal(0, 0.08)
        freq = rng.uniform(0.25, 0.6)
        wave = np.sin(freq * (np.cos(theta) * xx + np.sin(theta) * yy) + rng.uniform(0, 6.3))
        base = rng.uniform(60, 190, size=3)
        amp = rng.uniform(6, 30)
        img = base + amp * wave[..., None] + rng.normal(0, 6, size=(size, size, 3))
        images[i] = np.clip(img, 0, 255).astype(np.uint8)
    return images, labels.astype(np.int64)


class FabricPatches(Dataset):
    def __init__(self, cfg, transform):
        self.images, self.labels = make_fabric(cfg["num_images"], cfg["image_size"],
                                               cfg["num_classes"], cfg["seed"])
        self.transform = transform
        self.rng = random.Random(cfg["seed"] + 100)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.transform(self.images[i], self.rng), int(self.labels[i])
