"""Ego subgraphs: BFS from a seed intersection to a random hop radius, capped at max_nodes."""
from collections import deque

import numpy as np
from torch.utils.data import Dataset


class EgoSubgraphs(Dataset):
    def __init__(self, net, min_hops, max_hops, max_nodes, seed):
        self.net = net
        self.min_hops = min_hops
        self.max_hops = max_hops
        self.max_nodes = max_nodes
        self.rng = np.random.default_rng(seed)
        # plain Python copies of the per-node / per-edge attributes for the per-sample loops
        self.xy = net.xy.tolist()
        self.signal = net.signal.tolist()
        self.elevation = net.elevation.tolist()
        self.congestion = net.congestion.tolist()
        self.edge_attr = list(zip((net.edge_length / 200.0).tolist(), (net.edge_speed / 70.0).tolist()))

    def __len__(self):
        return self.net.n_nodes

    def _bfs(self, seed, hops):
        order, depth = [seed], {seed: 0}
        queue = deque([seed])
        while queue and len(order) < self.max_nodes:
            u = queue.popleft()
            if depth[u] == hops:
                continue
            for v, _ in self.net.adj[u]:
                if v not in depth:
                    depth[v] = depth[u] + 1
                    order.append(v)
                    queue.append(v)
                    if len(order) == self.max_nodes:
                        break
        return order, depth

    def __getitem__(self, seed):
        net = self.net
        hops = int(self.rng.integers(self.min_hops, self.max_hops + 1))
        nodes, depth = self._bfs(seed, hops)
        local = {g: i for i, g in enumerate(nodes)}
        edges = []
        for u in nodes:
            for v, eid in net.adj[u]:
                if v in local:
                    edges.append((local[u], local[v], eid))   # both directions appear, parallel edges kept
        ox, oy = self.xy[seed]
        feats = [[(self.xy[g][0] - ox) / 1000.0, (self.xy[g][1] - oy) / 1000.0,
                  float(self.signal[g]), self.elevation[g] / 40.0, depth[g] / self.max_hops]
                 for g in nodes]
        edge_attr = [self.edge_attr[eid] for _, _, eid in edges]
        return {"x": feats, "edges": [(a, b) for a, b, _ in edges], "edge_attr": edge_attr,
                "y": [self.congestion[g] for g in nodes], "seed": seed}
