import math

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from .cells import make_cells, sweep_frequencies
from .features import nyquist_features


class SweepDataset(Dataset):
    def __init__(self, n_cells, freqs, seed, feat_cfg, noise_rel, augment):
        self.re, self.im, self.soh = make_cells(n_cells, freqs, seed)
        self.log_f = [math.log10(f) for f in freqs.tolist()]
        self.feat_cfg = feat_cfg
        self.noise_rel = noise_rel
        self.augment = augment
        self.rng = np.random.default_rng(seed + 17)

    def __len__(self):
        return len(self.soh)

    def __getitem__(self, idx):
        re, im = self.re[idx], self.im[idx]
        if self.augment:
            # potentiostat noise, proportional to |Z|
            mag = np.sqrt(re * re + im * im)
            re = re + self.rng.normal(0.0, 1.0, re.shape) * self.noise_rel * mag
            im = im + self.rng.normal(0.0, 1.0, im.shape) * self.noise_rel * mag
        curve, scalars = nyquist_features(re.tolist(), im.tolist(), self.log_f, **self.feat_cfg)
        return (torch.tensor(curve, dtype=torch.float32), torch.tensor(scalars, dtype=torch.float32),
                torch.tensor(self.soh[idx]))


class EISDataModule:
    def __init__(self, cfg):
        d = cfg["data"]
        self.cfg = cfg
        self.freqs = sweep_frequencies(d.getfloat("f_max"), d.getfloat("f_min"), d.getint("points"))
        f = cfg["features"]
        self.feat_cfg = {"smooth_half": f.getint("smooth_half"), "tail_points": f.getint("tail_points"),
                         "n_resample": f.getint("resample")}
        self.batch_size = d.getint("batch_size")
        self.seed = cfg["trainer"].getint("seed")

    def setup(self):
        d = self.cfg["data"]
        self.train_set = SweepDataset(d.getint("train_cells"), self.freqs, self.seed, self.feat_cfg,
                                      d.getfloat("noise_rel"), augment=True)
        self.val_set = SweepDataset(d.getint("val_cells"), self.freqs, self.seed + 1, self.feat_cfg,
                                    d.getfloat("noise_rel"), augment=False)

    def train_dataloader(self):
        g = torch.Generator()
        g.manual_seed(self.seed)
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True, drop_last=True,
                          num_workers=0, generator=g)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=64, shuffle=False, num_workers=0)
