"""Synthetic click logs: a user field, 9 other hashed categorical fields and 8 dense features."""
import numpy as np
import torch
from torch.utils.data import TensorDataset


def make_click_log(n_rows, n_users, field_buckets, n_dense, seed):
    rng = np.random.default_rng(seed)
    # users follow a Zipf-like popularity curve
    pop = 1.0 / np.arange(1, n_users + 1) ** 0.8
    users = rng.choice(n_users, size=n_rows, p=pop / pop.sum())
    cats = [users]
    for b in field_buckets:
        cats.append(rng.integers(0, b, size=n_rows))
    cats = np.stack(cats, axis=1).astype(np.int64)
    dense = rng.lognormal(0.0, 1.0, size=(n_rows, n_dense)).astype(np.float32)
    dense = np.log1p(dense)
    user_bias = rng.normal(0, 1.0, size=n_users)
    field_w = [rng.normal(0, 0.6, size=b) for b in field_buckets]
    logit = -1.2 + user_bias[users] + 0.4 * (dense[:, 0] - dense[:, 1])
    for k, w in enumerate(field_w):
        logit += w[cats[:, k + 1]]
    clicks = (rng.random(n_rows) < 1 / (1 + np.exp(-logit))).astype(np.float32)
    return TensorDataset(torch.from_numpy(dense), torch.from_numpy(cats), torch.from_numpy(clicks))
