"""Documents with topic tags: dense document vectors (as exported from an embedding store) and tag lists."""
import numpy as np
import torch
from torch.utils.data import Dataset


class DocTagDataset(Dataset):
    def __init__(self, num_docs, num_features, num_labels, latent_dim, label_noise, seed):
        rng = np.random.default_rng(seed)
        z = rng.standard_normal((num_docs, latent_dim))
        proj = rng.standard_normal((latent_dim, num_features)) / np.sqrt(latent_dim)
        self.features = (z @ proj + 0.3 * rng.standard_normal((num_docs, num_features))).astype(np.float32)
        tag_w = rng.standard_normal((latent_dim, num_labels))
        bias = -1.5 - rng.exponential(1.0, num_labels)  # long-tailed tag frequencies
        scores = z @ tag_w + bias
        tags = scores > 0
        flip = rng.random(tags.shape) < label_noise
        tags ^= flip
        self.tags = [np.flatnonzero(row).tolist() for row in tags]  # tag id lists, as stored
        self.num_labels = num_labels
        self.doc_ids = [f"doc-{i:06d}" for i in range(num_docs)]

    def __len__(self):
        return len(self.tags)

    def __getitem__(self, idx):
        return self.doc_ids[idx], self.features[idx], self.tags[idx]


class TagCollator:
    def __init__(self, num_labels):
        self.num_labels = num_labels

    def __call__(self, items):
        feats = torch.from_numpy(np.stack([f for _, f, _ in items]))
        labels = torch.zeros(len(items), self.num_labels)
        for row, (_, _, tags) in enumerate(items):
            labels[row, tags] = 1.0
        return {"features": feats, "labels": labels, "index": torch.tensor([int(d[4:]) for d, _, _ in items])}
