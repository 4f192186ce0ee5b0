import numpy as np
import torch
from torch.utils.data import Dataset

from .figures import FLIP_PAIRS, JOINTS, make_figures
from .targets import render_heatmaps


class StickFigurePose(Dataset):
    """Top-down pose samples: flip + shift augmentation, then heatmap targets."""

    def __init__(self, cfg, seed):
        d = cfg["data"]
        self.size = d["image_size"]
        self.stride = d["heatmap_stride"]
        self.sigma = d["sigma"]
        self.flip_prob = d["flip_prob"]
        self.max_shift = d["max_shift"]
        self.images, self.keypoints = make_figures(d["num_images"], self.size, seed)
        self.rng = np.random.default_rng(seed + 1)
        self.flip_index = list(range(len(JOINTS)))
        for a, b in FLIP_PAIRS:
            self.flip_index[a], self.flip_index[b] = b, a

    def __len__(self):
        return len(self.images)

    def _augment(self, img, kp):
        kp = kp.copy()
        if self.rng.random() < self.flip_prob:
            img = img[:, ::-1]
            kp[:, 0] = self.size - 1 - kp[:, 0]
            kp = kp[self.flip_index]
        dx, dy = self.rng.integers(-self.max_shift, self.max_shift + 1, size=2)
        img = np.roll(img, (int(dy), int(dx)), axis=(0, 1))
        kp = kp + np.array([dx, dy], dtype=np.float64)
        return np.ascontiguousarray(img), kp

    def __getitem__(self, idx):
        img, kp = self._augment(self.images[idx], self.keypoints[idx])
        visible = [int(0 <= x < self.size and 0 <= y < self.size) for x, y in kp.tolist()]
        heatmaps, weights = render_heatmaps(kp.tolist(), visible, self.size // self.stride,
                                            self.stride, self.sigma)
        return {
            "image": torch.from_numpy(img).float().div_(255.0).unsqueeze(0),
            "heatmaps": torch.tensor(heatmaps, dtype=torch.float32),
            "target_weight": torch.tensor(weights, dtype=torch.float32),
            "joints": torch.from_numpy(kp.astype(np.float32)),
        }
