import numpy as np
import torch
from torch.utils.data import Dataset

from .builder import make_fragments
from .geometry import N_FEATURES, residue_features

IGNORE = -100


class FragmentDataset(Dataset):
    def __init__(self, n_frag, min_len, max_len, seed, coord_noise):
        self.frags = make_fragments(n_frag, min_len, max_len, seed)
        self.noise = coord_noise
        self.rng = np.random.default_rng(seed + 5)

    def __len__(self):
        return len(self.frags)

    def __getitem__(self, idx):
        xyz, ss = self.frags[idx]
        if self.noise > 0:
            xyz = xyz + self.rng.normal(0.0, self.noise, xyz.shape).astype(np.float32)
        return xyz, ss


def collate_backbones(batch):
    """Per-residue dihedral features, padded to the longest fragment, with a residue mask."""
    feats, labels = [], []
    longest = max(len(ss) for _, ss in batch)
    for xyz, ss in batch:
        f = residue_features(xyz.astype(np.float64).tolist())
        pad = longest - len(f)
        feats.append(f + [[0.0] * N_FEATURES for _ in range(pad)])
        labels.append(ss.tolist() + [IGNORE] * pad)
    x = torch.tensor(feats, dtype=torch.float32)
    y = torch.tensor(labels, dtype=torch.long)
    mask = y != IGNORE
    return x, y, mask
