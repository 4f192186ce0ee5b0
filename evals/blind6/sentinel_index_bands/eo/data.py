"""Synthetic Sentinel-2-like 4-band (B2, B3, B4, B8) surface-reflectance patches."""
import numpy as np
from torch.utils.data import Dataset

# mean reflectance per class for (blue, green, red, nir)
SIGNATURES = {
    "water": (0.06, 0.05, 0.03, 0.02),
    "forest": (0.03, 0.05, 0.03, 0.35),
    "cropland": (0.05, 0.08, 0.06, 0.42),
    "urban": (0.10, 0.11, 0.12, 0.20),
    "bare_soil": (0.08, 0.11, 0.16, 0.26),
}


def make_patches(n, size, classes, seed):
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size] / size
    patches, labels = [], []
    for i in range(n):
        c = i % len(classes)
        sig = np.array(SIGNATURES[classes[c]])[:, None, None]
        texture = np.sin(2 * np.pi * (rng.uniform(1, 4) * xx + rng.uniform(1, 4) * yy + rng.uniform()))
        img = sig * (1.0 + 0.15 * texture) + rng.normal(0, 0.012, size=(4, size, size))
        img[0] = np.clip(img[0], 0.005, 0.12)
        img[1:] = np.clip(img[1:], 0.005, 0.6)
        patches.append(img.astype(np.float32))
        labels.append(c)
    return patches, labels


class S2Patches(Dataset):
    def __init__(self, patches, labels, transform=None):
        self.patches = patches
        self.labels = labels
        self.transform = transform

    def __len__(self):
        return len(self.patches)

    def __getitem__(self, idx):
        x = self.patches[idx]
        if self.transform is not None:
            x = self.transform(x)
        return {"image": x, "label": self.labels[idx]}
