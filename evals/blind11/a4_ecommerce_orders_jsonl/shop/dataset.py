from collections import namedtuple

import numpy as np
import torch
from torch.utils.data import Dataset

from .features import CATEGORIES

OrderBatch = namedtuple("OrderBatch", ["features", "returned", "order_ids"])

# log1p-scaled columns: spend and quantity per category, shipping cost
LOG_COLUMNS = list(range(2 * len(CATEGORIES))) + [2 * len(CATEGORIES) + 2]


class OrderLinesDataset(Dataset):
    """Map-style dataset over raw JSON lines; batches are featurised in __getitems__."""

    def __init__(self, lines, featurizer, seed):
        self.lines = lines
        self.featurizer = featurizer
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, index):
        return self.__getitems__([index])[0]

    def __getitems__(self, indices):
        out = []
        for index in indices:
            row, returned = self.featurizer(self.lines[index], self.rng)
            out.append((index, row, returned))
        return out


def collate_orders(samples):
    ids = torch.tensor([i for i, _, _ in samples], dtype=torch.long)
    feats = torch.tensor([row for _, row, _ in samples], dtype=torch.float64)
    feats[:, LOG_COLUMNS] = torch.log1p(feats[:, LOG_COLUMNS])
    target = torch.tensor([float(r) for _, _, r in samples], dtype=torch.float32)
    return OrderBatch(feats.float(), target, ids)
