import numpy as np
import torch
from torch.utils.data import Dataset

INF = 510


def random_molecule(rng, n_min, n_max, n_types):
    n = int(rng.integers(n_min, n_max + 1))
    atoms = rng.integers(0, n_types, size=n)
    edges = [(int(rng.integers(0, i)), i) for i in range(1, n)]  # random tree
    for _ in range(int(rng.integers(0, 4))):                     # a few rings
        a, b = rng.choice(n, size=2, replace=False)
        edges.append((int(a), int(b)))
    # target: how "compact" the molecule is, plus composition
    return atoms, edges


def floyd_warshall(n, edges):
    dist = [[INF] * n for _ in range(n)]
    for i in range(n):
        dist[i][i] = 0
    for a, b in edges:
        dist[a][b] = dist[b][a] = 1
    for k in range(n):
        dk = dist[k]
        for i in range(n):
            di = dist[i]
            dik = di[k]
            if dik == INF:
                continue
            for j in range(n):
                cand = dik + dk[j]
                if cand < di[j]:
                    di[j] = cand
    return dist


class SyntheticMolecules(Dataset):
    def __init__(self, cfg):
        rng = np.random.default_rng(cfg.SEED)
        self.graphs = [random_molecule(rng, cfg.MIN_ATOMS, cfg.MAX_ATOMS, cfg.NUM_ATOM_TYPES)
                       for _ in range(cfg.NUM_GRAPHS)]
        self.max_dist = cfg.MAX_DIST
        self.perm_rng = np.random.default_rng(cfg.SEED + 1)

    def __len__(self):
        return len(self.graphs)

    def __getitem__(self, idx):
        atoms, edges = self.graphs[idx]
        n = len(atoms)
        perm = self.perm_rng.permutation(n)           # node-order augmentation
        inv = np.empty(n, dtype=np.int64)
        inv[perm] = np.arange(n)
        atoms = atoms[perm]
        edges = [(int(inv[a]), int(inv[b])) for a, b in edges]
        dist = floyd_warshall(n, edges)
        degree = [0] * n
        for a, b in edges:
            degree[a] += 1
            degree[b] += 1
        spd = torch.tensor(dist).clamp_(max=self.max_dist)
        y = float(spd.float().mean()) / self.max_dist + 0.05 * float((atoms == 0).sum())
        return {"atoms": torch.from_numpy(atoms), "degree": torch.tensor(degree), "spd": spd,
                "y": torch.tensor(y, dtype=torch.float32)}


def collate_graphs(items):
    n_max = max(len(it["atoms"]) for it in items)
    B = len(items)
    atoms = torch.zeros(B, n_max, dtype=torch.long)
    degree = torch.zeros(B, n_max, dtype=torch.long)
    spd = torch.zeros(B, n_max, n_max, dtype=torch.long)
    mask = torch.zeros(B, n_max, dtype=torch.bool)
    for b, it in enumerate(items):
        n = len(it["atoms"])
        atoms[b, :n] = it["atoms"] + 1
        degree[b, :n] = it["degree"].clamp(max=7)
        spd[b, :n, :n] = it["spd"]
        mask[b, :n] = True
    return {"atoms": atoms, "degree": degree, "spd": spd, "mask": mask,
            "y": torch.stack([it["y"] for it in items])}
