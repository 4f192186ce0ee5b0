"""Congestion regression on ego subgraphs of a road network (dense GCN)."""
import argparse
import itertools
import random

import numpy as np
import torch
from torch.utils.data import DataLoader

import evalkit
from roadgraph import DenseGCN, EgoSubgraphs, GraphCollator, RoadNetwork


def parse_args():
    ap = argparse.ArgumentParser(fromfile_prefix_chars="@")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--grid", type=int, default=48)
    ap.add_argument("--min-hops", type=int, default=3)
    ap.add_argument("--max-hops", type=int, default=6)
    ap.add_argument("--max-nodes", type=int, default=128)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--max-steps", type=int, default=100)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--log-every", type=int, default=10)
    return ap.parse_args()


def batches(loader, epochs):
    for _ in range(epochs):
        yield from loader


def main():
    args = parse_args()
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    net = RoadNetwork(args.grid, np.random.default_rng(args.seed))
    dataset = EgoSubgraphs(net, args.min_hops, args.max_hops, args.max_nodes, args.seed + 1)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers,
                        collate_fn=GraphCollator(pad_to=args.max_nodes), generator=torch.Generator().manual_seed(args.seed))
    model = DenseGCN(5, args.hidden)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    meter = evalkit.Meter()
    nodes_seen = 0
    for step, batch in enumerate(itertools.islice(batches(loader, args.epochs), args.max_steps), start=1):
        meter.batch(batch)
        pred = model(batch)
        mask = batch["mask"].float()
        loss = (((pred - batch["y"]) ** 2) * mask).sum() / mask.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        meter.step(loss)
        nodes_seen += int(batch["mask"].sum())
        if step % args.log_every == 0:
            print(f"step {step} loss {loss.item():.5f} nodes {nodes_seen}")
        if meter.done():
            break
    meter.report(extra={"nodes_seen": nodes_seen})


if __name__ == "__main__":
    main()
