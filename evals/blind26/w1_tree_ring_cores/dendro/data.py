import numpy as np
import torch
from torch.utils.data import Dataset

from .profile import measure_core
from .synth import make_core


class CoreScanDataset(Dataset):
    """Synthetic cores, measured on access (profile + ring-width series)."""

    def __init__(self, cfg, seed):
        self.cfg = cfg
        self.seed = seed
        self.n = cfg["n_cores"]
        self.prof = cfg["profile"]

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        img, label = make_core(self.seed, idx, self.cfg["scan_height"], self.cfg["scan_width"], self.cfg["n_species"])
        p = self.prof
        det, widths, n_rings = measure_core(
            img, half_window=p["smooth_half_window"], threshold=p["boundary_threshold"],
            min_gap=p["min_ring_px"], max_rings=p["max_rings"], pool=p["pool"])
        return {
            "profile": torch.tensor(np.asarray(det, dtype=np.float64), dtype=torch.float32),
            "widths": torch.tensor(np.asarray(widths, dtype=np.float64), dtype=torch.float32),
            "n_rings": torch.tensor(n_rings, dtype=torch.int64),
            "label": torch.tensor(label, dtype=torch.int64),
        }
