"""Synthetic credit-scoring table and its preprocessing (z-scored numerics, integer-coded categoricals)."""
import numpy as np
import torch
from torch.utils.data import Dataset


def make_table(rows, n_numeric, cat_levels, seed):
    rng = np.random.default_rng(seed)
    numeric = rng.normal(size=(rows, n_numeric))
    numeric[:, 0] = rng.lognormal(10, 0.6, rows)          # income
    numeric[:, 1] = rng.integers(18, 80, rows)             # age
    cats = np.stack([rng.integers(0, k, rows) for k in cat_levels], axis=1)
    w = rng.normal(0, 0.7, n_numeric)
    cat_w = [rng.normal(0, 0.8, k) for k in cat_levels]
    z = (numeric - numeric.mean(0)) / numeric.std(0)
    logit = z @ w + sum(cw[cats[:, j]] for j, cw in enumerate(cat_w)) - 0.5
    default = (rng.random(rows) < 1 / (1 + np.exp(-logit))).astype(np.float32)
    return numeric, cats, default


class CreditRows(Dataset):
    def __init__(self, numeric, cats, target, idx, stats=None):
        numeric = numeric[idx]
        if stats is None:
            stats = (numeric.mean(0), numeric.std(0) + 1e-8)
        self.stats = stats
        self.numeric = torch.from_numpy(((numeric - stats[0]) / stats[1]).astype(np.float32))
        self.cats = torch.from_numpy(cats[idx].astype(np.int64))
        self.target = torch.from_numpy(target[idx])

    def __len__(self):
        return len(self.target)

    def __getitem__(self, i):
        return {"numeric": self.numeric[i], "categorical": self.cats[i], "default": self.target[i]}
