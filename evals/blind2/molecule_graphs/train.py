#!/usr/bin/env python
"""Graph regression on random molecules with a tiny edge-gated message-passing network.

    python train.py @configs/args.txt
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from batching import collate_graphs
from molecules import ATOM_TYPES, MAX_DEGREE, MoleculeDataset


class EdgeGatedLayer(nn.Module):
    def __init__(self, dim, edge_dim=3):
        super().__init__()
        self.msg = nn.Linear(dim, dim)
        self.gate = nn.Linear(edge_dim, dim)
        self.update = nn.Linear(2 * dim, dim)

    def forward(self, h, edge_index, edge_attr):
        src, dst = edge_index
        m = self.msg(h)[src] * torch.sigmoid(self.gate(edge_attr))
        agg = torch.zeros_like(h).index_add_(0, dst, m)
        return F.relu(self.update(torch.cat([h, agg], dim=1)))


class MPNN(nn.Module):
    def __init__(self, in_dim, hidden, layers):
        super().__init__()
        self.embed = nn.Linear(in_dim, hidden)
        self.layers = nn.ModuleList([EdgeGatedLayer(hidden) for _ in range(layers)])
        self.readout = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, data):
        h = F.relu(self.embed(data["x"]))
        for layer in self.layers:
            h = layer(h, data["edge_index"], data["edge_attr"])
        n = data["num_graphs"]
        pooled = torch.zeros(n, h.shape[1]).index_add_(0, data["batch"], h)
        counts = torch.bincount(data["batch"], minlength=n).clamp(min=1).unsqueeze(1)
        return self.readout(pooled / counts)


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.sum, self.count = 0.0, 0

    def update(self, value, n=1):
        self.sum += value * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def parse_args():
    parser = argparse.ArgumentParser(fromfile_prefix_chars="@")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--num-molecules", type=int, default=1000)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--log-interval", type=int, default=10)
    return parser.parse_args()


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    dataset = MoleculeDataset(args.num_molecules, args.seed)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, collate_fn=collate_graphs,
                        num_workers=args.workers, generator=torch.Generator().manual_seed(args.seed))
    model = MPNN(len(ATOM_TYPES) + MAX_DEGREE, args.hidden, args.layers)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

    meter = evalkit.Meter()
    epoch_mae = []
    it = 0
    for epoch in range(1, args.epochs + 1):
        mae = AverageMeter()
        for data in loader:
            meter.batch(data)
            pred = model(data)
            loss = F.mse_loss(pred, data["y"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            mae.update((pred.detach() - data["y"]).abs().mean().item(), data["num_graphs"])
            it += 1
            if it % args.log_interval == 0:
                print(f"epoch {epoch} iter {it} mse {loss.item():.4f} mae {mae.avg:.4f}")
            if meter.done():
                break
        epoch_mae.append(mae.avg)
        if meter.done():
            break
    meter.report(extra={"epoch_mae": epoch_mae, "iterations": it})


if __name__ == "__main__":
    main()
