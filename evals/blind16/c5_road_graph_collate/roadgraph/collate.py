"""Batch variable-size subgraphs: padded node tensors, dense normalised adjacency, offset edge index."""
import math

import torch


class GraphCollator:
    """GCN normalisation  A_hat = D^-1/2 (A + I) D^-1/2  on the multigraph (parallel edges add up).

    Returns a dict with
      x          (B, N, F)   node features, zero padded
      adj        (B, N, N)   dense A_hat per graph
      mask       (B, N)      True on real nodes
      edge_index (2, E)      all graphs' edges, node ids offset by the graph's position in the batch
      edge_weight (E,)       A_hat entry of each edge
      edge_attr  (E, 2)
      y          (B, N)      congestion target, zero padded
    """

    def __init__(self, pad_to=None, pad_to_multiple=8):
        self.pad_to = pad_to                    # fixed node count (static shapes), else per batch
        self.pad_to_multiple = pad_to_multiple

    def __call__(self, graphs):
        n_max = max(len(g["x"]) for g in graphs)
        n_max = -(-n_max // self.pad_to_multiple) * self.pad_to_multiple
        if self.pad_to is not None:
            n_max = max(n_max, self.pad_to)
        n_feat = len(graphs[0]["x"][0])
        xs, adjs, masks, ys = [], [], [], []
        src, dst, weights, attrs = [], [], [], []
        offset = 0
        for g in graphs:
            n = len(g["x"])
            degree = [1] * n                        # self loop
            for a, _ in g["edges"]:
                degree[a] += 1
            adj = [[0.0] * n_max for _ in range(n_max)]
            for i in range(n):
                adj[i][i] += 1.0 / math.sqrt(degree[i] * degree[i])
            for (a, b), attr in zip(g["edges"], g["edge_attr"]):
                w = 1.0 / math.sqrt(degree[a] * degree[b])
                adj[a][b] += w
                src.append(a + offset)
                dst.append(b + offset)
                weights.append(w)
                attrs.append(list(attr))
            xs.append(g["x"] + [[0.0] * n_feat for _ in range(n_max - n)])
            adjs.append(adj)
            masks.append([True] * n + [False] * (n_max - n))
            ys.append(g["y"] + [0.0] * (n_max - n))
            offset += n
        return {
            "x": torch.tensor(xs, dtype=torch.float32),
            "adj": torch.tensor(adjs, dtype=torch.float32),
            "mask": torch.tensor(masks),
            "edge_index": torch.tensor([src, dst], dtype=torch.long),
            "edge_weight": torch.tensor(weights, dtype=torch.float32),
            "edge_attr": torch.tensor(attrs, dtype=torch.float32),
            "y": torch.tensor(ys, dtype=torch.float32),
        }
