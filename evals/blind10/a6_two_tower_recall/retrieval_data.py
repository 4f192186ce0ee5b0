"""Synthetic click logs: users with item histories, the next clicked item, item categories."""
import numpy as np
import torch
from torch.utils.data import Dataset


def make_interactions(n_users, n_items, n_categories, n_interactions, max_history, seed):
    rng = np.random.default_rng(seed)
    item_cat = rng.integers(0, n_categories, n_items)
    pop = 1.0 / np.arange(1, n_items + 1) ** 0.9
    pop = pop[rng.permutation(n_items)]
    user_taste = rng.dirichlet(np.full(n_categories, 0.3), n_users)
    cat_items = [np.flatnonzero(item_cat == c) for c in range(n_categories)]
    cat_cdf = [np.cumsum(pop[idx]) / pop[idx].sum() for idx in cat_items]
    users = rng.integers(0, n_users, n_interactions)
    lengths = rng.integers(3, max_history + 1, n_interactions)
    # categories per click from the user's taste, then items by popularity within the category
    cats = np.concatenate([rng.choice(n_categories, size=n + 1, p=user_taste[u])
                           for u, n in zip(users.tolist(), lengths.tolist())])
    r = rng.random(len(cats))
    items = np.empty(len(cats), dtype=np.int64)
    for c in range(n_categories):
        at = cats == c
        pos = np.minimum(np.searchsorted(cat_cdf[c], r[at], side="right"), len(cat_items[c]) - 1)
        items[at] = cat_items[c][pos]
    rows = []
    start = 0
    for u, n in zip(users.tolist(), lengths.tolist()):
        clicks = items[start:start + n + 1].tolist()
        rows.append((u, clicks[:-1], clicks[-1]))
        start += n + 1
    return rows, item_cat


class ClickDataset(Dataset):
    def __init__(self, rows, item_cat):
        self.rows, self.item_cat = rows, item_cat

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, idx):
        user, history, item = self.rows[idx]
        return {"user": user, "history": history, "item": item, "category": int(self.item_cat[item])}


def collate_clicks(examples):
    lengths = [len(e["history"]) for e in examples]
    return {
        "history": torch.tensor([i for e in examples for i in e["history"]], dtype=torch.long),
        "offsets": torch.tensor([0] + lengths[:-1], dtype=torch.long).cumsum(0),
        "item": torch.tensor([e["item"] for e in examples], dtype=torch.long),
        "category": torch.tensor([e["category"] for e in examples], dtype=torch.long),
    }
