import numpy as np
import torch
from torch.utils.data import Dataset

from catalog import DOW


class NextDepartmentDataset(Dataset):
    """Predict the department of the last product added to the cart from the rest of the basket."""

    def __init__(self, orders, products, aisles, departments, max_len, item_dropout, seed):
        self.orders = orders
        self.max_len = max_len
        self.item_dropout = item_dropout
        self.rng = np.random.default_rng(seed)
        # vocabularies, in file order (index 0 is reserved for padding)
        self.product_vocab = [row["name"] for row in products]
        self.aisle_vocab = [a["aisle"] for a in aisles]
        self.dept_vocab = list(departments)
        self.segment_vocab = sorted({o["segment"] for o in orders})
        self.aisle_of = {row["name"]: row["aisle"] for row in products}
        self.dept_of = {a["aisle"]: a["department"] for a in aisles}

    def __len__(self):
        return len(self.orders)

    def encode_product(self, name):
        return self.product_vocab.index(name) + 1

    def encode_aisle(self, name):
        return self.aisle_vocab.index(self.aisle_of[name]) + 1

    def encode_department(self, name):
        return self.dept_vocab.index(self.dept_of[self.aisle_of[name]])

    def context_features(self, order):
        dow = [1.0 if d == order["order_dow"] else 0.0 for d in DOW]
        hour = order["order_hour_of_day"]
        hour_feats = [1.0 if hour // 3 == b else 0.0 for b in range(8)]
        prior = order["days_since_prior_order"]
        prior_feats = [0.0, 0.0] if prior is None else [1.0, prior / 30.0]
        seg = [1.0 if s == order["segment"] else 0.0 for s in self.segment_vocab]
        return dow + hour_feats + prior_feats + seg

    def __getitem__(self, idx):
        order = self.orders[idx]
        basket, last = order["products"][:-1], order["products"][-1]
        keep = self.rng.random(len(basket)) >= self.item_dropout
        kept = [p for p, k in zip(basket, keep) if k] or basket
        kept = kept[: self.max_len]

        item_ids = [self.encode_product(p) for p in kept]
        aisle_ids = [self.encode_aisle(p) for p in kept]
        depts = [self.encode_department(p) for p in kept]
        n = len(kept)
        dept_share = [sum(1 for d in depts if d == k) / n for k in range(len(self.dept_vocab))]
        pad = self.max_len - n
        return {
            "items": torch.tensor(item_ids + [0] * pad, dtype=torch.long),
            "aisles": torch.tensor(aisle_ids + [0] * pad, dtype=torch.long),
            "length": torch.tensor(n, dtype=torch.long),
            "dept_share": torch.tensor(dept_share, dtype=torch.float32),
            "context": torch.tensor(self.context_features(order), dtype=torch.float32),
            "target": torch.tensor(self.encode_department(last), dtype=torch.long),
        }
