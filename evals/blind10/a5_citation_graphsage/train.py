"""GraphSAGE node classification on a citation graph with sampled neighbourhoods (DGL-style blocks).

    python train.py --settings sage_settings.py
"""
import argparse
import random
import runpy
from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, Sampler

import evalkit

# src_index / dst_index: edge endpoints, local to the block's source and destination node lists;
# the first num_dst source nodes are the destination nodes themselves.
Block = namedtuple("Block", ["src_index", "dst_index", "num_src", "num_dst"])


def make_citation_graph(s):
    """Papers arrive in time order and cite earlier ones: half the references by preferential
    attachment (a uniformly drawn endpoint of an existing citation), half uniformly among earlier
    papers of the same topic when there are any. Returns undirected adjacency lists."""
    rng = np.random.default_rng(s["SEED"])
    pick = random.Random(s["SEED"])
    n, k = s["NUM_NODES"], s["NUM_CLASSES"]
    topic = rng.integers(0, k, n).tolist()
    by_topic = [[] for _ in range(k)]
    adj = [[] for _ in range(n)]
    ends = []
    lo, hi = s["REFS_PER_PAPER"]
    for v in range(n):
        m = min(v, pick.randint(lo, hi))
        refs = set()
        tries = 0
        while len(refs) < m and tries < 4 * m:
            tries += 1
            if ends and pick.random() < 0.5:
                u = pick.choice(ends)
            elif by_topic[topic[v]] and pick.random() < 0.8:
                u = pick.choice(by_topic[topic[v]])
            else:
                u = pick.randrange(v)
            refs.add(u)
        for u in sorted(refs):
            adj[v].append(u)
            adj[u].append(v)
            ends.extend((u, v))
        by_topic[topic[v]].append(v)
    centers = rng.normal(0, 1, (k, s["FEATURE_DIM"]))
    words = rng.random((n, s["FEATURE_DIM"])) < 0.08
    feats = words * (1.0 + 0.8 * centers[topic]) + rng.normal(0, 0.3, (n, s["FEATURE_DIM"]))
    return adj, torch.tensor(feats, dtype=torch.float32), torch.tensor(topic, dtype=torch.long)


class NodeIds(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        return idx


class SeedBatchSampler(Sampler):
    """Shuffled batches of training node ids; a new permutation every pass."""

    def __init__(self, train_nodes, batch_size, generator):
        self.train_nodes, self.batch_size, self.generator = train_nodes, batch_size, generator

    def __iter__(self):
        perm = torch.randperm(len(self.train_nodes), generator=self.generator).tolist()
        for i in range(0, len(perm) - self.batch_size + 1, self.batch_size):
            yield [self.train_nodes[j] for j in perm[i:i + self.batch_size]]

    def __len__(self):
        return len(self.train_nodes) // self.batch_size


class NeighborSamplerCollator:
    """Sample `fanouts` neighbours hop by hop from the seeds and build one block per hop.

    Returns [seed ids, input features, [block for hop K, ..., block for hop 1], seed labels]."""

    def __init__(self, adj, features, labels, fanouts, seed):
        self.adj, self.features, self.labels = adj, features, labels
        self.fanouts = fanouts
        self.rng = random.Random(seed)

    def sample_block(self, dst_nodes, fanout):
        src_nodes = list(dst_nodes)
        src_index, dst_index = [], []
        for d, v in enumerate(dst_nodes):
            nbrs = self.adj[v]
            picked = self.rng.sample(nbrs, fanout) if len(nbrs) > fanout else nbrs
            for u in picked:
                try:
                    s = src_nodes.index(u)
                except ValueError:
                    s = len(src_nodes)
                    src_nodes.append(u)
                src_index.append(s)
                dst_index.append(d)
        block = Block(torch.tensor(src_index, dtype=torch.long), torch.tensor(dst_index, dtype=torch.long),
                      len(src_nodes), len(dst_nodes))
        return block, src_nodes

    def __call__(self, seeds):
        nodes = list(seeds)
        blocks = []
        for fanout in self.fanouts:
            block, nodes = self.sample_block(nodes, fanout)
            blocks.insert(0, block)
        x = torch.stack([self.features[n] for n in nodes])
        seeds = torch.tensor(seeds, dtype=torch.long)
        return [seeds, x, blocks, self.labels[seeds]]


class SAGEConv(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.fc_self = nn.Linear(d_in, d_out)
        self.fc_neigh = nn.Linear(d_in, d_out, bias=False)

    def forward(self, h_src, block):
        h_dst = h_src[:block.num_dst]
        agg = torch.zeros(block.num_dst, h_src.shape[1]).index_add_(0, block.dst_index, h_src[block.src_index])
        deg = torch.zeros(block.num_dst).index_add_(0, block.dst_index, torch.ones(len(block.dst_index)))
        return self.fc_self(h_dst) + self.fc_neigh(agg / deg.clamp(min=1.0)[:, None])


class GraphSAGE(nn.Module):
    def __init__(self, d_in, hidden, n_classes):
        super().__init__()
        self.layers = nn.ModuleList([SAGEConv(d_in, hidden), SAGEConv(hidden, n_classes)])
        self.dropout = nn.Dropout(0.3)

    def forward(self, blocks, x):
        h = x
        for i, (layer, block) in enumerate(zip(self.layers, blocks)):
            h = layer(h, block)
            if i < len(self.layers) - 1:
                h = self.dropout(F.relu(h))
        return h


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="sage_settings.py")
    args = ap.parse_args()
    s = {k: v for k, v in runpy.run_path(args.settings).items() if k.isupper()}
    torch.set_num_threads(1)
    random.seed(s["SEED"])
    np.random.seed(s["SEED"])
    torch.manual_seed(s["SEED"])

    adj, feats, labels = make_citation_graph(s)
    g = torch.Generator().manual_seed(s["SEED"])
    n_train = int(s["TRAIN_FRACTION"] * s["NUM_NODES"])
    train_nodes = torch.randperm(s["NUM_NODES"], generator=g)[:n_train].tolist()
    loader = DataLoader(NodeIds(s["NUM_NODES"]), batch_sampler=SeedBatchSampler(train_nodes, s["BATCH_SIZE"], g),
                        collate_fn=NeighborSamplerCollator(adj, feats, labels, s["FANOUTS"], s["SEED"]),
                        num_workers=s["NUM_WORKERS"])
    model = GraphSAGE(s["FEATURE_DIM"], s["HIDDEN"], s["NUM_CLASSES"])
    opt = torch.optim.Adam(model.parameters(), lr=s["LR"], weight_decay=s["WEIGHT_DECAY"])
    meter = evalkit.Meter()

    step, passes, correct, seen = 0, 0, 0, 0
    it = iter(loader)
    while step < s["MAX_STEPS"] and not meter.done():
        try:
            seeds, x, blocks, y = batch = next(it)
        except StopIteration:
            passes += 1
            it = iter(loader)
            continue
        meter.batch(batch)
        model.train()
        logits = model(blocks, x)
        loss = F.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        meter.step(loss)
        step += 1
        correct += int((logits.argmax(1) == y).sum())
        seen += len(y)
        if step % s["LOG_EVERY"] == 0:
            print(f"step {step} pass {passes} loss {loss.item():.4f} acc {correct / seen:.3f} "
                  f"input nodes {x.shape[0]}")
            correct = seen = 0
    meter.report(extra={"passes": passes})


if __name__ == "__main__":
    main()
