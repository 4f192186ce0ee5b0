import math

import numpy as np
import torch
from torch.utils.data import Dataset

from .graph import knn, pairwise_delta_r
from .kinematics import delta_phi, delta_r, jet_axis


class JetGraphDataset(Dataset):
    def __init__(self, jets, cfg, seed):
        self.jets = jets
        self.k = cfg.k
        self.n_max = cfg.max_constituents
        self.rotate = cfg.rotate
        self.rng = np.random.default_rng(seed + 100)

    def __len__(self):
        return len(self.jets)

    def __getitem__(self, idx):
        jet = self.jets[idx]
        pt, eta, phi = jet["pt"].tolist(), jet["eta"].tolist(), jet["phi"].tolist()
        charge = jet["charge"].tolist()
        eta_c, phi_c, pt_sum = jet_axis(pt, eta, phi)

        # constituent coordinates relative to the jet axis, randomly rotated about it
        theta = float(self.rng.uniform(0.0, 2.0 * math.pi)) if self.rotate else 0.0
        c, s = math.cos(theta), math.sin(theta)
        xs, ys = [], []
        for e, f in zip(eta, phi):
            de, dp = e - eta_c, delta_phi(f, phi_c)
            xs.append(c * de - s * dp)
            ys.append(s * de + c * dp)

        dist = pairwise_delta_r(xs, ys)
        nbr, edge_dr = knn(dist, self.k)

        n = len(pt)
        feats = []
        for i in range(n):
            feats.append([xs[i], ys[i], math.log(pt[i]), math.log(pt[i] / pt_sum),
                          charge[i], delta_r(xs[i], ys[i], 0.0, 0.0)])
        pad = self.n_max - n
        feats += [[0.0] * 6 for _ in range(pad)]
        nbr += [[0] * self.k for _ in range(pad)]
        edge_dr += [[0.0] * self.k for _ in range(pad)]
        mask = [True] * n + [False] * pad
        return (
            torch.tensor(feats, dtype=torch.float32),
            torch.tensor(nbr, dtype=torch.long),
            torch.tensor(edge_dr, dtype=torch.float32),
            torch.tensor(mask),
            jet["label"],
        )
