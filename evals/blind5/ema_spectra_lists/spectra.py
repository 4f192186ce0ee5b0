"""Synthetic near-infrared absorbance spectra of a three-component mixture (predict component A)."""
import numpy as np
import torch
from torch.utils.data import Dataset

BANDS = [  # (centre, width, strength) per component, on a 0..1 wavelength axis
    [(0.22, 0.03, 1.0), (0.61, 0.05, 0.6)],
    [(0.30, 0.04, 0.9), (0.55, 0.03, 0.7), (0.80, 0.06, 0.4)],
    [(0.45, 0.08, 0.8), (0.70, 0.04, 0.5)],
]


def make_spectra(n, n_wl, noise, rng):
    wl = np.linspace(0, 1, n_wl)
    pure = np.stack([sum(s * np.exp(-0.5 * ((wl - c) / w) ** 2) for c, w, s in comp) for comp in BANDS])
    conc = rng.dirichlet([2.0, 2.0, 2.0], size=n)
    baseline = rng.normal(0, 0.05, (n, 1)) + rng.normal(0, 0.05, (n, 1)) * wl
    scatter = rng.uniform(0.9, 1.1, (n, 1))
    x = scatter * (conc @ pure) + baseline + rng.normal(0, noise, (n, n_wl))
    return x.astype(np.float32), conc[:, 0].astype(np.float32)


class SpectraDataset(Dataset):
    def __init__(self, x, y):
        # standard normal variate per spectrum (a classic chemometrics pre-treatment)
        x = (x - x.mean(1, keepdims=True)) / x.std(1, keepdims=True)
        self.x = torch.from_numpy(x)
        self.y = torch.from_numpy(y * 10.0)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {"spectrum": self.x[i], "target": self.y[i]}
