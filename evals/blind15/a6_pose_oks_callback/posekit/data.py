import math

import numpy as np
import torch
from torch.utils.data import Dataset

N_JOINTS = 17
# COCO order: nose, eyes, ears, shoulders, elbows, wrists, hips, knees, ankles
FLIP_PAIRS = [(1, 2), (3, 4), (5, 6), (7, 8), (9, 10), (11, 12), (13, 14), (15, 16)]
_TEMPLATE = np.array([[0, -22], [-2, -24], [2, -24], [-4, -23], [4, -23], [-8, -14], [8, -14], [-11, -4],
                      [11, -4], [-12, 5], [12, 5], [-5, 4], [5, 4], [-6, 15], [6, 15], [-6, 25], [6, 25]],
                     dtype=np.float64)


class SyntheticPersons(Dataset):
    """Person crops (1 x H x W) with 17 keypoints; heatmap targets at stride 4.

    Each item: [image, target heatmaps, keypoints (x, y in input pixels), visibility, area].
    """

    def __init__(self, num_samples, image_size, seed, stride=4, sigma=1.5):
        self.h, self.w = image_size
        self.stride, self.sigma = stride, sigma
        rng = np.random.default_rng(seed)
        self.poses = []
        for _ in range(num_samples):
            angle = rng.normal(0.0, 0.25)
            scale = rng.uniform(0.8, 1.15)
            limb = rng.normal(0.0, 2.0, size=(N_JOINTS, 2))
            rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
            kp = (_TEMPLATE + limb) @ rot.T * scale + np.array([self.w / 2.0, self.h / 2.0 + 2.0])
            vis = (rng.random(N_JOINTS) > 0.15).astype(np.int64) * 2
            self.poses.append((kp, vis, float(rng.uniform(0.3, 1.0))))
        self.gen = torch.Generator().manual_seed(seed + 7)
        self._hy, self._hx = np.mgrid[0:self.h // stride, 0:self.w // stride]

    def __len__(self):
        return len(self.poses)

    def __getitem__(self, idx):
        kp, vis, contrast = self.poses[idx]
        kp = kp.copy()
        vis = vis.copy()
        shift = torch.randint(-3, 4, (2,), generator=self.gen).tolist()
        flip = bool(torch.rand(1, generator=self.gen) < 0.5)
        kp += np.array(shift, dtype=np.float64)
        if flip:
            kp[:, 0] = self.w - 1 - kp[:, 0]
            for a, b in FLIP_PAIRS:
                kp[[a, b]] = kp[[b, a]]
                vis[[a, b]] = vis[[b, a]]
        inside = (kp[:, 0] >= 0) & (kp[:, 0] < self.w) & (kp[:, 1] >= 0) & (kp[:, 1] < self.h)
        vis = np.where(inside, vis, 0)
        img = np.zeros((self.h, self.w))
        cols, rows = np.arange(self.w), np.arange(self.h)
        for (x, y), v in zip(kp, vis):
            if v:  # separable 2-px gaussian blob per visible joint
                img += contrast * np.outer(np.exp(-(rows - y) ** 2 / 8.0), np.exp(-(cols - x) ** 2 / 8.0))
        img += np.random.default_rng(idx).normal(0.0, 0.05, size=img.shape)
        hm = np.exp(-((self._hx[None] - kp[:, 0, None, None] / self.stride) ** 2
                      + (self._hy[None] - kp[:, 1, None, None] / self.stride) ** 2) / (2 * self.sigma ** 2))
        hm *= (vis > 0)[:, None, None]
        xs, ys = kp[vis > 0, 0], kp[vis > 0, 1]
        # box area of the visible keypoints, padded by 25 % per side (the person box, not the joint hull)
        area = float(2.25 * (xs.max() - xs.min()) * (ys.max() - ys.min())) if len(xs) > 1 else 1.0
        return [torch.from_numpy(img.astype(np.float32)).unsqueeze(0), torch.from_numpy(hm.astype(np.float32)),
                torch.from_numpy(kp.astype(np.float32)), torch.from_numpy(vis), torch.tensor(area)]
