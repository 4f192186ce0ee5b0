"""Click logs kept as JSON lines, the way they arrive from the event pipeline."""
import json

import numpy as np
import torch
from torch.utils.data import Dataset


def make_log(n_records, n_users, n_items, history_len, n_dense, seed):
    rng = np.random.default_rng(seed)
    dense = np.round(rng.standard_normal((n_records, n_dense)), 4)
    clicked = (dense[:, 0] + 0.5 * dense[:, 1] > 0.3).astype(int)
    users = rng.integers(0, n_users, n_records)
    items = rng.integers(0, n_items, n_records)
    history = rng.integers(0, n_items, (n_records, history_len))
    return [
        json.dumps({"user": u, "item": it, "history": h, "dense": x, "clicked": c})
        for u, it, h, x, c in zip(users.tolist(), items.tolist(), history.tolist(),
                                  dense.tolist(), clicked.tolist())
    ]


class ClickLog(Dataset):
    def __init__(self, lines):
        self.lines = lines

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        record = json.loads(self.lines[i])
        dense = []
        for v in record["dense"]:
            dense.append(float(v))
        history = [int(t) for t in record["history"]]
        return {
            "ids": torch.tensor([record["user"], record["item"]]),
            "history": torch.tensor(history),
            "dense": torch.tensor(dense, dtype=torch.float32),
            "label": torch.tensor(float(record["clicked"])),
        }
