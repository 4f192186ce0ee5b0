"""Classify the circuit family of gate-level netlists with a dense GCN (padded batches)."""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

from evalkit import Meter
from netlist import make_dataset


def collate_dense(samples):
    """Pad a list of graphs to the largest one: normalised adjacency D^-1/2 (A + I) D^-1/2,
    node features and a node mask."""
    n_max = max(s["x"].shape[0] for s in samples)
    adj, feats, mask, labels = [], [], [], []
    for s in samples:
        n = s["x"].shape[0]
        deg = [1] * n  # self loop
        for u, v in s["edges"]:
            deg[u] += 1
            deg[v] += 1
        a = [[0.0] * n_max for _ in range(n_max)]
        for i in range(n):
            a[i][i] = 1.0 / deg[i]
        for u, v in s["edges"]:
            w = 1.0 / math.sqrt(deg[u] * deg[v])
            a[u][v] = w
            a[v][u] = w
        adj.append(a)
        rows = s["x"].tolist()
        feats.append(rows + [[0.0] * len(rows[0]) for _ in range(n_max - n)])
        mask.append([1.0] * n + [0.0] * (n_max - n))
        labels.append(s["y"])
    return {
        "adj": torch.tensor(adj, dtype=torch.float32),
        "x": torch.tensor(feats, dtype=torch.float32),
        "mask": torch.tensor(mask, dtype=torch.float32),
        "y": torch.tensor(labels, dtype=torch.long),
    }


class DenseGCN(nn.Module):
    def __init__(self, in_dim, hidden, layers, n_classes):
        super().__init__()
        dims = [in_dim] + [hidden] * layers
        self.convs = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.head = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.ReLU(), nn.Linear(hidden, n_classes))

    def forward(self, adj, x, mask):
        h = x
        for conv in self.convs:
            h = F.relu(adj @ conv(h))
        h = h * mask.unsqueeze(-1)
        mean = h.sum(1) / mask.sum(1, keepdim=True)
        peak = h.max(1).values
        return self.head(torch.cat([mean, peak], dim=1))


def train_epoch(model, loader, optimizer, meter, epoch, log_interval):
    model.train()
    correct = total = 0
    for it, batch in enumerate(loader):
        meter.batch(batch)
        logits = model(batch["adj"], batch["x"], batch["mask"])
        loss = F.cross_entropy(logits, batch["y"])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        correct += int((logits.argmax(1) == batch["y"]).sum())
        total += batch["y"].numel()
        if it % log_interval == 0:
            print(f"epoch {epoch} [{it}/{len(loader)}] loss {loss.item():.4f}")
        meter.step(loss)
        if meter.done():
            break
    return correct / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="config.yaml")
    with open(parser.parse_args().config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(1)
    torch.manual_seed(cfg["experiment"]["seed"])
    graphs = make_dataset(cfg["data"]["num_graphs"], cfg["data"]["families"], cfg["experiment"]["seed"])
    tcfg = cfg["train"]
    loader = DataLoader(graphs, batch_size=tcfg["batch_size"], shuffle=True, collate_fn=collate_dense,
                        generator=torch.Generator().manual_seed(cfg["experiment"]["seed"]))

    model = DenseGCN(graphs[0]["x"].shape[1], cfg["model"]["hidden"], cfg["model"]["layers"],
                     len(cfg["data"]["families"]))
    optimizer = torch.optim.Adam(model.parameters(), **tcfg["optimizer"])
    meter = Meter()
    accs = []
    for epoch in range(tcfg["epochs"]):
        accs.append(train_epoch(model, loader, optimizer, meter, epoch, tcfg["log_interval"]))
        print(f"epoch {epoch} train acc {accs[-1]:.3f}")
        if meter.done():
            break
    meter.report(extra={"train_acc": accs})


if __name__ == "__main__":
    main()
