import numpy as np
import torch
from torch.utils.data import Dataset

from .geometry import correct_swath, tvg_curve
from .synth import make_survey


class SwathDataset(Dataset):
    def __init__(self, cfg, seed, n_swaths, augment=True):
        sonar = cfg["sonar"]
        self.range_res = float(sonar["range_resolution_m"])
        self.ground_res = float(sonar["ground_resolution_m"])
        self.n_ground = int(sonar["ground_bins"])
        self.beam_floor = float(sonar["beam_floor"])
        self.alt_sigma = float(cfg["augment"]["altitude_sigma_m"])
        self.flip_p = float(cfg["augment"]["flip_prob"])
        self.augment = augment
        self.swaths, self.alts, self.labels = make_survey(
            n_swaths, int(sonar["pings_per_swath"]), int(sonar["slant_bins"]), self.range_res, seed)
        self.gain = tvg_curve(int(sonar["slant_bins"]), self.range_res,
                              float(sonar["tvg"]["spreading_db"]), float(sonar["tvg"]["absorption_db_per_m"]))
        self.rng = np.random.default_rng(seed + 1)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        swath = self.swaths[idx]
        alts = self.alts[idx].astype(np.float64)
        if self.augment:
            # the logged altitude carries a per-line bias (pressure sensor offset)
            alts = alts + self.rng.normal(0.0, self.alt_sigma)
        ground = correct_swath(swath, alts.tolist(), self.range_res, self.ground_res, self.n_ground, self.gain,
                               self.beam_floor)
        img = torch.tensor(ground, dtype=torch.float32)
        if self.augment and self.rng.random() < self.flip_p:
            img = img.flip(0)  # swap port / starboard
        img = torch.log1p(img)
        img = (img - img.mean()) / (img.std() + 1e-6)
        return img, int(self.labels[idx])
