import math

import torch
from torch.utils.data import Dataset

import features


def simulate_spectra(n, channels, seed):
    g = torch.Generator().manual_seed(seed)
    grid = torch.linspace(0, 1, channels)
    centers = torch.rand(n, 3, generator=g)
    heights = torch.rand(n, 3, generator=g) * 2.0
    widths = 0.01 + 0.03 * torch.rand(n, 3, generator=g)
    peaks = heights[:, :, None] * torch.exp(-((grid[None, None, :] - centers[:, :, None]) ** 2)
                                            / (2 * widths[:, :, None] ** 2))
    continuum = 0.5 + 0.3 * torch.rand(n, 1, generator=g) * grid[None, :]
    x = peaks.sum(1) + continuum + 0.05 * torch.randn(n, channels, generator=g)
    # target: a concentration-like quantity from peak areas
    y = (heights * widths).sum(1) * math.sqrt(2 * math.pi) * 10.0
    return x.float(), y.float()


class SpectraTable(Dataset):
    def __init__(self, x, y, clip_sigma):
        self.x, self.y = x, y
        self.mean = x.mean(dim=0)
        self.std = x.std(dim=0)
        self.clip_sigma = clip_sigma

    def __len__(self):
        return self.x.shape[0]

    def __getitem__(self, idx):
        row = self.x[idx]
        z = features.standardize(row.tolist(), self.mean.tolist(), self.std.tolist())
        z = features.clip(z, -self.clip_sigma, self.clip_sigma)
        return {
            "spectrum": torch.tensor(z, dtype=torch.float32),
            "target": self.y[idx].view(1),
        }
