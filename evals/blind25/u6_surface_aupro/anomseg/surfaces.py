"""Synthetic inspection images of a textured surface with defects (blobs, scratches, pits)."""
import numpy as np
import torch
from torch.utils.data import Dataset


def _texture(rng, size):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    img = np.zeros((size, size))
    for _ in range(4):
        k = rng.uniform(0.2, 0.9, 2)
        img += rng.uniform(0.05, 0.15) * np.sin(k[0] * xx + k[1] * yy + rng.uniform(0, 6.3))
    return img + 0.05 * rng.standard_normal((size, size)) + 0.5


def _defects(rng, size, n):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    mask = np.zeros((size, size), bool)
    for _ in range(n):
        kind = rng.integers(0, 3)
        cy, cx = rng.uniform(4, size - 4, 2)
        if kind == 0:      # blob
            ry, rx = rng.uniform(2, 6, 2)
            mask |= ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 <= 1.0
        elif kind == 1:    # scratch
            ang = rng.uniform(0, np.pi)
            length = rng.uniform(10, 30)
            d_perp = np.abs(-(xx - cx) * np.sin(ang) + (yy - cy) * np.cos(ang))
            d_par = np.abs((xx - cx) * np.cos(ang) + (yy - cy) * np.sin(ang))
            mask |= (d_perp <= rng.uniform(0.6, 1.5)) & (d_par <= length / 2)
        else:              # pit cluster
            for _ in range(rng.integers(2, 5)):
                py, px = cy + rng.normal(0, 3), cx + rng.normal(0, 3)
                mask |= (yy - py) ** 2 + (xx - px) ** 2 <= rng.uniform(0.8, 2.5) ** 2
    return mask


class SurfaceDataset(Dataset):
    def __init__(self, n_images, size, defect_rate, seed):
        rng = np.random.default_rng(seed)
        self.images = np.empty((n_images, 1, size, size), np.float32)
        self.masks = np.zeros((n_images, 1, size, size), np.float32)
        for i in range(n_images):
            img = _texture(rng, size)
            if rng.random() < defect_rate:
                m = _defects(rng, size, int(rng.integers(1, 4)))
                img = np.where(m, img + rng.choice([-1.0, 1.0]) * rng.uniform(0.25, 0.5), img)
                self.masks[i, 0] = m
            self.images[i, 0] = img
        self.flip_rng = np.random.default_rng(seed + 1)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        img, mask = self.images[idx], self.masks[idx]
        if self.flip_rng.random() < 0.5:
            img, mask = img[:, :, ::-1], mask[:, :, ::-1]
        return torch.from_numpy(img.copy()), torch.from_numpy(mask.copy())
