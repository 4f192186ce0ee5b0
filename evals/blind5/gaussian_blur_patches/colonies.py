"""Synthetic stained-tissue patches: four colony types that differ in blob size, density and hue."""
import numpy as np

TYPES = ["sparse_small", "dense_small", "sparse_large", "dense_large"]


def make_patches(n, size, seed):
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    images = np.empty((n, size, size, 3), dtype=np.uint8)
    labels = np.empty(n, dtype=np.int64)
    for i in range(n):
        kind = int(rng.integers(0, len(TYPES)))
        count = int(rng.integers(14, 22)) if kind in (1, 3) else int(rng.integers(4, 8))
        radius = rng.uniform(1.5, 2.5) if kind in (0, 1) else rng.uniform(3.5, 5.0)
        stain = np.zeros((size, size))
        for _ in range(count):
            cy, cx = rng.uniform(0, size, 2)
            r = radius * rng.uniform(0.8, 1.2)
            stain += np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r * r))
        stain = np.clip(stain, 0, 1)
        hue = np.array([0.55, 0.25, 0.6]) + rng.normal(0, 0.04, 3)
        bg = np.array([0.92, 0.85, 0.9]) + rng.normal(0, 0.03, 3)
        img = bg * (1 - stain[..., None]) + hue * stain[..., None]
        img += rng.normal(0, 0.04, img.shape)
        images[i] = np.clip(img * 255, 0, 255).astype(np.uint8)
        labels[i] = kind
    return images, labels
