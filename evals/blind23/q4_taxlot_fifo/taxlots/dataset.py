import json
import random

import torch

from .features import window_features


class AccountWindows:
    """Windows of consecutive trades of one account; each trade is described by its tax-lot outcome."""

    def __init__(self, lines, labels, window, num_samples, long_term_days, seed):
        self.accounts = {}
        for line in lines:
            rec = json.loads(line)
            self.accounts.setdefault(rec["account"], []).append(rec)
        for trades in self.accounts.values():
            trades.sort(key=lambda r: (r["date"], r["trade_id"]))
        self.labels = labels
        self.window = window
        self.long_term_days = long_term_days
        rng = random.Random(seed)
        names = sorted(a for a, t in self.accounts.items() if len(t) >= window)
        self.index = []
        for _ in range(num_samples):
            a = rng.choice(names)
            self.index.append((a, rng.randrange(window - 1, len(self.accounts[a]))))

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        acct, end = self.index[i]
        feats = window_features(self.accounts[acct], end, self.window, self.long_term_days)
        return torch.tensor(feats, dtype=torch.float32), self.labels[acct]


def iterate_batches(ds, batch_size, seed, epoch):
    order = list(range(len(ds)))
    random.Random(seed * 1000 + epoch).shuffle(order)
    for s in range(0, len(order) - batch_size + 1, batch_size):
        items = [ds[i] for i in order[s:s + batch_size]]
        yield torch.stack([x for x, _ in items]), torch.tensor([y for _, y in items], dtype=torch.long)
