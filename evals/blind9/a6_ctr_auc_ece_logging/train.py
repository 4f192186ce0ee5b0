"""Click-through-rate MLP on synthetic impressions with step-level AUC / ECE / confusion logging."""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from evalkit import Meter
from metrics import BinaryMetricTracker


def make_impressions(num_rows, num_dense, num_cat, cardinality, seed):
    rng = np.random.default_rng(seed)
    dense = rng.standard_normal((num_rows, num_dense)).astype(np.float32)
    dense[:, :4] = np.round(np.abs(dense[:, :4]) * 3) / 3  # count-like features with ties
    cats = rng.integers(0, cardinality, (num_rows, num_cat))
    w = rng.normal(0, 0.5, num_dense)
    cat_effect = rng.normal(0, 0.8, (num_cat, cardinality))
    logit = dense @ w + cat_effect[np.arange(num_cat), cats].sum(1) - 1.5
    logit += 0.8 * dense[:, 0] * dense[:, 1]
    clicks = (rng.random(num_rows) < 1 / (1 + np.exp(-logit))).astype(np.float32)
    return torch.from_numpy(dense), torch.from_numpy(cats), torch.from_numpy(clicks)


class CTRNet(nn.Module):
    def __init__(self, num_dense, num_cat, cardinality, hidden):
        super().__init__()
        self.emb = nn.ModuleList(nn.Embedding(cardinality, 8) for _ in range(num_cat))
        self.mlp = nn.Sequential(nn.Linear(num_dense + 8 * num_cat, hidden), nn.ReLU(),
                                 nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, dense, cats):
        x = torch.cat([dense] + [e(cats[:, i]) for i, e in enumerate(self.emb)], 1)
        return self.mlp(x).squeeze(1)


def get_args():
    p = argparse.ArgumentParser(fromfile_prefix_chars="@")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num-rows", type=int, default=40960)
    p.add_argument("--num-dense", type=int, default=24)
    p.add_argument("--num-cat", type=int, default=6)
    p.add_argument("--cardinality", type=int, default=50)
    p.add_argument("--batch-size", type=int, default=512)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--num-workers", type=int, default=0)
    p.add_argument("--ece-bins", type=int, default=15)
    p.add_argument("--threshold", type=float, default=0.5)
    p.add_argument("--log-every", type=int, default=20)
    return p.parse_args()


def main():
    args = get_args()
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    dense, cats, clicks = make_impressions(args.num_rows, args.num_dense, args.num_cat, args.cardinality, args.seed)
    loader = DataLoader(TensorDataset(dense, cats, clicks), batch_size=args.batch_size, shuffle=True,
                        num_workers=args.num_workers, generator=torch.Generator().manual_seed(args.seed),
                        drop_last=True)
    model = CTRNet(args.num_dense, args.num_cat, args.cardinality, args.hidden)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    tracker = BinaryMetricTracker(args.ece_bins, args.threshold)
    meter = Meter()
    log = []
    step = 0
    for epoch in range(args.epochs):
        tracker.reset()
        model.train()
        for dense_b, cats_b, y in loader:
            meter.batch([dense_b, cats_b, y])
            logits = model(dense_b, cats_b)
            loss = F.binary_cross_entropy_with_logits(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1

            tracker.update(torch.sigmoid(logits), y)
            stats = tracker.compute()
            stats.update(step=step, epoch=epoch, loss=loss.item())
            log.append(stats)
            if step % args.log_every == 0:
                print(" ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in stats.items()),
                      flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"last": log[-1], "auc_curve": [r["auc"] for r in log[::5]],
                        "ece_curve": [r["ece"] for r in log[::5]], "confusion": tracker.confusion})


if __name__ == "__main__":
    main()
