"""Precomputed clip embeddings (as exported by a frozen audio encoder) with multi-hot labels."""
import numpy as np
import torch


def make_clip_features(cfg, seed):
    rng = np.random.default_rng(seed)
    c, d = cfg["num_classes"], cfg["embedding_dim"]
    prototypes = rng.normal(0.0, 1.0, (c, d))
    prior = rng.dirichlet(np.full(c, 0.6))  # long-tailed class frequencies
    labels = np.zeros((cfg["num_clips"], c), dtype=np.float32)
    feats = np.zeros((cfg["num_clips"], d), dtype=np.float32)
    for i in range(cfg["num_clips"]):
        k = int(rng.integers(1, cfg["max_labels_per_clip"] + 1))
        cls = rng.choice(c, size=k, replace=False, p=prior)
        labels[i, cls] = 1.0
        mix = rng.uniform(0.5, 1.5, k)
        feats[i] = (mix[:, None] * prototypes[cls]).sum(0) / np.sqrt(k) + rng.normal(0.0, cfg["noise"], d)
    return torch.from_numpy(feats), torch.from_numpy(labels)
