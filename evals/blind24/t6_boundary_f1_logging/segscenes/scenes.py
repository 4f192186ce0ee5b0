"""Deterministic synthetic scenes: a textured background with disks, boxes and stripes."""
import numpy as np

PALETTE = np.array([[0.35, 0.4, 0.35], [0.85, 0.3, 0.25], [0.25, 0.35, 0.8], [0.9, 0.85, 0.3]])


def make_scenes(num_scenes, size, seed):
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size]
    images, masks = [], []
    for _ in range(num_scenes):
        mask = np.zeros((size, size), dtype=np.int64)
        if rng.random() < 0.8:  # stripe band
            k = rng.uniform(-1.0, 1.0)
            off = rng.uniform(-size / 2, size / 2)
            band = np.abs(yy - size / 2 - k * (xx - size / 2) - off) < rng.uniform(1.5, 3.5)
            mask[band] = 3
        for _ in range(rng.integers(1, 3)):  # boxes
            h, w = rng.integers(4, 12, size=2)
            y0, x0 = rng.integers(0, size - h), rng.integers(0, size - w)
            mask[y0:y0 + h, x0:x0 + w] = 2
        for _ in range(rng.integers(1, 3)):  # disks
            r = rng.uniform(3.0, 7.0)
            cy, cx = rng.uniform(r, size - r, size=2)
            mask[(yy - cy) ** 2 + (xx - cx) ** 2 <= r * r] = 1
        img = PALETTE[mask] + rng.normal(0.0, 0.12, size=(size, size, 3))
        img += 0.1 * np.sin(xx / rng.uniform(2.0, 6.0))[..., None]
        images.append(img.transpose(2, 0, 1).astype(np.float32))
        masks.append(mask)
    return images, masks
