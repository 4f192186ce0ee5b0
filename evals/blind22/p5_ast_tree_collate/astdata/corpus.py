"""Synthetic parsed programs: pre-order node lists with type ids and parent pointers (parent < child)."""
from dataclasses import dataclass
from typing import List

import numpy as np
from torch.utils.data import Dataset

LOOP_TYPES = (5, 6)        # For, While
BLOCK_TYPES = (2, 5, 6, 7)  # FunctionDef, For, While, If: nodes that open a body


@dataclass
class SyntaxTree:
    types: List[int]
    parents: List[int]
    label: int


def random_tree(rng, n_nodes, n_types):
    types, parents, open_blocks = [1], [-1], [0]  # node 0: Module
    for i in range(1, n_nodes):
        # attach to a recently opened block most of the time: gives realistic nesting
        k = min(len(open_blocks), 1 + int(rng.geometric(0.35)))
        parent = open_blocks[-k]
        if rng.random() < 0.25:
            t = int(BLOCK_TYPES[rng.integers(len(BLOCK_TYPES))])
        else:
            t = int(rng.integers(8, n_types))
        types.append(t)
        parents.append(parent)
        if t in BLOCK_TYPES:
            open_blocks.append(i)
        elif rng.random() < 0.15 and len(open_blocks) > 1:
            open_blocks.pop()
    return types, parents


def loop_nesting(types, parents):
    depth = [0] * len(types)
    for i, (t, p) in enumerate(zip(types, parents)):
        if p >= 0:
            depth[i] = depth[p] + (1 if types[p] in LOOP_TYPES else 0)
    return max(d + (1 if t in LOOP_TYPES else 0) for d, t in zip(depth, types))


class TreeCorpus(Dataset):
    def __init__(self, num_programs, min_nodes, max_nodes, n_types, seed):
        rng = np.random.default_rng(seed)
        self.trees = []
        for _ in range(num_programs):
            types, parents = random_tree(rng, int(rng.integers(min_nodes, max_nodes + 1)), n_types)
            label = min(loop_nesting(types, parents), 3)
            self.trees.append(SyntaxTree(types, parents, label))

    def __len__(self):
        return len(self.trees)

    def __getitem__(self, idx):
        return self.trees[idx]
