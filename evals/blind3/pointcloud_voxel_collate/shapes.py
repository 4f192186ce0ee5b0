import numpy as np
import torch
from torch.utils.data import Dataset


def sample_shape(kind, n, rng):
    if kind == "sphere":
        v = rng.normal(size=(n, 3))
        return v / np.linalg.norm(v, axis=1, keepdims=True)
    if kind == "cube":
        p = rng.uniform(-0.8, 0.8, (n, 3))
        axis = rng.integers(0, 3, n)
        p[np.arange(n), axis] = np.sign(rng.uniform(-1, 1, n)) * 0.8
        return p
    if kind == "cylinder":
        t = rng.uniform(0, 2 * np.pi, n)
        return np.stack([0.7 * np.cos(t), 0.7 * np.sin(t), rng.uniform(-1, 1, n)], 1)
    if kind == "cone":
        h = rng.uniform(0, 1, n)
        t = rng.uniform(0, 2 * np.pi, n)
        return np.stack([0.8 * (1 - h) * np.cos(t), 0.8 * (1 - h) * np.sin(t), 2 * h - 1], 1)
    if kind == "torus":
        u, v = rng.uniform(0, 2 * np.pi, (2, n))
        return np.stack([(0.7 + 0.25 * np.cos(v)) * np.cos(u), (0.7 + 0.25 * np.cos(v)) * np.sin(u),
                         0.25 * np.sin(v)], 1)
    raise ValueError(kind)


class ShapeClouds(Dataset):
    def __init__(self, cfg, seed):
        rng = np.random.default_rng(seed)
        self.classes = cfg["classes"]
        self.labels = rng.integers(0, len(self.classes), cfg["num_clouds"])
        self.clouds = np.stack([
            sample_shape(self.classes[y], cfg["points_per_cloud"], rng) * rng.uniform(0.7, 1.2)
            for y in self.labels]).astype(np.float32)
        self.jitter = cfg["jitter_sigma"]
        self.rotate = cfg["rotate_z"]
        self.aug_rng = np.random.default_rng(seed + 17)

    def __len__(self):
        return len(self.clouds)

    def __getitem__(self, idx):
        pts = self.clouds[idx]
        if self.rotate:
            a = self.aug_rng.uniform(0, 2 * np.pi)
            rot = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]], np.float32)
            pts = pts @ rot.T
        pts = pts + self.aug_rng.normal(0, self.jitter, pts.shape).astype(np.float32)
        return pts, int(self.labels[idx])
