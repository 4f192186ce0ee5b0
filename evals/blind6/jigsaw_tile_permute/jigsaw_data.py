import itertools

import numpy as np
import torch
from torch.utils.data import Dataset


def make_textures(n, size, seed):
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size] / size
    out = np.empty((n, size, size), np.float32)
    for k in range(n):
        img = np.zeros((size, size))
        for _ in range(3):
            fx, fy, ph = rng.uniform(0.5, 4.0), rng.uniform(0.5, 4.0), rng.uniform(0, 2 * np.pi)
            img += np.sin(2 * np.pi * (fx * xx + fy * yy) + ph)
        img += 2.0 * xx * rng.uniform(-1, 1) + 2.0 * yy * rng.uniform(-1, 1)  # global gradient: a layout cue
        img = (img - img.min()) / (img.max() - img.min() + 1e-8)
        out[k] = img + rng.normal(0, 0.03, (size, size))
    return out


def permutation_set(n_tiles, count, seed):
    rng = np.random.default_rng(seed)
    allp = list(itertools.permutations(range(n_tiles)))
    picks = rng.choice(len(allp), size=count, replace=False)
    return [list(allp[i]) for i in sorted(picks)]


class JigsawPuzzles(Dataset):
    """Cut the image into grid x grid cells, take a jittered tile from each cell, shuffle the tiles."""

    MEAN, STD = 0.5, 0.25

    def __init__(self, images, grid, tile, perms, seed):
        self.images = images
        self.grid = grid
        self.tile = tile
        self.cell = images.shape[-1] // grid
        self.perms = perms
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        img = self.images[idx].tolist()
        label = int(self.rng.integers(0, len(self.perms)))
        perm = self.perms[label]
        tiles = []
        for cell in range(self.grid * self.grid):
            oy, ox = (int(v) for v in self.rng.integers(0, self.cell - self.tile + 1, size=2))
            r0 = (cell // self.grid) * self.cell + oy
            c0 = (cell % self.grid) * self.cell + ox
            tile = []
            for r in range(self.tile):
                row = []
                for c in range(self.tile):
                    row.append((img[r0 + r][c0 + c] - self.MEAN) / self.STD)
                tile.append(row)
            tiles.append(tile)
        shuffled = [tiles[p] for p in perm]
        return torch.tensor(shuffled, dtype=torch.float32).unsqueeze(1), label
