import numpy as np
import torch
from torch.utils.data import Dataset

from .orders import order_spectrum
from .simulate import FAULTS, simulate_runup


class RunUpDataset(Dataset):
    """Recorded run-ups are kept in memory; each access takes a random 1 s window and gain,
    then order-tracks it."""

    def __init__(self, cfg, seed):
        d = cfg["dataset"]
        self.ot = cfg["order_tracking"]
        self.seed = seed
        self.win = int(round(d["fs"] * d["window_seconds"]))
        rng = np.random.default_rng(seed)
        self.labels = rng.integers(0, len(FAULTS), d["n_records"])
        self.signals, self.tachs = [], []
        for lab in self.labels:
            x, tach = simulate_runup(rng, int(lab), d["fs"], d["record_seconds"])
            x += rng.normal(0, d["noise_std"], x.shape).astype(np.float32)
            self.signals.append(x)
            self.tachs.append(tach)
        self.epoch = 0

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        rng = np.random.default_rng((self.seed, self.epoch, idx))
        x, tach = self.signals[idx], self.tachs[idx]
        start = int(rng.integers(0, len(x) - self.win))
        gain = np.float32(rng.uniform(0.7, 1.3))
        xw = x[start:start + self.win] * gain
        feats = order_spectrum(xw, tach[start:start + self.win], self.ot["tach_threshold"],
                               self.ot["revolutions"], self.ot["samples_per_rev"], self.ot["max_order_bins"])
        return {"orders": torch.from_numpy(feats)[None], "label": int(self.labels[idx])}
