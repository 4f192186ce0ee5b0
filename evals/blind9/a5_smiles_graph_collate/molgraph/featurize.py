"""Graph featurisation and padding collate for Graphormer-style models."""
import torch
from torch.utils.data import Dataset

from .smiles import ELEMENTS, VALENCE, parse_smiles

NUM_ATOM_FEATURES = len(ELEMENTS) + 5 + 5


def atom_features(symbol, adj_row):
    """one-hot element | one-hot degree (0..4) | one-hot implicit H count (0..4)."""
    degree = sum(1 for o in adj_row if o)
    valence_used = sum(adj_row)
    hs = max(0, VALENCE[symbol] - valence_used)
    return ([1.0 if symbol == e else 0.0 for e in ELEMENTS]
            + [1.0 if degree == d else 0.0 for d in range(5)]
            + [1.0 if hs == h else 0.0 for h in range(5)])


def floyd_warshall(adj):
    n = len(adj)
    inf = n + 1
    dist = [[0 if i == j else (1 if adj[i][j] else inf) for j in range(n)] for i in range(n)]
    for k in range(n):
        dk = dist[k]
        for i in range(n):
            dik = dist[i][k]
            if dik == inf:
                continue
            di = dist[i]
            for j in range(n):
                if dik + dk[j] < di[j]:
                    di[j] = dik + dk[j]
    return dist


class SmilesDataset(Dataset):
    def __init__(self, smiles, targets):
        self.smiles = smiles
        self.targets = targets

    def __len__(self):
        return len(self.smiles)

    def __getitem__(self, idx):
        return self.smiles[idx], self.targets[idx]


class GraphCollator:
    """Parses the batch's SMILES, randomly permutes each graph's atom order (the model must be
    permutation invariant; this also hides the SMILES writer's DFS order) and pads to the
    largest molecule. dist holds min(d, max_distance) + 1 for atom pairs, 0 for padding."""

    def __init__(self, max_distance, seed):
        self.max_distance = max_distance
        self.generator = torch.Generator().manual_seed(seed)

    def __call__(self, batch):
        graphs = []
        for smiles, y in batch:
            atoms, bonds = parse_smiles(smiles)
            n = len(atoms)
            adj = [[0] * n for _ in range(n)]
            for i, j, o in bonds:
                adj[i][j] = adj[j][i] = o
            feats = [atom_features(a, adj[i]) for i, a in enumerate(atoms)]
            dist = floyd_warshall(adj)
            perm = torch.randperm(n, generator=self.generator).tolist()
            graphs.append((
                [feats[p] for p in perm],
                [[adj[p][q] for q in perm] for p in perm],
                [[min(dist[p][q], self.max_distance) + 1 for q in perm] for p in perm],
                y,
            ))
        nmax = max(len(g[0]) for g in graphs)
        x, a, d, mask, ys = [], [], [], [], []
        for feats, adj, dist, y in graphs:
            n = len(feats)
            x.append(feats + [[0.0] * NUM_ATOM_FEATURES] * (nmax - n))
            a.append([row + [0] * (nmax - n) for row in adj] + [[0] * nmax] * (nmax - n))
            d.append([row + [0] * (nmax - n) for row in dist] + [[0] * nmax] * (nmax - n))
            mask.append([True] * n + [False] * (nmax - n))
            ys.append(y)
        return {
            "x": torch.tensor(x, dtype=torch.float32),
            "adj": torch.tensor(a, dtype=torch.long),
            "dist": torch.tensor(d, dtype=torch.long),
            "mask": torch.tensor(mask),
            "y": torch.tensor(ys, dtype=torch.float32),
        }
