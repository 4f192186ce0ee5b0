"""Per-intersection traffic speed regression on sampled road-network subgraphs with a dense GCN.

    python train.py --settings settings.py
"""
import argparse
import math
import random
import runpy
from collections import deque

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

import evalkit

N_FEATURES = 8


def build_city(rng, grid, remove_prob, arterial_every):
    """Perturbed grid city: node features, free-flow speed targets and an undirected edge list (u < v)."""
    n = grid * grid
    xy = np.stack(np.meshgrid(np.arange(grid), np.arange(grid), indexing="ij"), -1).reshape(n, 2).astype(float)
    xy += rng.normal(0, 0.15, size=xy.shape)
    edges = set()
    for r in range(grid):
        for c in range(grid):
            u = r * grid + c
            for dr, dc in ((0, 1), (1, 0)):
                rr, cc = r + dr, c + dc
                if rr < grid and cc < grid and rng.random() >= remove_prob:
                    edges.add((u, rr * grid + cc))
            if r % arterial_every == 0 and c + 1 < grid and r + 1 < grid and rng.random() < 0.5:
                edges.add((u, (r + 1) * grid + c + 1))
    arterial = np.array([(i // grid) % arterial_every == 0 or (i % grid) % arterial_every == 0 for i in range(n)])
    lanes = np.where(arterial, rng.integers(2, 5, size=n), rng.integers(1, 3, size=n))
    signal = rng.random(n) < 0.35
    centre = (grid - 1) / 2.0
    dist = np.hypot(xy[:, 0] - centre, xy[:, 1] - centre) / grid
    feats = np.stack([xy[:, 0] / grid, xy[:, 1] / grid, lanes / 4.0, signal.astype(float), arterial.astype(float),
                      dist, np.sin(xy[:, 0] / 3.0), np.cos(xy[:, 1] / 3.0)], 1).astype(np.float32)
    speed = 25.0 + 30.0 * dist + 6.0 * lanes - 8.0 * signal + rng.normal(0, 2.0, size=n)
    adj = [[] for _ in range(n)]
    for u, v in sorted(edges):
        adj[u].append(v)
        adj[v].append(u)
    return feats, ((speed - 40.0) / 10.0).astype(np.float32), sorted(edges), adj


class EgoSubgraphs(Dataset):
    """k-hop neighbourhoods (BFS, capped) around random centre intersections, with edge dropout."""

    def __init__(self, feats, speed, edges, adj, settings, seed):
        self.feats, self.speed, self.adj = feats, speed, adj
        self.edges = edges
        self.min_hops, self.max_hops = settings["MIN_HOPS"], settings["MAX_HOPS"]
        self.max_nodes, self.edge_dropout = settings["MAX_NODES"], settings["EDGE_DROPOUT"]
        rng = np.random.default_rng(seed)
        self.centers = rng.integers(0, len(feats), size=settings["CENTERS"]).tolist()
        self.gen = torch.Generator().manual_seed(seed)

    def __len__(self):
        return len(self.centers)

    def __getitem__(self, i):
        hops = int(torch.randint(self.min_hops, self.max_hops + 1, (1,), generator=self.gen))
        start = self.centers[i]
        seen, frontier, order = {start: 0}, deque([start]), [start]
        while frontier and len(order) < self.max_nodes:
            u = frontier.popleft()
            if seen[u] >= hops:
                continue
            for v in self.adj[u]:
                if v not in seen and len(order) < self.max_nodes:
                    seen[v] = seen[u] + 1
                    order.append(v)
                    frontier.append(v)
        members = set(order)
        cand = [(u, v) for u in order for v in self.adj[u] if u < v and v in members]
        keep = (torch.rand(len(cand), generator=self.gen) >= self.edge_dropout).tolist()
        return {"nodes": order, "edges": [e for e, k in zip(cand, keep) if k],
                "x": self.feats[order], "y": self.speed[order]}


class GraphCollator:
    """Batches variable-size subgraphs two ways: a flat graph with offset edge_index / GCN edge weights,
    and dense padded tensors (features, normalised adjacency with self-loops, node mask) for a dense GCN."""

    def __init__(self, pad_to_multiple=8):
        self.pad_to_multiple = pad_to_multiple

    def __call__(self, samples):
        max_n = max(len(s["nodes"]) for s in samples)
        max_n = -(-max_n // self.pad_to_multiple) * self.pad_to_multiple
        xs, ys, masks, adjs = [], [], [], []
        src, dst, weight, graph_of = [], [], [], []
        offset = 0
        for g, s in enumerate(samples):
            local = {nid: k for k, nid in enumerate(s["nodes"])}
            n = len(local)
            deg = [1] * n  # self-loop
            pairs = []
            for u, v in s["edges"]:
                a, b = local[u], local[v]
                deg[a] += 1
                deg[b] += 1
                pairs.append((a, b))
            adj = [[0.0] * max_n for _ in range(max_n)]
            for k in range(n):
                w = 1.0 / math.sqrt(deg[k] * deg[k])
                adj[k][k] = w
                src.append(k + offset)
                dst.append(k + offset)
                weight.append(w)
            for a, b in pairs:
                w = 1.0 / math.sqrt(deg[a] * deg[b])
                adj[a][b] = w
                adj[b][a] = w
                src.extend((a + offset, b + offset))
                dst.extend((b + offset, a + offset))
                weight.extend((w, w))
            rows = s["x"].tolist()
            xs.append(rows + [[0.0] * N_FEATURES for _ in range(max_n - n)])
            ys.append(s["y"].tolist() + [0.0] * (max_n - n))
            masks.append([True] * n + [False] * (max_n - n))
            adjs.append(adj)
            graph_of.extend([g] * n)
            offset += n
        return {
            "x": torch.tensor(xs, dtype=torch.float32),
            "adj": torch.tensor(adjs, dtype=torch.float32),
            "mask": torch.tensor(masks, dtype=torch.bool),
            "y": torch.tensor(ys, dtype=torch.float32),
            "edge_index": torch.tensor([src, dst], dtype=torch.long),
            "edge_weight": torch.tensor(weight, dtype=torch.float32),
            "batch": torch.tensor(graph_of, dtype=torch.long),
        }


class DenseGCN(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.lin1 = nn.Linear(N_FEATURES, hidden)
        self.lin2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x, adj):
        h = torch.relu(adj @ self.lin1(x))
        h = torch.relu(adj @ self.lin2(h))
        return self.out(h).squeeze(-1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings.py")
    args = ap.parse_args()
    settings = {k: v for k, v in runpy.run_path(args.settings).items() if k.isupper()}

    torch.set_num_threads(1)
    random.seed(settings["SEED"])
    np.random.seed(settings["SEED"])
    torch.manual_seed(settings["SEED"])

    feats, speed, edges, adj = build_city(np.random.default_rng(settings["SEED"]), settings["GRID"],
                                          settings["REMOVE_EDGE_PROB"], settings["ARTERIAL_EVERY"])
    dataset = EgoSubgraphs(feats, speed, edges, adj, settings, settings["SEED"] + 1)
    loader = DataLoader(dataset, batch_size=settings["BATCH_SIZE"], shuffle=True, collate_fn=GraphCollator(),
                        num_workers=settings["NUM_WORKERS"], generator=torch.Generator().manual_seed(settings["SEED"]))
    model = DenseGCN(settings["HIDDEN"])
    opt = torch.optim.Adam(model.parameters(), lr=settings["LR"])
    meter = evalkit.Meter()

    step, passes, edges_seen = 0, 0, 0
    batches = iter(loader)
    while step < settings["MAX_STEPS"]:
        try:
            batch = next(batches)
        except StopIteration:
            passes += 1
            batches = iter(loader)
            continue
        meter.batch(batch)
        pred = model(batch["x"], batch["adj"])
        m = batch["mask"]
        loss = ((pred - batch["y"]) ** 2)[m].mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        meter.step(loss)
        edges_seen += batch["edge_index"].shape[1]
        step += 1
        if meter.done():
            break
    meter.report({"edges_seen": edges_seen, "passes": passes})


if __name__ == "__main__":
    main()
