"""Random 'molecules': a spanning tree over typed atoms plus a few ring closures.

Each graph is a dict in the PyG spirit: x [num_nodes, F], edge_index [2, num_edges]
(both directions), edge_attr [num_edges, 3] (one-hot bond order) and y [1].
"""
import random

import torch

ATOM_TYPES = ["C", "N", "O", "S", "F", "Cl"]
ATOM_PROBS = [0.55, 0.15, 0.15, 0.05, 0.05, 0.05]
MAX_DEGREE = 5


def random_molecule(rng: random.Random):
    n = rng.randint(8, 28)
    atoms = rng.choices(range(len(ATOM_TYPES)), weights=ATOM_PROBS, k=n)
    bonds = []
    for i in range(1, n):
        bonds.append((rng.randrange(i), i, rng.choices([0, 1, 2], weights=[0.7, 0.25, 0.05])[0]))
    rings = 0
    for _ in range(rng.randint(0, 2)):
        a, b = rng.sample(range(n), 2)
        if abs(a - b) > 2:
            bonds.append((min(a, b), max(a, b), 0))
            rings += 1
    degree = [0] * n
    for a, b, _ in bonds:
        degree[a] += 1
        degree[b] += 1

    x = torch.zeros(n, len(ATOM_TYPES) + MAX_DEGREE)
    for i, t in enumerate(atoms):
        x[i, t] = 1.0
        x[i, len(ATOM_TYPES) + min(degree[i], MAX_DEGREE) - 1] = 1.0
    src, dst, attr = [], [], []
    for a, b, order in bonds:
        for u, v in ((a, b), (b, a)):
            src.append(u)
            dst.append(v)
            attr.append([1.0 if k == order else 0.0 for k in range(3)])
    # target: a made-up "polarity" score from hetero-atom bonds, bond orders and rings
    polar = sum(1 for a, b, _ in bonds if (atoms[a] != 0) != (atoms[b] != 0))
    multiple = sum(order for _, _, order in bonds)
    y = 0.3 * polar + 0.5 * multiple + 0.8 * rings - 0.05 * n
    return {
        "x": x,
        "edge_index": torch.tensor([src, dst], dtype=torch.long),
        "edge_attr": torch.tensor(attr),
        "y": torch.tensor([y], dtype=torch.float32),
    }


class MoleculeDataset(torch.utils.data.Dataset):
    def __init__(self, size: int, seed: int):
        rng = random.Random(seed)
        self.graphs = [random_molecule(rng) for _ in range(size)]

    def __len__(self):
        return len(self.graphs)

    def __getitem__(self, idx):
        return self.graphs[idx]
