import numpy as np
import torch
from torch.utils.data import Dataset

from .polar import PolarGrid, radial_normalize, unwrap
from .synth import CoronaSimulator


class CoronagraphPolarDataset(Dataset):
    """Frames are regenerated from (seed, index); augmentation depends on the epoch too."""

    def __init__(self, cfg, seed):
        d, p = cfg["data"], cfg["polar"]
        self.n = d["n_images"]
        self.seed = seed
        self.sim = CoronaSimulator(d["image_size"], d["occulter_radius"], d["cme_fraction"])
        c = (d["image_size"] - 1) / 2.0
        self.grid = PolarGrid((c, c), p["r_min"], p["r_max"], p["n_radii"], p["n_angles"],
                              p["oversample"])
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        img, label = self.sim.frame(np.random.default_rng([self.seed, idx]))
        aug = np.random.default_rng([self.seed, idx, self.epoch, 7])
        if aug.random() < 0.5:
            img = img[:, ::-1]  # east-west flip
        img = img * np.float32(aug.uniform(0.9, 1.1))
        polar = radial_normalize(unwrap(np.ascontiguousarray(img), self.grid))
        polar = np.roll(polar, int(aug.integers(polar.shape[1])), axis=1)  # position-angle shift
        return torch.from_numpy(polar).unsqueeze(0), torch.tensor(label, dtype=torch.long)
