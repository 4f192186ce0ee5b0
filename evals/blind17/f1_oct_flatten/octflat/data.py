"""Synthetic spectral-domain OCT volumes: one B-scan per item, stored as raw uint8 counts."""
import numpy as np
import torch
from torch.utils.data import Dataset

CLASSES = ("normal", "drusen", "cnv", "dme")


def _synth_bscan(rng, depth, width, label):
    x = np.linspace(-1.0, 1.0, width)
    # foveal pit and a slight tilt: the retina is rarely level in the raw scan
    ilm = (depth * 0.30 + rng.uniform(-12, 12) + rng.uniform(-10, 10) * x
           + rng.uniform(6, 14) * np.exp(-(x / rng.uniform(0.15, 0.3)) ** 2))
    thick = rng.uniform(0.28, 0.36) * depth - 8 * np.exp(-(x / 0.2) ** 2)
    rpe = ilm + thick
    if label == 1:  # drusen: bumps under the RPE
        for _ in range(rng.integers(2, 5)):
            c = rng.uniform(-0.8, 0.8)
            rpe = rpe - rng.uniform(3, 7) * np.exp(-((x - c) / 0.06) ** 2)
    elif label == 2:  # CNV: a raised lesion
        c = rng.uniform(-0.4, 0.4)
        rpe = rpe - rng.uniform(6, 12) * np.exp(-((x - c) / 0.15) ** 2)
    elif label == 3:  # DME: thickened retina with cysts
        rpe = rpe + rng.uniform(8, 16) * np.exp(-(x / 0.35) ** 2)
    z = np.arange(depth)[:, None]
    img = np.full((depth, width), 12.0)
    retina = (z >= ilm[None]) & (z < rpe[None])
    img += retina * (70.0 + 40.0 * np.exp(-(z - ilm[None]) / 6.0))
    img += 150.0 * np.exp(-((z - rpe[None]) / 2.5) ** 2)
    img += (z >= rpe[None] + 4) * 40.0 * np.exp(-(z - rpe[None]) / 20.0)
    if label == 3:
        for _ in range(rng.integers(2, 6)):
            cz, cx = rng.uniform(ilm.mean() + 6, rpe.mean() - 6), rng.uniform(-0.5, 0.5)
            cyst = ((z - cz) / 4.0) ** 2 + ((x[None] - cx) / 0.05) ** 2 < 1
            img[cyst] = 18.0
    # vessel shadows: dark vertical stripes below the ILM
    for _ in range(rng.integers(1, 4)):
        j = rng.integers(0, width)
        img[:, j:j + 2] *= np.where(z > ilm[j] + 3, 0.45, 1.0)
    img += rng.normal(0, 6.0, size=img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


class BScanDataset(Dataset):
    def __init__(self, n_scans, depth, width, seed, transform=None):
        rng = np.random.default_rng(seed)
        self.labels = rng.integers(0, len(CLASSES), size=n_scans)
        self.scans = [_synth_bscan(rng, depth, width, int(lab)) for lab in self.labels]
        self.transform = transform

    def __len__(self):
        return len(self.scans)

    def __getitem__(self, idx):
        sample = {"image": self.scans[idx], "label": int(self.labels[idx])}
        if self.transform is not None:
            sample = self.transform(sample)
        return sample


def collate_bscans(samples):
    return {
        "image": torch.stack([s["image"] for s in samples]),
        "label": torch.tensor([s["label"] for s in samples], dtype=torch.int64),
        "layer": torch.stack([s["layer"] for s in samples]),
    }
