"""Listwise learning-to-rank (ListNet) with per-query rank-correlation logging.

    python train.py @ltr.args
"""
import argparse
import collections
import math
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

import evalkit

Batch = collections.namedtuple("Batch", ["features", "labels", "mask", "num_docs"])


# ----------------------------------------------------------------------------------------- data
class QueryDataset(Dataset):
    """One item per query: (features (n, F) float32, graded relevance (n,) int64 in 0..4)."""

    def __init__(self, seed, n_queries, min_docs, max_docs, n_features):
        rng = np.random.default_rng(seed)
        w = rng.normal(size=n_features) / math.sqrt(n_features)
        self.items = []
        for _ in range(n_queries):
            n = int(rng.integers(min_docs, max_docs + 1))
            x = rng.normal(size=(n, n_features)).astype(np.float32)
            x[:, :8] = np.round(x[:, :8] * 4) / 4          # a few coarse, tie-heavy features (BM25 buckets...)
            latent = x @ w + rng.normal(0.0, 0.6, n)
            cuts = np.quantile(latent, [0.55, 0.8, 0.93, 0.98])
            y = np.searchsorted(cuts, latent).astype(np.int64)
            self.items.append((x, y))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def pad_queries(items):
    n_max = max(len(y) for _, y in items)
    n_feat = items[0][0].shape[1]
    feats = torch.zeros(len(items), n_max, n_feat)
    labels = torch.zeros(len(items), n_max, dtype=torch.long)
    mask = torch.zeros(len(items), n_max, dtype=torch.bool)
    for q, (x, y) in enumerate(items):
        feats[q, :len(y)] = torch.from_numpy(x)
        labels[q, :len(y)] = torch.from_numpy(y)
        mask[q, :len(y)] = True
    return Batch(feats, labels, mask, torch.tensor([len(y) for _, y in items]))


# --------------------------------------------------------------------------------------- metrics
def rankdata(values):
    """Average ranks (1-based), ties share the mean of their positions."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        avg = (i + j) / 2.0 + 1.0
        for k in range(i, j + 1):
            ranks[order[k]] = avg
        i = j + 1
    return ranks


def spearman(x, y):
    rx, ry = rankdata(x), rankdata(y)
    n = len(rx)
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    if vx == 0.0 or vy == 0.0:
        return 0.0
    return cov / math.sqrt(vx * vy)


def kendall_tau_b(x, y):
    n = len(x)
    concordant = discordant = tied_x = tied_y = 0
    for i in range(n):
        xi, yi = x[i], y[i]
        for j in range(i + 1, n):
            dx = xi - x[j]
            dy = yi - y[j]
            if dx == 0:
                tied_x += 1
            if dy == 0:
                tied_y += 1
            s = dx * dy
            if s > 0:
                concordant += 1
            elif s < 0:
                discordant += 1
    n0 = n * (n - 1) // 2
    denom = (n0 - tied_x) * (n0 - tied_y)
    if denom == 0:
        return 0.0
    return (concordant - discordant) / math.sqrt(denom)


class RankCorrelationLogger:
    """Per-step mean Spearman / Kendall tau-b over the batch's queries (scores vs graded labels)."""

    def __init__(self):
        self.history = []

    def update(self, scores, batch):
        scores = scores.detach().tolist()
        labels = batch.labels.tolist()
        rho, tau = [], []
        for s, y, n in zip(scores, labels, batch.num_docs.tolist()):
            s, y = s[:n], y[:n]
            rho.append(spearman(s, y))
            tau.append(kendall_tau_b(s, y))
        entry = (sum(rho) / len(rho), sum(tau) / len(tau))
        self.history.append(entry)
        return entry


# ----------------------------------------------------------------------------------------- model
class Scorer(nn.Module):
    def __init__(self, n_features, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def listnet_loss(scores, labels, mask):
    scores = scores.masked_fill(~mask, float("-inf"))
    target = labels.float().masked_fill(~mask, float("-inf"))
    return -(F.softmax(target, dim=1) * F.log_softmax(scores, dim=1).masked_fill(~mask, 0.0)).sum(1).mean()


def main():
    ap = argparse.ArgumentParser(fromfile_prefix_chars="@")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--queries", type=int, default=640)
    ap.add_argument("--min-docs", type=int, default=24)
    ap.add_argument("--max-docs", type=int, default=140)
    ap.add_argument("--features", type=int, default=46)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--max-steps", type=int, default=200)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--log-every", type=int, default=20)
    args = ap.parse_args()

    torch.set_num_threads(1)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    ds = QueryDataset(args.seed, args.queries, args.min_docs, args.max_docs, args.features)
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers,
                        collate_fn=pad_queries, drop_last=True,
                        generator=torch.Generator().manual_seed(args.seed))
    model = Scorer(args.features, args.hidden)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    logger = RankCorrelationLogger()
    meter = evalkit.Meter()

    step, epoch = 0, 0
    it = iter(loader)
    while step < args.max_steps:
        try:
            batch = next(it)
        except StopIteration:
            epoch += 1
            it = iter(loader)
            continue
        meter.batch(batch)
        scores = model(batch.features)
        loss = listnet_loss(scores, batch.labels, batch.mask)
        opt.zero_grad()
        loss.backward()
        opt.step()
        meter.step(loss)
        rho, tau = logger.update(scores, batch)
        step += 1
        if step % args.log_every == 0:
            print(f"epoch {epoch} step {step} loss {loss.item():.4f} spearman {rho:.4f} kendall {tau:.4f}",
                  flush=True)
        if meter.done():
            break
    meter.report(extra={"spearman": [r for r, _ in logger.history], "kendall": [t for _, t in logger.history]})


if __name__ == "__main__":
    main()
