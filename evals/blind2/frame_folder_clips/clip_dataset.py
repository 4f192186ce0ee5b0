import glob
import os
import random

import numpy as np
import torch
from torch.utils.data import Dataset

from make_clips import ACTIONS


class FrameFolderClips(Dataset):
    """One folder per clip, one raw file per frame; TSN-style segment sampling of num_segments frames."""

    def __init__(self, root, num_segments, size, seed, mean, std):
        self.clip_dirs = sorted(glob.glob(os.path.join(root, "clips", "clip_*")))
        self.num_segments = num_segments
        self.size = size
        self.seed = seed
        self.epoch = 0
        self.mean = torch.tensor(mean).view(1, 3, 1, 1)
        self.std = torch.tensor(std).view(1, 3, 1, 1)

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return len(self.clip_dirs)

    def _load_frames(self, clip_dir):
        frames = []
        for path in sorted(glob.glob(os.path.join(clip_dir, "frame_*.raw"))):
            with open(path, "rb") as f:
                frames.append(np.frombuffer(f.read(), dtype=np.uint8).reshape(self.size, self.size, 3))
        with open(os.path.join(clip_dir, "label.txt")) as f:
            label = ACTIONS.index(f.read().strip())
        return np.stack(frames), label

    def _segment_indices(self, n_frames, rng):
        seg = n_frames / self.num_segments
        return [min(int(seg * k + rng.random() * seg), n_frames - 1) for k in range(self.num_segments)]

    def __getitem__(self, idx):
        frames, label = self._load_frames(self.clip_dirs[idx])
        rng = random.Random(self.seed * 1_000_003 + self.epoch * 10_007 + idx)
        clip = torch.from_numpy(frames[self._segment_indices(len(frames), rng)])
        clip = clip.permute(0, 3, 1, 2).float().div(255.0)
        return (clip - self.mean) / self.std, label
