"""Transforms for multispectral patches (numpy (C, H, W) float32 in, torch tensor out)."""
import numpy as np
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


class RandomFlipRot:
    """Random 90-degree rotation and horizontal flip (the dihedral group), seeded."""

    def __init__(self, rng):
        self.rng = rng

    def __call__(self, x):
        k = int(self.rng.integers(0, 4))
        x = np.rot90(x, k, axes=(1, 2))
        if self.rng.random() < 0.5:
            x = x[:, :, ::-1]
        return x


class AppendSpectralIndices:
    """Append NDVI, NDWI, SAVI and EVI to the four reflectance bands -> 8-channel float32 tensor."""

    def __init__(self, eps=1e-6, savi_l=0.5):
        self.eps = eps
        self.savi_l = savi_l

    def __call__(self, x):
        blue, green, red, nir = (band.tolist() for band in x)
        h, w = len(blue), len(blue[0])
        ndvi = [[0.0] * w for _ in range(h)]
        ndwi = [[0.0] * w for _ in range(h)]
        savi = [[0.0] * w for _ in range(h)]
        evi = [[0.0] * w for _ in range(h)]
        for i in range(h):
            for j in range(w):
                b, g, r, n = blue[i][j], green[i][j], red[i][j], nir[i][j]
                ndvi[i][j] = (n - r) / (n + r + self.eps)
                ndwi[i][j] = (g - n) / (g + n + self.eps)
                savi[i][j] = (1.0 + self.savi_l) * (n - r) / (n + r + self.savi_l)
                evi[i][j] = 2.5 * (n - r) / (n + 6.0 * r - 7.5 * b + 1.0)
        return torch.tensor([blue, green, red, nir, ndvi, ndwi, savi, evi], dtype=torch.float32)
