"""Implicit-feedback interactions from a latent-factor model with a Zipf popularity bias."""
import numpy as np
from torch.utils.data import Dataset


def make_interactions(num_users, num_items, latent_dim, per_user, seed=0):
    rng = np.random.default_rng(seed)
    users = rng.normal(size=(num_users, latent_dim))
    items = rng.normal(size=(num_items, latent_dim))
    popularity_bias = -1.1 * np.log(np.arange(1, num_items + 1))
    rng.shuffle(popularity_bias)
    pairs = []
    for u in range(num_users):
        logits = items @ users[u] / np.sqrt(latent_dim) + popularity_bias
        p = np.exp(logits - logits.max())
        p /= p.sum()
        chosen = rng.choice(num_items, size=per_user, replace=False, p=p)
        pairs.extend((u, int(i)) for i in chosen)
    return pairs


class BPRTripletDataset(Dataset):
    """(user, positive item, sampled negative item) triplets."""

    def __init__(self, pairs, num_items, seed=0):
        self.pairs = pairs
        self.num_items = num_items
        self.user_items = {}
        for u, i in pairs:
            self.user_items.setdefault(u, set()).add(i)
        self.rng = np.random.default_rng(seed + 1)
        counts = np.bincount([i for _, i in pairs], minlength=num_items)
        self.popularity = counts.tolist()

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, idx):
        u, pos = self.pairs[idx]
        seen = self.user_items[u]
        neg = int(self.rng.integers(self.num_items))
        while neg in seen:
            neg = int(self.rng.integers(self.num_items))
        return u, pos, neg
