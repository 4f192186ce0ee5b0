"""Synthetic plant-leaf photographs with rust / blight lesions (generated from a seed)."""
import numpy as np
from torch.utils.data import Dataset


def render_leaf(rng, size, n_lesions):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    cy, cx = size / 2 + rng.normal(0, 1.5), size / 2 + rng.normal(0, 1.5)
    ay, ax = size * rng.uniform(0.36, 0.46), size * rng.uniform(0.22, 0.32)
    theta = rng.uniform(0, np.pi)
    dy, dx = yy - cy, xx - cx
    u = dx * np.cos(theta) + dy * np.sin(theta)
    v = -dx * np.sin(theta) + dy * np.cos(theta)
    leaf = (u / ax) ** 2 + (v / ay) ** 2 <= 1.0

    img = np.empty((size, size, 3), dtype=np.float64)
    # background: soil / bench, greyish-brown with noise
    img[...] = np.array([120.0, 110.0, 95.0]) + rng.normal(0, 12, (size, size, 1))
    green = np.array([50.0, 140.0, 45.0]) + rng.normal(0, 10, 3)
    shade = 1.0 - 0.25 * (v / ay)
    img[leaf] = (green[None, :] * shade[leaf][:, None]) + rng.normal(0, 8, (int(leaf.sum()), 3))
    # a midrib
    rib = leaf & (np.abs(u) < 0.8)
    img[rib] = img[rib] * 0.6 + np.array([170.0, 200.0, 120.0]) * 0.4

    for _ in range(n_lesions):
        r = rng.uniform(1.5, 4.0)
        t, rad = rng.uniform(0, 2 * np.pi), rng.uniform(0, 0.7)
        ly = cy + rad * ay * np.sin(t)
        lx = cx + rad * ax * np.cos(t)
        spot = leaf & ((yy - ly) ** 2 + (xx - lx) ** 2 <= r * r)
        colour = np.array([150.0, 95.0, 30.0]) if rng.random() < 0.7 else np.array([185.0, 60.0, 40.0])
        img[spot] = colour + rng.normal(0, 10, (int(spot.sum()), 3))
        halo = leaf & ~spot & ((yy - ly) ** 2 + (xx - lx) ** 2 <= (r + 1.2) ** 2)
        img[halo] = img[halo] * 0.5 + np.array([200.0, 190.0, 60.0]) * 0.5
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


class LeafLesionDataset(Dataset):
    """Severity classes 0..3 (healthy, mild, moderate, severe) by number of lesions."""

    LESIONS = {0: (0, 0), 1: (1, 2), 2: (3, 5), 3: (6, 9)}

    def __init__(self, num_images, image_size, seed, transform=None):
        self.num_images = num_images
        self.image_size = image_size
        self.seed = seed
        self.transform = transform
        self.epoch = 0
        self.labels = np.random.default_rng(seed).integers(0, 4, num_images)

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return self.num_images

    def __getitem__(self, idx):
        label = int(self.labels[idx])
        gen = np.random.default_rng([self.seed, idx])
        lo, hi = self.LESIONS[label]
        img = render_leaf(gen, self.image_size, int(gen.integers(lo, hi + 1)))
        sample = {"image": img, "label": label}
        if self.transform is not None:
            aug_rng = np.random.default_rng([self.seed, self.epoch, idx, 7])
            sample = self.transform(sample, aug_rng)
        return sample
