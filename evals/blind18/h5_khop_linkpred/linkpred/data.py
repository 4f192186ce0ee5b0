import random

import torch
from torch.utils.data import Dataset


def make_graph(num_nodes, edges_per_node, num_communities, feature_dim, seed):
    """A community-structured preferential-attachment graph.

    Returns edge_index (2, 2E) int64 with both directions, in arrival order, and float32 node features.
    """
    r = random.Random(seed)
    community = [r.randrange(num_communities) for _ in range(num_nodes)]
    targets = []  # degree-weighted pool (preferential attachment)
    edges = set()
    src, dst = [], []
    for n in range(num_nodes):
        if n < edges_per_node + 1:
            for m in range(n):
                edges.add((m, n))
                src += [m, n]
                dst += [n, m]
                targets += [m, n]
            continue
        chosen = set()
        tries = 0
        while len(chosen) < edges_per_node and tries < 50:
            tries += 1
            cand = r.choice(targets)
            if community[cand] != community[n] and r.random() < 0.7:
                continue
            if cand != n and cand not in chosen:
                chosen.add(cand)
        for m in sorted(chosen):
            edges.add((m, n))
            src += [m, n]
            dst += [n, m]
            targets += [m, n]
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(num_communities, feature_dim, generator=g)
    feats = centers[torch.tensor(community)] + 0.8 * torch.randn(num_nodes, feature_dim, generator=g)
    return torch.tensor([src, dst], dtype=torch.int64), feats.float(), edges


class EdgePairs(Dataset):
    """Positive training edges and as many sampled non-edges, as (u, v, label)."""

    def __init__(self, edges, num_nodes, num_train, seed):
        r = random.Random(seed + 1)
        pos = r.sample(sorted(edges), num_train)
        neg = []
        while len(neg) < num_train:
            u, v = r.randrange(num_nodes), r.randrange(num_nodes)
            if u != v and (min(u, v), max(u, v)) not in edges:
                neg.append((u, v))
        self.items = [(u, v, 1) for u, v in pos] + [(u, v, 0) for u, v in neg]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return self.items[idx]
