"""Two-tower retrieval (user history -> next clicked item) with in-batch softmax.

    python train.py @tower_args.txt
"""
import argparse
import random

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from retrieval_data import ClickDataset, collate_clicks, make_interactions
from retrieval_metrics import MetricLogger
from towers import TwoTower


def parse_args():
    ap = argparse.ArgumentParser(fromfile_prefix_chars="@")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-users", type=int, default=1000)
    ap.add_argument("--n-items", type=int, default=1000)
    ap.add_argument("--n-categories", type=int, default=20)
    ap.add_argument("--n-interactions", type=int, default=10000)
    ap.add_argument("--max-history", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--embed-dim", type=int, default=32)
    ap.add_argument("--temperature", type=float, default=0.05)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--max-steps", type=int, default=-1)
    ap.add_argument("--ks", type=lambda s: tuple(int(k) for k in s.split(",")), default=(1, 5, 10))
    ap.add_argument("--log-every", type=int, default=10)
    return ap.parse_args()


def main():
    args = parse_args()
    torch.set_num_threads(1)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    rows, item_cat = make_interactions(args.n_users, args.n_items, args.n_categories, args.n_interactions,
                                       args.max_history, args.seed)
    loader = DataLoader(ClickDataset(rows, item_cat), batch_size=args.batch_size, shuffle=True, drop_last=True,
                        num_workers=args.num_workers, collate_fn=collate_clicks,
                        generator=torch.Generator().manual_seed(args.seed))
    model = TwoTower(args.n_items, args.n_categories, args.embed_dim, args.temperature)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    logger = MetricLogger(args.ks)
    meter = evalkit.Meter()
    step = 0
    for epoch in range(args.epochs):
        model.train()
        for batch in loader:
            meter.batch(batch)
            sim = model(batch)
            labels = torch.arange(sim.shape[0])
            loss = (F.cross_entropy(sim, labels) + F.cross_entropy(sim.T, labels)) / 2
            opt.zero_grad()
            loss.backward()
            opt.step()
            metrics = logger.update(sim, batch["item"])
            meter.step(loss)
            step += 1
            if step % args.log_every == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} "
                      + " ".join(f"{k} {v:.3f}" for k, v in metrics.items() if k.startswith("q2i")))
            if meter.done() or step == args.max_steps:
                break
        else:
            continue
        break
    meter.report(extra={"epoch_means": logger.epoch_means(), "last": logger.history[-1] if logger.history else {}})


if __name__ == "__main__":
    main()
