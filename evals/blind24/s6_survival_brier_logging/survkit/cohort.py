"""Synthetic right-censored cohort: follow-up in whole days, hazard from a few covariates."""
import numpy as np
import torch
from torch.utils.data import Dataset


def make_cohort(n, n_features, horizon_days, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, n_features)).astype(np.float32)
    beta = np.zeros(n_features)
    beta[:5] = [0.8, -0.6, 0.5, 0.3, -0.4]
    risk = x @ beta + 0.3 * x[:, 0] * x[:, 1]
    event_t = rng.weibull(1.3, size=n) * 700.0 * np.exp(-risk / 1.3)
    censor_t = rng.uniform(60, 2 * horizon_days, size=n)
    t = np.minimum(np.minimum(event_t, censor_t), horizon_days)
    event = (event_t <= np.minimum(censor_t, horizon_days)).astype(np.int64)
    days = np.maximum(np.ceil(t), 1.0)
    return x, days, event


class CohortDataset(Dataset):
    """Indexable by a list of rows (used with a BatchSampler as the sampler)."""

    def __init__(self, x, days, event, n_bins, horizon_days):
        self.x = torch.from_numpy(x)
        self.days = torch.from_numpy(days)
        self.event = torch.from_numpy(event)
        width = horizon_days / n_bins
        self.bin = torch.clamp(torch.from_numpy(np.floor((days - 1) / width).astype(np.int64)), 0, n_bins - 1)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, rows):
        return {"x": self.x[rows], "days": self.days[rows], "event": self.event[rows], "bin": self.bin[rows]}
