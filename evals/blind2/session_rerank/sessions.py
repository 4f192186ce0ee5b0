import numpy as np
import torch
from torch.utils.data import Dataset


class SessionLog(Dataset):
    """Each example: a query vector, the user's recent items (padded), one candidate, clicked or not."""

    def __init__(self, n_sessions, n_items, item_dim, query_dim, max_history, seed):
        rng = np.random.RandomState(seed)
        self.max_history = max_history
        self.item_table = rng.normal(0, 1, (n_items, item_dim)).astype(np.float32)
        self.queries = rng.normal(0, 1, (n_sessions, query_dim)).astype(np.float32)
        self.hist_len = rng.randint(3, max_history + 1, size=n_sessions)
        self.hist_ids = rng.randint(0, n_items, size=(n_sessions, max_history))
        self.cand_ids = rng.randint(0, n_items, size=n_sessions)
        proj = rng.normal(0, 0.2, (query_dim, item_dim)).astype(np.float32)
        # ground-truth click model: candidate close to the mean history item and to the projected query
        score = np.empty(n_sessions, dtype=np.float32)
        for i in range(n_sessions):
            hist = self.item_table[self.hist_ids[i, :self.hist_len[i]]].mean(0)
            cand = self.item_table[self.cand_ids[i]]
            score[i] = hist @ cand / item_dim ** 0.5 + (self.queries[i] @ proj) @ cand / item_dim ** 0.5
        self.clicks = (score + rng.logistic(0, 0.5, n_sessions) > 0.3).astype(np.float32)

    def __len__(self):
        return len(self.clicks)

    def __getitem__(self, i):
        n = self.hist_len[i]
        history = np.zeros((self.max_history, self.item_table.shape[1]), dtype=np.float32)
        history[:n] = self.item_table[self.hist_ids[i, :n]]
        mask = np.zeros(self.max_history, dtype=bool)
        mask[:n] = True
        return {
            "query": self.queries[i],
            "history": history,
            "history_mask": mask,
            "candidate": self.item_table[self.cand_ids[i]],
            "click": float(self.clicks[i]),
        }


def collate_sessions(samples):
    """Group the examples into the nested batch the model expects.

    (Going through .tolist() avoids torch's "tensor from a list of numpy.ndarrays" warning.)
    """
    return {
        "user": {
            "query": torch.tensor([s["query"].tolist() for s in samples], dtype=torch.float32),
            "history": torch.tensor([s["history"].tolist() for s in samples], dtype=torch.float32),
            "history_mask": torch.tensor([s["history_mask"].tolist() for s in samples], dtype=torch.bool),
        },
        "item": {"candidate": torch.tensor([s["candidate"].tolist() for s in samples], dtype=torch.float32)},
        "click": torch.tensor([s["click"] for s in samples], dtype=torch.float32),
    }
