import random

import torch


class SubgraphCollator:
    """SEAL-style collate: the enclosing k-hop subgraph of each candidate edge, relabelled and padded.

    Returns [features (B, M, F+2), adjacency (B, M, M), node mask (B, M), labels (B,)]; the two extra
    feature columns are the hop distances to the two endpoints (relabelled as nodes 0 and 1).
    """

    def __init__(self, edge_index, features, num_hops, fanout, max_nodes, seed):
        self.edge_index = edge_index
        self.features = features
        self.num_hops, self.fanout, self.max_nodes = num_hops, fanout, max_nodes
        self.rng = random.Random(seed + 2)

    def neighbors(self, node):
        return self.edge_index[1][self.edge_index[0] == node].tolist()

    def _subgraph(self, u, v, positive):
        def allowed(a, b):
            # the candidate edge itself must not be visible to the model
            return not positive or {a, b} != {u, v}

        order, hop = [u, v], {u: (0, None), v: (None, 0)}
        dist_u, dist_v = {u: 0}, {v: 0}
        frontier = [(u, 0), (v, 1)]
        for depth in range(1, self.num_hops + 1):
            nxt = []
            for node, side in frontier:
                nbrs = [n for n in self.neighbors(node) if allowed(node, n)]
                if len(nbrs) > self.fanout:
                    nbrs = self.rng.sample(nbrs, self.fanout)
                dist = dist_u if side == 0 else dist_v
                for n in nbrs:
                    if n not in dist:
                        dist[n] = depth
                    if n not in hop and len(order) < self.max_nodes:
                        hop[n] = None
                        order.append(n)
                        nxt.append((n, side))
            frontier = nxt
            if len(order) >= self.max_nodes:
                break
        index = {n: i for i, n in enumerate(order)}
        pairs = []
        for n in order:
            for m in self.neighbors(n):
                if m in index and allowed(n, m):
                    pairs.append((index[n], index[m]))
        du = [dist_u.get(n, self.num_hops + 1) for n in order]
        dv = [dist_v.get(n, self.num_hops + 1) for n in order]
        return order, pairs, du, dv

    def __call__(self, items):
        b, m = len(items), self.max_nodes
        feats = torch.zeros(b, m, self.features.shape[1] + 2)
        adj = torch.zeros(b, m, m)
        mask = torch.zeros(b, m, dtype=torch.bool)
        labels = torch.zeros(b)
        for k, (u, v, label) in enumerate(items):
            order, pairs, du, dv = self._subgraph(u, v, label == 1)
            n = len(order)
            feats[k, :n, :-2] = self.features[order]
            feats[k, :n, -2] = torch.tensor(du, dtype=torch.float32) / (self.num_hops + 1)
            feats[k, :n, -1] = torch.tensor(dv, dtype=torch.float32) / (self.num_hops + 1)
            for i, j in pairs:
                adj[k, i, j] = 1.0
            mask[k, :n] = True
            labels[k] = float(label)
        return [feats, adj, mask, labels]
