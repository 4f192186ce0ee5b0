import numpy as np
import torch
from torch.utils.data import Dataset

from .shapes import make_clouds
from .transforms import fixed_size, normalize_unit_sphere, random_rotate_scale, voxel_downsample


class ScanDataset(Dataset):
    def __init__(self, cfg, seed):
        self.clouds, self.labels = make_clouds(cfg["clouds_per_class"], cfg["raw_points"], seed)
        self.cfg = cfg
        self.rng = np.random.default_rng(seed + 100)

    def __len__(self):
        return len(self.clouds)

    def __getitem__(self, i):
        cfg = self.cfg
        pts = random_rotate_scale(self.clouds[i], self.rng, cfg["scale_range"], cfg["jitter"])
        pts = voxel_downsample(pts, cfg["voxel_size"])
        pts = normalize_unit_sphere(fixed_size(pts, cfg["num_points"], self.rng))
        return torch.from_numpy(pts.astype(np.float32)), self.labels[i]


def collate(samples):
    points = torch.stack([p for p, _ in samples])
    labels = torch.tensor([y for _, y in samples])
    return [points, labels]
