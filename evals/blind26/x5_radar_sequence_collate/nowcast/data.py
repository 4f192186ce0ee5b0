import numpy as np
import torch
from torch.utils.data import Dataset

from .radar import simulate_sequence


class RadarSequences(Dataset):
    """Variable-length reflectivity histories (dBZ); the target is the frame after the last one."""

    def __init__(self, n_sequences, grid, min_frames, max_frames, n_cells, seed, **_):
        rng = np.random.default_rng(seed)
        self.seed = seed
        self.seqs = [simulate_sequence(rng, grid, int(rng.integers(min_frames, max_frames + 1)), n_cells)
                     for _ in range(n_sequences)]
        self.epoch = 0

    def __len__(self):
        return len(self.seqs)

    def __getitem__(self, idx):
        seq = self.seqs[idx]
        rng = np.random.default_rng((self.seed, self.epoch, idx))
        if rng.random() < 0.5:
            seq = seq[:, :, ::-1]
        if rng.random() < 0.5:
            seq = seq[:, ::-1, :]
        seq = torch.from_numpy(np.ascontiguousarray(seq))
        return {"frames": seq[:-1], "target": seq[-1], "station": idx % 7}


class PadCollate:
    """Left-pads histories to the longest one in the batch (latest frames aligned at the end),
    clips and standardises reflectivity, and builds the validity mask."""

    def __init__(self, dbz_clip, dbz_mean, dbz_std, **_):
        self.lo, self.hi = dbz_clip
        self.mean, self.std = dbz_mean, dbz_std

    def _norm(self, v):
        return (min(max(v, self.lo), self.hi) - self.mean) / self.std

    def __call__(self, batch):
        lengths = [len(b["frames"]) for b in batch]
        t_max = max(lengths)
        h, w = batch[0]["frames"].shape[1:]
        frames, masks = [], []
        for b, n in zip(batch, lengths):
            seq = [[[self._norm(v) for v in row] for row in frame] for frame in b["frames"].tolist()]
            pad = [[[0.0] * w for _ in range(h)] for _ in range(t_max - n)]
            frames.append(pad + seq)
            masks.append([False] * (t_max - n) + [True] * n)
        target = [[[self._norm(v) for v in row] for row in b["target"].tolist()] for b in batch]
        return {
            "frames": torch.tensor(frames, dtype=torch.float32),
            "mask": torch.tensor(masks, dtype=torch.bool),
            "lengths": torch.tensor(lengths),
            "target": torch.tensor(target, dtype=torch.float32),
            "station": torch.tensor([b["station"] for b in batch]),
        }
